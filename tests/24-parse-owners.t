#!/bin/bash
# Whose note, whose function, where and what kind: an independent
# reading of parser cases, by awk (and jq) over the log itself, held
# against NAME.expected.  A note is the last warning's of its compile,
# and a warning's function is its compile's last "In function" header; a
# compile is known by the file names of its lines (a serial log is one
# compile at a time).  Where the structure leaves a note open (clang
# under make -j), each note placed otherwise must be counted.  The
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
# both compiles of make-j-shared include owner.h: a warning there is the
# compile of the "in expansion of macro" note in its .c file written with
# it, or of the "In file included from" line printed before it
from_log_shared() { # LOG
	awk '
	function unit(f) { return f ~ /mj-s/ ? "A" : f ~ /mj-t/ ? "B" : "" }
	function loc(s,  a) { split(s, a, ":"); return a[1] ":" a[2] ":" a[3] }
	function fn(c) { return c in func ? func[c] : "(none)" }
	/^In file included from / { inc = unit($0); next }
	/^[^ ]+:[0-9]+:[0-9]+: warning: / {
		split($0, a, ":"); c = unit(a[1]); if (c == "") c = inc
		at[++nd] = loc($0); owner[nd] = c
		fa[nd] = fn("A"); fb[nd] = fn("B"); last = nd; inc = ""; next
	}
	/^[^ ]+:[0-9]+:[0-9]+: note: in expansion of macro / {
		split($0, a, ":"); owner[last] = unit(a[1])
		notes[last] = notes[last] " " loc($0); next
	}
	/^[^ ]+: In function / {
		split($0, a, ":"); c = unit(a[1]); if (c == "") c = inc
		name = $0; sub(/^[^ ]+: In function ./, "", name)
		sub(/.:$/, "", name); func[c] = name; next
	}
	END { for (i = 1; i <= nd; i++)
		print at[i] " " (owner[i] == "A" ? fa[i] : fb[i]) ":" notes[i] }
	' "$1"
}

# make-j-notes: both compiles include owner.h, only mj-o mj.h.  A note's
# compile is read from its words ('char *' is mj-n's, 'long int *' and
# every note in mj.h mj-o's), a warning in owner.h is the compile whose
# "In function" header for owner.h was printed last (after its "In file
# included from" line), a note is the last warning's of its compile
from_log_typed() { # LOG
	awk '
	function unit(f) { return f ~ /mj-n/ ? "A" : f ~ /mj-o/ ? "B" : "" }
	function loc(s,  a) { split(s, a, ":"); return a[1] ":" a[2] ":" a[3] }
	/^In file included from / { inc = unit($0); next }
	/^[^ ]+: In function / {
		split($0, a, ":"); c = unit(a[1])
		name = $0; sub(/^[^ ]+: In function ./, "", name)
		sub(/.:$/, "", name)
		if (c == "") { hdr = inc; hfunc[inc] = name } else func[c] = name
		next
	}
	/^[^ ]+:[0-9]+:[0-9]+: warning: / {
		split($0, a, ":"); c = unit(a[1])
		if (c == "") { c = hdr; f = hfunc[c] } else f = func[c]
		at[++nd] = loc($0); fn[nd] = f; last[c] = nd; next
	}
	/^[^ ]+:[0-9]+:[0-9]+: note: / {
		c = $0 ~ /mj\.h/ || $0 ~ /long int/ ? "B" : "A"
		notes[last[c]] = notes[last[c]] " " loc($0); next
	}
	END { for (i = 1; i <= nd; i++) print at[i] " " fn[i] ":" notes[i] }
	' "$1"
}

# logs whose structure leaves notes open (clang under make -j): each note
# placed otherwise than the compiles say must be one of those counted
open_cases=(
	"clang16-make-j:mj-a|owner"
)
# where each diagnostic is, read from the log by the shapes of the tools'
# lines (kconfig's "F:L:warning:", dtc's "F:L.C-L.C: Warning (", objtool's
# "F: warning: objtool:", GNU as's "F:L: Warning:"...) or, for gcc's JSON,
# by jq: the expected "at:" lines, in order
loc_cases=(notes-owner clang16-chain lto-werror make-override kconfig dtc
	objtool-section kernel-doc-path tmp-asm sysnote sysnote-abs sysnet
	sysnet-abs shapes oneline clang16-oneline
	clang16-shapes json)
echo "1..$((2 * ${#cases[@]} + ${#open_cases[@]} + ${#loc_cases[@]} + 4))"
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
from_log_shared "$data/make-j-shared.log" >"$tmp/log"
from_expected "$data/make-j-shared.expected" >"$tmp/exp"
check "make-j-shared: a warning in the header both include is its note's compile's" \
	"$tmp/log" "$tmp/exp"

# "WARNING-AT NOTE-AT" a line, from the lines that reading gives
pairs() {
	awk '{ split($0, h, ":"); at = h[1] ":" h[2] ":" h[3]
		n = split($0, w, " "); for (i = 3; i <= n; i++) print at, w[i] }' "$1" |
		sort
}

# make-j-notes: every warning where and in which function its compile
# says; a note in mj.h, which only mj-o names, is mj-o's warning's; a
# note in owner.h that follows the other compile's warning is open
# (both compiles named owner.h, and GCC prints no chain for it): each
# one placed otherwise than its words say must be counted
from_log_typed "$data/make-j-notes.log" >"$tmp/log"
from_expected "$data/make-j-notes.expected" >"$tmp/exp"
awk '{ print $1, $2 }' "$tmp/log" >"$tmp/log-fn"
awk '{ print $1, $2 }' "$tmp/exp" >"$tmp/exp-fn"
check "make-j-notes: each warning's place and function as its compile says" \
	"$tmp/log-fn" "$tmp/exp-fn"
pairs "$tmp/log" >"$tmp/plog"
pairs "$tmp/exp" >"$tmp/pexp"
grep ' include/linux/mj\.h:' "$tmp/plog" >"$tmp/mlog"
grep ' include/linux/mj\.h:' "$tmp/pexp" >"$tmp/mexp"
check "make-j-notes: each note in mj.h with mj-o's warning ($(wc -l <"$tmp/mlog"))" \
	"$tmp/mlog" "$tmp/mexp"
wrong=$(comm -23 "$tmp/plog" "$tmp/pexp" | wc -l)
counted=$(sed -n 's/.*by order \([0-9]*\),.*/\1/p' "$data/make-j-notes.expected")
echo "$wrong" >"$tmp/wrong"
[ "$wrong" -le "$counted" ] && echo "$wrong" >"$tmp/ok" || echo "over" >"$tmp/ok"
check "make-j-notes: $wrong note(s) in owner.h placed otherwise than their words say, $counted counted by order" \
	"$tmp/wrong" "$tmp/ok"

for c in "${open_cases[@]}"; do
	name=${c%%:*} first=${c#*:}
	from_log "$data/$name.log" "$first" >"$tmp/log"
	from_expected "$data/$name.expected" >"$tmp/exp"
	pairs "$tmp/log" >"$tmp/plog"
	pairs "$tmp/exp" >"$tmp/pexp"
	wrong=$(comm -23 "$tmp/plog" "$tmp/pexp" | wc -l)
	counted=$(sed -n 's/.*by order \([0-9]*\),.*/\1/p' "$data/$name.expected")
	echo "$wrong" >"$tmp/wrong"
	[ "$wrong" -le "$counted" ] && echo "$wrong" >"$tmp/ok" || echo "over" >"$tmp/ok"
	check "$name: $wrong note(s) placed otherwise than the compiles say, $counted counted by order" \
		"$tmp/wrong" "$tmp/ok"
done
locations() { # LOG
	if head -c 2 "$1" | grep -q '\['; then
		jq -r '.[] | .locations[0].caret |
			"\(.file):\(.line):\(.column)"' "$1"
		return
	fi
	awk '
	match($0, /^[^ :]+:[0-9]+:[0-9]+: (warning|error|fatal error): /) {
		split($0, a, ":"); print a[1] ":" a[2] ":" a[3]; next }
	match($0, /^[^ :]+:[0-9]+: (warning|Warning|error|Error): /) ||
	match($0, /^[^ :]+:[0-9]+:warning: /) {
		split($0, a, ":"); print a[1] ":" a[2] ":0"; next }
	match($0, /^[^ :]+:[0-9]+\.[0-9]+-[0-9.]+: Warning \(/) {
		split($0, a, ":"); split(a[2], lc, /[.-]/)
		print a[1] ":" lc[1] ":" lc[2]; next }
	match($0, /^(ld: )?[^ :]+: warning: objtool: /) {
		sub(/^ld: /, ""); split($0, a, ":"); print a[1] ":0:0" }
	' "$1"
}

# the kind each tool's lines are, in the cases of one tool
declare -A kind_of=([make-override]=make [kconfig]=kconfig [dtc]=dtc
	[objtool-section]=objtool [kernel-doc-path]=kernel-doc
	[tmp-asm]=assembler)
for name in "${loc_cases[@]}"; do
	locations "$data/$name.log" >"$tmp/log"
	sed -n 's/^  at: //p' "$data/$name.expected" >"$tmp/exp"
	if [ -n "${kind_of[$name]:-}" ]; then
		sed "s/\$/ ${kind_of[$name]}/" "$tmp/log" >"$tmp/l2"
		paste -d' ' "$tmp/exp" \
			<(sed -n 's/^diag [0-9]*: //p' "$data/$name.expected") >"$tmp/e2"
		mv "$tmp/l2" "$tmp/log"
		mv "$tmp/e2" "$tmp/exp"
	fi
	check "$name: each diagnostic where the log's lines say ($(wc -l <"$tmp/log"))" \
		"$tmp/log" "$tmp/exp"
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
