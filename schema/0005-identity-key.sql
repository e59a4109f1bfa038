-- kwarn schema, version 5: identities found by an integer key.
-- An ingest looks up and inserts one identity per warning; the UNIQUE
-- index on the 64-character fingerprint made that the largest cost of
-- storing a build (random inserts of long keys into a large index).
-- fp_key holds the first 64 bits of the fingerprint (its first 16 hex
-- digits, big-endian, as a signed integer, see ident_fingerprint_key());
-- it is indexed, and the full fingerprint is compared on a match.
-- The table is rebuilt to drop the UNIQUE constraint; ids stay.
CREATE TABLE identities_new (
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
) STRICT;
INSERT INTO identities_new(id, fingerprint, kind, file, function, option,
	message, note_target, ordinal, fp_key)
	SELECT id, fingerprint, kind, file, function, option, message,
	note_target, ordinal,
		((instr('0123456789abcdef', substr(fingerprint, 1, 1)) - 1) << 60) |
		((instr('0123456789abcdef', substr(fingerprint, 2, 1)) - 1) << 56) |
		((instr('0123456789abcdef', substr(fingerprint, 3, 1)) - 1) << 52) |
		((instr('0123456789abcdef', substr(fingerprint, 4, 1)) - 1) << 48) |
		((instr('0123456789abcdef', substr(fingerprint, 5, 1)) - 1) << 44) |
		((instr('0123456789abcdef', substr(fingerprint, 6, 1)) - 1) << 40) |
		((instr('0123456789abcdef', substr(fingerprint, 7, 1)) - 1) << 36) |
		((instr('0123456789abcdef', substr(fingerprint, 8, 1)) - 1) << 32) |
		((instr('0123456789abcdef', substr(fingerprint, 9, 1)) - 1) << 28) |
		((instr('0123456789abcdef', substr(fingerprint, 10, 1)) - 1) << 24) |
		((instr('0123456789abcdef', substr(fingerprint, 11, 1)) - 1) << 20) |
		((instr('0123456789abcdef', substr(fingerprint, 12, 1)) - 1) << 16) |
		((instr('0123456789abcdef', substr(fingerprint, 13, 1)) - 1) << 12) |
		((instr('0123456789abcdef', substr(fingerprint, 14, 1)) - 1) << 8) |
		((instr('0123456789abcdef', substr(fingerprint, 15, 1)) - 1) << 4) |
		((instr('0123456789abcdef', substr(fingerprint, 16, 1)) - 1) << 0)
	FROM identities;
DROP TABLE identities;
ALTER TABLE identities_new RENAME TO identities;
CREATE INDEX identities_fp_key ON identities(fp_key);

-- states_identity_state (identity_id, state, commit_id) answers every
-- query states_identity (identity_id) did; one index less per state row.
DROP INDEX states_identity;
