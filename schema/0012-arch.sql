-- kwarn schema, version 12: the architecture as a dimension of every run.
-- `kwarn run --arch x86_64 --arch arm64` makes one run per (compiler,
-- architecture) over the same points, in one group (0011's group_id); arch
-- is kwarn's name for it (lib/arch.c: "x86_64", "arm64").  Every build
-- made before this version was an x86_64 one; ingested logs say nothing
-- about their architecture and keep NULL.
ALTER TABLE runs ADD COLUMN arch TEXT;
UPDATE runs SET arch = 'x86_64' WHERE kind != 'ingest';
ALTER TABLE builds ADD COLUMN arch TEXT;
UPDATE builds SET arch = 'x86_64' WHERE status != 'ingested';
