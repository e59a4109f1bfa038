#!/bin/bash
# Triage (kwarn triage, schema 24, POST /api/warnings/{id}/triage) on a
# tree whose logs gcc wrote here, four commits of one file:
#   c1: f() falls through (W1), g() has an unused variable 'unused_x' (W2)
#   c2: two lines more above both: same warnings, other lines
#   c3: f() gets its break (W1 fixed), the variable is 'unused_y' (W2
#       fixed, W3 new in its place, another message)
#   c4: the break is gone again (W1 new after it was fixed)
# W1 is triaged intended and W2 false-positive at c1: both hold through
# the line shift, a rebuild and another tree; W3 and the returning W1
# are reopened by kwarn itself.  Then export and import, append-only,
# and the server's write path: tokens, origins, bounds, 16 writers at
# once while the collector ingests.
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
DB=$tmp/kwarn.db
src=$tmp/src
mkdir -p "$src/drivers/x"
export KWARN_WHO=tester

version() { # $1: 1 to 4
	local pad= brk= var=unused_x
	[ "$1" -ge 2 ] && pad=$'/* one */\n/* two */\n/* three */'
	[ "$1" = 3 ] && brk='		break;'
	[ "$1" -ge 3 ] && var=unused_y
	cat <<EOF
$pad
int f(int x)
{
	int r = 0;

	switch (x) {
	case 1:
		r += 1;
$brk
	case 2:
		r += 2;
		break;
	}
	return r;
}

int g(void)
{
	int $var;

	return 0;
}
EOF
}

ingest() { # $1: version, $2: tree, $3: commit
	version "$1" >"$src/drivers/x/a.c"
	(cd "$src" && LANG=C gcc -Wall -Wimplicit-fallthrough=3 -c \
		drivers/x/a.c -o "$tmp/a.o") 2>"$tmp/c$1.log"
	echo drivers/x/a.o >"$tmp/map"
	"$KWARN" ingest --db "$DB" --tree "$2" --commit "$3" \
		--object-map "$tmp/map" "$tmp/c$1.log" >/dev/null
}

fp_at() { # $1 commit, $2 line: the identity gcc's warning there has
	sqlite3 "$DB" "SELECT i.fingerprint FROM diagnostics d
		JOIN identities i ON i.id = d.identity_id
		JOIN builds b ON b.id = d.build_id
		JOIN commits c ON c.id = b.commit_id
		WHERE c.sha = '$1' AND d.line = $2 AND d.kind = 'warning'
		ORDER BY b.id DESC LIMIT 1"
}

current() { # $1 fingerprint: state|origin|reason of its newest record
	sqlite3 "$DB" "SELECT state || '|' || origin || '|' || reason
		FROM triage WHERE fingerprint = '$1' ORDER BY id DESC LIMIT 1"
}

line_of() { # $1 log, $2 message pattern: the line gcc gave it
	sed -n "s/^drivers\/x\/a\.c:\([0-9]*\):[0-9]*: warning: $2.*/\1/p" "$1"
}

ingest 1 t1 c1
ok $? "c1 ingested"
# the lines of gcc's own warnings, read from its log, not from kwarn
l1=$(line_of "$tmp/c1.log" 'this statement may fall through')
l2=$(line_of "$tmp/c1.log" 'unused variable .unused_x.')
[ -n "$l1" ] && [ -n "$l2" ]
ok $? "gcc printed W1 at line $l1 and W2 at line $l2"
w1=$(fp_at c1 "$l1")
w2=$(fp_at c1 "$l2")

out=$("$KWARN" triage --db "$DB" "drivers/x/a.c:$l1" --as intended \
	--reason "f() runs case 2 after case 1 on purpose")
[ $? = 0 ] && [ "${out%% *}" = "${w1:0:16}" ]
ok $? "triage by FILE:LINE names W1 ($out)"
"$KWARN" triage --db "$DB" "${w2:0:12}" --as false-positive \
	--reason "kept for a later patch" >/dev/null
ok $? "triage by an identity's prefix"
"$KWARN" triage --db "$DB" "$w2" --as compiler-bug --reason "gcc" \
	>"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'link' "$tmp/out" && [ "$(wc -l <"$tmp/out")" = 1 ]
ok $? "compiler-bug without --link: one line, exit 2 (rc $rc)"
"$KWARN" triage --db "$DB" "drivers/x/a.c:999" --as intended --reason x \
	>/dev/null 2>&1
rc=$?
[ $rc = 1 ]
ok $? "a FILE:LINE with no warning: exit 1 (rc $rc)"
"$KWARN" triage --db "$DB" "$w1" --as nonsense --reason x >/dev/null 2>&1
rc=$?
[ $rc = 2 ]
ok $? "an unknown state: exit 2 (rc $rc)"

ingest 2 t1 c2
l1b=$(line_of "$tmp/c2.log" 'this statement may fall through')
# three comment lines where c1 has an empty one
[ "$l1b" = $((l1 + 2)) ] && [ "$(fp_at c2 "$l1b")" = "$w1" ] &&
	[ "$(current "$w1")" = "intended|cli|f() runs case 2 after case 1 on purpose" ]
ok $? "two lines more above: W1 at line $l1b keeps its identity and its triage"
before=$(sqlite3 "$DB" "SELECT COUNT(*) FROM triage")
ingest 2 t1 c2
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM triage")" = "$before" ] &&
	[ "$(current "$w2" | cut -d'|' -f1)" = false-positive ]
ok $? "a rebuild of c2 changes no triage ($before records)"
ingest 2 t2 other
[ "$(fp_at other "$l1b")" = "$w1" ] &&
	[ "$(current "$w1" | cut -d'|' -f1)" = intended ]
ok $? "another tree with the same code: the same identity, still intended"

ingest 3 t1 c3
w3=$(fp_at c3 "$(line_of "$tmp/c3.log" 'unused variable .unused_y.')")
s1=$(sqlite3 "$DB" "SELECT s.state FROM states s JOIN identities i
	ON i.id = s.identity_id JOIN commits c ON c.id = s.commit_id
	WHERE c.sha = 'c3' AND i.fingerprint = '$w1'")
[ "$s1" = fixed ] && [ -n "$w3" ] && [ "$w3" != "$w2" ]
ok $? "c3: W1 fixed, W3 a new identity for the renamed variable"
want="open|reopen|reopened: in the place of -Wunused-variable 'unused variable 'unused_x'', triaged false-positive by tester: kept for a later patch"
[ "$(current "$w3")" = "$want" ]
ok $? "W3 is reopened: it replaced a warning triaged false-positive ($(current "$w3"))"
[ "$(current "$w1" | cut -d'|' -f1)" = intended ]
ok $? "W1, fixed, keeps its triage"

ingest 4 t1 c4
case $(current "$w1") in
"open|reopen|reopened: back at c4 after it was fixed, triaged intended by tester: "*) r=0 ;;
*) r=1 ;;
esac
ok $r "c4: W1 came back after its fix and is open again ($(current "$w1" | cut -c1-60)...)"

# export, import, append-only
"$KWARN" triage --db "$DB" --export "$tmp/triage.txt"
ok $? "export"
[ "$(grep -vc '^#' "$tmp/triage.txt")" = "$(sqlite3 "$DB" "SELECT COUNT(*) FROM triage")" ]
ok $? "the export holds every record, one a line"
"$KWARN" triage --db "$tmp/fresh.db" --import "$tmp/triage.txt" >/dev/null &&
	"$KWARN" triage --db "$tmp/fresh.db" --export - | cmp -s - "$tmp/triage.txt"
ok $? "imported into a fresh database: the same records, byte for byte"
out=$("$KWARN" triage --db "$tmp/fresh.db" --import "$tmp/triage.txt")
[ "$out" = "kwarn: 0 triage records imported, $(grep -vc '^#' "$tmp/triage.txt") there already" ]
ok $? "imported again: nothing added ($out)"
{ head -n 3 "$tmp/triage.txt"; printf 'not a record\n'; } >"$tmp/bad.txt"
"$KWARN" triage --db "$tmp/fresh2.db" --import "$tmp/bad.txt" >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'bad.txt:4: ' "$tmp/out" &&
	[ "$(sqlite3 "$tmp/fresh2.db" "SELECT COUNT(*) FROM triage")" = 0 ]
ok $? "a malformed line 4: its number, exit 2, nothing imported (rc $rc)"
! sqlite3 "$DB" "UPDATE triage SET state = 'open'" 2>/dev/null &&
	! sqlite3 "$DB" "DELETE FROM triage" 2>/dev/null
ok $? "records are never updated or deleted"
"$KWARN" triage --db "$DB" --list --format json >"$tmp/list.json"
jq -e --arg w "$w2" '[.[] | select(.identity == $w)][0] |
	.state == "false-positive" and .warning.option == "-Wunused-variable"' \
	"$tmp/list.json" >/dev/null
ok $? "--list: the newest record of each, with its warning"

# --site: one decision for every compiler's warning at a site.  gcc and
# clang-16 build c1's file into two runs grouped as `kwarn run --cc gcc
# --cc clang-16` groups them (tests/lib/server-fixture.sh does the same)
SDB=$tmp/site.db
mkdir -p "$tmp/s/drivers/x"
version 1 >"$tmp/s/drivers/x/a.c"
for cc in gcc clang-16; do
	(cd "$tmp/s" && LANG=C $cc -Wall -Wimplicit-fallthrough -c \
		drivers/x/a.c -o "$tmp/a.o") 2>"$tmp/$cc.log"
	"$KWARN" ingest --db "$SDB" --tree "t-$cc" --commit c1 --source "$tmp/s" \
		--object-map "$tmp/map" "$tmp/$cc.log" >/dev/null || break
done
sqlite3 "$SDB" "UPDATE runs SET group_id = (SELECT MIN(id) FROM runs),
	compiler = CASE id WHEN (SELECT MIN(id) FROM runs) THEN 'gcc'
	ELSE 'clang-16' END"
"$KWARN" sites --db "$SDB" --run 1 --format json >"$tmp/sites.json"
site=$(jq -r '[.[] | select(.compilers == ["gcc", "clang-16"]) |
	select(.site | test("fallthrough"))][0].site' "$tmp/sites.json")
want=$(jq -r --arg s "$site" '.[] | select(.site == $s) |
	.warnings[].identity' "$tmp/sites.json" | sort | paste -sd,)
[ "$site" != null ] && [ "$(echo "$want" | tr , '\n' | wc -l)" = 2 ]
ok $? "gcc and clang-16 warn at one fall-through site ($site)"
"$KWARN" triage --db "$SDB" --site "$site" --as compiler-bug \
	--reason "both compilers, one decision" \
	--link "https://gcc.gnu.org/bugzilla/show_bug.cgi?id=1" >"$tmp/out"
rc=$?
got=$(sqlite3 "$SDB" "SELECT fingerprint FROM triage_current
	WHERE state = 'compiler-bug' ORDER BY fingerprint" | paste -sd,)
[ $rc = 0 ] && [ "$got" = "$want" ] && [ "$(wc -l <"$tmp/out")" = 2 ] &&
	[ "$(sqlite3 "$SDB" "SELECT COUNT(*) FROM triage")" = 2 ]
ok $? "--site: gcc's and clang's warnings there triaged, and nothing else (rc $rc)"
"$KWARN" triage --db "$SDB" --site "drivers/x/a.c|f|-Wnone|x" --as intended \
	--reason x >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'no warning at the site' "$tmp/out" &&
	[ "$(sqlite3 "$SDB" "SELECT COUNT(*) FROM triage")" = 2 ]
ok $? "--site with no warning there: exit 1, nothing stored (rc $rc)"
"$KWARN" triage --db "$SDB" --site "$site" "${want%%,*}" --as intended \
	--reason x >/dev/null 2>&1
rc=$?
[ $rc = 2 ]
ok $? "--site and an identity at once: exit 2 (rc $rc)"

# kwarn sites: two switches of one function each fall into "default:"
# (tests/data/sites/generate: gcc 12's and clang 16's own logs): two sites
# of one key, told apart by the label's line, each compiler named once
# (issue 33 saw "gcc,gcc")
TDB=$tmp/two.db
printf 'two-defaults.o\n' >"$tmp/two.map"
for cc in gcc clang; do
	"$KWARN" ingest --db "$TDB" --tree "two-$cc" --commit c1 \
		--source tests/data/sites --object-map "$tmp/two.map" \
		"tests/data/sites/two-defaults.$cc.log" >/dev/null || break
done
sqlite3 "$TDB" "UPDATE runs SET group_id = (SELECT MIN(id) FROM runs),
	compiler = CASE id WHEN (SELECT MIN(id) FROM runs) THEN 'gcc'
	ELSE 'clang-16' END" &&
	"$KWARN" sites --db "$TDB" --run 1 >"$tmp/two.txt" &&
	"$KWARN" sites --db "$TDB" --run 1 --format json >"$tmp/two.json"
ok $? "kwarn sites of gcc's and clang's logs of two-defaults.c"
sed 's/^/# /' "$tmp/two.txt"
labels=$(grep -n '^[[:space:]]*default:' tests/data/sites/two-defaults.c | cut -d: -f1 | paste -sd,)
jq -e --arg l "$labels" 'length == 2 and ([.[].line] | map(tostring) |
	join(",")) == $l and all(.[]; .compilers == ["gcc", "clang-16"] and
	(.warnings | length) == 2 and
	.site == "two-defaults.c|two|-Wimplicit-fallthrough|default:")' \
	"$tmp/two.json" >/dev/null
ok $? "two sites, at the two labels' lines ($labels), each gcc,clang-16 once"
[ "$(grep -c '^gcc,clang-16 ' "$tmp/two.txt")" = 2 ] &&
	! grep -q 'gcc,gcc\|clang-16,clang-16' "$tmp/two.txt" &&
	[ "$(tail -1 "$tmp/two.txt")" = "2 sites" ]
ok $? "the text: no compiler twice on a line, 2 sites"

# the server's write path
printf 'alice %s\nbob %s\n' 0123456789abcdef0123456789abcdef \
	fedcba9876543210fedcba9876543210 >"$tmp/tokens"
chmod 644 "$tmp/tokens"
"$KWARN_SERVER" --db "$DB" --triage-tokens "$tmp/tokens" -n >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'chmod 600' "$tmp/out"
ok $? "a tokens file others can read is refused (rc $rc)"
chmod 600 "$tmp/tokens"
server_start "$DB"
ok $? "a read-only server starts"
A=0123456789abcdef0123456789abcdef
post() { # TOKEN BODY [curl args]: the status; the body into $tmp/post
	local tok=$1 body=$2
	shift 2
	curl -s -o "$tmp/post" -w '%{http_code}' -X POST \
		-H "Content-Type: ${ctype:-application/json}" \
		${tok:+-H "Authorization: Bearer $tok"} --data-binary "$body" \
		"$@" "$BASE/api/warnings/$w2/triage"
}
s=$(post $A '{"state":"intended","reason":"x"}')
[ "$s" = 405 ] && jq -e '.status == 405 and (.error | test("read-only"))' \
	"$tmp/post" >/dev/null
ok $? "the read-only server refuses a POST: 405 in JSON ($s)"
server_stop
SERVER_ARGS="--triage-tokens $tmp/tokens" server_start "$DB"
ok $? "a server with tokens starts"
jq -e '.triage == true' <(curl -s "$BASE/api/health") >/dev/null
ok $? "/api/health says it takes triage"
s=$(post "" '{"state":"intended","reason":"x"}')
[ "$s" = 401 ] && jq -e '.status == 401' "$tmp/post" >/dev/null
ok $? "no token: 401 in JSON ($s)"
s=$(post 0123456789abcdef0123456789abcdeX '{"state":"intended","reason":"x"}')
[ "$s" = 401 ] && jq -e '.status == 401' "$tmp/post" >/dev/null
ok $? "a wrong token: 401 ($s)"
# a kept result of c2's list (W1 and W2, pages of 1) before the POST:
# two requests ask for it; each try then spells the query anew (the
# answer cache keeps an answer by its spelling)
kl="/api/warnings?commit=c2&limit=1"
curl -s -o /dev/null "$BASE$kl&offset=0" && curl -s -o /dev/null "$BASE$kl&offset=1"
kept=
for q in limit=1\&commit=c2\&offset={0,1} offset={0,1}\&commit=c2\&limit=1 \
	offset={0,1}\&limit=1\&commit=c2 commit=c2\&offset={0,1}\&limit=1 \
	limit=1\&offset={0,1}\&commit=c2; do
	kept=$(curl -s -D - -o /dev/null "$BASE/api/warnings?$q" |
		tr -d '\r' | sed -n 's/^X-Kwarn-Result: //Ip')
	[ "$kept" = kept ] && break
	sleep 0.3
done
s=$(post $A '{"state":"wontfix","reason":"the driver is going away"}')
# the server's own write forgets every kept result at once: the next two
# requests read alone (the second asks for a new one), none is a page of
# before, kept or being rebuilt, and both show the decision
shown= headers=
for off in 0 1; do
	shown="$shown $(curl -s -D "$tmp/h" "$BASE$kl&offset=$off" |
		jq -r --arg w "$w2" '.warnings[] | select(.identity == $w) |
		.triage.state')"
	headers="$headers$(tr -d '\r' <"$tmp/h" | sed -n 's/^X-Kwarn-Result: //Ip')"
done
[ "$kept" = kept ] && [ -z "$headers" ] && [ "$(echo $shown)" = wontfix ]
ok $? "after a POST, the kept result is forgotten and the pages show it ('$kept' before; after: '$headers',$shown)"
[ "$s" = 201 ] && jq -e '.who == "alice" and .origin == "api" and
	.state == "wontfix"' "$tmp/post" >/dev/null &&
	[ "$(current "$w2")" = "wontfix|api|the driver is going away" ] &&
	[ "$(sqlite3 "$DB" "SELECT who FROM triage ORDER BY id DESC LIMIT 1")" = alice ]
ok $? "alice's token: 201, stored under her name ($s)"
s=$(post $A '{"state":"intended","reason":"x"}' -H 'Origin: http://evil.example')
[ "$s" = 403 ]
ok $? "a page of another origin: 403 ($s)"
s=$(post $A '{"state":"intended","reason":"x"}' -H 'Sec-Fetch-Site: cross-site')
[ "$s" = 403 ]
ok $? "a cross-site fetch: 403 ($s)"
s=$(post $A '{"state":"intended","reason":"x"}' -H "Origin: $BASE")
[ "$s" = 201 ]
ok $? "the server's own origin: 201 ($s)"
s=$(post $A "{\"state\":\"intended\",\"reason\":\"$(head -c 9000 /dev/zero | tr '\0' a)\"}")
[ "$s" = 413 ]
ok $? "a body over 8 KiB: 413 ($s)"
s=$(post $A '{"state":"maybe","reason":"x"}')
[ "$s" = 400 ] && jq -e '.error | startswith("bad state")' "$tmp/post" >/dev/null
ok $? "an unknown state: 400 naming the field ($s)"
s=$(post $A '{"state": "intended", "reason": ')
[ "$s" = 400 ] && jq -e '.error | startswith("bad body")' "$tmp/post" >/dev/null
ok $? "bad JSON: 400 ($s)"
s=$(ctype=text/plain post $A '{"state":"intended","reason":"x"}')
[ "$s" = 415 ]
ok $? "a body that is not JSON by its type: 415 ($s)"
s=$(curl -s -o "$tmp/post" -w '%{http_code}' -X POST \
	-H "Authorization: Bearer $A" -H 'Content-Type: application/json' \
	-d '{}' "$BASE/api/warnings")
[ "$s" = 405 ]
ok $? "POST anywhere else: 405 ($s)"
jq -e '.state == "intended" and (.history | length) >= 3 and .writable' \
	<(curl -s "$BASE/api/warnings/$w2/triage") >/dev/null
ok $? "GET .../triage: the state and the whole history"

# 16 writers at once while the collector ingests
before=$(sqlite3 "$DB" "SELECT COUNT(*) FROM triage WHERE origin = 'api'")
(for i in 1 2 3 4 5 6; do ingest $((i % 2 + 3)) t3 "w$i" || exit 1; done) &
pids=$!
for c in $(seq 16); do
	(for k in 1 2 3 4 5; do
		curl -s -o /dev/null -w '%{http_code}\n' -X POST \
			-H 'Content-Type: application/json' \
			-H "Authorization: Bearer $A" \
			--data-binary "{\"state\":\"confirmed\",\"reason\":\"writer $c, write $k\"}" \
			"$BASE/api/warnings/$w1/triage"
	done >"$tmp/writer$c") &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
codes=$(cat "$tmp"/writer* | sort | uniq -c | tr -s ' ')
after=$(sqlite3 "$DB" "SELECT COUNT(*) FROM triage WHERE origin = 'api'")
[ "$codes" = " 80 201" ] && [ $((after - before)) = 80 ] &&
	[ "$(sqlite3 "$DB" "SELECT COUNT(DISTINCT reason) FROM triage
		WHERE reason LIKE 'writer %'")" = 80 ]
ok $? "16 writers x 5 while ingesting: 80 x 201, 80 records kept ($codes)"
[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ] &&
	[ "$(sqlite3 "$DB" "SELECT COUNT(DISTINCT c.sha) FROM commits c
		JOIN runs r ON r.id = c.run_id JOIN trees t ON t.id = r.tree_id
		WHERE t.name = 't3'")" = 6 ]
ok $? "integrity_check ok, and the six ingests all stored"
server_stop
done_tap
