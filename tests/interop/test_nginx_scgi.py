"""`callwire serve --scgi` behind a real nginx (Debian's nginx-light, `scgi_pass`), called by
Python's xmlrpc.client and raw HTTP through nginx: results, faults, a 4 MiB blob both ways,
concurrent calls, gzip both ways, and nginx's 502 once the backend is gone. (What handlers see
of the client behind nginx, REMOTE_ADDR and REMOTE_USER, is checked in
tests/unit/server/scgi_server_test.cpp.)

nginx listens on a socket the test bound on 127.0.0.1 port 0 and hands it over through nginx's
own inheritance variable (NGINX="fd;", which its binary upgrade uses), so no fixed port is ever
used. callwire listens on port 0 too and prints its URL.
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

from conftest import REPO, STOP_TIMEOUT, ServerProcess, TimedTransport

HTTP_TIMEOUT = 10.0
# The example configuration, included as a user would include it.
EXAMPLE = REPO / "examples" / "nginx" / "callwire-scgi.conf"


class Nginx:
    """nginx passing /RPC2 to an SCGI backend at `backend` (HOST:PORT)."""

    def __init__(self, directory, backend):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(nginx, os.X_OK):
            pytest.fail("nginx is not installed (scripts/setup.sh installs nginx-light)")
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.error_log = directory / "error.log"
        config = directory / "nginx.conf"
        # Relative includes resolve beside the configuration file, where Debian keeps
        # scgi_params next to its own nginx.conf.
        shutil.copy("/etc/nginx/scgi_params", directory / "scgi_params")
        # As root, nginx's workers would run as nobody, who cannot write the request bodies it
        # buffers into this private directory: keep them as root (a user who is not root has
        # its workers run as itself anyway).
        user = "user root;" if os.geteuid() == 0 else ""
        config.write_text(f"""
{user}
daemon off;
master_process on;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {self.error_log} warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {directory}/body;
  proxy_temp_path {directory}/proxy;
  fastcgi_temp_path {directory}/fastcgi;
  uwsgi_temp_path {directory}/uwsgi;
  scgi_temp_path {directory}/scgi;
  upstream callwire_scgi {{ server {backend}; }}
  server {{
    listen 127.0.0.1:{self.port};
    include {EXAMPLE};
  }}
}}
""")
        fd = self.listener.fileno()
        self.proc = subprocess.Popen(
            [nginx, "-c", str(config), "-e", str(self.error_log)],
            env=dict(os.environ, NGINX=f"{fd};"), pass_fds=(fd,),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}/RPC2"

    def log(self):
        return self.error_log.read_text() if self.error_log.exists() else ""

    def post(self, body, headers):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HTTP_TIMEOUT)
        try:
            connection.request("POST", "/RPC2", body=body, headers=headers)
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


@pytest.fixture(scope="module")
def backend(callwire_bin):
    server = ServerProcess([callwire_bin, "serve", "--threads", "2", "--scgi", "127.0.0.1:0",
                            "--gzip-min-size", "1024"])
    yield server
    assert server.stop() == 0, server.stderr()


@pytest.fixture(scope="module")
def web(backend, tmp_path_factory):
    address = backend.url[len("scgi://"):].split("/")[0]
    server = Nginx(tmp_path_factory.mktemp("nginx"), address)
    yield server
    server.stop()


def proxy(web):
    return xmlrpc.client.ServerProxy(web.url, transport=TimedTransport(HTTP_TIMEOUT),
                                     allow_none=True)


def test_calls_through_nginx(web):
    assert proxy(web).sample.add(5, 3) == 8, web.log()
    assert "sample.add" in proxy(web).system.listMethods()
    with pytest.raises(xmlrpc.client.Fault) as fault:
        proxy(web).sample.add(5)
    assert fault.value.faultCode == -32602


def test_a_4_mib_blob_both_ways(web):
    blob = os.urandom(4 << 20)
    assert proxy(web).echo(xmlrpc.client.Binary(blob))[0].data == blob, web.log()


def test_gzip_through_nginx(web):
    call = xmlrpc.client.dumps(("x" * 5000,), "echo").encode()
    status, headers, body = web.post(gzip.compress(call), {
        "Content-Type": "text/xml", "Content-Encoding": "gzip", "Accept-Encoding": "gzip"})
    assert status == 200, (status, body, web.log())
    assert headers.get("Content-Encoding") == "gzip"
    assert b"x" * 5000 in gzip.decompress(body)


def test_concurrent_calls(web):
    results, errors = [], []

    def call(i):
        try:
            results.append(proxy(web).sample.add(i, 1) == i + 1)
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HTTP_TIMEOUT * 2)
    assert not errors, (errors, web.log())
    assert results == [True] * 32


def test_bad_requests_never_reach_the_backend_as_calls(web):
    status, _, body = web.post(b"<methodCall><methodName>", {"Content-Type": "text/xml"})
    assert status == 200 and b"<int>-32700</int>" in body


def test_nginx_answers_502_once_the_backend_is_gone(callwire_bin, tmp_path_factory):
    server = ServerProcess([callwire_bin, "serve", "--threads", "1", "--scgi", "127.0.0.1:0"])
    address = server.url[len("scgi://"):].split("/")[0]
    web = Nginx(tmp_path_factory.mktemp("nginx-gone"), address)
    try:
        assert proxy(web).sample.add(1, 2) == 3, web.log()
        assert server.stop() == 0
        status, _, _ = web.post(xmlrpc.client.dumps((1, 2), "sample.add").encode(),
                                {"Content-Type": "text/xml"})
        assert status == 502
    finally:
        web.stop()


def test_the_c_example_server_behind_nginx(tmp_path_factory):
    """examples/c/sample_add_server.c, unchanged, listening for SCGI: the listen string is all."""
    program = os.environ.get("SAMPLE_ADD_SERVER_C")
    if not program or not os.access(program, os.X_OK):
        pytest.fail("SAMPLE_ADD_SERVER_C is not set to the built example (ctest sets it)")
    server = ServerProcess([program, "--listen", "scgi://127.0.0.1:0"])
    assert server.url.startswith("scgi://127.0.0.1:")
    web = Nginx(tmp_path_factory.mktemp("nginx-example"), server.url[len("scgi://"):].split("/")[0])
    try:
        assert proxy(web).sample.add(40, 2) == 42, web.log()
    finally:
        web.stop()
        assert server.stop() == 0, server.stderr()
