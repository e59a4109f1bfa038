#!/bin/bash
# kwarn report --format sarif, kcidb and mail on the database the real
# collector builds from gcc's own logs (tests/lib/server-fixture.sh):
# the properties and types the published schemas require (SARIF 2.1.0 from
# OASIS sarif-spec, KCIDB v5 from kernelci/kcidb-io; their files are not
# shipped here, see below), counts against kwarn's own JSON report, ">>"
# exactly on the new warnings and their notes, and To:/Cc: from
# MAINTAINERS, checked against scripts/get_maintainer.pl of the real 6.1
# tree in kwarn's cache (the one 25-series-e2e.t imports, or the pristine
# tree of kernel/check-series), else MAINTAINERS and get_maintainer.pl
# taken from Debian's linux-source-6.1 tarball.
#
# SARIF is validated against the published 2.1.0 schema and by Microsoft's
# sarif-multitool (scripts/install-deps installs both).  KWARN_KCIDB_IO=<a
# kcidb-io checkout> also validates KCIDB against kcidb-io itself, which
# neither Debian nor the npm registry packages: a skip without it.
set -u
cd "$(dirname "$0")/.."
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
KWARN=${KWARN:-$top/bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-$top/bin/kwarn-server}
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
. tests/lib/tap.sh
. tests/lib/server-fixture.sh

fixture_build "$tmp"
ok $? "fixture database built by kwarn ingest from gcc logs"
# the classifier's verdicts on the last commit's sources, for SARIF
"$KWARN" classify --db "$DB" --commit "$C3" --tree "$tmp/src" >/dev/null 2>&1
ok $([ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM classifications")" -gt 0 ] &&
	echo 0 || echo 1) "kwarn classify gave verdicts to the fixture's fall-throughs"
"$KWARN" report --db "$DB" --run "$RUN" --format json >"$tmp/report.json"
ok $? "kwarn report --format json"

# ---- SARIF ----
"$KWARN" report --db "$DB" --run "$RUN" --format sarif >"$tmp/out.sarif"
ok $? "kwarn report --format sarif"
python3 - "$tmp/out.sarif" "$tmp/report.json" >"$tmp/sarif.check" 2>&1 <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
# sarifLog: version and runs are required; $schema a string
need(log.get("version") == "2.1.0", "version 2.1.0")
need(isinstance(log.get("runs"), list), "runs is an array")
built = [c for c in rep["commits"] if c.get("build") is not None]
need(len(log["runs"]) == len(built), "one run per built point")
levels = {"none", "note", "warning", "error"}
states = {"new", "unchanged", "updated", "absent"}
for run, c in zip(log["runs"], built):
    drv = run["tool"]["driver"]          # run.tool and tool.driver required
    need(isinstance(drv.get("name"), str) and drv["name"], "driver.name")
    rules = drv.get("rules", [])
    ids = [r["id"] for r in rules]       # reportingDescriptor.id required
    need(len(ids) == len(set(ids)), "one rule per option")
    need(all(i.startswith("-W") and "=" not in i for i in ids),
         "rules are -W options as people write them")
    base = c["position"] == 0
    want = {"new": 0, "unchanged": 0, "absent": 0}
    for w in c["warnings_list"]:
        s = {"new": "new", "present": "unchanged", "fixed": "absent"}.get(w["state"])
        if s:
            want[s] += 1
    got = {"new": 0, "unchanged": 0, "absent": 0}
    need(len(run["results"]) == sum(want.values()), "results of point %d" % c["position"])
    for r in run["results"]:
        need(isinstance(r["message"].get("text"), str), "message.text")
        need(r["ruleId"] in ids and ids[r["ruleIndex"]] == r["ruleId"], "ruleId/ruleIndex")
        need(r["level"] in levels, "level enum")
        if base:
            need("baselineState" not in r, "no baseline at the base")
        else:
            need(r["baselineState"] in states, "baselineState enum")
            got[r["baselineState"]] += 1
        loc = r["locations"][0]["physicalLocation"]
        al = loc["artifactLocation"]
        need(not al["uri"].startswith("/") and al.get("uriBaseId") == "SRCROOT",
             "relative uri on SRCROOT")
        need(loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1,
             "region starts at 1")
        fp = r["partialFingerprints"]
        need(all(isinstance(v, str) for v in fp.values()), "fingerprints are strings")
        w = [w for w in c["warnings_list"] if w["identity"] == fp["kwarnIdentity/v1"]]
        need(len(w) == 1, "fingerprint is kwarn's identity")
        if not w:
            continue
        w = w[0]
        need(al["uri"] == w["file"] and loc["region"]["startLine"] == w["line"],
             "place is the warning's")
        need([n["message"]["text"] for n in r.get("relatedLocations", [])] ==
             [n["message"] for n in w["notes"]], "notes as relatedLocations")
        if w.get("function"):
            ll = r["locations"][0]["logicalLocations"][0]
            need(ll["name"] == w["function"] and ll["kind"] == "function",
                 "function as logicalLocation")
        need(r["ruleId"] == w["option"].split("=")[0],
             "ruleId is the option without gcc's '='")
        pr = r.get("properties", {})
        need(pr.get("verdict") == w.get("verdict") and
             (not w.get("verdict") or (pr.get("fix") == w.get("fix") and
                                       pr.get("reason") == w.get("reason"))),
             "the classifier's verdict, fix and reason in properties")
    if not base:
        need(got == want, "baselineState counts of point %d: %s vs %s" % (c["position"], got, want))
print("\n".join(sorted(set(bad))) or "fine")
print("runs %d, results %d" % (len(log["runs"]), sum(len(r["results"]) for r in log["runs"])))
PY
sed 's/^/# /' "$tmp/sarif.check"
check "SARIF: required properties, types, counts and places" \
	grep -qx fine "$tmp/sarif.check"
# The published schema and Microsoft's validator, both installed by
# scripts/install-deps (the npm registry's sarif-multitool, which ships
# the SARIF 2.1.0 schema beside it; KWARN_SARIF_SCHEMA names another).
# Each is shown to reject a broken copy first: the multitool reads a log
# whose enums it cannot parse as an empty one, so the schema check
# (Debian's python3-jsonschema) is the one that sees those.
multitool=${KWARN_SARIF_MULTITOOL:-/usr/local/lib/kwarn-npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool}
schema=${KWARN_SARIF_SCHEMA:-$(dirname "$multitool")/sarif-2.1.0.json}
schema_check() { # FILE: the schema's errors on stdout, exit 1 if any
	/usr/bin/python3 -c 'import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
errs = list(jsonschema.validators.validator_for(s)(s).iter_errors(
	json.load(open(sys.argv[2]))))
for e in errs[:5]:
	print("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:200]))
sys.exit(1 if errs else 0)' "$schema" "$1"
}
multitool_errors() { # FILE: the validator's error-level results, one a line
	rm -f "$tmp/mt.sarif"
	DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$multitool" validate "$1" \
		--output "$tmp/mt.sarif" >"$tmp/mt.out" 2>&1 &&
		jq -r '.runs[].results[] | select(.level == "error") |
			"\(.ruleId): \(.message.text // "" | .[0:200])"' "$tmp/mt.sarif"
}
jq '.runs[0].results[0].level = "fatal"' "$tmp/out.sarif" >"$tmp/bad-enum.sarif"
jq '.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0' \
	"$tmp/out.sarif" >"$tmp/bad-line.sarif"
schema_check "$tmp/bad-enum.sarif" 2>&1 | grep -q "'fatal' is not one of"
ok $? "SARIF schema check ($schema) rejects a copy with level 'fatal'"
schema_check "$tmp/out.sarif" >"$tmp/schema.err" 2>&1
ok $? "SARIF validates against the published 2.1.0 schema"
sed 's/^/# /' "$tmp/schema.err"
multitool_errors "$tmp/bad-line.sarif" >"$tmp/mt.bad"
check "sarif-multitool validate reports a copy's startLine 0 as an error" \
	grep -q '^JSON1008: ' "$tmp/mt.bad"
multitool_errors "$tmp/out.sarif" >"$tmp/mt.err"
rc=$?
test "$rc" = 0 && test ! -s "$tmp/mt.err"
ok $? "sarif-multitool validate: no error in kwarn's SARIF (rc=$rc)"
sed 's/^/# /' "$tmp/mt.err"
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/mt.out" | tail -5
jq -r '.runs[].results[] | select(.level != "error") |
	"\(.level // "warning") \(.ruleId)"' "$tmp/mt.sarif" 2>/dev/null |
	sort | uniq -c | sed 's/^ *\([0-9]*\) /# sarif-multitool: \1 x /'

# ---- KCIDB ----
"$KWARN" report --db "$DB" --run "$RUN" --format kcidb >"$tmp/out.kcidb"
ok $? "kwarn report --format kcidb"
python3 - "$tmp/out.kcidb" "$tmp/report.json" >"$tmp/kcidb.check" 2>&1 <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
# kcidb-io v05_03: required properties, the allowed ones
# (additionalProperties false) and their types
idre = re.compile(r"^[a-z0-9_]+:[^\0]*$")
S, B, I, N, O, A = str, bool, int, (int, float), dict, list
spec = {
    "checkouts": (["id", "origin"], {"id": S, "origin": S, "tree_name": S,
        "git_repository_url": S, "git_commit_hash": S, "git_commit_name": S,
        "git_commit_tags": A, "git_commit_message": S,
        "git_repository_branch": S, "git_repository_branch_tip": B,
        "patchset_files": A, "patchset_hash": S, "message_id": S,
        "comment": S, "start_time": S, "origin_builds_finish_time": S,
        "origin_tests_finish_time": S, "log_url": S, "log_excerpt": S,
        "valid": B, "misc": O}),
    "builds": (["checkout_id", "id", "origin"], {"checkout_id": S, "id": S,
        "origin": S, "comment": S, "start_time": S, "duration": N,
        "architecture": S, "command": S, "compiler": S, "input_files": A,
        "output_files": A, "config_name": S, "config_url": S, "log_url": S,
        "log_excerpt": S, "status": S, "misc": O}),
    "tests": (["build_id", "id", "origin"], {"build_id": S, "id": S,
        "origin": S, "environment": O, "path": S, "comment": S,
        "log_url": S, "log_excerpt": S, "status": S, "number": O,
        "start_time": S, "duration": N, "input_files": A,
        "output_files": A, "misc": O}),
    "issues": (["id", "version", "origin"], {"id": S, "version": I,
        "origin": S, "categories": A, "report_url": S, "report_subject": S,
        "culprit": O, "comment": S, "misc": O}),
    "incidents": (["id", "origin", "issue_id", "issue_version"], {"id": S,
        "origin": S, "issue_id": S, "issue_version": I, "build_id": S,
        "test_id": S, "present": B, "comment": S, "misc": O}),
}
v = d.get("version", {})
need(v.get("major") == 5 and isinstance(v.get("minor"), int) and 0 <= v["minor"] <= 3,
     "version 5.0-5.3")
need(set(d) <= set(spec) | {"version"}, "only the schema's top-level keys")
for kind, (req, props) in spec.items():
    for o in d.get(kind, []):
        for k in req:
            need(k in o, "%s: %s required" % (kind, k))
        for k, val in o.items():
            need(k in props, "%s: %s not in the schema" % (kind, k))
            if k in props:
                need(isinstance(val, props[k]) and val is not None and
                     not (props[k] is I and isinstance(val, bool)),
                     "%s.%s type" % (kind, k))
        for k in ("id", "checkout_id", "build_id", "issue_id", "test_id"):
            if k in o:
                need(bool(idre.match(o[k])), "%s.%s pattern" % (kind, k))
        need(re.match(r"^[a-z0-9_]+$", o.get("origin", "")) is not None, "origin pattern")
        if "status" in o:
            need(o["status"] in ("FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"), "status enum")
        if "start_time" in o:
            need(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", o["start_time"]) is not None,
                 "date-time")
        if "git_commit_hash" in o:
            need(re.match(r"^[0-9a-f]{40}$", o["git_commit_hash"]) is not None, "commit hash")
        if "path" in o:
            need(re.match(r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$", o["path"]) is not None, "path")
# links and counts against kwarn's own report
ids = {k: {o["id"] for o in d[k]} for k in spec}
need(all(b["checkout_id"] in ids["checkouts"] for b in d["builds"]), "builds link checkouts")
need(all(t["build_id"] in ids["builds"] for t in d["tests"]), "tests link builds")
need(all(i["issue_id"] in ids["issues"] and i["build_id"] in ids["builds"]
         for i in d["incidents"]), "incidents link issues and builds")
need(len(d["checkouts"]) == len(rep["commits"]), "one checkout per point")
built = [c for c in rep["commits"] if c.get("build") is not None]
need(len(d["builds"]) == len(built), "one build per built point")
boots = [c for c in built if c.get("verdict")]
need(len([t for t in d["tests"] if t["path"] == "boot"]) == len(boots), "one test per boot")
need(all(t["status"] == "PASS" for t in d["tests"] if t["path"] == "boot"), "the fixture's boot passed")
seen = [w for c in built for w in c["warnings_list"] if w["state"] in ("new", "present", "fixed")]
need(len(d["incidents"]) == len(seen), "one incident per warning and build")
need(len(d["issues"]) == len({w["identity"] for w in seen}), "one issue per identity")
need(sum(1 for i in d["incidents"] if not i["present"]) ==
     sum(1 for w in seen if w["state"] == "fixed"), "fixed ones are not present")
print("\n".join(sorted(set(bad))) or "fine")
print(" ".join("%s %d" % (k, len(d[k])) for k in spec))
PY
sed 's/^/# /' "$tmp/kcidb.check"
check "KCIDB: required fields, types, links and counts" \
	grep -qx fine "$tmp/kcidb.check"
if [ -n "${KWARN_KCIDB_IO:-}" ]; then
	python3 -c 'import json, sys
sys.path.insert(0, sys.argv[1])
from kcidb_io.schema import V5_3
V5_3.validate(json.load(open(sys.argv[2])))' "$KWARN_KCIDB_IO" "$tmp/out.kcidb"
	ok $? "KCIDB validates against kcidb-io's v5.3 schema"
else
	skip "KCIDB against kcidb-io's v5.3 schema: KWARN_KCIDB_IO is not set"
fi

# ---- mail ----
"$KWARN" report --db "$DB" --run "$RUN" --format mail >"$tmp/out.mbox"
ok $? "kwarn report --format mail"
nmsg=$(grep -c '^From kwarn@localhost ' "$tmp/out.mbox")
want=$(jq '[.commits[] | select(.position > 0 and .new > 0)] | length' "$tmp/report.json")
check "one message per point with new warnings ($nmsg = $want)" test "$nmsg" = "$want"
for h in From: To: Subject: Date: Message-ID:; do
	check "header $h" grep -q "^$h" "$tmp/out.mbox"
done
for l in 'tree:' 'head:' 'commit:' 'config:' 'compiler:' 'reproduce:'; do
	check "line $l" grep -q "^$l" "$tmp/out.mbox"
done
check "a Reported-by: to copy" grep -qx '| Reported-by: kwarn <kwarn@localhost>' "$tmp/out.mbox"
check "All warnings (new ones prefixed by >>)" \
	grep -qx 'All warnings (new ones prefixed by >>):' "$tmp/out.mbox"
sub=$(grep '^Subject:' "$tmp/out.mbox")
echo "# $sub"
check "the subject names the tree and the count" \
	grep -q '^Subject: \[kwarn kwtree 1/2\] 1 new warning: fs/afs/fsclient.c:[0-9]*:[0-9]*: warning: ' <<<"$sub"
# >> on exactly the new warnings' lines, as the robot puts it: not on
# their source lines or notes (issue 33)
jq -r '.commits[] | select(.position > 0 and .new > 0) | .warnings_list[] |
	select(.state == "new") | "\(.file):\(.line):\(.column): \(.kind): \(.message) [\(.option)]"' \
	"$tmp/report.json" | sort >"$tmp/want.new"
sed -n 's/^>> \([^ ]*:[0-9]*:[0-9]*: \)/\1/p' "$tmp/out.mbox" | sort >"$tmp/got.new"
check "'>>' on exactly the new warnings ($(wc -l <"$tmp/want.new") lines)" \
	cmp -s "$tmp/want.new" "$tmp/got.new"
check "'>>' on no other line" \
	test "$(grep -c '^>>' "$tmp/out.mbox")" = "$(wc -l <"$tmp/want.new")"
check "each new warning's note follows it, unmarked" \
	grep -A2 '^>> ' "$tmp/out.mbox" | grep -q '^   [^ ]*:[0-9]*:[0-9]*: note: '

jq -r '.commits[] | select(.position > 0 and .new > 0) | .warnings_list[] | select(.state == "present" and .file == "fs/afs/fsclient.c") |
	"   \(.file):\(.line):\(.column): \(.kind): \(.message) [\(.option)]"' \
	"$tmp/report.json" >"$tmp/want.old"
check "the file's other warning is listed without '>>'" \
	test -s "$tmp/want.old" -a "$(grep -cxFf "$tmp/want.old" "$tmp/out.mbox")" = "$(wc -l <"$tmp/want.old")"
check "the source excerpt marks the line" \
	grep -q '^ > *[0-9][0-9]*	' "$tmp/out.mbox"
check "To: the fixture's AFS maintainer" \
	grep -q '^To: David Howells <dhowells@example.org>' "$tmp/out.mbox"
check "no firewire maintainer for an afs warning" \
	test "$(grep -c 'stefanr@example.org' "$tmp/out.mbox")" = 0

# ---- triage: what people decided, in every format ----
# On a copy: c2's new warning (afs_c) intended, dev_x a compiler bug with
# its link, afs_b confirmed; the others never triaged.
cp "$DB" "$tmp/tri.db"
T() { KWARN_WHO=alice "$KWARN" triage --db "$tmp/tri.db" "$@" >/dev/null; }
T fs/afs/fsclient.c:17 --as intended --reason 'doubling first is the point' &&
	T net/core/dev.c:5 --as compiler-bug --reason 'gcc PR 12345' \
		--link https://gcc.gnu.org/bugzilla/show_bug.cgi?id=12345 &&
	T fs/afs/fsclient.c:6 --as confirmed --reason 'a missing break'
ok $? "three warnings triaged with kwarn triage (intended, compiler-bug, confirmed)"
"$KWARN" report --db "$tmp/tri.db" --run "$RUN" --format json >"$tmp/tri.json" &&
	"$KWARN" report --db "$tmp/tri.db" --run "$RUN" >"$tmp/tri.txt" &&
	"$KWARN" report --db "$tmp/tri.db" --run "$RUN" --format sarif >"$tmp/tri.sarif" &&
	"$KWARN" report --db "$tmp/tri.db" --run "$RUN" --format kcidb >"$tmp/tri.kcidb" &&
	"$KWARN" report --db "$tmp/tri.db" --run "$RUN" --format mail >"$tmp/tri.mbox"
ok $? "kwarn report in every format on the triaged database"
check "json: each warning has its triage, and by_triage counts the tip's" \
	jq -e '([.commits[].warnings_list[].triage.state] | unique) == ["compiler-bug", "confirmed", "intended", "open"]
		and (.commits[-1].by_triage | .open + .confirmed + .intended + .["compiler-bug"] + .wontfix + .["false-positive"])
			== .commits[-1].warnings' "$tmp/tri.json"
grep -A3 '^>> fs/afs/fsclient.c:17:' "$tmp/tri.txt" | grep -q '^   triage: intended by alice on [0-9-]*: doubling first is the point$' &&
	grep -qx 'triage at #2: 0 open, 1 confirmed, 1 intended' "$tmp/tri.txt"
ok $? "text: the triage line under the new warning, the tip's counts after the burn-down"
python3 - "$tmp/tri.sarif" "$tmp/tri.json" >"$tmp/tri-sarif.check" 2>&1 <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
settled = {"intended", "false-positive", "compiler-bug", "wontfix"}
tri = {w["identity"]: w["triage"] for c in rep["commits"] for w in c["warnings_list"]}
bad, n = [], 0
for run in log["runs"]:
    for r in run["results"]:
        t = tri[r["partialFingerprints"]["kwarnIdentity/v1"]]
        if r["properties"].get("triage") != t:
            bad.append("properties.triage is the warning's")
        if t["state"] in settled:
            n += 1
            if r.get("suppressions") != [{"kind": "external", "status": "accepted",
                                          "justification": t["reason"]}]:
                bad.append("an accepted external suppression for %s" % t["state"])
        elif "suppressions" in r:
            bad.append("no suppressions for %s" % t["state"])
print("\n".join(sorted(set(bad))) or "fine")
print("suppressed %d" % n)
PY
sed 's/^/# /' "$tmp/tri-sarif.check"
check "SARIF: suppressions exactly on the intended and the compiler bug, with their reason" \
	grep -qx fine "$tmp/tri-sarif.check"
check "SARIF: some are suppressed and some are not" \
	grep -q '^suppressed [1-9]' "$tmp/tri-sarif.check"
python3 - "$tmp/tri.kcidb" >"$tmp/tri-kcidb.check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def nonull(v):
    if v is None:
        bad.append("a null")
    for x in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else []):
        nonull(x)
nonull(d)
by = {}
for i in d["issues"]:
    by.setdefault(i["misc"]["triage"]["state"], []).append(i)
cb, it, cf = by.get("compiler-bug", []), by.get("intended", []), by.get("confirmed", [])
if not (len(cb) == 1 and cb[0]["culprit"] == {"code": False, "tool": True, "harness": False}
        and cb[0]["report_url"] == "https://gcc.gnu.org/bugzilla/show_bug.cgi?id=12345"
        and cb[0]["misc"]["triage"]["link"] == cb[0]["report_url"]):
    bad.append("the compiler bug: the tool as culprit, its link the report_url")
for i in it + cf:
    t = i["misc"]["triage"]
    if not (i["culprit"]["code"] and not i["culprit"]["tool"] and "report_url" not in i
            and t["who"] == "alice" and t["origin"] == "cli" and t["at"][:2] == "20"):
        bad.append("intended, confirmed: the code as culprit, who, origin and when")
if not (len(it) == 1 and len(cf) == 1 and by.get("open")):
    bad.append("one intended, one confirmed, the rest open")
if any(set(i["misc"]["triage"]) != {"state"} for i in by.get("open", [])):
    bad.append("an open issue's triage is its state alone")
print("\n".join(sorted(set(bad))) or "fine")
PY
sed 's/^/# /' "$tmp/tri-kcidb.check"
check "KCIDB: misc.triage on every issue, the compiler bug's culprit and report_url, no null" \
	grep -qx fine "$tmp/tri-kcidb.check"
check "mail: no message when the only new warning is triaged intended" \
	test ! -s "$tmp/tri.mbox"
T fs/afs/fsclient.c:17 --as confirmed --reason 'no: a real missing break'
"$KWARN" report --db "$tmp/tri.db" --run "$RUN" --format mail >"$tmp/tri.mbox"
grep -A4 '^>> fs/afs/fsclient.c:17:' "$tmp/tri.mbox" |
	grep -q '^   triage: confirmed by alice on [0-9-]*: no: a real missing break$' &&
	grep -q '^   triage: confirmed by alice on [0-9-]*: a missing break$' "$tmp/tri.mbox" &&
	grep -q '^Subject: \[kwarn kwtree 1/2\] 1 new warning: fs/afs/fsclient.c:17:' "$tmp/tri.mbox"
ok $? "mail: confirmed since, the message again, each warning's triage under it"

# against get_maintainer.pl, with the real MAINTAINERS of 6.1
src=
for d in "$KWARN_CACHE"/trees/linux-source-6.1/src \
	"$KWARN_CACHE"/trees/linux-source-6.1-*/src \
	"$KWARN_CACHE/pristine/linux-source-6.1"; do
	if [ -r "$d/MAINTAINERS" ] && [ -r "$d/scripts/get_maintainer.pl" ]; then
		src=$d
		break
	fi
done
# none in the cache (make check-fast on a new machine): the two files
# from Debian's tarball, in a tree that get_maintainer.pl takes for a
# kernel's (the files and folders it looks for, and the files asked of it)
tarball=${KWARN_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
if [ -z "$src" ] && [ -r "$tarball" ]; then
	gm=$tmp/gm-tree
	mkdir -p "$gm"
	if tar -xJf "$tarball" -C "$gm" --strip-components=1 --occurrence=1 \
		linux-source-6.1/MAINTAINERS \
		linux-source-6.1/scripts/get_maintainer.pl 2>"$tmp/tar.err"; then
		(cd "$gm" && touch COPYING CREDITS Kbuild Makefile README &&
			mkdir -p Documentation arch include drivers fs init ipc \
				kernel lib) && src=$gm
	else
		sed 's/^/# tar: /' "$tmp/tar.err"
	fi
fi
if [ -n "$src" ]; then
	echo "# the real tree: $src"
	cp "$DB" "$tmp/real.db"
	sqlite3 "$tmp/real.db" "UPDATE trees SET maintainers =
		CAST(readfile('$src/MAINTAINERS') AS TEXT)"
	"$KWARN" report --db "$tmp/real.db" --run "$RUN" --format mail >"$tmp/real.mbox"
	files=$(jq -r '[.commits[] | select(.position > 0 and .new > 0) |
		.warnings_list[] | select(.state == "new") | .file] | unique | .[]' \
		"$tmp/report.json")
	if [ "$src" = "${gm:-}" ]; then
		for f in $files; do mkdir -p "$gm/$(dirname "$f")" && touch "$gm/$f"; done
	fi
	(cd "$src" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-keywords --no-tree -f $files) |
		sort >"$tmp/gm"
	sed -n '/^To: /,/^Subject:/p' "$tmp/real.mbox" | grep -v '^Subject:' |
		sed 's/^\(To\|Cc\): //; s/^    //; s/,$//' | sort >"$tmp/ours"
	sed 's/^/# get_maintainer.pl: /' "$tmp/gm"
	check "the lists and reviewers go to Cc:" grep -q '^Cc: ' "$tmp/real.mbox"
	check "To: and Cc: are what get_maintainer.pl names for $files" \
		cmp -s "$tmp/gm" "$tmp/ours"
	cmp "$tmp/gm" "$tmp/ours" >/dev/null || diff "$tmp/gm" "$tmp/ours" | sed 's/^/# /'
else
	skip "no linux-source-6.1 tree in kwarn's cache or tarball for get_maintainer.pl"
	skip "no linux-source-6.1 tree in kwarn's cache or tarball for get_maintainer.pl"
fi
done_tap
