#!/usr/bin/env python3
"""Runs the codec benchmarks and writes their section of bench/RESULTS.md.

Usage: python3 bench/run.py BUILD_DIR [BENCHMARK_FLAGS...]
  `make bench` runs it with BUILD_DIR=build/bench. Extra flags go to both binaries after ours
  (e.g. --benchmark_filter=structs while working on one path).

Runs BUILD_DIR/bench/codec_bench (XML-RPC) and then BUILD_DIR/bench/json_codec_bench (JSON-RPC),
3 repetitions each, medians, then both under callgrind for the instructions per document of
the (b) reads (bench/instructions_per_document.py); prints the tables and replaces the part of bench/RESULTS.md above
the marker line END_MARKER; whatever follows the marker (the sections later benchmarks write)
is kept as it was. Exits non-zero, leaving RESULTS.md alone, when a benchmark fails.
"""

import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import instructions_per_document

END_MARKER = "<!-- end of generated codec section -->"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"

MIN_TIME = 0.5  # seconds per repetition; with 3 repetitions the whole run takes about 2 minutes
REPETITIONS = 3

DOCUMENTS = [
    ("call", "(a) sample.add call"),
    ("structs", "(b) 1000 structs, ~1 MB"),
    ("structs-compact", "(b′) the same 1000 structs with no white space (read only)"),
    ("base64", "(c) one 16 MiB base64 blob"),
    ("markup", "(d) a 1 MiB HTML page as one string (a quarter of it <, & and >)"),
]
READERS = ["callwire", "xmlrpc-c", "memcpy", "expat", "libxml2", "callwire-typed", "callwire-struct",
           "callwire-ids"]

JSON_DOCUMENTS = [
    ("call", "(a) sample.add call"),
    ("structs", "(b) 1000 structs, compact"),
    ("structs-pretty", "(b′) the same 1000 structs pretty-printed (read only)"),
    ("base64", "(c) one 16 MiB blob as a base64 string"),
]
JSON_READERS = ["callwire", "jsoncpp", "simdjson", "memcpy", "simdjson-walk", "callwire-typed",
                "callwire-struct", "callwire-ids"]
JSON_GOAL_READ_GBPS = 1.5  # issue 12: reading document (b) at 1.5 GB/s or more


def run_benchmark(binary, extra_flags):
    """Returns {(direction, doc, library): median run} and the binary's context."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [
            str(binary),
            f"--benchmark_min_time={MIN_TIME}",
            f"--benchmark_repetitions={REPETITIONS}",
            "--benchmark_report_aggregates_only=true",
            # Repetitions in random order, so that a burst of noise on a shared VM hits one
            # repetition of a benchmark rather than all three.
            "--benchmark_enable_random_interleaving=true",
            f"--benchmark_out={out.name}",
            "--benchmark_out_format=json",
            "--benchmark_color=false",
            *extra_flags,
        ]
        print(f"running {binary} ({REPETITIONS} repetitions of {MIN_TIME} s each)",
              file=sys.stderr, flush=True)
        # The JSON goes to the file; the console report goes to stderr as progress, so that
        # stdout carries only the tables.
        subprocess.run(command, check=True, stdout=sys.stderr)
        with open(out.name) as f:
            text = f.read()
    # Empty when --benchmark_filter matched nothing in this binary.
    report = json.loads(text) if text.strip() else {"benchmarks": [], "context": {}}
    medians = {}
    for entry in report.get("benchmarks", []):
        if entry.get("aggregate_name") != "median":
            continue
        direction, doc, library = entry["run_name"].split("/")
        medians[(direction, doc, library)] = entry
    return medians, report["context"]


def machine(context):
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "kernel": f"{platform.system()} {platform.release()}",
        "compiler": context.get("compiler", "unknown"),
        "load": ", ".join(f"{x:.2f}" for x in context.get("load_avg", [])) or "?",
    }


def peer_versions():
    def ask(command):
        try:
            return subprocess.run(command, capture_output=True, text=True).stdout.strip() or "?"
        except OSError:
            return "?"

    return {
        "xmlrpc-c": ask(["xmlrpc-c-config", "--version"]),
        "expat": ask(["pkg-config", "--modversion", "expat"]),
        "libxml2": ask(["pkg-config", "--modversion", "libxml-2.0"]),
        "Google Benchmark": ask(["pkg-config", "--modversion", "benchmark"]),
    }


def mbps(run):
    return run["bytes_per_second"] / 1e6 if run else None


def allocs(run):
    return run.get("allocs") if run else None


def seconds_per_doc(run):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[run["time_unit"]]
    return run["cpu_time"] * scale


def fmt_rate(value):
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def fmt_count(value):
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}".rstrip("0").rstrip(".")


def fmt_ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "—"


def fmt_time(seconds):
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.2f} ms"


def tables(runs, context, documents=DOCUMENTS, libraries=READERS, peer="xmlrpc-c"):
    """A table per document: MB/s of each of `libraries`, allocations per document of callwire
    and `peer`, and callwire's ratios to `peer` and to memcpy."""
    lines = []
    rest = [lib for lib in libraries if lib not in ("callwire", peer, "memcpy")]
    for doc, title in documents:
        read_bytes = int(context.get(f"doc.{doc}.read_bytes", 0))
        write_bytes = int(context.get(f"doc.{doc}.write_bytes", 0))
        directions = [d for d in ("read", "write")
                      if any((d, doc, lib) in runs for lib in libraries)]
        if not directions:
            continue
        timing = []
        for direction in directions:
            run = runs.get((direction, doc, "callwire"))
            if run:
                timing.append(f"{direction} {fmt_time(seconds_per_doc(run))}")
        sizes = f"{read_bytes:,} bytes read"
        if "write" in directions:
            sizes += f", {write_bytes:,} bytes written"
        lines.append(f"### {title}")
        lines.append("")
        lines.append(f"{sizes}; callwire per document: {', '.join(timing) or '—'}.")
        lines.append("")
        columns = ["callwire", peer, "memcpy"] + rest
        lines.append("| | " + " | ".join(f"{lib} MB/s" for lib in columns)
                     + f" | callwire allocs/doc | {peer} allocs/doc | callwire / {peer} "
                     "| callwire / memcpy |")
        lines.append("|---|" + "--:|" * (len(columns) + 4))
        for direction in directions:
            r = {lib: runs.get((direction, doc, lib)) for lib in libraries}
            cw, other, mc = mbps(r["callwire"]), mbps(r[peer]), mbps(r["memcpy"])
            lines.append(
                f"| {direction} | "
                + " | ".join(fmt_rate(mbps(r[lib])) for lib in columns)
                + f" | {fmt_count(allocs(r['callwire']))} | {fmt_count(allocs(r[peer]))} "
                f"| {fmt_ratio(cw, other)} | {fmt_ratio(cw, mc)} |")
        lines.append("")
    return lines


def verdict(ok):
    return "PASS" if ok else "MISS"


def speed_goal(runs, direction, doc, label, min_gbps, min_ratio=None, peer="xmlrpc-c"):
    """A goal row: callwire at min_gbps or more, and min_ratio × `peer` or more if given."""
    cw, other = runs.get((direction, doc, "callwire")), runs.get((direction, doc, peer))
    if not cw:
        return (label, "NO DATA", "callwire did not run")
    gbps = cw["bytes_per_second"] / 1e9
    parts, ok = [f"{gbps:.2f} GB/s (goal {min_gbps:g})"], gbps >= min_gbps
    if min_ratio is not None:
        ratio = cw["bytes_per_second"] / other["bytes_per_second"] if other else 0.0
        ok = ok and ratio >= min_ratio
        parts.insert(0, f"{ratio:.2f}× {peer} (goal {min_ratio:g}×)")
    return (label, verdict(ok), ", ".join(parts))


def goal_table(rows):
    lines = ["| goal | result | measured |", "|---|---|---|"]
    lines += [f"| {label} | **{result}** | {measured} |" for label, result, measured in rows]
    return lines


def goals(runs):
    rows = [
        speed_goal(runs, "read", "structs", "(b) read ≥ 7× xmlrpc-c and ≥ 1 GB/s", 1, 7),
        speed_goal(runs, "write", "structs", "(b) write ≥ 5× xmlrpc-c and ≥ 2 GB/s", 2, 5),
        speed_goal(runs, "read", "base64", "(c) read ≥ 1.5 GB/s", 1.5),
    ]
    cw = runs.get(("read", "call", "callwire"))
    if cw:
        n = cw["allocs"]
        rows.append(("(a) read ≤ 1 allocation per document", verdict(n <= 1.0 + 1e-9),
                     f"{fmt_count(n)} allocation{'' if n == 1 else 's'} per document"))
    else:
        rows.append(("(a) read ≤ 1 allocation per document", "NO DATA", "callwire did not run"))
    return goal_table(rows)


def json_goals(runs):
    row = speed_goal(runs, "read", "structs", f"(b) read ≥ {JSON_GOAL_READ_GBPS:g} GB/s",
                     JSON_GOAL_READ_GBPS)
    cw = runs.get(("read", "structs", "callwire"))
    jsoncpp = runs.get(("read", "structs", "jsoncpp"))
    simdjson = runs.get(("read", "structs", "simdjson"))
    if cw and jsoncpp:  # the peer beside it
        row = (row[0], row[1], f"{row[2]}; {cw['bytes_per_second'] / jsoncpp['bytes_per_second']:.1f}× "
               "jsoncpp (libjsonrpccpp's parser)")
    if simdjson and row[1] != "NO DATA":  # the floor beside it: how far it could go
        row = (row[0], row[1], f"{row[2]}; simdjson's DOM parse of the same text "
               f"{simdjson['bytes_per_second'] / 1e9:.2f} GB/s")
    walk = runs.get(("read", "structs", "simdjson-walk"))
    if walk and row[1] != "NO DATA":  # the floor of a reader on On Demand, before any Value
        row = (row[0], row[1], f"{row[2]}; simdjson's On Demand walk alone, building nothing, "
               f"{walk['bytes_per_second'] / 1e9:.2f} GB/s")
    return goal_table([row])


def busy_line(context, m):
    if context.get("load_avg", [0])[0] <= 0.5 * (m["cores"] or 1):
        return []
    return [f"**The machine was busy when the run started (load {m['load']} on "
            f"{m['cores']} cores): the other work shares caches and memory bandwidth, so "
            "rates are lower and ratios less certain than on a quiet machine.**", ""]


def json_section(runs, context):
    m = machine(context)
    implementation = context.get("simdjson_implementation", "?")
    lines = [
        "## JSON-RPC codec (issue 12)",
        "",
        "Generated by `make bench` (bench/run.py over bench/json_codec_bench.cpp), right after "
        "the XML-RPC codec, with the same method; "
        f"load average before it: {m['load']}; simdjson {context.get('simdjson', '?')} "
        f"(its `{implementation}` kernels).",
        "",
        "- The same data as the XML-RPC documents, as JSON-RPC: (a) "
        "`{\"jsonrpc\":\"2.0\",\"method\":\"sample.add\",\"params\":[5,3],\"id\":1}`; "
        "(b) the response of the same 1000 structs, compact, as callwire and libjsonrpccpp "
        "write it; (b′) the same response pretty-printed, one member or element a line, one "
        "space a level (Python's `json.dumps(indent=1)`); (c) the 16 MiB blob as one base64 "
        "string, as callwire's JSON writer sends bytes. The text is built by hand from the "
        "data, not by callwire's writer.",
        "- Read: callwire's json::Reader (`read_request` for (a), `read_response` for the "
        "others; one Reader and one decoded document reused) builds Values: numbers parsed, "
        "strings unescaped and copied (the base64 text stays text: JSON has no bytes type). "
        "simdjson is its DOM parser (`dom::parser::parse`, reused): it builds only its tape, "
        "no callwire Values, and is the floor for reading, though not a hard one: callwire "
        "reads with simdjson's On Demand API, which builds no tape. Both copy the text into a "
        "padded buffer they keep first; that copy is in both times. jsoncpp, the parser "
        "libjsonrpccpp (the paper's C++ JSON-RPC peer) reads with, is the peer: one "
        "`Json::CharReader` reused, a `Json::Value` tree built per document. simdjson-walk "
        "is simdjson's On Demand API walking every value as callwire's reader walks it "
        "(numbers and atoms as their text, strings without escapes as their bytes) and "
        "building nothing: the floor of any reader on On Demand, callwire's included. "
        "callwire-typed, callwire-struct and callwire-ids are the typed paths as for XML-RPC "
        "above; (c)'s "
        "base64 string is decoded into the `std::vector<uint8_t>`.",
        "- Write: `json::write_call` for (a), `json::write_result` for the others, into one "
        "reused Buffer; the byte count is what callwire writes for the values. jsoncpp writes "
        "its tree of the same document (read once, outside the timed loop) with a compact "
        "`Json::StreamWriter`, as libjsonrpccpp sends it.",
        "- memcpy, allocs/doc: as for the XML-RPC codec above.",
        "",
    ]
    lines += busy_line(context, m)
    lines += tables(runs, context, JSON_DOCUMENTS, JSON_READERS, "jsoncpp")
    lines += ["### Goals (issue 12)", ""]
    lines += json_goals(runs)
    lines.append("")
    return lines


def codec_section(runs, context, json_runs, json_context, when, instructions=None):
    m = machine(context)
    peers = ", ".join(f"{name} {version}" for name, version in peer_versions().items())
    lines = [
        "# callwire benchmarks",
        "",
        "callwire beside gRPC, Thrift, Cap'n Proto, xmlrpc-c, Python and libjsonrpccpp on the "
        "seeds' own benchmarks (rpclib's suite, the paper's Database.Request) is in "
        "[PEERS.md](PEERS.md), written by `make bench-peers`.",
        "",
        "## XML-RPC codec",
        "",
        "Generated by `make bench` (bench/run.py over bench/codec_bench.cpp); "
        "do not edit above the end marker.",
        "",
        f"- date: {when:%Y-%m-%d %H:%M} UTC",
        f"- machine: {m['cpu']}, {m['cores']} cores, {m['kernel']}; "
        f"load average before the run: {m['load']}",
        f"- compiler: {m['compiler']}, Release (-O3)",
        f"- peers: {peers}",
        f"- method: medians of {REPETITIONS} repetitions of at least {MIN_TIME} s each, in "
        "random order; rates per CPU second of the benchmark thread; MB = 10⁶ bytes",
        "",
        "How to read the tables:",
        "",
        "- Every column of a row divides the same byte count by that library's time, so each "
        "ratio is a ratio of time per document. Read: the XML text every reader parses. Write: "
        "the document callwire writes for the same values (xmlrpc-c writes more bytes for them: "
        "a line break after each element and a longer XML declaration).",
        "- callwire and xmlrpc-c build values when reading (decoding base64, parsing numbers) "
        "and serialize values when writing. expat and libxml2 only tokenize, with empty SAX "
        "handlers: they build nothing and decode nothing, so they are context, not peers. "
        "libxml2 2.9 copies its input first (xmlCtxtReadMemory); that copy is included.",
        "- Reused across iterations, as a server would: one callwire::xml::Reader, one output "
        "callwire::Buffer, one xmlrpc_mem_block, one expat parser (XML_ParserReset), one "
        "libxml2 context. Values to write are built once, outside the timed loop.",
        "- allocs/doc: calls to malloc, calloc, realloc and the aligned allocators per document "
        "in the timed loop, after one untimed warm-up run (the binary replaces them "
        "process-wide, so C libraries are counted as well as operator new).",
        "- memcpy: one copy of the same bytes into a preallocated buffer, the floor.",
        "- callwire-typed and callwire-struct: the typed paths, no Value tree. Read: a "
        "response's result straight into C++ types, as `call<R>` reads it (`read_response` "
        "with a sink; a new result each time): (b) into a `std::vector` of structs {int, two "
        "std::strings, double, `std::vector<std::string>`}, (c) into a "
        "`std::vector<uint8_t>`. Write: the same `std::vector` returned by a bound handler "
        "and answered by the dispatcher, as a server answers get_structs (the bytes are that "
        "answer's). callwire-typed converts with a hand-written `Convert` (`read_struct`, "
        "member-by-member `write`); callwire-struct declares the struct with "
        "`CALLWIRE_STRUCT` (bench/typed_people.hpp): the two should be level. callwire-ids "
        "reads (b) into a struct declaring only the id: the other members are checked, not "
        "built, so it should be faster than reading (b) as Values.",
        "- Documents: (a) the sample.add call with two ints; (b) a methodResponse with an array "
        "of 1000 structs {int id, string name (10-19 chars, some UTF-8), string email "
        "(23-38 chars), double score (e.g. 38957.531), array of 5 tags (5-9 chars, one of them "
        "with an escaped &)}, one element per line, indented one space a level; "
        "(b′) the same text with no white space between elements; (c) a methodResponse with one "
        "16 MiB base64 value on a single line; (d) a methodResponse with one string of 1 MiB, "
        "an HTML table's rows, whose <, & and > (a quarter of its bytes) are escaped.",
        "",
    ]
    lines += busy_line(context, m)
    lines += tables(runs, context)
    lines += ["### Goals", ""]
    lines += goals(runs)
    lines.append("")
    if json_runs:
        lines += json_section(json_runs, json_context)
    if instructions:
        lines += instructions_section(instructions)
    return "\n".join(lines)


def instructions_section(counts):
    return [
        "### Instructions per document read (issue 30)",
        "",
        "Counted by callgrind inside the read benchmarks at 2 and 12 documents "
        "(bench/instructions_per_document.py), the difference over 10: they do not move with "
        "the neighbours, so a change in them is the code's. Typed: CALLWIRE_STRUCT into "
        "`std::vector` (a new one per document, freed after it, as `call<R>` does); "
        "simdjson's walk: On Demand visiting every value as callwire's reader does, building "
        "nothing (the floor of a reader on simdjson).",
        "",
        instructions_per_document.table(counts),
        "",
    ]


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__.strip())
    binaries = [Path(sys.argv[1]) / "bench" / name for name in ("codec_bench", "json_codec_bench")]
    for binary in binaries:
        if not binary.exists():
            sys.exit(f"run.py: {binary} not found; build with -DCALLWIRE_BENCH=ON")

    when = datetime.datetime.now(datetime.timezone.utc)
    results = []
    for binary in binaries:
        try:
            results.append(run_benchmark(binary, sys.argv[2:]))
        except subprocess.CalledProcessError as e:
            sys.exit(f"run.py: {binary.name} failed ({e.returncode}); {RESULTS.name} left as it "
                     "was")
    (runs, context), (json_runs, json_context) = results
    instructions = instructions_per_document.per_document(sys.argv[1])

    section = codec_section(runs, context, json_runs, json_context, when, instructions)
    print(section)

    kept = ""
    if RESULTS.exists():
        old = RESULTS.read_text()
        if END_MARKER in old:
            kept = old.split(END_MARKER, 1)[1]
        elif old.strip():
            print(f"run.py: {RESULTS.name} had no end marker; its old text is kept below it",
                  file=sys.stderr)
            kept = "\n" + old
    RESULTS.write_text(section + "\n" + END_MARKER + (kept if kept else "\n"))
    print(f"wrote {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
