#!/bin/bash
# The manual pages (doc/man) against the programs: a page for every
# command, every option each command accepts in its page, every page
# rendered by groff and man without a warning, `kwarn help CMD` showing
# the page with man and without it, and `make install` putting the pages
# where `man kwarn-run` finds them.
set -u
cd "$(dirname "$0")/.."
top=$PWD
kwarn=$top/bin/kwarn
man=$top/doc/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib/tap.sh
unset KWARN_DATA MANPATH

# The commands kwarn lists, its hidden one, and the two other programs.
cmds=$("$kwarn" --help | sed -n 's/^  \([a-z-]*\) .*/\1/p')
ok $([ "$(echo "$cmds" | wc -w)" -ge 10 ] && echo 0 || echo 1) \
	"kwarn --help lists its commands ($(echo $cmds))"
cmds=$(echo $cmds parse-dump)

# The options a usage text names: --long ones and -x short ones.
options_of() {
	grep -oE -- '(^|[^a-zA-Z0-9-])--?[a-zA-Z][a-zA-Z0-9-]*' "$1" |
		sed 's/^[^-]*//' | grep -vxE -- '-W[a-zA-Z-]*' | sort -u
}
# Is option $2 in page $1?  The page spells every - as \-.
in_page() {
	grep -qF -- "$(printf '%s' "$2" | sed 's/-/\\-/g')" "$1"
}

check_options() { # NAME PAGE USAGE-FILE
	local name=$1 page=$2 usage=$3 missing="" opt count=0
	for opt in $(options_of "$usage"); do
		count=$((count + 1))
		in_page "$page" "$opt" || missing="$missing $opt"
	done
	[ -z "$missing" ] && [ "$count" -gt 0 ]
	ok $? "kwarn-$name.1 has all $count options of its usage${missing:+ (missing:$missing)}"
}

for c in $cmds; do
	page=$man/kwarn-$c.1
	check "kwarn-$c.1 exists" test -s "$page"
	"$kwarn" "$c" --help >"$tmp/usage" 2>&1
	# the option parser's complaint about --help is not a usage line
	sed -i '/unrecognized option/d' "$tmp/usage"
	check_options "$c" "$page" "$tmp/usage"
done
check "kwarn-server.1 exists" test -s "$man/kwarn-server.1"
"$top/bin/kwarn-server" --help >"$tmp/usage" 2>&1
check_options server "$man/kwarn-server.1" "$tmp/usage"
check "kwarn-cc.1 exists" test -s "$man/kwarn-cc.1"
"$top/bin/kwarn-cc" >"$tmp/usage" 2>&1
grep -q 'usage: kwarn-cc \[--tool=CHECKER\] COMPILER' "$tmp/usage" &&
	grep -qF 'B kwarn\-cc' "$man/kwarn-cc.1" &&
	grep -qF '\-\-tool=' "$man/kwarn-cc.1"
ok $? "kwarn-cc.1 names what kwarn-cc's usage says, --tool too"

# Options a usage text leaves out (run's --jobs, the server's --check) are
# in the option tables of the source: each long one is in some page.
grep -ohE '\{ *"[a-z][a-z0-9-]*", *(no|required|optional)_argument|OPT_[A-Z]+\([^,]*, *"[a-z][a-z0-9-]*"' \
	collector/*.c server/*.c common/*.c lib/*.c 2>/dev/null |
	grep -oE '"[a-z][a-z0-9-]*"' | tr -d '"' | sort -u >"$tmp/src-opts"
missing=""
for o in $(cat "$tmp/src-opts"); do
	grep -qF -- "\\-\\-$(printf '%s' "$o" | sed 's/-/\\-/g')" "$man"/*.1 ||
		missing="$missing --$o"
done
nsrc=$(wc -l <"$tmp/src-opts")
# fewer than 40 means the scan no longer reads the option tables
[ -z "$missing" ] && [ "$nsrc" -ge 40 ]
ok $? "all $nsrc long options of the source's option tables are in a page${missing:+ (missing:$missing)}"

# Every page is a command's: no page outlives its command.
stale=""
for page in "$man"/kwarn-*.1; do
	c=${page##*/kwarn-}
	c=${c%.1}
	case " $cmds server cc " in *" $c "*) ;; *) stale="$stale $c" ;; esac
done
ok $([ -z "$stale" ] && echo 0 || echo 1) "every page is a command's${stale:+ (no command:$stale)}"

for page in "$man"/*.1; do
	groff -man -ww -z "$page" >"$tmp/err" 2>&1
	MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>>"$tmp/err"
	[ ! -s "$tmp/err" ]
	ok $? "${page##*/} renders without warnings"
	[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
done

# kwarn help CMD: man's rendering when man is there ...
"$kwarn" help run >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && grep -q '^KWARN-RUN(1)' "$tmp/out" &&
	grep -q -- '--cc-launcher L' "$tmp/out"
ok $? "kwarn help run shows kwarn-run(1) through man"
# ... and plain text from the page when it is not on PATH
mkdir "$tmp/nobin"
PATH=$tmp/nobin "$kwarn" help nightly >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && grep -q '^KWARN-NIGHTLY(1)' "$tmp/out" &&
	grep -q -- '--ref BRANCH' "$tmp/out" &&
	grep -q '^EXIT STATUS' "$tmp/out" &&
	! grep -qE '^\.|\\-|\\f' "$tmp/out"
ok $? "without man, kwarn help nightly prints the page as plain text"
for c in $cmds server cc; do
	PATH=$tmp/nobin "$kwarn" help "$c" >"$tmp/out" 2>"$tmp/err" &&
		grep -q '^NAME' "$tmp/out" || echo "$c" >>"$tmp/bad"
done
[ ! -s "$tmp/bad" ]
ok $? "without man, kwarn help shows every page$([ -s "$tmp/bad" ] && echo " (not: $(echo $(cat "$tmp/bad")))")"
"$kwarn" help no-such >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "no-such" "$tmp/err" &&
	[ ! -s "$tmp/out" ]
ok $? "kwarn help of an unknown command: one line, exit 2"

# make install into a temporary root: man finds the pages by MANPATH, and
# the installed kwarn finds its own pages.
make -s install DESTDIR="$tmp/root" PREFIX=/opt/kwarn >"$tmp/out" 2>&1
ok $? "make install DESTDIR=... PREFIX=/opt/kwarn"
inst=$tmp/root/opt/kwarn
npages=$(ls "$inst/share/man/man1" 2>/dev/null | wc -l)
ok $([ "$npages" = "$(ls "$man"/*.1 | wc -l)" ] && echo 0 || echo 1) \
	"make install put all $npages pages in PREFIX/share/man/man1"
[ "$(MANPATH=$inst/share/man man -w kwarn-run)" = "$inst/share/man/man1/kwarn-run.1" ] &&
	MANPATH=$inst/share/man MANWIDTH=80 man kwarn-run 2>&1 | grep -q '^KWARN-RUN(1)'
ok $? "man kwarn-run finds the installed page with MANPATH"
# the installed kwarn reads the installed page, not the checkout's
sed -i 's/^kwarn\\-report \\- /&installed: /' "$inst/share/man/man1/kwarn-report.1"
PATH=$tmp/nobin "$inst/bin/kwarn" help report >"$tmp/out" 2>&1 &&
	grep -q 'kwarn-report - installed: ' "$tmp/out"
ok $? "the installed kwarn help report shows the installed page"

# The README stays a first page: short, and its links lead somewhere.
lines=$(wc -l <README.md)
ok $([ "$lines" -le 125 ] && echo 0 || echo 1) "README.md is $lines lines (at most about 120)"
bad=""
for l in $(grep -oE '\]\([^)#: ]+\)' README.md | sed 's/^](//; s/)$//'); do
	[ -e "$l" ] || bad="$bad $l"
done
ok $([ -z "$bad" ] && echo 0 || echo 1) "README.md's links to the repository resolve${bad:+ (missing:$bad)}"
grep -q 'doc/man' README.md && grep -q 'kwarn help' README.md
ok $? "README.md points to the manual pages"

done_tap
