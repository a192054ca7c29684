"""Shared fixtures of the interop tests: the programs under test and the servers they run.

Every server here listens on the loopback interface with port 0 (or a Unix socket in a temporary
directory) and is waited for by reading its "listening on URL" line, never by sleeping. Every wait
has a deadline. A callwire server is stopped with SIGTERM and must exit with status 0 within
STOP_TIMEOUT seconds.

The programs come from the environment (ctest sets them): CALLWIRE_BIN (the callwire command)
and XMLRPC_C_SERVER (tests/interop/xmlrpc_c_server.cpp, built). Run by hand from the repository:

    CALLWIRE_BIN=build/release/tools/callwire \\
    XMLRPC_C_SERVER=build/release/tests/interop/xmlrpc_c_server python3 -m pytest -q tests/interop
"""

import os
import pathlib
import select
import shutil
import signal
import subprocess
import tempfile
import time
import xmlrpc.client

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
START_TIMEOUT = 10.0  # seconds for a server to print its listening lines
STOP_TIMEOUT = 5.0  # seconds for a server to exit after SIGTERM
RUN_TIMEOUT = 20.0  # seconds for one run of a command-line program


def _program(variable, default):
    path = os.environ.get(variable) or str(REPO / default)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not an executable: build first, or set {variable}")
    return path


@pytest.fixture(scope="session")
def callwire_bin():
    return _program("CALLWIRE_BIN", "build/release/tools/callwire")


@pytest.fixture(scope="session")
def xmlrpc_c_server_bin():
    return _program("XMLRPC_C_SERVER", "build/release/tests/interop/xmlrpc_c_server")


class ServerProcess:
    """A server program that prints one "listening on URL" line per listener, first thing."""

    def __init__(self, argv, listeners=1):
        self.argv = argv
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self._stderr)
        try:
            lines = self._read_lines(listeners)
        except BaseException:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)
            raise
        self.urls = []
        for line in lines:
            assert line.startswith("listening on "), f"{argv}: unexpected first output {line!r}"
            self.urls.append(line[len("listening on "):])
        self.url = self.urls[0]

    def _read_lines(self, count):
        fd = self.proc.stdout.fileno()
        data = b""
        deadline = time.monotonic() + START_TIMEOUT
        while data.count(b"\n") < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{self.argv}: no listening line within {START_TIMEOUT} s "
                                   f"(stdout so far {data!r})")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                rc = self.proc.wait(STOP_TIMEOUT)
                raise RuntimeError(f"{self.argv} exited with status {rc} before listening: "
                                   f"{self.stderr()}")
            data += chunk
        return data.decode().splitlines()[:count]

    def stderr(self):
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        """SIGTERM, then wait; returns the exit status (kills and fails after STOP_TIMEOUT)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)
            pytest.fail(f"{self.argv} did not exit within {STOP_TIMEOUT} s of SIGTERM")
        self.proc.stdout.close()
        return rc


@pytest.fixture(scope="module")
def serve(callwire_bin):
    """serve(*flags, listeners=1): starts `callwire serve FLAGS...` (which must include the
    listeners) and returns its ServerProcess. Each one is stopped at the end of the module, and
    must exit with status 0."""
    started = []

    def start(*flags, listeners=1):
        server = ServerProcess([callwire_bin, "serve", "--threads", "1", *flags], listeners)
        started.append(server)
        return server

    yield start
    failures = []
    for server in started:
        rc = server.stop()
        if rc != 0:
            failures.append(f"{server.argv} exited with status {rc}: {server.stderr()}")
    assert not failures, "\n".join(failures)


@pytest.fixture(scope="module")
def server(serve):
    """A plain callwire server on 127.0.0.1, port 0."""
    return serve("--listen", "127.0.0.1:0")


@pytest.fixture(scope="session")
def curl_bin():
    """curl, which scripts/setup.sh installs."""
    path = shutil.which("curl")
    if path is None:
        pytest.fail("curl is missing (scripts/setup.sh installs it)")
    return path


@pytest.fixture(scope="session")
def tls_cert(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 and localhost, made now: (cert, key) paths."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("the openssl program is missing (scripts/setup.sh installs it)")
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
         "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=RUN_TIMEOUT)
    return cert, key


def run(argv, timeout=RUN_TIMEOUT, **kwargs):
    """Runs a command-line program to completion (bounded), capturing text output."""
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, **kwargs)


class TimedTransport(xmlrpc.client.Transport):
    """Python's transport with a socket timeout (its own has none: a hang would be forever)."""

    def __init__(self, timeout=10.0):
        super().__init__()
        self.timeout = timeout

    def make_connection(self, host):
        connection = super().make_connection(host)
        connection.timeout = self.timeout
        return connection
