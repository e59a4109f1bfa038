#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn nightly as a campaign matrix: --cc gcc --cc clang-16 on the
# packaged 6.1, single object (--targets kernel/panic.o), no boot.
#
#  - a bad --cc or --warnings item: one line, exit 2, nothing built;
#  - night 1 (packaged 6.1, repacked): one report entry per compiler,
#    nothing new;
#  - night 2 (6.1 with a missing break appended to kernel/panic.c): exit
#    1, each compiler compared with its own night 1, both name the new
#    warning and their compiler; --mail writes one message per compiler
#    with ">>" on exactly the new warning and the MAINTAINERS list;
#  - night 3: nothing new, exit 0, nothing built.
#
# Each upload is imported once (about 1 min) and built once per compiler
# (a config, prepare and one object: 1-2 min each on 2 cores); the cache
# keeps both for the next time.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"
. "$top/tests/lib/nightly-probe.sh"

db="$tmp/nightly.db"
cfg="$top/kernel/configs/qemu.config"
# (waiting while another engineer's nightly holds the cache's lock)
# nightly ERRFILE ARGS...: stderr to ERRFILE
nightly() {
	local try rc errf=$1
	shift
	for try in $(seq 60); do
		"$kwarn" nightly --db "$db" --config "$cfg" --series none \
			--no-boot --targets kernel/panic.o "$@" 2>"$errf"
		rc=$?
		[ "$rc" = 2 ] && grep -q 'another kwarn nightly holds' "$errf" ||
			return $rc
		echo "# the nightly lock is held, waiting ($try)" >&2
		sleep 20
	done
	return $rc
}
# The number of builds: 0 while no database was made; when it cannot be
# read, the error, which is no number and fails the comparison.
builds() {
	if [ -s "$db" ]; then
		sqlite3 "$db" "SELECT COUNT(*) FROM builds" 2>&1
	else
		echo 0
	fi
}

# bad input, before anything is imported or built
mkdir -p "$tmp/t0"
ln -s /usr/src/linux-source-6.1.tar.xz "$tmp/t0/linux-source-6.1.tar.xz"
for bad in "--cc icc|unknown compiler 'icc'" \
	"--cc gcc --cc gcc|--cc gcc is given twice" \
	"--warnings W=1,-O2|'-O2' is neither W=N nor a -W"; do
	args=${bad%%|*}
	pat=${bad#*|}
	# shellcheck disable=SC2086
	nightly "$tmp/err" --trees "$tmp/t0" $args >"$tmp/out"
	rc=$?
	check "$args: exit 2 ($rc)" test "$rc" = 2
	check "$args: one line" test "$(wc -l <"$tmp/err")" = 1
	check "$args: says $pat" grep -q -- "$pat" "$tmp/err"
	check "$args: nothing built" test "$(builds)" = 0
done

if [ ! -r /usr/src/linux-source-6.1.tar.xz ] || ! command -v clang-16 >/dev/null; then
	echo "# linux-source-6.1 or clang-16 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and clang-16 installed"
	done_tap
fi

# night 1: the packaged tree repacked (an upload of its own: its own
# import and lock, the same bytes every time), both compilers
probe_upload "$tmp/t1"
start=$(date +%s)
nightly "$tmp/n1.err" --trees "$tmp/t1" --cc gcc --cc clang-16 \
	--format json >"$tmp/n1.json"
rc=$?
echo "# night 1 took $(($(date +%s) - start)) s, exit $rc"
[ "$rc" -le 1 ] || tail -20 "$tmp/n1.err" | sed 's/^/# /'
check "night 1: nothing to compare with, exit 0 ($rc)" test "$rc" = 0
check "night 1: one entry per compiler" \
	test "$(jq -r '[.trees[].compiler] | map(split(" ")[0]) | sort | join(",")' "$tmp/n1.json")" = "Debian,gcc"
check "night 1: the clang entry is clang 16" \
	grep -q '"compiler": "Debian clang version 16' "$tmp/n1.json"
check "night 1: two nightly runs, runs.compiler gcc and clang-16" \
	test "$(sqlite3 "$db" "SELECT group_concat(compiler, ',') FROM (SELECT compiler FROM runs WHERE kind = 'nightly' ORDER BY compiler)")" = "clang-16,gcc"

# night 2: a new upload with a missing break
probe_upload "$tmp/t2" kwarn_nightly_probe
want=$probe_line
start=$(date +%s)
nightly "$tmp/n2.err" --trees "$tmp/t2" --cc gcc --cc clang-16 \
	--mail "$tmp/n2.mbox" >"$tmp/n2.txt"
rc=$?
echo "# night 2 took $(($(date +%s) - start)) s, exit $rc"
sed 's/^/# /' "$tmp/n2.txt"
[ "$rc" -le 1 ] || tail -20 "$tmp/n2.err" | sed 's/^/# /'
check "night 2: new warning, exit 1 ($rc)" test "$rc" = 1
check "night 2: gcc names it" \
	grep -q ">> kernel/panic.c:$want: in 'kwarn_nightly_probe'.*; gcc (" "$tmp/n2.txt"
# clang warns on the next case label, the line after the falling statement
check "night 2: clang-16 names it" \
	grep -q ">> kernel/panic.c:$((want + 1)): in 'kwarn_nightly_probe'.*; Debian clang version 16" "$tmp/n2.txt"
check "night 2: each compared with its own night 1" \
	test "$(grep -c 'compared with the last nightly of this tree' "$tmp/n2.txt")" = 2
check "night 2: nothing else is new" test "$(grep -c '^>> ' "$tmp/n2.txt")" = 2
check "night 2: no compiler change seen (each cell has its own)" \
	test "$(grep -c 'the compiler changed' "$tmp/n2.txt")" = 0

# the mail: one message per compiler, >> exactly on the new warning
mb="$tmp/n2.mbox"
check "mail: two messages" test "$(grep -c '^From kwarn@localhost ' "$mb")" = 2
check "mail: the subject names the tree, nightly and the count" \
	test "$(grep -c '^Subject: \[kwarn linux-source-6.1 6.1.[0-9]* nightly\] 1 new warning: kernel/panic.c:' "$mb")" = 2
check "mail: compiler lines for both" \
	test "$(grep -E -c '^compiler: (gcc \(Debian|Debian clang version 16)' "$mb")" = 2
check "mail: the >> warning lines are the new warning's, nothing else" \
	test "$(grep -E '^>> [^ ]*: (warning|error):' "$mb" | grep -c -v "kernel/panic.c:\($want\|$((want + 1))\):")" = 0
check "mail: one >> warning line per message" \
	test "$(grep -E -c '^>> [^ ]*: (warning|error):' "$mb")" = 2
# the robot's marks: '>>' on the warning's line alone, its source under it
check "mail: the source line is shown, unmarked" \
	grep -q "^   *$want | *r = 10;" "$mb"
check "mail: MAINTAINERS' list for kernel/panic.c on Cc" \
	grep -q 'linux-kernel@vger.kernel.org' "$mb"
check "mail: a reproducer" grep -q '^reproduce:' "$mb"

# night 3: nothing new
mid=$(builds)
nightly "$tmp/n3.err" --trees "$tmp/t2" --cc gcc --cc clang-16 \
	>"$tmp/n3.txt"
rc=$?
check "night 3: nothing new, exit 0 ($rc)" test "$rc" = 0
check "night 3: both measured before" \
	test "$(grep -c 'measured before' "$tmp/n3.err")" = 2
check "night 3: nothing built" test "$(builds)" = "$mid"

done_tap
