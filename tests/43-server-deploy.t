#!/bin/bash
# The deployment of the README: the collector (root here, the kwarn user
# in production) owns the database, mode 0444 in a root-owned directory;
# kwarn-server and `kwarn warnings` run as an unprivileged user who may
# not write there.  With no writer (no -wal or -shm left), with the files
# a writer leaves, while a collector holds a write transaction open, on a
# read-only bind mount when the machine lets us make one; then the WAL
# under readers and ingests: checkpointed whole, never left large.
# The user is nobody, through setpriv: nothing is added to the machine's
# users.
set -u
cd "$(dirname "$0")/.."
top=$PWD
KWARN=${KWARN:-$top/bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-$top/bin/kwarn-server}
tmp=$(mktemp -d)
SERVER_PID= mnt= fifo_pid= load_pid=
cleanup() {
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
	[ -n "$fifo_pid" ] && kill "$fifo_pid" 2>/dev/null
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
. tests/lib/server-fixture.sh
n=0 failed=0
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
skip() { # WHY
	n=$((n + 1))
	echo "ok $n # skip $1"
}
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root to act as two users (setpriv)"
	exit 0
fi
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
as_user() { "${as_nobody[@]}" "$@"; }
# the server, as the user, in the background: sets PORT, BASE, SERVER_PID
# (waiting until it says where it listens: at most a minute)
user_server() { # DB
	local i
	: >"$tmp/server.out"
	chmod 666 "$tmp/server.out"
	# setpriv, not the function: $! is then the server itself
	"${as_nobody[@]}" "$KWARN_SERVER" --db "$1" --listen 127.0.0.1:0 \
		>"$tmp/server.out" 2>&1 5>&- &
	SERVER_PID=$!
	for i in $(seq 1200); do
		PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' \
			"$tmp/server.out")
		[ -n "$PORT" ] && break
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.05
	done
	BASE=http://127.0.0.1:$PORT
	[ -n "$PORT" ]
}
commits_seen() { # N: N requests (over the pool's threads) all see this many
	seq "$1" | xargs -P 4 -I{} curl -s "$BASE/api/runs" |
		jq -r '.[0].commits' | sort | uniq -c | xargs
}
await_commits() { # N: until one request sees N commits (at most 10 s)
	for _ in $(seq 100); do
		[ "$(curl -s "$BASE/api/runs" | jq -r '.[0].commits')" = "$1" ] &&
			return 0
		sleep 0.1
	done
	return 1
}
next=5
ingest_one() { # a new commit, as the collector
	local sha
	sha=$(printf 'c%d' $next | sha1sum | cut -c1-40)
	next=$((next + 1))
	"$KWARN" ingest --db "$DB" --tree kwtree --commit "$sha" \
		--object-map "$tmp/d/c3.map" "$tmp/d/c3.log" >/dev/null
}

chmod 755 "$tmp"
mkdir "$tmp/d"
fixture_build "$tmp/d" >/dev/null 2>&1
ok $? "fixture database built by the collector (root)"
chmod 755 "$tmp/d"
# as a database that nothing has open: no -wal, no -shm
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
rm -f "$DB-wal" "$DB-shm"
chmod 444 "$DB"
sum=$(sha256sum <"$DB")
! as_user touch "$tmp/d/probe" 2>/dev/null && ! as_user sh -c ": >>'$DB'" 2>/dev/null
ok $? "the user may write neither the directory nor the database"

as_user "$KWARN" warnings --db "$DB" --commit "$C1" --format json \
	>"$tmp/w" 2>"$tmp/err"
[ $? = 0 ] && [ "$(jq length "$tmp/w")" = 6 ]
ok $? "no writer, no -wal/-shm: kwarn warnings as the user ($(jq length "$tmp/w" 2>/dev/null) warnings)"
as_user "$KWARN_SERVER" --db "$DB" -n >"$tmp/out" 2>"$tmp/err"
ok $? "no writer: kwarn-server -n as the user"
user_server "$DB"
ok $? "no writer: kwarn-server serves as the user"
c=$(commits_seen 12)
[ "$c" = "12 3" ]
ok $? "no writer: 12 requests see the 3 commits ($c)"
[ "$(sha256sum <"$DB")" = "$sum" ] && [ ! -e "$DB-wal" ] && [ ! -e "$DB-shm" ]
ok $? "no writer: the readers wrote nothing, made no -wal or -shm"

# the collector comes back while the server runs
ingest_one
ok $? "the collector ingests a 4th commit while the user's server reads"
# while one request rebuilds an answer after a write, others may be given
# the previous one (doc/design.md, the answer cache): wait for a request to
# see the new commit (at most 10 s), then every thread must
await_commits 4
c=$(commits_seen 12)
[ "$c" = "12 4" ]
ok $? "with a writer: every thread sees the 4th commit ($c)"
[ -e "$DB-wal" ] && [ -e "$DB-shm" ] && [ -r "$DB-shm" ] &&
	as_user test -r "$DB-shm"
ok $? "the collector left -wal and -shm, readable by the user ($(stat -c '%A %U' "$DB-shm"))"
server_stop >/dev/null 2>&1
SERVER_PID=
# a -wal or -shm the user may not read: one line naming it and what it needs
for f in wal shm; do
	mode=$(stat -c %a "$DB-$f")
	chmod 600 "$DB-$f"
	as_user "$KWARN_SERVER" --db "$DB" -n >"$tmp/out" 2>&1
	rc=$?
	chmod "$mode" "$DB-$f"
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
		grep -qF "'$DB-$f' needs read permission" "$tmp/out"
	ok $? "an unreadable -$f: one line naming it and the permission, exit $rc ($(cat "$tmp/out"))"
done

# a collector with a write transaction open (its log comes through a
# FIFO): wait until a writer cannot begin (at most a minute), not for the
# clock
mkfifo "$tmp/fifo"
"$KWARN" ingest --db "$DB" --tree kwtree --commit held \
	"$tmp/fifo" >/dev/null 2>&1 &
fifo_pid=$!
exec 5>"$tmp/fifo"
cat "$tmp/d/c1.log" >&5
for _ in $(seq 600); do
	sqlite3 -cmd '.timeout 0' "$DB" 'BEGIN IMMEDIATE; ROLLBACK;' \
		>/dev/null 2>"$tmp/err" || break
	sleep 0.1
done
grep -q 'locked' "$tmp/err"
ok $? "the collector holds a write transaction open"
as_user "$KWARN" warnings --db "$DB" --commit "$C1" --format json \
	>"$tmp/w" 2>"$tmp/err"
[ $? = 0 ] && [ "$(jq length "$tmp/w")" = 6 ]
ok $? "collector mid-ingest: kwarn warnings as the user"
user_server "$DB"
ok $? "collector mid-ingest: kwarn-server starts as the user"
c=$(commits_seen 8)
[ "$c" = "8 4" ]
ok $? "collector mid-ingest: the server answers from the last commit ($c)"
exec 5>&-
wait "$fifo_pid"
ok $? "the held ingest completes"
fifo_pid=
await_commits 5
c=$(commits_seen 12)
[ "$c" = "12 5" ]
ok $? "after it: every thread sees the 5th commit ($c)"
server_stop >/dev/null 2>&1
SERVER_PID=

# a read-only file system: a read-only bind mount of the folder
mkdir "$tmp/ro"
if mount --bind "$tmp/d" "$tmp/ro" 2>/dev/null; then
	mnt=$tmp/ro
	if mount -o remount,ro,bind "$tmp/ro" 2>/dev/null; then
		as_user "$KWARN" warnings --db "$tmp/ro/kwarn.db" --commit "$C1" \
			--format json >"$tmp/w" 2>"$tmp/err"
		[ $? = 0 ] && [ "$(jq length "$tmp/w")" = 6 ]
		ok $? "read-only bind mount: kwarn warnings as the user"
		user_server "$tmp/ro/kwarn.db"
		c=$(commits_seen 8)
		[ "$c" = "8 5" ]
		ok $? "read-only bind mount: the server answers ($c)"
		server_stop >/dev/null 2>&1
		SERVER_PID=
	else
		skip "cannot remount the bind mount read-only here"
		skip "cannot remount the bind mount read-only here"
	fi
	umount "$tmp/ro" && mnt=
else
	skip "cannot bind-mount here (no CAP_SYS_ADMIN)"
	skip "cannot bind-mount here (no CAP_SYS_ADMIN)"
fi

# the WAL under readers and ingests of a large build
perl -e 'local $/; my $l = <STDIN>; for my $i (1 .. 20000) {
	(my $c = $l) =~ s/fw_a/fw_a$i/g; $c =~ s/core-device/cd$i/g;
	print $c }' <"$tmp/d/c1.log" >"$tmp/big.log"
user_server "$DB"
(while :; do
	seq 16 | xargs -P 8 -I{} curl -s -o /dev/null "$BASE/api/runs/1/burndown"
done) &
load_pid=$!
max=0
for i in 1 2 3; do
	"$KWARN" ingest --db "$DB" --tree kwtree --commit "big$i" \
		"$tmp/big.log" >/dev/null 2>"$tmp/err" &
	ipid=$!
	while kill -0 $ipid 2>/dev/null; do
		s=$(stat -c %s "$DB-wal" 2>/dev/null || echo 0)
		[ "$s" -gt "$max" ] && max=$s
		sleep 0.1
	done
	wait $ipid || echo "# ingest big$i failed"
done
kill "$load_pid" && wait "$load_pid" 2>/dev/null
load_pid=
dbsize=$(stat -c %s "$DB")
wal=$(stat -c %s "$DB-wal")
echo "# WAL under load: at most $max bytes beside a $dbsize-byte database; $wal after"
[ "$max" -lt $((2 * dbsize)) ]
ok $? "WAL under readers and 3 large ingests: under twice the database ($max < 2 x $dbsize)"
[ "$wal" -le 4194304 ]
ok $? "WAL after the ingests, the server still connected: at most 4 MB ($wal)"
c=$(commits_seen 8)
[ "$c" = "8 8" ]
ok $? "the server sees the 3 large builds ($c)"
server_stop >/dev/null 2>&1
SERVER_PID=

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
