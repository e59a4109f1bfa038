#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# End to end on the real packaged tree: kwarn run builds the four-patch test
# series in tests/data/series on linux-source-6.1 with the qemu config,
# boots every point, and the per-commit counts, identities, the header seen
# from two objects, and introduced/fixed commits come out exact.  Then the
# resume test: a run killed during a build and started again ends with the
# same results as the uninterrupted one.
#
# Cold (no build cache): one tinyconfig+qemu build of 6.1, about 6 minutes
# on 2 cores, then a minute or two per point.  Warm: a few minutes.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

db="$tmp/e2e.db"
series="$top/tests/data/series/series"
cfg="$top/kernel/configs/qemu.config"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ]; then
	echo "# linux-source-6.1 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 installed"
	done_tap
fi

start=$(date +%s)
"$kwarn" run --db "$db" --series "$series" --config "$cfg" -j2 \
	--boot-timeout 120 >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
echo "# kwarn run took $(($(date +%s) - start)) s"
sed 's/^/# /' "$tmp/run.out"
check "kwarn run exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/run.err" | tail -20

"$kwarn" report --db "$db" --format json >"$tmp/report.json"
check "kwarn report --format json" test -s "$tmp/report.json"
j() { jq -r "$1" "$tmp/report.json"; }
count() { j ".commits[$1].$2"; }

check "five points: base and four patches" test "$(j '.commits | length')" = 5
base=$(count 0 warnings)
echo "# warnings at base: $base"
# pristine 6.1 at tinyconfig + qemu.config builds without a warning with
# Debian 12's gcc (-Wimplicit-fallthrough=3 accepts its comments): a
# warning at base means a new compiler or a parser that invents one
check "base measured: no warning in pristine 6.1 ($base)" test "$base" = 0
check "patch 1 adds three warnings" test "$(count 1 warnings)" = $((base + 3))
check "patch 1: three new" test "$(count 1 new)" = 3
check "patch 2 fixes the marked one" test "$(count 2 fixed)" = 1
check "patch 2: two left" test "$(count 2 warnings)" = $((base + 2))
check "patch 2: nothing new" test "$(count 2 new)" = 0
check "patch 3 moves lines: nothing new" test "$(count 3 new)" = 0
check "patch 3 moves lines: nothing fixed" test "$(count 3 fixed)" = 0
check "patch 3: still two" test "$(count 3 warnings)" = $((base + 2))
check "patch 4 adds the break: one fixed" test "$(count 4 fixed)" = 1
check "patch 4: one left (the header)" test "$(count 4 warnings)" = $((base + 1))
check "no point is not built" test "$(j '[.commits[].not_built] | add')" = 0

# the missing break at patch 2 and patch 3: same identity, new line
id2=$(j '.commits[2].warnings_list[] | select(.function == "kwarn_selftest_switch" and .state != "fixed") | .identity')
id3=$(j '.commits[3].warnings_list[] | select(.function == "kwarn_selftest_switch") | .identity')
l2=$(j '.commits[2].warnings_list[] | select(.function == "kwarn_selftest_switch" and .state != "fixed") | .line')
l3=$(j '.commits[3].warnings_list[] | select(.function == "kwarn_selftest_switch") | .line')
check "moved warning keeps its identity" test -n "$id2" -a "$id2" = "$id3"
check "moved warning has a new line ($l2 -> $l3)" test -n "$l2" -a "$l2" != "$l3"
check "its note points at case 3" \
	test "$(j '.commits[3].warnings_list[] | select(.function == "kwarn_selftest_switch") | .notes[] | select(.message == "here") | .line')" -gt "$l3"

# the header warning: one warning seen from two objects
hdr=$(j '.commits[1].warnings_list[] | select(.file == "include/linux/kwarn_selftest.h")')
check "header warning is one identity" test "$(echo "$hdr" | jq -s length)" = 1
check "header warning seen from two objects" test "$(echo "$hdr" | jq .seen)" = 2
check "header warning in kwarn_selftest_level" \
	test "$(echo "$hdr" | jq -r .function)" = kwarn_selftest_level

# introduced and fixed commits, and the change attribution
sql() { sqlite3 "$db" "$1"; }
intro=$(sql "SELECT c.position FROM states s JOIN commits c ON c.id = s.commit_id
	JOIN identities i ON i.id = s.identity_id
	WHERE s.state = 'new' AND i.function = 'kwarn_selftest_switch' ORDER BY 1")
fixed=$(sql "SELECT c.position FROM states s JOIN commits c ON c.id = s.commit_id
	JOIN identities i ON i.id = s.identity_id
	WHERE s.state = 'fixed' AND i.function = 'kwarn_selftest_switch' ORDER BY 1")
check "both switch warnings introduced by patch 1" test "$(echo $intro)" = "1 1"
check "fixed by patches 2 and 4" test "$(echo $fixed)" = "2 4"
check "new warnings of patch 1 lie in its changed lines" \
	test "$(sql "SELECT COUNT(*) FROM states s JOIN commits c ON c.id = s.commit_id
		WHERE c.position = 1 AND s.state = 'new' AND s.in_change = 1")" = 3

# boots
check "every point booted and passed" \
	test "$(j '[.commits[] | select(.verdict == "pass")] | length')" = 5
img=$(sql "SELECT image FROM builds ORDER BY id DESC LIMIT 1")
check "bzImage kept in the cache" test -r "$img"
# the boot test (30-boot.t) reuses this kernel instead of building another
[ -r "$img" ] && echo "$img" >"$KWARN_CACHE/test-e2e.image"

# the text report reads like the robot's mail
"$kwarn" report --db "$db" >"$tmp/report.txt"
check "text report marks new warnings with >>" grep -q '^>> kernel/panic.c' "$tmp/report.txt"
check "text report has a burn-down" grep -q '^burn-down' "$tmp/report.txt"

# a second run with the same inputs measures nothing again
"$kwarn" run --db "$db" --series "$series" --config "$cfg" >"$tmp/again.out" 2>&1
check "same run again: already measured" grep -q 'already measured' "$tmp/again.out"

# --fail-on-new: the tip keeps the header warning that the base lacks
"$kwarn" run --db "$db" --series "$series" --config "$cfg" --fail-on-new \
	>"$tmp/gate.out" 2>&1
grc=$?
check "--fail-on-new exits 1 when the tip has a warning the base lacks" test "$grc" = 1
check "--fail-on-new names the warning" grep -q 'kwarn_selftest.h' "$tmp/gate.out"

# resume: kill during the build of a point, run again, compare
db2="$tmp/resume.db"
"$kwarn" run --db "$db2" --series "$series" --config "$cfg" --no-boot \
	>"$tmp/r1.out" 2>"$tmp/r1.err" &
pid=$!
for _ in $(seq 1 600); do
	grep -q '\[3/5\].*building' "$tmp/r1.err" && break
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
check "killed during point 3" grep -q '\[3/5\].*building' "$tmp/r1.err"
sleep 1
"$kwarn" run --db "$db2" --series "$series" --config "$cfg" --no-boot \
	>"$tmp/r2.out" 2>"$tmp/r2.err"
check "resumed run completes" test $? = 0
check "resume said so" grep -q 'resuming run' "$tmp/r2.err"
grep -v '^kwarn: \[' "$tmp/r1.err" "$tmp/r2.err" | head -8 | sed 's/^/# /'
sqlite3 "$db2" "SELECT id, status FROM runs" | sed 's/^/# run /'
summary() {
	"$kwarn" report --db "$1" --format json |
		jq -c '[.commits[] | {position, warnings, new, fixed, not_built,
			ids: [.warnings_list[] | .identity + ":" + .state] | sort}]'
}
summary "$db" | jq -c '.[]' >"$tmp/sum1"
summary "$db2" | jq -c '.[]' >"$tmp/sum2"
check "resumed results equal the uninterrupted run" cmp -s "$tmp/sum1" "$tmp/sum2"
diff "$tmp/sum1" "$tmp/sum2" | sed 's/^/# /'
check "no duplicate builds after resume" \
	test "$(sqlite3 "$db2" 'SELECT COUNT(*) FROM builds')" = 5

done_tap
