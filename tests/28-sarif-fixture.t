#!/bin/bash
# kwarn report --format sarif on databases built from gcc's own logs (the
# server fixture, tests/lib/server-fixture.sh, and one log of a missing
# break), validated as tests/28-report-formats.t validates it (the
# published 2.1.0 schema and Microsoft's sarif-multitool, both installed
# by scripts/install-deps) without a kernel: the place of every result
# relative to SRCROOT, SRCROOT a relative uriBaseId ("./" of REPOROOT,
# which names no machine), and the classifier's break; as a fix, which,
# applied to the source, silences gcc.
set -u
cd "$(dirname "$0")/.."
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
KWARN=${KWARN:-$top/bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-$top/bin/kwarn-server}
export KWARN_CACHE=$tmp/cache
. tests/lib/tap.sh
. tests/lib/server-fixture.sh

fixture_build "$tmp"
ok $? "fixture database built by kwarn ingest from gcc logs"
"$KWARN" classify --db "$DB" --commit "$C3" --tree "$tmp/src" >/dev/null 2>&1
ok $? "kwarn classify of the fixture's last commit"
# a case that sets what the next one sets again: a missing break
mb=$tmp/mb
mkdir -p "$mb/src/drivers/mb"
cat >"$mb/src/drivers/mb/mb.c" <<'EOF'
int mb_rate(int mode)
{
	int rate = 0;

	switch (mode) {
	case 1:
		rate = 100;
	case 2:
		rate = 200;
		break;
	default:
		rate = -1;
		break;
	}
	return rate;
}
EOF
printf 'drivers/mb/mb.o\n' >"$mb/map"
: >"$mb/log"
fixture_cc "$mb/src" "$mb/log" drivers/mb/mb.o
mbsha=$(printf mb | sha1sum | cut -c1-40)
"$KWARN" ingest --db "$mb/kwarn.db" --tree mbtree --commit "$mbsha" \
	--object-map "$mb/map" "$mb/log" >/dev/null &&
	"$KWARN" classify --db "$mb/kwarn.db" --commit "$mbsha" \
		--tree "$mb/src" >"$mb/cls"
ok $? "a missing break's log ingested and classified ($(head -1 "$mb/cls"))"

"$KWARN" report --db "$DB" --run "$RUN" --format sarif >"$tmp/fx.sarif" &&
	"$KWARN" report --db "$DB" --run "$RUN" --format json >"$tmp/fx.json" &&
	"$KWARN" report --db "$mb/kwarn.db" --format sarif >"$tmp/mb.sarif" &&
	"$KWARN" report --db "$mb/kwarn.db" --format json >"$tmp/mb.json"
ok $? "kwarn report --format sarif and json of both"

# the places and the fixes, against kwarn's own JSON report
sarif_check() { # SARIF JSON: "fine", else what is wrong
	python3 - "$1" "$2" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
need("file:" not in open(sys.argv[1]).read(), "no file: URI anywhere")
built = [c for c in rep["commits"] if c.get("build") is not None]
need(len(log["runs"]) == len(built) > 0, "one run per built point")
fixes = 0
for run, c in zip(log["runs"], built):
    bases = run.get("originalUriBaseIds", {})
    src = bases.get("SRCROOT", {})
    need(src.get("uri") == "./" and src.get("uriBaseId") == "REPOROOT",
         "SRCROOT is ./ of REPOROOT")
    need("REPOROOT" in bases and "uri" not in bases["REPOROOT"],
         "REPOROOT has no uri: the reader's checkout")
    need("versionControlProvenance" not in run, "no cache path as repository")
    need(run["properties"]["commit"] == c["commit"], "the commit in properties")
    ws = {w["identity"]: w for w in c["warnings_list"]}
    for r in run["results"]:
        w = ws[r["partialFingerprints"]["kwarnIdentity/v1"]]
        al = r["locations"][0]["physicalLocation"]["artifactLocation"]
        need(al == {"uri": w["file"], "uriBaseId": "SRCROOT"},
             "result's uri relative to SRCROOT")
        for rl in r.get("relatedLocations", []):
            need(rl["physicalLocation"]["artifactLocation"]["uriBaseId"] ==
                 "SRCROOT", "note's uri relative to SRCROOT")
        if w.get("fix") != "break;":
            need("fixes" not in r, "a fix only where the classifier's is break;")
            continue
        fixes += 1
        note = w["notes"][0]
        need(note["source"].lstrip().startswith(("case", "default")),
             "the note is on a label")
        indent = w["source"][:len(w["source"]) - len(w["source"].lstrip())]
        ac = r["fixes"][0]["artifactChanges"]
        need(len(r["fixes"]) == 1 and len(ac) == 1 and
             ac[0]["artifactLocation"] == {"uri": note["file"],
                                           "uriBaseId": "SRCROOT"} and
             ac[0]["replacements"] == [{
                 "deletedRegion": {"startLine": note["line"],
                                   "startColumn": 1,
                                   "endLine": note["line"], "endColumn": 1},
                 "insertedContent": {"text": "\t" * (len(indent) // 8) +
                                     " " * (len(indent) % 8) + "break;\n"}}],
             "break; inserted before the note's label, indented in tabs")
print("\n".join(sorted(set(bad))) or "fine")
print("fixes %d" % fixes)
PY
}
sarif_check "$tmp/fx.sarif" "$tmp/fx.json" >"$tmp/fx.check" 2>&1
sed 's/^/# /' "$tmp/fx.check"
check "fixture: every place relative to SRCROOT, ./ of REPOROOT; no fix but break;" \
	grep -qx fine "$tmp/fx.check"
sarif_check "$tmp/mb.sarif" "$tmp/mb.json" >"$tmp/mb.check" 2>&1
sed 's/^/# /' "$tmp/mb.check"
check "missing break: break; before the note's case, in tabs" \
	grep -qx fine "$tmp/mb.check"
check "missing break: one fix" \
	test "$(sed -n 's/^fixes //p' "$tmp/mb.check")" = 1

# the fix applied to the source as a SARIF reader applies it: gcc is quiet
python3 - "$tmp/mb.sarif" "$mb/src" <<'PY'
import json, os, sys
log = json.load(open(sys.argv[1]))
for r in log["runs"][0]["results"]:
    for f in r.get("fixes", []):
        for ac in f["artifactChanges"]:
            path = os.path.join(sys.argv[2], ac["artifactLocation"]["uri"])
            lines = open(path).read().split("\n")
            for rep in ac["replacements"]:
                at = rep["deletedRegion"]["startLine"] - 1
                lines[at] = rep["insertedContent"]["text"] + lines[at]
            open(path, "w").write("\n".join(lines))
PY
: >"$mb/log2"
fixture_cc "$mb/src" "$mb/log2" drivers/mb/mb.o
check "the fix applied: gcc warns no more ($(grep -c 'warning:' "$mb/log") -> $(grep -c 'warning:' "$mb/log2"))" \
	test "$(grep -c 'warning:' "$mb/log")" = 1 -a \
	"$(grep -c 'warning:' "$mb/log2")" = 0
sed -n 7,9p "$mb/src/drivers/mb/mb.c" | sed 's/^/# /'

# a real make log of a C=1 build (gcc 12 and sparse, tests/data/sparse/
# regen): sparse's lines are a run of their own, sparse its driver, beside
# the compiler's run of the same point
"$KWARN" ingest --db "$tmp/sp.db" --tree sp --commit c1 \
	tests/data/sparse/make/c1.log >/dev/null 2>&1
"$KWARN" report --db "$tmp/sp.db" --format sarif >"$tmp/sp.sarif" 2>&1
nsp=$(sqlite3 "$tmp/sp.db" "SELECT COUNT(DISTINCT identity_id) FROM diagnostics WHERE kind = 'sparse'" 2>/dev/null)
ncc=$(sqlite3 "$tmp/sp.db" "SELECT COUNT(DISTINCT identity_id) FROM diagnostics WHERE kind <> 'sparse'" 2>/dev/null)
check "sparse: the log has both tools' lines ($nsp sparse, $ncc compiler)" \
	test "${nsp:-0}" -gt 0 -a "${ncc:-0}" -gt 0
check "sparse: two runs for the one point, gcc's then sparse's" \
	test "$(jq -c '[.runs[].tool.driver.name]' "$tmp/sp.sarif")" = '["gcc","sparse"]'
check "sparse: every sparse result in sparse's run ($nsp)" \
	test "$(jq '[.runs[] | select(.tool.driver.name == "sparse") | .results[]] | length' "$tmp/sp.sarif")" = "$nsp"
check "sparse: the compiler's run has the compiler's results only ($ncc)" \
	test "$(jq '[.runs[] | select(.tool.driver.name == "gcc") | .results[] | select(.ruleId != "sparse")] | length' "$tmp/sp.sarif")" = "$ncc" -a \
	"$(jq '.runs[0].results | length' "$tmp/sp.sarif")" = "$ncc"
check "sparse: its own category (automationDetails)" \
	test "$(jq -r '.runs[1].automationDetails.id' "$tmp/sp.sarif")" = kwarn/run-1/point-0/sparse/

# the published schema and Microsoft's validator, as tests/28 runs them;
# each shown first to reject a broken copy of what this test checks
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
			"\(.ruleId): \(.message.text // .message.id // "" | .[0:200])"' \
			"$tmp/mt.sarif"
}
jq '.runs[0].originalUriBaseIds.SRCROOT.uri = "."' "$tmp/mb.sarif" \
	>"$tmp/bad-slash.sarif"
jq '.runs[0].originalUriBaseIds.SRCROOT.uri = "file:///x/"' "$tmp/mb.sarif" \
	>"$tmp/bad-abs.sarif"
jq '.runs[0].results[0].fixes[0].artifactChanges[0].replacements[0].deletedRegion.startLine = 0' \
	"$tmp/mb.sarif" >"$tmp/bad-fix.sarif"
schema_check "$tmp/bad-fix.sarif" >"$tmp/schema.bad" 2>&1
check "schema check ($schema) rejects a fix at line 0" \
	grep -q 'startLine' "$tmp/schema.bad"
for f in fx mb sp; do
	schema_check "$tmp/$f.sarif" >"$tmp/schema.err" 2>&1
	ok $? "$f: SARIF validates against the published 2.1.0 schema"
	sed 's/^/# /' "$tmp/schema.err"
done
multitool_errors "$tmp/bad-slash.sarif" >"$tmp/mt.bad1"
multitool_errors "$tmp/bad-abs.sarif" >"$tmp/mt.bad2"
check "sarif-multitool reports a SRCROOT without its slash" \
	grep -q '^SARIF1004: ' "$tmp/mt.bad1"
check "sarif-multitool reports a SRCROOT absolute on REPOROOT" \
	grep -q '^SARIF1004: ' "$tmp/mt.bad2"
for f in fx mb sp; do
	multitool_errors "$tmp/$f.sarif" >"$tmp/mt.err"
	rc=$?
	test "$rc" = 0 && test ! -s "$tmp/mt.err"
	ok $? "$f: sarif-multitool validate: no error (rc=$rc)"
	sed 's/^/# /' "$tmp/mt.err"
	[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/mt.out" | tail -5
done

done_tap
