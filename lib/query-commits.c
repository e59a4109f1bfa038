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
	struct db_read q;
	int id = query_is_id(ref);

	*out = -1;
	if (db_read(&q, db,
		    "SELECT id FROM commits WHERE (?2 IS NULL OR"
		    " run_id = ?2) AND (sha = ?1 OR (?3 AND id = ?4)"
		    " OR (length(?1) >= 7 AND substr(sha, 1,"
		    " length(?1)) = ?1)) ORDER BY CASE WHEN sha = ?1"
		    " THEN 0 WHEN ?3 AND id = ?4 THEN 1 ELSE 2 END,"
		    " id DESC LIMIT 1",
		    "sndi", ref, run_id, id,
		    id ? strtoll(ref, NULL, 10) : -1LL))
		return -1;
	if (db_next(&q))
		*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot look up commit '%s'", ref);
}

/*
 * The first (LAST: the last) commit of run RUN_ID, or of the newest run
 * when RUN_ID < 0, that was built; -1 if none was.
 */
static int run_built_end(long long *out, sqlite3 *db, long long run_id,
			 int last)
{
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT c.id FROM commits c WHERE c.run_id ="
		    " COALESCE(?1, (SELECT MAX(id) FROM runs))"
		    " AND EXISTS (SELECT 1 FROM builds b"
		    "  WHERE b.commit_id = c.id)"
		    " ORDER BY CASE WHEN ?2 THEN -c.position"
		    " ELSE c.position END LIMIT 1",
		    "nd", run_id, last))
		return -1;
	if (db_next(&q))
		*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot find the %s built commit",
		       last ? "last" : "first");
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
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT build_id FROM commit_builds WHERE commit_id = ?",
		    "i", commit_id))
		return -1;
	if (db_next(&q))
		*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot find the build of commit %lld", commit_id);
}

int query_commit_sha(char **out, sqlite3 *db, long long commit_id)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db, "SELECT sha FROM commits WHERE id = ?", "i",
		    commit_id))
		return -1;
	if (db_next(&q))
		*out = xstrdup(db_col_text(q.st, 0));
	if (db_done(&q, "cannot read commit %lld", commit_id))
		return -1;
	return *out ? 0 : error("no commit %lld", commit_id);
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
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT c.position, COALESCE(c.subject, '') FROM builds b"
		    " JOIN commits c ON c.id = b.commit_id"
		    " WHERE c.run_id = ? AND b.status = 'failed'"
		    " ORDER BY c.position",
		    "i", run_id))
		return -1;
	*out = query_rows(&q, "position:i subject:s");
	return query_rows_done(out, &q, "cannot read the builds of run %lld",
			       run_id);
}

/* The image of build ID into *out (NULL when it has none). */
int query_build_image(char **out, sqlite3 *db, long long id)
{
	struct db_read q;
	int found = 0;

	*out = NULL;
	if (db_read(&q, db, "SELECT image FROM builds WHERE id = ?", "i", id))
		return -1;
	if (db_next(&q)) {
		found = 1;
		if (sqlite3_column_type(q.st, 0) != SQLITE_NULL &&
		    *db_col_text(q.st, 0))
			*out = xstrdup(db_col_text(q.st, 0));
	}
	if (db_done(&q, "cannot read build %lld", id))
		return -1;
	return found ? 0 : error("no build %lld", id);
}

int query_commit_tree(struct query_tree *out, sqlite3 *db,
		      const char *commit_sha)
{
	struct db_read q;

	memset(out, 0, sizeof(*out));
	if (db_read(&q, db,
		    "SELECT t.kind, t.name, t.source, t.sha256 FROM commits c"
		    " JOIN runs r ON r.id = c.run_id"
		    " JOIN trees t ON t.id = r.tree_id"
		    " WHERE c.sha = ? ORDER BY c.id DESC LIMIT 1",
		    "s", commit_sha))
		return -1;
	if (db_next(&q)) {
		out->kind = db_col_strdup(q.st, 0);
		out->name = db_col_strdup(q.st, 1);
		out->source = db_col_strdup(q.st, 2);
		out->sha256 = db_col_strdup(q.st, 3);
	}
	if (db_done(&q, "cannot look up commit '%s'", commit_sha))
		return -1;
	return q.rows ? 0 : error("no stored commit '%s'", commit_sha);
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
	struct db_read q;
	struct stat sb;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT source FROM trees WHERE name = ? AND kind = 'dir'"
		    " AND source IS NOT NULL ORDER BY id DESC LIMIT 1",
		    "s", name))
		return -1;
	if (db_next(&q)) {
		const char *dir = db_col_text(q.st, 0);

		if (!stat(dir, &sb) && S_ISDIR(sb.st_mode))
			*out = xstrdup(dir);
	}
	return db_done(&q, "cannot read trees");
}

int query_boot_modules(json_t **out, sqlite3 *db, long long boot_id)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT name, status, message FROM boot_modules"
		    " WHERE boot_id = ? ORDER BY rowid",
		    "i", boot_id))
		return -1;
	*out = query_rows(&q, "name:s status:s message:s");
	return query_rows_done(out, &q, "cannot read the modules of boot %lld",
			       boot_id);
}

int query_boot(struct query_boot *out, sqlite3 *db, long long build_id)
{
	struct db_read q;
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	if (db_read(&q, db,
		    "SELECT (SELECT 1 FROM builds WHERE id = ?1), bo.id,"
		    " bo.verdict, bo.reason, bo.duration_ms, bo.accel,"
		    " bo.kernel_version, bo.fingerprint, bo.created_at,"
		    " bo.log, bo.log_size,"
		    " c.id, c.sha, c.position, c.run_id, c.subject"
		    " FROM (SELECT 1) LEFT JOIN boots bo ON bo.id ="
		    " (SELECT MAX(id) FROM boots WHERE build_id = ?1)"
		    " LEFT JOIN builds b ON b.id = ?1"
		    " LEFT JOIN commits c ON c.id = b.commit_id",
		    "i", build_id))
		return -1;
	st = q.st;
	if (db_next(&q)) {
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
			/* the commit booted, to link the boot to */
			if (sqlite3_column_type(st, 11) != SQLITE_NULL) {
				json_t *c = json_object();

				json_set_cols(c, st, 11,
					      "id:i sha:s position:i run:i "
					      "subject:s");
				json_object_set_new(out->row, "commit", c);
			}
		}
	}
	if (db_done(&q, "cannot read the boot of build %lld", build_id)) {
		query_boot_release(out);
		return -1;
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
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT c.id, COALESCE(r.compiler, 'gcc'),"
		    " COALESCE(r.arch, 'x86_64')"
		    " FROM commits c0 JOIN runs r0 ON r0.id = c0.run_id"
		    " JOIN runs r ON (r.id = r0.id OR (r0.group_id IS NOT"
		    "  NULL AND r.group_id = r0.group_id))"
		    " JOIN commits c ON c.run_id = r.id"
		    " AND c.position = c0.position"
		    " WHERE c0.id = ? ORDER BY r.id",
		    "i", commit_id))
		return -1;
	while (*out < 0 && db_next(&q))
		if ((!compiler ||
		     query_compiler_matches(db_col_text(q.st, 1), compiler)) &&
		    (!arch || !strcmp(db_col_text(q.st, 2), arch)))
			*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot find the %s%s%s build",
		       compiler ? compiler : "", compiler && arch ? " " : "",
		       arch ? arch : "");
}

int query_group_members(json_t **out, sqlite3 *db, long long run_id)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT r.id, r.compiler, r.arch FROM" GROUP_RUNS
		    " WHERE r0.id = ?1 ORDER BY r.id != ?1, r.id",
		    "i", run_id))
		return -1;
	*out = query_rows(&q, "id:i compiler:s arch:s");
	return query_rows_done(out, &q, "cannot read the group of run %lld",
			       run_id);
}

int query_group_run(long long *out, sqlite3 *db, long long run_id,
		    const char *compiler, const char *arch)
{
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT r.id, COALESCE(r.compiler, 'gcc'),"
		    " COALESCE(r.arch, 'x86_64') FROM" GROUP_RUNS
		    " WHERE r0.id = ? ORDER BY r.id",
		    "i", run_id))
		return -1;
	while (*out < 0 && db_next(&q))
		if ((!compiler ||
		     query_compiler_matches(db_col_text(q.st, 1), compiler)) &&
		    (!arch || !strcmp(db_col_text(q.st, 2), arch)))
			*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot find the run of group %lld", run_id);
}

int query_commit_for_compiler(long long *out, sqlite3 *db, long long commit_id,
			      const char *compiler)
{
	return query_commit_for(out, db, commit_id, compiler, NULL);
}

int query_commit_at(long long *out, sqlite3 *db, long long run_id,
		    long long position)
{
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT id FROM commits WHERE run_id = ? AND position = ?",
		    "ii", run_id, position))
		return -1;
	if (db_next(&q))
		*out = sqlite3_column_int64(q.st, 0);
	return db_done(&q, "cannot look up position %lld of run %lld", position,
		       run_id);
}

int query_commit_detail(json_t **out, sqlite3 *db, long long commit_id)
{
	struct db_read q;
	long long run = -1, pos = 0;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT c.id, c.sha, c.position, c.run_id, c.subject,"
		    " c.author, c.date, c.patch, c.parent, c.apply_status,"
		    " c.apply_error, x.build_id,"
		    " (SELECT bo.verdict FROM boots bo WHERE bo.build_id"
		    "  = x.build_id ORDER BY bo.id DESC LIMIT 1)"
		    " FROM commits c LEFT JOIN commit_builds x"
		    " ON x.commit_id = c.id WHERE c.id = ?",
		    "i", commit_id))
		return -1;
	if (db_next(&q)) {
		*out = json_object();
		json_set_cols(*out, q.st, 0,
			      "id:i sha:s position:i run:i subject:s author:s "
			      "date:i patch:s parent:s apply_status:s "
			      "apply_error:s build:i boot:s");
		pos = sqlite3_column_int64(q.st, 2);
		run = sqlite3_column_int64(q.st, 3);
	}
	if (db_done(&q, "cannot read commit %lld", commit_id))
		goto fail;
	if (!*out)
		return 0;
	json_object_set_new(*out, "previous", json_null());
	json_object_set_new(*out, "next", json_null());
	/* the neighbours by position: a run may skip none, but need not */
	if (db_read(&q, db,
		    "SELECT id, position, sha, subject FROM commits"
		    " WHERE run_id = ?1 AND position IN ("
		    " (SELECT MAX(position) FROM commits WHERE run_id = ?1"
		    "  AND position < ?2),"
		    " (SELECT MIN(position) FROM commits WHERE run_id = ?1"
		    "  AND position > ?2))",
		    "ii", run, pos))
		goto fail;
	while (db_next(&q)) {
		json_t *n = json_object();

		json_set_cols(n, q.st, 0, "id:i position:i sha:s subject:s");
		json_object_set_new(*out,
				    sqlite3_column_int64(q.st, 1) < pos ?
					    "previous" :
					    "next",
				    n);
	}
	if (db_done(&q, "cannot read the neighbours of commit %lld", commit_id))
		goto fail;
	return 0;
fail:
	json_decref(*out);
	*out = NULL;
	return -1;
}

/* ---- the dashboard's views: series over a run, diffs ---- */

int query_series_commits(json_t *commits, sqlite3 *db, long long run_id)
{
	struct db_read q;

	if (db_read(&q, db,
		    "SELECT c.id, c.position, c.sha, c.subject, x.build_id,"
		    " (SELECT bo.verdict FROM boots bo WHERE bo.build_id"
		    "  = x.build_id ORDER BY bo.id DESC LIMIT 1)"
		    " FROM commits c LEFT JOIN commit_builds x"
		    " ON x.commit_id = c.id WHERE c.run_id = ?"
		    " ORDER BY c.position",
		    "i", run_id))
		return -1;
	while (db_next(&q)) {
		json_t *c = json_object();

		json_set_cols(c, q.st, 0, "id:i position:i sha:s subject:s");
		json_object_set_new(c, "built",
				    json_boolean(sqlite3_column_type(q.st, 4) !=
						 SQLITE_NULL));
		json_object_set_new(c, "boot", json_col_str(q.st, 5));
		json_array_append_new(commits, c);
	}
	return db_done(&q, "cannot read the commits of run %lld", run_id);
}

/*
 * The counts are what the collector keeps per point with its states
 * (point_files, schema 20; point_counts, schema 19): a few hundred rows
 * a commit, not a million live states and their identities.
 */
int query_run_series(const json_t *commits, sqlite3 *db, long long run_id,
		     const char *key, series_cell_fn *cell, void *ctx)
{
	struct db_read q;
	long long cur = -1, *ids;
	size_t at = (size_t)-1, n = json_array_size(commits);

	assert(!strcmp(key, "file") || !strcmp(key, "option"));
	if (db_read(&q, db,
		    !strcmp(key, "file") ?
			    "SELECT p.commit_id, p.file, p.n FROM commits c"
			    " JOIN point_files p ON p.commit_id = c.id"
			    " WHERE c.run_id = ? ORDER BY c.position" :
			    "SELECT p.commit_id, p.option, SUM(p.n)"
			    " FROM commits c JOIN point_counts p"
			    " ON p.commit_id = c.id WHERE c.run_id = ?"
			    " AND p.state IN ('new', 'present')"
			    " GROUP BY c.position, p.option"
			    " ORDER BY c.position",
		    "i", run_id))
		return -1;
	ids = xcalloc(n + 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		ids[i] = json_integer_value(
			json_object_get(json_array_get(commits, i), "id"));
	while (db_next(&q)) {
		long long cid = sqlite3_column_int64(q.st, 0);

		if (cid != cur) {
			cur = cid;
			/* the counts come in the commits' order */
			while (++at < n && ids[at] != cid)
				;
		}
		if (at >= n)
			break;
		cell(ctx, at, db_col_text(q.st, 1),
		     sqlite3_column_int64(q.st, 2));
	}
	free(ids);
	return db_done(&q, "cannot count run %lld by %s", run_id, key);
}
