#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# The reproducer reproduces: kwarn run builds the test series of
# tests/25-series-e2e.t on linux-source-6.1 (warm cache: minutes), then the
# reproducer that kwarn report prints for a new warning is run as printed,
# in a fresh shell with an empty environment, and gcc prints every warning
# kwarn stored for that object at the same file, line and column.  The
# same text comes from /api/warnings and the dashboard's source endpoint.
# A crafted object name ('drivers/x;touch${IFS}$tmp/p;$(id).o') stays one
# inert word through the whole reproducer.
#
# Set KWARN_REPRO_DB to a database of that series to skip the kwarn run.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
KWARN_SERVER="$top/bin/kwarn-server"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
SERVER_PID=
gitdir=
cleanup() {
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
	rm -rf "$tmp"
	# the worktrees the reproducers added to kwarn's cached repository
	[ -n "$gitdir" ] && git --git-dir "$gitdir" worktree prune
}
trap cleanup EXIT

. "$top/tests/lib/tap.sh"
. "$top/tests/lib/server-fixture.sh"
. "$top/tests/lib/series-db.sh"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ]; then
	echo "# linux-source-6.1 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 installed"
	done_tap
fi

db=${KWARN_REPRO_DB:-}
if [ -z "$db" ]; then
	db="$tmp/e2e.db"
	series_db "$db" "$tmp"
	rc=$?
	check "kwarn run of the series exits 0 (rc=$rc)" test "$rc" = 0
	[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/run.err" | tail -20
fi

"$kwarn" report --db "$db" --format json >"$tmp/report.json"
check "kwarn report --format json" test -s "$tmp/report.json"
"$kwarn" report --db "$db" --reproducers >"$tmp/report.txt"
sel='.commits[1].warnings_list[] | select(.function == "kwarn_selftest_switch" and .state == "new")'
repro=$(jq -r "[$sel][0].reproducer" "$tmp/report.json")
obj=$(jq -r "[$sel][0].object" "$tmp/report.json")
echo "$repro" | sed 's/^/# /'
check "a new warning has a reproducer" test -n "$repro" -a "$repro" != null
check "it checks out the commit from kwarn's cache" \
	grep -q "^git --git-dir .* worktree add --detach .* $(jq -r '.commits[1].commit' "$tmp/report.json")\$" <<<"$repro"
check "it uses the stored .config, checked by its sha256" \
	grep -q '| sha256sum --quiet -c$' <<<"$repro"
check "its make line passes every variable kwarn passed" \
	grep -q "^make -C .* O=../build CC=gcc KCFLAGS=-Wimplicit-fallthrough=3 CONFIG_CC_IMPLICIT_FALLTHROUGH= $obj\$" <<<"$repro"
# the text report prints the same lines, indented under "reproduce:"
want=$(sed 's/^/     /' <<<"$repro")
check "kwarn report's text has the same reproducer" \
	grep -qF -- "$want" "$tmp/report.txt"

gitdir=$(sed -n 's/^git --git-dir \([^ ]*\) worktree.*/\1/p' <<<"$repro")
# run it as printed, from nothing but a shell
mkdir "$tmp/fresh"
start=$(date +%s)
(cd "$tmp/fresh" && env -i PATH=/usr/bin:/bin HOME="$tmp/fresh" \
	bash -e -c "$repro") >"$tmp/repro.out" 2>&1
rc=$?
echo "# the reproducer took $(($(date +%s) - start)) s"
check "the reproducer runs to the end (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -20 "$tmp/repro.out" | sed 's/^/# /'
# every warning kwarn stored for this object, at the same place
srcdir=$(cd "$tmp/fresh"/kwarn-*/src 2>/dev/null && pwd)
jq -r --arg o "$obj" '.commits[1].warnings_list[] | select(.object == $o and
	.state != "fixed") | "\(.file):\(.line):\(.column): \(.kind): \(.message) [\(.option)]"' \
	"$tmp/report.json" >"$tmp/want"
sed -n "s|^$srcdir/||p" "$tmp/repro.out" | grep ': warning: ' >"$tmp/got"
sed 's/^/# want: /' "$tmp/want"
check "the object has stored warnings ($(wc -l <"$tmp/want"))" test -s "$tmp/want"
missing=$(grep -vxFf "$tmp/got" "$tmp/want")
check "gcc prints each at the same file:line:column${missing:+ (missing: $missing)}" \
	test -z "$missing"

# the same text from the API and the dashboard's source endpoint
server_start "$db"
ok $? "kwarn-server started"
c1=$(jq -r '.commits[1].commit' "$tmp/report.json")
ident=$(jq -r "[$sel][0].identity" "$tmp/report.json")
api=$(curl -s "$BASE/api/commits/$c1/warnings?state=new" |
	jq -r --arg i "$ident" '.warnings[] | select(.identity == $i) | .reproducer')
check "/api/warnings gives the same reproducer" test "$api" = "$repro"
src=$(curl -s "$BASE/api/warnings/$ident/source?commit=$c1" | jq -r .reproducer)
check "the dashboard's source endpoint gives the same" test "$src" = "$repro"
kill "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=

# a crafted object name stays one inert word
# (the file it would touch lies in this run's own folder: no fixed name)
crafted="drivers/x;touch\${IFS}$tmp/p;\$(id).o"
cp "$db" "$tmp/crafted.db"
sqlite3 "$tmp/crafted.db" "UPDATE objects SET path = '$crafted' WHERE path = '$obj'"
"$kwarn" report --db "$tmp/crafted.db" --format json >"$tmp/crafted.json"
bad=$(jq -r "[$sel][0].reproducer" "$tmp/crafted.json")
echo "$bad" | sed 's/^/# /'
mkdir "$tmp/stub"
for t in git cp sha256sum make; do
	printf '#!/bin/sh\nfor a; do printf "%%s\\0" "$a"; done >"%s/%s.args"\ncat >/dev/null\n' \
		"$tmp" "$t" >"$tmp/stub/$t"
	chmod +x "$tmp/stub/$t"
done
(cd "$tmp/fresh" && env -i PATH="$tmp/stub:/usr/bin:/bin" bash -e -c "$bad") \
	>"$tmp/crafted.out" 2>&1
check "the crafted reproducer runs (stub tools)" test $? = 0
check "nothing in the name ran" test ! -e "$tmp/p"
last=$(tr '\0' '\n' <"$tmp/make.args" | tail -n 1)
check "make got the name as one word, unchanged" test "$last" = "$crafted"
check "make got the variables as separate words" \
	test "$(tr '\0' '\n' <"$tmp/make.args" | grep -c '^KCFLAGS=-Wimplicit-fallthrough=3$')" = 1
done_tap
