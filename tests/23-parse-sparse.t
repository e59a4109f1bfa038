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

# A make log of a C=1 build (tests/data/sparse/make/c1.log, a real make
# run of gcc and sparse under a rule in kbuild's order, made by regen):
# kwarn ingest reads it as one stream, as it reads any make log.  The
# independent reading: after kbuild's "  CHECK   x.c" line, until the next
# "  CC" or make's own line, each "FILE:L:C: warning|error: MSG" is
# sparse's and each "FILE:L:C:" line without a kind under it one of its
# notes; every other such diagnostic is the compiler's.
log=tests/data/sparse/make/c1.log
read_make_log() {
	awk '
	/^  CHECK / { tool = "sparse"; next }
	/^  CC / || /^make/ { tool = "compiler"; next }
	/^[^ :]+: note: in included file/ { next }
	match($0, /^[^ :]+:[0-9]+:[0-9]+: (warning|error): /) {
		at = $0; sub(/: (warning|error): .*/, "", at)
		msg = substr($0, RLENGTH + 1)
		if (tool == "compiler")
			sub(/ \[-W[^]]*\]$/, "", msg)
		print tool " " at " " msg; next
	}
	tool == "sparse" && match($0, /^[^ :]+:[0-9]+:[0-9]+: +/) {
		at = $0; sub(/: +.*/, "", at)
		print "  note " at " " substr($0, RLENGTH + 1) }' "$1"
}
$kwarn parse-dump "$log" >"$tmp/make.out" 2>&1
# parse-dump's reading, kinds as tools, the compiler's notes left out
read_dump "$tmp/make.out" | awk '
	/^(warning|error) / { sub(/^[a-z]+/, "compiler"); print; keep = 0; next }
	/^sparse / { print; keep = 1; next }
	keep' >"$tmp/make.dump"
read_make_log "$log" >"$tmp/make.mine"
echo "# make log: $(grep -c '^sparse' "$tmp/make.mine") of sparse's, $(grep -c '^compiler' "$tmp/make.mine") of the compiler's, $(grep -c '^  note' "$tmp/make.mine") notes of sparse's"
check "make log: sparse's diagnostics are kind sparse, gcc's are not, in the log's order" \
	diff -u "$tmp/make.mine" "$tmp/make.dump"
check "make log: sparse's continuation lines are its notes (none unparsed, none orphaned)" \
	grep -q 'orphan notes 0, by order 0, unparsed 0,' "$tmp/make.out"
check "make log: there is something to compare (sparse and gcc both, notes under sparse's)" \
	test "$(grep -c '^sparse' "$tmp/make.mine")" -ge 5 -a \
	"$(grep -c '^compiler' "$tmp/make.mine")" -ge 5 -a \
	"$(grep -c '^  note' "$tmp/make.mine")" -ge 5
# the same diagnostics, notes and all, as sparse's captures of the same
# sources give (spaces.c and header.c: errors.c failed to compile)
cat tests/data/sparse/spaces.expected tests/data/sparse/header.expected |
	read_dump /dev/stdin >"$tmp/captures"
grep -v '^compiler' "$tmp/make.dump" >"$tmp/make.sparse"
check "make log: sparse's diagnostics are those its captures give" \
	diff -u "$tmp/captures" "$tmp/make.sparse"
# gcc named the function of its warning at spaces.c:17:21; sparse's at
# the same place names none, and each of sparse's is its unit's object
sparse_fields=$(awk '/^diag [0-9]+: / { s = ($3 == "sparse") }
	s && /^  (function|object): / { print $1 " " $2 }' "$tmp/make.out" |
	sort | uniq -c | awk '{ print $1 " " $2 " " $3 }' | tr '\n' ' ')
check "make log: sparse's have no function, and the object of their unit ($sparse_fields)" \
	test "$sparse_fields" = "6 object: drivers/demo/spaces.o 2 object: drivers/demo/header.o 8 function: (none) " -o \
	"$sparse_fields" = "8 function: (none) 2 object: drivers/demo/header.o 6 object: drivers/demo/spaces.o "
# stored: what kwarn ingest keeps of the same log
$kwarn ingest --db "$tmp/c1.db" --tree t --commit c1 "$log" >/dev/null 2>&1
ok $? "make log: kwarn ingest"
kinds=$(sqlite3 "$tmp/c1.db" "SELECT i.kind, COUNT(DISTINCT d.id),
	(SELECT COUNT(*) FROM notes n JOIN diagnostics d2 ON d2.id = n.diag_id
	 WHERE d2.kind = i.kind) FROM diagnostics d
	JOIN identities i ON i.id = d.identity_id GROUP BY 1 ORDER BY 1" |
	tr '\n' ' ')
want=$(printf '%s|%s|%s ' error 1 1 sparse "$(grep -c '^sparse' "$tmp/make.mine")" \
	"$(grep -c '^  note' "$tmp/make.mine")" warning \
	"$(($(grep -c '^compiler' "$tmp/make.mine") - 1))" 1)
check "make log: stored by kind, with sparse's notes ($kinds; want $want)" \
	test "$kinds" = "$want"
$kwarn parse-dump --tool smatch tests/data/sparse/spaces.log \
	>/dev/null 2>"$tmp/err"
rc=$?
check "a checker kwarn does not know: exit 2 (rc=$rc), named" \
	test "$rc" = 2 -a "$(grep -c "unknown checker 'smatch'" "$tmp/err")" = 1
done_tap
