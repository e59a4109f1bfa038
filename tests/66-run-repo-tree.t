#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn run's other sources of points, on linux-source-6.1 with the qemu
# config, kernel/panic.o and kernel/exit.o only (--targets, no boot), the
# first three patches of tests/data/series (whose counts 25-series-e2e.t
# checks on the packaged tree: 0, 3, 2, 2):
#
#  - --repo PATH --range BASE..TIP: a git repository of the packaged tree
#    (borrowing the objects of kwarn's cached import, as git clone --shared
#    does) with the three patches as commits; kwarn builds the user's own
#    commit ids, with their subjects and authors, and writes nothing into
#    the repository.
#  - --cc-launcher ccache on the same range: its own build directory,
#    launcher=ccache in every build's flags, each changed object through
#    the cache, and the same warnings and identities.
#  - --tree DIR: the unpacked tarball (check-series' pristine tree); the
#    import is the tarball's commit, id for id, and the patch gives the
#    range's identities.  kwarn copies and imports the directory when its
#    cache entry is missing: on a machine's first run, or every time with
#    KWARN_TEST_REIMPORT=1, which removes the entry first (about 4 more
#    minutes here: removing 1.5 GB and 80,000 git objects took 1-3
#    minutes, the copy and import one, the fresh build directory half).
#
# The repository and the directory keep fixed paths under $KWARN_CACHE (the
# build directory is keyed by them), so a warm run builds only what the
# points change: about a minute.  Cold: the import of the directory, a
# checkout of the tree and three kbuild prepares (about 3 minutes on 2
# busy cores).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

tarball=/usr/src/linux-source-6.1.tar.xz
if [ ! -r "$tarball" ] || ! command -v ccache >/dev/null; then
	echo "# linux-source-6.1 or ccache is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and ccache installed"
	done_tap
fi

cfg="$top/kernel/configs/qemu.config"
targets=kernel/panic.o,kernel/exit.o
patches=("$top"/tests/data/series/000[123]-*.patch)
sql() { sqlite3 "$1" "$2"; }

# one user of the fixed paths at a time
mkdir -p "$KWARN_CACHE"
exec 8>"$KWARN_CACHE/test-repo-tree.lock"
flock 8

# run NAME ARGS...: kwarn run into $tmp/NAME.db, waiting while another
# kwarn holds the build directory; then its JSON report
run() {
	local name=$1 try rc start
	shift
	start=$(date +%s)
	for try in $(seq 40); do
		rm -f "$tmp/$name.db"
		nice -n 10 "$kwarn" run --db "$tmp/$name.db" --config "$cfg" \
			--targets "$targets" -j2 "$@" \
			>"$tmp/$name.out" 2>"$tmp/$name.err"
		rc=$?
		grep -q 'is in use by another kwarn' "$tmp/$name.err" || break
		echo "# build directory in use, waiting ($try)"
		sleep 30
	done
	echo "# $name: $(($(date +%s) - start)) s"
	check "$name run exits 0 (rc=$rc)" test "$rc" = 0
	[ "$rc" = 0 ] || tail -5 "$tmp/$name.err" | sed 's/^/# /'
	"$kwarn" report --db "$tmp/$name.db" --format json >"$tmp/$name.json"
}
col() { # NAME FIELD: the field at every point, space-separated
	jq -r "[.commits[] | .$2 // \"null\"] | map(tostring) | join(\" \")" \
		"$tmp/$1.json"
}
summary() {
	jq -c '[.commits[] | {position, warnings, new, fixed, not_built,
		ids: [.warnings_list[] | .identity + ":" + .state] | sort}]' \
		"$tmp/$1.json"
}
ids_at() { # NAME POSITION: the identities alive there, sorted
	jq -r ".commits[$2].warnings_list[] | select(.state != \"fixed\") |
		.identity" "$tmp/$1.json" | sort
}

# kwarn's import of the tarball (the other kernel tests make it; a run of
# nothing but the base makes it here when they have not)
sha=$(sha256sum "$tarball" | cut -c1-12)
cached="$KWARN_CACHE/trees/linux-source-6.1-$sha"
if [ ! -s "$cached/imported" ]; then
	printf '# kwarn-tree: linux-source-6.1\n' >"$tmp/import.series"
	run import --series "$tmp/import.series" --compiler-cache
fi
base=$(cat "$cached/imported" 2>/dev/null)
check "kwarn's import of the tarball is cached" test -n "$base"

# make_repo DIR BASE PATCH...: a bare repository that borrows the objects
# of kwarn's import, tag kwarn-base at BASE and branch selftest with one
# commit per patch (author, date and subject from the mail, committed at
# the author's date: the same ids every time)
make_repo() {
	local repo=$1 c=$2 p t info
	shift 2
	rm -rf "$repo"
	git init -q --bare "$repo" || return 1
	echo "$cached/git/objects" >"$repo/objects/info/alternates"
	git --git-dir "$repo" tag kwarn-base "$c" || return 1
	for p in "$@"; do
		info=$(git mailinfo "$tmp/msg" "$tmp/diff" <"$p") || return 1
		GIT_INDEX_FILE=$tmp/index git --git-dir "$repo" read-tree "$c" &&
			GIT_INDEX_FILE=$tmp/index git --git-dir "$repo" \
				apply --cached "$tmp/diff" &&
			t=$(GIT_INDEX_FILE=$tmp/index git --git-dir "$repo" write-tree) ||
			return 1
		c=$(GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' <<<"$info") \
			GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' <<<"$info") \
			GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' <<<"$info") \
			GIT_COMMITTER_NAME=kwarn GIT_COMMITTER_EMAIL=kwarn@localhost \
			GIT_COMMITTER_DATE=$(sed -n 's/^Date: //p' <<<"$info") \
			git --git-dir "$repo" commit-tree "$t" -p "$c" \
			-F <(sed -n 's/^Subject: //p' <<<"$info")) || return 1
	done
	git --git-dir "$repo" update-ref refs/heads/selftest "$c"
}

repo="$KWARN_CACHE/test-repo/linux-source-6.1.git"
mkdir -p "$KWARN_CACHE/test-repo"
make_repo "$repo" "$base" "${patches[@]}"
repo=$(cd "$repo" && pwd -P)
check "a repository with three commits on the import" \
	test "$(git --git-dir "$repo" rev-list --count kwarn-base..selftest 2>/dev/null)" = 3
g() { git --git-dir "$repo" "$@"; }
g for-each-ref >"$tmp/refs.before"
g count-objects >"$tmp/objects.before"

# --repo --range
run repo --repo "$repo" --range kwarn-base..selftest --compiler-cache
j() { jq -r "$1" "$tmp/repo.json"; }
check "four points: BASE and the three commits" test "$(j '.commits | length')" = 4
check "the tree is the user's repository" \
	test "$(sql "$tmp/repo.db" "SELECT kind || ' ' || source FROM trees")" = "repo $repo"
check "the run's series is the range" \
	test "$(sql "$tmp/repo.db" "SELECT series FROM runs")" = kwarn-base..selftest
want=$( (g rev-parse kwarn-base; g rev-list --reverse kwarn-base..selftest) | paste -sd' ')
check "the points are the user's commit ids, in order" \
	test "$(sql "$tmp/repo.db" "SELECT group_concat(sha, ' ') FROM (SELECT sha FROM commits ORDER BY position)")" = "$want"
check "their subjects are the commits'" \
	test "$(sql "$tmp/repo.db" "SELECT subject FROM commits WHERE position = 2")" = \
	"$(g log -1 --format=%s selftest~1)"
check "their author is the commits'" \
	grep -q '^Kwarn Test' <(sql "$tmp/repo.db" "SELECT author FROM commits WHERE position = 1")
check "warnings per point: 0 3 2 2 ($(col repo warnings))" \
	test "$(col repo warnings)" = "0 3 2 2"
check "new per point: 0 3 0 0 ($(col repo new))" test "$(col repo new)" = "0 3 0 0"
check "fixed per point: 0 0 1 0 ($(col repo fixed))" test "$(col repo fixed)" = "0 0 1 0"
check "nothing not built" test "$(col repo not_built)" = "0 0 0 0"
sel='.warnings_list[] | select(.function == "kwarn_selftest_switch" and .state != "fixed")'
check "the warning the third commit moves keeps its identity" \
	test -n "$(j ".commits[2] | $sel | .identity")" -a \
	"$(j ".commits[2] | $sel | .identity")" = "$(j ".commits[3] | $sel | .identity")"
check "and has a new line" \
	test "$(j ".commits[2] | $sel | .line")" != "$(j ".commits[3] | $sel | .line")"
g for-each-ref >"$tmp/refs.after"
g count-objects >"$tmp/objects.after"
check "the user's refs are untouched" cmp -s "$tmp/refs.before" "$tmp/refs.after"
check "nothing is written into the user's repository" \
	cmp -s "$tmp/objects.before" "$tmp/objects.after"

# the same range through ccache as the launcher
run ccache --repo "$repo" --range kwarn-base..selftest --cc-launcher ccache
echo "# ccache: hits $(col ccache cache_hits), misses $(col ccache cache_misses)"
check "ccache: the same warnings and identities at every point" \
	cmp -s <(summary repo) <(summary ccache)
check "ccache: launcher=ccache in every build's flags" \
	test "$(sql "$tmp/ccache.db" "SELECT COUNT(*) FROM builds WHERE flags LIKE '% launcher=ccache'")" = 4
check "ccache: a build directory of its own" \
	test "$(sql "$tmp/ccache.db" "SELECT DISTINCT build_dir FROM builds")" != \
	"$(sql "$tmp/repo.db" "SELECT DISTINCT build_dir FROM builds")"
# every point after the base changes kernel/panic.c: its compile is a hit
# or a miss of the cache, never outside it
check "ccache: each patched point's compiles went through the cache" \
	test "$(jq '[.commits[1:][] | (.cache_hits // 0) + (.cache_misses // 0) | select(. >= 1)] | length' "$tmp/ccache.json")" = 3

# --tree DIR: the unpacked tarball
dir="$KWARN_CACHE/pristine/linux-source-6.1"
if [ ! -f "$dir/Makefile" ]; then
	# as kernel/check-series makes it
	mkdir -p "$KWARN_CACHE/pristine"
	tar -C "$KWARN_CACHE/pristine" -xf "$tarball"
fi
dir=$(cd "$dir" && pwd -P)
entry="$KWARN_CACHE/trees/linux-source-6.1-$(printf '%s' "$dir" | sha256sum | cut -c1-12)"
if [ -n "${KWARN_TEST_REIMPORT:-}" ]; then
	rm -rf "$entry"
fi
if [ -s "$entry/imported" ]; then
	echo "# $dir: kwarn's import of it is reused (KWARN_TEST_REIMPORT=1 imports it again)"
else
	echo "# $dir: kwarn copies and imports it"
fi
mkdir -p "$tmp/tree"
cp "${patches[0]}" "$tmp/tree/"
basename "${patches[0]}" >"$tmp/tree/series"
run tree --tree "$dir" --series "$tmp/tree/series" --compiler-cache
check "--tree DIR: copied into the cache and imported" \
	test -s "$entry/imported" -a -f "$entry/src/Makefile"
check "--tree DIR: a tree of kind dir, its path" \
	test "$(sql "$tmp/tree.db" "SELECT kind || ' ' || source FROM trees")" = "dir $dir"
check "--tree DIR: the import is the tarball's commit, id for id" \
	test "$(sql "$tmp/tree.db" "SELECT sha FROM commits WHERE position = 0")" = "$base"
check "--tree DIR: warnings 0 3 ($(col tree warnings))" \
	test "$(col tree warnings)" = "0 3"
check "--tree DIR: the patch gives the range's identities" \
	cmp -s <(ids_at tree 1) <(ids_at repo 1)
check "--tree DIR: its own build directory" \
	grep -q "/builds/$(basename "$entry")-" <(sql "$tmp/tree.db" "SELECT DISTINCT build_dir FROM builds")

done_tap
