"""Bad and unusual HTTP against `callwire serve`, sent with curl (and a raw socket where curl
will not send the bytes): each gets its status, and the server answers sample.add afterwards."""

import socket
import time
import urllib.parse

import pytest

from conftest import run

ADD_BODY = ("<?xml version='1.0'?><methodCall><methodName>sample.add</methodName><params>"
            "<param><value><int>5</int></value></param><param><value><int>3</int></value>"
            "</param></params></methodCall>")
ANSWER_8 = "<int>8</int>"


def curl(curl_bin, *args, timeout=10):
    """Runs curl; returns (HTTP status, {lower-case header name: value}, body text)."""
    result = run([curl_bin, "-sS", "-m", str(timeout), "-D", "-", "-o", "/dev/null", *args],
                 timeout=timeout + 5)
    assert result.returncode == 0, result.stderr
    # With -D - and the body to /dev/null, stdout is the head (maybe a 100 Continue first);
    # run() reads text, which turns CRLF into LF.
    heads = [h for h in result.stdout.split("\n\n") if h.strip()]
    lines = heads[-1].split("\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


def curl_body(curl_bin, *args, timeout=10):
    result = run([curl_bin, "-sS", "-m", str(timeout), *args], timeout=timeout + 5)
    assert result.returncode == 0, result.stderr
    return result.stdout


def still_serves(curl_bin, url):
    body = curl_body(curl_bin, "-H", "Content-Type: text/xml", "--data-binary", ADD_BODY, url)
    assert ANSWER_8 in body, body


def raw(url, data, timeout=5):
    """Sends bytes on a fresh connection; returns everything read until the server closes."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as s:
        s.sendall(data)
        received = b""
        try:
            while chunk := s.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass
        return received


def test_get_is_405_with_allow_post(curl_bin, server):
    status, headers = curl(curl_bin, server.url)
    assert status == 405
    assert headers["allow"] == "POST"
    still_serves(curl_bin, server.url)


def test_other_path_is_404(curl_bin, server):
    other = server.url.replace("/RPC2", "/elsewhere")
    status, _ = curl(curl_bin, "-H", "Content-Type: text/xml", "--data-binary", ADD_BODY, other)
    assert status == 404
    still_serves(curl_bin, server.url)


def test_root_path_is_served(curl_bin, server):
    root = server.url.replace("/RPC2", "/")
    assert ANSWER_8 in curl_body(curl_bin, "-H", "Content-Type: text/xml", "--data-binary",
                                 ADD_BODY, root)


def test_transfer_encoding_with_content_length_is_400(curl_bin, server):
    status, headers = curl(curl_bin, "-H", "Transfer-Encoding: chunked", "-H",
                           "Content-Length: 5", "--data-binary", "hello", server.url)
    assert status == 400
    assert headers.get("connection") == "close"
    still_serves(curl_bin, server.url)


def test_huge_content_length_is_413_at_once(curl_bin, server):
    start = time.monotonic()
    status, _ = curl(curl_bin, "-H", "Content-Length: 99999999999", "-H",
                     "Content-Type: text/xml", "--data-binary", "<", server.url)
    assert status == 413
    assert time.monotonic() - start < 3  # answered on the head, not after waiting for a body
    still_serves(curl_bin, server.url)


def test_just_over_the_body_limit_is_413(curl_bin, server):
    # The default limit is 32 MiB; the head alone says it is too large.
    status, _ = curl(curl_bin, "-H", f"Content-Length: {(32 << 20) + 1}", "-H",
                     "Content-Type: text/xml", "--data-binary", "<", server.url)
    assert status == 413
    still_serves(curl_bin, server.url)


def test_chunked_request_body(curl_bin, server):
    body = curl_body(curl_bin, "-H", "Transfer-Encoding: chunked", "-H",
                     "Content-Type: text/xml", "--data-binary", ADD_BODY, server.url)
    assert ANSWER_8 in body


def test_expect_100_continue(curl_bin, server, tmp_path):
    # curl waits for 100 Continue before sending a body it was told to announce so.
    padding = " " * (2 << 20)
    big = tmp_path / "big.xml"  # the command line cannot hold 2 MiB
    big.write_text(ADD_BODY.replace("</methodCall>", padding + "</methodCall>"))
    out = curl_body(curl_bin, "-H", "Expect: 100-continue", "-H", "Content-Type: text/xml",
                    "--data-binary", f"@{big}", "-D", "-", server.url)
    assert "HTTP/1.1 100 Continue" in out
    assert ANSWER_8 in out


def test_http_1_0_request(curl_bin, server):
    assert ANSWER_8 in curl_body(curl_bin, "--http1.0", "-H", "Content-Type: text/xml",
                                 "--data-binary", ADD_BODY, server.url)


def test_keep_alive_two_requests_on_one_connection(curl_bin, server):
    result = run([curl_bin, "-sS", "-v", "-m", "10", "-H", "Content-Type: text/xml",
                  "--data-binary", ADD_BODY, server.url, "--next", "-H",
                  "Content-Type: text/xml", "--data-binary", ADD_BODY, server.url], timeout=15)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(ANSWER_8) == 2
    assert "Re-using existing connection" in result.stderr
    assert result.stderr.count("Connected to") == 1


def test_garbage_request_line_is_400(server):
    answer = raw(server.url, b"NOT HTTP AT ALL\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 ")


def test_two_different_content_lengths_are_400(curl_bin, server):
    request = (f"POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n"
               f"Content-Length: {len(ADD_BODY)}\r\nContent-Length: {len(ADD_BODY) + 1}\r\n\r\n"
               f"{ADD_BODY}").encode()
    assert raw(server.url, request).startswith(b"HTTP/1.1 400 ")
    still_serves(curl_bin, server.url)


def test_oversized_head_is_431(curl_bin, server):
    request = (f"POST /RPC2 HTTP/1.1\r\nHost: x\r\nX-Big: {'a' * 20000}\r\n"
               f"Content-Length: {len(ADD_BODY)}\r\n\r\n{ADD_BODY}").encode()
    assert raw(server.url, request).startswith(b"HTTP/1.1 431 ")
    still_serves(curl_bin, server.url)


def test_server_alive_after_all(curl_bin, server):
    assert server.alive()
    still_serves(curl_bin, server.url)
