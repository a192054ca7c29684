"""Where a benchmark's time goes: a perf profile of one run, summed into a few categories.

`make bench-peers` profiles callwire on every row where a peer is faster, in the same run, so
the report says what bounds callwire there (issue 9). perf samples the CPU clock of every
thread of the process (client, server, the library's own), so the shares are of the whole
process's CPU, as the suite's "process CPU" is.
"""

import subprocess
import tempfile
from pathlib import Path

# (category, test on a sample's (shared object, symbol)), first match wins. Kernel samples are
# split by what the kernel was doing for us: copying socket data, faulting in fresh pages, or
# the rest (system calls, waking threads, TCP).
CATEGORIES = [
    ("kernel: socket copies", lambda dso, sym: dso.startswith("[kernel") and
     ("copy" in sym or "rep_movs" in sym)),
    ("kernel: page faults", lambda dso, sym: dso.startswith("[kernel") and
     any(k in sym for k in ("page", "fault", "folio", "mm_", "lru", "list_del", "pte"))),
    ("kernel: system calls, scheduling, TCP", lambda dso, sym: dso.startswith("[kernel")),
    ("base64", lambda dso, sym: "base64" in sym),
    ("XML reading", lambda dso, sym: any(k in sym for k in ("xml::ReaderImpl", "xml::Lexer",
                                                               "xml::Reader", "scalar::"))),
    ("XML writing", lambda dso, sym: any(k in sym for k in ("XmlWriter", "ResultWriter",
                                                               "write_document", "format_double"))),
    ("HTTP", lambda dso, sym: "http::" in sym),
    ("copies and allocation", lambda dso, sym: any(k in sym for k in (
        "memmove", "memcpy", "memset", "malloc", "free", "_int_", "operator new",
        "operator delete", "value_alloc", "value_free", "release_slow", "Buffer::",
        "consolidate", "unlink_chunk", "usable_size"))),
    ("conversion to and from C++ types", lambda dso, sym: any(k in sym for k in (
        "Convert<", "member_as", "convert_result", "BoundHandler", "answer_with",
        "Value::Value", "Value::structure", "set_text", "peers::"))),
]
OTHER = "other (dispatch, client, event loop, libc)"
NAMES = [name for name, _ in CATEGORIES] + [OTHER]


def categorise(dso, sym):
    for name, test in CATEGORIES:
        if test(dso, sym):
            return name
    return OTHER


def profile(command, seconds_hint=""):
    """{category: share of samples} of running `command` under perf, or None without perf."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        record = subprocess.run(["perf", "record", "-F", "1999", "-q", "-o", str(data), "--"]
                                + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        if record.returncode != 0:
            return None
        report = subprocess.run(
            ["perf", "report", "-i", str(data), "--no-children", "--sort", "dso,sym",
             "--stdio", "--percent-limit", "0", "-q", "-g", "none"],
            capture_output=True, text=True)
        if report.returncode != 0:
            return None
    shares = dict.fromkeys(NAMES, 0.0)
    for line in report.stdout.splitlines():
        # "    12.34%  [kernel.kallsyms]  [k] clear_page_rep"
        parts = line.split(None, 3)
        if len(parts) < 4 or not parts[0].endswith("%"):
            continue
        share = float(parts[0].rstrip("%"))
        dso, sym = parts[1], parts[3]
        shares[categorise(dso, sym)] += share
    total = sum(shares.values())
    if total <= 0:
        return None
    return {name: value / total for name, value in shares.items()}


def top(shares, count=3):
    """The `count` largest categories as "name 41%, name 20%, name 12%"."""
    ranked = sorted(shares.items(), key=lambda kv: -kv[1])[:count]
    return ", ".join(f"{name} {share * 100:.0f}%" for name, share in ranked)
