#!/usr/bin/python3
"""An independent reading of a parser case's log, for 23-parse-reading.t.

    parse-reading.py LOG

Prints one line per diagnostic the log holds, in the log's order:

    KIND<TAB>FILE:LINE:COL<TAB>OPTION<TAB>WERROR<TAB>MESSAGE

read from the tools' own line shapes with none of kwarn's code, so that
the test can hold each NAME.expected (written by `kwarn parse-dump`)
against the log itself: a snapshot that carries a parser bug disagrees
with this reading.  The shapes, as each tool prints them:

  gcc, clang   FILE:LINE:COL: warning|error|fatal error: MESSAGE [OPTION]
               ("error: ... [-Werror=X]" is warning X made an error;
               gcc's -fdiagnostics-format=json is read with json)
  GNU as       FILE:LINE: Warning|Error: MESSAGE, after "Assembler
               messages:"; "{standard input}" is no file
  make         Makefile:LINE: warning: ..., make[N]: warning: ...
  kconfig      .config:LINE:warning: MESSAGE
  kernel-doc   FILE:LINE: warning: MESSAGE (no column)
  dtc          FILE:L.C-L.C: Warning (CHECK): MESSAGE
  objtool      FILE: warning: objtool: MESSAGE
  modpost      WARNING|ERROR|FATAL: modpost: MESSAGE
  ld, drivers  PROG: warning|error: MESSAGE, FILE:(SECTION): warning: ...

A file name is written as the compile gave it with "dir/../" folded (kbuild
prints "amdgpu/../display"); a diagnostic with no file is at
"(none):0:0", one with no column at column 0.  Colour escapes (SGR, OSC 8
links) and a line's CR are terminal and transport, not the tool's text,
and are dropped first.
"""
import json
import re
import sys

ESC = re.compile(r"\x1b\[[0-9;]*[mK]|\x1b\]8;;[^\x07\x1b]*(\x07|\x1b\\)")
GCC = re.compile(r"^([^ :]+):(\d+):(\d+): (warning|error|fatal error): (.*)$")
NOCOL = re.compile(r"^([^ :]+|\{standard input\}):(\d+): "
                   r"(warning|Warning|error|Error): (.*)$")
KCONFIG = re.compile(r"^([^ :]+):(\d+):warning: (.*)$")
DTC = re.compile(r"^([^ :]+):(\d+)\.(\d+)-[0-9.]+: Warning \(([^)]*)\): (.*)$")
OBJTOOL = re.compile(r"^(?:ld: )?([^ :]+): warning: objtool: (.*)$")
MODPOST = re.compile(r"^(WARNING|ERROR|FATAL): modpost: (.*)$")
SECTION = re.compile(r"^([^ :]+):\([^)]*\): (warning): (.*)$")
PROG = re.compile(r"^([^ :]+|make\[\d+\]): (warning|error): (.*)$")
OPTION = re.compile(r"^(.*) \[(-[Wf][^\] ]*)\]$")
# objtool's "SYMBOL+OFFSET: " before its message is where, not what
OBJSYM = re.compile(r"^\S+\+0x[0-9a-f]+: ")
# a driver's summary of a failure already reported: no diagnostic itself
NOTE = re.compile(r"^([^ :]+):(\d+):(\d+): note: (.*)$")
PROG_NOTE = re.compile(r"^([^ :]+): note: (.*)$")
FOLLOW_ON = re.compile(r"returned \d+ exit status$|^lto-wrapper failed$")
# a linker: ld, a cross ld (TRIPLET-ld), ld.bfd, ld.lld, ld.lld-16
LINKER = re.compile(r"^(.*-)?ld(\.[a-z]+)?(-\d+)?$")


def fold(path):
    """'a/b/../c' as 'a/c': kbuild's relative includes, not the file."""
    parts = []
    for p in path.split("/"):
        if p == ".." and parts and parts[-1] not in ("", ".."):
            parts.pop()
        else:
            parts.append(p)
    return "/".join(parts)


def compiler(kind, message):
    """(kind, option, werror, message) of a gcc or clang diagnostic: an
    error that -Werror made of a warning is that warning ("[-Werror=X]"
    for gcc, "[-Werror,-WX]" for clang, "[-Werror]" for one with no
    option)."""
    option, werror = "(none)", 0
    m = OPTION.match(message)
    if m:
        message, option = m.group(1), m.group(2)
        if option == "-Werror":
            option, werror = "(none)", 1
        elif option.startswith("-Werror="):
            option, werror = "-W" + option[len("-Werror="):], 1
        elif option.startswith("-Werror,"):
            option, werror = option[len("-Werror,"):], 1
    if werror:
        kind = "warning"
    return kind, option, werror, message


def read_json(text):
    """gcc's -fdiagnostics-format=json: one array per compile, a line each;
    the lines between them are the driver's own."""
    out = []
    for line in text.split("\n"):
        if not line.startswith("["):
            continue
        for d in json.loads(line):
            caret = d["locations"][0]["caret"]
            at = "%s:%d:%d" % (fold(caret["file"]), caret["line"],
                               caret["column"])
            opt = d.get("option")
            kind, option, werror, msg = compiler(
                d["kind"], d["message"] + (" [%s]" % opt if opt else ""))
            notes = ["%s:%d:%d: %s" % (fold(c["locations"][0]["caret"]["file"]),
                                       c["locations"][0]["caret"]["line"],
                                       c["locations"][0]["caret"]["column"],
                                       c["message"])
                     for c in d.get("children", []) if c.get("locations")]
            out.append((kind, at, option, werror, msg, notes))
    return out


def read(text):
    out = []
    assembler = False

    def add(kind, at, option, werror, msg):
        out.append((kind, at, option, werror, msg, []))

    for line in text.split("\n"):
        line = ESC.sub("", line).rstrip("\r")
        if line.endswith(": Assembler messages:"):
            assembler = True
            continue
        m = NOTE.match(line)
        if m:
            # a note is the diagnostic's printed last (a serial log)
            if out:
                out[-1][5].append("%s:%s:%s: %s" % (
                    fold(m.group(1)), m.group(2), m.group(3), m.group(4)))
            continue
        m = PROG_NOTE.match(line)
        if m:
            if out:
                out[-1][5].append("(none):0:0: " + m.group(2))
            continue
        m = GCC.match(line)
        if m:
            kind, option, werror, msg = compiler(m.group(4), m.group(5))
            add(kind, "%s:%s:%s" % (fold(m.group(1)), m.group(2),
                                    m.group(3)), option, werror, msg)
            continue
        m = NOCOL.match(line)
        if m:
            f, word, msg = m.group(1), m.group(3), m.group(4)
            at = "%s:%s:0" % ("(none)" if f == "{standard input}" else
                              fold(f), m.group(2))
            if assembler and word in ("Warning", "Error"):
                add("assembler" if word == "Warning" else "error", at,
                    "(none)", 0, msg.strip())
            elif re.search(r"(^|/)(Makefile|Kbuild)[^/]*$|\.mk$", f):
                add("make", at, "(none)", 0, msg)
            else:
                add("kernel-doc", at, "(none)", 0, msg)
            continue
        m = KCONFIG.match(line)
        if m:
            add("kconfig", "%s:%s:0" % (m.group(1), m.group(2)), "(none)",
                0, m.group(3))
            continue
        m = DTC.match(line)
        if m:
            add("dtc", "%s:%s:%s" % m.group(1, 2, 3), "-W" + m.group(4), 0,
                m.group(5))
            continue
        m = OBJTOOL.match(line)
        if m:
            add("objtool", "%s:0:0" % m.group(1), "(none)", 0,
                OBJSYM.sub("", m.group(2)))
            continue
        m = MODPOST.match(line)
        if m:
            add("error" if m.group(1) == "ERROR" else "modpost",
                "(none):0:0", "(none)", 0, m.group(2))
            continue
        m = SECTION.match(line)
        if m:
            add("linker", "%s:0:0" % m.group(1), "(none)", 0, m.group(3))
            continue
        m = PROG.match(line)
        if m and not FOLLOW_ON.search(m.group(3)):
            prog = m.group(1).rsplit("/", 1)[-1]
            if prog.startswith("make"):
                kind = "make"
            elif m.group(2) == "error":
                kind = "error"
            elif LINKER.match(prog):
                kind = "linker"
            else:
                kind = "warning"
            add(kind, "(none):0:0", "(none)", 0, m.group(3))
    return out


def main(args):
    with open(args[0], "rb") as f:
        # a byte that is no UTF-8 is "?" in the dump, quotes as ASCII
        text = f.read().decode("utf-8", errors="replace")
    text = text.replace("\ufffd", "?").replace("\u2018", "'").replace(
        "\u2019", "'")
    diags = read_json(text) if text.startswith("[") and \
        not text.startswith("[exec]") else read(text)
    for kind, at, option, werror, msg, notes in diags:
        print("%s\t%s\t%s\t%d\t%s" % (kind, at, option, werror, msg))
        for note in notes:
            print("  note: " + note)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
