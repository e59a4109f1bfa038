#!/bin/bash
# Issue 8 through the database: a tree cached the way the collector caches
# it ($KWARN_CACHE/trees/NAME-HEX/git, HEX from sha256 of the source dir),
# found from the stored commit alone by `kwarn classify` and `kwarn census`
# (no --repo); the verdicts in the warnings of kwarn-server's API and on the
# dashboard; GET /api/commits/{id}/census (whole tree, ?path=, cached per
# commit, 404 when the tree is not cached).
set -u
cd "$(dirname "$0")/.."
top=$PWD
tmp=$(mktemp -d)
SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill $SERVER_PID 2>/dev/null; rm -rf "$tmp"' EXIT
KWARN=${KWARN:-$top/bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-$top/bin/kwarn-server}
. tests/lib/server-fixture.sh
n=0 failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
	return 0
}
get() { curl -s "$BASE$1"; }
code() { curl -s -o "$tmp/body" -w '%{http_code}' "$BASE$1"; }

export KWARN_CACHE=$tmp/cache
src=$(cd "$tmp" && pwd -P)/linux-kw
DB=$tmp/k.db
mkdir -p "$src/drivers/fw" "$src/fs"

# drivers/fw: a missing break, an intended fall-through, 4 markers
cat >"$src/drivers/fw/bug.c" <<'C'
extern const int raven[4], navi[8];
const int *info;
int num;
void fill(int chip)
{
	switch (chip) {
	case 1:
		info = raven;
		num = 4;
	case 2:
		info = navi;
		num = 8;
		break;
	}
}
C
cat >"$src/drivers/fw/ok.c" <<'C'
struct call { int unmarshall; int tmp; };
int extract(struct call *call);
void to_tmp(struct call *call);
int deliver(struct call *call)
{
	int ret, unused;

	switch (call->unmarshall) {
	case 0:
		to_tmp(call);
		call->unmarshall++;
	case 1:
		ret = extract(call);
		if (ret < 0)
			return ret;
		break;
	}
	return 0;
}
C
cat >"$src/drivers/fw/marked.c" <<'C'
#define fallthrough __attribute__((__fallthrough__))
int marked(int x)
{
	switch (x) {
	case 1:
		x++;
		/* fall through */
	case 2:
		x++;
		fallthrough;
	case 3:
		x++;
		/* falls through */
	case 4:
		x++;
		// fallthrough
	case 5:
		break;
	}
	return x;
}
C
# fs: one more comment, one attribute, one unmarked label
cat >"$src/fs/other.c" <<'C'
int other(int x)
{
	switch (x) {
	case 1:
		x++;
		/* fall through */
	case 2:
		x++;
		__attribute__((fallthrough));
	case 3:
		break;
	}
	return x;
}
C
printf '/* fall through */\ncase 1:\n' >"$src/fs/README"

# the collector's copy: a git dir whose work tree is the source
hex=$(printf %s "$src" | sha256sum | cut -c1-12)
gitdir=$KWARN_CACHE/trees/linux-kw-$hex/git
g() { git --git-dir="$gitdir" --work-tree="$src" -c user.name=t \
	-c user.email=t@t "$@"; }
mkdir -p "$gitdir"
g init -q && g add -A && g commit -q -m one || exit 1
sha1=$(g rev-parse HEAD)

build_log() { # LOG FILE...: gcc's warnings at level 3, one object each
	local f
	: >"$1"
	for f in "${@:2}"; do
		printf '  CC      %s\n' "${f%.c}.o" >>"$1"
		(cd "$src" && LANG=C LC_CTYPE=C gcc -Wimplicit-fallthrough=3 \
			-Wunused-variable -c "$f" -o /dev/null) 2>>"$1"
	done
}
build_log "$tmp/one.log" drivers/fw/bug.c drivers/fw/ok.c drivers/fw/marked.c \
	fs/other.c
# the second commit adds a file with another missing break
cat >"$src/drivers/fw/late.c" <<'C'
int mode, speed;
void late(int m)
{
	switch (m) {
	case 0:
		mode = 1;
	case 1:
		mode = 2;
		break;
	}
}
C
g add -A && g commit -q -m two || exit 1
sha2=$(g rev-parse HEAD)
build_log "$tmp/two.log" drivers/fw/bug.c drivers/fw/ok.c drivers/fw/marked.c \
	fs/other.c drivers/fw/late.c
[ "$(grep -c 'may fall through' "$tmp/two.log")" = 3 ] &&
	grep -q 'unused variable' "$tmp/two.log"
ok $? "gcc: 3 fall-throughs and an unused variable at the second commit"

"$KWARN" ingest --db "$DB" --tree linux-kw --commit one "$tmp/one.log" \
	>/dev/null &&
	"$KWARN" ingest --db "$DB" --tree linux-kw --commit two \
		"$tmp/two.log" >/dev/null &&
	"$KWARN" ingest --db "$DB" --tree gone --commit three "$tmp/one.log" \
		>/dev/null
ok $? "three logs ingested"
# make the linux-kw tree what `kwarn run` on a directory stores
sqlite3 "$DB" "UPDATE trees SET kind = 'dir', source = '$src',
	maintainers = 'FIREWIRE' || char(10) || 'F:	drivers/fw/' || char(10)
	WHERE name = 'linux-kw';
	UPDATE commits SET sha = '$sha1' WHERE sha = 'one';
	UPDATE commits SET sha = '$sha2' WHERE sha = 'two';"
ok $? "the tree is a 'dir' tree, its commits the cached repository's"
# the sources are read from the commit, not from the work tree
rm "$src/drivers/fw/bug.c"

# kwarn classify and kwarn census without --repo
out=$("$KWARN" classify --db "$DB" --commit "$sha2" 2>&1)
ok $? "kwarn classify --db --commit, no --repo: exit 0"
echo "$out" | grep -q '^drivers/fw/bug.c:9: likely missing break (break;)' &&
	echo "$out" | grep -q '^drivers/fw/late.c:6: likely missing break' &&
	echo "$out" | grep -q '^drivers/fw/ok.c:11: likely intended (fallthrough;)'
ok $? "bug.c and late.c called missing breaks, ok.c intended"
rows=$(sqlite3 "$DB" "SELECT count(*) FROM classifications")
ok $([ "$rows" = 3 ]; echo $?) "three verdicts stored ($rows)"

"$KWARN" census --db "$DB" --commit "$sha1" --format json >"$tmp/cli1.json"
ok $? "kwarn census --db --commit, no --repo: exit 0"
jq -e '.files == 4 and .labels == 12 and .marked == 6 and
	([.markers[] | select(.spelling == "/* fall through */")][0].count
		== 2) and
	([.markers[] | select(.kind == "keyword")][0].count == 1) and
	([.markers[] | select(.kind == "attribute")][0].count == 1)' \
	"$tmp/cli1.json" >/dev/null
ok $? "census of the first commit: 4 C files, 12 labels, 6 markers"
"$KWARN" census --db "$DB" --commit three >"$tmp/o" 2>&1
ok $([ $? != 0 ] && [ "$(wc -l <"$tmp/o")" = 1 ] &&
	grep -q "no repository" "$tmp/o"; echo $?) \
	"census of an ingested commit: one error line, non-zero exit"
KWARN_CACHE=$tmp/elsewhere "$KWARN" census --db "$DB" --commit "$sha1" \
	>"$tmp/o" 2>&1
ok $([ $? != 0 ] && grep -q "not in the cache" "$tmp/o"; echo $?) \
	"census with the tree not in the cache: said so, non-zero exit"

server_start "$DB" "$top/web"
ok $? "server started ($BASE)"

# verdicts in the warning lists
get "/api/commits/$sha2/warnings" >"$tmp/w.json"
jq -e '[.warnings[] | select(.file == "drivers/fw/bug.c")][0] |
	.verdict == "likely missing break" and .fix == "break;" and
	(.reason | test("overwrites"))' "$tmp/w.json" >/dev/null
ok $? "/api/commits/{id}/warnings: bug.c's verdict, fix and reason"
jq -e '[.warnings[] | select(.file == "drivers/fw/ok.c" and
	(.option | test("fallthrough")))][0] |
	.verdict == "likely intended" and .fix == "fallthrough;"' \
	"$tmp/w.json" >/dev/null
ok $? "ok.c: likely intended"
jq -e '[.warnings[] | select(.option | test("unused"))][0] |
	has("verdict") and .verdict == null and .fix == null and
	.reason == null' "$tmp/w.json" >/dev/null
ok $? "a warning without a verdict has null fields"
c=$(get "/api/warnings?commit=$sha2&state=new" | jq -c \
	'[.warnings[] | [.file, .verdict]]')
[ "$c" = '[["drivers/fw/late.c","likely missing break"]]' ]
ok $? "/api/warnings: the new warning with its verdict ($c)"
c=$(get "/api/subsystems/FIREWIRE/warnings?commit=$sha2" | jq \
	'[.warnings[] | select(.verdict == "likely missing break")] | length')
[ "$c" = 2 ]
ok $? "/api/subsystems/{name}/warnings: both missing breaks ($c)"
ident=$(jq -r '[.warnings[] | select(.file == "drivers/fw/late.c")][0]
	.identity' "$tmp/w.json")
get "/api/warnings/$ident/source?commit=$sha2" | jq -e \
	'.verdict == "likely missing break" and .fix == "break;"' >/dev/null
ok $? "/api/warnings/{identity}/source: the verdict too"

# the census of a stored commit
c=$(code "/api/commits/$sha1/census")
jq -S '.markers' "$tmp/body" >"$tmp/api1"
jq -S '.markers' "$tmp/cli1.json" >"$tmp/cli1"
[ "$c" = 200 ] && cmp -s "$tmp/api1" "$tmp/cli1" &&
	jq -e --arg s "$sha1" '.commit == $s and .labels == 12 and
	.marked == 6 and .path == null' "$tmp/body" >/dev/null
ok $? "GET /api/commits/{sha}/census: the markers kwarn census counts"
jq -e '[.upgrade[].file] | sort ==
	["drivers/fw/marked.c", "drivers/fw/marked.c",
	 "drivers/fw/marked.c", "fs/other.c"]' \
	"$tmp/body" >/dev/null
ok $? "census: the markers that pass at =3 and fail at =5"
id2=$(sqlite3 "$DB" "SELECT id FROM commits WHERE sha = '$sha2'")
c=$(code "/api/commits/$id2/census?path=drivers/fw/")
[ "$c" = 200 ] && jq -e '.files == 4 and .labels == 11 and .marked == 4
	and .path == "drivers/fw" and
	([.markers[] | select(.kind == "attribute")] | length == 0)' \
	"$tmp/body" >/dev/null
ok $? "?path=drivers/fw/ at the second commit (by id): its 4 files only"
c=$(code "/api/commits/$sha1/census?path=fs")
[ "$c" = 200 ] && jq -e '.files == 1 and .labels == 3 and .marked == 2' \
	"$tmp/body" >/dev/null
ok $? "?path=fs: other.c only, README is not C"
# answers are kept: the same census without the repository on disk
mv "$KWARN_CACHE/trees" "$KWARN_CACHE/moved"
c=$(code "/api/commits/$sha1/census")
[ "$c" = 200 ] && jq -e '.labels == 12' "$tmp/body" >/dev/null
ok $? "the census of a commit is kept in memory"
c=$(code "/api/commits/$sha1/census?path=drivers")
[ "$c" = 404 ] && jq -e '.error | test("not in the tree cache")' \
	"$tmp/body" >/dev/null
ok $? "a tree no longer cached: 404 with a JSON error"
mv "$KWARN_CACHE/moved" "$KWARN_CACHE/trees"
c=$(code "/api/commits/three/census")
[ "$c" = 404 ] && jq -e '.error | test("not in the tree cache")' \
	"$tmp/body" >/dev/null
ok $? "an ingested commit (no tree): 404"
c=$(code "/api/commits/$sha1/census?path=nope")
[ "$c" = 404 ] && jq -e '.error | test("nope")' "$tmp/body" >/dev/null
ok $? "?path= naming nothing: 404"
c=$(code "/api/commits/$sha1/census?path=../etc")
[ "$c" = 400 ] && jq -e '.error | test("path")' "$tmp/body" >/dev/null
ok $? "?path= with '..': 400"
c=$(code "/api/commits/$sha1/census?bogus=1")
ok $([ "$c" = 400 ]; echo $?) "unknown parameter: 400"
c=$(code "/api/commits/deadbeefdead/census")
ok $([ "$c" = 404 ]; echo $?) "unknown commit: 404"

# the dashboard shows the verdict as a badge, with the fix and the reason
browser() {
	local prof
	prof=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$prof" \
		--virtual-time-budget=10000 "$@" 2>>"$tmp/chromium.log"
}
run=$(sqlite3 "$DB" "SELECT run_id FROM commits WHERE sha = '$sha2'")
browser --dump-dom "$BASE/#/run/$run" >"$tmp/dom"
grep -q '<div class="new-warning">.*late.c.*<span class="classify-badge missing-break">likely missing break</span>' \
	"$tmp/dom" && grep -qF '<code>break;</code>' "$tmp/dom"
ok $? "dashboard: the new warning's red badge and suggested fix"
browser --dump-dom "$BASE/#/warning/$ident/$sha2" >"$tmp/dom"
reason=$(jq -r '[.warnings[] | select(.file == "drivers/fw/late.c")][0]
	.reason' "$tmp/w.json")
grep -qF '<span class="classify-badge missing-break">likely missing break</span>' \
	"$tmp/dom" && grep -qF "$reason" "$tmp/dom"
ok $? "dashboard: the warning page shows the verdict and its reason"

server_stop
ok $? "server stopped cleanly"

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ $failed = 0 ]
