-- kwarn schema, version 1.
-- Every table is STRICT; times are Unix seconds unless named *_ms.

-- A kernel source tree: a packaged tarball, an unpacked directory, a git
-- repository, or just a name given to `kwarn ingest`.
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

-- One invocation of `kwarn run`, `kwarn nightly` or `kwarn ingest`.
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
) STRICT;

-- One point of a run: the base, or one patch of the series.
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
CREATE INDEX commits_sha ON commits(sha);

-- One build of one commit.
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
) STRICT;
CREATE INDEX builds_commit ON builds(commit_id);

-- Every translation unit known at a build, and what happened to it.
CREATE TABLE objects (
	id INTEGER PRIMARY KEY,
	build_id INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE,
	path TEXT NOT NULL,		-- "drivers/firewire/core-device.o"
	state TEXT NOT NULL
		CHECK (state IN ('compiled', 'carried', 'failed', 'not_built')),
	UNIQUE (build_id, path)
) STRICT;

-- The stable fingerprint of a warning (see doc/design.md, "The identity
-- of a warning").
CREATE TABLE identities (
	id INTEGER PRIMARY KEY,
	fingerprint TEXT NOT NULL UNIQUE,
	kind TEXT NOT NULL,
	file TEXT,
	function TEXT,
	option TEXT,
	message TEXT NOT NULL,		-- normalised: locations dropped
	note_target TEXT,		-- source text of the first note, trimmed
	ordinal INTEGER NOT NULL DEFAULT 0
) STRICT;

-- A diagnostic as one compiler invocation printed it.  The same header
-- warning seen from ten objects is ten rows with one identity.
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
) STRICT;
CREATE INDEX diagnostics_build ON diagnostics(build_id, identity_id);
CREATE INDEX diagnostics_identity ON diagnostics(identity_id);

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
CREATE INDEX notes_diag ON notes(diag_id);

-- The state of every tracked warning at every point of a run.
-- 'fixed' appears once, at the point where the warning went away while its
-- object was rebuilt; 'not_built' while its object is not compiled.
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
CREATE INDEX states_identity ON states(identity_id);

-- One QEMU boot of one build.
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
CREATE INDEX boots_build ON boots(build_id);
