"""xmlrpc-c's packet stream ("pstream", docs/pstream.md) served by `callwire serve --pstream`:
xmlrpc-c's own C++ pstream client (tests/interop/xmlrpc_c_pstream_client.cpp) over TCP and a
Unix socket, then the framing in raw bytes from Python sockets: pipelining, NOPs, broken framing
(closes only that connection), an oversized packet (a fault packet, then closed)."""

import os
import socket
import tempfile
import time
import xmlrpc.client

import pytest

from conftest import REPO, run

ESC = b"\x1b"
PKT, END, ESCW, NOP = ESC + b"PKT", ESC + b"END", ESC + b"ESC", ESC + b"NOP"
IO_TIMEOUT = 10.0  # seconds for any answer, or the close, to come


@pytest.fixture(scope="module")
def socket_dir():
    # Short, so the Unix socket's path fits sun_path.
    with tempfile.TemporaryDirectory(prefix="cw-pstream-") as directory:
        yield directory


@pytest.fixture(scope="module")
def pstream_server(serve, socket_dir):
    """`callwire serve` with a pstream listener on 127.0.0.1:0 and one on a Unix socket."""
    server = serve("--pstream", "127.0.0.1:0", "--pstream-unix",
                   os.path.join(socket_dir, "ps.sock"), listeners=2)
    tcp, unix = server.urls
    assert tcp.startswith("pstream://127.0.0.1:"), server.urls
    assert unix.startswith("pstream+unix:"), server.urls
    server.port = int(tcp.rsplit(":", 1)[1])
    server.unix_path = unix[len("pstream+unix:"):]
    return server


@pytest.fixture(scope="session")
def pstream_client_bin():
    path = os.environ.get("XMLRPC_C_PSTREAM_CLIENT")
    if not path:
        path = str(REPO / "build/release/tests/interop/xmlrpc_c_pstream_client")
        if not os.access(path, os.X_OK):
            pytest.skip("xmlrpc_c_pstream_client not built (xmlrpc-c's client has no "
                        "libxmlrpc_packetsocket)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"XMLRPC_C_PSTREAM_CLIENT={path} is not an executable")
    return path


# --- xmlrpc-c's pstream client against our server ----------------------------------------------

EXPECTED_STEPS = [
    "add 8",
    "easyStruct 6",
    "echoStruct identical",
    "fault -32601 unknown method 'no.such.method'",
    "echoString identical 159 bytes",
    "echoBase64 identical 4194304 bytes 1449472 ESC",
    "add 8",
]


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_xmlrpc_c_pstream_client(pstream_client_bin, pstream_server, transport):
    target = (["127.0.0.1", str(pstream_server.port)] if transport == "tcp"
              else ["--unix", pstream_server.unix_path])
    result = run([pstream_client_bin, *target], timeout=60)
    assert result.stdout.splitlines() == EXPECTED_STEPS, result.stderr
    assert result.returncode == 0, result.stderr
    assert pstream_server.alive()


# --- raw bytes ----------------------------------------------------------------------------------


def packet(payload):
    return PKT + payload.replace(ESC, ESCW) + END


def call(method, *params):
    return xmlrpc.client.dumps(params, method, encoding="utf-8").encode()


class Stream:
    """One pstream connection: sends bytes, reads packets (decoding the framing strictly)."""

    def __init__(self, address):
        family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.settimeout(IO_TIMEOUT)
        self.sock.connect(address)
        self.buffer = b""
        self.closed = False

    def send(self, data):
        self.sock.sendall(data)

    def _take_packet(self):
        """The first whole packet in the buffer (removed), or None; NOPs are dropped."""
        payload, i = None, 0
        while i + 4 <= len(self.buffer):
            word = self.buffer[i:i + 4]
            if payload is None:
                assert word in (PKT, NOP), f"server sent {self.buffer[i:i + 16]!r} outside a packet"
                if word == PKT:
                    payload = b""
                i += 4
                continue
            j = self.buffer.find(ESC, i)
            if j < 0:
                return None
            payload += self.buffer[i:j]
            word = self.buffer[j:j + 4]
            if len(word) < 4:
                return None
            i = j + 4
            if word == END:
                self.buffer = self.buffer[i:]
                return payload
            if word == ESCW:
                payload += ESC
            else:
                assert word == NOP, f"server sent {word!r} inside a packet"
        return None

    def read_packets(self, count):
        """Exactly `count` packets' payloads; fails if the connection ends first."""
        packets = []
        deadline = time.monotonic() + IO_TIMEOUT
        while len(packets) < count:
            got = self._take_packet()
            if got is not None:
                packets.append(got)
                continue
            assert not self.closed, f"closed after {len(packets)} of {count} packets"
            self._receive(deadline)
        return packets

    def read_until_closed(self):
        """Every packet the server sends before it closes the connection."""
        deadline = time.monotonic() + IO_TIMEOUT
        while not self.closed:
            self._receive(deadline)
        packets = []
        while (got := self._take_packet()) is not None:
            packets.append(got)
        assert self.buffer == b"", f"left after the last packet: {self.buffer[:64]!r}"
        return packets

    def _receive(self, deadline):
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"nothing more from the server within {IO_TIMEOUT} s"
        self.sock.settimeout(remaining)
        chunk = self.sock.recv(1 << 16)
        if chunk:
            self.buffer += chunk
        else:
            self.closed = True

    def close(self):
        self.sock.close()


def result(payload):
    """The single result of a methodResponse (a fault raises xmlrpc.client.Fault)."""
    params, _ = xmlrpc.client.loads(payload.decode("utf-8"))
    return params[0]


@pytest.fixture
def stream(pstream_server):
    streams = []

    def open_stream(address=None):
        s = Stream(address or ("127.0.0.1", pstream_server.port))
        streams.append(s)
        return s

    yield open_stream
    for s in streams:
        s.close()


def test_pipelined_calls_answered_in_order(stream):
    s = stream()
    s.send(b"".join(packet(call("sample.add", i, 1000)) for i in range(50)))
    assert [result(p) for p in s.read_packets(50)] == [i + 1000 for i in range(50)]


def test_nops_ignored(stream):
    inside = packet(call("sample.add", 40, 2))
    inside = inside[:10] + NOP + inside[10:]  # NOP inside a packet's payload too
    s = stream()
    s.send(NOP + packet(call("sample.add", 1, 2)) + NOP * 3 + inside + NOP)
    assert [result(p) for p in s.read_packets(2)] == [3, 42]
    s.send(NOP)  # a lone liveness probe: no answer, the stream stays open
    s.send(packet(call("sample.add", 2, 2)))
    assert [result(p) for p in s.read_packets(1)] == [4]


def test_unix_socket_and_text_xmlrpc_c_cannot_send(stream, pstream_server):
    # 4-byte UTF-8 (xmlrpc-c 1.33 refuses to send it) and CR as &#13; (xmlrpc-c's string
    # accessors turn every CR into LF), written by hand; Python's reader keeps both.
    text = "cr\r crlf\r\n U+10000 \U00010000 \U0001F600 U+10FFFF \U0010FFFF"
    body = ("<?xml version='1.0'?><methodCall><methodName>echo</methodName><params><param>"
            "<value><string>" + text.replace("\r", "&#13;") + "</string></value></param>"
            "</params></methodCall>").encode()
    s = stream(pstream_server.unix_path)
    s.send(packet(body))
    assert result(s.read_packets(1)[0]) == [text]


# The bytes xmlrpc-c 1.33 (Debian 12's) sends for echo("before\x1bafter"): its packet writer does
# not escape a 0x1B in the payload (fixed upstream in 1.39.03), so the stream holds ESC "aft".
XMLRPC_C_133_UNESCAPED = (PKT + b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<methodCall>\r\n"
                          b"<methodName>echo</methodName>\r\n<params>\r\n<param><value><string>"
                          b"before\x1bafter</string></value></param>\r\n</params>\r\n"
                          b"</methodCall>\r\n" + END)


@pytest.mark.parametrize("bad", [
    XMLRPC_C_133_UNESCAPED,
    b"<methodCall/>",  # a byte outside a packet
    END,  # END outside a packet
    PKT + b"<methodCall>" + PKT,  # PKT inside a packet
    ESC + b"pkt",  # control words are case-sensitive
], ids=["xmlrpc-c-1.33-unescaped-esc", "bytes-outside", "end-outside", "pkt-inside",
        "lowercase-word"])
def test_broken_framing_closes_only_that_connection(stream, bad):
    bystander = stream()
    bystander.send(packet(call("sample.add", 1, 1)))
    assert [result(p) for p in bystander.read_packets(1)] == [2]

    broken = stream()
    broken.send(packet(call("sample.add", 2, 2)) + bad)
    # What was whole before the break is answered; then the server closes, answering nothing more.
    assert [result(p) for p in broken.read_until_closed()] == [4]

    bystander.send(packet(call("sample.add", 3, 3)))
    assert [result(p) for p in bystander.read_packets(1)] == [6]
    fresh = stream()
    fresh.send(packet(call("sample.add", 4, 4)))
    assert [result(p) for p in fresh.read_packets(1)] == [8]


def test_oversized_packet_fault_then_closed(serve):
    server = serve("--pstream", "127.0.0.1:0", "--max-body", "4096")
    port = int(server.url.rsplit(":", 1)[1])
    bystander = Stream(("127.0.0.1", port))
    big = Stream(("127.0.0.1", port))
    try:
        big.send(PKT + b"x" * 5000)  # no END: the cap is passed before the packet ends
        answers = big.read_until_closed()
        assert len(answers) == 1, answers
        with pytest.raises(xmlrpc.client.Fault) as fault:
            result(answers[0])
        assert fault.value.faultCode == -32600
        assert "4096" in fault.value.faultString

        bystander.send(packet(call("sample.add", 20, 22)))
        assert [result(p) for p in bystander.read_packets(1)] == [42]
    finally:
        big.close()
        bystander.close()
