#!/usr/bin/env python3
"""Writes the seed corpora of the HTTP fuzz drivers:

    tests/fuzz/corpus/http_request_fuzz/*.bin
    tests/fuzz/corpus/http_response_fuzz/*.bin
    tests/fuzz/corpus/server_fuzz/*.bin (the raw requests, no prefix, plus calls the demo
                                         server's methods answer)

Each seed is the drivers' 3-byte prefix (flags; a big-endian split offset) and one message.
The flags byte: bit 0 = tiny limits; bit 1 (response driver) = the connection ends after the
input; bit 2 (response driver) or bit 1 (request driver, whose bit 1 means nothing else) =
the SCGI parser. Every message is written with the split in its middle, plain and with tiny limits,
and response messages once more ending with the connection.
Run it again after changing the messages; it removes the *.bin seeds it no longer produces
(never the hash-named inputs that fuzzing found).
"""
import gzip
import os

HERE = os.path.dirname(os.path.abspath(__file__))

BODY = (b"<?xml version='1.0'?>\n<methodCall>\n<methodName>sample.add</methodName>\n"
        b"<params>\n<param>\n<value><int>2</int></value>\n</param>\n</params>\n</methodCall>\n")
RESP = (b"<?xml version='1.0'?>\n<methodResponse>\n<params>\n<param>\n"
        b"<value><int>5</int></value>\n</param>\n</params>\n</methodResponse>\n")


def cl(body):
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


REQUESTS = {
    "python_client": b"POST /RPC2 HTTP/1.1\r\nHost: localhost:8080\r\nAccept-Encoding: gzip\r\n"
                     b"Content-Type: text/xml\r\nUser-Agent: Python-xmlrpc/3.11\r\n" + cl(BODY),
    "curl": b"POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: curl/7.88.1\r\n"
            b"Accept: */*\r\nContent-Type: text/xml\r\n" + cl(BODY),
    "xmlrpc_c_auth_expect": b"POST /RPC2 HTTP/1.1\r\nHost: localhost:8080\r\n"
                            b"Authorization: Basic dXNlcjpwYXNz\r\nAccept-Encoding: deflate, gzip\r\n"
                            b"Content-Type: text/xml\r\nExpect: 100-continue\r\n" + cl(BODY),
    "chunked_ext_trailers": b"POST /RPC2 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
                            b"Content-Encoding: gzip\r\n\r\n5;a=b\r\nhello\r\n7 ; x\r\n, world\r\n"
                            b"0;last\r\nX-Trailer: yes\r\n\r\n",
    "pipelined": b"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nokPOST /b HTTP/1.1\r\n"
                 b"Host: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
    "http10_keep_alive": b"\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "bare_lf": b"POST /x HTTP/1.1\nHost: h\nContent-Length: 3\n\nabc",
    "smuggle_cl_te": b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "obs_fold": b"POST / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n 2\r\n\r\n",
    "te_gzip": b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    "version_20": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
}

GZ = gzip.compress(RESP, mtime=0)
RESPONSES = {
    "python_http10": b"HTTP/1.0 200 OK\r\nServer: BaseHTTP/0.6 Python/3.11.7\r\n"
                     b"Date: Sun, 22 Nov 2026 00:22:48 GMT\r\nContent-type: text/xml\r\n"
                     b"Content-length: %d\r\n\r\n" % len(RESP) + RESP,
    "abyss_keep_alive": b"HTTP/1.1 200 OK\r\nContent-type: text/xml; charset=utf-8\r\n"
                        b"Connection: Keep-Alive\r\nKeep-Alive: timeout=15, max=30\r\n"
                        b"Server: Xmlrpc-c_Abyss/1.33.14\r\n" + cl(RESP),
    "abyss_405_until_eof": b"HTTP/1.1 405 Method Not Allowed\r\nContent-type: text/html\r\n"
                           b"Connection: close\r\n\r\n<HTML><BODY>POST only</BODY></HTML>",
    "nginx_chunked": b"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Type: text/xml\r\n"
                     b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
                     b"15\r\n<?xml version=\"1.0\"?>\r\n%x\r\n" % len(RESP) + RESP + b"\r\n0\r\n\r\n",
    "gzip_content_length": b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n"
                           b"Content-Encoding: gzip\r\n" + cl(GZ),
    "gzip_chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n"
                    b"\r\n%x\r\n" % len(GZ) + GZ + b"\r\n0\r\n\r\n",
    "continue_then_final": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n"
                           b"Link: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "unauthorized": b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\", "
                    b"charset=\"UTF-8\"\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                    b"Content-Length: 17\r\n\r\n401 Unauthorized\n",
    "no_content": b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
    "chunked_trailers_bare_lf": b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n"
                                b"5;n=v\nhello\n0\nX-T: 1\n\n",
    "http10_until_eof": b"HTTP/1.0 200 OK\r\nContent-Type: text/xml\r\n\r\n" + RESP,
    "smuggle_cl_te": b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
    "switching_protocols": b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
    "truncated_body": b"HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n0123456789",
}


# SCGI answers (the response driver's flag bit 2): CGI responses as rtorrent and Python's scgi
# servers send them, and an HTTP one as some SCGI servers send.
SCGI_RESPONSES = {
    "scgi_rtorrent": b"Status: 200 OK\r\nContent-Type: text/xml\r\n" + cl(RESP),
    "scgi_until_eof": b"Content-Type: text/xml\n\n" + RESP,
    "scgi_status_404": b"Status: 404 Not Found\r\nContent-Type: text/plain\r\n\r\nno",
    "scgi_http_line": b"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n" + cl(RESP),
    "scgi_gzip": b"Status: 200 OK\r\nContent-Encoding: gzip\r\n" + cl(GZ),
    "scgi_bad_status": b"Status: 2000\r\n\r\n",
}


def seeds(messages, flag_sets):
    out = {}
    for name, msg in messages.items():
        split = len(msg) // 2
        for flags in flag_sets:
            suffix = {0: "", 1: "_tiny", 2: "_eof", 3: "_tiny_eof", 4: "", 5: "_tiny",
                      6: "_eof"}[flags]
            if name.startswith("scgi_") and flags in (2, 3) and messages is not SCGI_RESPONSES:
                suffix = {2: "", 3: "_tiny"}[flags]
            out[name + suffix + ".bin"] = bytes([flags, split >> 8, split & 0xff]) + msg
    return out


def write(driver, files):
    d = os.path.join(HERE, "corpus", driver)
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        # Only its own seeds (*.bin): the hash-named inputs fuzzing found stay.
        if old.endswith(".bin") and old not in files:
            os.remove(os.path.join(d, old))
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    print("%s: %d seeds" % (driver, len(files)))


# SCGI requests (the request driver's flag bit 1), as nginx's scgi_pass and our client send them.
def netstring(pairs):
    block = b"".join(name + b"\0" + value + b"\0" for name, value in pairs)
    return b"%d:" % len(block) + block + b","


SCGI_REQUESTS = {
    "scgi_nginx": netstring([(b"CONTENT_LENGTH", b"%d" % len(BODY)), (b"SCGI", b"1"),
                             (b"REQUEST_METHOD", b"POST"), (b"REQUEST_URI", b"/RPC2"),
                             (b"CONTENT_TYPE", b"text/xml"), (b"REMOTE_ADDR", b"127.0.0.1"),
                             (b"REMOTE_PORT", b"50000"), (b"HTTP_HOST", b"localhost"),
                             (b"HTTP_ACCEPT_ENCODING", b"gzip"),
                             (b"HTTP_USER_AGENT", b"Python-xmlrpc/3.11")]) + BODY,
    "scgi_no_scgi": netstring([(b"CONTENT_LENGTH", b"0")]),
    "scgi_length_not_first": netstring([(b"SCGI", b"1"), (b"CONTENT_LENGTH", b"0")]),
}
write("http_request_fuzz", {**seeds(REQUESTS, (0, 1)), **seeds(SCGI_REQUESTS, (2, 3))})

ADD = (b"<?xml version='1.0'?><methodCall><methodName>sample.add</methodName><params>"
       b"<param><value><int>2</int></value></param><param><value><i4>3</i4></value></param>"
       b"</params></methodCall>")
MULTI = (b"<methodCall><methodName>system.multicall</methodName><params><param><value><array>"
         b"<data><value><struct><member><name>methodName</name><value>echo</value></member>"
         b"<member><name>params</name><value><array><data><value><nil/></value></data></array>"
         b"</value></member></struct></value></data></array></value></param></params>"
         b"</methodCall>")
POST = b"POST /RPC2 HTTP/1.1\r\nHost: h\r\nContent-Type: text/xml\r\n"
SERVER = dict((name + ".bin", msg) for name, msg in REQUESTS.items())
SERVER.update({
    "add.bin": POST + cl(ADD),
    "multicall_gzip_accept.bin": POST + b"Accept-Encoding: gzip\r\n" + cl(MULTI),
    "gzip_body.bin": POST + b"Content-Encoding: gzip\r\n" + cl(gzip.compress(ADD, mtime=0)),
    "expect_continue.bin": POST + b"Expect: 100-continue\r\n" + cl(ADD),
    "pipelined_calls.bin": (POST + cl(ADD)) * 3 + b"POST /RPC2 HTTP/1.0\r\n" + cl(MULTI),
    "chunked_call.bin": POST + b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % len(ADD) + ADD
                        + b"\r\n0\r\n\r\n",
})
SERVER.update({
    "scgi_add.bin": netstring([(b"CONTENT_LENGTH", b"%d" % len(ADD)), (b"SCGI", b"1"),
                               (b"REQUEST_METHOD", b"POST"), (b"REQUEST_URI", b"/RPC2"),
                               (b"REMOTE_ADDR", b"127.0.0.1"), (b"REMOTE_PORT", b"4711")]) + ADD,
    "scgi_gzip_accept.bin": netstring([(b"CONTENT_LENGTH", b"%d" % len(MULTI)), (b"SCGI", b"1"),
                                       (b"REQUEST_METHOD", b"POST"), (b"REQUEST_URI", b"/"),
                                       (b"HTTP_ACCEPT_ENCODING", b"gzip")]) + MULTI,
})
write("server_fuzz", SERVER)
write("http_response_fuzz", {**seeds(RESPONSES, (0, 1, 2)), **seeds(SCGI_RESPONSES, (4, 5, 6))})
