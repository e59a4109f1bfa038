-- kwarn schema, version 16: composite objects.
-- The object a compiled object is linked into, as kbuild's NAME.mod files
-- list it (drivers/firewire/core-card.o goes into firewire-core.o), or
-- NULL when it is linked into nothing else or the build directory was not
-- read.  Set by `kwarn ingest --build-dir DIR`.
ALTER TABLE objects ADD COLUMN composite TEXT;
