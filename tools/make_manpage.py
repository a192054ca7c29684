#!/usr/bin/env python3
"""Writes callwire(1), the man page of the `callwire` command, from the command's own --help.

Usage: make_manpage.py CALLWIRE_BINARY OUTPUT

Every subcommand's usage, arguments and options come from `callwire SUB --help`, so the page
cannot fall behind the program; the description, examples and exit status are written here.
Run by the build (tools/CMakeLists.txt) after the command is linked.
"""

import re
import subprocess
import sys


def run_help(binary, *args):
    result = subprocess.run([binary, *args, "--help"], capture_output=True, text=True,
                            check=True)
    return result.stdout


def escape(text):
    """Text safe in a roff line: backslashes and hyphens escaped, no leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # Anything beyond ASCII as a named Unicode character: groff reads its input as Latin-1.
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def sections(help_text):
    """{heading: [lines]} of a CLI11 help text ("Options:", "Positionals:", "Subcommands:"),
    and the text before the first heading."""
    found, current, preamble = {}, None, []
    for line in help_text.splitlines():
        if re.fullmatch(r"[A-Z][a-z]+:", line):
            current = line[:-1]
            found[current] = []
        elif current:
            if line.strip():
                found[current].append(line)
        else:
            preamble.append(line)
    return found, preamble


def entries(lines):
    """[(term, description)]: a line indented by two starts an entry; deeper lines continue
    the term's description (CLI11 wraps a long term's description onto the next line)."""
    items = []
    for line in lines:
        if line.startswith("  ") and not line.startswith("   "):
            term, _, description = line.strip().partition("  ")
            items.append([term.strip(), description.strip()])
        elif items:
            items[-1][1] = (items[-1][1] + " " + line.strip()).strip()
    return items


def option_list(items):
    out = []
    for term, description in items:
        out += [".TP", f"\\fB{escape(term)}\\fR", escape(description or "")]
    return out


def page(binary):
    top, preamble = sections(run_help(binary))
    summary = preamble[0].split(":", 1)[1].strip() if preamble else "XML-RPC tool"
    version = subprocess.run([binary, "--version"], capture_output=True, text=True,
                             check=True).stdout.split()[-1]
    subcommands = entries(top.get("Subcommands", []))
    out = [
        f'.TH CALLWIRE 1 "" "callwire {escape(version)}" "User Commands"',
        ".SH NAME",
        f"callwire \\- {escape(summary)}",
        ".SH SYNOPSIS",
        ".B callwire",
        "[\\fB\\-\\-help\\fR] [\\fB\\-\\-version\\fR]",
        ".I SUBCOMMAND",
        "[\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]",
        ".SH DESCRIPTION",
        "The command of the callwire library: encode and decode XML\\-RPC documents through a "
        "JSON form, call methods of any XML\\-RPC or JSON\\-RPC server, list a server's "
        "methods, and run a demonstration server with the standard test methods. Each "
        "subcommand takes \\fB\\-\\-help\\fR.",
        ".SH OPTIONS",
    ]
    out += option_list(entries(top.get("Options", [])))
    out.append(".SH SUBCOMMANDS")
    for name, description in subcommands:
        sub, sub_preamble = sections(run_help(binary, name))
        usage = next((line.split(":", 1)[1].strip() for line in sub_preamble
                      if line.startswith("Usage:")), f"callwire {name}")
        out += [f".SS {escape(name)}", escape(description), ".PP", ".nf",
                escape(usage), ".fi"]
        for heading in ("Positionals", "Options"):
            items = [i for i in entries(sub.get(heading, [])) if i[0] != "-h,--help"]
            if items:
                out += [".PP", f"\\fI{'Arguments' if heading == 'Positionals' else 'Options'}:\\fR",
                        ".RS 4"]
                out += option_list(items)
                out.append(".RE")
    out += [
        ".SH EXAMPLES",
        "Serve the demonstration methods on a port and call one:",
        ".PP",
        ".nf",
        ".RS 4",
        "callwire serve \\-\\-listen 127.0.0.1:8080 &",
        "callwire call http://127.0.0.1:8080/RPC2 sample.add i/5 i/3",
        "callwire list http://127.0.0.1:8080/RPC2",
        ".RE",
        ".fi",
        ".PP",
        "Turn a document into its JSON form and back:",
        ".PP",
        ".nf",
        ".RS 4",
        "callwire decode request.xml \\-\\-pretty > request.json",
        "callwire encode request.json",
        ".RE",
        ".fi",
        ".SH EXIT STATUS",
        "0 on success. 1 when a document or a call was refused: the fault, as "
        "\\fBfault\\fR \\fICODE\\fR: \\fImessage\\fR, on standard error (for "
        "\\fBdecode\\fR and \\fBencode\\fR a document that is not XML\\-RPC; for "
        "\\fBcall\\fR and \\fBlist\\fR the server's fault answer). 2 for anything "
        "else that went wrong: a wrong command line, a file that cannot be read, a server that "
        "cannot be reached or answered with an HTTP error, a time\\-out, a TLS failure, a "
        "server that could not start.",
        ".SH SEE ALSO",
        "The callwire library's documentation: README.md and docs/ in its source tree.",
    ]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    text = page(sys.argv[1])
    with open(sys.argv[2], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
