"""JSON-RPC 2.0 peers against `callwire serve` (127.0.0.1, port 0), on the URL that answers
XML-RPC too:

- Python's standard library as a raw peer (urllib.request, json, http.client, socket): calls,
  the spec's errors, notifications (204, no body), batches, ids echoed as written, the answer's
  Content-Type, XML-RPC on the same URL, and hostile documents the server must survive;
- jsonrpclib-pelix (Debian's python3-jsonrpclib-pelix), a client library: ServerProxy calls,
  faults, `_notify`, MultiCall (its batch);
- libjsonrpccpp (Debian's libjsonrpccpp-dev): tests/interop/jsonrpccpp_client.cpp, its
  HttpClient + Client (v2): a call, faults, CallNotification, CallProcedures (BatchCall).

Both libraries take only HTTP 200 as an answer, and our server answers a notification (or a
batch of notifications only) with 204 No Content and no body, as the JSON-RPC over HTTP draft
(jsonrpc.org/historical/json-rpc-over-http.html, "204 ... for empty notification responses") says:

- jsonrpclib-pelix 0.4.2 (TransportMixIn.single_request) raises TransportError(errcode 204) for
  it, and leaves the unread 204 response on its kept-alive connection, so that proxy's next call
  fails with http.client.ResponseNotReady. Its `_notify` and an all-notification MultiCall are
  tested here through Accepts204Transport, the library's own Transport told that 204 means "no
  answer"; the stock transport is only checked to either work or fail with exactly that 204.
- libjsonrpccpp 0.7.0 (HttpClient::SendRPCMessage) throws JsonRpcException -32603 with an empty
  message for any status but 200; its 1.3.0 takes any 2xx (its issue #278). The test takes
  either. A notification inside a batch with calls (HTTP 200) works with both libraries.

The programs come from the environment (conftest.py): CALLWIRE_BIN, JSONRPCCPP_CLIENT.
"""

import gzip
import http.client
import json
import re
import socket
import urllib.parse
import urllib.request
import xmlrpc.client

import pytest

from conftest import TimedTransport, _program, run

TIMEOUT = 10  # seconds, for every connection a test opens
BIG_TIMEOUT = 60  # seconds, for the connections carrying tens of megabytes

try:
    import jsonrpclib
    import jsonrpclib.jsonrpc
except ImportError:  # reported by the jsonrpclib tests, not at collection
    jsonrpclib = None


# --- the raw peer: Python's standard library ---------------------------------------------------


def post(url, body, content_type="application/json", timeout=TIMEOUT):
    """POSTs bytes with urllib.request: (status, header dict with lower-case names, raw body)."""
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())


def call(url, document, content_type="application/json"):
    """POSTs a JSON document (a Python value); returns the decoded answer (200 expected)."""
    status, headers, body = post(url, json.dumps(document).encode(), content_type)
    assert status == 200, (status, body)
    assert headers["content-type"] == "application/json"
    return json.loads(body)


def request(method, params=None, id=1):
    document = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        document["params"] = params
    if id is not None:
        document["id"] = id
    return document


def notification(method, params=None):
    return request(method, params, id=None)


def assert_error(answer, code, id):
    assert answer["jsonrpc"] == "2.0"
    assert set(answer) == {"jsonrpc", "error", "id"}, answer
    assert answer["error"]["code"] == code, answer
    assert isinstance(answer["error"]["message"], str) and answer["error"]["message"]
    assert answer["id"] == id, answer


def assert_no_content(status, headers, body):
    assert status == 204, (status, body)
    assert body == b""
    assert headers.get("content-length", "0") == "0"


@pytest.mark.parametrize("content_type", ["application/json", "application/json-rpc",
                                          "application/jsonrequest",
                                          "application/json; charset=utf-8"])
def test_call(server, content_type):
    status, headers, body = post(server.url, b'{"jsonrpc": "2.0", "method": "sample.add", '
                                 b'"params": [2, 3], "id": 1}', content_type)
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    assert json.loads(body) == {"jsonrpc": "2.0", "result": 5, "id": 1}


def test_values_round_trip(server):
    params = ["text é \u2603 \"quoted\" \\ \n", 1.5, -0.25, True, False, None, 2**31, -2**63,
              2**63 - 1, {"a": [1, {"b": []}], "": {}}, []]
    assert call(server.url, request("echo", params)) == {"jsonrpc": "2.0", "result": params,
                                                         "id": 1}


def test_named_params_reach_the_method_as_one_struct(server):
    answer = call(server.url, request("validator1.easyStructTest",
                                      {"moe": 1, "larry": 2, "curly": 3}, id=7))
    assert answer == {"jsonrpc": "2.0", "result": 6, "id": 7}
    # No binding of names to positions yet: sample.add gets one struct, not a and b.
    assert_error(call(server.url, request("sample.add", {"a": 1, "b": 2}, id=8)), -32602, 8)


def test_method_not_found(server):
    assert_error(call(server.url, request("no.such.method", [], id="m")), -32601, "m")


def test_invalid_params(server):
    assert_error(call(server.url, request("sample.add", ["x", 1], id=2)), -32602, 2)
    assert_error(call(server.url, request("sample.add", [1], id=3)), -32602, 3)
    assert_error(call(server.url, request("validator1.easyStructTest", [{"moe": 1}], id=4)),
                 -32602, 4)


def test_notification_is_answered_204_without_a_body(server):
    assert_no_content(*post(server.url, json.dumps(notification("sample.add", [1, 2])).encode()))
    # Not even an error is answered to a notification.
    assert_no_content(*post(server.url, json.dumps(notification("no.such.method")).encode()))
    assert_no_content(*post(server.url, json.dumps(notification("sample.add", ["x"])).encode()))


def test_batch_mixing_calls_a_notification_and_an_invalid_entry(server):
    batch = [request("sample.add", [1, 2], id=1),
             notification("sample.add", [7, 7]),
             request("echo", ["two"], id="two"),
             1,  # not a request: -32600 with id null
             request("no.such.method", [], id=3),
             request("sample.add", ["x", "y"], id=4),
             {"jsonrpc": "2.0", "method": 5, "id": 5}]  # method not a string: -32600, id kept
    answers = call(server.url, batch)
    assert isinstance(answers, list) and len(answers) == 6, answers
    by_id = {}
    invalid = []
    for answer in answers:
        if answer["id"] is None:
            invalid.append(answer)
        else:
            assert answer["id"] not in by_id, answers
            by_id[answer["id"]] = answer
    assert set(by_id) == {1, "two", 3, 4, 5}, answers
    assert by_id[1] == {"jsonrpc": "2.0", "result": 3, "id": 1}
    assert by_id["two"] == {"jsonrpc": "2.0", "result": ["two"], "id": "two"}
    assert_error(by_id[3], -32601, 3)
    assert_error(by_id[4], -32602, 4)
    assert_error(by_id[5], -32600, 5)
    assert len(invalid) == 1
    assert_error(invalid[0], -32600, None)


def test_batch_of_notifications_only_is_answered_204(server):
    batch = [notification("sample.add", [1, 2]), notification("no.such.method"),
             notification("echo", [1])]
    assert_no_content(*post(server.url, json.dumps(batch).encode()))


def test_batch_size_limit(server):
    batch = [request("sample.add", [i, 1], id=i) for i in range(1000)]
    answers = call(server.url, batch)
    assert sorted((a["id"], a["result"]) for a in answers) == [(i, i + 1) for i in range(1000)]
    batch.append(request("sample.add", [1, 1], id=1000))
    assert_error(call(server.url, batch), -32600, None)  # one error object, not an array


@pytest.mark.parametrize("body", [b'{"jsonrpc": "2.0", "method": "echo", "params": [1, 2',
                                  b'{"jsonrpc": "2.0", "method": "echo", "id": 1} trailing',
                                  b'[{"jsonrpc": "2.0", "method": "echo", "id": 1},]',
                                  b'{"jsonrpc": "2.0", "method": "echo", "params": [tru], "id": 1}',
                                  b'{"jsonrpc": "2.0", "method": "\xff", "id": 1}',
                                  b'', b'   '])
def test_parse_error(server, body):
    status, headers, raw = post(server.url, body)
    assert status == 200 and headers["content-type"] == "application/json"
    answer = json.loads(raw)
    assert isinstance(answer, dict), answer
    assert_error(answer, -32700, None)


def test_empty_batch_is_one_invalid_request(server):
    answer = call(server.url, [])
    assert isinstance(answer, dict), answer
    assert_error(answer, -32600, None)


@pytest.mark.parametrize("body,count", [(b"[1]", 1), (b"[1, 2, 3]", 3)])
def test_batch_of_non_requests(server, body, count):
    status, _, raw = post(server.url, body)
    answers = json.loads(raw)
    assert status == 200 and isinstance(answers, list) and len(answers) == count
    for answer in answers:
        assert_error(answer, -32600, None)


@pytest.mark.parametrize("body", [b'{"jsonrpc": "1.0", "method": "echo", "id": 1}',
                                  b'{"method": "echo", "id": 1}',
                                  b'{"jsonrpc": "2.0", "method": "echo", "params": 1, "id": 1}',
                                  b'"a string"', b"42", b"null"])
def test_invalid_request(server, body):
    status, _, raw = post(server.url, body)
    answer = json.loads(raw)
    assert status == 200 and isinstance(answer, dict), raw
    assert answer["error"]["code"] == -32600, raw


@pytest.mark.parametrize("id_text", ["1", "0", "-7", '"abc"', '""', '"\\u00e9\\n"', "null",
                                     "123456789012345678901234567890", "1.5e3"])
def test_id_echoed_exactly(server, id_text):
    body = ('{"jsonrpc": "2.0", "method": "sample.add", "params": [1, 2], "id": %s}'
            % id_text).encode()
    status, _, raw = post(server.url, body)
    assert status == 200
    match = re.fullmatch(rb'\{"jsonrpc":"2\.0","result":3,"id":(.*)\}', raw)
    assert match is not None, raw
    assert match.group(1) == id_text.encode()  # the id's text, not a re-encoding of its value
    assert json.loads(raw)["id"] == json.loads(id_text)  # big numbers too: Python's are exact


def test_xml_rpc_on_the_same_url(server):
    proxy = xmlrpc.client.ServerProxy(server.url, transport=TimedTransport(TIMEOUT))
    assert proxy.sample.add(2, 3) == 5
    with pytest.raises(xmlrpc.client.Fault):
        proxy.no.such.method()
    # One keep-alive connection, the protocol chosen per request by its Content-Type.
    parts = urllib.parse.urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        xml = xmlrpc.client.dumps((20, 22), "sample.add").encode()
        for _ in range(2):
            connection.request("POST", parts.path, body=xml, headers={"Content-Type": "text/xml"})
            response = connection.getresponse()
            assert response.status == 200 and response.getheader("Content-Type") == "text/xml"
            assert xmlrpc.client.loads(response.read())[0] == (42,)
            connection.request("POST", parts.path, headers={"Content-Type": "application/json"},
                               body=json.dumps(request("sample.add", [40, 2])).encode())
            response = connection.getresponse()
            assert response.status == 200
            assert response.getheader("Content-Type") == "application/json"
            assert json.loads(response.read())["result"] == 42
            connection.request("POST", parts.path, headers={"Content-Type": "application/json"},
                               body=json.dumps(notification("sample.add", [1, 1])).encode())
            response = connection.getresponse()
            assert response.status == 204 and response.read() == b""
    finally:
        connection.close()


def _over_max_body(url):
    """Announces a 40 MiB body (over --max-body's 32 MiB) and sends none: 413, unread."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT) as sock:
        sock.sendall(b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % (parts.path.encode(), 40 << 20))
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 "), answer


def _hostile_documents():
    """(name, body, expected code) for malformed, invalid, huge and deeply nested documents;
    each is refused as a whole: one error object with id null."""
    entry = '{"jsonrpc":"2.0","method":"sample.add","params":[1,2],"id":%d}'
    return [
        ("truncated", b'{"jsonrpc":"2.0","method":"echo","params":[1', -32700),
        ("unterminated string", b'{"jsonrpc":"2.0","method":"echo","params":["abc', -32700),
        ("trailing text", b'{"jsonrpc":"2.0","method":"echo","id":1}}', -32700),
        ("invalid UTF-8", b'{"jsonrpc":"2.0","method":"echo","params":["\xc3\x28"],"id":1}',
         -32700),
        ("lone surrogate", b'{"jsonrpc":"2.0","method":"echo","params":["\\udc00"],"id":1}',
         -32700),
        ("bad escape", b'{"jsonrpc":"2.0","method":"echo","params":["\\x41"],"id":1}', -32700),
        ("raw control character", b'{"jsonrpc":"2.0","method":"echo","params":["a\x01"],"id":1}',
         -32700),
        ("NaN", b'{"jsonrpc":"2.0","method":"echo","params":[NaN],"id":1}', -32700),
        ("leading zero", b'{"jsonrpc":"2.0","method":"echo","params":[01],"id":1}', -32700),
        ("bad atom in an ignored member", b'{"jsonrpc":"2.0","method":"echo","x":nul,"id":1}',
         -32700),
        ("only an opening bracket", b"[", -32700),
        ("NUL bytes", b"\x00" * 64, -32700),
        ("empty object", b"{}", -32600),
        ("empty batch", b"[]", -32600),
        ("100,000-entry batch",
         ("[" + ",".join(entry % i for i in range(100000)) + "]").encode(), -32600),
        ("10,000-deep params",
         b'{"jsonrpc":"2.0","method":"echo","params":[' + b"[" * 10000 + b"]" * 10000
         + b'],"id":1}', -32600),
        ("10,000-deep objects",
         b'{"jsonrpc":"2.0","method":"echo","params":[' + b'{"a":' * 10000 + b"1"
         + b"}" * 10000 + b'],"id":1}', -32600),
        ("10,000-deep document", b"[" * 10000 + b"]" * 10000, -32600),
        ("1,100,000 elements", b'{"jsonrpc":"2.0","method":"echo","params":[['
         + b",".join([b"0"] * 1100000) + b']],"id":1}', -32600),
        # No string over the string limit: at the defaults it follows --max-body, so a string
        # too long is a body too long (_over_max_body: 413).
    ]


def test_survives_hostile_documents(server):
    documents = _hostile_documents()
    sent = 0
    while sent < 200:
        for name, body, code in documents:
            status, headers, raw = post(server.url, body, timeout=BIG_TIMEOUT)
            assert status == 200 and headers["content-type"] == "application/json", (name, raw)
            answer = json.loads(raw)
            assert isinstance(answer, dict), (name, raw[:200])
            assert_error(answer, code, None)
            sent += 1
        _over_max_body(server.url)
        sent += 1
        assert call(server.url, request("sample.add", [sent, 1])) == {
            "jsonrpc": "2.0", "result": sent + 1, "id": 1}
    assert server.alive()
    assert call(server.url, request("sample.add", [2, 3])) == {"jsonrpc": "2.0", "result": 5,
                                                               "id": 1}
    proxy = xmlrpc.client.ServerProxy(server.url, transport=TimedTransport(TIMEOUT))
    assert proxy.sample.add(2, 3) == 5


# --- jsonrpclib-pelix ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def jsonrpclib_module():
    if jsonrpclib is None:
        pytest.fail("jsonrpclib is missing (scripts/setup.sh installs python3-jsonrpclib-pelix)")
    return jsonrpclib


if jsonrpclib is not None:
    class TimedJsonTransport(jsonrpclib.jsonrpc.Transport):
        """jsonrpclib's HTTP transport (Python's xmlrpc one) with a socket timeout."""

        def __init__(self):
            super().__init__(jsonrpclib.config.DEFAULT)

        def make_connection(self, host):
            connection = super().make_connection(host)
            connection.timeout = TIMEOUT
            return connection

    class Accepts204Transport(TimedJsonTransport):
        """The same, where 204 No Content is the server saying "no answer" to notifications
        (the stock single_request takes only 200: the module's docstring)."""

        def single_request(self, host, handler, request_body, verbose=0):
            connection = self.make_connection(host)
            try:
                self.send_request(connection, handler, request_body, verbose)
                self.send_content(connection, request_body)
                response = connection.getresponse()
                if response.status == 200:
                    return self.parse_response(response)
                response.read()
            except BaseException:
                self.close()
                raise
            if response.status == 204:
                return None
            raise jsonrpclib.jsonrpc.TransportError(host + handler, response.status,
                                                    response.reason, response.msg)


def pelix_proxy(url, transport=None):
    return jsonrpclib.ServerProxy(url, transport=transport or TimedJsonTransport())


def test_jsonrpclib_calls(jsonrpclib_module, server):
    proxy = pelix_proxy(server.url)
    assert proxy.sample.add(2, 3) == 5
    assert proxy.sample.add(2**62, 2**62 - 1) == 2**63 - 1
    values = ["text é", 1.5, True, None, {"x": [1, 2]}, []]
    assert proxy.echo(*values) == values
    assert proxy.validator1.simpleStructReturnTest(7) == {"times10": 70, "times100": 700,
                                                          "times1000": 7000}
    # Keyword arguments are JSON-RPC's named params: one struct for the method.
    assert proxy.validator1.easyStructTest(moe=1, larry=2, curly=3) == 6


def test_jsonrpclib_gzip(jsonrpclib_module, serve):
    """jsonrpclib asks for gzip (Accept-Encoding) and inflates what it gets."""
    gzip_server = serve("--listen", "127.0.0.1:0", "--gzip-min-size", "1kb")
    text = "gzip me " * 20000
    document = json.dumps(request("echo", [text])).encode()
    req = urllib.request.Request(gzip_server.url, data=document, method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=TIMEOUT) as response:
        assert response.getheader("Content-Encoding") == "gzip"
        assert json.loads(gzip.decompress(response.read()))["result"] == [text]
    assert pelix_proxy(gzip_server.url).echo(text) == [text]


def test_jsonrpclib_faults(jsonrpclib_module, server):
    proxy = pelix_proxy(server.url)
    with pytest.raises(jsonrpclib.jsonrpc.ProtocolError) as caught:
        proxy.no.such.method(1)
    code, message = caught.value.args[0]
    assert code == -32601 and "no.such.method" in message
    with pytest.raises(jsonrpclib.jsonrpc.ProtocolError) as caught:
        proxy.sample.add("x", 1)
    code, message = caught.value.args[0]
    assert code == -32602 and "sample.add" in message
    assert proxy.sample.add(1, 1) == 2  # the proxy still works after faults


def test_jsonrpclib_notification(jsonrpclib_module, server):
    proxy = pelix_proxy(server.url, Accepts204Transport())
    assert proxy._notify.sample.add(1, 2) is None
    assert proxy.sample.add(3, 4) == 7  # the same kept-alive connection, after the 204
    assert proxy._notify.no.such.method() is None  # errors are not answered to notifications
    assert proxy.sample.add(3, 5) == 8


def test_jsonrpclib_stock_notification(jsonrpclib_module, server):
    """The library's own transport: works where 204 is taken as "no answer", else refuses
    exactly our 204 (jsonrpclib-pelix 0.4.2: the module's docstring)."""
    proxy = pelix_proxy(server.url)
    try:
        assert proxy._notify.sample.add(1, 2) is None
    except jsonrpclib.jsonrpc.TransportError as error:
        assert error.errcode == 204, error.args
    assert pelix_proxy(server.url).sample.add(1, 2) == 3


def test_jsonrpclib_multicall(jsonrpclib_module, server):
    proxy = pelix_proxy(server.url)
    batch = jsonrpclib.MultiCall(proxy)
    batch.sample.add(1, 2)
    batch._notify.sample.add(100, 100)
    batch.sample.add(10, 20)
    batch.no_such_method()  # not no.such.method: a MultiCallMethod's .method is its name
    results = batch()
    assert len(results) == 3
    # MultiCall reads the answers in the server's order and its ids are random: match by value.
    successes, errors = [], []
    for i in range(len(results)):
        try:
            successes.append(results[i])
        except jsonrpclib.jsonrpc.ProtocolError as error:
            errors.append(error.args[0][0])
    assert sorted(successes) == [3, 30]
    assert errors == [-32601]


def test_jsonrpclib_multicall_of_notifications(jsonrpclib_module, server):
    batch = jsonrpclib.MultiCall(pelix_proxy(server.url, Accepts204Transport()))
    batch._notify.sample.add(1, 2)
    batch._notify.echo("x")
    assert len(batch()) == 0


# --- libjsonrpccpp ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def jsonrpccpp_client_bin():
    return _program("JSONRPCCPP_CLIENT", "build/release/tests/interop/jsonrpccpp_client")


def test_jsonrpccpp_client(jsonrpccpp_client_bin, server):
    result = run([jsonrpccpp_client_bin, server.url])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "add 5"
    assert lines[1] == 'echo ["abc",1.5,true,null,{"a":1},9007199254740993]'
    # JsonRpcException's message is the library's text for the code, then the server's message.
    assert lines[2].startswith("fault -32601 ") and "no.such.method" in lines[2], lines[2]
    assert lines[3].startswith("fault -32602 ") and "sample.add" in lines[3], lines[3]
    # libjsonrpccpp before 1.3.0 takes only HTTP 200; a notification's answer is 204, no body.
    assert lines[4] in ("notification ok", "notification exception -32603 'INTERNAL_ERROR: : '"), \
        lines[4]
    assert lines[5:] == ["batch 1 3", "batch 2 30", "batch 3 error -32601", "batch errors 1"]
    assert server.alive()
