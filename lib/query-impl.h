/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_IMPL_H
#define KWARN_QUERY_IMPL_H

/*
 * Private to lib/query-*.c: the SQL fragments and helpers that more than
 * one of them uses.  Nothing outside lib/query-*.c includes this.
 */

#include <jansson.h>
#include <sqlite3.h>

#include "db.h"

/*
 * The schema's views (schema/0010-views.sql) say the rules once:
 * live_states (a state new or present), commit_builds (a commit's newest
 * build), run_tips (a run's last built commit).  A statement reads them
 * wherever SQLite flattens them or pushes its key into them: live_states
 * is a plain filter, and "commit_builds WHERE commit_id = ?" searches the
 * builds_commit index.  Three rules are spelled out inline instead, for
 * the planner, each measured with EXPLAIN QUERY PLAN on the bench
 * database (1,000 commits):
 * - "commit C has a build" is EXISTS (SELECT 1 FROM builds b WHERE
 *   b.commit_id = C): one index probe, where a join to commit_builds
 *   materializes it from every build of the database first;
 * - a run's first or last built commit is ORDER BY position with that
 *   EXISTS and LIMIT 1: run_tips joined by run_id is materialized whole
 *   (every commit of every run) and then scanned without an index;
 * - point_counts and point_files carry a state column of their own (the
 *   collector's counts per point, schema 19 and 20): "p.state IN ('new',
 *   'present')" is live_states' rule on that table, which no view covers.
 */

/*
 * The triage state of identity row I (an SQL alias): its newest record's,
 * 'open' when it has none.
 */
#define TRIAGE_STATE_OF(i)                               \
	"COALESCE((SELECT t.state FROM triage_current t" \
	" WHERE t.fingerprint = " i ".fingerprint), 'open')"

/*
 * The runs of RUN's campaign: RUN and the runs of its group (kwarn run
 * with several --cc), as "r" in a FROM clause, with r0 the run asked.
 */
#define GROUP_RUNS                                                          \
	" runs r0 JOIN runs r ON (r.id = r0.id OR (r0.group_id IS NOT NULL" \
	" AND r.group_id = r0.group_id))"

/*
 * The tool of stored kind K (an SQL expression), as diag_tool_of() names
 * it: "compiler" for warning, error and fatal error, else the kind.
 */
#define KIND_TOOL(k)                                                   \
	"(CASE WHEN " k " IN ('warning', 'error', 'fatal error') THEN" \
	" 'compiler' ELSE " k " END)"

/* Is S a decimal number that fits a commits.id? */
int query_is_id(const char *s);

/*
 * {"ok": N, "failed": N, "failed_names": [...]} from columns AT.. of ST,
 * or null for a boot without modules (not --full, or no boot).
 */
json_t *query_boot_modules_json(sqlite3_stmt *st, int at);

/*
 * Every row of Q (db_read()) through SPEC (json_set_cols()) into a new
 * array, and query_rows_done(): db_done(Q, FMT, ...), which on a failed
 * read also drops *OUT and sets it NULL.  So a read of rows is
 *
 *	*out = query_rows(&q, "id:i name:s");
 *	return query_rows_done(out, &q, "cannot read ...", ...);
 */
json_t *query_rows(struct db_read *q, const char *spec);
int query_rows_done(json_t **out, struct db_read *q, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One row of SQL (bound to ID) through SPEC into a new *out. */
int query_one_row(json_t **out, sqlite3 *db, const char *sql, long long id,
		  const char *spec, const char *what);

/* Does compiler NAME belong to what WANT names ("clang" has clang-16)? */
int query_compiler_matches(const char *name, const char *want);

#endif /* KWARN_QUERY_IMPL_H */
