// SPDX-License-Identifier: MIT
/*
 * kwarn nightly: what a cron job runs.  Measure every installed kernel
 * tree (and a git branch, when asked) not measured before, try the series
 * on each, compare with the last nightly of the same tree and with the
 * newest older tree, and exit 1 naming every new warning.
 *
 * Exit status: 0 nothing new, 1 new warnings (named), 2 could not measure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "bisect.h"
#include "db.h"
#include "kwarn.h"
#include "util.h"
#include "banned.h"

struct found_tree {
	char *path;
	char *name;
	char *pkg; /* owning package, or NULL */
	char *pkg_version; /* its version, or NULL */
	long ver[3]; /* from the file name, for ordering */
};

static int tree_cmp(const void *a, const void *b)
{
	const struct found_tree *x = a, *y = b;

	for (int i = 0; i < 3; i++)
		if (x->ver[i] != y->ver[i])
			return x->ver[i] < y->ver[i] ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The first line of a command's output, or NULL. */
static char *first_line(const char *const *argv)
{
	char tmpl[] = "/tmp/kwarn-nightly-XXXXXX", *text = NULL, *line = NULL;
	int fd = mkstemp(tmpl);

	if (fd < 0)
		return NULL;
	close(fd);
	if (!util_run(argv, NULL, tmpl, "/dev/null") &&
	    !util_read_file(&text, NULL, tmpl, 1 << 20) && *text) {
		text[strcspn(text, "\n")] = '\0';
		line = xstrdup(text);
	}
	free(text);
	unlink(tmpl);
	return line;
}

/* Which package owns PATH, and its version (dpkg-query), if any. */
static void package_of(struct found_tree *t)
{
	const char *s_argv[] = { "dpkg-query", "-S", t->path, NULL };
	char *owner = first_line(s_argv), *colon;

	if (!owner)
		return;
	colon = strchr(owner, ':');
	if (colon) {
		const char *v_argv[] = { "dpkg-query", "-W", "-f=${Version}",
					 NULL, NULL };

		*colon = '\0';
		t->pkg = xstrdup(owner);
		v_argv[3] = t->pkg;
		t->pkg_version = first_line(v_argv);
	}
	free(owner);
}

static int find_trees(struct found_tree **out, size_t *nr, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct found_tree *list = NULL;
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	if (!d)
		return error("cannot read trees directory '%s': %s", dir,
			     strerror(errno));
	while ((de = readdir(d)) != NULL) {
		struct found_tree *t;
		char *dot;

		if (strncmp(de->d_name, "linux-source-", 13) ||
		    !strstr(de->d_name, ".tar"))
			continue;
		list = xrealloc(list, (n + 1) * sizeof(*list));
		t = &list[n++];
		memset(t, 0, sizeof(*t));
		t->path = xstrfmt("%s/%s", dir, de->d_name);
		t->name = xstrdup(de->d_name);
		dot = strstr(t->name, ".tar");
		*dot = '\0';
		t->ver[0] = t->ver[1] = t->ver[2] = -1;
		sscanf(t->name, "linux-source-%ld.%ld.%ld", &t->ver[0],
		       &t->ver[1], &t->ver[2]);
		package_of(t);
	}
	closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), tree_cmp);
	*out = list;
	*nr = n;
	return 0;
}

/*
 * Warnings present at the base of RUN but not at the base of OLDER, as a
 * JSON array of {file, line, column, function, option, message, cause}.
 * With SPLIT >= 0 (the older tree rebuilt with RUN's compiler), a warning
 * that SPLIT has too comes from the compiler, any other from the code;
 * else every warning gets CAUSE.
 */
static json_t *new_against(sqlite3 *db, long long run, long long older,
			   const char *cause, long long split)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array();

	if (db_prepare(
		    &st, db,
		    "SELECT i.file, d.line, i.function, i.option, d.message,"
		    " d.col, s.identity_id IN (SELECT s3.identity_id"
		    "  FROM states s3 JOIN commits c3 ON c3.id = s3.commit_id"
		    "  WHERE c3.run_id = ?3 AND c3.position = 0"
		    "  AND s3.state IN ('new', 'present')), i.fingerprint"
		    " FROM states s JOIN commits c ON c.id = s.commit_id"
		    " JOIN identities i ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " WHERE c.run_id = ?1 AND c.position = 0"
		    " AND s.state IN ('new', 'present')"
		    " AND s.identity_id NOT IN (SELECT s2.identity_id"
		    "  FROM states s2 JOIN commits c2 ON c2.id = s2.commit_id"
		    "  WHERE c2.run_id = ?2 AND c2.position = 0"
		    "  AND s2.state IN ('new', 'present'))"
		    " ORDER BY i.file, d.line"))
		return arr;
	db_bind_int(st, 1, run, 0);
	db_bind_int(st, 2, older, 0);
	db_bind_int(st, 3, split, 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
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
		json_object_set_new(w, "identity",
				    json_string(db_col_text(st, 7)));
		json_array_append_new(arr, w);
	}
	sqlite3_finalize(st);
	return arr;
}

static long long count_present(sqlite3 *db, long long run)
{
	sqlite3_stmt *st = NULL;
	long long n = -1;
	if (!db_prepare(
		    &st, db,
		    "SELECT COUNT(*) FROM states s JOIN commits c"
		    " ON c.id = s.commit_id WHERE c.run_id = ?"
		    " AND c.position = 0 AND s.state IN ('new', 'present')")) {
		db_bind_int(st, 1, run, 0);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

/*
 * Facts of a nightly run: its tree's name and version, the compiler, the
 * boot verdict.  Strings are new.
 */
struct run_facts {
	char *tree, *version, *compiler, *verdict;
	char *source, *sha256, *pkg_version; /* of the tree */
	char *commit; /* the commit measured: a git tree's changes */
	long long tree_id;
};

static int run_facts(struct run_facts *f, sqlite3 *db, long long run)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	if (db_prepare(&st, db,
		       "SELECT t.name, COALESCE(t.version, ''), b.compiler,"
		       " (SELECT verdict FROM boots WHERE build_id = b.id"
		       "  ORDER BY id DESC LIMIT 1), t.id, t.source, t.sha256,"
		       " t.pkg_version, c.sha FROM runs r"
		       " JOIN trees t ON t.id = r.tree_id"
		       " JOIN commits c ON c.run_id = r.id AND c.position = 0"
		       " LEFT JOIN builds b ON b.commit_id = c.id WHERE r.id = ?"
		       " ORDER BY b.id DESC LIMIT 1"))
		return -1;
	db_bind_int(st, 1, run, 0);
	if (sqlite3_step(st) == SQLITE_ROW) {
		f->tree = xstrdup(db_col_text(st, 0));
		f->version = xstrdup(db_col_text(st, 1));
		f->compiler = xstrdup(db_col_text(st, 2));
		f->verdict = xstrdup(db_col_text(st, 3));
		f->tree_id = sqlite3_column_int64(st, 4);
		f->source = xstrdup(db_col_text(st, 5));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			f->sha256 = xstrdup(db_col_text(st, 6));
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			f->pkg_version = xstrdup(db_col_text(st, 7));
		f->commit = xstrdup(db_col_text(st, 8));
		ret = 0;
	}
	sqlite3_finalize(st);
	return ret;
}

static void run_facts_release(struct run_facts *f)
{
	free(f->tree);
	free(f->version);
	free(f->compiler);
	free(f->verdict);
	free(f->source);
	free(f->sha256);
	free(f->pkg_version);
	free(f->commit);
}

/* The first column of ST's first row (a run id), or -1; finalizes ST. */
static long long first_id(sqlite3_stmt *st)
{
	long long id = -1;

	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* The last nightly of the same tree name before RUN, or -1. */
static long long previous_same_tree(sqlite3 *db, long long run,
				    const char *name)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(
		    &st, db,
		    "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND t.name = ? AND r.id < ? ORDER BY r.id DESC LIMIT 1"))
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int(st, 2, run, 0);
	return first_id(st);
}

/*
 * A finished nightly of tree TREE_ID built with COMPILER (the newest), or
 * -1.
 */
static long long tree_with_compiler(sqlite3 *db, long long tree_id,
				    const char *compiler)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(
		    &st, db,
		    "SELECT r.id FROM runs r JOIN commits c ON c.run_id = r.id"
		    " AND c.position = 0 JOIN builds b ON b.commit_id = c.id"
		    " WHERE r.kind = 'nightly' AND r.status = 'done'"
		    " AND r.tree_id = ? AND b.compiler = ?"
		    " ORDER BY r.id DESC LIMIT 1"))
		return -1;
	db_bind_int(st, 1, tree_id, 0);
	db_bind_text(st, 2, compiler);
	return first_id(st);
}

/*
 * The newest nightly of another tree whose version is not newer than
 * VERSION (by numeric parts), or -1.  Of the runs of that version, one
 * built with COMPILER is preferred, then the latest.
 */
static long long newest_older_tree(sqlite3 *db, long long run, const char *name,
				   const char *version, const char *compiler)
{
	sqlite3_stmt *st = NULL;
	long long best = -1;
	long bv[3] = { -1, -1, -1 }, mv[3] = { 0, 0, 0 };
	int best_same = 0;

	sscanf(version, "%ld.%ld.%ld", &mv[0], &mv[1], &mv[2]);
	if (db_prepare(&st, db,
		       "SELECT r.id, COALESCE(t.version, ''),"
		       " (SELECT b.compiler FROM commits c JOIN builds b"
		       "  ON b.commit_id = c.id WHERE c.run_id = r.id"
		       "  AND c.position = 0 ORDER BY b.id DESC LIMIT 1) = ?3"
		       " FROM runs r JOIN trees t ON t.id = r.tree_id"
		       " WHERE r.kind = 'nightly' AND r.status = 'done'"
		       " AND t.name <> ?1 AND r.id <> ?2 ORDER BY r.id"))
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int(st, 2, run, 0);
	db_bind_text(st, 3, compiler);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long v[3] = { 0, 0, 0 };
		int newer = 0, cmp = 0, same = sqlite3_column_int(st, 2);

		sscanf(db_col_text(st, 1), "%ld.%ld.%ld", &v[0], &v[1], &v[2]);
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
			best = sqlite3_column_int64(st, 0);
			memcpy(bv, v, sizeof(bv));
			best_same = same;
		}
	}
	sqlite3_finalize(st);
	return best;
}

/*
 * Compare RUN with what came before; entries go to REPORT.  PREV is the
 * last nightly of the same tree before this one (-1: none, -2: look it
 * up); REBUILT, when
 * the compiler changed, PREV's tree rebuilt with RUN's compiler (or -1),
 * which tells the warnings of the new compiler from those of the code.
 * Returns how many new warnings there are.
 */
static int compare_run(json_t *report, sqlite3 *db, long long run,
		       long long prev_run, long long rebuilt)
{
	struct run_facts me, prev;
	json_t *entry = json_object(), *news = json_array();
	long long o;
	int nnew;

	if (run_facts(&me, db, run)) {
		json_decref(entry);
		json_decref(news);
		return error("cannot read nightly run %lld", run);
	}
	json_object_set_new(entry, "run", json_integer(run));
	json_object_set_new(entry, "tree", json_string(me.tree));
	json_object_set_new(entry, "version", json_string(me.version));
	json_object_set_new(entry, "compiler", json_string(me.compiler));
	json_object_set_new(entry, "verdict", json_string(me.verdict));
	json_object_set_new(entry, "warnings",
			    json_integer(count_present(db, run)));
	if (prev_run == -2)
		prev_run = previous_same_tree(db, run, me.tree);
	if (prev_run >= 0 && !run_facts(&prev, db, prev_run)) {
		const char *cause = "code";
		long long split = -1;
		json_t *n;

		if (strcmp(prev.compiler, me.compiler)) {
			json_object_set_new(entry, "previous_compiler",
					    json_string(prev.compiler));
			if (prev.tree_id == me.tree_id &&
			    !strcmp(prev.commit, me.commit))
				cause = "compiler"; /* the same code */
			else if (rebuilt >= 0)
				split = rebuilt;
			else
				cause = "compiler or code";
		}
		if (rebuilt >= 0)
			json_object_set_new(
				entry, "rebuilt",
				json_pack("{s:I, s:I}", "run",
					  (json_int_t)rebuilt, "warnings",
					  (json_int_t)count_present(db,
								    rebuilt)));
		json_object_set_new(entry, "previous_run",
				    json_integer(prev_run));
		json_object_set_new(entry, "previous_version",
				    json_string(prev.version));
		n = new_against(db, run, prev_run, cause, split);
		json_array_extend(news, n);
		json_decref(n);
		run_facts_release(&prev);
	}
	o = newest_older_tree(db, run, me.tree, me.version, me.compiler);
	if (o >= 0 && !run_facts(&prev, db, o)) {
		json_t *added = new_against(db, run, o,
					    strcmp(prev.compiler, me.compiler) ?
						    "newer tree or compiler" :
						    "newer tree",
					    -1);
		size_t i;
		json_t *w;

		json_object_set_new(
			entry, "older_tree",
			json_pack("{s:s, s:s, s:I, s:s}", "tree", prev.tree,
				  "version", prev.version, "run", (json_int_t)o,
				  "compiler", prev.compiler));
		/* the same warning new against both: list it once */
		json_array_foreach(added, i, w) {
			size_t j;
			json_t *x;
			int dup = 0;

			json_array_foreach(news, j, x) {
				dup |= json_equal(json_object_get(x, "file"),
						  json_object_get(w, "file")) &&
				       json_equal(json_object_get(x, "line"),
						  json_object_get(w, "line")) &&
				       json_equal(json_object_get(x, "message"),
						  json_object_get(w,
								  "message"));
			}
			if (!dup)
				json_array_append(news, w);
		}
		json_decref(added);
		run_facts_release(&prev);
	}
	nnew = (int)json_array_size(news);
	json_object_set_new(entry, "new", news);
	json_array_append_new(report, entry);
	run_facts_release(&me);
	return nnew;
}

static void print_text(FILE *fp, json_t *report, json_t *failures)
{
	size_t i, j;
	json_t *e, *w;

	json_array_foreach(report, i, e) {
		json_t *older = json_object_get(e, "older_tree");

		fprintf(fp, "%s %s: %lld warnings, boot %s (%s)\n",
			json_string_value(json_object_get(e, "tree")),
			json_string_value(json_object_get(e, "version")),
			json_integer_value(json_object_get(e, "warnings")),
			*json_string_value(json_object_get(e, "verdict")) ?
				json_string_value(
					json_object_get(e, "verdict")) :
				"-",
			json_string_value(json_object_get(e, "compiler")));
		if (json_object_get(e, "previous_version"))
			fprintf(fp,
				"   compared with the last nightly of this tree (%s)\n",
				json_string_value(json_object_get(
					e, "previous_version")));
		if (json_object_get(e, "previous_compiler"))
			fprintf(fp, "   the compiler changed since: %s\n",
				json_string_value(json_object_get(
					e, "previous_compiler")));
		if (json_object_get(e, "rebuilt"))
			fprintf(fp,
				"   the previous tree rebuilt with this compiler (run %lld): %lld warnings\n",
				json_integer_value(json_object_get(
					json_object_get(e, "rebuilt"), "run")),
				json_integer_value(json_object_get(
					json_object_get(e, "rebuilt"),
					"warnings")));
		if (older)
			fprintf(fp,
				"   compared with the newest older tree %s %s\n",
				json_string_value(
					json_object_get(older, "tree")),
				json_string_value(
					json_object_get(older, "version")));
		json_array_foreach(json_object_get(e, "new"), j, w) {
			const char *fn = json_string_value(
				json_object_get(w, "function"));

			fprintf(fp, ">> %s:%lld: in '%s': %s [%s] (%s)\n",
				json_string_value(json_object_get(w, "file")),
				json_integer_value(json_object_get(w, "line")),
				fn ? fn : "",
				json_string_value(
					json_object_get(w, "message")),
				json_string_value(json_object_get(w, "option")),
				json_string_value(json_object_get(w, "cause")));
			if (json_is_object(json_object_get(w, "introduced")))
				fprintf(fp, "   introduced by %s (\"%s\")\n",
					json_string_value(json_object_get(
						json_object_get(w, "introduced"),
						"sha")),
					json_string_value(json_object_get(
						json_object_get(w, "introduced"),
						"subject")));
		}
	}
	json_array_foreach(failures, i, e) {
		fprintf(fp, "!! %s\n", json_string_value(e));
	}
}

/*
 * Is there a finished nightly of this tarball with these parameters and
 * this compiler?  A new compiler measures every tree again.
 */
static int measured(sqlite3 *db, const char *path, const char *sha,
		    const char *config, const char *compiler)
{
	sqlite3_stmt *st = NULL;
	int yes = 0;

	if (db_prepare(&st, db,
		       "SELECT 1 FROM runs r JOIN trees t ON t.id = r.tree_id"
		       " JOIN commits c ON c.run_id = r.id AND c.position = 0"
		       " JOIN builds b ON b.commit_id = c.id"
		       " WHERE r.kind = 'nightly' AND r.status = 'done'"
		       " AND t.sha256 IS ? AND t.source = ? AND r.config = ?"
		       " AND b.compiler = ?"))
		return 0;
	db_bind_text(st, 1, sha);
	db_bind_text(st, 2, path);
	db_bind_text(st, 3, config);
	db_bind_text(st, 4, compiler);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/*
 * When the last nightly PREV of a tree was built with another compiler
 * and the tree changed since (SHA is the new tarball), build PREV's tree
 * again with this COMPILER, from the cache, so that what the compiler
 * adds can be told from what the code adds.  Returns the run of PREV's
 * tree with this compiler, or -1 (nothing to rebuild, or it failed: only
 * a warning, since the new tree is still measured).
 */
static long long rebuild_previous(sqlite3 *db, const struct run_request *q0,
				  long long prev, const char *sha,
				  const char *compiler)
{
	struct run_request q = *q0;
	struct run_facts f;
	long long id = -1;
	int rc;

	if (run_facts(&f, db, prev))
		return -1;
	if (!strcmp(f.compiler, compiler) || !f.sha256 ||
	    !strcmp(f.sha256, sha))
		goto out;
	id = tree_with_compiler(db, f.tree_id, compiler);
	if (id >= 0)
		goto out;
	fprintf(stderr,
		"kwarn: nightly: the compiler changed since %s %s (%s):"
		" building it again with %s\n",
		f.tree, f.version, f.compiler, compiler);
	q.tree_spec = f.source;
	q.cached_name = f.tree;
	q.cached_sha256 = f.sha256;
	q.series = NULL;
	q.kind = "nightly";
	q.pkg_version = f.pkg_version;
	rc = run_request(&id, &q);
	if (rc || id < 0) {
		warning("cannot rebuild %s %s with %s: new warnings are labelled 'compiler or code'",
			f.tree, f.version, compiler);
		id = -1;
	}
out:
	run_facts_release(&f);
	return id;
}

static void nightly_usage(void)
{
	fprintf(stderr,
		"usage: kwarn nightly --db FILE [--trees DIR] [--config FRAG]..."
		" [--level N] [-j N]\n"
		"                     [--series FILE|none] [--no-boot]"
		" [--repo PATH --ref BRANCH]\n"
		"                     [--cc-launcher L] [--format text|json]\n");
}

int cmd_nightly(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "trees", required_argument, NULL, 't' },
		{ "config", required_argument, NULL, 'c' },
		{ "level", required_argument, NULL, 'l' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "series", required_argument, NULL, 's' },
		{ "no-boot", no_argument, NULL, 'N' },
		{ "repo", required_argument, NULL, 'R' },
		{ "ref", required_argument, NULL, 'r' },
		{ "cc-launcher", required_argument, NULL, 'L' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbpath = NULL, *trees = "/usr/src", *series = NULL;
	const char *repo = NULL, *ref = NULL, *format = "text";
	char *frags[16] = { NULL }, *default_frag = NULL,
	     *default_series = NULL;
	char *lockpath = NULL, *config_name = NULL, *compiler = NULL;
	struct run_request q = { 0 };
	struct found_tree *found = NULL;
	size_t nfound = 0, nfrags = 0;
	json_t *report = json_array(), *failures = json_array();
	sqlite3 *db = NULL;
	int c, ret = 2, lockfd = -1, nnew = 0, measured_any = 0;
	long v;

	q.level = 3;
	q.jobs = 2;
	q.boot = 1;
	while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 't':
			trees = optarg;
			break;
		case 'c':
			if (nfrags == ARRAY_SIZE(frags) ||
			    !(frags[nfrags] = realpath(optarg, NULL))) {
				error("cannot read config fragment '%s'",
				      optarg);
				goto out;
			}
			nfrags++;
			break;
		case 'l':
			if (util_parse_long(&v, optarg, 1, 5)) {
				error("--level must be 1 to 5, not '%s'",
				      optarg);
				goto out;
			}
			q.level = (int)v;
			break;
		case 'j':
			if (util_parse_long(&v, optarg, 1, 256)) {
				error("-j must be 1 to 256, not '%s'", optarg);
				goto out;
			}
			q.jobs = (int)v;
			break;
		case 's':
			series = optarg;
			break;
		case 'N':
			q.boot = 0;
			break;
		case 'R':
			repo = optarg;
			break;
		case 'r':
			ref = optarg;
			break;
		case 'L':
			q.launcher = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		default:
			nightly_usage();
			goto out;
		}
	}
	if (!dbpath || optind != argc || (!repo != !ref) ||
	    (strcmp(format, "text") && strcmp(format, "json"))) {
		nightly_usage();
		goto out;
	}
	if (q.launcher && launcher_check(q.launcher, q.level))
		goto out;
	if (!nfrags) {
		default_frag = run_data_path("kernel/configs/qemu.config");
		frags[nfrags++] = realpath(default_frag, NULL);
		if (!frags[0]) {
			error("cannot find kernel/configs/qemu.config (set KWARN_DATA)");
			goto out;
		}
	}
	if (!series) {
		default_series = run_data_path("kernel/series");
		series = default_series;
	}
	if (!strcmp(series, "none"))
		series = NULL;
	else if (access(series, R_OK)) {
		error("cannot read series '%s': %s", series, strerror(errno));
		goto out;
	}
	q.dbpath = dbpath;
	q.frags = (const char *const *)frags;
	q.nr_frags = nfrags;

	/* one nightly at a time */
	if (util_mkdir_p(util_cache_dir()))
		goto out;
	lockpath = xstrfmt("%s/nightly.lock", util_cache_dir());
	lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0 || flock(lockfd, LOCK_EX | LOCK_NB)) {
		error("another kwarn nightly holds '%s'", lockpath);
		goto out;
	}
	if (db_open(&db, dbpath, DB_READ_WRITE))
		goto out;
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, "tinyconfig");
		for (size_t i = 0; i < nfrags; i++)
			strbuf_addf(&sb, "+%s", strrchr(frags[i], '/') + 1);
		config_name = strbuf_detach(&sb, NULL);
	}
	/* the same words as kwarn run stores in builds.compiler */
	compiler = run_compiler_version();
	if (!strcmp(compiler, "unknown")) {
		error("cannot run 'gcc --version'");
		goto out;
	}
	if (!repo && find_trees(&found, &nfound, trees))
		goto out;
	if (!repo && !nfound) {
		error("no linux-source-*.tar.* in '%s'", trees);
		goto out;
	}
	for (size_t i = 0; i < nfound; i++) {
		struct found_tree *t = &found[i];
		char sha[65];
		long long run_id = -1, prev, rebuilt;
		int rc;

		if (util_sha256_file(sha, t->path)) {
			json_array_append_new(failures,
					      json_sprintf("%s: cannot read",
							   t->path));
			continue;
		}
		{
			char *real = realpath(t->path, NULL);
			int done = measured(db, real ? real : t->path, sha,
					    config_name, compiler);

			free(real);
			if (done) {
				fprintf(stderr, "kwarn: %s: measured before\n",
					t->name);
				continue;
			}
		}
		prev = previous_same_tree(db, LLONG_MAX, t->name);
		rebuilt = -1;
		if (prev >= 0)
			rebuilt = rebuild_previous(db, &q, prev, sha, compiler);
		fprintf(stderr, "kwarn: nightly: measuring %s (%s)\n", t->name,
			t->pkg_version ? t->pkg_version : "no package");
		q.tree_spec = t->path;
		q.cached_name = q.cached_sha256 = NULL;
		q.series = NULL;
		q.kind = "nightly";
		q.pkg_version = t->pkg_version;
		rc = run_request(&run_id, &q);
		if (rc == 130) {
			ret = 2;
			goto out;
		}
		if (rc || run_id < 0) {
			json_array_append_new(
				failures,
				json_sprintf(
					"%s: could not be measured (see the errors above)",
					t->name));
			continue;
		}
		measured_any = 1;
		rc = compare_run(report, db, run_id, prev, rebuilt);
		if (rc > 0)
			nnew += rc;
		if (series) {
			long long sid = -1;

			q.series = series;
			q.kind = "series";
			rc = run_request(&sid, &q);
			if (rc == 1)
				fprintf(stderr,
					"kwarn: the series does not apply to %s: recorded in run %lld\n",
					t->name, sid);
			else if (rc)
				json_array_append_new(
					failures,
					json_sprintf("%s: the series run failed",
						     t->name));
		}
	}
	if (repo) {
		char *range = xstrfmt("%s..%s", ref, ref);
		long long run_id = -1;
		int rc, before = 0;

		q.repo = repo;
		q.range = range;
		q.series = NULL;
		q.kind = "nightly";
		q.cached_name = q.cached_sha256 = NULL;
		q.measured_before = &before; /* the branch's head, already */
		rc = run_request(&run_id, &q);
		q.measured_before = NULL;
		free(range);
		if (rc || run_id < 0) {
			json_array_append_new(
				failures,
				json_sprintf("%s %s: could not be measured",
					     repo, ref));
		} else if (before) {
			fprintf(stderr, "kwarn: %s %s: measured before\n", repo,
				ref);
		} else {
			measured_any = 1;
			rc = compare_run(report, db, run_id, -2, -1);
			if (rc > 0) {
				nnew += rc;
				/* the commit of the moved branch that brought each */
				bisect_nightly(
					json_array_get(report,
						       json_array_size(report) -
							       1),
					db, repo);
			}
		}
	}
	if (!strcmp(format, "json")) {
		json_t *o = json_pack("{s:O, s:O, s:i}", "trees", report,
				      "failures", failures, "new", nnew);

		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		print_text(stdout, report, failures);
		if (!measured_any && !json_array_size(failures))
			printf("nothing new to measure\n");
	}
	if (json_array_size(failures))
		ret = 2;
	else
		ret = nnew ? 1 : 0;
out:
	db_close(db);
	if (lockfd >= 0)
		close(lockfd);
	for (size_t i = 0; i < nfound; i++) {
		free(found[i].path);
		free(found[i].name);
		free(found[i].pkg);
		free(found[i].pkg_version);
	}
	free(found);
	for (size_t i = 0; i < nfrags; i++)
		free(frags[i]);
	free(default_frag);
	free(default_series);
	free(lockpath);
	free(config_name);
	free(compiler);
	json_decref(report);
	json_decref(failures);
	return ret;
}
