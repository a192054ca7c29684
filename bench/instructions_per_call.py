#!/usr/bin/env python3
"""Instructions per sample.add call, counted by callgrind: a measure that does not move with
the neighbours, for comparing two builds (before and after a change) on a shared machine.

`callwire serve --threads 1` and `cw_lat_client URL --calls N --warmup 0` each run under
`valgrind --tool=callgrind`, for N = 1000 and N = 3000 calls over loopback HTTP (XML-RPC, and
JSON-RPC with --json); the difference divided by 2000 is the cost of one call on each side,
start-up and shutdown cancelling out.

  bench/instructions_per_call.py BUILD_DIR [BUILD_DIR ...] [--json]

BUILD_DIR holds tools/callwire and bench/cw_lat_client (a build with -DCALLWIRE_BENCH=ON).
Prints a line per build: server and client instructions per call.
"""
import pathlib
import re
import subprocess
import sys
import tempfile
import time


def total_instructions(out_file):
    text = pathlib.Path(out_file).read_text()
    m = re.search(r"^summary:\s+(\d+)", text, re.M) or re.search(r"^totals:\s+(\d+)", text, re.M)
    if not m:
        raise SystemExit(f"no totals in {out_file}")
    return int(m.group(1))


def run_pair(build, calls, json, tmp):
    server_out = f"{tmp}/server.{calls}.out"
    client_out = f"{tmp}/client.{calls}.out"
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={server_out}",
         f"{build}/tools/callwire", "serve", "--listen", "127.0.0.1:0", "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()  # "listening on URL"
        url = line.split()[-1]
        if json:
            url = "jsonrpc+" + url
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={client_out}",
             f"{build}/bench/cw_lat_client", url, "--calls", str(calls), "--warmup", "0"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    finally:
        server.terminate()
        server.wait(timeout=60)
    time.sleep(0.2)
    return total_instructions(server_out), total_instructions(client_out)


def per_call(build, json, calls=(1000, 3000)):
    """(server, client) instructions per sample.add: the difference between two runs."""
    short, long = calls
    with tempfile.TemporaryDirectory() as tmp:
        s1, c1 = run_pair(build, short, json, tmp)
        s2, c2 = run_pair(build, long, json, tmp)
    return (s2 - s1) / (long - short), (c2 - c1) / (long - short)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    json = "--json" in sys.argv
    if not args:
        raise SystemExit(__doc__)
    for build in args:
        server, client = per_call(build, json)
        print(f"{build}: {'JSON-RPC' if json else 'XML-RPC'} sample.add, instructions per call: "
              f"server {server:,.0f}, client {client:,.0f}")


if __name__ == "__main__":
    main()
