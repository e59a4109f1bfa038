#!/bin/bash
# kwarn-server's REST API against a database the real collector built from
# gcc's own logs (tests/lib/server-fixture.sh): every endpoint, paging,
# filters, counts checked against `kwarn warnings`, and bad input.
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

ok() { # STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
	return 0
}
t() { # DESCRIPTION COMMAND...: ok if the command succeeds
	local d=$1
	shift
	"$@"
	ok $? "$d"
}
get() { curl -s --path-as-is "$BASE$1"; }
code() { curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' "${@:2}" "$BASE$1"; }
jqe() { jq -e "$@" >/dev/null 2>&1; }
# STATUS URL WORD: answered STATUS with a JSON error that mentions WORD
err_is() {
	local c
	c=$(code "$2" "${@:4}")
	[ "$c" = "$1" ] && jq -e --arg w "$3" '.error | contains($w)' \
		"$tmp/body" >/dev/null
}
kw_count() { # COMMIT [STATE]: what the collector's own report says
	"$KWARN" warnings --db "$DB" --commit "$1" ${2:+--state "$2"} \
		--format json | jq length
}

export KWARN_CACHE=$tmp/cache
fixture_build "$tmp"
ok $? "fixture database built by kwarn ingest from gcc logs"

# the text report: what changed, the not-built warnings of each point as
# kwarn warnings lists them, the reproducers behind --reproducers (issue 33)
"$KWARN" report --db "$DB" --run "$RUN" >"$tmp/rep.txt" &&
	"$KWARN" report --db "$DB" --run "$RUN" --reproducers >"$tmp/rep-r.txt"
ok $? "kwarn report, and with --reproducers"
t "without --reproducers: no reproducer" \
	test "$(grep -c 'reproduce:' "$tmp/rep.txt")" = 0
t "with it: one under each new and fixed warning ($(grep -c '^\(>>\|--\) ' \
	"$tmp/rep-r.txt"))" test "$(grep -c '^   reproduce:$' "$tmp/rep-r.txt")" = \
	"$(grep -c '^\(>>\|--\) ' "$tmp/rep-r.txt")" -a \
	"$(grep -c '^\(>>\|--\) ' "$tmp/rep-r.txt")" -gt 0
t "the two differ by the reproducers alone" \
	cmp -s "$tmp/rep.txt" <(awk '/^   reproduce:$/ { skip = 1; next }
		skip && /^     / { next } { skip = 0; print }' "$tmp/rep-r.txt")
# the mail: '>>' on each new warning's line alone, as the robot marks it
"$KWARN" report --db "$DB" --run "$RUN" --format mail >"$tmp/rep.mbox"
ok $? "kwarn report --format mail"
t "mail: '>>' on the $(grep -c '^>>' "$tmp/rep.mbox") new warnings' lines, never on source or notes" \
	test "$(grep -c '^>>' "$tmp/rep.mbox")" = \
	"$("$KWARN" report --db "$DB" --run "$RUN" --format json | jq '[.commits[] |
		select(.position > 0) | .warnings_list[] | select(.state == "new")] |
		length')" -a "$(grep -c '^>> [^ ]*:[0-9]*:[0-9]*: warning: ' \
		"$tmp/rep.mbox")" = "$(grep -c '^>>' "$tmp/rep.mbox")"
t "mail: Cc: the AFS entry's reviewer with his name, and its list" \
	test "$(sed -n '/^Cc: /,/^Subject: /p' "$tmp/rep.mbox" | grep -v '^Subject: ' |
		sed 's/^Cc: //; s/^    //; s/,$//' | sort | paste -sd'|')" = \
	"Marc Dionne <marc.dionne@example.org>|linux-afs@example.org"
t "mail of a run not from mails: no In-Reply-To:, no Closes:" \
	test "$(grep -c '^In-Reply-To: \|^References: \|^| Closes: ' "$tmp/rep.mbox")" = 0
t "mail: compiler: filled, an ingested log's version said to be unknown" \
	grep -qx 'compiler: gcc (its version not recorded: an ingested log)' \
	"$tmp/rep.mbox"
# a series that came from mails (git format-patch --thread gives each patch
# a Message-Id): the mail answers the patch's, as the robot does, and its
# Closes: names the report itself (issue 33)
git init -q "$tmp/ser-git" && for s in "kwarn: base" \
	"firewire: mark the first fall-through" \
	"firewire: mark the rest, stop building net"; do
	printf '%s\n' "$s" >>"$tmp/ser-git/log" &&
	git -C "$tmp/ser-git" add log &&
	git -C "$tmp/ser-git" -c user.name='Ann Author' \
		-c user.email=ann@example.org commit -q -m "$s" || break
done &&
	git -C "$tmp/ser-git" -c user.name='Ann Author' \
		-c user.email=ann@example.org format-patch -q --thread -2 \
		-o "$tmp/ser" >/dev/null &&
	(cd "$tmp/ser" && ls 0*.patch >series) &&
	sqlite3 "$DB" ".backup '$tmp/ser.db'" &&
	sqlite3 "$tmp/ser.db" "UPDATE runs SET kind = 'series',
		series = '$tmp/ser/series' WHERE id = $RUN;
		UPDATE commits SET patch = (SELECT CASE position
		WHEN 1 THEN '$(sed -n 1p "$tmp/ser/series")'
		ELSE '$(sed -n 2p "$tmp/ser/series")' END)
		WHERE run_id = $RUN AND position > 0" &&
	"$KWARN" report --db "$tmp/ser.db" --run "$RUN" --format mail >"$tmp/ser.mbox"
ok $? "a copy whose points are patches of git format-patch --thread, mailed"
pid1=$(sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' "$tmp/ser/$(sed -n 1p "$tmp/ser/series")")
own=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/p' "$tmp/ser.mbox")
t "In-Reply-To: and References: the Message-Id of patch 1 ($pid1)" \
	test -n "$pid1" -a "$(grep -c '^From kwarn@localhost ' "$tmp/ser.mbox")" = 1 -a \
	"$(grep -x "In-Reply-To: <$pid1>" "$tmp/ser.mbox")" = "In-Reply-To: <$pid1>" -a \
	"$(grep -x "References: <$pid1>" "$tmp/ser.mbox")" = "References: <$pid1>"
t "| Closes: the report's own Message-ID on lore ($own)" \
	grep -qxF "| Closes: https://lore.kernel.org/r/$own/" "$tmp/ser.mbox"
t "the mail's headers end before the body, a blank line after them" \
	test "$(awk 'NR > 1 && /^$/ { exit } NR > 1 { print }' "$tmp/ser.mbox" |
		grep -c '^In-Reply-To: \|^References: \|^Message-ID: ')" = 3
bad=0 seen=0
for c in "$C1" "$C2" "$C3"; do
	"$KWARN" warnings --db "$DB" --commit "$c" --state not_built --format json |
		jq -r '.[] | "   not built: \(.file):\(.line):\(.column): "' |
		sort >"$tmp/nb.want"
	seen=$((seen + $(wc -l <"$tmp/nb.want")))
	awk -v c="commit ${c:0:12} " 'index($0, c) == 1 { on = 1; next }
		/^commit / { on = 0 } on && /^   not built: / { print }' "$tmp/rep.txt" |
		sed 's/\(:[0-9]*:[0-9]*: \).*/\1/' | sort >"$tmp/nb.got"
	cmp -s "$tmp/nb.want" "$tmp/nb.got" || bad=$((bad + 1))
done
ok $([ $bad = 0 ] && [ $seen -gt 0 ]; echo $?) \
	"each point lists its not-built warnings, as kwarn warnings does ($seen)"

# start-up checks
"$KWARN_SERVER" --db "$DB" -n >"$tmp/out" 2>&1
ok $? "-n accepts a good database"
"$KWARN_SERVER" --db "$tmp/missing.db" -n >"$tmp/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "missing.db" "$tmp/out"
ok $? "missing database: message naming it, exit $rc"
head -c 4096 /dev/urandom >"$tmp/corrupt.db"
"$KWARN_SERVER" --db "$tmp/corrupt.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "corrupt.db" "$tmp/out"
ok $? "corrupt database: message naming it, exit $rc"
{ printf 'SQLite format 3\0'; head -c 8000 /dev/urandom; } >"$tmp/bad.db"
"$KWARN_SERVER" --db "$tmp/bad.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "bad.db" "$tmp/out"
ok $? "database with a SQLite header and garbage: refused, exit $rc"
mkdir "$tmp/dir.db"
"$KWARN_SERVER" --db "$tmp/dir.db" -n >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] && grep -q "directory" "$tmp/out"
ok $? "--db a directory: one line saying so, exit $rc"
sqlite3 "$tmp/foreign.db" "CREATE TABLE t(a); INSERT INTO t VALUES (1)"
cp "$tmp/foreign.db" "$tmp/foreign.orig"
"$KWARN_SERVER" --db "$tmp/foreign.db" -n >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
	grep -q "another program" "$tmp/out" && cmp -s "$tmp/foreign.db" "$tmp/foreign.orig"
ok $? "--db another program's SQLite file: one line, exit $rc, unchanged"
# a page of the diagnostics table with a broken header: the database
# opens and its runs read, so only -n's quick_check finds it
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp "$DB" "$tmp/damaged.db"
page=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_schema WHERE name = 'diagnostics'")
size=$(sqlite3 "$DB" "PRAGMA page_size")
printf '\x0d\xff\xff\x7f\x7f\x00\x10\x00' |
	dd of="$tmp/damaged.db" bs=1 seek=$(((page - 1) * size)) conv=notrunc \
		2>/dev/null
"$KWARN_SERVER" --db "$tmp/damaged.db" -n >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
	grep -q "damaged.db' is damaged: Page $page" "$tmp/out"
ok $? "-n on a database with a damaged page: one line naming it, exit $rc ($(cat "$tmp/out"))"
"$KWARN_SERVER" --db "$DB" --listen 127.0.0.1:99999 -n >"$tmp/out" 2>&1
[ $? -ne 0 ] && grep -q "port" "$tmp/out"
ok $? "bad --listen port refused"
"$KWARN_SERVER" --db "$DB" --listen example.org:80 -n >"$tmp/out" 2>&1
[ $? -ne 0 ] && grep -q "example.org" "$tmp/out"
ok $? "--listen wants an IPv4 address"

# a copy of the dashboard, with a symlink pointing out of it
cp -r "$top/web" "$tmp/web" && ln -s /etc "$tmp/web/etc-link"
server_start "$DB" "$tmp/web"
ok $? "server listens on a free loopback port ($PORT)"

# health, runs, trees
t "GET /api/health" jqe '.status == "ok"' <(get /api/health)
get /api/runs >"$tmp/runs"
t "GET /api/runs lists the run with 3 commits" \
	jqe --argjson r "$RUN" 'length == 1 and .[0].id == $r and .[0].commits == 3' "$tmp/runs"
t "GET /api/runs/{id} lists the commits in order" \
	jqe --arg a "$C1" --arg b "$C2" --arg c "$C3" \
	'[.commit_list[].sha] == [$a, $b, $c]' <(get /api/runs/$RUN)
t "GET /api/trees groups runs by tree" \
	jqe --argjson r "$RUN" '.[0].name == "kwtree" and .[0].runs[0].id == $r' \
	<(get /api/trees)

# burn-down against the collector's report
get /api/runs/$RUN/burndown >"$tmp/bd"
t "burn-down: one entry per commit, in series order" \
	jqe --arg a "$C1" --arg b "$C2" --arg c "$C3" \
	'[.[].commit.sha] == [$a, $b, $c] and [.[].position] == [0, 1, 2]' "$tmp/bd"
# its commit is an object, as every other answer's is (issue 33)
t "burn-down: each commit is {id, sha, position, run}, as /api/warnings' is" \
	jqe -s --argjson r "$RUN" '.[0] as $bd | .[1].commit as $w |
		all($bd[]; (.commit | keys_unsorted) == ["id", "sha", "position",
		"run"] and .commit.id == .id and .commit.position == .position and
		.commit.run == $r) and $bd[-1].commit == $w' \
	"$tmp/bd" <(get "/api/warnings?run=$RUN&limit=1")
t "burn-down entries carry subject, counts, by_option and boot" \
	jqe 'all(.[]; has("subject") and has("warnings") and has("new") and
		has("fixed") and has("not_built") and has("by_option") and
		has("boot"))' "$tmp/bd"
i=0
for c in "$C1" "$C2" "$C3"; do
	for s in "" new fixed not_built; do
		want=$(kw_count "$c" $s)
		got=$(jq ".[$i].${s:-warnings}" "$tmp/bd")
		[ "$want" = "$got" ]
		ok $? "burn-down ${s:-warnings} at commit $i = kwarn warnings ($got = $want)"
	done
	i=$((i + 1))
done
t "warnings fall 6 -> 6 -> 2 with 1 new at c2, 3 fixed, 1 not built at c3" \
	jqe '[.[].warnings] == [6, 6, 2] and .[1].new == 1 and .[2].fixed == 3
		and .[2].not_built == 1' "$tmp/bd"
# an independent oracle: the same counts read from gcc's own lines in the
# fixture's logs by tests/lib/log-oracle.py, none of kwarn's code
oracle=$(python3 tests/lib/log-oracle.py "$tmp/c1.log:$tmp/c1.map" \
	"$tmp/c2.log:$tmp/c2.map" "$tmp/c3.log:$tmp/c3.map")
got=$(jq -c '[.[] | {warnings, new, fixed, not_built}]' "$tmp/bd")
[ -n "$oracle" ] && [ "$got" = "$oracle" ]
ok $? "burn-down = the counts read from gcc's logs without kwarn ($oracle)"
# and each warning's state at each commit, read the same way
python3 tests/lib/log-oracle.py --states "$tmp/c1.log:$tmp/c1.map" \
	"$tmp/c2.log:$tmp/c2.map" "$tmp/c3.log:$tmp/c3.map" >"$tmp/states.oracle"
i=0
for c in "$C1" "$C2" "$C3"; do
	for s in new present fixed not_built; do
		"$KWARN" warnings --db "$DB" --commit "$c" --state "$s" \
			--format json | jq -r --arg i "$i" '.[] |
			"\($i) \(.state) \(.file):\(.line):\(.column) \(.message) [\(.option)]"'
	done
	i=$((i + 1))
done | sort >"$tmp/states.kwarn"
[ -s "$tmp/states.oracle" ] && cmp -s "$tmp/states.oracle" "$tmp/states.kwarn"
ok $? "each warning's state at each commit is what gcc's logs say ($(wc -l <"$tmp/states.oracle") lines)"
diff "$tmp/states.oracle" "$tmp/states.kwarn" | sed 's/^/# /'
t "counts by option add up to the total" \
	jqe 'all(.[]; ([.by_option[]] | add // 0) == .warnings) and
		.[0].by_option["-Wimplicit-fallthrough="] == 6' "$tmp/bd"
t "boot verdict from the boots table, null where none" \
	jqe '[.[].boot] == [null, "pass", null]' "$tmp/bd"
get /api/runs/$RUN/burndown >"$tmp/bd2"
t "second burn-down (cached) is identical" cmp -s "$tmp/bd" "$tmp/bd2"
curl -s -D "$tmp/gzh" -H 'Accept-Encoding: gzip' "$BASE/api/runs/$RUN/burndown" |
	gzip -dc >"$tmp/bd3" && grep -qi '^content-encoding: gzip' "$tmp/gzh"
t "burn-down with Accept-Encoding: gzip is the same, compressed" \
	cmp -s "$tmp/bd" "$tmp/bd3"

# commits/{id}/warnings
for c in "$C1" "$C2" "$C3"; do
	want=$(kw_count "$c")
	got=$(get "/api/commits/$c/warnings" | jq .total)
	[ "$want" = "$got" ]
	ok $? "commit ${c:0:7}: total $got = kwarn warnings $want"
done
t "state=new at c2 is afs_c, introduced there, not fixed" \
	jqe --arg b "$C2" '.total == 1 and .warnings[0].function == "afs_c" and
		.warnings[0].introduced == $b and .warnings[0].fixed == null' \
	<(get "/api/commits/$C2/warnings?state=new")
t "state=fixed at c3: the 3 fixed, fixed there" \
	jqe --arg c "$C3" '.total == 3 and all(.warnings[]; .fixed == $c)' \
	<(get "/api/commits/$C3/warnings?state=fixed")
t "state=not_built at c3: dev_x, not called fixed" \
	jqe '.total == 1 and .warnings[0].function == "dev_x" and
		.warnings[0].fixed == null' \
	<(get "/api/commits/$C3/warnings?state=not_built")
t "state=present at c2 excludes the new one" \
	jqe '.total == 5 and all(.warnings[]; .state == "present")' \
	<(get "/api/commits/$C2/warnings?state=present")
cid=$(jq '.[1].id' "$tmp/bd")
t "commit by numeric id" jqe --arg b "$C2" '.commit.sha == $b and .total == 6' \
	<(get "/api/commits/$cid/warnings")
t "commit by a 7-character sha prefix" jqe --arg b "$C2" '.commit.sha == $b' \
	<(get "/api/commits/${C2:0:7}/warnings")

# /api/warnings: fields, introduced/fixed, filters, paging
get "/api/warnings?run=$RUN&commit=$C1" >"$tmp/w1"
t "warnings at c1: 6 identities, each with every field" \
	jqe '.total == 6 and (.warnings | length) == 6 and all(.warnings[];
		has("file") and has("line") and has("column") and
		has("function") and has("option") and has("message") and
		has("introduced") and has("fixed") and
		(.notes | length) >= 1 and all(.notes[]; has("file") and
		has("line") and has("column") and has("message")))' "$tmp/w1"
t "a header warning printed by 2 objects is one warning, seen 2" \
	jqe '[.warnings[] | select(.file == "include/linux/kwhdr.h")] |
		length == 1 and .[0].seen == 2' "$tmp/w1"
t "present from the start: introduced is the run's base" \
	jqe --arg a "$C1" 'all(.warnings[]; .introduced == $a)' "$tmp/w1"
t "fw_a's first fall-through is fixed by c2, the others by c3" \
	jqe --arg b "$C2" --arg c "$C3" '[.warnings[] |
		select(.function == "fw_a") | .fixed] == [$b, $c, $c]' "$tmp/w1"
t "the reproducer names the object" \
	jqe '.warnings[0].reproducer | test("(^|\n)make drivers/firewire/core-device.o\n$")' \
	"$tmp/w1"
t "an ingested log's reproducer says what kwarn does not know" \
	jqe '.warnings[0].reproducer | startswith("# from an ingested log")' \
	"$tmp/w1"
t "default point is the run's last commit" \
	jqe --arg c "$C3" '.commit.sha == $c and .total == 2' \
	<(get "/api/warnings?run=$RUN")
t "filter file=" jqe '.total == 3' \
	<(get "/api/warnings?commit=$C1&file=drivers/firewire/core-device.c")
t "filter function=" jqe '.total == 1 and .warnings[0].function == "afs_b"' \
	<(get "/api/warnings?commit=$C1&function=afs_b")
t "filter option= with or without -W" \
	jqe -s '.[0].total == 6 and .[1].total == 6' \
	<(get "/api/warnings?commit=$C1&option=implicit-fallthrough=";
	  get "/api/warnings?commit=$C1&option=-Wimplicit-fallthrough%3D")
t "filter option= as typed: -Wimplicit-fallthrough, =3, bare: all 6" \
	jqe -s 'map(.total) == [6, 6, 6]' \
	<(get "/api/warnings?commit=$C1&option=-Wimplicit-fallthrough"
	  get "/api/warnings?commit=$C1&option=-Wimplicit-fallthrough%3D3"
	  get "/api/warnings?commit=$C1&option=implicit-fallthrough")
for o in -Wimplicit-fallthrough implicit-fallthrough=3 -Wimplicit-fallthrough=; do
	cnt=$("$KWARN" warnings --db "$DB" --commit "$C1" --option "$o" \
		--format json | jq length)
	ok $([ "$cnt" = 6 ] && echo 0 || echo 1) "kwarn warnings --option $o: the 6 fall-throughs ($cnt)"
done
"$KWARN" warnings --db "$DB" --commit "$C3" --function no_such >"$tmp/o" 2>"$tmp/e"
rc=$?
ok $([ $rc = 0 ] && [ ! -s "$tmp/o" ] &&
	grep -q "^kwarn: no live warning in function no_such at commit ${C3:0:12}" "$tmp/e" &&
	echo 0 || echo 1) "kwarn warnings with none to print says what was asked ($(cat "$tmp/e"))"
"$KWARN" sites --db "$DB" --run "$RUN" --position 99 >"$tmp/o" 2>"$tmp/e"
rc=$?
ok $([ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] &&
	grep -q "no position 99 in run $RUN: its points are 0 to 2" "$tmp/e" &&
	echo 0 || echo 1) "kwarn sites --position 99 of a 3-point run: exit 2, one line ($rc: $(cat "$tmp/e"))"
t "filter option= that matches nothing" jqe '.total == 0' \
	<(get "/api/warnings?commit=$C1&option=-Wunused")
t "filter subsystem=" \
	jqe '.total == 3 and all(.warnings[]; .file | startswith("drivers/firewire/"))' \
	<(get "/api/warnings?commit=$C1&subsystem=FIREWIRE%20SUBSYSTEM")
get "/api/warnings?commit=$C1&limit=4&offset=0" >"$tmp/p1"
get "/api/warnings?commit=$C1&limit=4&offset=4" >"$tmp/p2"
t "paging: 4 + 2, total 6 on both pages" \
	jqe -s '(.[0].warnings | length) == 4 and (.[1].warnings | length) == 2
		and .[0].total == 6 and .[1].total == 6' "$tmp/p1" "$tmp/p2"
t "paging: the pages together are the whole list, no repeats" \
	jqe -s '([.[0].warnings[], .[1].warnings[]] | map(.identity)) ==
		(.[2].warnings | map(.identity))' "$tmp/p1" "$tmp/p2" "$tmp/w1"
t "paging past the end is empty" jqe '.warnings == [] and .total == 6' \
	<(get "/api/warnings?commit=$C1&offset=100")

# subsystems
get "/api/subsystems?run=$RUN&commit=$C1" >"$tmp/s1"
t "subsystems at c1: counts per MAINTAINERS entry" \
	jqe 'def c(n): (.subsystems[] | select(.name == n) | .warnings);
		c("FIREWIRE SUBSYSTEM") == 3 and c("AFS FILESYSTEM") == 1 and
		c("KWARN HEADERS") == 1 and c("NETWORKING [GENERAL]") == 1 and
		c("THE REST") == 6' "$tmp/s1"
# each entry's M:, R: and L: as the tree's MAINTAINERS has them, and the
# catch-all (THE REST, every file) last and marked so (issue 33)
awk -v RS= -F '\n' 'NR > 1 { m = r = l = ""
	for (i = 2; i <= NF; i++) {
		v = substr($i, 4)
		if ($i ~ /^M:/) m = m (m == "" ? "" : "|") v
		if ($i ~ /^R:/) r = r (r == "" ? "" : "|") v
		if ($i ~ /^L:/) l = l (l == "" ? "" : "|") v
	}
	print $1 "\t" m "\t" r "\t" l }' "$tmp/MAINTAINERS" >"$tmp/owners"
bad=0 seen=0
while IFS=$'\t' read -r title m r l; do
	jqe --arg t "$title" '.subsystems[] | select(.name == $t)' "$tmp/s1" ||
		continue
	seen=$((seen + 1))
	jqe --arg t "$title" --arg m "$m" --arg r "$r" --arg l "$l" \
		'.subsystems[] | select(.name == $t) |
		(.maintainers | join("|")) == $m and (.reviewers | join("|")) == $r and
		(.lists | join("|")) == $l' "$tmp/s1" || bad=$((bad + 1))
done <"$tmp/owners"
ok $([ $bad = 0 ] && [ $seen = "$(jq '.subsystems | length' "$tmp/s1")" ]
	echo $?) "subsystems at c1: the M:, R: and L: of each of the $seen entries"
t "the fixture's AFS entry has a reviewer and a list to show" \
	jqe '.subsystems[] | select(.name == "AFS FILESYSTEM") |
		(.reviewers | length) == 1 and (.lists | length) == 1' "$tmp/s1"
t "THE REST last, the one catch_all, after every entry of its own" \
	jqe '(.subsystems | length) > 2 and .subsystems[-1].name == "THE REST" and
		.subsystems[-1].catch_all and
		([.subsystems[] | select(.catch_all)] | length) == 1' "$tmp/s1"
t "subsystems default to the run's last point" \
	jqe '([.subsystems[].name] | sort) == ["AFS FILESYSTEM", "THE REST"]' \
	<(get "/api/subsystems?run=$RUN")
t "subsystem warnings: AFS at the last point" \
	jqe '.total == 2 and all(.warnings[]; .file == "fs/afs/fsclient.c")' \
	<(get "/api/subsystems/AFS%20FILESYSTEM/warnings?run=$RUN")
t "subsystem warnings at a commit, matching the counts" \
	jqe '.total == 1' \
	<(get "/api/subsystems/NETWORKING%20%5BGENERAL%5D/warnings?commit=$C1")
t "unknown subsystem: 404" err_is 404 "/api/subsystems/NO%20SUCH/warnings" "NO SUCH"
t "subsystem in another case: that entry, named as MAINTAINERS spells it" \
	jqe '.total == 2 and .subsystem == "AFS FILESYSTEM"' \
	<(get "/api/subsystems/afs%20filesystem/warnings?run=$RUN")
t "a part of a title: 404 naming the titles that have it" \
	err_is 404 "/api/warnings?run=$RUN&subsystem=afs" "titles with it: 'AFS FILESYSTEM'"

# kind= (issue 30): the tool that printed a warning; the fixture's are
# all gcc's, so compiler keeps each list whole and another tool empties it
t "kind=compiler at c1: the 6 warnings, the kind named in the answer" \
	jqe -s '.[0].total == 6 and .[0].kind == "compiler" and
		.[1].kind == null and
		(.[0].warnings | map(.identity)) == (.[1].warnings | map(.identity))' \
	<(get "/api/warnings?commit=$C1&kind=compiler"
	  get "/api/warnings?commit=$C1")
t "kind=sparse, kernel-doc: nothing, on each warning list" \
	jqe -s 'length == 3 and all(.[]; .total == 0 and .warnings == [])' \
	<(get "/api/warnings?commit=$C1&kind=sparse"
	  get "/api/commits/$C1/warnings?kind=kernel-doc"
	  get "/api/subsystems/AFS%20FILESYSTEM/warnings?commit=$C1&kind=sparse")
t "kind= on the subsystems and maintainers: that tool's counts alone" \
	jqe -s '(.[0].subsystems | length) > 0 and .[0] == .[1] and
		.[2].subsystems == [] and .[2].maintainers == true and
		.[3] == .[4] and .[3] != .[5]' \
	<(get "/api/subsystems?commit=$C1&kind=compiler"
	  get "/api/subsystems?commit=$C1"
	  get "/api/subsystems?commit=$C1&kind=modpost"
	  get "/api/maintainers?commit=$C1&kind=compiler"
	  get "/api/maintainers?commit=$C1"
	  get "/api/maintainers?commit=$C1&kind=sparse")
t "kind=bogus: 400 naming the tools" err_is 400 \
	"/api/warnings?commit=$C1&kind=bogus" "want compiler, kernel-doc, sparse,"
t "kind=warning (a stored kind, not a tool): 400" err_is 400 \
	"/api/subsystems?kind=warning" "want compiler,"
t "the diff's kind= is still a kind of change" \
	test "$(code "/api/diff?run=$RUN&from=$C1&to=$C3&kind=fixed")" = 200
t "kind=compiler on the diff: 400 naming its kinds" err_is 400 \
	"/api/diff?run=$RUN&from=$C1&to=$C3&kind=compiler" \
	"want new, fixed, remaining or not_built"

# triage: c2's new warning (afs_c) triaged intended while the server runs
"$KWARN" triage --db "$DB" fs/afs/fsclient.c:17 --as intended --who alice \
	--reason 'doubling first is the point' >/dev/null
ok $? "kwarn triage: afs_c intended, the server running"
tri=$(get "/api/commits/$C2/warnings?state=new" | jq -r '.warnings[0].identity')
for u in "/api/warnings?commit=$C2" "/api/commits/$C2/warnings?state=new" \
	"/api/subsystems/AFS%20FILESYSTEM/warnings?commit=$C2" \
	"/api/diff?run=$RUN&from=$C1&to=$C3"; do
	t "${u%%\?*}: each warning's triage, the decision on afs_c alone" \
		jqe --arg t "$tri" '[.warnings // (.new + .fixed + .remaining +
			.not_built) | .[] | .triage] as $all |
		([$all[] | select(.state != "open")] | length) == 1 and
		all(.warnings // (.new + .fixed + .remaining + .not_built) | .[];
			if .identity == $t then .triage.state == "intended" and
				.triage.who == "alice" and .triage.origin == "cli" and
				.triage.reason == "doubling first is the point" and
				.triage.link == null and (.triage.at | type) == "number"
			else .triage == {state: "open"} end)' <(get "$u")
done
t "the warning's source has its triage" \
	jqe '.triage.state == "intended"' <(get "/api/warnings/$tri/source")
t "triage=intended at c2: afs_c alone" \
	jqe --arg t "$tri" '.total == 1 and .triage == "intended" and
		[.warnings[].identity] == [$t]' \
	<(get "/api/warnings?commit=$C2&triage=intended")
t "triage=open at c2: the 5 others, total before the page is cut" \
	jqe --arg t "$tri" '.total == 5 and (.warnings | length) == 2 and
		all(.warnings[]; .identity != $t)' \
	<(get "/api/warnings?commit=$C2&triage=open&limit=2&offset=3")
t "triage= with state= and on a commit's and a subsystem's list" \
	jqe -s '.[0].total == 1 and .[1].total == 0 and .[2].total == 1 and
		.[3].total == 1' \
	<(get "/api/commits/$C2/warnings?state=new&triage=intended"
	  get "/api/commits/$C2/warnings?state=new&triage=open"
	  get "/api/subsystems/AFS%20FILESYSTEM/warnings?commit=$C2&triage=intended"
	  get "/api/subsystems/AFS%20FILESYSTEM/warnings?commit=$C2&triage=open")
t "triage=bogus: 400 naming the states" err_is 400 \
	"/api/warnings?triage=bogus" "want open, confirmed, intended, false-positive"
t "triage= on the diff: 400, not a parameter of it" err_is 400 \
	"/api/diff?run=$RUN&from=$C1&to=$C3&triage=open" "unknown parameter"
# kwarn classify's verdicts from the tree (c3's sources), then verdict=
# keeps the warnings the collector's own list gives that verdict (issue 33)
"$KWARN" classify --db "$DB" --commit "$C3" --tree "$tmp/src" >"$tmp/cls"
ok $? "kwarn classify of c3's warnings, the server running"
for v in missing-break:"likely missing break" intended:"likely intended" \
	"likely intended:likely intended" UNSURE:unsure none:none; do
	for c in "$C1" "$C3"; do
		want=$("$KWARN" warnings --db "$DB" --commit "$c" --format json |
			jq --arg v "${v#*:}" '[.[] | select((.verdict // "none") == $v)] |
			length')
		t "verdict=${v%%:*} at ${c:0:7}: the $want of kwarn warnings" \
			jqe --argjson w "$want" --arg v "${v#*:}" \
			'.total == $w and .verdict == $v and
			all(.warnings[]; (.verdict // "none") == $v)' \
			<(get "/api/warnings?commit=$c&verdict=${v%%:*}")
	done
done
t "the classifier found intended fall-throughs to filter on" \
	jqe '.total > 0' <(get "/api/warnings?commit=$C3&verdict=intended")
t "verdict= on a commit's and a subsystem's list" \
	jqe -s '.[0].total == .[1].total and .[0].total > 0' \
	<(get "/api/commits/$C3/warnings?verdict=intended"
	  get "/api/subsystems/AFS%20FILESYSTEM/warnings?commit=$C3&verdict=intended")
t "verdict=bogus: 400 naming the verdicts" err_is 400 \
	"/api/warnings?verdict=bogus" "want missing-break, intended, unsure or none"
get /api/runs/$RUN/burndown >"$tmp/bdt"
t "burn-down (cached before the triage): by_triage counts it now" \
	jqe '[.[].by_triage | [.open, .intended]] == [[6, 0], [5, 1], [1, 1]]
		and all(.[]; ([.by_triage[]] | add) == .warnings)' "$tmp/bdt"
t "by_triage has every state, open first" \
	jqe 'all(.[]; (.by_triage | keys_unsorted) == ["open", "confirmed",
		"intended", "false-positive", "compiler-bug", "wontfix"])' "$tmp/bdt"

# owners: the M: people of MAINTAINERS, and who brought a warning
sqlite3 "$DB" "UPDATE commits SET author = 'Ann Author <ann@example.org>'
	WHERE sha = '$C2'"
t "introduced_author: c2's author on afs_c, null on what predates the run" \
	jqe '[.warnings[] | [.function, .introduced_author]] ==
		[["fw_a", null], ["fw_a", null], ["afs_b", null],
		 ["afs_c", "Ann Author <ann@example.org>"], ["kw_inline", null],
		 ["dev_x", null]]' <(get "/api/warnings?commit=$C2")
get "/api/maintainers?commit=$C2" >"$tmp/own"
t "maintainers at c2: each M: with the warnings of their files, most open first" \
	jqe '.maintainers and .owners == [
		{name: "Stefan Richter <stefanr@example.org>", open: 2,
		 warnings: 2, new: 0, files: 1, entries: ["FIREWIRE SUBSYSTEM"]},
		{name: "David Howells <dhowells@example.org>", open: 1,
		 warnings: 2, new: 1, files: 1, entries: ["AFS FILESYSTEM"]}]' \
	"$tmp/own"
t "subsystems count open apart: AFS has 2 warnings, 1 open" \
	jqe '.subsystems[] | select(.name == "AFS FILESYSTEM") |
		.warnings == 2 and .open == 1' <(get "/api/subsystems?commit=$C2")
bad=0
while read -r name open all; do
	o=$(printf %s "$name" | jq -sRr @uri)
	a=$(get "/api/warnings?commit=$C2&owner=$o" | jq .total)
	b=$(get "/api/warnings?commit=$C2&owner=$o&triage=open" | jq .total)
	[ "$a" = "$all" ] && [ "$b" = "$open" ] || { bad=1; echo "# $name: $a/$b, want $all/$open"; }
done < <(jq -r '.owners[] | "\(.name | split(" <")[1] | rtrimstr(">")) \(.open) \(.warnings)"' "$tmp/own")
ok $bad "owner=ADDRESS lists each maintainer's warnings, and with triage=open their open count"
t "owner= a part of a name, any case: stefan's 2" \
	jqe '.total == 2 and .owner == "RICHTER" and all(.warnings[];
		.file | startswith("drivers/firewire/"))' \
	<(get "/api/warnings?commit=$C2&owner=RICHTER")
t "owner= nobody: no warnings" jqe '.total == 0' \
	<(get "/api/warnings?commit=$C2&owner=nobody@example.org")
t "owner= with subsystem=: both hold" jqe -s '.[0].total == 0 and .[1].total == 2' \
	<(get "/api/warnings?commit=$C2&owner=howells&subsystem=FIREWIRE%20SUBSYSTEM"
	  get "/api/warnings?commit=$C2&owner=howells&subsystem=AFS%20FILESYSTEM")
t "owner= empty: 400" err_is 400 "/api/warnings?owner=" "'owner': empty"
# format=csv: the JSON's rows in its order, a header row, RFC 4180, each
# column the row's member (null empty, triage its state, notes joined);
# through the answer cache and its gzip form (issue 33)
csv_is_json() { # JSON CSV: 0 if CSV's rows are JSON's warnings, one for one
	python3 - "$1" "$2" <<'EOF'
import csv, json, sys
page = json.load(open(sys.argv[1]))
with open(sys.argv[2], newline="") as f:
    raw = f.read()
rows = list(csv.reader(raw.splitlines(keepends=True), strict=True))
def cell(w, k):
    v = w.get(k)
    if k == "triage":
        v = v["state"]
    if k == "notes":
        return "; ".join("%s:%d:%d: %s" % (x["file"], x["line"],
                         x["column"], x["message"]) for x in v)
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
head = rows[0]
want = [[cell(w, k) for k in head] for w in page["warnings"]]
ok = (head[:8] == ["identity", "state", "file", "line", "column",
                   "function", "option", "message"] and
      "verdict" in head and "triage" in head and rows[1:] == want and
      raw.count("\r\n") == len(rows) and raw.endswith("\r\n"))
if not ok:
    print("# csv %r\n# want %r" % (rows, want))
sys.exit(0 if ok else 1)
EOF
}
bad=0 seen=0
for u in "/api/warnings?commit=$C1" "/api/warnings?commit=$C2&limit=2&offset=3" \
	"/api/warnings?commit=$C3&state=fixed" "/api/warnings?commit=$C2&verdict=intended" \
	"/api/commits/$C2/warnings?triage=intended" \
	"/api/subsystems/AFS%20FILESYSTEM/warnings?commit=$C2" \
	"/api/warnings?commit=$C2&offset=100"; do
	get "$u" >"$tmp/cj"
	code "$u&format=csv" -D "$tmp/ch" >/dev/null
	seen=$((seen + $(jq '.warnings | length' "$tmp/cj")))
	grep -qi '^content-type: text/csv; charset=utf-8' "$tmp/ch" &&
		csv_is_json "$tmp/cj" "$tmp/body" || { bad=1; echo "# $u"; }
done
ok $([ $bad = 0 ] && [ $seen -gt 8 ]; echo $?) \
	"format=csv: text/csv, the JSON's $seen rows in its order, on the three lists"
# (a page read from the database: a kept result's page is neither kept nor
# compressed, in JSON as in CSV)
u="/api/warnings?commit=$C2&file=drivers/firewire/core-device.c"
for i in 1 2; do
	curl -s -D "$tmp/gzh$i" -H 'Accept-Encoding: gzip' \
		"$BASE$u&format=csv" | gzip -dc >"$tmp/gz$i.csv"
done
code "$u&format=csv" >/dev/null
get "$u" >"$tmp/cj"
t "format=csv through the answer cache and gzip: the same CSV, compressed" \
	eval 'cmp -s "$tmp/gz1.csv" "$tmp/body" && cmp -s "$tmp/gz2.csv" "$tmp/body" &&
	grep -qi "^content-encoding: gzip" "$tmp/gzh1" &&
	grep -qi "^content-encoding: gzip" "$tmp/gzh2" &&
	grep -qi "^content-type: text/csv" "$tmp/gzh2" &&
	csv_is_json "$tmp/cj" "$tmp/body" && [ "$(jq .total "$tmp/cj")" = 2 ]'
t "format=json and no format: the JSON, not the kept CSV" \
	jqe -s '.[0] == .[1] and .[0].total == 6' \
	<(get "/api/warnings?commit=$C2&format=json"; get "/api/warnings?commit=$C2")
get "/api/warnings?commit=$C1&limit=2&offset=2" >"$tmp/cj"
for i in 1 2 3; do
	code "/api/warnings?commit=$C1&limit=2&offset=2&format=csv" -D "$tmp/ch" >/dev/null
done
t "format=csv of a kept result's page: the JSON's rows" \
	eval 'grep -qi "^x-kwarn-result: kept" "$tmp/ch" &&
	csv_is_json "$tmp/cj" "$tmp/body"'
t "format=xml: 400 naming json and csv" err_is 400 \
	"/api/warnings?format=xml" "want json or csv"
t "format=csv with an error: the error in JSON" \
	err_is 404 "/api/warnings?commit=nosuchcommit&format=csv" "nosuchcommit"
# one validator, the parameter table: the same limit on every route
long_cc=$(printf 'c%.0s' $(seq 33))
t "compiler= of 33 bytes: 400 on /api/warnings" \
	err_is 400 "/api/warnings?compiler=$long_cc" "'compiler'"
t "compiler= of 33 bytes: 400 on the burn-down, the same rule" \
	err_is 400 "/api/runs/$RUN/burndown?compiler=$long_cc" "'compiler'"
t "compiler= of 32 bytes: past the table, an unknown compiler (404)" \
	err_is 404 "/api/warnings?compiler=${long_cc%c}" "build of this point"
t "state=bogus: 400 from the table, naming the states" \
	err_is 400 "/api/warnings?state=bogus" "new, present, fixed or not_built"
t "maintainers with a parameter it does not take: 400" \
	err_is 400 "/api/maintainers?owner=x" "unknown parameter 'owner'"

# boots
b2=$(jq '.[1].build' "$tmp/bd")
b1=$(jq '.[0].build' "$tmp/bd")
t "boot of c2's build: verdict, duration, uncompressed log, the commit" \
	jqe --arg c "$C2" --argjson r "$RUN" '.verdict == "pass" and .duration_ms == 1500 and
		(.log | test("KWARN-INIT-OK")) and (.log | length) > 500 and
		.commit.sha == $c and .commit.position == 1 and .commit.run == $r' \
	<(get /api/builds/$b2/boot)
t "build without a boot: 404" err_is 404 /api/builds/$b1/boot "not booted"
t "no such build: 404" err_is 404 /api/builds/987654/boot "987654"

# source around a warning
ident=$(jq -r '.warnings[] | select(.function == "afs_b") | .identity' "$tmp/w1")
t "source from the database when the tree is not on disk" \
	jqe '.from == "db" and .function == "afs_b" and (.lines | length) == 1 and
		(.lines[0].text | test("kw_inline")) and (.notes | length) == 1' \
	<(get "/api/warnings/$ident/source")
# a warning asked for without a commit is shown where it was live last,
# not at the commit that fixed it; an error names the commit (issue 33)
fx=$(get "/api/commits/$C2/warnings?state=fixed" | jq -r '.warnings[0].identity')
last=$(get "/api/warnings/$fx/states?run=$RUN" |
	jq -c '[.states[] | select(.state == "new" or .state == "present")] |
	last | {id, sha, position}')
t "a fixed warning without a commit: at its last live commit $last" \
	jqe --argjson l "$last" '.commit.id == $l.id and .commit.sha == $l.sha' \
	<(get "/api/warnings/$fx/source")
t "the same with ?run= alone" \
	jqe --argjson l "$last" '.commit.id == $l.id and .commit.run == '"$RUN" \
	<(get "/api/warnings/$fx/source?run=$RUN")
t "at a commit without it: 404 naming the commit by position and sha" \
	err_is 404 "/api/warnings/$fx/source?commit=$C3" "at commit #2 ${C3:0:12} of run $RUN"
t "in a run that does not exist: 404 naming it" \
	err_is 404 "/api/warnings/$fx/source?run=999" "no run 999"
# The collector's cached repository of the tree, as kwarn run leaves it
# for each kind of tree: the source is the commit's, for a directory tree
# too, whatever the directory holds after the run.
csrc() { # KIND: where srctree.c looks for the tree's repository
	local hex
	hex=$(printf %s "$tmp/src" | sha256sum | cut -c1-12)
	case $1 in
	dir) echo "$KWARN_CACHE/trees/kwtree-$hex/git" ;;
	repo) echo "$KWARN_CACHE/trees/repo-kwtree-$hex/git" ;;
	tarball) echo "$KWARN_CACHE/trees/kwtree-${tarsum:0:12}/git" ;;
	esac
}
tarsum=$(printf kwtree | sha256sum | cut -c1-64)
mkdir -p "$(csrc dir)"
gd() { git --git-dir="$(csrc dir)" --work-tree="$tmp/src" -c user.name=t \
	-c user.email=t@t "$@"; }
# c3 on a parent holding c2's files: a patch to read (issue 33)
fixture_fw 1 >"$tmp/src/drivers/firewire/core-device.c"
fixture_hdr 0 >"$tmp/src/include/linux/kwhdr.h"
gd init -q && gd add -A && gd commit -q -m c2
fixture_fw 3 >"$tmp/src/drivers/firewire/core-device.c"
fixture_hdr 1 >"$tmp/src/include/linux/kwhdr.h"
gd add -A && gd commit -q -m 'firewire: mark the rest' -m 'The body.'
csha=$(gd rev-parse HEAD)
mkdir -p "$(dirname "$(csrc repo)")" "$(dirname "$(csrc tarball)")"
cp -r "$(csrc dir)" "$(csrc repo)" && cp -r "$(csrc dir)" "$(csrc tarball)"
want=$(grep -c '' "$tmp/src/fs/afs/fsclient.c")
# the work tree moves on after the run: other text at every line
sed -i 's/^/EDITED /' "$tmp/src/fs/afs/fsclient.c"
sqlite3 "$DB" "UPDATE commits SET sha = '$csha' WHERE sha = '$C3'"
for kind in dir tarball repo; do
	sqlite3 "$DB" "UPDATE trees SET kind = '$kind', source = '$tmp/src',
		sha256 = '$tarsum'"
	get "/api/warnings/$ident/source?commit=$csha&context=3" >"$tmp/src.json"
	t "$kind tree: the commit's lines, not the edited work tree" \
		jqe '.from == "commit" and (.lines | length) == 7 and
			any(.lines[]; .text | test("switch")) and
			all(.lines[]; .text | test("EDITED") | not) and
			([.lines[] | select(.mark)] | length) >= 1' "$tmp/src.json"
done
t "the marked lines are the warning's and its note's" \
	jqe --slurpfile w <(get "/api/warnings/$ident/source?commit=$csha") \
		'[.lines[] | select(.mark) | .line] | sort ==
		 ([$w[0].line] + [$w[0].notes[] | select(.file == $w[0].file) |
		  .line] | unique)' "$tmp/src.json"
t "context=0: one line" jqe '(.lines | length) == 1' \
	<(get "/api/warnings/$ident/source?commit=$csha&context=0")
# the server's lines are the committed file's, line for line
get "/api/warnings/$ident/source?commit=$csha&context=200" >"$tmp/whole.json"
t "the whole file from the commit: its $want lines, each as committed" \
	jqe --rawfile f <(gd show "$csha:fs/afs/fsclient.c") --argjson n "$want" \
	'($f | rtrimstr("\n") | split("\n")) as $l |
		(.lines | length) == $n and ([.lines[].line] == [range(1; $n + 1)]) and
		all(.lines[]; .text == $l[.line - 1])' "$tmp/whole.json"
# a commit's patch from the cached repository, as git itself shows it
get "/api/commits/$csha/patch" >"$tmp/patch.json"
t "patch: the files and their counts of git show --numstat" \
	test "$(jq -r '.files[] | "\(.additions)\t\(.deletions)\t\(.path)"' \
		"$tmp/patch.json")" = "$(gd show --numstat --format= "$csha")"
t "patch: the totals, the parent, the author and the message of the commit" \
	jqe --arg p "$(gd rev-parse "$csha^")" --arg m "$(gd log -1 --format=%B "$csha")" \
	'.additions == ([.files[].additions] | add) and .additions > 0 and
	 .deletions == ([.files[].deletions] | add) and .parent == $p and
	 .author == "t" and .email == "t@t" and (.message | rtrimstr("\n")) == $m and
	 .truncated == false and .commit.position == 2' "$tmp/patch.json"
t "patch: the lines added and removed are git's" \
	test "$(jq -r .diff "$tmp/patch.json" | grep '^[-+]')" = \
	"$(gd show --format= "$csha" | grep '^[-+]')"
# a commit by its position in the run, with its neighbours
get "/api/runs/$RUN/commits/2" >"$tmp/c2.json"
t "a commit by position: the database's row, its previous, no next" \
	jqe --arg s "$csha" --arg subj "$(sqlite3 "$DB" "SELECT subject FROM commits
		WHERE run_id = $RUN AND position = 2")" --arg p "$C2" \
	'.sha == $s and .position == 2 and .subject == $subj and
	 .previous.position == 1 and .previous.sha == $p and .next == null and
	 (.build | type) == "number"' "$tmp/c2.json"
t "by reference: the same commit" \
	jqe --slurpfile a "$tmp/c2.json" '. == $a[0]' <(get "/api/commits/$csha?run=$RUN")
t "the commit's patch comes with it, as GET .../patch gives it" \
	jqe --slurpfile p "$tmp/patch.json" '.change == ($p[0] | del(.commit)) and
		(.change.files | length) > 0 and has("change_error") == false' "$tmp/c2.json"
t "the base: no previous, the next is #1" \
	jqe '.previous == null and .next.position == 1 and .position == 0' \
	<(get "/api/runs/$RUN/commits/0")
t "c2's boot on its commit; no patch (its sha is no commit of the cache), and why" \
	jqe --arg w "no patch of commit #1 ${C2:0:12} (run $RUN)" '.boot == "pass" and
		.change == null and (.change_error | startswith($w))' <(get "/api/runs/$RUN/commits/1")
t "no commit at that position: 404 naming it" err_is 404 "/api/runs/$RUN/commits/9" "#9"
t "a position in no run: 404" err_is 404 "/api/runs/4242/commits/1" "no run 4242"
t "a position that is no number: 400" err_is 400 "/api/runs/$RUN/commits/x" "position"
sqlite3 "$DB" "UPDATE commits SET sha = '$C3' WHERE sha = '$csha';
	UPDATE trees SET kind = 'log', source = NULL, sha256 = NULL"
t "the patch of an ingested log's commit: 404 naming the commit" \
	err_is 404 "/api/commits/$C1/patch" "#0 ${C1:0:12}"

# bad input
t "unknown path: 404 JSON" err_is 404 /api/nope "no such endpoint"
t "unknown path below a route: 404 JSON" err_is 404 /api/runs/1/nope "no such"
t "limit=0: 400 naming limit" err_is 400 "/api/warnings?limit=0" limit
t "limit=abc: 400 naming limit" err_is 400 "/api/warnings?limit=abc" limit
t "limit too large: 400" err_is 400 "/api/warnings?limit=1000000" limit
t "offset=-1: 400 naming offset" err_is 400 "/api/warnings?offset=-1" offset
t "run=abc: 400 naming run" err_is 400 "/api/warnings?run=abc" run
t "run=0: 400 naming run" err_is 400 "/api/subsystems?run=0" run
t "run that does not exist: 404" err_is 404 "/api/warnings?run=4242" 4242
t "state=bogus: 400 naming state" err_is 400 \
	"/api/commits/$C1/warnings?state=bogus" state
t "unknown parameter: 400 naming it" err_is 400 "/api/runs?frob=1" frob
t "empty parameter name: 400" err_is 400 "/api/runs?=1" "parameter"
t "parameter name with a comma: 400" err_is 400 "/api/warnings?run%2Climit=1" "parameter"
t "run id out of range: 400" err_is 400 \
	/api/runs/99999999999999999999999/burndown "run id"
t "unknown commit: 404" err_is 404 /api/commits/deadbeefcafe/warnings deadbeefcafe
t "sql text in a parameter is only data" \
	jqe '.total == 0' \
	<(get "/api/warnings?commit=$C1&file=x%27%20OR%201=1%20--")
for m in POST PUT DELETE PATCH; do
	t "$m: 405" err_is 405 /api/health "not allowed" -X $m
done
h=$(curl -s -I -o "$tmp/head" -w '%{http_code}' "$BASE/api/health")
[ "$h" = 200 ] && grep -qi '^content-type: application/json' "$tmp/head"
ok $? "HEAD /api/health: 200"
t "dashboard at /" jqe -n --arg c "$(code /)" '$c == "200"'
for p in "/../etc/passwd" "/%2e%2e%2fetc%2fpasswd" "/%2e%2e/%2e%2e/etc/passwd" \
	"//etc/passwd" "/index.html%00.js" "/..%2f..%2fetc%2fpasswd" \
	"/%2E%2E/server.h" "/./index.html" "/app.js/..%5c..%5cetc"; do
	c=$(code "$p")
	{ [ "$c" = 400 ] || [ "$c" = 404 ]; } && ! grep -q "root:" "$tmp/body"
	ok $? "static $p stays in the web folder ($c)"
done
c=$(code "/etc-link/passwd")
[ "$c" = 404 ] && ! grep -q "root:" "$tmp/body"
ok $? "a symlink out of the web folder is not followed ($c)"
long=$(head -c 3000 /dev/zero | tr '\0' a)
t "URL over the limit: 414" err_is 414 "/api/$long" "too long"
t "query string over the limit: 414" err_is 414 "/api/runs?x=$long" "too long"
t "NUL in a query value: 400" err_is 400 "/api/warnings?file=a%00b" "query"
t "bad percent escape: 400" err_is 400 "/api/runs/%zz" "bad path"

# error messages stay valid UTF-8: an echoed value never loses them
for u in "/api/commits/%ff/warnings 404" "/api/warnings/%ff/source 404" \
	"/api/warnings?commit=%ff 404" "/api/commits/%C0%80/warnings 404" \
	"/api/warnings?commit=%ED%A0%80 404" "/api/warnings?x%ff=1 400" \
	$'/api/commits/\xff\xfe/warnings 404'; do
	c=$(code "${u% *}")
	[ "$c" = "${u##* }" ] && jq -e --argjson s "$c" \
		'(.error | type == "string" and length > 0) and .status == $s' \
		"$tmp/body" >/dev/null
	ok $? "error for ${u% *} keeps its message ($c: $(cat "$tmp/body"))"
done

# one decoding rule for path and query, one rule per kind of value
for q in "limit=%201" "limit=+1" "limit=01" "limit=1%20" "limit=-1" \
	"offset=00" "run=+1" "run=1&run=1"; do
	t "/api/warnings?$q: 400" err_is 400 "/api/warnings?$q" "parameter"
done
for p in file function option commit subsystem state limit run; do
	t "$p= (empty): 400 naming it" err_is 400 "/api/warnings?$p=" "'$p'"
done
t "bad escape in a value: 400 (file=%zz)" err_is 400 "/api/warnings?file=%zz" query
t "bad escape in a value: 400 (commit=%zz)" err_is 400 "/api/warnings?commit=%zz" query
t "bad escape in a key: 400" err_is 400 "/api/warnings?li%mit=1" query
t "a '+' in a value is a space" jqe '.subsystem == "FIREWIRE SUBSYSTEM"' \
	<(get "/api/warnings?commit=$C1&subsystem=FIREWIRE+SUBSYSTEM")
t "run id in the path: one rule (01 is 400)" err_is 400 /api/runs/01 "run id"

# what libmicrohttpd used to answer in HTML of its own, and smuggling
raw() { # REQUEST (printf format) into $tmp/raw, until the server closes
	(
		trap '' PIPE # it may answer and close before all is sent
		exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
		printf "$1" >&3 2>/dev/null
		timeout 15 cat <&3 >"$tmp/raw"
	)
}
raw_is() { # STATUS: one status line, STATUS, a JSON error body
	[ "$(grep -c '^HTTP/1' "$tmp/raw")" = 1 ] &&
		head -n1 "$tmp/raw" | grep -q "^HTTP/1.1 $1 " &&
		grep -qi '^content-type: application/json' "$tmp/raw" &&
		sed '1,/^\r$/d' "$tmp/raw" | jq -e --argjson s "$1" \
			'.status == $s and (.error | length > 0)' >/dev/null
}
hdrs=$(for i in $(seq 1000); do printf 'X-H%d: v\\r\\n' $i; done)
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\n$hdrs\r\n"
t "1,000 headers: one 431 in JSON" raw_is 431
big=$(head -c 100000 /dev/zero | tr '\0' a)
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: $big\r\n\r\n"
t "100 KB of headers: one 431 in JSON" raw_is 431
long20=$(head -c 20000 /dev/zero | tr '\0' a)
raw "GET /api/$long20 HTTP/1.1\r\nHost: localhost\r\n\r\n"
t "a 20 KB target: one 414 in JSON" raw_is 414
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/runs HTTP/1.1\r\nHost: localhost\r\n\r\n"
t "Content-Length with Transfer-Encoding: one 400 in JSON, not two answers" \
	raw_is 400
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\n\r\nabcd"
t "a GET with a body: one 400 in JSON" raw_is 400
for r in "400 GET /api/health\r\n\r\n" "400 GET  HTTP/1.1\r\nHost: localhost\r\n\r\n" \
	"505 GET /api/health HTTP/2.0\r\nHost: localhost\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nNoColon\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999999999999999999\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\n X-Folded: v\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nX-No-Host: 1\r\n\r\n"; do
	raw "${r#* }"
	t "$(printf '%s' "${r#* }" | head -c 60 | tr '\r\n' '  '): one ${r%% *} in JSON" \
		raw_is "${r%% *}"
done
big=$(head -c 300000 /dev/zero | tr '\0' a)
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: $big\r\n\r\n"
t "300 KB of headers: one 431 in JSON" raw_is 431
start=$(date +%s)
raw "GET /api/health HTTP/1.1\r\nHost: local"
t "a request head that never ends: one 408 in JSON after $(($(date +%s) - start)) s" \
	raw_is 408
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/runs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
[ "$(grep -ao 'HTTP/1.1 200 OK' "$tmp/raw" | wc -l)" = 2 ]
ok $? "two pipelined requests: two answers"

# the same bad heads as the second request of a kept-alive connection:
# the same JSON error, after the first answer
raw2() { # FIRST SECOND (printf formats), SECOND sent once FIRST is answered
	(
		trap '' PIPE
		exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
		printf "$1" >&3 2>/dev/null
		# the whole first answer: its head, then Content-Length bytes
		local line len=0 body
		export LC_ALL=C
		while IFS= read -r -t 15 line <&3; do
			line=${line%$'\r'}
			[ -z "$line" ] && break
			case ${line,,} in
			content-length:*) len=${line#*:} len=${len// /} ;;
			esac
		done
		[ "$len" -gt 0 ] && read -r -N "$len" -t 15 body <&3
		printf "$2" >&3 2>/dev/null
		timeout 15 cat <&3 >"$tmp/raw"
	)
}
raw2_is() { # STATUS: the first answered 200, then one STATUS in JSON
	grep -ao 'HTTP/1\.1 [0-9][0-9][0-9] ' "$tmp/raw" >"$tmp/lines"
	# the first answer was read by raw2: only what came after is here
	sed -n '/HTTP\/1\.1 [0-9]/,$p' "$tmp/raw" >"$tmp/second"
	[ "$(xargs <"$tmp/lines")" = "HTTP/1.1 $1" ] &&
		! grep -qai '<html' "$tmp/raw" &&
		grep -qai '^content-type: application/json' "$tmp/second" &&
		tail -n 1 "$tmp/second" | jq -e --argjson s "$1" \
			'.status == $s and (.error | length > 0)' >/dev/null
}
first="GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n"
for r in "400 GET /api/health\r\n\r\n" "400 GET  HTTP/1.1\r\nHost: localhost\r\n\r\n" \
	"505 GET /api/health HTTP/2.0\r\nHost: localhost\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nNoColon\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\n X-Folded: v\r\n\r\n" \
	"431 GET /api/health HTTP/1.1\r\nHost: localhost\r\n$hdrs\r\n"; do
	raw2 "$first" "${r#* }"
	t "kept alive, then $(printf '%s' "${r#* }" | head -c 50 | tr '\r\n' '  '): one ${r%% *} in JSON" \
		raw2_is "${r%% *}"
done
raw2 "$first" "GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/runs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
[ "$(grep -ao 'HTTP/1.1 200 OK' "$tmp/raw" | wc -l)" = 2 ]
ok $? "kept alive: a good second and third request are answered (1 + 2)"

# the same bad heads pipelined behind two good ones, in one write: two
# answers 200, then one JSON error, and never libmicrohttpd's HTML
pipe_is() { # STATUS: 200, 200, then STATUS in JSON, all in $tmp/raw
	grep -ao 'HTTP/1\.1 [0-9][0-9][0-9] ' "$tmp/raw" >"$tmp/lines"
	sed -n '/HTTP\/1\.1 '"$1"' /,$p' "$tmp/raw" >"$tmp/last"
	[ "$(xargs <"$tmp/lines")" = "HTTP/1.1 200 HTTP/1.1 200 HTTP/1.1 $1" ] &&
		! grep -qai '<html' "$tmp/raw" &&
		grep -qai '^content-type: application/json' "$tmp/last" &&
		tail -n 1 "$tmp/last" | jq -e --argjson s "$1" \
			'.status == $s and (.error | length > 0)' >/dev/null
}
raw1() { # REQUEST (printf format) in one write(), as raw
	printf "$1" >"$tmp/req"
	(
		trap '' PIPE
		exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
		cat "$tmp/req" >&3 2>/dev/null
		timeout 15 cat <&3 >"$tmp/raw"
	)
}
two="GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/runs HTTP/1.1\r\nHost: localhost\r\n\r\n"
for r in "400 GET /api/health\r\n\r\n" "400 GET  HTTP/1.1\r\nHost: localhost\r\n\r\n" \
	"505 GET /x HTTP/2.0\r\nHost: localhost\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nNoColon\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n" \
	"400 GET /api/health HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"; do
	raw1 "$two${r#* }"
	t "pipelined after two good, $(printf '%s' "${r#* }" | head -c 50 | tr '\r\n' '  '): 200 200 ${r%% *} in JSON" \
		pipe_is "${r%% *}"
	# and after a first request answered on a kept-alive connection
	raw2 "$first" "$two${r#* }"
	grep -ao 'HTTP/1\.1 [0-9][0-9][0-9] ' "$tmp/raw" >"$tmp/lines"
	t "kept alive, then two good and $(printf '%s' "${r#* }" | head -c 30 | tr '\r\n' '  '): 200 200 ${r%% *}" \
		jqe -Rn --arg s "${r%% *}" \
		'[inputs] == ["HTTP/1.1 200 ", "HTTP/1.1 200 ", "HTTP/1.1 \($s) "]' "$tmp/lines"
done
# a good head and the start of a bad one, its end 0.3 s later: the gate
# waits for all of it (handed over early, MHD read the rest unchecked and
# answered it with its HTML)
split() { # FIRST REST (printf formats), FIRST in one write(), REST 0.3 s after
	printf "$1" >"$tmp/req"
	(
		trap '' PIPE
		exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
		cat "$tmp/req" >&3 2>/dev/null
		sleep 0.3
		printf "$2" >&3 2>/dev/null
		timeout 15 cat <&3 >"$tmp/raw"
	)
}
split_is() { # STATUS: 200, then STATUS in JSON, no HTML
	grep -ao 'HTTP/1\.1 [0-9][0-9][0-9] ' "$tmp/raw" >"$tmp/lines"
	sed -n '/HTTP\/1\.1 '"$1"' /,$p' "$tmp/raw" >"$tmp/last"
	[ "$(xargs <"$tmp/lines")" = "HTTP/1.1 200 HTTP/1.1 $1" ] &&
		! grep -qai '<html' "$tmp/raw" &&
		tail -n 1 "$tmp/last" | jq -e --argjson s "$1" \
			'.status == $s and (.error | length > 0)' >/dev/null
}
for i in 1 2 3; do
	split "GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /x HTTP/2.0\r\nHost: loc" \
		"alhost\r\n\r\n"
	t "a bad head split over two packets behind a good one ($i): 200, then 505 in JSON" \
		split_is 505
done
# ... and whose end never comes: the good one answered, then 408
start=$(date +%s)
raw1 "GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /x HTTP/1.1\r\nHo"
t "a good head, then half of one for good: 200, then 408 in JSON after $(($(date +%s) - start)) s" \
	split_is 408
raw1 "GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\nGET /x HTTP/2.0\r\nHost: localhost\r\n\r\n"
grep -ao 'HTTP/1\.1 [0-9][0-9][0-9] ' "$tmp/raw" >"$tmp/lines"
t "Connection: close, then a bad head pipelined: the one answer, no error" \
	jqe -Rn '[inputs] == ["HTTP/1.1 200 "]' "$tmp/lines"

# one owner of a head's limits, the gate: a target over 2048 bytes (414)
# or a head over 32 KiB (431), first, kept alive or pipelined, is its own
# JSON answer, which carries no Date (libmicrohttpd dates every answer)
gate_sent() { # the last answer in $tmp/raw is the gate's
	perl -0777 -ne '($h) = split /\r\n\r\n/, (split /(?=HTTP\/1\.1 \d{3} )/)[-1];
		exit($h =~ /^date:/mi ? 1 : 0)' "$tmp/raw"
}
by_gate() { "$@" && gate_sent; } # CHECK...: it holds, and the gate answered
long3k=$(head -c 3000 /dev/zero | tr '\0' a)
big33=$(head -c 33000 /dev/zero | tr '\0' a)
raw "GET /api/$long3k HTTP/1.1\r\nHost: localhost\r\n\r\n"
t "a 3 KB target: one 414 in JSON, the gate's" by_gate raw_is 414
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: $big33\r\n\r\n"
t "a 33 KB head (under what the gate peeks at): one 431 in JSON, the gate's" \
	by_gate raw_is 431
raw2 "$first" "GET /api/$long3k HTTP/1.1\r\nHost: localhost\r\n\r\n"
t "kept alive, then a 3 KB target: one 414 in JSON, the gate's" \
	by_gate raw2_is 414
raw2 "$first" "GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: $big33\r\n\r\n"
t "kept alive, then a 33 KB head: one 431 in JSON, the gate's" \
	by_gate raw2_is 431
raw1 "${two}GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: $big33\r\n\r\n"
t "pipelined after two good, a 33 KB head: 200 200, then the gate's 431 in JSON" \
	by_gate pipe_is 431
raw1 "${two}GET /api/$long3k HTTP/1.1\r\nHost: localhost\r\n\r\n"
t "pipelined after two good, a 3 KB target: 200 200, then the gate's 414 in JSON" \
	by_gate pipe_is 414
# a Content-Length libmicrohttpd would read otherwise than the gate, or
# answer in HTML with its status line twice
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0 \r\n\r\n"
t "Content-Length with a space after its digits: one 400 in JSON" raw_is 400
raw "GET /api/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n"
t "two Content-Lengths: one 400 in JSON" raw_is 400

# DNS rebinding: on loopback only local names are served
t "Host: evil.example: 421 JSON" err_is 421 /api/health "evil.example" \
	-H "Host: evil.example"
t "Host: evil.example:$PORT: 421" err_is 421 /api/health "evil.example" \
	-H "Host: evil.example:$PORT"
t "Host: 127.0.0.1.evil.example: 421" err_is 421 /api/health "evil" \
	-H "Host: 127.0.0.1.evil.example"
for h in "localhost:$PORT" "LOCALHOST" "127.0.0.1:$PORT" "127.1.2.3" "[::1]:$PORT"; do
	c=$(code /api/health -H "Host: $h")
	ok $([ "$c" = 200 ]; echo $?) "Host: $h is served ($c)"
done

# a schema change under the running server: every thread says the same
seq 40 | xargs -P 8 -I{} curl -s -o /dev/null "$BASE/api/runs"
sqlite3 "$DB" "PRAGMA user_version = $(($(sqlite3 "$DB" 'PRAGMA user_version') + 1))"
seq 24 | xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
	"$BASE/api/runs" >"$tmp/codes"
t "schema changed: all 24 requests 503 ($(sort "$tmp/codes" | uniq -c | xargs))" \
	jqe -Rn '[inputs] | length == 24 and all(. == "503")' "$tmp/codes"
t "schema changed: the 503 says why" err_is 503 /api/runs "schema version"
sqlite3 "$DB" "PRAGMA user_version = $(($(sqlite3 "$DB" 'PRAGMA user_version') - 1))"
seq 24 | xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
	"$BASE/api/runs" >"$tmp/codes"
t "schema back: all 24 requests 200" \
	jqe -Rn '[inputs] | length == 24 and all(. == "200")' "$tmp/codes"

# the collector writes while the server reads: a new commit shows up
C4=$(printf c4 | sha1sum | cut -c1-40)
"$KWARN" ingest --db "$DB" --tree kwtree --commit "$C4" \
	--object-map "$tmp/c3.map" "$tmp/c3.log" >/dev/null
ok $? "kwarn ingests a 4th commit while the server runs"
# the server's readers hold their shared locks: the collector, closing,
# must not think it is the last connection and delete the WAL under them
[ -e "$DB-wal" ]
ok $? "the WAL is still there after kwarn closes (readers hold their locks)"
t "the burn-down (cached before) now has the 4th commit" \
	jqe --arg d "$C4" 'length == 4 and .[3].commit.sha == $d and
		.[3].warnings == .[2].warnings' <(get /api/runs/$RUN/burndown)

# hundreds of connections at once
seq 300 | xargs -P 150 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
	"$BASE/api/runs/$RUN/burndown" >"$tmp/codes"
t "300 requests over 150 parallel connections all answered 200" \
	jqe -Rn '[inputs] | length == 300 and all(. == "200")' "$tmp/codes"

server_stop
ok $? "SIGTERM: clean shutdown, exit 0"

SERVER_ARGS="--allow-host kwarn.example --allow-host other.example" \
	server_start "$DB"
ok $? "server starts with --allow-host twice"
for h in "kwarn.example" "KWARN.example:$PORT" "other.example"; do
	c=$(code /api/health -H "Host: $h")
	ok $([ "$c" = 200 ]; echo $?) "--allow-host: Host: $h is served ($c)"
done
t "--allow-host: other names still 421" err_is 421 /api/health "evil" \
	-H "Host: evil.example"
server_stop
"$KWARN_SERVER" --db "$DB" --allow-host "a:80" -n >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "allow-host" "$tmp/out"
ok $? "--allow-host with a port: refused, exit 2"

# CSV quoting of a message with a comma and quotes, from gcc's own log of
# a #warning: one field, quoted, its quotes doubled (RFC 4180)
mkdir -p "$tmp/q/src/drivers/q"
printf '#warning "a, \\"b\\" c"\nint q(void);\n' >"$tmp/q/src/drivers/q/q.c"
printf 'drivers/q/q.o\n' >"$tmp/q/q.map"
: >"$tmp/q/q.log"
fixture_cc "$tmp/q/src" "$tmp/q/q.log" drivers/q/q.o
"$KWARN" ingest --db "$tmp/q/kwarn.db" --tree qtree --commit "$C1" \
	--object-map "$tmp/q/q.map" "$tmp/q/q.log" >/dev/null &&
	server_start "$tmp/q/kwarn.db"
ok $? "a #warning's log ingested, a server on it ($(grep -c 'warning:' "$tmp/q/q.log") warning)"
get "/api/warnings" >"$tmp/cj"
code "/api/warnings?format=csv" >/dev/null
msg='#warning "a, \"b\" c"' field='"#warning ""a, \""b\"" c"""'
t "its message as gcc gave it: $msg" \
	jqe --arg m "$msg" '.total == 1 and .warnings[0].message == $m' "$tmp/cj"
t "in CSV: $field, the JSON's row" \
	eval 'grep -qF ",$field," "$tmp/body" && csv_is_json "$tmp/cj" "$tmp/body"'
server_stop

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ $failed = 0 ]
