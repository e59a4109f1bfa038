#!/bin/bash
# What kwarn, its tests, scripts and benchmarks run is what
# scripts/install-deps installs.  A list kept here names each command
# with the Debian package that brings it (the product's own, from the
# argument arrays of collector/, and the unit tests' (redis-server for
# test-ccache), by hand): the package must be named in
# scripts/install-deps and the command must be on PATH.  Then the tests,
# their helpers, the scripts, the benchmarks, the Makefile and .ci/run
# are read for the words that name a program of this machine: each
# program from a package that is not on every Debian 12 (Essential, or
# Priority required) must be in the list, or among the few words below
# that name a program but are not run as one.  So a test that starts to
# run a new tool fails here until install-deps installs it.
set -u
cd "$(dirname "$0")/.."
. tests/lib/tap.sh

# COMMAND PACKAGE (as scripts/install-deps names it)
need="
gcc gcc
g++ g++
gcc-11 gcc-11
make make
pkg-config pkg-config
git git
sqlite3 sqlite3
clang clang
clang-14 clang-14
clang-16 clang-16
clang-format clang-format
ld.lld-16 lld-16
lld-16 lld-16
llvm-ar-16 llvm-16
aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
arm-linux-gnueabihf-as binutils-arm-linux-gnueabihf
flex flex
bison bison
bc bc
cpio cpio
xz xz-utils
kmod kmod
depmod kmod
modprobe kmod
qemu-system-x86_64 qemu-system-x86
qemu-system-aarch64 qemu-system-arm
qemu-system-arm qemu-system-arm
busybox busybox-static
ccache ccache
redis-server redis-server
redis-cli redis-tools
distcc distcc
distccd distcc
distcc-pump distcc-pump
wrk wrk
nginx nginx-light
chromium chromium
perl perl
prove perl
ar binutils
ld binutils
zstd zstd
bzip2 bzip2
sparse sparse
python3 python3
jq jq
curl curl
time time
man man-db
groff groff-base
patch patch
file file
pgrep procps
npm npm
"
# Words that name a program of this machine but are not run as one in
# the sources: English in messages and comments, option, key, file and
# variable names, shell builtins, jq's 'as', the Makefile's install path
# lib/systemd.
not_run="as cc col column cpp ed free init jsonschema kill kvm mt open opt pc
red route scalar shutdown size strings strip systemd top view write zip"

# the words of scripts/install-deps (comments aside), one a line
deps=$(grep -v '^[[:space:]]*#' scripts/install-deps | tr -s ' \t"' '\n\n\n')
declare -A listed
while read -r cmd pkg; do
	[ -n "$cmd" ] || continue
	listed[$cmd]=1
	where=$(type -P "$cmd")
	grep -qxF -- "$pkg" <<<"$deps" && [ -n "$where" ]
	ok $? "$cmd: package $pkg in scripts/install-deps, on PATH (${where:-missing})"
done <<<"$need"
for w in $not_run; do
	listed[$w]=1
done

sources=$(ls tests/*.t tests/lib/* scripts/* scripts/nightly/* bench/* \
	kernel/check-series Makefile .ci/run 2>/dev/null |
	grep -vx scripts/install-deps | sort -u)
words=$(for f in $sources; do
	[ -f "$f" ] && grep -v '^[[:space:]]*#' "$f"
done | grep -oE '[a-z][a-z0-9_.+-]*[a-z0-9]' | sort -u)
# the programs those words name that the list does not, and their paths
# as dpkg may know them (usrmerge: under /bin or /sbin too)
declare -A path_of
paths=()
for w in $words; do
	[ -n "${listed[$w]:-}" ] && continue
	for d in /usr/bin /usr/sbin /bin /sbin; do
		[ -f "$d/$w" ] && [ -x "$d/$w" ] || continue
		p=$(readlink -f "$d/$w")
		path_of[$w]="$d/$w $p ${d#/usr}/$w ${p#/usr}"
		paths+=(${path_of[$w]})
		break
	done
done
# one dpkg -S for all of them, then one dpkg-query for their packages
declare -A pkg_of base
while IFS= read -r line; do
	case $line in diversion*) continue ;; esac
	pkg_of[${line#*: }]=$(sed 's/[,:].*//' <<<"$line")
done < <([ ${#paths[@]} = 0 ] || dpkg -S "${paths[@]}" 2>/dev/null)
while read -r pkg ess prio; do
	[ "$ess" = yes ] || [ "$prio" = required ] && base[$pkg]=1
done < <(dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' \
	$(printf '%s\n' "${pkg_of[@]}" | sort -u) 2>/dev/null)
unlisted= seen=0
for w in "${!path_of[@]}"; do
	pkg=
	for p in ${path_of[$w]}; do
		pkg=${pkg_of[$p]:-}
		[ -n "$pkg" ] && break
	done
	[ -n "$pkg" ] || continue # not Debian's
	seen=$((seen + 1))
	[ -n "${base[$pkg]:-}" ] || unlisted="$unlisted $w ($pkg)"
done
echo "# $seen more words of the sources name Debian's programs"
test -z "$unlisted"
ok $? "every program from a non-base package that the sources name is listed here${unlisted:+:$unlisted}"
done_tap
