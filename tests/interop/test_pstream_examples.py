"""The packet-stream examples (examples/c, examples/cpp): pstream_client in both languages
against `callwire serve --pstream`, and pstream_inetd_server in both languages (and `callwire
serve --inetd pstream`) run as inetd runs it, with one end of a socketpair as standard input
and output, spoken to in raw packets: calls answered in order, NOPs ignored, the server
exiting 0 when the peer closes or breaks the framing. `callwire serve --inetd http` under
examples/inetd.py answers Python's xmlrpc.client."""

import os
import socket
import subprocess
import sys
import xmlrpc.client

import pytest

from conftest import REPO, run

ESC = b"\x1b"
PKT, END, NOP = ESC + b"PKT", ESC + b"END", ESC + b"NOP"
IO_TIMEOUT = 10.0


def example(variable, default):
    path = os.environ.get(variable) or str(REPO / default)
    if not os.access(path, os.X_OK):
        if os.environ.get(variable):
            pytest.fail(f"{variable}={path} is not an executable")
        pytest.skip("the examples are not built")
    return path


def add_call(a, b):
    return (b'<?xml version="1.0"?><methodCall><methodName>sample.add</methodName><params>'
            b'<param><value><int>%d</int></value></param>'
            b'<param><value><int>%d</int></value></param></params></methodCall>' % (a, b))


def read_packets(sock, count):
    """The payloads of the next `count` packets (the answers never hold ESC)."""
    data = b""
    while data.count(END) < count:
        chunk = sock.recv(65536)
        assert chunk, f"closed after {data!r}"
        data += chunk
    packets = data.split(END)[:count]
    assert all(p.startswith(PKT) for p in packets), data
    return [p[len(PKT):] for p in packets]


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_client_against_callwire_serve(serve, language):
    client = example(f"PSTREAM_CLIENT_{language.upper()}",
                     f"build/release/examples/{language}/pstream_client")
    server = serve("--pstream", "127.0.0.1:0")
    result = run([client, server.url])
    assert (result.returncode, result.stdout) == (0, "12\n"), result.stderr


@pytest.fixture(params=["c", "cpp", "cli"])
def inetd_server(request, callwire_bin):
    """Starts the language's pstream_inetd_server (or `callwire serve --inetd pstream`) on a
    socketpair; yields (our end, process)."""
    if request.param == "cli":
        command = [callwire_bin, "serve", "--inetd", "pstream"]
    else:
        command = [example(f"PSTREAM_INETD_SERVER_{request.param.upper()}",
                           f"build/release/examples/{request.param}/pstream_inetd_server")]
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(command, stdin=theirs, stdout=theirs, stderr=subprocess.PIPE)
    theirs.close()
    ours.settimeout(IO_TIMEOUT)
    yield ours, proc
    ours.close()
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    proc.stderr.close()


def test_inetd_server_answers_until_the_peer_closes(inetd_server):
    sock, proc = inetd_server
    # Pipelined, with NOPs between and inside packets.
    second = PKT + add_call(40, 2)
    second = second[:10] + NOP + second[10:] + END
    sock.sendall(NOP + PKT + add_call(2, 3) + END + NOP + second)
    answers = read_packets(sock, 2)
    assert b"<int>5</int>" in answers[0] and b"<int>42</int>" in answers[1], answers
    sock.sendall(PKT + add_call(1, 1) + END)
    assert b"<int>2</int>" in read_packets(sock, 1)[0]
    sock.shutdown(socket.SHUT_WR)  # EOF: the server is done
    assert proc.wait(IO_TIMEOUT) == 0, proc.stderr.read()
    assert sock.recv(1) == b""


def test_inetd_server_closes_on_broken_framing(inetd_server):
    sock, proc = inetd_server
    sock.sendall(PKT + add_call(1, 2) + END + b"junk")
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    assert data.count(END) <= 1
    sock.shutdown(socket.SHUT_WR)
    assert proc.wait(IO_TIMEOUT) == 0, proc.stderr.read()


def test_cli_inetd_http_answers_python_over_a_real_socket(callwire_bin):
    """`callwire serve --inetd http` as inetd runs it for each connection (examples/inetd.py):
    Python's client makes calls on one kept-alive connection; the port then serves the next."""
    inetd = subprocess.Popen([sys.executable, str(REPO / "examples" / "inetd.py"), callwire_bin,
                              "serve", "--inetd", "http"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(inetd.stdout.readline().strip().rsplit(":", 1)[1])
        for _ in range(2):  # one connection, then another: one server process each
            proxy = xmlrpc.client.ServerProxy(f"http://127.0.0.1:{port}/RPC2")
            assert proxy.sample.add(2, 3) == 5
            assert proxy.sample.add(40, 2) == 42
            with pytest.raises(xmlrpc.client.Fault):
                proxy.no.such.method()
            proxy("close")()
    finally:
        inetd.terminate()
        out, err = inetd.communicate(timeout=IO_TIMEOUT)
    assert inetd.returncode == 0, err
    assert out.strip() == "stopped", out
