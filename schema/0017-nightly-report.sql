-- kwarn schema, version 17: what kwarn nightly found, kept.
-- One row per nightly run it compared: the report entry it printed
-- (`kwarn nightly --format json`'s element of "trees": the new warnings
-- with the cause it gave each, the previous compiler when it changed,
-- the rebuilt run, the series outcome), so that the dashboard shows the
-- causes kwarn nightly determined instead of guessing them again.
CREATE TABLE nightly_reports (
	run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	report TEXT NOT NULL			-- JSON object
);
