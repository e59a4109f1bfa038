#!/bin/bash
# `kwarn ingest` on logs kwarn did not produce (issue 14): a -Werror
# build keeps every identity, an O= build's absolute paths lose their
# tree root (and ingest says which), kernel-doc and file-scope warnings
# keep their function, a CI prefix on each line comes off with
# --strip-prefix, lines it cannot read are counted and shown, and
# clang's warnings get their function from the source.  Every log is a
# real one from tests/data/parse.  A log saved compressed (gzip, xz,
# zstd) ingests as the plain log does.
set -u
cd "$(dirname "$0")/.."
top=$PWD
kwarn=$top/bin/kwarn
data=$top/tests/data/parse
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

echo "1..39"
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$tmp/err" ] && sed 's/^/# stderr: /' "$tmp/err"
	fi
	return 0
}
ingest() { # DB COMMIT LOG [more args]
	local db=$1 c=$2 log=$3
	shift 3
	"$kwarn" ingest --db "$tmp/$db.db" --tree t --commit "$c" "$@" "$log" \
		>"$tmp/out" 2>"$tmp/err"
}
sql() { # DB SQL
	sqlite3 "$tmp/$1.db" "$2"
}
# the identities of commit C, one a line, sorted
idents() {
	sql "$1" "SELECT d.identity_id FROM diagnostics d JOIN builds b ON
		b.id = d.build_id JOIN commits c ON c.id = b.commit_id
		WHERE c.sha = '$2' ORDER BY 1"
}

# 1: -Werror (GCC's [-Werror] and [-Werror=foo], clang's [-Werror,-Wfoo])
for cc in "" clang16-; do
	ingest w$cc off "$data/${cc}werror-off.log"
	ok $? "${cc:-gcc }without -Werror ingests"
	ingest w$cc on "$data/${cc}werror-on.log"
	ok $? "${cc:-gcc }with -Werror ingests"
	[ -n "$(idents w$cc off)" ] && [ "$(idents w$cc off)" = "$(idents w$cc on)" ]
	ok $? "${cc:-gcc }: the same identities with and without -Werror"
	[ "$(sql w$cc "SELECT COUNT(*) FROM diagnostics WHERE werror = 1")" = \
		"$(sql w$cc "SELECT COUNT(*) FROM diagnostics WHERE werror = 0")" ]
	ok $? "${cc:-gcc }: the -Werror build's warnings carry the flag"
	"$kwarn" warnings --db "$tmp/w$cc.db" --commit on --state present \
		--format json >"$tmp/present" 2>"$tmp/err" &&
		"$kwarn" warnings --db "$tmp/w$cc.db" --commit on --state new \
			--format json >"$tmp/new" 2>>"$tmp/err" &&
		[ "$(jq length "$tmp/new")" = 0 ] &&
		[ "$(jq length "$tmp/present")" = "$(idents w$cc on | wc -l)" ]
	ok $? "${cc:-gcc }: under -Werror every warning is present, none new"
done

# 14-17: an O= W=1 build of linux-source-6.1, ingested as it was printed
ingest k w1 "$data/kernel-w1-abs.log"
ok $? "an O= W=1 kernel log ingests"
grep -q "removed the tree root '/var/tmp/parser-src/linux-source-6.1/'" "$tmp/err"
ok $? "ingest says which tree root it removed"
[ "$(sql k "SELECT COUNT(*) FROM diagnostics WHERE file LIKE '/%'")" = 0 ]
ok $? "no absolute file names stored"
[ "$(sql k "SELECT o.path FROM diagnostics d JOIN objects o ON o.id = d.object_id
	WHERE d.file = 'arch/x86/entry/common.c'")" = arch/x86/entry/common.o ]
ok $? "common.c's warning is common.o's, not the CC line printed before it"
[ "$(sql k "SELECT COUNT(*) FROM diagnostics WHERE kind = 'kernel-doc'")" = 3 ]
ok $? "kernel-doc warnings are kind kernel-doc"
[ "$(sql k "SELECT function FROM identities WHERE kind = 'kernel-doc'
	AND file = 'arch/x86/entry/common.c'")" = do_int80_emulation ]
ok $? "a kernel-doc warning's function is the one it names"
[ "$(sql k "SELECT function FROM identities WHERE option = '-Wmissing-prototypes'")" = __vdso_getcpu ]
ok $? "a missing prototype's function is the one it names"
ingest k2 w1 "$data/kernel-w1-abs.log" --no-find-root
[ "$(sql k2 "SELECT COUNT(*) FROM diagnostics WHERE file LIKE '/%'")" = 5 ]
ok $? "--no-find-root keeps the paths as printed"

# 13: a CI prefix on each line; a blank in a path
ingest p raw "$data/ci-prefix.log"
[ "$(sql p "SELECT COUNT(*) FROM diagnostics")" = 0 ] &&
	grep -q "4 lines could not be read" "$tmp/err" &&
	grep -qF "[exec] drivers/demo/excess.c:1:26: warning:" "$tmp/err"
ok $? "prefixed lines are counted and shown, not stored in file '[exec]'"
ingest p stripped "$data/ci-prefix.log" --strip-prefix '^\[exec\] '
[ "$(idents p stripped | wc -l)" = 2 ] && ! grep -q "could not be read" "$tmp/err"
ok $? "--strip-prefix REGEX takes the prefix off every line"
ingest p mixed "$data/ci-prefix.log" --strip-prefix '^[0-9:]+ '
grep -q "11 lines without the prefix" "$tmp/err"
ok $? "ingest counts the lines the prefix did not match"
ingest b blank "$data/blank-path.log"
[ $? = 0 ] && grep -qF "My Dir/blank.c:5:20: warning:" "$tmp/err" &&
	[ "$(sql b "SELECT unparsed_lines FROM builds")" = 2 ]
ok $? "a blank in a path: counted as unparsed and shown, never fatal"

# clang: the function from the source when the tree is at hand
ingest c c16 "$data/clang16.log" --source "$data/src"
[ "$(sql c "SELECT function FROM diagnostics WHERE file = 'drivers/demo/clang-ft.c'
	AND line = 13")" = demo_clang ] &&
	[ "$(sql c "SELECT function FROM diagnostics WHERE file = 'include/linux/inner.h'
	AND line = 6")" = inner_a ]
ok $? "clang warnings get their enclosing function from the source"

# A compressed log: the same warnings, and the same tree root found, as
# the plain one (each into a database of its own, at the same commit).
ingest z w1 "$data/kernel-w1-abs.log"
"$kwarn" warnings --db "$tmp/z.db" --commit w1 --format json >"$tmp/plain.json"
same_as_plain() { # DB: its warnings at w1 are the plain log's
	"$kwarn" warnings --db "$tmp/$1.db" --commit w1 --format json \
		>"$tmp/$1.json" 2>>"$tmp/err" &&
		[ "$(jq length "$tmp/$1.json")" -gt 0 ] &&
		cmp -s "$tmp/plain.json" "$tmp/$1.json"
}
gzip -c "$data/kernel-w1-abs.log" >"$tmp/w1.log.gz"
ingest zg w1 "$tmp/w1.log.gz"
[ $? = 0 ] && same_as_plain zg && grep -q "removed the tree root" "$tmp/err"
ok $? "a gzip'd log ingests with the plain log's $(jq length "$tmp/plain.json") warnings"
ingest zp w1 - <"$tmp/w1.log.gz"
[ $? = 0 ] && same_as_plain zp
ok $? "a gzip'd log through a pipe: the same warnings"
for tool in xz zstd; do
	if ! command -v $tool >/dev/null; then
		ok 0 "# SKIP $tool is not installed"
		continue
	fi
	$tool -q -c "$data/kernel-w1-abs.log" >"$tmp/w1.log.$tool"
	ingest z$tool w1 "$tmp/w1.log.$tool"
	[ $? = 0 ] && same_as_plain z$tool
	ok $? "a log compressed with $tool ingests through '$tool -dc', the same warnings"
done
if command -v xz >/dev/null; then
	cat "$tmp/w1.log.xz" | ingest zx w1 -
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "xz -dc" "$tmp/err"
	ok $? "an xz log through a pipe: one line saying how, exit $rc"
	mkdir "$tmp/nobin"
	PATH=$tmp/nobin ingest zx w1 "$tmp/w1.log.xz"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -q "'xz' is not installed" "$tmp/err"
	ok $? "an xz log without xz: one line saying so, exit $rc"
else
	ok 0 "# SKIP xz is not installed"
	ok 0 "# SKIP xz is not installed"
fi

# issue 31: clang's function read from the source is the one gcc's "In
# function" names on the same source, or none (a function made by a
# macro), never the macro, a type or an attribute
ingest f gcc "$data/shapes.log" --source "$data/src"
ingest f clang "$data/clang16-shapes.log" --source "$data/src"
pairs=$(sql f "SELECT g.line || ':' || g.function || ':' || IFNULL(c.function, '')
	FROM diagnostics g JOIN builds bg ON bg.id = g.build_id
	JOIN commits cg ON cg.id = bg.commit_id AND cg.sha = 'gcc'
	JOIN diagnostics c ON c.file = g.file AND c.line = g.line
	JOIN builds bc ON bc.id = c.build_id
	JOIN commits cc ON cc.id = bc.commit_id AND cc.sha = 'clang'")
same=0 bad=
for p in $pairs; do
	IFS=: read -r line g c <<<"$p"
	if [ "$g" = "$c" ]; then
		same=$((same + 1))
	elif [ -n "$c" ]; then
		bad="$bad $line:$c"
	fi
done
[ "$(echo "$pairs" | wc -w)" = 6 ] && [ -z "$bad" ] && [ "$same" -ge 4 ]
ok $? "clang's functions from the source: gcc's or none ($same of 6 gcc's${bad:+; wrong:$bad})"

# a function on one line, the warning in it, is named as gcc names it;
# a file-scope warning below one-line functions is in none
ingest o gcc "$data/oneline.log" --source "$data/src"
ingest o clang "$data/clang16-oneline.log" --source "$data/src"
pairs=$(sql o "SELECT g.file || ':' || g.line || ':' || IFNULL(g.function, '-') ||
	':' || IFNULL(c.function, '-')
	FROM diagnostics g JOIN builds bg ON bg.id = g.build_id
	JOIN commits cg ON cg.id = bg.commit_id AND cg.sha = 'gcc'
	JOIN diagnostics c ON c.file = g.file AND c.line = g.line
	JOIN builds bc ON bc.id = c.build_id
	JOIN commits cc ON cc.id = bc.commit_id AND cc.sha = 'clang'")
bad=
for p in $pairs; do
	IFS=: read -r file line g c <<<"$p"
	[ "$g" = "$c" ] || bad="$bad $file:$line:$c"
done
[ "$(echo "$pairs" | wc -w)" = 4 ] && [ -z "$bad" ]
ok $? "clang's functions on one line: gcc's, 4 of 4${bad:+; wrong:$bad}"

# issue 31: gcc's -fdiagnostics-format=json is read, not 0 warnings
ingest j json "$data/json.log"
[ "$(sql j "SELECT COUNT(*) FROM diagnostics")" = 5 ] &&
	[ "$(sql j "SELECT COUNT(*) FROM notes")" = 3 ] &&
	[ "$(sql j "SELECT COUNT(*) FROM diagnostics WHERE werror = 1")" = 1 ]
ok $? "a -fdiagnostics-format=json log: its 5 warnings, 3 notes, 1 under -Werror"

# issue 31: system headers keep their path: /usr/ before include/ is
# no tree root, whether the tree's paths are relative or absolute
ingest s rel "$data/sysnote.log"
[ "$(sql s "SELECT GROUP_CONCAT(DISTINCT file) FROM (SELECT file FROM notes
	ORDER BY file)")" = /usr/include/string.h,/usr/include/unistd.h ] &&
	! grep -q "removed the tree root" "$tmp/err"
ok $? "relative paths and /usr/include notes: nothing stripped"
ingest s abs "$data/sysnote-abs.log"
grep -q "removed the tree root '/var/tmp/kwarn-regen-abs/linux/'" "$tmp/err" &&
	[ "$(sql s "SELECT COUNT(*) FROM notes WHERE file LIKE '/usr/include/%'")" = 6 ] &&
	[ "$(sql s "SELECT COUNT(*) FROM diagnostics WHERE file = 'tools/sysnote.c'")" = 6 ]
ok $? "an absolute tree: its root stripped, /usr/include kept"
# /usr/include/ followed by net/, a kernel directory's name too: no
# tree root either, a system header directory never is
ingest n rel "$data/sysnet.log"
[ "$(sql n "SELECT GROUP_CONCAT(DISTINCT file) FROM notes")" = /usr/include/net/if.h ] &&
	! grep -q "removed the tree root" "$tmp/err"
ok $? "relative paths and notes in /usr/include/net: nothing stripped"
ingest n abs "$data/sysnet-abs.log"
grep -q "removed the tree root '/var/tmp/kwarn-regen-abs/linux/'" "$tmp/err" &&
	[ "$(sql n "SELECT COUNT(*) FROM notes WHERE file = '/usr/include/net/if.h'")" = 4 ] &&
	[ "$(sql n "SELECT COUNT(*) FROM diagnostics WHERE file = 'tools/sysnet.c'")" = 4 ]
ok $? "an absolute tree and /usr/include/net: the tree's root stripped, not /usr/include/"

# issue 31: a note that only its order places is counted, and a serial
# log (one compile after another) leaves none to order: every log of
# the suite but the two whose compiles interleave
bad=
for log in "$data"/*.log; do
	case $(basename "$log") in
	make-j*.log | clang16-make-j.log | interleaved.log) continue ;;
	esac
	ingest order "$(basename "$log")" "$log"
	grep -qx "0 notes placed by order only" "$tmp/out" ||
		bad="$bad $(basename "$log")"
done
[ -z "$bad" ]
ok $? "0 notes placed by order only on every serial log${bad:+ (not:$bad)}"
ingest order make-j "$data/make-j.log"
grep -qx "[0-9]* notes\{0,1\} placed by order only" "$tmp/out"
ok $? "make -j's log: ingest says how many notes only order placed"
ingest order clang-make-j "$data/clang16-make-j.log"
n_order=$(sed -n 's/^\([0-9]*\) notes\{0,1\} placed by order only$/\1/p' "$tmp/out")
[ "${n_order:-0}" -gt 0 ]
ok $? "clang under make -j: the notes its structure leaves open are counted (${n_order:-none})"

echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
