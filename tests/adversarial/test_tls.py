"""Malformed TLS handshakes against `callwire serve --tls-cert/--tls-key` (a throwaway
certificate made with openssl): garbage, ClientHellos cut short or corrupted, and plain HTTP
to the TLS port. The probe speaks TLS on its own connection throughout."""

import random
import select
import socket
import ssl
import subprocess
import threading
import time

from conftest import (ADD_BODY, MIB, Attack, http_request, insecure_tls_context, open_raw,
                      read_response)


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


def wait_for(predicate, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def tls12_client(ciphers=None):
    context = insecure_tls_context()
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    if ciphers:
        context.set_ciphers(ciphers)
    return context


def handshake(server, context):
    """A TLS handshake with `context` on a fresh connection: the negotiated version, or the
    SSLError that refused it."""
    with socket.create_connection((server.host, server.port), timeout=10) as raw:
        try:
            with context.wrap_socket(raw, server_hostname=server.host) as tls:
                return tls.version()
        except (ssl.SSLError, ConnectionResetError) as e:
            return e


def test_min_version_refuses_older_clients(serve, tls_cert):
    cert, key = tls_cert
    server = serve("--tls-cert", str(cert), "--tls-key", str(key), "--tls-min-version", "1.3")
    refused = handshake(server, tls12_client())
    assert isinstance(refused, Exception), refused
    assert wait_for(lambda: "unsupported protocol" in server.stderr()), server.stderr()
    assert handshake(server, insecure_tls_context()) == "TLSv1.3"
    status, _, answer = server.call(ADD_BODY)
    assert status == 200 and b"<int>8</int>" in answer
    # Without the option, TLS 1.2 is still accepted.
    lenient = serve("--tls-cert", str(cert), "--tls-key", str(key))
    assert handshake(lenient, tls12_client()) == "TLSv1.2"


def test_tls12_cipher_mismatch(serve, tls_cert):
    cert, key = tls_cert
    server = serve("--tls-cert", str(cert), "--tls-key", str(key),
                   "--tls-ciphers", "ECDHE-ECDSA-AES256-GCM-SHA384")
    refused = handshake(server, tls12_client("ECDHE-ECDSA-AES128-GCM-SHA256"))
    assert isinstance(refused, ssl.SSLError), refused
    assert "HANDSHAKE_FAILURE" in str(refused).upper(), refused
    assert wait_for(lambda: "no shared cipher" in server.stderr()), server.stderr()
    assert handshake(server, tls12_client("ECDHE-ECDSA-AES256-GCM-SHA384")) == "TLSv1.2"


def test_sni_sent_for_names_never_for_addresses(callwire_bin, tls_cert):
    """A Python TLS server records the SNI of each ClientHello; `callwire call` connects by
    name and by IP literal (RFC 6066: SNI carries names only)."""
    cert, key = tls_cert
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names = []
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def accept(count):
        for _ in range(count):
            conn, _ = listener.accept()
            conn.settimeout(10)
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1)  # the handshake is done; the request is not answered
            except (ssl.SSLError, OSError):
                pass

    thread = threading.Thread(target=accept, args=(2,), daemon=True)
    thread.start()
    for host in ("localhost", "127.0.0.1"):
        subprocess.run([callwire_bin, "call", "--insecure", "--timeout", "5",
                        f"https://{host}:{port}/RPC2", "sample.add", "i/1", "i/2"],
                       capture_output=True, timeout=20)
    thread.join(20)
    listener.close()
    assert names == ["localhost", None], names


def test_tls_over_connection_cap_answered_503(serve, tls_cert):
    """Over max_connections a TLS newcomer gets the handshake and a 503, as a plain one does,
    while the connection held keeps its service."""
    cert, key = tls_cert
    server = serve("--tls-cert", str(cert), "--tls-key", str(key), "--max-connections", "1")
    with server.connect() as held:
        held.sendall(http_request(ADD_BODY))
        status, _, answer, _ = read_response(held)
        assert status == 200 and b"<int>8</int>" in answer
        for _ in range(3):
            status, headers, _ = server.call(ADD_BODY)
            assert status == 503, status
            assert headers.get("retry-after") == "1", headers
        held.sendall(http_request(ADD_BODY))
        status, _, answer, _ = read_response(held)
        assert status == 200 and b"<int>8</int>" in answer
    # Once the held connection is gone, a newcomer is served.
    assert wait_for(lambda: server.call(ADD_BODY)[0] == 200)
