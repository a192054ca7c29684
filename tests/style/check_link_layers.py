#!/usr/bin/env python3
"""The module layering at link time. The build keeps each src/ module from including headers
of modules it may not use, and style.layers holds the public headers to the same edges; but a
module could still call up the graph with a declaration of its own (`extern`, or a header in
its own directory) for a function defined in a module above it. Every module links into the
one library, so nothing would fail. This reads each module's object files with `nm` and fails
when one of them needs a symbol that only a module outside its edges defines.

  check_link_layers.py BUILD_DIR SOURCE_DIR

The modules and their CALLWIRE_USES_* lists come from SOURCE_DIR/CMakeLists.txt (parsed as
check_layers.py parses them). The lists are closed transitively here: a module may need what
the modules it uses need, because an inline function of a lower module's header is compiled
into the module that calls it, and its calls are that module's undefined symbols. (The lists
in CMakeLists.txt are closed already, all but capi's, which names server but not ws, which
server uses.) Each module's objects are BUILD_DIR/CMakeFiles/callwire_<module>.dir/src/
<module>/<file>.cpp.o, one for each src/<module>/*.cpp; only those of sources that exist are
read, so a stale object of a deleted source is no evidence.

What the nm symbol types (`nm -P`) count as:

  U          a need: the object calls or reads it and defines it nowhere in itself.
  w, v       weak undefined: the link succeeds without a definition, so not a need.
  T D B R    a definition (code, data, zero data, read-only data) seen by other objects.
  C, G, S    common and small data (C code, other targets): a definition too.
  i          an indirect (ifunc) function: a definition.
  W, V       a weak definition: inline functions, template instances, vtables and type info
             in COMDAT groups. A definition like the others: a module that uses an inline
             function compiles its own copy (W in its own object, no U), so copies in several
             modules never make a breach; a U for a symbol that only a module above defines,
             weakly or not, is a breach all the same (an `extern template`, or a vtable whose
             key function is up there).
  u          a unique global (GNU_UNIQUE: static locals of inline functions, template static
             members): a definition, as W.
  t d b r    local definitions (static functions, anonymous namespaces, string literals):
  and the    seen by no other object, so neither needs nor definitions. N, n, a, A, I, ?
  rest       (debug, absolute, unknown) are ignored too.

A need is met when its own module, or one it may use, defines the symbol. A need that no
module defines is outside the library (libc, libstdc++, OpenSSL, zlib, simdjson) and is
ignored. Any other need is a breach: it is printed demangled, grouped by edge (the module that
needs, the module that defines), with the object that needs it and the way out: move the
definition down to a module the user may use, or, when the edge belongs in the graph, add it
to CALLWIRE_USES_<module>.

Exit status: 0 when every module keeps to its edges, 1 on a breach or an incomplete build,
77 (ctest's skip) when BUILD_DIR holds no objects of the library at all.
"""
import collections
import pathlib
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_layers import modules_and_uses  # noqa: E402

SKIP = 77
NEED_TYPES = {"U"}
DEFINE_TYPES = set("TDBRCGSiWVu")


def closure(modules, allowed):
    """Each module's allowed set (itself and its USES), closed transitively."""
    closed = {}

    def visit(m, stack=()):
        if m in closed:
            return closed[m]
        if m in stack:
            sys.exit(f"CALLWIRE_USES_* make a cycle: {' -> '.join(stack + (m,))}")
        result = {m}
        for used in allowed[m] - {m}:
            result |= visit(used, stack + (m,))
        closed[m] = result
        return result

    for m in modules:
        visit(m)
    return closed


def module_objects(build, source, module):
    """(present objects, missing objects) of the module's sources."""
    objdir = build / "CMakeFiles" / f"callwire_{module}.dir" / "src" / module
    present, missing = [], []
    for cpp in sorted((source / "src" / module).glob("*.cpp")):
        obj = objdir / (cpp.name + ".o")
        (present if obj.is_file() else missing).append(obj)
    return present, missing


def read_symbols(objects):
    """{object: (needs, definitions)}, each a {mangled name: nm type}, from one nm run."""
    out = subprocess.run(["nm", "-P", "-A", *map(str, objects)], check=True,
                         capture_output=True, text=True).stdout
    symbols = {obj: ({}, {}) for obj in objects}
    by_name = {str(obj): obj for obj in objects}
    for line in out.splitlines():
        # "FILE: NAME TYPE [VALUE SIZE]"; mangled names have no spaces.
        head, _, rest = line.partition(": ")
        fields = rest.split()
        if head not in by_name or len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        needs, defines = symbols[by_name[head]]
        if kind in NEED_TYPES:
            needs[name] = kind
        elif kind in DEFINE_TYPES:
            defines[name] = kind
    return symbols


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names) + "\n", check=True,
                         capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    start = time.monotonic()
    build, source = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    modules, allowed = modules_and_uses((source / "CMakeLists.txt").read_text())
    allowed = closure(modules, allowed)

    objects, missing = {}, []
    for m in modules:
        objects[m], lost = module_objects(build, source, m)
        missing += lost
    if not any(objects.values()):
        print(f"no object files of the library under {build}/CMakeFiles: "
              "build the target callwire first; skipped")
        return SKIP
    if missing:
        print("the library is only partly built; these objects are missing "
              "(build the target callwire first):")
        for obj in missing:
            print(f"  {obj}")
        return 1

    owner = {obj: m for m in modules for obj in objects[m]}
    symbols = read_symbols([obj for m in modules for obj in objects[m]])
    definers = collections.defaultdict(dict)  # name -> {module: (object, type)}
    for obj, (_, defines) in symbols.items():
        for name, kind in defines.items():
            definers[name].setdefault(owner[obj], (obj, kind))

    # (user, definer) -> [(object, name, definition's object, type)]
    breaches = collections.defaultdict(list)
    checked = 0
    for obj, (needs, _) in symbols.items():
        user = owner[obj]
        for name in needs:
            where = definers.get(name)
            if not where:
                continue  # outside the library
            checked += 1
            if allowed[user] & where.keys():
                continue
            for definer, (def_obj, kind) in sorted(where.items()):
                breaches[(user, definer)].append((obj, name, def_obj, kind))

    elapsed = time.monotonic() - start
    n_objects = sum(len(v) for v in objects.values())
    if not breaches:
        print(f"{len(modules)} modules, {n_objects} objects: each of the {checked} symbols "
              f"one object needs from another is defined within the needing module's edges "
              f"({elapsed:.1f} s)")
        return 0

    plain = demangle(sorted({b[1] for found in breaches.values() for b in found}))

    def rel(obj):
        return obj.relative_to(build / "CMakeFiles").as_posix()

    for (user, definer), found in sorted(breaches.items()):
        print(f"module {user} needs {len(found)} symbol(s) defined in module {definer}, "
              f"which it may not use:")
        for obj, name, def_obj, kind in sorted(found, key=lambda b: (str(b[0]), plain[b[1]])):
            print(f"  {rel(obj)} needs {plain[name]}")
            print(f"    defined ({kind}) in {rel(def_obj)}")
        if user in allowed[definer]:
            print(f"  {definer} uses {user}, so the edge would make a cycle: move the definition "
                  f"down into {user} (or a module below it), or the call up into {definer}")
        else:
            print(f"  move the definition down into a module {user} may use, or the call into "
                  f"{definer}; if the edge belongs in the graph, add {definer} to "
                  f"CALLWIRE_USES_{user} (CMakeLists.txt, docs/architecture.md)")
    total = sum(len(v) for v in breaches.values())
    print(f"{total} symbol(s) needed across {len(breaches)} edge(s) the layers do not allow "
          f"({elapsed:.1f} s)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
