#!/usr/bin/env python3
"""The paper's Database.Request with Python's xmlrpc.server (SimpleXMLRPCServer, defaults
apart from the request log, which is off). Prints "listening on PORT"; ends on SIGTERM."""

import sys
import xmlrpc.client
from xmlrpc.server import SimpleXMLRPCServer

sys.path.insert(0, __import__("os").path.dirname(__file__))
import paper_data  # noqa: E402

RECORDS = [paper_data.make_info(i, False) for i in range(1, paper_data.RECORDS + 1)]
PHOTO = xmlrpc.client.Binary(paper_data.PHOTO)
NO_PHOTO = xmlrpc.client.Binary(b"")


def request(record_id, with_photo):
    info = dict(RECORDS[record_id - 1])
    info["photo"] = PHOTO if with_photo else NO_PHOTO
    return info


def main():
    server = SimpleXMLRPCServer(("127.0.0.1", 0), logRequests=False)
    server.register_function(request, "Database.Request")
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
