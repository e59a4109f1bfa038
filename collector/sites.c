// SPDX-License-Identifier: MIT
/*
 * kwarn sites: the warnings of a campaign's point across compilers, one
 * line per site, with the compilers that warn there; --only gcc, clang
 * or both asks for the sites one compiler family alone reports, or both.
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "kwarn.h"
#include "options.h"
#include "query.h"
#include "util.h"
#include "banned.h"

static const char *const sites_usage[] = {
	"kwarn sites --db FILE [--run ID] [--position N] [--only gcc|clang|both] [--format text|json]",
	NULL,
};
static const char *const onlies[] = { "gcc", "clang", "both", NULL };
static const char *const formats[] = { "text", "json", NULL };

static void sites_print_text(FILE *fp, json_t *sites)
{
	json_t *s, *c;
	size_t i, j;

	json_array_foreach(sites, i, s) {
		struct strbuf sb = STRBUF_INIT;

		json_array_foreach(json_object_get(s, "compilers"), j, c)
			strbuf_addf(&sb, "%s%s", j ? "," : "",
				    json_string_value(c));
		/* the site last: what kwarn triage --site takes */
		fprintf(fp, "%-20s line %-6lld %s\n", sb.buf,
			(long long)json_integer_value(
				json_object_get(s, "line")),
			json_string_value(json_object_get(s, "site")));
		strbuf_release(&sb);
	}
	fprintf(fp, "%zu site%s\n", json_array_size(sites),
		json_array_size(sites) == 1 ? "" : "s");
}

int cmd_sites(int argc, char **argv)
{
	const char *dbpath = NULL, *only = NULL, *format = "text";
	long run = -1, pos = -1;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_LONG(0, "run", &run, "ID",
			 "a run of the campaign (default: the newest)", 1,
			 1L << 40),
		OPT_LONG(0, "position", &pos, "N",
			 "the point (default: the last built one)", 0,
			 1L << 30),
		OPT_CHOICE(0, "only", &only, "WHO",
			   "sites only gcc, only clang, or both report",
			   onlies),
		OPT_CHOICE(0, "format", &format, "F", "output", formats),
		OPT_END,
	};
	long long run_id;
	sqlite3 *db = NULL;
	json_t *sites = NULL;
	int argi, rc, ret = 2;

	rc = opt_parse(&argi, argc, argv, opts, sites_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!dbpath || argi != argc) {
		opt_usage(stderr, opts, sites_usage);
		return 2;
	}
	run_id = run;
	if (db_open(&db, dbpath, DB_READ_ONLY))
		return 2;
	if (run_id < 0 && query_last_run(&run_id, db))
		goto out;
	if (run_id < 0) {
		error("'%s' has no run", dbpath);
		goto out;
	}
	if (pos >= 0) {
		json_t *commits = NULL;
		size_t n;

		if (query_run_commits(&commits, db, run_id))
			goto out;
		n = json_array_size(commits);
		json_decref(commits);
		if ((size_t)pos >= n) {
			error("no position %ld in run %lld: its points are 0 to %zu",
			      pos, run_id, n ? n - 1 : 0);
			goto out;
		}
	}
	if (query_sites(&sites, db, run_id, pos, only))
		goto out;
	if (!strcmp(format, "json")) {
		json_dumpf(sites, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		sites_print_text(stdout, sites);
	}
	ret = 0;
out:
	json_decref(sites);
	db_close(db);
	return ret;
}

int report_print_compilers(FILE *fp, sqlite3 *db, long long run_id)
{
	json_t *counts = NULL, *pos, *first, *v;
	const char *key, *cc;
	int ret = 0;

	if (query_group_counts(&counts, db, run_id))
		return -1;
	first = json_object_get(counts, "0");
	if (!first || json_object_size(first) < 2)
		goto out;
	fprintf(fp, "burn-down per compiler:\n  #");
	json_object_foreach(first, cc, v)
		fprintf(fp, " %10s", cc);
	fputc('\n', fp);
	/* positions in order: the keys are decimal, from 0 up */
	for (long i = 0;; i++) {
		char k[24];

		snprintf(k, sizeof(k), "%ld", i);
		pos = json_object_get(counts, k);
		if (!pos)
			break;
		fprintf(fp, "%3ld", i);
		json_object_foreach(first, key, v) {
			json_t *n = json_object_get(pos, key);

			if (json_is_integer(n))
				fprintf(fp, " %10lld", json_integer_value(n));
			else
				fprintf(fp, " %10s", "-");
		}
		fputc('\n', fp);
	}
out:
	json_decref(counts);
	return ret;
}
