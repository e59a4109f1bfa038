#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# Distributed builds keep every comment marker (issue 9): two distccd
# daemons on 127.0.0.1 and distcc-pump's include server (tests/lib/
# distcc-farm.sh), then the test series built for kernel/panic.o and
# kernel/exit.o locally and through the daemons with --cc-launcher distcc.
# Per point, the warnings (identities, files, lines, columns, sources,
# notes) must be exactly the local build's, and the daemons' logs must
# show that panic.c was compiled by them.  Setups that would not be exact
# are refused: plain distcc, pump mode when the daemons cannot read the
# sources at the paths the client uses, and Debian 12's include server
# without scripts/distcc-pump-fix (it falls back to local preprocessing).
# The comparison builds run without the compiler cache, so that every
# compile reaches the daemons; one more run puts the cache (empty) in
# front of the pump, as kwarn does by default.
#
# The daemons run as the user distccd when started by root, and a build
# host must see the kwarn cache at the same path, so the cache of this
# test is KWARN_DISTCC_CACHE (default /var/tmp/kwarn-distcc, readable by
# all), not ~/.cache/kwarn.  Cold (unpacking the tree, then two small
# builds: make prepare and two objects per point): 2.5 minutes on 2 cores
# measured; warm under a minute.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_DISTCC_CACHE:-/var/tmp/kwarn-distcc}"
tmp=$(mktemp -d)
. "$top/tests/lib/distcc-farm.sh"
trap 'farm_stop; rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ]; then
	echo "# linux-source-6.1 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 installed"
	done_tap
fi
mkdir -p "$KWARN_CACHE" && chmod 755 "$KWARN_CACHE"
series="$top/tests/data/series/series"
cfg="$top/kernel/configs/qemu.config"
targets=kernel/panic.o,kernel/exit.o
run() { # run DB [kwarn run options...]: every object compiled
	local db=$1
	shift
	"$kwarn" run --db "$db" --series "$series" --config "$cfg" \
		--targets "$targets" --no-boot -j2 --no-compiler-cache "$@"
}

# plain distcc, no include server: refused before anything is built
export DISTCC_HOSTS="127.0.0.1:1/2,lzo"
run "$tmp/plain.db" --cc-launcher distcc >"$tmp/plain.out" 2>"$tmp/plain.err"
rc=$?
sed 's/^/# /' "$tmp/plain.err"
check "plain distcc is refused (rc=$rc)" test "$rc" != 0
check "and says that comments are dropped" \
	grep -q "without pump mode.*drops every /\* fall through \*/" \
	"$tmp/plain.err"
check "in one line" test "$(wc -l <"$tmp/plain.err")" = 1
unset DISTCC_HOSTS

if ! farm_start "$tmp" 600; then
	ok 1 "two distccd daemons and the include server start"
	done_tap
fi
ok 0 "two distccd daemons and the include server start"
echo "# DISTCC_HOSTS=$DISTCC_HOSTS"

start=$(date +%s)
run "$tmp/local.db" >"$tmp/local.out" 2>"$tmp/local.err"
rc=$?
echo "# local build: $(($(date +%s) - start)) s"
check "local build exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/local.err" | tail -20

start=$(date +%s)
run "$tmp/dist.db" --cc-launcher distcc >"$tmp/dist.out" 2>"$tmp/dist.err"
rc=$?
echo "# distributed build: $(($(date +%s) - start)) s"
check "distributed build exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/dist.err" | tail -20
check "no point failed to build" \
	bash -c '! grep -q "did not build" "$1" "$2"' _ "$tmp/local.err" \
	"$tmp/dist.err"

"$kwarn" report --db "$tmp/local.db" --format json >"$tmp/local.json"
"$kwarn" report --db "$tmp/dist.db" --format json >"$tmp/dist.json"
# per point: what was measured, and each warning with what identifies
# and locates it (commit ids differ: the two runs import their own)
q='[.commits[] | {subject, status, warnings, new, fixed,
	list: [.warnings_list[] | {identity, state, file, line, column,
		function, option, message, source, object, seen, notes}]
		| sort_by(.identity)}]'
jq "$q" "$tmp/local.json" >"$tmp/local.cmp"
jq "$q" "$tmp/dist.json" >"$tmp/dist.cmp"
check "five points measured locally" \
	test "$(jq '[.[] | select(.status == "ok")] | length' \
		"$tmp/local.cmp")" = 5
check "five points measured distributed" \
	test "$(jq '[.[] | select(.status == "ok")] | length' \
		"$tmp/dist.cmp")" = 5
warn2=$(jq '.[2].warnings' "$tmp/local.cmp")
echo "# point 2 (marker added): $warn2 warnings locally"
check "point 2: the marker is honoured locally (2 warnings, 1 fixed)" \
	test "$warn2/$(jq '.[2].fixed' "$tmp/local.cmp")" = 2/1
check "the local build has source lines and notes" \
	test "$(jq '[.[2].list[] | select(.source != null and
		(.notes | length) > 0)] | length' "$tmp/local.cmp")" -ge 2
for k in 0 1 2 3 4; do
	check "point $k: the distributed warnings are exactly the local ones" \
		cmp -s <(jq ".[$k]" "$tmp/local.cmp") <(jq ".[$k]" "$tmp/dist.cmp")
done
if ! cmp -s "$tmp/local.cmp" "$tmp/dist.cmp"; then
	diff "$tmp/local.cmp" "$tmp/dist.cmp" | head -40 | sed 's/^/# /'
fi

logs=("$tmp"/distccd1.log "$tmp"/distccd2.log)
panic=$(cat "${logs[@]}" | grep "COMPILE_OK" | grep -c "kernel/panic\.c")
echo "# panic.c compiled by the daemons: $panic times"
check "the daemons compiled kernel/panic.c at every point" test "$panic" -ge 5
check "both daemons took compiles" \
	test "$(grep -c COMPILE_OK "${logs[0]}")" -gt 0 -a \
	"$(grep -c COMPILE_OK "${logs[1]}")" -gt 0
check "no compile was preprocessed locally" \
	bash -c '! grep -q "preprocessing locally" "$@"' _ "$tmp/dist.err" \
	"$KWARN_CACHE"/builds/*/.kwarn/make-*.log

# the compiler cache in front of the pump (kwarn's default): an empty
# cache, so that its misses go to the daemons, and the same warnings
rm -rf "$KWARN_CACHE/ccache"
before=$(cat "${logs[@]}" | grep "COMPILE_OK" | grep -c "kernel/panic\.c")
"$kwarn" run --db "$tmp/cached.db" --series "$series" --config "$cfg" \
	--targets "$targets" --no-boot -j2 --cc-launcher distcc \
	>"$tmp/cached.out" 2>"$tmp/cached.err"
rc=$?
check "distributed build through the compiler cache exits 0 (rc=$rc)" \
	test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/cached.err" | tail -20
"$kwarn" report --db "$tmp/cached.db" --format json >"$tmp/cached.json"
jq "$q" "$tmp/cached.json" >"$tmp/cached.cmp"
check "through the cache and the pump: exactly the local warnings" \
	cmp -s "$tmp/local.cmp" "$tmp/cached.cmp"
misses=$(jq '[.commits[].cache_misses // 0] | add' "$tmp/cached.json")
after=$(cat "${logs[@]}" | grep "COMPILE_OK" | grep -c "kernel/panic\.c")
echo "# through the cache: $misses misses, panic.c compiled by the daemons $((after - before)) times"
check "the cache's misses went to the daemons ($misses misses)" \
	test "$misses" -ge 2 -a "$after" -gt "$before"

# the same pump setup, with the sources unreadable for the daemons (a
# build host that does not share the cache): refused by the test compile
if [ "$(id -u)" = 0 ] && getent passwd distccd >/dev/null; then
	hidden="$tmp/hidden"
	mkdir -m 700 "$hidden"
	KWARN_CACHE="$hidden" run "$tmp/hidden.db" --cc-launcher distcc \
		>"$tmp/hidden.out" 2>"$tmp/hidden.err"
	rc=$?
	sed 's/^/# /' "$tmp/hidden.err" | head -3
	check "hosts that cannot read the sources are refused (rc=$rc)" \
		test "$rc" != 0
	check "and told why" grep -q "changes gcc's diagnostics" \
		"$tmp/hidden.err"
else
	skip "unreadable sources need root and the distccd user"
	skip "unreadable sources need root and the distccd user"
fi

# Debian 12's include server without scripts/distcc-pump-fix: it gives
# up on every file and distcc preprocesses locally; the test compile sees it
distcc-pump --shutdown >/dev/null 2>&1
if PYTHONPATH=/usr/lib/python3/dist-packages/include_server python3 -c '
import distcc_pump_c_extensions as m
m.OsPathExists("/")' 2>/dev/null; then
	skip "this distcc-pump's include server works unfixed"
	skip "this distcc-pump's include server works unfixed"
else
	eval "$(distcc-pump --startup 2>/dev/null)"
	run "$tmp/broken.db" --cc-launcher distcc \
		>"$tmp/broken.out" 2>"$tmp/broken.err"
	rc=$?
	distcc-pump --shutdown >/dev/null 2>&1
	sed 's/^/# /' "$tmp/broken.err" | head -3
	check "an include server that falls back to local cpp is refused (rc=$rc)" \
		test "$rc" != 0
	check "and told why" grep -q "include server gave up" "$tmp/broken.err"
fi

farm_stop
check "the daemons are gone" \
	bash -c '! pgrep -f "distccd.*--port $1" >/dev/null' _ "$farm_port1"
done_tap
