#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn nightly --repo PATH --ref BRANCH on a user's git tree: the branch
# is named as the user names it (the name lives in the user's repository,
# not in kwarn's cache), its newest commit is measured once, a new commit
# that adds an implicit fall-through makes the next nightly exit 1 naming
# it, a nightly with nothing new builds nothing, and a head that does not
# build exits 2 naming the cause.
#
# The user's repository is a `git clone --shared` of the packaged 6.1
# tree that kwarn imported (so no copy of the objects), with a branch at
# the import, kept at one path in $KWARN_CACHE so that kwarn's work tree
# and build of it (keyed by that path) stay warm from one run to the next.
# Cold: one qemu-config build of that work tree (about 5 minutes on 2
# cores), then one object for the new commit.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

db="$tmp/nightly.db"
cfg="$top/kernel/configs/qemu.config"
repo="$KWARN_CACHE/test-nightly-repo/linux"
nightly() {
	"$kwarn" nightly --db "$db" --config "$cfg" --series none \
		--repo "$repo" --ref main "$@"
}

tarball=/usr/src/linux-source-6.1.tar.xz
if [ ! -r "$tarball" ]; then
	ok 1 "linux-source-6.1 installed (run scripts/install-deps)"
	done_tap
fi
# the import of the packaged tree (made by any earlier kwarn run, or now)
cached="$KWARN_CACHE/trees/linux-source-6.1-$(sha256sum "$tarball" | cut -c1-12)"
if [ ! -r "$cached/imported" ]; then
	"$kwarn" run --db "$tmp/import.db" --tree "$tarball" \
		--series "$top/tests/data/series/series" --config "$cfg" \
		--no-boot --targets kernel/panic.o >/dev/null 2>"$tmp/import.err"
fi
check "the packaged tree is imported" test -r "$cached/imported"
base=$(cat "$cached/imported")
rm -rf "$repo"
git clone -q --shared --no-checkout "$cached/git" "$repo" &&
	git -C "$repo" branch -f main "$base" &&
	git -C "$repo" symbolic-ref HEAD refs/heads/main
check "a user's repository with branch main" \
	test "$(git -C "$repo" rev-parse main)" = "$base"

# 1. the branch's head, measured once
start=$(date +%s)
nightly --format json >"$tmp/n1.json" 2>"$tmp/n1.err"
rc=$?
echo "# first nightly of the branch took $(($(date +%s) - start)) s, exit $rc"
[ "$rc" -le 1 ] || tail -5 "$tmp/n1.err" | sed 's/^/# /'
check "first nightly of main: exit 0 (got $rc)" test "$rc" = 0
check "it measured the branch's head" \
	test "$(sqlite3 "$db" "SELECT c.sha FROM commits c JOIN runs r ON r.id = c.run_id WHERE r.kind = 'nightly'")" = "$base"
check "and booted it" \
	test "$(jq -r '.trees[0].verdict' "$tmp/n1.json")" = pass

# commit_panic BRANCH MESSAGE: a commit on top of main whose
# kernel/panic.c is $tmp/panic.c, as BRANCH (no work tree: a temporary
# index)
commit_panic() (
	cd "$repo" &&
	export GIT_INDEX_FILE="$tmp/index" &&
	git read-tree main &&
	blob=$(git hash-object -w "$tmp/panic.c") &&
	git update-index --cacheinfo "100644,$blob,kernel/panic.c" &&
	tree=$(git write-tree) &&
	commit=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git commit-tree "$tree" -p main -m "$2") &&
	git update-ref "refs/heads/$1" "$commit"
)

# 2. a new commit on main with an implicit fall-through
git -C "$repo" show main:kernel/panic.c >"$tmp/panic.c"
cat >>"$tmp/panic.c" <<'EOF'

int kwarn_repo_probe(int cmd);
int kwarn_repo_probe(int cmd)
{
	int r = 0;

	switch (cmd) {
	case 1:
		r = 10;
	case 2:
		r += 1;
		break;
	}
	return r;
}
EOF
want_line=$(grep -n '		r = 10;' "$tmp/panic.c" | tail -n 1 | cut -d: -f1)
commit_panic main "panic: add a probe"
check "main moved to a new commit" \
	test "$(git -C "$repo" rev-parse main)" != "$base"
nightly >"$tmp/n2.txt" 2>"$tmp/n2.err"
rc=$?
sed 's/^/# /' "$tmp/n2.txt"
check "the new commit's fall-through: exit 1 (got $rc)" test "$rc" = 1
check "report names file, function and line" \
	grep -q ">> kernel/panic.c:$want_line: in 'kwarn_repo_probe'" "$tmp/n2.txt"
check "compared with the last nightly of the branch" \
	grep -q 'last nightly of this tree' "$tmp/n2.txt"
check "the code is the cause" grep -q "kwarn_repo_probe'.*(code; gcc " "$tmp/n2.txt"

# 3. nothing new: exit 0 and no build
mid=$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")
nightly >"$tmp/n3.txt" 2>"$tmp/n3.err"
rc=$?
check "again with nothing new: exit 0 (got $rc)" test "$rc" = 0
check "and builds nothing" test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = "$mid"

# 4. a branch that does not exist: exit 2, named
"$kwarn" nightly --db "$db" --config "$cfg" --series none \
	--repo "$repo" --ref no-such-branch >/dev/null 2>"$tmp/n4.err"
rc=$?
check "unknown branch: exit 2 (got $rc)" test "$rc" = 2
check "unknown branch: named" grep -q 'no-such-branch' "$tmp/n4.err"
check "nothing measured earlier is lost" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds")" = "$mid"

# 5. a branch whose head does not build: exit 2 with the cause, and the
# nights measured before are kept
printf 'int kwarn_repo_broken(void) { return }\n' >>"$tmp/panic.c"
commit_panic broken "panic: break the build"
kept="SELECT (SELECT COUNT(*) FROM builds WHERE status = 'ok') || '/' ||
	(SELECT COUNT(*) FROM states WHERE commit_id IN
	 (SELECT commit_id FROM builds WHERE status = 'ok'))"
ok_before=$(sqlite3 "$db" "$kept")
"$kwarn" nightly --db "$db" --config "$cfg" --series none \
	--repo "$repo" --ref broken >"$tmp/n5.txt" 2>"$tmp/n5.err"
rc=$?
check "a head that does not build: exit 2 (got $rc)" test "$rc" = 2
check "the cause is named: the build and its log" \
	grep -q "did not build: see '.*make-0.log'" "$tmp/n5.err"
check "the failed build is stored as failed" \
	test "$(sqlite3 "$db" "SELECT COUNT(*) FROM builds WHERE status = 'failed'")" = 1
check "the nights measured before are kept ($ok_before builds/states)" \
	test "$(sqlite3 "$db" "$kept")" = "$ok_before"

done_tap
