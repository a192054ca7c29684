"""Logs a peer cannot write, and answers a peer can rely on (issue 26, items 5 and 6).

`callwire serve --log` prints one line per answered request on stderr: "TIME peer=PEER
user=USER method=METHOD status=STATUS fault=FAULT in=BYTES out=BYTES duration=Xms". The method
and, behind SCGI, the peer are the
peer's to choose: a newline in either forged whole lines, an ESC drove the terminal of whoever
read the log. Each test here sends such text and checks that stderr holds exactly one line
per request, in that format, with no control byte in it. The server writes a request's line
before it sends the answer (fprintf to unbuffered stderr), so once the answer is read the line
is there: nothing waits on a clock.

Then HTTP/1.0 keep-alive (the answer must say `Connection: keep-alive`, or an HTTP/1.0 client
must take it as the last) and an SCGI CORS preflight with CR LF in what it asks for (refused
400, not met with silence), over raw sockets.
"""

import json
import re
import socket

from conftest import ADD_ANSWER, ADD_BODY, http_request, read_response

# One access-log line of `callwire serve --log` (tools/net_commands.cpp): every field a word.
LOG_LINE = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z peer=[!-~]+ user=[!-~]+ "
                      rb"method=[!-~]+ status=\d{3} fault=-?\d+ in=\d+ out=\d+ "
                      rb"duration=\d+\.\d{3}ms")
FORGED = "2026-01-01T00:00:00.000Z peer=127.0.0.1:4242 user=- method=sample.add status=200"
# A newline to forge a line, OSC to retitle the terminal, CSI to clear it, a C1 CSI (U+009B).
HOSTILE = f"x\n{FORGED}\r\n\x1b]0;owned\x07\x1b[2J\u009b31m"


def stderr_bytes(server):
    server._stderr.seek(0)
    return server._stderr.read()


def assert_log_lines(server, count):
    """stderr is exactly `count` well-formed access-log lines, with no control byte in them."""
    log = stderr_bytes(server)
    assert log.endswith(b"\n"), log
    lines = log[:-1].split(b"\n")
    assert len(lines) == count, log
    for line in lines:
        assert LOG_LINE.fullmatch(line), line
        assert not re.search(rb"[\x00-\x1f\x7f-\xff]", line), line
    return lines


def stop_cleanly(server):
    assert server.stop() == 0, server.stderr()


def json_request(method):
    body = json.dumps({"jsonrpc": "2.0", "method": method, "params": [1, 2], "id": 1}).encode()
    return http_request(body).replace(b"Content-Type: text/xml", b"Content-Type: application/json")


def test_a_method_name_cannot_forge_log_lines(serve):
    server = serve("--log")
    with server.connect() as sock:
        # JSON-RPC carries any character in a method name (\u escapes); XML-RPC CR and LF.
        sock.sendall(json_request(HOSTILE))
        status, _, answer, rest = read_response(sock)
        assert status == 200 and b"-32601" in answer, answer
        xml = ADD_BODY.replace(b"sample.add", b"sample.add\r\n" + FORGED.encode())
        sock.sendall(http_request(xml))
        status, _, answer, _ = read_response(sock, rest)
        assert status == 200 and b"faultCode" in answer, answer
        sock.sendall(http_request(ADD_BODY))
        status, _, answer, _ = read_response(sock)
        assert status == 200 and ADD_ANSWER in answer, answer
    lines = assert_log_lines(server, 3)
    assert lines[0].split(b" ")[3].startswith(
        b"method=x\\x0A2026-01-01T00:00:00.000Z\\x20peer="), lines[0]
    assert b"\\x1B]0;owned\\x07\\x1B[2J\\xC2\\x9B31m" in lines[0], lines[0]
    # XML reads CR LF as LF (XML 1.0 section 2.11): the method the server saw had a newline.
    assert lines[1].split(b" ")[3].startswith(b"method=sample.add\\x0A2026-01-01T00"), lines[1]
    assert lines[2].split(b" ")[3] == b"method=sample.add", lines[2]
    stop_cleanly(server)


def scgi_request(body, variables, method="POST"):
    block = b"".join(n + b"\0" + v + b"\0" for n, v in [
        (b"CONTENT_LENGTH", str(len(body)).encode()), (b"SCGI", b"1"),
        (b"REQUEST_METHOD", method.encode()), (b"REQUEST_URI", b"/RPC2"), *variables])
    return str(len(block)).encode() + b":" + block + b"," + body


def scgi_server(serve, *flags):
    """A server with an SCGI listener beside its HTTP one: (server, SCGI port)."""
    server = serve("--listen", "scgi://127.0.0.1:0", *flags)
    return server, server.listener("scgi://")[1]


def scgi_answer(port, request):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(1 << 16):
            received += chunk
    return received


def test_scgi_remote_addr_and_user_cannot_forge_log_lines(serve):
    server, port = scgi_server(serve, "--log")
    answer = scgi_answer(port, scgi_request(ADD_BODY, [
        (b"REMOTE_ADDR", f"203.0.113.7\n{FORGED}\x1b[2J".encode()), (b"REMOTE_PORT", b"1\r"),
        (b"REMOTE_USER", b"ann\n\x1b[31m")]))
    assert answer.startswith(b"Status: 200 OK\r\n") and ADD_ANSWER in answer, answer
    (line,) = assert_log_lines(server, 1)
    # An address with a colon is taken for IPv6 and bracketed; escaped all the same.
    assert line.split(b" ")[1].startswith(b"peer=[203.0.113.7\\x0A2026-01-01T00:00:00.000Z"), line
    assert line.split(b" ")[1].endswith(b"\\x1B[2J]:1\\x0D"), line
    stop_cleanly(server)


def test_scgi_preflight_with_crlf_is_answered_400(serve):
    server, port = scgi_server(serve, "--cors-allow-origin", "https://app.example")
    asked = [(b"HTTP_ORIGIN", b"https://app.example"),
             (b"HTTP_ACCESS_CONTROL_REQUEST_METHOD", b"POST")]
    answer = scgi_answer(port, scgi_request(b"", asked + [
        (b"HTTP_ACCESS_CONTROL_REQUEST_HEADERS", b"content-type\r\nX-Injected: 1")], "OPTIONS"))
    assert answer.startswith(b"Status: 400 Bad Request\r\n"), answer
    assert b"X-Injected" not in answer, answer
    answer = scgi_answer(port, scgi_request(b"", asked + [
        (b"HTTP_ACCESS_CONTROL_REQUEST_HEADERS", b"content-type")], "OPTIONS"))
    assert answer.startswith(b"Status: 200 OK\r\n"), answer
    assert b"\r\nAccess-Control-Allow-Headers: content-type\r\n" in answer, answer
    stop_cleanly(server)


def test_http10_keep_alive_is_said(serve):
    server = serve()
    with server.connect() as sock:
        for _ in range(3):
            sock.sendall(http_request(ADD_BODY, version="HTTP/1.0",
                                      extra_headers=["Connection: keep-alive"]))
            status, headers, answer, rest = read_response(sock)
            assert status == 200 and ADD_ANSWER in answer, answer
            assert headers.get("connection") == "keep-alive", headers
            assert rest == b""
    # Without keep-alive, HTTP/1.0 closes, and says so.
    with server.connect() as sock:
        sock.sendall(http_request(ADD_BODY, version="HTTP/1.0"))
        status, headers, answer, rest = read_response(sock)
        assert status == 200 and headers.get("connection") == "close", headers
        assert sock.recv(1) == b""
    stop_cleanly(server)


def test_http10_keep_alive_status_line_is_http11(serve):
    server = serve()
    with server.connect() as sock:
        sock.sendall(http_request(ADD_BODY, version="HTTP/1.0",
                                  extra_headers=["Connection: keep-alive"]))
        received = b""
        while b"\r\n" not in received:
            chunk = sock.recv(1 << 16)
            assert chunk, received
            received += chunk
        # RFC 9110 6.2: the highest version the server conforms to, as nginx answers.
        assert received.startswith(b"HTTP/1.1 200 OK\r\n"), received
    stop_cleanly(server)
