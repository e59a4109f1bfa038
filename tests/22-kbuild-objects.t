#!/bin/bash
# `kwarn ingest --build-dir DIR` (issue 14): a warning's object is the one
# kbuild's .cmd files say its source was compiled into, and each object
# records the composite object (module) its NAME.mod links it into.  The
# log and the build directory are a real kbuild run's, from
# tests/data/kbuild/generate.
set -u
cd "$(dirname "$0")/.."
top=$PWD
kwarn=$top/bin/kwarn
data=$top/tests/data/kbuild
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

echo "1..10"
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$tmp/err" ] && sed 's/^/# stderr: /' "$tmp/err"
	fi
	return 0
}
ingest() { # DB COMMIT [more args]
	local db=$1 c=$2
	shift 2
	"$kwarn" ingest --db "$tmp/$db.db" --tree t --commit "$c" \
		--strip /tmp/kwarn-kbuild-case/ "$@" "$data/build.log" \
		>"$tmp/out" 2>"$tmp/err"
}
sql() { # DB SQL
	sqlite3 "$tmp/$1.db" "$2"
}
objects() { # DB COMMIT: file object composite, one warning a line
	sql "$1" "SELECT d.file || ' ' || coalesce(o.path, '-') || ' ' ||
		coalesce(o.composite, '-')
		FROM diagnostics d JOIN builds b ON b.id = d.build_id
		JOIN commits c ON c.id = b.commit_id
		LEFT JOIN objects o ON o.id = d.object_id
		WHERE c.sha = '$2' AND d.kind = 'warning' ORDER BY d.file"
}

# without the build directory: the kbuild rule guesses sub/orig.o
ingest plain a
ok $? "ingest without --build-dir"
got=$(objects plain a | grep '^sub/orig.c ')
[ "$got" = "sub/orig.c sub/orig.o -" ]
ok $? "without --build-dir sub/orig.c is given sub/orig.o ($got)"

ingest kb a --build-dir "$data/build"
ok $? "ingest --build-dir"
objects kb a >"$tmp/got"
printf '%s\n' "part1.c part1.o kwcomp.o" "part2.c part2.o kwcomp.o" \
	"single.c single.o -" "sub/orig.c renamed.o -" >"$tmp/want"
diff "$tmp/want" "$tmp/got" >"$tmp/err"
ok $? "each warning has the object kbuild compiled its source into, and its module"
[ "$(sql kb "SELECT count(*) FROM objects WHERE composite = 'kwcomp.o'")" = 2 ]
ok $? "the two parts of kwcomp.o, and only they, record it"
"$kwarn" warnings --db "$tmp/kb.db" --commit a --format json >"$tmp/json" \
	2>"$tmp/err" &&
	[ "$(jq -r '.[] | "\(.file) \(.object) \(.composite)"' "$tmp/json" |
		sort | tr '\n' ,)" = \
	  "part1.c part1.o kwcomp.o,part2.c part2.o kwcomp.o,single.c single.o null,sub/orig.c renamed.o null," ]
ok $? "kwarn warnings --format json gives each warning's object and composite"
# the identities do not depend on the object
[ "$(sql plain "SELECT group_concat(fingerprint) FROM (SELECT fingerprint
	FROM identities ORDER BY 1)")" = \
  "$(sql kb "SELECT group_concat(fingerprint) FROM (SELECT fingerprint
	FROM identities ORDER BY 1)")" ]
ok $? "the same four identities with and without --build-dir"

# bad input: a clear one-line error, exit 2, nothing stored
before=$(sql kb "SELECT count(*) FROM builds")
ingest kb b --build-dir "$tmp/missing"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	grep -q "cannot read '$tmp/missing'" "$tmp/err"
ok $? "a missing build directory: one line, exit 2 (rc $rc)"
mkdir "$tmp/empty"
ingest kb b --build-dir "$tmp/empty"
rc=$?
[ "$rc" = 2 ] && grep -q "no kbuild .cmd files in" "$tmp/err"
ok $? "a directory without .cmd files: exit 2 (rc $rc)"
[ "$(sql kb "SELECT count(*) FROM builds")" = "$before" ] &&
	[ "$(objects kb a | wc -l)" = 4 ]
ok $? "the refused runs stored nothing and changed nothing"

echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
