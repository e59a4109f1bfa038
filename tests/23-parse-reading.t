#!/bin/bash
# Every parser case read twice: by `kwarn parse-dump` (whose output
# 20-parse-cases.t holds to NAME.expected) and by tests/lib/parse-reading.py,
# which reads the log's lines by the shapes the tools print, with none of
# kwarn's code.  For each case both must give the same diagnostics in the
# same order: kind, FILE:LINE:COL, option, -Werror, message, and each
# note's place and text.  So a snapshot made by `generate --expected`
# cannot carry a parser bug into the specification unseen: the reading is
# the record that each .expected was checked.
#
# Interleaved compiles (interleaved.log: two compiles' lines alternate
# line by line; make-j-notes.log: a real make -j2 whose notes gcc's
# structure hands to the other compile) are compared as sets of
# diagnostics without their notes:
# which compile a note belongs to is 24-parse-owners.t's reading, by the
# compiles' file names.  Last, the comparison is shown to fail on a dump
# with one line number changed.
set -u
cd "$(dirname "$0")/.."
. tests/lib/tap.sh
kwarn=bin/kwarn
data=tests/data/parse
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
by_compile=" interleaved make-j-notes "

# the same fields from a dump: a line per diagnostic, one per note
from_dump() { # DUMP
	awk '
	function flush() {
		if (kind != "") {
			print kind "\t" at "\t" opt "\t" we "\t" msg
			printf "%s", notes
		}
	}
	/^diag [0-9]+: / { flush(); kind = $0; sub(/^diag [0-9]+: /, "", kind)
		at = opt = we = msg = notes = ""; next }
	/^  at: / { at = substr($0, 7) }
	/^  option: / { opt = substr($0, 11) }
	/^  werror: / { we = substr($0, 11) }
	/^  message: / { msg = substr($0, 12) }
	/^  note [0-9]+: / { t = $0; sub(/^  note [0-9]+: /, "", t)
		notes = notes "  note: " t "\n" }
	END { flush() }
	' "$1"
}

compare() { # NAME READING DUMP-FIELDS: 0 when they agree
	if [[ $by_compile == *" $1 "* ]]; then
		grep -v '^  note: ' "$2" | sort >"$2.s"
		grep -v '^  note: ' "$3" | sort >"$3.s"
		diff -u "$2.s" "$3.s" >"$tmp/diff"
	else
		diff -u "$2" "$3" >"$tmp/diff"
	fi
}

for log in "$data"/*.log; do
	name=$(basename "$log" .log)
	python3 tests/lib/parse-reading.py "$log" >"$tmp/read" 2>"$tmp/err"
	rc=$?
	"$kwarn" parse-dump "$log" >"$tmp/dump" 2>&1
	from_dump "$tmp/dump" >"$tmp/fields"
	diags=$(grep -vc '^  note: ' "$tmp/read")
	notes=$(grep -c '^  note: ' "$tmp/read")
	[ "$rc" = 0 ] && compare "$name" "$tmp/read" "$tmp/fields"
	ok $? "$name: the dump is what the log's lines say ($diags diagnostics, $notes notes)"
	[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/err"
	[ -s "$tmp/diff" ] && sed 's/^/# /' "$tmp/diff"
done

# the comparison fails on a dump that differs in one line number
log=$data/families.log
python3 tests/lib/parse-reading.py "$log" >"$tmp/read"
"$kwarn" parse-dump "$log" | sed '0,/^  at: drivers\/demo\/families.c:13:5$/s//  at: drivers\/demo\/families.c:14:5/' >"$tmp/dump"
from_dump "$tmp/dump" >"$tmp/fields"
! compare families "$tmp/read" "$tmp/fields" &&
	grep -q 'families.c:14:5' "$tmp/fields"
ok $? "a dump with one line number changed disagrees with the reading"
done_tap
