#!/bin/bash
# Whose note, whose function: an independent reading of some parser
# cases, by awk over the log itself, held against NAME.expected.  A
# note is the last warning's of its compile, and a warning's function
# is its compile's last "In function" header; a compile is known by the
# file names of its lines (a serial log is one compile at a time).  The
# expected files were also read by hand; this reading does not use kwarn.
set -u
cd "$(dirname "$0")/.."
data=tests/data/parse
n=0 failed=0
# NAME and an ERE naming the files of the first compile ("" if serial)
cases=(
	"notes-owner:"
	"gcc11-notes-owner:"
	"clang16-notes-owner:"
	"clang16-chain:"
	"lto-werror:"
	"notes-follow:"
	"gcc11-notes-follow:"
	"make-j:mj-a|owner"
	"interleaved:twice"
)
echo "1..$((2 * ${#cases[@]}))"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {
	n=$((n + 1))
	if diff -u "$2" "$3" >"$tmp/diff"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		sed 's/^/# /' "$tmp/diff"
		failed=$((failed + 1))
	fi
}

# "FILE:LINE:COL function: NOTE-LOCATIONS" for each warning of the log
from_log() { # LOG ERE
	awk -v first="$2" '
	function unit(f) { return first == "" ? "all" : f ~ first ? "A" : "B" }
	function loc(s,  a) { split(s, a, ":"); return a[1] ":" a[2] ":" a[3] }
	/^[^ ]+:[0-9]+:[0-9]+: (warning|error): / {
		split($0, a, ":"); c = unit(a[1])
		at[++nd] = loc($0); fn[nd] = c in func ? func[c] : "(none)"
		last[c] = nd; next
	}
	/^[^ ]+:[0-9]+:[0-9]+: note: / {
		split($0, a, ":"); c = unit(a[1])
		if (c in last) notes[last[c]] = notes[last[c]] " " loc($0)
		next
	}
	/^[^ ]+: In function / {
		split($0, a, ":"); c = unit(a[1])
		name = $0; sub(/^[^ ]+: In function ./, "", name)
		sub(/.:$/, "", name); func[c] = name; next
	}
	/^[^ ]+: At top level:/ { split($0, a, ":"); func[unit(a[1])] = "(none)" }
	END { for (i = 1; i <= nd; i++) print at[i] " " fn[i] ":" notes[i] }
	' "$1"
}

# the same from kwarn's expected output
from_expected() { # EXPECTED
	awk '
	function flush() { if (at != "") print at " " fn ":" notes }
	/^diag [0-9]+: / { flush(); at = ""; fn = ""; notes = ""
		keep = $3 == "warning" || $3 == "error"; next }
	!keep { next }
	/^  at: / { at = $2 }
	/^  function: / { fn = $2 }
	/^  note [0-9]+: / { split($3, a, ":"); notes = notes " " a[1] ":" a[2] ":" a[3] }
	END { flush() }
	' "$1"
}

for c in "${cases[@]}"; do
	name=${c%%:*} first=${c#*:}
	from_log "$data/$name.log" "$first" >"$tmp/log"
	from_expected "$data/$name.expected" >"$tmp/exp"
	wc -l <"$tmp/log" >"$tmp/nlog"
	grep -c '^diag' "$data/$name.expected" >"$tmp/nexp"
	check "$name: as many diagnostics as the log's warnings ($(cat "$tmp/nlog"))" \
		"$tmp/nlog" "$tmp/nexp"
	check "$name: each note and function as the log's compiles say" "$tmp/log" "$tmp/exp"
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
