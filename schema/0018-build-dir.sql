-- kwarn schema, version 18: where each build was made.
-- The build directory in kwarn's cache, recorded for every build kwarn
-- made (NULL for an ingested log).  builds.image named it only when a
-- kernel image was linked: a --targets build had none, so its reproducer
-- and its bisection could not find the .config it was built with.
ALTER TABLE builds ADD COLUMN build_dir TEXT;
