#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn run --checker sparse on the packaged 6.1 tree: kbuild's CHECK runs
# through kwarn-cc, so sparse's diagnostics are kept object by object like
# the compiler's.  The series of tests/data/sparse-series adds an address
# space mismatch to kernel/panic.c (new at 1, kind sparse, with sparse's
# "expected"/"got" lines as notes), touches only kernel/exit.c (the
# warning carried: neither fixed nor new), moves it down (same identity)
# and fixes it (fixed at 4).  The first point checks every target (C=2),
# the later ones only what they compile (C=1); what kwarn stores is held
# to sparse's own lines in each point's make log.  A missing or unknown
# checker is one line and exit 2, before anything is built.
#
# Only kernel/panic.o and kernel/exit.o (--targets, no boot): a minute or
# two warm, about 8 minutes with a cold build directory.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ] || ! command -v sparse >/dev/null; then
	echo "# linux-source-6.1 or sparse is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and sparse installed"
	done_tap
fi

series="$top/tests/data/sparse-series/series"
cfg="$top/kernel/configs/qemu.config"
targets=kernel/panic.o,kernel/exit.o

# a PATH with every command but sparse
mkdir "$tmp/nosparse"
for d in /usr/local/bin /usr/bin /bin; do
	for f in "$d"/*; do
		b=${f##*/}
		[ "$b" = sparse ] || [ -e "$tmp/nosparse/$b" ] ||
			ln -s "$f" "$tmp/nosparse/$b"
	done
done
PATH="$tmp/nosparse" "$kwarn" run --db "$tmp/none.db" --series "$series" \
	--config "$cfg" --targets "$targets" --checker sparse \
	>"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
sed 's/^/# /' "$tmp/none.err"
check "no sparse: exit 2 (rc=$rc)" test "$rc" = 2
check "no sparse: one line that says so" \
	test "$(wc -l <"$tmp/none.err")" = 1 -a \
	"$(grep -c 'sparse is not installed' "$tmp/none.err")" = 1
check "no sparse: nothing built, no database made" test ! -e "$tmp/none.db"
"$kwarn" run --db "$tmp/none.db" --series "$series" --config "$cfg" \
	--targets "$targets" --checker smatch >/dev/null 2>"$tmp/smatch.err"
rc=$?
check "an unknown checker: exit 2 (rc=$rc), named" \
	test "$rc" = 2 -a "$(grep -c "unknown checker 'smatch'" "$tmp/smatch.err")" = 1

for try in $(seq 40); do
	"$kwarn" run --db "$tmp/s.db" --series "$series" --config "$cfg" \
		--targets "$targets" --checker sparse -j2 \
		>"$tmp/run.out" 2>"$tmp/run.err"
	rc=$?
	grep -q 'is in use by another kwarn' "$tmp/run.err" || break
	echo "# build directory in use, waiting ($try)"
	rm -f "$tmp/s.db"
	sleep 30
done
check "kwarn run --checker sparse exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -20 "$tmp/run.err" | sed 's/^/# /'
"$kwarn" report --db "$tmp/s.db" --format json >"$tmp/r.json"
j() { jq -r "$1" "$tmp/r.json"; }
check "five points, all built" \
	test "$(j '[.commits[] | select(.status == "ok")] | length')" = 5
for k in 0 1 2 3 4; do
	echo "# point $k: $(j ".commits[$k] | \"\(.warnings) warnings, \(.new) new, \(.fixed) fixed\"")"
done

# what kwarn stored against sparse's own lines in each point's make log
bdir=$(sqlite3 "$tmp/s.db" 'SELECT DISTINCT build_dir FROM builds')
echo "# build directory: $bdir"
logs="$bdir/.kwarn"
# kbuild's "  CHECK   SRC/kernel/panic.c" (SRC: the work tree, absolute)
checked() { # POINT FILE
	grep -cE "^  CHECK +/.*/src/$2\$" "$logs/make-$1.log"
}
check "the first point checked both targets (C=2)" \
	test "$(checked 0 kernel/panic.c)/$(checked 0 kernel/exit.c)" = 1/1
check "point 2 checked what it compiled: exit.c, not panic.c (C=1)" \
	test "$(checked 2 kernel/exit.c)/$(checked 2 kernel/panic.c)" = 1/0
# sparse's diagnostics in the make log: FILE:LINE:COL: warning|error:
said() {
	grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error): ' "$logs/make-$1.log" |
		sort -u | wc -l
}
stored() { # POINT [OBJECT]
	j "[.commits[$1].warnings_list[] | select(.kind == \"sparse\" and
		.state != \"fixed\" and (\"${2:-}\" == \"\" or
		.object == \"${2:-}\"))] | length"
}
check "point 0: every line sparse printed is stored ($(said 0) said, $(stored 0) stored)" \
	test "$(said 0)" = "$(stored 0)"
check "point 0: gcc says nothing on pristine 6.1, so every warning is sparse's" \
	test "$(j '.commits[0].warnings')" = "$(stored 0)"

sel='.warnings_list[] | select(.function == "kwarn_sparse_selftest")'
w1=$(j ".commits[1] | $sel")
echo "$w1" | jq -c '{kind, state, file, line, object, message}' | sed 's/^/# /'
check "point 1: one new warning, none fixed" \
	test "$(j '.commits[1].new')/$(j '.commits[1].fixed')" = 1/0
check "point 1: it is sparse's address space mismatch, new" \
	test "$(echo "$w1" | jq -r '.kind + "/" + .state + "/" + .message')" = \
	"sparse/new/incorrect type in initializer (different address spaces)"
check "point 1: in kernel/panic.c, of object kernel/panic.o" \
	test "$(echo "$w1" | jq -r '.file + " " + .object')" = \
	"kernel/panic.c kernel/panic.o"
# the line the series' first patch puts the initializer on
want=$(awk '/^@@/ { split($3, a, ","); l = substr(a[1], 2) - 1; next }
	/^[ +]/ { l++ } /^\+\tint \*kptr = uptr;/ { print l; exit }' \
	"$top"/tests/data/sparse-series/0001-*.patch)
check "point 1: at the line of the initializer ($want)" \
	test "$(echo "$w1" | jq -r .line)" = "$want"
check "point 1: sparse's expected and got lines are its notes" \
	test "$(echo "$w1" | jq -r '[.notes[].message] | join("|")')" = \
	"expected int *kptr|got int [noderef] __user *uptr"
check "point 2 compiled only exit.c: nothing new, nothing fixed" \
	test "$(j '.commits[2].new')/$(j '.commits[2].fixed')" = 0/0
check "point 2: panic.c's sparse warning is carried, not fixed" \
	test "$(j ".commits[2] | $sel | .state")" != fixed -a \
	-n "$(j ".commits[2] | $sel | .state")"
check "point 3 moved it: nothing new, nothing fixed" \
	test "$(j '.commits[3].new')/$(j '.commits[3].fixed')" = 0/0
check "point 3: the same identity three lines down" \
	test "$(j ".commits[3] | $sel | .identity")" = \
	"$(echo "$w1" | jq -r .identity)" -a \
	"$(j ".commits[3] | $sel | .line")" = $(($(echo "$w1" | jq -r .line) + 3))
check "point 4 keeps the address space: that warning fixed, nothing new" \
	test "$(j '.commits[4].fixed')/$(j '.commits[4].new')" = 1/0 -a \
	"$(j ".commits[4] | $sel | .state")" = fixed
check "point 4: every line sparse printed for panic.c is stored ($(said 4))" \
	test "$(said 4)" = "$(stored 4 kernel/panic.o)"
done_tap
