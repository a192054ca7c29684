"""Machinery of the adversarial suite: a live `callwire serve` per test, the probe, /proc readers
and the pass criteria (issue 16).

Each test starts a fresh server on 127.0.0.1, port 0, waited for by reading its "listening on
URL" line (never by sleeping), and attacks it inside `with Attack(server, ...) as attack:`.
Entering starts the probe (probe.py, its own process: sample.add calls on one kept-alive
connection throughout), records the server's descriptors and RSS and resets its peak RSS;
a sampler thread watches both during the attack. Leaving closes the attacker's sockets, waits
(bounded) for the descriptors to come back, stops the probe, stops the server with SIGTERM
and asserts the criteria:

- the server is alive after the attack and exits with status 0 on SIGTERM (no crash, no hang);
- the probe saw no error, max latency < 500 ms, p99 < 50 ms;
- the server's descriptors are back to their count before the attack;
- its peak RSS (VmHWM, reset when the attack starts) minus its RSS before the attack is within
  the attack's stated budget.

Every attack's figures go to adversarial-results.jsonl in the working directory (ctest: the
build directory) and into the assertion message when a criterion fails. Run by hand:

    CALLWIRE_BIN=build/release/tools/callwire python3 -m pytest -q tests/adversarial
"""

import errno
import json
import os
import pathlib
import resource
import select
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
START_TIMEOUT = 10.0  # seconds for a server (or the probe) to say it is ready
STOP_TIMEOUT = 15.0  # seconds to exit after SIGTERM (the server's stop_grace is 10 s)
SETTLE_TIMEOUT = 6.0  # seconds for descriptors to come back (error answers linger 2 s)
TEST_TIMEOUT = 60  # seconds for one test, whatever it does
SAMPLE_EVERY = 0.02  # seconds between two /proc samples during an attack
# The probe watches at least this long from an attack's start (a short attack is followed by
# quiet calls), so that its p99 is over a few hundred calls rather than the handful a burst
# lasts; a stall still shows in the max.
MIN_WINDOW = 2.0

# Under the sanitizers, and in an unoptimized build (CMake sets CALLWIRE_SANITIZED=1 for both),
# the server runs several times slower (under the sanitizers in several times the memory): the
# attacks still run, and a crash, a hang, an error seen by the probe or a leaked descriptor still
# fails them (ASan and UBSan watch every byte), but the latency and RSS criteria, which describe
# the release build, are not checked. Nor is the probe's call timeout of 5 s, which is a latency
# too: a call that waits behind a large one for longer than that is slow there, not hung. Under
# the sanitizers only a call of PROBE_HANG seconds counts as a hang.
SANITIZED = os.environ.get("CALLWIRE_SANITIZED") == "1"
PROBE_HANG = 60.0 if SANITIZED else 5.0


def pytest_collection_modifyitems(config, items):
    # The criteria read /proc (RSS, descriptors, TCP queues), which only Linux has.
    if not sys.platform.startswith("linux"):
        for item in items:
            item.add_marker(pytest.mark.skip(reason="Linux only: the criteria read /proc"))


MAX_LATENCY = 0.500  # seconds, the probe's worst call
P99_LATENCY = 0.050  # seconds, the probe's 99th percentile
MIB = 1 << 20

RESULTS = pathlib.Path(os.environ.get("ADVERSARIAL_RESULTS", "adversarial-results.jsonl"))

# The 10,000-connection attack needs more descriptors than the usual 1,024; the server inherits
# the raised limit (and raises its own soft limit toward the hard one when its cap needs it).
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _hard == resource.RLIM_INFINITY or _soft < _hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard if _hard != resource.RLIM_INFINITY
                                                else 1 << 20, _hard))


def nofile_limit():
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---------------------------------------------------------------------------- XML-RPC documents

def call_xml(method, *params_xml):
    """A methodCall document whose parameters are already XML values (<value>...</value>)."""
    params = "".join(f"<param>{p}</param>" for p in params_xml)
    return (f"<?xml version='1.0'?><methodCall><methodName>{method}</methodName>"
            f"<params>{params}</params></methodCall>").encode()


ADD_BODY = call_xml("sample.add", "<value><int>5</int></value>", "<value><int>3</int></value>")
ADD_ANSWER = b"<int>8</int>"


def http_request(body, host="127.0.0.1", extra_headers=(), version="HTTP/1.1"):
    """A POST /RPC2 with a Content-Length body (bytes)."""
    head = [f"POST /RPC2 {version}", f"Host: {host}", "Content-Type: text/xml",
            f"Content-Length: {len(body)}", *extra_headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def read_response(sock, pending=b""):
    """Reads one HTTP response with a Content-Length body from a blocking socket; returns
    (status, {lower-case name: value}, body, bytes left over). Raises ConnectionError when the
    server closes first."""
    data = pending
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError(f"closed before a response head (got {data[:200]!r})")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError(f"closed in a response body ({len(rest)} of {length} bytes)")
        rest += chunk
    return status, headers, rest[:length], rest[length:]


def read_until_closed(sock, limit=1 << 20):
    """Everything the server sends until it closes (or resets), at most `limit` bytes."""
    received = b""
    try:
        while len(received) < limit:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            received += chunk
    except (ConnectionResetError, socket.timeout, ssl.SSLError):
        pass
    return received


# ------------------------------------------------------------------------------ the server

class Server:
    """`callwire serve --listen 127.0.0.1:0 --threads 1 FLAGS...`, ready once it printed its
    "listening on URL" line."""

    def __init__(self, callwire_bin, flags):
        self.argv = [callwire_bin, "serve", "--listen", "127.0.0.1:0", *flags]
        if "--threads" not in flags:
            self.argv[4:4] = ["--threads", "1"]  # one loop: a stall shows on the probe
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self._stderr)
        try:
            self._lines = _read_lines(self.proc, self.proc.stdout.fileno(), self.argv)
        except BaseException:
            self.kill()
            raise
        line = self._lines[0]
        assert line.startswith("listening on "), f"{self.argv}: first output {line!r}"
        self.url = line[len("listening on "):]
        parts = urllib.parse.urlsplit(self.url)
        self.host, self.port, self.tls = parts.hostname, parts.port, parts.scheme == "https"
        self.pid = self.proc.pid
        self.exit_status = None

    def listener(self, scheme):
        """(host, port) of the listener whose URL starts with `scheme` ("pstream://"), from the
        server's "listening on URL" lines (one per listener)."""
        while True:
            for line in self._lines:
                url = line[len("listening on "):]
                if url.startswith(scheme):
                    parts = urllib.parse.urlsplit(url)
                    return parts.hostname, parts.port
            self._lines += _read_lines(self.proc, self.proc.stdout.fileno(), self.argv)

    # /proc readers
    def status(self):
        """{"VmRSS": bytes, "VmHWM": bytes} from /proc/PID/status."""
        out = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    name, value = line.split(":")
                    out[name] = int(value.split()[0]) * 1024
        return out

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def cpu_seconds(self):
        """User plus system CPU time the server has used, in seconds."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def reset_peak(self):
        """Resets VmHWM to the current RSS (clear_refs 5), so the peak is this attack's."""
        with open(f"/proc/{self.pid}/clear_refs", "w") as f:
            f.write("5")

    def alive(self):
        return self.proc.poll() is None

    def stderr(self):
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-4000:]

    def stop(self):
        """SIGTERM; returns the exit status, or None when it did not exit in STOP_TIMEOUT (then
        it is killed)."""
        if self.exit_status is not None:
            return self.exit_status
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.exit_status = self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        self.proc.stdout.close()
        return self.exit_status

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)

    def connect(self, timeout=10.0):
        """A blocking connection to the server (TLS when it serves TLS, not verified)."""
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls:
            sock = insecure_tls_context().wrap_socket(sock, server_hostname=self.host)
        return sock

    def call(self, body, timeout=10.0, extra_headers=()):
        """One request on a fresh connection: (status, headers, body)."""
        with self.connect(timeout) as sock:
            sock.sendall(http_request(body, extra_headers=extra_headers))
            status, headers, answer, _ = read_response(sock)
            return status, headers, answer


def open_raw(server, count, timeout=10.0, wave=512):
    """`count` plain TCP connections to the server, connected without waiting on each (bursts
    of non-blocking connects, then one poll until all are up); left non-blocking.

    The bursts come in waves, each sent once the server has taken the last one from its accept
    queue: a burst larger than the kernel's queues would leave "connections" that only the
    client knows of (a SYN cookie whose final ACK was dropped), which the server never sees
    and so never counts against its cap."""
    sockets = []
    deadline = time.monotonic() + timeout
    try:
        while len(sockets) < count:
            sockets += _connect_wave(server, min(wave, count - len(sockets)), deadline, count)
            while (queued := accept_queue(server)) > 0:
                assert time.monotonic() < deadline, f"{queued} connections never accepted"
                time.sleep(0.002)
        return sockets
    except BaseException:
        for s in sockets:
            s.close()
        raise


def _connect_wave(server, count, deadline, total):
    sockets, pending = [], {}
    poller = select.epoll()
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            sockets.append(s)
            err = s.connect_ex((server.host, server.port))
            if err not in (0, errno.EINPROGRESS):
                raise OSError(err, f"connect: {errno.errorcode.get(err, err)}")
            pending[s.fileno()] = s
            poller.register(s.fileno(), select.EPOLLOUT)
        while pending:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{len(pending)} of {total} connections not up in time"
            for fd, _ in poller.poll(remaining):
                s = pending.pop(fd)
                poller.unregister(fd)
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                assert err == 0, f"connect: {errno.errorcode.get(err, err)}"
        return sockets
    except BaseException:
        for s in sockets:
            s.close()
        raise
    finally:
        poller.close()


def accept_queue(server):
    """Connections waiting in the server's accept queue (its listener's receive queue in
    /proc/net/tcp, IPv4 loopback)."""
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == server.port:
                return int(fields[4].split(":")[1], 16)
    raise AssertionError(f"no listener on port {server.port}")


def unread_by_server(server, sockets):
    """Bytes the server has not yet read from these client sockets, and bytes the clients
    have sent that have not reached it: the receive queues of the server's ends of the
    connections and the send queues of the clients', from /proc/net/tcp (IPv4 loopback)."""
    wanted = {s.getsockname()[1] for s in sockets}
    unread, unsent, found = 0, 0, set()
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            local_port = int(fields[1].split(":")[1], 16)
            remote_port = int(fields[2].split(":")[1], 16)
            tx_queue, rx_queue = (int(n, 16) for n in fields[4].split(":"))
            if local_port == server.port and remote_port in wanted:
                unread += rx_queue
                found.add(remote_port)
            elif remote_port == server.port and local_port in wanted:
                unsent += tx_queue
    assert found == wanted, f"no server end for client ports {sorted(wanted - found)}"
    return unread, unsent


# A body still arriving is read once this many of its bytes are queued (the server's low-water
# mark, src/server/connection.cpp), or its end.
LOW_WATER = 256 * 1024


def wait_until_read(server, sockets, timeout=10.0, may_wait=0):
    """Waits (a bounded poll of /proc/net/tcp) until every byte sent on these sockets has
    reached the server and it has read them all but `may_wait` (LOW_WATER when a request's body
    is still to come)."""
    deadline = time.monotonic() + timeout
    while True:
        unread, unsent = unread_by_server(server, sockets)
        if unsent == 0 and unread <= may_wait:
            return
        assert time.monotonic() < deadline, (
            f"{unread} bytes still unread, {unsent} unsent, after {timeout} s")
        time.sleep(0.005)


def insecure_tls_context():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def _read_line(proc, fd, argv):
    return _read_lines(proc, fd, argv)[0]


def _read_lines(proc, fd, argv):
    """The whole lines that have come by the time one has (at least one)."""
    data = b""
    deadline = time.monotonic() + START_TIMEOUT
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"{argv}: no line within {START_TIMEOUT} s (so far {data!r})")
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            raise RuntimeError(f"{argv} exited with status {proc.wait(STOP_TIMEOUT)} first")
        data += chunk
    return data.decode().splitlines()


# -------------------------------------------------------------------------------- the probe

class Probe:
    """probe.py against the server: started and ready (its first call answered) on return."""

    def __init__(self, server):
        argv = [sys.executable, str(HERE / "probe.py"), server.host, str(server.port),
                "--call-timeout", str(PROBE_HANG)]
        if server.tls:
            argv.append("--tls")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            line = _read_line(self.proc, self.proc.stdout.fileno(), argv)
        except BaseException:
            self.proc.kill()
            self.proc.wait()
            raise
        if line != "ready":
            self.proc.wait(STOP_TIMEOUT)
            raise RuntimeError(f"the probe could not make its first call: {line}")

    def stop(self):
        """Stops the probe; returns its figures (calls, error_count, errors, max, p99, p50)."""
        try:
            out, _ = self.proc.communicate(b"stop\n", timeout=max(STOP_TIMEOUT, PROBE_HANG) + 5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return {"calls": 0, "errors": ["the probe did not stop (a call hung)"],
                    "error_count": 1, "max": float("inf"), "p99": float("inf"), "p50": 0}
        return json.loads(out.decode().strip().splitlines()[-1])


# -------------------------------------------------------------------------------- an attack

class Sampler(threading.Thread):
    """Samples the server's RSS and descriptors every SAMPLE_EVERY seconds until stopped."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.max_rss = 0
        self.max_fds = 0
        self._stop_event = threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            try:
                self.max_rss = max(self.max_rss, self.server.status()["VmRSS"])
                self.max_fds = max(self.max_fds, self.server.fds())
            except (FileNotFoundError, ProcessLookupError, KeyError):
                return  # the server is gone; the criteria say so
            self._stop_event.wait(SAMPLE_EVERY)

    def stop(self):
        self._stop_event.set()
        self.join()


class Attack:
    """`with Attack(server, "name", rss_budget=...) as attack:` runs the attack under the probe
    and checks the criteria on the way out (see the module's docstring).

    rss_budget: bytes the server's peak RSS may exceed its RSS before the attack by.
    p99: the probe's p99 bound; None for an attack meant to saturate a cap, where the issue
    asks instead that newcomers get 503 and existing connections keep their service (the
    probe must still see no error and no call over max_latency).
    attack.track(sock) hands a socket over: it is closed before the descriptors are counted.
    attack.note(key=value) adds figures to the record."""

    def __init__(self, server, name, rss_budget, max_latency=MAX_LATENCY, p99=P99_LATENCY):
        self.server = server
        self.name = name
        self.rss_budget = rss_budget
        self.max_latency = max_latency
        self.p99_limit = p99
        self.sockets = []
        self.notes = {}
        self.record = None

    def __enter__(self):
        self.probe = Probe(self.server)
        self.fds_before = self.server.fds()
        self.rss_before = self.server.status()["VmRSS"]
        self.server.reset_peak()
        self.sampler = Sampler(self.server)
        self.sampler.start()
        self.started = time.monotonic()
        return self

    def track(self, sock):
        self.sockets.append(sock)
        return sock

    def note(self, **figures):
        self.notes.update(figures)

    def close_sockets(self):
        for sock in self.sockets:
            try:
                sock.close()
            except OSError:
                pass
        self.sockets.clear()

    def __exit__(self, exc_type, exc, tb):
        attack_seconds = time.monotonic() - self.started
        self.close_sockets()
        if exc_type is None and attack_seconds < MIN_WINDOW:
            time.sleep(MIN_WINDOW - attack_seconds)  # observation time, not a readiness wait
        alive = self.server.alive()
        fds_after = None
        if alive:
            deadline = time.monotonic() + SETTLE_TIMEOUT
            while True:  # bounded poll for a condition: the server closes what we closed
                fds_after = self.server.fds()
                if fds_after <= self.fds_before or time.monotonic() >= deadline:
                    break
                time.sleep(0.02)
        self.sampler.stop()
        probe = self.probe.stop()
        peak_rss = rss_after = None
        if self.server.alive():
            status = self.server.status()
            peak_rss, rss_after = max(status["VmHWM"], self.sampler.max_rss), status["VmRSS"]
        exit_status = self.server.stop()
        self.record = {
            "attack": self.name, "seconds": round(attack_seconds, 2),
            "probe_calls": probe["calls"], "probe_errors": probe["error_count"],
            "probe_max_ms": round(probe["max"] * 1000, 1),
            "probe_p99_ms": round(probe["p99"] * 1000, 1),
            "rss_before_mib": round(self.rss_before / MIB, 1),
            "rss_during_max_mib": round(self.sampler.max_rss / MIB, 1),
            "peak_rss_mib": None if peak_rss is None else round(peak_rss / MIB, 1),
            "rss_after_mib": None if rss_after is None else round(rss_after / MIB, 1),
            "rss_budget_mib": round(self.rss_budget / MIB, 1),
            "fds_before": self.fds_before, "fds_during_max": self.sampler.max_fds,
            "fds_after": fds_after, "alive_after": alive, "exit_status": exit_status,
            **self.notes}
        with open(RESULTS, "a") as f:
            f.write(json.dumps(self.record) + "\n")
        if exc_type is not None:
            return False  # the attack's own assertion (or error) is the news
        failures = []
        if not alive:
            failures.append(f"the server died during the attack (status "
                            f"{self.server.proc.returncode}): {self.server.stderr()}")
        if exit_status != 0:
            failures.append(f"the server exited with status {exit_status} on SIGTERM "
                            f"(None: not within {STOP_TIMEOUT} s)")
        if probe["error_count"]:
            failures.append(f"the probe saw {probe['error_count']} errors: {probe['errors']}")
        if SANITIZED:
            pass  # latency and RSS describe the release build (see SANITIZED)
        elif probe["max"] >= self.max_latency:
            failures.append(f"probe max latency {probe['max'] * 1000:.1f} ms >= "
                            f"{self.max_latency * 1000:.0f} ms")
        if not SANITIZED and self.p99_limit is not None and probe["p99"] >= self.p99_limit:
            failures.append(f"probe p99 latency {probe['p99'] * 1000:.1f} ms >= "
                            f"{self.p99_limit * 1000:.0f} ms")
        if alive and fds_after != self.fds_before:
            failures.append(f"descriptors {fds_after} after the attack, {self.fds_before} "
                            f"before (waited {SETTLE_TIMEOUT} s)")
        if not SANITIZED and peak_rss is not None and peak_rss - self.rss_before > self.rss_budget:
            failures.append(f"peak RSS {peak_rss / MIB:.1f} MiB is "
                            f"{(peak_rss - self.rss_before) / MIB:.1f} MiB over the "
                            f"{self.rss_before / MIB:.1f} MiB before, budget "
                            f"{self.rss_budget / MIB:.1f} MiB")
        assert not failures, f"{self.name}: " + "; ".join(failures) + f"\nfigures: {self.record}"
        return False


# ------------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="session")
def callwire_bin():
    path = os.environ.get("CALLWIRE_BIN") or str(REPO / "build/release/tools/callwire")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not an executable: build first, or set CALLWIRE_BIN")
    return path


@pytest.fixture
def serve(callwire_bin):
    """serve(*flags): a fresh `callwire serve` on 127.0.0.1:0 (one event loop unless flags say
    otherwise). Whatever is still running at the end of the test is killed; the exit status
    is the Attack's business, not the teardown's."""
    started = []

    def start(*flags):
        server = Server(callwire_bin, list(flags))
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


@pytest.fixture(scope="session")
def tls_cert(tmp_path_factory):
    """A throwaway self-signed certificate for 127.0.0.1, made now: (cert, key) paths."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("the openssl program is missing (scripts/setup.sh installs it)")
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
         "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=20)
    return cert, key


@pytest.fixture(autouse=True)
def time_limit():
    """Fails a test that runs past TEST_TIMEOUT seconds (SIGALRM interrupts a blocked call)."""
    def expired(signum, frame):
        raise TimeoutError(f"the test ran past {TEST_TIMEOUT} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, TEST_TIMEOUT)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
