// SPDX-License-Identifier: MIT
/*
 * Reads by question, commits, builds and boots: which commit a
 * reference names, which build a commit has, the trees and boots behind
 * them, the compilers of a group, and a run's series of commits.  The
 * contract of each function is in query-commits.h.
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

int query_resolve_commit(long long *out, sqlite3 *db, const char *ref,
			 long long run_id)
{
	sqlite3_stmt *st = NULL;
	int rc, id = query_is_id(ref);

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT id FROM commits WHERE (?2 IS NULL OR"
		       " run_id = ?2) AND (sha = ?1 OR (?3 AND id = ?4)"
		       " OR (length(?1) >= 7 AND substr(sha, 1,"
		       " length(?1)) = ?1)) ORDER BY CASE WHEN sha = ?1"
		       " THEN 0 WHEN ?3 AND id = ?4 THEN 1 ELSE 2 END,"
		       " id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, ref);
	db_bind_int(st, 2, run_id, 1);
	sqlite3_bind_int(st, 3, id);
	sqlite3_bind_int64(st, 4, id ? strtoll(ref, NULL, 10) : -1);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot look up commit '%s': %s", ref,
			     sqlite3_errmsg(db));
	return 0;
}

/*
 * The first (LAST: the last) commit of run RUN_ID, or of the newest run
 * when RUN_ID < 0, that was built; -1 if none was.
 */
static int run_built_end(long long *out, sqlite3 *db, long long run_id,
			 int last)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT c.id FROM commits c WHERE c.run_id ="
		       " COALESCE(?1, (SELECT MAX(id) FROM runs))"
		       " AND EXISTS (SELECT 1 FROM builds b"
		       "  WHERE b.commit_id = c.id)"
		       " ORDER BY CASE WHEN ?2 THEN -c.position"
		       " ELSE c.position END LIMIT 1"))
		return -1;
	db_bind_int(st, 1, run_id, 1);
	sqlite3_bind_int(st, 2, last);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot find the %s built commit: %s",
			     last ? "last" : "first", sqlite3_errmsg(db));
	return 0;
}

int query_last_built(long long *out, sqlite3 *db, long long run_id)
{
	return run_built_end(out, db, run_id, 1);
}

int query_first_built(long long *out, sqlite3 *db, long long run_id)
{
	return run_built_end(out, db, run_id, 0);
}

int query_commit_build(long long *out, sqlite3 *db, long long commit_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT build_id FROM commit_builds WHERE commit_id = ?"))
		return -1;
	db_bind_int(st, 1, commit_id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot find the build of commit %lld: %s",
			     commit_id, sqlite3_errmsg(db));
	return 0;
}

int query_commit_sha(char **out, sqlite3 *db, long long commit_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db, "SELECT sha FROM commits WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, commit_id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = xstrdup(db_col_text(st, 0));
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return error("no commit %lld", commit_id);
	return error("cannot read commit %lld: %s", commit_id,
		     sqlite3_errmsg(db));
}

int query_find_build(long long *build_out, long long *commit_out, sqlite3 *db,
		     const char *ref)
{
	long long commit = -1, build = -1;

	*build_out = *commit_out = -1;
	if (ref ? query_resolve_commit(&commit, db, ref, -1) :
		  query_last_built(&commit, db, -1))
		return -1;
	if (commit < 0)
		return ref ? error("no commit '%s' in the database", ref) :
			     error("the database holds no build yet");
	if (query_commit_build(&build, db, commit))
		return -1;
	if (build < 0)
		return error("no build of commit '%s' in the database", ref);
	*build_out = build;
	*commit_out = commit;
	return 0;
}

int query_failed_points(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array();
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT c.position, c.subject FROM builds b"
		       " JOIN commits c ON c.id = b.commit_id"
		       " WHERE c.run_id = ? AND b.status = 'failed'"
		       " ORDER BY c.position")) {
		json_decref(arr);
		return -1;
	}
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(
			arr, json_pack("{s:I, s:o}", "position",
				       (json_int_t)sqlite3_column_int64(st, 0),
				       "subject", jstr(db_col_text(st, 1))));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot read the builds of run %lld: %s", run_id,
			     sqlite3_errmsg(db));
	}
	*out = arr;
	return 0;
}

/* The image of build ID into *out (NULL when it has none). */
int query_build_image(char **out, sqlite3 *db, long long id)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	*out = NULL;
	if (db_prepare(&st, db, "SELECT image FROM builds WHERE id = ?") ||
	    db_bind_int(st, 1, id, 0))
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		error("no build %lld", id);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		error("cannot read build %lld: %s", id, sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_column_type(st, 0) != SQLITE_NULL && *db_col_text(st, 0))
		*out = xstrdup(db_col_text(st, 0));
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int query_commit_tree(struct query_tree *out, sqlite3 *db,
		      const char *commit_sha)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (db_prepare(&st, db,
		       "SELECT t.kind, t.name, t.source, t.sha256 FROM commits c"
		       " JOIN runs r ON r.id = c.run_id"
		       " JOIN trees t ON t.id = r.tree_id"
		       " WHERE c.sha = ? ORDER BY c.id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, commit_sha);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *v[4];

		for (int i = 0; i < 4; i++)
			v[i] = sqlite3_column_type(st, i) == SQLITE_NULL ?
				       NULL :
				       db_col_text(st, i);
		out->kind = v[0] ? xstrdup(v[0]) : NULL;
		out->name = v[1] ? xstrdup(v[1]) : NULL;
		out->source = v[2] ? xstrdup(v[2]) : NULL;
		out->sha256 = v[3] ? xstrdup(v[3]) : NULL;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return error("no stored commit '%s'", commit_sha);
	return error("cannot look up commit '%s': %s", commit_sha,
		     sqlite3_errmsg(db));
}

void query_tree_release(struct query_tree *t)
{
	free(t->kind);
	free(t->name);
	free(t->source);
	free(t->sha256);
	memset(t, 0, sizeof(*t));
}

int query_tree_dir(char **out, sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	struct stat sb;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT source FROM trees WHERE name = ? AND kind = 'dir'"
		       " AND source IS NOT NULL ORDER BY id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *dir = (const char *)sqlite3_column_text(st, 0);

		if (dir && !stat(dir, &sb) && S_ISDIR(sb.st_mode))
			*out = xstrdup(dir);
	} else if (rc != SQLITE_DONE) {
		error("cannot read trees: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

int query_boot_modules(json_t **out, sqlite3 *db, long long boot_id)
{
	sqlite3_stmt *st = NULL;
	json_t *list;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT name, status, message FROM boot_modules"
		       " WHERE boot_id = ? ORDER BY rowid"))
		return -1;
	db_bind_int(st, 1, boot_id, 0);
	list = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *m = json_object();

		json_set_cols(m, st, 0, "name:s status:s message:s");
		json_array_append_new(list, m);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		return error("cannot read the modules of boot %lld: %s",
			     boot_id, sqlite3_errmsg(db));
	}
	*out = list;
	return 0;
}

int query_boot(struct query_boot *out, sqlite3 *db, long long build_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (db_prepare(&st, db,
		       "SELECT (SELECT 1 FROM builds WHERE id = ?1), bo.id,"
		       " bo.verdict, bo.reason, bo.duration_ms, bo.accel,"
		       " bo.kernel_version, bo.fingerprint, bo.created_at,"
		       " bo.log, bo.log_size"
		       " FROM (SELECT 1) LEFT JOIN boots bo ON bo.id ="
		       " (SELECT MAX(id) FROM boots WHERE build_id = ?1)"))
		return -1;
	db_bind_int(st, 1, build_id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->build_exists = sqlite3_column_type(st, 0) != SQLITE_NULL;
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			out->row = json_object();
			json_object_set_new(out->row, "build",
					    json_integer(build_id));
			json_set_cols(out->row, st, 1,
				      "boot:i verdict:s reason:s duration_ms:i "
				      "accel:s kernel_version:s fingerprint:s "
				      "created_at:i");
			if (sqlite3_column_type(st, 9) != SQLITE_NULL) {
				out->zlen = (size_t)sqlite3_column_bytes(st, 9);
				out->zlog = xmalloc(out->zlen + 1);
				memcpy(out->zlog, sqlite3_column_blob(st, 9),
				       out->zlen);
			}
			out->log_size = (size_t)sqlite3_column_int64(st, 10);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		query_boot_release(out);
		return error("cannot read the boot of build %lld: %s", build_id,
			     sqlite3_errmsg(db));
	}
	return 0;
}

void query_boot_release(struct query_boot *b)
{
	json_decref(b->row);
	free(b->zlog);
	memset(b, 0, sizeof(*b));
}

int query_commit_for(long long *out, sqlite3 *db, long long commit_id,
		     const char *compiler, const char *arch)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT c.id, COALESCE(r.compiler, 'gcc'),"
		       " COALESCE(r.arch, 'x86_64')"
		       " FROM commits c0 JOIN runs r0 ON r0.id = c0.run_id"
		       " JOIN runs r ON (r.id = r0.id OR (r0.group_id IS NOT"
		       "  NULL AND r.group_id = r0.group_id))"
		       " JOIN commits c ON c.run_id = r.id"
		       " AND c.position = c0.position"
		       " WHERE c0.id = ? ORDER BY r.id"))
		return -1;
	db_bind_int(st, 1, commit_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((!compiler ||
		     query_compiler_matches(db_col_text(st, 1), compiler)) &&
		    (!arch || !strcmp(db_col_text(st, 2), arch))) {
			*out = sqlite3_column_int64(st, 0);
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot find the %s%s%s build: %s",
			     compiler ? compiler : "",
			     compiler && arch ? " " : "", arch ? arch : "",
			     sqlite3_errmsg(db));
	return 0;
}

int query_group_members(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT r.id, r.compiler, r.arch FROM" GROUP_RUNS
		       " WHERE r0.id = ?1 ORDER BY r.id != ?1, r.id"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		json_set_cols(o, st, 0, "id:i compiler:s arch:s");
		json_array_append_new(arr, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot read the group of run %lld: %s", run_id,
			     sqlite3_errmsg(db));
	}
	*out = arr;
	return 0;
}

int query_group_run(long long *out, sqlite3 *db, long long run_id,
		    const char *compiler, const char *arch)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT r.id, COALESCE(r.compiler, 'gcc'),"
		       " COALESCE(r.arch, 'x86_64') FROM" GROUP_RUNS
		       " WHERE r0.id = ? ORDER BY r.id"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((!compiler ||
		     query_compiler_matches(db_col_text(st, 1), compiler)) &&
		    (!arch || !strcmp(db_col_text(st, 2), arch))) {
			*out = sqlite3_column_int64(st, 0);
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot find the run of group %lld: %s", run_id,
			     sqlite3_errmsg(db));
	return 0;
}

int query_commit_for_compiler(long long *out, sqlite3 *db, long long commit_id,
			      const char *compiler)
{
	return query_commit_for(out, db, commit_id, compiler, NULL);
}

/* ---- the dashboard's views: series over a run, diffs ---- */

int query_series_commits(json_t *commits, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *ct = NULL;
	int rc;

	if (db_prepare(&ct, db,
		       "SELECT c.id, c.position, c.sha, c.subject, x.build_id,"
		       " (SELECT bo.verdict FROM boots bo WHERE bo.build_id"
		       "  = x.build_id ORDER BY bo.id DESC LIMIT 1)"
		       " FROM commits c LEFT JOIN commit_builds x"
		       " ON x.commit_id = c.id WHERE c.run_id = ?"
		       " ORDER BY c.position"))
		return -1;
	db_bind_int(ct, 1, run_id, 0);
	while ((rc = sqlite3_step(ct)) == SQLITE_ROW) {
		json_t *c = json_object();

		json_set_cols(c, ct, 0, "id:i position:i sha:s subject:s");
		json_object_set_new(c, "built",
				    json_boolean(sqlite3_column_type(ct, 4) !=
						 SQLITE_NULL));
		json_object_set_new(c, "boot", json_col_str(ct, 5));
		json_array_append_new(commits, c);
	}
	sqlite3_finalize(ct);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * The counts are what the collector keeps per point with its states
 * (point_files, schema 20; point_counts, schema 19): a few hundred rows
 * a commit, not a million live states and their identities.
 */
int query_run_series(const json_t *commits, sqlite3 *db, long long run_id,
		     const char *key, series_cell_fn *cell, void *ctx)
{
	sqlite3_stmt *st = NULL;
	long long cur = -1, *ids = NULL;
	size_t at = (size_t)-1, n;
	int rc = SQLITE_ERROR, ret = -1;

	assert(!strcmp(key, "file") || !strcmp(key, "option"));
	if (db_prepare(&st, db,
		       !strcmp(key, "file") ?
			       "SELECT p.commit_id, p.file, p.n FROM commits c"
			       " JOIN point_files p ON p.commit_id = c.id"
			       " WHERE c.run_id = ? ORDER BY c.position" :
			       "SELECT p.commit_id, p.option, SUM(p.n)"
			       " FROM commits c JOIN point_counts p"
			       " ON p.commit_id = c.id WHERE c.run_id = ?"
			       " AND p.state IN ('new', 'present')"
			       " GROUP BY c.position, p.option"
			       " ORDER BY c.position"))
		goto fail;
	n = json_array_size(commits);
	ids = xcalloc(n + 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		ids[i] = json_integer_value(
			json_object_get(json_array_get(commits, i), "id"));
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long cid = sqlite3_column_int64(st, 0);

		if (cid != cur) {
			cur = cid;
			/* the counts come in the commits' order */
			while (++at < n && ids[at] != cid)
				;
		}
		if (at >= n)
			break;
		cell(ctx, at, db_col_text(st, 1), sqlite3_column_int64(st, 2));
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		goto fail;
	ret = 0;
	goto out;
fail:
	error("cannot count run %lld by %s: %s", run_id, key,
	      sqlite3_errmsg(db));
out:
	free(ids);
	sqlite3_finalize(st);
	return ret;
}
