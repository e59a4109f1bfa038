-- kwarn schema, version 25: what the compiler cache gave each build.
-- Of the C compiles a build ran through kwarn's compiler cache, how many
-- came from the cache (cache_hits) and how many were compiled
-- (cache_misses); both NULL for a build without the cache and for an
-- ingested log.  A hit is still an object compiled at that point: its
-- state is "compiled" and its warnings are the compiler's own.
ALTER TABLE builds ADD COLUMN cache_hits INTEGER;
ALTER TABLE builds ADD COLUMN cache_misses INTEGER;
