"""Experiment 4 of `make bench-peers` (bench/peers_run.py): the heartbeat of
the article "Send XML over a Socket fast" (DZone).

Latency percentiles (1, 50, 99, 99.9) and messages per second on one connection: one call at
a time, and with K calls in flight (a finished one replaced at once). Every client prints
bench/net/lat_common.hpp's JSON line and checks every answer (a wrong one fails the run).

  one at a time  raw         bench/net raw_lat_client ↔ raw_lat_server: callwire's request
                             and response bytes, no parsing (the floor)
                 callwire    bench/net cw_lat_client ↔ `callwire serve --threads 1`
                 xmlrpc-c    bench/net xmlrpc_c_lat_client (curl) ↔ Abyss, keep-alive unlimited
                 gRPC        heartbeat_grpc_client (sync stub) ↔ heartbeat_grpc_server
  K in flight    raw         pipeline_client ↔ raw_lat_server (HTTP pipelining, the floor)
                 callwire    pipeline_client ↔ `callwire serve --threads 1`: callwire's server
                             under pipelining (its Client does not pipeline)
                 callwire    heartbeat_callwire_async: Client::async_call, max_connections K,
                   async     so K connections
                 gRPC        heartbeat_grpc_client: async stub, one CompletionQueue, one channel

Each pair runs unpinned and with client and server pinned to one core (taskset -c 0).
"""

import statistics
import sys
import tempfile
from pathlib import Path

import net_run

NAME = "heartbeat"

IN_FLIGHT = [16, 64]
PEERS = ["raw", "callwire", "callwire-async", "xmlrpc-c", "grpc"]
LABELS = {
    "raw": "raw TCP (floor)",
    "callwire": "callwire",
    "callwire-async": "callwire Client::async_call",
    "xmlrpc-c": "xmlrpc-c",
    "grpc": "gRPC",
}
PERCENTILES = [("p1_ns", "p1"), ("median_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9")]


def log(message):
    print(message, file=sys.stderr, flush=True)


def pairs(b, files):
    """{(peer, K): (server command, client command taking the server)}; K 1: one at a time."""
    bench, peers = b / "bench", b / "bench" / "peers"
    callwire = [b / "tools" / "callwire", "serve", "--threads", "1", "--listen", "127.0.0.1:0"]
    raw = [bench / "raw_lat_server", files["request_length"], files["response"]]
    grpc = [peers / "heartbeat_grpc_server"]
    out = {
        ("raw", 1): (raw, lambda s: [bench / "raw_lat_client", f"{s.host}:{s.port}",
                                     files["request"], files["response_length"]]),
        ("callwire", 1): (callwire, lambda s: [bench / "cw_lat_client", s.url]),
        # Keep-alive unlimited: Abyss would close the connection every 30 calls by default.
        ("xmlrpc-c", 1): ([bench / "xmlrpc_c_server", "--keepalive-max", "1000000000"],
                          lambda s: [bench / "xmlrpc_c_lat_client", s.url]),
        ("grpc", 1): (grpc, lambda s: [peers / "heartbeat_grpc_client", f"{s.host}:{s.port}"]),
    }
    for k in IN_FLIGHT:
        pipelined = lambda s: [peers / "pipeline_client", f"{s.host}:{s.port}", files["request"],
                               files["body"]]
        out[("raw", k)] = (raw, pipelined)
        out[("callwire", k)] = (callwire, pipelined)
        out[("callwire-async", k)] = (callwire,
                                      lambda s: [peers / "heartbeat_callwire_async", s.url])
        out[("grpc", k)] = (grpc, lambda s: [peers / "heartbeat_grpc_client",
                                             f"{s.host}:{s.port}"])
    return out


def run(build_dir, settings):
    quick = settings["quick"]
    rounds, seconds, warmup = (1, 0.2, 200) if quick else (3, 1.0, 1000)
    samples = {}
    with tempfile.TemporaryDirectory(prefix="callwire-heartbeat-") as tmp_name:
        tmp = Path(tmp_name)
        log("the heartbeat: capturing callwire's request and response")
        request, response = net_run.capture(build_dir / "tools" / "callwire",
                                            build_dir / "bench" / "cw_lat_client")
        files = {"request": tmp / "request.bin", "response": tmp / "response.bin",
                 "body": tmp / "body.bin", "request_length": len(request),
                 "response_length": len(response)}
        files["request"].write_bytes(request)
        files["response"].write_bytes(response)
        files["body"].write_bytes(net_run.body_of(response))
        todo = pairs(build_dir, files)
        # Rounds over every pair, so that a noisy stretch spreads over all of them.
        for r in range(rounds):
            log(f"the heartbeat: round {r + 1} of {rounds}, {len(todo)} pairs, unpinned and "
                "pinned")
            for pinned in (False, True):
                for (peer, k), (server_command, client_command) in todo.items():
                    with net_run.Server(server_command, pin=pinned) as server:
                        try:
                            result = net_run.run_json(
                                client_command(server) + [
                                    "--in-flight", k, "--seconds", seconds, "--warmup", warmup,
                                    "--server-pid", server.pid], pin=pinned)
                        except (RuntimeError, ValueError) as e:
                            sys.exit(f"peers_run: the heartbeat, {peer} with {k} in flight: "
                                     f"{e}; bench/PEERS.md left as it was")
                    samples.setdefault((peer, k, pinned), []).append(result)
    results = {}
    for key, runs in samples.items():
        # Medians over the rounds of each statistic.
        r = {f: statistics.median(x[f] for x in runs)
             for f in ("p1_ns", "median_ns", "p99_ns", "p999_ns", "wall_ns_per_call",
                       "client_cpu_ns_per_call", "server_cpu_ns_per_call", "calls")}
        r["per_second"] = 1e9 / r["wall_ns_per_call"]
        results[key] = r
        peer, k, pinned = key
        log(f"  {peer:15} {k:3} in flight {'pinned' if pinned else 'any core'}: p50 "
            f"{r['median_ns'] / 1e3:7.1f} µs, p99.9 {r['p999_ns'] / 1e3:8.1f} µs, "
            f"{r['per_second']:9,.0f} messages/s")
    return {"results": results, "rounds": rounds, "seconds": seconds, "warmup": warmup,
            "request": len(request), "response": len(response)}


# ---------------------------------------------------------------- the report

def fmt_us(ns):
    return f"{ns / 1e3:,.1f}" if ns is not None else "—"


def summary_rows(data):
    from peers_run import fmt_ratio, fmt_time
    res = data["results"]
    rows = []
    for pinned in (False, True):
        where = "one core" if pinned else "any core"
        cw, raw = res.get(("callwire", 1, pinned)), res.get(("raw", 1, pinned))
        peers = {p: res[(p, 1, pinned)]["median_ns"] for p in ("xmlrpc-c", "grpc")
                 if (p, 1, pinned) in res}
        if not cw or not peers:
            continue
        best = min(peers, key=peers.get)
        winner = "callwire" if cw["median_ns"] <= peers[best] else LABELS[best]
        rows.append((f"heartbeat: one at a time, p50 ({where})", winner,
                     fmt_time(cw["median_ns"] / 1e9), LABELS[best], fmt_time(peers[best] / 1e9),
                     fmt_ratio(cw["median_ns"], peers[best]),
                     fmt_time(raw["median_ns"] / 1e9) if raw else "—",
                     fmt_ratio(cw["median_ns"], raw and raw["median_ns"]), "—"))
    k = IN_FLIGHT[-1]
    grpc, raw = res.get(("grpc", k, False)), res.get(("raw", k, False))
    for peer, what in (("callwire", "callwire's server, pipelined"),
                       ("callwire-async", f"callwire's Client, {k} connections")):
        cw = res.get((peer, k, False))
        if not cw or not grpc:
            continue
        winner = "callwire" if cw["wall_ns_per_call"] <= grpc["wall_ns_per_call"] else "gRPC"
        rows.append((f"heartbeat: {k} in flight, 1 / messages per second ({what})", winner, fmt_time(cw["wall_ns_per_call"] / 1e9), "gRPC",
                     fmt_time(grpc["wall_ns_per_call"] / 1e9),
                     fmt_ratio(cw["wall_ns_per_call"], grpc["wall_ns_per_call"]),
                     fmt_time(raw["wall_ns_per_call"] / 1e9) if raw else "—",
                     fmt_ratio(cw["wall_ns_per_call"], raw and raw["wall_ns_per_call"]), "—"))
    return rows


def how(peer, k):
    if k == 1:
        return {"raw": "raw_lat_client ↔ raw_lat_server",
                "callwire": "Client::call ↔ `callwire serve --threads 1`",
                "xmlrpc-c": "xmlrpc_client_call2 (curl) ↔ Abyss",
                "grpc": "sync stub ↔ sync server"}[peer]
    return {"raw": "pipeline_client ↔ raw_lat_server, 1 connection",
            "callwire": "pipeline_client ↔ `callwire serve --threads 1`, 1 connection",
            "callwire-async": f"Client::async_call ↔ `callwire serve --threads 1`, {k} "
                              "connections",
            "grpc": "async stub, 1 CompletionQueue ↔ sync server, 1 channel"}[peer]


def section(data):
    from peers_run import table
    res = data["results"]
    lines = [
        "## 4. The heartbeat: latency percentiles and messages per second on one connection",
        "",
        "From the article \"Send XML over a Socket fast\" (DZone), which sends a small XML heartbeat and "
        "reports the 1st/50th/99th percentile round trip and messages per second. Here the "
        "message is sample.add(2, 3) → 5 (callwire's request is "
        f"{data['request']} bytes and its answer {data['response']}, HTTP head included), on "
        "one kept-alive connection: one call at a time, and with K calls always in flight "
        "(when one is answered, another is sent). A call's latency runs from the write of its "
        "request to the read that completes its answer, so with K in flight it includes the "
        "wait behind the others; messages per second are the answers in the timed window "
        f"divided by its length. Each pair ran {data['rounds']} time(s) for "
        f"{data['seconds']:g} s after {data['warmup']} untimed calls, unpinned and with "
        "client and server on one core (`taskset -c 0`); the tables show the medians over "
        "the runs of each statistic. Every answer is checked (a wrong one fails the run).",
        "",
        "How each is written: *raw TCP* writes callwire's captured request bytes and reads "
        "the captured answer's bytes with no parsing (bench/net raw_lat_client; with K in "
        "flight bench/peers/raw/pipeline_client, which frames answers by Content-Length, "
        "against raw_lat_server, which answers every whole request one read brings with one "
        "write). *callwire* one at a time is its Client (`call`, default options) against "
        "`callwire serve --threads 1`. callwire's Client does not pipeline HTTP/1.1: it "
        "puts one call on a connection at a time and opens up to `max_connections` for "
        "asynchronous calls. So with K in flight, *callwire* is pipeline_client writing "
        "callwire's own request bytes on one connection to callwire's server (the server is "
        "measured, the client is a minimal one), and *callwire Client::async_call* is its "
        "real client with `max_connections` = K, hence K connections, not one. *xmlrpc-c* "
        "is xmlrpc_client_call2 on one client object (curl transport) against Abyss with "
        "keep-alive unlimited; it has no row with calls in flight: its synchronous client "
        "waits for each answer, and its asynchronous calls (xmlrpc_client_start_rpc) go "
        "through curl's multi interface, which opens a connection per call in flight (curl "
        "dropped HTTP/1.1 pipelining in 7.65), and Abyss serves a connection on one thread. "
        "*gRPC* is a sample.add-like `Add(a, b)` service (bench/peers/grpc/heartbeat.proto) "
        "on its synchronous server, with one channel (one HTTP/2 connection): the "
        "synchronous stub one at a time, the asynchronous stub with one CompletionQueue "
        "for K in flight, multiplexed as HTTP/2 streams.",
        "",
    ]
    for pinned in (False, True):
        lines += [f"### {'Client and server on one core' if pinned else 'Any core'}", ""]
        rows = []
        for k in [1] + IN_FLIGHT:
            floor = res.get(("raw", k, pinned))
            for peer in PEERS:
                r = res.get((peer, k, pinned))
                if not r:
                    continue
                rows.append([LABELS[peer], str(k), how(peer, k)] +
                            [fmt_us(r[f]) for f, _ in PERCENTILES] +
                            [f"{r['per_second']:,.0f}",
                             fmt_us(r["client_cpu_ns_per_call"] +
                                    r["server_cpu_ns_per_call"]),
                             f"{r['wall_ns_per_call'] / floor['wall_ns_per_call']:.2f}×"
                             if floor else "—"])
        lines += table(["peer", "in flight", "how", "p1 µs", "p50 µs", "p99 µs", "p99.9 µs",
                        "messages/s", "client + server CPU µs per message",
                        "time per message / floor"], rows)
        lines.append("")
    lines += notes(res)
    return lines


def cpu(r):
    return fmt_us(r["client_cpu_ns_per_call"] + r["server_cpu_ns_per_call"])


def notes(res):
    """Plain words on what bounds callwire, from the numbers (any core)."""
    k = IN_FLIGHT[-1]
    out = []
    cw1, raw1 = res.get(("callwire", 1, False)), res.get(("raw", 1, False))
    if cw1 and raw1:
        out.append(
            f"One at a time, callwire's p50 is {cw1['median_ns'] / raw1['median_ns']:.2f}× "
            "the raw floor's on any core. Both make one write and one read per call on each "
            "side; what callwire adds is its HTTP and XML work on both sides: "
            f"{cpu(cw1)} µs of CPU per call for client and server together, against the "
            f"floor's {cpu(raw1)}.")
    cwk, rawk = res.get(("callwire", k, False)), res.get(("raw", k, False))
    if cwk and rawk:
        out.append(
            f"With {k} in flight on one connection, callwire's server answers "
            f"{cwk['per_second']:,.0f} messages/s against the raw floor's "
            f"{rawk['per_second']:,.0f}. Both batch their system calls the same way (every "
            "whole request one read brings is answered with one write), so what is left is "
            "callwire's parsing, dispatch and writing per message: "
            f"{cpu(cwk)} µs of CPU per message (server and the minimal pipelining client) "
            f"against the floor's {cpu(rawk)}.")
    asy = res.get(("callwire-async", k, False))
    if asy and cwk:
        out.append(
            f"callwire's own Client with {k} calls in flight uses {k} connections and "
            f"reaches {asy['per_second']:,.0f} messages/s, "
            f"{cwk['per_second'] / asy['per_second']:.1f}× fewer than the pipelined "
            f"connection, at {cpu(asy)} µs of CPU per message: every call is its own write, "
            "read and wake-up on both sides, and its completion runs on the client's I/O "
            "thread. A client that pipelines calls on a kept-alive connection is what callwire "
            "lacks for this case.")
    gk, g1 = res.get(("grpc", k, False)), res.get(("grpc", 1, False))
    if gk and g1 and cw1:
        out.append(
            f"gRPC multiplexes {k} calls on one HTTP/2 connection and reaches "
            f"{gk['per_second']:,.0f} messages/s at {cpu(gk)} µs of CPU per message, client "
            f"and server together ({cpu(g1)} µs one at a time, against callwire's "
            f"{cpu(cw1)}). Client and server share this machine's two cores, so it is bound "
            "by that CPU per call, not by the connection.")
    return [line for note in out for line in (note, "")]


def plots(data, plots_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    res = data["results"]
    made = []
    keys = [(p, k) for k in [1] + IN_FLIGHT for p in PEERS if (p, k, False) in res]
    names = [f"{LABELS[p]}\n{'1 at a time' if k == 1 else f'{k} in flight'}" for p, k in keys]
    fig, axes = plt.subplots(2, 1, figsize=(12, 8), sharex=True)
    width = 0.2
    for ax, pinned in zip(axes, (False, True)):
        for i, (field, label) in enumerate(PERCENTILES):
            ax.bar([j + (i - 1.5) * width for j in range(len(keys))],
                   [res[(p, k, pinned)][field] / 1e3 if (p, k, pinned) in res else 0
                    for p, k in keys], width, label=label)
        ax.set_yscale("log")
        ax.set_ylabel("µs")
        ax.set_title(f"the heartbeat: latency percentiles, {'one core' if pinned else 'any core'}")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(ncol=4)
    axes[-1].set_xticks(range(len(keys)), names, fontsize=7)
    fig.tight_layout()
    fig.savefig(plots_dir / "peers_heartbeat_latency.png", dpi=100)
    plt.close(fig)
    made.append(("the heartbeat: latency percentiles", "peers_heartbeat_latency.png"))

    fig, ax = plt.subplots(figsize=(12, 4.5))
    for i, pinned in enumerate((False, True)):
        ax.bar([j + (i - 0.5) * 0.4 for j in range(len(keys))],
               [res[(p, k, pinned)]["per_second"] if (p, k, pinned) in res else 0
                for p, k in keys], 0.4, label="one core" if pinned else "any core")
    ax.set_xticks(range(len(keys)), names, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("messages per second")
    ax.set_title("the heartbeat: messages per second on one connection")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(plots_dir / "peers_heartbeat_rate.png", dpi=100)
    plt.close(fig)
    made.append(("the heartbeat: messages per second", "peers_heartbeat_rate.png"))
    return made
