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
	sqlite3_stmt *st = NULL;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	if (db_prepare(&st, db,
		       "SELECT t.name, COALESCE(t.version, ''), b.compiler,"
		       " (SELECT verdict FROM boots WHERE build_id = b.id"
		       "  ORDER BY id DESC LIMIT 1), t.id, t.source, t.sha256,"
		       " t.pkg_version, c.sha FROM runs r"
		       " JOIN trees t ON t.id = r.tree_id"
		       " JOIN commits c ON c.run_id = r.id AND c.position = 0"
		       " LEFT JOIN builds b ON b.commit_id = c.id WHERE r.id = ?"
		       " ORDER BY b.id DESC LIMIT 1"))
		return -1;
	db_bind_int(st, 1, run, 0);
	if (sqlite3_step(st) == SQLITE_ROW) {
		f->tree = xstrdup(db_col_text(st, 0));
		f->version = xstrdup(db_col_text(st, 1));
		f->compiler = xstrdup(db_col_text(st, 2));
		f->verdict = xstrdup(db_col_text(st, 3));
		f->tree_id = sqlite3_column_int64(st, 4);
		f->source = xstrdup(db_col_text(st, 5));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			f->sha256 = xstrdup(db_col_text(st, 6));
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			f->pkg_version = xstrdup(db_col_text(st, 7));
		f->commit = xstrdup(db_col_text(st, 8));
		ret = 0;
	} else {
		error("cannot read run %lld: %s", run, sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return ret;
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
	sqlite3_stmt *st = NULL;
	int rc;

	*status_out = *msg_out = NULL;
	if (db_prepare(&st, db,
		       "SELECT status, message FROM runs WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*status_out = xstrdup(db_col_text(st, 0));
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			*msg_out = xstrdup(db_col_text(st, 1));
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return error("no run %lld", run_id);
	return error("cannot read run %lld: %s", run_id, sqlite3_errmsg(db));
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
	sqlite3_stmt *st = NULL;
	int rc;

	*out = 0;
	if (db_prepare(&st, db, "SELECT COUNT(*) FROM runs"))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("cannot count runs: %s", sqlite3_errmsg(db));
	return 0;
}

int query_runs(json_t **out, sqlite3 *db, long long tree_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT " RUN_COLS " WHERE ?1 IS NULL OR r.tree_id = ?1"
		       " ORDER BY r.id DESC"))
		return -1;
	db_bind_int(st, 1, tree_id, 1);
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(arr, run_json(st));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot read runs: %s", sqlite3_errmsg(db));
	}
	*out = arr;
	return 0;
}

int query_nightly_reports(json_t **out, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT run_id, report FROM nightly_reports"
		       " ORDER BY run_id"))
		return -1;
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long run = sqlite3_column_int64(st, 0);
		json_t *rep = json_loads(db_col_text(st, 1), 0, NULL);

		if (!json_is_object(rep)) {
			json_decref(rep);
			sqlite3_finalize(st);
			json_decref(arr);
			return error("the nightly report of run %lld is not "
				     "a JSON object",
				     run);
		}
		/* the decisions of now, not of that night */
		if (json_is_array(json_object_get(rep, "new")) &&
		    query_triage_annotate(db, json_object_get(rep, "new"),
					  "identity")) {
			json_decref(rep);
			sqlite3_finalize(st);
			json_decref(arr);
			return -1;
		}
		json_array_append_new(arr, json_pack("{s:I, s:o}", "run",
						     (json_int_t)run, "report",
						     rep));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot read the nightly reports: %s",
			     sqlite3_errmsg(db));
	}
	*out = arr;
	return 0;
}

int query_run(json_t **out, sqlite3 *db, long long id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db, "SELECT " RUN_COLS " WHERE r.id = ?"))
		return -1;
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = run_json(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot read run %lld: %s", id,
			     sqlite3_errmsg(db));
	return 0;
}

int query_run_exists(int *out, sqlite3 *db, long long id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = 0;
	if (db_prepare(&st, db, "SELECT 1 FROM runs WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot read run %lld: %s", id,
			     sqlite3_errmsg(db));
	*out = rc == SQLITE_ROW;
	return 0;
}

int query_run_commits(json_t **out, sqlite3 *db, long long id)
{
	sqlite3_stmt *st = NULL;
	json_t *commits;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT c.id, c.position, c.sha, c.subject, c.patch,"
		       " c.apply_status, b.id, b.cache_hits, b.cache_misses"
		       " FROM commits c LEFT JOIN builds b ON b.id ="
		       " (SELECT MAX(id) FROM builds WHERE commit_id = c.id)"
		       " WHERE c.run_id = ? ORDER BY c.position"))
		return -1;
	db_bind_int(st, 1, id, 0);
	commits = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *c = json_object();

		json_set_cols(c, st, 0,
			      "id:i position:i sha:s subject:s patch:s "
			      "apply_status:s build:i cache_hits:i "
			      "cache_misses:i");
		json_array_append_new(commits, c);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(commits);
		return error("cannot read the commits of run %lld: %s", id,
			     sqlite3_errmsg(db));
	}
	*out = commits;
	return 0;
}

int query_trees(json_t **out, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc, ret = -1;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT id, name, version, pkg_version, kind, source,"
		       " imported_at, maintainers IS NOT NULL FROM trees"
		       " ORDER BY name, id"))
		return -1;
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *t = json_object(), *runs = NULL;

		json_set_cols(t, st, 0,
			      "id:i name:s version:s pkg_version:s kind:s "
			      "source:s imported_at:i");
		json_object_set_new(t, "maintainers",
				    json_boolean(sqlite3_column_int(st, 7)));
		json_array_append_new(arr, t);
		if (query_runs(&runs, db, sqlite3_column_int64(st, 0)))
			goto out;
		json_object_set_new(t, "runs", runs);
	}
	if (rc != SQLITE_DONE) {
		error("cannot read trees: %s", sqlite3_errmsg(db));
		goto out;
	}
	*out = arr;
	arr = NULL;
	ret = 0;
out:
	sqlite3_finalize(st);
	json_decref(arr);
	return ret;
}

int query_tree_maintainers(char **out, size_t *len, sqlite3 *db,
			   long long tree_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	*len = 0;
	if (db_prepare(&st, db, "SELECT maintainers FROM trees WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, tree_id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*len = (size_t)sqlite3_column_bytes(st, 0);
		*out = xmalloc(*len + 1);
		memcpy(*out, sqlite3_column_text(st, 0), *len);
		(*out)[*len] = '\0';
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot read tree %lld: %s", tree_id,
			     sqlite3_errmsg(db));
	return 0;
}

int query_run_fingerprint(long long fp[QUERY_RUN_FP], sqlite3 *db, long long id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (db_prepare(&st, db,
		       "SELECT COUNT(*), TOTAL(length(c.subject)"
		       " + length(c.apply_status)), TOTAL((SELECT MAX(b.id)"
		       " FROM builds b WHERE b.commit_id = c.id)),"
		       " (SELECT COALESCE(MAX(bo.id), 0) FROM boots bo"
		       "  JOIN builds b ON b.id = bo.build_id JOIN commits k"
		       "  ON k.id = b.commit_id WHERE k.run_id = ?1),"
		       " (SELECT COALESCE(MAX(id), 0) FROM triage)"
		       " FROM commits c WHERE c.run_id = ?1"))
		return -1;
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	for (int i = 0; rc == SQLITE_ROW && i < QUERY_RUN_FP; i++)
		fp[i] = sqlite3_column_int64(st, i);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("cannot read run %lld: %s", id,
			     sqlite3_errmsg(db));
	return 0;
}

int query_last_run(long long *out, sqlite3 *db)
{
	return query_newest_run(out, db);
}

int query_newest_run(long long *out, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	/*
	 * a run kwarn made, not the one that collects ingested logs, unless
	 * that one is all the database holds
	 */
	if (db_prepare(&st, db,
		       "SELECT COALESCE(MAX(CASE WHEN kind <> 'ingest'"
		       " THEN id END), MAX(id)) FROM runs"))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("cannot read runs: %s", sqlite3_errmsg(db));
	return 0;
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
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db, "SELECT progress FROM runs WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = json_loads(db_col_text(st, 0), 0, NULL);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot read run %lld: %s", id,
			     sqlite3_errmsg(db));
	if (!*out)
		*out = json_null();
	return 0;
}
