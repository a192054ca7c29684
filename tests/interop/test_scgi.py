"""`callwire call` and `callwire list` over SCGI against an XML-RPC server as rtorrent is one:
Python's own XML-RPC dispatcher (xmlrpc.server.SimpleXMLRPCDispatcher) behind SCGI framing
written here (a netstring of header pairs, CONTENT_LENGTH first; a CGI response; one request
per connection), on TCP and on a Unix socket."""

import json
import os
import socket
import socketserver
import tempfile
import threading
import xmlrpc.client
import xmlrpc.server

import pytest

from conftest import run


class ScgiHandler(socketserver.StreamRequestHandler):
    """One SCGI request: checks its framing, dispatches it, answers like rtorrent."""

    dispatcher = None
    seen = []  # each request's header pairs, as a dict

    def handle(self):
        length = b""
        while not length.endswith(b":"):
            c = self.rfile.read(1)
            assert c, "the connection ended inside the netstring length"
            length += c
        block = self.rfile.read(int(length[:-1]))
        assert self.rfile.read(1) == b",", "the netstring does not end with ','"
        items = block.split(b"\0")[:-1]
        headers = dict(zip(items[0::2], items[1::2]))
        assert items[0] == b"CONTENT_LENGTH" and headers[b"SCGI"] == b"1"
        ScgiHandler.seen.append(headers)
        body = self.rfile.read(int(headers[b"CONTENT_LENGTH"]))
        answer = ScgiHandler.dispatcher._marshaled_dispatch(body)
        self.wfile.write(b"Status: 200 OK\r\nContent-Type: text/xml\r\nContent-Length: %d\r\n\r\n"
                         % len(answer) + answer)


def sample_add(a, b):
    return a + b


def fail():
    raise xmlrpc.client.Fault(4, "Too many parameters.")


@pytest.fixture(scope="module")
def dispatcher():
    d = xmlrpc.server.SimpleXMLRPCDispatcher(allow_none=True)
    d.register_introspection_functions()
    d.register_function(sample_add, "sample.add")
    d.register_function(fail, "fail")
    d.register_function(lambda s: s, "echo")
    ScgiHandler.dispatcher = d
    return d


@pytest.fixture(scope="module")
def tcp_scgi(dispatcher):
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), ScgiHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"scgi://127.0.0.1:{server.server_address[1]}/RPC2"
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.fixture(scope="module")
def unix_scgi(dispatcher):
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "scgi.sock")
    server = socketserver.ThreadingUnixStreamServer(path, ScgiHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"scgi+unix:{path}"
    server.shutdown()
    server.server_close()
    thread.join(5)
    os.unlink(path)
    os.rmdir(directory)


def call(callwire_bin, url, *args):
    r = run([callwire_bin, "call", url, *args])
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def test_calls_over_tcp(callwire_bin, tcp_scgi):
    assert call(callwire_bin, tcp_scgi, "sample.add", "i/5", "i/3") == (0, "8", "")
    big = "x" * 100000  # one argument may hold up to 128 KiB
    code, out, err = call(callwire_bin, tcp_scgi, "echo", "s/" + big)
    assert code == 0 and json.loads(out) == big, err
    headers = ScgiHandler.seen[-1]
    assert headers[b"REQUEST_METHOD"] == b"POST" and headers[b"REQUEST_URI"] == b"/RPC2"


def test_faults_and_listing(callwire_bin, tcp_scgi):
    code, out, err = call(callwire_bin, tcp_scgi, "fail")
    assert code != 0 and "Too many parameters." in err and "4" in err
    r = run([callwire_bin, "list", tcp_scgi])
    assert r.returncode == 0 and "sample.add" in r.stdout, r.stderr


def test_calls_over_a_unix_socket(callwire_bin, unix_scgi):
    assert call(callwire_bin, unix_scgi, "sample.add", "i/20", "i/22") == (0, "42", "")


def test_a_dead_port_is_a_clear_error(callwire_bin):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nobody listens there now
    code, _, err = call(callwire_bin, f"scgi://127.0.0.1:{port}", "sample.add", "i/1", "i/2")
    assert code != 0 and "connect" in err.lower(), err
