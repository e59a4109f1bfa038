-- made by tests/data/migrate/make-fixture with kwarn 259c8def1987ad55c970e5f7c8774c4ba6f2c167
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE trees (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL,		-- "linux-source-6.1"
	version TEXT,			-- "6.1.192" (from the tree's Makefile)
	pkg_version TEXT,		-- dpkg version of the package, if any
	kind TEXT NOT NULL CHECK (kind IN ('tarball', 'dir', 'repo', 'log')),
	source TEXT,			-- path of the tarball, directory or repo
	sha256 TEXT,			-- of the tarball (or NULL)
	maintainers TEXT,		-- the tree's MAINTAINERS, kept at import
	imported_at INTEGER NOT NULL DEFAULT (unixepoch()),
	UNIQUE (name, kind, source, sha256)
) STRICT;
INSERT INTO trees VALUES(1,'kwtree',NULL,NULL,'log',NULL,NULL,NULL,1796505154);
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	tree_id INTEGER NOT NULL REFERENCES trees(id),
	kind TEXT NOT NULL CHECK (kind IN ('series', 'nightly', 'ingest')),
	series TEXT,			-- series file, or git range
	config TEXT,			-- config name, e.g. "tinyconfig+qemu"
	level INTEGER,			-- -Wimplicit-fallthrough level
	params TEXT,			-- JSON of what decides the results (resume key)
	status TEXT NOT NULL DEFAULT 'running'
		CHECK (status IN ('running', 'done', 'failed', 'stopped')),
	message TEXT,			-- why it failed or stopped
	started_at INTEGER NOT NULL DEFAULT (unixepoch()),
	finished_at INTEGER
, compiler TEXT, group_id INTEGER, progress TEXT, arch TEXT) STRICT;
INSERT INTO runs VALUES(1,1,'ingest',NULL,NULL,NULL,NULL,'done',NULL,1796505154,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE commits (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	position INTEGER NOT NULL,	-- 0 is the base
	sha TEXT NOT NULL,		-- git commit id (or the REF given to ingest)
	parent TEXT,
	subject TEXT,
	author TEXT,
	date INTEGER,
	patch TEXT,			-- patch file name from the series
	apply_status TEXT NOT NULL DEFAULT 'applied'
		CHECK (apply_status IN ('base', 'applied', 'failed')),
	apply_error TEXT,
	changed TEXT,			-- JSON {"file": [[first, last], ...]}
	UNIQUE (run_id, position)
) STRICT;
INSERT INTO commits VALUES(1,1,0,'2f22765d04931a078909145ca628d2264c852d7d',NULL,'2f22765d04931a078909145ca628d2264c852d7d',NULL,0,NULL,'base',NULL,NULL);
INSERT INTO commits VALUES(2,1,1,'6b1f53303a732ccc8c6aae6640399827c15250e3',NULL,'6b1f53303a732ccc8c6aae6640399827c15250e3',NULL,0,NULL,'applied',NULL,NULL);
INSERT INTO commits VALUES(3,1,2,'a625406f6977d45c1391b078f4d3656e0b75bfcb',NULL,'a625406f6977d45c1391b078f4d3656e0b75bfcb',NULL,0,NULL,'applied',NULL,NULL);
CREATE TABLE builds (
	id INTEGER PRIMARY KEY,
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	config_name TEXT,
	config_hash TEXT,		-- sha256 of the resulting .config
	compiler TEXT,			-- first line of `gcc --version`
	flags TEXT,			-- KCFLAGS and other make variables
	level INTEGER,
	status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'ingested')),
	wall_ms INTEGER,
	objects_compiled INTEGER NOT NULL DEFAULT 0,
	unparsed_lines INTEGER NOT NULL DEFAULT 0,
	log_tail TEXT,			-- last lines of make's output on failure
	image TEXT,			-- path of bzImage in the cache, if built
	created_at INTEGER NOT NULL DEFAULT (unixepoch())
, arch TEXT, build_dir TEXT) STRICT;
INSERT INTO builds VALUES(1,1,'ingested log',NULL,NULL,NULL,0,'ingested',0,3,0,NULL,NULL,1796505154,NULL,NULL);
INSERT INTO builds VALUES(2,2,'ingested log',NULL,NULL,NULL,0,'ingested',0,3,0,NULL,NULL,1796505154,NULL,NULL);
INSERT INTO builds VALUES(3,3,'ingested log',NULL,NULL,NULL,0,'ingested',0,2,0,NULL,NULL,1796505154,NULL,NULL);
CREATE TABLE objects (
	id INTEGER PRIMARY KEY,
	build_id INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE,
	path TEXT NOT NULL,		-- "drivers/firewire/core-device.o"
	state TEXT NOT NULL
		CHECK (state IN ('compiled', 'carried', 'failed', 'not_built')), composite TEXT,
	UNIQUE (build_id, path)
) STRICT;
INSERT INTO objects VALUES(1,1,'drivers/firewire/core-device.o','compiled',NULL);
INSERT INTO objects VALUES(2,1,'fs/afs/fsclient.o','compiled',NULL);
INSERT INTO objects VALUES(3,1,'net/core/dev.o','compiled',NULL);
INSERT INTO objects VALUES(4,2,'drivers/firewire/core-device.o','compiled',NULL);
INSERT INTO objects VALUES(5,2,'fs/afs/fsclient.o','compiled',NULL);
INSERT INTO objects VALUES(6,2,'net/core/dev.o','compiled',NULL);
INSERT INTO objects VALUES(7,3,'drivers/firewire/core-device.o','compiled',NULL);
INSERT INTO objects VALUES(8,3,'fs/afs/fsclient.o','compiled',NULL);
CREATE TABLE diagnostics (
	id INTEGER PRIMARY KEY,
	build_id INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE,
	object_id INTEGER REFERENCES objects(id) ON DELETE CASCADE,
	identity_id INTEGER REFERENCES identities(id),
	kind TEXT NOT NULL,		-- warning, error, fatal error, modpost, linker, boot
	option TEXT,			-- "-Wimplicit-fallthrough=" (NULL if none)
	werror INTEGER NOT NULL DEFAULT 0,
	file TEXT,
	line INTEGER,
	col INTEGER,
	function TEXT,
	message TEXT NOT NULL,
	source TEXT,			-- the source line GCC printed, if any
	include_chain TEXT,		-- "a.c:3 <- b.h:7"
	carried INTEGER NOT NULL DEFAULT 0	-- 1: object not rebuilt here
, inline_chain TEXT) STRICT;
INSERT INTO diagnostics VALUES(1,1,1,1,'warning','-Wimplicit-fallthrough=',0,'drivers/firewire/core-device.c',8,19,'fw_a','this statement may fall through','                r += kw_inline(x);',NULL,0,NULL);
INSERT INTO diagnostics VALUES(2,1,1,2,'warning','-Wimplicit-fallthrough=',0,'drivers/firewire/core-device.c',11,19,'fw_a','this statement may fall through','                r += 2;',NULL,0,NULL);
INSERT INTO diagnostics VALUES(3,1,1,3,'warning','-Wimplicit-fallthrough=',0,'drivers/firewire/core-device.c',14,19,'fw_a','this statement may fall through','                r += 3;',NULL,0,NULL);
INSERT INTO diagnostics VALUES(4,1,1,4,'warning','-Wimplicit-fallthrough=',0,'include/linux/kwhdr.h',5,18,'kw_inline','this statement may fall through','                x++;','drivers/firewire/core-device.c:1',0,NULL);
INSERT INTO diagnostics VALUES(5,1,2,5,'warning','-Wimplicit-fallthrough=',0,'fs/afs/fsclient.c',6,19,'afs_b','this statement may fall through','                x += kw_inline(x);',NULL,0,NULL);
INSERT INTO diagnostics VALUES(6,1,2,4,'warning','-Wimplicit-fallthrough=',0,'include/linux/kwhdr.h',5,18,'kw_inline','this statement may fall through','                x++;','fs/afs/fsclient.c:1',0,NULL);
INSERT INTO diagnostics VALUES(7,1,3,6,'warning','-Wimplicit-fallthrough=',0,'net/core/dev.c',5,19,'dev_x','this statement may fall through','                x <<= 1;',NULL,0,NULL);
INSERT INTO diagnostics VALUES(8,2,4,2,'warning','-Wimplicit-fallthrough=',0,'drivers/firewire/core-device.c',11,19,'fw_a','this statement may fall through','                r += 2;',NULL,0,NULL);
INSERT INTO diagnostics VALUES(9,2,4,3,'warning','-Wimplicit-fallthrough=',0,'drivers/firewire/core-device.c',14,19,'fw_a','this statement may fall through','                r += 3;',NULL,0,NULL);
INSERT INTO diagnostics VALUES(10,2,4,4,'warning','-Wimplicit-fallthrough=',0,'include/linux/kwhdr.h',5,18,'kw_inline','this statement may fall through','                x++;','drivers/firewire/core-device.c:1',0,NULL);
INSERT INTO diagnostics VALUES(11,2,5,5,'warning','-Wimplicit-fallthrough=',0,'fs/afs/fsclient.c',6,19,'afs_b','this statement may fall through','                x += kw_inline(x);',NULL,0,NULL);
INSERT INTO diagnostics VALUES(12,2,5,4,'warning','-Wimplicit-fallthrough=',0,'include/linux/kwhdr.h',5,18,'kw_inline','this statement may fall through','                x++;','fs/afs/fsclient.c:1',0,NULL);
INSERT INTO diagnostics VALUES(13,2,5,7,'warning','-Wimplicit-fallthrough=',0,'fs/afs/fsclient.c',17,19,'afs_c','this statement may fall through','                x *= 2;',NULL,0,NULL);
INSERT INTO diagnostics VALUES(14,2,6,6,'warning','-Wimplicit-fallthrough=',0,'net/core/dev.c',5,19,'dev_x','this statement may fall through','                x <<= 1;',NULL,0,NULL);
INSERT INTO diagnostics VALUES(15,3,8,5,'warning','-Wimplicit-fallthrough=',0,'fs/afs/fsclient.c',6,19,'afs_b','this statement may fall through','                x += kw_inline(x);',NULL,0,NULL);
INSERT INTO diagnostics VALUES(16,3,8,7,'warning','-Wimplicit-fallthrough=',0,'fs/afs/fsclient.c',17,19,'afs_c','this statement may fall through','                x *= 2;',NULL,0,NULL);
CREATE TABLE notes (
	id INTEGER PRIMARY KEY,
	diag_id INTEGER NOT NULL REFERENCES diagnostics(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	file TEXT,
	line INTEGER,
	col INTEGER,
	message TEXT NOT NULL,
	source TEXT
) STRICT;
INSERT INTO notes VALUES(1,1,0,'drivers/firewire/core-device.c',10,9,'here','        case 2:');
INSERT INTO notes VALUES(2,2,0,'drivers/firewire/core-device.c',13,9,'here','        case 3:');
INSERT INTO notes VALUES(3,3,0,'drivers/firewire/core-device.c',16,9,'here','        case 4:');
INSERT INTO notes VALUES(4,4,0,'include/linux/kwhdr.h',7,9,'here','        case 1:');
INSERT INTO notes VALUES(5,5,0,'fs/afs/fsclient.c',7,9,'here','        case 2:');
INSERT INTO notes VALUES(6,6,0,'include/linux/kwhdr.h',7,9,'here','        case 1:');
INSERT INTO notes VALUES(7,7,0,'net/core/dev.c',6,9,'here','        case 4:');
INSERT INTO notes VALUES(8,8,0,'drivers/firewire/core-device.c',13,9,'here','        case 3:');
INSERT INTO notes VALUES(9,9,0,'drivers/firewire/core-device.c',16,9,'here','        case 4:');
INSERT INTO notes VALUES(10,10,0,'include/linux/kwhdr.h',7,9,'here','        case 1:');
INSERT INTO notes VALUES(11,11,0,'fs/afs/fsclient.c',7,9,'here','        case 2:');
INSERT INTO notes VALUES(12,12,0,'include/linux/kwhdr.h',7,9,'here','        case 1:');
INSERT INTO notes VALUES(13,13,0,'fs/afs/fsclient.c',18,9,'here','        default:');
INSERT INTO notes VALUES(14,14,0,'net/core/dev.c',6,9,'here','        case 4:');
INSERT INTO notes VALUES(15,15,0,'fs/afs/fsclient.c',7,9,'here','        case 2:');
INSERT INTO notes VALUES(16,16,0,'fs/afs/fsclient.c',18,9,'here','        default:');
CREATE TABLE states (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	identity_id INTEGER NOT NULL REFERENCES identities(id),
	state TEXT NOT NULL
		CHECK (state IN ('new', 'present', 'fixed', 'not_built')),
	diag_id INTEGER REFERENCES diagnostics(id) ON DELETE SET NULL,
	seen INTEGER NOT NULL DEFAULT 0,	-- objects that printed it
	in_change INTEGER NOT NULL DEFAULT 0,	-- inside lines this commit changed
	PRIMARY KEY (commit_id, identity_id)
) STRICT, WITHOUT ROWID;
INSERT INTO states VALUES(1,1,'present',1,1,0);
INSERT INTO states VALUES(1,2,'present',2,1,0);
INSERT INTO states VALUES(1,3,'present',3,1,0);
INSERT INTO states VALUES(1,4,'present',4,2,0);
INSERT INTO states VALUES(1,5,'present',5,1,0);
INSERT INTO states VALUES(1,6,'present',7,1,0);
INSERT INTO states VALUES(2,1,'fixed',1,0,0);
INSERT INTO states VALUES(2,2,'present',8,1,0);
INSERT INTO states VALUES(2,3,'present',9,1,0);
INSERT INTO states VALUES(2,4,'present',10,2,0);
INSERT INTO states VALUES(2,5,'present',11,1,0);
INSERT INTO states VALUES(2,6,'present',14,1,0);
INSERT INTO states VALUES(2,7,'new',13,1,0);
INSERT INTO states VALUES(3,2,'fixed',8,0,0);
INSERT INTO states VALUES(3,3,'fixed',9,0,0);
INSERT INTO states VALUES(3,4,'fixed',10,0,0);
INSERT INTO states VALUES(3,5,'present',15,1,0);
INSERT INTO states VALUES(3,6,'not_built',14,0,0);
INSERT INTO states VALUES(3,7,'present',16,1,0);
CREATE TABLE boots (
	id INTEGER PRIMARY KEY,
	build_id INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE,
	verdict TEXT NOT NULL CHECK (verdict IN
		('pass', 'crash', 'hang', 'timeout', 'fail', 'infra')),
	reason TEXT,
	fingerprint TEXT,		-- first lines of a trace
	kernel_version TEXT,
	nonce TEXT,
	accel TEXT,			-- kvm or tcg
	duration_ms INTEGER,
	log BLOB,			-- zlib-compressed serial output
	log_size INTEGER,
	created_at INTEGER NOT NULL DEFAULT (unixepoch())
) STRICT;
CREATE TABLE boot_modules (
	boot_id INTEGER NOT NULL REFERENCES boots(id) ON DELETE CASCADE,
	name TEXT NOT NULL,		-- file name without .ko
	status TEXT NOT NULL CHECK (status IN ('ok', 'fail', 'unfinished')),
	message TEXT,			-- modprobe's error when it failed
	PRIMARY KEY (boot_id, name)
) STRICT;
CREATE TABLE IF NOT EXISTS "identities" (
	id INTEGER PRIMARY KEY,
	fingerprint TEXT NOT NULL,
	kind TEXT NOT NULL,
	file TEXT,
	function TEXT,
	option TEXT,
	message TEXT NOT NULL,		-- normalised: locations dropped
	note_target TEXT,		-- source text of the first note, trimmed
	ordinal INTEGER NOT NULL DEFAULT 0,
	fp_key INTEGER			-- first 64 bits of fingerprint
, site TEXT) STRICT;
INSERT INTO identities VALUES(1,'6a018da0e723334e11a8416f96501e33a01f7d7413bbdee8cc98426afbe54c62','warning','drivers/firewire/core-device.c','fw_a','-Wimplicit-fallthrough=','this statement may fall through','case 2:',0,7638542165209199438,'drivers/firewire/core-device.c|fw_a|-Wimplicit-fallthrough|case 2:');
INSERT INTO identities VALUES(2,'e48ab4cefd00aa2f12e1e3415d880dfa7cfa3b92cacf47dd7faaa1b302b144ac','warning','drivers/firewire/core-device.c','fw_a','-Wimplicit-fallthrough=','this statement may fall through','case 3:',0,-1978570285174969809,'drivers/firewire/core-device.c|fw_a|-Wimplicit-fallthrough|case 3:');
INSERT INTO identities VALUES(3,'b1c3e0ce1f434476233cc44decc353f80ea2664d93260580112c7f1e3943fcd0','warning','drivers/firewire/core-device.c','fw_a','-Wimplicit-fallthrough=','this statement may fall through','case 4:',0,-5637415132645342090,'drivers/firewire/core-device.c|fw_a|-Wimplicit-fallthrough|case 4:');
INSERT INTO identities VALUES(4,'bf6b70a4daca9b0834d8e3981cc9c3e8c39723bcee340f745a6020490ebab8db','warning','include/linux/kwhdr.h','kw_inline','-Wimplicit-fallthrough=','this statement may fall through','case 1:',0,-4653501936609617144,'include/linux/kwhdr.h|kw_inline|-Wimplicit-fallthrough|case 1:');
INSERT INTO identities VALUES(5,'e3ce1c9b238e6a9f3b357d8b9d8fd28f5b94487cbd31bf0f927d020765275bf8','warning','fs/afs/fsclient.c','afs_b','-Wimplicit-fallthrough=','this statement may fall through','case 2:',0,-2031654929255470433,'fs/afs/fsclient.c|afs_b|-Wimplicit-fallthrough|case 2:');
INSERT INTO identities VALUES(6,'0d295e3bf60e28670ff70afbb98f7000fc991002de0071b98bab6d4eaeeb10fe','warning','net/core/dev.c','dev_x','-Wimplicit-fallthrough=','this statement may fall through','case 4:',0,948392808162404455,'net/core/dev.c|dev_x|-Wimplicit-fallthrough|case 4:');
INSERT INTO identities VALUES(7,'d6596d963812042635ed11027a09c24023c6e77b8bc1440834c931c9e7c3bd05','warning','fs/afs/fsclient.c','afs_c','-Wimplicit-fallthrough=','this statement may fall through','default:',0,-3001247184712498138,'fs/afs/fsclient.c|afs_c|-Wimplicit-fallthrough|default:');
CREATE TABLE IF NOT EXISTS "classifications" (
	identity_id INTEGER PRIMARY KEY REFERENCES identities(id)
		ON DELETE CASCADE,
	verdict TEXT NOT NULL
		CHECK (verdict IN ('likely missing break', 'likely intended',
				   'unsure')),
	-- NULL exactly when unsure: no fix to suggest
	fix TEXT CHECK (fix IN ('break;', 'fallthrough;')),
	reason TEXT NOT NULL,
	classified_at INTEGER NOT NULL DEFAULT (unixepoch()),
	CHECK ((verdict = 'unsure') = (fix IS NULL))
) STRICT;
CREATE TABLE nightly_reports (
	run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	report TEXT NOT NULL			-- JSON object
);
CREATE INDEX commits_sha ON commits(sha);
CREATE INDEX builds_commit ON builds(commit_id);
CREATE INDEX diagnostics_build ON diagnostics(build_id, identity_id);
CREATE INDEX diagnostics_identity ON diagnostics(identity_id);
CREATE INDEX notes_diag ON notes(diag_id);
CREATE INDEX boots_build ON boots(build_id);
CREATE INDEX states_identity_state ON states(identity_id, state, commit_id);
CREATE INDEX identities_fp_key ON identities(fp_key);
CREATE VIEW live_states AS
	SELECT * FROM states WHERE state IN ('new', 'present');
CREATE VIEW commit_builds AS
	SELECT commit_id, MAX(id) AS build_id FROM builds GROUP BY commit_id;
CREATE VIEW run_tips AS
	SELECT c.run_id AS run_id, c.id AS commit_id,
	       MAX(c.position) AS position
	FROM commits c
	WHERE EXISTS (SELECT 1 FROM builds b WHERE b.commit_id = c.id)
	GROUP BY c.run_id;
CREATE INDEX runs_group ON runs(group_id);
CREATE INDEX identities_site ON identities(site);
COMMIT;
PRAGMA user_version = 18;
