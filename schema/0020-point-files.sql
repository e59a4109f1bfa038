-- kwarn schema, version 20: each point's live warnings per file.
-- How many live warnings (new or present) each file has at each commit,
-- kept by triggers beside the states as point_counts is (0019).  The
-- tables of files and of subsystems over a run read these rows (207,820
-- on bench/server's 1,000 commits) instead of a million live states and
-- their identities.  A warning without a file counts under ''.
CREATE TABLE point_files (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	file TEXT NOT NULL,		-- identities.file, else ''
	n INTEGER NOT NULL,
	PRIMARY KEY (commit_id, file)
) STRICT, WITHOUT ROWID;
INSERT INTO point_files(commit_id, file, n)
	SELECT s.commit_id, COALESCE(i.file, ''), COUNT(*)
	FROM states s JOIN identities i ON i.id = s.identity_id
	WHERE s.state IN ('new', 'present') GROUP BY 1, 2;
CREATE TRIGGER point_files_insert AFTER INSERT ON states
WHEN NEW.state IN ('new', 'present') BEGIN
	INSERT INTO point_files(commit_id, file, n)
		VALUES (NEW.commit_id, (SELECT COALESCE(file, '')
			FROM identities WHERE id = NEW.identity_id), 1)
		ON CONFLICT (commit_id, file) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER point_files_delete AFTER DELETE ON states
WHEN OLD.state IN ('new', 'present') BEGIN
	UPDATE point_files SET n = n - 1 WHERE commit_id = OLD.commit_id
		AND file = (SELECT COALESCE(file, '') FROM identities
			WHERE id = OLD.identity_id);
	DELETE FROM point_files WHERE commit_id = OLD.commit_id AND n <= 0;
END;
CREATE TRIGGER point_files_update_old
AFTER UPDATE OF commit_id, identity_id, state ON states
WHEN OLD.state IN ('new', 'present') BEGIN
	UPDATE point_files SET n = n - 1 WHERE commit_id = OLD.commit_id
		AND file = (SELECT COALESCE(file, '') FROM identities
			WHERE id = OLD.identity_id);
	DELETE FROM point_files WHERE commit_id = OLD.commit_id AND n <= 0;
END;
CREATE TRIGGER point_files_update_new
AFTER UPDATE OF commit_id, identity_id, state ON states
WHEN NEW.state IN ('new', 'present') BEGIN
	INSERT INTO point_files(commit_id, file, n)
		VALUES (NEW.commit_id, (SELECT COALESCE(file, '')
			FROM identities WHERE id = NEW.identity_id), 1)
		ON CONFLICT (commit_id, file) DO UPDATE SET n = n + 1;
END;
