# The generated database of bench/server and bench/server-pages: >=
# 1,000,000 diagnostics across 1,000 commits, made with SQL recursive CTEs
# (not through the parser), cached at $db until the schema changes;
# db_scale=N makes N times as many warnings (default 1).
# Needs: $db, $kwarn, $tmp, $top.
sum=$( (echo generator-v1 "${db_scale:-1}"; cat schema/*.sql) |
	sha256sum | cut -c1-16)
if [ ! -s "$db" ] || [ "$(cat "$db.sum" 2>/dev/null)" != "$sum" ]; then
	echo "generating $db ..."
	rm -f "$db" "$db-wal" "$db-shm"
	t0=$(date +%s)
	# an empty ingest makes the schema at the version kwarn knows
	: >"$tmp/empty.log"
	"$kwarn" ingest --db "$db" --tree gen --commit gen --allow-empty \
		"$tmp/empty.log" >/dev/null
	maint=${KWARN_CACHE:-$HOME/.cache/kwarn}/pristine/linux-source-6.1/MAINTAINERS
	[ -r "$maint" ] || maint=$tmp/MAINTAINERS
	[ -r "$maint" ] || printf 'FIREWIRE SUBSYSTEM\nF:\tdrivers/firewire/\n\nTHE REST\nF:\t*\nF:\t*/\n' >"$maint"
	sqlite3 "$db" <<EOF
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
DELETE FROM states; DELETE FROM diagnostics; DELETE FROM objects;
DELETE FROM boots; DELETE FROM builds; DELETE FROM commits;
DELETE FROM runs; DELETE FROM identities; DELETE FROM trees;
INSERT INTO trees(id, name, version, kind, maintainers)
	VALUES (1, 'linux-source-6.1', '6.1.192', 'log',
		CAST(readfile('$maint') AS TEXT));
INSERT INTO runs(id, tree_id, kind, series, config, level, status)
	VALUES (1, 1, 'series', 'generated', 'tinyconfig', 3, 'done');
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
INSERT INTO commits(id, run_id, position, sha, subject, apply_status)
	SELECT i + 1, 1, i, lower(hex(randomblob(20))),
		'subsys' || (i % 37) || ': mark expected switch fall-throughs ' || i,
		CASE i WHEN 0 THEN 'base' ELSE 'applied' END FROM n;
INSERT INTO builds(id, commit_id, config_name, status, level)
	SELECT id, id, 'tinyconfig', 'ok', 3 FROM commits;
INSERT INTO boots(build_id, verdict, duration_ms)
	SELECT id, CASE WHEN id % 97 = 0 THEN 'crash' ELSE 'pass' END, 1500
	FROM builds;
-- 2,200 warnings (times ${db_scale:-1}) in 440 files of 22 real directories; warning k lives
-- from position first to last - 1
CREATE TEMP TABLE dirs(k INTEGER PRIMARY KEY, d TEXT);
INSERT INTO dirs(d) VALUES ('drivers/firewire'), ('fs/afs'),
	('drivers/net/can'), ('drivers/gpu/drm/i915/display'),
	('drivers/gpu/drm/amd/amdgpu'), ('kernel/bpf'), ('sound/soc/codecs'),
	('net/core'), ('fs/ext4'), ('mm'), ('drivers/mtd/nand/onenand'),
	('arch/x86/events/intel'), ('drivers/usb/core'), ('drivers/scsi'),
	('drivers/tty/serial'), ('drivers/input/misc'), ('fs/btrfs'),
	('net/ipv4'), ('drivers/media/usb/gspca'), ('drivers/hid'),
	('drivers/net/ethernet/intel/e1000e'), ('crypto');
CREATE TEMP TABLE gen(id INTEGER PRIMARY KEY, first INTEGER, last INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2200 * ${db_scale:-1})
INSERT INTO gen SELECT i, (i * 37) % 500,
	min(1000, (i * 37) % 500 + 330 + (i * 13) % 340) FROM n;
INSERT INTO identities(id, fingerprint, kind, file, function, option,
	message, note_target, ordinal)
	SELECT g.id, lower(hex(randomblob(32))), 'warning',
		(SELECT d FROM dirs WHERE k = 1 + g.id % 22) || '/file' ||
			(g.id % 20) || '.c',
		'fn_' || g.id, '-Wimplicit-fallthrough=',
		'this statement may fall through', 'case ' || g.id || ':', 0
	FROM gen g;
INSERT INTO diagnostics(build_id, identity_id, kind, option, file, line, col,
	function, message, source)
	SELECT c.id, i.id, 'warning', i.option, i.file, 100 + i.id % 700 +
		c.position / 100, 17, i.function, i.message, '		x++;'
	FROM commits c JOIN gen g ON c.position >= g.first
		AND c.position < g.last
	JOIN identities i ON i.id = g.id ORDER BY c.id, i.id;
INSERT INTO notes(diag_id, seq, file, line, col, message, source)
	SELECT d.id, 0, d.file, d.line + 1, 9, 'here', '	case 2:'
	FROM diagnostics d WHERE d.build_id = 1000;
INSERT INTO states(commit_id, identity_id, state, diag_id, seen)
	SELECT d.build_id, d.identity_id,
		CASE WHEN g.first > 0 AND c.position = g.first THEN 'new'
		ELSE 'present' END, d.id, 1
	FROM diagnostics d JOIN commits c ON c.id = d.build_id
	JOIN gen g ON g.id = d.identity_id ORDER BY 1, 2;
INSERT INTO states(commit_id, identity_id, state, diag_id, seen)
	SELECT c.id, g.id, 'fixed', NULL, 0 FROM gen g
	JOIN commits c ON c.run_id = 1 AND c.position = g.last
	WHERE g.last < 1000 ORDER BY 1, 2;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
ANALYZE;
EOF
	echo "$sum" >"$db.sum"
	echo "generated in $(($(date +%s) - t0)) s"
fi
