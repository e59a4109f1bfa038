-- kwarn schema, version 4: the modules each boot loaded (kwarn run --full,
-- kwarn boot --modules).  The init tries every module of the build and
-- says, one line each, which loaded; a failed one makes the boot "fail".
CREATE TABLE boot_modules (
	boot_id INTEGER NOT NULL REFERENCES boots(id) ON DELETE CASCADE,
	name TEXT NOT NULL,		-- file name without .ko
	status TEXT NOT NULL CHECK (status IN ('ok', 'fail', 'unfinished')),
	message TEXT,			-- modprobe's error when it failed
	PRIMARY KEY (boot_id, name)
) STRICT;
