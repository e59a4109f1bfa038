#!/bin/bash
# Short libFuzzer runs of what the server reads from a client (30 s each;
# `make fuzz-request` runs longer): the request path (target decoding,
# routing, parameter checks, the Host check and the endpoints on an
# in-memory database, seeded with tests/data/fuzz-request), and a
# triage writer's POST body and import line (seeded with
# tests/data/fuzz-triage).  Any crash, leak, ASan or UBSan report, an
# error answer without its message, or a record that does not come back
# from its own export line, fails it.
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_CHECK_SECONDS:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 pass=0
ok() { # STATUS WHAT
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
	fi
}
echo "1..4"
for target in request triage; do
	bin=build/fuzz-$target
	if ! make -s "$bin" >"$tmp/build" 2>&1; then
		ok 1 "$bin builds (clang, -fsanitize=fuzzer)"
		sed 's/^/# /' "$tmp/build"
		ok 1 "fuzzing $target: not built"
		continue
	fi
	ok 0 "$bin builds (clang, -fsanitize=fuzzer)"
	rm -rf "$tmp/corpus" && mkdir "$tmp/corpus"
	if (cd "$tmp" && "$OLDPWD/$bin" -max_total_time="$secs" \
		-max_len=4096 -timeout=10 -rss_limit_mb=1024 \
		corpus "$OLDPWD/tests/data/fuzz-$target") >"$tmp/log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/log")
		ok 0 "${secs} s of fuzzing $target: ${runs:-?} runs, no crash or leak"
	else
		ok 1 "fuzzing $target found a problem"
		tail -n 60 "$tmp/log" | sed 's/^/# /'
		mkdir -p build/fuzz-crashes
		for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
			[ -e "$f" ] || continue
			cp "$f" build/fuzz-crashes/ &&
				echo "# input kept: build/fuzz-crashes/${f##*/}"
		done
	fi
done
echo "$pass passed, $((n - pass)) failed"
[ "$pass" = "$n" ]
