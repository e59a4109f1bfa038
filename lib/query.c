// SPDX-License-Identifier: MIT
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json.h"
#include "query.h"
#include "util.h"
#include "banned.h"

/* Is S a decimal number that fits a commits.id? */
static int is_id(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 18)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int query_resolve_commit(long long *out, sqlite3 *db, const char *ref,
			 long long run_id)
{
	sqlite3_stmt *st = NULL;
	int rc, id = is_id(ref);

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

int query_last_built(long long *out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT commit_id FROM run_tips WHERE run_id ="
		       " COALESCE(?1, (SELECT MAX(id) FROM runs))"))
		return -1;
	db_bind_int(st, 1, run_id, 1);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot find the last built commit: %s",
			     sqlite3_errmsg(db));
	return 0;
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

static json_t *notes_of(sqlite3_stmt *nt, long long diag_id)
{
	json_t *notes = json_array();

	sqlite3_bind_int64(nt, 1, diag_id);
	while (sqlite3_step(nt) == SQLITE_ROW) {
		json_t *n = json_object();

		json_object_set_new(n, "file", json_string(db_col_text(nt, 0)));
		json_object_set_new(n, "line",
				    json_integer(sqlite3_column_int(nt, 1)));
		json_object_set_new(n, "column",
				    json_integer(sqlite3_column_int(nt, 2)));
		json_object_set_new(n, "message",
				    json_string(db_col_text(nt, 3)));
		if (sqlite3_column_type(nt, 4) != SQLITE_NULL)
			json_object_set_new(n, "source",
					    json_string(db_col_text(nt, 4)));
		json_array_append_new(notes, n);
	}
	sqlite3_reset(nt);
	return notes;
}

static json_t *text_or_null(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return json_string(db_col_text(st, col));
}

int query_warnings(json_t **out, sqlite3 *db, const struct warn_filter *f)
{
	sqlite3_stmt *st = NULL, *nt = NULL;
	const char *opt = f->option;
	char *optbuf = NULL;
	json_t *arr = NULL;
	int ret = -1, gone;

	if (opt && strncmp(opt, "-W", 2))
		opt = optbuf = xstrfmt("-W%s", opt);
	/*
	 * One row per identity: the first diagnostic of it in the build.
	 * Fixed and not-built warnings are not in the build: their last
	 * diagnostic comes through the states table.
	 */
	gone = f->state &&
	       (!strcmp(f->state, "fixed") || !strcmp(f->state, "not_built"));
	if (db_prepare(
		    &st, db,
		    gone ? "SELECT d.id, d.file, d.line, d.col, d.function,"
			   " d.option, d.message, d.kind, o.path, s.seen,"
			   " i.fingerprint, s.state, d.werror, d.source,"
			   " cl.verdict, cl.fix, cl.reason, s.in_change"
			   " FROM states s JOIN diagnostics d ON d.id = s.diag_id"
			   " LEFT JOIN objects o ON o.id = d.object_id"
			   " LEFT JOIN identities i ON i.id = s.identity_id"
			   " LEFT JOIN classifications cl"
			   "  ON cl.identity_id = s.identity_id"
			   " WHERE s.commit_id = ?2 AND ?1 = ?1"
			   " AND (?3 IS NULL OR d.file = ?3)"
			   " AND (?4 IS NULL OR d.function = ?4)"
			   " AND (?5 IS NULL OR d.option = ?5)"
			   " AND s.state = ?6"
			   " ORDER BY d.file, d.line, d.col, d.id" :
			   "SELECT d.id, d.file, d.line, d.col, d.function,"
			   " d.option, d.message, d.kind, o.path, g.seen,"
			   " i.fingerprint, s.state, d.werror, d.source,"
			   " cl.verdict, cl.fix, cl.reason, s.in_change"
			   " FROM (SELECT MIN(id) AS id, COUNT(*) AS seen"
			   "  FROM diagnostics WHERE build_id = ?1"
			   "  GROUP BY COALESCE(identity_id, -id)) g"
			   " JOIN diagnostics d ON d.id = g.id"
			   " LEFT JOIN objects o ON o.id = d.object_id"
			   " LEFT JOIN identities i ON i.id = d.identity_id"
			   " LEFT JOIN classifications cl"
			   "  ON cl.identity_id = d.identity_id"
			   " LEFT JOIN states s ON s.commit_id = ?2"
			   "  AND s.identity_id = d.identity_id"
			   " WHERE (?3 IS NULL OR d.file = ?3)"
			   " AND (?4 IS NULL OR d.function = ?4)"
			   " AND (?5 IS NULL OR d.option = ?5)"
			   " AND (?6 IS NULL OR s.state = ?6)"
			   " ORDER BY d.file, d.line, d.col, d.id") ||
	    db_prepare(&nt, db,
		       "SELECT file, line, col, message, source FROM notes"
		       " WHERE diag_id = ? ORDER BY seq"))
		goto out;
	db_bind_int(st, 1, f->build_id, 0);
	db_bind_int(st, 2, f->commit_id, 1);
	db_bind_text(st, 3, f->file);
	db_bind_text(st, 4, f->function);
	db_bind_text(st, 5, opt);
	db_bind_text(st, 6, f->state);
	arr = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *w = json_object();

		json_object_set_new(w, "file", text_or_null(st, 1));
		json_object_set_new(w, "line",
				    json_integer(sqlite3_column_int(st, 2)));
		json_object_set_new(w, "column",
				    json_integer(sqlite3_column_int(st, 3)));
		json_object_set_new(w, "function", text_or_null(st, 4));
		json_object_set_new(w, "option", text_or_null(st, 5));
		json_object_set_new(w, "message",
				    json_string(db_col_text(st, 6)));
		json_object_set_new(w, "kind", json_string(db_col_text(st, 7)));
		json_object_set_new(w, "object", text_or_null(st, 8));
		json_object_set_new(w, "seen",
				    json_integer(sqlite3_column_int(st, 9)));
		json_object_set_new(w, "identity", text_or_null(st, 10));
		if (f->commit_id >= 0)
			json_object_set_new(w, "state", text_or_null(st, 11));
		json_object_set_new(w, "werror",
				    json_boolean(sqlite3_column_int(st, 12)));
		json_object_set_new(w, "source", text_or_null(st, 13));
		if (f->commit_id >= 0 &&
		    sqlite3_column_type(st, 17) != SQLITE_NULL)
			json_object_set_new(
				w, "in_change",
				json_boolean(sqlite3_column_int(st, 17)));
		if (sqlite3_column_type(st, 14) != SQLITE_NULL) {
			json_object_set_new(w, "verdict", text_or_null(st, 14));
			json_object_set_new(w, "fix", text_or_null(st, 15));
			json_object_set_new(w, "reason", text_or_null(st, 16));
		}
		json_object_set_new(w, "notes",
				    notes_of(nt, sqlite3_column_int64(st, 0)));
		json_array_append_new(arr, w);
	}
	*out = arr;
	arr = NULL;
	ret = 0;
out:
	json_decref(arr);
	sqlite3_finalize(st);
	sqlite3_finalize(nt);
	free(optbuf);
	return ret;
}

/* Add N to the integer at KEY of object O. */
static void add_count(json_t *o, const char *key, long long n)
{
	json_object_set_new(
		o, key,
		json_integer(json_integer_value(json_object_get(o, key)) + n));
}

static json_t *zero_counts(void)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:{}}", "warnings",
			 (json_int_t)0, "new", (json_int_t)0, "fixed",
			 (json_int_t)0, "not_built", (json_int_t)0,
			 "by_option");
}

int query_run_counts(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *all = json_object(), *cur = NULL;
	long long cur_id = -1;
	char key[24];
	int rc, ret = -1;

	*out = NULL;
	if (db_prepare(&st, db, "SELECT id FROM commits WHERE run_id = ?"))
		goto out;
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(key, sizeof(key), "%lld", sqlite3_column_int64(st, 0));
		json_object_set_new(all, key, zero_counts());
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto fail;
	/*
	 * One pass over the run's states, counted here: a GROUP BY would
	 * sort a million rows for a thousand commits.  A warning without an
	 * option counts under its kind ("modpost", "linker", ...).
	 */
	if (db_prepare(&st, db,
		       "SELECT s.commit_id, s.state,"
		       " COALESCE(i.option, i.kind)"
		       " FROM commits c JOIN states s ON s.commit_id = c.id"
		       " JOIN identities i ON i.id = s.identity_id"
		       " WHERE c.run_id = ?"))
		goto out;
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long cid = sqlite3_column_int64(st, 0);
		const char *state = db_col_text(st, 1);

		if (cid != cur_id) {
			snprintf(key, sizeof(key), "%lld", cid);
			cur = json_object_get(all, key);
			cur_id = cid;
		}
		assert(cur);
		add_count(cur, state, 1);
		if (!strcmp(state, "new") || !strcmp(state, "present")) {
			add_count(cur, "warnings", 1);
			add_count(json_object_get(cur, "by_option"),
				  db_col_text(st, 2), 1);
		}
	}
	if (rc != SQLITE_DONE)
		goto fail;
	{
		const char *k;

		json_object_foreach(all, k, cur)
			json_object_del(cur, "present");
	}
	*out = all;
	all = NULL;
	ret = 0;
	goto out;
fail:
	error("cannot count the warnings of run %lld: %s", run_id,
	      sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	json_decref(all);
	return ret;
}

/*
 * {"ok": N, "failed": N, "failed_names": [...]} from columns AT.. of ST,
 * or null for a boot without modules (not --full, or no boot).
 */
static json_t *boot_modules(sqlite3_stmt *st, int at)
{
	long long ok = sqlite3_column_int64(st, at);
	long long failed = sqlite3_column_int64(st, at + 1);
	json_t *o, *names;

	if (!ok && !failed)
		return json_null();
	names = json_loads(db_col_text(st, at + 2), 0, NULL);
	o = json_object();
	json_object_set_new(o, "ok", json_integer(ok));
	json_object_set_new(o, "failed", json_integer(failed));
	json_object_set_new(o, "failed_names",
			    json_is_array(names) ? names : json_array());
	if (names && !json_is_array(names))
		json_decref(names);
	return o;
}

int query_run_points(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL, *bt = NULL;
	json_t *arr = json_array(), *counts = NULL;
	int ret = -1;

	*out = NULL;
	if (query_run_counts(&counts, db, run_id) ||
	    db_prepare(
		    &st, db,
		    "SELECT c.id, c.sha, c.position, c.subject, c.author,"
		    " c.patch, c.apply_status, c.apply_error,"
		    " (SELECT b.id FROM builds b WHERE b.commit_id = c.id"
		    "  ORDER BY b.id DESC LIMIT 1)"
		    " FROM commits c WHERE c.run_id = ? ORDER BY c.position") ||
	    db_prepare(&bt, db,
		       "SELECT b.status, b.wall_ms, b.objects_compiled,"
		       " replace(b.image, '/arch/x86/boot/bzImage', ''),"
		       " bo.verdict, bo.duration_ms, bo.reason,"
		       " (SELECT COUNT(*) FROM boot_modules m"
		       "  WHERE m.boot_id = bo.id AND m.status = 'ok'),"
		       " (SELECT COUNT(*) FROM boot_modules m"
		       "  WHERE m.boot_id = bo.id AND m.status <> 'ok'),"
		       " (SELECT json_group_array(m.name) FROM boot_modules m"
		       "  WHERE m.boot_id = bo.id AND m.status <> 'ok')"
		       " FROM builds b LEFT JOIN boots bo ON bo.id ="
		       " (SELECT MAX(id) FROM boots WHERE build_id = b.id)"
		       " WHERE b.id = ?"))
		goto out;
	db_bind_int(st, 1, run_id, 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long long cid = sqlite3_column_int64(st, 0);
		char key[24];
		json_t *e;

		snprintf(key, sizeof(key), "%lld", cid);
		e = json_deep_copy(json_object_get(counts, key));
		struct warn_filter f = { 0 };
		json_t *warnings = NULL;

		json_object_set_new(e, "commit",
				    json_string(db_col_text(st, 1)));
		json_object_set_new(e, "position",
				    json_integer(sqlite3_column_int(st, 2)));
		json_object_set_new(e, "subject",
				    json_string(db_col_text(st, 3)));
		json_object_set_new(e, "author",
				    json_string(db_col_text(st, 4)));
		json_object_set_new(e, "patch",
				    json_string(db_col_text(st, 5)));
		json_object_set_new(e, "apply_status",
				    json_string(db_col_text(st, 6)));
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			json_object_set_new(e, "apply_error",
					    json_string(db_col_text(st, 7)));
		if (sqlite3_column_type(st, 8) == SQLITE_NULL) {
			json_object_set_new(e, "build", json_null());
			json_object_set_new(e, "status",
					    json_string("not measured"));
			json_object_set_new(e, "verdict", json_null());
			json_object_set_new(e, "warnings_list", json_array());
			json_array_append_new(arr, e);
			continue;
		}
		f.build_id = sqlite3_column_int64(st, 8);
		f.commit_id = cid;
		json_object_set_new(e, "build", json_integer(f.build_id));
		db_bind_int(bt, 1, f.build_id, 0);
		if (sqlite3_step(bt) == SQLITE_ROW) {
			json_object_set_new(e, "status",
					    json_string(db_col_text(bt, 0)));
			json_object_set_new(
				e, "wall_ms",
				json_integer(sqlite3_column_int64(bt, 1)));
			json_object_set_new(
				e, "objects_compiled",
				json_integer(sqlite3_column_int64(bt, 2)));
			if (sqlite3_column_type(bt, 3) != SQLITE_NULL)
				json_object_set_new(
					e, "build_dir",
					json_string(db_col_text(bt, 3)));
			json_object_set_new(
				e, "verdict",
				sqlite3_column_type(bt, 4) == SQLITE_NULL ?
					json_null() :
					json_string(db_col_text(bt, 4)));
			json_object_set_new(
				e, "boot_ms",
				sqlite3_column_type(bt, 5) == SQLITE_NULL ?
					json_null() :
					json_integer(
						sqlite3_column_int64(bt, 5)));
			json_object_set_new(
				e, "boot_reason",
				sqlite3_column_type(bt, 6) == SQLITE_NULL ?
					json_null() :
					json_string(db_col_text(bt, 6)));
			json_object_set_new(e, "modules", boot_modules(bt, 7));
		}
		sqlite3_reset(bt);
		if (query_warnings(&warnings, db, &f))
			goto out;
		{
			/* fixed ones too, so each commit tells what it fixed */
			json_t *fixed = NULL;

			f.state = "fixed";
			if (query_warnings(&fixed, db, &f))
				goto out;
			json_array_extend(warnings, fixed);
			json_decref(fixed);
		}
		json_object_set_new(e, "warnings_list", warnings);
		json_array_append_new(arr, e);
	}
	*out = arr;
	arr = NULL;
	ret = 0;
out:
	json_decref(arr);
	json_decref(counts);
	sqlite3_finalize(st);
	sqlite3_finalize(bt);
	return ret;
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

int query_fallthrough_site(char **file_out, long *warn_out, long *here_out,
			   sqlite3 *db, long long diag_id)
{
	sqlite3_stmt *st = NULL;
	/*
	 * XXX: only the first 32 notes are read; the "here" note of a
	 * fall-through comes after its macro expansion notes, which real
	 * kernel warnings keep to a handful.
	 */
	char *file = NULL, *files[32];
	long lines[32], warn = 0, here = 0;
	int n = 0, ret = -1;

	*file_out = NULL;
	if (db_prepare(&st, db,
		       "SELECT file, line FROM diagnostics WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, diag_id, 0);
	if (sqlite3_step(st) == SQLITE_ROW) {
		file = xstrdup(db_col_text(st, 0));
		warn = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (!file || db_prepare(&st, db,
				"SELECT file, line, message FROM notes"
				" WHERE diag_id = ? ORDER BY seq")) {
		free(file);
		return -1;
	}
	db_bind_int(st, 1, diag_id, 0);
	while (n < 32 && sqlite3_step(st) == SQLITE_ROW) {
		files[n] = xstrdup(db_col_text(st, 0));
		lines[n] = sqlite3_column_int(st, 1);
		if (!strcmp(db_col_text(st, 2), "here")) {
			here = lines[n++];
			break;
		}
		n++;
	}
	sqlite3_finalize(st);
	if (here) {
		const char *hf = files[n - 1];

		if (strcmp(hf, file)) {
			/* the case ends at the macro's use in that file */
			warn = 0;
			for (int i = 0; i < n - 1; i++)
				if (!strcmp(files[i], hf))
					warn = lines[i];
			free(file);
			file = xstrdup(hf);
		}
		if (warn > 0) {
			*file_out = file;
			file = NULL;
			*warn_out = warn;
			*here_out = here;
			ret = 0;
		}
	}
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(file);
	return ret;
}

int query_fallthrough_diags(struct query_ids *out, sqlite3 *db,
			    long long build_id, long long commit_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	/*
	 * With a commit: the live fall-through warnings not classified yet;
	 * else every fall-through warning of the build, once per identity.
	 */
	if (db_prepare(
		    &st, db,
		    commit_id >= 0 ?
			    "SELECT s.identity_id, d.id"
			    " FROM live_states s"
			    " JOIN diagnostics d ON d.id = s.diag_id"
			    " WHERE s.commit_id = ?2"
			    " AND d.option = '-Wimplicit-fallthrough='"
			    " AND NOT EXISTS (SELECT 1 FROM classifications c"
			    "  WHERE c.identity_id = s.identity_id)"
			    " AND ?1 = ?1" :
			    "SELECT d.identity_id, MIN(d.id) FROM diagnostics d"
			    " WHERE d.build_id = ?1"
			    " AND d.identity_id IS NOT NULL"
			    " AND d.option LIKE '%implicit-fallthrough%'"
			    " AND ?2 = ?2"
			    " GROUP BY d.identity_id ORDER BY d.file, d.line"))
		return -1;
	db_bind_int(st, 1, build_id, 0);
	db_bind_int(st, 2, commit_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->nr == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 32;
			out->identity =
				xrealloc(out->identity,
					 out->alloc * sizeof(*out->identity));
			out->diag = xrealloc(out->diag,
					     out->alloc * sizeof(*out->diag));
		}
		out->identity[out->nr] = sqlite3_column_int64(st, 0);
		out->diag[out->nr++] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		query_ids_release(out);
		return error("cannot read the fall-through warnings: %s",
			     sqlite3_errmsg(db));
	}
	return 0;
}

void query_ids_release(struct query_ids *ids)
{
	free(ids->identity);
	free(ids->diag);
	memset(ids, 0, sizeof(*ids));
}

/* ---- nightly ---- */

/*
 * Warnings present at the base of RUN but not at the base of OLDER, as a
 * JSON array of {file, line, column, function, option, message, cause}.
 * With SPLIT >= 0 (the older tree rebuilt with RUN's compiler), a warning
 * that SPLIT has too comes from the compiler, any other from the code;
 * else every warning gets CAUSE.
 */
int query_new_against(json_t **out, sqlite3 *db, long long run, long long older,
		      const char *cause, long long split)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = NULL;
	int rc;

	*out = NULL;

	if (db_prepare(
		    &st, db,
		    "SELECT i.file, d.line, i.function, i.option, d.message,"
		    " d.col, s.identity_id IN (SELECT s3.identity_id"
		    "  FROM live_states s3 JOIN commits c3 ON c3.id = s3.commit_id"
		    "  WHERE c3.run_id = ?3 AND c3.position = 0"
		    "  "
		    " FROM live_states s JOIN commits c ON c.id = s.commit_id"
		    " JOIN identities i ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " WHERE c.run_id = ?1 AND c.position = 0"
		    " AND s.identity_id NOT IN (SELECT s2.identity_id"
		    "  FROM live_states s2 JOIN commits c2 ON c2.id = s2.commit_id"
		    "  WHERE c2.run_id = ?2 AND c2.position = 0"
		    ")"
		    " ORDER BY i.file, d.line"))
		return -1;
	db_bind_int(st, 1, run, 0);
	db_bind_int(st, 2, older, 0);
	db_bind_int(st, 3, split, 0);
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *w = json_object();
		const char *why = cause;

		if (split >= 0)
			why = sqlite3_column_int(st, 6) ? "compiler" : "code";
		json_object_set_new(w, "file", json_string(db_col_text(st, 0)));
		json_object_set_new(w, "line",
				    json_integer(sqlite3_column_int(st, 1)));
		json_object_set_new(w, "column",
				    json_integer(sqlite3_column_int(st, 5)));
		json_object_set_new(w, "function",
				    json_string(db_col_text(st, 2)));
		json_object_set_new(w, "option",
				    json_string(db_col_text(st, 3)));
		json_object_set_new(w, "message",
				    json_string(db_col_text(st, 4)));
		json_object_set_new(w, "cause", json_string(why));
		json_array_append_new(arr, w);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot compare run %lld with run %lld: %s", run,
			     older, sqlite3_errmsg(db));
	}
	*out = arr;
	return 0;
}

int query_base_live_count(long long *out, sqlite3 *db, long long run)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = 0;
	if (db_prepare(&st, db,
		       "SELECT COUNT(*) FROM live_states s JOIN commits c"
		       " ON c.id = s.commit_id WHERE c.run_id = ?"
		       " AND c.position = 0"))
		return -1;
	db_bind_int(st, 1, run, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("cannot count the warnings of run %lld: %s", run,
			     sqlite3_errmsg(db));
	return 0;
}

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

/*
 * The first column of ST's first row (a run id) into *out, -1 when there
 * is no row; finalizes ST.  Returns 0 or -1 (reported).
 */
static int first_id(long long *out, sqlite3 *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot look up runs: %s", sqlite3_errmsg(db));
	return 0;
}

int query_previous_nightly(long long *out, sqlite3 *db, long long run,
			   const char *name)
{
	sqlite3_stmt *st = NULL;

	*out = -1;
	if (db_prepare(
		    &st, db,
		    "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.name = ? AND r.id < ? ORDER BY r.id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int(st, 2, run, 0);
	return first_id(out, db, st);
}

int query_nightly_with_compiler(long long *out, sqlite3 *db, long long tree_id,
				const char *compiler)
{
	sqlite3_stmt *st = NULL;

	*out = -1;
	if (db_prepare(
		    &st, db,
		    "SELECT r.id FROM runs r JOIN commits c ON c.run_id = r.id"
		    " AND c.position = 0 JOIN builds b ON b.commit_id = c.id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND r.tree_id = ? AND b.compiler = ?"
		    " ORDER BY r.id DESC LIMIT 1"))
		return -1;
	db_bind_int(st, 1, tree_id, 0);
	db_bind_text(st, 2, compiler);
	return first_id(out, db, st);
}

int query_newest_older_tree(long long *out, sqlite3 *db, long long run,
			    const char *name, const char *version,
			    const char *compiler)
{
	sqlite3_stmt *st = NULL;
	long long best = -1;
	int rc;
	long bv[3] = { -1, -1, -1 }, mv[3] = { 0, 0, 0 };
	int best_same = 0;

	sscanf(version, "%ld.%ld.%ld", &mv[0], &mv[1], &mv[2]);
	if (db_prepare(&st, db,
		       "SELECT r.id, COALESCE(t.version, ''),"
		       " (SELECT b.compiler FROM commits c JOIN builds b"
		       "  ON b.commit_id = c.id WHERE c.run_id = r.id"
		       "  AND c.position = 0 ORDER BY b.id DESC LIMIT 1) = ?3"
		       " FROM runs r JOIN trees t ON t.id = r.tree_id"
		       " WHERE r.kind = 'nightly' AND r.status = 'done'"
		       " AND t.name <> ?1 AND r.id <> ?2 ORDER BY r.id"))
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int(st, 2, run, 0);
	db_bind_text(st, 3, compiler);
	*out = -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long v[3] = { 0, 0, 0 };
		int newer = 0, cmp = 0, same = sqlite3_column_int(st, 2);

		sscanf(db_col_text(st, 1), "%ld.%ld.%ld", &v[0], &v[1], &v[2]);
		for (int i = 0; i < 3; i++) {
			if (v[i] != mv[i]) {
				newer = v[i] > mv[i];
				break;
			}
		}
		if (newer)
			continue;
		for (int i = 0; i < 3; i++) {
			if (v[i] != bv[i]) {
				cmp = v[i] > bv[i] ? 1 : -1;
				break;
			}
		}
		if (best < 0 || cmp > 0 || (cmp == 0 && same >= best_same)) {
			best = sqlite3_column_int64(st, 0);
			memcpy(bv, v, sizeof(bv));
			best_same = same;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("cannot look up older trees: %s",
			     sqlite3_errmsg(db));
	*out = best;
	return 0;
}

int query_nightly_measured(int *out, sqlite3 *db, const char *path,
			   const char *sha, const char *config,
			   const char *compiler)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = 0;
	if (db_prepare(&st, db,
		       "SELECT 1 FROM runs r JOIN trees t ON t.id = r.tree_id"
		       " JOIN commits c ON c.run_id = r.id AND c.position = 0"
		       " JOIN builds b ON b.commit_id = c.id"
		       " WHERE r.kind = 'nightly' AND r.status = 'done'"
		       " AND t.sha256 IS ? AND t.source = ? AND r.config = ?"
		       " AND b.compiler = ?"))
		return -1;
	db_bind_text(st, 1, sha);
	db_bind_text(st, 2, path);
	db_bind_text(st, 3, config);
	db_bind_text(st, 4, compiler);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot look up nightly runs: %s",
			     sqlite3_errmsg(db));
	return 0;
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

int query_tip_new(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	*out = NULL;
	/* live at the last built point, not live at the first */
	if (db_prepare(&st, db,
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
		       "  AND b.identity_id = s.identity_id)"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(
			arr, json_pack("{s:o, s:I, s:o, s:o}", "file",
				       jstr(db_col_text(st, 0)), "line",
				       (json_int_t)sqlite3_column_int(st, 1),
				       "function", jstr(db_col_text(st, 2)),
				       "message", jstr(db_col_text(st, 3))));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot compare the tip of run %lld: %s", run_id,
			     sqlite3_errmsg(db));
	}
	*out = arr;
	return 0;
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

/*
 * The runs of RUN's campaign: RUN and the runs of its group (kwarn run
 * with several --cc), as "r" in a FROM clause, with r0 the run asked.
 */
#define GROUP_RUNS                                                          \
	" runs r0 JOIN runs r ON (r.id = r0.id OR (r0.group_id IS NOT NULL" \
	" AND r.group_id = r0.group_id))"

/* Does compiler NAME belong to what WANT names ("clang" has clang-16)? */
static int compiler_matches(const char *name, const char *want)
{
	size_t l = strlen(want);

	return !strncmp(name, want, l) && (!name[l] || name[l] == '-');
}

int query_commit_for_compiler(long long *out, sqlite3 *db, long long commit_id,
			      const char *compiler)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT c.id, COALESCE(r.compiler, 'gcc')"
		       " FROM commits c0 JOIN runs r0 ON r0.id = c0.run_id"
		       " JOIN runs r ON (r.id = r0.id OR (r0.group_id IS NOT"
		       "  NULL AND r.group_id = r0.group_id))"
		       " JOIN commits c ON c.run_id = r.id"
		       " AND c.position = c0.position"
		       " WHERE c0.id = ? ORDER BY r.id"))
		return -1;
	db_bind_int(st, 1, commit_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (compiler_matches(db_col_text(st, 1), compiler)) {
			*out = sqlite3_column_int64(st, 0);
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot find the %s build: %s", compiler,
			     sqlite3_errmsg(db));
	return 0;
}

int query_group_counts(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *all = json_object();
	char key[24];
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT c.position, COALESCE(r.compiler, 'gcc'),"
		       " EXISTS (SELECT 1 FROM builds b"
		       "  WHERE b.commit_id = c.id),"
		       " (SELECT COUNT(*) FROM live_states s"
		       "  WHERE s.commit_id = c.id)"
		       " FROM" GROUP_RUNS " JOIN commits c ON c.run_id = r.id"
		       " WHERE r0.id = ? ORDER BY c.position, r.id")) {
		json_decref(all);
		return -1;
	}
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *pos;

		snprintf(key, sizeof(key), "%lld", sqlite3_column_int64(st, 0));
		pos = json_object_get(all, key);
		if (!pos) {
			pos = json_object();
			json_object_set_new(all, key, pos);
		}
		json_object_set_new(
			pos, db_col_text(st, 1),
			sqlite3_column_int(st, 2) ?
				json_integer(sqlite3_column_int64(st, 3)) :
				json_null());
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(all);
		return error("cannot count the run's compilers: %s",
			     sqlite3_errmsg(db));
	}
	*out = all;
	return 0;
}

/* Which of "gcc" and "clang" the compilers array C names: bit 1, bit 2. */
static int compiler_families(json_t *c)
{
	json_t *v;
	size_t i;
	int f = 0;

	json_array_foreach(c, i, v) {
		f |= compiler_matches(json_string_value(v), "gcc") ? 1 : 0;
		f |= compiler_matches(json_string_value(v), "clang") ? 2 : 0;
	}
	return f;
}

int query_sites(json_t **out, sqlite3 *db, long long run_id, long position,
		const char *only)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array(), *cur = NULL, *res;
	const char *last = NULL;
	size_t i;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT i.site, COALESCE(r.compiler, 'gcc'), i.file,"
		       " i.function, i.option, i.message, i.fingerprint"
		       " FROM" GROUP_RUNS " JOIN commits c ON c.run_id = r.id"
		       " AND c.position = COALESCE(?2, (SELECT MAX(c2.position)"
		       "  FROM commits c2 WHERE c2.run_id = r0.id"
		       "  AND EXISTS (SELECT 1 FROM builds b"
		       "   WHERE b.commit_id = c2.id)))"
		       " JOIN live_states s ON s.commit_id = c.id"
		       " JOIN identities i ON i.id = s.identity_id"
		       " WHERE r0.id = ?1 AND i.site IS NOT NULL"
		       " ORDER BY i.site, r.id")) {
		json_decref(arr);
		return -1;
	}
	db_bind_int(st, 1, run_id, 0);
	db_bind_int(st, 2, position, 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *site = db_col_text(st, 0);
		json_t *w = json_object();

		if (!cur || strcmp(last, site)) {
			cur = json_object();
			json_object_set_new(cur, "site", json_string(site));
			json_object_set_new(cur, "file", text_or_null(st, 2));
			json_object_set_new(cur, "function",
					    text_or_null(st, 3));
			json_object_set_new(cur, "compilers", json_array());
			json_object_set_new(cur, "warnings", json_array());
			json_array_append_new(arr, cur);
			last = json_string_value(json_object_get(cur, "site"));
		}
		json_array_append_new(json_object_get(cur, "compilers"),
				      json_string(db_col_text(st, 1)));
		json_object_set_new(w, "compiler",
				    json_string(db_col_text(st, 1)));
		json_object_set_new(w, "option", text_or_null(st, 4));
		json_object_set_new(w, "message", text_or_null(st, 5));
		json_object_set_new(w, "identity", text_or_null(st, 6));
		json_array_append_new(json_object_get(cur, "warnings"), w);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot read the run's sites: %s",
			     sqlite3_errmsg(db));
	}
	/* gcc: only gcc warns there; clang: only clang; both: both do */
	res = json_array();
	json_array_foreach(arr, i, cur) {
		int f = compiler_families(json_object_get(cur, "compilers"));

		if (!only || (!strcmp(only, "gcc") && f == 1) ||
		    (!strcmp(only, "clang") && f == 2) ||
		    (!strcmp(only, "both") && f == 3))
			json_array_append(res, cur);
	}
	json_decref(arr);
	*out = res;
	return 0;
}

int query_last_run(long long *out, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (db_prepare(&st, db,
		       "SELECT MAX(id) FROM runs WHERE kind <> 'ingest'"))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("cannot find the last run: %s",
			     sqlite3_errmsg(db));
	return 0;
}
