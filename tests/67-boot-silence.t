#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn run --boot-silence and --force on the real packaged tree: one point,
# pristine 6.1 plus the base overlay of tests/data/boot-silence, whose
# kernel says "kwarn: silent for 15 s", sleeps 15 s without a word on the
# console, then says it is over.
#
#  - --boot-silence 5: the boot is a hang, stopped in the pause (its log
#    has the pause's first line and not its last), well before the boot
#    that waits.
#  - the same run again: already measured, nothing built or booted.
#  - --force --boot-silence 60: measured again, a second run and build,
#    and the boot passes through the pause.
#
# The qemu config's build directory of 25-series-e2e.t (warm after it): a
# point rebuilds kernel/panic.o and relinks, then two TCG boots (7 s and
# 17 s measured: other threads print during the first second of the
# pause).  The bzImage left there has the pause, so the pointer
# that lets 30-boot.t reuse 25-series-e2e.t's kernel is removed at the end.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ] || ! command -v qemu-system-x86_64 >/dev/null; then
	echo "# linux-source-6.1 or QEMU is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and qemu-system-x86_64 installed"
	done_tap
fi

db="$tmp/silence.db"
series="$top/tests/data/boot-silence/series"
cfg="$top/kernel/configs/qemu.config"
sql() { sqlite3 "$db" "$1"; }

# run NAME ARGS...: kwarn run of the series into $db, waiting while another
# kwarn holds the build directory
run() {
	local name=$1 try rc start
	shift
	start=$(date +%s)
	for try in $(seq 40); do
		nice -n 10 "$kwarn" run --db "$db" --series "$series" \
			--config "$cfg" -j2 "$@" \
			>"$tmp/$name.out" 2>"$tmp/$name.err"
		rc=$?
		grep -q 'is in use by another kwarn' "$tmp/$name.err" || break
		echo "# build directory in use, waiting ($try)"
		sleep 30
	done
	echo "# $name: $(($(date +%s) - start)) s"
	check "$name: kwarn run exits 0 (rc=$rc)" test "$rc" = 0
	[ "$rc" = 0 ] || tail -5 "$tmp/$name.err" | sed 's/^/# /'
}
# boot RUN FIELD: the field of the boot of run RUN's only point
boot() {
	sql "SELECT b.$2 FROM boots b JOIN builds u ON u.id = b.build_id
		JOIN commits c ON c.id = u.commit_id WHERE c.run_id = $1
		ORDER BY b.id DESC LIMIT 1"
}
# bootlog RUN: the console log of that boot (stored zlib-compressed)
bootlog() {
	sql "SELECT hex(b.log) FROM boots b JOIN builds u ON u.id = b.build_id
		JOIN commits c ON c.id = u.commit_id WHERE c.run_id = $1
		ORDER BY b.id DESC LIMIT 1" |
		python3 -c 'import sys, zlib
h = sys.stdin.read().strip()
if h:
    sys.stdout.write(zlib.decompress(bytes.fromhex(h)).decode("utf-8", "replace"))' |
		tr -d '\r'
}

run silent5 --boot-silence 5
check "one point" test "$(sql "SELECT COUNT(*) FROM commits")" = 1
check "--boot-silence 5: the boot is a hang ($(boot 1 verdict))" \
	test "$(boot 1 verdict)" = hang
check "--boot-silence 5: the reason is the silence" \
	grep -q '^silent past the timeout' <(boot 1 reason)
bootlog 1 >"$tmp/hang.log"
tail -2 "$tmp/hang.log" | sed 's/^/# hang log: /'
# (other threads may still print a line or two after the pause began)
check "--boot-silence 5: stopped in the pause (its first line, not its last)" \
	sh -c "grep -q 'kwarn: silent for 15 s' '$tmp/hang.log' &&
		! grep -q 'kwarn: silent pause over' '$tmp/hang.log'"

run again --boot-silence 5
check "the same run again: already measured" \
	grep -q '^run 1: already measured' "$tmp/again.out"
check "the same run again: no second run" test "$(sql "SELECT COUNT(*) FROM runs")" = 1
check "the same run again: nothing built" test "$(sql "SELECT COUNT(*) FROM builds")" = 1

run force --force --boot-silence 60
check "--force: a second run" \
	test "$(sql "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 2
check "--force: the point built again" test "$(sql "SELECT COUNT(*) FROM builds")" = 2
check "--force --boot-silence 60: the boot passes ($(boot 2 verdict))" \
	test "$(boot 2 verdict)" = pass
bootlog 2 >"$tmp/pass.log"
check "--boot-silence 60: the boot went through the pause" \
	grep -q 'kwarn: silent pause over' "$tmp/pass.log"
d1=$(boot 1 duration_ms)
d2=$(boot 2 duration_ms)
echo "# boots: hang after $d1 ms, pass after $d2 ms"
check "the hang was stopped at least 5 s before the pause ended" \
	test "${d1:-0}" -gt 0 -a "${d2:-0}" -gt $((${d1:-0} + 5000))

# the bzImage now has the pause: 30-boot.t must not take it for the series'
img=$(sql "SELECT image FROM builds ORDER BY id DESC LIMIT 1")
if [ -n "$img" ] && [ "$(cat "$KWARN_CACHE/test-e2e.image" 2>/dev/null)" = "$img" ]; then
	rm -f "$KWARN_CACHE/test-e2e.image"
fi

done_tap
