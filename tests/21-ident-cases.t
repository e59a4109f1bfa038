#!/bin/bash
# Identity cases as data: tests/data/ident/NAME/ holds the sources of two
# builds (a/ and b/), gcc's logs of them (a.log, b.log, made by
# tests/data/ident/generate) and NAME/expected, the state of every warning
# at b: one line "STATE FILE:LINE FUNCTION [OPTION] MESSAGE (seen N)".
# Each case is ingested as two commits of one tree, as kwarn ingest does
# for any two builds, and the states kwarn warnings reports at b must be
# exactly the expected ones.  Adding a case needs no code.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

states() { # DB: every warning's state at commit b, one line each
	local s
	for s in new present fixed not_built; do
		"$kwarn" warnings --db "$1" --commit b --state "$s" --format json
	done | jq -rs 'add | .[] | "\(.state) \(.file):\(.line) \(.function // "-") [\(.option // "-")] \(.message) (seen \(.seen))"' |
		sort
}

for dir in tests/data/ident/*/; do
	name=$(basename "$dir")
	db="$tmp/$name.db"
	"$kwarn" ingest --db "$db" --tree "$name" --commit a "$dir/a.log" \
		>/dev/null 2>"$tmp/err" &&
		"$kwarn" ingest --db "$db" --tree "$name" --commit b \
			"$dir/b.log" >/dev/null 2>>"$tmp/err"
	ok $? "$name: both builds ingested"
	states "$db" >"$tmp/$name.got"
	if diff -u "$dir/expected" "$tmp/$name.got" >"$tmp/diff"; then
		ok 0 "$name: states at b as expected"
	else
		sed 's/^/# /' "$tmp/diff"
		ok 1 "$name: states at b as expected"
	fi
done

done_tap
