#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn nightly on the real packaged trees (linux-source-6.1 and 6.12, qemu
# config): one nightly measures both and compares them; a synthetic newer
# upload of 6.1 that adds an implicit fall-through makes the next nightly
# exit 1 naming the warning; a nightly with nothing new exits 0 and builds
# nothing; a corrupt tarball and a held lock exit 2 and lose nothing; a
# new compiler together with a new upload rebuilds the previous upload with
# the new compiler and labels each new warning "code" or "compiler".
#
# Cold: 6.12 is imported and built once (about 8 minutes on 2 cores), the
# synthetic tree once (about 7); 6.1 reuses the series test's build.  The
# compiler change builds the first synthetic tree again and a second one
# (about 10 minutes more).
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
series="$top/tests/data/series/series"
nightly() { "$kwarn" nightly --db "$db" --config "$cfg" "$@"; }

for v in 6.1 6.12; do
	if [ ! -r /usr/src/linux-source-$v.tar.xz ]; then
		ok 1 "linux-source-$v installed (run scripts/install-deps)"
		done_tap
	fi
done

# 1. both packaged trees, with the test series tried on each
start=$(date +%s)
nightly --series "$series" --format json >"$tmp/n1.json" 2>"$tmp/n1.err"
rc=$?
echo "# first nightly took $(($(date +%s) - start)) s, exit $rc"
[ "$rc" -le 1 ] || tail -20 "$tmp/n1.err" | sed 's/^/# /'
jq -r '.trees[] | "# \(.tree) \(.version): \(.warnings) warnings, boot \(.verdict), \(.new | length) new"' "$tmp/n1.json"
# Which exit is right depends on what the packaged 6.12 brings against
# 6.1, which a Debian update may change: the report says it, and the exit
# must agree with the warnings it lists.  6.1, the older tree, has nothing
# before it and so nothing new.
want=$(jq 'if (.failures | length) > 0 then 2
	elif ([.trees[].new | length] | add) > 0 then 1 else 0 end' "$tmp/n1.json")
check "first nightly: no failure, and exit 1 exactly when a warning is new (exit $rc, report says $want)" \
	test "$rc" = "$want" -a "$want" != 2
check "first nightly: nothing new on 6.1, the oldest tree" \
	test "$(jq '[.trees[] | select(.tree == "linux-source-6.1") | .new | length] == [0]' "$tmp/n1.json")" = true
check "both trees measured" test "$(jq '.trees | length' "$tmp/n1.json")" = 2
check "6.12 compared with 6.1" test "$(jq -r '.trees[] | select(.tree == "linux-source-6.12") | .older_tree.tree' "$tmp/n1.json")" = linux-source-6.1
check "package versions recorded" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM trees WHERE pkg_version IS NOT NULL AND kind = 'tarball'")" -ge 2
check "both boots judged" test "$(jq '[.trees[] | select(.verdict == "pass")] | length' "$tmp/n1.json")" = 2
check "the series was tried on 6.1" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM runs r JOIN trees t ON t.id = r.tree_id WHERE r.kind = 'series' AND t.name = 'linux-source-6.1'")" = 1
check "the series' outcome on 6.12 is recorded" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM runs r JOIN trees t ON t.id = r.tree_id WHERE r.kind = 'series' AND t.name = 'linux-source-6.12' AND r.status IN ('done', 'failed')")" = 1

# 2. a new upload of 6.1 that adds an implicit fall-through
probe_upload "$tmp/trees" kwarn_nightly_probe
want_line=$probe_line
before=$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")
nightly --trees "$tmp/trees" --series none >"$tmp/n2.txt" 2>"$tmp/n2.err"
rc=$?
sed 's/^/# /' "$tmp/n2.txt"
check "new warning: exit 1 (got $rc)" test "$rc" = 1
check "report names file, function and line" \
	grep -q ">> kernel/panic.c:$want_line: in 'kwarn_nightly_probe'" "$tmp/n2.txt"
check "and the compiler that reported it" \
	grep -q ">> kernel/panic.c:$want_line: in 'kwarn_nightly_probe'.*; gcc (" "$tmp/n2.txt"
check "compared with the last nightly of 6.1" grep -q 'last nightly of this tree' "$tmp/n2.txt"

# 3. nothing new: exit 0 and no build
mid=$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")
nightly --trees "$tmp/trees" --series none >"$tmp/n3.txt" 2>"$tmp/n3.err"
rc=$?
check "second nightly with nothing new exits 0 (got $rc)" test "$rc" = 0
check "and builds nothing" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = "$mid"
check "the synthetic tree built once" test "$mid" -gt "$before"

# 4. bad input: a corrupt tarball, a held lock
mkdir -p "$tmp/bad"
head -c 100000 /dev/urandom >"$tmp/bad/linux-source-9.9.tar.xz"
nightly --trees "$tmp/bad" --series none >"$tmp/n4.txt" 2>"$tmp/n4.err"
rc=$?
check "corrupt tarball: exit 2 (got $rc)" test "$rc" = 2
check "corrupt tarball: the cause is named" grep -q 'cannot unpack' "$tmp/n4.err"
check "nothing measured earlier is lost" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = "$mid"
(
	flock 9
	nightly --trees "$tmp/trees" --series none >"$tmp/n5.txt" 2>"$tmp/n5.err"
	echo $? >"$tmp/n5.rc"
) 9>"$KWARN_CACHE/nightly.lock"
check "a held lock: exit 2" test "$(cat "$tmp/n5.rc")" = 2
check "a held lock: said so" grep -q 'another kwarn nightly' "$tmp/n5.err"

# 5. a new compiler and a new upload at once.  The "new compiler" is gcc
# behind a wrapper that says another version and turns a warning on again
# that the kernel's flags turn off, as a compiler release that enables a
# warning by default would.
mkdir -p "$tmp/fakecc"
real_gcc=$(command -v gcc)
cat >"$tmp/fakecc/gcc" <<EOF
#!/bin/sh
for a in "\$@"; do
	if [ "\$a" = --version ]; then
		echo "gcc (kwarn-test) 12.2.0 with -Wunused-but-set-variable"
		exit 0
	fi
done
exec $real_gcc "\$@" -Wunused-but-set-variable
EOF
chmod +x "$tmp/fakecc/gcc"
# The same wrapper every run, so the same date: the compiler cache checks a
# compiler by its size and date, and a new date each run would make this
# compiler's two builds cold on every make check, warm cache or not.
touch -d @1600000000 "$tmp/fakecc/gcc"
probe_upload "$tmp/trees" kwarn_nightly_probe kwarn_nightly_probe2
y_tree=$(sqlite3 "$db" "SELECT r.tree_id FROM runs r JOIN trees t ON t.id = r.tree_id WHERE r.kind = 'nightly' AND t.source = '$tmp/trees/linux-source-6.1.tar.gz' ORDER BY r.id DESC LIMIT 1")
start=$(date +%s)
PATH="$tmp/fakecc:$PATH" nightly --trees "$tmp/trees" --series none --format json >"$tmp/n6.json" 2>"$tmp/n6.err"
rc=$?
echo "# nightly with a new compiler and a new upload took $(($(date +%s) - start)) s, exit $rc"
[ "$rc" -le 1 ] || tail -20 "$tmp/n6.err" | sed 's/^/# /'
jq -r '.trees[] | .new[] | "# \(.cause): \(.file):\(.line): \(.function): \(.message) [\(.option)]"' "$tmp/n6.json" | head -20
check "new compiler and new code: exit 1 (got $rc)" test "$rc" = 1
check "the compiler change is reported" \
	test "$(jq -r '.trees[0].previous_compiler' "$tmp/n6.json")" != null
check "the previous upload was rebuilt with the new compiler" \
	test "$(sqlite3 "$db" "SELECT COUNT(DISTINCT b.compiler) FROM runs r JOIN commits c ON c.run_id = r.id JOIN builds b ON b.commit_id = c.id WHERE r.kind = 'nightly' AND r.tree_id = '$y_tree'")" = 2
check "the rebuild is named in the report" \
	test "$(jq '.trees[0].rebuilt.run // 0' "$tmp/n6.json")" -gt 0
check "the new code's fall-through is labelled code" \
	test "$(jq -r '[.trees[0].new[] | select(.function == "kwarn_nightly_probe2") | .cause] | join(",")' "$tmp/n6.json")" = code
check "nothing else is labelled code" \
	test "$(jq '[.trees[0].new[] | select(.cause == "code")] | length' "$tmp/n6.json")" = 1
ncomp=$(jq '[.trees[0].new[] | select(.cause == "compiler")] | length' "$tmp/n6.json")
check "the compiler's new warnings are labelled compiler ($ncomp)" test "$ncomp" -gt 0
check "and they are the warning the new compiler turned on" \
	test "$(jq '[.trees[0].new[] | select(.cause == "compiler") | select(.option | test("unused-but-set-variable") | not)] | length' "$tmp/n6.json")" = 0
r6=$(jq '.trees[0].run' "$tmp/n6.json")
check "the report is kept as printed, causes and all (run $r6)" \
	test "$(sqlite3 "$db" "SELECT report FROM nightly_reports WHERE run_id = $r6" | jq -cS .)" = "$(jq -cS '.trees[0]' "$tmp/n6.json")"
mid=$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")
PATH="$tmp/fakecc:$PATH" nightly --trees "$tmp/trees" --series none >"$tmp/n7.txt" 2>"$tmp/n7.err"
rc=$?
check "the same new compiler again: exit 0 (got $rc)" test "$rc" = 0
check "and builds nothing" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = "$mid"

# 6. the trees view: warnings per tree version and per night, with the
# compiler of each night
KWARN_SERVER="$top/bin/kwarn-server"
. "$top/tests/lib/server-fixture.sh"
if server_start "$db"; then
	curl -sf "$BASE/api/trees" >"$tmp/trees.json"
	server_stop
fi
check "GET /api/trees lists 6.1 and 6.12" \
	test "$(jq '[.[] | select(.name == "linux-source-6.1" or .name == "linux-source-6.12")] | length >= 3' "$tmp/trees.json" 2>/dev/null)" = true
check "the first upload's nights show both compilers" \
	test "$(jq --argjson t "$y_tree" '[.[] | select(.id == $t) | .runs[] | select(.kind == "nightly") | .compiler] | unique | length' "$tmp/trees.json" 2>/dev/null)" = 2

done_tap
