#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn nightly --arch x86_64 --arch arm64: one nightly per architecture,
# in turn, into one database, single object (--targets kernel/panic.o),
# no boot, on the packaged 6.1 (issue 20).
#
#  - a bad or repeated --arch: one line, exit 2, no database made;
#  - night 1: exit 0, one nightly run per architecture, the arm64 one
#    built with the cross compiler and the arm64 qemu config, two JSON
#    reports one after the other;
#  - night 2: nothing new for either architecture, exit 0, nothing built.
#
# Cold: an arm64 config, prepare and one object (2-4 min on 2 cores),
# and the same for x86_64 unless the cache has it.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

db="$tmp/nightly.db"
# nightly ERRFILE ARGS...: stderr to ERRFILE, waiting while another
# nightly holds the cache's lock
nightly() {
	local try rc errf=$1
	shift
	for try in $(seq 60); do
		"$kwarn" nightly --db "$db" --series none --no-boot \
			--targets kernel/panic.o "$@" 2>"$errf"
		rc=$?
		[ "$rc" = 2 ] && grep -q 'another kwarn nightly holds' "$errf" ||
			return $rc
		echo "# the nightly lock is held, waiting ($try)" >&2
		sleep 20
	done
	return $rc
}

mkdir -p "$tmp/t"
ln -s /usr/src/linux-source-6.1.tar.xz "$tmp/t/linux-source-6.1.tar.xz"
for bad in "--arch x86_64 --arch sparc|unknown architecture 'sparc'" \
	"--arch arm64 --arch=arm64|--arch arm64 is given twice"; do
	args=${bad%%|*}
	pat=${bad#*|}
	# shellcheck disable=SC2086
	nightly "$tmp/err" --trees "$tmp/t" $args >"$tmp/out"
	rc=$?
	check "$args: exit 2 ($rc)" test "$rc" = 2
	check "$args: one line" test "$(wc -l <"$tmp/err")" = 1
	check "$args: says $pat" grep -q -- "$pat" "$tmp/err"
	check "$args: no database made" test ! -e "$db"
done
"$kwarn" nightly --arch x86_64 --arch arm64 --help >"$tmp/out" 2>&1
rc=$?
check "--help with two --arch: the usage once, exit 0 ($rc)" \
	test "$rc" = 0 -a "$(grep -c '^usage: kwarn nightly' "$tmp/out")" = 1

if [ ! -r /usr/src/linux-source-6.1.tar.xz ] ||
	! command -v aarch64-linux-gnu-gcc >/dev/null; then
	echo "# linux-source-6.1 or aarch64-linux-gnu-gcc is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and the arm64 cross compiler installed"
	done_tap
fi

start=$(date +%s)
nightly "$tmp/n1.err" --trees "$tmp/t" --arch x86_64 --arch arm64 \
	--format json >"$tmp/n1.json"
rc=$?
echo "# night 1 took $(($(date +%s) - start)) s, exit $rc"
[ "$rc" = 0 ] || tail -20 "$tmp/n1.err" | sed 's/^/# /'
check "night 1: exit 0 ($rc)" test "$rc" = 0
check "night 1: one nightly run per architecture" \
	test "$(sqlite3 "$db" "SELECT group_concat(arch, ' ') FROM
		(SELECT arch FROM runs WHERE kind = 'nightly' ORDER BY arch)")" = "arm64 x86_64"
check "night 1: the arm64 build is a cross build" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds b JOIN commits c
		ON c.id = b.commit_id JOIN runs r ON r.id = c.run_id
		WHERE r.arch = 'arm64' AND b.flags LIKE '%CROSS_COMPILE=aarch64-linux-gnu-%'")" = 1
check "night 1: the arm64 run has the arm64 qemu config" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM runs
		WHERE arch = 'arm64' AND config LIKE '%qemu-arm64.config%'")" = 1
check "night 1: two reports, x86_64 then arm64" \
	test "$(jq -s 'length' "$tmp/n1.json")" = 2
check "night 1: each report measured linux-source-6.1, nothing new" \
	test "$(jq -s '[.[] | .new, (.trees | length)] | join(" ")' \
		"$tmp/n1.json")" = '"0 1 0 1"'
check "night 1: stderr names each architecture" \
	test "$(grep -c 'nightly: architecture' "$tmp/n1.err")" = 2

nb=$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")
nightly "$tmp/n2.err" --trees "$tmp/t" --arch x86_64 --arch arm64 \
	>"$tmp/n2.out"
rc=$?
check "night 2: exit 0 ($rc)" test "$rc" = 0
check "night 2: nothing built" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = "$nb"
check "night 2: both architectures measured before" \
	test "$(grep -c 'measured before' "$tmp/n2.err")" = 2

done_tap
