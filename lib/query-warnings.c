// SPDX-License-Identifier: MIT
/*
 * Reads by question, warnings at a point: the warnings of one point as
 * every view lists them, one warning whole, the files of a point, the
 * sites a warning has across compilers.  The contract of each function
 * is in query-warnings.h.
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
#include "triage.h"
#include "util.h"
#include "banned.h"

/* ---- warnings at a point ---- */

int query_point(struct query_point *p, sqlite3 *db, long long commit_id)
{
	struct db_read q;

	memset(p, 0, sizeof(*p));
	if (db_read(&q, db,
		    "SELECT c.run_id, c.position, c.sha, r.tree_id,"
		    " (SELECT b.sha FROM commits b WHERE b.run_id = c.run_id"
		    "  ORDER BY b.position LIMIT 1)"
		    " FROM commits c JOIN runs r ON r.id = c.run_id"
		    " WHERE c.id = ?",
		    "i", commit_id))
		return -1;
	if (db_next(&q)) {
		p->commit_id = commit_id;
		p->run_id = sqlite3_column_int64(q.st, 0);
		p->position = sqlite3_column_int(q.st, 1);
		p->sha = xstrdup(db_col_text(q.st, 2));
		p->tree_id = sqlite3_column_int64(q.st, 3);
		p->base = xstrdup(db_col_text(q.st, 4));
	}
	if (db_done(&q, "cannot read commit %lld", commit_id))
		return -1;
	return q.rows ? 0 : error("no commit %lld", commit_id);
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
 * ?12, the same way: kwarn classify's verdict, "none" where it made none.
 */
#define WQ_TRIAGE                                                                \
	" AND (?11 IS NULL OR " TRIAGE_STATE_OF(                                 \
		"i") " = ?11)"                                                   \
		     " AND (?12 IS NULL OR COALESCE((SELECT cv.verdict FROM"     \
		     " classifications cv WHERE cv.identity_id = i.id), 'none')" \
		     " = ?12)"

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

/* ?13: the tool of the warning's kind (diag_tools[]), as ?11 past the page's. */
#define WQ_KIND " AND (?13 IS NULL OR " KIND_TOOL("i.kind") " = ?13)"

#define WQ_WHERE                                                                                      \
	" WHERE s.commit_id = ?1 AND ((?2 IS NULL AND s.state IN ('new',"                             \
	" 'present')) OR s.state = ?2) AND (?3 IS NULL OR i.file = ?3)"                               \
	" AND (?4 IS NULL OR i.function = ?4) AND (?5 IS NULL OR"                                     \
	" " OPT_BASE(                                                                                 \
		"COALESCE(i.option, '-W' || i.kind)") " = ?5)"                                        \
						      " AND (?6 IS NULL OR i.file IN"                 \
						      " (SELECT value FROM json_each(?6)))" WQ_TRIAGE \
							      WQ_KIND

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
	db_bind_text(st, 12, f->verdict);
	db_bind_text(st, 13, f->kind);
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

/* The columns of a point's warnings: the row warning_json() reads. */
#define WARNING_COLS                                               \
	"SELECT s.identity_id, s.state, s.seen, d.id,"             \
	" COALESCE(d.file, i.file), d.line, d.col,"                \
	" COALESCE(d.function, i.function),"                       \
	" COALESCE(d.option, i.option),"                           \
	" COALESCE(d.message, i.message), d.source, i.kind,"       \
	" o.path, i.fingerprint, b.flags, d.build_id,"             \
	" (SELECT c2.sha FROM states s2 JOIN commits c2"           \
	"  ON c2.id = s2.commit_id WHERE s2.identity_id ="         \
	"  s.identity_id AND c2.run_id = ?7 AND c2.position <= ?8" \
	"  AND s2.state = 'new' ORDER BY c2.position DESC"         \
	"  LIMIT 1),"                                              \
	" (SELECT c2.sha FROM states s2 JOIN commits c2"           \
	"  ON c2.id = s2.commit_id WHERE s2.identity_id ="         \
	"  s.identity_id AND c2.run_id = ?7 AND c2.position >= ?8" \
	"  AND s2.state = 'fixed' ORDER BY c2.position LIMIT 1),"  \
	" s.in_change, cl.verdict, cl.fix, cl.reason, d.werror,"   \
	" d.inline_chain, o.composite"

/* One warning of the point P from ST's row (WARNING_COLS); NT: its notes. */
static json_t *warning_json(sqlite3_stmt *st, sqlite3_stmt *nt,
			    const struct query_point *p)
{
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
	/* attached at the edge (repro_attach()) */
	json_object_set_new(w, "reproducer", json_null());
	/* kwarn classify's verdict on a fall-through, or nulls */
	json_object_set_new(w, "verdict", json_col_str(st, 19));
	json_object_set_new(w, "fix", json_col_str(st, 20));
	json_object_set_new(w, "reason", json_col_str(st, 21));
	json_object_set_new(w, "notes",
			    sqlite3_column_type(st, 3) == SQLITE_NULL ?
				    json_array() :
				    notes_json(nt,
					       sqlite3_column_int64(st, 3)));
	return w;
}

/*
 * Hand BATCH's warnings to EACH, after reading for them alone what
 * people decided about each (one answer wherever it is shown) and who
 * brought it.  Returns 0, EACH's nonzero, or -1 (reported).
 */
static int batch_hand(sqlite3 *db, json_t *batch, const struct query_point *p,
		      query_warning_fn *each, void *ctx)
{
	size_t i;
	json_t *w;
	int rc = 0;

	if (query_triage_annotate(db, batch, "identity") ||
	    introduced_authors(db, batch, p))
		return -1;
	json_array_foreach(batch, i, w) {
		rc = each(ctx, json_incref(w));
		if (rc)
			break;
	}
	json_array_clear(batch);
	return rc;
}

/* Warnings read, annotated and handed on at a time. */
#define WARNING_BATCH 256

int query_point_warnings_each(long long *total, sqlite3 *db,
			      const struct query_point *p,
			      const struct warn_filter *f,
			      query_warning_fn *each, void *ctx)
{
	struct db_read cnt, q;
	sqlite3_stmt *nt = NULL;
	char *opt = NULL;
	json_t *batch = NULL;
	int ret = -1;

	*total = 0;
	/* with or without -W, with or without gcc's "=" and a level */
	if (f->option)
		opt = option_base(f->option);
	if (db_prepare(&nt, db,
		       "SELECT file, line, col, message, source FROM notes"
		       " WHERE diag_id = ? ORDER BY seq") ||
	    db_read(&cnt, db,
		    "SELECT COUNT(*) FROM states s JOIN identities i"
		    " ON i.id = s.identity_id" WQ_WHERE,
		    ""))
		goto out;
	wq_bind(cnt.st, p, f, opt);
	if (db_next(&cnt))
		*total = sqlite3_column_int64(cnt.st, 0);
	if (db_done(&cnt, "cannot count the warnings of commit %lld",
		    p->commit_id) ||
	    db_read(&q, db,
		    WARNING_COLS
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
		    " ORDER BY 5, 6, 7, s.identity_id",
		    ""))
		goto out;
	wq_bind(q.st, p, f, opt);
	db_bind_int(q.st, 7, p->run_id, 0);
	db_bind_int(q.st, 8, p->position, 0);
	db_bind_int(q.st, 9, f->limit > 0 ? f->limit : -1, 0);
	db_bind_int(q.st, 10, f->offset, 0);
	batch = json_array();
	ret = 0;
	while (!ret && db_next(&q)) {
		json_array_append_new(batch, warning_json(q.st, nt, p));
		if (json_array_size(batch) == WARNING_BATCH)
			ret = batch_hand(db, batch, p, each, ctx);
	}
	if (db_done(&q, "cannot read the warnings of commit %lld",
		    p->commit_id))
		ret = -1;
	if (!ret)
		ret = batch_hand(db, batch, p, each, ctx);
out:
	json_decref(batch);
	sqlite3_finalize(nt);
	free(opt);
	return ret;
}

/* query_point_warnings()'s EACH: into the array CTX. */
static int collect(void *ctx, json_t *w)
{
	return json_array_append_new(ctx, w);
}

int query_point_warnings(json_t **out, sqlite3 *db, const struct query_point *p,
			 const struct warn_filter *f)
{
	json_t *arr = json_array();
	long long total;

	*out = NULL;
	if (query_point_warnings_each(&total, db, p, f, collect, arr)) {
		json_decref(arr);
		return -1;
	}
	*out = json_pack("{s:I, s:o}", "total", (json_int_t)total, "warnings",
			 arr);
	return 0;
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
		  long long commit_id, long long run_id)
{
	struct db_read q;
	sqlite3_stmt *nt = NULL;
	long long fp_key;
	int id = query_is_id(ident), ret;

	*out = NULL;
	if (db_prepare(&nt, db,
		       "SELECT file, line, col, message, source FROM notes"
		       " WHERE diag_id = ? ORDER BY seq"))
		return -1;
	if (db_read(&q, db,
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
		    " AND (?6 IS NULL OR s.commit_id IN"
		    "  (SELECT id FROM commits WHERE run_id = ?6))"
		    /* where it was live last, not the commit that fixed it */
		    " ORDER BY s.state IN ('new', 'present') DESC,"
		    " s.commit_id DESC LIMIT 1",
		    "sdin", ident, id, id ? strtoll(ident, NULL, 10) : -1LL,
		    commit_id)) {
		sqlite3_finalize(nt);
		return -1;
	}
	/* the fingerprint is found through its indexed first 64 bits */
	if (!ident_fingerprint_key(&fp_key, ident))
		sqlite3_bind_int64(q.st, 5, fp_key);
	db_bind_int(q.st, 6, run_id, 1);
	if (db_next(&q)) {
		json_t *w = json_object();

		json_set_cols(w, q.st, 0,
			      "commit_id:i diag_id:i file:s line:i "
			      "column:i source:s message:s object:s "
			      "identity:s function:s option:s "
			      "verdict:s fix:s reason:s "
			      "inline_chain:s build:i");
		/* attached at the edge (repro_attach()) */
		json_object_set_new(w, "reproducer", json_null());
		json_object_set_new(w, "notes",
				    notes_json(nt,
					       sqlite3_column_int64(q.st, 1)));
		json_object_del(w, "diag_id");
		*out = w;
	}
	sqlite3_finalize(nt);
	ret = db_done(&q, "cannot look up warning '%s'", ident);
	if (!ret && *out)
		ret = triage_annotate_one(db, *out);
	if (ret) {
		json_decref(*out);
		*out = NULL;
	}
	return ret;
}

/* ---- files and boots ---- */

int query_point_files(json_t **out, sqlite3 *db, long long commit_id)
{
	struct db_read q;

	if (db_read(&q, db,
		    "SELECT DISTINCT i.file FROM states s JOIN identities i"
		    " ON i.id = s.identity_id WHERE s.commit_id = ?"
		    " AND i.file IS NOT NULL",
		    "i", commit_id))
		return -1;
	*out = json_array();
	while (db_next(&q))
		json_array_append_new(*out, jstr(db_col_text(q.st, 0)));
	return query_rows_done(out, &q, "cannot read the files of commit %lld",
			       commit_id);
}

int query_point_file_counts(json_t **out, sqlite3 *db, long long commit_id,
			    const char *kind)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT i.file, SUM(s.state = 'new'), COUNT(*),"
		    " SUM(" TRIAGE_STATE_OF(
			    "i") " = 'open')"
				 " FROM live_states s JOIN identities i"
				 " ON i.id = s.identity_id WHERE s.commit_id = ?"
				 " AND (?2 IS NULL OR " KIND_TOOL(
					 "i.kind") " = ?2)"
						   " GROUP BY i.file",
		    "is", commit_id, kind))
		return -1;
	*out = query_rows(&q, "file:s new:i warnings:i open:i");
	return query_rows_done(out, &q, "cannot count the files of commit %lld",
			       commit_id);
}

/* Which of "gcc" and "clang" the compilers array C names: bit 1, bit 2. */
static int compiler_families(json_t *c)
{
	json_t *v;
	size_t i;
	int f = 0;

	json_array_foreach(c, i, v) {
		f |= query_compiler_matches(json_string_value(v), "gcc") ? 1 :
									   0;
		f |= query_compiler_matches(json_string_value(v), "clang") ? 2 :
									     0;
	}
	return f;
}

int query_sites(json_t **out, sqlite3 *db, long long run_id, long position,
		const char *only)
{
	struct db_read q;
	sqlite3_stmt *st;
	json_t *arr, *cur = NULL, *res, *ccs, *c;
	const char *last = NULL;
	long long last_line = -1;
	size_t i;
	int have;

	*out = NULL;
	/*
	 * A site key names a label by its text: two fall-throughs of one
	 * function into two "default:" labels share it.  The label's line
	 * at this point (gcc's "here" note, clang's own line, else the
	 * warning's), the same for every compiler of the group, tells them
	 * apart.
	 */
	if (db_read(&q, db,
		    "SELECT i.site, COALESCE(r.compiler, 'gcc'), i.file,"
		    " i.function, i.option, i.message, i.fingerprint,"
		    " COALESCE((SELECT n.line FROM notes n"
		    "  WHERE n.diag_id = s.diag_id AND n.message = 'here'"
		    "  ORDER BY n.seq LIMIT 1), (SELECT d.line"
		    "  FROM diagnostics d WHERE d.id = s.diag_id)) AS at_line"
		    " FROM" GROUP_RUNS " JOIN commits c ON c.run_id = r.id"
		    " AND c.position = COALESCE(?2, (SELECT MAX(c2.position)"
		    "  FROM commits c2 WHERE c2.run_id = r0.id"
		    "  AND EXISTS (SELECT 1 FROM builds b"
		    "   WHERE b.commit_id = c2.id)))"
		    " JOIN live_states s ON s.commit_id = c.id"
		    " JOIN identities i ON i.id = s.identity_id"
		    " WHERE r0.id = ?1 AND i.site IS NOT NULL"
		    " ORDER BY i.site, at_line, r.id",
		    "in", run_id, (long long)position))
		return -1;
	st = q.st;
	arr = json_array();
	while (db_next(&q)) {
		const char *site = db_col_text(st, 0);
		long long line = sqlite3_column_type(st, 7) == SQLITE_NULL ?
					 0 :
					 sqlite3_column_int64(st, 7);
		json_t *w = json_object();

		if (!cur || strcmp(last, site) || line != last_line) {
			cur = json_object();
			json_object_set_new(cur, "site", json_string(site));
			json_object_set_new(cur, "line", json_col_int(st, 7));
			json_object_set_new(cur, "file", json_col_str(st, 2));
			json_object_set_new(cur, "function",
					    json_col_str(st, 3));
			json_object_set_new(cur, "compilers", json_array());
			json_object_set_new(cur, "warnings", json_array());
			json_array_append_new(arr, cur);
			last = json_string_value(json_object_get(cur, "site"));
			last_line = line;
		}
		/* each compiler once, however many of its warnings */
		ccs = json_object_get(cur, "compilers");
		have = 0;
		json_array_foreach(ccs, i, c)
			have |= !strcmp(json_string_value(c),
					db_col_text(st, 1));
		if (!have)
			json_array_append_new(ccs,
					      json_string(db_col_text(st, 1)));
		json_object_set_new(w, "compiler",
				    json_string(db_col_text(st, 1)));
		json_object_set_new(w, "option", json_col_str(st, 4));
		json_object_set_new(w, "message", json_col_str(st, 5));
		json_object_set_new(w, "identity", json_col_str(st, 6));
		json_array_append_new(json_object_get(cur, "warnings"), w);
	}
	if (db_done(&q, "cannot read the sites of run %lld", run_id)) {
		json_decref(arr);
		return -1;
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
