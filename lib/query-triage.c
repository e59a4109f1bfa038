// SPDX-License-Identifier: MIT
/*
 * Reads by question, triage decisions: the triage records (schema
 * 0024): the current decision of an identity, its history, and the
 * warnings annotated with their triage.  The contract of each function
 * is in query-triage.h.
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
	struct db_read q;

	memset(out, 0, sizeof(*out));
	if (db_read(&q, db,
		    "SELECT " TRIAGE_COLS " FROM triage"
		    " WHERE fingerprint = ? ORDER BY id DESC LIMIT 1",
		    "s", fingerprint))
		return -1;
	if (db_next(&q))
		triage_row(out, q.st, 0);
	return db_done(&q, "cannot read the triage of '%s'", fingerprint);
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

/* FN for every row of Q (TRIAGE_COLS) till it returns nonzero; finishes Q. */
static int triage_rows(struct db_read *q,
		       int (*fn)(const struct triage_rec *r, void *ctx),
		       void *ctx)
{
	int ret = 0;

	while (!ret && db_next(q)) {
		struct triage_rec r;

		triage_row(&r, q->st, 0);
		ret = fn(&r, ctx);
		triage_rec_release(&r);
	}
	if (db_done(q, "cannot read triage"))
		return -1;
	return ret ? -1 : 0;
}

int query_triage_each(sqlite3 *db, int current,
		      int (*fn)(const struct triage_rec *r, void *ctx),
		      void *ctx)
{
	struct db_read q;

	if (db_read(&q, db,
		    current ? "SELECT " TRIAGE_COLS " FROM triage_current"
			      " ORDER BY fingerprint, id" :
			      "SELECT " TRIAGE_COLS " FROM triage"
			      " ORDER BY fingerprint, id",
		    ""))
		return -1;
	return triage_rows(&q, fn, ctx);
}

int query_triage_history(sqlite3 *db, const char *fingerprint,
			 int (*fn)(const struct triage_rec *r, void *ctx),
			 void *ctx)
{
	struct db_read q;

	if (db_read(&q, db,
		    "SELECT " TRIAGE_COLS " FROM triage"
		    " WHERE fingerprint = ? ORDER BY id",
		    "s", fingerprint))
		return -1;
	return triage_rows(&q, fn, ctx);
}

int query_site_identities(json_t **out, sqlite3 *db, const char *site)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT fingerprint FROM identities WHERE site = ?"
		    " ORDER BY fingerprint",
		    "s", site))
		return -1;
	*out = json_array();
	while (db_next(&q))
		json_array_append_new(*out, jstr(db_col_text(q.st, 0)));
	return query_rows_done(out, &q, "cannot read the site '%s'", site);
}
