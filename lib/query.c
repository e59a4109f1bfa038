// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "query.h"
#include "util.h"
#include "banned.h"

int query_find_build(long long *build_out, long long *commit_out, sqlite3 *db,
		     const char *ref)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (db_prepare(&st, db,
		       ref ? "SELECT b.id, c.id FROM builds b JOIN commits c"
			     " ON c.id = b.commit_id WHERE c.sha = ?1"
			     " OR (length(?1) >= 7 AND substr(c.sha, 1,"
			     " length(?1)) = ?1) ORDER BY b.id DESC LIMIT 1" :
			     "SELECT b.id, b.commit_id FROM builds b"
			     " ORDER BY b.id DESC LIMIT 1"))
		return -1;
	if (ref)
		db_bind_text(st, 1, ref);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*build_out = sqlite3_column_int64(st, 0);
		*commit_out = sqlite3_column_int64(st, 1);
		ret = 0;
	} else if (ref) {
		error("no build of commit '%s' in the database", ref);
	} else {
		error("the database holds no build yet");
	}
	sqlite3_finalize(st);
	return ret;
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
