# Shared by tests/40-server-api.t and tests/41-dashboard.t (sourced, bash).
#
# fixture_build DIR: compile small C files with gcc -Wimplicit-fallthrough=3
# at three commits, ingest each log with the real collector into DIR/kwarn.db,
# and give the tree a small MAINTAINERS and commit c2's build a boot.
#   c1: firewire fw_a has 3 fall-throughs, a header warning seen from two
#       objects, afs afs_b 1, net dev_x 1                       (6 warnings)
#   c2: fw_a's first marked, afs_c adds one                     (6: 1 new, 1 fixed)
#   c3: fw_a all marked, header marked, net/core/dev.o not built (2: 3 fixed,
#       1 not built)
# Sets C1 C2 C3 (commit shas), RUN (run id), DB.
#
# With FIXTURE_CLANG=1, the same three commits are first compiled by
# clang-16 with -Wimplicit-fallthrough and -Wmissing-prototypes into a run
# of tree kwtree-clang (CLANG_RUN), grouped with RUN as `kwarn run --cc gcc
# --cc clang-16` groups its runs, and clang's c3 build gets a crashed boot:
# two compilers, three (compiler, option) series, a boot failure.
#
# server_start DB [WEBDIR]: start bin/kwarn-server on a free loopback port
# (with $SERVER_ARGS, split at spaces, if set), set PORT, BASE and
# SERVER_PID.  server_stop: SIGTERM and wait.

KWARN=${KWARN:-bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-bin/kwarn-server}

fixture_fw() { # $1: how many of the 3 fall-throughs are marked
	local m1= m2= m3=
	[ "$1" -ge 1 ] && m1='/* fall through */'
	[ "$1" -ge 2 ] && m2='/* fall through */'
	[ "$1" -ge 3 ] && m3='/* fall through */'
	cat <<EOF
#include "linux/kwhdr.h"
int fw_a(int x)
{
	int r = 0;

	switch (x) {
	case 1:
		r += kw_inline(x);
		$m1
	case 2:
		r += 2;
		$m2
	case 3:
		r += 3;
		$m3
	case 4:
		r += 4;
		break;
	}
	return r;
}
EOF
}

fixture_hdr() { # $1: 1 if marked
	local m=
	[ "$1" = 1 ] && m='/* fall through */'
	cat <<EOF
static inline int kw_inline(int x)
{
	switch (x) {
	case 0:
		x++;
		$m
	case 1:
		x--;
		break;
	}
	return x;
}
EOF
}

fixture_afs() { # $1: 1 to add afs_c
	cat <<'EOF'
#include "linux/kwhdr.h"
int afs_b(int x)
{
	switch (x) {
	case 1:
		x += kw_inline(x);
	case 2:
		x++;
		break;
	}
	return x;
}
EOF
	[ "$1" = 1 ] && cat <<'EOF'
int afs_c(int x)
{
	switch (x) {
	case 7:
		x *= 2;
	default:
		x--;
	}
	return x;
}
EOF
	return 0
}

fixture_net() {
	cat <<'EOF'
int dev_x(int x)
{
	switch (x) {
	case 3:
		x <<= 1;
	case 4:
		return x;
	}
	return 0;
}
EOF
}

# Compile OBJ's source into the log the way kbuild prints it.
fixture_cc() { # $1 src dir, $2 log, $3 object
	local src=${3%.o}.c
	printf '  CC      %s\n' "$3" >>"$2"
	if [ "${FIXTURE_CC:-gcc}" = gcc ]; then
		(cd "$1" && LANG=C LC_CTYPE=C gcc -Wimplicit-fallthrough=3 \
			-Iinclude -c "$src" -o /dev/null) 2>>"$2"
	else
		(cd "$1" && LANG=C LC_CTYPE=C "$FIXTURE_CC" \
			-Wimplicit-fallthrough -Wmissing-prototypes \
			-fno-color-diagnostics -Iinclude -c "$src" \
			-o /dev/null) 2>>"$2"
	fi
}

fixture_build() {
	local dir=$1 src=$1/src
	DB=$dir/kwarn.db
	C1=$(printf c1 | sha1sum | cut -c1-40)
	C2=$(printf c2 | sha1sum | cut -c1-40)
	C3=$(printf c3 | sha1sum | cut -c1-40)
	mkdir -p "$src/drivers/firewire" "$src/fs/afs" "$src/net/core" \
		"$src/include/linux"
	CLANG_RUN=
	if [ "${FIXTURE_CLANG:-0}" = 1 ]; then
		FIXTURE_CC=clang-16 fixture_commits "$dir" kwtree-clang ||
			return 1
		CLANG_RUN=$(sqlite3 "$DB" "SELECT r.id FROM runs r JOIN trees t
			ON t.id = r.tree_id WHERE t.name = 'kwtree-clang'")
	fi
	fixture_commits "$dir" kwtree || return 1
	fixture_finish "$dir"
}

fixture_commits() { # $1 dir, $2 tree name
	local dir=$1 src=$1/src n log map sha
	for n in 1 2 3; do
		case $n in
		1) fixture_fw 0; fixture_hdr 0 >"$src/include/linux/kwhdr.h" ;;
		2) fixture_fw 1 ;;
		3) fixture_fw 3; fixture_hdr 1 >"$src/include/linux/kwhdr.h" ;;
		esac >"$src/drivers/firewire/core-device.c"
		fixture_afs $((n > 1)) >"$src/fs/afs/fsclient.c"
		fixture_net >"$src/net/core/dev.c"
		log=$dir/c$n${FIXTURE_CC:+-$FIXTURE_CC}.log
		map=$dir/c$n${FIXTURE_CC:+-$FIXTURE_CC}.map
		: >"$log"
		printf '%s\n' drivers/firewire/core-device.o fs/afs/fsclient.o \
			>"$map"
		fixture_cc "$src" "$log" drivers/firewire/core-device.o
		fixture_cc "$src" "$log" fs/afs/fsclient.o
		if [ $n -lt 3 ]; then
			echo net/core/dev.o >>"$map"
			fixture_cc "$src" "$log" net/core/dev.o
		fi
		eval "sha=\$C$n"
		"$KWARN" ingest --db "$DB" --tree "$2" --commit "$sha" \
			--object-map "$map" "$log" >/dev/null || return 1
	done
}

fixture_finish() { # $1 dir
	local dir=$1 hex size
	RUN=$(sqlite3 "$DB" "SELECT r.id FROM runs r JOIN trees t
		ON t.id = r.tree_id WHERE t.name = 'kwtree'")
	cat >"$dir/MAINTAINERS" <<'EOF'
List of maintainers and how to submit kernel changes

	M: Mail patches to: FullName <address@domain>

AFS FILESYSTEM
M:	David Howells <dhowells@example.org>
R:	Marc Dionne <marc.dionne@example.org>
L:	linux-afs@example.org
F:	fs/afs/

FIREWIRE SUBSYSTEM
M:	Stefan Richter <stefanr@example.org>
F:	drivers/firewire/
F:	include/linux/firewire.h

KWARN HEADERS
F:	include/linux/kw*.h

NETWORKING [GENERAL]
F:	net/
X:	net/core/skip.c

THE REST
F:	*
F:	*/
EOF
	# the collector keeps a tree's MAINTAINERS at import; ingest has none
	sqlite3 "$DB" "UPDATE trees SET maintainers =
		CAST(readfile('$dir/MAINTAINERS') AS TEXT)" || return 1
	sqlite3 "$DB" "UPDATE commits SET subject = CASE position
		WHEN 0 THEN 'kwarn: base' WHEN 1 THEN
		'firewire: mark the first fall-through' ELSE
		'firewire: mark the rest, stop building net' END" || return 1
	# a boot of c2's build, its serial log zlib-compressed as the
	# collector stores it
	perl -MCompress::Zlib -e 'my $l = "Linux version 6.1.0\n" .
		("boot line\n" x 50) . "KWARN-INIT-OK nonce\n";
		printf "%s %d\n", unpack("H*", compress($l)), length($l)' \
		>"$dir/bootlog.hex" || return 1
	read -r hex size <"$dir/bootlog.hex"
	sqlite3 "$DB" "INSERT INTO boots(build_id, verdict, reason, duration_ms,
		log, log_size, accel) SELECT MAX(b.id), 'pass', 'marker seen',
		1500, X'$hex', $size, 'tcg' FROM builds b JOIN commits c
		ON c.id = b.commit_id WHERE c.sha = '$C2' AND c.run_id = $RUN" ||
		return 1
	[ -n "$CLANG_RUN" ] || return 0
	sqlite3 "$DB" "UPDATE runs SET group_id = $RUN, compiler = CASE id
		WHEN $RUN THEN 'gcc' ELSE 'clang-16' END
		WHERE id IN ($RUN, $CLANG_RUN);
		INSERT INTO boots(build_id, verdict, reason, duration_ms, log,
		log_size, accel) SELECT MAX(b.id), 'crash', 'Kernel panic seen',
		900, X'$hex', $size, 'tcg' FROM builds b JOIN commits c
		ON c.id = b.commit_id WHERE c.sha = '$C3'
		AND c.run_id = $CLANG_RUN"
}

server_start() { # $1 db, $2 web dir (optional)
	# (until it says where it listens: at most a minute, for a loaded machine)
	local out=$(dirname "$1")/server.out i
	# shellcheck disable=SC2086
	set -- --db "$1" --listen 127.0.0.1:0 ${2:+--web "$2"} ${SERVER_ARGS:-}
	"$KWARN_SERVER" "$@" >"$out" 2>&1 &
	SERVER_PID=$!
	for i in $(seq 1200); do
		PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' \
			"$out")
		[ -n "$PORT" ] && break
		kill -0 $SERVER_PID 2>/dev/null || break
		sleep 0.05
	done
	BASE=http://127.0.0.1:$PORT
	[ -n "$PORT" ]
}

server_stop() {
	[ -n "$SERVER_PID" ] || return 0
	kill -TERM "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID"
	local rc=$?
	SERVER_PID=
	return $rc
}
