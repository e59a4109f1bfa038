-- kwarn schema, version 21: the per-point counts follow their identity.
-- point_counts (0019) and point_files (0020) count each state under its
-- identity's option (else kind) and file, read when the state was
-- written.  When an identity's option, kind or file changes afterwards,
-- its states move from the old name to the new one at every commit, so
-- the counts stay those of the states whoever writes.  Every statement
-- reaches its rows by commit (the primary keys), not by name.  A later
-- migration that rebuilds identities (copy, drop, rename, as 0005 did)
-- drops these triggers with the table: it must make them again.
CREATE TRIGGER point_counts_identity AFTER UPDATE OF option, kind ON identities
WHEN COALESCE(OLD.option, OLD.kind) IS NOT COALESCE(NEW.option, NEW.kind)
BEGIN
	UPDATE point_counts SET n = n - (SELECT COUNT(*) FROM states s
			WHERE s.identity_id = NEW.id
			AND s.commit_id = point_counts.commit_id
			AND s.state = point_counts.state)
		WHERE option = COALESCE(OLD.option, OLD.kind)
		AND commit_id IN (SELECT commit_id FROM states
			WHERE identity_id = NEW.id);
	DELETE FROM point_counts WHERE option = COALESCE(OLD.option, OLD.kind)
		AND n <= 0 AND commit_id IN (SELECT commit_id FROM states
			WHERE identity_id = NEW.id);
	INSERT INTO point_counts(commit_id, state, option, n)
		SELECT commit_id, state, COALESCE(NEW.option, NEW.kind), COUNT(*)
		FROM states WHERE identity_id = NEW.id GROUP BY 1, 2
		ON CONFLICT (commit_id, state, option) DO UPDATE
		SET n = n + excluded.n;
END;
CREATE TRIGGER point_files_identity AFTER UPDATE OF file ON identities
WHEN COALESCE(OLD.file, '') IS NOT COALESCE(NEW.file, '') BEGIN
	UPDATE point_files SET n = n - 1
		WHERE file = COALESCE(OLD.file, '')
		AND commit_id IN (SELECT commit_id FROM states
			WHERE identity_id = NEW.id AND state IN ('new', 'present'));
	DELETE FROM point_files WHERE file = COALESCE(OLD.file, '') AND n <= 0
		AND commit_id IN (SELECT commit_id FROM states
			WHERE identity_id = NEW.id AND state IN ('new', 'present'));
	INSERT INTO point_files(commit_id, file, n)
		SELECT commit_id, COALESCE(NEW.file, ''), 1 FROM states
		WHERE identity_id = NEW.id AND state IN ('new', 'present')
		ON CONFLICT (commit_id, file) DO UPDATE SET n = n + 1;
END;
