#!/bin/bash
# Parser cases as data: every tests/data/parse/NAME.log run through
# `kwarn parse-dump` must print exactly NAME.expected, whole and when fed
# one byte at a time.  Most logs are real GCC 12 output made by
# tests/data/parse/generate; the .expected files were checked by hand, and
# 23-parse-reading.t holds every dump to a reading of the log made without
# kwarn's code.
set -u
cd "$(dirname "$0")/.."
kwarn=bin/kwarn
n=0 failed=0
logs=(tests/data/parse/*.log)
echo "1..$((2 * ${#logs[@]}))"

check() {
	local what=$1 out=$2 exp=$3
	n=$((n + 1))
	if diff -u "$exp" "$out" >"$tmp/diff"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		sed 's/^/# /' "$tmp/diff"
		failed=$((failed + 1))
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for log in "${logs[@]}"; do
	name=$(basename "$log" .log)
	exp=${log%.log}.expected
	$kwarn parse-dump "$log" >"$tmp/out" 2>&1
	check "$name" "$tmp/out" "$exp"
	$kwarn parse-dump --chunk 1 - <"$log" >"$tmp/out" 2>&1
	check "$name, fed byte by byte" "$tmp/out" "$exp"
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
