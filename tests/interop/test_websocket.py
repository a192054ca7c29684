"""WebSocket (RFC 6455) against `callwire serve --websocket 127.0.0.1:0` (docs/websocket.md):

- Python's websockets library (Debian's python3-websockets) as the client a user would write:
  JSON-RPC calls, batches and notifications (no answer) in text messages, XML-RPC under the
  "xmlrpc" subprotocol, binary messages answered in binary, pings, the close handshake,
  credentials on the handshake, wss:// with a certificate made at test time;
- a raw peer on a socket for what no library sends: every handshake refusal with its status
  and words, and bad frames (unmasked, oversized, bad UTF-8, a reserved opcode, a Close in the
  middle of a message, a flood of pings). Each closes its own connection with the right code,
  and a connection opened before it is still served afterwards;
- the server's pings of a quiet peer, and its Close (1001) when it stops.

The programs come from the environment (conftest.py): CALLWIRE_BIN.
"""

import asyncio
import base64
import json
import os
import socket
import ssl
import struct
import time
import urllib.parse
import xmlrpc.client

import pytest

from conftest import ServerProcess

websockets = pytest.importorskip("websockets")  # scripts/setup.sh installs python3-websockets

TIMEOUT = 10  # seconds, for every connection and every answer awaited


def address(url):
    parts = urllib.parse.urlsplit(url)
    return parts.hostname, parts.port, parts.path or "/"


# --- the raw peer -------------------------------------------------------------------------------


class RawPeer:
    """A WebSocket client on a plain socket: it sends exactly the frames it is told to."""

    def __init__(self, url, headers=None, protocols=None, version="13", key=None):
        host, port, path = address(url)
        self.sock = socket.create_connection((host, port), timeout=TIMEOUT)
        self.key = key if key is not None else base64.b64encode(os.urandom(16)).decode()
        fields = {"Host": f"{host}:{port}", "Upgrade": "websocket", "Connection": "Upgrade",
                  "Sec-WebSocket-Key": self.key, "Sec-WebSocket-Version": version}
        if protocols:
            fields["Sec-WebSocket-Protocol"] = ", ".join(protocols)
        fields.update(headers or {})
        head = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
        self.sock.sendall((head + "\r\n").encode())
        self.status, self.fields, self.body = self._read_answer_head()
        self.buffer = b""

    def _read_answer_head(self):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        if "content-length" in fields:
            while len(rest) < int(fields["content-length"]):
                chunk = self.sock.recv(4096)
                if not chunk:
                    break
                rest += chunk
        self.buffer = rest if status == 101 else b""
        return status, fields, rest

    def send_frame(self, opcode, payload=b"", fin=True, mask=True, length=None):
        """Sends one frame; `length` overrides the length written in its header."""
        n = len(payload) if length is None else length
        first = (0x80 if fin else 0) | opcode
        mask_bit = 0x80 if mask else 0
        if n < 126:
            header = struct.pack("!BB", first, mask_bit | n)
        elif n < 65536:
            header = struct.pack("!BBH", first, mask_bit | 126, n)
        else:
            header = struct.pack("!BBQ", first, mask_bit | 127, n)
        if mask:
            key = os.urandom(4)
            payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
            header += key
        self.sock.sendall(header + payload)

    def _need(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed with {self.buffer!r} unread")
            self.buffer += chunk

    def read_frame(self):
        """(fin, opcode, payload) of the next frame the server sends (never masked)."""
        self._need(2)
        first, second = self.buffer[0], self.buffer[1]
        assert not second & 0x80, "a server's frame must not be masked"
        n, at = second & 0x7F, 2
        if n == 126:
            self._need(4)
            n, at = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif n == 127:
            self._need(10)
            n, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
        self._need(at + n)
        payload = self.buffer[at:at + n]
        self.buffer = self.buffer[at + n:]
        return bool(first & 0x80), first & 0x0F, payload

    def read_close(self):
        """The code and reason of the Close the server sends, skipping other frames."""
        while True:
            _, opcode, payload = self.read_frame()
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                return code, payload[2:].decode()

    def closed_by_server(self):
        """True once the server has closed the TCP connection (read returns nothing)."""
        self.sock.settimeout(TIMEOUT)
        try:
            while self.sock.recv(65536):
                pass
        except ConnectionResetError:
            pass
        return True

    def call_json(self, document):
        self.send_frame(0x1, json.dumps(document).encode())
        _, opcode, payload = self.read_frame()
        assert opcode == 0x1
        return json.loads(payload)

    def close(self):
        self.sock.close()


ADD = {"jsonrpc": "2.0", "id": 1, "method": "sample.add", "params": [2, 3]}


@pytest.fixture(scope="module")
def ws_server(serve):
    """A WebSocket listener of a server that takes one browser origin, max_body 64 KiB."""
    return serve("--websocket", "127.0.0.1:0", "--websocket-origin", "https://app.example",
                 "--max-body", "65536")


def run_async(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 3 * TIMEOUT))


# --- a client library -------------------------------------------------------------------------


def test_the_listener_names_its_url(ws_server):
    assert ws_server.url.startswith("ws://127.0.0.1:") and ws_server.url.endswith("/RPC2")


def test_json_rpc_calls_batches_and_notifications(ws_server):
    async def session():
        async with websockets.connect(ws_server.url, subprotocols=["jsonrpc"],
                                      open_timeout=TIMEOUT) as ws:
            assert ws.subprotocol == "jsonrpc"
            await ws.send(json.dumps(ADD))
            assert json.loads(await ws.recv()) == {"jsonrpc": "2.0", "result": 5, "id": 1}
            # A notification gets no answer: the next message is the next call's.
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "sample.add", "params": [1, 1]}))
            await ws.send(json.dumps([
                {"jsonrpc": "2.0", "id": "a", "method": "sample.add", "params": [1, 2]},
                {"jsonrpc": "2.0", "method": "sample.add", "params": [1, 1]},
                {"jsonrpc": "2.0", "id": "b", "method": "no.such", "params": []}]))
            batch = json.loads(await ws.recv())
            assert [m["id"] for m in batch] == ["a", "b"]
            assert batch[0]["result"] == 3 and batch[1]["error"]["code"] == -32601
            await ws.send("{not json")
            assert json.loads(await ws.recv())["error"]["code"] == -32700
            # Many in flight at once are answered in order.
            for i in range(50):
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "sample.add",
                                          "params": [i, i]}))
            answers = [json.loads(await ws.recv()) for _ in range(50)]
            assert [a["result"] for a in answers] == [2 * i for i in range(50)]
        assert ws.close_code == 1000  # the close handshake, echoed

    run_async(session())


def test_no_subprotocol_is_json_rpc_and_binary_is_answered_in_binary(ws_server):
    async def session():
        async with websockets.connect(ws_server.url, open_timeout=TIMEOUT) as ws:
            assert ws.subprotocol is None
            await ws.send(json.dumps(ADD).encode())  # bytes: a binary message
            answer = await ws.recv()
            assert isinstance(answer, bytes) and json.loads(answer)["result"] == 5

    run_async(session())


def test_xml_rpc_under_its_subprotocol(ws_server):
    async def session():
        async with websockets.connect(ws_server.url, subprotocols=["xmlrpc", "jsonrpc"],
                                      open_timeout=TIMEOUT) as ws:
            assert ws.subprotocol == "jsonrpc"  # the server's preference, both offered
        async with websockets.connect(ws_server.url, subprotocols=["xmlrpc"],
                                      open_timeout=TIMEOUT) as ws:
            assert ws.subprotocol == "xmlrpc"
            await ws.send(xmlrpc.client.dumps((4, 5), "sample.add"))
            (result,), _ = xmlrpc.client.loads(await ws.recv())
            assert result == 9
            await ws.send(xmlrpc.client.dumps((), "no.such"))
            with pytest.raises(xmlrpc.client.Fault):
                xmlrpc.client.loads(await ws.recv())

    run_async(session())


def test_pings_are_answered(ws_server):
    async def session():
        async with websockets.connect(ws_server.url, open_timeout=TIMEOUT) as ws:
            for _ in range(3):
                await asyncio.wait_for(await ws.ping(b"are you there"), TIMEOUT)

    run_async(session())


def test_a_message_over_the_limit_closes_with_1009(ws_server):
    async def session():
        async with websockets.connect(ws_server.url, open_timeout=TIMEOUT,
                                      max_size=None) as ws:
            await ws.send("x" * 70000)
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd.code == 1009

    run_async(session())


def test_credentials_travel_on_the_handshake(serve):
    server = serve("--websocket", "127.0.0.1:0", "--user", "ann", "--password", "s3cret")
    raw = RawPeer(server.url)
    assert raw.status == 401 and raw.fields["www-authenticate"].startswith("Basic")
    raw.close()

    async def session():
        token = base64.b64encode(b"ann:s3cret").decode()
        async with websockets.connect(server.url, open_timeout=TIMEOUT,
                                      extra_headers={"Authorization": f"Basic {token}"}) as ws:
            await ws.send(json.dumps(ADD))
            assert json.loads(await ws.recv())["result"] == 5

    run_async(session())


def test_wss_with_a_certificate(serve, tls_cert):
    cert, key = tls_cert
    server = serve("--websocket", "127.0.0.1:0", "--tls-cert", str(cert), "--tls-key", str(key))
    assert server.url.startswith("wss://127.0.0.1:")
    context = ssl.create_default_context(cafile=str(cert))

    async def session():
        async with websockets.connect(server.url, ssl=context, open_timeout=TIMEOUT) as ws:
            await ws.send(json.dumps(ADD))
            assert json.loads(await ws.recv())["result"] == 5

    run_async(session())


# --- the handshake's refusals ------------------------------------------------------------------


def test_handshake_refusals_name_the_mistake(ws_server):
    cases = [
        (dict(version="8"), 426, "version 13"),
        (dict(key="short"), 400, "Sec-WebSocket-Key"),
        (dict(protocols=["graphql-ws"]), 400, "jsonrpc, xmlrpc"),
        (dict(headers={"Origin": "https://evil.example"}), 403, "allowed_origins"),
        (dict(headers={"Connection": "keep-alive"}), 400, "Connection: Upgrade"),
    ]
    for kwargs, status, words in cases:
        raw = RawPeer(ws_server.url, **kwargs)
        assert raw.status == status, kwargs
        assert words in raw.body.decode(), (kwargs, raw.body)
        if status == 426:
            assert raw.fields["sec-websocket-version"] == "13"
        raw.close()
    host, port, _ = address(ws_server.url)
    raw = RawPeer(f"ws://{host}:{port}/elsewhere")
    assert raw.status == 404 and "/elsewhere" in raw.body.decode()
    raw.close()
    # The allowed origin is taken, and so is a handshake without Origin (no browser).
    raw = RawPeer(ws_server.url, headers={"Origin": "https://app.example"})
    assert raw.status == 101
    expected = base64.b64encode(__import__("hashlib").sha1(
        (raw.key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    assert raw.fields["sec-websocket-accept"] == expected
    assert raw.call_json(ADD)["result"] == 5
    raw.close()


def test_a_plain_http_listener_says_it_serves_no_websocket(server):
    raw = RawPeer(server.url)
    assert raw.status == 400 and "ws://" in raw.body.decode()
    raw.close()


# --- bad frames close their own connection only ----------------------------------------------


@pytest.mark.parametrize("name, send, code", [
    ("unmasked", lambda p: p.send_frame(0x1, json.dumps(ADD).encode(), mask=False), 1002),
    ("reserved opcode", lambda p: p.send_frame(0x3, b"x"), 1002),
    ("bad UTF-8", lambda p: p.send_frame(0x1, b'{"a":"\xc3\x28"}'), 1007),
    ("oversized length", lambda p: p.send_frame(0x2, b"", length=1 << 40), 1009),
    ("continuation first", lambda p: p.send_frame(0x0, b"x"), 1002),
    ("long ping", lambda p: p.send_frame(0x9, b"x" * 126), 1002),
])
def test_bad_frames_close_that_connection_only(ws_server, name, send, code):
    bystander = RawPeer(ws_server.url)
    assert bystander.status == 101
    peer = RawPeer(ws_server.url)
    send(peer)
    got, reason = peer.read_close()
    assert got == code, (name, reason)
    assert reason, "the Close says why"
    assert peer.closed_by_server()
    peer.close()
    assert bystander.call_json(ADD)["result"] == 5
    bystander.close()


def test_an_oversized_frame_is_refused_before_its_payload(ws_server):
    peer = RawPeer(ws_server.url)
    peer.send_frame(0x1, b"", length=100000)  # the header alone: 100000 > max_body
    code, reason = peer.read_close()
    assert code == 1009 and "65536" in reason
    peer.close()


def test_a_close_in_the_middle_of_a_message_is_echoed(ws_server):
    peer = RawPeer(ws_server.url)
    peer.send_frame(0x1, b'{"jsonrpc":', fin=False)
    peer.send_frame(0x8, struct.pack("!H", 4000) + b"bye")
    assert peer.read_close() == (4000, "")
    assert peer.closed_by_server()
    peer.close()


def test_fragments_and_pings_between_them(ws_server):
    peer = RawPeer(ws_server.url)
    text = json.dumps(ADD).encode()
    peer.send_frame(0x1, text[:5], fin=False)
    peer.send_frame(0x9, b"mid")
    peer.send_frame(0x0, text[5:12], fin=False)
    peer.send_frame(0x0, text[12:], fin=True)
    assert peer.read_frame() == (True, 0xA, b"mid")
    _, opcode, payload = peer.read_frame()
    assert opcode == 0x1 and json.loads(payload)["result"] == 5
    peer.close()


def test_a_flood_of_pings_does_not_stop_the_server(ws_server):
    bystander = RawPeer(ws_server.url)
    flood = RawPeer(ws_server.url)
    flood.sock.settimeout(0.5)
    sent = 0
    try:  # it never reads its pongs: the server stops reading it once its answers pile up
        while sent < 200000:
            flood.send_frame(0x9, b"p" * 125)
            sent += 1
    except (socket.timeout, BlockingIOError, ConnectionError):
        pass
    assert bystander.call_json(ADD)["result"] == 5
    flood.close()
    assert bystander.call_json(ADD)["result"] == 5
    bystander.close()


# --- the server's side of the conversation ----------------------------------------------------


def test_a_quiet_peer_is_pinged_and_closed_when_it_does_not_answer(serve):
    server = serve("--websocket", "127.0.0.1:0", "--websocket-ping", "300")
    mute = RawPeer(server.url)  # reads, never answers a ping
    started = time.monotonic()
    fin, opcode, _ = mute.read_frame()
    assert opcode == 0x9
    assert mute.read_close()[0] == 1001
    assert mute.closed_by_server()
    assert time.monotonic() - started < 5
    mute.close()

    async def session():  # the library answers pings: the connection stays open
        async with websockets.connect(server.url, open_timeout=TIMEOUT) as ws:
            await asyncio.sleep(1.5)  # five ping intervals
            await ws.send(json.dumps(ADD))
            assert json.loads(await ws.recv())["result"] == 5

    run_async(session())


def test_stopping_says_going_away(callwire_bin):
    server = ServerProcess([callwire_bin, "serve", "--threads", "1", "--websocket",
                            "127.0.0.1:0"])
    try:
        peer = RawPeer(server.url)
        assert peer.call_json(ADD)["result"] == 5
    finally:
        rc = server.stop()
    assert rc == 0
    assert peer.read_close()[0] == 1001
    peer.close()


# --- notifications from the server --------------------------------------------------------------


def test_a_handler_sends_notifications_to_its_caller(ws_server):
    async def session():
        async with websockets.connect(ws_server.url, open_timeout=TIMEOUT) as ws, \
                websockets.connect(ws_server.url, open_timeout=TIMEOUT) as other:
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "demo.notify",
                                      "params": [100]}))
            messages = [json.loads(await ws.recv()) for _ in range(101)]
            ticks = [m for m in messages if m.get("method") == "demo.tick"]
            answers = [m for m in messages if "id" in m]
            assert [t["params"] for t in ticks] == [[i] for i in range(100)]
            assert all("id" not in t and t["jsonrpc"] == "2.0" for t in ticks)
            assert answers == [{"jsonrpc": "2.0", "result": 100, "id": 7}]
            # The other connection got none of them, and is served as ever.
            await other.send(json.dumps(ADD))
            assert json.loads(await other.recv())["result"] == 5

    run_async(session())


def test_notifications_need_json_rpc_over_websocket(ws_server, serve):
    async def session():
        async with websockets.connect(ws_server.url, subprotocols=["xmlrpc"],
                                      open_timeout=TIMEOUT) as ws:
            await ws.send(xmlrpc.client.dumps((3,), "demo.notify"))
            with pytest.raises(xmlrpc.client.Fault) as fault:
                xmlrpc.client.loads(await ws.recv())
            assert "WebSocket" in fault.value.faultString

    run_async(session())
    # Over HTTP on the same listener: no connection to send them on.
    host, port, path = address(ws_server.url)
    proxy = xmlrpc.client.ServerProxy(f"http://{host}:{port}{path}")
    with pytest.raises(xmlrpc.client.Fault):
        proxy.demo.notify(1)


def test_an_empty_message_is_a_parse_error(serve, ws_server):
    # An empty message has no bytes at all: the reader must not touch a null pointer for it
    # (found by server_fuzz under UBSan).
    peer = RawPeer(ws_server.url)
    peer.send_frame(0x1, b"")
    _, opcode, payload = peer.read_frame()
    assert opcode == 0x1 and json.loads(payload)["error"]["code"] == -32700
    assert peer.call_json(ADD)["result"] == 5
    peer.close()
    xml_peer = RawPeer(ws_server.url, protocols=["xmlrpc"])
    xml_peer.send_frame(0x2, b"")
    _, opcode, payload = xml_peer.read_frame()
    assert opcode == 0x2 and b"<fault>" in payload
    xml_peer.close()
