#!/usr/bin/env python3
"""Runs the network benchmarks and writes their section of bench/RESULTS.md.

Usage: python3 bench/net_run.py BUILD_DIR [--quick] [--no-write] [--only PARTS]
  `make bench` runs it with BUILD_DIR=build/bench after bench/run.py. It builds nothing: the
  Makefile builds BUILD_DIR/tools/callwire and BUILD_DIR/bench/*_lat_* first.
  --quick     short runs (about 40 s in all) for working on this script; implies --no-write
  --no-write  print the tables, leave RESULTS.md alone
  --only      a comma-separated subset of: latency, syscalls, pipeline, wrk

What it measures, all on 127.0.0.1 in one run, so that the ratios compare like with like:

1. Round-trip latency: sequential sample.add(2, 3) calls on one kept-alive connection, each
   client a small program (bench/net/*_lat_client) paired with a server started separately,
   in the manner of libzmq's local_lat/remote_lat:
     raw       raw_lat_client ↔ raw_lat_server: the exact request bytes callwire's client sends
               and the exact response bytes callwire's server answers (captured through a
               proxy at the start of the run), written and read with no parsing: the floor
     callwire  cw_lat_client ↔ `callwire serve --threads 1`
     raw json  as raw, with the bytes of callwire's JSON-RPC call and answer (captured the same
               way): the floor of callwire json
     callwire json  the same client and server speaking JSON-RPC 2.0 (a `jsonrpc+http://` URL;
               the server answers JSON by the request's Content-Type)
     raw pstream  as raw, with the packets callwire's client and server exchange over the
               packet stream (captured the same way): the floor of callwire pstream
     callwire pstream  the same over xmlrpc-c's packet stream (`--pstream`): XML-RPC, no HTTP
     xmlrpc-c  xmlrpc_c_lat_client (libxmlrpc_client, curl) ↔ xmlrpc_c_server (Abyss, defaults)
     xmlrpc-c pstream  xmlrpc_c_pstream_lat_client (clientXmlTransport_pstream) ↔
               xmlrpc_c_pstream_server (serverPstreamConn); skipped, saying so, when xmlrpc-c's
               packet-stream libraries were not there to build them
     python    cw_lat_client ↔ Python's SimpleXMLRPCServer (bench/net/py_server.py)
   each unpinned and then with client and server pinned to one core (taskset -c 0): median,
   p99, and CPU time per call of the client and the server.
2. System calls per call of each pair (perf's syscall tracepoints, or strace -f -c without
   perf, on both sides, unpinned and pinned, in separate short runs: the difference between a
   run of SHORT and of LONG calls, so starting, connecting and exiting cancel).
3. Sequential vs pipelined calls per second on one packet-stream connection (issue 11):
   raw_lat_client ↔ raw_lat_server with the packets of raw pstream, one call at a time and
   with --pipeline 16 and 64 (that many requests in flight); cw_lat_client ↔ `callwire serve
   --threads 1 --pstream`, and cw_pipeline_client (async calls under
   ClientOptions::pipeline_depth, max_connections 1) at the same depths, skipped, saying so,
   where it was not built (a client header without pipeline_depth). Unpinned and pinned.
4. Throughput: wrk, 2 threads, 32 connections, POSTing the same sample.add body, against
   `callwire serve` (defaults: a loop per core), Abyss (defaults, and tuned), Python, and
   nginx answering the same response body with `return 200` (the floor).

Prints the tables, and replaces the part of RESULTS.md between BEGIN_MARKER and END_MARKER
(appended at the end when absent); anything else in the file is kept. A goal missed is
reported, never a failure; a benchmark that cannot run fails the script.
"""

import datetime
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import instructions_per_call
from peers_run import callwire_commit

BEGIN_MARKER = "<!-- begin generated network section -->"
END_MARKER = "<!-- end generated network section -->"
HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"

LAT_SECONDS = 1.5   # timed calls per latency run
LAT_WARMUP = 1000   # untimed calls first
SYSCALL_SHORT, SYSCALL_LONG = 200, 2200
WRK_SECONDS = 5
WRK_THREADS, WRK_CONNECTIONS = 2, 32

GOAL_LATENCY = 1.5      # callwire's median round trip ≤ 1.5 × the raw floor's (either protocol)
GOAL_PSTREAM_LATENCY = 1.3  # over the packet stream ≤ 1.3 × its own raw floor's (issue 11)
GOAL_CPU = 2.0          # callwire's client + server CPU per call ≤ 2 × the floor's
GOAL_SERVER_CPU = 1.25  # callwire's server CPU per call ≤ 1.25 × the raw server's, pinned (issue 30)
# Instructions per call (callgrind): the difference between runs of these many calls.
INSTRUCTION_CALLS = (1000, 3000)
GOAL_THROUGHPUT = 0.7   # callwire's wrk requests/s ≥ 0.7 × nginx's
GOAL_PIPELINE = 4.0     # callwire's calls/s pipelined on one connection ≥ 4 × sequential (issue 11)
PIPELINE_DEPTHS = (16, 64)  # calls in flight; the goal is at the deepest


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Processes.

class Server:
    """A server process that prints "listening on URL" on its first line of output."""

    def __init__(self, command, pin=False, wait_for_line=True, ready_port=None):
        self.command = (["taskset", "-c", "0"] if pin else []) + [str(c) for c in command]
        self.proc = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.url = None
        if wait_for_line:
            line = self._first_line(10.0)
            m = re.match(r"listening on ((?:http|pstream)://([\d.]+):(\d+)(/\S*)?)", line)
            if not m:
                self.stop()
                raise RuntimeError(f"{self.command[0]}: expected 'listening on URL', got "
                                   f"{line!r}; stderr: {self.proc.stderr.read().decode()!r}")
            self.url, self.host, self.port = m.group(1), m.group(2), int(m.group(3))
        else:
            self.host, self.port = "127.0.0.1", ready_port
            self.url = f"http://127.0.0.1:{ready_port}/RPC2"
            wait_for_port(ready_port, self.proc)

    @property
    def pid(self):
        return self.proc.pid

    def _first_line(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return ""
        return self.proc.stdout.readline().decode(errors="replace").strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe:
                pipe.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def wait_for_port(port, proc, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}): "
                               f"{proc.stderr.read().decode(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listening on port {port} after {timeout} s")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_json(command, pin=False, timeout=60):
    command = (["taskset", "-c", "0"] if pin else []) + [str(c) for c in command]
    p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({p.returncode}): {p.stderr.strip()}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def cpu_ticks(pid):
    """utime + stime of a process (all its threads, ended ones too), in clock ticks."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


def children(pid):
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            text = (d / "stat").read_text()
        except OSError:
            continue
        if int(text[text.rindex(")") + 2:].split()[1]) == pid:
            out.append(int(d.name))
    return out


# ---------------------------------------------------------------------------------------------
# HTTP bytes.

def read_http_message(sock):
    """Reads one HTTP message with a Content-Length body; returns its bytes."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError(f"connection closed after {len(data)} bytes of a head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    m = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head)
    if not m:
        raise RuntimeError(f"no Content-Length in {head!r}")
    length = int(m.group(1))
    rest = bytearray(rest)  # grows in place: bench/scaling.py reads answers of 22 MB
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed in a body")
        rest += chunk
    return head + b"\r\n\r\n" + bytes(rest[:length])


def body_of(message):
    return message.partition(b"\r\n\r\n")[2]


PSTREAM_PKT, PSTREAM_END = b"\x1bPKT", b"\x1bEND"


def read_pstream_packet(sock):
    """Reads one packet of the packet stream (docs/pstream.md): ESC PKT, the payload, ESC END;
    returns its bytes. It has no length: it ends at the first ESC END, which an XML-RPC payload
    (no 0x1B in XML) never holds escaped."""
    data = b""
    while PSTREAM_END not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError(f"connection closed after {len(data)} bytes of a packet")
        data += chunk
    end = data.index(PSTREAM_END) + len(PSTREAM_END)
    if not data.startswith(PSTREAM_PKT) or end != len(data):
        raise RuntimeError(f"not one whole packet: {data!r}")
    return data


def capture(callwire, cw_lat_client, json_rpc=False, pstream=False):
    """The request callwire's client sends for sample.add(2, 3) and the response callwire's
    server answers, through a one-connection proxy; over JSON-RPC with json_rpc, over the
    packet stream (XML-RPC, no HTTP) with pstream."""
    listen = ["--pstream" if pstream else "--listen", "127.0.0.1:0"]
    read_message = read_pstream_packet if pstream else read_http_message
    with Server([callwire, "serve", "--threads", "1", *listen]) as server:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        got = {}

        def proxy():
            try:
                client, _ = listener.accept()
                with client, socket.create_connection((server.host, server.port)) as upstream:
                    got["request"] = read_message(client)
                    upstream.sendall(got["request"])
                    got["response"] = read_message(upstream)
                    client.sendall(got["response"])
                    client.recv(1)  # until the client closes
            except Exception as e:  # reported below
                got["error"] = e

        t = threading.Thread(target=proxy, daemon=True)
        t.start()
        url = (f"pstream://127.0.0.1:{port}" if pstream else
               f"{'jsonrpc+http' if json_rpc else 'http'}://127.0.0.1:{port}/RPC2")
        run_json([cw_lat_client, url, "--calls", "1", "--warmup", "0"])
        t.join(5)
        listener.close()
    if "error" in got or "response" not in got:
        raise RuntimeError(f"capture failed: {got.get('error')}")
    answer = b'"result":5,' if json_rpc else b">5</"
    start = PSTREAM_PKT if pstream else b"HTTP/1.1 200"
    if not got["response"].startswith(start) or answer not in got["response"]:
        raise RuntimeError(f"unexpected response captured: {got['response']!r}")
    return got["request"], got["response"]


def probe(host, port, request):
    """Sends the captured request once; returns the whole response's bytes."""
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(request)
        return read_http_message(s)


# ---------------------------------------------------------------------------------------------
# Round-trip latency.

def latency_peers(b, files, json_files, pstream_files):
    """name → (server command, client command taking the server), for the latency runs."""
    def raw(files):
        req_file, resp_file, req_len, resp_len = files
        return ([b["raw_lat_server"], req_len, resp_file],
                lambda s: [b["raw_lat_client"], f"{s.host}:{s.port}", req_file, resp_len])

    callwire_serve = [b["callwire"], "serve", "--threads", "1", "--listen", "127.0.0.1:0"]
    peers = {
        "raw": raw(files),
        "callwire": (callwire_serve, lambda s: [b["cw_lat_client"], s.url]),
        "raw json": raw(json_files),
        "callwire json": (callwire_serve, lambda s: [b["cw_lat_client"], "jsonrpc+" + s.url]),
        "raw pstream": raw(pstream_files),
        "callwire pstream": ([b["callwire"], "serve", "--threads", "1", "--pstream", "127.0.0.1:0"],
                             lambda s: [b["cw_lat_client"], s.url]),
        "xmlrpc-c": ([b["xmlrpc_c_server"]],
                     lambda s: [b["xmlrpc_c_lat_client"], s.url]),
        "python": ([sys.executable, HERE / "net" / "py_server.py"],
                   lambda s: [b["cw_lat_client"], s.url]),
    }
    if b["xmlrpc_c_pstream_server"].exists() and b["xmlrpc_c_pstream_lat_client"].exists():
        peers["xmlrpc-c pstream"] = ([b["xmlrpc_c_pstream_server"]],
                                     lambda s: [b["xmlrpc_c_pstream_lat_client"], s.url])
    else:
        log("  xmlrpc-c pstream: skipped (xmlrpc_c_pstream_server and _lat_client not built: "
            "bench/CMakeLists.txt found no libxmlrpc_packetsocket or libxmlrpc_server_pstream++)")
    return peers


# The goals compare callwire with the floor, and the neighbours on a shared machine come and go
# within seconds: those pairs run twice, interleaved (floor, callwire, ..., callwire, floor), and
# the better run of each counts (a neighbour only ever makes a run slower). The others run once.
TWICE = ("raw", "callwire", "raw json", "callwire json", "raw pstream", "callwire pstream")
# Each pair's floor: the raw ping-pong of the bytes callwire sends and answers in its protocol
# and framing (xmlrpc-c's packets differ from callwire's by a few bytes of XML: the same floor).
FLOOR_OF = {"callwire json": "raw json", "raw json": "raw json",
            "raw pstream": "raw pstream", "callwire pstream": "raw pstream",
            "xmlrpc-c pstream": "raw pstream"}


def run_latency(peers, seconds, warmup):
    results = {}
    for pinned in (False, True):
        mode = "pinned" if pinned else "unpinned"
        order = list(peers) + [name for name in reversed(list(peers)) if name in TWICE]
        for name in order:
            server_cmd, client_cmd = peers[name]
            with Server(server_cmd, pin=pinned) as server:
                r = run_json(client_cmd(server) + ["--seconds", seconds, "--warmup", warmup,
                                                    "--server-pid", server.pid], pin=pinned)
            log(f"  latency {name:16} {mode:8}: median {r['median_ns'] / 1e3:7.1f} µs, "
                f"p99 {r['p99_ns'] / 1e3:7.1f} µs, CPU client {r['client_cpu_ns_per_call'] / 1e3:.1f}"
                f" + server {r['server_cpu_ns_per_call'] / 1e3:.1f} µs/call ({r['calls']} calls)")
            previous = results.get((name, mode))
            if previous:
                r["other_median_ns"] = previous["median_ns"]
                if previous["median_ns"] <= r["median_ns"]:
                    previous["other_median_ns"] = r["median_ns"]
                    r = previous
            results[(name, mode)] = r
    return results


# ---------------------------------------------------------------------------------------------
# Sequential vs pipelined calls on one connection.

def pipeline_rows(b, peers):
    """[(name, depth, server command, client command taking the server)]: the raw floor and
    callwire over the packet stream, one call at a time (depth 1) and pipelined."""
    raw_server, raw_client = peers["raw pstream"]
    cw_server, cw_client = peers["callwire pstream"]
    rows = [("raw", 1, raw_server, raw_client)]
    rows += [(f"raw pipelined {d}", d, raw_server,
              lambda s, d=d: raw_client(s) + ["--pipeline", d]) for d in PIPELINE_DEPTHS]
    rows.append(("callwire", 1, cw_server, cw_client))
    if b["cw_pipeline_client"].exists():
        rows += [(f"callwire pipelined {d}", d, cw_server,
                  lambda s, d=d: [b["cw_pipeline_client"], s.url, "--pipeline", d])
                 for d in PIPELINE_DEPTHS]
    else:
        log("  callwire pipelined: skipped (cw_pipeline_client not built: "
            "include/callwire/client.hpp has no ClientOptions::pipeline_depth yet)")
    return rows


# The goal's rows (one at a time and at the deepest pipeline, callwire's and the floor's) run
# twice, interleaved as the latency pairs do, and the better run of each counts.
PIPELINE_TWICE = ("raw", f"raw pipelined {PIPELINE_DEPTHS[-1]}", "callwire",
                  f"callwire pipelined {PIPELINE_DEPTHS[-1]}")


def run_pipeline(rows, seconds, warmup):
    results = {}
    for pinned in (False, True):
        mode = "pinned" if pinned else "unpinned"
        order = rows + [row for row in reversed(rows) if row[0] in PIPELINE_TWICE]
        for name, depth, server_cmd, client_cmd in order:
            with Server(server_cmd, pin=pinned) as server:
                r = run_json(client_cmd(server) + ["--seconds", seconds, "--warmup", warmup,
                                                    "--server-pid", server.pid], pin=pinned)
            r["depth"] = depth
            log(f"  pipeline {name:22} {mode:8}: {r['calls_per_s']:9,.0f} calls/s, median "
                f"{r['median_ns'] / 1e3:7.1f} µs, CPU client "
                f"{r['client_cpu_ns_per_call'] / 1e3:.2f} + server "
                f"{r['server_cpu_ns_per_call'] / 1e3:.2f} µs/call ({r['calls']} calls)")
            previous = results.get((name, mode))
            if previous:
                r["other_calls_per_s"] = previous["calls_per_s"]
                if previous["calls_per_s"] >= r["calls_per_s"]:
                    previous["other_calls_per_s"] = r["calls_per_s"]
                    r = previous
            results[(name, mode)] = r
    return results


# ---------------------------------------------------------------------------------------------
# System calls per call.
#
# Counted with perf's syscall tracepoints when perf can (they do not slow the process down, so
# a non-blocking read that finds nothing yet still finds nothing), else with strace -f -c
# (which slows every call by tens of µs and so changes what such reads find). Either way the
# client and the server each run under the counter, and a run of SHORT calls is subtracted from
# one of LONG calls (each with its own server), so starting, connecting and exiting cancel.

SYSCALLS = ["read", "write", "recvfrom", "sendto", "recvmsg", "sendmsg", "readv", "writev",
            "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "futex",
            "connect", "accept", "accept4", "close", "shutdown", "setsockopt", "getsockname",
            "getpeername", "newfstatat", "rt_sigaction", "rt_sigprocmask", "clock_nanosleep"]


def perf_works():
    if not shutil.which("perf"):
        return False
    p = subprocess.run(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter",
                        "-e", "syscalls:sys_enter_read", "--", "true"],
                       capture_output=True, text=True)
    return p.returncode == 0 and "raw_syscalls:sys_enter" in p.stderr


def counter_command(tool, out):
    if tool == "perf":
        events = ["-e", "raw_syscalls:sys_enter"]
        for name in SYSCALLS:
            events += ["-e", f"syscalls:sys_enter_{name}"]
        return ["perf", "stat", "-x,", "-o", str(out)] + events + ["--"]
    return ["strace", "-f", "-c", "-U", "calls,name", "-o", str(out)]


def parse_counts(tool, path):
    """{syscall: count}, with "(other)" for what perf counted in no listed syscall."""
    counts = {}
    text = Path(path).read_text()
    if tool == "perf":
        total = 0
        for line in text.splitlines():
            fields = line.split(",")
            if len(fields) < 3 or not fields[0].strip().isdigit():
                continue
            value, event = int(fields[0]), fields[2]
            if event == "raw_syscalls:sys_enter":
                total = value
            elif event.startswith("syscalls:sys_enter_"):
                counts[event[len("syscalls:sys_enter_"):]] = value
        counts["(other)"] = total - sum(counts.values())
        return counts
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1] != "total":
            counts[parts[1]] = counts.get(parts[1], 0) + int(parts[0])
    return counts


def counted_run(tool, server_cmd, client_cmd, calls, tmp, pinned):
    server_out, client_out = tmp / "count-server.txt", tmp / "count-client.txt"
    pin = ["taskset", "-c", "0"] if pinned else []
    server = Server(counter_command(tool, server_out) + [str(c) for c in server_cmd], pin=pinned)
    try:
        subprocess.run(pin + counter_command(tool, client_out) +
                       [str(c) for c in client_cmd(server)] +
                       ["--calls", str(calls), "--warmup", "0"],
                       check=True, capture_output=True, timeout=120)
        time.sleep(0.1)  # the server's last read, of the client's close
    finally:
        # Stop the server itself (the counter's child), so that the counter reports and exits.
        for pid in children(server.pid):
            os.kill(pid, signal.SIGTERM)
        try:
            server.proc.wait(10)
        except subprocess.TimeoutExpired:
            server.stop()
        server.stop()
    return parse_counts(tool, client_out), parse_counts(tool, server_out)


def run_syscalls(peers, short, long, tmp):
    tool = "perf" if perf_works() else "strace"
    results = {"tool": tool}
    n = long - short

    def per_call(a, b):
        return {k: (b.get(k, 0) - a.get(k, 0)) / n for k in set(a) | set(b)}

    for pinned in (False, True):
        mode = "pinned" if pinned else "unpinned"
        for name, (server_cmd, client_cmd) in peers.items():
            c1, s1 = counted_run(tool, server_cmd, client_cmd, short, tmp, pinned)
            c2, s2 = counted_run(tool, server_cmd, client_cmd, long, tmp, pinned)
            client, server_side = per_call(c1, c2), per_call(s1, s2)
            r = results[(name, mode)] = {
                "client": client, "server": server_side,
                # connections opened per 1000 calls: a kept-alive one shows ~0
                "connects_per_1000": 1000 * client.get("connect", 0.0)}
            log(f"  syscalls {name:16} {mode:8} ({tool}): client {sum(client.values()):.2f}/call, "
                f"server {sum(server_side.values()):.2f}/call, "
                f"{r['connects_per_1000']:.0f} connects per 1000 calls")
    return results


# ---------------------------------------------------------------------------------------------
# Throughput.

def lua_string(data):
    out = []
    for byte in data:
        c = chr(byte)
        out.append(c if 32 <= byte < 127 and c not in '"\\' else f"\\{byte:03d}")
    return '"' + "".join(out) + '"'


def post_script(path, body):
    """A wrk script that POSTs `body` as text/xml; returns its path."""
    path.write_text(
        "-- POST an XML-RPC call (generated by bench/net_run.py)\n"
        'wrk.method = "POST"\n'
        f"wrk.body = {lua_string(body)}\n"
        'wrk.headers["Content-Type"] = "text/xml"\n')
    return path


def nginx_config(directory, port, body, worker_connections=1024):
    """A fixed answer of `body` at every path, or with body None the files in directory/www
    (bench/scaling.py serves its XML answers as static files)."""
    if body is None:
        answer = f"root {directory}/www;"
    else:
        body_text = body.decode()
        if "'" in body_text or "$" in body_text or "\\" in body_text:
            raise RuntimeError("the response body needs escaping for nginx's return directive")
        answer = f"return 200 '{body_text}';"
    return f"""# The throughput floor: a fixed answer of callwire's response body. Generated by
# bench/net_run.py.
worker_processes auto;  # one per core, as callwire's default
worker_rlimit_nofile {worker_connections + 64};
daemon off;
master_process on;
pid {directory}/nginx.pid;
error_log stderr warn;
events {{ worker_connections {worker_connections}; }}
http {{
  access_log off;
  client_body_temp_path {directory}/client_body;
  proxy_temp_path {directory}/proxy;
  fastcgi_temp_path {directory}/fastcgi;
  uwsgi_temp_path {directory}/uwsgi;
  scgi_temp_path {directory}/scgi;
  keepalive_timeout 60s;
  keepalive_requests 100000000;  # never close a kept-alive connection during the run
  tcp_nodelay on;
  server {{
    listen 127.0.0.1:{port} backlog=511;
    location / {{
      default_type text/xml;
      {answer}
    }}
  }}
}}
"""


def parse_wrk(text):
    def duration_us(value, unit):
        return float(value) * {"us": 1, "ms": 1e3, "s": 1e6}[unit]

    out = {"rps": float(re.search(r"Requests/sec:\s*([\d.]+)", text).group(1)),
           "requests": int(re.search(r"(\d+) requests in", text).group(1))}
    for pct in ("50", "99"):
        m = re.search(rf"^\s*{pct}(?:\.000)?%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
        out[f"p{pct}_us"] = duration_us(*m.groups()) if m else None
    errors = 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        errors += sum(int(x) for x in m.groups())
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    non2xx = int(m.group(1)) if m else 0
    out["socket_errors"], out["non2xx"] = errors, non2xx
    return out


def run_wrk_one(name, server, script, seconds, expect_body, request,
                connections=WRK_CONNECTIONS, check=None, wrk_timeout=None):
    """wrk against `server` after one probe of `request`, whose answer must be 200 with
    expect_body, or with sample.add's 5 when that is None; or pass `check`, which gets the
    response's bytes and raises on a wrong one."""
    response = probe(server.host, server.port, request)
    if check:
        check(response)
    elif not response.startswith(b"HTTP/1.1 200") or (
            expect_body is not None and body_of(response) != expect_body) or (
            expect_body is None and b">5</" not in body_of(response)):
        raise RuntimeError(f"{name}: unexpected answer {response!r}")
    pids = [server.pid] + children(server.pid)
    before = sum(cpu_ticks(p) for p in pids)
    # wrk wants at least a connection per thread.
    command = ["wrk", "-t", str(min(WRK_THREADS, connections)), "-c", str(connections),
               "-d", f"{seconds}s", "--latency", "-s", script, server.url]
    if wrk_timeout:
        command[1:1] = ["--timeout", f"{wrk_timeout}s"]
    p = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 30)
    after = sum(cpu_ticks(p) for p in pids)
    if p.returncode != 0:
        raise RuntimeError(f"wrk against {name} failed: {p.stderr}")
    r = parse_wrk(p.stdout)
    r["response_bytes"] = len(response)
    # Clock ticks (10 ms): fewer than 10 say too little to divide by the requests.
    r["server_cpu_us_per_request"] = ((after - before) * 1e6 / os.sysconf("SC_CLK_TCK") /
                                      max(r["requests"], 1)) if after - before >= 10 else None
    log(f"  wrk {name:16}: {r['rps']:9.0f} requests/s, p99 "
        f"{(r['p99_us'] or 0) / 1e3:.2f} ms, errors {r['socket_errors']} + {r['non2xx']} non-2xx")
    return r


def run_wrk(b, request, response, seconds, tmp):
    script = post_script(tmp / "sample_add.lua", body_of(request))
    results = {}
    directory = tmp / "nginx"
    directory.mkdir(exist_ok=True)
    port = free_port()
    (directory / "nginx.conf").write_text(nginx_config(directory, port, body_of(response)))
    targets = {
        "callwire": ("defaults (a loop per core)",
                     [b["callwire"], "serve", "--listen", "127.0.0.1:0"]),
        "xmlrpc-c": ("Abyss defaults (15 connections, 30 requests each)",
                     [b["xmlrpc_c_server"]]),
        "xmlrpc-c tuned": ("Abyss, 64 connections, unlimited keep-alive",
                           [b["xmlrpc_c_server"], "--max-conn", "64", "--keepalive-max",
                            "100000000", "--backlog", "64"]),
        "python": ("ThreadingMixIn, HTTP/1.1", [sys.executable, HERE / "net" / "py_server.py"]),
        "nginx": ("return 200 of the same body, worker_processes auto",
                  ["nginx", "-e", "stderr", "-p", directory, "-c", directory / "nginx.conf"]),
    }
    # callwire and nginx (the goal's pair) twice, interleaved; the better run of each counts.
    order = ["callwire", "nginx", "xmlrpc-c", "xmlrpc-c tuned", "python", "nginx", "callwire"]
    for name in order:
        settings, command = targets[name]
        is_nginx = name == "nginx"
        with Server(command, wait_for_line=not is_nginx,
                    ready_port=port if is_nginx else None) as server:
            r = run_wrk_one(name, server, script, seconds,
                            body_of(response) if is_nginx else None, request)
        r["settings"] = settings
        previous = results.get(name)
        if previous:
            r["other_rps"] = previous["rps"]
            if previous["rps"] >= r["rps"]:
                previous["other_rps"] = r["rps"]
                r = previous
        results[name] = r
    return {name: results[name] for name in targets}


# ---------------------------------------------------------------------------------------------
# Report.

def machine():
    cpu = "unknown"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"^Model name:\s*(.+)$", out, re.M)
        cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return cpu, os.cpu_count(), f"{os.uname().sysname} {os.uname().release}", load


def versions():
    def ask(command, pattern=None):
        try:
            p = subprocess.run(command, capture_output=True, text=True)
        except OSError:
            return "?"
        text = (p.stdout + p.stderr).strip()
        if pattern:
            m = re.search(pattern, text)
            return m.group(1) if m else "?"
        return text.splitlines()[0] if text else "?"

    return {
        "xmlrpc-c": ask(["xmlrpc-c-config", "--version"]),
        "Python": sys.version.split()[0],
        "wrk": ask(["wrk", "-v"], r"wrk (\S+)"),
        "nginx": ask(["nginx", "-v"], r"nginx/(\S+)"),
        "curl (libcurl)": ask(["curl", "--version"], r"libcurl/(\S+)"),
    }


def us(ns):
    return f"{ns / 1e3:.1f}" if ns is not None else "—"


def ratio(a, b):
    return a / b if a and b else None


def fmt_ratio(r):
    return f"{r:.2f}×" if r is not None else "—"


def syscall_summary(per_call, limit=6):
    items = sorted(((v, k) for k, v in per_call.items() if v >= 0.05), reverse=True)[:limit]
    return ", ".join(f"{k} {v:.2f}".rstrip("0").rstrip(".") for v, k in items) or "—"


LAT_LABELS = {
    "raw": "raw TCP ping-pong of the same bytes (the floor)",
    "callwire": "callwire client ↔ callwire server (1 loop thread)",
    "raw json": "raw TCP ping-pong of callwire's JSON-RPC bytes (its floor)",
    "callwire json": "the same over JSON-RPC 2.0 (`jsonrpc+http://`)",
    "raw pstream": "raw TCP ping-pong of callwire's packet-stream bytes (its floor)",
    "callwire pstream": "the same over the packet stream (no HTTP)",
    "xmlrpc-c": "xmlrpc-c client (curl) ↔ xmlrpc-c Abyss server (defaults)",
    "xmlrpc-c pstream": "xmlrpc-c C++ pstream client ↔ xmlrpc-c serverPstreamConn",
    "python": "callwire client ↔ Python SimpleXMLRPCServer (threading)",
}


def latency_tables(lat, sys_counts, short, long):
    lines = []
    if lat:
        lines += ["| peers | cores | calls | median µs | p99 µs | client CPU µs/call "
                  "| server CPU µs/call | client+server CPU µs/call | median / floor |",
                  "|---|---|--:|--:|--:|--:|--:|--:|--:|"]
        for mode in ("unpinned", "pinned"):
            for name in LAT_LABELS:
                r = lat.get((name, mode))
                if not r:
                    continue
                floor = lat.get((FLOOR_OF.get(name, "raw"), mode))
                cpu = r["client_cpu_ns_per_call"] + r["server_cpu_ns_per_call"]
                lines.append(
                    f"| {LAT_LABELS[name]} | {'both on core 0' if mode == 'pinned' else 'any'} "
                    f"| {r['calls']:,} | {us(r['median_ns'])} | {us(r['p99_ns'])} "
                    f"| {us(r['client_cpu_ns_per_call'])} | {us(r['server_cpu_ns_per_call'])}"
                    f"{'' if r.get('server_cpu_source') == 'schedstat' else ' ¹'} "
                    f"| {us(cpu)} | {fmt_ratio(ratio(r['median_ns'], floor and floor['median_ns']))} |")
                if "other_median_ns" in r:
                    lines[-1] = lines[-1].replace(
                        f"| {us(r['median_ns'])} |",
                        f"| {us(r['median_ns'])} ({us(r['other_median_ns'])}) |", 1)
        lines.append("")
        if any(r.get("server_cpu_source") != "schedstat" for r in lat.values()):
            lines += ["¹ the server's threads changed during the run (a thread per connection "
                      "and a connection closed), so its CPU time comes from /proc/PID/stat in "
                      "10 ms ticks, not from per-thread schedstat.", ""]
    if sys_counts:
        how = ("perf stat on the syscall tracepoints" if sys_counts.get("tool") == "perf"
               else "strace -f -c")
        lines += [f"System calls per call ({how}; the difference between runs "
                  f"of {short} and {long} calls, each with its own server. Where a client reads "
                  "without blocking first and waits (poll) only when nothing is there yet, the "
                  "count depends on whether the server got to answer first: a fraction):", "",
                  "| peers | cores | client | server | client calls | server calls "
                  "| connects per 1000 calls |",
                  "|---|---|--:|--:|---|---|--:|"]
        for mode in ("unpinned", "pinned"):
            for name in LAT_LABELS:
                s = sys_counts.get((name, mode))
                if not s:
                    continue
                lines.append(
                    f"| {name} | {'both on core 0' if mode == 'pinned' else 'any'} "
                    f"| {sum(s['client'].values()):.2f} | {sum(s['server'].values()):.2f} "
                    f"| {syscall_summary(s['client'])} | {syscall_summary(s['server'])} "
                    f"| {s['connects_per_1000']:.0f} |")
        lines.append("")
    return lines


def pipeline_table(pipe):
    if not pipe:
        return []
    lines = ["Calls per second on one packet-stream connection, sample.add(2, 3): one call at a "
             "time, and pipelined (that many requests in flight; a new one written as each "
             "answer is read). A pipelined call's median is from its request's write to its "
             "answer, its wait behind the others included. One at a time and at "
             f"depth {PIPELINE_DEPTHS[-1]}, callwire's and the floor's, ran twice, "
             "interleaved; the better run is shown, the other in parentheses:", "",
             "| on one connection | in flight | cores | calls/s | / raw at that depth "
             "| / its own one at a time | median µs | client CPU µs/call | server CPU µs/call |",
             "|---|--:|---|--:|--:|--:|--:|--:|--:|"]
    for mode in ("unpinned", "pinned"):
        for who in ("raw", "callwire"):
            for depth in (1,) + PIPELINE_DEPTHS:
                name = who if depth == 1 else f"{who} pipelined {depth}"
                r = pipe.get((name, mode))
                if not r:
                    continue
                floor = pipe.get(("raw" if depth == 1 else f"raw pipelined {depth}", mode))
                alone = pipe.get((who, mode))
                rate = f"{r['calls_per_s']:,.0f}" + (
                    f" ({r['other_calls_per_s']:,.0f})" if "other_calls_per_s" in r else "")
                label = ("raw_lat_client ↔ raw_lat_server (the floor)" if who == "raw" else
                         "callwire client ↔ `callwire serve --threads 1 --pstream`")
                to_floor = ratio(r["calls_per_s"], floor and floor["calls_per_s"])
                to_alone = ratio(r["calls_per_s"], alone and alone["calls_per_s"])
                lines.append(
                    f"| {label} | {depth} | {'both on core 0' if mode == 'pinned' else 'any'} "
                    f"| {rate} | {fmt_ratio(to_floor)} | {fmt_ratio(to_alone)} "
                    f"| {us(r['median_ns'])} | {us(r['client_cpu_ns_per_call'])} "
                    f"| {us(r['server_cpu_ns_per_call'])} |")
    if not any(k[0].startswith("callwire pipelined") for k in pipe):
        lines += ["", "callwire pipelined: not measured (cw_pipeline_client was not built: "
                  "include/callwire/client.hpp has no ClientOptions::pipeline_depth yet)."]
    lines.append("")
    return lines


def wrk_table(wrk, seconds):
    if not wrk:
        return []
    nginx = wrk.get("nginx", {}).get("rps")
    lines = [f"wrk {WRK_THREADS} threads, {WRK_CONNECTIONS} connections, {seconds:g} s each "
             "(wrk shares the machine's cores with the server). callwire and nginx ran twice, "
             "interleaved; the better run is shown, the other in parentheses:", "",
             "| server | settings | requests/s | p50 ms | p99 ms | errors | server CPU µs/request "
             "| response bytes | / nginx |",
             "|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    for name, r in wrk.items():
        p50 = f"{r['p50_us'] / 1e3:.2f}" if r["p50_us"] is not None else "—"
        p99 = f"{r['p99_us'] / 1e3:.2f}" if r["p99_us"] is not None else "—"
        errors = r["socket_errors"] + r["non2xx"]
        cpu = (f"{r['server_cpu_us_per_request']:.1f}"
               if r["server_cpu_us_per_request"] is not None else "—")
        rps = f"{r['rps']:,.0f}" + (f" ({r['other_rps']:,.0f})" if "other_rps" in r else "")
        lines.append(f"| {name} | {r['settings']} | {rps} | {p50} | {p99} | {errors} "
                     f"| {cpu} | {r['response_bytes']} "
                     f"| {fmt_ratio(ratio(r['rps'], nginx))} |")
    lines.append("")
    return lines


def goals(lat, wrk, pipe):
    rows = []

    def verdict(ok):
        return "PASS" if ok else "MISS"

    for name, what in (("callwire", "round trip"), ("callwire json", "JSON-RPC round trip")):
        for mode in ("unpinned", "pinned"):
            cw, raw = lat.get((name, mode)), lat.get((FLOOR_OF.get(name, "raw"), mode))
            if cw and raw:
                r = cw["median_ns"] / raw["median_ns"]
                rows.append((f"{what} ≤ {GOAL_LATENCY:g}× the raw floor ({mode})",
                             verdict(r <= GOAL_LATENCY),
                             f"{r:.2f}× ({us(cw['median_ns'])} vs {us(raw['median_ns'])} µs "
                             "median)"))
    for mode in ("unpinned", "pinned"):
        cw, raw = lat.get(("callwire pstream", mode)), lat.get(("raw pstream", mode))
        if cw and raw:
            r = cw["median_ns"] / raw["median_ns"]
            peer = lat.get(("xmlrpc-c pstream", mode))
            theirs = (f"; xmlrpc-c's pstream {peer['median_ns'] / raw['median_ns']:.2f}×"
                      if peer else "")
            rows.append((f"packet-stream round trip ≤ {GOAL_PSTREAM_LATENCY:g}× its raw floor "
                         f"({mode})", verdict(r <= GOAL_PSTREAM_LATENCY),
                         f"{r:.2f}× ({us(cw['median_ns'])} vs {us(raw['median_ns'])} µs "
                         f"median{theirs})"))
    cw, raw = lat.get(("callwire", "pinned")), lat.get(("raw", "pinned"))
    if cw and raw:
        a, b = cw["server_cpu_ns_per_call"], raw["server_cpu_ns_per_call"]
        rows.append((f"server CPU per call ≤ {GOAL_SERVER_CPU:g}× the raw server's (pinned)",
                     verdict(a / b <= GOAL_SERVER_CPU), f"{a / b:.2f}× ({us(a)} vs {us(b)} µs)"))
    for mode in ("unpinned", "pinned"):
        cw, raw = lat.get(("callwire", mode)), lat.get(("raw", mode))
        if cw and raw:
            a = cw["client_cpu_ns_per_call"] + cw["server_cpu_ns_per_call"]
            b = raw["client_cpu_ns_per_call"] + raw["server_cpu_ns_per_call"]
            rows.append((f"client+server CPU per call ≤ {GOAL_CPU:g}× the floor's ({mode})",
                         verdict(a / b <= GOAL_CPU),
                         f"{a / b:.2f}× ({us(a)} vs {us(b)} µs)"))
    deepest = PIPELINE_DEPTHS[-1]
    for mode in ("unpinned", "pinned") if pipe else ():
        what = (f"callwire pipelined (depth {deepest}) on one connection ≥ {GOAL_PIPELINE:g}× "
                f"callwire's sequential rate ({mode})")
        cw, alone = pipe.get((f"callwire pipelined {deepest}", mode)), pipe.get(("callwire", mode))
        raw, raw_alone = pipe.get((f"raw pipelined {deepest}", mode)), pipe.get(("raw", mode))
        if not cw:
            rows.append((what, "NOT RUN", "cw_pipeline_client not built (no "
                         "ClientOptions::pipeline_depth in include/callwire/client.hpp)"))
        elif alone:
            r = cw["calls_per_s"] / alone["calls_per_s"]
            floor = (f"; the raw floor's {raw['calls_per_s'] / raw_alone['calls_per_s']:.2f}×"
                     if raw and raw_alone else "")
            rows.append((what, verdict(r >= GOAL_PIPELINE),
                         f"{r:.2f}× ({cw['calls_per_s']:,.0f} vs {alone['calls_per_s']:,.0f} "
                         f"calls/s{floor})"))
    if wrk.get("callwire") and wrk.get("nginx"):
        r = wrk["callwire"]["rps"] / wrk["nginx"]["rps"]
        rows.append((f"wrk throughput ≥ {GOAL_THROUGHPUT:g}× nginx's", verdict(r >= GOAL_THROUGHPUT),
                     f"{r:.2f}× ({wrk['callwire']['rps']:,.0f} vs {wrk['nginx']['rps']:,.0f} "
                     "requests/s)"))
    return rows


def run_instructions(build):
    """{protocol: (server, client)}: instructions per sample.add, counted by callgrind."""
    counts = {}
    for protocol, json_rpc in (("XML-RPC", False), ("JSON-RPC", True)):
        counts[protocol] = instructions_per_call.per_call(build, json_rpc, INSTRUCTION_CALLS)
        log(f"  instructions {protocol}: server {counts[protocol][0]:,.0f}, "
            f"client {counts[protocol][1]:,.0f} per call")
    return counts


def instructions_table(counts, commit):
    short, long = INSTRUCTION_CALLS
    lines = [
        f"Instructions per sample.add at {commit}, counted by callgrind: `callwire serve "
        f"--threads 1` and `cw_lat_client --calls N --warmup 0` under `valgrind "
        f"--tool=callgrind` for N = {short:,} and {long:,} (bench/instructions_per_call.py), "
        f"the difference over {long - short:,} calls. They do not move with the neighbours: "
        "a change in them is the code's.",
        "",
        "| sample.add | server | client |",
        "|---|--:|--:|",
    ]
    lines += [f"| {protocol} | {server:,.0f} | {client:,.0f} |"
              for protocol, (server, client) in counts.items()]
    return lines + [""]


def section(when, command, request, response, json_request, json_response, pstream, lat,
            sys_counts, pipe, wrk, goal_rows, run, instructions, commit):
    cpu, cores, kernel, load = machine()
    peers = ", ".join(f"{k} {v}" for k, v in versions().items())
    lines = [
        BEGIN_MARKER,
        "## Network: round trip and throughput",
        "",
        "Generated by `make bench` (bench/net_run.py over bench/net/); do not edit between the "
        "markers.",
        "",
        f"- date: {when:%Y-%m-%d %H:%M} UTC; command: `{command}`",
        f"- machine: {cpu}, {cores} cores, {kernel}; load average before the run: {load}",
        f"- peers: {peers}",
        f"- the call: sample.add(2, 3) → 5; callwire's request is {len(request)} bytes "
        f"({len(body_of(request))} of body), its response {len(response)} bytes "
        f"({len(body_of(response))} of body); over JSON-RPC {len(json_request)} and "
        f"{len(json_response)} bytes ({len(body_of(json_request))} and "
        f"{len(body_of(json_response))} of body); over the packet stream {len(pstream[0])} and "
        f"{len(pstream[1])} bytes (8 of them framing)",
        f"- round trip: sequential calls on one kept-alive connection over 127.0.0.1, "
        f"{run['warmup']} untimed then {run['seconds']:g} s timed, per-call times from the client's "
        "steady clock (p99 by nearest rank); CPU per call: the client's process CPU clock and "
        "the server's per-thread schedstat around the timed calls, divided by the calls; "
        "\"both on core 0\": client and server under `taskset -c 0`; the floors and callwire "
        "(each protocol) ran twice, interleaved, and the run with the lower median is shown (the "
        "other's median in parentheses); a JSON-RPC or packet-stream row's ratio is to the raw "
        "ping-pong of its own bytes",
        "",
        "### Goals (issue 3; the JSON-RPC round trip: issue 12; the packet stream: issue 11)",
        "",
        "| goal | result | measured |",
        "|---|---|---|",
    ]
    lines += [f"| {g} | **{v}** | {m} |" for g, v, m in goal_rows]
    lines += ["", "### Round trip", ""]
    lines += latency_tables(lat, sys_counts, run['short'], run['long'])
    if instructions:
        lines += ["### Instructions per call (issue 30)", ""]
        lines += instructions_table(instructions, commit)
    if pipe:
        lines += ["### Sequential vs pipelined on one connection (issue 11)", ""]
        lines += pipeline_table(pipe)
    lines += ["### Throughput", ""]
    lines += wrk_table(wrk, run['wrk_seconds'])
    lines.append(END_MARKER)
    return "\n".join(lines)


def write_results(text):
    old = RESULTS.read_text() if RESULTS.exists() else ""
    if BEGIN_MARKER in old and END_MARKER in old:
        before = old.split(BEGIN_MARKER, 1)[0]
        after = old.split(END_MARKER, 1)[1]
        new = before + text + after
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    RESULTS.write_text(new)
    log(f"wrote {RESULTS}")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__.strip())
    build = Path(args[0]).resolve()
    quick = "--quick" in args
    write = not quick and "--no-write" not in args
    parts = {"latency", "syscalls", "pipeline", "wrk", "instructions"}
    if "--only" in args:
        parts = set(args[args.index("--only") + 1].split(","))

    b = {name: build / "bench" / name for name in
         ("cw_lat_client", "raw_lat_client", "raw_lat_server", "xmlrpc_c_lat_client",
          "xmlrpc_c_server")}
    b["callwire"] = build / "tools" / "callwire"
    missing = [str(p) for p in b.values() if not p.exists()]
    # Optional: built only where xmlrpc-c's packet-stream libraries are, and where the client
    # has ClientOptions::pipeline_depth (latency_peers and pipeline_rows say which is skipped).
    for name in ("xmlrpc_c_pstream_lat_client", "xmlrpc_c_pstream_server", "cw_pipeline_client"):
        b[name] = build / "bench" / name
    tools = ["taskset"] + (
        ["strace"] if "syscalls" in parts and not shutil.which("perf") else []) + (
        ["wrk", "nginx"] if "wrk" in parts else []) + (
        ["valgrind"] if "instructions" in parts else [])
    missing += [t for t in tools if not shutil.which(t)]
    if missing:
        sys.exit(f"net_run.py: missing {', '.join(missing)} (build with -DCALLWIRE_BENCH=ON; "
                 "scripts/setup.sh installs the tools)")

    when = datetime.datetime.now(datetime.timezone.utc)
    command = "python3 bench/net_run.py " + " ".join(args)
    seconds = 0.3 if quick else LAT_SECONDS
    warmup = 200 if quick else LAT_WARMUP
    wrk_seconds = 1 if quick else WRK_SECONDS
    short, long = (50, 250) if quick else (SYSCALL_SHORT, SYSCALL_LONG)

    with tempfile.TemporaryDirectory(prefix="callwire-net-") as tmp_name:
        tmp = Path(tmp_name)
        log("capturing callwire's requests and responses: XML-RPC, JSON-RPC, packet stream")
        request, response = capture(b["callwire"], b["cw_lat_client"])
        json_request, json_response = capture(b["callwire"], b["cw_lat_client"], json_rpc=True)
        pstream_request, pstream_response = capture(b["callwire"], b["cw_lat_client"],
                                                    pstream=True)

        def saved(name, req, resp):
            (tmp / f"{name}-request.bin").write_bytes(req)
            (tmp / f"{name}-response.bin").write_bytes(resp)
            return (tmp / f"{name}-request.bin", tmp / f"{name}-response.bin", len(req),
                    len(resp))

        peers = latency_peers(b, saved("xml", request, response),
                              saved("json", json_request, json_response),
                              saved("pstream", pstream_request, pstream_response))
        lat, sys_counts, pipe, wrk = {}, {}, {}, {}
        if "latency" in parts:
            log(f"round trip: {len(peers)} pairs, unpinned then pinned, {seconds} s each")
            lat = run_latency(peers, seconds, warmup)
        if "syscalls" in parts:
            log("system calls")
            sys_counts = run_syscalls(peers, short, long, tmp)
        if "pipeline" in parts:
            log("sequential vs pipelined on one connection, unpinned then pinned, "
                f"{seconds} s each")
            pipe = run_pipeline(pipeline_rows(b, peers), seconds, warmup)
        if "wrk" in parts:
            log(f"throughput: wrk -t{WRK_THREADS} -c{WRK_CONNECTIONS} -d{wrk_seconds}s")
            wrk = run_wrk(b, request, response, wrk_seconds, tmp)
        instructions = {}
        if "instructions" in parts:
            log("instructions per call: callgrind")
            instructions = run_instructions(str(build))

    goal_rows = goals(lat, wrk, pipe)
    run = {"seconds": seconds, "warmup": warmup, "short": short, "long": long,
           "wrk_seconds": wrk_seconds}
    text = section(when, command, request, response, json_request, json_response,
                   (pstream_request, pstream_response), lat, sys_counts, pipe, wrk, goal_rows,
                   run, instructions, callwire_commit())
    print(text)
    print()
    for g, v, m in goal_rows:
        print(f"{v}  {g}: {m}")
    if write:
        write_results(text)


if __name__ == "__main__":
    main()
