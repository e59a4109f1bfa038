#!/usr/bin/python3
"""An independent reading of build logs, for checking what kwarn stores.

    log-oracle.py [--states] LOG:MAP [LOG:MAP...]

Each LOG is one commit's build log as kbuild prints it ("  CC      OBJ"
lines, then the compiler's stderr for that object), MAP the objects that
commit built, one per line; the commits in series order.  Prints a JSON
list, one entry per commit: {warnings, new, fixed, not_built}, computed
from gcc's (or clang's) own lines only, with none of kwarn's code:

  - a warning is a "FILE:LINE:COL: warning: MESSAGE" line; the same
    FILE:LINE:COL and message printed for two objects (a header's) is one;
  - new: live here and not at the previous commit;
  - not_built: live at the previous commit, gone here, and none of the
    objects that printed it there was built here;
  - fixed: the others that are gone.

With --states, prints instead one line per warning and commit, sorted:
"INDEX STATE FILE:LINE:COL MESSAGE" (INDEX the commit's, from 0; STATE
new, present, fixed or not_built; a warning gone before is not listed).

It is only right for logs whose warnings do not move between commits (the
fixture's sources keep every line in place), which is what makes it simple
enough to trust.
"""
import json
import re
import sys

CC = re.compile(r"^\s+CC\s+(\S+)$")
WARN = re.compile(r"^(\S+?):(\d+):(\d+): warning: (.*)$")


def read(log):
    """{(file, line, col, message): set of objects that printed it}."""
    live, obj = {}, None
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = CC.match(line)
            if m:
                obj = m.group(1)
                continue
            m = WARN.match(line)
            if m:
                key = (m.group(1), int(m.group(2)), int(m.group(3)),
                       m.group(4))
                live.setdefault(key, set()).add(obj)
    return live


def main(args):
    states = bool(args) and args[0] == "--states"
    if states:
        args = args[1:]
    out, lines, prev = [], [], None
    for index, arg in enumerate(args):
        log, _, objmap = arg.partition(":")
        with open(objmap, encoding="utf-8") as f:
            built = {line.strip() for line in f if line.strip()}
        live = read(log)
        entry = {"warnings": len(live), "new": 0, "fixed": 0,
                 "not_built": 0}
        for k in live:
            state = "new" if prev is not None and k not in prev else \
                "present"
            lines.append((index, state, k))
        if prev is not None:
            entry["new"] = sum(1 for k in live if k not in prev)
            for k, objs in prev.items():
                if k in live:
                    continue
                if objs & built:
                    entry["fixed"] += 1
                    lines.append((index, "fixed", k))
                else:
                    entry["not_built"] += 1
                    lines.append((index, "not_built", k))
        out.append(entry)
        prev = live
    if states:
        for line in sorted("%d %s %s:%d:%d %s" % (i, st, k[0], k[1], k[2],
                                                  k[3])
                           for i, st, k in lines):
            print(line)
        return 0
    json.dump(out, sys.stdout, separators=(",", ":"))
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
