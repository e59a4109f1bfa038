# TAP helpers for the shell tests (sourced, bash).
#
# ok STATUS "what": one test line, "ok" when STATUS is 0.
# check "what" command...: runs the command, ok when it succeeds.
# skip "why": a check that cannot run here, as TAP's "ok N # skip why"
# (tests/run counts it, and fails on one tests/skip-allow.txt does not
# name).
# done_tap: the plan, the "N passed, N failed, N skipped" line, and exit 0
# only when nothing failed.

n=0
pass=0
fail=0
skipped=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}

check() {
	local what=$1
	shift
	if "$@"; then ok 0 "$what"; else ok 1 "$what"; fi
}

skip() {
	n=$((n + 1))
	skipped=$((skipped + 1))
	echo "ok $n # skip $1"
}

done_tap() {
	echo "1..$n"
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
	exit $?
}
