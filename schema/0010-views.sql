-- Rules that SQL asked in many places, said once.
--
-- A warning is live at a point when its state there is new or present;
-- fixed and not_built are gone (and "not built" is never "fixed").
CREATE VIEW live_states AS
	SELECT * FROM states WHERE state IN ('new', 'present');

-- The newest build of each commit.
CREATE VIEW commit_builds AS
	SELECT commit_id, MAX(id) AS build_id FROM builds GROUP BY commit_id;

-- The tip of each run: its last commit that has a build (SQLite takes
-- the other columns of a MAX() aggregate from the row of the maximum).
CREATE VIEW run_tips AS
	SELECT c.run_id AS run_id, c.id AS commit_id,
	       MAX(c.position) AS position
	FROM commits c
	WHERE EXISTS (SELECT 1 FROM builds b WHERE b.commit_id = c.id)
	GROUP BY c.run_id;
