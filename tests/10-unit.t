#!/bin/bash
# Run the C unit tests, built by `make unit` both normally (build/tests)
# and with ASan/UBSan (build/asan/tests): one TAP line per binary, ok when
# it exits 0, its output shown on failure.
set -u
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
bins=()
for src in tests/unit/test-*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	bins+=("build/tests/$name" "build/asan/tests/$name")
done
echo "1..${#bins[@]}"
n=0 failed=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
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
