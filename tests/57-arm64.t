#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# arm64: kwarn run --arch x86_64 --arch arm64 builds the four-patch test
# series of tests/25-series-e2e.t on linux-source-6.1 for both arches in one
# invocation (kernel/configs/qemu.config stands for each arch's qemu
# config), boots every arm64 point on qemu-system-aarch64 -M virt, and the
# series' warnings (arch-independent: kernel/panic.c and a header) come out
# with the same counts on both.  A missing cross gcc or QEMU is one line,
# exit 2, and nothing stored.
#
# Cold: one tinyconfig + qemu-arm64.config cross build of 6.1 (425 s at
# load 4-8 on 2 cores, 1295 s at load 13-18), the x86_64 build directory
# of 25-series-e2e.t (warm after it), then 20-30 s per point and a 1-4 s
# TCG boot per arm64 point.  Warm, arm64 alone: 3 min 14 s measured.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

series="$top/tests/data/series/series"
cfg="$top/kernel/configs/qemu.config"
sql() { sqlite3 "$1" "$2"; }

if [ ! -r /usr/src/linux-source-6.1.tar.xz ]; then
	echo "# linux-source-6.1 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 installed"
	done_tap
fi

# PATH without one program: a directory of links to everything else
path_without() {
	local dir=$tmp/path-$1 d f
	mkdir -p "$dir"
	for d in /usr/local/bin /usr/bin /bin; do
		for f in "$d"/*; do
			case ${f##*/} in "$1"*) continue ;; esac
			[ -e "$dir/${f##*/}" ] || ln -s "$f" "$dir/${f##*/}"
		done
	done
	echo "$dir"
}

# 1-6: no cross gcc, no QEMU: one line, exit 2, no run stored
for miss in aarch64-linux-gnu-gcc qemu-system-aarch64; do
	p=$(path_without "$miss")
	PATH=$p "$kwarn" run --db "$tmp/miss.db" --series "$series" \
		--config "$cfg" --arch arm64 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "no $miss: exit 2 (rc=$rc)" test "$rc" = 2
	check "no $miss: one line naming it ($(head -n 1 "$tmp/err"))" \
		test "$(wc -l <"$tmp/err")" = 1 -a -n "$(grep -- "$miss" "$tmp/err")"
	# no database made, or one that reads back with no run: an error
	# reading it is no number, so it fails
	check "no $miss: nothing stored" \
		test ! -s "$tmp/miss.db" -o "$(sql "$tmp/miss.db" 'SELECT COUNT(*) FROM runs' 2>&1)" = 0
done
"$kwarn" run --db "$tmp/miss.db" --arch sparc >"$tmp/out" 2>"$tmp/err"
rc=$?
check "unknown arch: exit 2 and names the choices" \
	test "$rc" = 2 -a -n "$(grep 'x86_64|arm64' "$tmp/err")"

# both arches in one invocation, waiting while another kwarn builds
db="$tmp/arm64.db"
start=$(date +%s)
for try in $(seq 40); do
	"$kwarn" run --db "$db" --series "$series" --config "$cfg" -j2 \
		--arch x86_64 --arch arm64 --boot-timeout 120 \
		>"$tmp/run.out" 2>"$tmp/run.err"
	rc=$?
	grep -q 'is in use by another kwarn' "$tmp/run.err" || break
	echo "# build directory in use, waiting ($try)"
	rm -f "$db"
	sleep 30
done
echo "# kwarn run took $(($(date +%s) - start)) s"
sed 's/^/# /' "$tmp/run.out"
check "kwarn run --arch x86_64 --arch arm64 exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/run.err" | tail -20

x86=$(sql "$db" "SELECT id FROM runs WHERE arch = 'x86_64'")
arm=$(sql "$db" "SELECT id FROM runs WHERE arch = 'arm64'")
check "one run per arch ($x86, $arm), one group" \
	test -n "$x86" -a -n "$arm" -a \
	"$(sql "$db" "SELECT COUNT(DISTINCT group_id) FROM runs")" = 1
check "arm64 run built with the arm64 qemu config" \
	test "$(sql "$db" "SELECT config FROM runs WHERE id = $arm")" = \
	"tinyconfig+qemu-arm64.config"
check "every arm64 build is stored as arm64" \
	test "$(sql "$db" "SELECT COUNT(*) FROM builds b JOIN commits c ON c.id = b.commit_id
		WHERE c.run_id = $arm AND b.arch = 'arm64'")" = 5
check "arm64 builds: ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" \
	test "$(sql "$db" "SELECT COUNT(*) FROM builds b JOIN commits c ON c.id = b.commit_id
		WHERE c.run_id = $arm AND b.flags LIKE '%ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-%'")" = 5
check "arm64 builds: the cross gcc" \
	test "$(sql "$db" "SELECT COUNT(*) FROM builds b JOIN commits c ON c.id = b.commit_id
		WHERE c.run_id = $arm AND b.compiler LIKE 'aarch64-linux-gnu-gcc%'")" = 5
img=$(sql "$db" "SELECT b.image FROM builds b JOIN commits c ON c.id = b.commit_id
	WHERE c.run_id = $arm ORDER BY b.id DESC LIMIT 1")
check "arm64 Image kept ($img)" test -r "$img" -a "${img%/arch/arm64/boot/Image}" != "$img"
check "arm64 Image is an arm64 kernel" \
	sh -c "file -b '$img' | grep -q 'ARM64\|aarch64'"
check "x86_64 builds carry no ARCH=" \
	test "$(sql "$db" "SELECT COUNT(*) FROM builds b JOIN commits c ON c.id = b.commit_id
		WHERE c.run_id = $x86 AND b.flags LIKE '%ARCH=%'")" = 0
check "x86_64 and arm64 build directories differ" \
	test "$(sql "$db" "SELECT COUNT(DISTINCT replace(replace(image, '/arch/arm64/boot/Image', ''), '/arch/x86/boot/bzImage', '')) FROM builds")" = 2

# the series' warnings: the same counts on both arches, point by point
counts() {
	sql "$db" "SELECT c.position, COUNT(s.identity_id) FROM commits c
		LEFT JOIN live_states s ON s.commit_id = c.id
		AND s.identity_id IN (SELECT id FROM identities
			WHERE file IN ('kernel/panic.c', 'include/linux/kwarn_selftest.h'))
		WHERE c.run_id = $1 GROUP BY c.position ORDER BY c.position" | tr '\n' ' '
}
ca=$(counts "$arm")
cx=$(counts "$x86")
echo "# series warnings per point: x86_64 $cx, arm64 $ca"
check "arm64: 0, 3, 2, 2, 1 series warnings per point" \
	test "$ca" = "0|0 1|3 2|2 3|2 4|1 "
check "arm64 counts equal x86_64's" test "$ca" = "$cx"

"$kwarn" report --db "$db" --run "$arm" --format json >"$tmp/report.json"
j() { jq -r "$1" "$tmp/report.json"; }
check "arm64 report: patch 1 three new" test "$(j '.commits[1].new')" = 3
check "arm64 report: patch 2 one fixed" test "$(j '.commits[2].fixed')" = 1
check "arm64 report: patch 3 moves lines, nothing new" test "$(j '.commits[3].new')" = 0
check "arm64 report: patch 4 one fixed" test "$(j '.commits[4].fixed')" = 1

# boots: every arm64 point passes on qemu-system-aarch64
check "every arm64 point booted and passed" \
	test "$(sql "$db" "SELECT COUNT(*) FROM boots o JOIN builds b ON b.id = o.build_id
		JOIN commits c ON c.id = b.commit_id
		WHERE c.run_id = $arm AND o.verdict = 'pass'")" = 5
sql "$db" "SELECT o.verdict, o.duration_ms FROM boots o JOIN builds b ON b.id = o.build_id
	JOIN commits c ON c.id = b.commit_id WHERE c.run_id = $arm" |
	tr '\n' ' ' | sed 's/^/# arm64 boots (verdict|ms): /'
echo
# kwarn boot of the stored arm64 build: the arch comes from the image
bid=$(sql "$db" "SELECT b.id FROM builds b JOIN commits c ON c.id = b.commit_id
	WHERE c.run_id = $arm ORDER BY b.id DESC LIMIT 1")
"$kwarn" boot --db "$db" --build "$bid" --log "$tmp/boot.log" >"$tmp/boot.out" 2>&1
check "kwarn boot --db --build of an arm64 build: pass ($(head -n 1 "$tmp/boot.out"))" \
	grep -q '^pass ' "$tmp/boot.out"
check "its log is the PL011 console's, with the marker" \
	test -n "$(grep 'ttyAMA0' "$tmp/boot.log")" -a -n "$(grep '^KWARN-BOOT-OK nonce=' "$tmp/boot.log")"
p=$(path_without qemu-system-aarch64)
PATH=$p "$kwarn" boot --kernel "$img" >"$tmp/boot.out" 2>&1
rc=$?
check "kwarn boot without qemu-system-aarch64: infra, exit 1 ($(head -n 1 "$tmp/boot.out"))" \
	test "$rc" = 1 -a -n "$(grep '^infra .*qemu-system-aarch64' "$tmp/boot.out")"

# the same run again: measured, nothing rebuilt
"$kwarn" run --db "$db" --series "$series" --config "$cfg" --arch arm64 \
	>"$tmp/again.out" 2>&1
check "arm64 run again: already measured" grep -q 'already measured' "$tmp/again.out"

done_tap
