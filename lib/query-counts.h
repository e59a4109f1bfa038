/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_COUNTS_H
#define KWARN_QUERY_COUNTS_H

/*
 * Reads by question, counts and burn-down: how many warnings a run has,
 * point by point and in total: the counts, the burn-down, the new
 * warnings at the tip, the counts per compiler of a group.  Each
 * function takes an open connection (read-only is enough) and reports
 * its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/*
 * The counts at every commit of run RUN_ID, as a new JSON object keyed by
 * the commit's id in decimal: {"warnings", "new", "fixed", "not_built",
 * "by_option": {OPTION: N}, "by_tool": {TOOL: N}, "by_tool_option":
 * {TOOL: {OPTION: N}}, "by_triage": {STATE: N}}.  warnings counts the
 * live states (new and present, one per identity); by_option splits
 * them by -W option, or by kind for a warning without one; by_tool by
 * the tool of their kind (diag_tools[] in parse.h: "compiler",
 * "kernel-doc", "sparse"...), by_tool_option by both, an option's count
 * split among the tools that printed it; by_triage by
 * the triage of their identity, every state of triage_states[] present,
 * "open" the ones never triaged or reopened.  Commits without a build
 * count zero: the caller knows which were built.  Returns 0 or -1
 * (reported).
 */
int query_run_counts(json_t **out, sqlite3 *db, long long run_id);

/*
 * One entry per commit of run RUN_ID in series order, as a new array in
 * *out: commit, position, subject, author, patch, apply_status
 * (apply_error), build, status, the counts of query_run_counts(), the
 * build's wall_ms, objects_compiled, build_dir, cache_hits and
 * cache_misses (null without the compiler cache), the boot's verdict,
 * boot_ms, boot_reason and modules, and warnings_list: the live and the
 * fixed warnings of that point (query_point_warnings()).  Returns 0 or -1.
 */
int query_run_points(json_t **out, sqlite3 *db, long long run_id);

/* The number of live warnings at the base of RUN into *out.  0 or -1. */
int query_base_live_count(long long *out, sqlite3 *db, long long run);

/*
 * The warnings live at the last built point of run RUN_ID that the first
 * point did not have, less those triaged as no bug (the triage_settled
 * view), as a new array of {file, line, function, message} (what
 * --fail-on-new fails on).  Returns 0 or -1 (reported).
 */
int query_tip_new(json_t **out, sqlite3 *db, long long run_id);

/*
 * The burn-down of run RUN_ID, one entry per commit in series order, as
 * a new array in *out: commit ({id, sha, position, run}, as every
 * endpoint names a commit), id, position, subject, patch,
 * apply_status, build, the counts of query_run_counts() with
 * missing_break (the live warnings kwarn classify found a likely missing
 * break; all null for a commit without a build) and boot (the newest
 * verdict, or null).
 * Returns 0 or -1 (reported).
 */
int query_burndown(json_t **out, sqlite3 *db, long long run_id);

/*
 * A new object {"POSITION": {"COMPILER": live warnings, or null when not
 * built}} over RUN_ID's group (a group is the runs of one kwarn run with
 * several --cc, query-commits.h); a run for another arch than x86_64 is
 * "COMPILER/ARCH" ("gcc/arm64").  Returns 0 or -1 (reported).
 */
int query_group_counts(json_t **out, sqlite3 *db, long long run_id);

#endif /* KWARN_QUERY_COUNTS_H */
