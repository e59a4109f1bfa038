-- kwarn schema, version 26: the per-point counts by kind as well.
-- point_counts (0019) counted each state under its identity's option,
-- else kind: a kernel-doc or sparse warning under "kernel-doc" or
-- "sparse", but the tool of an option (gcc's -Wfoo, dtc's -Wcheck) and
-- of a kind such as "error" was lost, and the burn-down could not draw
-- one series per (tool, option).  The table now keeps the identity's kind
-- beside the option, in its key: the counts by option are the sums over
-- the kinds.  The table is made again from the states, and its triggers
-- (0019's on states, 0021's on identities) with it, keyed the same way.
DROP TRIGGER point_counts_insert;
DROP TRIGGER point_counts_delete;
DROP TRIGGER point_counts_update;
DROP TRIGGER point_counts_identity;
DROP TABLE point_counts;
CREATE TABLE point_counts (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	state TEXT NOT NULL,		-- as states.state
	option TEXT NOT NULL,		-- identities.option, else .kind
	kind TEXT NOT NULL,		-- identities.kind
	n INTEGER NOT NULL,
	PRIMARY KEY (commit_id, state, option, kind)
) STRICT, WITHOUT ROWID;
INSERT INTO point_counts(commit_id, state, option, kind, n)
	SELECT s.commit_id, s.state, COALESCE(i.option, i.kind), i.kind,
		COUNT(*)
	FROM states s JOIN identities i ON i.id = s.identity_id
	GROUP BY 1, 2, 3, 4;
CREATE TRIGGER point_counts_insert AFTER INSERT ON states BEGIN
	INSERT INTO point_counts(commit_id, state, option, kind, n)
		SELECT NEW.commit_id, NEW.state, COALESCE(option, kind), kind, 1
		FROM identities WHERE id = NEW.identity_id
		ON CONFLICT (commit_id, state, option, kind) DO UPDATE
		SET n = n + 1;
END;
CREATE TRIGGER point_counts_delete AFTER DELETE ON states BEGIN
	UPDATE point_counts SET n = n - 1 WHERE commit_id = OLD.commit_id
		AND state = OLD.state AND (option, kind) = (SELECT
			COALESCE(option, kind), kind FROM identities
			WHERE id = OLD.identity_id);
	DELETE FROM point_counts WHERE commit_id = OLD.commit_id AND n <= 0;
END;
CREATE TRIGGER point_counts_update
AFTER UPDATE OF commit_id, identity_id, state ON states BEGIN
	UPDATE point_counts SET n = n - 1 WHERE commit_id = OLD.commit_id
		AND state = OLD.state AND (option, kind) = (SELECT
			COALESCE(option, kind), kind FROM identities
			WHERE id = OLD.identity_id);
	DELETE FROM point_counts WHERE commit_id = OLD.commit_id AND n <= 0;
	INSERT INTO point_counts(commit_id, state, option, kind, n)
		SELECT NEW.commit_id, NEW.state, COALESCE(option, kind), kind, 1
		FROM identities WHERE id = NEW.identity_id
		ON CONFLICT (commit_id, state, option, kind) DO UPDATE
		SET n = n + 1;
END;
CREATE TRIGGER point_counts_identity AFTER UPDATE OF option, kind ON identities
WHEN COALESCE(OLD.option, OLD.kind) IS NOT COALESCE(NEW.option, NEW.kind)
	OR OLD.kind IS NOT NEW.kind
BEGIN
	UPDATE point_counts SET n = n - (SELECT COUNT(*) FROM states s
			WHERE s.identity_id = NEW.id
			AND s.commit_id = point_counts.commit_id
			AND s.state = point_counts.state)
		WHERE option = COALESCE(OLD.option, OLD.kind)
		AND kind = OLD.kind
		AND commit_id IN (SELECT commit_id FROM states
			WHERE identity_id = NEW.id);
	DELETE FROM point_counts WHERE option = COALESCE(OLD.option, OLD.kind)
		AND kind = OLD.kind AND n <= 0
		AND commit_id IN (SELECT commit_id FROM states
			WHERE identity_id = NEW.id);
	INSERT INTO point_counts(commit_id, state, option, kind, n)
		SELECT commit_id, state, COALESCE(NEW.option, NEW.kind),
			NEW.kind, COUNT(*)
		FROM states WHERE identity_id = NEW.id GROUP BY 1, 2
		ON CONFLICT (commit_id, state, option, kind) DO UPDATE
		SET n = n + excluded.n;
END;
