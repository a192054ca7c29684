#!/usr/bin/env python3
"""Throughput of callwire backends behind nginx (issue 15): wrk POSTing sample.add through nginx
to 1, 2 and 4 `callwire serve` backends (each one event loop: `--threads 1`), with nginx's
upstream keep-alive as deploy/nginx/callwire-upstream.conf sets it, beside nginx alone answering
the same response body itself (the floor: a balancer that does no proxying at all), and
callwire alone without the proxy. Every
process runs on this machine; on two cores the backends and nginx share them, so the rows say
what the proxy hop costs and where adding processes stops paying, not what more machines give.

Usage: bench/balancer_run.py CALLWIRE_BIN [--seconds S] [--repeat N]
Prints a Markdown table; bench/RESULTS.md records it by hand with the command and the date.
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SNIPPET = REPO / "deploy" / "nginx" / "callwire-upstream.conf"
CALL = ('<?xml version="1.0"?><methodCall><methodName>sample.add</methodName><params>'
        '<param><value><int>2</int></value></param><param><value><int>3</int></value></param>'
        '</params></methodCall>')
ANSWER = ('<?xml version="1.0"?><methodResponse><params><param><value><int>5</int></value>'
          '</param></params></methodResponse>')
WRK_THREADS, WRK_CONNECTIONS = 2, 32


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port}")


def nginx_config(directory, port, backends):
    user = "user root;" if os.geteuid() == 0 else ""
    if backends:
        servers = "\n".join(f"    server 127.0.0.1:{p};" for p in backends)
        upstream = f"upstream callwire_backends {{\n{servers}\n    keepalive 64;\n  }}"
        site = f"include {SNIPPET};"
    else:
        upstream = ""
        site = f"location /RPC2 {{ default_type text/xml; return 200 '{ANSWER}'; }}"
    return f"""{user}
daemon off;
master_process on;
worker_processes auto;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  keepalive_requests 100000000;
  client_body_temp_path {directory}/body;
  proxy_temp_path {directory}/proxy;
  fastcgi_temp_path {directory}/fastcgi;
  uwsgi_temp_path {directory}/uwsgi;
  scgi_temp_path {directory}/scgi;
  {upstream}
  server {{
    listen 127.0.0.1:{port} backlog=511;
    {site}
  }}
}}
"""


def wrk(port, seconds, script):
    p = subprocess.run(["wrk", "-t", str(WRK_THREADS), "-c", str(WRK_CONNECTIONS), "-d",
                        f"{seconds:g}s", "-s", str(script), f"http://127.0.0.1:{port}/RPC2"],
                       capture_output=True, text=True, check=True)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", p.stdout).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", p.stdout)
    socket_errors = re.search(r"Socket errors: (.*)", p.stdout)
    return rps, int(errors.group(1)) if errors else 0, socket_errors.group(1) if socket_errors else ""


def run_direct(callwire, seconds, script):
    port = free_port()
    p = subprocess.Popen([callwire, "serve", "--listen", f"127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        return wrk(port, seconds, script)
    finally:
        p.terminate()
        p.wait(10)


def run(callwire, backends_count, seconds, tmp, script):
    if backends_count < 0:
        return run_direct(callwire, seconds, script)
    directory = Path(tempfile.mkdtemp(dir=tmp))
    backends = []
    procs = []
    try:
        for _ in range(backends_count):
            port = free_port()
            procs.append(subprocess.Popen([callwire, "serve", "--threads", "1", "--listen",
                                           f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
            wait_port(port)
            backends.append(port)
        port = free_port()
        (directory / "nginx.conf").write_text(nginx_config(directory, port, backends))
        procs.append(subprocess.Popen(["nginx", "-c", str(directory / "nginx.conf"), "-e",
                                       str(directory / "error.log")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_port(port)
        subprocess.run(["curl", "-s", "-o", "/dev/null", "--data", CALL,
                        f"http://127.0.0.1:{port}/RPC2"], check=True)
        return wrk(port, seconds, script)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("callwire")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--repeat", type=int, default=2)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "post.lua"
        script.write_text('wrk.method = "POST"\nwrk.body = [[' + CALL + ']]\n'
                          'wrk.headers["Content-Type"] = "text/xml"\n')
        rows = [("nginx alone, a fixed answer (the floor)", 0)] + [
            (f"nginx → {n} callwire serve --threads 1", n) for n in (1, 2, 4)] + [
            ("callwire serve alone, no proxy (one loop per core)", -1)]
        results = {}
        for _ in range(a.repeat):  # interleaved; the best run of each counts
            for name, n in rows:
                rps, bad, socket_errors = run(a.callwire, n, a.seconds, tmp, script)
                print(f"  {name}: {rps:.0f} requests/s, {bad} non-2xx {socket_errors}",
                      file=sys.stderr)
                if name not in results or rps > results[name][0]:
                    results[name] = (rps, bad)
        floor = results[rows[0][0]][0]
        print(f"wrk -t{WRK_THREADS} -c{WRK_CONNECTIONS}, {a.seconds:g} s each, best of "
              f"{a.repeat}; nginx worker_processes auto; {os.cpu_count()} cores\n")
        print("| path | requests/s | non-2xx | / nginx alone |")
        print("|---|--:|--:|--:|")
        for name, _ in rows:
            rps, bad = results[name]
            print(f"| {name} | {rps:,.0f} | {bad} | {rps / floor:.2f}× |")


if __name__ == "__main__":
    main()
