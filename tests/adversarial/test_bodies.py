"""Hostile request bodies: a million 1-byte chunks, and gzip bodies that inflate far past the
body limit (max_body, 32 MiB)."""

import zlib

import pytest

from conftest import MIB, P99_LATENCY, Attack, call_xml, read_response, read_until_closed

MAX_BODY = 32 * MIB  # ServerOptions::max_body's default


def test_chunk_flood(serve):
    # Models chunked-encoding abuse: per-chunk overhead (6 wire bytes for 1 byte of body).
    # An echo of a string whose document is cut into 1,000,000 one-byte chunks.
    text = "a" * (1_000_000 - len(call_xml("echo", "<value><string></string></value>")))
    document = call_xml("echo", f"<value><string>{text}</string></value>")
    assert len(document) == 1_000_000
    wire = (b"POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
            + b"".join(b"1\r\n%c\r\n" % c for c in document) + b"0\r\n\r\n")
    server = serve()
    # The wire bytes once, the decoded body, the answer (1 MB each): 6 + 3 MB, plus 16 MiB.
    budget = len(wire) + 3 * len(document) + 16 * MIB
    with Attack(server, "chunk flood", rss_budget=budget) as attack:
        sock = attack.track(server.connect(timeout=30.0))
        sock.sendall(wire)
        status, _, answer, _ = read_response(sock)
        attack.note(chunks=len(document), wire_mib=round(len(wire) / MIB, 1))
        assert status == 200 and f"<string>{text}</string>".encode() in answer, answer[:300]


def gzip_bomb(inflated_size):
    """A gzip member of `inflated_size` spaces (about 1,000:1)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b" " * MIB
    parts = [z.compress(block) for _ in range(inflated_size // MIB)]
    parts.append(z.flush())
    return b"".join(parts)


# Inline handlers inflate on the event loop, so each bomb stalls it for the time zlib takes to
# inflate max_body (~130 ms here): the probe's p99 is not bounded there, only memory and
# service. With a worker pool the worker inflates and the loop keeps its latency.
@pytest.mark.parametrize("flags,p99", [((), None), (("--handler-threads", "2"), P99_LATENCY)],
                         ids=["inline", "worker-pool"])
def test_gzip_bomb(serve, flags, p99):
    # Models a decompression bomb (CVE-2025-13836's cousin): 256 KB that inflate to 256 MiB.
    # Four of them in a row, each on a fresh connection: 413 each, the server unharmed.
    # (Before: a 413'd connection kept its 32 MiB through the linger, 4 bombs held 128 MiB,
    # and the pool's loop inflated them itself: peak RSS +153.7 MiB, probe p99 146.9 ms.)
    bomb = gzip_bomb(256 * MIB)
    server = serve(*flags)
    # Inflating stops at max_body and the refused body is freed at once: one inflated body
    # (32 MiB) at a time, plus 16 MiB.
    with Attack(server, "gzip bomb " + ("+pool" if flags else "inline"),
                rss_budget=MAX_BODY + 16 * MIB, p99=p99) as attack:
        statuses = []
        for _ in range(4):
            sock = attack.track(server.connect(timeout=30.0))
            sock.sendall(b"POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\n"
                         b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(bomb)
                         + bomb)
            answer = read_until_closed(sock)
            statuses.append(answer[:12].decode(errors="replace"))
        attack.note(bomb_kib=len(bomb) // 1024, inflates_to_mib=256, answers=statuses)
        assert statuses == ["HTTP/1.1 413"] * 4, statuses
