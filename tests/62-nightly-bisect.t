#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# kwarn nightly --repo on a branch that moved by 32 commits since the last
# nightly: the new warning is bisected by its object alone and the report
# says which commit brought it.  Commit 16 does not build (an #error in
# kernel/panic.c, taken out by commit 17): skipped and said so.  Commit
# 22 adds a switch whose case misses its break.
#
# The user's repository is a `git clone --shared` of kwarn's import of the
# packaged 6.1 (as in tests/61-nightly-repo.t), kept at its own path in
# $KWARN_CACHE, with a cache of the nightly's own below it.  Cold:
# one qemu-config build (5 to 10 minutes on 2 cores), then the head's few
# objects and the bisection (about 3 minutes).
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
repo="$KWARN_CACHE/test-nightly-bisect/linux"
# the nightly's own cache: its lock is not another nightly's, and its
# work tree and build of the repository stay warm from one run to the next
ncache="$KWARN_CACHE/test-nightly-bisect/cache"
nightly() {
	KWARN_CACHE="$ncache" "$kwarn" nightly --db "$db" --config "$cfg" \
		--series none --repo "$repo" --ref main "$@"
}
tarball=/usr/src/linux-source-6.1.tar.xz
cached="$KWARN_CACHE/trees/linux-source-6.1-$(sha256sum "$tarball" 2>/dev/null | cut -c1-12)"
if [ ! -r "$cached/imported" ]; then
	echo "# kwarn's cache holds no import of linux-source-6.1 (run tests/25-series-e2e.t)"
	ok 1 "linux-source-6.1 imported"
	done_tap
fi
base=$(cat "$cached/imported")
rm -rf "$repo"
git clone -q --shared --no-checkout "$cached/git" "$repo" &&
	git -C "$repo" branch -f main "$base" &&
	git -C "$repo" symbolic-ref HEAD refs/heads/main
check "a user's repository with branch main" \
	test "$(git -C "$repo" rev-parse main)" = "$base"

start=$(date +%s)
nightly >"$tmp/n1.txt" 2>"$tmp/n1.err"
rc=$?
echo "# first nightly took $(($(date +%s) - start)) s, exit $rc"
[ "$rc" -le 1 ] || tail -5 "$tmp/n1.err" | sed 's/^/# /'
check "first nightly of main: exit 0 (got $rc)" test "$rc" = 0

# commit FILE CONTENT-FILE MESSAGE: a commit on main (a temporary index,
# no work tree) whose FILE holds CONTENT-FILE
commit() (
	cd "$repo" &&
	export GIT_INDEX_FILE="$tmp/index" &&
	git read-tree main &&
	blob=$(git hash-object -w "$2") &&
	git update-index --add --cacheinfo "100644,$blob,$1" &&
	tree=$(git write-tree) &&
	c=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git commit-tree "$tree" -p main -m "$3") &&
	git update-ref refs/heads/main "$c" &&
	echo "$c"
)
git -C "$repo" show main:kernel/panic.c >"$tmp/panic.orig"
{ echo '#error kwarn bisect test: this commit does not build'
  cat "$tmp/panic.orig"; } >"$tmp/panic.broken"
cp "$tmp/panic.orig" "$tmp/panic.probe"
cat >>"$tmp/panic.probe" <<'EOF2'

int kwarn_bisect_probe(int cmd);
int kwarn_bisect_probe(int cmd)
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
EOF2
for i in $(seq 32); do
	case $i in
	16) c=$(commit kernel/panic.c "$tmp/panic.broken" "panic: break the build") ;;
	17) c=$(commit kernel/panic.c "$tmp/panic.orig" "panic: mend the build") ;;
	22) c=$(commit kernel/panic.c "$tmp/panic.probe" "panic: add a probe with a missing break") ;;
	*)
		echo "$i" >"$tmp/doc"
		c=$(commit "Documentation/kwarn-bisect/$i.txt" "$tmp/doc" "doc: note $i")
		;;
	esac
	[ -n "$c" ] || break
	eval "c$i=$c"
done
: "${c16:=none}" "${c22:=none}"
check "main moved by 32 commits" \
	test "$(git -C "$repo" rev-list --count "$base..main")" = 32

start=$(date +%s)
nightly --mail "$tmp/n2.mbox" >"$tmp/n2.txt" 2>"$tmp/n2.err"
rc=$?
echo "# second nightly took $(($(date +%s) - start)) s, exit $rc"
sed 's/^/# /' "$tmp/n2.txt"
grep '^step \|^bisecting\|kwarn:' "$tmp/n2.err" | sed 's/^/# /'
check "the new fall-through: exit 1 (got $rc)" test "$rc" = 1
check "it is named" grep -q "^>> kernel/panic.c:[0-9]*: in 'kwarn_bisect_probe'" "$tmp/n2.txt"
check "introduced by commit 22, with its subject" \
	grep -qxF "   introduced by $c22 (\"panic: add a probe with a missing break\")" "$tmp/n2.txt"
check "the mail's commit: is the bisected commit, head: the branch's head" \
	sh -c "grep -qxF 'commit:   $c22 (\"panic: add a probe with a missing break\")' '$tmp/n2.mbox' &&
		grep -qxF \"head:     \$(git -C '$repo' rev-parse main)\" '$tmp/n2.mbox'"
check "commit 16 is skipped and said so" \
	grep -q "^step [0-9]*: ${c16:0:12} (.*): the object does not build here: skipped$" "$tmp/n2.err"
steps=$(grep -c '^step ' "$tmp/n2.err")
skips=$(grep -c ': skipped$' "$tmp/n2.err")
check "at most log2(32) + skips = $((5 + skips)) object builds ($steps)" \
	test "$steps" -ge 1 -a "$steps" -le $((5 + skips))
check "bisected by kernel/panic.o alone" \
	grep -q '^bisecting 32 commits .* by kernel/panic.o$' "$tmp/n2.err"
done_tap
