"""Long answers sent while they are written, read by peers that are not callwire: curl and
Python's xmlrpc.client, asking with `TE: trailers`, get the answer chunked and read it whole;
without it (as every such client sends by default) the answer has its Content-Length."""

import http.client
import urllib.parse
import xmlrpc.client

import pytest

from conftest import run

ROWS = ["row %05d " % i + "x" * 90 for i in range(20000)]  # about 2.6 MB of answer
ECHO_BODY = xmlrpc.client.dumps(tuple(ROWS), "echo")


def curl_echo(curl_bin, url, *headers, tmp_path):
    """Posts the echo call with curl; returns (head as text, the answer's params)."""
    head, body, call = tmp_path / "head", tmp_path / "body", tmp_path / "call.xml"
    call.write_text(ECHO_BODY)
    args = [curl_bin, "-sS", "-m", "20", "-D", str(head), "-o", str(body),
            "-H", "Content-Type: text/xml", "--data-binary", "@" + str(call), url]
    for h in headers:
        args[1:1] = ["-H", h]
    result = run(args, timeout=30)
    assert result.returncode == 0, result.stderr
    params, _ = xmlrpc.client.loads(body.read_bytes())
    return head.read_text(), params


def test_curl_with_te_trailers_gets_it_chunked(curl_bin, server, tmp_path):
    head, params = curl_echo(curl_bin, server.url, "TE: trailers", "Connection: TE",
                             tmp_path=tmp_path)
    assert "transfer-encoding: chunked" in head.lower(), head
    assert "content-length" not in head.lower(), head
    assert params == (ROWS,)


def test_curl_without_te_gets_a_length(curl_bin, server, tmp_path):
    head, params = curl_echo(curl_bin, server.url, tmp_path=tmp_path)
    assert "content-length" in head.lower(), head
    assert "transfer-encoding" not in head.lower(), head
    assert params == (ROWS,)


class TrailersTransport(xmlrpc.client.Transport):
    """Python's own transport, saying it reads chunked answers (http.client does)."""

    def send_headers(self, connection, headers):
        super().send_headers(connection, headers)
        connection.putheader("TE", "trailers")
        connection.putheader("Connection", "TE")


def test_python_xmlrpc_reads_the_chunks(server):
    proxy = xmlrpc.client.ServerProxy(server.url, transport=TrailersTransport())
    assert proxy.echo(*ROWS) == ROWS
    assert proxy.sample.add(5, 3) == 8  # the same connection goes on


def test_python_http_client_sees_chunks_then_the_next_answer(server):
    parts = urllib.parse.urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
    conn.request("POST", parts.path or "/RPC2", body=ECHO_BODY,
                 headers={"Content-Type": "text/xml", "TE": "trailers", "Connection": "TE"})
    answer = conn.getresponse()
    assert answer.status == 200
    assert answer.getheader("Transfer-Encoding") == "chunked"
    assert xmlrpc.client.loads(answer.read())[0] == (ROWS,)
    conn.request("POST", parts.path or "/RPC2", body=xmlrpc.client.dumps((2, 3), "sample.add"),
                 headers={"Content-Type": "text/xml"})
    small = conn.getresponse()
    assert small.getheader("Content-Length") is not None
    assert xmlrpc.client.loads(small.read())[0] == (5,)
