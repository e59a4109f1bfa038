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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "capture.h"
#include "classify.h"
#include "db.h"
#include "kbuild.h"
#include "kwarn.h"
#include "query.h"
#include "parse.h"
#include "store.h"
#include "tree.h"
#include "util.h"
#include "banned.h"

struct point {
	git_oid oid;
	char sha[GIT_OID_HEXSZ + 1];
	char *subject, *author, *patch, *changed;
	long long date;
	long long commit_id;
};

/*
 * One compiler of a run: its own run row, commits, build directory and
 * build parameters.  The points (and their checkouts) are shared.
 */
struct run_cc {
	const struct toolchain *tc;
	long long run_id;
	long long *commit_ids; /* per point, -2 where no patch applied */
	char *build_dir, *kdir, *config_hash, *compiler, *flags, *params;
	int lockfd;
	int measured; /* measured before: nothing to build */
};

/* make_argv()'s strings, freed by make_argv_release() */
#define MAKE_OWNED 6

struct run {
	/* options */
	const char *dbpath, *tree_spec, *repo, *range, *series;
	const char *cached_name, *cached_sha256;
	const char *config_base, *launcher, *targets;
	const char *config_base_path; /* --config-base FILE: a full .config */
	const char *frags[16];
	size_t nr_frags;
	int level, jobs, full, boot, fail_on_new, force;
	int no_series; /* measure the plain tree: one point */
	int *measured_before; /* set when the run was measured before */
	const char *kind; /* "series" or "nightly" */
	const char *pkg_version;
	const char *cc_names[8]; /* --cc, in order; none: gcc */
	size_t nr_cc_names;
	const char *warnings; /* --warnings SPEC, or NULL */
	FILE *out; /* where the summary goes */
	int silence_s, timeout_s;
	/* state */
	sqlite3 *db;
	struct tree *tree;
	long long tree_id, run_id;
	struct point *points;
	size_t nr_points;
	char *apply_failure; /* why the series stopped, if it did */
	char **objects; /* single-object targets */
	size_t nr_objects;
	struct run_cc *ccs; /* one per compiler */
	size_t nr_ccs;
	struct run_cc *cc; /* the one being built; the fields below are its */
	char *build_dir, *kdir; /* B, and B/.kwarn */
	char *config_hash, *compiler, *flags, *params;
	char *config_name;
	char *config_base_label; /* the base, or "FILE@sha256-prefix" */
	char *cc_path; /* kwarn-cc next to us */
	struct warn_spec ws; /* parsed --warnings */
	struct source_cache src; /* the work tree at the point being stored */
	int tty;
	int64_t started, point_started;
	size_t expected; /* objects a cold build will compile, or 0 */
};

static volatile sig_atomic_t interrupted;

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
	if (util_read_file(&mine, &n, src, 64 << 20))
		goto fail;
	if (!access(dst, R_OK) && !util_read_file(&theirs, &m, dst, 64 << 20) &&
	    m == n && !memcmp(mine, theirs, n))
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

static size_t count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Where the object count of the last build of this tree and config is
 * kept (any compiler: their object lists are the config's), a new string.
 */
static char *objects_count_path(struct run *r)
{
	char key[65];

	util_sha256_hex(key, r->config_name, strlen(r->config_name));
	return xstrfmt("%s/builds/%s-%.12s.objects", util_cache_dir(),
		       strrchr(r->tree->dir, '/') + 1, key);
}

/* Remember how many objects this build directory has captured. */
static void objects_count_save(struct run *r)
{
	char *last = xstrfmt("%s/last", r->kdir), *path, *n;
	size_t count = count_dir(last);

	free(last);
	if (!count || r->targets)
		return;
	path = objects_count_path(r);
	n = xstrfmt("%zu\n", count);
	if (util_write_file(path, n, strlen(n)))
		warning("cannot keep the object count in '%s'", path);
	free(n);
	free(path);
}

/*
 * The objects a cold build of this directory will compile: the previous
 * build's count of the same config, or 0 when unknown or when the
 * directory has built before (an incremental point compiles a few).
 */
static size_t objects_expected(struct run *r)
{
	char *last = xstrfmt("%s/last", r->kdir), *path, *text = NULL;
	size_t had = count_dir(last);
	long v = 0;

	free(last);
	if (had || r->targets)
		return 0;
	path = objects_count_path(r);
	if (!access(path, R_OK) && !util_read_file(&text, NULL, path, 64)) {
		text[strcspn(text, "\n")] = '\0';
		if (util_parse_long(&v, text, 0, 1L << 30))
			v = 0;
	}
	free(text);
	free(path);
	return (size_t)v;
}

static void progress(struct run *r, size_t k, const char *what)
{
	int64_t el = (util_now_ms() - r->started) / 1000;
	int64_t pel = (util_now_ms() - r->point_started) / 1000;
	char *cap = xstrfmt("%s/capture", r->kdir);
	size_t objs = count_dir(cap);
	struct strbuf sb = STRBUF_INIT;
	long eta = -1;

	free(cap);
	strbuf_addf(&sb, "%s", what);
	if (r->nr_ccs > 1 && r->cc)
		strbuf_addf(&sb, " (%s)", r->cc->tc->name);
	if (!strcmp(what, "building") && r->expected && objs &&
	    objs <= r->expected) {
		eta = (long)(pel * (int64_t)(r->expected - objs) /
			     (int64_t)objs);
		strbuf_addf(&sb, ": %zu/%zu objects, about %ld min left", objs,
			    r->expected, (eta + 59) / 60);
	} else if (!strcmp(what, "building") && objs) {
		strbuf_addf(&sb, ": %zu objects", objs);
	}
	if (r->tty)
		fprintf(stderr, "\r\033[K[%zu/%zu] %.40s: %s, %lds elapsed",
			k + 1, r->nr_points, r->points[k].subject, sb.buf,
			(long)el);
	else
		fprintf(stderr, "kwarn: [%zu/%zu] %s: %s (%lds)\n", k + 1,
			r->nr_points, r->points[k].subject, sb.buf, (long)el);
	/* the same, for /api/runs/{id} while the run goes on */
	if (r->db && r->cc && r->run_id >= 0) {
		json_t *o = json_object();
		char *text;

		json_object_set_new(o, "point", json_integer((json_int_t)k));
		json_object_set_new(o, "points",
				    json_integer((json_int_t)r->nr_points));
		json_object_set_new(o, "compiler",
				    json_string(r->cc->tc->name));
		json_object_set_new(o, "stage", json_string(what));
		json_object_set_new(o, "objects",
				    json_integer((json_int_t)objs));
		json_object_set_new(
			o, "expected",
			r->expected ? json_integer((json_int_t)r->expected) :
				      json_null());
		json_object_set_new(o, "eta_s",
				    eta >= 0 ? json_integer(eta) : json_null());
		text = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		store_run_progress(r->db, r->run_id, text);
		free(text);
	}
	strbuf_release(&sb);
}

/* Run make with ARGV; while it runs, show progress for point K. */
static int run_make(struct run *r, size_t k, const char *const *argv,
		    const char *log)
{
	/* make dies with us: a killed run leaves no make behind */
	struct util_spawn o = { .out_path = log,
				.err_path = log,
				.append = 1,
				.out_fd = -1,
				.die_with_parent = 1 };
	int status = 0, shown = 0;
	pid_t pid;

	if (util_spawn(&pid, argv, &o))
		return -1;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return error("waitpid: %s", strerror(errno));
		if (interrupted) {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
			return -1;
		}
		/* a terminal line every second, plain lines once a minute */
		if ((r->tty && !(shown % 2)) || !(shown % 60))
			progress(r, k, "building");
		shown++;
		sleep(1);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* The last LINES lines of FILE, as a new string. */
static char *file_tail(const char *path, int lines)
{
	char *buf = NULL, *p;
	size_t len = 0;

	if (util_read_file(&buf, &len, path, 256 << 20))
		return NULL;
	p = buf + len;
	while (p > buf && lines >= 0) {
		p--;
		if (*p == '\n')
			lines--;
	}
	p = xstrdup(p);
	free(buf);
	return p;
}

/*
 * KCFLAGS=: the fall-through flag the compiler understands, then the
 * flags of --warnings (after kwarn's own, so that a -Wno- of the spec
 * wins), a new string.
 */
static char *run_kcflags(struct run *r)
{
	char *ft = toolchain_fallthrough_flag(r->cc->tc, r->level);
	char *s = xstrfmt("KCFLAGS=%s%s%s", ft, r->ws.kcflags ? " " : "",
			  r->ws.kcflags ? r->ws.kcflags : "");

	free(ft);
	return s;
}

/* make -C SRC O=B ... the common part of every make command line. */
static size_t make_argv(struct run *r, const char **argv, size_t max,
			char **owned)
{
	size_t n = 0;

	argv[n++] = "make";
	argv[n++] = "-C";
	argv[n++] = r->tree->src;
	argv[n++] = owned[0] = xstrfmt("O=%s", r->build_dir);
	argv[n++] = owned[1] = xstrfmt("-j%d", r->jobs);
	argv[n++] = owned[2] = xstrfmt("CC=%s %s%s%s", r->cc_path,
				       r->launcher ? r->launcher : "",
				       r->launcher ? " " : "", r->cc->tc->cc);
	argv[n++] = owned[3] = run_kcflags(r);
	/*
	 * The level is ours (KCFLAGS comes last and wins), so the tree's
	 * own Kconfig level only changes every command line: a series that
	 * moves it (the campaign's Makefile commit, its last patch) would
	 * rebuild the whole kernel for identical warnings.
	 */
	argv[n++] = "CONFIG_CC_IMPLICIT_FALLTHROUGH=";
	/* kbuild's LLVM=: clang, lld and the llvm tools, host tools too */
	if (r->cc->tc->llvm)
		argv[n++] = r->cc->tc->llvm;
	if (r->ws.w)
		argv[n++] = r->ws.w;
	(void)max;
	return n;
}

static void make_argv_release(char **owned)
{
	for (size_t i = 0; i < MAKE_OWNED; i++) {
		free(owned[i]);
		owned[i] = NULL;
	}
}

static int configure(struct run *r)
{
	const char *argv[64];
	char *owned[MAKE_OWNED] = { NULL },
	     *cfg = xstrfmt("%s/.config", r->build_dir);
	char *log = xstrfmt("%s/config.log", r->kdir), *stamp = NULL;
	char *merge =
		xstrfmt("%s/scripts/kconfig/merge_config.sh", r->tree->src);
	char *text = NULL, hash[65], *want = NULL;
	size_t n;
	int ret = -1, rc;

	stamp = xstrfmt("%s/config.stamp", r->kdir);
	/* the fragments' text decides the config: configure once per set */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, r->config_base_label);
		for (size_t i = 0; i < r->nr_frags; i++) {
			char *f = NULL;

			if (util_read_file(&f, NULL, r->frags[i], 1 << 20))
				goto out;
			strbuf_addf(&sb, "\n#%s\n%s", r->frags[i], f);
			free(f);
		}
		want = strbuf_detach(&sb, NULL);
	}
	if (!access(cfg, R_OK) &&
	    !util_read_file(&text, NULL, stamp, 1 << 20) &&
	    !strcmp(text, want)) {
		ret = 0;
		goto hash;
	}
	unlink(log);
	n = make_argv(r, argv, ARRAY_SIZE(argv), owned);
	if (r->config_base_path) {
		/* a full .config: brought up to this tree by olddefconfig */
		char *base = NULL;
		size_t blen = 0;

		if (util_read_file(&base, &blen, r->config_base_path,
				   64 << 20) ||
		    util_write_file(cfg, base, blen)) {
			free(base);
			goto out;
		}
		free(base);
		argv[n++] = "olddefconfig";
	} else {
		argv[n++] = r->config_base;
	}
	argv[n] = NULL;
	if ((rc = util_run(argv, NULL, log, log))) {
		error("make %s failed (exit %d), see '%s'", argv[n - 1], rc,
		      log);
		goto out;
	}
	if (r->nr_frags) {
		const char *margv[24];
		size_t m = 0;
		char *out = xstrfmt("%s/merge.log", r->kdir);

		margv[m++] = merge;
		margv[m++] = "-m";
		margv[m++] = "-O";
		margv[m++] = r->build_dir;
		margv[m++] = cfg;
		for (size_t i = 0; i < r->nr_frags; i++)
			margv[m++] = r->frags[i];
		margv[m] = NULL;
		rc = util_run(margv, r->tree->src, out, out);
		free(out);
		if (rc) {
			error("merge_config.sh failed (exit %d)", rc);
			goto out;
		}
		argv[n - 1] = "olddefconfig";
		if ((rc = util_run(argv, NULL, log, log))) {
			error("make olddefconfig failed (exit %d), see '%s'",
			      rc, log);
			goto out;
		}
	}
	/* every symbol a fragment asks for must be in the final .config */
	free(text);
	text = NULL;
	if (util_read_file(&text, NULL, cfg, 64 << 20))
		goto out;
	for (size_t i = 0; i < r->nr_frags; i++) {
		char *f = NULL, *line, *next;

		if (util_read_file(&f, NULL, r->frags[i], 1 << 20))
			goto out;
		for (line = f; line && *line; line = next) {
			char *probe;
			int found;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (strncmp(line, "CONFIG_", 7))
				continue;
			probe = xstrfmt("\n%s\n", line);
			found = strstr(text, probe) != NULL;
			free(probe);
			if (!found) {
				error("config fragment '%s': '%s' did not stick"
				      " (unknown symbol or unmet dependency)",
				      r->frags[i], line);
				free(f);
				goto out;
			}
		}
		free(f);
	}
	if (util_write_file(stamp, want, strlen(want)))
		goto out;
	ret = 0;
hash:
	if (!ret) {
		if (util_sha256_file(hash, cfg))
			ret = -1;
		else
			r->config_hash = r->cc->config_hash = xstrdup(hash);
	}
out:
	make_argv_release(owned);
	free(cfg);
	free(log);
	free(stamp);
	free(merge);
	free(text);
	free(want);
	return ret;
}

/* "drivers/x/y.c" -> the object path kbuild builds it as. */
static char *object_for_source(const char *src)
{
	static const struct {
		const char *dir, *via;
	} via[] = {
		/* compiled from the amdgpu Makefile (DESIGN.md) */
		{ "drivers/gpu/drm/amd/amdkfd/",
		  "drivers/gpu/drm/amd/amdgpu/../amdkfd/" },
		{ "drivers/gpu/drm/amd/display/",
		  "drivers/gpu/drm/amd/amdgpu/../display/" },
		{ "drivers/gpu/drm/amd/pm/",
		  "drivers/gpu/drm/amd/amdgpu/../pm/" },
		{ "drivers/gpu/drm/amd/acp/",
		  "drivers/gpu/drm/amd/amdgpu/../acp/" },
	};
	size_t l = strlen(src);
	char *o;

	if (l < 3 || strcmp(src + l - 2, ".c"))
		return NULL;
	o = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(via); i++) {
		size_t dl = strlen(via[i].dir);

		if (!strncmp(src, via[i].dir, dl)) {
			o = xstrfmt("%s%s", via[i].via, src + dl);
			break;
		}
	}
	if (!o)
		o = xstrdup(src);
	o[strlen(o) - 1] = 'o';
	return o;
}

/* Collect the .c files any point changes as single-object targets. */
static void collect_objects(struct run *r)
{
	for (size_t i = 0; i < r->nr_points; i++) {
		json_t *ch = r->points[i].changed ?
				     json_loads(r->points[i].changed, 0, NULL) :
				     NULL;
		const char *file;
		json_t *v;

		json_object_foreach(ch, file, v) {
			char *o = object_for_source(file);
			int dup = 0;

			if (!o)
				continue;
			for (size_t j = 0; j < r->nr_objects; j++)
				dup |= !strcmp(r->objects[j], o);
			if (dup) {
				free(o);
				continue;
			}
			r->objects = xrealloc(r->objects,
					      (r->nr_objects + 1) *
						      sizeof(*r->objects));
			r->objects[r->nr_objects++] = o;
		}
		json_decref(ch);
	}
}

static void point_add(struct run *r, const git_oid *oid, const char *subject,
		      const char *author, long long date, const char *patch,
		      char *changed)
{
	struct point *p;

	r->points = xrealloc(r->points, (r->nr_points + 1) * sizeof(*p));
	p = &r->points[r->nr_points++];
	memset(p, 0, sizeof(*p));
	p->oid = *oid;
	git_oid_tostr(p->sha, sizeof(p->sha), oid);
	p->subject = xstrdup(subject);
	p->author = xstrdup(author ? author : "");
	p->date = date;
	p->patch = patch ? xstrdup(patch) : NULL;
	p->changed = changed;
}

/* Read a quilt series file: patch paths relative to its directory. */
static int read_series(char ***out, size_t *nr, const char *path)
{
	char *text = NULL, *line, *next, *dir = xstrdup(path), *slash;
	char **list = NULL;
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else {
		free(dir);
		dir = xstrdup(".");
	}
	if (util_read_file(&text, NULL, path, 1 << 20)) {
		free(dir);
		return -1;
	}
	for (line = text; line && *line; line = next) {
		char *p, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		end = line + strcspn(line, " \t");
		*end = '\0';
		p = xstrfmt("%s/%s", dir, line);
		if (access(p, R_OK)) {
			error("series '%s' names '%s', which is missing", path,
			      line);
			free(p);
			for (size_t i = 0; i < n; i++)
				free(list[i]);
			free(list);
			free(text);
			free(dir);
			return -1;
		}
		list = xrealloc(list, (n + 1) * sizeof(*list));
		list[n++] = p;
	}
	free(text);
	free(dir);
	*out = list;
	*nr = n;
	return 0;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* Apply the base overlay (if any) and the series; fills r->points. */
static int make_points(struct run *r)
{
	char **base = NULL, **series = NULL, *base_series = NULL, *dir, *s;
	size_t nb = 0, ns = 0;
	git_oid head = r->tree->base, next;
	int ret = -1;

	dir = xstrdup(r->series);
	s = strrchr(dir, '/');
	if (s)
		*s = '\0';
	base_series = xstrfmt("%s/base/series", s ? dir : ".");
	if (!access(base_series, R_OK) && read_series(&base, &nb, base_series))
		goto out;
	if (read_series(&series, &ns, r->series))
		goto out;
	for (size_t i = 0; i < nb; i++) {
		struct patch_mail m;
		char *changed = NULL, *err = NULL;

		if (tree_apply_patch(&next, &changed, &err, r->tree, &head,
				     base[i], &m)) {
			const char *name = strrchr(base[i], '/');

			/*
			 * An expected outcome on a newer tree, recorded as a
			 * patch of the series that does not apply is: the run
			 * gets one unbuilt point, the import, and the reason.
			 */
			r->apply_failure = xstrfmt(
				"base overlay patch %zu '%s' does not apply to %s %s: %s",
				i + 1, name ? name + 1 : base[i], r->tree->name,
				r->tree->version ? r->tree->version : "",
				err ? err : "?");
			point_add(r, &r->tree->base, "campaign base", "kwarn",
				  0, NULL, NULL);
			r->points[r->nr_points - 1].commit_id = -2;
			free(err);
			patch_mail_release(&m);
			ret = 0;
			goto out;
		}
		free(changed);
		patch_mail_release(&m);
		head = next;
	}
	{
		char *changed = NULL;

		/* the base point: what the overlay changed is "touched" */
		if (nb && tree_commit_changes(&changed, r->tree, &head))
			goto out;
		if (!nb)
			changed = NULL;
		point_add(r, &head, nb ? "campaign base" : "base", "kwarn", 0,
			  NULL, changed);
	}
	if (nb > 0) {
		/* diff of the whole overlay against the import */
		git_commit *c = NULL, *b = NULL;
		git_tree *ct = NULL, *bt = NULL;
		git_diff *diff = NULL;

		if (!git_commit_lookup(&c, r->tree->repo, &head) &&
		    !git_commit_lookup(&b, r->tree->repo, &r->tree->base) &&
		    !git_commit_tree(&ct, c) && !git_commit_tree(&bt, b) &&
		    !git_diff_tree_to_tree(&diff, r->tree->repo, bt, ct,
					   NULL)) {
			json_t *o = json_object();

			for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
				const git_diff_delta *d =
					git_diff_get_delta(diff, i);

				json_object_set_new(o, d->new_file.path,
						    json_array());
			}
			free(r->points[0].changed);
			r->points[0].changed =
				json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
			json_decref(o);
		}
		git_diff_free(diff);
		git_tree_free(ct);
		git_tree_free(bt);
		git_commit_free(c);
		git_commit_free(b);
	}
	for (size_t i = 0; i < ns; i++) {
		struct patch_mail m;
		char *changed = NULL, *err = NULL;
		const char *name = strrchr(series[i], '/');

		name = name ? name + 1 : series[i];
		if (tree_apply_patch(&next, &changed, &err, r->tree, &head,
				     series[i], &m)) {
			r->apply_failure = xstrfmt("patch %zu '%s': %s", i + 1,
						   name, err ? err : "?");
			/* record the failing patch as a point without a build */
			point_add(r, &head, m.subject ? m.subject : name,
				  m.author_name, m.date, name, NULL);
			r->points[r->nr_points - 1].commit_id = -2;
			free(err);
			patch_mail_release(&m);
			break;
		}
		point_add(r, &next, m.subject, m.author_name, m.date, name,
			  changed);
		patch_mail_release(&m);
		head = next;
	}
	ret = 0;
out:
	free_list(base, nb);
	free_list(series, ns);
	free(base_series);
	free(dir);
	return ret;
}

static int make_points_range(struct run *r)
{
	git_oid *list = NULL;
	size_t n = 0;

	if (tree_range(&list, &n, r->tree, r->range))
		return -1;
	for (size_t i = 0; i < n; i++) {
		git_commit *c = NULL;
		char *changed = NULL;

		if (git_commit_lookup(&c, r->tree->repo, &list[i])) {
			free(list);
			return git_fail("cannot read commit");
		}
		if (i)
			tree_commit_changes(&changed, r->tree, &list[i]);
		point_add(r, &list[i], git_commit_summary(c),
			  git_commit_author(c)->name,
			  (long long)git_commit_time(c), NULL, changed);
		git_commit_free(c);
	}
	free(list);
	return 0;
}

/* The plain tree: one point, the import itself. */
static int make_points_plain(struct run *r)
{
	char *subject = xstrfmt("%s %s", r->tree->name,
				r->tree->version ? r->tree->version : "");

	point_add(r, &r->tree->base, subject, "kwarn", 0, NULL, NULL);
	free(subject);
	return 0;
}

/* Find a run with the same parameters to resume, or start one. */
static int open_run(struct run *r)
{
	struct run_info ri = { 0 };
	int rc;

	ri.tree_id = r->tree_id;
	ri.kind = r->kind;
	ri.series = r->series ? r->series : r->range;
	ri.config = r->config_name;
	ri.level = r->level;
	ri.params = r->params;
	ri.compiler = r->cc->tc->name;
	rc = store_open_run(&r->run_id, r->db, &ri, r->force);
	if (rc == 2) {
		fprintf(stderr, "kwarn: resuming run %lld\n", r->run_id);
		rc = 0;
	}
	return rc;
}

struct capture_ctx {
	struct build_writer *w;
	long long object_id;
	struct source_cache *src; /* the work tree, for clang's functions */
};

static void capture_emit(void *ctx, const struct diag *d)
{
	struct capture_ctx *c = ctx;

	source_emit(c->w, c->object_id, d, c->src);
}

/* Parse one capture file into W under object OBJECT_ID. */
static int parse_capture(struct run *r, struct build_writer *w,
			 long long object_id, const char *text, size_t len)
{
	struct capture_ctx c = { w, object_id, &r->src };
	struct parser *p = parse_new(capture_emit, &c);
	char *prefix = xstrfmt("%s/", r->tree->src);
	const char *body = memchr(text, '\n', len);

	parse_add_strip_prefix(p, prefix);
	/* one compiler's stderr: a note is the diagnostic's it follows */
	parse_set_single_stream(p);
	if (body) {
		body++;
		parse_feed(p, body, len - (size_t)(body - text));
	}
	parse_finish(p);
	bw_add_unparsed(w, parse_get_stats(p)->unparsed);
	parse_free(p);
	free(prefix);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the *.log files in DIR. */
static char **list_logs(const char *dir, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **list = NULL;
	size_t n = 0;

	*nr = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 4, ".log"))
			continue;
		list = xrealloc(list, (n + 1) * sizeof(*list));
		list[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), name_cmp);
	*nr = n;
	return list;
}

/* Is object OBJ part of the build: its .o and its source still exist? */
static int object_exists(struct run *r, const char *obj)
{
	char *o = xstrfmt("%s/%s", r->build_dir, obj);
	char *src = xstrfmt("%s/%s", r->tree->src, obj);
	int ok;

	src[strlen(src) - 1] = 'c';
	ok = !access(o, F_OK) && !access(src, F_OK);
	free(o);
	free(src);
	return ok;
}

/*
 * After a point is stored: its captures become the last capture of their
 * objects.  Until then they stay in capture/, so that a run killed between
 * make and the commit finds them again when it resumes this point.
 */
static void promote_captures(struct run *r)
{
	char *cap = xstrfmt("%s/capture", r->kdir);
	char *last = xstrfmt("%s/last", r->kdir);
	size_t n = 0;
	char **now = list_logs(cap, &n);

	for (size_t i = 0; i < n; i++) {
		char *from = xstrfmt("%s/%s", cap, now[i]);
		char *to = xstrfmt("%s/%s", last, now[i]);

		if (rename(from, to))
			warning("cannot keep capture '%s': %s", to,
				strerror(errno));
		free(from);
		free(to);
	}
	free_list(now, n);
	free(cap);
	free(last);
}

/*
 * Store the objects of this point: every capture of this point as
 * compiled (or failed), then the last capture of every other object as
 * carried, or the object as not built when it is gone.
 */
static int store_objects(struct run *r, struct build_writer *w)
{
	char *cap = xstrfmt("%s/capture", r->kdir);
	char *last = xstrfmt("%s/last", r->kdir);
	char **now = NULL, **all = NULL;
	size_t nn = 0, na = 0;
	int ret = -1;

	/* the work tree holds this point: read its files afresh */
	source_cache_release(&r->src);
	now = list_logs(cap, &nn);
	for (size_t i = 0; i < nn; i++) {
		char *from = xstrfmt("%s/%s", cap, now[i]);
		char *to = xstrfmt("%s/%s", last, now[i]);
		char *text = NULL, *obj = NULL;
		size_t len;
		long long id;
		int rc;

		if (util_read_file(&text, &len, from, 256 << 20) ||
		    capture_parse_header(&rc, &obj, text)) {
			warning("skipping unreadable capture '%s'", from);
		} else if (!bw_object(&id, w, obj,
				      rc ? "failed" : "compiled")) {
			parse_capture(r, w, id, text, len);
		}
		free(text);
		free(obj);
		free(from);
		free(to);
	}
	all = list_logs(last, &na);
	bw_set_carried(w, 1);
	for (size_t i = 0; i < na; i++) {
		char *path, *text = NULL, *obj = NULL;
		size_t len;
		long long id;
		int rc, fresh = 0;

		for (size_t j = 0; j < nn && !fresh; j++)
			fresh = !strcmp(now[j], all[i]);
		if (fresh)
			continue;
		path = xstrfmt("%s/%s", last, all[i]);
		if (util_read_file(&text, &len, path, 256 << 20) ||
		    capture_parse_header(&rc, &obj, text)) {
			free(text);
			free(path);
			continue;
		}
		if (!object_exists(r, obj)) {
			bw_object(&id, w, obj, "not_built");
		} else if (!bw_object(&id, w, obj, rc ? "failed" : "carried")) {
			parse_capture(r, w, id, text, len);
		}
		free(text);
		free(obj);
		free(path);
	}
	bw_set_carried(w, 0);
	ret = 0;
	free_list(now, nn);
	free_list(all, na);
	free(cap);
	free(last);
	return ret;
}

/*
 * The composite object each part of this build is linked into, from the
 * build directory's .mod files; a build that wrote none leaves them
 * unset, and an unreadable build directory (reported) does not fail the
 * point.
 */
static int store_composites(struct run *r, struct build_writer *w)
{
	struct kbuild_map kb;
	int ret;

	if (kbuild_map_load(&kb, r->build_dir))
		return 0;
	ret = bw_composites(w, &kb);
	kbuild_map_release(&kb);
	return ret;
}

/*
 * Give every fall-through warning of point K that has no verdict yet one,
 * from the source as the work tree holds it at this point.
 */
static int classify_point(struct run *r, size_t k)
{
	struct query_ids ids;
	int ret = -1;

	if (query_fallthrough_diags(&ids, r->db, -1, r->points[k].commit_id))
		return -1;
	if (db_begin(r->db))
		goto out;
	for (size_t i = 0; i < ids.nr; i++) {
		struct classify_result res;
		char *file = NULL, *path, *text = NULL;
		long warn = 0, here = 0;
		size_t len;

		if (query_fallthrough_site(&file, &warn, &here, r->db,
					   ids.diag[i])) {
			free(file);
			continue;
		}
		path = xstrfmt("%s/%s", r->tree->src, file);
		if (here > 0 && warn > 0 &&
		    !util_read_file(&text, &len, path, 64 << 20)) {
			classify_fallthrough(&res, text, len, warn, here);
			if (store_classification(r->db, ids.identity[i],
						 &res)) {
				free(text);
				free(path);
				free(file);
				db_rollback(r->db);
				goto out;
			}
		}
		free(text);
		free(path);
		free(file);
	}
	ret = db_commit(r->db);
out:
	query_ids_release(&ids);
	return ret;
}

/*
 * --full: make modules_install into B/.kwarn/modroot, emptied first so
 * that a module the point dropped is not booted, stripped of debug
 * information (a config with DEBUG_INFO would pack hundreds of MB), and
 * depmod'ed by the kernel's own scripts/depmod.sh.  *out gets
 * modroot/lib/modules, the directory the boot packs as /lib/modules.
 * Returns make's status (0 when installed), or -1 on errors (reported)
 * or when interrupted.
 */
static int install_modules(struct run *r, size_t k, const char *log, char **out)
{
	const char *argv[64];
	char *owned[MAKE_OWNED] = { NULL },
	     *root = xstrfmt("%s/modroot", r->kdir);
	char *root_arg = xstrfmt("INSTALL_MOD_PATH=%s", root);
	size_t n;
	int rc = -1;

	*out = NULL;
	if (util_is_dir(root) && util_rm_rf(root))
		goto out;
	n = make_argv(r, argv, ARRAY_SIZE(argv), owned);
	argv[n++] = "modules_install";
	argv[n++] = root_arg;
	argv[n++] = "INSTALL_MOD_STRIP=1";
	argv[n] = NULL;
	rc = run_make(r, k, argv, log);
	if (rc > 0) {
		warning("point %zu: make modules_install failed (status %d)", k,
			rc);
	} else if (!rc) {
		*out = xstrfmt("%s/lib/modules", root);
		if (!util_is_dir(*out)) {
			warning("point %zu: make modules_install left no '%s'",
				k, *out);
			free(*out);
			*out = NULL;
			rc = 1;
		}
	}
out:
	make_argv_release(owned);
	free(root);
	free(root_arg);
	return interrupted ? -1 : rc;
}

static int build_point(struct run *r, size_t k)
{
	struct point *p = &r->points[k];
	/*
	 * XXX: --targets past about 4,000 objects are left out of the make
	 * line (a whole build is the better tool at that size).
	 */
	const char *argv[4096];
	char *owned[MAKE_OWNED] = { NULL }, *log = NULL, *cap = NULL,
	     *image = NULL;
	char **stale = NULL, *tail = NULL, *targets = NULL, *save = NULL;
	char *pointfile = NULL, *was = NULL, *mods = NULL;
	struct build_info bi = { 0 };
	struct build_writer *w = NULL;
	struct boot_result boot;
	int64_t t0;
	size_t n, base, nstale = 0;
	int rc, rc2 = 0, rc3 = 0, ret = -1, booted = 0;
	long long build_id;

	memset(&boot, 0, sizeof(boot));
	cap = xstrfmt("%s/capture", r->kdir);
	/*
	 * Captures left by an interrupted attempt at this same commit are
	 * this point's (make will not compile those objects again); any
	 * others are stale.
	 */
	pointfile = xstrfmt("%s/.point", cap);
	if (access(pointfile, R_OK) ||
	    util_read_file(&was, NULL, pointfile, 4096) ||
	    strcmp(was, p->sha)) {
		stale = list_logs(cap, &nstale);
		for (size_t i = 0; i < nstale; i++) {
			char *f = xstrfmt("%s/%s", cap, stale[i]);

			unlink(f);
			free(f);
		}
		free_list(stale, nstale);
		if (util_write_file(pointfile, p->sha, strlen(p->sha)))
			goto out;
	}
	log = xstrfmt("%s/make-%zu.log", r->kdir, k);
	unlink(log);
	r->point_started = util_now_ms();
	r->expected = objects_expected(r);
	setenv("KWARN_CAPTURE_DIR", cap, 1);
	t0 = util_now_ms();
	n = base = make_argv(r, argv, ARRAY_SIZE(argv), owned);
	if (r->targets) {
		/* only these objects (comma-separated), no kernel image */
		targets = xstrdup(r->targets);
		for (char *t = strtok_r(targets, ",", &save);
		     t && n + 1 < ARRAY_SIZE(argv);
		     t = strtok_r(NULL, ",", &save))
			argv[n++] = t;
	} else {
		argv[n++] = "bzImage";
		if (r->full)
			argv[n++] = "modules";
	}
	argv[n] = NULL;
	rc = run_make(r, k, argv, log);
	if (rc >= 0 && !interrupted && r->nr_objects && !r->targets) {
		/* the series' objects, one by one, whatever the config says */
		n = base;
		argv[n++] = "-k";
		for (size_t i = 0;
		     i < r->nr_objects && n + 2 < ARRAY_SIZE(argv); i++) {
			char *src =
				xstrfmt("%s/%s", r->tree->src, r->objects[i]);
			char *c = src + strlen(src) - 1;

			*c = 'c';
			if (!access(src, R_OK))
				argv[n++] = r->objects[i];
			free(src);
		}
		argv[n] = NULL;
		if (n > base + 1)
			rc2 = run_make(r, k, argv, log);
	}
	if (!rc && !interrupted && r->full && !r->targets) {
		/* the same command line as the build: nothing recompiles */
		progress(r, k, "installing modules");
		rc3 = install_modules(r, k, log, &mods);
	}
	unsetenv("KWARN_CAPTURE_DIR");
	if (interrupted || rc < 0 || rc3 < 0)
		goto out;
	bi.wall_ms = util_now_ms() - t0;
	bi.config_name = r->config_name;
	bi.config_hash = r->config_hash;
	bi.compiler = r->compiler;
	bi.flags = r->flags;
	bi.level = r->level;
	bi.status = rc || rc2 || rc3 ? "failed" : "ok";
	if (rc || rc2 || rc3)
		bi.log_tail = tail = file_tail(log, 30);
	image = xstrfmt("%s/arch/x86/boot/bzImage", r->build_dir);
	if (!rc && !access(image, R_OK))
		bi.image = image;
	if (r->boot && bi.image) {
		struct boot_opts bo = { 0 };

		progress(r, k, "booting");
		bo.kernel = image;
		bo.modules_dir = mods; /* NULL unless --full installed them */
		bo.silence_ms = r->silence_s * 1000;
		bo.total_ms = r->timeout_s * 1000;
		booted = !boot_run(&boot, &bo);
	}
	if (bw_begin(&w, r->db, p->commit_id, &bi))
		goto out;
	if (store_objects(r, w) || store_composites(r, w))
		goto out_abort;
	for (size_t i = 0; booted && i < boot.nr_warnings; i++)
		bw_diag(w, -2, &boot.warnings[i]);
	if (booted && store_boot(NULL, r->db, bw_build_id(w), &boot))
		goto out_abort;
	if (bw_finish(&build_id, w))
		goto out;
	w = NULL;
	promote_captures(r);
	objects_count_save(r);
	if (classify_point(r, k))
		warning("point %zu: cannot classify its fall-throughs", k);
	if (rc || rc2 || rc3)
		warning("point %zu (%s) did not build: see '%s'", k, p->subject,
			log);
	ret = 0;
	goto out;
out_abort:
	bw_abort(w);
out:
	if (booted)
		boot_result_release(&boot);
	make_argv_release(owned);
	free(log);
	free(cap);
	free(image);
	free(tail);
	free(targets);
	free(pointfile);
	free(was);
	free(mods);
	return ret;
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
	    util_read_file(&text, NULL, out, 1 << 16)) {
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

char *run_compiler_version(void)
{
	return compiler_version("gcc");
}

static int version_cmp_desc(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	long xv[3] = { 0, 0, 0 }, yv[3] = { 0, 0, 0 };

	sscanf(strrchr(x, '/') + 1, "linux-source-%ld.%ld.%ld", &xv[0], &xv[1],
	       &xv[2]);
	sscanf(strrchr(y, '/') + 1, "linux-source-%ld.%ld.%ld", &yv[0], &yv[1],
	       &yv[2]);
	for (int i = 0; i < 3; i++)
		if (xv[i] != yv[i])
			return xv[i] > yv[i] ? -1 : 1;
	return strcmp(x, y);
}

/*
 * The candidate trees for a series: /usr/src/linux-source-*.tar.*, the
 * one the series names with "# kwarn-tree: NAME" first, then newest
 * first.  Returns how many are in the new list *out.
 */
static size_t default_trees(char ***out, const char *series)
{
	char *text = NULL, *want = NULL, **list = NULL;
	DIR *d = opendir("/usr/src");
	struct dirent *de;
	size_t n = 0;

	if (series && !util_read_file(&text, NULL, series, 1 << 20)) {
		char *p = strstr(text, "# kwarn-tree:");

		if (p) {
			p += 13;
			while (*p == ' ')
				p++;
			want = xstrndup(p, strcspn(p, " \n"));
		}
		free(text);
	}
	while (d && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "linux-source-", 13) ||
		    !strstr(de->d_name, ".tar."))
			continue;
		list = xrealloc(list, (n + 1) * sizeof(*list));
		list[n++] = xstrfmt("/usr/src/%s", de->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), version_cmp_desc);
	for (size_t i = 0; want && i < n; i++) {
		const char *base = strrchr(list[i], '/') + 1;

		if (!strncmp(base, want, strlen(want)) &&
		    base[strlen(want)] == '.') {
			char *w = list[i];

			memmove(&list[1], &list[0], i * sizeof(*list));
			list[0] = w;
			break;
		}
	}
	free(want);
	*out = list;
	return n;
}

/* Forget the tree and the points, to try another tree. */
static void run_reset_tree(struct run *r)
{
	for (size_t i = 0; i < r->nr_points; i++) {
		free(r->points[i].subject);
		free(r->points[i].author);
		free(r->points[i].patch);
		free(r->points[i].changed);
	}
	free(r->points);
	r->points = NULL;
	r->nr_points = 0;
	free(r->apply_failure);
	r->apply_failure = NULL;
	tree_free(r->tree);
	r->tree = NULL;
}

static int store_points(struct run *r)
{
	for (size_t i = 0; i < r->nr_points; i++) {
		struct point *p = &r->points[i];
		struct commit_info c = { 0 };
		int failed = p->commit_id == -2;

		c.run_id = r->run_id;
		c.position = (long)i;
		c.sha = p->sha;
		c.parent = i ? r->points[i - 1].sha : NULL;
		c.subject = p->subject;
		c.author = p->author;
		c.date = p->date ? p->date : -1;
		c.patch = p->patch;
		c.apply_status = failed ? "failed" : !i ? "base" : "applied";
		c.apply_error = failed ? r->apply_failure : NULL;
		c.changed = p->changed;
		if (store_commit(&p->commit_id, r->db, &c))
			return -1;
		if (failed)
			p->commit_id = -2;
	}
	return 0;
}

static char *make_params(struct run *r)
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

		if (!util_read_file(&text, NULL, r->frags[i], 1 << 20))
			util_sha256_hex(sha, text, strlen(text));
		json_array_append_new(frags, json_string(text ? sha : "?"));
		free(text);
	}
	json_object_set_new(o, "config_base",
			    json_string(r->config_base_label));
	json_object_set_new(o, "fragments", frags);
	json_object_set_new(o, "level", json_integer(r->level));
	json_object_set_new(o, "compiler", json_string(r->compiler));
	/*
	 * Only what differs from a plain run is added: a run without --cc
	 * and --warnings keeps the parameters (and the results) it had.
	 */
	if (r->cc->tc != toolchain_default())
		json_object_set_new(o, "cc", json_string(r->cc->tc->name));
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
 * Name the points of this run whose build failed; their number into *out.
 * Returns 0 or -1.
 */
static int failed_points(long *out, struct run *r)
{
	json_t *failed = NULL, *e;
	size_t i;

	if (query_failed_points(&failed, r->db, r->run_id))
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

static void run_usage(void)
{
	fprintf(stderr,
		"usage: kwarn run --db FILE [--tree TARBALL|DIR | --repo PATH"
		" --range BASE..TIP]\n"
		"                 [--series FILE] [--config FRAG]..."
		" [--config-base BASE|FILE]\n"
		"                 [--level N] [-j N] [--full] [--no-boot]"
		" [--cc-launcher L]\n"
		"                 [--fail-on-new] [--force] [--boot-timeout S]"
		" [--boot-silence S]\n"
		"                 [--targets OBJ,OBJ...] [--cc NAME]..."
		" [--warnings W=N,-Wflag...]\n");
}

static int finish_run(struct run *r, const char *status, const char *msg)
{
	return store_finish_run(r->db, r->run_id, status, msg);
}

/* Make compiler C the one R builds and stores for. */
static void run_use(struct run *r, struct run_cc *c)
{
	r->cc = c;
	r->run_id = c->run_id;
	r->build_dir = c->build_dir;
	r->kdir = c->kdir;
	r->config_hash = c->config_hash;
	r->compiler = c->compiler;
	r->flags = c->flags;
	r->params = c->params;
	/* clang prints no "In function": found in the work tree */
	r->src.dir = c->tc->clang ? r->tree->src : NULL;
	for (size_t k = 0; c->commit_ids && k < r->nr_points; k++)
		r->points[k].commit_id = c->commit_ids[k];
}

/*
 * Compiler C's build directory, one per tree, config and compiler (made
 * and locked), and the flags its builds record.  Returns 0 or -1.
 */
static int cc_prepare(struct run *r, struct run_cc *c)
{
	struct strbuf key = STRBUF_INIT;
	char cfg_key[65], *cap, *last, *lock;
	char *kcflags;
	int bad, rc;

	run_use(r, c);
	/*
	 * The key of a plain gcc build is the config name, as it always
	 * was: the builds in the cache stay valid.  A launcher, targets,
	 * another compiler or extra warnings change every command line:
	 * each its own directory.
	 */
	strbuf_addstr(&key, r->config_name);
	if (r->launcher || r->targets)
		strbuf_addf(&key, "|%s|%s", r->launcher ? r->launcher : "",
			    r->targets ? "targets" : "");
	if (c->tc != toolchain_default())
		strbuf_addf(&key, "|cc=%s", c->tc->name);
	if (r->ws.spec)
		strbuf_addf(&key, "|warnings=%s", r->ws.spec);
	util_sha256_hex(cfg_key, key.buf, key.len);
	strbuf_release(&key);
	c->build_dir = xstrfmt("%s/builds/%s-%.12s", util_cache_dir(),
			       strrchr(r->tree->dir, '/') + 1, cfg_key);
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
	run_use(r, c);
	kcflags = run_kcflags(r);
	c->flags = xstrfmt("%s%s%s%s%s%s%s", kcflags, c->tc->llvm ? " " : "",
			   c->tc->llvm ? c->tc->llvm : "", r->ws.w ? " " : "",
			   r->ws.w ? r->ws.w : "",
			   r->launcher ? " launcher=" : "",
			   r->launcher ? r->launcher : "");
	free(kcflags);
	run_use(r, c);
	return 0;
}

static void run_release(struct run *r)
{
	for (size_t i = 0; i < r->nr_ccs; i++) {
		struct run_cc *c = &r->ccs[i];

		if (c->lockfd >= 0)
			close(c->lockfd);
		free(c->commit_ids);
		free(c->build_dir);
		free(c->kdir);
		free(c->config_hash);
		free(c->compiler);
		free(c->flags);
		free(c->params);
	}
	free(r->ccs);
	source_cache_release(&r->src);
	run_reset_tree(r);
	free_list(r->objects, r->nr_objects);
	free(r->config_name);
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
	r->nr_ccs = r->nr_cc_names ? r->nr_cc_names : 1;
	r->ccs = xcalloc(r->nr_ccs, sizeof(*r->ccs));
	for (size_t i = 0; i < r->nr_ccs; i++) {
		r->ccs[i].lockfd = -1;
		r->ccs[i].run_id = -1;
		if (!r->nr_cc_names)
			r->ccs[i].tc = toolchain_default();
		else if (toolchain_find(&r->ccs[i].tc, r->cc_names[i]))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (r->ccs[j].tc == r->ccs[i].tc)
				return error("--cc %s is given twice",
					     r->ccs[i].tc->name);
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
 * Do the run R describes (options filled in, nothing else).  Returns 0,
 * 1 when the series stopped at a patch that does not apply or
 * --fail-on-new found something, 2 on errors, 130 when interrupted.
 */
static int run_execute(struct run r_in, long long *run_id_out)
{
	struct run r = r_in;
	struct tree_info ti = { 0 };
	char *default_series = NULL, *default_frags[2] = { NULL };
	char *maint = NULL, *maint_path = NULL, **cands = NULL;
	size_t ncands = 0, nmeasured = 0;
	int ret = 2, rc;

	if (run_resolve(&r)) {
		run_release(&r);
		return 2;
	}
	if (r.launcher && launcher_check(r.launcher, r.level)) {
		run_release(&r);
		return 2;
	}
	if (!util_in_path("make")) {
		error("make is not installed (run scripts/install-deps)");
		run_release(&r);
		return 2;
	}
	r.tty = isatty(2);
	r.started = util_now_ms();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!r.repo && !r.series && !r.no_series) {
		default_series = run_data_path("kernel/series");
		r.series = default_series;
		if (!r.nr_frags) {
			default_frags[0] =
				run_data_path("kernel/configs/qemu.config");
			default_frags[1] =
				run_data_path("kernel/configs/campaign.config");
			r.frags[r.nr_frags++] = default_frags[0];
			r.frags[r.nr_frags++] = default_frags[1];
		}
	}
	if (r.series && access(r.series, R_OK)) {
		error("cannot read series '%s': %s", r.series, strerror(errno));
		goto out;
	}
	if (!r.repo && !r.tree_spec) {
		ncands = default_trees(&cands, r.series);
		if (!ncands) {
			error("no /usr/src/linux-source-*.tar.xz: install linux-source-6.1 or pass --tree");
			goto out;
		}
	}
	if (db_open(&r.db, r.dbpath, DB_READ_WRITE))
		goto out;
	for (size_t ci = 0;; ci++) {
		int more = ci + 1 < ncands, bad;

		if (cands)
			r.tree_spec = cands[ci];
		if (r.cached_sha256)
			fprintf(stderr,
				"kwarn: opening %s (%.12s) from the cache\n",
				r.cached_name, r.cached_sha256);
		else
			fprintf(stderr, "kwarn: importing %s\n",
				r.repo ? r.repo : r.tree_spec);
		if (r.repo ? tree_open_repo(&r.tree, r.repo) :
		    r.cached_sha256 ?
			     tree_open_cached(&r.tree, r.cached_name,
					      r.tree_spec, r.cached_sha256) :
			     tree_import(&r.tree, r.tree_spec))
			goto out;
		bad = r.repo	  ? make_points_range(&r) :
		      r.no_series ? make_points_plain(&r) :
				    make_points(&r);
		/* the default tree is the newest the series applies to */
		if (more && (bad || (r.apply_failure && r.nr_points <= 2))) {
			fprintf(stderr,
				"kwarn: the series does not apply to %s, trying %s\n",
				r.tree_spec, cands[ci + 1]);
			run_reset_tree(&r);
			continue;
		}
		if (bad)
			goto out;
		break;
	}
	if (r.nr_points == 0 ||
	    (r.points[0].commit_id == -2 && !r.apply_failure)) {
		error("nothing to build");
		goto out;
	}
	collect_objects(&r);

	maint_path = xstrfmt("%s/MAINTAINERS", r.tree->src);
	if (!access(maint_path, R_OK))
		util_read_file(&maint, NULL, maint_path, 64 << 20);
	ti.name = r.tree->name;
	ti.version = r.tree->version;
	ti.kind = r.tree->kind;
	ti.source = r.tree->source;
	ti.sha256 = r.tree->sha256;
	ti.pkg_version = r.pkg_version;
	ti.maintainers = maint;
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, r.config_base_label);
		for (size_t i = 0; i < r.nr_frags; i++) {
			const char *b = strrchr(r.frags[i], '/');

			strbuf_addf(&sb, "+%s", b ? b + 1 : r.frags[i]);
		}
		r.config_name = strbuf_detach(&sb, NULL);
	}
	/* every compiler's run, resumed or new, in one transaction */
	if (db_begin(r.db))
		goto out;
	if (store_tree(&r.tree_id, r.db, &ti)) {
		db_rollback(r.db);
		goto out;
	}
	for (size_t i = 0; i < r.nr_ccs; i++) {
		struct run_cc *c = &r.ccs[i];

		c->compiler = compiler_version(c->tc->cc);
		run_use(&r, c);
		c->params = make_params(&r);
		run_use(&r, c);
		if ((rc = open_run(&r)) < 0) {
			db_rollback(r.db);
			goto out;
		}
		c->run_id = r.run_id;
		c->measured = rc == 1;
		if (!c->measured && store_points(&r)) {
			db_rollback(r.db);
			goto out;
		}
		c->commit_ids = xcalloc(r.nr_points, sizeof(*c->commit_ids));
		for (size_t k = 0; k < r.nr_points; k++)
			c->commit_ids[k] = r.points[k].commit_id;
		nmeasured += c->measured;
	}
	if (r.nr_ccs > 1) {
		long long ids[ARRAY_SIZE(r.cc_names)];

		for (size_t i = 0; i < r.nr_ccs; i++)
			ids[i] = r.ccs[i].run_id;
		if (store_group_runs(r.db, ids, r.nr_ccs)) {
			db_rollback(r.db);
			goto out;
		}
	}
	if (db_commit(r.db)) {
		db_rollback(r.db);
		goto out;
	}
	if (run_id_out)
		*run_id_out = r.ccs[0].run_id;
	if (nmeasured == r.nr_ccs) {
		if (r.measured_before)
			*r.measured_before = 1;
		for (size_t i = 0; i < r.nr_ccs; i++)
			/* to stderr under kwarn nightly: its stdout is the report */
			fprintf(r.out ? r.out : stdout,
				"run %lld: already measured (use --force to measure again)\n",
				r.ccs[i].run_id);
		ret = 0;
		goto report;
	}
	if (r.points[0].commit_id == -2) {
		/* the base overlay did not apply: nothing to build */
		error("series stopped: %s", r.apply_failure);
		for (size_t i = 0; i < r.nr_ccs; i++) {
			run_use(&r, &r.ccs[i]);
			if (!r.cc->measured)
				finish_run(&r, "failed", r.apply_failure);
		}
		ret = 1;
		goto report;
	}
	r.cc_path = cc_install();
	if (!r.cc_path)
		goto fail;
	for (size_t i = 0; i < r.nr_ccs; i++) {
		if (r.ccs[i].measured)
			continue;
		if (cc_prepare(&r, &r.ccs[i]))
			goto fail;
	}
	progress(&r, 0, "configuring");
	if (tree_checkout(r.tree, &r.points[0].oid))
		goto fail;
	for (size_t i = 0; i < r.nr_ccs; i++) {
		run_use(&r, &r.ccs[i]);
		if (!r.cc->measured && configure(&r))
			goto fail;
	}
	for (size_t k = 0; k < r.nr_points; k++) {
		int checked_out = 0;

		if (r.points[k].commit_id == -2)
			break;
		for (size_t i = 0; i < r.nr_ccs; i++) {
			long long built = -1;

			run_use(&r, &r.ccs[i]);
			if (r.cc->measured)
				continue;
			/* a resumed run: this point has its build */
			if (query_commit_build(&built, r.db,
					       r.points[k].commit_id))
				goto fail;
			if (built >= 0)
				continue;
			/* one checkout serves every compiler of the point */
			if (!checked_out) {
				progress(&r, k, "checking out");
				if (tree_checkout(r.tree, &r.points[k].oid))
					goto fail;
				checked_out = 1;
			}
			if (build_point(&r, k)) {
				if (interrupted)
					error("interrupted at point %zu: run again to resume",
					      k);
				goto fail;
			}
		}
	}
	if (r.tty)
		fputc('\n', stderr);
	if (r.apply_failure) {
		error("series stopped: %s", r.apply_failure);
		for (size_t i = 0; i < r.nr_ccs; i++) {
			run_use(&r, &r.ccs[i]);
			if (!r.cc->measured)
				finish_run(&r, "failed", r.apply_failure);
		}
		ret = 1;
	} else {
		long nfailed = 0, n;

		for (size_t i = 0; i < r.nr_ccs; i++) {
			run_use(&r, &r.ccs[i]);
			if (r.cc->measured)
				continue;
			finish_run(&r, "done", NULL);
			if (failed_points(&n, &r))
				goto out;
			nfailed += n;
		}
		ret = nfailed ? 1 : 0;
	}
report:
	for (size_t i = 0; i < r.nr_ccs; i++) {
		long long id = r.ccs[i].run_id;
		int rep;

		if (r.nr_ccs > 1)
			fprintf(r.out ? r.out : stdout,
				"compiler %s: run %lld\n", r.ccs[i].tc->name,
				id);
		rep = report_print_run(r.out ? r.out : stdout, r.db, id,
				       "summary");
		if (r.fail_on_new && report_tip_has_new(r.db, id) > 0)
			ret = 1;
		if (rep)
			ret = ret ? ret : 2;
	}
	goto out;
fail:
	if (r.tty)
		fputc('\n', stderr);
	for (size_t i = 0; i < r.nr_ccs; i++) {
		run_use(&r, &r.ccs[i]);
		if (!r.cc->measured && r.run_id >= 0)
			finish_run(&r, "stopped",
				   interrupted ? "interrupted" : "error");
	}
	ret = interrupted ? 130 : 2;
out:
	free(default_series);
	free(default_frags[0]);
	free(default_frags[1]);
	for (size_t i = 0; i < ncands; i++)
		free(cands[i]);
	free(cands);
	free(maint);
	free(maint_path);
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
	r.silence_s = 30;
	r.timeout_s = 120;
	r.out = stderr;
	return run_execute(r, run_id_out);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "tree", required_argument, NULL, 't' },
		{ "repo", required_argument, NULL, 'R' },
		{ "range", required_argument, NULL, 'r' },
		{ "series", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "config-base", required_argument, NULL, 'B' },
		{ "level", required_argument, NULL, 'l' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "full", no_argument, NULL, 'F' },
		{ "no-boot", no_argument, NULL, 'N' },
		{ "cc-launcher", required_argument, NULL, 'L' },
		{ "fail-on-new", no_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'X' },
		{ "boot-timeout", required_argument, NULL, 'T' },
		{ "boot-silence", required_argument, NULL, 'S' },
		{ "targets", required_argument, NULL, 'O' },
		{ "cc", required_argument, NULL, 'C' },
		{ "warnings", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct run r = { 0 };
	char *abs_frags[ARRAY_SIZE(r.frags)] = { NULL }, *base_path = NULL;
	int c, ret;
	long v;

	r.level = 3;
	r.jobs = 0; /* 0: from the launcher's hosts, else 2 */
	r.boot = 1;
	r.config_base = "tinyconfig";
	/* 0: boot.c's limits, longer when --full boots with modules */
	r.silence_s = 0;
	r.timeout_s = 0;
	while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			r.dbpath = optarg;
			break;
		case 't':
			r.tree_spec = optarg;
			break;
		case 'R':
			r.repo = optarg;
			break;
		case 'r':
			r.range = optarg;
			break;
		case 's':
			r.series = optarg;
			break;
		case 'c':
			if (r.nr_frags == ARRAY_SIZE(r.frags)) {
				error("too many --config fragments");
				return 2;
			}
			if (access(optarg, R_OK)) {
				error("cannot read config fragment '%s': %s",
				      optarg, strerror(errno));
				return 2;
			}
			/* absolute: merge_config.sh runs in the tree */
			abs_frags[r.nr_frags] = realpath(optarg, NULL);
			r.frags[r.nr_frags] = abs_frags[r.nr_frags];
			r.nr_frags++;
			break;
		case 'B':
			if (config_base_set(&r, &base_path, optarg))
				return 2;
			break;
		case 'C':
			if (r.nr_cc_names == ARRAY_SIZE(r.cc_names)) {
				error("too many --cc compilers");
				return 2;
			}
			r.cc_names[r.nr_cc_names++] = optarg;
			break;
		case 'W':
			r.warnings = optarg;
			break;
		case 'l':
			if (util_parse_long(&v, optarg, 1, 5)) {
				error("--level must be 1 to 5, not '%s'",
				      optarg);
				return 2;
			}
			r.level = (int)v;
			break;
		case 'j':
			if (util_parse_long(&v, optarg, 1, 256)) {
				error("-j must be 1 to 256, not '%s'", optarg);
				return 2;
			}
			r.jobs = (int)v;
			break;
		case 'F':
			r.full = 1;
			break;
		case 'N':
			r.boot = 0;
			break;
		case 'L':
			r.launcher = optarg;
			break;
		case 'f':
			r.fail_on_new = 1;
			break;
		case 'X':
			r.force = 1;
			break;
		case 'O':
			r.targets = optarg;
			r.boot = 0;
			break;
		case 'T':
			if (util_parse_long(&v, optarg, 1, 3600)) {
				error("--boot-timeout must be 1 to 3600 seconds");
				return 2;
			}
			r.timeout_s = (int)v;
			break;
		case 'S':
			if (util_parse_long(&v, optarg, 1, 3600)) {
				error("--boot-silence must be 1 to 3600 seconds");
				return 2;
			}
			r.silence_s = (int)v;
			break;
		default:
			run_usage();
			return 2;
		}
	}
	if (!r.dbpath || optind != argc || (r.repo && !r.range) ||
	    (r.range && !r.repo) || (r.repo && r.tree_spec)) {
		run_usage();
		return 2;
	}
	if (!r.jobs) {
		int hosts = r.launcher ? launcher_jobs(r.launcher) : 0;

		r.jobs = hosts > 0 ? hosts : 2;
	}
	r.kind = "series";
	ret = run_execute(r, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(abs_frags); i++)
		free(abs_frags[i]);
	free(base_path);
	return ret;
}
