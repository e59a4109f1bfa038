#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# The compiler cache on the packaged 6.1 tree: a series whose last patches
# only change a comment in place (the fall-through marker reworded so that
# level 3 stops accepting it, then restored) is run with the cache cold,
# warm and off, and every point has the same warnings and identities; the
# restored marker's point is a cache hit of the marked point, and gives
# its warnings.  Then a fresh build directory (a config fragment that
# changes nothing) builds the same series mostly from the cache.
#
# Only kernel/panic.o and kernel/exit.o are built (--targets, no boot); a
# nonce in the series' header makes every test run's compiles new to the
# cache, so "cold" is cold.  Last, two caches that share a Redis on
# 127.0.0.1, as two machines would.  About 12 minutes on 2 cores, most of
# it the fresh build directory's kbuild prepare.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
fresh_dir=
redis_pid=
cleanup() {
	[ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null
	# the build directory this test made for itself, and nothing else
	case "$fresh_dir" in
	"$KWARN_CACHE"/builds/linux-source-6.1-*) rm -rf "$fresh_dir" ;;
	esac
	rm -rf "$tmp"
}
trap cleanup EXIT

. "$top/tests/lib/tap.sh"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ] || ! command -v ccache >/dev/null; then
	echo "# linux-source-6.1 or ccache is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and ccache installed"
	done_tap
fi

cfg="$top/kernel/configs/qemu.config"
targets=kernel/panic.o,kernel/exit.o
nonce="$(date +%s%N)-$$"

# the series: tests/data/series' first two patches (switches, a marker),
# then the marker reworded in place and restored
s="$tmp/series"
mkdir -p "$s"
sed "s|^+/\* kwarn's end-to-end test: .*|+/* kwarn's compiler cache test $nonce */|" \
	"$top"/tests/data/series/0001-*.patch >"$s/0001-switches.patch"
cp "$top"/tests/data/series/0002-*.patch "$s/0002-mark.patch"
marker_patch() { # N FROM TO SUBJECT
	cat <<EOF
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Kwarn Test <test@kwarn.invalid>
Date: Sat, 3 Jan 2026 1$1:00:00 +0000
Subject: [PATCH $1/4] kwarn selftest: $4

---
 kernel/panic.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/kernel/panic.c b/kernel/panic.c
--- a/kernel/panic.c
+++ b/kernel/panic.c
@@ -830,7 +830,7 @@ int kwarn_selftest_switch(int cmd, int *val)
 	switch (cmd) {
 	case 0:
 		*val = 1;
-		/* $2 */
+		/* $3 */
 	case 1:
 		*val += 1;
 		break;
-- 
2.39.5
EOF
}
marker_patch 3 "fall through" "fall through to the default" \
	"reword the marker in place" >"$s/0003-reword.patch"
marker_patch 4 "fall through to the default" "fall through" \
	"restore the marker" >"$s/0004-restore.patch"
printf '%s\n' "# kwarn-tree: linux-source-6.1" 0001-switches.patch \
	0002-mark.patch 0003-reword.patch 0004-restore.patch >"$s/series"

# run NAME [ARGS...]: kwarn run of the series into $tmp/NAME.db, waiting
# while another kwarn holds the build directory
run() {
	local name=$1 try rc
	shift
	for try in $(seq 40); do
		rm -f "$tmp/$name.db"
		"$kwarn" run --db "$tmp/$name.db" --series "$s/series" \
			--config "$cfg" --targets "$targets" -j2 "$@" \
			>"$tmp/$name.out" 2>"$tmp/$name.err"
		rc=$?
		grep -q 'is in use by another kwarn' "$tmp/$name.err" || break
		echo "# build directory in use, waiting ($try)"
		sleep 30
	done
	check "$name run exits 0 (rc=$rc)" test "$rc" = 0
	[ "$rc" = 0 ] || tail -5 "$tmp/$name.err" | sed 's/^/# /'
	"$kwarn" report --db "$tmp/$name.db" --format json >"$tmp/$name.json"
}
summary() {
	jq -c '[.commits[] | {position, warnings, new, fixed, not_built,
		ids: [.warnings_list[] | .identity + ":" + .state] | sort}]' \
		"$tmp/$1.json"
}
col() { # NAME FIELD: the field of every point, space-separated
	jq -r "[.commits[] | .$2 // \"null\"] | map(tostring) | join(\" \")" \
		"$tmp/$1.json"
}

start=$(date +%s)
run cold
echo "# cold: $(($(date +%s) - start)) s; hits $(col cold cache_hits), misses $(col cold cache_misses)"
j() { jq -r "$1" "$tmp/cold.json"; }
w() { j ".commits[$1].warnings"; }
check "five points" test "$(j '.commits | length')" = 5
check "patch 1 adds three warnings" test "$(w 1)" = $(($(w 0) + 3))
check "patch 2's marker fixes one" test "$(j '.commits[2].fixed')" = 1
check "patch 3's reworded marker brings it back (level 3)" \
	test "$(w 3)" = $(($(w 2) + 1)) -a "$(j '.commits[3].new')" = 1
check "patch 4's restored marker fixes it again" \
	test "$(w 4)" = "$(w 2)" -a "$(j '.commits[4].fixed')" = 1
check "the warning that comes back keeps its identity" \
	test -n "$(j ".commits[3].warnings_list[] | select(.state == \"new\" and .function == \"kwarn_selftest_switch\") | .identity" |
		grep -Fx -f <(j '.commits[1].warnings_list[] | .identity'))"
check "cold: the reworded point is a miss (hits at 3: $(j '.commits[3].cache_hits'))" \
	test "$(j '.commits[3].cache_hits')" = 0 -a "$(j '.commits[3].cache_misses')" -ge 1
check "cold: the restored point is a hit of the marked one (hits at 4: $(j '.commits[4].cache_hits'))" \
	test "$(j '.commits[4].cache_hits')" -ge 1 -a "$(j '.commits[4].cache_misses')" = 0

start=$(date +%s)
run warm
echo "# warm: $(($(date +%s) - start)) s; hits $(col warm cache_hits), misses $(col warm cache_misses)"
check "warm: the same warnings and identities at every point" \
	cmp -s <(summary cold) <(summary warm)
# point 0 (the base) may miss: the build directory held some of the base's
# objects before the cold run, which then compiled only the others
check "warm: every compile after the base from the cache" \
	test "$(jq '[.commits[1:][].cache_misses] | add' "$tmp/warm.json")" = 0 -a \
	"$(jq '[.commits[1:][].cache_hits] | add' "$tmp/warm.json")" -ge 5
check "warm: progress says what came from the cache" \
	grep -q 'from the cache' "$tmp/warm.err"
"$kwarn" report --db "$tmp/warm.db" >"$tmp/warm.txt"
check "warm: the report says it per point" \
	grep -q '^   compiler cache: [0-9]* of [0-9]* C compiles from the cache$' \
	"$tmp/warm.txt"

start=$(date +%s)
run off --no-compiler-cache
echo "# off: $(($(date +%s) - start)) s"
check "off: the same warnings and identities at every point" \
	cmp -s <(summary cold) <(summary off)
check "off: no cache counts stored" \
	test "$(col off cache_hits)" = "null null null null null"

# a fresh build directory: one more fragment, which changes no symbol
printf '# kwarn compiler cache test %s: a fresh build directory\nCONFIG_64BIT=y\n' \
	"$nonce" >"$tmp/fresh.config"
start=$(date +%s)
run fresh --config "$tmp/fresh.config"
fresh_dir=$(sqlite3 "$tmp/fresh.db" "SELECT build_dir FROM builds LIMIT 1")
hits=$(jq '[.commits[].cache_hits] | add' "$tmp/fresh.json")
misses=$(jq '[.commits[].cache_misses] | add' "$tmp/fresh.json")
echo "# fresh: $(($(date +%s) - start)) s in $fresh_dir; hits $(col fresh cache_hits), misses $(col fresh cache_misses)"
check "fresh build directory: not the warm one" \
	test -n "$fresh_dir" -a "$fresh_dir" != \
	"$(sqlite3 "$tmp/warm.db" "SELECT build_dir FROM builds LIMIT 1")"
check "fresh build directory: the same warnings and identities" \
	cmp -s <(summary cold) <(summary fresh)
check "fresh build directory: most compiles from the cache ($hits hits, $misses misses)" \
	test "$hits" -ge 6 -a "$hits" -gt $((misses * 4))

# two machines sharing one Redis (Debian's redis-server, started here on
# 127.0.0.1): each has its own compiler cache directory (KWARN_CCACHE_DIR)
# and, as the man page asks of a team, the same KWARN_CACHE path.  Both
# build the series from the tip the last run left, so they compile the
# same objects: the second must find them on the remote.  Its counts come
# from ccache's own statistics of its directory, not from kwarn.
if ! command -v redis-server >/dev/null; then
	echo "# redis-server is not installed: run scripts/install-deps"
	ok 1 "redis-server installed"
	done_tap
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/redis"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
	--dir "$tmp/redis" >"$tmp/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do
	redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
	sleep 0.1
done
check "redis-server answers on 127.0.0.1:$port" \
	bash -c 'redis-cli -p "$1" ping | grep -q PONG' _ "$port"
KWARN_CCACHE_DIR=$tmp/machine1 run shared1 \
	--compiler-cache-remote "redis://127.0.0.1:$port"
KWARN_CCACHE_DIR=$tmp/machine2 run shared2 \
	--compiler-cache-remote "redis://127.0.0.1:$port"
stat2() { # COUNTER: ccache's count of the second machine's directory
	CCACHE_DIR=$tmp/machine2 CCACHE_CONFIGPATH=/dev/null \
		ccache --print-stats | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}
remote=$(stat2 remote_storage_hit)
miss=$(stat2 cache_miss)
local_hits=$(($(stat2 direct_cache_hit) + $(stat2 preprocessed_cache_hit)))
echo "# the second machine: ${remote:-?} remote hits, ${miss:-?} misses, $local_hits hits in all (remote ones included); kwarn's count: $(col shared2 cache_hits) hits, $(col shared2 cache_misses) misses"
check "the first machine compiled, the remote kept it ($(col shared1 cache_misses) misses)" \
	test "$(jq '[.commits[].cache_misses] | add' "$tmp/shared1.json")" -ge 5
# what the first machine compiled, the second takes from the remote; a
# point that repeats an earlier one's text (the restored marker) is a hit
# of what the second machine already fetched, in its own directory
first=$(jq '[.commits[].cache_misses] | add' "$tmp/shared1.json")
check "the second machine: at least 90% of the first's compiles from the remote, none compiled ($remote of $first)" \
	test "${remote:-0}" -ge 5 -a "${miss:-0}" = 0 -a \
	$((${remote:-0} * 10)) -ge $((first * 9))
check "the second machine: the same warnings and identities" \
	cmp -s <(summary cold) <(summary shared2)
kill "$redis_pid" 2>/dev/null
wait "$redis_pid" 2>/dev/null

done_tap
