#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn run --full on the real packaged tree: every point builds bzImage and
# modules, installs them (make modules_install, stripped, depmod'ed) and
# boots with them; the init loads each one and the boot records which
# loaded.  The series (tests/data/full-modules) touches firewire-core, the
# module that kernel/series touches first: patch 1 keeps it loadable,
# patch 2 makes its init return -EINVAL, so that point's boot must fail
# naming it.  Results are checked in the database, kwarn report (text and
# JSON) and kwarn-server's boot JSON.
#
# Cold: one tinyconfig + qemu.config + modules.config build of 6.1 (about
# 6 minutes on 2 idle cores), then under a minute per point.  It shares
# $KWARN_CACHE, and so the tree, with the other tests: a kwarn run on the
# same tree waits for it.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
SERVER_PID=
cleanup() {
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

. "$top/tests/lib/tap.sh"

db="$tmp/full.db"
data="$top/tests/data/full-modules"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ]; then
	echo "# linux-source-6.1 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 installed"
	done_tap
fi
for tool in qemu-system-x86_64 depmod; do
	if ! command -v "$tool" >/dev/null && [ ! -x "/sbin/$tool" ]; then
		echo "# $tool is missing: run scripts/install-deps"
		ok 1 "$tool installed"
		done_tap
	fi
done

start=$(date +%s)
"$kwarn" run --db "$db" --series "$data/series" --full -j2 \
	--config "$top/kernel/configs/qemu.config" \
	--config "$data/modules.config" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
echo "# kwarn run --full took $(($(date +%s) - start)) s"
sed 's/^/# /' "$tmp/run.out"
check "kwarn run --full exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/run.err" | tail -20

sql() { sqlite3 "$db" "$1"; }
check "schema version 4 or later" test "$(sql 'PRAGMA user_version')" -ge 4
check "three points built" \
	test "$(sql "SELECT COUNT(*) FROM builds WHERE status = 'ok'")" = 3

# verdict and module rows of point P (0 = base)
verdict() {
	sql "SELECT bo.verdict FROM boots bo JOIN builds b ON b.id = bo.build_id
	     JOIN commits c ON c.id = b.commit_id WHERE c.position = $1"
}
reason() {
	sql "SELECT bo.reason FROM boots bo JOIN builds b ON b.id = bo.build_id
	     JOIN commits c ON c.id = b.commit_id WHERE c.position = $1"
}
module() { # module P NAME: its status at point P
	sql "SELECT m.status FROM boot_modules m JOIN boots bo ON bo.id = m.boot_id
	     JOIN builds b ON b.id = bo.build_id JOIN commits c ON c.id = b.commit_id
	     WHERE c.position = $1 AND m.name = '$2'"
}
for p in 0 1 2; do
	echo "# point $p: $(verdict $p) $(reason $p)"
	sql "SELECT '#   ' || m.name || ' ' || m.status || COALESCE(': ' || m.message, '')
	     FROM boot_modules m JOIN boots bo ON bo.id = m.boot_id
	     JOIN builds b ON b.id = bo.build_id JOIN commits c ON c.id = b.commit_id
	     WHERE c.position = $p"
done

check "base boots pass" test "$(verdict 0)" = pass
check "base: firewire-core loaded" test "$(module 0 firewire-core)" = ok
check "base: its dependency crc-itu-t loaded" test "$(module 0 crc-itu-t)" = ok
check "point 1 (patch 1) boots pass" test "$(verdict 1)" = pass
check "point 1: firewire-core loaded" test "$(module 1 firewire-core)" = ok
check "point 2 (patch 2) boots fail" test "$(verdict 2)" = fail
check "point 2: firewire-core recorded as failed" \
	test "$(module 2 firewire-core)" = fail
check "point 2: the reason names the module" \
	grep -q 'failed to load: firewire-core' <<<"$(reason 2)"
check "point 2: with modprobe's error" \
	grep -q 'Invalid argument' <<<"$(reason 2)"
check "point 2: crc-itu-t still loaded" test "$(module 2 crc-itu-t)" = ok
check "the modules were installed stripped and depmod'ed" \
	test -s "$(sql "SELECT replace(image, '/arch/x86/boot/bzImage', '')
		FROM builds LIMIT 1")/.kwarn/modroot/lib/modules/$(sql \
		"SELECT kernel_version FROM boots LIMIT 1")/modules.dep"

# kwarn report: text and JSON carry the counts
"$kwarn" report --db "$db" --format json >"$tmp/report.json"
j() { jq -r "$1" "$tmp/report.json"; }
check "report JSON: base modules 2 ok, 0 failed" \
	test "$(j '.commits[0].modules | "\(.ok) \(.failed)"')" = "2 0"
check "report JSON: point 2 names firewire-core as failed" \
	test "$(j '.commits[2].modules | "\(.ok) \(.failed) \(.failed_names[0])"')" = \
		"1 1 firewire-core"
check "report JSON: point 2's boot reason" \
	grep -q firewire-core <<<"$(j '.commits[2].boot_reason')"
"$kwarn" report --db "$db" >"$tmp/report.txt"
sed -n '/^burn-down/,$p' "$tmp/report.txt" | sed 's/^/# /'
check "report text: module counts per point" \
	test "$(grep -c '^   modules: ' "$tmp/report.txt")" = 3
check "report text: the failed boot's reason" \
	grep -q '^   boot: module failed to load: firewire-core' "$tmp/report.txt"
check "report burn-down: fail and 1/1 at point 2" \
	grep -Eq '^  2 [0-9a-f]{12} +[0-9]+ .* fail +1/1 ' "$tmp/report.txt"

# kwarn-server: the boot JSON lists the modules
KWARN_SERVER="$top/bin/kwarn-server"
. "$top/tests/lib/server-fixture.sh"
: >"$tmp/server.out" # server_start polls it before the server opens it
server_start "$db"
check "kwarn-server starts on the run's database" test -n "$PORT"
b2=$(sql "SELECT b.id FROM builds b JOIN commits c ON c.id = b.commit_id
	WHERE c.position = 2")
curl -s "$BASE/api/builds/$b2/boot" >"$tmp/boot.json"
check "server: boot JSON of point 2 has modules 1 ok, 1 failed" \
	test "$(jq -r '.modules | "\(.ok) \(.failed)"' "$tmp/boot.json")" = "1 1"
check "server: the failed module with its message" \
	test "$(jq -r '.modules.list[] | select(.status == "fail") | .name' \
		"$tmp/boot.json")" = firewire-core
check "server: the base's boot loaded both" \
	test "$(curl -s "$BASE/api/builds/$(sql "SELECT b.id FROM builds b
		JOIN commits c ON c.id = b.commit_id WHERE c.position = 0")/boot" |
		jq -r '.modules | "\(.ok) \(.failed)"')" = "2 0"
server_stop

done_tap
