"""Node's jayson (npm, pinned in scripts/setup.sh) and callwire, both directions, on 127.0.0.1
with port 0:

- jayson's HTTP client (jayson_client.js) against `callwire serve`: positional and named calls,
  number, string, generated (UUID) and null ids, the spec's errors (-32601, -32602, and -32600
  through jayson's raw requests; it cannot send malformed JSON, so no -32700 here: test_json_rpc.py
  sends that raw), notifications, a batch mixing calls, a notification and an invalid entry, and
  an all-notification batch. jayson's HTTP client takes any 2xx and an empty body as "no answer",
  so our 204 works with it;
- `callwire call --json-rpc` against jayson's HTTP server (jayson_server.js): calls, every JSON
  type back, an error with its own code, the spec's errors, a notification.

The programs come from the environment (CMakeLists.txt): CALLWIRE_BIN, NODE (node) and NODE_PATH
(the node_modules holding jayson). The setup script installs jayson, so a missing one fails.
"""

import json
import os
import shutil

import pytest

from conftest import REPO, ServerProcess, run

HERE = REPO / "tests" / "interop"


@pytest.fixture(scope="module")
def node():
    node = os.environ.get("NODE") or shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.fail("node is missing (scripts/setup.sh installs nodejs)")
    found = run([node, "-p", "require('jayson/package.json').version"])
    if found.returncode != 0:
        pytest.fail(f"node cannot load jayson with NODE_PATH={os.environ.get('NODE_PATH')!r} "
                    f"(scripts/setup.sh installs it into build/node): {found.stderr}")
    return node


# --- jayson's client against `callwire serve` --------------------------------------------------


@pytest.fixture(scope="module")
def steps(node, server):
    """Runs jayson_client.js once against the server: {step name: {"request", "response" or
    "failure"}}."""
    result = run([node, str(HERE / "jayson_client.js"), server.url])
    assert result.returncode == 0, result.stderr
    lines = [line.split(" ", 1) for line in result.stdout.splitlines()]
    return {name: json.loads(text) for name, text in lines}


def answer(steps, name):
    step = steps[name]
    assert "failure" not in step, (name, step)
    return step["response"]


def assert_error(response, code, id):
    assert response["jsonrpc"] == "2.0" and response["id"] == id, response
    assert response["error"]["code"] == code, response
    assert isinstance(response["error"]["message"], str) and response["error"]["message"]
    assert "result" not in response


def test_calls(steps):
    assert answer(steps, "add") == {"jsonrpc": "2.0", "result": 5, "id": 1}
    assert answer(steps, "id_zero") == {"jsonrpc": "2.0", "result": 2, "id": 0}
    sent = steps["id_string"]["request"]
    assert answer(steps, "id_string") == {"jsonrpc": "2.0", "result": sent["params"],
                                          "id": "abc"}
    assert answer(steps, "named") == {"jsonrpc": "2.0", "result": 6, "id": 2}
    assert answer(steps, "after") == {"jsonrpc": "2.0", "result": 42, "id": 9}


def test_generated_and_null_ids(steps):
    sent = steps["id_generated"]["request"]["id"]
    assert isinstance(sent, str) and len(sent) == 36, sent  # a UUID
    assert answer(steps, "id_generated") == {"jsonrpc": "2.0", "result": 42, "id": sent}
    # A request with "id": null is a call (the spec discourages it), answered with id null.
    assert answer(steps, "id_null") == {"jsonrpc": "2.0", "result": 3, "id": None}


def test_errors(steps):
    assert_error(answer(steps, "not_found"), -32601, 3)
    assert_error(answer(steps, "bad_params_type"), -32602, 4)
    assert_error(answer(steps, "bad_params_count"), -32602, 5)
    assert_error(answer(steps, "invalid_method"), -32600, 6)
    assert_error(answer(steps, "invalid_version"), -32600, 7)
    assert_error(answer(steps, "invalid_params"), -32600, 8)


def test_notifications(steps):
    for name in ("notification", "notification_not_found", "batch_notifications"):
        sent = steps[name]["request"]
        assert all("id" not in request for request in (sent if isinstance(sent, list) else [sent]))
        assert answer(steps, name) is None  # our 204, taken by jayson as "no answer"


def test_batch(steps):
    responses = answer(steps, "batch")
    assert isinstance(responses, list) and len(responses) == 4, responses
    by_id = {response["id"]: response for response in responses}
    assert by_id[1] == {"jsonrpc": "2.0", "result": 3, "id": 1}
    assert by_id["two"] == {"jsonrpc": "2.0", "result": ["two"], "id": "two"}
    assert_error(by_id[3], -32601, 3)
    assert_error(by_id[4], -32600, 4)


# --- `callwire call --json-rpc` against jayson's server -----------------------------------------


@pytest.fixture(scope="module")
def jayson_server(node):
    server = ServerProcess([node, str(HERE / "jayson_server.js")])
    yield server.url
    assert server.stop() == 0, server.stderr()


def call(callwire_bin, url, method, *params, notify=False):
    flags = ["--notify"] if notify else []
    return run([callwire_bin, "call", "--json-rpc", "--timeout", "10", *flags, url, method,
                *params])


def test_client_calls(callwire_bin, jayson_server):
    r = call(callwire_bin, jayson_server, "add", "2", "3")
    assert (r.returncode, r.stdout) == (0, "5\n"), r.stderr
    params = ['"caf\\u00e9"', "[1,[2]]", '{"a":null,"b":{}}', "-1.5", "true", "false", "null",
              str(2**53 - 1)]
    r = run([callwire_bin, "call", "--timeout", "10", "jsonrpc+" + jayson_server, "echo",
             *params])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [json.loads(p) for p in params]


def test_client_every_type_back(callwire_bin, jayson_server):
    r = call(callwire_bin, jayson_server, "types")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {
        "string": "caf\u00e9 \u2603 \"quoted\" \\ \n", "integer": 42, "negative": -7,
        "big": 2**53 - 1, "double": 1.5, "true": True, "false": False, "null": None,
        "array": [1, "two", []], "object": {"nested": {}}}


def test_client_errors(callwire_bin, jayson_server):
    r = call(callwire_bin, jayson_server, "fail", "1")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == "fault 42: the answer is no\n"  # the error's data is not printed
    r = call(callwire_bin, jayson_server, "no.such.method")
    assert r.returncode == 1 and r.stderr.startswith("fault -32601: "), r.stderr
    r = call(callwire_bin, jayson_server, "add", '"x"', "1")
    assert r.returncode == 1 and r.stderr == "fault -32602: add takes two integers\n"


def test_client_notification(callwire_bin, jayson_server):
    # jayson answers a notification with 204 and no body, as callwire serve does.
    r = call(callwire_bin, jayson_server, "note", '"x"', "1", notify=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = call(callwire_bin, jayson_server, "notes")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [["x", 1]]
