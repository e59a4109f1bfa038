// SPDX-License-Identifier: MIT
/* kwarn warnings: the warnings of one stored build, as text or JSON. */
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
#include "triage.h"
#include "util.h"
#include "banned.h"

static const char *str_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

void query_print_text(FILE *fp, json_t *warnings)
{
	size_t i, j;
	json_t *w, *n;

	json_array_foreach(warnings, i, w) {
		const char *fn = str_of(w, "function");
		const char *opt = str_of(w, "option");
		long long seen = json_integer_value(json_object_get(w, "seen"));

		if (*fn)
			fprintf(fp, "%s: In function '%s':\n",
				str_of(w, "file"), fn);
		fprintf(fp, "%s:%lld:%lld: %s", str_of(w, "file"),
			json_integer_value(json_object_get(w, "line")),
			json_integer_value(json_object_get(w, "column")),
			str_of(w, "kind"));
		fprintf(fp, ": %s%s%s%s", str_of(w, "message"),
			*opt ? " [" : "", opt, *opt ? "]" : "");
		if (seen > 1)
			fprintf(fp, " (seen from %lld objects)", seen);
		fputc('\n', fp);
		json_array_foreach(json_object_get(w, "notes"), j, n) {
			fprintf(fp, "    %s:%lld:%lld: note: %s\n",
				str_of(n, "file"),
				json_integer_value(json_object_get(n, "line")),
				json_integer_value(
					json_object_get(n, "column")),
				str_of(n, "message"));
		}
		report_triage_line(fp, w, "    ");
	}
}

static const char *const warnings_usage[] = {
	"kwarn warnings --db FILE [--commit REF] [--file F] [--function FN]",
	"               [--option OPT] [--kind KIND] [--state S]",
	"               [--triage STATE] [--format text|json]",
	NULL,
};

static const char *const states[] = { "new", "present", "fixed", "not_built",
				      NULL };
static const char *const formats[] = { "text", "json", NULL };

int cmd_warnings(int argc, char **argv)
{
	struct warn_filter f = { 0 };
	struct query_point p = { 0 };
	const char *dbpath = NULL, *ref = NULL, *format = "text";
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_STRING(
			0, "commit", &ref, "REF",
			"a sha, prefix or id (default: the newest run's last built commit)"),
		OPT_STRING(0, "file", &f.file, "F",
			   "only warnings in this file"),
		OPT_STRING(0, "function", &f.function, "FN",
			   "only warnings in this function"),
		OPT_STRING(
			0, "option", &f.option, "OPT",
			"only this -W option: -Wimplicit-fallthrough, =3 or bare"),
		OPT_CHOICE(0, "kind", &f.kind, "KIND",
			   "only this tool's diagnostics (compiler: warning,"
			   " error and fatal error)",
			   diag_tools),
		OPT_CHOICE(0, "state", &f.state, "S",
			   "warnings in this state (default: new and present)",
			   states),
		OPT_CHOICE(
			0, "triage", &f.triage, "STATE",
			"warnings triaged so (open: not triaged, or reopened)",
			triage_states),
		OPT_CHOICE(0, "format", &format, "F", "output", formats),
		OPT_END,
	};
	long long build_id = -1, commit_id = -1;
	json_t *got = NULL, *arr;
	sqlite3 *db = NULL;
	int argi, rc, ret = 2;

	rc = opt_parse(&argi, argc, argv, opts, warnings_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!dbpath || argi != argc) {
		opt_usage(stderr, opts, warnings_usage);
		return 2;
	}
	if (db_open(&db, dbpath, DB_READ_ONLY) ||
	    query_find_build(&build_id, &commit_id, db, ref) ||
	    query_point(&p, db, commit_id) ||
	    query_point_warnings(&got, db, &p, &f))
		goto out;
	arr = json_object_get(got, "warnings");
	repro_attach(db, arr);
	if (!strcmp(format, "json")) {
		json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
	} else {
		query_print_text(stdout, arr);
	}
	/* say what was asked, so that no output is not taken for a failure */
	if (!json_array_size(arr)) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "no %s warning", f.state ? f.state : "live");
		if (f.kind)
			strbuf_addf(&sb, " of %s", f.kind);
		if (f.option)
			strbuf_addf(&sb, " of %s", f.option);
		if (f.file)
			strbuf_addf(&sb, " in %s", f.file);
		if (f.function)
			strbuf_addf(&sb, " in function %s", f.function);
		fprintf(stderr, "kwarn: %s at commit %.12s (build %lld)\n",
			sb.buf, p.sha, build_id);
		strbuf_release(&sb);
	}
	ret = 0;
out:
	json_decref(got);
	query_point_release(&p);
	db_close(db);
	return ret;
}
