#!/usr/bin/env python3
"""A tiny inetd for trying the *_inetd_server examples (and for examples/run_examples.sh):
listens on 127.0.0.1:0, prints "listening on pstream://127.0.0.1:PORT", and runs PROGRAM for
each connection with the accepted socket as its standard input and output, as inetd's
"stream tcp nowait" does. SIGTERM or SIGINT: waits for the programs running, prints "stopped"
and exits 0 (1 when one of them exited with another status).

    examples/inetd.py PROGRAM [ARG...]
"""
import signal
import socket
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    listener = socket.create_server(("127.0.0.1", 0))
    print(f"listening on pstream://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True) or listener.close())
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True) or listener.close())
    children = []
    while not stopping:
        try:
            connection, _ = listener.accept()
        except OSError:
            break
        with connection:  # the child has its own copy; ours closes here
            children.append(subprocess.Popen(sys.argv[1:], stdin=connection, stdout=connection))
    failed = [c.args for c in children if c.wait(timeout=30) != 0]
    for args in failed:
        print(f"inetd.py: {args[0]} exited with a failure", file=sys.stderr)
    print("stopped", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
