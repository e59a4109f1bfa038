#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# What kbuild runs beside the compiler, in kwarn run: sparse through
# kbuild's CHECK (--checker sparse), wrapped by kwarn-cc so its lines are
# kept object by object, and kernel-doc and objtool, which W=1 and
# CONFIG_OBJTOOL run in every object's rule with their lines in make's log
# only.  The series of tests/data/tools-series adds to kernel/panic.c an
# address space mismatch (sparse, with its "expected"/"got" lines as
# notes) under a comment that documents the wrong parameter (kernel-doc:
# two warnings), and a call with user access enabled (objtool), each new
# at 1 with its kind and object; touches only kernel/exit.c (carried:
# neither fixed nor new); moves them down (same identities); fixes all
# (fixed at 4).  The first point checks every target (C=2), later ones only what they
# compile (C=1); what kwarn stores is held to sparse's and kernel-doc's own
# lines in each point's make log.  A missing or unknown checker is one
# line and exit 2, before anything is built.
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

series="$top/tests/data/tools-series/series"
cfg="$top/kernel/configs/qemu.config"
# kernel/pid.c: one kernel-doc warning in 6.1, and the series leaves it be
targets=kernel/panic.o,kernel/exit.o,kernel/pid.o

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
		--targets "$targets" --checker sparse --warnings W=1 -j2 \
		>"$tmp/run.out" 2>"$tmp/run.err"
	rc=$?
	grep -q 'is in use by another kwarn' "$tmp/run.err" || break
	echo "# build directory in use, waiting ($try)"
	rm -f "$tmp/s.db"
	sleep 30
done
check "kwarn run --checker sparse --warnings W=1 exits 0 (rc=$rc)" test "$rc" = 0
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
said() { # POINT [FILE]
	grep -E "^[^ :]*${2:-}:[0-9]+:[0-9]+: (warning|error): " \
		"$logs/make-$1.log" | grep -v '\[-W' | sort -u | wc -l
}
# kernel-doc's: FILE:LINE: warning: (a line, no column)
kdoc_said() { # POINT [FILE]
	grep -E "^[^ :]*${2:-}:[0-9]+: (warning|error): " "$logs/make-$1.log" |
		sort -u | wc -l
}
stored() { # POINT KIND [OBJECT]
	j "[.commits[$1].warnings_list[] | select(.kind == \"$2\" and
		.state != \"fixed\" and (\"${3:-}\" == \"\" or
		.object == \"${3:-}\"))] | length"
}
check "point 0: every line sparse printed is stored ($(said 0) said, $(stored 0 sparse) stored)" \
	test "$(said 0)" = "$(stored 0 sparse)" -a "$(said 0)" -gt 0
# kernel-doc on the packaged sources, run here: at point 0 make compiles
# nothing in a warm build directory, and prints no kernel-doc line then
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$tmp" \
	linux-source-6.1/scripts/kernel-doc linux-source-6.1/kernel/panic.c \
	linux-source-6.1/kernel/exit.c linux-source-6.1/kernel/pid.c
kdoc() { # FILE...
	(cd "$tmp/linux-source-6.1" && perl scripts/kernel-doc -none "$@" 2>&1 |
		grep -cE '^kernel/[a-z]+\.c:[0-9]+: warning: ')
}
kdoc0=$(kdoc kernel/panic.c kernel/exit.c kernel/pid.c)
check "point 0: kernel-doc's warnings on the packaged sources are stored ($kdoc0 said, $(stored 0 kernel-doc) stored)" \
	test "$kdoc0" = "$(stored 0 kernel-doc)"

sel='.warnings_list[] | select(.function == "kwarn_sparse_selftest")'
sp='select(.kind == "sparse")'
kd='select(.kind == "kernel-doc")'
w1=$(j ".commits[1] | $sel | $sp")
echo "$w1" | jq -c '{kind, state, file, line, object, message}' | sed 's/^/# /'
j ".commits[1] | $sel | $kd" | jq -c '{kind, state, file, line, object, message}' | sed 's/^/# /'
check "point 1: four new warnings (one sparse, two kernel-doc, one objtool), none fixed" \
	test "$(j '.commits[1].new')/$(j '.commits[1].fixed')" = 4/0
check "point 1: sparse's address space mismatch, new" \
	test "$(echo "$w1" | jq -r '.kind + "/" + .state + "/" + .message')" = \
	"sparse/new/incorrect type in initializer (different address spaces)"
check "point 1: in kernel/panic.c, of object kernel/panic.o" \
	test "$(echo "$w1" | jq -r '.file + " " + .object')" = \
	"kernel/panic.c kernel/panic.o"
# the line the series' first patch puts the initializer on
want=$(awk '/^@@/ { split($3, a, ","); l = substr(a[1], 2) - 1; next }
	/^[ +]/ { l++ } /^\+\tint \*kptr = uptr;/ { print l; exit }' \
	"$top"/tests/data/tools-series/0001-*.patch)
check "point 1: at the line of the initializer ($want)" \
	test "$(echo "$w1" | jq -r .line)" = "$want"
check "point 1: sparse's expected and got lines are its notes" \
	test "$(echo "$w1" | jq -r '[.notes[].message] | join("|")')" = \
	"expected int *kptr|got int [noderef] __user *uptr"
check "point 1: kernel-doc's two, new, of kernel/panic.o" \
	test "$(j "[.commits[1] | $sel | $kd | .state + \" \" + .object + \" \" + .message] | sort | join(\"|\")")" = \
	"new kernel/panic.o Excess function parameter 'kptr' description in 'kwarn_sparse_selftest'|new kernel/panic.o Function parameter or member 'uptr' not described in 'kwarn_sparse_selftest'"
check "point 1: kernel-doc's lines of panic.c are stored ($(kdoc_said 1 kernel/panic.c))" \
	test "$(kdoc_said 1 kernel/panic.c)" = "$(stored 1 kernel-doc kernel/panic.o)"
# objtool's line in make's log: "kernel/panic.o: warning: objtool: ..."
ot_said() { # POINT OBJECT
	grep -cE "^$2: (warning|error): objtool: " "$logs/make-$1.log"
}
osel='.warnings_list[] | select(.function == "kwarn_objtool_selftest")'
o1=$(j ".commits[1] | $osel")
echo "$o1" | jq -c '{kind, state, file, object, message}' | sed 's/^/# /'
check "point 1: objtool's call with user access on, new, of kernel/panic.o" \
	test "$(echo "$o1" | jq -r '.kind + "/" + .state + "/" + .object + "/" + .message')" = \
	"objtool/new/kernel/panic.o/call to kwarn_objtool_callee() with UACCESS enabled"
check "point 1: objtool's lines of panic.o are stored ($(ot_said 1 kernel/panic.o) said)" \
	test "$(ot_said 1 kernel/panic.o)" = "$(stored 1 objtool kernel/panic.o)" \
	-a "$(ot_said 1 kernel/panic.o)" -gt 0
check "point 2 compiled only exit.c: nothing new, nothing fixed" \
	test "$(j '.commits[2].new')/$(j '.commits[2].fixed')" = 0/0
check "point 2: panic.c's three are carried, not fixed" \
	test "$(j "[.commits[2] | $sel | select(.state != \"fixed\")] | length")" = 3
check "point 2: so is objtool's, though objtool did not run on panic.o" \
	test "$(j "[.commits[2] | $osel | .state] | join(\" \")")" = present -a \
	"$(ot_said 2 kernel/panic.o)" = 0
check "point 2: make printed none of panic.c's (it did not compile it)" \
	test "$(said 2 kernel/panic.c)/$(kdoc_said 2 kernel/panic.c)" = 0/0
check "point 3 moved them: nothing new, nothing fixed" \
	test "$(j '.commits[3].new')/$(j '.commits[3].fixed')" = 0/0
check "point 3: the same identities, three lines down" \
	test "$(j "[.commits[3] | $sel | .identity] | sort | join(\" \")")" = \
	"$(j "[.commits[1] | $sel | .identity] | sort | join(\" \")")" -a \
	"$(j ".commits[3] | $sel | $sp | .line")" = $((want + 3))
check "point 3: objtool's keeps its identity" \
	test "$(j ".commits[3] | $osel | .identity")" = \
	"$(j ".commits[1] | $osel | .identity")"
check "point 4 fixes the four, nothing new" \
	test "$(j '.commits[4].fixed')/$(j '.commits[4].new')" = 4/0 -a \
	"$(j "[.commits[4] | ($sel), ($osel) | select(.state != \"fixed\")] | length")" = 0
check "point 4: objtool ran on panic.o again and said nothing" \
	test "$(ot_said 4 kernel/panic.o)" = 0 -a \
	"$(grep -cE '^  CC +kernel/panic\.o$' "$logs/make-4.log")" = 1
check "point 4: every line sparse printed for panic.c is stored ($(said 4 kernel/panic.c))" \
	test "$(said 4 kernel/panic.c)" = "$(stored 4 sparse kernel/panic.o)"

# the tool is the option of what no compiler option names: the burn-down's
# series and --option (the API's option=) agree on it
for tool in sparse kernel-doc; do
	listed=$("$kwarn" warnings --db "$tmp/s.db" --option "$tool" --format json |
		jq '[.[] | select(.kind == "'"$tool"'")] | length')
	all=$("$kwarn" warnings --db "$tmp/s.db" --option "$tool" --format json | jq length)
	check "kwarn warnings --option $tool: the tip's $tool warnings, nothing else ($all)" \
		test "$listed" = "$(stored 4 "$tool")" -a "$all" = "$listed" -a "$all" -gt 0
	check "the tip's burn-down counts them under $tool" \
		test "$(j ".commits[4].by_option[\"$tool\"] // 0")" = "$all"
done

# a build directory whose objects have no kernel-doc lines kept (filled by
# an older kwarn): the first point reads them with kernel-doc itself
kpid="$logs/last/kernel%pid.o.kernel-doc.log"
check "pid.o's kernel-doc lines were kept" test -f "$kpid"
rm -f "$kpid"
mkdir "$tmp/short"
cp "$top"/tests/data/tools-series/0001-*.patch "$tmp/short/"
grep -E '^(# kwarn-tree|0001-)' "$series" >"$tmp/short/series"
"$kwarn" run --db "$tmp/again.db" --series "$tmp/short/series" \
	--config "$cfg" --targets "$targets" --checker sparse --warnings W=1 \
	-j2 >"$tmp/again.out" 2>"$tmp/again.err"
rc=$?
check "a run of the first patch again exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -20 "$tmp/again.err" | sed 's/^/# /'
"$kwarn" report --db "$tmp/again.db" --format json >"$tmp/again.json"
pid_said=$(kdoc kernel/pid.c)
pid_stored=$(jq '[.commits[0].warnings_list[] | select(.kind == "kernel-doc"
	and .object == "kernel/pid.o")] | length' "$tmp/again.json")
check "pid.o, not compiled at its first point, was read by kernel-doc ($pid_said said, $pid_stored stored)" \
	test -f "$kpid" -a "$pid_said" = "$pid_stored" -a "$pid_said" -gt 0
check "make compiled no pid.c at that point" \
	test "$(grep -cE '^  CC +kernel/pid\.o$' "$logs/make-0.log")" = 0
done_tap
