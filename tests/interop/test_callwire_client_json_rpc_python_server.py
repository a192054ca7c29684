"""`callwire call --json-rpc` (the Client speaking JSON-RPC 2.0) against jsonrpclib-pelix's
SimpleJSONRPCServer (Debian's python3-jsonrpclib-pelix), in this process on port 0: positional
calls, every JSON type back, errors with their codes, a notification, a jsonrpc+http:// URL."""

import json
import threading

import pytest

from conftest import run

SimpleJSONRPCServer = pytest.importorskip("jsonrpclib.SimpleJSONRPCServer")


@pytest.fixture
def python_server():
    calls = []
    server = SimpleJSONRPCServer.SimpleJSONRPCServer(("127.0.0.1", 0), logRequests=False)
    server.register_function(lambda a, b: a + b, "sample.add")
    server.register_function(lambda *p: list(p), "echo")
    server.register_function(calls.append, "note")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", calls
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_calls(callwire_bin, python_server):
    url, _ = python_server
    r = run([callwire_bin, "call", "--json-rpc", url, "sample.add", "2", "3"])
    assert r.returncode == 0, r.stderr
    assert r.stdout == "5\n"
    r = run([callwire_bin, "call", "jsonrpc+" + url, "echo", '"t\\u00e9"', "[1,2]",
             '{"a":null}', "1.5", "true", "9007199254740993"])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == ["t\u00e9", [1, 2], {"a": None}, 1.5, True, 9007199254740993]


def test_errors(callwire_bin, python_server):
    url, _ = python_server
    r = run([callwire_bin, "call", "--json-rpc", url, "no.such.method"])
    assert r.returncode == 1
    assert r.stderr.startswith("fault -32601: "), r.stderr
    # Python's TypeError for a wrong parameter count comes back as an error object.
    r = run([callwire_bin, "call", "--json-rpc", url, "sample.add", "1"])
    assert r.returncode == 1
    assert r.stderr.startswith("fault "), r.stderr


def test_notification(callwire_bin, python_server):
    url, calls = python_server
    r = run([callwire_bin, "call", "--json-rpc", "--notify", url, "note", '"x"'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    # A later call on the same server: the notification ran before it was answered.
    r = run([callwire_bin, "call", "--json-rpc", url, "sample.add", "1", "1"])
    assert r.returncode == 0, r.stderr
    assert calls == ["x"]
