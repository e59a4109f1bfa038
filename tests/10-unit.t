#!/bin/bash
# Run the C unit tests, built by `make unit` both normally (build/tests)
# and with ASan/UBSan (build/asan/tests): one TAP line per binary, ok when
# it exits 0, its output shown on failure.
#
# The real 6.1 MAINTAINERS that test-maint reads comes out of the packaged
# tarball (under a second: it is near the start), so that the check runs
# on a cold cache too.
set -u
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
tarball=${KWARN_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
if [ -z "${KWARN_MAINTAINERS:-}" ] && [ -r "$tarball" ] &&
	tar -xJf "$tarball" --occurrence=1 -O linux-source-6.1/MAINTAINERS \
		>"$tmpd/MAINTAINERS"; then
	export KWARN_MAINTAINERS=$tmpd/MAINTAINERS
fi
bins=()
for src in tests/unit/test-*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	bins+=("build/tests/$name" "build/asan/tests/$name")
done
echo "1..${#bins[@]}"
n=0 failed=0
tmp=$tmpd/out
for bin in "${bins[@]}"; do
	n=$((n + 1))
	if [ ! -x "$bin" ]; then
		echo "not ok $n - $bin (not built: run make unit)"
		failed=$((failed + 1))
		continue
	fi
	if "$bin" >"$tmp" 2>&1; then
		echo "ok $n - $bin ($(tail -n 1 "$tmp"))"
	else
		echo "not ok $n - $bin"
		sed 's/^/# /' "$tmp"
		failed=$((failed + 1))
	fi
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
