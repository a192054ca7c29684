"""Experiment 5 of `make bench-peers` (bench/peers_run.py): sample.add under load.

wrk, 2 threads and 32 connections, POSTs callwire's own sample.add(2, 3) request at `callwire
serve` (defaults), xmlrpc-c's Abyss (defaults and tuned), Python's SimpleXMLRPCServer and nginx
answering the same body with `return 200` (the floor): bench/net_run.py's run_wrk, as `make
bench` runs it. gRPC's synchronous server (bench/peers/grpc/load_grpc_server.cpp) answers an
equivalent Add under h2load (HTTP/2 prior knowledge, gRPC framing), 32 clients, 2 threads, one
stream in flight each. Also holds what bench/scaling.py shares: gRPC framing and h2load.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import net_run
from net_run import Server

NAME = "load"
GRPC_SERVICE = "/peers.load.Load/"
# AddRequest {a: 2, b: 3} and the AddReply {sum: 5} it must get.
GRPC_ADD = b"\x08\x02\x10\x03"
GRPC_ADD_REPLY = b"\x08\x05"
LABELS = {"callwire": "callwire", "xmlrpc-c": "Abyss (defaults)",
          "xmlrpc-c tuned": "Abyss (tuned)", "python": "Python", "grpc": "gRPC",
          "nginx": "nginx"}
PEERS = ["xmlrpc-c", "xmlrpc-c tuned", "python", "grpc"]


def programs(build_dir):
    b = {name: build_dir / "bench" / name for name in ("cw_lat_client", "xmlrpc_c_server")}
    b["callwire"] = build_dir / "tools" / "callwire"
    b["load_grpc_server"] = build_dir / "bench" / "peers" / "load_grpc_server"
    b["load_callwire_server"] = build_dir / "bench" / "peers" / "load_callwire_server"
    missing = [str(p) for p in b.values() if not p.exists()]
    missing += [t for t in ("wrk", "nginx", "h2load", "nghttp") if not shutil.which(t)]
    if missing:
        sys.exit(f"peers_run: missing {', '.join(missing)} (build with -DCALLWIRE_BENCH=ON; "
                 "scripts/setup-bench-peers.sh installs the tools)")
    return b


# ---------------------------------------------------------------- gRPC without a gRPC client

def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def grpc_frame(message):
    """gRPC's length-prefixed message: not compressed, 4-byte big-endian length."""
    return b"\x00" + len(message).to_bytes(4, "big") + message


def grpc_call(port, method, message, timeout=60):
    """The reply message of one call through nghttp, which must end with grpc-status 0."""
    with tempfile.NamedTemporaryFile(prefix="grpc-") as request:
        request.write(grpc_frame(message))
        request.flush()
        command = ["nghttp", "-H", "content-type: application/grpc", "-H", "te: trailers",
                   "-d", request.name, f"http://127.0.0.1:{port}{GRPC_SERVICE}{method}"]
        # -v shows the trailers (and the frames), without it the body alone.
        verbose = subprocess.run(command + ["-v"], capture_output=True, timeout=timeout)
        if b"grpc-status: 0" not in verbose.stdout:
            raise RuntimeError(f"gRPC {method}: no grpc-status 0: {verbose.stdout[-600:]!r}")
        body = subprocess.run(command, capture_output=True, timeout=timeout, check=True).stdout
    if body[:1] != b"\x00" or int.from_bytes(body[1:5], "big") != len(body) - 5:
        raise RuntimeError(f"gRPC {method}: a malformed reply {body[:40]!r}")
    return body[5:]


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))] if values else None


def run_h2load(server, method, message, seconds, clients, tmp):
    """h2load against a gRPC server: the keys of net_run.parse_wrk's results."""
    request, log_file = tmp / f"h2load-{method}.bin", tmp / "h2load.log"
    request.write_bytes(grpc_frame(message))
    log_file.unlink(missing_ok=True)  # h2load appends to it
    pids = [server.pid] + net_run.children(server.pid)
    before = sum(net_run.cpu_ticks(p) for p in pids)
    # -m 1: one call in flight per client, as wrk's connections.
    p = subprocess.run(["h2load", "-c", str(clients), "-t", str(min(2, clients)), "-m", "1",
                        "-D", str(seconds), "-d", str(request),
                        "-H", "content-type: application/grpc", "-H", "te: trailers",
                        f"--log-file={log_file}",
                        f"http://127.0.0.1:{server.port}{GRPC_SERVICE}{method}"],
                       capture_output=True, text=True, timeout=seconds + 60)
    after = sum(net_run.cpu_ticks(p) for p in pids)
    m = re.search(r"finished in [\d.]+s, ([\d.]+) req/s", p.stdout)
    counts = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, "
                       r"(\d+) failed, (\d+) errored, (\d+) timeout", p.stdout)
    if p.returncode != 0 or not m or not counts:
        raise RuntimeError(f"h2load failed ({p.returncode}): {p.stdout}{p.stderr}")
    done, _, failed, errored, timeouts = (int(x) for x in counts.groups()[1:])
    # gRPC answers errors with status 200 and grpc-status in the trailers, which h2load does
    # not read: the probe before checks grpc-status.
    status = re.search(r"status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", p.stdout)
    non2xx = sum(int(x) for x in status.groups()) if status else 0
    # Each line: start time, HTTP status, elapsed µs.
    elapsed = [int(line.split()[2]) for line in log_file.read_text().splitlines() if line]
    ticks = after - before
    return {"rps": float(m.group(1)), "requests": done, "p50_us": percentile(elapsed, 50),
            "p99_us": percentile(elapsed, 99), "socket_errors": failed + errored + timeouts,
            "non2xx": non2xx,
            "server_cpu_us_per_request": ticks * 1e6 / os.sysconf("SC_CLK_TCK") / max(done, 1)
            if ticks >= 10 else None}


# ---------------------------------------------------------------- the experiment

def run(build_dir, settings):
    b = programs(build_dir)
    seconds = 1 if settings["quick"] else net_run.WRK_SECONDS
    with tempfile.TemporaryDirectory(prefix="peers-load-") as tmp_name:
        tmp = Path(tmp_name)
        net_run.log("experiment 5: sample.add under load (wrk and h2load, 32 connections)")
        request, response = net_run.capture(b["callwire"], b["cw_lat_client"])
        results = net_run.run_wrk(b, request, response, seconds, tmp)
        with Server([b["load_grpc_server"]]) as server:
            if grpc_call(server.port, "Add", GRPC_ADD) != GRPC_ADD_REPLY:
                raise RuntimeError("gRPC Add: a wrong sum")
            r = run_h2load(server, "Add", GRPC_ADD, seconds, net_run.WRK_CONNECTIONS, tmp)
        net_run.log(f"  h2load grpc           : {r['rps']:9.0f} requests/s, p99 "
                    f"{(r['p99_us'] or 0) / 1e3:.2f} ms, errors {r['socket_errors']}")
        r["settings"] = "synchronous server; h2load, 32 clients, 1 stream each"
        r["response_bytes"] = f"{len(grpc_frame(GRPC_ADD_REPLY))} + HTTP/2 frames"
        results["grpc"] = r
    # A wrong answer fails in the probes above; errors under load fail here.
    for name, r in results.items():
        if name in ("callwire", "nginx", "grpc") and r["socket_errors"] + r["non2xx"]:
            raise RuntimeError(f"{name}: {r['socket_errors'] + r['non2xx']} errors under load")
    return {"wrk": results, "seconds": seconds}


def rps(value):
    return f"{value:,.0f} req/s"


def time_ratio(cw_rps, other_rps):
    """callwire's time per call over the other's: the other's req/s over callwire's."""
    return net_run.fmt_ratio(other_rps / cw_rps) if cw_rps and other_rps else "—"


def best(results, names):
    return max(((results[n]["rps"], n) for n in names if n in results), default=(None, None))


def summary_rows(results):
    wrk = results["wrk"]
    cw, nginx = wrk["callwire"]["rps"], wrk["nginx"]["rps"]
    peer_rps, peer = best(wrk, PEERS)
    winner = "callwire" if cw >= peer_rps else LABELS[peer]
    return [("under load: sample.add, 32 connections (req/s; ratios are time per call)", winner,
             rps(cw), LABELS[peer], rps(peer_rps), time_ratio(cw, peer_rps),
             f"nginx {rps(nginx)}", time_ratio(cw, nginx), "—")]


def section(results):
    wrk, seconds = results["wrk"], results["seconds"]
    cw = wrk["callwire"]["rps"]
    peer_rps, peer = best(wrk, PEERS)
    lines = [
        "## 5. Under load",
        "",
        "Requests per second with many clients at once: wrk (2 threads, 32 kept-alive "
        "connections, each sending its next request when the last answer arrives) POSTs the "
        "exact sample.add(2, 3) request callwire's client sends, for "
        f"{seconds:g} s a server. wrk, the server and the other engineers' work share the "
        "2 CPUs, so wrk's own CPU is part of every number. "
        "Servers: `callwire serve` with its defaults (an event loop per core, handlers inline); "
        "xmlrpc-c's Abyss (bench/net/xmlrpc_c_server.c) with its defaults (15 connections at "
        "once, 30 requests a connection, then it closes) and tuned (64 connections, unlimited "
        "keep-alive); Python's SimpleXMLRPCServer with a thread per connection and HTTP/1.1; "
        "gRPC's synchronous C++ server with an Add(a, b) of its own, driven by h2load (HTTP/2 "
        "with prior knowledge, gRPC's 5-byte message prefix, `content-type: application/grpc` "
        "and `te: trailers`; 32 clients, 2 threads, one stream in flight each, so the same "
        "shape as wrk's); and nginx answering callwire's response body with `return 200`, the "
        "floor: HTTP with no RPC at all. Before each run one call is checked: sample.add's "
        "answer is 5 (nginx: the very body), gRPC's reply is sum 5 with grpc-status 0 "
        "(through nghttp). callwire, nginx and gRPC must finish with no errors. callwire and "
        "nginx ran twice, interleaved, the better run shown (the other in parentheses).",
        "",
    ]
    lines += net_run.wrk_table(wrk, seconds)[2:]
    lines += [
        f"callwire's time per call is {time_ratio(cw, wrk['nginx']['rps'])} nginx's "
        f"(it serves {cw / wrk['nginx']['rps']:.0%} of nginx's requests per second) and "
        f"{time_ratio(cw, peer_rps)} that of the best peer, {LABELS[peer]}.",
        "",
        "What bounds callwire here: on 2 shared CPUs wrk takes about half the machine, so "
        "every server is CPU-bound on what is left. "
        + ("nginx does the least per request (no body to parse, no XML, no dispatch); the "
           "gap to it is callwire's parse, dispatch and XML writing per call, and the other "
           "engineers' load, which moves nginx's own runs by up to 2× between its two runs. "
           if cw < wrk["nginx"]["rps"] else
           "callwire kept up with nginx in this run: both are bound by the CPU wrk leaves "
           "them, and the order between them moves with the neighbours' load. ")
        + "gRPC pays for HTTP/2 framing and the hand-off from its completion queue to a "
        "worker thread in the synchronous server; Abyss for a thread per connection and, with "
        "its defaults, a new connection every 30 requests and no more than 15 served at once "
        f"(the other 17 of wrk's connections wait): "
        f"{wrk['xmlrpc-c']['rps'] / wrk['nginx']['rps']:.1%} of nginx's requests per second.",
    ]
    return lines


def plots(results, plots_dir):
    return []
