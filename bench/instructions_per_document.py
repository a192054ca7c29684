#!/usr/bin/env python3
"""Instructions per document of the codec benchmarks' reads, counted by callgrind: a measure
that does not move with the neighbours, for comparing two builds on a shared machine (as
bench/instructions_per_call.py does for sample.add).

bench/codec_bench and bench/json_codec_bench run under `valgrind --tool=callgrind` with
CALLWIRE_BENCH_ITERATIONS=2 and then 12 (bench/codec_common.hpp: each benchmark runs exactly
that many iterations, once), collecting only inside the benchmarks and dumping after each; the
difference between the two runs over 10 is one document's cost, start-up cancelling out.

  bench/instructions_per_document.py BUILD_DIR [BUILD_DIR ...]

BUILD_DIR holds bench/codec_bench and bench/json_codec_bench (-DCALLWIRE_BENCH=ON, Release).
Prints a table per build: the XML-RPC document (b) read indented and compact, the JSON-RPC one
compact and pretty-printed, as Values and typed (CALLWIRE_STRUCT), beside simdjson's On Demand
walk of the JSON (the floor of a reader on simdjson).
"""
import pathlib
import re
import subprocess
import sys
import tempfile

import instructions_per_call

SHORT, LONG = 2, 12

# The benchmarks counted, per program, in the order the program registers them.
READS = {
    "codec_bench": [
        "read/structs/callwire", "read/structs/callwire-struct",
        "read/structs-compact/callwire", "read/structs-compact/callwire-struct",
    ],
    "json_codec_bench": [
        "read/structs/callwire", "read/structs/callwire-struct", "read/structs/simdjson-walk",
        "read/structs-pretty/callwire", "read/structs-pretty/callwire-struct",
        "read/structs-pretty/simdjson-walk",
    ],
}


def counted(program, names, iterations, tmp):
    """Instructions inside each benchmark of `names`, run `iterations` times."""
    pattern = "^(" + "|".join(names) + ")/iterations:"  # the names hold no ERE specials
    out = f"{tmp}/{pathlib.Path(program).name}.{iterations}"
    # Collected: inside Google Benchmark's LambdaBenchmark, whose Run is a benchmark's whole
    # run (its iterations and set-up); dumped after each of its functions, and the runs' dumps
    # are those Run triggered. (Narrower patterns left callgrind dumping nothing.)
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         "--toggle-collect=benchmark::internal::LambdaBenchmark*",
         "--dump-after=*LambdaBenchmark*", program,
         f"--benchmark_filter={pattern}"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1200,
        env={"CALLWIRE_BENCH_ITERATIONS": str(iterations), "PATH": "/usr/bin:/bin"})
    dumps = sorted(pathlib.Path(tmp).glob(pathlib.Path(out).name + ".*"),
                   key=lambda p: int(p.suffix[1:]))
    runs = [d for d in dumps if re.search(r"^desc: Trigger: .*::Run\(", d.read_text(), re.M)]
    if len(runs) != len(names):
        raise SystemExit(f"{program}: {len(runs)} runs dumped for {len(names)} benchmarks")
    return [instructions_per_call.total_instructions(d) for d in runs]


def per_document(build):
    """{(program, benchmark): instructions per document}"""
    result = {}
    for program, names in READS.items():
        path = f"{build}/bench/{program}"
        with tempfile.TemporaryDirectory() as tmp:
            short = counted(path, names, SHORT, tmp)
        with tempfile.TemporaryDirectory() as tmp:
            long = counted(path, names, LONG, tmp)
        for name, a, b in zip(names, short, long):
            result[(program, name)] = (b - a) / (LONG - SHORT)
    return result


def table(counts):
    rows = [
        ("XML-RPC (b), indented", "codec_bench", "read/structs", None),
        ("XML-RPC (b′), compact", "codec_bench", "read/structs-compact", None),
        ("JSON-RPC (b), compact", "json_codec_bench", "read/structs", "read/structs/simdjson-walk"),
        ("JSON-RPC (b′), pretty", "json_codec_bench", "read/structs-pretty",
         "read/structs-pretty/simdjson-walk"),
    ]
    lines = ["| document | Values | typed (CALLWIRE_STRUCT) | typed / Values "
             "| simdjson's walk | Values / walk |",
             "|---|--:|--:|--:|--:|--:|"]
    for title, program, doc, walk in rows:
        values = counts[(program, doc + "/callwire")]
        typed = counts[(program, doc + "/callwire-struct")]
        walked = counts[(program, walk)] if walk else None
        lines.append(
            f"| {title} | {values / 1e6:.2f} M | {typed / 1e6:.2f} M | {typed / values:.2f}× | "
            + (f"{walked / 1e6:.2f} M | {values / walked:.2f}× |" if walked else "— | — |"))
    return "\n".join(lines)


def main():
    builds = sys.argv[1:]
    if not builds:
        raise SystemExit(__doc__)
    for build in builds:
        print(f"{build}: instructions per document read (callwire's, {LONG} - {SHORT} documents)")
        print(table(per_document(build)))


if __name__ == "__main__":
    main()
