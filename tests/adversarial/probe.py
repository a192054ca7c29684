"""The probe: a well-behaved client that calls sample.add(5, 3) on one kept-alive connection,
every PACE seconds, until its standard input closes or says "stop", then prints one JSON line
of what it saw. It is a process of its own so that the attacker's Python threads (and their
hold on the interpreter lock) cannot add to the latencies it measures.

    python3 probe.py HOST PORT [--tls] [--call-timeout SECONDS]

First it prints "ready" once its first call is answered (the caller waits for that line, never
for a time). A call that fails (a connection closed, a wrong answer, no answer within
CALL_TIMEOUT) is counted as an error with its latency, and the probe reconnects.
"""

import json
import math
import select
import socket
import ssl
import sys
import time

PACE = 0.005  # seconds between one answer and the next call
CALL_TIMEOUT = 5.0  # seconds: a call that takes longer is a hang (--call-timeout changes it)
BODY = (b"<?xml version='1.0'?><methodCall><methodName>sample.add</methodName><params>"
        b"<param><value><int>5</int></value></param><param><value><int>3</int></value></param>"
        b"</params></methodCall>")


def request(host, port):
    return (b"POST /RPC2 HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: text/xml\r\n"
            b"Content-Length: %d\r\n\r\n" % (host.encode(), port, len(BODY))) + BODY


def connect(host, port, tls, call_timeout):
    sock = socket.create_connection((host, port), timeout=call_timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        sock = context.wrap_socket(sock, server_hostname=host)
    return sock


def read_answer(sock, pending):
    """Reads one HTTP answer; returns (status, body, bytes left over)."""
    data = pending
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the answer's head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed in the answer's body")
        rest += chunk
    return status, rest[:length], rest[length:]


def main():
    host, port, options = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    tls = "--tls" in options
    call_timeout = CALL_TIMEOUT
    if "--call-timeout" in options:
        call_timeout = float(options[options.index("--call-timeout") + 1])
    req = request(host, port)
    latencies, errors = [], []
    sock, pending = None, b""
    ready = False
    started = time.monotonic()
    while True:
        t0 = time.monotonic()
        try:
            if sock is None:
                sock, pending = connect(host, port, tls, call_timeout), b""
            sock.sendall(req)
            status, body, pending = read_answer(sock, pending)
            if status != 200 or b"<int>8</int>" not in body:
                raise ValueError(f"status {status}, body {body[:200]!r}")
        except (OSError, ValueError) as e:
            errors.append(f"{time.monotonic() - started:.3f} s: {type(e).__name__}: {e}")
            if sock is not None:
                sock.close()
            sock = None
        latencies.append(time.monotonic() - t0)
        if not ready:
            if errors:
                print(json.dumps({"error": errors[0]}), flush=True)
                return 1
            print("ready", flush=True)
            ready = True
        readable, _, _ = select.select([sys.stdin], [], [], PACE)
        if readable:
            break  # "stop" or end of input
    if sock is not None:
        sock.close()
    ordered = sorted(latencies)
    p99 = ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]
    print(json.dumps({"calls": len(latencies), "errors": errors[:10], "error_count": len(errors),
                      "max": ordered[-1], "p99": p99, "p50": ordered[len(ordered) // 2]}),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
