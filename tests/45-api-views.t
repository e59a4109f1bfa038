#!/bin/bash
# The API the dashboard's views need beyond one commit, on the fixture
# database with a gcc and a clang-16 run built from the compilers' own
# output (tests/lib/server-fixture.sh, FIXTURE_CLANG=1):
#   GET /api/runs/{id}/series?by=subsystem|file|option
#   GET /api/diff?from=REF&to=REF[&run=N]
# Every count is checked against what another endpoint or the collector's
# own `kwarn warnings` says, and bad requests get the usual 400 and 404.
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
get() { curl -s --path-as-is "$BASE$1"; }
code() { curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' "$BASE$1"; }
err_is() { # STATUS URL WORD: that status, a JSON error mentioning WORD
	[ "$(code "$2")" = "$1" ] &&
		jq -e --arg w "$3" '.error | contains($w)' "$tmp/body" >/dev/null
}

export KWARN_CACHE=$tmp/cache
FIXTURE_CLANG=1 fixture_build "$tmp"
ok $? "fixture: gcc run $RUN and clang-16 run $CLANG_RUN from real compiler output"
server_start "$DB"
ok $? "server started ($BASE)"

# ---- series ----
for r in $RUN $CLANG_RUN; do
	get "/api/runs/$r/burndown" >"$tmp/bd.$r"
	for by in file option subsystem; do
		get "/api/runs/$r/series?by=$by" >"$tmp/s.$r.$by"
	done
done
jq -e '.commits | length == 3' "$tmp/s.$RUN.file" >/dev/null &&
	jq -e '[.rows[].counts | length] | all(. == 3)' "$tmp/s.$RUN.file" >/dev/null
ok $? "series: three commits, one count per commit in every row"
for r in $RUN $CLANG_RUN; do
	a=$(jq -c '[.rows[].counts] | transpose | map(add)' "$tmp/s.$r.file")
	b=$(jq -c '[.[].warnings]' "$tmp/bd.$r")
	[ "$a" = "$b" ]
	ok $? "run $r by file: the rows add up to the burn-down at every commit ($a = $b)"
	a=$(jq -c '[.rows[] | {(.name): .counts}] | add' "$tmp/s.$r.option")
	b=$(jq -c '[.[].by_option | to_entries[]] | group_by(.key) |
		map({(.[0].key): map(.value)}) | add' "$tmp/bd.$r")
	[ "$a" = "$b" ]
	ok $? "run $r by option equals the burn-down's by_option ($a)"
	# and the states themselves (both of the above read point_counts)
	b=$(sqlite3 "$DB" "SELECT o.k, c.position, (SELECT COUNT(*) FROM live_states s
		JOIN identities i ON i.id = s.identity_id WHERE s.commit_id = c.id
		AND COALESCE(i.option, i.kind) = o.k) FROM commits c,
		(SELECT DISTINCT COALESCE(i.option, i.kind) AS k FROM live_states s
		JOIN identities i ON i.id = s.identity_id JOIN commits c
		ON c.id = s.commit_id WHERE c.run_id = $r) o
		WHERE c.run_id = $r ORDER BY o.k, c.position" | tr '\n' ' ')
	a=$(jq -r '[.rows[] | .name as $k | .counts | to_entries[] |
		"\($k)|\(.key)|\(.value)"] | sort_by(split("|")[0]) | join(" ")' \
		"$tmp/s.$r.option")
	[ -n "$a" ] && [ "$a " = "$b" ]
	ok $? "run $r by option equals its live states counted per option or kind"
done
jq -e '[.rows[].name] == ["-Wimplicit-fallthrough", "-Wmissing-prototypes"]' \
	"$tmp/s.$CLANG_RUN.option" >/dev/null
ok $? "clang's run has two options, the larger at the base first"
# per file, at each commit, what the collector itself reports
bad=0
for c in $C1 $C2 $C3; do
	i=$(jq --arg c "$c" '[.commits[].sha] | index($c)' "$tmp/s.$RUN.file")
	a=$(jq -c --argjson i "$i" '[.rows[] | select(.counts[$i] > 0) |
		{(.name): .counts[$i]}] | add // {}' "$tmp/s.$RUN.file")
	b=$("$KWARN" warnings --db "$DB" --commit "$c" --format json |
		jq -c 'group_by(.file) | map({(.[0].file): length}) | add // {}')
	[ "$a" = "$b" ] || { bad=1; echo "# $c: $a != $b"; }
done
ok $bad "by file equals kwarn warnings at each commit, file by file"
# per subsystem, at each commit, what /api/subsystems says
bad=0
for c in $C1 $C2 $C3; do
	i=$(jq --arg c "$c" '[.commits[].sha] | index($c)' "$tmp/s.$RUN.subsystem")
	a=$(jq -c --argjson i "$i" '[.rows[] | select(.counts[$i] > 0) |
		{(.name): .counts[$i]}] | add // {} | to_entries | sort_by(.key)' \
		"$tmp/s.$RUN.subsystem")
	b=$(get "/api/subsystems?run=$RUN&commit=$c" |
		jq -c '[.subsystems[] | {(.name): .warnings}] | add // {} |
		to_entries | sort_by(.key)')
	[ "$a" = "$b" ] || { bad=1; echo "# $c: $a != $b"; }
done
ok $bad "by subsystem equals /api/subsystems at each of the 3 commits"
jq -e '[.rows[].counts[0]] as $b | $b == ($b | sort | reverse)' \
	"$tmp/s.$RUN.subsystem" >/dev/null
ok $? "rows sorted by their count at the base"
jq -e '.maintainers == true and ([.rows[].name] | index("FIREWIRE SUBSYSTEM")) != null' \
	"$tmp/s.$RUN.subsystem" >/dev/null
ok $? "by subsystem names MAINTAINERS entries"
cmp -s "$tmp/s.$RUN.subsystem" <(get "/api/runs/$RUN/series")
ok $? "by defaults to subsystem"
jq -e '[.commits[].boot] == [null, null, "crash"]' "$tmp/s.$CLANG_RUN.file" >/dev/null
ok $? "series commits carry the boot verdict (clang's crash at c3)"
# a commit without a build has null counts, not zeros
sqlite3 "$DB" "INSERT INTO commits(run_id, position, sha, subject)
	VALUES ($RUN, 3, 'unbuilt', 'never built')"
for by in file option subsystem; do
	get "/api/runs/$RUN/series?by=$by" >"$tmp/s.unbuilt"
	jq -e '.commits[3].built == false and (.rows | length > 0) and
		([.rows[].counts[3]] | all(. == null))' "$tmp/s.unbuilt" >/dev/null
	ok $? "by $by, an unbuilt commit has null counts, never zero"
done
# base and tip: the run's first and last built commits, here not its last
bt=$(jq -r '[.[] | select(.warnings != null)] | "\(.[0].id) \(.[-1].id)"' "$tmp/bd.$RUN")
get "/api/diff?run=$RUN&from=base&to=tip" >"$tmp/dbt"
get "/api/diff?run=$RUN&from=${bt% *}&to=${bt#* }" >"$tmp/dids"
[ "$(jq -c . "$tmp/dbt")" = "$(jq -c . "$tmp/dids")" ] &&
	[ "$(jq -r '"\(.from.id) \(.to.id)"' "$tmp/dbt")" = "$bt" ] &&
	[ "$(jq -r '.to.id' "$tmp/dbt")" != "$(sqlite3 "$DB" "SELECT id FROM commits WHERE sha = 'unbuilt'")" ]
ok $? "diff from=base to=tip is the diff of the first and last built commits ($bt), not the unbuilt last one"
sqlite3 "$DB" "DELETE FROM commits WHERE sha = 'unbuilt'"

a=$(get "/api/runs/$RUN/series?limit=2&offset=1" | jq -c '[.total_rows, .offset, .max, .rows]')
b=$(jq -c '[(.rows | length), 1, ([.rows[].counts[] // 0] | max), .rows[1:3]]' "$tmp/s.$RUN.subsystem")
[ "$a" = "$b" ]
ok $? "limit and offset page the rows; total_rows and max are of all of them"
get "/api/runs/$RUN/series?offset=99" | jq -e '.rows == [] and .total_rows == 5' >/dev/null
ok $? "an offset past the rows: none, and how many there are"
err_is 400 "/api/runs/$RUN/series?limit=0" "limit"
ok $? "series with limit 0: 400"
err_is 404 "/api/runs/999/series" "no run 999"
ok $? "series of an unknown run: 404"
err_is 400 "/api/runs/0x1/series" "run id"
ok $? "series of a bad run id: 400"
err_is 400 "/api/runs/$RUN/series?by=function" "subsystem, file or option"
ok $? "series by something else: 400 naming the choices"
err_is 400 "/api/runs/$RUN/series?by=file&by=option" "twice"
ok $? "series with by twice: 400"
err_is 400 "/api/runs/$RUN/series?state=new" "unknown parameter"
ok $? "series with an unknown parameter: 400"

# an independent oracle for both compilers: the counts read from gcc's and
# clang's own lines in the fixture's logs (tests/lib/log-oracle.py)
for r in $RUN $CLANG_RUN; do
	sfx=
	[ "$r" = "$CLANG_RUN" ] && sfx=-clang-16
	oracle=$(python3 tests/lib/log-oracle.py "$tmp/c1$sfx.log:$tmp/c1$sfx.map" \
		"$tmp/c2$sfx.log:$tmp/c2$sfx.map" "$tmp/c3$sfx.log:$tmp/c3$sfx.map")
	got=$(jq -c '[.[] | {warnings, new, fixed, not_built}]' "$tmp/bd.$r")
	[ -n "$oracle" ] && [ "$got" = "$oracle" ]
	ok $? "run $r: the burn-down is what the compiler's log lines say, read without kwarn ($oracle)"
done

# ---- a group's burn-downs in one request ----
get "/api/runs/$RUN/burndown?group=1" >"$tmp/bdg"
jq -e --argjson a "$RUN" --argjson b "$CLANG_RUN" '[.[].id] == [$a, $b]' \
	"$tmp/bdg" >/dev/null &&
	[ "$(jq -c '.[0].burndown' "$tmp/bdg")" = "$(jq -c . "$tmp/bd.$RUN")" ] &&
	[ "$(jq -c '.[1].burndown' "$tmp/bdg")" = "$(jq -c . "$tmp/bd.$CLANG_RUN")" ]
ok $? "group=1: both runs of the group, the one asked first, each its own burn-down"
get "/api/runs/$CLANG_RUN/burndown?group=1" |
	jq -e --argjson a "$RUN" --argjson b "$CLANG_RUN" '[.[].id] == [$b, $a] and
	.[1].compiler == "gcc"' >/dev/null
ok $? "group=1 from the other run: it first, then gcc's"
err_is 404 "/api/runs/999/burndown?group=1" "no run 999"
ok $? "group=1 of an unknown run: 404"
err_is 400 "/api/runs/$RUN/burndown?group=2" "group"
ok $? "group=2: 400"
err_is 400 "/api/runs/$RUN/burndown?group=1&compiler=gcc" "not both"
ok $? "group=1 with compiler: 400"

# ---- diff ----
get "/api/diff?from=$C1&to=$C3&run=$RUN" >"$tmp/d13"
w() { # COMMIT [STATE]: identities, sorted, as the commit endpoint lists them
	get "/api/commits/$1/warnings?run=$RUN&limit=1000${2:+&state=$2}" |
		jq -c '[.warnings[].identity] | sort'
}
live1=$(w "$C1") live3=$(w "$C3") nb3=$(w "$C3" not_built)
a=$(jq -c '[.new[].identity] | sort' "$tmp/d13")
b=$(jq -nc --argjson x "$live1" --argjson y "$live3" '$y - $x | sort')
[ "$a" = "$b" ]
ok $? "diff c1..c3 new = live at c3 minus live at c1 ($a)"
a=$(jq -c '[.remaining[].identity] | sort' "$tmp/d13")
b=$(jq -nc --argjson x "$live1" --argjson y "$live3" '[$x[] | select(. as $i | $y | index($i))] | sort')
[ "$a" = "$b" ]
ok $? "diff c1..c3 remaining = live at both"
a=$(jq -c '[.not_built[].identity] | sort' "$tmp/d13")
[ "$a" = "$nb3" ] && [ "$a" != "[]" ]
ok $? "diff c1..c3 not_built = not built at c3, never called fixed ($a)"
a=$(jq -c '[.fixed[].identity] | sort' "$tmp/d13")
b=$(jq -nc --argjson x "$live1" --argjson y "$live3" --argjson nb "$nb3" '$x - $y - $nb | sort')
[ "$a" = "$b" ] && [ "$(jq '.fixed | length' "$tmp/d13")" = 4 ]
ok $? "diff c1..c3 fixed = the 4 gone while their objects were compiled"
jq -e '.counts == {new: (.new | length), fixed: (.fixed | length),
	remaining: (.remaining | length), not_built: (.not_built | length)}' \
	"$tmp/d13" >/dev/null
ok $? "diff counts equal its lists ($(jq -c .counts "$tmp/d13"))"
jq -e '(.subsystems[] | select(.name == "FIREWIRE SUBSYSTEM")) ==
	{name: "FIREWIRE SUBSYSTEM", new: 0, fixed: 3, remaining: 0, not_built: 0}
	and (.subsystems[] | select(.name == "NETWORKING [GENERAL]") | .not_built) == 1' \
	"$tmp/d13" >/dev/null
ok $? "diff grouped by subsystem: firewire's 3 fixed, net's 1 not built"
get "/api/diff?from=$C3&to=$C1&run=$RUN" >"$tmp/d31"
jq -e --slurpfile f "$tmp/d13" '([.new[].identity] | sort) ==
	($f[0] | [.fixed[].identity, .not_built[].identity] | sort) and
	([.fixed[].identity] | sort) == ($f[0] | [.new[].identity] | sort)' \
	"$tmp/d31" >/dev/null
ok $? "diff the other way round swaps new and fixed"
get "/api/diff?from=$C2&to=$C2&run=$RUN" | jq -e '.counts.new == 0 and
	.counts.fixed == 0 and .counts.remaining == 6' >/dev/null
ok $? "a commit against itself: nothing new or fixed, its 6 remaining"
# across runs: gcc's c3 against clang's c3 (two measurements of one tree)
gid=$(jq '.[2].id' "$tmp/bd.$RUN") cid=$(jq '.[2].id' "$tmp/bd.$CLANG_RUN")
get "/api/diff?from=$gid&to=$cid" >"$tmp/dx"
jq -e --argjson g "$(jq '.[2].warnings' "$tmp/bd.$RUN")" \
	--argjson c "$(jq '.[2].warnings' "$tmp/bd.$CLANG_RUN")" \
	'.from.run != .to.run and .counts.new + .counts.remaining == $c and
	.counts.fixed + .counts.remaining + .counts.not_built == $g' \
	"$tmp/dx" >/dev/null
ok $? "diff across two runs by commit id: counts match both burn-downs"

# paged: each kind's list a page of at most 'limit' from 'offset', the
# counts and subsystems over the whole diff
pages=
for off in 0 1 2 3 4; do
	pages="$pages$(get "/api/diff?from=$C1&to=$C3&run=$RUN&kind=fixed&limit=1&offset=$off" |
		jq -c '[.fixed[].identity] | .[]')"
done
[ "$(echo "$pages" | jq -sc .)" = "$(jq -c '[.fixed[].identity]' "$tmp/d13")" ]
ok $? "diff kind=fixed&limit=1, offsets 0 to 4: the full list, in order, and then nothing"
get "/api/diff?from=$C1&to=$C3&run=$RUN&kind=fixed&limit=2&offset=1" >"$tmp/dpage"
jq -e --slurpfile f "$tmp/d13" '(.fixed | length) == 2 and
	.fixed == $f[0].fixed[1:3] and .counts == $f[0].counts and
	.subsystems == $f[0].subsystems and (has("new") | not) and
	.kind == "fixed" and .limit == 2 and .offset == 1' "$tmp/dpage" >/dev/null
ok $? "diff kind=fixed&limit=2&offset=1: that page, the whole diff's counts, no other list"
jq -e '.limit == 1000 and .offset == 0 and .kind == null' "$tmp/d13" >/dev/null
ok $? "diff without paging: up to 1000 of each kind"
err_is 400 "/api/diff?from=$C1&to=$C3&run=$RUN&kind=gone" "kind"
ok $? "diff kind=gone: 400"
err_is 400 "/api/diff?from=$C1&to=$C3&run=$RUN&limit=1001" "limit"
ok $? "diff limit=1001: 400"
# the kept result: the first request of a result larger than its page
# reads that page alone, the second hands the whole sorted result to the
# builder thread, and the pages after it are slices of it (X-Kwarn-Result:
# kept); a write makes the next request read alone and rebuild it
kw="/api/commits/$C2/warnings?run=$RUN"
result_of() { # URL: the X-Kwarn-Result header of its answer, or nothing
	curl -s -D - -o /dev/null "$BASE$1" | tr -d '\r' |
		sed -n 's/^X-Kwarn-Result: //Ip'
}
full=$(get "$kw&limit=1000" | jq -c .warnings)
nw=$(echo "$full" | jq length)
first=$(result_of "$kw&limit=1&offset=0")
kept=
for i in $(seq 50); do
	kept=$(result_of "$kw&limit=1&offset=$((i % nw))")
	[ "$kept" = kept ] && break
	sleep 0.1
done
[ -z "$first" ] && [ "$kept" = kept ]
ok $? "kept result: the first page of 1 read alone, then pages from the kept result ('$first', then '$kept')"
pages=$(for i in $(seq 0 "$nw"); do
	get "$kw&limit=1&offset=$i" | jq -c '.warnings[]'
done | jq -sc .)
[ "$nw" -ge 2 ] && [ "$pages" = "$full" ]
ok $? "kept result: pages of 1 at offsets 0 to $nw are the $nw warnings of the whole page, in order"
get "$kw&limit=2&offset=1" >"$tmp/kept"
jq -e --argjson f "$full" --argjson n "$nw" '.warnings == $f[1:3] and
	.total == $n and .limit == 2 and .offset == 1 and
	.state == "new,present"' "$tmp/kept" >/dev/null &&
	[ "$(result_of "$kw&limit=2&offset=1")" = kept ]
ok $? "kept result: a page of 2 from offset 1, with the envelope of any answer"
one=$(echo "$full" | jq -r '.[0].identity')
KWARN_WHO=tester "$KWARN" triage --db "$DB" "$one" --as intended \
	--reason "kept result test" >/dev/null
a=$(curl -s -D "$tmp/h" "$BASE$kw&limit=1&offset=0" | jq -r '.warnings[0].triage.state')
[ "$a" = intended ] && ! grep -qi '^X-Kwarn-Result' "$tmp/h"
ok $? "kept result: after a write the next page is read alone and shows it (triage $a)"
kept=
for i in $(seq 50); do
	kept=$(result_of "$kw&limit=3&offset=0")
	[ "$kept" = kept ] && break
	sleep 0.1
done
[ "$kept" = kept ] &&
	get "$kw&limit=3&offset=0" | jq -e '.warnings[0].triage.state == "intended"' >/dev/null
ok $? "kept result: rebuilt at the new state ('$kept', with the triage)"
err_is 400 "/api/diff?from=base&to=tip" "needs 'run'"
ok $? "diff base..tip without run: 400"
err_is 400 "/api/diff?from=$C1" "missing parameter 'to'"
ok $? "diff without to: 400"
err_is 400 "/api/diff?to=$C1" "missing parameter 'from'"
ok $? "diff without from: 400"
err_is 404 "/api/diff?from=$C1&to=deadbeefdead" "no commit 'deadbeefdead'"
ok $? "diff to an unknown commit: 404 naming it"
err_is 404 "/api/diff?from=$C1&to=$C2&run=999" "no run 999"
ok $? "diff in an unknown run: 404"
err_is 400 "/api/diff?from=$C1&to=$C2&run=x" "run"
ok $? "diff with a bad run: 400"
err_is 400 "/api/diff?from=&to=$C2" "from"
ok $? "diff with an empty from: 400"
err_is 400 "/api/diff?from=$C1&to=$C2&from=$C3" "twice"
ok $? "diff with from twice: 400"
err_is 400 "/api/diff?from=$(head -c 300 /dev/zero | tr '\0' a)&to=$C2" "from"
ok $? "diff with a 300-byte ref: 400"

# two nights of a tree are two runs: their tips by from_run / to_run
a=$(get "/api/diff?from_run=$RUN&to_run=$CLANG_RUN" | jq -c .counts)
b=$(jq -c .counts "$tmp/dx")
[ "$a" = "$b" ]
ok $? "diff of two runs' tips equals the diff of their last commits ($a)"
err_is 400 "/api/diff?from=$C1&from_run=$RUN&to=$C2" "not both"
ok $? "diff with from and from_run: 400"
err_is 404 "/api/diff?from_run=999&to=$C2" "no run 999"
ok $? "diff from an unknown run: 404"

# ---- one warning across the run ----
nb=$(jq -r '.not_built[0].identity' "$tmp/d13")
get "/api/warnings/$nb/states?run=$RUN" >"$tmp/st"
jq -e '[.states[].state] == ["present", "present", "not_built"] and
	.introduced.position == 0 and .fixed == null' "$tmp/st" >/dev/null
ok $? "states of net's warning: present, present, not built; never fixed"
new=$(jq -r '.new[0].identity' "$tmp/d13")
get "/api/warnings/$new/states" >"$tmp/st2"
jq -e --argjson run "$RUN" '.run == $run and
	[.states[].state] == [null, "new", "present"] and
	.introduced.sha == "'"$C2"'"' "$tmp/st2" >/dev/null
ok $? "states of afs_c's warning: none, new, present; introduced by c2"
hdr=$(get "/api/commits/$C1/warnings?run=$RUN" |
	jq -r '.warnings[] | select(.function == "kw_inline") | .identity')
get "/api/warnings/$hdr/states?run=$RUN" >"$tmp/st3"
jq -e '.fixed.sha == "'"$C3"'" and (.include_chain | test("core-device.c"))' \
	"$tmp/st3" >/dev/null
ok $? "the header warning: fixed by c3, its include chain ($(jq -c .include_chain "$tmp/st3"))"
a=$(jq -c '[.states[].state]' "$tmp/st3")
b=$(for c in $C1 $C2 $C3; do
	sqlite3 "$DB" "SELECT COALESCE((SELECT s.state FROM states s JOIN commits c
		ON c.id = s.commit_id JOIN identities i ON i.id = s.identity_id
		WHERE c.sha = '$c' AND c.run_id = $RUN AND i.fingerprint = '$hdr'),
		'null')"; done | jq -R . | jq -sc 'map(if . == "null" then null else . end)')
[ "$a" = "$b" ]
ok $? "the strip equals the states table ($a)"
err_is 404 "/api/warnings/nosuchwarning/states" "no warning"
ok $? "states of an unknown warning: 404"
err_is 404 "/api/warnings/$hdr/states?run=999" "no run 999"
ok $? "states in an unknown run: 404"
err_is 400 "/api/warnings/$hdr/states?run=-1" "run"
ok $? "states with a bad run: 400"

# ---- what kwarn nightly reported ----
get /api/nightly | jq -e '. == []' >/dev/null
ok $? "nightly reports: none kept, an empty list"
# kept as kwarn nightly keeps it (store_nightly_report(): the report
# entry); the new warnings are the API's diff of the two runs
get "/api/diff?from_run=$CLANG_RUN&to_run=$RUN" | jq -c --argjson run "$RUN" \
	--argjson prev "$CLANG_RUN" '{run: $run, previous_run: $prev,
	new: [.new[] | . + {cause: "compiler"}]}' >"$tmp/rep"
sqlite3 "$DB" "INSERT INTO nightly_reports(run_id, report)
	VALUES ($RUN, readfile('$tmp/rep'))"
a=$(get /api/nightly | jq -cS .)
b=$(jq -cS --argjson run "$RUN" '[{run: $run, report: .}]' "$tmp/rep")
[ "$a" = "$b" ] && [ "$(jq '.new | length' "$tmp/rep")" -gt 0 ]
ok $? "nightly reports: the kept report, verbatim ($(jq '.new | length' "$tmp/rep") new)"
# a decision taken after the night: the report shows it, the others open
tri=$(jq -r '.new[0].identity' "$tmp/rep")
"$KWARN" triage --db "$DB" "$tri" --as false-positive --who bob \
	--reason 'the loop bound is known' >/dev/null
ok $? "one of the night's new warnings triaged false-positive the day after"
get /api/nightly | jq -e --arg t "$tri" '.[0].report.new | map(
	if .identity == $t then .triage.state == "false-positive" and
		.triage.who == "bob" else .triage == {state: "open"} end) |
	all and length > 1' >/dev/null
ok $? "nightly reports: each new warning's triage as it is now, not as it was that night"
get "/api/diff?from_run=$CLANG_RUN&to_run=$RUN" | jq -e --arg t "$tri" \
	'[.new[] | select(.triage.state != "open") | .identity] == [$t]' >/dev/null
ok $? "the diff of the two nights: the decision on that warning alone"
get "/api/runs/$RUN/burndown?group=1" >"$tmp/bdg2"
[ "$(jq -c '.[0].burndown' "$tmp/bdg2")" = "$(get "/api/runs/$RUN/burndown" | jq -c .)" ] &&
	jq -e '.[0].burndown[-1].by_triage["false-positive"] == 1 and
		.[1].burndown[-1].by_triage["false-positive"] == 0' "$tmp/bdg2" >/dev/null
ok $? "group=1: each run's by_triage, the decision counted in its own run alone"
err_is 400 "/api/nightly?run=$RUN" "unknown parameter"
ok $? "nightly reports with a parameter: 400"
sqlite3 "$DB" "UPDATE nightly_reports SET report = '[1]' WHERE run_id = $RUN"
err_is 503 /api/nightly "database"
ok $? "a kept report that is not an object: 503 as any failed query, not a half answer"
sqlite3 "$DB" "DELETE FROM nightly_reports"

# warnings without an option (a linker warning, modpost, a fatal error)
# are rows named by their kind, and each row leads to its warnings
"$KWARN" ingest --db "$DB" --tree kinds --commit k1 tests/data/parse/kbuild.log >/dev/null
KR=$(sqlite3 "$DB" "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id
	WHERE t.name = 'kinds'")
KC=$(sqlite3 "$DB" "SELECT id FROM commits WHERE run_id = $KR")
get "/api/runs/$KR/series?by=option" >"$tmp/kinds"
bad=0 names=
while IFS=$'\t' read -r name count; do
	names="$names $name"
	total=$(get "/api/warnings?run=$KR&commit=$KC&limit=1&option=$(jq -rn --arg v "$name" '$v|@uri')" |
		jq .total)
	[ "$total" = "$count" ] || { bad=1; echo "# $name: $count in the table, $total listed"; }
done < <(jq -r '.rows[] | "\(.name)\t\(.counts[0])"' "$tmp/kinds")
[ $bad = 0 ] && echo "$names" | grep -qw linker && echo "$names" | grep -qw modpost
ok $? "by option, a kind names the row of warnings without an option, and leads to them ($names)"

server_stop
ok $? "server stopped cleanly"
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ $failed = 0 ]
