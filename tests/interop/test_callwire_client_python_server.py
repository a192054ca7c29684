"""`callwire call` and `callwire list` against Python's SimpleXMLRPCServer: every parameter
syntax, results, faults, gzip, the Apache dialect, a dead port and a silent server; then the same
command against `callwire serve` over HTTPS, Basic auth and a Unix socket."""

import base64
import json
import os
import socket
import threading
import time
import xmlrpc.client
import xmlrpc.server

import pytest

from conftest import run


class RecordingHandler(xmlrpc.server.SimpleXMLRPCRequestHandler):
    """Keeps the header fields of every request, to check what our client sends."""

    seen_headers = []  # the request's header fields, one dict per request
    sent_headers = []  # the response's header fields, (name, value) pairs, every request

    def do_POST(self):
        RecordingHandler.seen_headers.append(dict(self.headers))
        super().do_POST()

    def send_header(self, keyword, value):
        RecordingHandler.sent_headers.append((keyword, value))
        super().send_header(keyword, value)


def sample_add(a, b):
    """Adds two numbers (Python's own answer)."""
    return a + b


def echo(*params):
    """Returns its parameters as an array."""
    return list(params)


def fail():
    raise xmlrpc.client.Fault(4, "Too many parameters.")


def crash():
    raise ValueError("boom")


@pytest.fixture(scope="module")
def python_server():
    server = xmlrpc.server.SimpleXMLRPCServer(("127.0.0.1", 0), requestHandler=RecordingHandler,
                                              allow_none=True, logRequests=False)
    server.timeout = 5
    server.register_introspection_functions()
    server.register_multicall_functions()
    server.register_function(sample_add, "sample.add")
    server.register_function(echo, "echo")
    server.register_function(fail, "fail")
    server.register_function(crash, "crash")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/RPC2"
    server.shutdown()
    thread.join(5)
    server.server_close()
    assert not thread.is_alive()


def call(callwire_bin, url, method, *params, flags=()):
    return run([callwire_bin, "call", "--timeout", "10", *flags, url, method, *params])


def call_ok(callwire_bin, url, method, *params, flags=()):
    result = call(callwire_bin, url, method, *params, flags=flags)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)


def test_sample_add(callwire_bin, python_server):
    result = call(callwire_bin, python_server, "sample.add", "i/5", "i/3")
    assert (result.returncode, result.stdout, result.stderr) == (0, "8\n", "")


def test_sample_add_i8_parameters(callwire_bin, python_server):
    # Python reads <i8>; its answer fits in an int, so it comes back as one.
    assert call_ok(callwire_bin, python_server, "sample.add", "I/3000000000",
                   "I/-2000000000") == 1000000000


@pytest.mark.parametrize("param,expected", [
    ("i/42", 42),
    ("i/-0042", -42),
    ("i/+7", 7),
    ("I/5", 5),
    ("s/hello world", "hello world"),
    ("s/", ""),
    ("s/a,b\\,c", "a,b\\,c"),
    ("s/grüße 日本", "grüße 日本"),
    ("h/00ff10", {"$base64": "AP8Q"}),
    ("h/", {"$base64": ""}),
    ("b/t", True),
    ("b/false", False),
    ("d/1.5", 1.5),
    ("d/-0.25", -0.25),
    ("d/1e100", 1e100),  # Python answers 1e+100: an exponent
    ("n/", None),
    ("t/19980717T14:08:55", {"$dateTime": "19980717T14:08:55"}),
    ("array/(i/1,s/two,array/(b/t),n/)", [1, "two", [True], None]),
    ("array/()", []),
    ("struct/{a:i/1,b:s/x,c:struct/{d:d/2.5}}", {"a": 1, "b": "x", "c": {"d": 2.5}}),
    ("struct/{}", {}),
    ("array/(s/a\\,b,s/c\\)d)", ["a,b", "c)d"]),
    ("hello", "hello"),
    ("S/x", "S/x"),
])
def test_every_parameter_syntax(callwire_bin, python_server, param, expected):
    assert call_ok(callwire_bin, python_server, "echo", param) == [expected]


def test_many_parameters_at_once(callwire_bin, python_server):
    answer = call_ok(callwire_bin, python_server, "echo", "i/1", "s/two", "n/", "b/f")
    assert answer == [1, "two", None, False]


def test_long_base64_with_python_line_breaks(callwire_bin, python_server):
    # Python's answer breaks the base64 text every 76 characters; our reader must skip them.
    data = bytes(range(256)) * 2
    answer = call_ok(callwire_bin, python_server, "echo", "h/" + data.hex())
    assert base64.b64decode(answer[0]["$base64"]) == data


def test_large_answer_arrives_gzipped_only_when_asked(callwire_bin, python_server):
    RecordingHandler.seen_headers.clear()
    RecordingHandler.sent_headers.clear()
    text = "x" * 100000  # one argument may not exceed 128 KiB
    assert call_ok(callwire_bin, python_server, "echo", "s/" + text, flags=("--gzip",)) == [text]
    # Asked with --gzip, Python (threshold 1400 bytes) gzipped the answer.
    assert "gzip" in RecordingHandler.seen_headers[-1].get("Accept-Encoding", "")
    assert ("Content-Encoding", "gzip") in RecordingHandler.sent_headers
    assert RecordingHandler.seen_headers[-1]["Content-Type"].startswith("text/xml")
    # Without --gzip our client does not ask, and the answer comes plain.
    RecordingHandler.sent_headers.clear()
    assert call_ok(callwire_bin, python_server, "echo", "s/" + text) == [text]
    assert "gzip" not in RecordingHandler.seen_headers[-1].get("Accept-Encoding", "")
    assert ("Content-Encoding", "gzip") not in RecordingHandler.sent_headers


def test_apache_dialect_call(callwire_bin, python_server):
    # Python strips the ex: prefix, so it reads <ex:nil/> and <ex:i8>.
    answer = call_ok(callwire_bin, python_server, "echo", "n/", "I/7",
                     flags=("--dialect", "apache"))
    assert answer == [None, 7]


def test_fault_from_handler(callwire_bin, python_server):
    result = call(callwire_bin, python_server, "fail")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "fault 4: Too many parameters.\n"


def test_fault_from_python_exception(callwire_bin, python_server):
    result = call(callwire_bin, python_server, "crash")
    assert result.returncode == 1
    assert result.stderr == "fault 1: <class 'ValueError'>:boom\n"


def test_fault_unknown_method(callwire_bin, python_server):
    result = call(callwire_bin, python_server, "no.such")
    assert result.returncode == 1
    assert result.stderr.startswith("fault 1: ") and "no.such" in result.stderr


def test_fault_python_cannot_send_an_i8(callwire_bin, python_server):
    result = call(callwire_bin, python_server, "echo", "I/5000000000")
    assert result.returncode == 1
    assert "int exceeds XML-RPC limits" in result.stderr


def test_bad_parameter_syntax_is_a_usage_error(callwire_bin, python_server):
    result = call(callwire_bin, python_server, "echo", "i/12x")
    assert result.returncode == 2
    assert "i/12x" in result.stderr and "not an integer" in result.stderr


def test_list(callwire_bin, python_server):
    result = run([callwire_bin, "list", "--timeout", "10", python_server])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # Python's methodSignature answers a string ("signatures not supported"): no signature.
    assert "sample.add(...)" in lines
    assert lines[lines.index("sample.add(...)") + 1] == "    Adds two numbers (Python's own answer)."
    for name in ("echo", "fail", "system.listMethods", "system.multicall"):
        assert f"{name}(...)" in lines


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_dead_port(callwire_bin):
    # A port nobody listens on (bound then closed): connection refused, exit 2.
    result = call(callwire_bin, f"http://127.0.0.1:{free_port()}/RPC2", "sample.add", "i/1",
                  "i/2")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("callwire: ")


def test_timeout_against_a_silent_server(callwire_bin):
    # The kernel accepts the connection, nobody ever reads or answers.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/RPC2"
        start = time.monotonic()
        result = run([callwire_bin, "call", "--timeout", "1", url, "sample.add", "i/1", "i/2"],
                     timeout=10)
        elapsed = time.monotonic() - start
    assert result.returncode == 2
    assert "timeout" in result.stderr.lower() or "timed out" in result.stderr.lower()
    assert 0.9 <= elapsed < 5, elapsed


# --- `callwire call` against `callwire serve`: HTTPS, Basic auth, Unix socket ------------------


def test_https_with_ca_file(callwire_bin, serve, tls_cert):
    cert, key = tls_cert
    server = serve("--listen", "127.0.0.1:0", "--tls-cert", str(cert), "--tls-key", str(key))
    assert call_ok(callwire_bin, server.url, "sample.add", "i/2", "i/3",
                   flags=("--ca-file", str(cert))) == 5
    assert call_ok(callwire_bin, server.url, "sample.add", "i/2", "i/4",
                   flags=("--insecure",)) == 6
    # Not trusted: the system's store does not hold our certificate.
    result = call(callwire_bin, server.url, "sample.add", "i/2", "i/3")
    assert result.returncode == 2
    assert result.stderr.startswith("callwire: ")


def test_basic_auth(callwire_bin, serve):
    server = serve("--listen", "127.0.0.1:0", "--user", "u", "--password", "p w")
    assert call_ok(callwire_bin, server.url, "sample.add", "i/1", "i/1",
                   flags=("--user", "u", "--password", "p w")) == 2
    result = call(callwire_bin, server.url, "sample.add", "i/1", "i/1",
                  flags=("--user", "u", "--password", "nope"))
    assert result.returncode == 2
    assert "401" in result.stderr


def test_unix_socket(callwire_bin, serve, tmp_path_factory):
    path = tmp_path_factory.mktemp("unix") / "s.sock"
    server = serve("--unix", str(path))
    assert server.url == f"unix:{path}"
    assert call_ok(callwire_bin, server.url, "sample.add", "i/3", "i/4") == 7
    result = run([callwire_bin, "list", server.url])
    assert result.returncode == 0, result.stderr
    assert "sample.add(int, int) -> int" in result.stdout.splitlines()


# --- Our client against Python's server over TLS and with Basic authentication (the other
# direction of the TLS and auth tests above).

class AuthHandler(xmlrpc.server.SimpleXMLRPCRequestHandler):
    """Accepts only Basic ann:s3cret (Python's server has no authentication of its own)."""

    def parse_request(self):
        if not super().parse_request():
            return False
        expected = "Basic " + base64.b64encode(b"ann:s3cret").decode()
        if self.headers.get("Authorization") == expected:
            return True
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="python"')
        self.send_header("Content-Length", "0")
        self.end_headers()
        return False


@pytest.fixture(scope="module")
def python_tls_auth_server(tls_cert):
    import ssl
    cert, key = tls_cert
    server = xmlrpc.server.SimpleXMLRPCServer(("127.0.0.1", 0), requestHandler=AuthHandler,
                                              allow_none=True, logRequests=False)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.timeout = 5
    server.register_function(sample_add, "sample.add")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}/RPC2", cert
    server.shutdown()
    thread.join(5)
    server.server_close()


def test_tls_and_auth_against_python(callwire_bin, python_tls_auth_server):
    url, cert = python_tls_auth_server
    creds = ("--user", "ann", "--password", "s3cret")
    assert call_ok(callwire_bin, url, "sample.add", "i/40", "i/2",
                   flags=("--ca-file", cert) + creds) == 42
    # Without trusting the certificate: refused (exit 2, a TLS error).
    untrusted = call(callwire_bin, url, "sample.add", "i/1", "i/2", flags=creds)
    assert untrusted.returncode == 2
    assert "TLS" in untrusted.stderr, untrusted.stderr
    # Wrong password: HTTP 401 (exit 2, the status named).
    denied = call(callwire_bin, url, "sample.add", "i/1", "i/2",
                  flags=("--ca-file", cert, "--user", "ann", "--password", "guess"))
    assert denied.returncode == 2
    assert "401" in denied.stderr, denied.stderr


def test_trace_shows_the_request_and_the_answer_inflated(callwire_bin, python_server):
    # Python gzips answers over 1400 bytes when asked: the trace shows them inflated.
    text = "t" * 5000
    result = call(callwire_bin, python_server, "echo", "s/" + text, flags=("--trace", "--gzip"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [text]
    err = result.stderr
    assert err.startswith(f"callwire trace: client request to {python_server}\nPOST /RPC2 HTTP/1.1\n")
    assert "<methodName>echo</methodName>" in err
    answer = err[err.index("callwire trace: client answer from"):]
    assert answer.splitlines()[1].startswith("HTTP/1.0 200 OK")  # Python's BaseHTTPServer
    assert "Content-Encoding: gzip" in answer
    assert "<methodResponse>" in answer and text in answer


def test_trace_cut_and_from_the_environment(callwire_bin, python_server):
    result = call(callwire_bin, python_server, "sample.add", "i/5", "i/3",
                  flags=("--trace", "--trace-max", "10"))
    assert result.returncode == 0 and result.stdout == "8\n", result.stderr
    assert "<?xml vers\n[... " in result.stderr
    # CALLWIRE_TRACE does the same for any program (the library reads it).
    env = dict(os.environ, CALLWIRE_TRACE="1:10")
    result = run([callwire_bin, "call", "--timeout", "10", python_server, "sample.add", "i/5",
                  "i/3"], env=env)
    assert result.returncode == 0 and result.stdout == "8\n", result.stderr
    assert result.stderr.count("callwire trace: ") == 2
    assert "<?xml vers\n[... " in result.stderr
