// SPDX-License-Identifier: MIT
/*
 * The helpers the query-*.c files share (query-impl.h).
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

/* Is S a decimal number that fits a commits.id? */
int query_is_id(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 18)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/*
 * {"ok": N, "failed": N, "failed_names": [...]} from columns AT.. of ST,
 * or null for a boot without modules (not --full, or no boot).
 */
json_t *query_boot_modules_json(sqlite3_stmt *st, int at)
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

json_t *query_rows(struct db_read *q, const char *spec)
{
	json_t *arr = json_array();

	while (db_next(q)) {
		json_t *o = json_object();

		json_set_cols(o, q->st, 0, spec);
		json_array_append_new(arr, o);
	}
	return arr;
}

int query_rows_done(json_t **out, struct db_read *q, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = db_vdone(q, fmt, ap);
	va_end(ap);
	if (ret) {
		json_decref(*out);
		*out = NULL;
	}
	return ret;
}

/* One row of SQL (bound to ID) through SPEC into a new *out. */
int query_one_row(json_t **out, sqlite3 *db, const char *sql, long long id,
		  const char *spec, const char *what)
{
	struct db_read q;

	*out = NULL;
	if (db_read(&q, db, sql, "i", id))
		return -1;
	if (db_next(&q)) {
		*out = json_object();
		json_set_cols(*out, q.st, 0, spec);
	}
	if (db_done(&q, "cannot read %s %lld", what, id))
		return -1;
	return *out ? 0 : error("no %s %lld in the database", what, id);
}

/* Does compiler NAME belong to what WANT names ("clang" has clang-16)? */
int query_compiler_matches(const char *name, const char *want)
{
	size_t l = strlen(want);

	return !strncmp(name, want, l) && (!name[l] || name[l] == '-');
}
