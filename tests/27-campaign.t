#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# Campaign mode on the real packaged tree, single objects only
# (--targets kernel/panic.o), over the two-patch series in
# tests/data/campaign: a fall-through marked only by a comment, one marked
# with fallthrough;, and a missing break (fixed by patch 2, which also
# gives kwarn_campaign_noproto() its prototype).
#
#  - --cc gcc --cc clang-16: gcc at level 3 accepts the comment, clang
#    reports it; fallthrough; is clean for both; the missing break is
#    reported by both and is one site; one checkout per point.
#  - a run without --cc has the parameters of --cc gcc (no rebuild).
#  - --warnings W=1: the missing prototype is new only in the W=1 run.
#  - --config-base FILE (a .config).
#  - the reproducer of a clang warning, run as printed in a fresh shell,
#    has clang print it at the same place; W=1's reproducer passes W=1;
#    SARIF names clang as the driver and KCIDB's command passes LLVM=.
#  - an unknown compiler, one not installed, a bad --warnings item and a
#    bad --config-base: one line, exit 2, nothing imported or built.
#
# Warm cache: about 1 min per run; cold: add a config and prepare per
# build directory (gcc, clang-16, gcc W=1, gcc with the .config base).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
gitdir=
cleanup() {
	rm -rf "$tmp"
	# the worktree the reproducer added to kwarn's cached repository
	[ -n "$gitdir" ] && git --git-dir "$gitdir" worktree prune
}
trap cleanup EXIT

. "$top/tests/lib/tap.sh"
. "$top/tests/lib/server-fixture.sh"

series="$top/tests/data/campaign/series"
cfg="$top/kernel/configs/qemu.config"
db="$tmp/campaign.db"
sql() { sqlite3 "$1" "$2"; }

# expect_refused "what" "pattern" args...: exit 2, one line, no database
# (kwarn runs with $RUN_PATH as its PATH when that is set)
expect_refused() {
	local what=$1 pat=$2
	shift 2
	PATH="${RUN_PATH:-$PATH}" "$kwarn" run --db "$tmp/refused.db" \
		--series "$series" --config "$cfg" --targets kernel/panic.o \
		"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	check "$what: exit 2 ($rc)" test "$rc" = 2
	check "$what: one line" test "$(wc -l <"$tmp/err")" = 1
	check "$what: says '$pat'" grep -q -- "$pat" "$tmp/err"
	check "$what: nothing imported or built" test ! -e "$tmp/refused.db"
	sed 's/^/# /' "$tmp/err"
}

expect_refused "unknown compiler" "unknown compiler 'icc'" --cc icc
mkdir -p "$tmp/bin"
for t in make gcc tar git sha256sum; do
	p=$(command -v $t) && ln -sf "$p" "$tmp/bin/$t"
done
RUN_PATH="$tmp/bin" expect_refused "compiler not installed" \
	"compiler 'clang-16' is not installed: no 'clang-16'" --cc gcc --cc clang-16
expect_refused "bad --warnings item" "'-O2' is neither W=N nor a -W" \
	--warnings W=1,-O2
expect_refused "bad --warnings level" "'W=4' is not a kbuild level" \
	--warnings W=4
expect_refused "bad --config-base" "cannot read '$tmp/none.config'" \
	--config-base "$tmp/none.config"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ] || ! command -v clang-16 >/dev/null; then
	echo "# linux-source-6.1 or clang-16 is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and clang-16 installed"
	done_tap
fi

# gcc and clang side by side
start=$(date +%s)
"$kwarn" run --db "$db" --series "$series" --config "$cfg" \
	--targets kernel/panic.o --cc gcc --cc clang-16 -j2 \
	>"$tmp/run.out" 2>"$tmp/run.err" &
pid=$!
# while it runs, the run says where it is (what /api/runs/{id} shows)
seen=
while kill -0 $pid 2>/dev/null; do
	p=$(sqlite3 "$db" "SELECT progress FROM runs WHERE status = 'running' AND progress IS NOT NULL LIMIT 1" 2>/dev/null)
	[ -n "$p" ] && [ -z "$seen" ] && seen=$p
	sleep 0.5
done
wait $pid
rc=$?
echo "# progress seen: $seen"
check "progress recorded while running" \
	test "$(echo "$seen" | jq -r '.points')" = 3
echo "# kwarn run --cc gcc --cc clang-16 took $(($(date +%s) - start)) s"
sed 's/^/# /' "$tmp/run.out"
check "two-compiler run exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -20 "$tmp/run.err" | sed 's/^/# /'
check "one run per compiler" \
	test "$(sql "$db" "SELECT group_concat(compiler) FROM (SELECT compiler FROM runs ORDER BY id)")" = "gcc,clang-16"
check "one group" \
	test "$(sql "$db" "SELECT COUNT(DISTINCT group_id) FROM runs WHERE group_id IS NOT NULL")" = 1
check "one checkout per point for both compilers" \
	test "$(grep -c 'checking out' "$tmp/run.err")" = 3
check "gcc's run parameters are a plain run's (no cc key)" \
	test "$(sql "$db" "SELECT json_extract(params, '\$.cc') IS NULL FROM runs WHERE compiler = 'gcc'")" = 1
check "clang's parameters name it" \
	test "$(sql "$db" "SELECT json_extract(params, '\$.cc') FROM runs WHERE compiler = 'clang-16'")" = clang-16
check "clang's measured compiler is clang 16" \
	grep -q 'clang version 16' <(sql "$db" "SELECT json_extract(params, '\$.compiler') FROM runs WHERE compiler = 'clang-16'")
check "gcc was given -Wimplicit-fallthrough=3" \
	test "$(sql "$db" "SELECT DISTINCT b.flags FROM builds b JOIN commits c ON c.id = b.commit_id JOIN runs r ON r.id = c.run_id WHERE r.compiler = 'gcc'")" = "KCFLAGS=-Wimplicit-fallthrough=3"
check "clang was given -Wimplicit-fallthrough and LLVM=-16" \
	test "$(sql "$db" "SELECT DISTINCT b.flags FROM builds b JOIN commits c ON c.id = b.commit_id JOIN runs r ON r.id = c.run_id WHERE r.compiler = 'clang-16'")" = "KCFLAGS=-Wimplicit-fallthrough LLVM=-16"

# live warnings of kwarn_campaign_switch at a point, per compiler
at() { # $1 compiler $2 position
	sql "$db" "SELECT COUNT(*) FROM live_states s JOIN commits c ON c.id = s.commit_id JOIN runs r ON r.id = c.run_id JOIN identities i ON i.id = s.identity_id WHERE r.compiler = '$1' AND c.position = $2 AND i.function = 'kwarn_campaign_switch'"
}
check "gcc -Wimplicit-fallthrough=3: only the missing break" test "$(at gcc 1)" = 1
check "clang: the comment-marked one and the missing break" test "$(at clang-16 1)" = 2
check "patch 2: gcc has none left" test "$(at gcc 2)" = 0
check "patch 2: clang keeps the comment-marked one" test "$(at clang-16 2)" = 1
check "clang's warnings have their function (from the source)" \
	test "$(sql "$db" "SELECT COUNT(*) FROM identities WHERE option = '-Wimplicit-fallthrough' AND function = 'kwarn_campaign_switch'")" = 2

"$kwarn" sites --db "$db" --run 1 --position 1 >"$tmp/sites"
sed 's/^/# /' "$tmp/sites"
check "the comment-marked fall-through (into case 1) is clang's only" \
	grep -q '^clang-16 .*|kwarn_campaign_switch|-Wimplicit-fallthrough|case 1:$' "$tmp/sites"
check "fallthrough; (into case 2) is clean for both" \
	sh -c "! grep -q 'case 2:' '$tmp/sites'"
check "the missing break (into case 3) is one site, both compilers" \
	grep -q '^gcc,clang-16 .*|kwarn_campaign_switch|-Wimplicit-fallthrough|case 3:$' "$tmp/sites"
check "two sites at patch 1" test "$(tail -1 "$tmp/sites")" = "2 sites"
check "--only both: the missing break" \
	test "$("$kwarn" sites --db "$db" --run 2 --position 1 --only both --format json | jq -r '.[].site')" = "kernel/panic.c|kwarn_campaign_switch|-Wimplicit-fallthrough|case 3:"
check "--only clang: the comment marker" \
	test "$("$kwarn" sites --db "$db" --run 1 --position 1 --only clang --format json | jq -r '.[].site')" = "kernel/panic.c|kwarn_campaign_switch|-Wimplicit-fallthrough|case 1:"
check "--only gcc: nothing" \
	test "$("$kwarn" sites --db "$db" --run 1 --position 1 --only gcc --format json | jq length)" = 0

"$kwarn" report --db "$db" --run 1 >"$tmp/report"
check "report: a burn-down column per compiler" \
	grep -q '^  #  *gcc  *clang-16$' "$tmp/report"
check "report: patch 1 is 1 (gcc) and 2 (clang)" \
	grep -q '^  1  *1  *2$' "$tmp/report"
"$kwarn" report --db "$db" --run 1 --format json >"$tmp/report.json"
check "report JSON: by_compiler at patch 1 is gcc 1, clang-16 2" \
	test "$(jq -S -c '.commits[1].by_compiler' "$tmp/report.json")" = '{"clang-16":2,"gcc":1}'

# clang's reproducer reproduces: run as printed, from nothing but a shell
"$kwarn" report --db "$db" --run 2 --format json >"$tmp/clang.json"
sel='.commits[1].warnings_list[] | select(.function == "kwarn_campaign_switch" and .state == "new")'
repro=$(jq -r "[$sel][0].reproducer" "$tmp/clang.json")
echo "$repro" | sed 's/^/# /'
check "clang's make line: its compiler and every variable kwarn passed" \
	grep -q "^make -C .* O=../build CC=clang-16 KCFLAGS=-Wimplicit-fallthrough CONFIG_CC_IMPLICIT_FALLTHROUGH= LLVM=-16 kernel/panic.o\$" <<<"$repro"
check "a --targets build's reproducer has its stored .config" \
	grep -q '| sha256sum --quiet -c$' <<<"$repro"
gitdir=$(sed -n 's/^git --git-dir \([^ ]*\) worktree.*/\1/p' <<<"$repro")
mkdir "$tmp/fresh"
start=$(date +%s)
(cd "$tmp/fresh" && env -i PATH=/usr/bin:/bin HOME="$tmp/fresh" \
	bash -e -c "$repro") >"$tmp/repro.out" 2>&1
rc=$?
echo "# clang's reproducer took $(($(date +%s) - start)) s"
check "clang's reproducer runs to the end (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -20 "$tmp/repro.out" | sed 's/^/# /'
srcdir=$(cd "$tmp/fresh"/kwarn-*/src 2>/dev/null && pwd)
jq -r '.commits[1].warnings_list[] | select(.object == "kernel/panic.o" and
	.state != "fixed") | "\(.file):\(.line):\(.column): \(.kind): \(.message) [\(.option)]"' \
	"$tmp/clang.json" >"$tmp/want"
sed -n "s|^$srcdir/||p" "$tmp/repro.out" | grep ': warning: ' >"$tmp/got"
sed 's/^/# want: /' "$tmp/want"
check "clang stored warnings for kernel/panic.o ($(wc -l <"$tmp/want"))" \
	test "$(wc -l <"$tmp/want")" -ge 2
missing=$(grep -vxFf "$tmp/got" "$tmp/want")
check "clang prints each at the same file:line:column${missing:+ (missing: $missing)}" \
	test -z "$missing"
rm -rf "$tmp/fresh"
"$kwarn" report --db "$db" --run 2 --format sarif >"$tmp/clang.sarif"
# the compiler's runs (objtool, when it says something, has runs of its own)
check "SARIF: clang's run has clang as its driver" \
	test "$(jq -r '[.runs[] | select(.automationDetails.id | test("/point-[0-9]+/$")) | .tool.driver.name] | unique | join(",")' "$tmp/clang.sarif")" = clang
check "SARIF: clang's driver version is 16" \
	grep -q '^16\.' <(jq -r '.runs[0].tool.driver.version' "$tmp/clang.sarif")
"$kwarn" report --db "$db" --run 2 --format kcidb >"$tmp/clang.kcidb"
check "KCIDB: clang's build command is the one kwarn ran" \
	grep -q "^make O=.* 'CC=kwarn-cc clang-16' KCFLAGS=-Wimplicit-fallthrough CONFIG_CC_IMPLICIT_FALLTHROUGH= LLVM=-16 kernel/panic.o\$" \
	<(jq -r '.builds[0].command' "$tmp/clang.kcidb")

# the REST API: by_compiler and compiler=
if server_start "$db"; then
	bd=$(curl -s "$BASE/api/runs/1/burndown")
	check "burndown: by_compiler at patch 1" \
		test "$(echo "$bd" | jq -c '.[1].by_compiler')" = '{"gcc":1,"clang-16":2}'
	check "/api/warnings?compiler=clang: clang's run" \
		test "$(curl -s "$BASE/api/warnings?run=1&compiler=clang" | jq -c '[.commit.run, .total]')" = "[2,1]"
	check "/api/commits/{id}/warnings?compiler=gcc" \
		test "$(curl -s "$BASE/api/commits/$(sql "$db" "SELECT sha FROM commits WHERE position = 1 LIMIT 1")/warnings?run=2&compiler=gcc" | jq -c '[.commit.run, .total]')" = "[1,1]"
	check "/api/runs/{id}: no progress once done" \
		test "$(curl -s "$BASE/api/runs/2" | jq -c '[.status, .progress]')" = '["done",null]'
	check "compiler= with no such build: 404" \
		test "$(curl -s "$BASE/api/subsystems?run=1&compiler=gcc-11" | jq .status)" = 404
	server_stop
else
	ok 1 "kwarn-server starts"
fi

# a run without --cc is the gcc run already measured: same parameters
"$kwarn" run --db "$db" --series "$series" --config "$cfg" \
	--targets kernel/panic.o -j2 >"$tmp/plain.out" 2>"$tmp/plain.err"
check "without --cc: gcc's run, already measured" \
	grep -q '^run 1: already measured' "$tmp/plain.out"

# W=1: the function without a prototype is a new warning there only
wdb="$tmp/w1.db"
start=$(date +%s)
"$kwarn" run --db "$wdb" --series "$series" --config "$cfg" \
	--targets kernel/panic.o --warnings W=1 -j2 \
	>"$tmp/w1.out" 2>"$tmp/w1.err"
rc=$?
echo "# kwarn run --warnings W=1 took $(($(date +%s) - start)) s"
check "W=1 run exits 0 (rc=$rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -20 "$tmp/w1.err" | sed 's/^/# /'
check "W=1 is in the run's parameters" \
	test "$(sql "$wdb" "SELECT json_extract(params, '\$.warnings') FROM runs")" = W=1
check "W=1 is on make's command line" \
	test "$(sql "$wdb" "SELECT DISTINCT flags FROM builds")" = "KCFLAGS=-Wimplicit-fallthrough=3 W=1"
check "W=1's reproducer passes W=1" \
	grep -q "^make -C .* CONFIG_CC_IMPLICIT_FALLTHROUGH= W=1 kernel/panic.o\$" \
	<("$kwarn" report --db "$wdb" --format json | jq -r '[.commits[1].warnings_list[] | select(.state == "new")][0].reproducer')
mp() { # $1 db $2 state
	sql "$1" "SELECT COUNT(*) FROM states s JOIN commits c ON c.id = s.commit_id JOIN identities i ON i.id = s.identity_id WHERE c.position = 1 AND s.state = '$2' AND i.option = '-Wmissing-prototypes' AND i.function = 'kwarn_campaign_noproto'"
}
check "W=1: -Wmissing-prototypes new at patch 1" test "$(mp "$wdb" new)" = 1
check "W=1: fixed by patch 2" \
	test "$(sql "$wdb" "SELECT COUNT(*) FROM states s JOIN commits c ON c.id = s.commit_id JOIN identities i ON i.id = s.identity_id WHERE c.position = 2 AND s.state = 'fixed' AND i.option = '-Wmissing-prototypes'")" = 1
check "without W=1: no -Wmissing-prototypes at all" \
	test "$(sql "$db" "SELECT COUNT(*) FROM identities WHERE option = '-Wmissing-prototypes'")" = 0

# a full .config as the base: a gcc .config from the cache
base=$(grep -l '^CONFIG_CC_IS_GCC=y' "$KWARN_CACHE"/builds/linux-source-6.1-*/.config 2>/dev/null | head -1)
if [ -n "$base" ]; then
	cp "$base" "$tmp/my.config"
	cdb="$tmp/cfg.db"
	start=$(date +%s)
	"$kwarn" run --db "$cdb" --series "$series" --config-base "$tmp/my.config" \
		--targets kernel/panic.o -j2 >"$tmp/cfg.out" 2>"$tmp/cfg.err"
	rc=$?
	echo "# kwarn run --config-base FILE took $(($(date +%s) - start)) s"
	check "--config-base FILE exits 0 (rc=$rc)" test "$rc" = 0
	[ "$rc" = 0 ] || tail -20 "$tmp/cfg.err" | sed 's/^/# /'
	check "--config-base FILE: named by its content" \
		grep -q '^my.config@[0-9a-f]\{12\}$' <(sql "$cdb" "SELECT json_extract(params, '\$.config_base') FROM runs")
	check "--config-base FILE: the missing break is measured" \
		test "$(sql "$cdb" "SELECT COUNT(*) FROM states s JOIN commits c ON c.id = s.commit_id JOIN identities i ON i.id = s.identity_id WHERE c.position = 1 AND s.state = 'new' AND i.function = 'kwarn_campaign_switch'")" = 1
else
	ok 1 "a gcc .config of linux-source-6.1 in the cache"
fi

done_tap
