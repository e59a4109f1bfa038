-- kwarn schema, version 24: triage, what people decided about a warning.
-- A record names a warning identity by its fingerprint (so it holds at
-- every commit, run and tree where that identity appears, and travels in
-- an export to another database), its state, why, who and when.  Records
-- are only ever added: the newest record of a fingerprint is its state,
-- the older ones its history.  A fingerprint with no record is 'open'.
-- origin says who wrote it: a person through the CLI or the API, an
-- import, or kwarn itself reopening a warning that came back or changed.
CREATE TABLE triage (
	id INTEGER PRIMARY KEY,
	fingerprint TEXT NOT NULL,
	state TEXT NOT NULL CHECK (state IN ('open', 'confirmed', 'intended',
		'false-positive', 'compiler-bug', 'wontfix')),
	reason TEXT NOT NULL,
	link TEXT,
	who TEXT NOT NULL,
	at INTEGER NOT NULL,		-- seconds since the epoch, UTC
	origin TEXT NOT NULL CHECK (origin IN ('cli', 'api', 'import',
		'reopen'))
) STRICT;
CREATE INDEX triage_fingerprint ON triage(fingerprint, id);

CREATE TRIGGER triage_no_update BEFORE UPDATE ON triage
BEGIN
	SELECT RAISE(ABORT, 'triage records are never changed: add one');
END;
CREATE TRIGGER triage_no_delete BEFORE DELETE ON triage
BEGIN
	SELECT RAISE(ABORT, 'triage records are never deleted: add one');
END;

-- The state of every triaged fingerprint: its newest record.
CREATE VIEW triage_current AS
	SELECT t.* FROM triage t
	WHERE t.id = (SELECT MAX(u.id) FROM triage u
		      WHERE u.fingerprint = t.fingerprint);

-- Fingerprints whose newest record says "no bug to act on": a new warning
-- of one fails neither --fail-on-new nor the nightly.  The same list is
-- triage_is_settled() in lib/triage.c (tests/unit/test-triage.c holds
-- the two to one answer).
CREATE VIEW triage_settled AS
	SELECT fingerprint, state FROM triage_current
	WHERE state IN ('intended', 'false-positive', 'compiler-bug',
		'wontfix');
