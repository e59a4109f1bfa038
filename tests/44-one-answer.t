#!/bin/bash
# One answer to each question, whoever asks it (issue 13): on one
# database, the per-commit counts by option of `kwarn report --format
# json` are those of GET /api/runs/{id}/burndown (a warning without a -W
# option, such as modpost's, counts under its kind in both), and
# `kwarn warnings --format json`, the report's warnings and GET
# /api/warnings describe each warning with the same fields and values.
# The logs are real: gcc 12's (tests/data/ident) and the 6.1 modpost's
# (tests/data/parse).
set -u
cd "$(dirname "$0")/.."
top=$PWD
tmp=$(mktemp -d)
SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill $SERVER_PID 2>/dev/null; rm -rf "$tmp"' EXIT
KWARN=${KWARN:-$top/bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-$top/bin/kwarn-server}
. tests/lib/tap.sh
. tests/lib/server-fixture.sh

DB=$tmp/k.db
cat tests/data/ident/duplicates/a.log tests/data/parse/modpost.log \
	>"$tmp/one.log"
cat tests/data/ident/duplicates/b.log tests/data/ident/line-shift/b.log \
	tests/data/parse/modpost.log >"$tmp/two.log"
"$KWARN" ingest --db "$DB" --tree t --commit one "$tmp/one.log" >/dev/null &&
	"$KWARN" ingest --db "$DB" --tree t --commit two "$tmp/two.log" \
		>/dev/null
ok $? "two real logs ingested"
run=$(sqlite3 "$DB" "SELECT id FROM runs LIMIT 1")
# a decision about one warning of commit two, so that triage is asked too
tri=$(sqlite3 "$DB" "SELECT i.fingerprint FROM states s JOIN identities i
	ON i.id = s.identity_id JOIN commits c ON c.id = s.commit_id
	WHERE c.sha = 'two' AND s.state IN ('new', 'present')
	ORDER BY i.fingerprint LIMIT 1")
"$KWARN" triage --db "$DB" "$tri" --as wontfix --reason 'old code' \
	--who alice >/dev/null
ok $? "one warning of commit two triaged wontfix"
"$KWARN" report --db "$DB" --run "$run" --format json >"$tmp/report.json"
ok $? "kwarn report --format json"
"$KWARN" ingest --db "$tmp/same.db" --tree t --commit a "$tmp/one.log" \
	>/dev/null && "$KWARN" ingest --db "$tmp/same.db" --tree t --commit b \
	"$tmp/one.log" >/dev/null &&
	"$KWARN" report --db "$tmp/same.db" --format mail >"$tmp/same.mbox" \
		2>"$tmp/same.err"
rc=$?
ok $([ $rc = 0 ] && [ ! -s "$tmp/same.mbox" ] &&
	grep -q "no mail: no commit of run" "$tmp/same.err" && echo 0 || echo 1) \
	"a mail of a run with nothing new: empty, and stderr says why ($rc: $(cat "$tmp/same.err"))"
"$KWARN" report --db "$DB" --format json >"$tmp/default.json" 2>"$tmp/err"
cmp -s "$tmp/default.json" "$tmp/report.json"
ok $? "without --run, a database of ingested logs reports their run ($(head -1 "$tmp/err"))"
"$KWARN" warnings --db "$DB" --commit two --format json >"$tmp/cli.json"
ok $? "kwarn warnings --format json"
"$KWARN" warnings --db "$DB" --commit two --triage wontfix --format json \
	>"$tmp/cli-wontfix.json" &&
	"$KWARN" warnings --db "$DB" --commit two --triage open --format json \
		>"$tmp/cli-open.json"
ok $? "kwarn warnings --triage wontfix, --triage open"

server_start "$DB" || exit 1
curl -sf "$BASE/api/runs/$run/burndown" >"$tmp/bd.json"
ok $? "GET /api/runs/$run/burndown"
curl -sf "$BASE/api/warnings?commit=two&limit=1000" >"$tmp/api.json"
ok $? "GET /api/warnings?commit=two"
curl -sf "$BASE/api/warnings?commit=two&limit=1000&triage=wontfix" \
	>"$tmp/api-wontfix.json" &&
	curl -sf "$BASE/api/warnings?commit=two&limit=1000&triage=open" \
		>"$tmp/api-open.json"
ok $? "GET /api/warnings?commit=two&triage=wontfix, &triage=open"
server_stop

check "the report and the burn-down count the same by option" \
	test "$(jq -c '[.commits[] | .by_option]' "$tmp/report.json")" = \
	"$(jq -c '[.[] | .by_option]' "$tmp/bd.json")"
check "and the same totals" \
	test "$(jq -c '[.commits[] | [.warnings, .new, .fixed, .not_built]]' "$tmp/report.json")" = \
	"$(jq -c '[.[] | [.warnings, .new, .fixed, .not_built]]' "$tmp/bd.json")"
echo "# by option: $(jq -c '[.[] | .by_option]' "$tmp/bd.json")"
jqe() { jq -e "$@" >/dev/null; }
check "an option-less warning counts under its kind, not '(none)'" \
	jqe 'all(.[]; .by_option | has("(none)") | not) and
		any(.[]; .by_option | to_entries | any(.key | test("modpost|error")))' \
	"$tmp/bd.json"

# the warnings at commit two, as each reader describes them
fields() { jq -c "$1 | map(keys) | unique" "$2"; }
check "kwarn warnings and GET /api/warnings have the same fields" \
	test "$(fields '.' "$tmp/cli.json")" = "$(fields '.warnings' "$tmp/api.json")"
check "and the report's warnings too" \
	test "$(fields '.' "$tmp/cli.json")" = \
	"$(jq -c '.commits[1].warnings_list | map(select(.state != "fixed")) | map(keys) | unique' "$tmp/report.json")"
norm() { jq -c "$1 | map(del(.reproducer)) | sort_by(.identity)" "$2"; }
check "with the same values, seen included" \
	test "$(norm '.' "$tmp/cli.json")" = "$(norm '.warnings' "$tmp/api.json")"
check "the report's live warnings are the same ones" \
	test "$(norm '.' "$tmp/cli.json")" = \
	"$(norm '.commits[1].warnings_list | map(select(.state != "fixed"))' "$tmp/report.json")"
check "there is something to compare ($(jq length "$tmp/cli.json") warnings)" \
	test "$(jq length "$tmp/cli.json")" -ge 3

# triage: the same decision, the same counts, the same filter
check "the report and the burn-down count the same by triage" \
	test "$(jq -c '[.commits[] | .by_triage]' "$tmp/report.json")" = \
	"$(jq -c '[.[] | .by_triage]' "$tmp/bd.json")"
check "the decision is in each reader's warning, the same" \
	jqe --arg t "$tri" '[.[] | select(.identity == $t) | .triage] |
		length == 1 and .[0].state == "wontfix" and .[0].who == "alice"' \
	"$tmp/cli.json"
check "--triage and triage= keep the same warnings: the triaged one" \
	test "$(norm '.' "$tmp/cli-wontfix.json")" = "$(norm '.warnings' "$tmp/api-wontfix.json")" \
	-a "$(jq -r '.[0].identity' "$tmp/cli-wontfix.json")" = "$tri" \
	-a "$(jq length "$tmp/cli-wontfix.json")" = 1
check "and the open ones: all the others" \
	test "$(norm '.' "$tmp/cli-open.json")" = "$(norm '.warnings' "$tmp/api-open.json")" \
	-a "$(jq length "$tmp/cli-open.json")" = "$(($(jq length "$tmp/cli.json") - 1))"
check "the tip's by_triage: one wontfix, the rest open" \
	jqe --argjson n "$(jq length "$tmp/cli.json")" '.[-1].by_triage |
		.wontfix == 1 and .open == $n - 1' "$tmp/bd.json"

# the counts kept beside the states (point_counts, schema 19, and the
# live ones per file, point_files, schema 20) are the states' own, after an ingest, after a commit's states are replaced (a
# second build of it) and after a run's deletion cascades
counts_agree() {
	sqlite3 "$1" "SELECT COUNT(*) FROM (
		SELECT * FROM (SELECT s.commit_id, s.state,
			COALESCE(i.option, i.kind), i.kind, COUNT(*) FROM states s
			JOIN identities i ON i.id = s.identity_id
			GROUP BY 1, 2, 3, 4)
		EXCEPT SELECT commit_id, state, option, kind, n FROM point_counts
		UNION ALL
		SELECT * FROM (SELECT commit_id, state, option, kind, n
			FROM point_counts
		EXCEPT SELECT s.commit_id, s.state, COALESCE(i.option, i.kind),
			i.kind, COUNT(*) FROM states s JOIN identities i
			ON i.id = s.identity_id GROUP BY 1, 2, 3, 4)
		UNION ALL
		SELECT * FROM (SELECT s.commit_id, COALESCE(i.file, ''), COUNT(*),
			NULL, NULL FROM live_states s JOIN identities i
			ON i.id = s.identity_id GROUP BY 1, 2
		EXCEPT SELECT commit_id, file, n, NULL, NULL FROM point_files)
		UNION ALL
		SELECT * FROM (SELECT commit_id, file, n, NULL, NULL FROM point_files
		EXCEPT SELECT s.commit_id, COALESCE(i.file, ''), COUNT(*), NULL,
			NULL FROM live_states s JOIN identities i
			ON i.id = s.identity_id GROUP BY 1, 2))"
}
check "point_counts: the states' counts after two ingests ($(sqlite3 "$DB" 'SELECT COUNT(*) FROM point_counts') rows)" \
	test "$(counts_agree "$DB")" = 0 -a "$(sqlite3 "$DB" 'SELECT COUNT(*) FROM point_counts')" -gt 2
cp "$DB" "$tmp/again.db"
"$KWARN" ingest --db "$tmp/again.db" --tree t --commit two "$tmp/one.log" >/dev/null
check "point_counts: the states' counts after commit two's states are replaced" \
	test "$(counts_agree "$tmp/again.db")" = 0
# an identity's option, kind or file rewritten in place (kwarn never
# does; a hand edit or a later migration may): its states move with it
# (on the two ingests' database: one identity fixed at two, one new)
cp "$DB" "$tmp/moved.db"
sqlite3 "$tmp/moved.db" "UPDATE identities SET option = '-Wrenamed',
	file = 'moved/' || COALESCE(file, '')
	WHERE id = (SELECT identity_id FROM states WHERE state = 'fixed');
	UPDATE identities SET kind = 'kindx', option = NULL, file = NULL
	WHERE id = (SELECT identity_id FROM states WHERE state = 'new');
	UPDATE identities SET kind = 'kindy' WHERE option IS NOT NULL AND
	id = (SELECT MIN(identity_id) FROM states WHERE state = 'present')"
moved=$(sqlite3 "$tmp/moved.db" "SELECT (SELECT COUNT(*) FROM point_counts
	WHERE option = '-Wrenamed' AND state = 'fixed') + (SELECT COUNT(*) FROM
	point_counts WHERE option = 'kindx' AND state = 'new') + (SELECT COUNT(*)
	> 0 FROM point_files WHERE file LIKE 'moved/%') + (SELECT COUNT(*) > 0
	FROM point_counts WHERE kind = 'kindy' AND option LIKE '-W%')")
check "point_counts, point_files: the counts follow an identity's new option, kind and file ($moved)" \
	test "$(counts_agree "$tmp/moved.db")" = 0 -a "$moved" = 4
sqlite3 "$tmp/again.db" "PRAGMA foreign_keys = ON; DELETE FROM runs"
check "point_counts, point_files: empty once the runs are deleted" \
	test "$(sqlite3 "$tmp/again.db" 'SELECT COUNT(*) FROM point_counts') $(sqlite3 "$tmp/again.db" 'SELECT COUNT(*) FROM point_files')" = "0 0"

# the kind of a diagnostic (issue 30): a C=1 make log with gcc's and
# sparse's lines (tests/data/sparse/make/c1.log), kernel-doc's and
# modpost's, all real, concatenated into one log of one commit (k1), and
# at k2 the same without kernel-doc's; kwarn warnings --kind and
# GET /api/warnings?kind= keep the same warnings of each tool
KDB=$tmp/kinds.db
cat tests/data/sparse/make/c1.log tests/data/parse/kernel-doc.log \
	tests/data/parse/modpost.log >"$tmp/k1.log"
cat tests/data/sparse/make/c1.log tests/data/parse/modpost.log >"$tmp/k2.log"
"$KWARN" ingest --db "$KDB" --tree kt --commit k1 "$tmp/k1.log" >/dev/null 2>&1 &&
	"$KWARN" ingest --db "$KDB" --tree kt --commit k2 "$tmp/k2.log" \
		>/dev/null 2>&1
ok $? "a log of several tools ingested at two commits"
kinds="compiler kernel-doc sparse modpost objtool"
for k in $kinds; do
	"$KWARN" warnings --db "$KDB" --commit k1 --kind "$k" --format json \
		>"$tmp/kind-$k.json" 2>/dev/null || echo "kwarn warnings --kind $k failed"
done >"$tmp/kind-cli.err"
check "kwarn warnings --kind for each tool" test ! -s "$tmp/kind-cli.err"
"$KWARN" warnings --db "$KDB" --commit k1 --format json >"$tmp/kind-all.json"
"$KWARN" warnings --db "$KDB" --commit k1 --kind bogus >"$tmp/kind-bad.out" \
	2>"$tmp/kind-bad.err"
rc=$?
check "--kind bogus: exit 2 ($rc), one line naming the tools, nothing on stdout" \
	test "$rc" = 2 -a ! -s "$tmp/kind-bad.out" -a \
	"$(wc -l <"$tmp/kind-bad.err")" = 1 -a \
	"$(grep -c "unknown --kind 'bogus' (compiler, kernel-doc, sparse," "$tmp/kind-bad.err")" = 1
tool_of='def tool: if .kind == "warning" or .kind == "error" or
	.kind == "fatal error" then "compiler" else .kind end;'
counts=
for k in $kinds; do
	counts="$counts $k=$(jq length "$tmp/kind-$k.json")"
done
check "each tool's warnings are of that tool, and together all of them ($counts)" \
	jqe -n --slurpfile all "$tmp/kind-all.json" \
	"$tool_of"' [inputs] as $per | ($per | map(.[]) | map(.identity) | sort) ==
		($all[0] | map(.identity) | sort) and
		all($per[]; (map(tool) | unique | length) <= 1)' \
	$(for k in $kinds; do echo "$tmp/kind-$k.json"; done)
check "there are sparse's, kernel-doc's, the compiler's and modpost's to tell apart" \
	test "$(jq length "$tmp/kind-sparse.json")" -ge 5 -a \
	"$(jq length "$tmp/kind-kernel-doc.json")" -ge 5 -a \
	"$(jq length "$tmp/kind-compiler.json")" -ge 5 -a \
	"$(jq length "$tmp/kind-modpost.json")" -ge 1 -a \
	"$(jq length "$tmp/kind-objtool.json")" = 0
krun=$(sqlite3 "$KDB" "SELECT id FROM runs LIMIT 1")
"$KWARN" report --db "$KDB" --format json >"$tmp/kind-report.json" &&
	"$KWARN" report --db "$KDB" >"$tmp/kind-report.txt"
ok $? "kwarn report of the run of several tools, JSON and text"
server_start "$KDB" || exit 1
curl -sf "$BASE/api/runs/$krun/burndown" >"$tmp/kind-bd.json"
ok $? "GET /api/runs/$krun/burndown"
for k in $kinds; do
	curl -sf "$BASE/api/warnings?commit=k1&limit=1000&kind=$k" \
		>"$tmp/kind-api-$k.json" || echo "GET kind=$k failed"
done >"$tmp/kind-api.err"
code=$(curl -s -o "$tmp/kind-api-bad.json" -w '%{http_code}' \
	"$BASE/api/warnings?commit=k1&kind=bogus")
server_stop
bad=
for k in $kinds; do
	test "$(norm '.' "$tmp/kind-$k.json")" = \
		"$(norm '.warnings' "$tmp/kind-api-$k.json")" || bad="$bad $k"
done
check "GET /api/warnings?kind= keeps what kwarn warnings --kind keeps${bad:+ (not:$bad)}" \
	test ! -s "$tmp/kind-api.err" -a -z "$bad"
check "kind=bogus: 400 ($code) naming the tools" \
	jqe --arg c "$code" '$c == "400" and
		(.error | contains("want compiler, kernel-doc, sparse,"))' \
	"$tmp/kind-api-bad.json"

# the counts per tool (by_tool) and per (tool, option) (by_tool_option),
# added to the burn-down beside by_option: the same in the report, each
# tool's the number of its warnings kwarn warnings --kind lists
check "the report and the burn-down count the same by tool and by (tool, option)" \
	test "$(jq -c '[.commits[] | [.by_tool, .by_tool_option]]' "$tmp/kind-report.json")" = \
	"$(jq -c '[.[] | [.by_tool, .by_tool_option]]' "$tmp/kind-bd.json")"
want=$(for k in $kinds; do
	n=$(jq length "$tmp/kind-$k.json")
	[ "$n" = 0 ] || printf '%s=%s ' "$k" "$n"
done)
got=$(jq -r '.[0].by_tool | to_entries | map("\(.key)=\(.value)") | join(" ")' \
	"$tmp/kind-bd.json")
check "k1's by_tool: each tool's warnings, as --kind lists them ($got)" \
	test "$(echo $got | tr ' ' '\n' | sort)" = "$(echo $want | tr ' ' '\n' | sort)"
check "by_tool_option: kernel-doc and sparse beside the compiler's options" \
	jqe '.[0].by_tool_option | (.compiler | keys | any(startswith("-W"))) and
		.["kernel-doc"] == {"kernel-doc": 43} and (.sparse | keys) == ["sparse"]' \
	"$tmp/kind-bd.json"
check "by_tool sums to warnings, by_tool_option over tools to by_option" \
	jqe 'all(.[]; (.by_tool | add // 0) == .warnings and
		([.by_tool_option[] | to_entries[]] | group_by(.key) |
		 map({key: .[0].key, value: (map(.value) | add)}) | from_entries) ==
		.by_option)' "$tmp/kind-bd.json"
check "the burn-down's other fields are still there" \
	jqe 'all(.[]; has("by_option") and has("by_triage") and has("warnings")
		and has("new") and has("fixed") and has("not_built"))' "$tmp/kind-bd.json"
# the text report: a line of counts per tool under each commit, and a
# column of them in the burn-down, in diag_tools[]'s order
check "report text: by tool under each commit, as the JSON counts" \
	test "$(grep '^   by tool: ' "$tmp/kind-report.txt")" = \
	"$(jq -r '.commits[] | "   by tool: compiler \(.by_tool.compiler // 0), kernel-doc \(.by_tool["kernel-doc"] // 0), sparse \(.by_tool.sparse // 0), modpost \(.by_tool.modpost // 0)"' "$tmp/kind-report.json")"
check "report text: the burn-down names the tools and has their column" \
	test "$(grep -c '^burn-down (run [0-9]*; live warnings per tool: compiler/kernel-doc/sparse/modpost):$' "$tmp/kind-report.txt")" = 1 -a \
	"$(awk '/^burn-down/ { b = 1; next } b && NF { print $7 }' "$tmp/kind-report.txt" | paste -sd ' ')" = \
	"$(jq -r '[.commits[] | "\(.by_tool.compiler // 0)/\(.by_tool["kernel-doc"] // 0)/\(.by_tool.sparse // 0)/\(.by_tool.modpost // 0)"] | join(" ")' "$tmp/kind-report.json")"

done_tap
