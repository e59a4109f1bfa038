#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn nightly exactly as the installed systemd unit and cron line run it
# (`kwarn nightly --db FILE`: /usr/src, kernel/series, the qemu config), on
# the real packaged trees linux-source-6.1 and linux-source-6.12.  The
# campaign's base overlay does not apply to 6.12: that is recorded as the
# series' outcome on that tree, and the night exits 0, not 2.  The second
# night builds nothing and exits 0; a new upload that adds a fall-through
# exits 1 and names it.
#
# The arguments are read from scripts/nightly/kwarn-nightly.service, so
# this follows the unit.  The cache is the shared test cache, not the
# unit's /var/cache/kwarn: 6.1 and 6.12 with the qemu config and the new
# upload are the builds of tests/60-nightly.t; what is new here is the
# campaign series on 6.1 (about 5 minutes cold) and on the new upload.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
unset KWARN_DATA # as installed: the data beside the program
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"
. "$top/tests/lib/nightly-probe.sh"

for v in 6.1 6.12; do
	if [ ! -r /usr/src/linux-source-$v.tar.xz ]; then
		ok 1 "linux-source-$v installed (run scripts/install-deps)"
		done_tap
	fi
done

# the unit's command line, with the database moved into $tmp
unit=$top/scripts/nightly/kwarn-nightly.service
args=$(sed -n 's|^ExecStart=@PREFIX@/bin/kwarn ||p' "$unit")
check "the unit runs 'kwarn nightly --db FILE' ($args)" \
	test "$args" = "nightly --db /var/lib/kwarn/kwarn.db"
cron=$(sed -n 's|.*@PREFIX@/bin/kwarn \(nightly --db [^ ]*\).*|\1|p' \
	"$top/scripts/nightly/kwarn-nightly.cron")
check "the cron line runs the same" test "$cron" = "$args"
db="$tmp/kwarn.db"
read -r -a argv <<<"${args//\/var\/lib\/kwarn\/kwarn.db/$db}"
builds() { sqlite3 "$db" "SELECT COUNT(*) FROM builds"; }

# 1. the first night: both trees, the series on each
start=$(date +%s)
"$kwarn" "${argv[@]}" >"$tmp/n1.txt" 2>"$tmp/n1.err"
rc=$?
echo "# first night took $(($(date +%s) - start)) s, exit $rc"
sed 's/^/# /' "$tmp/n1.txt"
[ "$rc" = 0 ] || tail -20 "$tmp/n1.err" | sed 's/^/# /'
check "first night: exit 0 (got $rc)" test "$rc" = 0
check "no failure reported" sh -c "! grep -q '^!!' '$tmp/n1.txt'"
check "6.1 and 6.12 measured" test "$(sqlite3 "$db" "SELECT COUNT(DISTINCT t.name) FROM runs r JOIN trees t ON t.id = r.tree_id WHERE r.kind = 'nightly' AND r.status = 'done' AND t.name IN ('linux-source-6.1', 'linux-source-6.12')")" = 2
check "the campaign series ran through on 6.1" test "$(sqlite3 "$db" "SELECT r.status || ' ' || COUNT(c.id) FROM runs r JOIN trees t ON t.id = r.tree_id JOIN commits c ON c.run_id = r.id WHERE r.kind = 'series' AND t.name = 'linux-source-6.1' GROUP BY r.id")" = "done 15"
msg=$(sqlite3 "$db" "SELECT r.status || ': ' || r.message FROM runs r JOIN trees t ON t.id = r.tree_id WHERE r.kind = 'series' AND t.name = 'linux-source-6.12'")
echo "# 6.12's series: $msg"
check "6.12: the overlay that does not apply is recorded" \
	grep -q "^failed: base overlay patch 1 '0001-.*' does not apply to linux-source-6.12" <<<"$msg"
check "6.12: nothing was built for the series" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM runs r JOIN trees t ON t.id = r.tree_id JOIN commits c ON c.run_id = r.id JOIN builds b ON b.commit_id = c.id WHERE r.kind = 'series' AND t.name = 'linux-source-6.12'")" = 0
check "6.12: the report says how the series ended" \
	grep -q "series: run [0-9]*, failed: base overlay patch 1" "$tmp/n1.txt"

# 2. the second night: nothing new, nothing built
mid=$(builds)
"$kwarn" "${argv[@]}" >"$tmp/n2.txt" 2>"$tmp/n2.err"
rc=$?
check "second night: exit 0 (got $rc)" test "$rc" = 0
check "second night: nothing built" test "$(builds)" = "$mid"
check "second night: says so" grep -q 'nothing new to measure' "$tmp/n2.txt"

# 3. a new upload (the package's trees directory, as apt would leave it)
# that adds an implicit fall-through
probe_upload "$tmp/trees" kwarn_nightly_probe
"$kwarn" "${argv[@]}" --trees "$tmp/trees" >"$tmp/n3.txt" 2>"$tmp/n3.err"
rc=$?
sed 's/^/# /' "$tmp/n3.txt"
[ "$rc" = 1 ] || tail -20 "$tmp/n3.err" | sed 's/^/# /'
check "a new upload with a new warning: exit 1 (got $rc)" test "$rc" = 1
check "the new warning is named" \
	grep -q ">> kernel/panic.c:$probe_line: in 'kwarn_nightly_probe'" "$tmp/n3.txt"
check "and nothing else is new" test "$(grep -c '^>>' "$tmp/n3.txt")" = 1

done_tap
