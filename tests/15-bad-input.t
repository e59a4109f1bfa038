#!/bin/bash
# Bad input to `kwarn ingest` and `kwarn warnings`: each case gives a
# one-line error naming the thing and a non-zero exit, or is counted and
# skipped; nothing crashes, and nothing already stored is lost or
# half-written.  A file that is not a build log (random bytes, an
# executable, an empty file, damaged or unknown compression) is refused
# and changes no state of the tree.
set -u
cd "$(dirname "$0")/.."
top=$PWD
kwarn=$top/bin/kwarn
data=$top/tests/data/parse
tmp=$(mktemp -d)
mnt=
trap '[ -n "$mnt" ] && umount "$mnt"; rm -rf "$tmp"' EXIT
db=$tmp/k.db
n=0 failed=0

echo "1..50"
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
# Succeeds when the command exited non-zero (but not by a signal) and
# printed exactly one line on stderr that contains WORD.
one_line_error() {
	local rc=$1 word=$2
	[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] &&
		[ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF -- "$word" "$tmp/err"
}
ingest() { # COMMIT LOG [more args]
	local c=$1 log=$2
	shift 2
	"$kwarn" ingest --db "$db" --tree t --commit "$c" "$@" "$log" \
		>"$tmp/out" 2>"$tmp/err"
}
sql() { sqlite3 "$db" "$@"; }
unparsed_of() { sql "SELECT unparsed_lines FROM builds b JOIN commits c ON c.id = b.commit_id WHERE c.sha = '$1' ORDER BY b.id DESC LIMIT 1"; }
warnings_of() { "$kwarn" warnings --db "$db" --commit "$1" 2>"$tmp/err"; }
# What the tree shows now: its live warnings at its last built commit,
# the not-built ones there, and how many builds and commits are stored.
tree_state() {
	"$kwarn" warnings --db "$db" 2>&1
	"$kwarn" warnings --db "$db" --state not_built 2>&1
	sql "SELECT COUNT(*) FROM builds; SELECT COUNT(*) FROM commits"
}
# COMMIT LOG WORD [more args]: ingesting LOG is refused with exit 2 and
# one line naming WORD, and the tree's state is what it was.
refused() {
	local c=$1 log=$2 word=$3 rc
	shift 3
	tree_state >"$tmp/state.before"
	ingest "$c" "$log" "$@"
	rc=$?
	tree_state >"$tmp/state.after"
	[ $rc = 2 ] && one_line_error $rc "$word" &&
		cmp -s "$tmp/state.before" "$tmp/state.after" &&
		[ "$(sql "SELECT COUNT(*) FROM commits WHERE sha = '$c'")" = 0 ]
}

# A good build first: everything below must leave it intact.
ingest good "$data/kbuild.log"
ok $? "a good log ingests"
warnings_of good >"$tmp/good.before"
good_count=$(grep -c ': warning:' "$tmp/good.before")
ok $((good_count != 4)) "it has its 4 compiler warnings ($good_count)"

# Files that are not build logs: refused before anything is stored, so
# the tree's warnings do not all become "not built" at a commit of them.
refused empty /dev/null empty && grep -q -- --allow-empty "$tmp/err"
ok $? "empty log: refused, exit 2, the tree unchanged ($(cat "$tmp/err"))"
printf '\n  \n\n' >"$tmp/blank.log"
refused blank "$tmp/blank.log" blank.log
ok $? "a log of blank lines: refused as empty"
ingest empty /dev/null --allow-empty
ok $? "empty log with --allow-empty: ingested"
[ -z "$(warnings_of empty)" ]
ok $? "empty log with --allow-empty: no warnings"

head -c 1048576 /dev/urandom >"$tmp/garbage"
refused garbage "$tmp/garbage" garbage && grep -q 'not a build log' "$tmp/err"
ok $? "1 MB of random bytes: refused, exit 2, the tree unchanged ($(cat "$tmp/err"))"
refused ls /bin/ls /bin/ls && grep -q 'binary data' "$tmp/err"
ok $? "/bin/ls: refused, exit 2, the tree unchanged ($(cat "$tmp/err"))"
gzip -c /bin/ls >"$tmp/ls.gz"
refused lsgz "$tmp/ls.gz" ls.gz && grep -q 'gzip content is binary' "$tmp/err"
ok $? "a gzip'd executable: refused once decompressed ($(cat "$tmp/err"))"
# a log of 2 MB, so that the damage is met well past the first bytes read
for i in $(seq 1 600); do cat "$data/kbuild.log"; done | gzip -c >"$tmp/big.gz"
size=$(stat -c %s "$tmp/big.gz")
head -c $((size / 2)) "$tmp/big.gz" >"$tmp/cut.gz"
refused cutgz "$tmp/cut.gz" cut.gz && grep -q 'ends early' "$tmp/err"
ok $? "a gzip'd log cut short: refused, the tree unchanged ($(cat "$tmp/err"))"
cp "$tmp/big.gz" "$tmp/damaged.gz"
head -c 64 /dev/urandom | dd of="$tmp/damaged.gz" bs=1 seek=$((size / 2)) \
	conv=notrunc 2>/dev/null
refused damaged "$tmp/damaged.gz" damaged.gz
ok $? "a damaged gzip'd log: refused, the tree unchanged ($(cat "$tmp/err"))"
printf 'BZh91AY&SY\x01\x02' >"$tmp/log.bz2"
refused bz2 "$tmp/log.bz2" bzip2
ok $? "a bzip2 log: refused with a hint ($(cat "$tmp/err"))"
printf 'make: Nothing to be done for '"'"'all'"'"'.\n' >"$tmp/nothing.log"
ingest nothing "$tmp/nothing.log"
[ $? = 0 ] && grep -q 'holds no compiler line' "$tmp/err"
ok $? "a log without a compiler line: ingested, and stderr says so"

# A 1 GB line, then a real log, through a pipe: streamed, not slurped.
timev=
[ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1 && timev=1
{
	head -c 1073741824 /dev/zero | tr '\0' a
	echo
	cat "$data/missing-break.log"
} | if [ -n "$timev" ]; then
	/usr/bin/time -v -o "$tmp/time" "$kwarn" ingest --db "$db" --tree t \
		--commit huge - >"$tmp/out" 2>"$tmp/err"
else
	"$kwarn" ingest --db "$db" --tree t --commit huge - >"$tmp/out" \
		2>"$tmp/err"
fi
ok $? "1 GB line then a real log from stdin: ingested"
warnings_of huge | grep -q "missing-break.c:7:21: warning: this statement may fall through"
ok $? "1 GB line: the warning after it is stored"
[ "$(unparsed_of huge)" = 1 ]
ok $? "1 GB line: counted as one unparsed line ($(unparsed_of huge))"
if [ -n "$timev" ]; then
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
	[ "$rss" -lt 65536 ]
	ok $? "1 GB line: peak RSS ${rss} kB < 64 MB"
else
	n=$((n + 1))
	echo "ok $n # skip /usr/bin/time -v not installed (package time)"
fi

ingest truncated "$data/truncated.log"
ok $? "truncated last line: ingested"
grep -q "truncated.log' ends in the middle of a line" "$tmp/err"
ok $? "truncated last line: stderr says the log ends mid-line"
[ "$(warnings_of truncated | grep -c ': warning:')" = 3 ] &&
	[ "$(unparsed_of truncated)" = 1 ]
ok $? "truncated last line: 3 warnings, the cut line counted unparsed"

ingest unknown "$data/unknown-kinds.log"
ok $? "unknown diagnostic kinds: ingested"
[ "$(unparsed_of unknown)" = 2 ] &&
	[ "$(warnings_of unknown | grep -c ': warning:')" = 1 ]
ok $? "unknown kinds: 2 lines counted unparsed, the warning kept"

ingest badutf8 "$data/bad-utf8.log"
ok $? "invalid UTF-8: ingested"
"$kwarn" warnings --db "$db" --commit badutf8 --format json 2>"$tmp/err" |
	grep -q '"function": "demo_??ioctl"'
ok $? "invalid UTF-8: replaced, and the JSON carries the function"

# A database file that is not SQLite: refused, and left as it was.
printf 'not a database at all\n%.0s' {1..100} >"$tmp/notdb.db"
cp "$tmp/notdb.db" "$tmp/notdb.orig"
"$kwarn" ingest --db "$tmp/notdb.db" --tree t --commit x \
	"$data/missing-break.log" >/dev/null 2>"$tmp/err"
one_line_error $? notdb.db && cmp -s "$tmp/notdb.db" "$tmp/notdb.orig"
ok $? "not SQLite: one-line error naming it, file untouched"
"$kwarn" warnings --db "$tmp/notdb.db" >/dev/null 2>"$tmp/err"
one_line_error $? notdb.db
ok $? "not SQLite: kwarn warnings refuses it too"

# A directory, and an SQLite file of another program: one line, exit 2,
# the file left as it was (not extended with kwarn's tables).
mkdir "$tmp/dir.db"
"$kwarn" ingest --db "$tmp/dir.db" --tree t --commit x \
	"$data/missing-break.log" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && one_line_error $rc dir.db && grep -q directory "$tmp/err"
ok $? "--db a directory: one line saying so, exit 2 ($(cat "$tmp/err"))"
"$kwarn" warnings --db "$tmp/dir.db" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && one_line_error $rc dir.db && grep -q directory "$tmp/err"
ok $? "--db a directory: kwarn warnings says so too, exit 2"
sqlite3 "$tmp/foreign.db" "CREATE TABLE notes(id INTEGER PRIMARY KEY, t TEXT);
	INSERT INTO notes(t) VALUES ('mine')"
cp "$tmp/foreign.db" "$tmp/foreign.orig"
"$kwarn" ingest --db "$tmp/foreign.db" --tree t --commit x \
	"$data/missing-break.log" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && one_line_error $rc foreign.db && grep -q "another program" "$tmp/err" &&
	cmp -s "$tmp/foreign.db" "$tmp/foreign.orig" && [ ! -e "$tmp/foreign.db-wal" ]
ok $? "another program's SQLite file: one line, exit 2, unchanged ($(cat "$tmp/err"))"
"$kwarn" warnings --db "$tmp/foreign.db" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && one_line_error $rc foreign.db && cmp -s "$tmp/foreign.db" "$tmp/foreign.orig"
ok $? "another program's SQLite file: kwarn warnings refuses it, exit 2"

# A database from a newer kwarn.
cp "$db" "$tmp/newer.db"
sqlite3 "$tmp/newer.db" "PRAGMA user_version = 999"
"$kwarn" ingest --db "$tmp/newer.db" --tree t --commit x \
	"$data/missing-break.log" >/dev/null 2>"$tmp/err"
one_line_error $? newer.db && grep -q 999 "$tmp/err"
ok $? "newer schema version: one-line error naming the file and version"
[ "$(sqlite3 "$tmp/newer.db" 'PRAGMA user_version')" = 999 ]
ok $? "newer schema: the file was not migrated or written"

# A path where no file can be made (even root cannot create in /proc).
"$kwarn" ingest --db /proc/kwarn-test/k.db --tree t --commit x \
	"$data/missing-break.log" >/dev/null 2>"$tmp/err"
one_line_error $? /proc/kwarn-test/k.db
ok $? "unwritable database path: one-line error naming it"

"$kwarn" ingest --db "$db" --tree t "$data/missing-break.log" \
	>/dev/null 2>"$tmp/err"
one_line_error $? -- --commit
ok $? "--commit missing: one-line error naming --commit"

"$kwarn" ingest --db "$db" --tree t --commit x "$tmp/no-such.log" \
	>/dev/null 2>"$tmp/err"
one_line_error $? no-such.log
ok $? "missing log file: one-line error naming it"

# Failing mid-way: a read error after the build was begun (a directory as
# the log), and an ingest killed while it writes.
builds_before=$(sql "SELECT COUNT(*) FROM builds")
diags_before=$(sql "SELECT COUNT(*) FROM diagnostics")
ingest readerr "$tmp"
one_line_error $? "$tmp"
ok $? "unreadable log (a directory): one-line error naming it"

# Many warnings (so that rows are written), then the writer stalls: the
# log comes through a FIFO that we hold open, and the ingest is killed.
for i in $(seq 1 200); do
	sed "s/missing-break/mb$i/g" "$data/missing-break.log"
done >"$tmp/many.log"
mkfifo "$tmp/fifo"
"$kwarn" ingest --db "$db" --tree t --commit killed - <"$tmp/fifo" \
	>/dev/null 2>&1 &
pid=$!
exec 3>"$tmp/fifo"
cat "$tmp/many.log" >&3
# killed while it writes: once its write transaction is open (another
# writer cannot begin), waited for up to a minute, not for the clock.
# Its rows wait in the page cache, not in the WAL, until it commits.
for _ in $(seq 600); do
	sqlite3 -cmd '.timeout 0' "$db" 'BEGIN IMMEDIATE; ROLLBACK;' \
		>/dev/null 2>"$tmp/lockerr" || break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
grep -q 'locked' "$tmp/lockerr"
ok $? "the ingest fed through a FIFO holds its write transaction open"
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
exec 3>&-
[ "$(sql "SELECT COUNT(*) FROM builds")" = "$builds_before" ] &&
	[ "$(sql "SELECT COUNT(*) FROM diagnostics")" = "$diags_before" ] &&
	[ "$(sql "SELECT COUNT(*) FROM commits WHERE sha IN ('readerr', 'killed')")" = 0 ]
ok $? "failed and killed ingests left no build, commit or diagnostic rows"
[ "$(sql 'PRAGMA integrity_check')" = ok ]
ok $? "database integrity_check ok after the kill"
warnings_of good >"$tmp/good.after"
cmp -s "$tmp/good.before" "$tmp/good.after"
ok $? "the first build's warnings are all still there, unchanged"
ingest again "$tmp/many.log"
ok $? "the next ingest works (no stale lock)"

# A full disk: a file size limit that the database reaches mid-ingest
# (EFBIG, as a full file system gives ENOSPC; SIGXFSZ ignored, as a
# daemon would): a one-line error naming the file, nothing half-written.
builds_before=$(sql "SELECT COUNT(*) FROM builds")
for i in $(seq 1 10); do cat "$tmp/many.log"; done >"$tmp/more.log"
size_db=$(stat -c %s "$db")
size_wal=$(stat -c %s "$db-wal" 2>/dev/null || echo 0)
[ "$size_wal" -gt "$size_db" ] && size_db=$size_wal
(
	ulimit -f $((size_db / 1024 + 16))
	trap '' XFSZ
	"$kwarn" ingest --db "$db" --tree t --commit full "$tmp/more.log" \
		>/dev/null 2>"$tmp/err"
)
one_line_error $? "$db" && grep -q 'disk full' "$tmp/err"
ok $? "full disk: one-line error naming the database ($(cat "$tmp/err"))"
[ "$(sql "SELECT COUNT(*) FROM builds")" = "$builds_before" ] &&
	[ "$(sql "SELECT COUNT(*) FROM commits WHERE sha = 'full'")" = 0 ] &&
	[ "$(sql 'PRAGMA integrity_check')" = ok ]
ok $? "full disk: no build or commit of it stored, integrity ok"
warnings_of good >"$tmp/good.after"
cmp -s "$tmp/good.before" "$tmp/good.after"
ok $? "full disk: the first build's warnings unchanged"

# A full disk met while rows are still being written (a build larger than
# the page cache): the first failed write is the one error, no follow-on
# such as a foreign key failing for the row that could not be stored.
perl -e 'local $/; my $l = <STDIN>; for my $i (1 .. 60000) {
	(my $c = $l) =~ s/missing-break/mbx$i/g; $c =~ s/demo_ioctl/io$i/g;
	print "  CC      drivers/demo/mbx$i.o\n", $c }' \
	<"$data/missing-break.log" >"$tmp/huge.log"
lines=
for lim in 8000 12000 16000; do
	cp "$db" "$tmp/full.db"
	rm -f "$tmp/full.db-wal" "$tmp/full.db-shm"
	(
		ulimit -f $lim
		trap '' XFSZ
		"$kwarn" ingest --db "$tmp/full.db" --tree t --commit huge \
			"$tmp/huge.log" >/dev/null 2>"$tmp/err.$lim"
	)
	lines="$lines $(wc -l <"$tmp/err.$lim")"
done
[ "$lines" = " 1 1 1" ]
ok $? "full disk mid-build at 8, 12 and 16 MB: one error line each ($lines)"
rm -f "$tmp/huge.log" "$tmp/full.db"*

# A new database on a full file system (a small tmpfs, when we may mount
# one), where the schema does not fit (32 and 64 KB) or the build does
# not (512 KB): one line, exit 2, and no database, -wal or -shm left.
mkdir "$tmp/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4k tmpfs "$tmp/small" 2>/dev/null; then
	umount "$tmp/small"
	res= where=
	for size in 32k 64k 512k; do
		mount -t tmpfs -o size=$size tmpfs "$tmp/small" && mnt=$tmp/small
		"$kwarn" ingest --db "$mnt/new.db" --tree t --commit x \
			"$tmp/more.log" >/dev/null 2>"$tmp/err"
		res="$res $?:$(wc -l <"$tmp/err"):$(ls -A "$mnt" | wc -l)"
		grep -q 'cannot migrate' "$tmp/err" && where="$where schema" ||
			where="$where build"
		umount "$mnt" && mnt=
	done
	[ "$res" = " 2:1:0 2:1:0 2:1:0" ] && [ "$where" = " schema schema build" ]
	ok $? "a new database on a full disk: exit, error lines, files left:$res (full at:$where)"
else
	ok 0 "# SKIP cannot mount a tmpfs here"
fi
# A damaged log into a new database: the database made for it goes too.
"$kwarn" ingest --db "$tmp/new.db" --tree t --commit x "$tmp/damaged.gz" \
	>/dev/null 2>"$tmp/err"
one_line_error $? damaged.gz && ! ls "$tmp/new.db"* >/dev/null 2>&1
ok $? "a damaged log into a new database: one line, no database left"

# A database that another process holds locked (an sqlite3 shell in an
# exclusive transaction, fed through a FIFO that we keep open).  The shell
# prints the count once BEGIN EXCLUSIVE holds: wait for that line (at most
# a minute), not for the clock.
mkfifo "$tmp/lockfifo"
sqlite3 "$db" <"$tmp/lockfifo" >"$tmp/lock.out" 2>&1 &
lpid=$!
exec 4>"$tmp/lockfifo"
echo "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; SELECT COUNT(*) FROM builds;" >&4
for _ in $(seq 600); do
	grep -q '^[0-9][0-9]*$' "$tmp/lock.out" && break
	kill -0 $lpid 2>/dev/null || break
	sleep 0.1
done
held=$(grep -c '^[0-9][0-9]*$' "$tmp/lock.out")
start=$(date +%s)
ingest locked "$data/missing-break.log"
rc=$?
exec 4>&-
wait $lpid 2>/dev/null
[ "$held" = 1 ] && one_line_error $rc "$db" &&
	grep -q 'locked by another process' "$tmp/err"
ok $? "locked database (the lock held: $held): one-line error naming it after $(($(date +%s) - start)) s ($(cat "$tmp/err"))"
[ "$(sql "SELECT COUNT(*) FROM commits WHERE sha = 'locked'")" = 0 ]
ok $? "locked database: nothing of that ingest stored"
ingest unlocked "$data/missing-break.log"
ok $? "locked database: the next ingest works once the lock is gone"

echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
