// SPDX-License-Identifier: MIT
/*
 * Reads by question, runs: the runs: their rows as the API shows them,
 * their facts for the nightly, their status and progress, the newest
 * one.  The contract of each function is in query-runs.h.
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

int query_run_facts(struct run_facts *f, sqlite3 *db, long long run)
{
	struct db_read q;
	sqlite3_stmt *st;

	memset(f, 0, sizeof(*f));
	if (db_read(&q, db,
		    "SELECT t.name, COALESCE(t.version, ''), b.compiler,"
		    " (SELECT verdict FROM boots WHERE build_id = b.id"
		    "  ORDER BY id DESC LIMIT 1), t.id, t.source, t.sha256,"
		    " t.pkg_version, c.sha FROM runs r"
		    " JOIN trees t ON t.id = r.tree_id"
		    " JOIN commits c ON c.run_id = r.id AND c.position = 0"
		    " LEFT JOIN builds b ON b.commit_id = c.id WHERE r.id = ?"
		    " ORDER BY b.id DESC LIMIT 1",
		    "i", run))
		return -1;
	st = q.st;
	if (db_next(&q)) {
		f->tree = xstrdup(db_col_text(st, 0));
		f->version = xstrdup(db_col_text(st, 1));
		f->compiler = xstrdup(db_col_text(st, 2));
		f->verdict = xstrdup(db_col_text(st, 3));
		f->tree_id = sqlite3_column_int64(st, 4);
		f->source = xstrdup(db_col_text(st, 5));
		f->sha256 = db_col_strdup(st, 6);
		f->pkg_version = db_col_strdup(st, 7);
		f->commit = xstrdup(db_col_text(st, 8));
	}
	if (db_done(&q, "cannot read run %lld", run))
		return -1;
	return q.rows ? 0 :
			error("cannot read run %lld: %s", run,
			      sqlite3_errstr(SQLITE_DONE));
}

void query_run_facts_release(struct run_facts *f)
{
	free(f->tree);
	free(f->version);
	free(f->compiler);
	free(f->verdict);
	free(f->source);
	free(f->sha256);
	free(f->pkg_version);
	free(f->commit);
	memset(f, 0, sizeof(*f));
}

int query_run_status(char **status_out, char **msg_out, sqlite3 *db,
		     long long run_id)
{
	struct db_read q;

	*status_out = *msg_out = NULL;
	if (db_read(&q, db, "SELECT status, message FROM runs WHERE id = ?",
		    "i", run_id))
		return -1;
	if (db_next(&q)) {
		*status_out = xstrdup(db_col_text(q.st, 0));
		*msg_out = db_col_strdup(q.st, 1);
	}
	if (db_done(&q, "cannot read run %lld", run_id))
		return -1;
	return q.rows ? 0 : error("no run %lld", run_id);
}

/* ---- runs and trees ---- */

#define RUN_COLS                                                           \
	"r.id, r.tree_id, t.name, t.version, r.kind, r.series, r.config,"  \
	" r.level, r.status, r.message, r.started_at, r.finished_at,"      \
	" (SELECT COUNT(*) FROM commits c WHERE c.run_id = r.id),"         \
	" (SELECT COUNT(*) FROM states s WHERE s.commit_id = (SELECT c.id" \
	"  FROM commits c WHERE c.run_id = r.id AND EXISTS (SELECT 1 FROM" \
	"  builds b WHERE b.commit_id = c.id) ORDER BY c.position DESC"    \
	"  LIMIT 1) AND s.state IN ('new', 'present')),"                   \
	" (SELECT b.compiler FROM commits c JOIN builds b"                 \
	"  ON b.commit_id = c.id WHERE c.run_id = r.id"                    \
	"  ORDER BY b.id LIMIT 1), r.compiler, r.group_id"                 \
	" FROM runs r JOIN trees t ON t.id = r.tree_id"

static json_t *run_json(sqlite3_stmt *st)
{
	json_t *o = json_object(), *t = json_object();

	json_object_set_new(o, "id", json_col_int(st, 0));
	json_set_cols(t, st, 1, "id:i name:s version:s");
	json_object_set_new(o, "tree", t);
	json_set_cols(o, st, 4,
		      "kind:s series:s config:s level:i status:s "
		      "message:s started_at:i finished_at:i commits:i "
		      "warnings:i compiler:s cc:s group:i");
	return o;
}

int query_run_total(long long *out, sqlite3 *db)
{
	struct db_read q;

	*out = 0;
	if (db_read(&q, db, "SELECT COUNT(*) FROM runs", ""))
		return -1;
	if (db_next(&q))
		*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot count runs");
}

int query_runs(json_t **out, sqlite3 *db, long long tree_id)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT " RUN_COLS " WHERE ?1 IS NULL OR r.tree_id = ?1"
		    " ORDER BY r.id DESC",
		    "n", tree_id))
		return -1;
	*out = json_array();
	while (db_next(&q))
		json_array_append_new(*out, run_json(q.st));
	return query_rows_done(out, &q, "cannot read runs");
}

/*
 * The nightly report of the row of ST (run_id, report) onto ARR, its new
 * warnings annotated with their triage.  Returns 0 or -1 (reported).
 */
static int nightly_report(json_t *arr, sqlite3_stmt *st, sqlite3 *db)
{
	long long run = sqlite3_column_int64(st, 0);
	json_t *rep = json_loads(db_col_text(st, 1), 0, NULL);

	if (!json_is_object(rep)) {
		json_decref(rep);
		return error("the nightly report of run %lld is not "
			     "a JSON object",
			     run);
	}
	/* the decisions of now, not of that night */
	if (json_is_array(json_object_get(rep, "new")) &&
	    query_triage_annotate(db, json_object_get(rep, "new"),
				  "identity")) {
		json_decref(rep);
		return -1;
	}
	json_array_append_new(arr, json_pack("{s:I, s:o}", "run",
					     (json_int_t)run, "report", rep));
	return 0;
}

int query_nightly_reports(json_t **out, sqlite3 *db)
{
	struct db_read q;
	int failed = 0;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT run_id, report FROM nightly_reports"
		    " ORDER BY run_id",
		    ""))
		return -1;
	*out = json_array();
	while (!failed && db_next(&q))
		failed = nightly_report(*out, q.st, db);
	if (query_rows_done(out, &q, "cannot read the nightly reports"))
		return -1;
	if (failed) {
		json_decref(*out);
		*out = NULL;
	}
	return failed;
}

int query_run(json_t **out, sqlite3 *db, long long id)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db, "SELECT " RUN_COLS " WHERE r.id = ?", "i", id))
		return -1;
	if (db_next(&q))
		*out = run_json(q.st);
	return db_done(&q, "cannot read run %lld", id);
}

int query_run_exists(int *out, sqlite3 *db, long long id)
{
	struct db_read q;

	*out = 0;
	if (db_read(&q, db, "SELECT 1 FROM runs WHERE id = ?", "i", id))
		return -1;
	*out = db_next(&q);
	return db_done(&q, "cannot read run %lld", id);
}

int query_run_commits(json_t **out, sqlite3 *db, long long id)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT c.id, c.position, c.sha, c.subject, c.patch,"
		    " c.apply_status, b.id, b.cache_hits, b.cache_misses"
		    " FROM commits c LEFT JOIN builds b ON b.id ="
		    " (SELECT MAX(id) FROM builds WHERE commit_id = c.id)"
		    " WHERE c.run_id = ? ORDER BY c.position",
		    "i", id))
		return -1;
	*out = query_rows(&q, "id:i position:i sha:s subject:s patch:s "
			      "apply_status:s build:i cache_hits:i "
			      "cache_misses:i");
	return query_rows_done(out, &q, "cannot read the commits of run %lld",
			       id);
}

int query_trees(json_t **out, sqlite3 *db)
{
	struct db_read q;
	int failed = 0;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT id, name, version, pkg_version, kind, source,"
		    " imported_at, maintainers IS NOT NULL FROM trees"
		    " ORDER BY name, id",
		    ""))
		return -1;
	*out = json_array();
	while (!failed && db_next(&q)) {
		json_t *t = json_object(), *runs = NULL;

		json_set_cols(t, q.st, 0,
			      "id:i name:s version:s pkg_version:s kind:s "
			      "source:s imported_at:i");
		json_object_set_new(t, "maintainers",
				    json_boolean(sqlite3_column_int(q.st, 7)));
		json_array_append_new(*out, t);
		if (query_runs(&runs, db, sqlite3_column_int64(q.st, 0)))
			failed = -1;
		else
			json_object_set_new(t, "runs", runs);
	}
	if (query_rows_done(out, &q, "cannot read trees"))
		return -1;
	if (failed) {
		json_decref(*out);
		*out = NULL;
	}
	return failed;
}

int query_tree_maintainers(char **out, size_t *len, sqlite3 *db,
			   long long tree_id)
{
	struct db_read q;

	*out = NULL;
	*len = 0;
	if (db_read(&q, db, "SELECT maintainers FROM trees WHERE id = ?", "i",
		    tree_id))
		return -1;
	if (db_next(&q) && sqlite3_column_type(q.st, 0) != SQLITE_NULL) {
		*len = (size_t)sqlite3_column_bytes(q.st, 0);
		*out = xmalloc(*len + 1);
		memcpy(*out, sqlite3_column_text(q.st, 0), *len);
		(*out)[*len] = '\0';
	}
	return db_done(&q, "cannot read tree %lld", tree_id);
}

int query_run_fingerprint(long long fp[QUERY_RUN_FP], sqlite3 *db, long long id)
{
	struct db_read q;

	if (db_read(&q, db,
		    "SELECT COUNT(*), TOTAL(length(c.subject)"
		    " + length(c.apply_status)), TOTAL((SELECT MAX(b.id)"
		    " FROM builds b WHERE b.commit_id = c.id)),"
		    " (SELECT COALESCE(MAX(bo.id), 0) FROM boots bo"
		    "  JOIN builds b ON b.id = bo.build_id JOIN commits k"
		    "  ON k.id = b.commit_id WHERE k.run_id = ?1),"
		    " (SELECT COALESCE(MAX(id), 0) FROM triage),"
		    " (SELECT COUNT(*) + TOTAL(CASE verdict WHEN"
		    "  'likely missing break' THEN identity_id END)"
		    "  FROM classifications)"
		    " FROM commits c WHERE c.run_id = ?1",
		    "i", id))
		return -1;
	/* an aggregate without GROUP BY: always one row */
	if (db_next(&q))
		for (int i = 0; i < QUERY_RUN_FP; i++)
			fp[i] = sqlite3_column_int64(q.st, i);
	return db_done(&q, "cannot read run %lld", id);
}

int query_last_run(long long *out, sqlite3 *db)
{
	return query_newest_run(out, db);
}

int query_newest_run(long long *out, sqlite3 *db)
{
	struct db_read q;

	*out = -1;
	/*
	 * a run kwarn made, not the one that collects ingested logs, unless
	 * that one is all the database holds
	 */
	if (db_read(&q, db,
		    "SELECT COALESCE(MAX(CASE WHEN kind <> 'ingest'"
		    " THEN id END), MAX(id)) FROM runs",
		    ""))
		return -1;
	if (db_next(&q) && sqlite3_column_type(q.st, 0) != SQLITE_NULL)
		*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot read runs");
}

int query_run_info(json_t **out, sqlite3 *db, long long run_id)
{
	return query_one_row(
		out, db,
		"SELECT r.id, r.kind, r.series, r.config, r.level,"
		" r.started_at, r.finished_at, t.name, t.version,"
		" t.kind, t.source, t.sha256, t.maintainers"
		" FROM runs r JOIN trees t ON t.id = r.tree_id"
		" WHERE r.id = ?",
		run_id,
		"run:i kind:s series:s config:s level:i started_at:i "
		"finished_at:i tree:s version:s tree_kind:s source:s "
		"sha256:s maintainers:s",
		"run");
}

int query_build_info(json_t **out, sqlite3 *db, long long build_id)
{
	return query_one_row(
		out, db,
		"SELECT b.compiler, b.config_name, b.config_hash,"
		" b.status, b.level, b.wall_ms, b.created_at,"
		" b.log_tail, b.image, b.flags, b.build_dir, r.compiler,"
		" b.arch, json_extract(r.params, '$.targets')"
		" FROM builds b JOIN commits c ON c.id = b.commit_id"
		" JOIN runs r ON r.id = c.run_id WHERE b.id = ?",
		build_id,
		"compiler:s config_name:s config_hash:s status:s "
		"level:i wall_ms:i created_at:i log_tail:s image:s "
		"flags:s build_dir:s toolchain:s arch:s targets:s",
		"build");
}

int query_run_progress(json_t **out, sqlite3 *db, long long id)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db, "SELECT progress FROM runs WHERE id = ?", "i", id))
		return -1;
	if (db_next(&q) && sqlite3_column_type(q.st, 0) != SQLITE_NULL)
		*out = json_loads(db_col_text(q.st, 0), 0, NULL);
	if (db_done(&q, "cannot read run %lld", id))
		return -1;
	if (!*out)
		*out = json_null();
	return 0;
}
