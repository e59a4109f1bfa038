// SPDX-License-Identifier: MIT
/*
 * kwarn bisect: which commit between the last point without a warning and
 * the first with it brought it.  The warning's object alone is rebuilt at
 * each step, in a checkout of the tree's repository and an output
 * directory of our own with the build's stored .config (the first step
 * runs kbuild's prepare, the next ones compile one file): log2(N) object
 * builds instead of log2(N) kernels, with the build's own compiler and
 * make variables (the reproducer's, repro.h).  The object file is removed
 * before each build, so the compiler runs even when the step changed none
 * of its inputs.
 * The worktree is a `git clone --shared` of the repository: the user's
 * repository (or kwarn's cache) is only read.
 * A commit where the object does not build is skipped, as `git bisect
 * skip` does, and said so.  A warning is present at a step when the
 * compiler prints a diagnostic with the stored identity (ident.h), so a line
 * moved by other commits is the same warning.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "bisect.h"
#include "query.h"
#include "db.h"
#include "ident.h"
#include "kwarn.h"
#include "options.h"
#include "parse.h"
#include "repro.h"
#include "srctree.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

enum step { STEP_UNTESTED, STEP_ABSENT, STEP_PRESENT, STEP_SKIP };

struct bisect {
	/* the warning */
	char fingerprint[65];
	char *object, *config, *good, *bad;
	struct repro_vars vars; /* the build's make variables */
	/* where we build */
	char *git_dir, *dir, *src, *out, *log;
	char **commits; /* good..bad, oldest first, bad last */
	size_t nr;
	enum step *steps;
	int builds;
	FILE *fp; /* where the steps are told */
	/* matching one build's output */
	struct ident_places places; /* the ordinal rule of one compile */
	int found;
};

/* ARGV's stdout as a new string in *out.  0, or -1 (reported). */
static int capture(char **out, const char *const *argv)
{
	char tmpl[] = "/tmp/kwarn-bisect-XXXXXX";
	int fd = mkstemp(tmpl), rc, ret = -1;

	*out = NULL;
	if (fd < 0)
		return error("cannot make a temporary file: %s",
			     strerror(errno));
	close(fd);
	rc = util_run(argv, NULL, tmpl, "/dev/null");
	if (rc)
		error("'%s %s' failed (exit %d)", argv[0], argv[1], rc);
	else if (!util_read_file(out, NULL, tmpl, CAP_TREE_FILE))
		ret = 0;
	unlink(tmpl);
	return ret;
}

static char *subject_of(struct bisect *b, const char *sha)
{
	const char *argv[] = { "git", "--git-dir",   b->git_dir, "log",
			       "-1",  "--format=%s", sha,	 NULL };
	char *s = NULL;

	if (capture(&s, argv))
		return xstrdup("?");
	s[strcspn(s, "\n")] = '\0';
	return s;
}

/* Every parsed diagnostic: does it carry the identity we look for? */
static void on_diag(void *ctx, const struct diag *d)
{
	struct bisect *b = ctx;
	struct ident_key k;
	unsigned char kh[32];
	char fp[65];
	int again;

	ident_key_from_diag(&k, d);
	ident_key_hash(kh, &k);
	ident_key_release(&k);
	/* numbered as the store numbers them (ident.h) */
	ident_fingerprint(fp, kh,
			  ident_places_at(&b->places, kh, d->line, d->col,
					  &again));
	if (!strcmp(fp, b->fingerprint))
		b->found = 1;
}

/* Check out commit I and compile the object: its step's outcome. */
static enum step test_commit(struct bisect *b, size_t i)
{
	const char *co[] = { "git",	"-C",	    b->src,	   "checkout",
			     "--quiet", "--detach", b->commits[i], NULL };
	char *obj = xstrfmt("%s/%s", b->out, b->object);
	const char *mk[16];
	size_t k = 0;
	char *text = NULL, *prefix = xstrfmt("%s/", b->src), *cc = NULL;
	size_t len = 0;
	struct parser *p;
	enum step s = STEP_SKIP;
	int rc;

	/* the reproducer's make line (repro.h): the build's compiler and flags */
	mk[k++] = "make";
	mk[k++] = "-C";
	mk[k++] = b->src;
	mk[k++] = "O=../build";
	for (size_t v = 0; v < b->vars.nr; v++) {
		const char *w = b->vars.words[v];

		/*
		 * The compiler cache, when on: a step that changed none of
		 * the object's inputs replays its diagnostics.  Our own
		 * build directory: no warm objects to keep.
		 */
		if (ccache_program() && !strncmp(w, "CC=", 3))
			mk[k++] = cc =
				xstrfmt("CC=%s %s", ccache_program(), w + 3);
		else
			mk[k++] = w;
	}
	mk[k++] = b->object;
	mk[k] = NULL;
	if (util_run(co, NULL, "/dev/null", b->log)) {
		error("cannot check out %s in '%s'", b->commits[i], b->src);
		goto out;
	}
	unlink(obj);
	unlink(b->log);
	b->builds++;
	rc = util_run(mk, NULL, b->log, b->log);
	if (rc || access(obj, F_OK))
		goto out;
	if (util_read_file(&text, &len, b->log, CAP_TREE_FILE))
		goto out;
	p = parse_new(on_diag, b);
	parse_add_strip_prefix(p, prefix);
	b->found = 0;
	ident_places_release(&b->places);
	parse_feed(p, text, len);
	parse_finish(p);
	parse_free(p);
	s = b->found ? STEP_PRESENT : STEP_ABSENT;
out:
	free(cc);
	free(obj);
	free(text);
	free(prefix);
	return s;
}

static void say(struct bisect *b, size_t i, const char *what)
{
	char *subj = subject_of(b, b->commits[i]);

	fprintf(b->fp, "step %d: %.12s (\"%s\"): %s\n", b->builds,
		b->commits[i], subj, what);
	fflush(b->fp);
	free(subj);
}

/*
 * Bisect over commits LO (absent, -1 for the good end) .. HI (present):
 * returns the index of the first present commit, with *ambiguous_out set
 * when skipped commits stand between it and the last absent one, *lo_out.
 */
static size_t bisect_range(int *ambiguous_out, long *lo_out, struct bisect *b)
{
	long lo = -1, hi = (long)b->nr - 1;

	*ambiguous_out = 0;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2, pick = -1;

		/* the untested commit nearest the middle */
		for (long d = 0; pick < 0 && d < hi - lo; d++) {
			if (mid - d > lo && b->steps[mid - d] == STEP_UNTESTED)
				pick = mid - d;
			else if (mid + d < hi &&
				 b->steps[mid + d] == STEP_UNTESTED)
				pick = mid + d;
		}
		if (pick < 0) {
			*ambiguous_out = 1;
			break;
		}
		b->steps[pick] = test_commit(b, (size_t)pick);
		switch (b->steps[pick]) {
		case STEP_PRESENT:
			say(b, (size_t)pick, "warning present");
			hi = pick;
			break;
		case STEP_ABSENT:
			say(b, (size_t)pick, "warning absent");
			lo = pick;
			break;
		default:
			say(b, (size_t)pick,
			    "the object does not build here: skipped");
			break;
		}
	}
	*lo_out = lo;
	return (size_t)hi;
}

/* The identity, its first new point, the point before and the build. */
static int load_warning(struct bisect *b, sqlite3 *db, const char *id,
			const char *repo)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (query_bisect_stmt(&st, db, id))
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		error("no warning '%s' in the database", id);
		goto out;
	}
	snprintf(b->fingerprint, sizeof(b->fingerprint), "%s",
		 db_col_text(st, 0));
	if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
		error("warning '%s' has no object to rebuild", id);
		goto out;
	}
	b->object = xstrdup(db_col_text(st, 2));
	if (!b->bad)
		b->bad = xstrdup(db_col_text(st, 3));
	if (!b->good && sqlite3_column_type(st, 4) != SQLITE_NULL)
		b->good = xstrdup(db_col_text(st, 4));
	if (sqlite3_column_type(st, 11) != SQLITE_NULL) {
		b->config = xstrfmt("%s/.config", db_col_text(st, 11));
	} else {
		/* a build stored before its directory was */
		const char *image = (const char *)sqlite3_column_text(st, 5);
		size_t n = 0;

		if (arch_of_image(image, &n))
			b->config = xstrfmt("%.*s/.config", (int)n, image);
	}
	repro_vars_init(&b->vars, (const char *)sqlite3_column_text(st, 12),
			(const char *)sqlite3_column_text(st, 13),
			sqlite3_column_type(st, 6) == SQLITE_NULL ?
				3 :
				sqlite3_column_int(st, 6));
	if (repo)
		b->git_dir = xstrfmt("%s/.git", repo);
	else
		b->git_dir = tree_repo_dir(
			db_col_text(st, 7), db_col_text(st, 8),
			(const char *)sqlite3_column_text(st, 9),
			(const char *)sqlite3_column_text(st, 10));
	if (repo && !util_is_dir(b->git_dir)) {
		free(b->git_dir);
		b->git_dir = xstrdup(repo); /* a bare repository */
	}
	if (!b->git_dir || !b->config || !b->good) {
		error("warning '%s': no %s", id,
		      !b->git_dir ? "repository (give --repo)" :
		      !b->config  ? "stored .config of its build" :
				    "point before it (give --good)");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

/* good..bad along first parents, oldest first, into b->commits. */
static int list_commits(struct bisect *b)
{
	char *range = xstrfmt("%s..%s", b->good, b->bad), *text = NULL, *p;
	const char *argv[] = { "git",
			       "--git-dir",
			       b->git_dir,
			       "rev-list",
			       "--first-parent",
			       "--reverse",
			       range,
			       NULL };
	int ret = -1;

	if (capture(&text, argv))
		goto out;
	for (p = text; *p;) {
		char *eol = strchrnul(p, '\n');

		if (eol > p) {
			b->commits = xrealloc(b->commits,
					      (b->nr + 1) * sizeof(char *));
			b->commits[b->nr++] = xstrndup(p, (size_t)(eol - p));
		}
		p = *eol ? eol + 1 : eol;
	}
	if (!b->nr) {
		error("no commits in %s", range);
		goto out;
	}
	b->steps = xcalloc(b->nr, sizeof(*b->steps));
	ret = 0;
out:
	free(range);
	free(text);
	return ret;
}

/* A shared clone of the repository and an output directory with the .config. */
static int setup(struct bisect *b, const char *dir)
{
	/* a clone borrowing the objects: nothing is written to the repository */
	const char *cl[] = { "git",	      "clone",	  "--quiet", "--shared",
			     "--no-checkout", b->git_dir, NULL,	     NULL };
	const char *cp[] = { "cp", b->config, NULL, NULL };
	char *cfg;
	int ret = -1;

	if (dir) {
		b->dir = xstrdup(dir);
		if (util_mkdir_p(b->dir))
			return -1;
	} else {
		char tmpl[] = "/tmp/kwarn-bisect-XXXXXX";

		if (!mkdtemp(tmpl))
			return error("cannot make a directory: %s",
				     strerror(errno));
		b->dir = xstrdup(tmpl);
	}
	b->src = xstrfmt("%s/src", b->dir);
	b->out = xstrfmt("%s/build", b->dir);
	b->log = xstrfmt("%s/step.log", b->dir);
	cfg = xstrfmt("%s/.config", b->out);
	cl[6] = b->src;
	if (!util_is_dir(b->src) && util_run(cl, NULL, "/dev/null", b->log)) {
		error("cannot clone '%s' into '%s'", b->git_dir, b->src);
		goto out;
	}
	cp[2] = cfg;
	if (util_mkdir_p(b->out) || util_run(cp, NULL, NULL, NULL)) {
		error("cannot copy '%s' into '%s'", b->config, b->out);
		goto out;
	}
	ret = 0;
out:
	free(cfg);
	return ret;
}

static void bisect_release(struct bisect *b, int keep)
{
	if (b->dir && !keep)
		util_rm_rf(b->dir);
	for (size_t i = 0; i < b->nr; i++)
		free(b->commits[i]);
	free(b->commits);
	free(b->steps);
	ident_places_release(&b->places);
	free(b->object);
	free(b->config);
	repro_vars_release(&b->vars);
	free(b->good);
	free(b->bad);
	free(b->git_dir);
	free(b->dir);
	free(b->src);
	free(b->out);
	free(b->log);
}

/*
 * Load warning ID, list its commits and bisect them: *first_out is the
 * first commit with it, *lo_out the last without (-1: the good end),
 * *ambiguous_out 1 when skipped commits lie between.  0 or -1 (reported).
 */
static int bisect_warning(size_t *first_out, long *lo_out, int *ambiguous_out,
			  struct bisect *b, sqlite3 *db, const char *id,
			  const char *repo, const char *dir)
{
	if (load_warning(b, db, id, repo) || list_commits(b))
		return -1;
	fprintf(b->fp, "bisecting %zu commits %.12s..%.12s by %s\n", b->nr,
		b->good, b->bad, b->object);
	fflush(b->fp);
	/* the bad end is the point where kwarn saw it */
	b->steps[b->nr - 1] = STEP_PRESENT;
	*lo_out = -1;
	*ambiguous_out = 0;
	*first_out = 0;
	if (b->nr > 1) {
		if (setup(b, dir))
			return -1;
		*first_out = bisect_range(ambiguous_out, lo_out, b);
	}
	return 0;
}

int bisect_nightly(json_t *entry, sqlite3 *db, const char *repo)
{
	sqlite3_stmt *st = NULL;
	char *good = NULL, *bad = NULL;
	size_t i;
	json_t *w;
	int ret = -1;

	if (!json_is_integer(json_object_get(entry, "previous_run")))
		return 0;
	if (query_base_shas_stmt(
		    &st, db, json_integer_value(json_object_get(entry, "run")),
		    json_integer_value(json_object_get(entry, "previous_run"))))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    sqlite3_column_type(st, 1) != SQLITE_NULL) {
		bad = xstrdup(db_col_text(st, 0));
		good = xstrdup(db_col_text(st, 1));
	}
	sqlite3_finalize(st);
	if (!good || !strcmp(good, bad)) {
		ret = 0;
		goto out;
	}
	/*
	 * XXX: each warning gets its own worktree and prepare; warnings of
	 * one object, or of one move, could share them.
	 */
	json_array_foreach(json_object_get(entry, "new"), i, w) {
		const char *id =
			json_string_value(json_object_get(w, "identity"));
		struct bisect b = { 0 };
		size_t first;
		long lo;
		int ambiguous;

		if (!id ||
		    strcmp(json_string_value(json_object_get(w, "cause")),
			   "code"))
			continue;
		b.fp = stderr;
		b.good = xstrdup(good);
		b.bad = xstrdup(bad);
		if (bisect_warning(&first, &lo, &ambiguous, &b, db, id, repo,
				   NULL)) {
			bisect_release(&b, 0);
			continue; /* reported; the warning stays unattributed */
		}
		if (ambiguous) {
			json_t *c = json_array();

			for (size_t k = (size_t)(lo + 1); k <= first; k++)
				json_array_append_new(
					c, json_string(b.commits[k]));
			json_object_set_new(w, "introduced_candidates", c);
		} else {
			char *subj = subject_of(&b, b.commits[first]);

			json_object_set_new(
				w, "introduced",
				json_pack("{s:s, s:s, s:i}", "sha",
					  b.commits[first], "subject", subj,
					  "object_builds", b.builds));
			free(subj);
		}
		bisect_release(&b, 0);
	}
	ret = 0;
out:
	free(good);
	free(bad);
	return ret;
}

static const char *const bisect_usage[] = {
	"kwarn bisect --db FILE --warning ID [--repo PATH] [--good REF] [--bad REF] [--dir DIR]",
	"             [--compiler-cache] [--no-compiler-cache] [--cache-size SIZE]",
	"             [--compiler-cache-remote URL]",
	NULL,
};

int cmd_bisect(int argc, char **argv)
{
	const char *dbpath = NULL, *id = NULL, *repo = NULL, *dir = NULL;
	const char *good = NULL, *bad = NULL;
	struct ccache_opts cco = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_STRING(
			0, "warning", &id, "ID",
			"the warning's identity, as the report and the API give it"),
		OPT_STRING(0, "repo", &repo, "PATH",
			   "the git repository (default: the run's)"),
		OPT_STRING(
			0, "good", &good, "REF",
			"a commit without the warning (default: the point before)"),
		OPT_STRING(0, "bad", &bad, "REF",
			   "a commit with it (default: where it is new)"),
		OPT_STRING(
			0, "dir", &dir, "DIR",
			"where the clone, its build and the step log go, kept (default: a temporary one)"),
		OPT_FLAG(
			0, "compiler-cache", &cco.on,
			"compile through kwarn's exact compiler cache (the default)"),
		OPT_FLAG(0, "no-compiler-cache", &cco.off,
			 "compile at every step, without the compiler cache"),
		OPT_STRING(
			0, "cache-size", &cco.size, "SIZE",
			"the compiler cache's size (default: " CCACHE_DEFAULT_SIZE
			")"),
		OPT_STRING(0, "compiler-cache-remote", &cco.remote, "URL",
			   "share the compiler cache on redis://HOST:PORT"),
		OPT_END,
	};
	struct bisect b = { 0 };
	sqlite3 *db = NULL;
	size_t first;
	long lo;
	int argi, rc, ambiguous, ret = 2;

	b.fp = stdout;
	rc = opt_parse(&argi, argc, argv, opts, bisect_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!dbpath || !id || argi != argc) {
		opt_usage(stderr, opts, bisect_usage);
		return 2;
	}
	if (ccache_setup(&cco, NULL) < 0)
		return 2;
	b.good = good ? xstrdup(good) : NULL;
	b.bad = bad ? xstrdup(bad) : NULL;
	if (db_open(&db, dbpath, DB_READ_ONLY) ||
	    bisect_warning(&first, &lo, &ambiguous, &b, db, id, repo, dir))
		goto out;
	if (ambiguous) {
		printf("skipped commits leave these candidates:\n");
		for (size_t i = (size_t)(lo + 1); i <= first; i++)
			say(&b, i, "candidate");
		ret = 1;
	} else {
		char *subj = subject_of(&b, b.commits[first]);

		printf("introduced by %s (\"%s\")\n", b.commits[first], subj);
		free(subj);
		ret = 0;
	}
	printf("%d object builds for %zu commits\n", b.builds, b.nr);
out:
	bisect_release(&b, dir != NULL);
	db_close(db);
	return ret;
}
