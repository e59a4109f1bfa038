// SPDX-License-Identifier: MIT
/*
 * Reads by question, counts and burn-down: how many warnings a run has,
 * point by point and in total: the counts, the burn-down, the new
 * warnings at the tip, the counts per compiler of a group.  The
 * contract of each function is in query-counts.h.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "ident.h"
#include "json.h"
#include "query.h"
#include "query-impl.h"
#include "repro.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

/* Add N to the integer at KEY of object O. */
static void add_count(json_t *o, const char *key, long long n)
{
	json_object_set_new(
		o, key,
		json_integer(json_integer_value(json_object_get(o, key)) + n));
}

static json_t *zero_counts(void)
{
	json_t *by_triage = json_object();

	for (size_t i = 0; triage_states[i]; i++)
		json_object_set_new(by_triage, triage_states[i],
				    json_integer(0));
	return json_pack("{s:I, s:I, s:I, s:I, s:{}, s:{}, s:{}, s:o}",
			 "warnings", (json_int_t)0, "new", (json_int_t)0,
			 "fixed", (json_int_t)0, "not_built", (json_int_t)0,
			 "by_option", "by_tool", "by_tool_option", "by_triage",
			 by_triage);
}

/* Collect R's fingerprint and state when it is triaged other than open. */
static int triaged_one(const struct triage_rec *r, void *ctx)
{
	if (strcmp(r->state, "open"))
		json_array_append_new(ctx, json_pack("[s, s]", r->fingerprint,
						     r->state));
	return 0;
}

/*
 * by_triage of every commit in ALL (query_run_counts()): its live
 * warnings by the state of their identity's triage, "open" the rest.
 * Read from the triage table outward, each identity triaged other than
 * open to its live states in run RUN_ID: a few rows per decision, however
 * many warnings the run has.  Returns 0 or -1 (reported).
 */
static int triage_counts(json_t *all, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *triaged = json_array(), *t, *cur, *v;
	const char *key, *state;
	size_t i;
	int rc = SQLITE_DONE, ret = -1;

	if (query_triage_each(db, 1, triaged_one, triaged) ||
	    db_prepare(&st, db,
		       "SELECT s.commit_id, COUNT(*) FROM identities i"
		       " JOIN live_states s ON s.identity_id = i.id"
		       " JOIN commits c ON c.id = s.commit_id"
		       " WHERE i.fp_key = ?1 AND i.fingerprint = ?2"
		       " AND c.run_id = ?3 GROUP BY s.commit_id"))
		goto out;
	json_array_foreach(triaged, i, t) {
		const char *fp = json_string_value(json_array_get(t, 0));
		long long fp_key;
		char k[24];

		state = json_string_value(json_array_get(t, 1));
		if (ident_fingerprint_key(&fp_key, fp))
			continue;
		db_bind_int(st, 1, fp_key, 0);
		db_bind_text(st, 2, fp);
		db_bind_int(st, 3, run_id, 0);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			snprintf(k, sizeof(k), "%lld",
				 sqlite3_column_int64(st, 0));
			cur = json_object_get(all, k);
			if (cur)
				add_count(json_object_get(cur, "by_triage"),
					  state, sqlite3_column_int64(st, 1));
		}
		sqlite3_reset(st);
		if (rc != SQLITE_DONE) {
			error("cannot count the triaged warnings of run %lld:"
			      " %s",
			      run_id, sqlite3_errmsg(db));
			goto out;
		}
	}
	json_object_foreach(all, key, cur) {
		json_t *bt = json_object_get(cur, "by_triage");
		long long open =
			json_integer_value(json_object_get(cur, "warnings"));

		json_object_foreach(bt, state, v) {
			if (strcmp(state, "open"))
				open -= json_integer_value(v);
		}
		json_object_set_new(bt, "open", json_integer(open));
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	json_decref(triaged);
	return ret;
}

int query_run_counts(json_t **out, sqlite3 *db, long long run_id)
{
	struct db_read q;
	json_t *all = json_object(), *cur = NULL;
	long long cur_id = -1;
	const char *k;
	char key[24];

	*out = NULL;
	if (db_read(&q, db, "SELECT id FROM commits WHERE run_id = ?", "i",
		    run_id))
		goto fail;
	while (db_next(&q)) {
		snprintf(key, sizeof(key), "%lld",
			 sqlite3_column_int64(q.st, 0));
		json_object_set_new(all, key, zero_counts());
	}
	if (db_done(&q, "cannot count the warnings of run %lld", run_id))
		goto fail;
	/*
	 * The counts the collector wrote with each point's states
	 * (point_counts): a few rows a commit, not a million states.
	 */
	if (db_read(&q, db,
		    "SELECT p.commit_id, p.state, p.option, p.n,"
		    " " KIND_TOOL(
			    "p.kind") " FROM commits c JOIN point_counts p"
				      " ON p.commit_id = c.id WHERE c.run_id = ?"
				      " ORDER BY p.commit_id, p.option",
		    "i", run_id))
		goto fail;
	while (db_next(&q)) {
		long long cid = sqlite3_column_int64(q.st, 0);
		const char *state = db_col_text(q.st, 1);
		const char *opt = db_col_text(q.st, 2);
		const char *tool = db_col_text(q.st, 4);
		long long n = sqlite3_column_int64(q.st, 3);
		json_t *bto;

		if (cid != cur_id) {
			snprintf(key, sizeof(key), "%lld", cid);
			cur = json_object_get(all, key);
			cur_id = cid;
		}
		assert(cur);
		add_count(cur, state, n);
		if (!strcmp(state, "new") || !strcmp(state, "present")) {
			add_count(cur, "warnings", n);
			add_count(json_object_get(cur, "by_option"), opt, n);
			add_count(json_object_get(cur, "by_tool"), tool, n);
			/* one series per (tool, option) */
			bto = json_object_get(
				json_object_get(cur, "by_tool_option"), tool);
			if (!bto) {
				bto = json_object();
				json_object_set_new(
					json_object_get(cur, "by_tool_option"),
					tool, bto);
			}
			add_count(bto, opt, n);
		}
	}
	if (db_done(&q, "cannot count the warnings of run %lld", run_id) ||
	    triage_counts(all, db, run_id))
		goto fail;
	json_object_foreach(all, k, cur)
		json_object_del(cur, "present");
	*out = all;
	return 0;
fail:
	json_decref(all);
	return -1;
}

/*
 * The build and boot of a point's build, looked up for each point with
 * BT prepared once (query_run_points()): bound to BUILD_ID, stepped, its
 * row set in E, and reset for the next point.
 */
#define POINT_BUILD_SQL                                            \
	"SELECT b.status, b.wall_ms, b.objects_compiled,"          \
	" replace(replace(b.image, '/arch/x86/boot/bzImage', '')," \
	"  '/arch/arm64/boot/Image', ''),"                         \
	" bo.verdict, bo.duration_ms, bo.reason,"                  \
	" (SELECT COUNT(*) FROM boot_modules m"                    \
	"  WHERE m.boot_id = bo.id AND m.status = 'ok'),"          \
	" (SELECT COUNT(*) FROM boot_modules m"                    \
	"  WHERE m.boot_id = bo.id AND m.status <> 'ok'),"         \
	" (SELECT json_group_array(m.name) FROM boot_modules m"    \
	"  WHERE m.boot_id = bo.id AND m.status <> 'ok'),"         \
	" b.cache_hits, b.cache_misses"                            \
	" FROM builds b LEFT JOIN boots bo ON bo.id ="             \
	" (SELECT MAX(id) FROM boots WHERE build_id = b.id)"       \
	" WHERE b.id = ?"

static void point_build(json_t *e, sqlite3_stmt *bt, long long build_id)
{
	db_bind_int(bt, 1, build_id, 0);
	if (sqlite3_step(bt) == SQLITE_ROW) {
		json_object_set_new(e, "status",
				    json_string(db_col_text(bt, 0)));
		json_object_set_new(e, "wall_ms",
				    json_integer(sqlite3_column_int64(bt, 1)));
		json_object_set_new(e, "objects_compiled",
				    json_integer(sqlite3_column_int64(bt, 2)));
		if (sqlite3_column_type(bt, 3) != SQLITE_NULL)
			json_object_set_new(e, "build_dir",
					    json_string(db_col_text(bt, 3)));
		json_object_set_new(e, "verdict",
				    sqlite3_column_type(bt, 4) == SQLITE_NULL ?
					    json_null() :
					    json_string(db_col_text(bt, 4)));
		json_object_set_new(
			e, "boot_ms",
			sqlite3_column_type(bt, 5) == SQLITE_NULL ?
				json_null() :
				json_integer(sqlite3_column_int64(bt, 5)));
		json_object_set_new(e, "boot_reason",
				    sqlite3_column_type(bt, 6) == SQLITE_NULL ?
					    json_null() :
					    json_string(db_col_text(bt, 6)));
		json_object_set_new(e, "modules",
				    query_boot_modules_json(bt, 7));
		json_set_cols(e, bt, 10, "cache_hits:i cache_misses:i");
	}
	sqlite3_reset(bt);
}

/*
 * The warnings of commit CID into E's "warnings_list": the live ones,
 * and the fixed: what each commit fixed.  Returns 0 or -1 (reported).
 */
static int point_warnings(json_t *e, sqlite3 *db, long long cid)
{
	struct warn_filter f = { 0 };
	struct query_point pt = { 0 };
	json_t *warnings, *got = NULL;

	if (query_point(&pt, db, cid) ||
	    query_point_warnings(&got, db, &pt, &f)) {
		query_point_release(&pt);
		return -1;
	}
	warnings = json_incref(json_object_get(got, "warnings"));
	json_decref(got);
	f.state = "fixed";
	if (query_point_warnings(&got, db, &pt, &f)) {
		query_point_release(&pt);
		json_decref(warnings);
		return -1;
	}
	json_array_extend(warnings, json_object_get(got, "warnings"));
	json_decref(got);
	query_point_release(&pt);
	json_object_set_new(e, "warnings_list", warnings);
	return 0;
}

/*
 * The point of the row of ST (query_run_points()) onto ARR: its counts
 * from COUNTS, its commit, its build through BT, its warnings.  Returns
 * 0 or -1 (reported).
 */
static int run_point(json_t *arr, sqlite3_stmt *st, sqlite3_stmt *bt,
		     sqlite3 *db, const json_t *counts)
{
	long long cid = sqlite3_column_int64(st, 0);
	char key[24];
	json_t *e;

	snprintf(key, sizeof(key), "%lld", cid);
	e = json_deep_copy(json_object_get(counts, key));
	json_object_set_new(e, "commit", json_string(db_col_text(st, 1)));
	json_object_set_new(e, "position",
			    json_integer(sqlite3_column_int(st, 2)));
	json_object_set_new(e, "subject", json_string(db_col_text(st, 3)));
	json_object_set_new(e, "author", json_string(db_col_text(st, 4)));
	json_object_set_new(e, "patch", json_string(db_col_text(st, 5)));
	json_object_set_new(e, "apply_status", json_string(db_col_text(st, 6)));
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		json_object_set_new(e, "apply_error",
				    json_string(db_col_text(st, 7)));
	if (sqlite3_column_type(st, 8) == SQLITE_NULL) {
		json_object_set_new(e, "build", json_null());
		json_object_set_new(e, "status", json_string("not measured"));
		json_object_set_new(e, "verdict", json_null());
		json_object_set_new(e, "warnings_list", json_array());
	} else {
		json_object_set_new(e, "build", json_col_int(st, 8));
		point_build(e, bt, sqlite3_column_int64(st, 8));
		if (point_warnings(e, db, cid)) {
			json_decref(e);
			return -1;
		}
	}
	json_array_append_new(arr, e);
	return 0;
}

int query_run_points(json_t **out, sqlite3 *db, long long run_id)
{
	struct db_read q;
	sqlite3_stmt *bt = NULL;
	json_t *counts = NULL;
	int failed = 0;

	*out = NULL;
	if (query_run_counts(&counts, db, run_id) ||
	    db_prepare(&bt, db, POINT_BUILD_SQL) ||
	    db_read(&q, db,
		    "SELECT c.id, c.sha, c.position, c.subject, c.author,"
		    " c.patch, c.apply_status, c.apply_error,"
		    " (SELECT b.id FROM builds b WHERE b.commit_id = c.id"
		    "  ORDER BY b.id DESC LIMIT 1)"
		    " FROM commits c WHERE c.run_id = ? ORDER BY c.position",
		    "i", run_id)) {
		sqlite3_finalize(bt);
		json_decref(counts);
		return -1;
	}
	*out = json_array();
	while (!failed && db_next(&q))
		failed = run_point(*out, q.st, bt, db, counts);
	sqlite3_finalize(bt);
	json_decref(counts);
	if (query_rows_done(out, &q, "cannot read the commits of run %lld",
			    run_id))
		return -1;
	if (failed) {
		json_decref(*out);
		*out = NULL;
	}
	return failed;
}

int query_base_live_count(long long *out, sqlite3 *db, long long run)
{
	struct db_read q;

	*out = 0;
	if (db_read(&q, db,
		    "SELECT COUNT(*) FROM live_states s JOIN commits c"
		    " ON c.id = s.commit_id WHERE c.run_id = ?"
		    " AND c.position = 0",
		    "i", run))
		return -1;
	if (db_next(&q))
		*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot count the warnings of run %lld", run);
}

int query_tip_new(json_t **out, sqlite3 *db, long long run_id)
{
	struct db_read q;

	*out = NULL;
	/* live at the last built point, not live at the first */
	if (db_read(&q, db,
		    "WITH pts AS (SELECT c.id, c.position FROM commits c"
		    "  WHERE c.run_id = ?1 AND EXISTS (SELECT 1 FROM builds b"
		    "  WHERE b.commit_id = c.id)),"
		    " base AS (SELECT id FROM pts ORDER BY position LIMIT 1)"
		    " SELECT i.file, d.line, i.function, i.message"
		    " FROM live_states s JOIN identities i"
		    " ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " WHERE s.commit_id = (SELECT commit_id FROM run_tips"
		    "  WHERE run_id = ?1)"
		    " AND NOT EXISTS (SELECT 1 FROM live_states b"
		    "  WHERE b.commit_id = (SELECT id FROM base)"
		    "  AND b.identity_id = s.identity_id)"
		    " AND NOT EXISTS (SELECT 1 FROM triage_settled t"
		    "  WHERE t.fingerprint = i.fingerprint)",
		    "i", run_id))
		return -1;
	/* "" and 0 for NULL, not null: not json_set_cols() */
	*out = json_array();
	while (db_next(&q))
		json_array_append_new(
			*out, json_pack("{s:o, s:I, s:o, s:o}", "file",
					jstr(db_col_text(q.st, 0)), "line",
					(json_int_t)sqlite3_column_int(q.st, 1),
					"function", jstr(db_col_text(q.st, 2)),
					"message", jstr(db_col_text(q.st, 3))));
	return query_rows_done(out, &q, "cannot compare the tip of run %lld",
			       run_id);
}

/*
 * The burn-down row of the row of ST (query_burndown()) of run RUN_ID:
 * the commit, and its counts from COUNTS when it was built.
 */
static json_t *burndown_row(sqlite3_stmt *st, const json_t *counts,
			    long long run_id)
{
	static const char *const keys[] = { "warnings",	      "new",
					    "fixed",	      "not_built",
					    "by_option",      "by_tool",
					    "by_tool_option", "by_triage",
					    "missing_break" };
	json_t *c = json_object(), *n;
	int built = sqlite3_column_type(st, 6) != SQLITE_NULL;
	char key[24];

	/* the shape of the "commit" of every other answer (api_point_json()) */
	json_object_set_new(
		c, "commit",
		json_pack("{s:o, s:o, s:o, s:I}", "id", json_col_int(st, 0),
			  "sha", json_col_str(st, 2), "position",
			  json_col_int(st, 1), "run", (json_int_t)run_id));
	json_object_set_new(c, "id", json_col_int(st, 0));
	json_object_set_new(c, "position", json_col_int(st, 1));
	json_set_cols(c, st, 3, "subject:s patch:s apply_status:s build:i");
	snprintf(key, sizeof(key), "%lld", sqlite3_column_int64(st, 0));
	n = json_object_get(counts, key);
	/* a commit without a build has no counts, not zero */
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		json_object_set_new(
			c, keys[k],
			built && n ? json_incref(json_object_get(n, keys[k])) :
			!strncmp(keys[k], "by_", 3) ? json_object() :
						      json_null());
	json_object_set_new(c, "boot", json_col_str(st, 7));
	return c;
}

/*
 * missing_break of every commit in COUNTS (query_run_counts()): its live
 * warnings that kwarn classify found a likely missing break, read from
 * those verdicts outward (a few, however many warnings the run has).
 * Returns 0 or -1 (reported).
 */
static int missing_break_counts(json_t *counts, sqlite3 *db, long long run_id)
{
	struct db_read q;
	const char *k;
	json_t *cur;
	char key[24];

	json_object_foreach(counts, k, cur)
		json_object_set_new(cur, "missing_break", json_integer(0));
	if (db_read(&q, db,
		    "SELECT s.commit_id, COUNT(*) FROM classifications cl"
		    " JOIN live_states s ON s.identity_id = cl.identity_id"
		    " JOIN commits c ON c.id = s.commit_id"
		    " WHERE cl.verdict = 'likely missing break'"
		    " AND c.run_id = ? GROUP BY s.commit_id",
		    "i", run_id))
		return -1;
	while (db_next(&q)) {
		snprintf(key, sizeof(key), "%lld",
			 sqlite3_column_int64(q.st, 0));
		cur = json_object_get(counts, key);
		if (cur)
			json_object_set_new(
				cur, "missing_break",
				json_integer(sqlite3_column_int64(q.st, 1)));
	}
	return db_done(&q, "cannot count the likely missing breaks of run %lld",
		       run_id);
}

int query_burndown(json_t **out, sqlite3 *db, long long run_id)
{
	struct db_read q;
	json_t *counts = NULL;

	*out = NULL;
	if (query_run_counts(&counts, db, run_id))
		return -1;
	if (missing_break_counts(counts, db, run_id)) {
		json_decref(counts);
		return -1;
	}
	if (db_read(&q, db,
		    "SELECT c.id, c.position, c.sha, c.subject, c.patch,"
		    " c.apply_status, x.bid, (SELECT bo.verdict FROM boots bo"
		    "  WHERE bo.build_id = x.bid ORDER BY bo.id DESC LIMIT 1)"
		    " FROM commits c, (SELECT cc.id AS cid, (SELECT MAX(b.id)"
		    "  FROM builds b WHERE b.commit_id = cc.id) AS bid"
		    "  FROM commits cc WHERE cc.run_id = ?1) x"
		    " WHERE c.id = x.cid ORDER BY c.position",
		    "i", run_id)) {
		json_decref(counts);
		return -1;
	}
	*out = json_array();
	while (db_next(&q))
		json_array_append_new(*out, burndown_row(q.st, counts, run_id));
	json_decref(counts);
	return query_rows_done(out, &q, "cannot read the commits of run %lld",
			       run_id);
}

int query_group_counts(json_t **out, sqlite3 *db, long long run_id)
{
	struct db_read q;
	char key[24];

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT c.position, COALESCE(r.compiler, 'gcc')"
		    "  || CASE WHEN COALESCE(r.arch, 'x86_64') = 'x86_64'"
		    "  THEN '' ELSE '/' || r.arch END,"
		    " EXISTS (SELECT 1 FROM builds b"
		    "  WHERE b.commit_id = c.id),"
		    " (SELECT TOTAL(p.n) FROM point_counts p"
		    "  WHERE p.commit_id = c.id"
		    "  AND p.state IN ('new', 'present'))"
		    " FROM" GROUP_RUNS " JOIN commits c ON c.run_id = r.id"
		    " WHERE r0.id = ? ORDER BY c.position, r.id",
		    "i", run_id))
		return -1;
	*out = json_object();
	while (db_next(&q)) {
		json_t *pos;

		snprintf(key, sizeof(key), "%lld",
			 sqlite3_column_int64(q.st, 0));
		pos = json_object_get(*out, key);
		if (!pos) {
			pos = json_object();
			json_object_set_new(*out, key, pos);
		}
		json_object_set_new(
			pos, db_col_text(q.st, 1),
			sqlite3_column_int(q.st, 2) ?
				json_integer(sqlite3_column_int64(q.st, 3)) :
				json_null());
	}
	return query_rows_done(out, &q, "cannot count the run's compilers");
}
