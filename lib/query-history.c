// SPDX-License-Identifier: MIT
/*
 * Reads by question, history and states: how warnings move between
 * builds: the nightly's comparisons with earlier runs, the diff of two
 * commits, the states of one identity over a run, identities by name.
 * The contract of each function is in query-history.h.
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

/* ---- nightly ---- */

/*
 * Warnings present at the base of RUN but not at the base of OLDER, as a
 * JSON array of {file, line, column, function, option, message, cause,
 * identity, kind}.
 * With SPLIT >= 0 (the older tree rebuilt with RUN's compiler), a warning
 * that SPLIT has too comes from the compiler, any other from the code;
 * else every warning gets CAUSE.
 */
int query_new_against(json_t **out, sqlite3 *db, long long run, long long older,
		      const char *cause, long long split)
{
	struct db_read q;
	sqlite3_stmt *st;
	json_t *arr;

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT i.file, d.line, i.function, i.option, d.message,"
		    " d.col, s.identity_id IN (SELECT s3.identity_id"
		    "  FROM live_states s3 JOIN commits c3 ON c3.id = s3.commit_id"
		    "  WHERE c3.run_id = ?3 AND c3.position = 0),"
		    " i.fingerprint, i.kind"
		    " FROM live_states s JOIN commits c ON c.id = s.commit_id"
		    " JOIN identities i ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " WHERE c.run_id = ?1 AND c.position = 0"
		    " AND s.identity_id NOT IN (SELECT s2.identity_id"
		    "  FROM live_states s2 JOIN commits c2 ON c2.id = s2.commit_id"
		    "  WHERE c2.run_id = ?2 AND c2.position = 0)"
		    " ORDER BY i.file, d.line",
		    "iii", run, older, split))
		return -1;
	st = q.st;
	arr = json_array();
	while (db_next(&q)) {
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
		json_object_set_new(w, "kind", json_col_str(st, 8));
		json_array_append_new(arr, w);
	}
	if (db_done(&q, "cannot compare run %lld with run %lld", run, older) ||
	    query_triage_annotate(db, arr, "identity")) {
		json_decref(arr);
		return -1;
	}
	*out = arr;
	return 0;
}

/*
 * The first column of Q's first row (a run id) into *out, -1 when there
 * is no row; finishes Q.  Returns 0 or -1 (reported).
 */
static int first_id(long long *out, struct db_read *q)
{
	*out = db_next(q) ? sqlite3_column_int64(q->st, 0) : -1;
	return db_done(q, "cannot look up runs");
}

int query_previous_nightly(long long *out, sqlite3 *db, long long run,
			   const char *name, const char *arch)
{
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.name = ?1 AND r.id < ?2"
		    " AND COALESCE(r.arch, 'x86_64') = COALESCE(?3,"
		    "  (SELECT COALESCE(arch, 'x86_64') FROM runs WHERE id = ?2),"
		    "  'x86_64')"
		    " ORDER BY r.id DESC LIMIT 1",
		    "sis", name, run, arch))
		return -1;
	return first_id(out, &q);
}

int query_previous_nightly_of(long long *out, sqlite3 *db, long long run,
			      const char *name, const char *cc,
			      const char *warnings, const char *targets,
			      const char *arch)
{
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.name = ?1 AND r.id < ?2"
		    " AND COALESCE(r.compiler, 'gcc') = ?3"
		    " AND json_extract(r.params, '$.warnings') IS ?4"
		    " AND json_extract(r.params, '$.targets') IS ?5"
		    " AND COALESCE(r.arch, 'x86_64') = COALESCE(?6, 'x86_64')"
		    " ORDER BY r.id DESC LIMIT 1",
		    "sissss", name, run, cc, warnings, targets, arch))
		return -1;
	return first_id(out, &q);
}

int query_nightly_with_compiler(long long *out, sqlite3 *db, long long tree_id,
				const char *compiler)
{
	struct db_read q;

	*out = -1;
	if (db_read(&q, db,
		    "SELECT r.id FROM runs r JOIN commits c ON c.run_id = r.id"
		    " AND c.position = 0 JOIN builds b ON b.commit_id = c.id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND r.tree_id = ? AND b.compiler = ?"
		    " ORDER BY r.id DESC LIMIT 1",
		    "is", tree_id, compiler))
		return -1;
	return first_id(out, &q);
}

int query_newest_older_tree(long long *out, sqlite3 *db, long long run,
			    const char *name, const char *version,
			    const char *compiler)
{
	struct db_read q;
	long long best = -1;
	long bv[3] = { -1, -1, -1 }, mv[3] = { 0, 0, 0 };
	int best_same = 0;

	sscanf(version, "%ld.%ld.%ld", &mv[0], &mv[1], &mv[2]);
	if (db_read(&q, db,
		    "SELECT r.id, COALESCE(t.version, ''),"
		    " (SELECT b.compiler FROM commits c JOIN builds b"
		    "  ON b.commit_id = c.id WHERE c.run_id = r.id"
		    "  AND c.position = 0 ORDER BY b.id DESC LIMIT 1) = ?3"
		    " FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.name <> ?1 AND r.id <> ?2 ORDER BY r.id",
		    "sis", name, run, compiler))
		return -1;
	*out = -1;
	while (db_next(&q)) {
		long v[3] = { 0, 0, 0 };
		int newer = 0, cmp = 0, same = sqlite3_column_int(q.st, 2);

		sscanf(db_col_text(q.st, 1), "%ld.%ld.%ld", &v[0], &v[1],
		       &v[2]);
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
			best = sqlite3_column_int64(q.st, 0);
			memcpy(bv, v, sizeof(bv));
			best_same = same;
		}
	}
	if (db_done(&q, "cannot look up older trees"))
		return -1;
	*out = best;
	return 0;
}

int query_nightly_measured(int *out, sqlite3 *db, const char *path,
			   const char *sha, const char *config,
			   const char *compiler)
{
	struct db_read q;

	*out = 0;
	if (db_read(&q, db,
		    "SELECT 1 FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " JOIN commits c ON c.run_id = r.id AND c.position = 0"
		    " JOIN builds b ON b.commit_id = c.id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.sha256 IS ? AND t.source = ? AND r.config = ?"
		    " AND b.compiler = ?",
		    "ssss", sha, path, config, compiler))
		return -1;
	*out = db_next(&q);
	return db_done(&q, "cannot look up nightly runs");
}

int query_diff_each(sqlite3 *db, long long from, long long to,
		    int (*fn)(const struct diff_row *row, void *ctx), void *ctx)
{
	struct db_read q;
	sqlite3_stmt *st;
	int ret = 0;

	if (db_read(&q, db,
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
		    " ORDER BY i.file, 4, i.id",
		    "ii", from, to))
		return -1;
	st = q.st;
	while (!ret && db_next(&q)) {
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
	if (db_done(&q, "cannot compare commits %lld and %lld", from, to))
		return -1;
	return ret;
}

int query_identity_states(json_t **out, sqlite3 *db, const char *ident,
			  long long run_id)
{
	struct db_read q;
	long long fp_key, iid = -1;
	json_t *o = NULL, *arr;
	int id = query_is_id(ident);

	*out = NULL;
	if (db_read(&q, db,
		    "SELECT i.id, i.fingerprint, (SELECT c.run_id FROM"
		    "  states s JOIN commits c ON c.id = s.commit_id"
		    "  WHERE s.identity_id = i.id ORDER BY c.run_id DESC"
		    "  LIMIT 1) FROM identities i"
		    " WHERE (i.fp_key = ?4 AND i.fingerprint = ?1)"
		    " OR (?2 AND i.id = ?3)",
		    "sdi", ident, id, id ? strtoll(ident, NULL, 10) : -1LL))
		return -1;
	/* ?4 stays unbound, NULL, when IDENT has no key (any key may be < 0) */
	if (!ident_fingerprint_key(&fp_key, ident))
		sqlite3_bind_int64(q.st, 4, fp_key);
	if (db_next(&q)) {
		iid = sqlite3_column_int64(q.st, 0);
		if (run_id < 0)
			run_id = sqlite3_column_type(q.st, 2) == SQLITE_NULL ?
					 0 :
					 sqlite3_column_int64(q.st, 2);
		o = json_object();
		json_object_set_new(o, "identity", json_col_str(q.st, 1));
		json_object_set_new(o, "identity_id", json_integer(iid));
		json_object_set_new(o, "run", json_integer(run_id));
	}
	if (db_done(&q, "cannot read the states of warning '%s'", ident))
		return -1;
	if (!o)
		return 0;
	if (db_read(&q, db,
		    "SELECT c.id, c.position, c.sha, c.subject, s.state,"
		    " d.include_chain FROM commits c LEFT JOIN states s"
		    " ON s.commit_id = c.id AND s.identity_id = ?1"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " WHERE c.run_id = ?2 ORDER BY c.position",
		    "ii", iid, run_id)) {
		json_decref(o);
		return -1;
	}
	arr = query_rows(&q, "id:i position:i sha:s subject:s state:s"
			     " include_chain:s");
	if (query_rows_done(&arr, &q, "cannot read the states of warning '%s'",
			    ident)) {
		json_decref(o);
		return -1;
	}
	json_object_set_new(o, "states", arr);
	*out = o;
	return 0;
}

/* Every fingerprint Q returns, into the new array *out; finishes Q. */
static int fingerprints(json_t **out, struct db_read *q)
{
	*out = json_array();
	while (db_next(q))
		json_array_append_new(*out, jstr(db_col_text(q->st, 0)));
	return query_rows_done(out, q, "cannot look up warnings");
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
	struct db_read q;
	json_t *got = NULL;
	long line;
	size_t n;
	int ret = -1;

	*out = NULL;
	if (colon && colon > name &&
	    !util_parse_long(&line, colon + 1, 1, 1L << 30)) {
		char *file = xstrndup(name, (size_t)(colon - name));

		for (size_t i = 0; i < ARRAY_SIZE(by_line); i++) {
			if (db_read(&q, db, by_line[i], "si", file,
				    (long long)line))
				break;
			ret = fingerprints(&got, &q);
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
		if (db_read(&q, db,
			    "SELECT fingerprint FROM identities"
			    " WHERE substr(fingerprint, 1, ?2) = ?1"
			    " LIMIT 11",
			    "si", name, (long long)n))
			return -1;
		ret = fingerprints(&got, &q);
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
	struct db_read q;
	long long key;

	*out = NULL;
	if (ident_fingerprint_key(&key, fingerprint))
		return 0;
	if (db_read(&q, db,
		    "SELECT file, function, COALESCE(option, kind), message"
		    " FROM identities WHERE fp_key = ?1"
		    " AND fingerprint = ?2",
		    "is", key, fingerprint))
		return -1;
	if (db_next(&q)) {
		*out = json_object();
		json_set_cols(*out, q.st, 0,
			      "file:s function:s option:s message:s");
	}
	return db_done(&q, "cannot read warning '%s'", fingerprint);
}
