#!/bin/bash
# A database made by an older kwarn, opened by this one.
# tests/data/migrate/schema18.sql is a database that kwarn made at schema
# version 18 (tests/data/migrate/make-fixture: that commit built in a
# worktree of its own, three commits of gcc logs ingested): no
# point_counts, no point_files.  This kwarn must refuse to read it
# unmigrated, migrate it when it writes (an ingest), and then hold:
#
#  - 0019, 0020, 0026: the backfilled counts of every commit are its
#    states' by option and kind (recounted here with SQL from the states
#    themselves) and the
#    burn-down kwarn report prints from them is what gcc's logs say,
#    read by tests/lib/log-oracle.py without kwarn;
#  - the warnings it lists (identities too: the next build must not find
#    them all new) and its burn-down are those of a database this kwarn
#    made from the same logs;
#  - 0021: an identity whose option or file changes after migration
#    moves its states' counts with it.
set -u
cd "$(dirname "$0")/.."
. tests/lib/tap.sh
kwarn=bin/kwarn
data=tests/data/migrate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/old.db
sql() { sqlite3 "$db" "$@"; }
C1=$(printf c1 | sha1sum | cut -c1-40)
C2=$(printf c2 | sha1sum | cut -c1-40)
C3=$(printf c3 | sha1sum | cut -c1-40)
C4=$(printf c4 | sha1sum | cut -c1-40)
latest=$(ls schema/[0-9][0-9][0-9][0-9]-*.sql | sed -n '$s|^schema/0*\([0-9]*\)-.*|\1|p')

sqlite3 "$db" <"$data/schema18.sql"
[ "$(sql 'PRAGMA user_version')" = 18 ] &&
	[ "$(sql "SELECT COUNT(*) FROM sqlite_master WHERE name IN
		('point_counts', 'point_files')")" = 0 ] &&
	[ "$(sql 'SELECT COUNT(*) FROM states')" -gt 0 ]
ok $? "the fixture is a schema 18 database with states and no per-point counts"

# read-only commands refuse it, and leave it as it was
"$kwarn" warnings --db "$db" --commit "$C1" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" != 0 ] &&
	grep -q "has schema version 18, expected $latest (run kwarn on it first)" "$tmp/err" &&
	[ "$(sql 'PRAGMA user_version')" = 18 ]
ok $? "kwarn warnings on it unmigrated: refused, schema 18 kept (exit $rc: $(cat "$tmp/err"))"

# the collector migrates it: c4 is c3 again (nothing new, nothing fixed)
cp "$data/c3.log" "$tmp/c4.log"
cp "$data/c3.map" "$tmp/c4.map"
"$kwarn" ingest --db "$db" --tree kwtree --commit "$C4" \
	--object-map "$tmp/c4.map" "$tmp/c4.log" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && [ "$(sql 'PRAGMA user_version')" = "$latest" ]
ok $? "kwarn ingest migrates it to schema $latest (exit $rc)"
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/err"

# the per-point tables against the states, both ways
counts_of_states="SELECT s.commit_id, s.state, COALESCE(i.option, i.kind), i.kind,
	COUNT(*) FROM states s JOIN identities i ON i.id = s.identity_id
	GROUP BY 1, 2, 3, 4"
files_of_states="SELECT s.commit_id, COALESCE(i.file, ''), COUNT(*)
	FROM states s JOIN identities i ON i.id = s.identity_id
	WHERE s.state IN ('new', 'present') GROUP BY 1, 2"
counts_agree() {
	[ "$(sql "SELECT COUNT(*) FROM (
		SELECT commit_id, state, option, kind, n FROM point_counts
		EXCEPT $counts_of_states)")" = 0 ] &&
	[ "$(sql "SELECT COUNT(*) FROM ($counts_of_states
		EXCEPT SELECT commit_id, state, option, kind, n
		FROM point_counts)")" = 0 ]
}
files_agree() {
	[ "$(sql "SELECT COUNT(*) FROM (SELECT commit_id, file, n FROM point_files
		EXCEPT $files_of_states)")" = 0 ] &&
	[ "$(sql "SELECT COUNT(*) FROM ($files_of_states
		EXCEPT SELECT commit_id, file, n FROM point_files)")" = 0 ]
}
old_commits="(SELECT id FROM commits WHERE sha IN ('$C1', '$C2', '$C3'))"
rows=$(sql "SELECT COUNT(*) FROM point_counts WHERE commit_id IN $old_commits")
counts_agree && [ "$rows" -gt 0 ]
ok $? "0019, 0026: point_counts of the old commits backfilled from their states, by kind ($rows rows)"
rows=$(sql "SELECT COUNT(*) FROM point_files WHERE commit_id IN $old_commits")
files_agree && [ "$rows" -gt 0 ]
ok $? "0020: point_files of the old commits backfilled from their states ($rows rows)"

# the old commits' burn-down against gcc's own lines, read without kwarn
"$kwarn" report --db "$db" --format json >"$tmp/report.json"
got=$(jq -c '[.commits[0:3][] | {warnings, new, fixed, not_built}]' "$tmp/report.json")
oracle=$(python3 tests/lib/log-oracle.py "$data/c1.log:$data/c1.map" \
	"$data/c2.log:$data/c2.map" "$data/c3.log:$data/c3.map")
[ -n "$oracle" ] && [ "$got" = "$oracle" ]
ok $? "the old commits' burn-down is what gcc's logs say ($got)"
[ "$got" = "$oracle" ] || echo "# the logs say: $oracle"

# the same warnings as a database this kwarn makes from the same logs
fresh=$tmp/fresh.db
for i in 1 2 3 4; do
	log=$data/c$i.log map=$data/c$i.map
	[ "$i" = 4 ] && log=$tmp/c4.log map=$tmp/c4.map
	eval "sha=\$C$i"
	"$kwarn" ingest --db "$fresh" --tree kwtree --commit "$sha" \
		--object-map "$map" "$log" >/dev/null 2>&1 || echo "# fresh c$i: failed"
done
listing() { # DB: every commit's warnings in every state, a line each, sorted
	local c s
	for c in "$C1" "$C2" "$C3" "$C4"; do
		for s in new present fixed not_built; do
			"$kwarn" warnings --db "$1" --commit "$c" --state "$s" \
				--format json 2>/dev/null |
				jq -r --arg c "${c:0:7}" '.[] |
					"\($c) \(.state) \(.identity) \(.file):\(.line):\(.column) \(.function) \(.option) \(.message)"'
		done
	done | sort
}
listing "$db" >"$tmp/old.list"
listing "$fresh" >"$tmp/fresh.list"
[ -s "$tmp/old.list" ] && cmp -s "$tmp/old.list" "$tmp/fresh.list"
ok $? "kwarn warnings: the migrated database lists what a fresh one does, identities too ($(wc -l <"$tmp/old.list") lines)"
"$kwarn" report --db "$fresh" --format json |
	jq -c '[.commits[] | {warnings, new, fixed, not_built}]' >"$tmp/fresh.bd"
jq -c '[.commits[] | {warnings, new, fixed, not_built}]' "$tmp/report.json" >"$tmp/old.bd"
cmp -s "$tmp/old.bd" "$tmp/fresh.bd"
ok $? "kwarn report: the migrated burn-down, c4 too, is a fresh database's ($(cat "$tmp/old.bd"))"
cmp -s "$tmp/old.list" "$tmp/fresh.list" ||
	diff "$tmp/old.list" "$tmp/fresh.list" | sed 's/^/# /'

# 0021: an identity's option, then its file, changed by hand
ident=$(sql "SELECT i.id FROM identities i JOIN states s ON s.identity_id = i.id
	WHERE s.state = 'present' AND i.option IS NOT NULL LIMIT 1")
sql "UPDATE identities SET option = '-Wkwarn-test' WHERE id = $ident"
counts_agree &&
	[ "$(sql "SELECT SUM(n) FROM point_counts WHERE option = '-Wkwarn-test'")" = \
		"$(sql "SELECT COUNT(*) FROM states WHERE identity_id = $ident")" ]
ok $? "0021: an identity's new option takes its states' counts with it"
sql "UPDATE identities SET file = 'kwarn/test.c' WHERE id = $ident"
files_agree &&
	[ "$(sql "SELECT SUM(n) FROM point_files WHERE file = 'kwarn/test.c'")" = \
		"$(sql "SELECT COUNT(*) FROM states WHERE identity_id = $ident
			AND state IN ('new', 'present')")" ]
ok $? "0021: an identity's new file takes its live states' counts with it"
done_tap
