// SPDX-License-Identifier: MIT
/*
 * kwarn nightly: what a cron job runs.  Measure every installed kernel
 * tree (and a git branch, when asked) not measured before, try the series
 * on each, compare with the last nightly of the same tree and with the
 * newest older tree, and exit 1 naming every new warning; a new warning
 * whose identity is triaged as no bug to act on (report_is_settled()) is
 * shown with its triage, and does not count.
 *
 * With --cc (repeatable), --warnings or --targets it runs a matrix: every
 * tree once per compiler, each compared with the nightlies of its own
 * compiler and spec, and the report has one entry per tree and compiler.
 * --mail FILE writes the mbox of report --format mail for what is new.
 *
 * Exit status: 0 nothing new to act on, 1 new warnings (named), 2 could
 * not measure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "db.h"
#include "arch.h"
#include "kwarn.h"
#include "options.h"
#include "query.h"
#include "report-out.h"
#include "store.h"
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
	char *text = NULL, *line = NULL;

	if (!util_capture(&text, argv, 1 << 20) && *text) {
		text[strcspn(text, "\n")] = '\0';
		line = xstrdup(text);
	}
	free(text);
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
 * Record in ENTRY (the report of tree NAME) how series run SID ended:
 * "series": {"run", "status", "message"}; a series or base overlay that
 * does not apply to a newer tree is "failed" with the reason, which is an
 * outcome of the night, not a failure of it.  Returns 0 or -1.
 */
static int series_outcome(json_t *entry, const char *name, sqlite3 *db,
			  long long sid)
{
	char *status = NULL, *msg = NULL;

	if (!entry || !json_is_string(json_object_get(entry, "tree")) ||
	    strcmp(json_string_value(json_object_get(entry, "tree")), name))
		return 0; /* the tree was not compared: nothing to add to */
	if (query_run_status(&status, &msg, db, sid))
		return -1;
	json_object_set_new(entry, "series",
			    json_pack("{s:I, s:s, s:o}", "run", (json_int_t)sid,
				      "status", status, "message",
				      msg ? json_string(msg) : json_null()));
	free(status);
	free(msg);
	return 0;
}

/*
 * Compare RUN with what came before; entries go to REPORT.  PREV is the
 * last nightly of the same tree before this one (-1: none, -2: look it
 * up); REBUILT, when
 * the compiler changed, PREV's tree rebuilt with RUN's compiler (or -1),
 * which tells the warnings of the new compiler from those of the code.
 * Returns how many new warnings there are that are not triaged as no bug
 * (the entry's "settled" counts the others).
 */
static int compare_run(json_t *report, sqlite3 *db, long long run,
		       long long prev_run, long long rebuilt)
{
	struct run_facts me = { 0 }, prev = { 0 };
	json_t *entry = json_object(), *news = json_array(), *n = NULL;
	long long o = -1, count = 0, settled = 0;
	int nnew = -1;

	if (query_run_facts(&me, db, run) ||
	    query_base_live_count(&count, db, run))
		goto out;
	json_object_set_new(entry, "run", json_integer(run));
	json_object_set_new(entry, "tree", json_string(me.tree));
	json_object_set_new(entry, "version", json_string(me.version));
	json_object_set_new(entry, "compiler", json_string(me.compiler));
	json_object_set_new(entry, "verdict", json_string(me.verdict));
	json_object_set_new(entry, "warnings", json_integer(count));
	if (prev_run == -2 &&
	    query_previous_nightly(&prev_run, db, run, me.tree, NULL))
		goto out;
	if (prev_run >= 0) {
		const char *cause = "code";
		long long split = -1;

		if (query_run_facts(&prev, db, prev_run))
			goto out;
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
		if (rebuilt >= 0) {
			if (query_base_live_count(&count, db, rebuilt))
				goto out;
			json_object_set_new(entry, "rebuilt",
					    json_pack("{s:I, s:I}", "run",
						      (json_int_t)rebuilt,
						      "warnings",
						      (json_int_t)count));
		}
		json_object_set_new(entry, "previous_run",
				    json_integer(prev_run));
		json_object_set_new(entry, "previous_version",
				    json_string(prev.version));
		if (query_new_against(&n, db, run, prev_run, cause, split))
			goto out;
		json_array_extend(news, n);
		json_decref(n);
		n = NULL;
		query_run_facts_release(&prev);
	}
	if (query_newest_older_tree(&o, db, run, me.tree, me.version,
				    me.compiler))
		goto out;
	if (o >= 0) {
		size_t i;
		json_t *w;

		if (query_run_facts(&prev, db, o) ||
		    query_new_against(&n, db, run, o,
				      strcmp(prev.compiler, me.compiler) ?
					      "newer tree or compiler" :
					      "newer tree",
				      -1))
			goto out;
		json_object_set_new(
			entry, "older_tree",
			json_pack("{s:s, s:s, s:I, s:s}", "tree", prev.tree,
				  "version", prev.version, "run", (json_int_t)o,
				  "compiler", prev.compiler));
		/* the same warning new against both: list it once */
		json_array_foreach(n, i, w) {
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
	}
	{
		size_t i;
		json_t *w;

		json_array_foreach(news, i, w)
			settled += report_is_settled(w);
	}
	nnew = (int)(json_array_size(news) - (size_t)settled);
	json_object_set_new(entry, "settled", json_integer(settled));
	json_object_set_new(entry, "new", news);
	news = NULL;
	json_array_append_new(report, entry);
	entry = NULL;
out:
	if (nnew < 0)
		error("cannot compare nightly run %lld", run);
	json_decref(n);
	json_decref(news);
	json_decref(entry);
	query_run_facts_release(&prev);
	query_run_facts_release(&me);
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
		if (json_object_get(e, "series")) {
			json_t *sr = json_object_get(e, "series");
			const char *msg = json_string_value(
				json_object_get(sr, "message"));

			fprintf(fp, "   series: run %lld, %s%s%s\n",
				json_integer_value(json_object_get(sr, "run")),
				json_string_value(
					json_object_get(sr, "status")),
				msg ? ": " : "", msg ? msg : "");
		}
		if (json_integer_value(json_object_get(e, "settled"))) {
			long long n = json_integer_value(
				json_object_get(e, "settled"));

			fprintf(fp,
				"   %lld new warning%s triaged as no bug, not"
				" counted\n",
				n, n == 1 ? "" : "s");
		}
		json_array_foreach(json_object_get(e, "new"), j, w) {
			const char *fn = json_string_value(
				json_object_get(w, "function"));
			const char *opt =
				json_string_value(json_object_get(w, "option"));
			const char *kind =
				json_string_value(json_object_get(w, "kind"));

			/*
			 * which compiler said it: campaigns run several; the
			 * tool, for what no compiler option names (sparse,
			 * kernel-doc)
			 */
			fprintf(fp, ">> %s:%lld: in '%s': %s [%s] (%s; %s)\n",
				json_string_value(json_object_get(w, "file")),
				json_integer_value(json_object_get(w, "line")),
				fn ? fn : "",
				json_string_value(
					json_object_get(w, "message")),
				opt  ? opt :
				kind ? kind :
				       "?",
				json_string_value(json_object_get(w, "cause")),
				json_string_value(
					json_object_get(e, "compiler")));
			report_triage_line(fp, w, "   ");
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

	if (query_run_facts(&f, db, prev))
		return -1;
	if (!strcmp(f.compiler, compiler) || !f.sha256 ||
	    !strcmp(f.sha256, sha))
		goto out;
	if (query_nightly_with_compiler(&id, db, f.tree_id, compiler)) {
		id = -1;
		goto out;
	}
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
	query_run_facts_release(&f);
	return id;
}

/* The nightly of a moved branch before RUN in the same matrix cell. */
static int previous_of(long long *prev, sqlite3 *db, long long run,
		       const char *cc, const char *warnings,
		       const char *targets, const char *arch)
{
	struct run_facts f;
	int rc;

	if (query_run_facts(&f, db, run))
		return -1;
	rc = query_previous_nightly_of(prev, db, run, f.tree, cc, warnings,
				       targets, arch);
	query_run_facts_release(&f);
	return rc;
}

static const char *const nightly_usage[] = {
	"kwarn nightly --db FILE [--trees DIR] [--config FRAG]... [--level N] [-j N]",
	"              [--series FILE|none] [--no-boot] [--repo PATH --ref BRANCH]",
	"              [--cc-launcher L] [--format text|json] [--arch x86_64|arm64]...",
	"              [--cc NAME]... [--warnings W=N,-Wflag...] [--checker sparse]",
	"              [--targets OBJ,...]",
	"              [--mail FILE] [--compiler-cache] [--no-compiler-cache]",
	"              [--cache-size SIZE]",
	"              [--compiler-cache-remote URL]",
	NULL,
};

static const char *const nightly_formats[] = { "text", "json", NULL };

/* A night's options, parsed once, and what its architectures share. */
struct nightly {
	/* options */
	const char *dbpath, *trees, *series, *repo, *ref, *format, *mail;
	struct opt_list frag_args, cc_args, arch_args;
	long level, jobs;
	int no_boot;
	struct run_request q; /* launcher, warnings, targets, cache */
	/* planned */
	const char *ccs[8];
	char *cc_versions[8];
	size_t nccs, ncells;
	struct warn_spec ws;
	char *default_series;
	int lockfd;
	sqlite3 *db;
	struct found_tree *found;
	size_t nfound;
};

/* One architecture's night: its configuration, compiler and report. */
struct night {
	const struct arch *arch;
	char *frags[16];
	size_t nfrags;
	char *config_name, *compiler;
	json_t *report, *failures;
	int nnew, measured_any;
};

/* Add "WHAT" to the night's failures. */
#define night_fail(g, ...) \
	json_array_append_new((g)->failures, json_sprintf(__VA_ARGS__))

/*
 * Check the options and take what every architecture shares: the
 * compilers of the matrix, the warning spec, the series, the lock (one
 * nightly at a time), the database and the installed trees.  Returns 0
 * or -1 (reported).
 */
static int nightly_plan(struct nightly *n)
{
	struct run_request *q = &n->q;
	char *lockpath;
	int held;

	if (n->cc_args.nr > ARRAY_SIZE(n->ccs))
		return error("at most %zu --cc", ARRAY_SIZE(n->ccs));
	q->level = (int)n->level;
	q->jobs = (int)n->jobs;
	q->boot = !n->no_boot;
	if (q->launcher && launcher_check(q->launcher, q->level))
		return -1;
	/* the matrix is checked before anything is imported or built */
	for (size_t k = 0; k < n->cc_args.nr; k++) {
		const struct toolchain *tc;

		if (toolchain_find(&tc, n->cc_args.v[k]))
			return -1;
		for (size_t j = 0; j < k; j++)
			if (!strcmp(n->ccs[j], n->cc_args.v[k]))
				return error("--cc %s is given twice",
					     n->cc_args.v[k]);
		n->ccs[n->nccs] = n->cc_args.v[k];
		n->cc_versions[n->nccs++] = run_cc_version(tc->cc);
	}
	n->ncells = n->nccs ? n->nccs : 1;
	if (q->warnings && warnings_parse(&n->ws, q->warnings))
		return -1;
	if (q->targets && !*q->targets)
		return error("--targets needs at least one object");
	if (!n->series) {
		n->default_series = run_data_path("kernel/series");
		n->series = n->default_series;
	}
	if (!strcmp(n->series, "none"))
		n->series = NULL;
	else if (access(n->series, R_OK))
		return error("cannot read series '%s': %s", n->series,
			     strerror(errno));
	q->dbpath = n->dbpath;
	if (util_mkdir_p(util_cache_dir()))
		return -1;
	lockpath = xstrfmt("%s/nightly.lock", util_cache_dir());
	held = util_lock(&n->lockfd, lockpath, 0);
	if (held > 0)
		error("another kwarn nightly holds '%s'", lockpath);
	free(lockpath);
	if (held || db_open(&n->db, n->dbpath, DB_READ_WRITE))
		return -1;
	if (!n->repo && find_trees(&n->found, &n->nfound, n->trees))
		return -1;
	if (!n->repo && !n->nfound)
		return error("no linux-source-*.tar.* in '%s'", n->trees);
	return 0;
}

/*
 * The configuration of architecture G->arch: its fragments (--config, or
 * the arch's qemu config), the config name they make and the compiler's
 * words, as kwarn run stores them.  Returns 0 or -1 (reported).
 */
static int night_plan(struct nightly *n, struct night *g)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n->frag_args.nr; i++) {
		if (g->nfrags == ARRAY_SIZE(g->frags))
			return error("at most %zu --config",
				     ARRAY_SIZE(g->frags));
		g->frags[g->nfrags] = realpath(n->frag_args.v[i], NULL);
		if (!g->frags[g->nfrags])
			return error("cannot read config fragment '%s'",
				     n->frag_args.v[i]);
		g->nfrags++;
	}
	if (!g->nfrags) {
		char *def = run_data_path(g->arch->config);

		g->frags[0] = realpath(def, NULL);
		free(def);
		if (!g->frags[0])
			return error("cannot find %s (set KWARN_DATA)",
				     g->arch->config);
		g->nfrags = 1;
	}
	strbuf_addstr(&sb, "tinyconfig");
	for (size_t i = 0; i < g->nfrags; i++)
		strbuf_addf(&sb, "+%s", strrchr(g->frags[i], '/') + 1);
	g->config_name = strbuf_detach(&sb, NULL);
	/* the same words as kwarn run stores in builds.compiler */
	g->compiler = run_compiler_version(g->arch);
	if (!strcmp(g->compiler, "unknown"))
		return error("cannot run '%sgcc --version'",
			     g->arch->cross ? g->arch->cross : "");
	/* x86_64, the host, keeps the runs it always had */
	n->q.arch = g->arch->host ? NULL : g->arch->name;
	n->q.frags = (const char *const *)g->frags;
	n->q.nr_frags = g->nfrags;
	return 0;
}

/* Does the night run a matrix (runs told apart by their parameters)? */
static int is_matrix(const struct nightly *n)
{
	return n->nccs || n->q.warnings || n->q.targets;
}

/*
 * Try the series on tree T, and record how it ended in the tree's
 * report entry.
 */
static void night_series(struct nightly *n, struct night *g,
			 const struct found_tree *t)
{
	long long sid = -1;
	int rc;

	n->q.series = n->series;
	n->q.kind = "series";
	rc = run_request(&sid, &n->q);
	if (rc == 1)
		fprintf(stderr,
			"kwarn: the series does not apply to %s: recorded in run %lld\n",
			t->name, sid);
	else if (rc)
		night_fail(g, "%s: the series run failed", t->name);
	if (rc <= 1 && sid >= 0 &&
	    series_outcome(json_array_get(g->report,
					  json_array_size(g->report) - 1),
			   t->name, n->db, sid))
		night_fail(g, "%s: cannot read run %lld", t->name, sid);
}

/*
 * Measure installed tree T in cell K of the matrix (compiler ccs[K], or
 * gcc), compare it with the last nightly of its cell, then try the
 * series on it.  Returns 0, or -1 when the night must stop (interrupted,
 * the database unreadable).
 */
static int night_tree(struct nightly *n, struct night *g,
		      const struct found_tree *t, size_t k)
{
	struct run_request *q = &n->q;
	const char *compiler = n->nccs ? n->cc_versions[k] : g->compiler;
	char sha[65];
	long long run_id = -1, prev, rebuilt = -1;
	int rc, before = 0;

	if (n->nccs) {
		/* one cell of the matrix: this compiler alone */
		q->cc_names = &n->ccs[k];
		q->nr_cc = 1;
	}
	if (util_sha256_file(sha, t->path)) {
		night_fail(g, "%s: cannot read", t->path);
		return 0;
	}
	if (!q->warnings && !q->targets) {
		char *real = realpath(t->path, NULL);
		int done = 0;

		rc = query_nightly_measured(&done, n->db, real ? real : t->path,
					    sha, g->config_name, compiler);
		free(real);
		if (rc)
			return -1;
		if (done) {
			fprintf(stderr, "kwarn: %s: measured before\n",
				t->name);
			return 0;
		}
	}
	if (is_matrix(n) ?
		    query_previous_nightly_of(&prev, n->db, LLONG_MAX, t->name,
					      n->nccs ? n->ccs[k] : "gcc",
					      n->ws.spec, q->targets,
					      g->arch->name) :
		    query_previous_nightly(&prev, n->db, LLONG_MAX, t->name,
					   g->arch->name))
		return -1;
	if (prev >= 0)
		rebuilt = rebuild_previous(n->db, q, prev, sha, compiler);
	fprintf(stderr, "kwarn: nightly: measuring %s (%s)%s%s\n", t->name,
		t->pkg_version ? t->pkg_version : "no package",
		n->nccs ? " with " : "", n->nccs ? n->ccs[k] : "");
	q->tree_spec = t->path;
	q->cached_name = q->cached_sha256 = NULL;
	q->series = NULL;
	q->kind = "nightly";
	q->pkg_version = t->pkg_version;
	/* a matrix: run.c's parameters say if it was done */
	if (is_matrix(n))
		q->measured_before = &before;
	rc = run_request(&run_id, q);
	q->measured_before = NULL;
	if (rc == 130)
		return -1;
	if (rc || run_id < 0) {
		night_fail(g,
			   "%s: could not be measured (see the errors above)",
			   t->name);
		return 0;
	}
	if (before) {
		fprintf(stderr, "kwarn: %s: measured before\n", t->name);
		return 0;
	}
	g->measured_any = 1;
	rc = compare_run(g->report, n->db, run_id, prev, rebuilt);
	if (rc < 0)
		night_fail(
			g,
			"%s: measured in run %lld, but could not be compared",
			t->name, run_id);
	else
		g->nnew += rc;
	if (n->series)
		night_series(n, g, t);
	return 0;
}

/*
 * Measure the head of --ref in --repo in cell K, compare it with the
 * branch's last nightly, and find the commit that brought each new
 * warning.
 */
static void night_repo(struct nightly *n, struct night *g, size_t k)
{
	struct run_request *q = &n->q;
	char *range = xstrfmt("%s..%s", n->ref, n->ref);
	long long run_id = -1, prev = -2;
	int rc, before = 0;

	if (n->nccs) {
		q->cc_names = &n->ccs[k];
		q->nr_cc = 1;
	}
	q->repo = n->repo;
	q->range = range;
	q->series = NULL;
	q->kind = "nightly";
	q->cached_name = q->cached_sha256 = NULL;
	q->measured_before = &before; /* the branch's head, already */
	rc = run_request(&run_id, q);
	q->measured_before = NULL;
	q->range = NULL;
	free(range);
	if (rc || run_id < 0) {
		night_fail(g, "%s %s: could not be measured", n->repo, n->ref);
		return;
	}
	if (before) {
		fprintf(stderr, "kwarn: %s %s: measured before\n", n->repo,
			n->ref);
		return;
	}
	if (is_matrix(n) &&
	    previous_of(&prev, n->db, run_id, n->nccs ? n->ccs[k] : "gcc",
			n->ws.spec, q->targets, g->arch->name)) {
		night_fail(g, "%s %s: cannot read run %lld", n->repo, n->ref,
			   run_id);
		return;
	}
	g->measured_any = 1;
	rc = compare_run(g->report, n->db, run_id, prev, -1);
	if (rc < 0) {
		night_fail(
			g,
			"%s %s: measured in run %lld, but could not be compared",
			n->repo, n->ref, run_id);
	} else if (rc > 0) {
		g->nnew += rc;
		/* the commit of the moved branch that brought each */
		bisect_nightly(json_array_get(g->report,
					      json_array_size(g->report) - 1),
			       n->db, n->repo);
	}
}

/*
 * Keep each entry of the night's report for the dashboard, write the
 * mails (appended to the file with MAIL_APPEND) and print the report.
 * Returns the exit status: 2 if anything failed, else 1 if anything is
 * new, else 0.
 */
static int night_report(struct nightly *n, struct night *g, int mail_append)
{
	size_t i;
	json_t *e;

	/* the dashboard's nightly view shows these causes, not its own */
	json_array_foreach(g->report, i, e) {
		char *text = json_dumps(e, JSON_COMPACT);
		json_int_t run = json_integer_value(json_object_get(e, "run"));

		/*
		 * Kept for the dashboard only: an entry without a run (a
		 * tree not measured) has nothing to key it by, and a
		 * failure to keep one is said, not made the night's
		 * outcome.
		 */
		if (run > 0 &&
		    (!text || store_nightly_report(n->db, run, text)))
			warning("the dashboard will not show the report"
				" of run %lld",
				(long long)run);
		free(text);
	}
	if (n->mail) {
		/* one message per tree (and compiler) with something new */
		FILE *fp = fopen(n->mail, mail_append ? "a" : "w");
		int bad = !fp;

		json_array_foreach(g->report, i, e) {
			if (!bad && report_mail_nightly(fp, n->db, e))
				bad = 1;
		}
		if (fp && fclose(fp))
			bad = 1;
		if (bad)
			night_fail(g, "cannot write the mail to '%s'", n->mail);
	}
	if (!strcmp(n->format, "json")) {
		json_t *o = json_pack("{s:O, s:O, s:i}", "trees", g->report,
				      "failures", g->failures, "new", g->nnew);

		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		print_text(stdout, g->report, g->failures);
		if (!g->measured_any && !json_array_size(g->failures))
			printf("nothing new to measure\n");
	}
	if (json_array_size(g->failures))
		return 2;
	return g->nnew ? 1 : 0;
}

/*
 * One night for architecture ARCH: plan, measure every tree (and the
 * branch) in every cell, compare, report.  Returns the exit status.
 */
static int night_run(struct nightly *n, const struct arch *arch,
		     int mail_append)
{
	struct night g = { .arch = arch };
	int ret = 2;

	g.report = json_array();
	g.failures = json_array();
	if (night_plan(n, &g))
		goto out;
	for (size_t cell = 0; cell < n->nfound * n->ncells; cell++)
		if (night_tree(n, &g, &n->found[cell / n->ncells],
			       cell % n->ncells))
			goto out;
	for (size_t k = 0; n->repo && k < n->ncells; k++)
		night_repo(n, &g, k);
	ret = night_report(n, &g, mail_append);
out:
	for (size_t i = 0; i < g.nfrags; i++)
		free(g.frags[i]);
	free(g.config_name);
	free(g.compiler);
	json_decref(g.report);
	json_decref(g.failures);
	return ret;
}

static void nightly_release(struct nightly *n)
{
	db_close(n->db);
	if (n->lockfd >= 0)
		close(n->lockfd);
	for (size_t i = 0; i < n->nfound; i++) {
		free(n->found[i].path);
		free(n->found[i].name);
		free(n->found[i].pkg);
		free(n->found[i].pkg_version);
	}
	free(n->found);
	free(n->default_series);
	for (size_t k = 0; k < n->nccs; k++)
		free(n->cc_versions[k]);
	warn_spec_release(&n->ws);
}

/*
 * --arch is repeatable: the nightly runs once per architecture, in the
 * order given, into the same database (and the same --mail file), and
 * exits with the worst outcome: 2 over 1 over 0.  With --format json
 * that is one report per architecture, one after the other.
 */
int cmd_nightly(int argc, char **argv)
{
	struct nightly n = { .trees = "/usr/src",
			     .format = "text",
			     .level = 3,
			     .jobs = 2,
			     .lockfd = -1 };
	const struct arch *arches[8];
	size_t narch = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &n.dbpath, "FILE", "the database"),
		OPT_STRING(
			0, "trees", &n.trees, "DIR",
			"where the linux-source-*.tar.* are (default: /usr/src)"),
		OPT_LIST(
			0, "config", &n.frag_args, "FRAG",
			"a config fragment (default: kernel/configs/qemu.config)"),
		OPT_LONG(0, "level", &n.level, "N",
			 "-Wimplicit-fallthrough level (default: 3)", 1, 5),
		OPT_LONG('j', "jobs", &n.jobs, "N", "make -j (default: 2)", 1,
			 256),
		OPT_STRING(
			0, "series", &n.series, "FILE|none",
			"the series to try on every tree (default: kernel/series)"),
		OPT_FLAG(0, "no-boot", &n.no_boot, "do not boot the builds"),
		OPT_STRING(0, "repo", &n.repo, "PATH",
			   "a git repository to follow, with --ref"),
		OPT_STRING(0, "ref", &n.ref, "BRANCH", "the branch of --repo"),
		OPT_STRING(0, "cc-launcher", &n.q.launcher, "L",
			   "a compiler launcher (ccache, distcc, ...)"),
		OPT_CHOICE(0, "format", &n.format, "F", "the report",
			   nightly_formats),
		OPT_LIST(0, "arch", &n.arch_args, "ARCH",
			 "x86_64 or arm64 (default: x86_64); repeatable"),
		OPT_LIST(0, "cc", &n.cc_args, "NAME",
			 "a compiler of the matrix (gcc, clang-16, ...)"),
		OPT_STRING(0, "warnings", &n.q.warnings, "SPEC",
			   "extra warnings: W=N and -Wflag, comma-separated"),
		OPT_STRING(0, "checker", &n.q.checker, "sparse",
			   "run kbuild's checker on each compiled object"),
		OPT_STRING(0, "targets", &n.q.targets, "OBJ,...",
			   "build only these objects"),
		OPT_STRING(0, "mail", &n.mail, "FILE",
			   "write the new warnings as mails (mbox) to FILE"),
		OPT_FLAG(
			0, "compiler-cache", &n.q.cache.on,
			"compile through kwarn's exact compiler cache (the default)"),
		OPT_FLAG(0, "no-compiler-cache", &n.q.cache.off,
			 "compile every object, without the compiler cache"),
		OPT_STRING(
			0, "cache-size", &n.q.cache.size, "SIZE",
			"the compiler cache's size (default: " CCACHE_DEFAULT_SIZE
			")"),
		OPT_STRING(0, "compiler-cache-remote", &n.q.cache.remote, "URL",
			   "share the compiler cache on redis://HOST:PORT"),
		OPT_END,
	};
	int argi, rc, worst = 2;

	rc = opt_parse(&argi, argc, argv, opts, nightly_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!n.dbpath || argi != argc || (!n.repo != !n.ref)) {
		opt_usage(stderr, opts, nightly_usage);
		return 2;
	}
	if (n.arch_args.nr > ARRAY_SIZE(arches)) {
		error("at most %zu --arch", ARRAY_SIZE(arches));
		return 2;
	}
	for (size_t a = 0; a < n.arch_args.nr; a++) {
		if (!(arches[narch] = arch_find(n.arch_args.v[a]))) {
			error("unknown architecture '%s' (--arch takes %s)",
			      n.arch_args.v[a], arch_names());
			return 2;
		}
		for (size_t b = 0; b < narch; b++)
			if (arches[b] == arches[narch]) {
				error("--arch %s is given twice",
				      n.arch_args.v[a]);
				return 2;
			}
		narch++;
	}
	if (!narch)
		arches[narch++] = arch_host();
	if (nightly_plan(&n))
		goto out;
	worst = 0;
	for (size_t a = 0; a < narch; a++) {
		if (narch > 1)
			fprintf(stderr, "kwarn: nightly: architecture %s\n",
				arches[a]->name);
		rc = night_run(&n, arches[a], a > 0);
		if (rc == 2 || (rc == 1 && worst == 0))
			worst = rc;
	}
out:
	nightly_release(&n);
	return worst;
}
