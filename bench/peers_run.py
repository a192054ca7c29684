#!/usr/bin/env python3
"""Runs `make bench-peers`: callwire beside the binary RPC peers on the seeds' own benchmarks.

Usage: python3 bench/peers_run.py BUILD_DIR [--quick] [--only NAMES]
  BUILD_DIR is the tree configured with -DCALLWIRE_BENCH_PEERS=ON (build/bench-peers).
  --quick: one repetition and few calls, to try the runner itself (its numbers mean little).
  --only NAMES: a comma-separated subset of the experiments (suite, paper, and the NAME of
    each module in EXPERIMENTS); prints the report instead of writing bench/PEERS.md.

1. rpclib's suite (bench/peers/common/suite.hpp): each BUILD_DIR/bench/peers/suite_PEER, Google
   Benchmark, client and server in one process; medians of REPETITIONS of wall time and
   process CPU per call.
2. The paper (bench/peers/common/paper.hpp): a server process per peer, all running, and RUNS
   rounds of client processes making CALLS calls each, with and without the photo, one peer
   after the other in each round; medians per call of the client's wall time, its CPU and
   the server's CPU (from /proc).

Experiments 3 and on are modules of their own, listed in EXPERIMENTS. Each has NAME (for
--only), run(build_dir, settings) -> results, summary_rows(results) -> rows of the summary
table as nine strings (see SUMMARY_HEADER), section(results) -> its markdown lines (from its
"## N. ..." heading on) and plots(results, plots_dir) -> [(title, file name)]: bench/startup.py
(3, xmlrpc-c's page), bench/heartbeat.py (4, the heartbeat), bench/load.py (5, under load) and
bench/scaling.py (6, how cost grows).

Writes bench/PEERS.md and the plots in bench/plots/. A wrong answer (a program exiting
non-zero) stops the run with a non-zero status and leaves PEERS.md as it was.
"""

import datetime
import importlib
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import where_time_goes

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
REPORT = BENCH / "PEERS.md"
PLOTS = BENCH / "plots"

# Suite binaries, and the peers each reports (callwire's binary reports three configurations).
SUITES = [
    ("suite_direct", ["direct"]),
    ("suite_raw", ["raw-tcp"]),
    ("suite_callwire", ["callwire", "callwire-gzip", "callwire-copies", "callwire-json",
                        "callwire-json-copies"]),
    ("suite_grpc", ["grpc"]),
    ("suite_thrift", ["thrift"]),
    ("suite_capnp", ["capnp"]),
    ("suite_xmlrpc_c", ["xmlrpc-c"]),
]
# Two floors: the functions called directly (no wire), and the same calls over loopback TCP to a
# thread with no RPC library (the wire: what no peer can beat). Neither is ever a winner.
FLOOR = "direct"
TCP_FLOOR = "raw-tcp"
FLOORS = {FLOOR, TCP_FLOOR}
XMLRPC_C = "xmlrpc-c"
CALLWIRE = "callwire"
# Shown beside callwire but never "the best peer": callwire with non-default options, and
# callwire speaking JSON-RPC (the paper's goals for it are in the summary's own table).
GZIP = "callwire-gzip"
JSON = "callwire-json"
# callwire with the handlers a newcomer writes first: answers returned by value (a fresh
# std::vector<uint8_t>, a std::vector<Student> copied), where "callwire" returns a view; and
# the same over JSON-RPC.
COPIES = "callwire-copies"
JSON_COPIES = "callwire-json-copies"
VARIANTS = {GZIP, JSON, COPIES, JSON_COPIES}
SUITE_PEERS = [p for _, peers in SUITES for p in peers]
BLOB_SIZES = [1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]
# put_blob, the upload (bench/peers/common/suite.hpp), at the sizes issue 30's goals name.
UPLOAD_SIZES = [1 << 20, 4 << 20, 16 << 20]

PAPER_PEERS = ["raw", "callwire", "callwire-gzip", "callwire-json", "grpc", "xmlrpc-c", "python",
               "jsonrpccpp"]
PAPER_FLOOR = "raw"
# Issue 12: callwire over JSON-RPC, the photo call within 2x gRPC's time and at least 10x
# faster than libjsonrpccpp.
GOAL_JSON_VS_GRPC = 2.0
GOAL_JSON_VS_JSONRPCCPP = 10.0
# Issue 30: the big calls within 1.3x the best binary peer, with either kind of handler, and at
# least 10x faster than xmlrpc-c.
BIG_CALLS = (["get_blob/1048576", "get_blob/4194304", "get_blob/16777216", "get_structs"] +
             [f"put_blob/{n}" for n in UPLOAD_SIZES])
BINARY_PEERS = ["grpc", "thrift", "capnp"]
GOAL_BIG_VS_BINARY = 1.3
GOAL_BIG_VS_XMLRPC_C = 10.0
# ... and a 16 MiB get_blob's memory at most 2.5x the payload on each side, above idle.
GOAL_BLOB_MEMORY = 2.5
BLOB_MEMORY_SIZE, BLOB_MEMORY_CALLS = 16 << 20, 5

LABELS = {
    "direct": "direct call",
    "raw-tcp": "raw TCP",
    "callwire": "callwire",
    "callwire-gzip": "callwire, gzip on",
    "callwire-copies": "callwire, handlers return copies",
    "callwire-json": "callwire, JSON-RPC",
    "callwire-json-copies": "callwire, JSON-RPC, handlers return copies",
    "grpc": "gRPC",
    "thrift": "Thrift",
    "capnp": "Cap'n Proto",
    "xmlrpc-c": "xmlrpc-c",
    "raw": "raw TCP",
    "python": "Python xmlrpc",
    "jsonrpccpp": "libjsonrpccpp",
}

# Experiments 3 and on: module names in bench/, run in this order after the suite and the paper.
EXPERIMENTS = ["startup", "heartbeat", "load", "scaling"]

SUMMARY_HEADER = ["experiment", "winner", "callwire", "best peer", "its time",
                  "callwire / best peer", "floor", "callwire / floor", "with gzip / best peer",
                  "returning copies / best peer"]

PACKAGES = [
    ("gRPC", "libgrpc++-dev"),
    ("protobuf", "libprotobuf-dev"),
    ("Thrift", "libthrift-dev"),
    ("Cap'n Proto", "libcapnp-dev"),
    ("xmlrpc-c", "libxmlrpc-c++8-dev"),
    ("libjsonrpccpp", "libjsonrpccpp-dev"),
    ("Python", "python3"),
    ("Google Benchmark", "libbenchmark-dev"),
    ("matplotlib", "python3-matplotlib"),
]


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- rpclib's suite

def run_suite(binary, min_time, repetitions):
    """{(peer, benchmark): {"wall": s, "cpu": s}} from the medians of one suite binary."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [
            str(binary),
            f"--benchmark_min_time={min_time}",
            f"--benchmark_repetitions={repetitions}",
            "--benchmark_report_aggregates_only=true",
            # Repetitions in random order, so that a noisy stretch on this shared machine hits
            # one repetition of several benchmarks rather than every repetition of one.
            "--benchmark_enable_random_interleaving=true",
            f"--benchmark_out={out.name}",
            "--benchmark_out_format=json",
            "--benchmark_color=false",
        ]
        log(f"running {binary.name}")
        started = time.monotonic()
        # The console report goes to stderr as progress.
        result = subprocess.run(command, stdout=sys.stderr)
        if result.returncode != 0:
            sys.exit(f"peers_run: {binary.name} failed (status {result.returncode}); "
                     "bench/PEERS.md left as it was")
        log(f"  {time.monotonic() - started:.0f} s")
        report = json.load(open(out.name))
    wanted = "median" if repetitions > 1 else None
    rows = {}
    for entry in report["benchmarks"]:
        if entry.get("aggregate_name") != wanted and not (wanted is None and
                                                          entry.get("run_type") == "iteration"):
            continue
        if entry.get("error_occurred"):
            sys.exit(f"peers_run: {entry['name']}: {entry.get('error_message')}")
        # run_name: PEER/get_answer/real_time, PEER/get_blob/SIZE/real_time, ...
        parts = entry["run_name"].split("/")
        peer, bench = parts[0], "/".join(p for p in parts[1:] if p != "real_time")
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[entry["time_unit"]]
        rows[(peer, bench)] = {"wall": entry["real_time"] * scale, "cpu": entry["process_cpu"],
                               "faults": entry.get("page_faults")}
    return rows


def run_blob_memory(peers_dir):
    """{variant: {...}}: each side's high-water mark over big get_blob calls (issue 30)."""
    results = {}
    for variant in ("view", "copies"):
        out = subprocess.run([str(peers_dir / "blob_memory_callwire"), variant,
                              str(BLOB_MEMORY_SIZE), str(BLOB_MEMORY_CALLS)],
                             capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            sys.exit(f"peers_run: blob_memory_callwire {variant} failed: {out.stderr.strip()}")
        results[variant] = json.loads(out.stdout)
    return results


def memory_above_idle(m, side):
    return m[f"{side}_peak"] - m[f"{side}_idle"]


def memory_ratio(m, side):
    return memory_above_idle(m, side) / m["payload"]


def slower_rows(suite):
    """The suite's benchmarks where a peer (not the floor, not a variant) beat callwire."""
    rows = []
    for bench in suite_benchmarks():
        wall = {p: suite.get((p, bench), {}).get("wall") for p in SUITE_PEERS}
        peer, peer_time = best_peer(wall, FLOORS | {CALLWIRE} | VARIANTS)
        if wall[CALLWIRE] is not None and peer_time is not None and wall[CALLWIRE] > peer_time:
            rows.append(bench)
    return rows


def profile_slower_rows(peers_dir, suite, min_time):
    """{benchmark: {category: share}}: callwire profiled (perf) on each row a peer won."""
    profiles = {}
    for bench in slower_rows(suite):
        log(f"profiling callwire/{bench}")
        shares = where_time_goes.profile([
            str(peers_dir / "suite_callwire"), f"--benchmark_filter=^callwire/{bench}/real_time$",
            f"--benchmark_min_time={min_time}"])
        if shares is None:
            log("peers_run: perf cannot profile here: the report will say so")
            return {}
        profiles[bench] = shares
    return profiles


def suite_benchmarks():
    return (["get_answer"] + [f"get_blob/{n}" for n in BLOB_SIZES] + ["get_structs"] +
            [f"put_blob/{n}" for n in UPLOAD_SIZES])


# ---------------------------------------------------------------- the paper

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def paper_commands(peers_dir, peer):
    """(server command, client command prefix) of a paper peer."""
    if peer == "python":
        python = sys.executable or "python3"
        folder = BENCH / "peers" / "python"
        return [python, str(folder / "paper_server.py")], [python, str(folder / "paper_client.py")]
    name = peer.replace("-", "_")
    if peer == GZIP:  # callwire's server and client, each with gzip turned on
        return ([str(peers_dir / "paper_callwire_server"), "--gzip"],
                [str(peers_dir / "paper_callwire_gzip_client")])
    if peer == JSON:  # callwire's server (a server of its own), the client speaking JSON-RPC
        return ([str(peers_dir / "paper_callwire_server")],
                [str(peers_dir / "paper_callwire_json_client")])
    server = [str(peers_dir / f"paper_{name}_server")]
    if peer == "jsonrpccpp":
        server.append(str(free_port()))  # its HttpServer cannot report a port picked for it
    return server, [str(peers_dir / f"paper_{name}_client")]


def process_cpu_seconds(pid):
    """utime + stime of a process, from /proc (clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(peers_dir, peer):
    """(server process, port, client command prefix) of a paper peer."""
    server_command, client_command = paper_commands(peers_dir, peer)
    server = subprocess.Popen(server_command, stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if not line.startswith("listening on "):
        server.kill()
        sys.exit(f"peers_run: the {peer} server did not start ({line!r})")
    return server, line.split()[-1], client_command


def run_paper(peers_dir, calls, runs):
    """{peer: {photo: {"wall", "cpu", "server_cpu", "process"}}} per call, medians over runs.

    Every server runs for the whole experiment and the client runs go round the peers (run 1
    of each peer, then run 2, ...), so a noisy minute on this shared machine spreads over all
    the peers instead of landing on one of them."""
    servers = {}
    samples = {peer: {False: [], True: []} for peer in PAPER_PEERS}
    try:
        for peer in PAPER_PEERS:
            servers[peer] = start_server(peers_dir, peer)
        for run in range(runs):
            log(f"the paper's benchmark: run {run + 1} of {runs}")
            for photo in (False, True):
                for peer in PAPER_PEERS:
                    server, port, client_command = servers[peer]
                    server_cpu = process_cpu_seconds(server.pid)
                    started = time.monotonic()
                    done = subprocess.run(
                        client_command + [port, str(calls), "1" if photo else "0"],
                        capture_output=True, text=True)
                    process_wall = time.monotonic() - started
                    server_cpu = process_cpu_seconds(server.pid) - server_cpu
                    if done.returncode != 0:
                        sys.stderr.write(done.stderr)
                        sys.exit(f"peers_run: the {peer} client failed (status "
                                 f"{done.returncode}); bench/PEERS.md left as it was")
                    report = json.loads(done.stdout.strip().splitlines()[-1])
                    samples[peer][photo].append({
                        "wall": report["wall_s"] / calls,
                        "cpu": report["cpu_s"] / calls,
                        "server_cpu": server_cpu / calls,
                        "process": process_wall,
                    })
    finally:
        for server, _, _ in servers.values():
            server.send_signal(signal.SIGTERM)
        for server, _, _ in servers.values():
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    results = {}
    for peer in PAPER_PEERS:
        results[peer] = {}
        for photo in (False, True):
            runs_of = samples[peer][photo]
            results[peer][photo] = {k: statistics.median(r[k] for r in runs_of)
                                    for k in runs_of[0]}
            log(f"  {peer} {'with' if photo else 'without'} the photo: "
                f"{results[peer][photo]['wall'] * 1e3:.3f} ms a call")
    return results


# ---------------------------------------------------------------- the report

def fmt_time(seconds):
    if seconds is None:
        return "—"
    if seconds < 1e-6:
        return f"{seconds * 1e9:.1f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(a, b):
    if not a or not b:
        return "—"
    r = a / b
    if r >= 100:
        return f"{r:,.0f}×"
    return f"{r:.2f}×" if r < 10 else f"{r:.1f}×"


def fmt_count(n):
    if n is None:
        return "—"
    return f"{n:,.0f}" if n >= 10 else f"{n:.1f}"


def fmt_size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def bench_label(bench):
    if bench.startswith(("get_blob/", "put_blob/")):
        name, size = bench.split("/")
        return f"{name} {fmt_size(int(size))}"
    return bench


def machine():
    model, cores = "unknown", os.cpu_count()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Model name":
                model = value.strip()
            elif key.strip() == "CPU(s)":
                cores = value.strip()
    except OSError:
        pass
    return model, cores


def versions():
    out = []
    for name, package in PACKAGES:
        v = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                           capture_output=True, text=True).stdout.strip() or "?"
        out.append(f"{name} {v} (`{package}`)")
    return out


def callwire_commit():
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True,
                              text=True).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD") or "?"
    # The results being written (RESULTS.md by make bench's first half, PEERS.md, the plots)
    # are not changes to the code measured.
    dirty = " with uncommitted changes" if git(
        "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/RESULTS.md",
        ":!bench/PEERS.md", ":!bench/plots") else ""
    return commit + dirty


def compiler_version():
    try:
        return subprocess.run(["g++", "-dumpfullversion"], capture_output=True,
                              text=True).stdout.strip() or "?"
    except OSError:
        return "?"


def best_peer(values, exclude):
    """(peer, time) of the fastest entry of {peer: time} not in `exclude`."""
    candidates = [(t, p) for p, t in values.items() if p not in exclude and t is not None]
    if not candidates:
        return None, None
    t, p = min(candidates)
    return p, t


def summary_rows(suite, paper):
    rows = []
    for bench in suite_benchmarks() if suite else []:
        wall = {p: suite.get((p, bench), {}).get("wall") for p in SUITE_PEERS}
        winner, _ = best_peer(wall, FLOORS | VARIANTS)
        peer, peer_time = best_peer(wall, FLOORS | {CALLWIRE} | VARIANTS)
        rows.append((f"rpclib suite: {bench_label(bench)}", LABELS.get(winner, "—"),
                     wall[CALLWIRE], LABELS.get(peer, "—"), peer_time,
                     fmt_ratio(wall[CALLWIRE], peer_time), wall[TCP_FLOOR],
                     fmt_ratio(wall[CALLWIRE], wall[TCP_FLOOR]),
                     fmt_ratio(wall[GZIP], peer_time), fmt_ratio(wall[COPIES], peer_time)))
    for photo in (False, True) if paper else ():
        wall = {p: paper[p][photo]["wall"] for p in paper}
        winner, _ = best_peer(wall, {PAPER_FLOOR} | VARIANTS)
        peer, peer_time = best_peer(wall, {PAPER_FLOOR, CALLWIRE} | VARIANTS)
        rows.append((f"paper: Database.Request {'with' if photo else 'without'} the photo",
                     LABELS.get(winner, "—"), wall.get(CALLWIRE), LABELS.get(peer, "—"),
                     peer_time, fmt_ratio(wall.get(CALLWIRE), peer_time),
                     wall.get(PAPER_FLOOR), fmt_ratio(wall.get(CALLWIRE), wall.get(PAPER_FLOOR)),
                     fmt_ratio(wall.get(GZIP), peer_time), "—"))
    return rows


def memory_goal_rows(memory):
    rows = []
    for side in ("client", "server"):
        worst = max(memory_ratio(m, side) for m in memory.values())
        rows.append((f"get_blob {fmt_size(BLOB_MEMORY_SIZE)}: the {side}'s memory ≤ "
                     f"{GOAL_BLOB_MEMORY:g}× the payload above idle",
                     "PASS" if worst <= GOAL_BLOB_MEMORY else "MISS",
                     ", ".join(f"{variant} {memory_ratio(m, side):.2f}× "
                               f"({memory_above_idle(m, side) / 2**20:.1f} MiB)"
                               for variant, m in memory.items())))
    return rows


def big_call_goal_rows(suite):
    """Issue 30's goals for the suite's big calls: (goal, PASS/MISS, measured) rows."""
    rows = []
    for bench in BIG_CALLS:
        wall = {p: suite.get((p, bench), {}).get("wall") for p in SUITE_PEERS}
        peer, peer_time = best_peer({p: wall[p] for p in BINARY_PEERS}, set())
        if peer_time is None or wall[CALLWIRE] is None or wall[COPIES] is None:
            continue
        worst = max(wall[CALLWIRE], wall[COPIES]) / peer_time
        # The issue expects the copies to add one copy to the view's time: beside it, the same
        # copy alone (the direct call: the data copied, returned and freed, no wire). Not a
        # verdict: in a call, the copy runs with the call's other buffers crowding the caches
        # (a 16 MiB one takes 1.5-2x its time alone), and under 10% of the call it is within
        # the difference of two medians' noise.
        added = wall[COPIES] - wall[CALLWIRE]
        one_copy = (f"; {'+' if added >= 0 else '−'}{fmt_time(abs(added))} over the view, the "
                    f"copy alone {fmt_time(wall[FLOOR])}" if wall[FLOOR] is not None else "")
        rows.append((f"{bench_label(bench)} ≤ {GOAL_BIG_VS_BINARY:g}× the best binary peer",
                     "PASS" if worst <= GOAL_BIG_VS_BINARY else "MISS",
                     f"view {fmt_ratio(wall[CALLWIRE], peer_time)} ({fmt_time(wall[CALLWIRE])}), "
                     f"copies {fmt_ratio(wall[COPIES], peer_time)} ({fmt_time(wall[COPIES])}"
                     f"{one_copy}); {LABELS[peer]} {fmt_time(peer_time)}"))
        if wall[XMLRPC_C] is not None:
            slowest = max(wall[CALLWIRE], wall[COPIES])
            rows.append((f"{bench_label(bench)} ≥ {GOAL_BIG_VS_XMLRPC_C:g}× faster than xmlrpc-c",
                         "PASS" if wall[XMLRPC_C] / slowest >= GOAL_BIG_VS_XMLRPC_C else "MISS",
                         f"view {wall[XMLRPC_C] / wall[CALLWIRE]:.1f}×, copies "
                         f"{wall[XMLRPC_C] / wall[COPIES]:.1f}× (xmlrpc-c "
                         f"{fmt_time(wall[XMLRPC_C])})"))
    return rows


def json_goal_rows(paper):
    """Issue 12's goals for the paper over JSON-RPC: (goal, PASS/MISS, measured) rows."""
    rows = []
    for photo in (False, True):
        wall = {p: paper[p][photo]["wall"] for p in paper}
        ours, grpc, jsonrpccpp = wall.get(JSON), wall.get("grpc"), wall.get("jsonrpccpp")
        if not (ours and grpc and jsonrpccpp):
            continue
        faster = jsonrpccpp / ours
        if photo:
            rows.append((f"the photo call over JSON-RPC ≤ {GOAL_JSON_VS_GRPC:g}× gRPC's time",
                         "PASS" if ours / grpc <= GOAL_JSON_VS_GRPC else "MISS",
                         f"{fmt_ratio(ours, grpc)} ({fmt_time(ours)} vs {fmt_time(grpc)})"))
            rows.append((f"the photo call over JSON-RPC ≥ {GOAL_JSON_VS_JSONRPCCPP:g}× faster than "
                         "libjsonrpccpp", "PASS" if faster >= GOAL_JSON_VS_JSONRPCCPP else "MISS",
                         f"{faster:.1f}× faster ({fmt_time(ours)} vs {fmt_time(jsonrpccpp)})"))
        else:
            rows.append(("the call without the photo over JSON-RPC", "no goal",
                         f"{fmt_ratio(ours, grpc)} gRPC's time, {faster:.1f}× faster than "
                         f"libjsonrpccpp ({fmt_time(ours)}; gRPC {fmt_time(grpc)}, "
                         f"libjsonrpccpp {fmt_time(jsonrpccpp)})"))
    return rows


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "--:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def report_lines(suite, paper, profiles, extra, settings, started, load, elapsed, plots,
                 commit, memory=None):
    """The whole report; `suite` or `paper` may be None when --only left them out."""
    model, cores = machine()
    lines = [
        "# callwire beside the RPC peers",
        "",
        "Generated by `make bench-peers` (bench/peers_run.py over bench/peers/); do not edit by "
        "hand. Issue 9, part 2. The short version, `make bench`, writes "
        "bench/RESULTS.md.",
        "",
        f"- date: {started:%Y-%m-%d %H:%M} UTC; the run took {elapsed / 60:.1f} minutes after "
        "the build",
        f"- command: `make bench-peers` (`python3 bench/peers_run.py build/bench-peers"
        f"{' --quick' if settings['quick'] else ''}`)",
        f"- machine: {model}, {cores} CPUs, {platform.system()} {platform.release()}; load "
        f"average before the run: {load}",
        f"- callwire: commit {commit}; every program built in Release (-O3) with "
        f"g++ {compiler_version()}",
        "- peers (Debian packages): " + ", ".join(versions()),
        f"- method: rpclib's suite: Google Benchmark, medians of {settings['repetitions']} "
        f"repetitions of at least {settings['min_time']} s of wall time each, in random "
        "order; the paper: "
        f"medians of {settings['runs']} client processes of {settings['calls']} calls each, in "
        "rounds that go through every peer in turn",
        "",
        "**Read the ratios, not the absolute times**: this is a shared 2-CPU virtual machine "
        "and other work ran beside this run. A ratio below 1× means callwire is faster.",
        "",
        "## Summary",
        "",
        "Wall time per call. Winner: the fastest of callwire and the peers (the floor and "
        "callwire's gzip variant are not candidates). Best peer: the fastest other than "
        "callwire. Floor: the same calls over raw TCP with no RPC library (in one process "
        "for rpclib's suite, two for the paper): what no RPC system on this machine can beat. "
        "callwire runs with its defaults, which gzip "
        "nothing; the last column is callwire with gzip turned on at both ends (the server's "
        "`gzip_min_size` 4096, the client's `accept_gzip`), against the same best peer: what "
        "opting in costs on loopback; the one after it callwire with handlers that return "
        "their answers by value (a fresh `std::vector<uint8_t>`, a copied "
        "`std::vector<Student>`) instead of a view and a reference.",
        "",
    ]
    rows = [(r[0], r[1], fmt_time(r[2]), r[3], fmt_time(r[4]), r[5], fmt_time(r[6]), r[7], r[8],
             r[9]) for r in summary_rows(suite, paper)]
    for module, results in extra:
        # Their rows stop at the gzip column: the handlers' variant is the suite's alone.
        rows += [tuple(r) + ("—",) * (len(SUMMARY_HEADER) - len(r))
                 for r in module.summary_rows(results)]
    lines += table(SUMMARY_HEADER, rows)
    big_rows = big_call_goal_rows(suite) if suite else []
    big_rows += memory_goal_rows(memory) if memory else []
    if big_rows:
        lines += ["", "### Goals: big calls close to the wire (issue 30)", "",
                  "callwire's wall time per call against the best binary peer (gRPC, Thrift, "
                  f"Cap'n Proto) in the same run, goal ≤ {GOAL_BIG_VS_BINARY:g}×, with the "
                  "handlers returning a view (*view*) and returning copies (*copies*); and "
                  f"xmlrpc-c's time over callwire's, goal ≥ {GOAL_BIG_VS_XMLRPC_C:g}×; beside "
                  "what the copies add to the view's time, the same copy alone (the direct "
                  "call, no wire). Memory: "
                  "callwire's client and server in two processes "
                  "(bench/peers/callwire/blob_memory_callwire.cpp), each side's resident "
                  f"high-water mark over {BLOB_MEMORY_CALLS} calls of get_blob "
                  f"{fmt_size(BLOB_MEMORY_SIZE)} above its resident size once connected "
                  "(VmHWM, reset through /proc/self/clear_refs), over the payload; the server "
                  "holds the blob before it is measured.", ""]
        lines += ["| goal | result | measured |", "|---|---|---|"]
        lines += [f"| {g} | **{v}** | {m} |" for g, v, m in big_rows]
    goal_rows = json_goal_rows(paper) if paper else []
    if goal_rows:
        lines += ["", "### Goals: the paper over JSON-RPC (issue 12)", "",
                  "callwire's client and server speaking JSON-RPC 2.0 (*callwire, JSON-RPC* in "
                  "section 2: the photo as base64 text, as libjsonrpccpp sends it), wall time "
                  "per call against gRPC's and libjsonrpccpp's in the same run.", ""]
        lines += ["| goal | result | measured |", "|---|---|---|"]
        lines += [f"| {g} | **{v}** | {m} |" for g, v, m in goal_rows]
    if suite:
        lines += suite_section(suite, profiles)
    if paper:
        lines += paper_section(paper, settings)
    for module, results in extra:
        lines += [""] + module.section(results)
    if plots:
        lines += ["", "## Plots", ""]
        for title, name in plots:
            lines += [f"![{title}](plots/{name})", ""]
    return lines


def suite_section(suite, profiles):
    lines = [
        "",
        "## 1. rpclib's suite",
        "",
        "From Tamás Szelei's rpclib benchmark of gRPC, Thrift and Cap'n Proto (\"Benchmark "
        "and comparison of RPC solutions\"). Client and server in "
        "one process, one kept-alive connection, synchronous calls: `get_answer(n)` answers "
        "41 + n; `get_blob(n)` the first n of 16 MiB of random bytes made once at start, copied "
        "into each answer; `get_structs()` 34 Students (the issue's shapes and string lengths; "
        "about 4.3 MB as XML-RPC), which the server converts from native structs on every "
        "call and the client converts back into native structs; `put_blob(bytes)`, the upload "
        "rpclib's suite lacks (a file sent to WordPress, Koji or Odoo), the first 1, 4 or 16 MiB "
        "of the same bytes as the parameter, answered with their size and a sample of them. "
        "Each answer is checked once before the timed loop.",
        "",
        "How each peer is written (bench/peers/): callwire with typed `bind` and "
        "`call<R>` (`Convert` specialisations on `member_as` for the structs, "
        "`std::vector<uint8_t>` as base64 for the blob), default options apart from the size "
        "limits, so no gzip on either side (`ServerOptions::gzip_min_size` 0, "
        "`ClientOptions::accept_gzip` false); *callwire, gzip on* is the same with "
        "`gzip_min_size = 4096` and `accept_gzip = true`: the server gzips answers from 4 KiB "
        "at level 1; *callwire, handlers return copies* is the defaults with the handlers a "
        "newcomer writes first, answers returned by value (get_blob a fresh "
        "`std::vector<uint8_t>`, get_structs a `std::vector<Student>` copied from the source, "
        "put_blob's parameter a `std::vector<uint8_t>`), where *callwire* returns a "
        "`std::span` view of the blob and a `const&` to the students and takes put_blob's "
        "bytes as a `std::span`; *callwire, JSON-RPC* and *callwire, JSON-RPC, handlers return copies* are "
        "those two with the client on a `jsonrpc+http://` URL (the same server and handlers; "
        "the blob travels as base64 text, the students as JSON objects). "
        "gRPC: synchronous server and stub, one channel, the 4 MiB message limit raised. "
        "Thrift: binary protocol, buffered TSocket (TCP_NODELAY), TThreadedServer. Cap'n "
        "Proto: EzRpcServer on its own thread, EzRpcClient. xmlrpc-c: Abyss on a thread, the "
        "curl transport with client_xml, the 512 KiB XML limit raised, keep-alive not capped "
        "at Abyss's 30 requests. Direct: the function called in the same thread, returning a "
        "copy. Raw TCP (bench/peers/raw/suite_raw.cpp): the wire floor, the same calls over "
        "one loopback connection to a server thread with no RPC library (an opcode and an "
        "argument; a length and the bytes: the blob written straight from its source, the "
        "students encoded on every call in a plain length-prefixed binary form and decoded "
        "into native structs).",
        "",
        "### Wall time per call",
        "",
    ]
    header = ["call"] + [LABELS[p] for p in SUITE_PEERS]
    lines += per_peer_table(suite, header, "wall", fmt_time)
    lines += [
        "",
        "### Process CPU per call",
        "",
        "CPU time of the whole process (every thread: client, server, the library's own) per "
        "call, from CLOCK_PROCESS_CPUTIME_ID around the timed loop. Google Benchmark's own "
        "cpu_time counts only the calling thread and hides the server.",
        "",
    ]
    lines += per_peer_table(suite, header, "cpu", fmt_time)
    lines += [
        "",
        "### Page faults per call",
        "",
        "The whole process's page faults (minor and major, getrusage) over the timed loop, per "
        "call: a buffer mapped afresh on every call would show here as thousands (a 16 MiB "
        "blob is 4,096 pages).",
        "",
    ]
    lines += per_peer_table(suite, header, "faults", fmt_count)
    lines += [
        "",
        "### callwire's ratios",
        "",
    ]
    others = [p for p in SUITE_PEERS if p not in FLOORS | {CALLWIRE} | VARIANTS]
    floors = [TCP_FLOOR, FLOOR]
    lines += table(["call"] + [f"callwire / {LABELS[p]}" for p in others + floors],
                   [[bench_label(b)] + [fmt_ratio(suite.get((CALLWIRE, b), {}).get("wall"),
                                                  suite.get((p, b), {}).get("wall"))
                                        for p in others + floors]
                    for b in suite_benchmarks()])
    lines += wire_bound_section(suite)
    lines += bounds_section(suite, profiles)
    return lines


def per_peer_table(suite, header, key, fmt):
    """A row per call, a column per peer: `key` of each result, written by `fmt`."""
    return table(header, [[bench_label(b)] + [fmt(suite.get((p, b), {}).get(key))
                                              for p in SUITE_PEERS]
                          for b in suite_benchmarks()])


def wire_bound_section(suite):
    """Where "ten times faster than xmlrpc-c" would be faster than the wire itself."""
    lines = ["", "### Ten times faster than xmlrpc-c, against the wire", ""]
    rows = []
    for bench in suite_benchmarks():
        xmlrpc_c = suite.get((XMLRPC_C, bench), {}).get("wall")
        wire = suite.get((TCP_FLOOR, bench), {}).get("wall")
        ours = suite.get((CALLWIRE, bench), {}).get("wall")
        if xmlrpc_c is None or wire is None or ours is None:
            continue
        rows.append([bench_label(bench), fmt_time(xmlrpc_c / 10), fmt_time(wire),
                     "yes" if xmlrpc_c / 10 < wire else "no",
                     fmt_ratio(xmlrpc_c, ours)])
    below = [r[0] for r in rows if r[3] == "yes"]
    lines += [
        "A tenth of xmlrpc-c's time per call next to the raw TCP floor of the same call "
        "measured in this run (the same request and answer bytes' worth over one loopback "
        "connection to a thread, no RPC library). Where the tenth is below the floor, no "
        "library can be ten times faster than xmlrpc-c: the round trip alone costs more. " +
        ("In this run that holds for: " + ", ".join(below) + "." if below else
         "In this run the tenth is above the floor on every call."),
        "",
    ]
    lines += table(["call", "xmlrpc-c / 10", "raw TCP", "below the wire?",
                    "xmlrpc-c / callwire"], rows)
    return lines


def bounds_section(suite, profiles):
    """What bounds callwire on each row a peer won: its profile from this run."""
    slower = slower_rows(suite)
    lines = ["", "### What bounds callwire where a peer is faster", ""]
    if not slower:
        return lines + ["No peer is faster than callwire on any call of this run."]
    if not profiles:
        return lines + ["perf could not profile on this machine, so this run has no profile "
                        "of those calls: " + ", ".join(bench_label(b) for b in slower) + "."]
    lines += [
        "callwire alone, profiled with perf (`perf record -F 1999`, every thread of the "
        "process) on each call where a peer was faster, in this run; the shares of its CPU "
        "samples by what the code was doing (bench/where_time_goes.py says which symbols go "
        "where). Socket copies, system calls and page faults are the kernel's work for "
        "callwire; base64 is the bytes' price on XML-RPC's wire (4/3 of them, encoded and "
        "decoded); copies and allocation include the handler's own copy of the blob, which "
        "every peer makes.",
        "",
    ]
    names = where_time_goes.NAMES
    rows = []
    for bench in slower:
        wall = {p: suite.get((p, bench), {}).get("wall") for p in SUITE_PEERS}
        peer, peer_time = best_peer(wall, FLOORS | {CALLWIRE} | VARIANTS)
        shares = profiles.get(bench)
        rows.append([bench_label(bench), f"{LABELS[peer]} {fmt_ratio(wall[CALLWIRE], peer_time)}"]
                    + ([f"{shares[n] * 100:.0f}%" for n in names] if shares else ["—"] * len(names)))
    lines += table(["call", "faster peer, callwire / it"] + names, rows)
    return lines


def paper_section(paper, settings):
    lines = [
        "",
        "## 2. The paper's Database.Request",
        "",
        "From the paper \"Some aspects of using RPC\" (Király, Székely, Király, Balla): "
        "`Database.Request(id, "
        "photo) -> Info`, the ten fields of the paper's proto, with an optional photo of "
        "1,000,000 random bytes. A server process holds 100 records; a separate client "
        f"process makes {settings['calls']} calls (ids 1, 2, ...) on one client object and "
        "checks the last answer after its clock stops. Per call: the client's wall time "
        "(making the client, its connection and every call; not the process start), the "
        "client's CPU and the server's CPU (/proc, 10 ms ticks). *Whole client* is the "
        "client process from exec to exit, in total.",
        "",
        "Peers: callwire (typed `bind` and `call<Info>`, default options: no gzip; "
        "*callwire, gzip on*: a second server started with `--gzip`, `gzip_min_size` 4096, and "
        "a client with `accept_gzip` on; *callwire, JSON-RPC*: a third server, the same "
        "program, and a client on a `jsonrpc+http://` URL making the same typed `call<Info>`: "
        "the photo travels as base64 text, which that call decodes straight from the answer "
        "into `info.photo`), gRPC (the paper's "
        "proto, synchronous server and stub), xmlrpc-c (Abyss server, curl client, XML limit "
        "raised), Python's xmlrpc.server and xmlrpc.client (request log off; the server "
        "answers in HTTP/1.0 and closes, so that client connects once per call, as it does "
        "by default), libjsonrpccpp "
        "(its HttpServer on libmicrohttpd and HttpClient on curl, stubs generated by "
        "jsonrpcstub; the photo as base64 text; built as C++14 because its headers use "
        "dynamic exception specifications, which C++17 removed), and the floor: the same "
        "fields in a plain binary form over raw TCP.",
        "",
    ]
    rows = []
    for peer in paper:
        for photo in (False, True):
            r = paper[peer][photo]
            rows.append([LABELS[peer], "yes" if photo else "no", fmt_time(r["wall"]),
                         fmt_time(r["cpu"]), fmt_time(r["server_cpu"]), fmt_time(r["process"]),
                         fmt_ratio(r["wall"], paper[PAPER_FLOOR][photo]["wall"])])
    lines += table(["peer", "photo", "wall per call", "client CPU per call",
                    "server CPU per call", "whole client", "/ floor"], rows)
    return lines


def make_plots(suite, paper, directory):
    """[(title, file name)] of the plots written to `directory`; none without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("peers_run: no matplotlib (scripts/setup-bench-peers.sh installs it): no plots")
        return []
    directory.mkdir(exist_ok=True)
    made = []
    if suite:
        made += suite_plots(plt, suite, directory)
    if paper:
        made += paper_plots(plt, paper, directory)
    return made


def suite_plots(plt, suite, directory):
    made = []
    markers = dict(zip(SUITE_PEERS, "osDv^<>xPh*dp+"))  # one for each peer
    for key, title, name in (("wall", "get_blob: wall time per call", "peers_blob_wall.png"),
                             ("cpu", "get_blob: process CPU per call", "peers_blob_cpu.png")):
        fig, ax = plt.subplots(figsize=(8, 5.5))
        for peer in SUITE_PEERS:
            points = [(n, suite[(peer, f"get_blob/{n}")][key]) for n in BLOB_SIZES
                      if (peer, f"get_blob/{n}") in suite]
            if points:
                ax.plot([n for n, _ in points], [t for _, t in points], marker=markers[peer],
                        linestyle="--" if peer in VARIANTS | FLOORS else "-",
                        label=LABELS[peer])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(BLOB_SIZES, [fmt_size(n) for n in BLOB_SIZES])
        ax.set_xlabel("blob size")
        ax.set_ylabel("seconds per call")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(directory / name, dpi=100)
        plt.close(fig)
        made.append((title, name))

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    for ax, bench in zip(axes, ("get_answer", "get_structs")):
        peers = [p for p in SUITE_PEERS if (p, bench) in suite]
        ax.bar([LABELS[p] for p in peers], [suite[(p, bench)]["wall"] for p in peers],
               label="wall")
        ax.plot([LABELS[p] for p in peers], [suite[(p, bench)]["cpu"] for p in peers], "k_",
                markersize=18, label="process CPU")
        ax.set_yscale("log")
        ax.set_title(f"{bench}: seconds per call")
        ax.tick_params(axis="x", rotation=45)
        ax.legend()
    fig.tight_layout()
    fig.savefig(directory / "peers_small_structs.png", dpi=100)
    plt.close(fig)
    made.append(("get_answer and get_structs", "peers_small_structs.png"))
    return made


def paper_plots(plt, paper, directory):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    peers = list(paper)
    width = 0.4
    for i, photo in enumerate((False, True)):
        ax.bar([j + (i - 0.5) * width for j in range(len(peers))],
               [paper[p][photo]["wall"] for p in peers], width,
               label="with the photo" if photo else "without")
    ax.set_xticks(range(len(peers)), [LABELS[p] for p in peers])
    ax.set_yscale("log")
    ax.set_ylabel("seconds per call")
    ax.set_title("the paper's Database.Request, separate processes")
    ax.legend()
    fig.tight_layout()
    fig.savefig(directory / "peers_paper.png", dpi=100)
    plt.close(fig)
    return [("the paper's Database.Request", "peers_paper.png")]


def main():
    argv = sys.argv[1:]
    only = None
    if "--only" in argv:
        i = argv.index("--only")
        if i + 1 >= len(argv):
            sys.exit(__doc__)
        only = set(argv[i + 1].split(","))
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    quick = "--quick" in argv
    if len(args) != 1:
        sys.exit(__doc__)
    build_dir = Path(args[0]).resolve()
    peers_dir = build_dir / "bench" / "peers"
    modules = [importlib.import_module(name) for name in EXPERIMENTS]
    known = {"suite", "paper"} | {m.NAME for m in modules}
    if only is not None and not only <= known:
        sys.exit(f"peers_run: unknown experiments {sorted(only - known)}; known: {sorted(known)}")
    wanted = lambda name: only is None or name in only
    settings = {
        "quick": quick,
        "min_time": 0.05 if quick else 0.3,
        "repetitions": 1 if quick else 5,
        "calls": 10 if quick else 100,
        "runs": 1 if quick else 5,
    }
    started = datetime.datetime.now(datetime.timezone.utc)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    # Before the plots are written: they are tracked, and would read as uncommitted changes.
    commit = callwire_commit()
    clock = time.monotonic()

    suite = None
    if wanted("suite"):
        suite = {}
        for binary, _ in SUITES:
            suite.update(run_suite(peers_dir / binary, settings["min_time"],
                                   settings["repetitions"]))
    profiles = profile_slower_rows(peers_dir, suite, 0.2 if quick else 1.0) if suite else {}
    memory = run_blob_memory(peers_dir) if suite else None
    paper = run_paper(peers_dir, settings["calls"], settings["runs"]) if wanted("paper") else None
    extra = [(m, m.run(build_dir, settings)) for m in modules if wanted(m.NAME)]

    # --only leaves the tracked plots alone too.
    plots_dir = PLOTS if only is None else Path(tempfile.mkdtemp(prefix="peers-plots-"))
    plots = make_plots(suite, paper, plots_dir)
    for module, results in extra:
        plots += module.plots(results, plots_dir)
    lines = report_lines(suite, paper, profiles, extra, settings, started, load,
                         time.monotonic() - clock, plots, commit, memory)
    if only is not None:
        print("\n".join(lines))
        log(f"peers_run: --only: bench/PEERS.md left as it was; plots in {plots_dir}")
        return
    REPORT.write_text("\n".join(lines).rstrip() + "\n")
    print("\n".join(lines[:40]))
    log(f"peers_run: wrote {REPORT.relative_to(ROOT)} and {len(plots)} plots in "
        f"{PLOTS.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
