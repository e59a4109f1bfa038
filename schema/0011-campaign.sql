-- kwarn schema, version 11: campaigns across compilers.
-- A run is measured with one compiler; `kwarn run --cc gcc --cc clang-16`
-- makes one run per compiler over the same points, linked by group_id
-- (the id of the invocation's first run), so that a burn-down can show
-- one column per compiler.  compiler is the --cc name ("gcc" for runs
-- made without --cc, NULL for ingested logs).
ALTER TABLE runs ADD COLUMN compiler TEXT;
ALTER TABLE runs ADD COLUMN group_id INTEGER;
UPDATE runs SET compiler = 'gcc' WHERE kind != 'ingest';
CREATE INDEX runs_group ON runs(group_id);

-- The site of a warning, the same for every compiler that warns there:
-- file, function, -W option without its "=N" level, and the anchor (the
-- case label a fall-through reaches, else the warning line's text); see
-- ident_site_key().  gcc and clang warn about one missing break with
-- different messages on different lines; their identities share a site.
ALTER TABLE identities ADD COLUMN site TEXT;
CREATE INDEX identities_site ON identities(site);

-- Where a running run is, for /api/runs/{id}: JSON {"point", "points",
-- "compiler", "stage", "objects", "expected", "eta_s"} (objects compiled
-- at this point; expected from the previous build of the same config),
-- updated by kwarn run every few seconds, NULL once the run is finished.
ALTER TABLE runs ADD COLUMN progress TEXT;
