#!/bin/bash
# sparse's output as kwarn run reads a checker's capture: every log of
# tests/data/sparse (real sparse runs, made by tests/data/sparse/regen)
# through `kwarn parse-dump --tool sparse` must print its .expected, whole
# and fed a byte at a time, and agree with a reading of the log that does
# not use kwarn's parser: each "FILE:LINE:COL: warning|error: MSG" line is
# one diagnostic of kind sparse at that place, and the "FILE:LINE:COL:"
# lines under it without a severity are its notes, in order.
set -u
cd "$(dirname "$0")/.."
. tests/lib/tap.sh
kwarn=bin/kwarn
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the independent reading: "kind file:line:col message" a diagnostic,
# "  note file:line:col message" a note
read_log() {
	awk '
	/^[^ :]+: note: in included file/ { next }
	match($0, /^[^ :]+:[0-9]+:[0-9]+: (warning|error): /) {
		at = $0; sub(/: (warning|error): .*/, "", at)
		msg = substr($0, RLENGTH + 1)
		print "sparse " at " " msg; next
	}
	match($0, /^[^ :]+:[0-9]+:[0-9]+: +/) {
		at = $0; sub(/: +.*/, "", at)
		print "  note " at " " substr($0, RLENGTH + 1); next
	}
	{ print "other " $0 }' "$1"
}
# the same from parse-dump's output
read_dump() {
	awk '
	/^diag [0-9]+: / { kind = $3; next }
	/^  at: / { at = $2; next }
	/^  message: / { m = $0; sub(/^  message: /, "", m)
		print kind " " at " " m; next }
	/^  note [0-9]+: / { s = $0; sub(/^  note [0-9]+: /, "", s)
		at = s; sub(/: .*/, "", at); m = s; sub(/^[^ ]+: /, "", m)
		print "  note " at " " m }' "$1"
}

for log in tests/data/sparse/*.log; do
	name=$(basename "$log" .log)
	$kwarn parse-dump --tool sparse "$log" >"$tmp/out" 2>&1
	check "$name: parse-dump --tool sparse prints its .expected" \
		diff -u "${log%.log}.expected" "$tmp/out"
	$kwarn parse-dump --tool sparse --chunk 1 - <"$log" >"$tmp/one" 2>&1
	check "$name: the same fed a byte at a time" \
		diff -u "${log%.log}.expected" "$tmp/one"
	read_log "$log" >"$tmp/mine"
	read_dump "$tmp/out" >"$tmp/dump"
	echo "# $name: $(grep -c '^sparse' "$tmp/mine") diagnostics, $(grep -c '^  note' "$tmp/mine") notes in the log"
	check "$name: nothing in the log but diagnostics and their notes" \
		test "$(grep -c '^other' "$tmp/mine")" = 0
	check "$name: each diagnostic and note where the log's lines say" \
		diff -u "$tmp/mine" "$tmp/dump"
	check "$name: no line unparsed, no note orphaned" \
		grep -q 'orphan notes 0, by order 0, unparsed 0,' "$tmp/out"
done
$kwarn parse-dump --tool smatch tests/data/sparse/spaces.log \
	>/dev/null 2>"$tmp/err"
rc=$?
check "a checker kwarn does not know: exit 2 (rc=$rc), named" \
	test "$rc" = 2 -a "$(grep -c "unknown checker 'smatch'" "$tmp/err")" = 1
done_tap
