// SPDX-License-Identifier: MIT
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "ident.h"
#include "json.h"
#include "query.h"
#include "repro.h"
#include "triage.h"
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

/*
 * The triage state of identity row I (an SQL alias): its newest record's,
 * 'open' when it has none.
 */
#define TRIAGE_STATE_OF(i)                               \
	"COALESCE((SELECT t.state FROM triage_current t" \
	" WHERE t.fingerprint = " i ".fingerprint), 'open')"

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
	return json_pack("{s:I, s:I, s:I, s:I, s:{}, s:o}", "warnings",
			 (json_int_t)0, "new", (json_int_t)0, "fixed",
			 (json_int_t)0, "not_built", (json_int_t)0, "by_option",
			 "by_triage", by_triage);
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
	 * The counts the collector wrote with each point's states
	 * (point_counts): a few rows a commit, not a million states.
	 */
	if (db_prepare(&st, db,
		       "SELECT p.commit_id, p.state, p.option, p.n"
		       " FROM commits c JOIN point_counts p"
		       " ON p.commit_id = c.id WHERE c.run_id = ?"
		       " ORDER BY p.commit_id, p.option"))
		goto out;
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long cid = sqlite3_column_int64(st, 0);
		const char *state = db_col_text(st, 1);
		long long n = sqlite3_column_int64(st, 3);

		if (cid != cur_id) {
			snprintf(key, sizeof(key), "%lld", cid);
			cur = json_object_get(all, key);
			cur_id = cid;
		}
		assert(cur);
		add_count(cur, state, n);
		if (!strcmp(state, "new") || !strcmp(state, "present")) {
			add_count(cur, "warnings", n);
			add_count(json_object_get(cur, "by_option"),
				  db_col_text(st, 2), n);
		}
	}
	if (rc != SQLITE_DONE)
		goto fail;
	if (triage_counts(all, db, run_id))
		goto out;
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
		       " replace(replace(b.image, '/arch/x86/boot/bzImage', ''),"
		       "  '/arch/arm64/boot/Image', ''),"
		       " bo.verdict, bo.duration_ms, bo.reason,"
		       " (SELECT COUNT(*) FROM boot_modules m"
		       "  WHERE m.boot_id = bo.id AND m.status = 'ok'),"
		       " (SELECT COUNT(*) FROM boot_modules m"
		       "  WHERE m.boot_id = bo.id AND m.status <> 'ok'),"
		       " (SELECT json_group_array(m.name) FROM boot_modules m"
		       "  WHERE m.boot_id = bo.id AND m.status <> 'ok'),"
		       " b.cache_hits, b.cache_misses"
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
		struct query_point pt = { 0 };
		json_t *warnings = NULL, *got = NULL;
		long long build_id;

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
		build_id = sqlite3_column_int64(st, 8);
		json_object_set_new(e, "build", json_integer(build_id));
		db_bind_int(bt, 1, build_id, 0);
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
			json_set_cols(e, bt, 10, "cache_hits:i cache_misses:i");
		}
		sqlite3_reset(bt);
		/* the live ones, and the fixed: what each commit fixed */
		if (query_point(&pt, db, cid) ||
		    query_point_warnings(&got, db, &pt, &f)) {
			query_point_release(&pt);
			json_decref(e);
			goto out;
		}
		warnings = json_incref(json_object_get(got, "warnings"));
		json_decref(got);
		f.state = "fixed";
		if (query_point_warnings(&got, db, &pt, &f)) {
			query_point_release(&pt);
			json_decref(warnings);
			json_decref(e);
			goto out;
		}
		json_array_extend(warnings, json_object_get(got, "warnings"));
		json_decref(got);
		query_point_release(&pt);
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
		    "  WHERE c3.run_id = ?3 AND c3.position = 0),"
		    " i.fingerprint"
		    " FROM live_states s JOIN commits c ON c.id = s.commit_id"
		    " JOIN identities i ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " WHERE c.run_id = ?1 AND c.position = 0"
		    " AND s.identity_id NOT IN (SELECT s2.identity_id"
		    "  FROM live_states s2 JOIN commits c2 ON c2.id = s2.commit_id"
		    "  WHERE c2.run_id = ?2 AND c2.position = 0)"
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
		json_object_set_new(w, "identity", json_col_str(st, 7));
		json_array_append_new(arr, w);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot compare run %lld with run %lld: %s", run,
			     older, sqlite3_errmsg(db));
	}
	if (query_triage_annotate(db, arr, "identity")) {
		json_decref(arr);
		return -1;
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
			   const char *name, const char *arch)
{
	sqlite3_stmt *st = NULL;

	*out = -1;
	if (db_prepare(
		    &st, db,
		    "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.name = ?1 AND r.id < ?2"
		    " AND COALESCE(r.arch, 'x86_64') = COALESCE(?3,"
		    "  (SELECT COALESCE(arch, 'x86_64') FROM runs WHERE id = ?2),"
		    "  'x86_64')"
		    " ORDER BY r.id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int(st, 2, run, 0);
	db_bind_text(st, 3, arch);
	return first_id(out, db, st);
}

int query_previous_nightly_of(long long *out, sqlite3 *db, long long run,
			      const char *name, const char *cc,
			      const char *warnings, const char *targets,
			      const char *arch)
{
	sqlite3_stmt *st = NULL;

	*out = -1;
	if (db_prepare(
		    &st, db,
		    "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.name = ?1 AND r.id < ?2"
		    " AND COALESCE(r.compiler, 'gcc') = ?3"
		    " AND json_extract(r.params, '$.warnings') IS ?4"
		    " AND json_extract(r.params, '$.targets') IS ?5"
		    " AND COALESCE(r.arch, 'x86_64') = COALESCE(?6, 'x86_64')"
		    " ORDER BY r.id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int(st, 2, run, 0);
	db_bind_text(st, 3, cc);
	db_bind_text(st, 4, warnings);
	db_bind_text(st, 5, targets);
	db_bind_text(st, 6, arch);
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
		       "  AND b.identity_id = s.identity_id)"
		       " AND NOT EXISTS (SELECT 1 FROM triage_settled t"
		       "  WHERE t.fingerprint = i.fingerprint)"))
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

/* One row of SQL (bound to ID) through SPEC into a new *out. */
static int one_row(json_t **out, sqlite3 *db, const char *sql, long long id,
		   const char *spec, const char *what)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	*out = NULL;
	if (db_prepare(&st, db, sql))
		return -1;
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = json_object();
		json_set_cols(*out, st, 0, spec);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		error("no %s %lld in the database", what, id);
	} else {
		error("cannot read %s %lld: %s", what, id, sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return ret;
}

/* ---- warnings at a point ---- */

int query_point(struct query_point *p, sqlite3 *db, long long commit_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	if (db_prepare(&st, db,
		       "SELECT c.run_id, c.position, c.sha, r.tree_id,"
		       " (SELECT b.sha FROM commits b WHERE b.run_id = c.run_id"
		       "  ORDER BY b.position LIMIT 1)"
		       " FROM commits c JOIN runs r ON r.id = c.run_id"
		       " WHERE c.id = ?"))
		return -1;
	db_bind_int(st, 1, commit_id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		p->commit_id = commit_id;
		p->run_id = sqlite3_column_int64(st, 0);
		p->position = sqlite3_column_int(st, 1);
		p->sha = xstrdup(db_col_text(st, 2));
		p->tree_id = sqlite3_column_int64(st, 3);
		p->base = xstrdup(db_col_text(st, 4));
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return error("no commit %lld", commit_id);
	return error("cannot read commit %lld: %s", commit_id,
		     sqlite3_errmsg(db));
}

void query_point_release(struct query_point *p)
{
	free(p->sha);
	free(p->base);
	memset(p, 0, sizeof(*p));
}

/*
 * The triage filter of a point's warnings: ?11 is a state of
 * triage_states[], matched against TRIAGE_STATE_OF the warning's
 * identity.  A macro of its own, and a parameter number past the
 * statement's, so that it stays apart from how the warnings are paged.
 */
#define WQ_TRIAGE " AND (?11 IS NULL OR " TRIAGE_STATE_OF("i") " = ?11)"

/*
 * The filters of a point's warnings.  OPTION ?5 is "-W" and the option,
 * or "-W" and the kind of a warning without one ("-Wmodpost"), as the
 * over-time table by option names it "modpost".
 */
/*
 * The name of -W option X (SQL, "-W" first) without -W and without what
 * follows '=': "implicit-fallthrough" for gcc's "-Wimplicit-fallthrough="
 * and clang's "-Wimplicit-fallthrough" alike.  option_base() is the same
 * in C, for what a person types.
 */
#define OPT_BASE(x)                                                     \
	"substr(" x ", 3, CASE instr(" x ", '=') WHEN 0 THEN length(" x \
	") ELSE instr(" x ", '=') - 3 END)"

static char *option_base(const char *opt)
{
	if (!strncmp(opt, "-W", 2))
		opt += 2;
	return xstrndup(opt, strcspn(opt, "="));
}

#define WQ_WHERE                                                                      \
	" WHERE s.commit_id = ?1 AND ((?2 IS NULL AND s.state IN ('new',"             \
	" 'present')) OR s.state = ?2) AND (?3 IS NULL OR i.file = ?3)"               \
	" AND (?4 IS NULL OR i.function = ?4) AND (?5 IS NULL OR"                     \
	" " OPT_BASE(                                                                 \
		"COALESCE(i.option, '-W' || i.kind)") " = ?5)"                        \
						      " AND (?6 IS NULL OR i.file IN" \
						      " (SELECT value FROM json_each(?6)))" WQ_TRIAGE

static void wq_bind(sqlite3_stmt *st, const struct query_point *p,
		    const struct warn_filter *f, const char *option)
{
	db_bind_int(st, 1, p->commit_id, 0);
	db_bind_text(st, 2, f->state);
	db_bind_text(st, 3, f->file);
	db_bind_text(st, 4, f->function);
	db_bind_text(st, 5, option);
	db_bind_text(st, 6, f->files);
	db_bind_text(st, 11, f->triage);
}

static json_t *notes_json(sqlite3_stmt *nt, long long diag_id)
{
	json_t *notes = json_array();

	sqlite3_bind_int64(nt, 1, diag_id);
	while (sqlite3_step(nt) == SQLITE_ROW) {
		json_t *n = json_object();

		json_object_set_new(n, "file", json_col_str(nt, 0));
		json_object_set_new(n, "line", json_col_int(nt, 1));
		json_object_set_new(n, "column", json_col_int(nt, 2));
		json_object_set_new(n, "message", json_col_str(nt, 3));
		json_object_set_new(n, "source", json_col_str(nt, 4));
		json_array_append_new(notes, n);
	}
	sqlite3_reset(nt);
	return notes;
}

/*
 * The reproducer (repro_commands()) of the object in OBJ_COL at the build
 * in BUILD_COL, or null.
 */
static json_t *reproducer(sqlite3 *db, sqlite3_stmt *st, int obj_col,
			  int build_col)
{
	const char *obj = (const char *)sqlite3_column_text(st, obj_col);
	json_t *j;
	char *s = NULL;

	if (!obj || sqlite3_column_type(st, build_col) == SQLITE_NULL ||
	    repro_commands(&s, db, sqlite3_column_int64(st, build_col), obj))
		return json_null();
	j = jstr(s);
	free(s);
	return j;
}

/*
 * "introduced_author" into each warning of ARR at point P: the author of
 * the commit of P's run that introduced it, or null when it was there
 * before the run (introduced is the base) or the commit names none.
 */
static int introduced_authors(sqlite3 *db, json_t *arr,
			      const struct query_point *p)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	json_t *w;
	int rc = SQLITE_DONE;

	if (db_prepare(&st, db,
		       "SELECT author FROM commits WHERE sha = ?1"
		       " AND run_id = ?2 AND position > 0"))
		return -1;
	json_array_foreach(arr, i, w) {
		const char *sha =
			json_string_value(json_object_get(w, "introduced"));
		json_t *author = NULL;

		if (sha) {
			db_bind_text(st, 1, sha);
			db_bind_int(st, 2, p->run_id, 0);
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW)
				author = json_col_str(st, 0);
			else if (rc != SQLITE_DONE)
				break;
			sqlite3_reset(st);
			rc = SQLITE_DONE;
		}
		json_object_set_new(w, "introduced_author",
				    author ? author : json_null());
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("cannot read the authors of commit %lld: %s",
			     p->commit_id, sqlite3_errmsg(db));
	return 0;
}

int query_point_warnings(json_t **out, sqlite3 *db, const struct query_point *p,
			 const struct warn_filter *f)
{
	sqlite3_stmt *st = NULL, *nt = NULL, *cnt = NULL;
	const char *opt = f->option;
	char *optbuf = NULL;
	json_t *o = NULL, *arr;
	int rc = SQLITE_ERROR, ret = -1;

	*out = NULL;
	/* with or without -W, with or without gcc's "=" and a level */
	if (opt)
		opt = optbuf = option_base(opt);
	if (db_prepare(&cnt, db,
		       "SELECT COUNT(*) FROM states s JOIN identities i"
		       " ON i.id = s.identity_id" WQ_WHERE) ||
	    db_prepare(
		    &st, db,
		    "SELECT s.identity_id, s.state, s.seen, d.id,"
		    " COALESCE(d.file, i.file), d.line, d.col,"
		    " COALESCE(d.function, i.function),"
		    " COALESCE(d.option, i.option),"
		    " COALESCE(d.message, i.message), d.source, i.kind,"
		    " o.path, i.fingerprint, b.flags, d.build_id,"
		    " (SELECT c2.sha FROM states s2 JOIN commits c2"
		    "  ON c2.id = s2.commit_id WHERE s2.identity_id ="
		    "  s.identity_id AND c2.run_id = ?7 AND c2.position <= ?8"
		    "  AND s2.state = 'new' ORDER BY c2.position DESC"
		    "  LIMIT 1),"
		    " (SELECT c2.sha FROM states s2 JOIN commits c2"
		    "  ON c2.id = s2.commit_id WHERE s2.identity_id ="
		    "  s.identity_id AND c2.run_id = ?7 AND c2.position >= ?8"
		    "  AND s2.state = 'fixed' ORDER BY c2.position LIMIT 1),"
		    " s.in_change, cl.verdict, cl.fix, cl.reason, d.werror,"
		    " d.inline_chain, o.composite"
		    /* the page first: the subqueries above run for it only */
		    " FROM (SELECT s.identity_id AS iid FROM states s"
		    "  JOIN identities i ON i.id = s.identity_id"
		    "  LEFT JOIN diagnostics d ON d.id = s.diag_id" WQ_WHERE
		    "  ORDER BY COALESCE(d.file, i.file), d.line, d.col,"
		    "  s.identity_id LIMIT ?9 OFFSET ?10) pg"
		    " JOIN states s ON s.commit_id = ?1 AND s.identity_id = pg.iid"
		    " JOIN identities i ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " LEFT JOIN objects o ON o.id = d.object_id"
		    " LEFT JOIN builds b ON b.id = d.build_id"
		    " LEFT JOIN classifications cl"
		    "  ON cl.identity_id = s.identity_id"
		    " ORDER BY 5, 6, 7, s.identity_id") ||
	    db_prepare(&nt, db,
		       "SELECT file, line, col, message, source FROM notes"
		       " WHERE diag_id = ? ORDER BY seq"))
		goto out;
	wq_bind(cnt, p, f, opt);
	wq_bind(st, p, f, opt);
	db_bind_int(st, 7, p->run_id, 0);
	db_bind_int(st, 8, p->position, 0);
	db_bind_int(st, 9, f->limit > 0 ? f->limit : -1, 0);
	db_bind_int(st, 10, f->offset, 0);
	o = json_object();
	if (sqlite3_step(cnt) != SQLITE_ROW)
		goto fail;
	json_object_set_new(o, "total",
			    json_integer(sqlite3_column_int64(cnt, 0)));
	arr = json_array();
	json_object_set_new(o, "warnings", arr);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *w = json_object();

		json_object_set_new(w, "identity", json_col_str(st, 13));
		json_object_set_new(w, "identity_id", json_col_int(st, 0));
		json_object_set_new(w, "state", json_col_str(st, 1));
		json_object_set_new(w, "file", json_col_str(st, 4));
		json_object_set_new(w, "line", json_col_int(st, 5));
		json_object_set_new(w, "column", json_col_int(st, 6));
		json_object_set_new(w, "function", json_col_str(st, 7));
		json_object_set_new(w, "option", json_col_str(st, 8));
		json_object_set_new(w, "message", json_col_str(st, 9));
		json_object_set_new(w, "kind", json_col_str(st, 11));
		json_object_set_new(w, "werror",
				    json_boolean(sqlite3_column_int(st, 22)));
		json_object_set_new(w, "source", json_col_str(st, 10));
		json_object_set_new(w, "inline_chain", json_col_str(st, 23));
		json_object_set_new(w, "object", json_col_str(st, 12));
		/* the module the object is linked into (--build-dir) */
		json_object_set_new(w, "composite", json_col_str(st, 24));
		json_object_set_new(w, "seen", json_col_int(st, 2));
		json_object_set_new(w, "build", json_col_int(st, 15));
		json_object_set_new(w, "in_change",
				    json_boolean(sqlite3_column_int(st, 18)));
		json_object_set_new(w, "introduced",
				    sqlite3_column_type(st, 16) == SQLITE_NULL ?
					    jstr(p->base) :
					    json_col_str(st, 16));
		json_object_set_new(w, "fixed", json_col_str(st, 17));
		json_object_set_new(w, "reproducer",
				    reproducer(db, st, 12, 15));
		/* kwarn classify's verdict on a fall-through, or nulls */
		json_object_set_new(w, "verdict", json_col_str(st, 19));
		json_object_set_new(w, "fix", json_col_str(st, 20));
		json_object_set_new(w, "reason", json_col_str(st, 21));
		json_object_set_new(
			w, "notes",
			sqlite3_column_type(st, 3) == SQLITE_NULL ?
				json_array() :
				notes_json(nt, sqlite3_column_int64(st, 3)));
		json_array_append_new(arr, w);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	/*
	 * what people decided about each, one answer wherever it is shown,
	 * and who brought it: read for the page alone
	 */
	if (query_triage_annotate(db, arr, "identity") ||
	    introduced_authors(db, arr, p))
		goto out;
	*out = o;
	o = NULL;
	ret = 0;
	goto out;
fail:
	error("cannot read the warnings of commit %lld: %s", p->commit_id,
	      sqlite3_errmsg(db));
out:
	json_decref(o);
	sqlite3_finalize(cnt);
	sqlite3_finalize(st);
	sqlite3_finalize(nt);
	free(optbuf);
	return ret;
}

/* "triage" into the one warning W, as query_triage_annotate() sets it. */
static int triage_annotate_one(sqlite3 *db, json_t *w)
{
	json_t *one = json_pack("[O]", w);
	int ret = query_triage_annotate(db, one, "identity");

	json_decref(one);
	return ret;
}

int query_warning(json_t **out, sqlite3 *db, const char *ident,
		  long long commit_id)
{
	sqlite3_stmt *st = NULL, *nt = NULL;
	long long fp_key;
	json_t *w;
	int rc, id = is_id(ident);

	*out = NULL;
	if (db_prepare(
		    &st, db,
		    "SELECT s.commit_id, d.id, d.file, d.line, d.col,"
		    " d.source, d.message, o.path, i.fingerprint, d.function,"
		    " d.option, cl.verdict, cl.fix, cl.reason, d.inline_chain,"
		    " d.build_id"
		    " FROM identities i JOIN states s ON s.identity_id = i.id"
		    " JOIN diagnostics d ON d.id = s.diag_id"
		    " LEFT JOIN objects o ON o.id = d.object_id"
		    " LEFT JOIN classifications cl ON cl.identity_id = i.id"
		    " WHERE ((i.fp_key = ?5 AND i.fingerprint = ?1)"
		    "  OR (?2 AND i.id = ?3))"
		    " AND (?4 IS NULL OR s.commit_id = ?4)"
		    " ORDER BY s.commit_id DESC LIMIT 1") ||
	    db_prepare(&nt, db,
		       "SELECT file, line, col, message, source FROM notes"
		       " WHERE diag_id = ? ORDER BY seq")) {
		sqlite3_finalize(st);
		return -1;
	}
	db_bind_text(st, 1, ident);
	sqlite3_bind_int(st, 2, id);
	sqlite3_bind_int64(st, 3, id ? strtoll(ident, NULL, 10) : -1);
	db_bind_int(st, 4, commit_id, 1);
	/* the fingerprint is found through its indexed first 64 bits */
	if (ident_fingerprint_key(&fp_key, ident))
		sqlite3_bind_null(st, 5);
	else
		sqlite3_bind_int64(st, 5, fp_key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		w = json_object();
		json_set_cols(w, st, 0,
			      "commit_id:i diag_id:i file:s line:i "
			      "column:i source:s message:s object:s "
			      "identity:s function:s option:s "
			      "verdict:s fix:s reason:s "
			      "inline_chain:s build:i");
		json_object_set_new(w, "reproducer", reproducer(db, st, 7, 15));
		json_object_set_new(w, "notes",
				    notes_json(nt,
					       sqlite3_column_int64(st, 1)));
		json_object_del(w, "diag_id");
		*out = w;
	}
	sqlite3_finalize(st);
	sqlite3_finalize(nt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot look up warning '%s': %s", ident,
			     sqlite3_errmsg(db));
	if (*out && triage_annotate_one(db, *out)) {
		json_decref(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int query_burndown(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array(), *counts = NULL;
	char key[24];
	int rc = SQLITE_ERROR, ret = -1;

	*out = NULL;
	if (query_run_counts(&counts, db, run_id) ||
	    db_prepare(
		    &st, db,
		    "SELECT c.id, c.position, c.sha, c.subject, c.patch,"
		    " c.apply_status, x.bid, (SELECT bo.verdict FROM boots bo"
		    "  WHERE bo.build_id = x.bid ORDER BY bo.id DESC LIMIT 1)"
		    " FROM commits c, (SELECT cc.id AS cid, (SELECT MAX(b.id)"
		    "  FROM builds b WHERE b.commit_id = cc.id) AS bid"
		    "  FROM commits cc WHERE cc.run_id = ?1) x"
		    " WHERE c.id = x.cid ORDER BY c.position"))
		goto out;
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		static const char *const keys[] = { "warnings",	 "new",
						    "fixed",	 "not_built",
						    "by_option", "by_triage" };
		json_t *c = json_object(), *n;
		int built = sqlite3_column_type(st, 6) != SQLITE_NULL;

		json_object_set_new(c, "commit", json_col_str(st, 2));
		json_object_set_new(c, "id", json_col_int(st, 0));
		json_object_set_new(c, "position", json_col_int(st, 1));
		json_set_cols(c, st, 3,
			      "subject:s patch:s apply_status:s build:i");
		snprintf(key, sizeof(key), "%lld", sqlite3_column_int64(st, 0));
		n = json_object_get(counts, key);
		/* a commit without a build has no counts, not zero */
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
			json_object_set_new(
				c, keys[k],
				built && n ? json_incref(json_object_get(
						     n, keys[k])) :
				!strncmp(keys[k], "by_", 3) ? json_object() :
							      json_null());
		json_object_set_new(c, "boot", json_col_str(st, 7));
		json_array_append_new(arr, c);
	}
	if (rc != SQLITE_DONE) {
		error("cannot read the commits of run %lld: %s", run_id,
		      sqlite3_errmsg(db));
		goto out;
	}
	*out = arr;
	arr = NULL;
	ret = 0;
out:
	sqlite3_finalize(st);
	json_decref(counts);
	json_decref(arr);
	return ret;
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

/* ---- files and boots ---- */

int query_point_files(json_t **out, sqlite3 *db, long long commit_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT DISTINCT i.file FROM states s JOIN identities i"
		       " ON i.id = s.identity_id WHERE s.commit_id = ?"
		       " AND i.file IS NOT NULL"))
		return -1;
	db_bind_int(st, 1, commit_id, 0);
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(arr, jstr(db_col_text(st, 0)));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot read the files of commit %lld: %s",
			     commit_id, sqlite3_errmsg(db));
	}
	*out = arr;
	return 0;
}

int query_point_file_counts(json_t **out, sqlite3 *db, long long commit_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	*out = NULL;
	if (db_prepare(
		    &st, db,
		    "SELECT i.file, SUM(s.state = 'new'), COUNT(*),"
		    " SUM(" TRIAGE_STATE_OF(
			    "i") " = 'open')"
				 " FROM live_states s JOIN identities i"
				 " ON i.id = s.identity_id WHERE s.commit_id = ?"
				 " GROUP BY i.file"))
		return -1;
	db_bind_int(st, 1, commit_id, 0);
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		json_set_cols(o, st, 0, "file:s new:i warnings:i open:i");
		json_array_append_new(arr, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return error("cannot count the files of commit %lld: %s",
			     commit_id, sqlite3_errmsg(db));
	}
	*out = arr;
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
		     compiler_matches(db_col_text(st, 1), compiler)) &&
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
		     compiler_matches(db_col_text(st, 1), compiler)) &&
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

int query_group_counts(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	json_t *all = json_object();
	char key[24];
	int rc;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT c.position, COALESCE(r.compiler, 'gcc')"
		       "  || CASE WHEN COALESCE(r.arch, 'x86_64') = 'x86_64'"
		       "  THEN '' ELSE '/' || r.arch END,"
		       " EXISTS (SELECT 1 FROM builds b"
		       "  WHERE b.commit_id = c.id),"
		       " (SELECT TOTAL(p.n) FROM point_counts p"
		       "  WHERE p.commit_id = c.id"
		       "  AND p.state IN ('new', 'present'))"
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
			json_object_set_new(cur, "file", json_col_str(st, 2));
			json_object_set_new(cur, "function",
					    json_col_str(st, 3));
			json_object_set_new(cur, "compilers", json_array());
			json_object_set_new(cur, "warnings", json_array());
			json_array_append_new(arr, cur);
			last = json_string_value(json_object_get(cur, "site"));
		}
		json_array_append_new(json_object_get(cur, "compilers"),
				      json_string(db_col_text(st, 1)));
		json_object_set_new(w, "compiler",
				    json_string(db_col_text(st, 1)));
		json_object_set_new(w, "option", json_col_str(st, 4));
		json_object_set_new(w, "message", json_col_str(st, 5));
		json_object_set_new(w, "identity", json_col_str(st, 6));
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
	return one_row(out, db,
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
	return one_row(out, db,
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

int query_repro_stmt(sqlite3_stmt **out, sqlite3 *db, long long build_id)
{
	if (db_prepare(out, db,
		       "SELECT c.sha, b.image, b.config_hash, b.level,"
		       " b.status, b.compiler, t.kind, t.name, t.source,"
		       " t.sha256, b.build_dir, b.flags, r.compiler"
		       " FROM builds b"
		       " JOIN commits c ON c.id = b.commit_id"
		       " JOIN runs r ON r.id = c.run_id"
		       " JOIN trees t ON t.id = r.tree_id WHERE b.id = ?"))
		return -1;
	db_bind_int(*out, 1, build_id, 0);
	return 0;
}

int query_bisect_stmt(sqlite3_stmt **out, sqlite3 *db, const char *ident)
{
	if (db_prepare(out, db,
		       "SELECT i.fingerprint, NULL, o.path, c.sha,"
		       " (SELECT p.sha FROM commits p WHERE p.run_id = c.run_id"
		       "  AND p.position < c.position AND EXISTS (SELECT 1"
		       "  FROM builds pb WHERE pb.commit_id = p.id)"
		       "  ORDER BY p.position DESC LIMIT 1),"
		       " b.image, b.level, t.kind, t.name, t.source, t.sha256,"
		       " b.build_dir, b.flags, r.compiler"
		       " FROM identities i JOIN states s ON s.identity_id = i.id"
		       " JOIN commits c ON c.id = s.commit_id"
		       " JOIN runs r ON r.id = c.run_id"
		       " JOIN trees t ON t.id = r.tree_id"
		       " JOIN diagnostics d ON d.id = s.diag_id"
		       " JOIN builds b ON b.id = d.build_id"
		       " LEFT JOIN objects o ON o.id = d.object_id"
		       " WHERE (i.fingerprint = ?1 OR CAST(i.id AS TEXT) = ?1)"
		       " AND s.state IN ('new', 'present')"
		       " ORDER BY s.state = 'new' AND c.position > 0 DESC,"
		       " c.run_id DESC, c.position LIMIT 1"))
		return -1;
	db_bind_text(*out, 1, ident);
	return 0;
}

int query_base_shas_stmt(sqlite3_stmt **out, sqlite3 *db, long long run,
			 long long prev)
{
	if (db_prepare(out, db,
		       "SELECT (SELECT sha FROM commits WHERE run_id = ?1"
		       "  AND position = 0),"
		       " (SELECT sha FROM commits WHERE run_id = ?2"
		       "  AND position = 0)"))
		return -1;
	db_bind_int(*out, 1, run, 0);
	db_bind_int(*out, 2, prev, 0);
	return 0;
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

int query_diff_each(sqlite3 *db, long long from, long long to,
		    int (*fn)(const struct diff_row *row, void *ctx), void *ctx)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (db_prepare(&st, db,
		       "SELECT i.fingerprint, i.id, i.file,"
		       " COALESCE(db.line, da.line), i.function, i.option,"
		       " COALESCE(db.message, da.message, i.message),"
		       " sa.state, sb.state, cl.verdict, cl.fix, cl.reason"
		       " FROM identities i"
		       " LEFT JOIN states sa ON sa.commit_id = ?1"
		       "  AND sa.identity_id = i.id"
		       " LEFT JOIN states sb ON sb.commit_id = ?2"
		       "  AND sb.identity_id = i.id"
		       " LEFT JOIN diagnostics da ON da.id = sa.diag_id"
		       " LEFT JOIN diagnostics db ON db.id = sb.diag_id"
		       " LEFT JOIN classifications cl ON cl.identity_id = i.id"
		       " WHERE i.id IN (SELECT identity_id FROM live_states"
		       "  WHERE commit_id IN (?1, ?2))"
		       " ORDER BY i.file, 4, i.id"))
		return -1;
	db_bind_int(st, 1, from, 0);
	db_bind_int(st, 2, to, 0);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct diff_row w = {
			.identity = (const char *)sqlite3_column_text(st, 0),
			.identity_id = sqlite3_column_int64(st, 1),
			.file = (const char *)sqlite3_column_text(st, 2),
			.line = sqlite3_column_type(st, 3) == SQLITE_NULL ?
					-1 :
					sqlite3_column_int64(st, 3),
			.function = (const char *)sqlite3_column_text(st, 4),
			.option = (const char *)sqlite3_column_text(st, 5),
			.message = (const char *)sqlite3_column_text(st, 6),
			.from = (const char *)sqlite3_column_text(st, 7),
			.to = (const char *)sqlite3_column_text(st, 8),
			.verdict = (const char *)sqlite3_column_text(st, 9),
			.fix = (const char *)sqlite3_column_text(st, 10),
			.reason = (const char *)sqlite3_column_text(st, 11),
		};

		ret = fn(&w, ctx);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = error("cannot compare commits %lld and %lld: %s", from,
			    to, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int query_identity_states(json_t **out, sqlite3 *db, const char *ident,
			  long long run_id)
{
	sqlite3_stmt *st = NULL, *rs = NULL;
	long long fp_key = -1, iid = -1;
	json_t *o = NULL, *arr;
	int rc = SQLITE_ERROR, id = is_id(ident), ret = -1;

	*out = NULL;
	if (db_prepare(&st, db,
		       "SELECT i.id, i.fingerprint, (SELECT c.run_id FROM"
		       "  states s JOIN commits c ON c.id = s.commit_id"
		       "  WHERE s.identity_id = i.id ORDER BY c.run_id DESC"
		       "  LIMIT 1) FROM identities i"
		       " WHERE (i.fp_key = ?4 AND i.fingerprint = ?1)"
		       " OR (?2 AND i.id = ?3)") ||
	    db_prepare(&rs, db,
		       "SELECT c.id, c.position, c.sha, c.subject, s.state,"
		       " d.include_chain FROM commits c LEFT JOIN states s"
		       " ON s.commit_id = c.id AND s.identity_id = ?1"
		       " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		       " WHERE c.run_id = ?2 ORDER BY c.position"))
		goto out;
	db_bind_text(st, 1, ident);
	sqlite3_bind_int(st, 2, id);
	sqlite3_bind_int64(st, 3, id ? strtoll(ident, NULL, 10) : -1);
	if (ident_fingerprint_key(&fp_key, ident))
		sqlite3_bind_null(st, 4);
	else
		sqlite3_bind_int64(st, 4, fp_key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = 0;
		goto out;
	}
	if (rc != SQLITE_ROW)
		goto fail;
	iid = sqlite3_column_int64(st, 0);
	if (run_id < 0)
		run_id = sqlite3_column_type(st, 2) == SQLITE_NULL ?
				 0 :
				 sqlite3_column_int64(st, 2);
	o = json_object();
	json_object_set_new(o, "identity", json_col_str(st, 1));
	json_object_set_new(o, "identity_id", json_integer(iid));
	json_object_set_new(o, "run", json_integer(run_id));
	arr = json_array();
	json_object_set_new(o, "states", arr);
	db_bind_int(rs, 1, iid, 0);
	db_bind_int(rs, 2, run_id, 0);
	while ((rc = sqlite3_step(rs)) == SQLITE_ROW) {
		json_t *c = json_object();

		json_set_cols(c, rs, 0,
			      "id:i position:i sha:s subject:s state:s"
			      " include_chain:s");
		json_array_append_new(arr, c);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	*out = o;
	o = NULL;
	ret = 0;
	goto out;
fail:
	error("cannot read the states of warning '%s': %s", ident,
	      sqlite3_errmsg(db));
out:
	json_decref(o);
	sqlite3_finalize(st);
	sqlite3_finalize(rs);
	return ret;
}

/* Triage (schema 0024) */

/* Row of ST from column FIRST on (fingerprint state reason link who at
 * origin) into *R, as new strings. */
static void triage_row(struct triage_rec *r, sqlite3_stmt *st, int first)
{
	const char *link = (const char *)sqlite3_column_text(st, first + 3);

	r->fingerprint = xstrdup(db_col_text(st, first));
	r->state = xstrdup(db_col_text(st, first + 1));
	r->reason = xstrdup(db_col_text(st, first + 2));
	r->link = link ? xstrdup(link) : NULL;
	r->who = xstrdup(db_col_text(st, first + 4));
	r->at = sqlite3_column_int64(st, first + 5);
	r->origin = xstrdup(db_col_text(st, first + 6));
}

#define TRIAGE_COLS "fingerprint, state, reason, link, who, at, origin"

int query_triage_current(struct triage_rec *out, sqlite3 *db,
			 const char *fingerprint)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (db_prepare(&st, db,
		       "SELECT " TRIAGE_COLS " FROM triage"
		       " WHERE fingerprint = ? ORDER BY id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, fingerprint);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		triage_row(out, st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot read the triage of '%s': %s", fingerprint,
			     sqlite3_errmsg(db));
	return 0;
}

int query_triage_annotate(sqlite3 *db, json_t *warnings, const char *key)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	json_t *w;
	int rc = SQLITE_DONE;

	if (db_prepare(&st, db,
		       "SELECT " TRIAGE_COLS " FROM triage"
		       " WHERE fingerprint = ? ORDER BY id DESC LIMIT 1"))
		return -1;
	json_array_foreach(warnings, i, w) {
		const char *fp = json_string_value(json_object_get(w, key));
		json_t *t;

		if (!fp)
			continue;
		db_bind_text(st, 1, fp);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			t = json_object();
			json_set_cols(t, st, 1,
				      "state:s reason:s link:s who:s at:i"
				      " origin:s");
		} else if (rc == SQLITE_DONE) {
			t = json_pack("{s:s}", "state", "open");
		} else {
			break;
		}
		json_object_set_new(w, "triage", t);
		sqlite3_reset(st);
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("cannot read triage: %s", sqlite3_errmsg(db));
	return 0;
}

/* FN for every row of ST (bound, TRIAGE_COLS), then ST finalized. */
static int triage_rows(sqlite3 *db, sqlite3_stmt *st,
		       int (*fn)(const struct triage_rec *r, void *ctx),
		       void *ctx)
{
	int rc, ret = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct triage_rec r;

		triage_row(&r, st, 0);
		ret = fn(&r, ctx);
		triage_rec_release(&r);
		if (ret)
			break;
	}
	sqlite3_finalize(st);
	if (ret)
		return -1;
	if (rc != SQLITE_DONE)
		return error("cannot read triage: %s", sqlite3_errmsg(db));
	return 0;
}

int query_triage_each(sqlite3 *db, int current,
		      int (*fn)(const struct triage_rec *r, void *ctx),
		      void *ctx)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(&st, db,
		       current ? "SELECT " TRIAGE_COLS " FROM triage_current"
				 " ORDER BY fingerprint, id" :
				 "SELECT " TRIAGE_COLS " FROM triage"
				 " ORDER BY fingerprint, id"))
		return -1;
	return triage_rows(db, st, fn, ctx);
}

int query_triage_history(sqlite3 *db, const char *fingerprint,
			 int (*fn)(const struct triage_rec *r, void *ctx),
			 void *ctx)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(&st, db,
		       "SELECT " TRIAGE_COLS " FROM triage"
		       " WHERE fingerprint = ? ORDER BY id"))
		return -1;
	db_bind_text(st, 1, fingerprint);
	return triage_rows(db, st, fn, ctx);
}

/* Every fingerprint ST (bound) returns, into the new array *out. */
static int fingerprints(json_t **out, sqlite3 *db, sqlite3_stmt *st)
{
	int rc;

	*out = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(*out, jstr(db_col_text(st, 0)));
	if (rc == SQLITE_DONE)
		return 0;
	json_decref(*out);
	*out = NULL;
	return error("cannot look up warnings: %s", sqlite3_errmsg(db));
}

int query_identity_named(char **out, sqlite3 *db, const char *name)
{
	static const char *const by_line[] = {
		/* at the tip of a run, the newest run first */
		"SELECT DISTINCT i.fingerprint FROM run_tips t"
		" JOIN commit_builds cb ON cb.commit_id = t.commit_id"
		" JOIN diagnostics d ON d.build_id = cb.build_id"
		" JOIN identities i ON i.id = d.identity_id"
		" WHERE d.file = ?1 AND d.line = ?2 AND t.run_id ="
		" (SELECT MAX(t2.run_id) FROM run_tips t2"
		"  JOIN commit_builds cb2 ON cb2.commit_id = t2.commit_id"
		"  JOIN diagnostics d2 ON d2.build_id = cb2.build_id"
		"  WHERE d2.file = ?1 AND d2.line = ?2)",
		/* else any newest build of a commit */
		"SELECT DISTINCT i.fingerprint FROM commit_builds cb"
		" JOIN diagnostics d ON d.build_id = cb.build_id"
		" JOIN identities i ON i.id = d.identity_id"
		" WHERE d.file = ?1 AND d.line = ?2",
	};
	const char *colon = strrchr(name, ':');
	sqlite3_stmt *st = NULL;
	json_t *got = NULL;
	long line;
	size_t n;
	int ret = -1;

	*out = NULL;
	if (colon && colon > name &&
	    !util_parse_long(&line, colon + 1, 1, 1L << 30)) {
		char *file = xstrndup(name, (size_t)(colon - name));

		for (size_t i = 0; i < ARRAY_SIZE(by_line); i++) {
			if (db_prepare(&st, db, by_line[i]))
				break;
			db_bind_text(st, 1, file);
			db_bind_int(st, 2, line, 0);
			ret = fingerprints(&got, db, st);
			sqlite3_finalize(st);
			st = NULL;
			if (ret || json_array_size(got))
				break;
			json_decref(got);
			got = NULL;
		}
		free(file);
		if (ret)
			return -1;
	} else {
		n = strlen(name);
		if (n < 8 || n > 64 || strspn(name, "0123456789abcdef") != n) {
			fprintf(stderr,
				"kwarn: '%s' names no warning: give its"
				" identity (8 to 64 hex digits) or FILE:LINE\n",
				name);
			return 1;
		}
		if (db_prepare(&st, db,
			       "SELECT fingerprint FROM identities"
			       " WHERE substr(fingerprint, 1, ?2) = ?1"
			       " LIMIT 11"))
			return -1;
		db_bind_text(st, 1, name);
		db_bind_int(st, 2, (long long)n, 0);
		ret = fingerprints(&got, db, st);
		sqlite3_finalize(st);
		if (ret)
			return -1;
	}
	n = got ? json_array_size(got) : 0;
	if (n == 1) {
		*out = xstrdup(json_string_value(json_array_get(got, 0)));
		ret = 0;
	} else {
		fprintf(stderr, "kwarn: '%s' names %s\n", name,
			n ? "several warnings:" : "no stored warning");
		for (size_t i = 0; i < n && i < 10; i++)
			fprintf(stderr, "  %s\n",
				json_string_value(json_array_get(got, i)));
		ret = 1;
	}
	json_decref(got);
	return ret;
}

int query_identity_info(json_t **out, sqlite3 *db, const char *fingerprint)
{
	sqlite3_stmt *st = NULL;
	long long key;
	int rc;

	*out = NULL;
	if (ident_fingerprint_key(&key, fingerprint))
		return 0;
	if (db_prepare(&st, db,
		       "SELECT file, function, COALESCE(option, kind), message"
		       " FROM identities WHERE fp_key = ?1"
		       " AND fingerprint = ?2"))
		return -1;
	db_bind_int(st, 1, key, 0);
	db_bind_text(st, 2, fingerprint);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = json_object();
		json_set_cols(*out, st, 0,
			      "file:s function:s option:s message:s");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("cannot read warning '%s': %s", fingerprint,
			     sqlite3_errmsg(db));
	return 0;
}
