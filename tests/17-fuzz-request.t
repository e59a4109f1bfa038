#!/bin/bash
# A short libFuzzer run of the server's request path (30 s; `make
# fuzz-request` runs longer): target decoding, routing, parameter checks,
# the Host check and the endpoints on an in-memory database, seeded with
# tests/data/fuzz-request.  Any crash, leak, ASan or UBSan report, or an
# error answer without its message, fails it.
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_CHECK_SECONDS:-30}
echo "1..2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if make -s build/fuzz-request >"$tmp/build" 2>&1; then
	echo "ok 1 - build/fuzz-request builds (clang, -fsanitize=fuzzer)"
else
	echo "not ok 1 - build/fuzz-request builds"
	sed 's/^/# /' "$tmp/build"
	echo "0 passed, 1 failed"
	exit 1
fi
mkdir "$tmp/corpus"
if (cd "$tmp" && "$OLDPWD/build/fuzz-request" -max_total_time="$secs" \
	-max_len=4096 -timeout=10 -rss_limit_mb=1024 \
	corpus "$OLDPWD/tests/data/fuzz-request") >"$tmp/log" 2>&1; then
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/log")
	echo "ok 2 - ${secs} s of fuzzing: ${runs:-?} runs, no crash or leak"
	echo "2 passed, 0 failed"
else
	echo "not ok 2 - fuzzing found a problem"
	tail -n 60 "$tmp/log" | sed 's/^/# /'
	mkdir -p build/fuzz-crashes
	for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
		[ -e "$f" ] || continue
		cp "$f" build/fuzz-crashes/ && echo "# input kept: build/fuzz-crashes/${f##*/}"
	done
	echo "1 passed, 1 failed"
	exit 1
fi
