"""Experiment 3 of `make bench-peers` (bench/peers_run.py): xmlrpc-c's performance page
(its documentation's "Performance" chapter).

A client program starts, makes N sample.add calls on one client object and exits; the whole
process is timed from exec to exit. From runs of 1 and of many calls: the marginal time per
call ((T_N - T_1) / (N - 1), medians of several runs), the fixed cost (start-up and the first
call: T_1) and the CPU split per call between the client (the child's rusage) and the server
(the server process's CPU clock, which counts every thread, ended ones too: Abyss runs each
connection on a thread of its own that ends with it, so /proc/PID/task/*/schedstat would miss
them). Clients: callwire's C API and C++ API, xmlrpc-c's C client (the global client, as its
sample client) and C++ client (client_xml over the curl transport); servers: `callwire serve
--threads 1` and xmlrpc-c's Abyss with its defaults (bench/net/xmlrpc_c_server.c); the floor is
bench/net's raw_lat_client and raw_lat_server writing the same bytes with no parsing.

Over the packet stream (issue 11), the same experiment without HTTP: callwire's C and C++
clients with a pstream:// URL and xmlrpc-c's C++ packet-stream client (clientXmlTransport_pstream
on a socket the program connects, bench/peers/xmlrpc_c/startup_xmlrpc_c_pstream.cpp), each
against `callwire serve --threads 1 --pstream` and xmlrpc-c's serverPstreamConn
(bench/net/xmlrpc_c_pstream_server.cpp); the floor is raw_lat_client and raw_lat_server with
callwire's packets. xmlrpc-c's pair is skipped, saying so, where its programs were not built.

TCP_NODELAY: the same programs under bench/peers/nodelay/nodelay_shim.c (LD_PRELOAD), which
forces the option on or off on every TCP socket after connect()/accept() and ignores the
programs' own setsockopt; its log shows, per socket, what getsockopt read back, and every run
is checked against it.
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import net_run

NAME = "startup"

CLIENTS = {  # name: (label, program in BUILD/bench/peers)
    "callwire C": ("callwire C API (cw_client_call)", "startup_callwire_c"),
    "callwire C++": ("callwire C++ API (Client::call<int>)", "startup_callwire_cpp"),
    "xmlrpc-c C": ("xmlrpc-c C client (xmlrpc_client_call, curl)", "startup_xmlrpc_c_c"),
    "xmlrpc-c C++": ("xmlrpc-c C++ client (client_xml, carriageParm_curl0, curl)",
                     "startup_xmlrpc_c_cpp"),
    "xmlrpc-c C++ pstream": ("xmlrpc-c C++ packet-stream client (client_xml, "
                             "clientXmlTransport_pstream on its own socket)",
                             "startup_xmlrpc_c_pstream"),
}
SERVERS = {"callwire": "`callwire serve --threads 1`", "Abyss": "xmlrpc-c Abyss, defaults",
           "raw": "raw_lat_server",
           "callwire pstream": "`callwire serve --threads 1 --pstream`",
           "xmlrpc-c pstream": "xmlrpc-c serverPstreamConn", "raw pstream": "raw_lat_server"}
RAW = ("raw", "raw")  # the floor: raw_lat_client against raw_lat_server
RAW_PSTREAM = ("raw", "raw pstream")  # the same with callwire's packets
HTTP_CLIENTS = ["callwire C", "callwire C++", "xmlrpc-c C", "xmlrpc-c C++"]
PSTREAM_CLIENTS = ["callwire C", "callwire C++", "xmlrpc-c C++ pstream"]
# Every client against every server with the programs' own TCP_NODELAY settings; the native
# pairs and one cross pair each way again with the option forced on or off on each side.
PAIRS = [(c, s) for s in ("callwire", "Abyss") for c in HTTP_CLIENTS] + [RAW]
# The same over the packet stream (own settings only).
PSTREAM_PAIRS = [(c, s) for s in ("callwire pstream", "xmlrpc-c pstream")
                 for c in PSTREAM_CLIENTS] + [RAW_PSTREAM]
NODELAY_PAIRS = [("callwire C", "callwire"), ("xmlrpc-c C", "Abyss"),
                 ("callwire C++", "callwire"), ("xmlrpc-c C++", "Abyss"),
                 ("callwire C", "Abyss"), ("xmlrpc-c C", "callwire")]
FORCED = [("1", "1"), ("1", "0"), ("0", "1"), ("0", "0")]  # (client, server) TCP_NODELAY
OWN = ("", "")  # no value forced: the programs' own choice
MAX_CALLS = 1000
STALL, STALLED_CALLS = 0.005, 20  # over 5 ms a call: a stalled pair (Nagle), 20 calls will do


def log(message):
    print(message, file=sys.stderr, flush=True)


def server_cpu_ns(pid):
    """CPU time of process `pid`, every thread, ended ones included (its CPU-time clock, as
    clock_getcpuclockid makes it: CPUCLOCK_SCHED of the process)."""
    return time.clock_gettime_ns(((~pid) << 3) | 2)


def env_assignments(shim, value, log_file):
    """The environment of a program under the TCP_NODELAY shim, as NAME=VALUE strings."""
    return [f"LD_PRELOAD={shim}", f"PEERS_NODELAY_LOG={log_file}"] + (
        [f"PEERS_NODELAY={value}"] if value else [])


def shim_env(shim, value, log_file):
    env = {k: v for k, v in os.environ.items() if k != "PEERS_NODELAY"}
    env.update(a.split("=", 1) for a in env_assignments(shim, value, log_file))
    return env


def log_lines(path):
    return path.read_text().splitlines() if path.exists() else []


class Servers:
    """One server per (server, forced value), started on first use, all stopped at the end."""

    def __init__(self, build_dir, shim, files, tmp):
        self.build_dir, self.shim, self.files, self.tmp = build_dir, shim, files, tmp
        self.running = {}

    def get(self, server, value):
        key = (server, value)
        if key not in self.running:
            bench = self.build_dir / "bench"
            command = {
                "callwire": [self.build_dir / "tools" / "callwire", "serve", "--threads", "1",
                             "--listen", "127.0.0.1:0"],
                "Abyss": [bench / "xmlrpc_c_server"],
                "raw": [bench / "raw_lat_server", self.files["raw"]["request_length"],
                        self.files["raw"]["response"]],
                "callwire pstream": [self.build_dir / "tools" / "callwire", "serve", "--threads",
                                     "1", "--pstream", "127.0.0.1:0"],
                "xmlrpc-c pstream": [bench / "xmlrpc_c_pstream_server"],
                "raw pstream": [bench / "raw_lat_server",
                                self.files["raw pstream"]["request_length"],
                                self.files["raw pstream"]["response"]],
            }[server]
            log_file = self.tmp / f"server-{server}-{value or 'own'}.log"
            # Through env(1), which execs the server: the pid stays the server's.
            self.running[key] = (net_run.Server(["env", *env_assignments(self.shim, value,
                                                                         log_file), *command]),
                                 log_file)
        return self.running[key]

    def stop(self):
        for server, _ in self.running.values():
            server.stop()


def run_client(command, env, timeout=60):
    """(wall s, client CPU s) of one client process from exec to exit; exits on failure.
    The CPU is the growth of RUSAGE_CHILDREN: the servers are not reaped until the end, so
    the client is the only child that ends in between."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.Popen([str(c) for c in command], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        _, error = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        sys.exit(f"peers_run: {Path(str(command[0])).name} took over {timeout} s; "
                 "bench/PEERS.md left as it was")
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(error.decode(errors="replace"))
        sys.exit(f"peers_run: {Path(str(command[0])).name} failed (status {proc.returncode}); "
                 "bench/PEERS.md left as it was")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def check_shim(lines, value, what):
    """What the shim logged for one side of a run: the connections it saw and the TCP_NODELAY
    getsockopt read back on them (or, unforced, what the program asked for)."""
    sockets = [l for l in lines if " setsockopt " not in l]
    if not sockets:
        sys.exit(f"peers_run: the TCP_NODELAY shim saw no connection of the {what}")
    seen = {l.split("nodelay=")[1][0] for l in sockets}
    if value and seen != {value}:
        sys.exit(f"peers_run: TCP_NODELAY {value} forced on the {what}, read back {seen}")
    asked = {l.split("nodelay=")[1][0] for l in lines if " setsockopt " in l}
    return {"connections": len(sockets), "nodelay": "".join(sorted(asked or seen))}


def one_run(b, servers, pair, values, calls, tmp):
    """{"wall", "cpu", "server_cpu", "connections", "client_nodelay", "server_nodelay"}."""
    client, server_name = pair
    server, server_log = servers.get(server_name, values[1])
    client_log = tmp / "client.log"
    client_log.unlink(missing_ok=True)
    if client == "raw":
        files = servers.files[server_name]
        command = [b / "bench" / "raw_lat_client", f"{server.host}:{server.port}",
                   files["request"], files["response_length"], "--calls", calls, "--warmup", "0"]
    else:
        command = [b / "bench" / "peers" / CLIENTS[client][1], server.url, calls]
    before_lines = len(log_lines(server_log))
    before = server_cpu_ns(server.pid)
    wall, cpu = run_client(command, shim_env(servers.shim, values[0], client_log))
    server_cpu = (server_cpu_ns(server.pid) - before) / 1e9
    c = check_shim(log_lines(client_log), values[0], f"{client} client")
    s = check_shim(log_lines(server_log)[before_lines:], values[1], f"{server_name} server")
    return {"wall": wall, "cpu": cpu, "server_cpu": server_cpu,
            "connections": s["connections"], "client_nodelay": c["nodelay"],
            "server_nodelay": s["nodelay"]}


def plan(b, servers, pair, values, tmp, quick):
    """The call counts of a pair: 1, 100 (own settings only) and MAX_CALLS, or 1 and
    STALLED_CALLS when a probe of 20 calls shows a stall (Nagle): 1000 calls of 40 ms would
    take 40 s."""
    one = one_run(b, servers, pair, values, 1, tmp)["wall"]
    twenty = one_run(b, servers, pair, values, 20, tmp)["wall"]
    if (twenty - one) / 19 > STALL:
        return [1, STALLED_CALLS]
    big = MAX_CALLS // 10 if quick else MAX_CALLS
    return [1, 100, big] if values == OWN and big > 100 else [1, big]


def run(build_dir, settings):
    quick = settings["quick"]
    reps = 1 if quick else 5
    b = build_dir
    shim = b / "bench" / "peers" / "libpeers_nodelay.so"
    nodelay_pairs = NODELAY_PAIRS[:2] if quick else NODELAY_PAIRS
    pstream_pairs = PSTREAM_PAIRS
    xmlrpc_c_pstream = [b / "bench" / "peers" / CLIENTS["xmlrpc-c C++ pstream"][1],
                        b / "bench" / "xmlrpc_c_pstream_server"]
    if not all(path.exists() for path in xmlrpc_c_pstream):
        log("xmlrpc-c's page: xmlrpc-c's packet-stream pairs skipped (not built: "
            f"{', '.join(str(path) for path in xmlrpc_c_pstream if not path.exists())})")
        pstream_pairs = [p for p in PSTREAM_PAIRS
                         if "xmlrpc-c C++ pstream" not in p and "xmlrpc-c pstream" not in p]
    combos = ([(p, OWN) for p in PAIRS] + [(p, v) for p in nodelay_pairs for v in FORCED] +
              [(p, OWN) for p in pstream_pairs])
    samples = {}
    with tempfile.TemporaryDirectory(prefix="callwire-startup-") as tmp_name:
        tmp = Path(tmp_name)
        log("xmlrpc-c's page: capturing callwire's requests and responses for the floors")
        files = {}
        for name, pstream in (("raw", False), ("raw pstream", True)):
            request, response = net_run.capture(b / "tools" / "callwire",
                                                b / "bench" / "cw_lat_client", pstream=pstream)
            stem = name.replace(" ", "-")
            (tmp / f"{stem}-request.bin").write_bytes(request)
            (tmp / f"{stem}-response.bin").write_bytes(response)
            files[name] = {"request": tmp / f"{stem}-request.bin",
                           "response": tmp / f"{stem}-response.bin",
                           "request_length": len(request), "response_length": len(response)}
        servers = Servers(b, shim, files, tmp)
        try:
            counts = {}
            for pair, values in combos:
                counts[(pair, values)] = plan(b, servers, pair, values, tmp, quick)
            # Rounds over every combination, so that a noisy stretch of this shared machine
            # spreads over all of them.
            for rep in range(reps):
                log(f"xmlrpc-c's page: round {rep + 1} of {reps}, {len(combos)} combinations")
                for (pair, values), ns in counts.items():
                    for n in ns:
                        r = one_run(b, servers, pair, values, n, tmp)
                        samples.setdefault((pair, values, n), []).append(r)
        finally:
            servers.stop()
    results = {}
    for (pair, values), ns in counts.items():
        med = {n: {k: statistics.median(r[k] for r in samples[(pair, values, n)])
                   for k in ("wall", "cpu", "server_cpu")} for n in ns}
        big = ns[-1]
        last = samples[(pair, values, big)][-1]
        r = {
            "calls": big,
            "fixed": med[1]["wall"], "fixed_cpu": med[1]["cpu"],
            "t100": med.get(100, {}).get("wall"),
            "t_big": med[big]["wall"],
            "marginal": (med[big]["wall"] - med[1]["wall"]) / (big - 1),
            "client_cpu": (med[big]["cpu"] - med[1]["cpu"]) / (big - 1),
            "server_cpu": (med[big]["server_cpu"] - med[1]["server_cpu"]) / (big - 1),
            "connections": last["connections"],
            "client_nodelay": last["client_nodelay"], "server_nodelay": last["server_nodelay"],
        }
        results[(pair, values)] = r
        log(f"  {pair[0]:12} -> {pair[1]:8} nodelay {values[0] or 'own'}/{values[1] or 'own'}: "
            f"{r['marginal'] * 1e6:8.1f} µs a call, fixed {r['fixed'] * 1e3:.2f} ms "
            f"({big} calls, {r['connections']} connections)")
    return {"results": results, "reps": reps, "quick": quick}


# ---------------------------------------------------------------- the report

def fmt(seconds):
    from peers_run import fmt_time
    return fmt_time(seconds)


def ratio(a, b):
    from peers_run import fmt_ratio
    return fmt_ratio(a, b)


def summary_rows(data):
    res = data["results"]
    floor = res.get((RAW, OWN))
    rows = []
    for lang in ("C", "C++"):
        cw = res.get(((f"callwire {lang}", "callwire"), OWN))
        peer = res.get(((f"xmlrpc-c {lang}", "Abyss"), OWN))
        if not cw or not peer:
            continue
        for key, what in (("marginal", "marginal time per call"),
                          ("fixed", "start-up and first call")):
            winner = "callwire" if cw[key] <= peer[key] else "xmlrpc-c"
            rows.append((f"xmlrpc-c's page, {lang} clients: {what}", winner, fmt(cw[key]),
                         f"xmlrpc-c {lang}", fmt(peer[key]), ratio(cw[key], peer[key]),
                         fmt(floor[key]) if floor else "—",
                         ratio(cw[key], floor[key]) if floor else "—", "—"))
    cw = res.get((("callwire C++", "callwire pstream"), OWN))
    peer = res.get((("xmlrpc-c C++ pstream", "xmlrpc-c pstream"), OWN))
    pfloor = res.get((RAW_PSTREAM, OWN))
    if cw and peer:
        for key, what in (("marginal", "marginal time per call"),
                          ("fixed", "start-up and first call")):
            winner = "callwire" if cw[key] <= peer[key] else "xmlrpc-c"
            rows.append((f"xmlrpc-c's page over the packet stream, C++ clients: {what}", winner,
                         fmt(cw[key]), "xmlrpc-c C++ pstream", fmt(peer[key]),
                         ratio(cw[key], peer[key]), fmt(pfloor[key]) if pfloor else "—",
                         ratio(cw[key], pfloor[key]) if pfloor else "—", "—"))
    cw = res.get((("callwire C", "callwire"), ("0", "0")))
    peer = res.get((("xmlrpc-c C", "Abyss"), ("0", "0")))
    if cw and peer:
        rows.append(("xmlrpc-c's page, C, TCP_NODELAY off both sides: marginal per call",
                     "callwire" if cw["marginal"] <= peer["marginal"] else "xmlrpc-c",
                     fmt(cw["marginal"]), "xmlrpc-c C", fmt(peer["marginal"]),
                     ratio(cw["marginal"], peer["marginal"]),
                     fmt(floor["marginal"]) if floor else "—",
                     ratio(cw["marginal"], floor["marginal"]) if floor else "—", "—"))
    return rows


def nodelay_label(values, r):
    if values == OWN:
        def own(v):
            return {"1": "on", "0": "off", "01": "off, then on"}.get(v, v)
        return f"own: {own(r['client_nodelay'])} / {own(r['server_nodelay'])}"
    return "/".join("on" if v == "1" else "off" for v in values)


def table_rows(res, combos, with_100):
    from peers_run import table
    rows = []
    for pair, values in combos:
        r = res.get((pair, values))
        if not r:
            continue
        client = "raw_lat_client" if pair[0] == "raw" else pair[0]
        waiting = r["marginal"] - r["client_cpu"] - r["server_cpu"]
        rows.append([client, pair[1], nodelay_label(values, r), f"{r['calls']:,}",
                     fmt(r["marginal"]), f"{1 / r['marginal']:,.0f}" if r["marginal"] > 0 else "—",
                     fmt(r["client_cpu"]), fmt(r["server_cpu"]),
                     fmt(waiting) if waiting > 0 else "0", fmt(r["fixed"])] +
                    ([fmt(r["t100"])] if with_100 else []) + [str(r["connections"])])
    return table(["client", "server", "TCP_NODELAY client / server", "N", "marginal per call",
                  "calls/s", "client CPU per call", "server CPU per call", "neither (waiting)",
                  "fixed: 1 call"] + (["100 calls"] if with_100 else []) +
                 ["connections in the N run"], rows)


def section(data):
    res = data["results"]
    lines = [
        "## 3. xmlrpc-c's performance page: start, N calls, exit",
        "",
        "From xmlrpc-c's documentation, its \"Performance\" chapter. A client program starts, makes N "
        "sample.add calls one after the other on one client object, checks every sum and "
        "exits (a wrong one fails the run); bench/startup.py times the whole process, from "
        "exec to exit. *Marginal per call* is (T_N − T_1) / (N − 1) of the medians of "
        f"{data['reps']} runs of each N (N is 1000, or 20 for a pair that stalls, over 5 ms "
        "a call in a probe run: 1000 calls would take 40 s); *fixed* is T_1, the start-up, "
        "the connection and the first call. The CPU per "
        "call is split the same way: the client's from its rusage, the server's from the "
        "server process's CPU-time clock (every thread, including the thread Abyss runs each "
        "connection on, which ends with the connection; per-thread schedstat would miss it). "
        "*Neither* is what is left of the marginal time: waiting for the other CPU to wake, "
        "or for a timer (Nagle, delayed ACK).",
        "",
        "Clients (bench/peers/*/startup_*): callwire's C API (`cw_client_new`, "
        "`cw_client_call` with cw_value parameters, compiled as C99) and its C++ API "
        "(`Client::call<int>(\"sample.add\", i, 7)`), both with default options; xmlrpc-c's "
        "C client as its own xmlrpc_sample_add_client.c writes it (`xmlrpc_client_init2`, "
        "`xmlrpc_client_call` with a \"(ii)\" format, the curl transport), and its C++ "
        "client (`client_xml` on one `clientXmlTransport_curl`, `carriageParm_curl0`). "
        "Servers: `callwire serve --threads 1` (its sample.add) and xmlrpc-c's Abyss with "
        "its defaults (bench/net/xmlrpc_c_server.c; it closes a connection after 30 "
        "requests, hence 34 connections for 1000 calls). The floor: raw_lat_client and "
        "raw_lat_server (bench/net) writing callwire's own request and response bytes, "
        "captured at the start, with no parsing.",
        "",
        "TCP_NODELAY: every program runs under bench/peers/nodelay/nodelay_shim.c "
        "(LD_PRELOAD). Unforced (*own*), it only logs what each program chooses (its own "
        "setsockopt, else what getsockopt reads on the new connection): " + own_choices(res) +
        ". Abyss sets the option once, on its listening socket, and Linux hands it down to "
        "every accepted connection. Forced, the shim sets the option on or off on every TCP "
        "socket right after connect() or accept() and ignores the program's own setsockopt; "
        "each run checks in the shim's log that getsockopt read the forced value back on "
        "both sides.",
        "",
        "### Every client against every server, each program's own settings",
        "",
    ]
    lines += table_rows(res, [(p, OWN) for p in PAIRS], True)
    pstream_combos = [(p, OWN) for p in PSTREAM_PAIRS if (p, OWN) in res]
    if pstream_combos:
        lines += [
            "",
            "### Over the packet stream (issue 11)",
            "",
            "The same experiment with XML-RPC carried by xmlrpc-c's packet stream, no HTTP: "
            "callwire's C and C++ clients given a `pstream://` URL, and xmlrpc-c's C++ "
            "packet-stream client (bench/peers/xmlrpc_c/startup_xmlrpc_c_pstream.cpp: "
            "`clientXmlTransport_pstream` on a socket it connects itself, TCP_NODELAY on, "
            "one `client_xml`, `carriageParm_pstream`), each against `callwire serve --threads "
            "1 --pstream` and xmlrpc-c's `serverPstreamConn` serving each connection in turn "
            "(bench/net/xmlrpc_c_pstream_server.cpp, TCP_NODELAY on). The floor: "
            "raw_lat_client and raw_lat_server with callwire's packets.",
            "",
        ]
        lines += table_rows(res, pstream_combos, True)
    lines += [
        "",
        "### TCP_NODELAY forced on or off on each side",
        "",
    ]
    lines += table_rows(res, [(p, v) for p in NODELAY_PAIRS for v in FORCED], False)
    lines += ["", *notes(res)]
    return lines


def own_choices(res):
    """Which programs turned TCP_NODELAY on by themselves, from the shim's log."""
    said = {}
    for (client, server), values in res:
        r = res[((client, server), values)]
        if values != OWN or client == "raw":
            continue
        said.setdefault(client, r["client_nodelay"])
        said.setdefault(f"the {server} server", r["server_nodelay"])
    return ", ".join(f"{who} {'on' if v == '1' else 'off' if v == '0' else v}"
                     for who, v in said.items())


def peers_slower(res):
    """Whether callwire's own pairs beat every pair with an xmlrpc-c side, in both measures."""
    ours = [r for (p, v), r in res.items() if v == OWN and p in PAIRS and p[1] == "callwire" and
            p[0].startswith("callwire")]
    theirs = [r for (p, v), r in res.items() if v == OWN and p in PAIRS and p != RAW and
              (p[1] == "Abyss" or p[0].startswith("xmlrpc-c"))]
    return all(max(o[k] for o in ours) < min(t[k] for t in theirs)
               for k in ("marginal", "fixed")) if ours and theirs else False


def notes(res):
    """Plain words on what the numbers show, from the numbers."""
    out = []

    def m(pair, values):
        r = res.get((pair, values))
        return r["marginal"] if r else None

    stalled = [(p, v) for p in NODELAY_PAIRS for v in FORCED
               if m(p, v) and m(p, v) > 0.02]
    if stalled:
        out.append("Pairs that stall (over 20 ms a call with Nagle on one side: its small "
                   "writes wait for the other side's delayed ACK, 40 ms on Linux): " +
                   "; ".join(f"{p[0]} → {p[1]} with TCP_NODELAY {nodelay_label(v, res[(p, v)])}"
                             f" ({fmt(m(p, v))} a call)" for p, v in stalled) + ".")
    else:
        out.append("No pair stalled on Nagle's algorithm in this run (no marginal time over "
                   "20 ms with TCP_NODELAY off).")
    out.append("")
    xc = res.get((("xmlrpc-c C", "Abyss"), OWN))
    xc_off = res.get((("xmlrpc-c C", "Abyss"), ("1", "0")))
    xc_both = res.get((("xmlrpc-c C", "Abyss"), ("0", "0")))
    if xc and xc_off and xc_both:
        out.append(f"The page measured xmlrpc-c's C pair at about 4 ms a call (280 a second) "
                   "on a 1999 machine, 12 a second with TCP_NODELAY missing on one side and 6 "
                   f"with it missing on both; here it makes {1 / xc['marginal']:,.0f} a "
                   f"second, {1 / xc_off['marginal']:,.0f} with Abyss's side off and "
                   f"{1 / xc_both['marginal']:,.0f} with both off.")
        out.append("")
    cw_on = res.get((("callwire C", "callwire"), ("1", "1")))
    cw_off = res.get((("callwire C", "callwire"), ("0", "0")))
    if cw_on and cw_off:
        out.append(f"callwire against callwire: {fmt(cw_on['marginal'])} a call with "
                   f"TCP_NODELAY on both sides, {fmt(cw_off['marginal'])} with it off on "
                   "both. callwire writes each request and each answer with one send(), so "
                   "Nagle's algorithm never holds anything back on a request-response "
                   "exchange: a lone small write goes out at once when nothing sent is "
                   "waiting for an ACK (the answer's ACK rides on the next request)." +
                   ("" if any(v[0] == "0" and v[1] == "1" for _, v in stalled) else
                    " Pairs with only the client's side off do not stall either: curl and "
                    "callwire both write a request in one piece.") +
                   " The stalls come from Abyss's side: it writes an answer in pieces (each "
                   "header line with its own send(), 9 a call by bench/RESULTS.md's count), "
                   "so with Nagle on the second piece waits for the ACK of the first, which "
                   "the client delays, and every call waits about 40 ms.")
        out.append("")
    def own(pair):
        r = res.get((pair, OWN))
        return r["marginal"] if r else None

    cw_http = own(("callwire C++", "callwire"))
    cw_pstream = own(("callwire C++", "callwire pstream"))
    x_http = own(("xmlrpc-c C++", "Abyss"))
    x_pstream = own(("xmlrpc-c C++ pstream", "xmlrpc-c pstream"))
    if cw_http and cw_pstream:
        out.append(f"Without HTTP: callwire's C++ client against its own server takes "
                   f"{fmt(cw_pstream)} a call over the packet stream, {fmt(cw_http)} over HTTP" +
                   (f"; xmlrpc-c's C++ client against its own server {fmt(x_pstream)} over the "
                    f"packet stream, {fmt(x_http)} over HTTP (curl and Abyss)"
                    if x_http and x_pstream else "") + ".")
        out.append("")
    out.append("What bounds callwire here: its marginal call is one write and one read on "
               "each side, as the floor's, plus its HTTP and XML work on both sides (the CPU "
               "columns); the fixed cost is mostly the process's own start-up (loading, the "
               "first connection), which the floor pays too." + (
                   " No xmlrpc-c client or server is faster than callwire's in any row."
                   if peers_slower(res) else ""))
    return out


def plots(data, plots_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    res = data["results"]
    combos = [(p, OWN) for p in PAIRS if (p, OWN) in res]
    labels = [f"{'raw' if p == RAW else p[0]}\n→ {p[1]}" for p, _ in combos]
    fig, ax = plt.subplots(figsize=(10, 5))
    client = [res[c]["client_cpu"] * 1e6 for c in combos]
    server = [res[c]["server_cpu"] * 1e6 for c in combos]
    rest = [max(res[c]["marginal"] * 1e6 - a - s, 0) for c, a, s in zip(combos, client, server)]
    ax.bar(labels, client, label="client CPU")
    ax.bar(labels, server, bottom=client, label="server CPU")
    ax.bar(labels, rest, bottom=[a + s for a, s in zip(client, server)], label="waiting")
    ax.set_ylabel("µs per call (marginal)")
    ax.set_title("xmlrpc-c's page: marginal time per sample.add call, each program's own "
                 "TCP_NODELAY")
    ax.tick_params(axis="x", labelsize=8)
    ax.legend()
    fig.tight_layout()
    name = "peers_startup.png"
    fig.savefig(plots_dir / name, dpi=100)
    plt.close(fig)
    return [("xmlrpc-c's page: marginal time per call", name)]
