#!/usr/bin/env python3
"""The paper's client with Python's xmlrpc.client: one ServerProxy for every call.
Usage: paper_client.py PORT CALLS PHOTO(0|1); prints the JSON line run_paper_client prints."""

import json
import os
import sys
import time
import xmlrpc.client

sys.path.insert(0, os.path.dirname(__file__))
import paper_data  # noqa: E402


def main():
    port, calls, photo = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] != "0"
    start, cpu_start = time.perf_counter(), time.process_time()
    proxy = xmlrpc.client.ServerProxy(f"http://127.0.0.1:{port}/RPC2")
    last, last_id = None, 0
    for i in range(calls):
        last_id = 1 + i % paper_data.RECORDS
        last = proxy.Database.Request(last_id, photo)
    cpu, wall = time.process_time() - cpu_start, time.perf_counter() - start
    last["photo"] = last["photo"].data
    diff = paper_data.difference(last, last_id, photo)
    if diff:
        print(f"python: WRONG ANSWER for id {last_id}: {diff}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"calls": calls, "wall_s": wall, "cpu_s": cpu}))


if __name__ == "__main__":
    main()
