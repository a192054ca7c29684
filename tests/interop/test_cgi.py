"""The CGI examples (examples/c/cgi_server.c, examples/cpp/cgi_server.cpp) run by a real web
server: lighttpd's mod_cgi (Debian's lighttpd), called by Python's xmlrpc.client and by raw
HTTP.

lighttpd is given a listening socket the test bound on 127.0.0.1 port 0, through systemd's
socket activation protocol (LISTEN_FDS, LISTEN_PID), so no fixed port is ever used; a
connection made before lighttpd accepts waits in the socket's backlog. The web server does the
HTTP; each request runs the CGI program once.
"""

import gzip
import http.client
import os
import shutil
import socket
import subprocess
import threading
import xmlrpc.client

import pytest

from conftest import STOP_TIMEOUT, TimedTransport

HTTP_TIMEOUT = 10.0


def _cgi_program(variable):
    path = os.environ.get(variable)
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"{variable} is not set to the built CGI example (ctest sets it)")
    return path


class Lighttpd:
    """lighttpd serving one CGI program at /RPC2 on a socket bound here."""

    def __init__(self, program, directory):
        lighttpd = shutil.which("lighttpd") or "/usr/sbin/lighttpd"
        if not os.access(lighttpd, os.X_OK):
            pytest.fail("lighttpd is not installed (scripts/setup.sh installs it)")
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.error_log = directory / "error.log"
        config = directory / "lighttpd.conf"
        config.write_text(
            f'server.document-root = "{directory}"\n'
            'server.modules = ("mod_cgi", "mod_alias")\n'
            'server.systemd-socket-activation = "enable"\n'
            # The inherited socket is matched to this address; the port is the one bound above.
            f'server.bind = "127.0.0.1"\nserver.port = {self.port}\n'
            f'server.errorlog = "{self.error_log}"\n'
            f'alias.url = ("/RPC2" => "{program}")\n'
            'cgi.assign = ("" => "")\n')
        fd = self.listener.fileno()
        # The protocol wants the socket as fd 3 and LISTEN_PID = lighttpd's own pid: the shell
        # (bash: dash takes one-digit descriptors only) moves the socket there, sets LISTEN_PID
        # to its own pid, then execs lighttpd.
        move = "" if fd == 3 else f"3<&{fd} {fd}<&-"
        self.proc = subprocess.Popen(
            ["bash", "-c", f'LISTEN_PID=$$ exec "{lighttpd}" -D -f "{config}" {move}'],
            env=dict(os.environ, LISTEN_FDS="1"), pass_fds=(fd,),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(directory / "stderr.log", "wb"))
        self.stderr_log = directory / "stderr.log"
        self.url = f"http://127.0.0.1:{self.port}/RPC2"

    def log(self):
        """What lighttpd said, for failure messages."""
        return "\n".join(p.read_text() for p in (self.stderr_log, self.error_log) if p.exists())

    def post(self, body, headers=None, method="POST"):
        """One raw request: (status, headers, body)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HTTP_TIMEOUT)
        try:
            connection.request(method, "/RPC2", body=body,
                               headers=headers or {"Content-Type": "text/xml"})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)
        self.listener.close()


@pytest.fixture(scope="module", params=["CGI_SERVER_C", "CGI_SERVER_CPP"])
def web(request, tmp_path_factory):
    server = Lighttpd(_cgi_program(request.param), tmp_path_factory.mktemp("lighttpd"))
    yield server
    server.stop()


def proxy(web):
    return xmlrpc.client.ServerProxy(web.url, transport=TimedTransport(HTTP_TIMEOUT))


def test_python_client_calls_through_lighttpd(web):
    assert proxy(web).sample.add(5, 3) == 8, web.log()
    assert "sample.add" in proxy(web).system.listMethods()
    assert proxy(web).system.methodHelp("sample.add") == "Adds two integers."
    # What lighttpd passed on: REMOTE_ADDR and REMOTE_PORT as the peer.
    assert proxy(web).whoami().startswith("127.0.0.1:")


def test_faults_come_back_as_faults(web):
    with pytest.raises(xmlrpc.client.Fault) as fault:
        proxy(web).sample.add(5)
    assert fault.value.faultCode == -32602
    with pytest.raises(xmlrpc.client.Fault) as fault:
        proxy(web).no.such.method()
    assert fault.value.faultCode == -32601
    status, headers, body = web.post(b"<methodCall><methodName>")
    assert status == 200 and headers["Content-Type"].startswith("text/xml")
    assert b"<int>-32700</int>" in body


def test_a_gzipped_request_is_inflated(web):
    call = xmlrpc.client.dumps((20, 22), "sample.add").encode()
    status, _, body = web.post(gzip.compress(call),
                               {"Content-Type": "text/xml", "Content-Encoding": "gzip"})
    assert status == 200 and b"<int>42</int>" in body, body


def test_refusals_carry_their_status(web):
    status, headers, _ = web.post(None, method="GET")
    assert status == 405 and headers.get("Allow") == "POST"
    status, _, _ = web.post(b"abcd", {"Content-Type": "text/xml", "Content-Encoding": "br"})
    assert status == 415


def test_concurrent_calls_are_each_answered(web):
    results, errors = [], []

    def call(i):
        try:
            results.append(proxy(web).sample.add(i, 1) == i + 1)
        except Exception as e:  # collected, reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HTTP_TIMEOUT * 2)
    assert not errors, (errors, web.log())
    assert results == [True] * 16
