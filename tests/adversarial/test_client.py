"""The client against malicious servers (issue 26, items 7 to 9): `callwire call --timeout 2`
against a Python server on 127.0.0.1, port 0, that trickles an answer it never finishes, floods
packet-stream NOPs, or writes control characters into a fault's message.

- A trickle (a few bytes every 0.2 ms: every blocking read is satisfied long before a
  socket timeout would fire) holds the call no longer than its deadline, whichever part of the
  answer it is in: the HTTP head, a Content-Length body, a chunked body, a packet.
- A packet stream of nothing but ESC NOP, as fast as the client reads, grows the client by
  nothing: its peak RSS (ru_maxrss of the finished child) stays small.
- A fault's message reaches the terminal with its control characters escaped.

Each server thread stops when the client goes away, or after SERVER_LIMIT seconds whatever
happens; each test is bounded by the client's --timeout (and conftest's TEST_TIMEOUT)."""

import os
import re
import socket
import subprocess
import threading
import time

import pytest

TIMEOUT = 2.0  # the client's --timeout
GRACE = 1.0  # seconds past it the command may take to exit (start-up, a loaded machine)
SERVER_LIMIT = 12.0  # seconds a server thread sends at most
NOP = b"\x1bNOP"
RSS_BUDGET_KIB = 64 * 1024  # the client's whole peak RSS under the flood (it is ~10 MiB idle)


class EvilServer:
    """One TCP listener on 127.0.0.1:0; each connection goes to `behave(sock)` on a thread of
    its own, after the request has been read (an HTTP request, or a packet up to ESC END)."""

    def __init__(self, behave, pstream=False):
        self.behave = behave
        self.pstream = pstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.threads = []
        self.accepter = threading.Thread(target=self._accept, daemon=True)
        self.accepter.start()

    def url(self, scheme="http"):
        path = "/RPC2" if scheme in ("http", "jsonrpc+http") else ""
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            t.start()
            self.threads.append(t)

    def _serve(self, sock):
        with sock:
            sock.settimeout(SERVER_LIMIT)
            try:
                self._read_request(sock)
                self.behave(sock)
            except OSError:
                pass  # the client went away: the point of most tests

    def _read_request(self, sock):
        data = b""
        while True:
            if self.pstream:
                if b"\x1bEND" in data:
                    return
            elif b"\r\n\r\n" in data:
                head, _, body = data.partition(b"\r\n\r\n")
                m = re.search(rb"(?i)content-length:\s*(\d+)", head)
                if len(body) >= (int(m.group(1)) if m else 0):
                    return
            chunk = sock.recv(65536)
            if not chunk:
                raise OSError("closed before a request")
            data += chunk

    def close(self):
        self.listener.close()
        for t in self.threads:
            t.join(SERVER_LIMIT + 5)


def trickle(prefix, unit, every=0.0002):
    """A behaviour: `prefix`, then `unit` every `every` seconds until the client goes away.
    Paced by spinning, not sleeping: a pause of a millisecond (a sleep's wake-up, late under
    load) would let the client's last socket timeout fire, and the trickle must never pause."""
    def behave(sock):
        sock.sendall(prefix)
        now = time.monotonic()
        until, slot = now + SERVER_LIMIT, now
        while slot < until:
            sock.sendall(unit)
            slot += every
            while time.monotonic() < slot:
                pass
    return behave


def flood(sock):
    """ESC NOP as fast as the client reads, until it goes away."""
    block = NOP * (1 << 16)
    until = time.monotonic() + SERVER_LIMIT
    while time.monotonic() < until:
        sock.sendall(block)


def run_call(callwire_bin, url, *args):
    """Runs `callwire call --timeout 2 URL sample.add ARGS...`: (exit status, stderr, seconds,
    peak RSS in KiB)."""
    argv = [callwire_bin, "call", "--timeout", str(TIMEOUT), url, "sample.add", *args]
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    # The child's own rusage (ru_maxrss: its peak RSS), not every child's of this process.
    stderr = proc.stderr.read()  # until it exits (it has no other output to block on)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    return proc.returncode, stderr, time.monotonic() - start, usage.ru_maxrss


HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n"

TRICKLES = {
    # Before the fix, issue 26 measured the head ~13 s at 1 B / 0.8 ms, a 30 MiB body ~160 s,
    # 1-byte chunks ~1.5 h, NOPs without end. Here a trickle holds an unfixed client only
    # until the first pause of a millisecond after its deadline, which a Python sender on a
    # loaded machine cannot always avoid: these failed before in some runs (the head 3.3 and
    # 4.8 s, a packet 4.6 and 5.6 s), not in all. tests/unit/client/deadline_test.cpp, paced
    # from C++, fails before in every run; the NOP flood below does too.
    "head": (HEAD + b"X-Slow: ", b"a", False),
    "body": (HEAD + b"Content-Length: 31457280\r\n\r\n", b"x" * 100, False),
    "chunked": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n", b"1\r\nx\r\n", False),
    "pstream-payload": (b"\x1bPKT", b"x" * 100, True),
    "pstream-nops": (b"", NOP, True),
}


@pytest.mark.parametrize("name", list(TRICKLES))
def test_trickle_keeps_no_call_past_its_deadline(callwire_bin, name):
    prefix, unit, pstream = TRICKLES[name]
    server = EvilServer(trickle(prefix, unit), pstream=pstream)
    try:
        rc, err, seconds, _ = run_call(callwire_bin, server.url("pstream" if pstream else "http"),
                                       "5", "3")
    finally:
        server.close()
    assert seconds < TIMEOUT + GRACE, f"{name}: the call took {seconds:.1f} s ({err!r})"
    assert rc == 2 and b"timed out" in err, f"{name}: exit {rc}, {err!r}"


def test_nop_flood_grows_no_client(callwire_bin):
    # Before: every NOP read stayed in the input buffer; the call ran until the server stopped
    # (30 s) with a peak RSS of 6,007 MiB. After: 2.0 s, 28 MiB.
    server = EvilServer(flood, pstream=True)
    try:
        rc, err, seconds, peak_kib = run_call(callwire_bin, server.url("pstream"), "5", "3")
    finally:
        server.close()
    assert seconds < TIMEOUT + GRACE, f"the call took {seconds:.1f} s ({err!r})"
    assert rc == 2 and b"timed out" in err, f"exit {rc}, {err!r}"
    assert peak_kib < RSS_BUDGET_KIB, f"peak RSS {peak_kib / 1024:.1f} MiB under the flood"


def answer(body, content_type):
    def behave(sock):
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type +
                     b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    return behave


# ESC ] 0 ; TITLE BEL sets the terminal's title; ESC [ 2 J clears the screen; CR and LF forge
# whole lines of output.
JSON_FAULT = (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":'
              b'"boom\\u001b]0;pwned\\u0007\\u001b[2J\\r\\nfault 0: all fine\\u009b1m"}}')
XML_FAULT = (b"<?xml version='1.0'?><methodResponse><fault><value><struct>"
             b"<member><name>faultCode</name><value><int>4</int></value></member>"
             b"<member><name>faultString</name><value><string>boom\r\nfault 0: all fine"
             b"&#13;&#10;\tend</string></value></member>"
             b"</struct></value></fault></methodResponse>")


@pytest.mark.parametrize("protocol", ["json-rpc", "xml-rpc"])
def test_fault_message_cannot_drive_the_terminal(callwire_bin, protocol):
    json_rpc = protocol == "json-rpc"
    server = EvilServer(answer(JSON_FAULT, b"application/json") if json_rpc
                        else answer(XML_FAULT, b"text/xml"))
    try:
        rc, err, _, _ = run_call(callwire_bin, server.url("jsonrpc+http" if json_rpc else "http"),
                                 *(("5", "3") if json_rpc else ("i/5", "i/3")))
    finally:
        server.close()
    assert rc == 1, f"exit {rc}, {err!r}"
    # One line, ended by the command's own newline; no control byte, no C1 control, in it.
    assert err.endswith(b"\n") and err.count(b"\n") == 1, err
    assert not re.search(rb"[\x00-\x1f\x7f]|\xc2[\x80-\x9f]", err[:-1]), err
    if json_rpc:
        assert err == (b"fault -32000: boom\\e]0;pwned\\x07\\e[2J\\r\\nfault 0: all fine"
                       b"\\u009b1m\n"), err
    else:
        # XML normalizes a literal CR LF to LF; character references keep CR.
        assert err == b"fault 4: boom\\nfault 0: all fine\\r\\n\\tend\n", err


def test_listed_names_and_help_cannot_drive_the_terminal(callwire_bin):
    # `callwire list` prints what system.listMethods, methodSignature and methodHelp say. XML
    # cannot carry ESC, but it carries CR (&#13;) and the C1 controls: CSI (U+009B) clears the
    # screen as ESC [ does, OSC (U+009D) sets the title. A name with CSI 2 J, a signature with
    # CR, help with OSC and CR: help keeps its line breaks (each line indented); nothing else
    # gets through raw.
    name = "evil\u009b2J"
    listed = ("<?xml version='1.0'?><methodResponse><params><param><value><array><data>"
              f"<value><string>{name}</string></value></data></array></value></param>"
              "</params></methodResponse>").encode()
    sig = "<value><array><data><value><string>int&#13;</string></value></data></array></value>"
    help_text = "first line\nsecond\u009d0;pwned&#13;fake line"
    multicall = ("<?xml version='1.0'?><methodResponse><params><param><value><array><data>"
                 f"<value><array><data><value><array><data>{sig}</data></array></value>"
                 "</data></array></value>"
                 f"<value><array><data><value><string>{help_text}</string></value></data>"
                 "</array></value></data></array></value></param></params>"
                 "</methodResponse>").encode()
    answers, lock = [listed, multicall], threading.Lock()

    def behave(sock):
        with lock:
            body = answers.pop(0) if answers else listed
        answer(body, b"text/xml")(sock)

    server = EvilServer(behave)
    try:
        proc = subprocess.run([callwire_bin, "list", "--timeout", str(TIMEOUT), server.url()],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    finally:
        server.close()
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", out), out
    assert out == (b"evil\\u009b2J() -> int\\r\n"
                   b"    first line\n"
                   b"    second\\u009d0;pwned\\rfake line\n"), out
