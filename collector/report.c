// SPDX-License-Identifier: MIT
/*
 * kwarn report: per commit of a run, what came, what went, and a
 * burn-down line, the way the kernel test robot's mails read; or JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "kwarn.h"
#include "options.h"
#include "parse.h"
#include "query.h"
#include "report-out.h"
#include "repro.h"
#include "util.h"
#include "banned.h"

int report_run_json(json_t **out, sqlite3 *db, long long run_id)
{
	json_t *point;
	size_t i;

	if (query_run_points(out, db, run_id))
		return -1;
	json_array_foreach(*out, i, point)
		repro_attach(db, json_object_get(point, "warnings_list"));
	return 0;
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

/*
 * A warning, its notes, verdict, triage and, with REPRO, its reproducer,
 * marked MARK.
 */
static void print_warning(FILE *fp, json_t *w, const char *mark, int repro)
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
	if (*jstr(w, "verdict") && *jstr(w, "fix"))
		fprintf(fp, "   %s, suggest '%s': %s\n", jstr(w, "verdict"),
			jstr(w, "fix"), jstr(w, "reason"));
	else if (*jstr(w, "verdict")) /* unsure: no fix to suggest */
		fprintf(fp, "   %s, no fix suggested (read both cases): %s\n",
			jstr(w, "verdict"), jstr(w, "reason"));
	report_triage_line(fp, w, "   ");
	if (repro && *jstr(w, "reproducer")) {
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

/*
 * The last built point's live warnings by triage (by_triage), when any
 * is triaged: "triage at #4: 12 open, 3 intended, 1 compiler-bug".
 */
static void print_triage_counts(FILE *fp, json_t *arr)
{
	json_t *last = NULL, *e, *bt, *v;
	const char *state;
	long long triaged = 0;
	size_t i;

	json_array_foreach(arr, i, e) {
		if (json_is_integer(json_object_get(e, "build")))
			last = e;
	}
	bt = json_object_get(last, "by_triage");
	json_object_foreach(bt, state, v) {
		if (strcmp(state, "open"))
			triaged += json_integer_value(v);
	}
	if (!triaged)
		return;
	fprintf(fp, "triage at #%lld: %lld open", jint(last, "position"),
		jint(bt, "open"));
	json_object_foreach(bt, state, v) {
		if (strcmp(state, "open") && json_integer_value(v))
			fprintf(fp, ", %lld %s", json_integer_value(v), state);
	}
	fputc('\n', fp);
}

/* diag_tools[] has fewer: a tool past it would not be counted apart */
#define MAX_TOOLS 16

/*
 * Which tools of diag_tools[] the run's points ARR count live warnings
 * of (by_tool), into HAS[]; returns how many, 0 when the compiler's are
 * all there is (a report then reads as it did before tools were told
 * apart).
 */
static size_t run_tools(int *has, json_t *arr)
{
	size_t i, k, n = 0;
	json_t *e;

	for (k = 0; k < MAX_TOOLS && diag_tools[k]; k++) {
		has[k] = 0;
		json_array_foreach(arr, i, e)
			has[k] |= jint(json_object_get(e, "by_tool"),
				       diag_tools[k]) > 0;
		n += has[k];
	}
	return n == 1 && has[0] ? 0 : n;
}

/* Point E's live warnings per tool of HAS[]: "16/43/8", SEP between. */
static void tool_counts(struct strbuf *sb, const int *has, json_t *e,
			const char *sep, int named)
{
	json_t *bt = json_object_get(e, "by_tool");
	int first = 1;

	strbuf_reset(sb);
	for (size_t k = 0; k < MAX_TOOLS && diag_tools[k]; k++) {
		if (!has[k])
			continue;
		strbuf_addf(sb, "%s", first ? "" : sep);
		if (named)
			strbuf_addf(sb, "%s ", diag_tools[k]);
		strbuf_addf(sb, "%lld", jint(bt, diag_tools[k]));
		first = 0;
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

/*
 * The warnings of point E that were not built there (their object was
 * not compiled), one line each: neither fixed nor still there.  Returns
 * 0 or -1 (reported).
 */
static int print_not_built(FILE *fp, sqlite3 *db, long long run_id, json_t *e)
{
	struct warn_filter f = { .state = "not_built" };
	struct query_point p = { 0 };
	json_t *got = NULL, *w;
	long long cid = -1;
	size_t i;
	int ret = -1;

	if (!jint(e, "not_built"))
		return 0;
	if (query_resolve_commit(&cid, db, jstr(e, "commit"), run_id))
		return -1;
	if (cid < 0)
		return error("no commit %s in run %lld", jstr(e, "commit"),
			     run_id);
	if (query_point(&p, db, cid) || query_point_warnings(&got, db, &p, &f))
		goto out;
	json_array_foreach(json_object_get(got, "warnings"), i, w) {
		const char *fn = jstr(w, "function");

		fprintf(fp, "   not built: %s:%lld:%lld: %s%s%s%s: %s",
			jstr(w, "file"), jint(w, "line"), jint(w, "column"),
			*fn ? "in '" : "", fn, *fn ? "': " : "",
			jstr(w, "kind"), jstr(w, "message"));
		if (*jstr(w, "option"))
			fprintf(fp, " [%s]", jstr(w, "option"));
		fprintf(fp, " (%s)\n", jstr(w, "object"));
	}
	ret = 0;
out:
	json_decref(got);
	query_point_release(&p);
	return ret;
}

int report_print_run(FILE *fp, sqlite3 *db, long long run_id,
		     const char *format, int repro)
{
	json_t *arr = NULL, *e, *w, *mods;
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, ntools, width = 0;
	long long max = 0;
	int summary = !strcmp(format, "summary"), with_modules = 0;
	int has[MAX_TOOLS];

	if (report_run_json(&arr, db, run_id))
		return -1;
	if (!strcmp(format, "json")) {
		json_t *o = json_object(), *counts = NULL;

		/* a --cc group: each point's live warnings per compiler */
		if (query_group_counts(&counts, db, run_id)) {
			json_decref(o);
			json_decref(arr);
			return -1;
		}
		json_array_foreach(arr, i, e) {
			char k[24];
			json_t *bc;

			snprintf(k, sizeof(k), "%lld", jint(e, "position"));
			bc = json_object_get(counts, k);
			json_object_set_new(e, "by_compiler",
					    bc ? json_incref(bc) :
						 json_object());
		}
		json_decref(counts);
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
	/* kernel-doc's, sparse's... beside the compiler's: a count each */
	ntools = run_tools(has, arr);
	json_array_foreach(arr, i, e) {
		tool_counts(&sb, has, e, "/", 0);
		if (ntools && sb.len > width)
			width = sb.len;
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
			if (json_is_integer(json_object_get(e, "cache_hits")))
				fprintf(fp,
					"   compiler cache: %lld of %lld C compiles from the cache\n",
					jint(e, "cache_hits"),
					jint(e, "cache_hits") +
						jint(e, "cache_misses"));
			mods = json_object_get(e, "modules");
			if (json_is_object(mods))
				fprintf(fp,
					"   modules: %lld loaded, %lld failed\n",
					jint(mods, "ok"), jint(mods, "failed"));
			if (*jstr(e, "boot_reason"))
				fprintf(fp, "   boot: %s\n",
					jstr(e, "boot_reason"));
			if (ntools &&
			    json_is_integer(json_object_get(e, "build"))) {
				tool_counts(&sb, has, e, ", ", 1);
				fprintf(fp, "   by tool: %s\n", sb.buf);
			}
			json_array_foreach(json_object_get(e, "warnings_list"),
					   j, w) {
				const char *state = jstr(w, "state");

				if (!strcmp(state, "new") &&
				    jint(e, "position") > 0)
					print_warning(fp, w, ">>", repro);
				else if (!strcmp(state, "fixed"))
					print_warning(fp, w, "--", repro);
			}
			if (print_not_built(fp, db, run_id, e)) {
				json_decref(arr);
				strbuf_release(&sb);
				return -1;
			}
			fputc('\n', fp);
		}
	}
	fprintf(fp, "burn-down (run %lld%s", run_id,
		with_modules ? "; boot, then modules loaded/failed" : "");
	if (ntools) {
		/* the names alone: "compiler/kernel-doc/sparse" */
		strbuf_reset(&sb);
		for (size_t k = 0; k < MAX_TOOLS && diag_tools[k]; k++)
			if (has[k])
				strbuf_addf(&sb, "%s%s", sb.len ? "/" : "",
					    diag_tools[k]);
		fprintf(fp, "; live warnings per tool: %s", sb.buf);
	}
	fputs("):\n", fp);
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
		if (ntools) {
			tool_counts(&sb, has, e, "/", 0);
			fprintf(fp, "%-*s ", (int)width, sb.buf);
		}
		bar(fp, jint(e, "warnings"), max);
		fprintf(fp, " %.50s\n", jstr(e, "subject"));
	}
	print_triage_counts(fp, arr);
	json_decref(arr);
	strbuf_release(&sb);
	return report_print_compilers(fp, db, run_id);
}

int report_tip_has_new(sqlite3 *db, long long run_id)
{
	json_t *news = NULL, *w;
	size_t i;
	int n;

	if (query_tip_new(&news, db, run_id))
		return -1;
	json_array_foreach(news, i, w) {
		fprintf(stderr, "kwarn: new at tip: %s:%lld: in '%s': %s\n",
			json_string_value(json_object_get(w, "file")),
			json_integer_value(json_object_get(w, "line")),
			json_string_value(json_object_get(w, "function")),
			json_string_value(json_object_get(w, "message")));
	}
	n = (int)json_array_size(news);
	json_decref(news);
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

static const char *const report_usage[] = {
	"kwarn report --db FILE [--run ID] [--format text|json|sarif|kcidb|mail]",
	"             [--reproducers]",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	const char *dbpath = NULL, *format = "text", *run = NULL;
	int repro = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_STRING(0, "run", &run, "ID",
			   "the run (default: the newest)"),
		OPT_STRING(0, "format", &format, "F",
			   "text, json, sarif, kcidb or mail (default: text)"),
		OPT_FLAG(0, "reproducers", &repro,
			 "text: the commands that rebuild each warning"),
		OPT_END,
	};
	sqlite3 *db = NULL;
	int exists = 1;
	long long run_id = -1;
	long v;
	int argi, rc, ret = 2;
	int (*write)(FILE *, sqlite3 *, long long) = NULL;

	rc = opt_parse(&argi, argc, argv, opts, report_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!dbpath || argi != argc) {
		opt_usage(stderr, opts, report_usage);
		return 2;
	}
	if (run) {
		if (util_parse_long(&v, run, 1, 1L << 40)) {
			error("--run must be a run id, not '%s'", run);
			return 2;
		}
		run_id = v;
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
	if (run_id < 0 ? query_newest_run(&run_id, db) :
			 query_run_exists(&exists, db, run_id))
		goto out;
	if (run_id < 0 || !exists) {
		if (run_id < 0)
			error("the database holds no run yet");
		else
			error("no run %lld in '%s'", run_id, dbpath);
		goto out;
	}
	if (write ? write(stdout, db, run_id) :
		    report_print_run(stdout, db, run_id, format, repro))
		goto out;
	ret = 0;
out:
	db_close(db);
	return ret;
}
