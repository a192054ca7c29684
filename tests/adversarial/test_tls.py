"""Malformed TLS handshakes against `callwire serve --tls-cert/--tls-key` (a throwaway
certificate made with openssl): garbage, ClientHellos cut short or corrupted, and plain HTTP
to the TLS port. The probe speaks TLS on its own connection throughout."""

import random
import select
import ssl
import time

from conftest import ADD_BODY, MIB, Attack, http_request, open_raw


def client_hello():
    """The bytes of a real ClientHello record (Python's ssl, through memory BIOs)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def test_malformed_tls_handshakes(serve, tls_cert):
    # Models TLS-stack fuzzing and handshake-exhaustion attempts on an HTTPS port.
    cert, key = tls_cert
    server = serve("--tls-cert", str(cert), "--tls-key", str(key))
    assert server.tls
    hello = client_hello()
    rng = random.Random(16)
    corrupted = bytearray(hello)  # 16 bytes of the hello flipped (maybe still acceptable)
    for i in rng.sample(range(9, len(hello)), 16):
        corrupted[i] ^= 0xFF
    payloads = {
        "garbage": bytes(rng.getrandbits(8) for _ in range(4096)),
        "plain HTTP": http_request(ADD_BODY),
        "hello cut in its header": hello[:3],
        "hello cut in its body": hello[: len(hello) // 2],
        "hello corrupted": bytes(corrupted),
        "hello of an unknown type": hello[:5] + b"\xff" + hello[6:],
        "record of 16 MiB declared": b"\x16\x03\x01\xff\xff" + hello[5:],
        "hello then garbage": hello + bytes(rng.getrandbits(8) for _ in range(4096)),
    }
    rounds = 50  # connections per kind
    # Handshake state for every connection (an SSL object with its 16 KiB record buffers:
    # 64 KiB each), plus 8 MiB.
    with Attack(server, "malformed TLS", rss_budget=len(payloads) * rounds * 64 * 1024
                + 8 * MIB) as attack:
        closed_by_server = {}
        for name, payload in payloads.items():
            attackers = [attack.track(s) for s in open_raw(server, rounds)]
            for s in attackers:
                s.setblocking(True)
                s.sendall(payload)
                s.setblocking(False)
            # A payload the server can reject is answered (an alert, or nothing) and closed;
            # one it must wait on (a hello cut short) is held until we close it.
            closed_by_server[name] = closed_within(attackers, 1.0)
        attack.note(connections=len(payloads) * rounds, closed_by_server=closed_by_server)
        # The port still speaks TLS to a well-behaved client, on a fresh connection.
        status, _, answer = server.call(ADD_BODY)
        assert status == 200 and b"<int>8</int>" in answer, answer[:300]
        # What cannot be TLS is refused at once; a hello cut short is waited for (the request
        # timeout bounds it); a corrupted one may be refused or answered.
        for name in ("garbage", "plain HTTP", "hello of an unknown type",
                     "record of 16 MiB declared", "hello then garbage"):
            assert closed_by_server[name] == rounds, closed_by_server


def closed_within(sockets, seconds):
    """How many of these non-blocking sockets the server closes (end of file or reset) within
    `seconds`, reading and dropping whatever it sends first."""
    poller = select.epoll()
    by_fd = {s.fileno(): s for s in sockets}
    for fd in by_fd:
        poller.register(fd, select.EPOLLIN)
    closed = 0
    deadline = time.monotonic() + seconds
    while closed < len(sockets) and (remaining := deadline - time.monotonic()) > 0:
        for fd, _ in poller.poll(remaining):
            try:
                while chunk := by_fd[fd].recv(65536):
                    pass
            except BlockingIOError:
                continue
            except OSError:
                pass
            poller.unregister(fd)
            closed += 1
    poller.close()
    return closed
