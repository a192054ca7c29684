"""Checks that every ```cpp and ```c block of a Markdown file is a run of consecutive lines of
one of the given source files, exactly as written there (docs/tutorial.md against
docs/tutorial/, docs/migrating-from-xmlrpc-c.md against docs/migrating/).
Usage: check_snippets.py DOC.md SOURCE...   Exits 1 naming each block that is not."""
import sys


def blocks(path):
    """(first line number, lines) of each ```cpp or ```c block."""
    out, current, start = [], None, 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if current is None and line.strip() in ("```cpp", "```c"):
                current, start = [], number + 1
            elif current is not None and line.strip() == "```":
                out.append((start, current))
                current = None
            elif current is not None:
                current.append(line)
    return out


def contains(source, block):
    n = len(block)
    return any(source[i:i + n] == block for i in range(len(source) - n + 1))


def main(argv):
    doc, sources = argv[1], argv[2:]
    texts = {}
    for s in sources:
        with open(s, encoding="utf-8") as f:
            texts[s] = [l.rstrip("\n") for l in f]
    found = blocks(doc)
    bad = [(start, b) for start, b in found if not any(contains(t, b) for t in texts.values())]
    for start, b in bad:
        print(f"{doc}:{start}: this code block is not lines of {' or '.join(sources)}:")
        print("\n".join("    " + l for l in b[:5]))
    if not found:
        print(f"{doc}: no code block")
        return 1
    print(f"{len(found) - len(bad)} of {len(found)} code blocks match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
