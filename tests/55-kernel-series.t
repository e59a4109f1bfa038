#!/bin/bash
# kernel/: the campaign series applies with no fuzz to pristine 6.1 plus the
# base overlay, and its tip is byte-identical to the pristine tree
# (kernel/check-series --quick); every patch is a format-patch mail with the
# seed's subject, and the series names every patch file.
set -u
cd "$(dirname "$0")/.."
n=0 pass=0 fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok $n - $2"
	else fail=$((fail + 1)); echo "not ok $n - $2"; fi
}
check() { local what=$1; shift; if "$@"; then ok 0 "$what"; else ok 1 "$what"; fi; }

out=$(mktemp)
kernel/check-series --quick >"$out" 2>&1
rc=$?
tail -3 "$out" | sed 's/^/# /'
rm -f "$out"
check "check-series: applies with no fuzz, tip equals pristine 6.1" test "$rc" = 0
check "14 patches in kernel/series" test "$(grep -c '^patches/' kernel/series)" = 14
missing=0
for p in $(grep '^patches/' kernel/series); do [ -r "kernel/$p" ] || missing=1; done
check "every patch file exists" test "$missing" = 0
subjects=0
for s in "firewire: mark expected switch fall-throughs" \
	"can: mark expected switch fall-throughs" \
	"afs: yfsclient: Mark expected switch fall-throughs" \
	"afs: fsclient: Mark expected switch fall-throughs" \
	"drm/amdgpu/gfx10: Fix missing break in switch statement" \
	"drm/amdkfd: Fix missing break in switch statement" \
	"bpf: verifier: avoid fall-through warnings" \
	"Makefile: Globally enable fall-through warning"; do
	grep -qF "Subject: [PATCH] $s" kernel/patches/*.patch || subjects=1
done
check "the seeds' subjects are kept" test "$subjects" = 0
check "authored by the seeds' author" \
	test "$(grep -l '^From: Gustavo A. R. Silva' kernel/patches/00*.patch | wc -l)" -ge 12
echo "1..$n"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
