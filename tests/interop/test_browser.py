"""JSON-RPC over WebSocket from a real browser: a page in headless Chromium (Debian's
`chromium`) opens `ws://` to `callwire serve --websocket`, calls sample.add, and receives the
notifications demo.notify sends (tests/interop/browser/websocket_page.html). The page is served
over HTTP from 127.0.0.1 (port 0) by this test, so the browser sends that Origin: the server
takes it when `--websocket-origin` names it, and refuses a page from any other origin.

The page reports by POSTing what happened to its own server; the test waits for that report
(bounded), then ends the browser. The programs come from the environment (conftest.py):
CALLWIRE_BIN; Chromium is found on PATH.
"""

import http.server
import json
import os
import pathlib
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

PAGE = pathlib.Path(__file__).resolve().parent / "browser" / "websocket_page.html"
REPORT_TIMEOUT = 60  # seconds for the browser to start, load the page and report


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("chromium is missing (scripts/setup.sh installs it)")


class PageServer:
    """Serves the page at / and takes the page's report at /result, on 127.0.0.1, port 0."""

    def __init__(self):
        reports = queue.Queue()
        page = PAGE.read_bytes()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                reports.put(json.loads(body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.reports = reports
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def end_browser(browser):
    """Ends Chromium and every process it started (renderers, utilities: its own process
    group), so that none still writes into the profile when it is removed."""
    try:
        os.killpg(browser.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        browser.wait(10)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(browser.pid, signal.SIGKILL)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    if browser.poll() is None:
        browser.wait(10)


def run_page(page_server, ws_url):
    """Opens the page in headless Chromium and returns its report."""
    # A profile a straggling process still wrote into must not fail the test: it is a temporary
    # directory, and what the test checks is the page's report.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser = subprocess.Popen(
            [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
             f"--user-data-dir={profile}", f"{page_server.origin}/?ws={ws_url}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        try:
            return page_server.reports.get(timeout=REPORT_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"no report from the page within {REPORT_TIMEOUT} s")
        finally:
            end_browser(browser)


@pytest.fixture
def page_server():
    server = PageServer()
    yield server
    server.close()


def test_a_page_calls_and_receives_notifications(serve, page_server):
    server = serve("--websocket", "127.0.0.1:0", "--websocket-origin", page_server.origin)
    report = run_page(page_server, server.url)
    assert report.get("opened"), report
    assert report["protocol"] == "jsonrpc"
    assert report["add"] == 5
    assert report["notify"] == 5
    assert report["ticks"] == [0, 1, 2, 3, 4]
    assert report["close"] == 1000, report
    assert not report.get("timeout"), report


def test_a_page_from_another_origin_is_refused(serve, page_server):
    server = serve("--websocket", "127.0.0.1:0", "--websocket-origin", "https://elsewhere.example")
    report = run_page(page_server, server.url)
    assert not report.get("opened"), report
    assert report.get("error") and report["close"] == 1006, report  # the handshake got 403
