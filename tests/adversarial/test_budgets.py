"""Attacks on the server's budgets and timeouts (issue 26, items 1-4): memory a framing copies
out of the budget's sight, keep-alive bytes that reset a clock, a long answer to a steady
reader cut by write_timeout, and a few peers that never read spending the budget so that every
newcomer is refused."""

import select
import socket
import threading
import time
import zlib

import pytest

from conftest import (ADD_ANSWER, ADD_BODY, MIB, SANITIZED, Attack, call_xml, http_request,
                      read_response)

NOP = b"\x1bNOP"
PKT = b"\x1bPKT"


def connect_to(host, port, rcvbuf=None):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:  # before connecting: the window never grows past it
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(10.0)
    sock.connect((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def send_until_refused(sock, data, seconds):
    """Sends `data` until it is all sent, the server closes, or `seconds` pass; returns the
    bytes sent."""
    sent = 0
    sock.settimeout(0.5)
    deadline = time.monotonic() + seconds
    while sent < len(data) and time.monotonic() < deadline:
        try:
            sent += sock.send(data[sent:sent + MIB])
        except socket.timeout:
            continue
        except OSError:  # reset or broken pipe: refused
            break
    return sent


def closed_by_server(sock, seconds):
    """Whether the server closes `sock` within `seconds` (what it sends first is dropped)."""
    sock.settimeout(0.2)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if not sock.recv(1 << 16):
                return True
        except socket.timeout:
            continue
        except OSError:
            return True
    return False


def test_escaped_packets_count_against_the_budget(serve):
    # Item 1: ESC PKT ESC NOP, then 30 MiB: the decoder copies the payload as it comes, so the
    # receive buffer stays empty. Four such peers under a 64 MiB budget held 4 x 32 MiB, past
    # every timeout, before the copy was counted.
    budget = 64 * MIB
    server = serve("--pstream", "127.0.0.1:0", "--max-buffer-memory", str(budget))
    host, port = server.listener("pstream://")
    peers, payload = 4, PKT + NOP + b"x" * (30 * MIB)
    with Attack(server, "escaped packets", rss_budget=budget + 32 * MIB) as attack:
        socks = [attack.track(connect_to(host, port)) for _ in range(peers)]
        sent = [0] * peers
        threads = [threading.Thread(target=lambda i=i: sent.__setitem__(
            i, send_until_refused(socks[i], payload, 20.0))) for i in range(peers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        closed = sum(closed_by_server(s, 5.0) for s in socks)
        attack.note(peers=peers, sent_mib=[round(n / MIB, 1) for n in sent], closed=closed)
        # The budget holds: not every peer could place its whole packet, and those refused
        # were closed.
        assert sum(sent) < peers * len(payload), "every packet was taken whole"
        assert closed == sum(n < len(payload) for n in sent)


def test_trickled_keep_alives_hold_no_slot(serve):
    # Item 2: one NOP (packet stream) or one blank line (JSON lines) now and then carries no
    # request; before, each restarted the request clock of a connection that had served
    # nothing, so 0.4 B/s held a slot for ever. Here: 20 of each, a keep-alive every 0.3 s,
    # under a 1 s request timeout: all closed within 3 s.
    server = serve("--pstream", "127.0.0.1:0", "--jsonl", "127.0.0.1:0",
                   "--request-timeout", "1", "--idle-timeout", "2")
    pstream, jsonl = server.listener("pstream://"), server.listener("jsonl://")
    with Attack(server, "trickled keep-alives", rss_budget=16 * MIB) as attack:
        peers = [(attack.track(connect_to(*pstream)), NOP) for _ in range(20)]
        peers += [(attack.track(connect_to(*jsonl)), b"\n") for _ in range(20)]
        for sock, _ in peers:
            sock.setblocking(False)
        open_peers, started = list(peers), time.monotonic()
        while open_peers and time.monotonic() - started < 6.0:
            still = []
            for sock, word in open_peers:
                try:
                    sock.send(word)
                    if sock.recv(1 << 16) == b"":
                        continue  # closed by the server
                except BlockingIOError:
                    pass
                except OSError:
                    continue  # reset: closed
                still.append((sock, word))
            open_peers = still
            time.sleep(0.3)
        held = time.monotonic() - started
        attack.note(peers=len(peers), still_open=len(open_peers), seconds_held=round(held, 1))
        assert not open_peers, f"{len(open_peers)} trickling peers still held a slot after {held:.1f} s"
        assert held < 3.5


def test_a_steady_reader_gets_all_of_a_long_answer(serve):
    # Item 3: write_timeout is for a peer that stops reading. A 15 MiB answer read steadily
    # (about 5 MB/s, through a small window) outlasts a 1 s write timeout and must still come
    # whole; before, the clock ran from the first wait and cut it.
    server = serve("--write-timeout", "1")
    text = "w" * (15 * MIB)
    with Attack(server, "steady reader", rss_budget=96 * MIB) as attack:
        sock = attack.track(connect_to(server.host, server.port, rcvbuf=64 * 1024))
        sock.sendall(http_request(call_xml("echo", f"<value><string>{text}</string></value>")))
        received, started = b"", time.monotonic()
        head_end = length = None
        while time.monotonic() - started < 30.0:
            try:
                chunk = sock.recv(64 * 1024)
            except OSError:
                break
            if not chunk:
                break
            received += chunk
            if head_end is None and b"\r\n\r\n" in received:
                head_end = received.index(b"\r\n\r\n") + 4
                head = received[:head_end].decode("latin-1").lower()
                length = int(head.split("content-length:")[1].split("\r\n")[0])
            if head_end is not None and len(received) >= head_end + length:
                break
            time.sleep(0.01)
        seconds = time.monotonic() - started
        body = 0 if head_end is None else len(received) - head_end
        attack.note(answer_mib=round((length or 0) / MIB, 1), received_mib=round(body / MIB, 1),
                    seconds=round(seconds, 1))
        assert seconds > 1.5, "the reader was not slow enough to test anything"
        assert length and body >= length, f"{body} of {length} bytes came"


class Newcomers(threading.Thread):
    """A normal client that connects every 0.1 s, makes one call and records how long the
    answer took and what it was."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.results = []  # (seconds, status or the error)
        self._stop_event = threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            started = time.monotonic()
            try:
                with connect_to(self.server.host, self.server.port) as sock:
                    sock.settimeout(5.0)
                    sock.sendall(http_request(ADD_BODY))
                    status, _, body, _ = read_response(sock)
                    outcome = status if ADD_ANSWER in body or status != 200 else "wrong answer"
            except OSError as e:
                outcome = repr(e)
            self.results.append((time.monotonic() - started, outcome))
            self._stop_event.wait(0.1)

    def stop(self):
        self._stop_event.set()
        self.join()


def unread_gzip_amplification(serve, name, text_mib, flags, rss_budget, max_latency):
    """Six peers each send one gzipped echo of two strings of `text_mib` MiB of '<' in CDATA
    (a few tens of KB on the wire, answered as 8 x that of '&lt;') and never read. Once every
    answer is built (or refused), a newcomer every 0.1 s must be answered 200 within 0.5 s."""
    text = "<" * (text_mib * MIB - 1024)
    value = f"<value><string><![CDATA[{text}]]></string></value>"
    body = zlib.compress(call_xml("echo", value, value), 6, wbits=31)
    request = http_request(body, extra_headers=("Content-Encoding: gzip",))
    server = serve(*flags)
    # The probe's kept-alive calls share the loops with six large calls (inflate, parse, an
    # answer of up to 128 MiB each, ~0.7 s of CPU here): its p99 is not the point, newcomers
    # are, once the calls are done.
    with Attack(server, name, rss_budget=rss_budget, max_latency=max_latency, p99=None) as attack:
        hogs = [attack.track(connect_to(server.host, server.port, rcvbuf=4096)) for _ in range(6)]
        for hog in hogs:
            hog.sendall(request)
        # Every answer begun (its first bytes readable) or its connection closed: what is left
        # is the attack's steady state, answers unread in the server's buffers.
        waiting, deadline = list(hogs), time.monotonic() + 30.0
        while waiting and time.monotonic() < deadline:
            ready, _, _ = select.select(waiting, [], [], 0.1)
            waiting = [h for h in waiting if h not in ready]
        assert not waiting, f"{len(waiting)} calls not answered in 30 s"
        newcomers = Newcomers(server)
        newcomers.start()
        time.sleep(4.0)
        newcomers.stop()
        worst = max(seconds for seconds, _ in newcomers.results)
        refused = [o for _, o in newcomers.results if o != 200]
        attack.note(wire_kb=round(len(request) / 1024, 1), newcomers=len(newcomers.results),
                    newcomers_refused=len(refused), newcomer_worst_ms=round(worst * 1000, 1),
                    hogs_closed=sum(closed_by_server(h, 0.05) for h in hogs))
        assert not refused, f"{len(refused)} of {len(newcomers.results)} newcomers: {refused[:5]}"
        assert worst < 0.5, f"a newcomer waited {worst * 1000:.0f} ms"


def test_unread_answers_as_found(serve):
    # Item 4 as found: 2 x 16 MiB answered as just under 128 MiB each, at the default budget
    # (512 MiB). Before, four such answers spent the budget and every newcomer got 503 until
    # write_timeout dropped them (289 of 379 probe calls refused over 38 s). Now the peers
    # holding the most unread are shed when the budget is hit, and newcomers are served.
    if SANITIZED:
        # Six 128 MiB calls take the sanitized loops longer than the probe's 5 s call timeout;
        # the small-budget case below runs the same paths under the sanitizers.
        pytest.skip("too heavy for a sanitized build")
    unread_gzip_amplification(serve, "unread answers as found", 16, ("--threads", "2"),
                              rss_budget=768 * MIB, max_latency=4.0)


def test_unread_answers_under_a_small_budget(serve):
    # The same with 2 x 4 MiB (answers of 32 MiB, a quarter of the budget) under 128 MiB.
    unread_gzip_amplification(serve, "unread answers, small budget", 4,
                              ("--max-buffer-memory", "128MiB"), rss_budget=256 * MIB,
                              max_latency=2.0)
