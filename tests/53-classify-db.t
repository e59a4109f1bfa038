#!/bin/bash
# kwarn classify --db: the stored implicit-fallthrough warnings of a build
# get a verdict each, read from a source directory or from the commit in
# a git repository, stored in the classifications table (schema 0002).
set -u
cd "$(dirname "$0")/.."
kwarn=${KWARN:-bin/kwarn}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

mkdir -p "$tmp/src/drivers"
cat >"$tmp/src/drivers/bug.c" <<'C'
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
cat >"$tmp/src/drivers/ok.c" <<'C'
struct call { int unmarshall; int tmp; };
int extract(struct call *call);
void to_tmp(struct call *call);
int deliver(struct call *call)
{
	int ret;

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
cat >"$tmp/src/drivers/maybe.c" <<'C'
void prepare_b(int *d);
void run_c(int *d);
void go(int *d, int cmd)
{
	switch (cmd) {
	case 2:
		prepare_b(d);
	case 3:
		run_c(d);
		break;
	}
}
C
(cd "$tmp/src" && for f in drivers/bug.c drivers/ok.c drivers/maybe.c; do
	LANG=C gcc -c -o /dev/null -Wimplicit-fallthrough=3 "$f"
done) >"$tmp/build.log" 2>&1
[ "$(grep -c 'may fall through' "$tmp/build.log")" = 3 ]
ok $? "gcc warns three times"
"$kwarn" ingest --db "$tmp/k.db" --tree t --commit one "$tmp/build.log" \
	>/dev/null 2>&1
ok $? "the log is ingested"

out=$("$kwarn" classify --db "$tmp/k.db" --tree "$tmp/src" 2>&1)
ok $? "kwarn classify --db --tree exits 0"
echo "$out" | grep -q '^drivers/bug.c:9: likely missing break (break;): the next case overwrites'
ok $? "bug.c: missing break, with the reason"
echo "$out" | grep -q '^drivers/ok.c:11: likely intended (fallthrough;)'
ok $? "ok.c: intended"
echo "$out" | grep -q '^drivers/maybe.c:7: unsure (no fix: read both cases): no evidence'
ok $? "maybe.c: unsure, no fix suggested, and why"
echo "$out" | grep -q '^3 classified: 1 likely missing break, 1 likely intended, 1 unsure, 0 not readable$'
ok $? "the summary counts each verdict: missing break, intended, unsure"
row=$(sqlite3 "$tmp/k.db" "SELECT verdict || ',' || ifnull(fix, 'NULL') FROM classifications
	WHERE reason LIKE 'no evidence%';" 2>&1)
ok $([ "$row" = "unsure,NULL" ]; echo $?) "stored as unsure with no fix ($row)"
rows=$(sqlite3 "$tmp/k.db" "SELECT count(*) FROM classifications;" 2>&1)
ok $([ "$rows" = 3 ]; echo $?) "three verdicts stored ($rows)"
"$kwarn" classify --db "$tmp/k.db" --tree "$tmp/src" >/dev/null 2>&1
rows=$(sqlite3 "$tmp/k.db" "SELECT count(*) FROM classifications;" 2>&1)
ok $([ "$rows" = 3 ]; echo $?) "classifying again replaces, not adds ($rows)"

# the same sources from the commit of a git repository
(cd "$tmp/src" && git init -q && git add -A && git -c user.name=t \
	-c user.email=t@t commit -q -m t) || exit 1
sha=$(cd "$tmp/src" && git rev-parse HEAD)
rm -f "$tmp/src/drivers/bug.c"
sqlite3 "$tmp/k.db" "UPDATE commits SET sha = '$sha';"
out=$("$kwarn" classify --db "$tmp/k.db" --repo "$tmp/src" --format json 2>&1)
ok $? "kwarn classify --db --repo exits 0"
echo "$out" | grep -q '"file":"drivers/bug.c".*"verdict":"likely missing break"'
ok $? "bug.c read from the commit, not the (changed) work tree"

"$kwarn" classify --db "$tmp/k.db" --tree /nonexistent >"$tmp/o" 2>&1
grep -q "3 not readable\|nonexistent" "$tmp/o"
ok $? "a tree without the sources: said so, no crash"
"$kwarn" classify --db "$tmp/nope.db" --tree "$tmp/src" >"$tmp/o" 2>&1
ok $([ $? != 0 ] && [ "$(wc -l <"$tmp/o")" = 1 ]; echo $?) \
	"a missing database: one error line, non-zero exit"
"$kwarn" classify --file "$tmp/src/drivers/ok.c" --here 999 >"$tmp/o" 2>&1
ok $([ $? = 2 ] && grep -q "no case label" "$tmp/o"; echo $?) \
	"no label on that line: error, exit 2 as the manual says"
"$kwarn" classify --file "$tmp/src/drivers/missing.c" --warn 3 --here 4 \
	>"$tmp/o" 2>&1
ok $([ $? = 2 ] && [ "$(wc -l <"$tmp/o")" = 1 ] &&
	grep -q "missing.c" "$tmp/o"; echo $?) \
	"a source that cannot be read: one line naming it, exit 2"

# gcc's own pair for ok.c, then the same lines inside a comment: a pair
# that is no statement and no label gets no verdict (issue 33)
owarn=$(sed -n 's|^drivers/ok.c:\([0-9]*\):[0-9]*: warning:.*|\1|p' "$tmp/build.log")
ohere=$(sed -n 's|^drivers/ok.c:\([0-9]*\):[0-9]*: note: here|\1|p' "$tmp/build.log")
lines=$(grep -c '' "$tmp/src/drivers/ok.c")
{ echo '/*'; sed 's|^| * |' "$tmp/src/drivers/ok.c"; echo ' */'
	cat "$tmp/src/drivers/ok.c"; } >"$tmp/commented.c"
"$kwarn" classify --file "$tmp/commented.c" --warn $((owarn + 1)) \
	--here $((ohere + 1)) >"$tmp/o" 2>&1
ok $([ $? = 2 ] && [ "$(wc -l <"$tmp/o")" = 1 ] &&
	grep -q "commented.c:$((ohere + 1)): not a statement and a case label" \
		"$tmp/o"; echo $?) \
	"gcc's pair for ok.c at its lines inside a comment: refused, exit 2"
"$kwarn" classify --file "$tmp/commented.c" --warn $((owarn + lines + 2)) \
	--here $((ohere + lines + 2)) >"$tmp/o" 2>&1
ok $([ $? = 0 ] && grep -q "likely intended" "$tmp/o"; echo $?) \
	"the same pair in the code after the comment: its verdict"
"$kwarn" classify --file "$tmp/src/drivers/ok.c" --warn "$ohere" \
	--here "$owarn" >"$tmp/o" 2>&1
ok $([ $? = 2 ] && grep -q "no case label" "$tmp/o"; echo $?) \
	"gcc's pair the other way round: refused, exit 2"

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ $failed = 0 ]
