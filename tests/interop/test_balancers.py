"""Several `callwire serve` backends behind a real nginx (upstream with keep-alive) and a real
HAProxy, configured with deploy/nginx/callwire-upstream.conf and
deploy/haproxy/callwire-defaults.cfg as they are. Under a steady load of calls from four
threads, one backend is killed (SIGKILL) and restarted on its port, or stopped gracefully
(SIGTERM): the balancer routes around it, and the calls that fail are counted. A killed
backend may take with it the calls it was running (at most one per client thread); a call
that had not reached it must not fail. HAProxy resends a call whose kept-alive connection
closed with no answer, so a graceful stop behind it loses nothing.

The balancers listen on sockets the test bound on 127.0.0.1 port 0 (nginx through its NGINX
inheritance variable, HAProxy through `bind fd@N`); the backends on ports they chose.
"""

import http.client
import os
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest

from conftest import REPO, STOP_TIMEOUT, ServerProcess

NGINX_SNIPPET = REPO / "deploy" / "nginx" / "callwire-upstream.conf"
HAPROXY_DEFAULTS = REPO / "deploy" / "haproxy" / "callwire-defaults.cfg"
CALL = (b'<?xml version="1.0"?><methodCall><methodName>sample.add</methodName><params>'
        b'<param><value><int>2</int></value></param><param><value><int>3</int></value>'
        b'</param></params></methodCall>')
THREADS = 4


class Backend:
    """`callwire serve --log` on 127.0.0.1 (a port of its own, or `port` when restarted)."""

    def __init__(self, callwire_bin, port=0):
        self.callwire_bin = callwire_bin
        self.server = ServerProcess([callwire_bin, "serve", "--threads", "1", "--log",
                                     "--listen", f"127.0.0.1:{port}"])
        self.port = int(self.server.url.split(":")[2].split("/")[0])
        self.address = f"127.0.0.1:{self.port}"

    def calls_served(self):
        return self.server.stderr().count("sample.add")

    def kill(self):
        self.server.proc.kill()
        self.server.proc.wait(STOP_TIMEOUT)

    def terminate(self):
        assert self.server.stop() == 0, self.server.stderr()

    def restart(self):
        # The port was just freed: binding it again may take a moment on a busy machine.
        deadline = time.monotonic() + 5
        while True:
            try:
                return Backend(self.callwire_bin, self.port)
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


class Balancer:
    def __init__(self, argv, listener, env=None):
        self.listener = listener
        self.url_host = "127.0.0.1"
        self.port = listener.getsockname()[1]
        fd = listener.fileno()
        self.proc = subprocess.Popen(argv, env=env, pass_fds=(fd,), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.wait_ready()

    def wait_ready(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                status, _ = post(self.port)
                if status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"the balancer exited: {self.proc.stderr.read().decode()}")
            time.sleep(0.05)
        raise TimeoutError("the balancer did not answer within 10 s")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)
        self.listener.close()


def listening_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    return s


def nginx(directory, backends):
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(binary, os.X_OK):
        pytest.fail("nginx is not installed (scripts/setup.sh installs nginx-light)")
    listener = listening_socket()
    user = "user root;" if os.geteuid() == 0 else ""
    servers = "\n".join(f"    server {b.address} max_fails=1 fail_timeout=2s;" for b in backends)
    config = directory / "nginx.conf"
    config.write_text(f"""
{user}
daemon off;
master_process on;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {directory}/body;
  proxy_temp_path {directory}/proxy;
  fastcgi_temp_path {directory}/fastcgi;
  uwsgi_temp_path {directory}/uwsgi;
  scgi_temp_path {directory}/scgi;
  upstream callwire_backends {{
{servers}
    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{listener.getsockname()[1]};
    include {NGINX_SNIPPET};
  }}
}}
""")
    return Balancer([binary, "-c", str(config), "-e", str(directory / "error.log")], listener,
                    env=dict(os.environ, NGINX=f"{listener.fileno()};"))


def haproxy(directory, backends):
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not os.access(binary, os.X_OK):
        pytest.fail("haproxy is not installed (scripts/setup.sh installs it)")
    listener = listening_socket()
    servers = "\n".join(f"  server b{i} {b.address} check inter 200ms fall 1 rise 1"
                        for i, b in enumerate(backends))
    config = directory / "haproxy.cfg"
    config.write_text(f"""
global
  maxconn 256
frontend rpc
  bind fd@{listener.fileno()}
  default_backend callwire
backend callwire
  balance roundrobin
{servers}
""")
    return Balancer([binary, "-db", "-f", str(HAPROXY_DEFAULTS), "-f", str(config)], listener)


def post(port, connection=None):
    c = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("POST", "/RPC2", CALL, {"Content-Type": "text/xml"})
    r = c.getresponse()
    body = r.read()
    if connection is None:
        c.close()
    return r.status, body


class Load:
    """THREADS threads calling through the balancer on kept-alive connections until stopped."""

    def __init__(self, port):
        self.port = port
        self.ok = 0
        self.failed = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.run) for _ in range(THREADS)]
        for t in self.threads:
            t.start()

    def run(self):
        connection = None
        while not self.stopping.is_set():
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                status, body = post(self.port, connection)
                good = status == 200 and b"<int>5</int>" in body
                outcome = None if good else f"HTTP {status}: {body[:80]!r}"
            except (OSError, http.client.HTTPException) as e:
                outcome = f"{type(e).__name__}: {e}"
                connection = None
            with self.lock:
                if outcome is None:
                    self.ok += 1
                else:
                    self.failed.append(outcome)

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(30)
        return self.ok, self.failed


@pytest.fixture(params=["nginx", "haproxy"])
def balanced(request, callwire_bin, tmp_path):
    backends = [Backend(callwire_bin), Backend(callwire_bin)]
    make = nginx if request.param == "nginx" else haproxy
    balancer = make(tmp_path, backends)
    yield request.param, balancer, backends
    balancer.stop()
    for b in backends:
        if b.server.alive():
            b.terminate()


def test_calls_spread_over_the_backends(balanced):
    _, balancer, backends = balanced
    for _ in range(40):
        assert post(balancer.port)[0] == 200
    served = [b.calls_served() for b in backends]
    assert all(n > 0 for n in served), served


def test_a_killed_backend_costs_at_most_the_calls_it_was_running(balanced):
    name, balancer, backends = balanced
    load = Load(balancer.port)
    time.sleep(0.7)
    backends[0].kill()
    time.sleep(1.0)
    backends[0] = backends[0].restart()
    time.sleep(1.5)  # the balancer takes it back (HAProxy's check, nginx's fail_timeout)
    ok, failed = load.stop()
    print(f"{name}: {ok} calls answered, {len(failed)} failed around the kill: {failed}")
    assert ok > 100
    # Each thread has one call in flight: the killed backend can have been running only those.
    assert len(failed) <= THREADS, failed
    time.sleep(0.5)
    before = backends[0].calls_served()
    for _ in range(20):
        assert post(balancer.port)[0] == 200
    assert backends[0].calls_served() > before, "the restarted backend gets calls again"


def test_a_graceful_stop_loses_no_call(balanced):
    name, balancer, backends = balanced
    load = Load(balancer.port)
    time.sleep(0.7)
    backends[0].terminate()
    time.sleep(1.0)
    ok, failed = load.stop()
    print(f"{name}: {ok} calls answered, {len(failed)} failed around the stop: {failed}")
    assert ok > 100
    # A call sent on a kept-alive connection just as the stopping backend closes it races the
    # close: nginx resends no POST that reached a backend (proxy_next_upstream without
    # non_idempotent), and HAProxy's empty-response retry misses it now and then on a slow
    # (sanitized) backend. None lost in our ordinary runs; at most one per client thread.
    assert len(failed) <= THREADS, failed
