-- kwarn schema, version 8: a third verdict, "unsure", with no fix.
-- kwarn classify answers "unsure" when it finds no evidence either way
-- (collector/classify.c): suggesting fallthrough; without evidence would
-- hide a real missing break for good.  SQLite cannot change a CHECK
-- constraint, so the table is rebuilt; rows and ids stay.
CREATE TABLE classifications_new (
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
INSERT INTO classifications_new (identity_id, verdict, fix, reason,
	classified_at)
	SELECT identity_id, verdict, fix, reason, classified_at
	FROM classifications;
DROP TABLE classifications;
ALTER TABLE classifications_new RENAME TO classifications;
