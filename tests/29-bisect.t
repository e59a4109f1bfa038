#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn bisect by one object: a git tree made here from kwarn's cached
# import of linux-source-6.1 (git clone --shared) with 32 commits on top:
# commit 16 does not build (an #error in kernel/panic.c, taken out again by
# commit 17), commit 22 applies the test series' first patch, which adds
# the switch whose case misses its break.  kwarn bisect, given the
# warning's identity from a kwarn run of that series, names commit 22,
# skips commit 16 and says so, builds the object at most
# ceil(log2(32)) + skips times, and compiles no kernel object but that one.
#
# Set KWARN_REPRO_DB to a database of that series to skip the kwarn run.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/series-db.sh"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ]; then
	echo "# linux-source-6.1 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 installed"
	done_tap
fi
db=${KWARN_REPRO_DB:-}
if [ -z "$db" ]; then
	db="$tmp/e2e.db"
	series_db "$db" "$tmp"
	rc=$?
	check "kwarn run of the series exits 0 (rc=$rc)" test "$rc" = 0
fi
"$kwarn" report --db "$db" --format json >"$tmp/report.json"
fp=$(jq -r '[.commits[1].warnings_list[] | select(.function ==
	"kwarn_selftest_switch" and .state == "new")] | last | .identity' \
	"$tmp/report.json")
base=$(jq -r '.commits[0].commit' "$tmp/report.json")
gitdir=$(jq -r '.commits[1].warnings_list[0].reproducer' "$tmp/report.json" |
	sed -n 's/^git --git-dir \([^ ]*\) worktree.*/\1/p')
check "the missing break's identity ($fp)" test -n "$fp" -a "$fp" != null
check "kwarn's cached repository ($gitdir)" test -d "$gitdir"

# the tree: 32 commits on the imported base
repo=$tmp/repo
start=$(date +%s)
git clone -q --shared --no-checkout "$gitdir" "$repo" 2>/dev/null
git -C "$repo" checkout -q --detach "$base"
ok $? "a shared clone at the base ($(($(date +%s) - start)) s)"
export GIT_AUTHOR_NAME=kwarn GIT_AUTHOR_EMAIL=kwarn@localhost
export GIT_COMMITTER_NAME=kwarn GIT_COMMITTER_EMAIL=kwarn@localhost
export GIT_AUTHOR_DATE=@1700000000 GIT_COMMITTER_DATE=@1700000000
mkdir -p "$repo/Documentation/kwarn-bisect"
for i in $(seq 32); do
	case $i in
	16)
		sed -i '1i #error kwarn bisect test: this commit does not build' \
			"$repo/kernel/panic.c"
		msg="kwarn bisect test: break the build of kernel/panic.o"
		;;
	17)
		sed -i '1d' "$repo/kernel/panic.c"
		msg="kwarn bisect test: mend the build"
		;;
	22)
		git -C "$repo" apply "$top"/tests/data/series/0001-*.patch || break
		msg="kwarn bisect test: add the switch with the missing break"
		;;
	*)
		echo "$i" >"$repo/Documentation/kwarn-bisect/$i.txt"
		msg="kwarn bisect test: commit $i"
		;;
	esac
	# the tarball's .gitignore ignores /*: add by force
	git -C "$repo" add -f -A Documentation/kwarn-bisect kernel include &&
		git -C "$repo" commit -q -m "$msg" || break
	eval "c$i=\$(git -C \"\$repo\" rev-parse HEAD)"
done
: "${c16:=none}" "${c22:=none}"
check "32 commits on the base" \
	test "$(git -C "$repo" rev-list --count "$base..HEAD")" = 32

start=$(date +%s)
"$kwarn" bisect --db "$db" --warning "$fp" --repo "$repo" --good "$base" \
	--bad HEAD --dir "$tmp/bisect" >"$tmp/bisect.out" 2>"$tmp/bisect.err"
rc=$?
echo "# kwarn bisect took $(($(date +%s) - start)) s"
sed 's/^/# /' "$tmp/bisect.out" "$tmp/bisect.err"
check "kwarn bisect exits 0 (rc=$rc)" test "$rc" = 0
check "introduced by commit 22, with its subject" \
	grep -qxF "introduced by $c22 (\"kwarn bisect test: add the switch with the missing break\")" \
	"$tmp/bisect.out"
check "commit 16 is skipped and said so" \
	grep -q "^step [0-9]*: ${c16:0:12} (.*): the object does not build here: skipped$" \
	"$tmp/bisect.out"
steps=$(grep -c '^step ' "$tmp/bisect.out")
skips=$(grep -c ': skipped$' "$tmp/bisect.out")
builds=$(sed -n 's/^\([0-9]*\) object builds for 32 commits$/\1/p' "$tmp/bisect.out")
check "every object build is a step ($steps = $builds)" test "$steps" = "$builds"
check "at most log2(32) + skips = $((5 + skips)) object builds ($builds)" \
	test -n "$builds" -a "$builds" -le $((5 + skips))
# kbuild's prepare builds host tools (scripts/, tools/objtool,
# arch/x86/tools/relocs): no kernel object among them
objs=$(cd "$tmp/bisect/build" && find . -name '*.o' -not -path './scripts/*' \
	-not -path './tools/*' -not -path './arch/x86/tools/*' | sort |
	tr '\n' ' ')
check "no kernel object compiled but kernel/panic.o ($objs)" \
	test "$objs" = "./kernel/panic.o "
check "the repository is only read: no worktree added to it" \
	test "$(git -C "$repo" worktree list | wc -l)" = 1
done_tap
