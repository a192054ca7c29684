#!/usr/bin/env python3
"""The module layering, public headers included: the build already keeps each src/ module from
including another module's private headers outside its edges (CALLWIRE_USES_* in
CMakeLists.txt); this holds the public headers to the same edges. Each public header belongs to
the module that implements it (OWNERS below); a module's sources, and the public headers it
owns, may include only public headers owned by itself or by the modules it may use. A module
that reached up the graph through include/callwire/ would otherwise compile.

  check_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

# Each public header's module. A new header goes here, or this check fails naming it.
OWNERS = {
    "callwire/export.hpp": "base",
    "callwire/error.hpp": "base",
    "callwire/buffer.hpp": "base",
    "callwire/header_field.hpp": "base",
    "callwire/base64.hpp": "base",
    "callwire/framing.hpp": "base",
    "callwire/version.h": "base",
    "callwire/tls.hpp": "net",
    "callwire/value.hpp": "value",
    "callwire/value_reader.hpp": "value",
    "callwire/value_writer.hpp": "value",
    "callwire/param_stream.hpp": "value",
    "callwire/convert.hpp": "value",
    "callwire/struct.hpp": "value",
    "callwire/message.hpp": "value",
    "callwire/detail/shape.hpp": "value",
    "callwire/xml.hpp": "xml",
    "callwire/json.hpp": "json",
    "callwire/registry.hpp": "dispatch",
    "callwire/detail/bind.hpp": "dispatch",
    "callwire/detail/drop_after_send.hpp": "dispatch",
    "callwire/trace.hpp": "trace",
    "callwire/dispatch.hpp": "server",
    "callwire/cgi.hpp": "server",
    "callwire/server.hpp": "server",
    "callwire/client.hpp": "client",
    "callwire.h": "capi",
    # The C API's headers by subject, which callwire.h includes.
    "callwire/c/common.h": "capi",
    "callwire/c/value.h": "capi",
    "callwire/c/described.h": "capi",
    "callwire/c/xml.h": "capi",
    "callwire/c/json.h": "capi",
    "callwire/c/framing.h": "capi",
    "callwire/c/trace.h": "capi",
    "callwire/c/tls.h": "capi",
    "callwire/c/handler.h": "capi",
    "callwire/c/server.h": "capi",
    "callwire/c/registry.h": "capi",
    "callwire/c/client.h": "capi",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"(callwire[^"]*)"', re.M)


def modules_and_uses(cmake_text):
    """CALLWIRE_MODULES and each CALLWIRE_USES_<module>, as CMakeLists.txt sets them."""
    sets = {}
    for m in re.finditer(r"set\((CALLWIRE_[A-Z_a-z]+)((?:[^()]|\n)*?)\)", cmake_text):
        sets[m.group(1)] = m.group(2).split()
    modules = sets["CALLWIRE_MODULES"]
    return modules, {m: set(sets.get("CALLWIRE_USES_" + m, [])) | {m} for m in modules}


def main():
    root = pathlib.Path(sys.argv[1])
    modules, allowed = modules_and_uses((root / "CMakeLists.txt").read_text())
    include = root / "include"
    problems = []

    headers = sorted(str(p.relative_to(include)) for p in include.rglob("*.h*"))
    for h in headers:
        if h not in OWNERS:
            problems.append(f"include/{h}: no module owns it (add it to OWNERS in {sys.argv[0]})")

    def check(path, module):
        for name in INCLUDE.findall(path.read_text(errors="replace")):
            owner = OWNERS.get(name)
            if owner and owner not in allowed[module]:
                problems.append(f"{path.relative_to(root)}: module {module} includes {name}, "
                                f"which belongs to {owner}, above it")

    for h in headers:
        if h in OWNERS:
            check(include / h, OWNERS[h])
    for module in modules:
        for path in sorted((root / "src" / module).glob("*.[ch]pp")):
            check(path, module)

    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(modules)} modules and {len(headers)} public headers keep to their edges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
