// SPDX-License-Identifier: MIT
/*
 * kwarn report: per commit of a run, what came, what went, and a
 * burn-down line, the way the kernel test robot's mails read; or JSON.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "kwarn.h"
#include "report-out.h"
#include "repro.h"
#include "util.h"
#include "banned.h"

/* Counts of one point, from the states table. */
static json_t *point_counts(sqlite3 *db, long long commit_id)
{
	sqlite3_stmt *st = NULL;
	json_t *o = json_object(), *by = json_object();
	long long warnings = 0, new_ = 0, fixed = 0, not_built = 0;

	if (!db_prepare(
		    &st, db,
		    "SELECT s.state, COALESCE(i.option, i.kind), COUNT(*)"
		    " FROM states s JOIN identities i ON i.id = s.identity_id"
		    " WHERE s.commit_id = ? GROUP BY 1, 2")) {
		db_bind_int(st, 1, commit_id, 0);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *state = db_col_text(st, 0);
			const char *opt = db_col_text(st, 1);
			long long n = sqlite3_column_int64(st, 2);

			if (!strcmp(state, "new") ||
			    !strcmp(state, "present")) {
				json_t *cur = json_object_get(by, opt);

				warnings += n;
				json_object_set_new(
					by, opt,
					json_integer(json_integer_value(cur) +
						     n));
			}
			if (!strcmp(state, "new"))
				new_ += n;
			else if (!strcmp(state, "fixed"))
				fixed += n;
			else if (!strcmp(state, "not_built"))
				not_built += n;
		}
	}
	sqlite3_finalize(st);
	json_object_set_new(o, "warnings", json_integer(warnings));
	json_object_set_new(o, "new", json_integer(new_));
	json_object_set_new(o, "fixed", json_integer(fixed));
	json_object_set_new(o, "not_built", json_integer(not_built));
	json_object_set_new(o, "by_option", by);
	return o;
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

int report_run_json(json_t **out, sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL, *bt = NULL;
	json_t *arr = json_array();
	int ret = -1;

	*out = NULL;
	if (db_prepare(
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
		json_t *e = point_counts(db, cid);
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
		if (query_warnings(&warnings, db, &f) ||
		    repro_add_to_warnings(warnings, db, f.build_id))
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
	sqlite3_finalize(st);
	sqlite3_finalize(bt);
	return ret;
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static long long jint(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* A warning, its notes, verdict and reproducer, marked MARK. */
static void print_warning(FILE *fp, json_t *w, const char *mark)
{
	size_t i;
	json_t *n;
	const char *fn = jstr(w, "function");

	fprintf(fp, "%s %s:%lld:%lld: %s%s%s%s: %s", mark, jstr(w, "file"),
		jint(w, "line"), jint(w, "column"), *fn ? "in '" : "", fn,
		*fn ? "': " : "", jstr(w, "kind"), jstr(w, "message"));
	if (*jstr(w, "option"))
		fprintf(fp, " [%s]", jstr(w, "option"));
	fputc('\n', fp);
	json_array_foreach(json_object_get(w, "notes"), i, n) {
		fprintf(fp, "   %s:%lld:%lld: note: %s\n", jstr(n, "file"),
			jint(n, "line"), jint(n, "column"), jstr(n, "message"));
	}
	if (*jstr(w, "verdict"))
		fprintf(fp, "   %s, suggest '%s': %s\n", jstr(w, "verdict"),
			jstr(w, "fix"), jstr(w, "reason"));
	if (*jstr(w, "reproducer")) {
		const char *p = jstr(w, "reproducer"), *nl;

		fputs("   reproduce:\n", fp);
		for (; *p; p = nl + 1) {
			nl = strchrnul(p, '\n');
			fprintf(fp, "     %.*s\n", (int)(nl - p), p);
			if (!*nl)
				break;
		}
	}
}

static void bar(FILE *fp, long long n, long long max)
{
	int width = max ? (int)(n * 40 / max) : 0;

	if (n && !width)
		width = 1;
	for (int i = 0; i < width; i++)
		fputs("#", fp);
}

int report_print_run(FILE *fp, sqlite3 *db, long long run_id,
		     const char *format)
{
	json_t *arr = NULL, *e, *w, *mods;
	size_t i, j;
	long long max = 0;
	int summary = !strcmp(format, "summary"), with_modules = 0;

	if (report_run_json(&arr, db, run_id))
		return -1;
	if (!strcmp(format, "json")) {
		json_t *o = json_object();

		json_object_set_new(o, "run", json_integer(run_id));
		json_object_set_new(o, "commits", arr);
		json_dumpf(o, fp, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		fputc('\n', fp);
		json_decref(o);
		return 0;
	}
	json_array_foreach(arr, i, e) {
		if (jint(e, "warnings") > max)
			max = jint(e, "warnings");
		if (json_is_object(json_object_get(e, "modules")))
			with_modules = 1;
	}
	if (!summary) {
		json_array_foreach(arr, i, e) {
			fprintf(fp, "commit %.12s [%lld] %s\n",
				jstr(e, "commit"), jint(e, "position"),
				jstr(e, "subject"));
			if (!strcmp(jstr(e, "apply_status"), "failed")) {
				fprintf(fp, "   does not apply: %s\n\n",
					jstr(e, "apply_error"));
				continue;
			}
			fprintf(fp,
				"   build %s, %lld warnings (%lld new, %lld fixed, %lld not built), boot %s\n",
				jstr(e, "status"), jint(e, "warnings"),
				jint(e, "new"), jint(e, "fixed"),
				jint(e, "not_built"),
				json_is_string(json_object_get(e, "verdict")) ?
					jstr(e, "verdict") :
					"-");
			mods = json_object_get(e, "modules");
			if (json_is_object(mods))
				fprintf(fp,
					"   modules: %lld loaded, %lld failed\n",
					jint(mods, "ok"), jint(mods, "failed"));
			if (*jstr(e, "boot_reason"))
				fprintf(fp, "   boot: %s\n",
					jstr(e, "boot_reason"));
			json_array_foreach(json_object_get(e, "warnings_list"),
					   j, w) {
				const char *state = jstr(w, "state");

				if (!strcmp(state, "new") &&
				    jint(e, "position") > 0)
					print_warning(fp, w, ">>");
				else if (!strcmp(state, "fixed"))
					print_warning(fp, w, "--");
			}
			fputc('\n', fp);
		}
	}
	fprintf(fp, "burn-down (run %lld%s):\n", run_id,
		with_modules ? "; boot, then modules loaded/failed" : "");
	json_array_foreach(arr, i, e) {
		fprintf(fp, "%3lld %.12s %5lld +%-3lld -%-3lld %-6s ",
			jint(e, "position"), jstr(e, "commit"),
			jint(e, "warnings"), jint(e, "new"), jint(e, "fixed"),
			json_is_string(json_object_get(e, "verdict")) ?
				jstr(e, "verdict") :
				"-");
		mods = json_object_get(e, "modules");
		if (with_modules && json_is_object(mods))
			fprintf(fp, "%4lld/%-3lld ", jint(mods, "ok"),
				jint(mods, "failed"));
		else if (with_modules)
			fprintf(fp, "%4s/%-3s ", "-", "-");
		bar(fp, jint(e, "warnings"), max);
		fprintf(fp, " %.50s\n", jstr(e, "subject"));
	}
	json_decref(arr);
	return 0;
}

int report_tip_has_new(sqlite3 *db, long long run_id)
{
	sqlite3_stmt *st = NULL;
	int n = -1;

	/* present at the last built point, absent from the base's states */
	if (db_prepare(
		    &st, db,
		    "WITH pts AS (SELECT c.id, c.position FROM commits c"
		    "  WHERE c.run_id = ?1 AND EXISTS (SELECT 1 FROM builds b"
		    "  WHERE b.commit_id = c.id)),"
		    " tip AS (SELECT id FROM pts ORDER BY position DESC LIMIT 1),"
		    " base AS (SELECT id FROM pts ORDER BY position LIMIT 1)"
		    " SELECT i.file, d.line, i.function, i.message"
		    " FROM states s JOIN identities i ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " WHERE s.commit_id = (SELECT id FROM tip)"
		    " AND s.state IN ('new', 'present')"
		    " AND NOT EXISTS (SELECT 1 FROM states b"
		    "  WHERE b.commit_id = (SELECT id FROM base)"
		    "  AND b.identity_id = s.identity_id"
		    "  AND b.state IN ('new', 'present'))"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		fprintf(stderr, "kwarn: new at tip: %s:%d: in '%s': %s\n",
			db_col_text(st, 0), sqlite3_column_int(st, 1),
			db_col_text(st, 2), db_col_text(st, 3));
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* The formats other tools read (report-out.h); text and json are ours. */
static const struct {
	const char *name;
	int (*write)(FILE *fp, sqlite3 *db, long long run_id);
} formats[] = {
	{ "sarif", report_sarif },
	{ "kcidb", report_kcidb },
	{ "mail", report_mail },
};

static void report_usage(void)
{
	fprintf(stderr, "usage: kwarn report --db FILE [--run ID]"
			" [--format text|json|sarif|kcidb|mail]\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "run", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbpath = NULL, *format = "text";
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long run_id = -1;
	long v;
	int c, ret = 2;
	int (*write)(FILE *, sqlite3 *, long long) = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 'r':
			if (util_parse_long(&v, optarg, 1, 1L << 40)) {
				error("--run must be a run id, not '%s'",
				      optarg);
				return 2;
			}
			run_id = v;
			break;
		case 'f':
			format = optarg;
			break;
		default:
			report_usage();
			return 2;
		}
	}
	if (!dbpath || optind != argc) {
		report_usage();
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(format, formats[i].name))
			write = formats[i].write;
	if (!write && strcmp(format, "text") && strcmp(format, "json")) {
		error("unknown format '%s' (text, json, sarif, kcidb or mail)",
		      format);
		return 2;
	}
	if (db_open(&db, dbpath, DB_READ_ONLY))
		return 2;
	if (db_prepare(
		    &st, db,
		    run_id < 0 ?
			    "SELECT MAX(id) FROM runs WHERE kind <> 'ingest'" :
			    "SELECT id FROM runs WHERE id = ?"))
		goto out;
	if (run_id >= 0)
		db_bind_int(st, 1, run_id, 0);
	if (sqlite3_step(st) != SQLITE_ROW ||
	    sqlite3_column_type(st, 0) == SQLITE_NULL) {
		if (run_id < 0)
			error("the database holds no run yet");
		else
			error("no run %lld in '%s'", run_id, dbpath);
		goto out;
	}
	run_id = sqlite3_column_int64(st, 0);
	if (write ? write(stdout, db, run_id) :
		    report_print_run(stdout, db, run_id, format))
		goto out;
	ret = 0;
out:
	sqlite3_finalize(st);
	db_close(db);
	return ret;
}
