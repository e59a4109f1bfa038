#!/bin/bash
# kwarn nightly on the real packaged trees (linux-source-6.1 and 6.12, qemu
# config): one nightly measures both and compares them; a synthetic newer
# upload of 6.1 that adds an implicit fall-through makes the next nightly
# exit 1 naming the warning; a nightly with nothing new exits 0 and builds
# nothing; a corrupt tarball and a held lock exit 2 and lose nothing.
#
# Cold: 6.12 is imported and built once (about 8 minutes on 2 cores), the
# synthetic tree once (about 7); 6.1 reuses the series test's build.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0 pass=0 fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1)); echo "ok $n - $2"
	else
		fail=$((fail + 1)); echo "not ok $n - $2"
	fi
}
check() { local what=$1; shift; if "$@"; then ok 0 "$what"; else ok 1 "$what"; fi; }
done_tap() { echo "1..$n"; echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }

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
check "first nightly measures (exit 0 or 1, not 2: $rc)" test "$rc" -le 1
[ "$rc" -le 1 ] || tail -20 "$tmp/n1.err" | sed 's/^/# /'
jq -r '.trees[] | "# \(.tree) \(.version): \(.warnings) warnings, boot \(.verdict), \(.new | length) new"' "$tmp/n1.json"
check "both trees measured" test "$(jq '.trees | length' "$tmp/n1.json")" = 2
check "6.12 compared with 6.1" test "$(jq -r '.trees[] | select(.tree == "linux-source-6.12") | .older_tree.tree' "$tmp/n1.json")" = linux-source-6.1
check "package versions recorded" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM trees WHERE pkg_version IS NOT NULL AND kind = 'tarball'")" -ge 2
check "both boots judged" test "$(jq '[.trees[] | select(.verdict == "pass")] | length' "$tmp/n1.json")" = 2
check "the series was tried on 6.1" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM runs r JOIN trees t ON t.id = r.tree_id WHERE r.kind = 'series' AND t.name = 'linux-source-6.1'")" = 1
check "the series' outcome on 6.12 is recorded" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM runs r JOIN trees t ON t.id = r.tree_id WHERE r.kind = 'series' AND t.name = 'linux-source-6.12' AND r.status IN ('done', 'failed')")" = 1

# 2. a new upload of 6.1 that adds an implicit fall-through
mkdir -p "$tmp/unpack" "$tmp/trees"
tar -xf /usr/src/linux-source-6.1.tar.xz -C "$tmp/unpack"
cat >>"$tmp/unpack/linux-source-6.1/kernel/panic.c" <<'EOF'

int kwarn_nightly_probe(int cmd);
int kwarn_nightly_probe(int cmd)
{
	int r = 0;

	switch (cmd) {
	case 1:
		r = 10;
	case 2:
		r += 1;
		break;
	}
	return r;
}
EOF
want_line=$(grep -n '		r = 10;' "$tmp/unpack/linux-source-6.1/kernel/panic.c" | cut -d: -f1)
# the same bytes every time: its import and build stay in the cache
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -c \
	-C "$tmp/unpack" linux-source-6.1 | gzip -n -1 >"$tmp/trees/linux-source-6.1.tar.gz"
rm -rf "$tmp/unpack"
before=$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")
nightly --trees "$tmp/trees" --series none >"$tmp/n2.txt" 2>"$tmp/n2.err"
rc=$?
sed 's/^/# /' "$tmp/n2.txt"
check "new warning: exit 1 (got $rc)" test "$rc" = 1
check "report names file, function and line" \
	grep -q ">> kernel/panic.c:$want_line: in 'kwarn_nightly_probe'" "$tmp/n2.txt"
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

done_tap
