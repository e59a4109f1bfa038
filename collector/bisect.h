/* SPDX-License-Identifier: MIT */
#ifndef KWARN_BISECT_H
#define KWARN_BISECT_H

#include <jansson.h>
#include <sqlite3.h>

/*
 * bisect.c: the commit that introduced a warning, found by rebuilding
 * only the warning's object, as `git bisect` would with a test that
 * compiles one file.
 */

/*
 * kwarn bisect --db FILE --warning ID [--repo PATH] [--good REF]
 * [--bad REF] [--dir DIR]: exit 0 with "introduced by SHA ("subject")",
 * 1 when skipped commits leave several candidates, 2 on error.
 */
int cmd_bisect(int argc, char **argv);

/*
 * For kwarn nightly --repo: ENTRY is a nightly report entry with "run",
 * "previous_run" and "new" (each warning with its "identity" and
 * "cause").  When the branch moved between the two runs, each new warning
 * whose cause is the code gets "introduced": {sha, subject,
 * object_builds}, or "introduced_candidates" when skipped commits leave
 * several, by bisecting the commits of REPO in between.  Steps go to
 * stderr.  Returns 0, or -1 on a database error (reported); a warning
 * that cannot be bisected is reported and left as it is.
 */
int bisect_nightly(json_t *entry, sqlite3 *db, const char *repo);

#endif
