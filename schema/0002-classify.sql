-- kwarn schema, version 2: the verdict on each implicit fall-through.
-- One row per warning identity: is it a missing break or an intended
-- fall-through that lacks its marker (collector/classify.c)?
CREATE TABLE classifications (
	identity_id INTEGER PRIMARY KEY REFERENCES identities(id)
		ON DELETE CASCADE,
	verdict TEXT NOT NULL
		CHECK (verdict IN ('likely missing break', 'likely intended')),
	fix TEXT NOT NULL CHECK (fix IN ('break;', 'fallthrough;')),
	reason TEXT NOT NULL,
	classified_at INTEGER NOT NULL DEFAULT (unixepoch())
) STRICT;
