-- kwarn schema, version 19: the counts of each point, kept with it.
-- How many warnings of each state and option a commit has, kept by
-- triggers beside its states whoever writes them (the collector's
-- compute_states(), a deletion cascading from a run).  The burn-down of a
-- run of 1,000 commits and a million states reads a few thousand of these
-- rows instead of the million states (558 ms uncached before), and after
-- every write that is what the first request pays.
-- A warning without an option counts under its kind ("modpost", ...).
CREATE TABLE point_counts (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	state TEXT NOT NULL,		-- as states.state
	option TEXT NOT NULL,		-- identities.option, else .kind
	n INTEGER NOT NULL,
	PRIMARY KEY (commit_id, state, option)
) STRICT, WITHOUT ROWID;
INSERT INTO point_counts(commit_id, state, option, n)
	SELECT s.commit_id, s.state, COALESCE(i.option, i.kind), COUNT(*)
	FROM states s JOIN identities i ON i.id = s.identity_id
	GROUP BY 1, 2, 3;
CREATE TRIGGER point_counts_insert AFTER INSERT ON states BEGIN
	INSERT INTO point_counts(commit_id, state, option, n)
		VALUES (NEW.commit_id, NEW.state, (SELECT COALESCE(option, kind)
			FROM identities WHERE id = NEW.identity_id), 1)
		ON CONFLICT (commit_id, state, option) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER point_counts_delete AFTER DELETE ON states BEGIN
	UPDATE point_counts SET n = n - 1 WHERE commit_id = OLD.commit_id
		AND state = OLD.state AND option = (SELECT COALESCE(option, kind)
			FROM identities WHERE id = OLD.identity_id);
	DELETE FROM point_counts WHERE commit_id = OLD.commit_id AND n <= 0;
END;
CREATE TRIGGER point_counts_update
AFTER UPDATE OF commit_id, identity_id, state ON states BEGIN
	UPDATE point_counts SET n = n - 1 WHERE commit_id = OLD.commit_id
		AND state = OLD.state AND option = (SELECT COALESCE(option, kind)
			FROM identities WHERE id = OLD.identity_id);
	DELETE FROM point_counts WHERE commit_id = OLD.commit_id AND n <= 0;
	INSERT INTO point_counts(commit_id, state, option, n)
		VALUES (NEW.commit_id, NEW.state, (SELECT COALESCE(option, kind)
			FROM identities WHERE id = NEW.identity_id), 1)
		ON CONFLICT (commit_id, state, option) DO UPDATE SET n = n + 1;
END;
