#!/bin/bash
# Run the C unit tests, built by `make unit` both normally (build/tests)
# and with ASan/UBSan (build/asan/tests).  Every check of every binary is
# one TAP line here, named after its binary, so that prove counts each
# failure and each skip; then one line per binary: it exited 0 and ran as
# many checks as its plan says (a crash or a sanitizer report at exit
# fails it).  A failing binary's stderr is shown.
#
# The real 6.1 MAINTAINERS that test-maint reads comes out of the packaged
# tarball (under a second: it is near the start), so that the check runs
# on a cold cache too.
set -u
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tarball=${KWARN_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
if [ -z "${KWARN_MAINTAINERS:-}" ] && [ -r "$tarball" ] &&
	tar -xJf "$tarball" --occurrence=1 -O linux-source-6.1/MAINTAINERS \
		>"$tmp/MAINTAINERS" 2>"$tmp/tar.err"; then
	export KWARN_MAINTAINERS=$tmp/MAINTAINERS
else
	sed 's/^/# /' "$tmp/tar.err" 2>/dev/null
fi
bins=()
for src in tests/unit/test-*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	bins+=("build/tests/$name" "build/asan/tests/$name")
done
n=0 failed=0 skipped=0
emit() { # STATUS ("ok" or "not ok") REST-OF-LINE
	n=$((n + 1))
	echo "$1 $n $2"
	[ "$1" = ok ] || failed=$((failed + 1))
}
for bin in "${bins[@]}"; do
	if [ ! -x "$bin" ]; then
		emit "not ok" "- $bin: not built (run make unit)"
		continue
	fi
	"$bin" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	checks=0 plan= bad=0
	while IFS= read -r line; do
		if [[ $line =~ ^(not )?ok\ [0-9]+(\ -\ (.*)|\ (#.*))?$ ]]; then
			checks=$((checks + 1))
			[ -n "${BASH_REMATCH[1]}" ] && bad=1
			if [ -n "${BASH_REMATCH[4]}" ]; then
				# a directive alone: "ok N # skip why"
				emit "${BASH_REMATCH[1]}ok" "- $bin ${BASH_REMATCH[4]}"
			else
				emit "${BASH_REMATCH[1]}ok" "- $bin: ${BASH_REMATCH[3]}"
			fi
			[[ ${BASH_REMATCH[4]} =~ ^#\ *[Ss][Kk][Ii][Pp] ]] &&
				skipped=$((skipped + 1))
		elif [[ $line =~ ^1\.\.([0-9]+)$ ]]; then
			plan=${BASH_REMATCH[1]}
		elif [[ $line =~ ^[0-9]+\ passed,\ [0-9]+\ failed ]]; then
			: # the binary's own count: ours is below
		else
			echo "# ${line#\# }"
		fi
	done <"$tmp/out"
	if [ "$rc" = 0 ] && [ "$plan" = "$checks" ] && [ "$checks" -gt 0 ]; then
		emit ok "- $bin: exit 0, its $checks checks as planned"
	else
		emit "not ok" "- $bin: exit $rc, ${checks} checks run, plan 1..${plan:-none}"
		bad=1
	fi
	[ "$bad" = 0 ] || sed 's/^/# stderr: /' "$tmp/err"
done
echo "1..$n"
echo "$((n - failed - skipped)) passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
