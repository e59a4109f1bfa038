/* SPDX-License-Identifier: MIT */
#ifndef KWARN_API_VIEWS_H
#define KWARN_API_VIEWS_H

/*
 * The endpoints the dashboard's views need beyond a single commit:
 * series over a whole run (api-series.c) and the difference of two
 * commits (api-diff.c), with the few helpers of api.c they share.
 */

#include "server.h"

/*
 * GET /api/runs/{id}/series?by=subsystem|file|option[&limit=N&offset=M]:
 * the run's live
 * warnings per commit for every MAINTAINERS entry (default), file or
 * -W option, in one answer: {"run", "by", "commits": [{"id",
 * "position", "sha", "subject", "built", "boot"}], "rows": [{"name",
 * "counts": [one per commit, null where it was not built]}]}, rows by
 * their count at the base, largest first, then by name; limit and
 * offset page them ("total_rows" says how many there are, "max" is the
 * largest count of any row, to draw them all on one scale).  404 for an
 * unknown run; by=subsystem on a tree without MAINTAINERS gives no rows
 * and "maintainers": false.
 */
int api_run_series(struct api_reply *reply, const struct api_req *r);

/*
 * GET /api/diff?from=REF&to=REF[&run=N]: what changed between two
 * commits (of one run, or of two); from_run=N or to_run=N instead names
 * the last built commit of a run (the tips of two nights): {"from",
 * "to" (the points), "counts": {"new", "fixed", "remaining",
 * "not_built"}, "new", "fixed", "remaining", "not_built" (lists of
 * warnings), "subsystems": [{"name", "new", "fixed", "remaining",
 * "not_built"}] (from TO's tree MAINTAINERS, entries with any)}.  A
 * warning live at FROM and not at TO is fixed only where TO compiled
 * its object; where it did not, it is not_built.  400 without both,
 * 404 when either names no commit.
 */
int api_diff(struct api_reply *reply, const struct api_req *r);

/*
 * GET /api/warnings/{id}/states[?run=N]: warning ID (fingerprint or id)
 * at every commit of run N (default: the newest run that saw it):
 * {"identity", "identity_id", "run", "states": [{"id", "position",
 * "sha", "subject", "state" (null: none), "include_chain"}],
 * "introduced", "fixed" ({"id", "sha", "position", "subject"} or null),
 * "include_chain"}.  404 for an unknown warning or run.
 */
int api_warning_states(struct api_reply *reply, const struct api_req *r);

/*
 * The parsed MAINTAINERS of TREE_ID into *out (NULL if the tree has
 * none), cached; callers never free it (api-warnings.c).
 */
int api_tree_maint(const struct maint **out, sqlite3 *db, long long tree_id);

#endif
