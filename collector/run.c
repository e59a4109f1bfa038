// SPDX-License-Identifier: MIT
/*
 * kwarn run: build every point of a patch series against a kernel tree,
 * incrementally, and store what GCC said about each object at each point.
 *
 * Per point: check out only the files that changed; make bzImage (and
 * modules with --full) and every object that the series touches as a
 * single object, with CC="kwarn-cc gcc" so that each compile's stderr is
 * captured on its own; parse the captures of the objects compiled here;
 * carry the last capture of every object not rebuilt; mark objects that
 * are gone "not built"; boot; store the point in one transaction.
 *
 * This file holds the options, the driver and the run rows; the points
 * are made in run-points.c and each one is built in run-build.c (run.h).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "arch.h"
#include "kwarn.h"
#include "options.h"
#include "query.h"
#include "run.h"
#include "store.h"
#include "tree.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* The directory holding our own executable (bin/). */
static char *self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(buf);
}

/*
 * The launcher that kbuild runs, a new string: kwarn-cc copied to
 * $KWARN_CACHE/bin.  kbuild rebuilds every object whose command line
 * changed, and CC is part of it: with the launcher at one path, a second
 * checkout or an installed kwarn reuses the objects of the cached build
 * directories instead of rebuilding each kernel from cold.
 */
static char *cc_install(void)
{
	char *self = self_dir(), *src = xstrfmt("%s/kwarn-cc", self);
	char *bin = xstrfmt("%s/bin", util_cache_dir());
	char *dst = xstrfmt("%s/kwarn-cc", bin), *tmp = NULL;
	char *mine = NULL, *theirs = NULL;
	size_t n, m;
	int fd;

	free(self);
	if (util_read_file(&mine, &n, src, CAP_TREE_FILE))
		goto fail;
	if (!access(dst, R_OK) &&
	    !util_read_file(&theirs, &m, dst, CAP_TREE_FILE) && m == n &&
	    !memcmp(mine, theirs, n))
		goto out;
	if (util_mkdir_p(bin))
		goto fail;
	/* written whole and executable before it takes the name */
	tmp = xstrfmt("%s.tmp.%d", dst, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, mine, n) != (ssize_t)n || close(fd) ||
	    rename(tmp, dst)) {
		error("cannot install '%s' as '%s': %s", src, dst,
		      strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		goto fail;
	}
out:
	free(src);
	free(bin);
	free(tmp);
	free(mine);
	free(theirs);
	return dst;
fail:
	free(dst);
	dst = NULL;
	goto out;
}

/* Where kernel/ lives: $KWARN_DATA, ../kernel or ../share/kwarn/kernel. */
char *run_data_path(const char *rel)
{
	const char *env = getenv("KWARN_DATA");
	char *dir = self_dir(), *p;

	if (env && *env) {
		p = xstrfmt("%s/%s", env, rel);
	} else {
		p = xstrfmt("%s/../%s", dir, rel);
		if (access(p, R_OK)) {
			free(p);
			p = xstrfmt("%s/../share/kwarn/%s", dir, rel);
		}
	}
	free(dir);
	return p;
}

/* Find a run of cell C with the same parameters to resume, or start one. */
static int open_run(struct run *r, struct cell *c)
{
	struct run_info ri = { 0 };
	int rc;

	ri.tree_id = r->tree_id;
	ri.kind = r->kind;
	ri.series = r->series ? r->series : r->range;
	ri.config = c->config_name;
	ri.level = r->level;
	ri.params = c->params;
	ri.compiler = c->tc->name;
	ri.arch = c->arch->name;
	rc = store_open_run(&c->run_id, r->db, &ri, r->force);
	if (rc == 2) {
		fprintf(stderr, "kwarn: resuming run %lld\n", c->run_id);
		rc = 0;
	}
	return rc;
}

/*
 * The first line of `CC --version`: part of a run's parameters, so that
 * a new compiler measures again (kwarn nightly relies on it).
 */
static char *compiler_version(const char *cc)
{
	const char *argv[] = { cc, "--version", NULL };
	char *out =
		xstrfmt("%s/gcc-version.%ld", util_cache_dir(), (long)getpid());
	char *text = NULL, *v;

	if (util_mkdir_p(util_cache_dir()) ||
	    util_run(argv, NULL, out, "/dev/null") ||
	    util_read_file(&text, NULL, out, CAP_COMMAND_OUTPUT)) {
		unlink(out);
		free(out);
		return xstrdup("unknown");
	}
	unlink(out);
	text[strcspn(text, "\n")] = '\0';
	v = xstrdup(text);
	free(text);
	free(out);
	return v;
}

char *run_compiler_version(const struct arch *a)
{
	char *cc = toolchain_cc(toolchain_default(), a);
	char *v = compiler_version(cc);

	free(cc);
	return v;
}

char *run_cc_version(const char *cc)
{
	return compiler_version(cc);
}

/* The parameters of cell C's run, as runs.params: what makes it the same run. */
static char *make_params(struct run *r, struct cell *c)
{
	json_t *o = json_object(), *frags = json_array();
	char *s, sha[65];

	json_object_set_new(o, "kind", json_string(r->kind));
	json_object_set_new(o, "tree", json_string(r->tree->source));
	if (r->tree->sha256)
		json_object_set_new(o, "sha256", json_string(r->tree->sha256));
	json_object_set_new(o, "series",
			    r->series || r->range ?
				    json_string(r->series ? r->series :
							    r->range) :
				    json_null());
	/* the points themselves: the same patches give the same ids */
	{
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < r->nr_points; i++)
			strbuf_addstr(&sb, r->points[i].sha);
		util_sha256_hex(sha, sb.buf, sb.len);
		strbuf_release(&sb);
		json_object_set_new(o, "points", json_string(sha));
	}
	for (size_t i = 0; i < r->nr_frags; i++) {
		char *text = NULL;

		if (!util_read_file(&text, NULL, r->frags[i], CAP_SMALL_FILE))
			util_sha256_hex(sha, text, strlen(text));
		json_array_append_new(frags, json_string(text ? sha : "?"));
		free(text);
	}
	json_object_set_new(o, "config_base",
			    json_string(r->config_base_label));
	json_object_set_new(o, "fragments", frags);
	json_object_set_new(o, "level", json_integer(r->level));
	json_object_set_new(o, "compiler", json_string(c->compiler));
	/*
	 * Only what differs from a plain run is added: a run without --cc
	 * and --warnings keeps the parameters (and the results) it had.
	 */
	if (c->tc != toolchain_default())
		json_object_set_new(o, "cc", json_string(c->tc->name));
	if (c->arch != arch_host())
		json_object_set_new(o, "arch", json_string(c->arch->name));
	if (r->ws.spec)
		json_object_set_new(o, "warnings", json_string(r->ws.spec));
	json_object_set_new(o, "full", json_boolean(r->full));
	json_object_set_new(o, "boot", json_boolean(r->boot));
	json_object_set_new(o, "launcher",
			    r->launcher ? json_string(r->launcher) :
					  json_null());
	json_object_set_new(o, "targets",
			    r->targets ? json_string(r->targets) : json_null());
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return s;
}

/*
 * Name the points of cell C's run whose build failed; their number into
 * *out.  Returns 0 or -1.
 */
static int failed_points(long *out, struct run *r, struct cell *c)
{
	json_t *failed = NULL, *e;
	size_t i;

	if (query_failed_points(&failed, r->db, c->run_id))
		return -1;
	json_array_foreach(failed, i, e) {
		error("point %lld (%s) did not build: its warnings are incomplete",
		      json_integer_value(json_object_get(e, "position")),
		      json_string_value(json_object_get(e, "subject")));
	}
	*out = (long)json_array_size(failed);
	json_decref(failed);
	return 0;
}

/*
 * --config-base: one of kbuild's config targets, or the path of a full
 * .config (made absolute into *path, which the caller frees).
 */
static int config_base_set(struct run *r, char **path, const char *arg)
{
	static const char *const targets[] = {
		"tinyconfig",	"allnoconfig",	"defconfig",
		"allmodconfig", "allyesconfig",
	};
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		if (!strcmp(arg, targets[i])) {
			r->config_base = targets[i];
			r->config_base_path = NULL;
			return 0;
		}
	}
	free(*path);
	*path = realpath(arg, NULL);
	if (!*path || stat(*path, &st) || !S_ISREG(st.st_mode))
		return error("--config-base must be tinyconfig, allnoconfig,"
			     " defconfig, allmodconfig, allyesconfig or a"
			     " .config file: cannot read '%s'",
			     arg);
	r->config_base = "file";
	r->config_base_path = *path;
	return 0;
}

static const char *const run_usage[] = {
	"kwarn run --db FILE [--tree TARBALL|DIR | --repo PATH --range BASE..TIP]",
	"          [--series FILE] [--config FRAG]... [--config-base BASE|FILE]",
	"          [--level N] [-j N] [--full] [--no-boot] [--cc-launcher L]",
	"          [--fail-on-new] [--force] [--boot-timeout S] [--boot-silence S]",
	"          [--targets OBJ,OBJ...] [--cc NAME]... [--arch x86_64|arm64]...",
	"          [--warnings W=N,-Wflag...] [--checker sparse]",
	"          [--compiler-cache]",
	"          [--no-compiler-cache]",
	"          [--cache-size SIZE] [--compiler-cache-remote URL]",
	NULL,
};

static int finish_run(struct run *r, struct cell *c, const char *status,
		      const char *msg)
{
	return store_finish_run(r->db, c->run_id, status, msg);
}

/*
 * Cell C's build directory, one per work tree (every upload of a tarball
 * name shares one), config and compiler (made and locked), and the flags
 * its builds record.  Returns 0 or -1.
 */
static int cell_prepare(struct run *r, struct cell *c)
{
	struct strbuf key = STRBUF_INIT;
	char cfg_key[65], *cap, *last, *lock;
	char *kcflags, *archflags;
	int bad, rc;

	/*
	 * The key of a plain gcc build is the config name, as it always
	 * was: the builds in the cache stay valid.  A launcher, targets,
	 * another compiler or extra warnings change every command line:
	 * each its own directory.
	 */
	strbuf_addstr(&key, c->config_name);
	if (r->launcher || r->targets)
		strbuf_addf(&key, "|%s|%s", r->launcher ? r->launcher : "",
			    r->targets ? "targets" : "");
	if (c->tc != toolchain_default())
		strbuf_addf(&key, "|cc=%s", c->tc->name);
	if (c->arch != arch_host())
		strbuf_addf(&key, "|arch=%s", c->arch->name);
	if (r->ws.spec)
		strbuf_addf(&key, "|warnings=%s", r->ws.spec);
	util_sha256_hex(cfg_key, key.buf, key.len);
	strbuf_release(&key);
	c->build_dir = xstrfmt("%s/builds/%s-%.12s", util_cache_dir(),
			       strrchr(r->tree->work, '/') + 1, cfg_key);
	c->kdir = xstrfmt("%s/.kwarn", c->build_dir);
	cap = xstrfmt("%s/capture", c->kdir);
	last = xstrfmt("%s/last", c->kdir);
	bad = util_mkdir_p(cap) || util_mkdir_p(last);
	free(cap);
	free(last);
	if (bad)
		return -1;
	lock = xstrfmt("%s/lock", c->kdir);
	rc = util_lock(&c->lockfd, lock, 0);
	free(lock);
	if (rc) {
		if (rc > 0)
			error("build directory '%s' is in use by another kwarn",
			      c->build_dir);
		return -1;
	}
	kcflags = run_kcflags(r, c);
	archflags = !c->arch->kbuild ?
			    xstrdup("") :
		    c->arch->cross && !c->tc->clang ?
			    xstrfmt(" ARCH=%s CROSS_COMPILE=%s",
				    c->arch->kbuild, c->arch->cross) :
			    xstrfmt(" ARCH=%s", c->arch->kbuild);
	c->flags = xstrfmt(
		"%s%s%s%s%s%s%s%s%s%s", kcflags, c->tc->llvm ? " " : "",
		c->tc->llvm ? c->tc->llvm : "", archflags, r->ws.w ? " " : "",
		r->ws.w ? r->ws.w : "", r->launcher ? " launcher=" : "",
		r->launcher ? r->launcher : "", r->checker ? " checker=" : "",
		r->checker ? r->checker : "");
	free(kcflags);
	free(archflags);
	return 0;
}

static void run_release(struct run *r)
{
	for (size_t i = 0; i < r->nr_cells; i++) {
		struct cell *c = &r->cells[i];

		if (c->lockfd >= 0)
			close(c->lockfd);
		free(c->commit_ids);
		free(c->build_dir);
		free(c->kdir);
		free(c->config_hash);
		free(c->compiler);
		free(c->flags);
		free(c->params);
		free(c->config_name);
	}
	free(r->cells);
	free(r->default_series);
	free(r->default_frags[0]);
	free(r->default_frags[1]);
	free_list(r->cands, r->ncands);
	free(r->maint);
	for (size_t i = 0; i < ARRAY_SIZE(r->arch_frags); i++)
		free(r->arch_frags[i]);
	source_cache_release(&r->src);
	run_reset_tree(r);
	free_list(r->objects, r->nr_objects);
	free(r->config_base_label);
	free(r->cc_path);
	warn_spec_release(&r->ws);
	db_close(r->db);
}

/*
 * The compilers and warnings R asks for, checked before anything is
 * imported or built.  Returns 0 or -1 (reported).
 */
static int run_resolve(struct run *r)
{
	size_t ntc = r->nr_cc_names ? r->nr_cc_names : 1;
	size_t narch = r->nr_arch_names ? r->nr_arch_names : 1;

	r->nr_cells = ntc * narch;
	r->cells = xcalloc(r->nr_cells, sizeof(*r->cells));
	for (size_t i = 0; i < r->nr_cells; i++) {
		struct cell *c = &r->cells[i];

		c->lockfd = -1;
		c->run_id = -1;
		/* compilers outside, architectures inside: gcc x86_64, arm64 */
		if (!r->nr_cc_names)
			c->tc = toolchain_default();
		else if (toolchain_find(&c->tc, r->cc_names[i / narch]))
			return -1;
		c->arch = r->nr_arch_names ?
				  arch_find(r->arch_names[i % narch]) :
				  arch_host();
		if (!c->arch)
			return error("unknown architecture '%s' (--arch takes"
				     " %s)",
				     r->arch_names[i % narch], arch_names());
		for (size_t j = 0; j < i; j++)
			if (r->cells[j].tc == c->tc &&
			    r->cells[j].arch == c->arch)
				return error("--%s %s is given twice",
					     narch > 1 ? "arch" : "cc",
					     narch > 1 ? c->arch->name :
							 c->tc->name);
		if (toolchain_check_arch(c->tc, c->arch))
			return -1;
		if (r->boot && !util_in_path(c->arch->qemu))
			return error("cannot boot %s: no '%s' in PATH"
				     " (apt-get install %s, or --no-boot)",
				     c->arch->name, c->arch->qemu,
				     c->arch->host ? "qemu-system-x86" :
						     "qemu-system-arm");
		if (r->boot && !c->arch->host) {
			char *bb = arch_busybox(c->arch);
			int missing = access(bb, R_OK);

			if (missing)
				error("cannot boot %s: no busybox '%s' (run"
				      " scripts/fetch-busybox %s, or --no-boot)",
				      c->arch->name, bb, c->arch->name);
			free(bb);
			if (missing)
				return -1;
		}
	}
	if (r->warnings && warnings_parse(&r->ws, r->warnings))
		return -1;
	if (r->config_base_path) {
		char sha[65];
		const char *b = strrchr(r->config_base_path, '/');

		if (util_sha256_file(sha, r->config_base_path))
			return -1;
		r->config_base_label = xstrfmt(
			"%s@%.12s", b ? b + 1 : r->config_base_path, sha);
	} else {
		r->config_base_label = xstrdup(r->config_base);
	}
	return 0;
}

/*
 * Everything checked and set before a tree is opened: compilers,
 * launcher, the compiler cache, make, the default series and fragments,
 * the candidate trees.  Returns 0 or -1 (reported).
 */
static int run_setup(struct run *r)
{
	int rc;

	if (run_resolve(r))
		return -1;
	if (r->launcher && launcher_check(r->launcher, r->level))
		return -1;
	if (r->checker && strcmp(r->checker, "sparse"))
		return error("unknown checker '%s' (kwarn knows sparse)",
			     r->checker);
	if (r->checker && !util_in_path(r->checker))
		return error("%s is not installed (run scripts/install-deps)",
			     r->checker);
	rc = ccache_setup(&r->cco, r->launcher);
	if (rc < 0)
		return -1;
	r->cached = rc;
	if (!util_in_path("make"))
		return error(
			"make is not installed (run scripts/install-deps)");
	r->tty = isatty(2);
	r->started = util_now_ms();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!r->repo && !r->series && !r->no_series) {
		r->default_series = run_data_path("kernel/series");
		r->series = r->default_series;
		if (!r->nr_frags) {
			r->default_frags[0] =
				run_data_path("kernel/configs/qemu.config");
			r->default_frags[1] =
				run_data_path("kernel/configs/campaign.config");
			r->frags[r->nr_frags++] = r->default_frags[0];
			r->frags[r->nr_frags++] = r->default_frags[1];
		}
	}
	if (r->series && access(r->series, R_OK))
		return error("cannot read series '%s': %s", r->series,
			     strerror(errno));
	if (!r->repo && !r->tree_spec) {
		r->ncands = default_trees(&r->cands, r->series);
		if (!r->ncands)
			return error(
				"no /usr/src/linux-source-*.tar.xz: install linux-source-6.1 or pass --tree");
	}
	return 0;
}

/*
 * Open the tree (the first candidate the series applies to, when kwarn
 * chose them) and make its points.  Returns 0 or -1 (reported).
 */
static int run_open_tree(struct run *r)
{
	for (size_t ci = 0;; ci++) {
		int more = ci + 1 < r->ncands, bad;

		if (r->cands)
			r->tree_spec = r->cands[ci];
		if (r->cached_sha256)
			fprintf(stderr,
				"kwarn: opening %s (%.12s) from the cache\n",
				r->cached_name, r->cached_sha256);
		else
			fprintf(stderr, "kwarn: importing %s\n",
				r->repo ? r->repo : r->tree_spec);
		if (r->repo ? tree_open_repo(&r->tree, r->repo) :
		    r->cached_sha256 ?
			      tree_open_cached(&r->tree, r->cached_name,
					       r->tree_spec, r->cached_sha256) :
			      tree_import(&r->tree, r->tree_spec))
			return -1;
		bad = r->repo	   ? make_points_range(r) :
		      r->no_series ? make_points_plain(r) :
				     make_points(r);
		/* the default tree is the newest the series applies to */
		if (more && (bad || (r->apply_failure && r->nr_points <= 2))) {
			fprintf(stderr,
				"kwarn: the series does not apply to %s, trying %s\n",
				r->tree_spec, r->cands[ci + 1]);
			run_reset_tree(r);
			continue;
		}
		if (bad)
			return -1;
		break;
	}
	if (r->nr_points == 0 || (r->points[0].unapplied && !r->apply_failure))
		return error("nothing to build");
	collect_objects(r);
	return 0;
}

/*
 * Each cell's fragments (kwarn's qemu.config names the qemu config of
 * each arch) and the config name its runs record.
 */
static void cells_name_configs(struct run *r)
{
	char *qemu_frag = run_data_path("kernel/configs/qemu.config");
	char *qemu_real = realpath(qemu_frag, NULL);

	for (size_t ci = 0; ci < r->nr_cells; ci++) {
		struct cell *c = &r->cells[ci];
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < r->nr_frags; i++) {
			char *real = realpath(r->frags[i], NULL);
			int is_qemu = qemu_real && real &&
				      !strcmp(real, qemu_real);

			free(real);
			if (is_qemu && c->arch != arch_host()) {
				free(r->arch_frags[ci]);
				r->arch_frags[ci] =
					run_data_path(c->arch->config);
				c->frags[i] = r->arch_frags[ci];
			} else {
				c->frags[i] = r->frags[i];
			}
		}
		strbuf_addstr(&sb, r->config_base_label);
		for (size_t i = 0; i < r->nr_frags; i++) {
			const char *b = strrchr(c->frags[i], '/');

			strbuf_addf(&sb, "+%s", b ? b + 1 : c->frags[i]);
		}
		c->config_name = strbuf_detach(&sb, NULL);
	}
	free(qemu_frag);
	free(qemu_real);
}

/*
 * Store the tree and every cell's run, resumed or new, with its commits,
 * in one transaction; how many cells were measured before into
 * *nmeasured.  Returns 0 or -1 (reported).
 */
static int cells_open_runs(struct run *r, size_t *nmeasured)
{
	struct tree_info ti = { 0 };
	char *maint_path = xstrfmt("%s/MAINTAINERS", r->tree->src);
	int rc;

	if (!access(maint_path, R_OK))
		util_read_file(&r->maint, NULL, maint_path, CAP_TREE_FILE);
	free(maint_path);
	ti.name = r->tree->name;
	ti.version = r->tree->version;
	ti.kind = r->tree->kind;
	ti.source = r->tree->source;
	ti.sha256 = r->tree->sha256;
	ti.pkg_version = r->pkg_version;
	ti.maintainers = r->maint;
	*nmeasured = 0;
	if (db_begin(r->db))
		return -1;
	if (store_tree(&r->tree_id, r->db, &ti))
		goto fail;
	for (size_t i = 0; i < r->nr_cells; i++) {
		struct cell *c = &r->cells[i];
		char *cc = toolchain_cc(c->tc, c->arch);

		c->compiler = compiler_version(cc);
		free(cc);
		c->params = make_params(r, c);
		if ((rc = open_run(r, c)) < 0)
			goto fail;
		c->measured = rc == 1;
		if (!c->measured && store_points(r, c))
			goto fail;
		*nmeasured += c->measured;
	}
	if (r->nr_cells > 1) {
		long long ids[ARRAY_SIZE(r->arch_frags)];

		for (size_t i = 0; i < r->nr_cells; i++)
			ids[i] = r->cells[i].run_id;
		if (store_group_runs(r->db, ids, r->nr_cells))
			goto fail;
	}
	if (db_commit(r->db))
		goto fail;
	return 0;
fail:
	db_rollback(r->db);
	return -1;
}

/*
 * Build every point in every cell not measured before, one checkout a
 * point, skipping the points a resumed run has.  Returns 0 or -1
 * (reported; also when interrupted).
 */
static int cells_build(struct run *r)
{
	r->cc_path = cc_install();
	if (!r->cc_path)
		return -1;
	for (size_t i = 0; i < r->nr_cells; i++)
		if (!r->cells[i].measured && cell_prepare(r, &r->cells[i]))
			return -1;
	progress(r, NULL, 0, "configuring");
	if (tree_checkout(r->tree, &r->points[0].oid))
		return -1;
	for (size_t i = 0; i < r->nr_cells; i++)
		if (!r->cells[i].measured && configure(r, &r->cells[i]))
			return -1;
	for (size_t k = 0; k < r->nr_points && !r->points[k].unapplied; k++) {
		int checked_out = 0;

		for (size_t i = 0; i < r->nr_cells; i++) {
			struct cell *c = &r->cells[i];
			long long built = -1;

			if (c->measured)
				continue;
			/* a resumed run: this point has its build */
			if (query_commit_build(&built, r->db, c->commit_ids[k]))
				return -1;
			if (built >= 0)
				continue;
			/* one checkout serves every cell of the point */
			if (!checked_out) {
				progress(r, c, k, "checking out");
				if (tree_checkout(r->tree, &r->points[k].oid))
					return -1;
				checked_out = 1;
			}
			if (build_point(r, c, k)) {
				if (interrupted)
					error("interrupted at point %zu: run again to resume",
					      k);
				return -1;
			}
		}
	}
	if (r->tty)
		fputc('\n', stderr);
	return 0;
}

/* Close the runs of the cells built now with STATUS and MSG. */
static void cells_finish(struct run *r, const char *status, const char *msg)
{
	for (size_t i = 0; i < r->nr_cells; i++)
		if (!r->cells[i].measured && r->cells[i].run_id >= 0)
			finish_run(r, &r->cells[i], status, msg);
}

/*
 * Each cell's summary; RET made 1 by --fail-on-new, 2 when a report
 * fails.  Returns RET.
 */
static int cells_report(struct run *r, int ret)
{
	FILE *out = r->out ? r->out : stdout;

	for (size_t i = 0; i < r->nr_cells; i++) {
		struct cell *c = &r->cells[i];
		int rep;

		if (r->nr_cells > 1)
			fprintf(out, "compiler %s%s%s: run %lld\n", c->tc->name,
				r->nr_arch_names ? " " : "",
				r->nr_arch_names ? c->arch->name : "",
				c->run_id);
		rep = report_print_run(out, r->db, c->run_id, "summary", 0);
		if (r->fail_on_new && report_tip_has_new(r->db, c->run_id) > 0)
			ret = 1;
		if (rep)
			ret = ret ? ret : 2;
	}
	return ret;
}

/*
 * Do the run R describes (options filled in, nothing else).  Returns 0,
 * 1 when the series stopped at a patch that does not apply or
 * --fail-on-new found something, 2 on errors, 130 when interrupted.
 */
static int run_execute(struct run r_in, long long *run_id_out)
{
	struct run r = r_in;
	size_t nmeasured;
	long nfailed = 0, n;
	int ret = 2;

	if (run_setup(&r) || db_open(&r.db, r.dbpath, DB_READ_WRITE) ||
	    run_open_tree(&r))
		goto out;
	cells_name_configs(&r);
	if (cells_open_runs(&r, &nmeasured))
		goto out;
	if (run_id_out)
		*run_id_out = r.cells[0].run_id;
	if (nmeasured == r.nr_cells) {
		if (r.measured_before)
			*r.measured_before = 1;
		for (size_t i = 0; i < r.nr_cells; i++)
			/* to stderr under kwarn nightly: its stdout is the report */
			fprintf(r.out ? r.out : stdout,
				"run %lld: already measured (use --force to measure again)\n",
				r.cells[i].run_id);
		ret = cells_report(&r, 0);
		goto out;
	}
	if (r.points[0].unapplied) {
		/* the base overlay did not apply: nothing to build */
		error("series stopped: %s", r.apply_failure);
		cells_finish(&r, "failed", r.apply_failure);
		ret = cells_report(&r, 1);
		goto out;
	}
	if (cells_build(&r)) {
		if (r.tty)
			fputc('\n', stderr);
		cells_finish(&r, "stopped",
			     interrupted ? "interrupted" : "error");
		ret = interrupted ? 130 : 2;
		goto out;
	}
	if (r.apply_failure) {
		error("series stopped: %s", r.apply_failure);
		cells_finish(&r, "failed", r.apply_failure);
		ret = cells_report(&r, 1);
		goto out;
	}
	cells_finish(&r, "done", NULL);
	for (size_t i = 0; i < r.nr_cells; i++) {
		if (r.cells[i].measured)
			continue;
		if (failed_points(&n, &r, &r.cells[i]))
			goto out;
		nfailed += n;
	}
	ret = cells_report(&r, nfailed ? 1 : 0);
out:
	run_release(&r);
	return ret;
}

int run_request(long long *run_id_out, const struct run_request *q)
{
	struct run r = { 0 };

	r.dbpath = q->dbpath;
	r.tree_spec = q->tree_spec;
	r.cached_name = q->cached_name;
	r.cached_sha256 = q->cached_sha256;
	r.repo = q->repo;
	r.range = q->range;
	r.series = q->series;
	r.no_series = !q->series && !q->repo;
	r.kind = q->kind;
	r.pkg_version = q->pkg_version;
	for (size_t i = 0; i < q->nr_frags && i < ARRAY_SIZE(r.frags); i++)
		r.frags[r.nr_frags++] = q->frags[i];
	r.config_base = "tinyconfig";
	r.level = q->level;
	r.jobs = q->jobs;
	r.boot = q->boot;
	r.launcher = q->launcher;
	r.measured_before = q->measured_before;
	if (q->arch)
		r.arch_names[r.nr_arch_names++] = q->arch;
	for (size_t i = 0; i < q->nr_cc && i < ARRAY_SIZE(r.cc_names); i++)
		r.cc_names[r.nr_cc_names++] = q->cc_names[i];
	r.warnings = q->warnings;
	r.checker = q->checker;
	r.targets = q->targets;
	r.cco = q->cache;
	r.silence_s = 30;
	r.timeout_s = 120;
	r.out = stderr;
	return run_execute(r, run_id_out);
}

int cmd_run(int argc, char **argv)
{
	struct run r = { 0 };
	struct opt_list frags = { 0 }, ccs = { 0 }, arches = { 0 };
	const char *config_base = NULL;
	long level = 3, jobs = 0, timeout_s = 0, silence_s = 0;
	int no_boot = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &r.dbpath, "FILE", "the database"),
		OPT_STRING(0, "tree", &r.tree_spec, "TARBALL|DIR",
			   "the kernel tree (default: the one the series names,"
			   " else the newest installed)"),
		OPT_STRING(0, "repo", &r.repo, "PATH",
			   "a git repository, with --range"),
		OPT_STRING(0, "range", &r.range, "BASE..TIP",
			   "the commits of --repo to measure"),
		OPT_STRING(0, "series", &r.series, "FILE",
			   "a quilt series file (default: kernel/series)"),
		OPT_LIST(0, "config", &frags, "FRAG", "a config fragment"),
		OPT_STRING(0, "config-base", &config_base, "BASE|FILE",
			   "a kbuild config target or a full .config"
			   " (default: tinyconfig)"),
		OPT_LONG(0, "level", &level, "N",
			 "-Wimplicit-fallthrough level (default: 3)", 1, 5),
		OPT_LONG('j', "jobs", &jobs, "N",
			 "make -j (default: the launcher's hosts, else 2)", 1,
			 256),
		OPT_FLAG(0, "full", &r.full, "build and boot the modules too"),
		OPT_FLAG(0, "no-boot", &no_boot, "do not boot the builds"),
		OPT_STRING(0, "cc-launcher", &r.launcher, "L",
			   "a compiler launcher (ccache, distcc, ...)"),
		OPT_FLAG(0, "fail-on-new", &r.fail_on_new,
			 "exit 1 when the tip has a warning the base lacks"),
		OPT_FLAG(0, "force", &r.force,
			 "measure again what was measured before"),
		OPT_LONG(0, "boot-timeout", &timeout_s, "S",
			 "seconds a boot may take", 1, 3600),
		OPT_LONG(0, "boot-silence", &silence_s, "S",
			 "seconds of console silence that end a boot", 1, 3600),
		OPT_STRING(0, "targets", &r.targets, "OBJ,OBJ...",
			   "build only these objects (no boot)"),
		OPT_LIST(0, "cc", &ccs, "NAME", "a compiler (default: gcc)"),
		OPT_LIST(0, "arch", &arches, "ARCH",
			 "x86_64 or arm64 (default: x86_64)"),
		OPT_STRING(0, "warnings", &r.warnings, "W=N,-Wflag...",
			   "the warnings to measure"),
		OPT_STRING(0, "checker", &r.checker, "sparse",
			   "run kbuild's checker on each compiled object (C=1)"),
		OPT_FLAG(
			0, "compiler-cache", &r.cco.on,
			"compile through kwarn's exact compiler cache (the default)"),
		OPT_FLAG(0, "no-compiler-cache", &r.cco.off,
			 "compile every object, without the compiler cache"),
		OPT_STRING(
			0, "cache-size", &r.cco.size, "SIZE",
			"the compiler cache's size (default: " CCACHE_DEFAULT_SIZE
			")"),
		OPT_STRING(0, "compiler-cache-remote", &r.cco.remote, "URL",
			   "share the compiler cache on redis://HOST:PORT"),
		OPT_END,
	};
	char *abs_frags[ARRAY_SIZE(r.frags)] = { NULL }, *base_path = NULL;
	int argi, rc, ret = 2;

	static_assert(ARRAY_SIZE(r.frags) == ARRAY_SIZE(frags.v),
		      "every --config the table takes fits the run");
	rc = opt_parse(&argi, argc, argv, opts, run_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!r.dbpath || argi != argc || (r.repo && !r.range) ||
	    (r.range && !r.repo) || (r.repo && r.tree_spec)) {
		opt_usage(stderr, opts, run_usage);
		return 2;
	}
	for (size_t i = 0; i < frags.nr; i++) {
		if (access(frags.v[i], R_OK)) {
			error("cannot read config fragment '%s': %s",
			      frags.v[i], strerror(errno));
			goto out;
		}
		/* absolute: merge_config.sh runs in the tree */
		abs_frags[r.nr_frags] = realpath(frags.v[i], NULL);
		r.frags[r.nr_frags] = abs_frags[r.nr_frags];
		r.nr_frags++;
	}
	r.config_base = "tinyconfig";
	if (config_base && config_base_set(&r, &base_path, config_base))
		goto out;
	if (ccs.nr > ARRAY_SIZE(r.cc_names)) {
		error("too many --cc compilers");
		goto out;
	}
	for (size_t i = 0; i < ccs.nr; i++)
		r.cc_names[r.nr_cc_names++] = ccs.v[i];
	if (arches.nr > ARRAY_SIZE(r.arch_names)) {
		error("too many --arch architectures");
		goto out;
	}
	for (size_t i = 0; i < arches.nr; i++)
		r.arch_names[r.nr_arch_names++] = arches.v[i];
	r.level = (int)level;
	r.jobs = (int)jobs; /* 0: from the launcher's hosts, else 2 */
	r.boot = !no_boot && !r.targets;
	/* 0: boot.c's limits, longer when --full boots with modules */
	r.timeout_s = (int)timeout_s;
	r.silence_s = (int)silence_s;
	if (!r.jobs) {
		int hosts = r.launcher ? launcher_jobs(r.launcher) : 0;

		r.jobs = hosts > 0 ? hosts : 2;
	}
	r.kind = "series";
	ret = run_execute(r, NULL);
out:
	for (size_t i = 0; i < ARRAY_SIZE(abs_frags); i++)
		free(abs_frags[i]);
	free(base_path);
	return ret;
}
