"""`callwire call --json-rpc` (the Client speaking JSON-RPC 2.0) against libjsonrpccpp's server
(Debian's libjsonrpccpp-dev 0.7.0: AbstractServer over HttpServer, jsonrpccpp_server.cpp) on
127.0.0.1, port 0: calls, every JSON type back, the library's -32601 and -32602, an error thrown
with its own code, a notification. The command sends no batch, so none is tested here.

libjsonrpccpp 0.7.0 answers a notification with HTTP 200 and an empty body (not 204), which our
client takes as success. It checks a request's kind against the procedure's: a notification sent
to a method (or a call to a notification procedure) is refused with its own error, -32604
(-32605), and that error is answered even to a notification, which the spec forbids; our client
reports it as a fault.

The programs come from the environment (CMakeLists.txt): CALLWIRE_BIN, JSONRPCCPP_SERVER.
"""

import json

import pytest

from conftest import ServerProcess, _program, run


@pytest.fixture(scope="module")
def jsonrpccpp_server():
    server = ServerProcess([_program("JSONRPCCPP_SERVER",
                                     "build/release/tests/interop/jsonrpccpp_server")])
    yield server
    assert server.stop() == 0, server.stderr()


def call(callwire_bin, server, method, *params, notify=False):
    flags = ["--notify"] if notify else []
    return run([callwire_bin, "call", "--json-rpc", "--timeout", "10", *flags, server.url,
                method, *params])


def test_calls(callwire_bin, jsonrpccpp_server):
    r = call(callwire_bin, jsonrpccpp_server, "add", "2", "3")
    assert (r.returncode, r.stdout) == (0, "5\n"), r.stderr
    params = ['"caf\\u00e9"', "[1,[2]]", '{"a":null,"b":{}}', "-1.5", "true", "false", "null",
              "9007199254740993"]
    r = run([callwire_bin, "call", "--timeout", "10", "jsonrpc+" + jsonrpccpp_server.url, "echo",
             *params])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [json.loads(p) for p in params]


def test_every_type_back(callwire_bin, jsonrpccpp_server):
    r = call(callwire_bin, jsonrpccpp_server, "types")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {
        "string": "caf\u00e9 \u2603 \"quoted\" \\ \n", "integer": 42, "negative": -7,
        "big": 9007199254740993, "double": 1.5, "true": True, "false": False, "null": None,
        "array": [1, "two", []], "object": {"nested": {}}}


def test_errors(callwire_bin, jsonrpccpp_server):
    r = call(callwire_bin, jsonrpccpp_server, "fail", "1")
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "fault 42: the answer is no\n"  # the error's data is not printed
    r = call(callwire_bin, jsonrpccpp_server, "no.such.method")
    assert r.returncode == 1 and r.stderr.startswith("fault -32601: "), r.stderr
    for params in (['"x"', "1"], ["1"], ["1", "2", "3"]):
        r = call(callwire_bin, jsonrpccpp_server, "add", *params)
        assert r.returncode == 1 and r.stderr.startswith("fault -32602: "), (params, r.stderr)
    assert jsonrpccpp_server.alive()


def test_notification(callwire_bin, jsonrpccpp_server):
    r = call(callwire_bin, jsonrpccpp_server, "note", '"x"', "1", notify=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = call(callwire_bin, jsonrpccpp_server, "notes")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [["x", 1]]


def test_kind_mismatch_is_an_error_even_to_a_notification(callwire_bin, jsonrpccpp_server):
    r = call(callwire_bin, jsonrpccpp_server, "add", "1", "2", notify=True)
    assert r.returncode == 1 and r.stderr.startswith("fault -32604: "), r.stderr
    r = call(callwire_bin, jsonrpccpp_server, "note", '"y"')
    assert r.returncode == 1 and r.stderr.startswith("fault -32605: "), r.stderr
    r = call(callwire_bin, jsonrpccpp_server, "notes")
    assert ["y"] not in json.loads(r.stdout)  # not run
