-- Rules that SQL asked in many places, said once.
--
-- A warning is live at a point when its state there is new or present;
-- fixed and not_built are gone (and "not built" is never "fixed").
CREATE VIEW live_states AS
	SELECT * FROM states WHERE state IN ('new', 'present');

-- The newest build of each commit.
CREATE VIEW commit_builds AS
	SELECT commit_id, MAX(id) AS build_id FROM builds GROUP BY commit_id;

-- The tip of each run: its last commit that has a build.
CREATE VIEW run_tips AS
	SELECT c.run_id AS run_id, c.id AS commit_id, c.position AS position
	FROM commits c
	WHERE c.id = (SELECT c2.id FROM commits c2
		      WHERE c2.run_id = c.run_id
		      AND EXISTS (SELECT 1 FROM builds b
				  WHERE b.commit_id = c2.id)
		      ORDER BY c2.position DESC LIMIT 1);
