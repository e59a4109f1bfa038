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

			/* which compiler said it: campaigns run several */
			fprintf(fp, ">> %s:%lld: in '%s': %s [%s] (%s; %s)\n",
				json_string_value(json_object_get(w, "file")),
				json_integer_value(json_object_get(w, "line")),
				fn ? fn : "",
				json_string_value(
					json_object_get(w, "message")),
				json_string_value(json_object_get(w, "option")),
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
	"              [--cc NAME]... [--warnings W=N,-Wflag...] [--targets OBJ,...]",
	"              [--mail FILE] [--compiler-cache] [--no-compiler-cache]",
	"              [--cache-size SIZE]",
	"              [--compiler-cache-remote URL]",
	NULL,
};

static const char *const nightly_formats[] = { "text", "json", NULL };

/*
 * One nightly for one architecture (ARGV holds at most one --arch);
 * with MAIL_APPEND, --mail adds to the file instead of writing it anew.
 */
static int nightly_one(int argc, char **argv, int mail_append)
{
	const char *dbpath = NULL, *trees = "/usr/src", *series = NULL;
	const char *repo = NULL, *ref = NULL, *format = "text",
		   *arch_name = NULL;
	const struct arch *arch = arch_host();
	char *frags[16] = { NULL }, *default_frag = NULL,
	     *default_series = NULL;
	char *lockpath = NULL, *config_name = NULL, *compiler = NULL;
	const char *ccs[8] = { NULL }, *mail = NULL;
	char *cc_versions[8] = { NULL };
	size_t nccs = 0, ncells;
	struct warn_spec ws = { 0 };
	struct run_request q = { 0 };
	struct found_tree *found = NULL;
	size_t nfound = 0, nfrags = 0;
	json_t *report = json_array(), *failures = json_array();
	sqlite3 *db = NULL;
	struct opt_list frag_args = { 0 }, cc_args = { 0 };
	long level = 3, jobs = 2;
	int no_boot = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_STRING(
			0, "trees", &trees, "DIR",
			"where the linux-source-*.tar.* are (default: /usr/src)"),
		OPT_LIST(
			0, "config", &frag_args, "FRAG",
			"a config fragment (default: kernel/configs/qemu.config)"),
		OPT_LONG(0, "level", &level, "N",
			 "-Wimplicit-fallthrough level (default: 3)", 1, 5),
		OPT_LONG('j', "jobs", &jobs, "N", "make -j (default: 2)", 1,
			 256),
		OPT_STRING(
			0, "series", &series, "FILE|none",
			"the series to try on every tree (default: kernel/series)"),
		OPT_FLAG(0, "no-boot", &no_boot, "do not boot the builds"),
		OPT_STRING(0, "repo", &repo, "PATH",
			   "a git repository to follow, with --ref"),
		OPT_STRING(0, "ref", &ref, "BRANCH", "the branch of --repo"),
		OPT_STRING(0, "cc-launcher", &q.launcher, "L",
			   "a compiler launcher (ccache, distcc, ...)"),
		OPT_CHOICE(0, "format", &format, "F", "the report",
			   nightly_formats),
		OPT_STRING(0, "arch", &arch_name, "ARCH",
			   "x86_64 or arm64 (default: x86_64); repeatable"),
		OPT_LIST(0, "cc", &cc_args, "NAME",
			 "a compiler of the matrix (gcc, clang-16, ...)"),
		OPT_STRING(0, "warnings", &q.warnings, "SPEC",
			   "extra warnings: W=N and -Wflag, comma-separated"),
		OPT_STRING(0, "targets", &q.targets, "OBJ,...",
			   "build only these objects"),
		OPT_STRING(0, "mail", &mail, "FILE",
			   "write the new warnings as mails (mbox) to FILE"),
		OPT_FLAG(0, "compiler-cache", &q.cache.on,
			 "compile through kwarn's exact compiler cache"),
		OPT_FLAG(0, "no-compiler-cache", &q.cache.off,
			 "compile every object, without the compiler cache"),
		OPT_STRING(
			0, "cache-size", &q.cache.size, "SIZE",
			"the compiler cache's size (default: " CCACHE_DEFAULT_SIZE
			")"),
		OPT_STRING(0, "compiler-cache-remote", &q.cache.remote, "URL",
			   "share the compiler cache on redis://HOST:PORT"),
		OPT_END,
	};
	int argi, prc, ret = 2, lockfd = -1, nnew = 0, measured_any = 0;

	prc = opt_parse(&argi, argc, argv, opts, nightly_usage);
	if (prc) {
		ret = prc > 0 ? 0 : 2;
		goto out;
	}
	if (!dbpath || argi != argc || (!repo != !ref)) {
		opt_usage(stderr, opts, nightly_usage);
		goto out;
	}
	if (cc_args.nr > ARRAY_SIZE(ccs)) {
		error("at most %zu --cc", ARRAY_SIZE(ccs));
		goto out;
	}
	for (size_t i = 0; i < cc_args.nr; i++)
		ccs[nccs++] = cc_args.v[i];
	for (size_t i = 0; i < frag_args.nr; i++) {
		if (!(frags[nfrags] = realpath(frag_args.v[i], NULL))) {
			error("cannot read config fragment '%s'",
			      frag_args.v[i]);
			goto out;
		}
		nfrags++;
	}
	if (arch_name && !(arch = arch_find(arch_name))) {
		error("unknown architecture '%s' (--arch takes %s)", arch_name,
		      arch_names());
		goto out;
	}
	/* x86_64, the host, keeps the runs it always had */
	q.arch = arch->host ? NULL : arch->name;
	q.level = (int)level;
	q.jobs = (int)jobs;
	q.boot = !no_boot;
	if (q.launcher && launcher_check(q.launcher, q.level))
		goto out;
	/* the matrix is checked before anything is imported or built */
	for (size_t k = 0; k < nccs; k++) {
		const struct toolchain *tc;

		if (toolchain_find(&tc, ccs[k]))
			goto out;
		for (size_t j = 0; j < k; j++)
			if (!strcmp(ccs[j], ccs[k])) {
				error("--cc %s is given twice", ccs[k]);
				goto out;
			}
		cc_versions[k] = run_cc_version(tc->cc);
	}
	if (q.warnings && warnings_parse(&ws, q.warnings))
		goto out;
	if (q.targets && !*q.targets) {
		error("--targets needs at least one object");
		goto out;
	}
	ncells = nccs ? nccs : 1;
	if (!nfrags) {
		default_frag = run_data_path(arch->config);
		frags[nfrags++] = realpath(default_frag, NULL);
		if (!frags[0]) {
			error("cannot find %s (set KWARN_DATA)", arch->config);
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
	{
		int held = util_lock(&lockfd, lockpath, 0);

		if (held) {
			if (held > 0)
				error("another kwarn nightly holds '%s'",
				      lockpath);
			goto out;
		}
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
	compiler = run_compiler_version(arch);
	if (!strcmp(compiler, "unknown")) {
		error("cannot run '%sgcc --version'",
		      arch->cross ? arch->cross : "");
		goto out;
	}
	if (!repo && find_trees(&found, &nfound, trees))
		goto out;
	if (!repo && !nfound) {
		error("no linux-source-*.tar.* in '%s'", trees);
		goto out;
	}
	for (size_t cell = 0; cell < nfound * ncells; cell++) {
		struct found_tree *t = &found[cell / ncells];
		size_t k = cell % ncells;
		char sha[65];
		long long run_id = -1, prev, rebuilt;
		int rc, before = 0;

		if (nccs) {
			/* one cell of the matrix: this compiler alone */
			q.cc_names = &ccs[k];
			q.nr_cc = 1;
			free(compiler);
			compiler = xstrdup(cc_versions[k]);
		}
		if (util_sha256_file(sha, t->path)) {
			json_array_append_new(failures,
					      json_sprintf("%s: cannot read",
							   t->path));
			continue;
		}
		if (!q.warnings && !q.targets) {
			char *real = realpath(t->path, NULL);
			int done = 0;

			rc = query_nightly_measured(&done, db,
						    real ? real : t->path, sha,
						    config_name, compiler);
			free(real);
			if (rc) {
				ret = 2;
				goto out;
			}
			if (done) {
				fprintf(stderr, "kwarn: %s: measured before\n",
					t->name);
				continue;
			}
		}
		if (nccs || q.warnings || q.targets ?
			    query_previous_nightly_of(
				    &prev, db, LLONG_MAX, t->name,
				    nccs ? ccs[k] : "gcc", ws.spec, q.targets,
				    arch->name) :
			    query_previous_nightly(&prev, db, LLONG_MAX,
						   t->name, arch->name)) {
			ret = 2;
			goto out;
		}
		rebuilt = -1;
		if (prev >= 0)
			rebuilt = rebuild_previous(db, &q, prev, sha, compiler);
		fprintf(stderr, "kwarn: nightly: measuring %s (%s)%s%s\n",
			t->name, t->pkg_version ? t->pkg_version : "no package",
			nccs ? " with " : "", nccs ? ccs[k] : "");
		q.tree_spec = t->path;
		q.cached_name = q.cached_sha256 = NULL;
		q.series = NULL;
		q.kind = "nightly";
		q.pkg_version = t->pkg_version;
		/* a matrix: run.c's parameters say if it was done */
		if (nccs || q.warnings || q.targets)
			q.measured_before = &before;
		rc = run_request(&run_id, &q);
		q.measured_before = NULL;
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
		if (before) {
			fprintf(stderr, "kwarn: %s: measured before\n",
				t->name);
			continue;
		}
		measured_any = 1;
		rc = compare_run(report, db, run_id, prev, rebuilt);
		if (rc < 0)
			json_array_append_new(
				failures,
				json_sprintf(
					"%s: measured in run %lld, but could not be compared",
					t->name, run_id));
		else
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
			if (rc <= 1 && sid >= 0 &&
			    series_outcome(
				    json_array_get(report,
						   json_array_size(report) - 1),
				    t->name, db, sid))
				json_array_append_new(
					failures,
					json_sprintf("%s: cannot read run %lld",
						     t->name, sid));
		}
	}
	for (size_t k = 0; repo && k < ncells; k++) {
		char *range = xstrfmt("%s..%s", ref, ref);
		long long run_id = -1, prev = -2;
		int rc, before = 0;

		if (nccs) {
			q.cc_names = &ccs[k];
			q.nr_cc = 1;
		}
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
		} else if ((nccs || q.warnings || q.targets) &&
			   previous_of(&prev, db, run_id, nccs ? ccs[k] : "gcc",
				       ws.spec, q.targets, arch->name)) {
			json_array_append_new(
				failures,
				json_sprintf("%s %s: cannot read run %lld",
					     repo, ref, run_id));
		} else {
			measured_any = 1;
			rc = compare_run(report, db, run_id, prev, -1);
			if (rc < 0) {
				json_array_append_new(
					failures,
					json_sprintf(
						"%s %s: measured in run %lld, but could not be compared",
						repo, ref, run_id));
			} else if (rc > 0) {
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
	/* the dashboard's nightly view shows these causes, not its own */
	{
		size_t i;
		json_t *e;

		json_array_foreach(report, i, e) {
			char *text = json_dumps(e, JSON_COMPACT);
			json_int_t run =
				json_integer_value(json_object_get(e, "run"));

			/*
			 * Kept for the dashboard only: an entry without a
			 * run (a tree not measured) has nothing to key it
			 * by, and a failure to keep one is said, not made
			 * the night's outcome.
			 */
			if (run > 0 &&
			    (!text || store_nightly_report(db, run, text)))
				warning("the dashboard will not show the report"
					" of run %lld",
					(long long)run);
			free(text);
		}
	}
	if (mail) {
		/* one message per tree (and compiler) with something new */
		FILE *fp = fopen(mail, mail_append ? "a" : "w");
		size_t i;
		json_t *e;
		int bad = !fp;

		json_array_foreach(report, i, e) {
			if (!bad && report_mail_nightly(fp, db, e))
				bad = 1;
		}
		if (fp && fclose(fp))
			bad = 1;
		if (bad)
			json_array_append_new(
				failures,
				json_sprintf("cannot write the mail to '%s'",
					     mail));
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
	for (size_t k = 0; k < nccs; k++)
		free(cc_versions[k]);
	warn_spec_release(&ws);
	json_decref(report);
	json_decref(failures);
	return ret;
}

/* Is ARG the option --arch: *value_next when its value is the next word. */
static int is_arch_opt(const char *arg, int *value_next)
{
	*value_next = !strcmp(arg, "--arch");
	return *value_next || !strncmp(arg, "--arch=", 7);
}

/*
 * --arch is repeatable: the nightly runs once per architecture, in the
 * order given, into the same database (and the same --mail file), and
 * exits with the worst outcome: 2 over 1 over 0.  With --format json
 * that is one report per architecture, one after the other.
 */
int cmd_nightly(int argc, char **argv)
{
	const char *arches[8];
	char **one = NULL;
	size_t narch = 0;
	int n, next, worst = 0;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		/* the usage once, whatever the architectures */
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return nightly_one(argc, argv, 0);
		if (!is_arch_opt(argv[i], &next))
			continue;
		if (next && i + 1 >= argc)
			break; /* the option parser says what is missing */
		if (narch == ARRAY_SIZE(arches)) {
			error("at most %zu --arch", ARRAY_SIZE(arches));
			return 2;
		}
		arches[narch++] = next ? argv[++i] : argv[i] + 7;
	}
	if (narch < 2)
		return nightly_one(argc, argv, 0);
	for (size_t a = 0; a < narch; a++) {
		if (!arch_find(arches[a])) {
			error("unknown architecture '%s' (--arch takes %s)",
			      arches[a], arch_names());
			return 2;
		}
		for (size_t b = 0; b < a; b++)
			if (!strcmp(arches[a], arches[b])) {
				error("--arch %s is given twice", arches[a]);
				return 2;
			}
	}
	one = xcalloc((size_t)argc + 3, sizeof(*one));
	for (size_t a = 0; a < narch; a++) {
		int rc, opts = 1;

		n = 0;
		for (int i = 0; i < argc; i++) {
			if (!strcmp(argv[i], "--"))
				opts = 0;
			if (i && opts && is_arch_opt(argv[i], &next)) {
				i += next;
				continue;
			}
			one[n++] = argv[i];
		}
		one[n++] = (char *)"--arch";
		one[n++] = (char *)(uintptr_t)arches[a];
		one[n] = NULL;
		fprintf(stderr, "kwarn: nightly: architecture %s\n", arches[a]);
		rc = nightly_one(n, one, a > 0);
		if (rc == 2 || (rc == 1 && worst == 0))
			worst = rc;
	}
	free(one);
	return worst;
}
