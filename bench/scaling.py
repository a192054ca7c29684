"""Experiment 6 of `make bench-peers` (bench/peers_run.py): how cost grows.

a. Calls per second as the payload grows: get_blob(n), n = 1 KiB ... 16 MiB, over 4 kept-alive
   connections: bench/peers/callwire/load_callwire_server, Abyss tuned (bench/net's
   xmlrpc_c_server), gRPC (load_grpc_server, h2load) and nginx serving callwire's very answer
   as a static file (the floor). Every answer checked once per peer and size.
b. Calls per second as connections grow: sample.add under wrk -c N, N = 1 ... 1024, against
   `callwire serve`, Abyss tuned and nginx's fixed body.
c. Memory per idle connection: 10,000 connections held open (each idle, or each after one
   kept-alive call), the server's RSS and PSS before and after, per connection it accepted.
"""

import base64
import os
import re
import resource
import selectors
import socket
import struct
import sys
import tempfile
import time
import types
from pathlib import Path

import load
import net_run
from net_run import Server, body_of

sys.path.insert(0, str(Path(__file__).resolve().parent / "peers" / "python"))
from paper_data import random_bytes  # noqa: E402  (the generator of bench/peers/common/data.hpp)

NAME = "scaling"
SIZES = [1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]
QUICK_SIZES = [1 << 10, 64 << 10, 1 << 20]
PAYLOAD_CONNECTIONS = 4
COUNTS = [1, 4, 16, 64, 256, 1024]
QUICK_COUNTS = [1, 64, 1024]
IDLE, QUICK_IDLE = 10000, 2000
ABYSS_TUNED = ["--max-conn", "64", "--keepalive-max", "100000000", "--backlog", "64"]
LABELS = {"callwire": "callwire", "xmlrpc-c": "Abyss (tuned)", "grpc": "gRPC",
          "nginx": "nginx"}
PAYLOAD_PEERS = ["callwire", "xmlrpc-c", "grpc", "nginx"]
COUNT_PEERS = ["callwire", "xmlrpc-c", "nginx"]
IDLE_PEERS = ["callwire", "xmlrpc-c", "grpc", "nginx"]
VARIANTS = ["idle", "one call"]


def fmt_size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def http_post(body):
    return (b"POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)) + body


def blob_call(n):
    return (b"<?xml version=\"1.0\"?><methodCall><methodName>get_blob</methodName><params>"
            b"<param><value><int>%d</int></value></param></params></methodCall>" % n)


def blob_check(name, expected):
    """check(response) for run_wrk_one: a 200 whose base64 decodes to `expected`."""
    def check(response):
        m = re.search(rb"<base64>(.*?)</base64>", body_of(response), re.S)
        if not response.startswith(b"HTTP/1.1 200") or not m or \
                base64.b64decode(m.group(1)) != expected:
            raise RuntimeError(f"{name}: wrong get_blob({len(expected)}) answer "
                               f"{response[:300]!r}")
    return check


def nginx_server(tmp, name, body, worker_connections):
    """nginx from net_run's config in its own folder (body None: static files in www/)."""
    directory = tmp / name
    (directory / "www").mkdir(parents=True)
    # Run as root, nginx's workers switch to an unprivileged user, who must read www/.
    for d in (tmp, directory, directory / "www"):
        d.chmod(0o755)
    port = net_run.free_port()
    (directory / "nginx.conf").write_text(
        net_run.nginx_config(directory, port, body, worker_connections))
    return Server(["nginx", "-e", "stderr", "-p", directory, "-c", directory / "nginx.conf"],
                  wait_for_line=False, ready_port=port), directory / "www"


def at_path(server, path):
    """The server as run_wrk_one sees it, with another URL."""
    return types.SimpleNamespace(host=server.host, port=server.port, pid=server.pid,
                                 url=f"http://{server.host}:{server.port}{path}")


# ---------------------------------------------------------------- a. payload

def keep_better(table, key, r):
    """Keeps the run with more requests per second, the other's in "other_rps": on this
    shared machine a neighbour only ever makes a run slower."""
    old = table.get(key)
    if old:
        r, other = (old, r) if old["rps"] >= r["rps"] else (r, old)
        r["other_rps"] = other["rps"]
    table[key] = r


def rounds(points, peers, twice):
    """(point, peer) once, or twice with the second round in reverse, so that a noisy minute
    hits one run of several points rather than both runs of one."""
    first = [(x, peer) for x in points for peer in peers]
    return first + first[::-1] if twice else first


def run_payload(b, sizes, seconds, twice, tmp):
    blob = random_bytes(max(sizes), 16)
    results = {peer: {} for peer in PAYLOAD_PEERS}
    get_script = tmp / "get.lua"
    get_script.write_text("-- GET (wrk's default)\n")
    nginx, www = nginx_server(tmp, "nginx-static", None, 1024)
    # nginx first: entered, it is stopped however the others fail.
    with nginx, Server([b["load_callwire_server"]]) as callwire, \
            Server([b["xmlrpc_c_server"]] + ABYSS_TUNED) as abyss, \
            Server([b["load_grpc_server"]]) as grpc:
        answers = {}
        for n in sizes:  # nginx's files are callwire's answers to the byte
            answers[n] = body_of(net_run.probe(callwire.host, callwire.port,
                                               http_post(blob_call(n))))
            (www / f"blob_{n}").write_bytes(answers[n])
        for n, name in rounds(sizes, PAYLOAD_PEERS, twice):
            net_run.log(f"  get_blob {fmt_size(n)}, {name}")
            expected = blob[:n]
            if name in ("callwire", "xmlrpc-c"):
                r = net_run.run_wrk_one(
                    name, callwire if name == "callwire" else abyss,
                    net_run.post_script(tmp / "blob.lua", blob_call(n)), seconds, None,
                    http_post(blob_call(n)), PAYLOAD_CONNECTIONS, blob_check(name, expected),
                    wrk_timeout=60)
            elif name == "nginx":
                r = net_run.run_wrk_one(
                    "nginx", at_path(nginx, f"/blob_{n}"), get_script, seconds, answers[n],
                    b"GET /blob_%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % n,
                    PAYLOAD_CONNECTIONS, wrk_timeout=60)
            else:
                message = b"\x08" + load.varint(n)
                if load.grpc_call(grpc.port, "GetBlob", message) != \
                        b"\x0a" + load.varint(n) + expected:
                    raise RuntimeError(f"gRPC: wrong GetBlob({n}) reply")
                r = load.run_h2load(grpc, "GetBlob", message, seconds, PAYLOAD_CONNECTIONS,
                                    tmp)
            keep_better(results[name], n, r)
    return results


# ---------------------------------------------------------------- b. connections

def run_connections(b, counts, seconds, twice, tmp):
    request, response = net_run.capture(b["callwire"], b["cw_lat_client"])
    script = net_run.post_script(tmp / "sample_add.lua", body_of(request))
    results = {peer: {} for peer in COUNT_PEERS}
    nginx, _ = nginx_server(tmp, "nginx-fixed", body_of(response), 4096)
    with nginx, Server([b["callwire"], "serve", "--listen", "127.0.0.1:0"]) as callwire, \
            Server([b["xmlrpc_c_server"]] + ABYSS_TUNED) as abyss:
        servers = {"callwire": callwire, "xmlrpc-c": abyss, "nginx": nginx}
        for n, name in rounds(counts, COUNT_PEERS, twice):
            r = net_run.run_wrk_one(f"{name} -c {n}", servers[name], script, seconds,
                                    body_of(response) if name == "nginx" else None, request, n)
            if name == "callwire" and r["non2xx"]:
                raise RuntimeError(f"callwire: {r['non2xx']} answers not 200 at {n}")
            keep_better(results[name], n, r)
    return results


# ---------------------------------------------------------------- c. idle connections

def h2_frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + \
        stream.to_bytes(4, "big") + payload


def hpack_string(text):
    return bytes([len(text)]) + text  # not Huffman-coded; every string here is < 127 bytes


def h2_add_call(port):
    """An HTTP/2 connection's first bytes carrying one gRPC Add(2, 3) on stream 1."""
    headers = (b"\x83\x86"  # :method POST, :scheme http (static table entries 3 and 6)
               # literals without indexing, names from the static table: :path, :authority,
               # content-type; then te, a new name
               + b"\x04" + hpack_string((load.GRPC_SERVICE + "Add").encode())
               + b"\x01" + hpack_string(f"127.0.0.1:{port}".encode())
               + b"\x0f\x10" + hpack_string(b"application/grpc")
               + b"\x00" + hpack_string(b"te") + hpack_string(b"trailers"))
    return (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(4, 0, 0)
            + h2_frame(1, 0x4, 1, headers)  # END_HEADERS
            + h2_frame(0, 0x1, 1, load.grpc_frame(load.GRPC_ADD)))  # END_STREAM


def http_answered(buffer, sock):
    head, sep, body = buffer.partition(b"\r\n\r\n")
    m = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    if not sep or not m or len(body) < int(m.group(1)):
        return False
    if not head.startswith(b"HTTP/1.1 200") or b">5</" not in body:
        raise RuntimeError(f"a held connection got a wrong answer {buffer[:300]!r}")
    return True


def grpc_answered(buffer, sock, acked=set()):
    if sock not in acked:  # the server's SETTINGS come first: acknowledge them
        acked.add(sock)
        sock.send(h2_frame(4, 0x1, 0))
    return load.grpc_frame(load.GRPC_ADD_REPLY) in buffer


def hold(port, count, request=None, answered=None, window=500, stall=2.0):
    """Opens `count` connections to `port`, at most `window` of them not yet settled at once,
    and keeps them open: settled is connected (request None) or answered (request sent and
    answered(buffer, socket) true). Stops when all are settled or nothing moved for `stall`
    seconds (a server that accepts no more). Returns (sockets, counts)."""
    sel = selectors.DefaultSelector()
    sockets, buffers = [], {}
    counts = {"connected": 0, "answered": 0, "failed": 0}
    pending, last = 0, time.monotonic()

    def settle(s):
        nonlocal pending
        sel.unregister(s)
        pending -= 1

    while True:
        while len(sockets) < count and pending < window:
            s = socket.socket()
            s.setblocking(False)
            # Closed with a reset at the end: no TIME_WAIT eating the ephemeral ports.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.connect_ex(("127.0.0.1", port))
            sockets.append(s)
            sel.register(s, selectors.EVENT_WRITE)
            pending += 1
        if not pending or time.monotonic() - last > stall:
            break
        for key, events in sel.select(0.05):
            s, last = key.fileobj, time.monotonic()
            if events & selectors.EVENT_WRITE:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    counts["failed"] += 1
                    settle(s)
                    continue
                counts["connected"] += 1
                if request is None:
                    settle(s)
                else:
                    s.send(request)
                    buffers[s] = b""
                    sel.modify(s, selectors.EVENT_READ)
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            buffers[s] += data
            if not data:
                counts["failed"] += 1
                settle(s)
            elif answered(buffers[s], s):
                counts["answered"] += 1
                settle(s)
    sel.close()
    return sockets, counts


def server_memory(pid):
    """(RSS KiB, PSS KiB, open sockets) of a server and its children (nginx's workers).
    Sockets, not all descriptors: Abyss opens two pipes for each connection."""
    rss = pss = sockets = 0
    for p in [pid] + net_run.children(pid):
        rss += int(re.search(r"VmRSS:\s*(\d+)", Path(f"/proc/{p}/status").read_text()).group(1))
        pss += int(re.search(r"Pss:\s*(\d+)",
                             Path(f"/proc/{p}/smaps_rollup").read_text()).group(1))
        for fd in Path(f"/proc/{p}/fd").iterdir():
            try:
                sockets += os.readlink(fd).startswith("socket:")
            except OSError:  # closed meanwhile
                pass
    return rss, pss, sockets


def settled_memory(pid, quiet=1.0, limit=15.0):
    """server_memory once the server's sockets stop growing: a server may accept from its
    backlog well after the client saw the connection (gRPC's acceptor lags under load)."""
    last, since, deadline = server_memory(pid), time.monotonic(), time.monotonic() + limit
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        time.sleep(0.25)
        now = server_memory(pid)
        if now[2] != last[2]:
            since = time.monotonic()
        last = now
    return last


def answers_now(name, server, add_request):
    """Whether a new connection gets sample.add (gRPC: Add) answered within 5 s."""
    try:
        if name == "grpc":
            return load.grpc_call(server.port, "Add", load.GRPC_ADD, timeout=5) == \
                load.GRPC_ADD_REPLY
        return b">5</" in body_of(net_run.probe(server.host, server.port, add_request))
    except (OSError, RuntimeError, net_run.subprocess.TimeoutExpired):
        return False


def run_idle(b, count, tmp):
    add_request, response = net_run.capture(b["callwire"], b["cw_lat_client"])
    commands = {
        # The default cap is 10,000 connections: room for the held ones and the probe.
        "callwire": [b["callwire"], "serve", "--listen", "127.0.0.1:0",
                     "--max-connections", str(count + 100)],
        "xmlrpc-c": [b["xmlrpc_c_server"]] + ABYSS_TUNED,
        "grpc": [b["load_grpc_server"]],
    }
    results = {peer: {} for peer in IDLE_PEERS}
    for variant in VARIANTS:
        for name in IDLE_PEERS:
            if name == "nginx":
                server, _ = nginx_server(tmp, f"nginx-idle-{VARIANTS.index(variant)}",
                                         body_of(response), count + 100)
            else:
                server = Server(commands[name])
            with server:
                if not answers_now(name, server, add_request):  # also the first call's memory
                    raise RuntimeError(f"{name} did not answer before the connections")
                time.sleep(0.2)
                before = server_memory(server.pid)
                if variant == "idle":
                    request, answered = None, None
                elif name == "grpc":
                    request, answered = h2_add_call(server.port), grpc_answered
                else:
                    request, answered = add_request, http_answered
                started = time.monotonic()
                sockets, counts = hold(server.port, count, request, answered)
                held_s = time.monotonic() - started
                after = settled_memory(server.pid)
                answers = answers_now(name, server, add_request)
                for s in sockets:
                    s.close()
            accepted = after[2] - before[2]
            r = results[name][variant] = {
                **counts, "accepted": accepted, "answers_while_held": answers,
                "rss_kib": (after[0] - before[0]), "pss_kib": (after[1] - before[1]),
                "rss_before_kib": before[0], "seconds": held_s}
            r["pss_per_conn"] = r["pss_kib"] * 1024 / accepted if accepted > 0 else None
            r["rss_per_conn"] = r["rss_kib"] * 1024 / accepted if accepted > 0 else None
            net_run.log(f"  {count} {variant} connections, {name:8}: accepted {accepted}, "
                        f"connected {counts['connected']}, answered {counts['answered']}, "
                        f"PSS +{r['pss_kib']} KiB, answers while held: {answers}")
            if name == "callwire" and not answers:
                raise RuntimeError("callwire did not answer a call while the connections "
                                   "were held")
    return results


# ---------------------------------------------------------------- the experiment

def run(build_dir, settings):
    quick = settings["quick"]
    b = load.programs(build_dir)
    # 10,000 sockets here, as many in the server; children inherit the limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    count = min(QUICK_IDLE if quick else IDLE, hard - 200)
    sizes, counts = (QUICK_SIZES, QUICK_COUNTS) if quick else (SIZES, COUNTS)
    seconds = 1 if quick else 2
    with tempfile.TemporaryDirectory(prefix="peers-scaling-") as tmp_name:
        tmp = Path(tmp_name)
        net_run.log(f"experiment 6a: get_blob, {PAYLOAD_CONNECTIONS} connections, {seconds} s")
        payload = run_payload(b, sizes, seconds, not quick, tmp)
        net_run.log(f"experiment 6b: sample.add as connections grow, {seconds} s each")
        connections = run_connections(b, counts, seconds, not quick, tmp)
        net_run.log(f"experiment 6c: {count} connections held open")
        idle = run_idle(b, count, tmp)
    return {"payload": payload, "connections": connections, "idle": idle, "sizes": sizes,
            "counts": counts, "idle_count": count, "seconds": seconds, "twice": not quick}


# ---------------------------------------------------------------- the report

def rps(r):
    return f"{r['rps']:,.0f} req/s" if r else "—"


def best(values, names):
    """(value, name) of the highest of {name: value} among `names`."""
    return max(((values[n], n) for n in names if values.get(n) is not None),
               default=(None, None))


def throughput_row(title, table, key, peers):
    """A summary row: callwire, the best of `peers` and nginx at `key` (req/s; the ratios are
    time per call, the other's req/s over callwire's)."""
    values = {name: table[name][key]["rps"] for name in table}
    cw, nginx = values["callwire"], values["nginx"]
    peer_rps, peer = best(values, peers)
    winner = "callwire" if cw >= (peer_rps or 0) else LABELS[peer]
    return (title, winner, f"{cw:,.0f} req/s", LABELS[peer], f"{peer_rps:,.0f} req/s",
            load.time_ratio(cw, peer_rps), f"nginx {nginx:,.0f} req/s",
            load.time_ratio(cw, nginx), "—")


def kib(n):
    return f"{n / 1024:.1f} KiB" if n is not None else "—"


def mib(kibibytes):
    return f"{kibibytes / 1024:.1f} MiB"


def faster(table, keys, label_key):
    """A sentence naming where a server beats callwire, for the section."""
    beaten = []
    for k in keys:
        cw = table["callwire"][k]["rps"]
        beaten += [f"{LABELS[n]} at {label_key(k)} ({load.time_ratio(cw, table[n][k]['rps'])})"
                   for n in table if n not in ("callwire", "nginx") and table[n][k]["rps"] > cw]
    return ("Faster than callwire: " + ", ".join(beaten) + "." if beaten else
            "No peer is faster than callwire at any point here.")


def summary_rows(results):
    payload, connections, idle = results["payload"], results["connections"], results["idle"]
    sizes, counts = results["sizes"], results["counts"]
    rows = [throughput_row(f"payload: get_blob {fmt_size(n)}, {PAYLOAD_CONNECTIONS} connections "
                           "(req/s; ratios are time per call)", payload, n, ["xmlrpc-c", "grpc"])
            for n in sorted({sizes[0], 1 << 20, sizes[-1]} & set(sizes))]
    rows += [throughput_row(f"connections: sample.add over {n} (req/s; ratios are time per "
                            "call)", connections, n, ["xmlrpc-c"])
             for n in (counts[0], counts[-1])]
    for variant in VARIANTS:
        per = {name: idle[name][variant]["pss_per_conn"] for name in IDLE_PEERS}
        # Only a server that held them all competes (Abyss takes 64).
        held = [n for n in ("xmlrpc-c", "grpc")
                if idle[n][variant]["accepted"] >= results["idle_count"] and per[n]]
        peer_value, peer = min(((per[n], n) for n in held), default=(None, None))
        cw = per["callwire"]
        winner = "callwire" if peer_value is None or cw <= peer_value else peer
        rows.append((f"memory per connection, {results['idle_count']:,} held ({variant}; PSS; "
                     "peers that held them all)",
                     LABELS[winner], kib(cw), LABELS.get(peer, "—"), kib(peer_value),
                     load.net_run.fmt_ratio(cw / peer_value if cw and peer_value else None),
                     f"nginx {kib(per['nginx'])}",
                     load.net_run.fmt_ratio(cw / per["nginx"] if cw and per["nginx"] else None),
                     "—"))
    return rows


def throughput_table(table, keys, first, label_key):
    header = [first] + [f"{LABELS[n]} req/s" for n in table] + \
        [f"callwire / {LABELS[n]}" for n in table if n != "callwire"]
    rows = []
    for key in keys:
        cw = table["callwire"][key]["rps"]
        cells = []
        for r in (table[n][key] for n in table):
            errors = r["socket_errors"] + r["non2xx"]
            cells.append(f"{r['rps']:,.0f}" + (f" ({errors:,} errors)" if errors else ""))
        rows.append([label_key(key)] + cells +
                    [load.time_ratio(cw, table[n][key]["rps"]) for n in table
                     if n != "callwire"])
    lines = ["| " + " | ".join(header) + " |",
             "|---|" + "--:|" * (len(header) - 1)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def latency_table(table, keys, label_key):
    lines = ["| " + " | ".join(["", *[f"{LABELS[n]} p50 / p99 ms" for n in table]]) + " |",
             "|---|" + "--:|" * len(table)]
    for key in keys:
        cells = []
        for n in table:
            r = table[n][key]
            cells.append(f"{(r['p50_us'] or 0) / 1e3:.2f} / {(r['p99_us'] or 0) / 1e3:.2f}")
        lines.append(f"| {label_key(key)} | " + " | ".join(cells) + " |")
    return lines


def section(results):
    payload, connections, idle = results["payload"], results["connections"], results["idle"]
    seconds, count = results["seconds"], results["idle_count"]
    twice = (", twice, the second round in reverse order, the better run shown"
             if results["twice"] else ", once (--quick)")
    lines = [
        "## 6. How cost grows",
        "",
        "Ratios are callwire's time per call over the other's (the other's requests per "
        "second over callwire's): below 1× callwire is faster.",
        "",
        "### Calls per second as the payload grows",
        "",
        f"get_blob(n) answers the first n of the suite's 16 MiB of random bytes, over "
        f"{PAYLOAD_CONNECTIONS} kept-alive connections at once, {seconds:g} s a size and "
        f"server (wrk; h2load for gRPC; `--timeout 60s`){twice}. Servers: callwire's "
        "bench/peers/callwire/load_callwire_server (default `ServerOptions`, as `callwire "
        "serve`, which has no such method: its echo would carry the n bytes both ways), "
        "xmlrpc-c's Abyss tuned as in experiment 5 (bench/net/xmlrpc_c_server.c, XML size "
        "limit raised to 64 MiB; the answer is base64 with line breaks), gRPC's synchronous "
        "server with GetBlob (message limits raised from 4 MiB to 64 MiB), and the floor: "
        "nginx sending callwire's very answer for that size as a static file (GET, no RPC). "
        "Checked once per server and size before the run: the base64 decodes to the expected "
        "bytes (the same splitmix64 stream every peer makes), gRPC's reply carries them with "
        "grpc-status 0, nginx's body is callwire's to the byte.",
        "",
    ]
    lines += throughput_table(payload, results["sizes"], "size", fmt_size)
    lines += ["", "Latency per call (4 in flight):", ""]
    lines += latency_table(payload, results["sizes"], fmt_size)
    lines += [
        "",
        faster(payload, results["sizes"], fmt_size),
        "",
        "What bounds callwire as the payload grows: an XML-RPC answer is base64, 4/3 of the "
        "bytes, which the server encodes and wrk reads; gRPC sends the raw bytes. nginx's "
        "static file is the same 4/3 bytes with no encoding (from the page cache), so "
        "callwire / nginx is the price of making the answer on every call, and callwire / "
        "gRPC adds the 4/3 and the base64 pass. A profile taken while writing this "
        "experiment (perf record on load_callwire_server, get_blob 16 MiB over 4 "
        "connections, not part of this run): memmove 23% (the handler's copy of the blob "
        "into the vector it returns, which gRPC's handler also makes, and copies of the "
        "answer), base64 encoding 17%, the kernel copying the answer into the socket 16%, "
        "and page faults and page clearing for the fresh 22 MB buffers of each call about "
        "17%.",
        "",
        "### Calls per second as connections grow",
        "",
        f"sample.add under wrk -c N (2 threads, 1 for N = 1), {seconds:g} s a point{twice}, "
        "against "
        "`callwire serve` (defaults: a loop per core, at most 10,000 connections), Abyss tuned "
        "(64 connections served at once, a listen backlog of 64: past that, connections "
        "wait and wrk counts timeouts after 2 s) and nginx's fixed body (worker_connections "
        "4096). Errors are wrk's socket errors (connect, read, write, timeout) and non-2xx "
        "answers.",
        "",
    ]
    lines += throughput_table(connections, results["counts"], "connections", str)
    lines += ["", "Latency per call:", ""]
    lines += latency_table(connections, results["counts"], str)
    lines += [
        "",
        faster(connections, results["counts"], lambda n: f"{n} connections"),
        "",
        f"Short runs: on this shared machine a point moves by up to 2× even as the better of "
        "two (nginx's two runs in experiment 5 differ as much), so read the shape and the ratios "
        "to Abyss more than any single point against nginx. Where nginx is ahead, both are "
        "bound by the CPU wrk leaves them and callwire does more per request (the XML-RPC "
        "parse, dispatch and answer); Abyss stops growing at its 64 threads, and its "
        "connections past 64 wait in the backlog, which its latency hides: wrk times only "
        "the requests that were answered.",
    ]
    lines += [
        "",
        "### Memory per idle connection",
        "",
        f"{count:,} TCP connections opened from one Python process (at most 500 not yet "
        "settled at once, each closed with a reset at the end), and held: *idle*, each having "
        "sent nothing; *one call*, each having made one kept-alive sample.add (gRPC: one Add "
        "on an HTTP/2 connection: preface, SETTINGS, HEADERS and DATA, written by hand, the "
        "reply's bytes checked; grpc-status is checked by nghttp before). Measured: the "
        "server's RSS and PSS (/proc, nginx's master and workers summed) after one call and "
        "again with the connections held, and the sockets it gained (the connections it "
        "accepted); per connection = the growth over those. An idle gRPC connection is "
        "bare TCP, with no HTTP/2 preface: gRPC has made its transport but no HTTP/2 "
        "session. callwire serve runs with `--max-connections` raised past the held ones "
        "(its default cap is exactly 10,000), so that a new call can still come in: "
        "*answers while held* is a sample.add on a new connection with the others held "
        "(callwire must answer it). Abyss, tuned, accepts 64 connections, each with a thread "
        "and two pipes of its own; the rest wait in its listen backlog (or their SYNs are "
        "dropped) and are never served, so it holds 64 and a new call is not answered. "
        "nginx allocates its connection structures for all of worker_connections (here the "
        "held ones plus 100, in each of its two workers) when it starts, so they sit in "
        "*RSS before* and little grows; its PSS may even shrink as pages shared with the "
        "master are written.",
        "",
        "| server | connections | accepted | connected | answered | RSS before | "
        "RSS growth | PSS growth | RSS per connection | PSS per connection | "
        "answers while held |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for variant in VARIANTS:
        for name in IDLE_PEERS:
            r = idle[name][variant]
            lines.append(
                f"| {LABELS[name]} | {variant} | {r['accepted']:,} | {r['connected']:,} | "
                f"{r['answered']:,} | {mib(r['rss_before_kib'])} | "
                f"{mib(r['rss_kib'])} | {mib(r['pss_kib'])} | "
                f"{kib(r['rss_per_conn'])} | {kib(r['pss_per_conn'])} | "
                f"{'yes' if r['answers_while_held'] else 'no'} |")
    return lines


def plots(results, plots_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    plots_dir.mkdir(exist_ok=True)
    made = []
    for key, xs, title, name, xlabel in (
            ("payload", results["sizes"], "get_blob: calls per second, 4 connections",
             "peers_scaling_payload.png", "blob size"),
            ("connections", results["counts"], "sample.add: calls per second",
             "peers_scaling_connections.png", "concurrent connections")):
        fig, ax = plt.subplots(figsize=(8, 5.5))
        for peer, points in results[key].items():
            ax.plot(xs, [points[x]["rps"] for x in xs], marker="o",
                    linestyle="--" if peer == "nginx" else "-", label=LABELS[peer])
        ax.set_xscale("log", base=2 if key == "payload" else 10)
        if key == "payload":
            ax.set_yscale("log")
            ax.set_xticks(xs, [fmt_size(x) for x in xs])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("calls per second")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(plots_dir / name, dpi=100)
        plt.close(fig)
        made.append((title, name))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.4
    for i, variant in enumerate(VARIANTS):
        ax.bar([j + (i - 0.5) * width for j in range(len(IDLE_PEERS))],
               [(results["idle"][p][variant]["pss_per_conn"] or 0) / 1024 for p in IDLE_PEERS],
               width, label=variant)
    held = {p: min(results["idle"][p][v]["accepted"] for v in VARIANTS) for p in IDLE_PEERS}
    ax.set_xticks(range(len(IDLE_PEERS)),
                  [LABELS[p] + (f"\n(held {held[p]:,})" if held[p] < results["idle_count"] else "")
                   for p in IDLE_PEERS])
    ax.set_ylabel("KiB of PSS per connection")
    ax.set_title(f"memory per connection, {results['idle_count']:,} held")
    ax.legend()
    fig.tight_layout()
    fig.savefig(plots_dir / "peers_scaling_memory.png", dpi=100)
    plt.close(fig)
    made.append(("memory per held connection", "peers_scaling_memory.png"))
    return made
