// SPDX-License-Identifier: MIT
/*
 * kwarn census and kwarn classify: the commands around census.c and
 * classify.c.  Sources come from a directory, or from a commit of a git
 * repository read with libgit2 (the collector keeps every tree that way).
 */
#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "census.h"
#include "census-tree.h"
#include "classify.h"
#include "db.h"
#include "json.h"
#include "kwarn.h"
#include "options.h"
#include "query.h"
#include "query.h"
#include "srctree.h"
#include "store.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

/*
 * The sha of a stored commit named by REF (its id in the commits table, a
 * sha or a prefix), and when REPO_OUT is not NULL the cached repository of
 * its tree (tree_repo_path()).
 */
static int db_commit_sha(char **out, char **repo_out, const char *dbpath,
			 const char *ref)
{
	sqlite3 *db = NULL;
	long long id = -1;
	int ret = -1;

	*out = NULL;
	if (repo_out)
		*repo_out = NULL;
	if (db_open(&db, dbpath, DB_READ_ONLY))
		return -1;
	if (query_resolve_commit(&id, db, ref, -1))
		goto out;
	if (id < 0) {
		error("no commit '%s' in '%s'", ref, dbpath);
		goto out;
	}
	if (query_commit_sha(out, db, id))
		goto out;
	ret = 0;
	if (repo_out && !(*repo_out = tree_repo_path(db, *out)))
		ret = -1;
out:
	db_close(db);
	return ret;
}

static const char *const text_json[] = { "text", "json", NULL };

/* ---- kwarn census ---- */

static void census_print_text(const struct census_tally *r,
			      const struct srctree_walk *w, const char *what,
			      int upgrade)
{
	size_t i, shown = 0, rest = 0;
	long rest_count = 0;

	if (upgrade) {
		for (i = 0; i < r->nups; i++)
			printf("%s:%ld: %s\n", r->ups[i].file, r->ups[i].line,
			       r->ups[i].spelling);
		printf("%zu marker(s) pass at -Wimplicit-fallthrough=3 and "
		       "fail at =5\n",
		       r->nups);
		return;
	}
	printf("fall-through markers in %s: %ld files, %ld case labels, "
	       "%ld with a marker\n\n",
	       what, w->files, r->labels, r->marked);
	printf("%-10s %7s %7s %7s %7s  %s\n", "kind", "count", "ok@=3", "ok@=4",
	       "ok@=5", "spelling (case folded)");
	for (i = 0; i < r->nr; i++) {
		const struct census_tally_row *row = &r->rows[i];

		if (shown >= 40 && row->count < 2) {
			rest++;
			rest_count += row->count;
			continue;
		}
		shown++;
		printf("%-10s %7ld %7ld %7ld %7ld  %s\n",
		       census_marker_name(row->kind), row->count,
		       row->accepted[3], row->accepted[4], row->accepted[5],
		       row->spelling);
	}
	if (rest)
		printf("%-10s %7ld %23s  (%zu other spellings, once each)\n",
		       "other", rest_count, "", rest);
	printf("\n%zu marker(s) pass at =3 and fail at =5 (see --upgrade)\n",
	       r->nups);
	for (i = 0; i < w->nskips; i++)
		printf("skipped %s: %s\n", w->skips[i].path, w->skips[i].why);
	if (json_array_size(r->notes))
		printf("%zu file(s) with notes (see --format json)\n",
		       json_array_size(r->notes));
}

static const char *const gap_names[] = {
	"blank line", "comment", "statement", "brace", "preprocessor line",
};

/* kwarn census --levels FILE: every label and its levels, as JSON. */
static int census_levels(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	struct census_file f;
	json_t *a = json_array(), *o = json_object();

	if (util_read_file(&buf, &len, path, CAP_SOURCE_FILE))
		return -1;
	census_scan(&f, buf, len);
	for (size_t i = 0; i < f.nr; i++) {
		const struct census_label *l = &f.labels[i];
		json_t *e = json_object(), *lv = json_array(),
		       *g = json_array();

		json_object_set_new(e, "line", json_integer(l->line));
		json_object_set_new(e, "label",
				    json_string(l->is_default ? "default" :
								"case"));
		for (int n = 1; n <= 5; n++)
			if (l->levels & (1u << n))
				json_array_append_new(lv, json_integer(n));
		json_object_set_new(e, "levels", lv);
		json_object_set_new(e, "marker",
				    json_string(census_marker_name(l->marker)));
		if (l->spelling)
			json_object_set_new(e, "spelling", jstr(l->spelling));
		if (l->marker_line)
			json_object_set_new(e, "marker_line",
					    json_integer(l->marker_line));
		for (size_t k = 0; k < ARRAY_SIZE(gap_names); k++)
			if (l->gap & (1u << k))
				json_array_append_new(
					g, json_string(gap_names[k]));
		json_object_set_new(e, "gap", g);
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "file", jstr(path));
	json_object_set_new(o, "notes", census_notes_json(f.notes));
	json_object_set_new(o, "labels", a);
	json_dumpf(o, stdout, JSON_INDENT(1));
	putchar('\n');
	json_decref(o);
	census_file_release(&f);
	free(buf);
	return 0;
}

static const char *const census_usage[] = {
	"kwarn census TREE... [--format text|json] [--upgrade]",
	"kwarn census --repo PATH --commit SHA [--path DIR] [...]",
	"kwarn census --db FILE --commit ID [--repo PATH] [--path DIR] [...]",
	"kwarn census --levels FILE.c",
	NULL,
};

int cmd_census(int argc, char **argv)
{
	const char *dbpath = NULL, *commit = NULL, *repo = NULL;
	const char *format = "text", *levels = NULL, *prefix = NULL;
	struct census_tally r = { 0 };
	struct srctree_walk w = { 0 };
	char *sha = NULL, *what = NULL, *cached = NULL;
	int upgrade = 0, argi, rc, ret = -1;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE",
			   "read the commit's tree from kwarn's cache"),
		OPT_STRING(0, "commit", &commit, "REF", "the commit"),
		OPT_STRING(0, "repo", &repo, "PATH",
			   "read the commit from this repository"),
		OPT_CHOICE(0, "format", &format, "F", "output", text_json),
		OPT_FLAG(0, "upgrade", &upgrade,
			 "list the comments that pass at 3 and fail at 5"),
		OPT_STRING(0, "levels", &levels, "FILE.c",
			   "every label of one file with its levels"),
		OPT_STRING(0, "path", &prefix, "DIR",
			   "only this directory of the commit"),
		OPT_END,
	};

	rc = opt_parse(&argi, argc, argv, opts, census_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (levels)
		return census_levels(levels) ? 1 : 0;
	if (strcmp(format, "text") && strcmp(format, "json")) {
		error("unknown format '%s' (text or json)", format);
		return 2;
	}
	if ((dbpath || repo) && !commit) {
		error("'--commit' is needed with '--db' or '--repo'");
		return 2;
	}
	if (commit && !repo && !dbpath) {
		error("'--db' or '--repo' is needed to read commit '%s'",
		      commit);
		return 2;
	}
	if (prefix && !commit) {
		error("'--path' is for a commit; name the directory instead");
		return 2;
	}
	if (!commit && argi >= argc) {
		opt_usage(stderr, opts, census_usage);
		return 2;
	}
	r.notes = json_array();
	w.fn = census_tally_visit;
	w.ctx = &r;
	if (commit) {
		/* without --repo, the collector's copy of the commit's tree */
		if (dbpath &&
		    db_commit_sha(&sha, repo ? NULL : &cached, dbpath, commit))
			goto out;
		if (!repo)
			repo = cached;
		what = prefix ? xstrfmt("%s@%s:%s", repo, sha ? sha : commit,
					prefix) :
				xstrfmt("%s@%s", repo, sha ? sha : commit);
		if (srctree_walk_git(&w, repo, sha ? sha : commit, prefix))
			goto out;
	} else {
		struct strbuf sb = STRBUF_INIT;

		for (int i = argi; i < argc; i++) {
			strbuf_addf(&sb, "%s%s", i > argi ? " " : "", argv[i]);
			if (srctree_walk_path(&w, argv[i])) {
				strbuf_release(&sb);
				goto out;
			}
		}
		what = strbuf_detach(&sb, NULL);
	}
	census_tally_sort(&r);
	if (!strcmp(format, "json")) {
		json_t *o = census_tally_json(&r, &w, what, upgrade);

		json_dumpf(o, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(o);
	} else {
		census_print_text(&r, &w, what, upgrade);
	}
	ret = 0;
out:
	census_tally_release(&r);
	srctree_walk_release(&w);
	free(sha);
	free(what);
	free(cached);
	return ret ? 1 : 0;
}

/* ---- kwarn classify ---- */

/* Blank "fallthrough;" on LINE (1-based) of BUF; 0 if done, -1 if none. */
static int blank_fallthrough(char *buf, size_t len, long line)
{
	size_t i = 0;
	long l = 1;
	char *p, *e;

	while (i < len && l < line)
		if (buf[i++] == '\n')
			l++;
	if (l != line)
		return -1;
	e = memchr(buf + i, '\n', len - i);
	if (!e)
		e = buf + len;
	p = memmem(buf + i, (size_t)(e - (buf + i)), "fallthrough", 11);
	if (!p)
		return -1;
	for (e = p + 11; *e == ' ' || *e == '\t'; e++)
		;
	if (*e != ';')
		return -1;
	memset(p, ' ', (size_t)(e - p + 1));
	return 0;
}

struct eval_run {
	long sites, flagged;
	int verbose;
};

static int eval_visit(void *ctx, const char *path, const char *buf, size_t len)
{
	struct eval_run *ev = ctx;
	struct census_file f;
	char *copy = NULL;

	census_scan(&f, buf, len);
	for (size_t i = 0; i < f.nr; i++) {
		const struct census_label *l = &f.labels[i];
		struct classify_result r;

		if (l->marker != CENSUS_MARK_KEYWORD)
			continue;
		free(copy);
		copy = xmalloc(len + 1);
		memcpy(copy, buf, len);
		copy[len] = '\0';
		if (blank_fallthrough(copy, len, l->marker_line))
			continue;
		ev->sites++;
		classify_fallthrough(&r, copy, len, l->prev_line, l->line);
		if (ev->verbose > 1)
			printf("%s:%ld: %s: %s\n", path, l->line,
			       classify_verdict_name(r.verdict), r.reason);
		if (r.verdict == CLASSIFY_MISSING_BREAK) {
			ev->flagged++;
			if (ev->verbose == 1)
				printf("flagged %s:%ld: %s\n", path, l->line,
				       r.reason);
		}
	}
	free(copy);
	census_file_release(&f);
	return 0;
}

/* kwarn classify --eval-intended DIR...: intended sites called bugs. */
static int classify_eval(char **dirs, int n, int verbose)
{
	struct eval_run ev = { 0, 0, verbose };
	struct srctree_walk w = { 0 };
	int ret = 0;

	w.fn = eval_visit;
	w.ctx = &ev;
	for (int i = 0; i < n && !ret; i++)
		ret = srctree_walk_path(&w, dirs[i]);
	srctree_walk_release(&w);
	if (ret)
		return -1;
	printf("intended sites: %ld, flagged as missing break: %ld (%.2f%%)\n",
	       ev.sites, ev.flagged,
	       ev.sites ? 100.0 * (double)ev.flagged / (double)ev.sites : 0.0);
	return 0;
}

static void print_result(const char *file, long warn, long here,
			 const struct classify_result *r, int as_json)
{
	if (as_json) {
		json_t *o = json_object();

		json_object_set_new(o, "file", jstr(file));
		json_object_set_new(o, "warn_line", json_integer(warn));
		json_object_set_new(o, "here_line", json_integer(here));
		json_object_set_new(
			o, "verdict",
			json_string(classify_verdict_name(r->verdict)));
		/* unsure: no fix to suggest */
		json_object_set_new(o, "fix",
				    r->fix ? jstr(r->fix) : json_null());
		json_object_set_new(o, "reason", jstr(r->reason));
		json_dumpf(o, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(o);
		return;
	}
	printf("%s:%ld: %s (%s): %s\n", file, warn,
	       classify_verdict_name(r->verdict),
	       r->fix ? r->fix : "no fix: read both cases", r->reason);
}

/* Classify the stored implicit-fallthrough warnings of one build. */
static int classify_db(const char *dbpath, const char *ref, const char *repo,
		       const char *tree_dir, int as_json)
{
	sqlite3 *db = NULL;
	struct query_ids ids = { 0 };
	long long build = -1, commit = -1;
	char *sha = NULL, *cached = NULL;
	long done = 0, bugs = 0, intended = 0, unsure = 0, failed = 0;
	int ret = -1;

	if (db_open(&db, dbpath, DB_READ_WRITE) ||
	    query_find_build(&build, &commit, db, ref))
		goto out;
	if (!tree_dir) {
		if (query_commit_sha(&sha, db, commit))
			goto out;
		/* without --repo, the collector's copy of the commit's tree */
		if (!repo && !(repo = cached = tree_repo_path(db, sha)))
			goto out;
	}
	if (query_fallthrough_diags(&ids, db, build, -1))
		goto out;
	if (db_begin(db))
		goto out;
	for (size_t i = 0; i < ids.nr; i++) {
		long long id = ids.identity[i];
		char *file = NULL;
		long warn = 0, here = 0;
		struct classify_result r;
		char *src = NULL;
		size_t len = 0;

		if (query_fallthrough_site(&file, &warn, &here, db,
					   ids.diag[i]) ||
		    srctree_read(&src, &len, tree_dir, repo, sha, file)) {
			failed++;
		} else {
			classify_fallthrough(&r, src, len, warn, here);
			if (store_classification(db, id, &r)) {
				free(src);
				free(file);
				db_rollback(db);
				goto out;
			}
			print_result(file, warn, here, &r, as_json);
			done++;
			bugs += r.verdict == CLASSIFY_MISSING_BREAK;
			intended += r.verdict == CLASSIFY_INTENDED;
			unsure += r.verdict == CLASSIFY_UNSURE;
		}
		free(src);
		free(file);
	}
	if (db_commit(db))
		goto out;
	if (!as_json)
		printf("%ld classified: %ld likely missing break, "
		       "%ld likely intended, %ld unsure, %ld not readable\n",
		       done, bugs, intended, unsure, failed);
	ret = 0;
out:
	query_ids_release(&ids);
	db_close(db);
	free(sha);
	free(cached);
	return ret;
}

static const char *const classify_usage_lines[] = {
	"kwarn classify --db FILE [--commit REF] [--repo PATH | --tree DIR]",
	"               [--format text|json]",
	"kwarn classify --file FILE.c --warn LINE --here LINE [--format json]",
	"kwarn classify --eval-intended [-v] DIR...",
	NULL,
};

int cmd_classify(int argc, char **argv)
{
	const char *dbpath = NULL, *commit = NULL, *repo = NULL;
	const char *tree = NULL, *file = NULL, *format = "text";
	long warn = 0, here = 0;
	int eval = 0, verbose = 0, argi, rc;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_STRING(0, "commit", &commit, "REF",
			   "the commit (default: the last built)"),
		OPT_STRING(0, "repo", &repo, "PATH",
			   "read the sources from this repository"),
		OPT_STRING(0, "tree", &tree, "DIR",
			   "read the sources from this directory"),
		OPT_STRING(0, "file", &file, "FILE.c", "classify one site"),
		OPT_LONG(0, "warn", &warn, "LINE", "the warning's line", 1,
			 1L << 30),
		OPT_LONG(0, "here", &here, "LINE",
			 "the note's line (the label)", 1, 1L << 30),
		OPT_CHOICE(0, "format", &format, "F", "output", text_json),
		OPT_FLAG(0, "eval-intended", &eval,
			 "classify every fallthrough; marker of DIR..."),
		OPT_FLAG('v', "verbose", &verbose, "name every site"),
		OPT_END,
	};

	rc = opt_parse(&argi, argc, argv, opts, classify_usage_lines);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (strcmp(format, "text") && strcmp(format, "json")) {
		error("unknown format '%s' (text or json)", format);
		return 2;
	}
	if (eval) {
		if (argi >= argc) {
			opt_usage(stderr, opts, classify_usage_lines);
			return 2;
		}
		return classify_eval(argv + argi, argc - argi, verbose) ? 1 : 0;
	}
	if (file) {
		struct classify_result r;
		char *src = NULL, why[160];
		size_t len = 0;

		if (!here) {
			error("'--here' is needed with '--file'");
			return 2;
		}
		/* a source that cannot be read, a pair that is none: 2 */
		if (util_read_file(&src, &len, file, CAP_SOURCE_FILE))
			return 2;
		/* a pair inside a comment, or no pair: no verdict */
		if (classify_check_pair(src, len, warn, here, why,
					sizeof(why))) {
			free(src);
			error("%s:%ld: not a statement and a case label: %s",
			      file, here, why);
			return 2;
		}
		rc = classify_fallthrough(&r, src, len, warn, here);
		free(src);
		if (rc) {
			error("no case label on or after line %ld of '%s'",
			      here, file);
			return 2;
		}
		print_result(file, warn, here, &r, !strcmp(format, "json"));
		return 0;
	}
	if (!dbpath) {
		opt_usage(stderr, opts, classify_usage_lines);
		return 2;
	}
	return classify_db(dbpath, commit, repo, tree,
			   !strcmp(format, "json")) ?
		       1 :
		       0;
}
