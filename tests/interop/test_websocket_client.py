"""callwire's WebSocket client (`callwire call` with ws://, wss:// and jsonrpc+ws:// URLs) against
a server it did not write: Python's websockets library (Debian's python3-websockets), started
here on loopback port 0 in a thread of its own. What it checks:

- the handshake as a third-party server judges it (key, version, subprotocol) and the frames
  as it reads them (masked, UTF-8 text), JSON-RPC and XML-RPC (under "xmlrpc");
- notifications before and after the answer printed by --listen, the server's pings answered
  during a slow call and while the connection is idle (websockets closes a connection that
  leaves a ping unanswered);
- wss:// with a certificate made at test time; a refusal and a server that picks no
  subprotocol for XML-RPC, each a clear error;
- and the client against callwire's own server, the other way round: `demo.notify` over
  `callwire serve --websocket`.

The programs come from the environment (conftest.py): CALLWIRE_BIN.
"""

import asyncio
import json
import ssl
import subprocess
import threading
import time
import xmlrpc.client

import pytest

websockets = pytest.importorskip("websockets")  # scripts/setup.sh installs python3-websockets

TIMEOUT = 10  # seconds, for every program run and every answer awaited
PING = 0.2  # the Python server's ping interval and its wait for the pong, in seconds


class PythonServer:
    """A websockets server on its own thread and event loop: `handler(ws)` serves each
    connection; `requests` keeps every message received, `subprotocols` what it may pick."""

    def __init__(self, handler, subprotocols=("jsonrpc", "xmlrpc"), ssl_context=None):
        self.requests = []
        self.closes = []  # the close codes of finished connections
        self._handler = handler
        self._loop = asyncio.new_event_loop()
        started = threading.Event()

        async def serve_one(ws, path=None):
            try:
                await self._handler(ws, self)
            finally:
                await ws.wait_closed()
                self.closes.append(ws.close_code)

        async def start():
            self._server = await websockets.serve(
                serve_one, "127.0.0.1", 0, subprotocols=list(subprotocols) or None,
                ssl=ssl_context, ping_interval=PING, ping_timeout=PING)
            self.port = self._server.sockets[0].getsockname()[1]
            started.set()

        self._thread = threading.Thread(target=self._run, args=(start,), daemon=True)
        self._thread.start()
        assert started.wait(TIMEOUT), "the Python server did not start"

    def _run(self, start):
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(start())
        self._loop.run_forever()

    def wait_closes(self, count):
        """The close codes once `count` connections have finished (or after TIMEOUT): the
        server's thread records them after the client has gone."""
        deadline = time.monotonic() + TIMEOUT
        while len(self.closes) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return list(self.closes)

    def url(self, scheme="jsonrpc+ws://"):
        return f"{scheme}127.0.0.1:{self.port}/rpc"

    def stop(self):
        async def close():
            self._server.close()
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(TIMEOUT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(TIMEOUT)


@pytest.fixture
def python_server():
    started = []

    def start(handler, **kwargs):
        server = PythonServer(handler, **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def call(callwire_bin, *args, flags=()):
    """`callwire call FLAGS... URL METHOD PARAMS...` (the flags before the parameters, which
    may start with '-')."""
    return subprocess.run([callwire_bin, "call", *flags, *args], capture_output=True, text=True,
                          timeout=TIMEOUT)


def notification(method, *params):
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": list(params)})


async def answer_json_calls(ws, server, before=0.0, after=0.0):
    """Answers each JSON-RPC call: a notification first, `before` seconds of quiet (pings go
    on), the answer (the sum of the params), then `after` seconds and one more notification."""
    async for text in ws:
        assert isinstance(text, str), "a call must come as a text message"
        request = json.loads(text)
        server.requests.append(request)
        await ws.send(notification("progress", "started"))
        await asyncio.sleep(before)
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": request["id"],
                                  "result": sum(request["params"])}))
        await asyncio.sleep(after)
        await ws.send(notification("progress", "done"))


def test_json_rpc_call_and_notifications_before_and_after_the_answer(callwire_bin, python_server):
    server = python_server(answer_json_calls)
    done = call(callwire_bin, server.url(), "add", "2", "3", flags=["--listen", "1"])
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    # "done" follows the answer at once: read with it, it may be printed before the result.
    notifications = [line for line in lines if isinstance(line, dict)]
    assert notifications == [{"jsonrpc": "2.0", "method": "progress", "params": ["started"]},
                             {"jsonrpc": "2.0", "method": "progress", "params": ["done"]}]
    assert lines[0] == notifications[0] and 5 in lines
    assert server.requests[0]["method"] == "add" and server.requests[0]["params"] == [2, 3]


def test_pings_are_answered_during_a_slow_call_and_while_idle(callwire_bin, python_server):
    # The server pings every 0.2 s and closes a connection whose pong is 0.2 s late: 1.5 s of
    # quiet on each side of the answer is several pings the client must answer.
    async def slow(ws, server):
        await answer_json_calls(ws, server, before=1.5, after=1.5)

    server = python_server(slow)
    done = call(callwire_bin, server.url(), "add", "20", "22", flags=["--listen", "3"])
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[1] == 42 and lines[-1]["params"] == ["done"], done.stdout


def test_xml_rpc_under_its_subprotocol(callwire_bin, python_server):
    async def xml_calls(ws, server):
        assert ws.subprotocol == "xmlrpc"
        async for text in ws:
            params, method = xmlrpc.client.loads(text)
            server.requests.append(method)
            await ws.send(xmlrpc.client.dumps((sum(params),), methodresponse=True))

    server = python_server(xml_calls)
    done = call(callwire_bin, server.url("ws://"), "sample.add", "i/40", "i/2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "42" and server.requests == ["sample.add"]
    # The client said goodbye as it exited: a Close with 1001 (going away), not a dropped
    # connection (1006).
    assert server.wait_closes(1) == [1001]


def test_xml_rpc_to_a_server_without_the_subprotocol_is_refused_clearly(callwire_bin,
                                                                        python_server):
    async def never(ws, server):
        await ws.wait_closed()

    server = python_server(never, subprotocols=())
    done = call(callwire_bin, server.url("ws://"), "sample.add", "i/1", "i/2")
    assert done.returncode != 0
    assert "chose no subprotocol" in done.stderr and "jsonrpc+ws://" in done.stderr


def test_a_refused_handshake_names_the_status(callwire_bin, python_server):
    server = python_server(answer_json_calls)
    done = call(callwire_bin, f"jsonrpc+ws://127.0.0.1:{server.port}/rpc", "add",
                flags=["--header", "Sec-WebSocket-Version: 8"])
    assert done.returncode != 0
    assert "handshake's own" in done.stderr  # refused before anything is sent
    wrong = call(callwire_bin, f"jsonrpc+wss://127.0.0.1:{server.port}/rpc", "add")
    assert wrong.returncode != 0 and wrong.stderr


def test_wss_with_a_certificate(callwire_bin, python_server, tls_cert):
    cert, key = tls_cert
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server = python_server(answer_json_calls, ssl_context=context)
    done = call(callwire_bin, server.url("jsonrpc+wss://"), "add", "1", "2",
                flags=["--ca-file", str(cert)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "3"
    untrusted = call(callwire_bin, server.url("jsonrpc+wss://"), "add", "1", "2")
    assert untrusted.returncode != 0 and "certificate" in untrusted.stderr.lower()


def test_the_client_closes_on_a_protocol_error_with_1002(callwire_bin, python_server):
    # A server's frame must not be masked; websockets never sends one, so the answer is a
    # frame written by hand on the raw transport.
    async def masked(ws, server):
        await ws.recv()
        ws.transport.write(bytes([0x81, 0x82, 1, 2, 3, 4]) + bytes(b ^ k for b, k in
                                                                zip(b"{}", (1, 2))))
        await ws.wait_closed()

    server = python_server(masked)
    done = call(callwire_bin, server.url(), "add")
    assert done.returncode != 0 and "WebSocket" in done.stderr
    assert server.wait_closes(1) == [1002]


def test_callwire_client_and_server_notifications(callwire_bin, serve):
    server = serve("--websocket", "127.0.0.1:0")
    url = server.url.replace("ws://", "jsonrpc+ws://")
    done = call(callwire_bin, url, "demo.notify", "5", flags=["--listen", "0.5"])
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    ticks = [line for line in lines if isinstance(line, dict)]
    assert [t["params"] for t in ticks] == [[i] for i in range(5)]
    assert 5 in lines
    xml = call(callwire_bin, server.url, "sample.add", "i/2", "i/3")
    assert xml.returncode == 0 and xml.stdout.strip() == "5", xml.stderr
