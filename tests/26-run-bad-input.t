#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn run on bad input: each ends with one clear line naming the cause, a
# non-zero exit, and the database still consistent.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"
# expect_fail "what" "pattern" command...: non-zero exit, one line naming it
expect_fail() {
	local what=$1 pat=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	check "$what: non-zero exit ($rc)" test "$rc" != 0
	check "$what: says '$pat'" grep -q -- "$pat" "$tmp/err"
	grep -v '^kwarn: importing\|^kwarn: \[' "$tmp/err" | head -3 | sed 's/^/# /'
}

series="$top/tests/data/series/series"
cfg="$top/kernel/configs/qemu.config"
db="$tmp/bad.db"

# usage errors
expect_fail "no --db" "usage" "$kwarn" run
expect_fail "bad level" "--level must be 1 to 5" "$kwarn" run --db "$db" --level 9
expect_fail "missing config fragment" "cannot read config fragment" \
	"$kwarn" run --db "$db" --config "$tmp/nope.config"
expect_fail "unknown launcher" "unknown compiler launcher" \
	"$kwarn" run --db "$db" --cc-launcher "rm -rf" --series "$series"

# a tarball that is not a kernel tree
mkdir -p "$tmp/notkernel/linux-source-0.1"
echo hello >"$tmp/notkernel/linux-source-0.1/README"
tar -cJf "$tmp/linux-source-0.1.tar.xz" -C "$tmp/notkernel" linux-source-0.1
expect_fail "not a kernel tree" "is not a kernel tree" \
	"$kwarn" run --db "$db" --tree "$tmp/linux-source-0.1.tar.xz" --series "$series"
check "no half import left in the cache" \
	test -z "$(ls -d "$KWARN_CACHE"/trees/linux-source-0.1-*/ 2>/dev/null)"

# a series that names a missing file
mkdir -p "$tmp/s1"
printf '0001-missing.patch\n' >"$tmp/s1/series"
expect_fail "series names a missing file" "names '0001-missing.patch', which is missing" \
	"$kwarn" run --db "$db" --series "$tmp/s1/series" --config "$cfg" --no-boot

# a patch that does not apply: the run builds what applies, then stops
mkdir -p "$tmp/s2"
cp "$top/tests/data/series/0001-"*.patch "$tmp/s2/"
sed 's/^ \(\t\t\)\*val = 1;$/ \1*val = 7;/' \
	"$top/tests/data/series/0002-"*.patch >"$tmp/s2/0002-bad.patch"
printf '%s\n' "$(cd "$tmp/s2" && ls 0001-*)" 0002-bad.patch >"$tmp/s2/series"
expect_fail "patch does not apply" "series stopped: patch 2 '0002-bad.patch'" \
	"$kwarn" run --db "$db" --series "$tmp/s2/series" --config "$cfg" \
	--targets kernel/panic.o
check "the failing patch is recorded with its reason" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM commits WHERE apply_status = 'failed' AND apply_error LIKE '%does not apply%'")" = 1
check "the points before it were measured" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = 2
check "the run is marked failed" \
	test "$(sqlite3 "$db" "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" = failed
check "database integrity" test "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok

# a config fragment with an unknown symbol
printf 'CONFIG_KWARN_NO_SUCH_SYMBOL=y\n' >"$tmp/unknown.config"
expect_fail "unknown config symbol" "CONFIG_KWARN_NO_SUCH_SYMBOL=y' did not stick" \
	"$kwarn" run --db "$db" --series "$series" --config "$cfg" \
	--config "$tmp/unknown.config" --targets kernel/panic.o
check "nothing of it stored" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = 2

# make not installed
mkdir -p "$tmp/bin"
for t in tar sha256sum git gcc cp rm; do
	p=$(command -v $t) && ln -sf "$p" "$tmp/bin/$t"
done
expect_fail "make not installed" "make is not installed" \
	env PATH="$tmp/bin" "$kwarn" run --db "$tmp/nomake.db" --series "$series" \
	--config "$tmp/unknown.config" --targets kernel/exit.o

# a database that is not SQLite
echo "not a database" >"$tmp/text.db"
expect_fail "database not SQLite" "is not a kwarn database" \
	"$kwarn" run --db "$tmp/text.db" --series "$series"

done_tap
