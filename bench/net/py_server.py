#!/usr/bin/env python3
"""callwire bench: Python's xmlrpc.server with sample.add, to place callwire among servers.

Usage: python3 bench/net/py_server.py [--no-threads]

SimpleXMLRPCServer with socketserver.ThreadingMixIn (a thread per connection; without it one
kept-alive connection would hold the server and wrk's 32 connections would starve), its
request handler speaking HTTP/1.1 so that connections are kept alive (the standard handler
says HTTP/1.0 and closes after every answer), no request log, and a listen backlog of 128
(socketserver's default of 5 drops connections when wrk opens 32 at once). Nagle is already
off in SimpleXMLRPCRequestHandler. Listens on 127.0.0.1 on a port the kernel picks and
prints "listening on http://127.0.0.1:PORT/RPC2" like `callwire serve`.
"""

import socketserver
import sys
from xmlrpc.server import SimpleXMLRPCRequestHandler, SimpleXMLRPCServer


class Handler(SimpleXMLRPCRequestHandler):
    protocol_version = "HTTP/1.1"
    rpc_paths = ("/RPC2", "/")


class ThreadedServer(socketserver.ThreadingMixIn, SimpleXMLRPCServer):
    daemon_threads = True
    request_queue_size = 128


class PlainServer(SimpleXMLRPCServer):
    request_queue_size = 128


def main():
    threaded = "--no-threads" not in sys.argv[1:]
    cls = ThreadedServer if threaded else PlainServer
    server = cls(("127.0.0.1", 0), requestHandler=Handler, logRequests=False, allow_none=True)
    server.register_function(lambda a, b: a + b, "sample.add")
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/RPC2", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
