// SPDX-License-Identifier: MIT
/* kwarn warnings: the warnings of one stored build, as text or JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "kwarn.h"
#include "query.h"
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
	}
}

static void warnings_usage(void)
{
	fprintf(stderr,
		"usage: kwarn warnings --db FILE [--commit REF] [--file F]"
		" [--function FN] [--option OPT] [--state S]"
		" [--format text|json]\n");
}

int cmd_warnings(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "commit", required_argument, NULL, 'c' },
		{ "file", required_argument, NULL, 'f' },
		{ "function", required_argument, NULL, 'F' },
		{ "option", required_argument, NULL, 'o' },
		{ "state", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct warn_filter f = { 0 };
	struct query_point p = { 0 };
	const char *dbpath = NULL, *ref = NULL, *format = "text";
	long long build_id = -1, commit_id = -1;
	json_t *got = NULL, *arr;
	sqlite3 *db = NULL;
	int c, ret = 2;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 'c':
			ref = optarg;
			break;
		case 'f':
			f.file = optarg;
			break;
		case 'F':
			f.function = optarg;
			break;
		case 'o':
			f.option = optarg;
			break;
		case 's':
			f.state = optarg;
			break;
		case 'j':
			format = optarg;
			break;
		default:
			warnings_usage();
			return 2;
		}
	}
	if (!dbpath || optind != argc) {
		warnings_usage();
		return 2;
	}
	if (strcmp(format, "text") && strcmp(format, "json")) {
		error("unknown format '%s' (text or json)", format);
		return 2;
	}
	if (f.state && strcmp(f.state, "new") && strcmp(f.state, "present") &&
	    strcmp(f.state, "fixed") && strcmp(f.state, "not_built")) {
		error("unknown state '%s' (new, present, fixed, not_built)",
		      f.state);
		return 2;
	}
	if (db_open(&db, dbpath, DB_READ_ONLY) ||
	    query_find_build(&build_id, &commit_id, db, ref) ||
	    query_point(&p, db, commit_id) ||
	    query_point_warnings(&got, db, &p, &f))
		goto out;
	arr = json_object_get(got, "warnings");
	if (!strcmp(format, "json")) {
		json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
	} else {
		query_print_text(stdout, arr);
	}
	ret = 0;
out:
	json_decref(got);
	query_point_release(&p);
	db_close(db);
	return ret;
}
