// SPDX-License-Identifier: MIT
/*
 * kwarn triage: record what a person decided about a warning (intended,
 * a false positive, a compiler bug, ...), list the decisions, and move
 * them between databases as a text file a team keeps in git.  --site
 * decides for every compiler's warning at one cross-compiler site at once:
 * a record each, in one transaction.
 */
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "json.h"
#include "kwarn.h"
#include "options.h"
#include "query.h"
#include "store.h"
#include "triage.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

static const char *const triage_usage[] = {
	"kwarn triage --db FILE IDENTITY|FILE:LINE|--site SITE --as STATE --reason TEXT [--link URL] [--who NAME]",
	"kwarn triage --db FILE --list [--history] [--format text|json]",
	"kwarn triage --db FILE --export FILE|-",
	"kwarn triage --db FILE --import FILE",
	NULL,
};
static const char *const formats[] = { "text", "json", NULL };

/* Who decides: --who, else $KWARN_WHO, else the login name. */
static const char *triage_who(const char *who)
{
	const char *env = getenv("KWARN_WHO");
	struct passwd *pw;

	if (who)
		return who;
	if (env && *env)
		return env;
	pw = getpwuid(getuid());
	return pw && pw->pw_name && *pw->pw_name ? pw->pw_name : "unknown";
}

struct list_ctx {
	sqlite3 *db;
	json_t *all; /* --format json */
};

static int list_one(const struct triage_rec *r, void *cb)
{
	struct list_ctx *ctx = cb;
	json_t *info = NULL;
	char when[32];
	time_t t = (time_t)r->at;
	struct tm tm;

	if (query_identity_info(&info, ctx->db, r->fingerprint))
		return -1;
	if (ctx->all) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s}",
				      "identity", r->fingerprint, "state",
				      r->state, "reason", r->reason, "who",
				      r->who, "at", (json_int_t)r->at, "origin",
				      r->origin);

		json_object_set_new(o, "link",
				    r->link ? jstr(r->link) : json_null());
		json_object_set_new(o, "warning", info ? info : json_null());
		json_array_append_new(ctx->all, o);
		return 0;
	}
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d", &tm);
	printf("%.16s %-14s %s %s", r->fingerprint, r->state, when, r->who);
	if (info)
		printf("  %s: in '%s': [%s] %s",
		       json_string_value(json_object_get(info, "file")),
		       json_string_value(json_object_get(info, "function")) ?:
									      "",
		       json_string_value(json_object_get(info, "option")),
		       json_string_value(json_object_get(info, "message")));
	printf("\n    %s%s%s\n", r->reason, r->link ? " " : "",
	       r->link ? r->link : "");
	json_decref(info);
	return 0;
}

static int export_one(const struct triage_rec *r, void *cb)
{
	triage_format_line(cb, r);
	return 0;
}

static int triage_export(sqlite3 *db, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	strbuf_addstr(&sb, triage_export_header);
	if (query_triage_each(db, 0, export_one, &sb))
		goto out;
	if (!strcmp(path, "-"))
		ret = fwrite(sb.buf, 1, sb.len, stdout) == sb.len ?
			      0 :
			      error("cannot write the export: %s",
				    strerror(errno));
	else
		ret = util_write_file(path, sb.buf, sb.len);
out:
	strbuf_release(&sb);
	return ret;
}

/* Read every line of PATH; any bad line refuses the whole file. */
static int triage_import(sqlite3 *db, const char *path)
{
	struct triage_rec *recs = NULL;
	size_t n = 0, alloc = 0, len, lineno = 0, added = 0;
	char *buf = NULL, *p, *end;
	int ret = -1;

	if (util_read_file(&buf, &len, path, CAP_TREE_FILE))
		return -1;
	for (p = buf, end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *why = NULL;
		struct triage_rec r;
		int rc;

		lineno++;
		rc = triage_parse_line(&r, &why, p, l);
		if (rc < 0) {
			error("%s:%zu: %s; nothing imported", path, lineno,
			      why);
			goto out;
		}
		if (!rc) {
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 64;
				recs = xrealloc(recs, alloc * sizeof(*recs));
			}
			recs[n++] = r;
		}
		p += l + (nl != NULL);
	}
	if (store_triage(db, recs, n, &added))
		goto out;
	printf("kwarn: %zu triage record%s imported, %zu there already\n",
	       added, added == 1 ? "" : "s", n - added);
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		triage_rec_release(&recs[i]);
	free(recs);
	free(buf);
	return ret;
}

int cmd_triage(int argc, char **argv)
{
	const char *dbpath = NULL, *as = NULL, *reason = NULL, *link = NULL;
	const char *who = NULL, *export = NULL, *import = NULL, *site = NULL;
	const char *format = "text", *field = NULL, *why = NULL;
	int list = 0, history = 0, argi, rc, ret = 2;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_STRING(0, "as", &as, "STATE",
			   "open, confirmed, intended, false-positive,"
			   " compiler-bug or wontfix"),
		OPT_STRING(0, "reason", &reason, "TEXT", "why, in words"),
		OPT_STRING(0, "link", &link, "URL",
			   "a bug report (required for compiler-bug)"),
		OPT_STRING(0, "site", &site, "SITE",
			   "every compiler's warning at SITE (as kwarn sites"
			   " prints it)"),
		OPT_STRING(0, "who", &who, "NAME",
			   "who decides (default: $KWARN_WHO, else the login)"),
		OPT_FLAG(0, "list", &list, "the triaged warnings"),
		OPT_FLAG(0, "history", &history,
			 "with --list, every record, not only the newest"),
		OPT_CHOICE(0, "format", &format, "F", "--list output", formats),
		OPT_STRING(0, "export", &export, "FILE",
			   "write every record to FILE (- for stdout)"),
		OPT_STRING(0, "import", &import, "FILE",
			   "add the records of FILE, all or none"),
		OPT_END,
	};
	struct triage_rec *recs = NULL;
	struct list_ctx ctx = { 0 };
	sqlite3 *db = NULL;
	json_t *fps = NULL;
	char *fp = NULL;
	size_t n = 0;
	int modes, one;

	rc = opt_parse(&argi, argc, argv, opts, triage_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	one = argi < argc || site;
	modes = list + !!export + !!import + one;
	if (!dbpath || modes != 1 || argc - argi > 1 || (argi < argc && site) ||
	    one != (as || reason || link || who)) {
		opt_usage(stderr, opts, triage_usage);
		return 2;
	}
	if (db_open(&db, dbpath, list || export ? DB_READ_ONLY : DB_READ_WRITE))
		return 2;
	if (list) {
		ctx.db = db;
		if (!strcmp(format, "json"))
			ctx.all = json_array();
		if (query_triage_each(db, !history, list_one, &ctx))
			goto out;
		if (ctx.all)
			json_dumpf(ctx.all, stdout, JSON_INDENT(2));
		ret = 0;
		goto out;
	}
	if (export) {
		ret = triage_export(db, export) ? 2 : 0;
		goto out;
	}
	if (import) {
		ret = triage_import(db, import) ? 2 : 0;
		goto out;
	}
	if (!as || !reason) {
		error("a triage takes --as STATE and --reason TEXT");
		goto out;
	}
	if (site) {
		if (query_site_identities(&fps, db, site))
			goto out;
		if (!json_array_size(fps)) {
			error("no warning at the site '%s': kwarn sites lists"
			      " them",
			      site);
			ret = 1;
			goto out;
		}
	} else {
		rc = query_identity_named(&fp, db, argv[argi]);
		if (rc) {
			ret = rc < 0 ? 2 : 1;
			goto out;
		}
		fps = json_pack("[s]", fp);
	}
	n = json_array_size(fps);
	recs = xcalloc(n, sizeof(*recs));
	for (size_t i = 0; i < n; i++) {
		struct triage_rec *r = &recs[i];

		r->fingerprint = (char *)(uintptr_t)json_string_value(
			json_array_get(fps, i));
		r->state = (char *)(uintptr_t)as;
		r->reason = (char *)(uintptr_t)reason;
		r->link = (char *)(uintptr_t)link;
		r->who = (char *)(uintptr_t)triage_who(who);
		r->origin = (char *)(uintptr_t) "cli";
		r->at = (long long)time(NULL);
		if (triage_check(r, &field, &why)) {
			error("bad --%s: %s",
			      !strcmp(field, "state") ? "as" : field, why);
			goto out;
		}
	}
	if (store_triage(db, recs, n, NULL))
		goto out;
	for (size_t i = 0; i < n; i++)
		printf("%.16s %s by %s: %s\n", recs[i].fingerprint, as,
		       recs[i].who, reason);
	ret = 0;
out:
	free(recs);
	json_decref(fps);
	json_decref(ctx.all);
	free(fp);
	db_close(db);
	return ret;
}
