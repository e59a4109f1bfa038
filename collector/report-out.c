// SPDX-License-Identifier: MIT
/*
 * What the report formats read besides report_run_json(): the run's tree
 * and each build's compiler, config and times.
 */
#include <string.h>

#include "db.h"
#include "report-out.h"
#include "util.h"
#include "banned.h"

const char *report_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Columns of ST named by SPEC ("name:s other:i ...") into O from FIRST. */
static void set_cols(json_t *o, sqlite3_stmt *st, int first, const char *spec)
{
	char name[64];
	const char *p = spec;
	int col = first;

	while (*p) {
		size_t n = strcspn(p, ":");
		char type = p[n + 1];

		if (n >= sizeof(name) || !type)
			break;
		memcpy(name, p, n);
		name[n] = '\0';
		if (sqlite3_column_type(st, col) == SQLITE_NULL)
			json_object_set_new(o, name, json_null());
		else if (type == 'i')
			json_object_set_new(
				o, name,
				json_integer(sqlite3_column_int64(st, col)));
		else
			json_object_set_new(o, name,
					    json_string(db_col_text(st, col)));
		col++;
		p += n + 2;
		while (*p == ' ')
			p++;
	}
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
		set_cols(*out, st, 0, spec);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		error("no %s %lld in the database", what, id);
	} else {
		error("cannot read %s %lld: %s", what, id, sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return ret;
}

int report_run_info(json_t **out, sqlite3 *db, long long run_id)
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

int report_build_info(json_t **out, sqlite3 *db, long long build_id)
{
	return one_row(out, db,
		       "SELECT compiler, config_name, config_hash, status,"
		       " level, wall_ms, created_at, log_tail, image"
		       " FROM builds WHERE id = ?",
		       build_id,
		       "compiler:s config_name:s config_hash:s status:s "
		       "level:i wall_ms:i created_at:i log_tail:s image:s",
		       "build");
}
