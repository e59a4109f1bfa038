#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# Boot verdicts on a real kernel: tinyconfig + kernel/configs/qemu.config
# from linux-source-6.1 (tests/lib/kernel-image builds it once into the
# cache, minutes when cold).  The good kernel passes with this boot's
# nonce; the same kernel without /init panics and is a crash although QEMU
# exits 0; an init that sleeps is a hang, or a timeout past the total
# limit; no QEMU and no kernel are infra; `kwarn boot --db --build` stores
# the row with its compressed log.
set -u
cd "$(dirname "$0")/.."
top=$PWD
kwarn=$top/bin/kwarn
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
total=20

echo "1..$total"
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$tmp/out" ] && sed 's/^/# stdout: /' "$tmp/out"
		[ -s "$tmp/err" ] && sed 's/^/# stderr: /' "$tmp/err"
	fi
	return 0
}
finish() {
	echo "$((n - failed)) passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

if ! kernel=$(tests/lib/kernel-image 2>"$tmp/err"); then
	cat "$tmp/err" >&2
	while [ "$n" -lt "$total" ]; do
		ok 1 "a test kernel (tests/lib/kernel-image failed)"
	done
	finish
fi

# boot NAME ARGS...: run kwarn boot, status in $rc, verdict line in $tmp/out
boot() {
	local name=$1
	shift
	"$kwarn" boot --log "$tmp/$name.log" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	verdict=$(head -n 1 "$tmp/out" | cut -d' ' -f1)
	secs=$(head -n 1 "$tmp/out" | cut -d' ' -f2)
}

# 1-4: the good kernel passes, and the marker carries this boot's nonce
boot pass --kernel "$kernel"
ok $(( rc != 0 )) "the good kernel: exit 0 ($(head -n 1 "$tmp/out"))"
[ "$verdict" = pass ]
ok $? "its verdict is pass"
nonce=$(grep -a -o 'kwarn\.nonce=[0-9a-f]*' "$tmp/pass.log" | head -n 1 |
	cut -d= -f2)
[ ${#nonce} = 32 ] &&
	grep -a -q "^KWARN-BOOT-OK nonce=$nonce version=6\.1\." "$tmp/pass.log"
ok $? "the marker has the nonce of the command line ($nonce)"
grep -E -q "^pass [0-9.]+ s 6\.1\.[0-9]+ \((tcg|kvm)\)$" "$tmp/out"
ok $? "the verdict line names time, version and accelerator"

# 5-7: no /init: the kernel panics, QEMU exits 0, and that is no pass
boot noinit --kernel "$kernel" --variant no-init
[ "$verdict" = crash ] && [ "$rc" = 1 ]
ok $? "no /init: crash, exit 1 ($(head -n 1 "$tmp/out"))"
grep -a -q "Kernel panic" "$tmp/noinit.log" &&
	! grep -a -q "KWARN-BOOT-OK" "$tmp/noinit.log"
ok $? "the log has the panic and no marker"
grep -q "^fingerprint:" "$tmp/out" && grep -q "Kernel panic" "$tmp/out"
ok $? "the crash has a fingerprint"

# 8-9: an init that sleeps forever: a hang, found by the silence timeout.
# The total limit is far off (300 s) so that a slow boot on a loaded
# machine still ends by the silence; ending well before it is what tells
# the silence's kill from the total's.
start=$(date +%s)
boot sleep --kernel "$kernel" --variant sleep --silence 4 --timeout 300
took=$(( $(date +%s) - start ))
[ "$verdict" = hang ] && [ "$rc" = 1 ]
ok $? "a sleeping init: hang ($(head -n 1 "$tmp/out"))"
[ "$took" -lt 290 ]
ok $? "QEMU was killed at the silence timeout, before the total one (${took} s)"

# 10: the total timeout is its own verdict
boot total --kernel "$kernel" --variant sleep --silence 60 --timeout 4
[ "$verdict" = timeout ] && [ "$rc" = 1 ]
ok $? "past the total timeout: timeout ($(head -n 1 "$tmp/out"))"

# 11-13: infra: no QEMU, no kernel, no initramfs
boot noqemu --kernel "$kernel" --qemu /nonexistent/qemu-system-x86_64
[ "$verdict" = infra ] && [ "$rc" = 1 ] && grep -q "/nonexistent" "$tmp/out"
ok $? "a missing QEMU: infra ($(head -n 1 "$tmp/out"))"
boot nokernel --kernel "$tmp/no-such-bzImage"
[ "$verdict" = infra ] && [ "$rc" = 1 ] && grep -q "no-such-bzImage" "$tmp/out"
ok $? "a missing kernel: infra ($(head -n 1 "$tmp/out"))"
boot noinitrd --kernel "$kernel" --initramfs "$tmp/no-such.cpio.gz"
[ "$verdict" = infra ] && [ "$rc" = 1 ]
ok $? "a missing initramfs: infra ($(head -n 1 "$tmp/out"))"

# 14-15: bad usage exits 2
"$kwarn" boot >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q usage "$tmp/err"
ok $? "no arguments: usage, exit 2"
"$kwarn" boot --kernel "$kernel" --silence soon >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "soon" "$tmp/err"
ok $? "a bad --silence: one-line error, exit 2"

# 16-20: kwarn boot --db --build stores the row with the compressed log
db=$tmp/k.db
printf 'a.c: In function %sf%s:\n' "'" "'" >"$tmp/build.log"
"$kwarn" ingest --db "$db" --tree t --commit c "$tmp/build.log" \
	>"$tmp/out" 2>"$tmp/err"
build=$(sqlite3 "$db" "SELECT max(id) FROM builds")
sqlite3 "$db" "UPDATE builds SET image = '$kernel' WHERE id = $build"
"$kwarn" boot --db "$db" --build "$build" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && grep -q "^pass " "$tmp/out"
ok $? "kwarn boot --db --build $build: pass ($(head -n 1 "$tmp/out"))"
row=$(sqlite3 -separator ' ' "$db" \
	"SELECT verdict, nonce, accel, duration_ms > 0, log_size > 1000
	 FROM boots WHERE build_id = $build")
set -- $row
[ "${1-}" = pass ] && [ "${4-}" = 1 ] && [ "${5-}" = 1 ]
ok $? "the boots row: $row"
[ "${2-}" != "$nonce" ] && [ "${#2}" = 32 ]
ok $? "each boot has a new nonce"
sqlite3 "$db" "SELECT writefile('$tmp/log.z', log) FROM boots" >/dev/null
perl -MCompress::Zlib -e 'local $/; my $z = <STDIN>;
	my $s = uncompress($z); defined $s or exit 1; print $s' \
	<"$tmp/log.z" >"$tmp/db.log"
grep -a -q "^KWARN-BOOT-OK nonce=$2 " "$tmp/db.log" &&
	[ "$(wc -c <"$tmp/db.log")" = "$(sqlite3 "$db" "SELECT log_size FROM boots")" ]
ok $? "the stored log decompresses to log_size bytes with the marker"
sqlite3 "$db" "UPDATE builds SET image = NULL WHERE id = $build"
"$kwarn" boot --db "$db" --build "$build" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 1 ] && grep -q "^infra " "$tmp/out" &&
	[ "$(sqlite3 "$db" "SELECT count(*) FROM boots WHERE verdict = 'infra'")" = 1 ]
ok $? "a build without an image: an infra row ($(head -n 1 "$tmp/out"))"

finish
