// SPDX-License-Identifier: MIT
/*
 * kwarn run, one point's build: the .config, make with CC="kwarn-cc gcc"
 * (and modules with --full), the single objects the series touches, the
 * captures parsed and stored with the boot in one transaction, and the
 * classifier's verdicts on the point's fall-throughs.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "capture.h"
#include "classify.h"
#include "db.h"
#include "kbuild.h"
#include "arch.h"
#include "kwarn.h"
#include "query.h"
#include "run.h"
#include "store.h"
#include "tree.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

static size_t count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		/* a compiler's capture, not a checker's (x.o.sparse.log) */
		n += de->d_name[0] != '.' && l > 6 &&
		     (!strcmp(de->d_name + l - 6, ".o.log") ||
		      !strcmp(de->d_name + l - 6, ".o.tmp"));
	}
	closedir(d);
	return n;
}

/*
 * Where the object count of the last build of this tree and config is
 * kept (any compiler: their object lists are the config's), a new string.
 */
static char *objects_count_path(struct run *r, struct cell *c)
{
	char key[65];

	util_sha256_hex(key, c->config_name, strlen(c->config_name));
	return xstrfmt("%s/builds/%s-%.12s.objects", util_cache_dir(),
		       strrchr(r->tree->work, '/') + 1, key);
}

/* Remember how many objects this build directory has captured. */
static void objects_count_save(struct run *r, struct cell *c)
{
	char *last = xstrfmt("%s/last", c->kdir), *path, *n;
	size_t count = count_dir(last);

	free(last);
	if (!count || r->targets)
		return;
	path = objects_count_path(r, c);
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
static size_t objects_expected(struct run *r, struct cell *c)
{
	char *last = xstrfmt("%s/last", c->kdir), *path, *text = NULL;
	size_t had = count_dir(last);
	long v = 0;

	free(last);
	if (had || r->targets)
		return 0;
	path = objects_count_path(r, c);
	if (!access(path, R_OK) &&
	    !util_read_file(&text, NULL, path, CAP_NUMBER_FILE)) {
		text[strcspn(text, "\n")] = '\0';
		if (util_parse_long(&v, text, 0, 1L << 30))
			v = 0;
	}
	free(text);
	free(path);
	return (size_t)v;
}

void progress(struct run *r, struct cell *c, size_t k, const char *what)
{
	int64_t el = (util_now_ms() - r->started) / 1000;
	int64_t pel = (util_now_ms() - r->point_started) / 1000;
	struct strbuf sb = STRBUF_INIT;
	size_t objs = 0;
	long eta = -1;
	int building;

	if (c) {
		char *cap = xstrfmt("%s/capture", c->kdir);

		objs = count_dir(cap);
		free(cap);
	}
	ccache_count_update(&r->cache);
	strbuf_addf(&sb, "%s", what);
	if (r->nr_cells > 1 && c)
		strbuf_addf(&sb, " (%s)", c->tc->name);
	building = !strcmp(what, "building") || !strcmp(what, "built");
	if (!strcmp(what, "building") && r->expected && objs &&
	    objs <= r->expected) {
		eta = (long)(pel * (int64_t)(r->expected - objs) /
			     (int64_t)objs);
		strbuf_addf(&sb, ": %zu/%zu objects", objs, r->expected);
		if (r->cached)
			strbuf_addf(&sb, " (%lld from the cache)",
				    r->cache.hits);
		strbuf_addf(&sb, ", about %ld min left", (eta + 59) / 60);
	} else if (building && objs) {
		strbuf_addf(&sb, ": %zu objects", objs);
		if (r->cached && r->cache.remote_hits)
			strbuf_addf(&sb, " (%lld from the cache, %lld remote)",
				    r->cache.hits, r->cache.remote_hits);
		else if (r->cached)
			strbuf_addf(&sb, " (%lld from the cache)",
				    r->cache.hits);
	}
	if (r->tty)
		fprintf(stderr, "\r\033[K[%zu/%zu] %.40s: %s, %lds elapsed",
			k + 1, r->nr_points, r->points[k].subject, sb.buf,
			(long)el);
	else
		fprintf(stderr, "kwarn: [%zu/%zu] %s: %s (%lds)\n", k + 1,
			r->nr_points, r->points[k].subject, sb.buf, (long)el);
	/* the same, for /api/runs/{id} while the run goes on */
	if (r->db && c && c->run_id >= 0) {
		json_t *o = json_object();
		char *text;

		json_object_set_new(o, "point", json_integer((json_int_t)k));
		json_object_set_new(o, "points",
				    json_integer((json_int_t)r->nr_points));
		json_object_set_new(o, "compiler", json_string(c->tc->name));
		json_object_set_new(o, "stage", json_string(what));
		json_object_set_new(o, "objects",
				    json_integer((json_int_t)objs));
		json_object_set_new(
			o, "expected",
			r->expected ? json_integer((json_int_t)r->expected) :
				      json_null());
		json_object_set_new(o, "eta_s",
				    eta >= 0 ? json_integer(eta) : json_null());
		json_object_set_new(o, "cache_hits",
				    r->cached ? json_integer(r->cache.hits) :
						json_null());
		text = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		store_run_progress(r->db, c->run_id, text);
		free(text);
	}
	strbuf_release(&sb);
}

/* Run make with ARGV; while it runs, show progress for point K. */
static int run_make(struct run *r, struct cell *c, size_t k,
		    const char *const *argv, const char *log)
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
			progress(r, c, k, "building");
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

	if (util_read_file(&buf, &len, path, CAP_CAPTURE_FILE))
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
char *run_kcflags(struct run *r, struct cell *c)
{
	char *ft = toolchain_fallthrough_flag(c->tc, r->level);
	char *s = xstrfmt("KCFLAGS=%s%s%s", ft, r->ws.kcflags ? " " : "",
			  r->ws.kcflags ? r->ws.kcflags : "");

	free(ft);
	return s;
}

/* make -C SRC O=B ... the common part of every make command line. */
static size_t make_argv(struct run *r, struct cell *c, const char **argv,
			size_t max, char **owned)
{
	size_t n = 0;
	char *cc;

	argv[n++] = "make";
	argv[n++] = "-C";
	argv[n++] = r->tree->src;
	argv[n++] = owned[0] = xstrfmt("O=%s", c->build_dir);
	argv[n++] = owned[1] = xstrfmt("-j%d", r->jobs);
	cc = toolchain_cc(c->tc, c->arch);
	argv[n++] = owned[2] = xstrfmt("CC=%s %s%s%s", r->cc_path,
				       r->launcher ? r->launcher : "",
				       r->launcher ? " " : "", cc);
	free(cc);
	argv[n++] = owned[3] = run_kcflags(r, c);
	/*
	 * The level is ours (KCFLAGS comes last and wins), so the tree's
	 * own Kconfig level only changes every command line: a series that
	 * moves it (the campaign's Makefile commit, its last patch) would
	 * rebuild the whole kernel for identical warnings.
	 */
	argv[n++] = "CONFIG_CC_IMPLICIT_FALLTHROUGH=";
	/* kbuild's LLVM=: clang, lld and the llvm tools, host tools too */
	if (c->tc->llvm)
		argv[n++] = c->tc->llvm;
	/* x86_64 is the host: no ARCH=, its command lines stay as they were */
	if (c->arch->kbuild)
		argv[n++] = owned[4] = xstrfmt("ARCH=%s", c->arch->kbuild);
	if (c->arch->cross && !c->tc->clang)
		argv[n++] = owned[5] =
			xstrfmt("CROSS_COMPILE=%s", c->arch->cross);
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

int configure(struct run *r, struct cell *c)
{
	const char *argv[64];
	char *owned[MAKE_OWNED] = { NULL },
	     *cfg = xstrfmt("%s/.config", c->build_dir);
	char *log = xstrfmt("%s/config.log", c->kdir), *stamp = NULL;
	char *merge =
		xstrfmt("%s/scripts/kconfig/merge_config.sh", r->tree->src);
	char *text = NULL, hash[65], *want = NULL;
	size_t n;
	int ret = -1, rc;

	stamp = xstrfmt("%s/config.stamp", c->kdir);
	/* the fragments' text decides the config: configure once per set */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, r->config_base_label);
		for (size_t i = 0; i < r->nr_frags; i++) {
			char *f = NULL;

			if (util_read_file(&f, NULL, c->frags[i],
					   CAP_SMALL_FILE))
				goto out;
			strbuf_addf(&sb, "\n#%s\n%s", c->frags[i], f);
			free(f);
		}
		want = strbuf_detach(&sb, NULL);
	}
	if (!access(cfg, R_OK) &&
	    !util_read_file(&text, NULL, stamp, CAP_SMALL_FILE) &&
	    !strcmp(text, want)) {
		ret = 0;
		goto hash;
	}
	unlink(log);
	n = make_argv(r, c, argv, ARRAY_SIZE(argv), owned);
	if (r->config_base_path) {
		/* a full .config: brought up to this tree by olddefconfig */
		char *base = NULL;
		size_t blen = 0;

		if (util_read_file(&base, &blen, r->config_base_path,
				   CAP_TREE_FILE) ||
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
		char *out = xstrfmt("%s/merge.log", c->kdir);

		margv[m++] = merge;
		margv[m++] = "-m";
		margv[m++] = "-O";
		margv[m++] = c->build_dir;
		margv[m++] = cfg;
		for (size_t i = 0; i < r->nr_frags; i++)
			margv[m++] = c->frags[i];
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
	if (util_read_file(&text, NULL, cfg, CAP_TREE_FILE))
		goto out;
	for (size_t i = 0; i < r->nr_frags; i++) {
		char *f = NULL, *line, *next;

		if (util_read_file(&f, NULL, c->frags[i], CAP_SMALL_FILE))
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
				      c->frags[i], line);
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
			c->config_hash = xstrdup(hash);
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
		/*
		 * compiled from the amdgpu Makefile (doc/design.md,
		 * "Measured facts", single objects)
		 */
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
void collect_objects(struct run *r)
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

/*
 * Parse one capture file into W under object OBJECT_ID: a compiler's, or
 * the checker TOOL's (its functions from the work tree, as clang's).
 */
static int parse_capture(struct run *r, struct build_writer *w,
			 long long object_id, const char *text, size_t len,
			 const char *tool)
{
	struct source_cache tree = { r->tree->src, NULL, NULL, 0 };
	struct capture_ctx c = { w, object_id, tool ? &tree : &r->src };
	struct parser *p = parse_new(capture_emit, &c);
	char *prefix = xstrfmt("%s/", r->tree->src);
	const char *body = memchr(text, '\n', len);

	parse_add_strip_prefix(p, prefix);
	/* one compiler's stderr: a note is the diagnostic's it follows */
	if (!tool || parse_set_tool(p, tool))
		parse_set_single_stream(p);
	if (body) {
		body++;
		parse_feed(p, body, len - (size_t)(body - text));
	}
	parse_finish(p);
	bw_add_unparsed(w, parse_get_stats(p)->unparsed);
	parse_free(p);
	source_cache_release(&tree);
	free(prefix);
	return 0;
}

/*
 * The checker TEXT's header names, a new string, or NULL for a
 * compiler's capture; *wanted says whether this run runs that checker.
 */
static char *capture_tool(const struct run *r, const char *text, int *wanted)
{
	char *tool = capture_parse_tool(text);

	*wanted = tool && ((r->checker && !strcmp(tool, r->checker)) ||
			   (r->ws.w && !strcmp(tool, "kernel-doc")) ||
			   !strcmp(tool, "objtool"));
	return tool;
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
static int object_exists(struct run *r, struct cell *c, const char *obj)
{
	char *o = xstrfmt("%s/%s", c->build_dir, obj);
	char *src = xstrfmt("%s/%s", r->tree->src, obj);
	int ok;

	src[strlen(src) - 1] = 'c';
	ok = !access(o, F_OK) && !access(src, F_OK);
	free(o);
	free(src);
	return ok;
}

/*
 * Is the failed compile captured in CAPTURE (of OBJ) out of date: the
 * object file exists and is newer?  A failed compile leaves no object, so
 * another compile made it since, under another name of the same file
 * (kbuild's "amdgpu/../amdkfd/kfd_crat.o" for "amdkfd/kfd_crat.o", a
 * target that fails alone) whose capture is the object's state.
 */
static int failure_superseded(struct run *r, struct cell *c, const char *obj,
			      const char *capture)
{
	char *o = xstrfmt("%s/%s", c->build_dir, obj);
	struct stat so, sc;
	int newer;

	newer = !stat(o, &so) && !stat(capture, &sc) &&
		(so.st_mtim.tv_sec > sc.st_mtim.tv_sec ||
		 (so.st_mtim.tv_sec == sc.st_mtim.tv_sec &&
		  so.st_mtim.tv_nsec > sc.st_mtim.tv_nsec));
	free(o);
	return newer;
}

/*
 * After a point is stored: its captures become the last capture of their
 * objects.  Until then they stay in capture/, so that a run killed between
 * make and the commit finds them again when it resumes this point.
 */
static void promote_captures(struct run *r, struct cell *c)
{
	char *cap = xstrfmt("%s/capture", c->kdir);
	char *last = xstrfmt("%s/last", c->kdir);
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
 * Whether OBJ is part of this build: any object of a whole build; with
 * --targets, one of the targets or an object under a directory target
 * ("drivers/firewire/"), or any when a target is neither (vmlinux,
 * modules).  A build directory is shared by every run of its tree and
 * config: the other objects' last captures are what other runs compiled,
 * at other points, and make was not asked to bring them up to date.
 */
static int in_build(const struct run *r, const char *obj)
{
	char *list, *save = NULL;
	int in = 0;

	if (!r->targets)
		return 1;
	list = xstrdup(r->targets);
	for (char *t = strtok_r(list, ",", &save); t && !in;
	     t = strtok_r(NULL, ",", &save)) {
		size_t l = strlen(t);
		const char *base = strrchr(t, '/');

		if (l && t[l - 1] == '/')
			in = !strncmp(obj, t, l);
		else if (strchr(base ? base : t, '.'))
			in = !strcmp(obj, t);
		else
			in = 1;
	}
	free(list);
	return in;
}

/* The source kbuild compiles into OBJ ("x/y.o": "x/y.c"), a new string. */
static char *object_source(const char *obj)
{
	char *src = xstrdup(obj);

	src[strlen(src) - 1] = 'c';
	return src;
}

/* Write TOOL's capture of OBJ in CAP: header, then TEXT. */
static void tool_write(const char *cap, const char *obj, const char *tool,
		       const char *text, size_t len)
{
	char name[PATH_MAX], head[PATH_MAX + 64], suffix[64];
	struct strbuf sb = STRBUF_INIT;
	int hlen = capture_header(head, sizeof(head), 0, obj, tool);

	snprintf(suffix, sizeof(suffix), ".%s.log", tool);
	capture_name(name, sizeof(name), cap, obj, suffix);
	strbuf_add(&sb, head, (size_t)hlen);
	strbuf_add(&sb, text, len);
	if (util_write_file(name, sb.buf, sb.len))
		warning("cannot keep %s's lines of '%s'", tool, obj);
	strbuf_release(&sb);
}

/*
 * The objects compiled at this point: those with a compiler's capture in
 * CAP, as new strings in a new array of *NR.
 */
static char **compiled_objects(const char *cap, size_t *nr)
{
	size_t nn = 0, nobj = 0;
	char **now = list_logs(cap, &nn), **objs = NULL;

	for (size_t i = 0; i < nn; i++) {
		char *path = xstrfmt("%s/%s", cap, now[i]);
		char *head = NULL, *obj = NULL, *tool = NULL;
		int rc;

		if (!util_read_file(&head, NULL, path, CAP_CAPTURE_FILE) &&
		    !capture_parse_header(&rc, &obj, head) &&
		    !(tool = capture_parse_tool(head))) {
			objs = xrealloc(objs, (nobj + 1) * sizeof(*objs));
			objs[nobj++] = obj;
			obj = NULL;
		}
		free(tool);
		free(obj);
		free(head);
		free(path);
	}
	free_list(now, nn);
	*nr = nobj;
	return objs;
}

/* Run kernel-doc on OBJ's source as kbuild does, into its capture. */
static void kdoc_run(struct run *r, const char *cap, const char *obj)
{
	char *src = object_source(obj);
	char *script = xstrfmt("%s/scripts/kernel-doc", r->tree->src);
	char *path = xstrfmt("%s/%s", r->tree->src, src);
	char *err = xstrfmt("%s/kernel-doc.err", cap), *text = NULL;
	const char *argv[] = { "perl", script, "-none", path, NULL };
	size_t len = 0;

	if (util_run(argv, NULL, "/dev/null", err) < 0 ||
	    util_read_file(&text, &len, err, CAP_CAPTURE_FILE))
		warning("cannot run kernel-doc on '%s'", src);
	else
		tool_write(cap, obj, "kernel-doc", text, len);
	unlink(err);
	free(text);
	free(err);
	free(path);
	free(script);
	free(src);
}

/*
 * Under W=, kbuild runs "SRC/scripts/kernel-doc -none SRC/x.c" in the
 * rule of every object it compiles, outside the compiler: its lines go to
 * make's log only.  They name the source, with a line and no column
 * ("SRC/x.c:12: warning: ..."), and a source is one object's, so each
 * object compiled at this point (a compiler's capture in capture/) gets a
 * kernel-doc capture of the lines that name its source in LOG, empty when
 * there are none: a fixed comment is fixed.  The first point a run builds
 * also runs kernel-doc itself on every other object of the build that has
 * no such capture yet (a build directory that kwarn filled before it kept
 * them), as C=2 does for a checker.
 */
static void kdoc_captures(struct run *r, struct cell *c, const char *log)
{
	char *cap = xstrfmt("%s/capture", c->kdir);
	char *last = xstrfmt("%s/last", c->kdir);
	char *prefix = xstrfmt("%s/", r->tree->src), *text = NULL;
	size_t na = 0, len = 0, plen = strlen(prefix);
	char **all = NULL, **objs;
	size_t nobj = 0;

	objs = compiled_objects(cap, &nobj);
	if (util_read_file(&text, &len, log, CAP_CAPTURE_FILE))
		len = 0;
	for (size_t i = 0; i < nobj; i++) {
		char *src = object_source(objs[i]);
		size_t sl = strlen(src);
		struct strbuf mine = STRBUF_INIT;

		for (const char *l = text; l && l < text + len;) {
			const char *e =
				memchr(l, '\n', (size_t)(text + len - l));
			const char *t;
			size_t ll = e ? (size_t)(e - l) :
					(size_t)(text + len - l);

			/* "SRC/x.c:12: warning: ...": a line, no column */
			if (ll > plen + sl + 3 && !memcmp(l, prefix, plen) &&
			    !memcmp(l + plen, src, sl) && l[plen + sl] == ':') {
				t = l + plen + sl + 1;
				while (t < l + ll && *t >= '0' && *t <= '9')
					t++;
				if (t > l + plen + sl + 1 && t + 1 < l + ll &&
				    t[0] == ':' && t[1] == ' ') {
					strbuf_add(&mine, l, ll);
					strbuf_addch(&mine, '\n');
				}
			}
			l = e ? e + 1 : text + len;
		}
		tool_write(cap, objs[i], "kernel-doc", mine.buf ? mine.buf : "",
			   mine.len);
		strbuf_release(&mine);
		free(src);
	}
	/* the first point: every object of the build has one */
	if (!c->checked) {
		all = list_logs(last, &na);
		for (size_t i = 0; i < na && !interrupted; i++) {
			char *path = xstrfmt("%s/%s", last, all[i]);
			char *head = NULL, *obj = NULL, *tool = NULL;
			char kd[PATH_MAX], kdnow[PATH_MAX];
			int rc;

			if (!util_read_file(&head, NULL, path,
					    CAP_CAPTURE_FILE) &&
			    !capture_parse_header(&rc, &obj, head) &&
			    !(tool = capture_parse_tool(head)) &&
			    in_build(r, obj) && object_exists(r, c, obj)) {
				capture_name(kd, sizeof(kd), last, obj,
					     ".kernel-doc.log");
				capture_name(kdnow, sizeof(kdnow), cap, obj,
					     ".kernel-doc.log");
				if (access(kd, F_OK) && access(kdnow, F_OK))
					kdoc_run(r, cap, obj);
			}
			free(tool);
			free(obj);
			free(head);
			free(path);
		}
		free_list(all, na);
	}
	free_list(objs, nobj);
	free(text);
	free(prefix);
	free(cap);
	free(last);
}

/* Does the build directory of C run objtool on its objects? */
static int runs_objtool(const struct cell *c)
{
	char *path = xstrfmt("%s/.config", c->build_dir), *text = NULL;
	int yes = 0;

	if (!util_read_file(&text, NULL, path, 1 << 24))
		yes = strstr(text, "\nCONFIG_OBJTOOL=y\n") != NULL;
	free(text);
	free(path);
	return yes;
}

/*
 * objtool runs in the rule of every object it checks (CONFIG_OBJTOOL,
 * x86), after the compiler and outside it: its lines go to make's log
 * only, and each names its object, as make sees it from the build
 * directory ("kernel/panic.o: warning: objtool: f+0x24: ...").  Each
 * object compiled at this point gets an objtool capture of the lines
 * that name it, empty when there are none: a fixed complaint is fixed.
 * XXX the link-time pass over vmlinux.o and modpost's lines name no
 * compiled object, and are not kept yet.
 */
static void objtool_captures(const struct cell *c, const char *log)
{
	static const char *const says[] = { ": warning: objtool: ",
					    ": error: objtool: " };
	char *cap = xstrfmt("%s/capture", c->kdir), *text = NULL;
	size_t nobj = 0, len = 0, nl = 0;
	char **objs = compiled_objects(cap, &nobj);
	struct objtool_line {
		const char *line;
		size_t len, obj_len;
	} *lines = NULL;

	if (util_read_file(&text, &len, log, CAP_CAPTURE_FILE))
		len = 0;
	/* one pass over make's log: its objtool lines, with their object */
	for (const char *l = text; l && l < text + len;) {
		const char *e = memchr(l, '\n', (size_t)(text + len - l));
		size_t ll = e ? (size_t)(e - l) : (size_t)(text + len - l);
		const char *sp = memchr(l, ' ', ll);

		for (size_t k = 0; k < ARRAY_SIZE(says) && sp; k++) {
			size_t sl = strlen(says[k]);

			if (sp > l + 1 && (size_t)(l + ll - (sp - 1)) > sl &&
			    !memcmp(sp - 1, says[k], sl)) {
				lines = xrealloc(lines,
						 (nl + 1) * sizeof(*lines));
				lines[nl].line = l;
				lines[nl].len = ll;
				lines[nl].obj_len = (size_t)(sp - 1 - l);
				nl++;
				break;
			}
		}
		l = e ? e + 1 : text + len;
	}
	for (size_t i = 0; i < nobj; i++) {
		struct strbuf mine = STRBUF_INIT;
		size_t ol = strlen(objs[i]);

		for (size_t k = 0; k < nl; k++) {
			if (lines[k].obj_len != ol ||
			    memcmp(lines[k].line, objs[i], ol))
				continue;
			strbuf_add(&mine, lines[k].line, lines[k].len);
			strbuf_addch(&mine, '\n');
		}
		tool_write(cap, objs[i], "objtool", mine.buf ? mine.buf : "",
			   mine.len);
		strbuf_release(&mine);
	}
	free(lines);
	free_list(objs, nobj);
	free(text);
	free(cap);
}

/*
 * The checker's captures: each of this point (NOW, in capture/) under
 * its object, then the last one of every other object that this point
 * holds as carried (ALL, in last/), carried too, as the object's compile
 * is.  A capture whose object this build does not hold (gone, or not a
 * target) is skipped, and so is another checker's.
 */
static void store_checks(struct run *r, struct cell *c, struct build_writer *w,
			 char **now, size_t nn, char **all, size_t na)
{
	for (int pass = 0; pass < 2; pass++) {
		char **list = pass ? all : now;
		size_t nr = pass ? na : nn;

		bw_set_carried(w, pass);
		for (size_t i = 0; i < nr; i++) {
			char *path, *text = NULL, *obj = NULL, *tool = NULL;
			size_t len;
			long long id = -1;
			int rc, fresh = 0, wanted = 0;

			for (size_t j = 0; pass && j < nn && !fresh; j++)
				fresh = !strcmp(now[j], all[i]);
			if (fresh)
				continue;
			path = xstrfmt("%s/%s/%s", c->kdir,
				       pass ? "last" : "capture", list[i]);
			if (!util_read_file(&text, &len, path,
					    CAP_CAPTURE_FILE) &&
			    !capture_parse_header(&rc, &obj, text) &&
			    (tool = capture_tool(r, text, &wanted)) != NULL &&
			    wanted && in_build(r, obj))
				id = bw_object_lookup(w, obj);
			if (id >= 0)
				parse_capture(r, w, id, text, len, tool);
			free(tool);
			free(text);
			free(obj);
			free(path);
		}
	}
	bw_set_carried(w, 0);
}

/*
 * Store the objects of this point: every capture of this point as
 * compiled (or failed), then the last capture of every other object of
 * the build (in_build()) as carried, or the object as not built when it
 * is gone.
 */
static int store_objects(struct run *r, struct cell *c, struct build_writer *w)
{
	char *cap = xstrfmt("%s/capture", c->kdir);
	char *last = xstrfmt("%s/last", c->kdir);
	char **now = NULL, **all = NULL;
	size_t nn = 0, na = 0;
	int ret = -1;

	/* the work tree holds this point: read its files afresh */
	source_cache_release(&r->src);
	now = list_logs(cap, &nn);
	for (size_t i = 0; i < nn; i++) {
		char *from = xstrfmt("%s/%s", cap, now[i]);
		char *text = NULL, *obj = NULL, *tool = NULL;
		size_t len;
		long long id;
		int rc, wanted;

		if (util_read_file(&text, &len, from, CAP_CAPTURE_FILE) ||
		    capture_parse_header(&rc, &obj, text)) {
			warning("skipping unreadable capture '%s'", from);
		} else if ((tool = capture_tool(r, text, &wanted)) != NULL) {
			/* a checker's: after every object is recorded */
		} else if (!bw_object(&id, w, obj,
				      rc ? "failed" : "compiled")) {
			parse_capture(r, w, id, text, len, NULL);
		}
		free(tool);
		free(text);
		free(obj);
		free(from);
	}
	all = list_logs(last, &na);
	bw_set_carried(w, 1);
	for (size_t i = 0; i < na; i++) {
		char *path, *text = NULL, *obj = NULL, *tool = NULL;
		size_t len;
		long long id;
		int rc, fresh = 0, wanted;

		for (size_t j = 0; j < nn && !fresh; j++)
			fresh = !strcmp(now[j], all[i]);
		if (fresh)
			continue;
		path = xstrfmt("%s/%s", last, all[i]);
		if (util_read_file(&text, &len, path, CAP_CAPTURE_FILE) ||
		    capture_parse_header(&rc, &obj, text) ||
		    !in_build(r, obj) ||
		    (tool = capture_tool(r, text, &wanted)) != NULL) {
			free(tool);
			free(text);
			free(obj);
			free(path);
			continue;
		}
		if (rc && failure_superseded(r, c, obj, path)) {
			/* kept, it would be carried into every later point */
			unlink(path);
		} else if (!object_exists(r, c, obj)) {
			bw_object(&id, w, obj, "not_built");
		} else if (!bw_object(&id, w, obj, rc ? "failed" : "carried")) {
			parse_capture(r, w, id, text, len, NULL);
		}
		free(text);
		free(obj);
		free(path);
	}
	bw_set_carried(w, 0);
	if (r->checker || r->ws.w || c->objtool)
		store_checks(r, c, w, now, nn, all, na);
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
static int store_composites(struct run *r, struct cell *c,
			    struct build_writer *w)
{
	struct kbuild_map kb;
	int ret;

	if (kbuild_map_load(&kb, c->build_dir))
		return 0;
	ret = bw_composites(w, &kb);
	kbuild_map_release(&kb);
	return ret;
}

/*
 * Give every fall-through warning of point K that has no verdict yet one,
 * from the source as the work tree holds it at this point.
 */
static int classify_point(struct run *r, struct cell *c, size_t k)
{
	struct query_ids ids;
	int ret = -1;

	if (query_fallthrough_diags(&ids, r->db, -1, c->commit_ids[k]))
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
		    !util_read_file(&text, &len, path, CAP_SOURCE_FILE)) {
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
static int install_modules(struct run *r, struct cell *c, size_t k,
			   const char *log, char **out)
{
	const char *argv[64];
	char *owned[MAKE_OWNED] = { NULL },
	     *root = xstrfmt("%s/modroot", c->kdir);
	char *root_arg = xstrfmt("INSTALL_MOD_PATH=%s", root);
	size_t n;
	int rc = -1;

	*out = NULL;
	if (util_is_dir(root) && util_rm_rf(root))
		goto out;
	n = make_argv(r, c, argv, ARRAY_SIZE(argv), owned);
	argv[n++] = "modules_install";
	argv[n++] = root_arg;
	argv[n++] = "INSTALL_MOD_STRIP=1";
	argv[n] = NULL;
	rc = run_make(r, c, k, argv, log);
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

/*
 * The capture directory CAP for the point of commit SHA.  Captures left
 * by an interrupted attempt at this same commit are this point's (make
 * will not compile those objects again); any others are stale and
 * removed.  Returns 0 or -1 (reported).
 */
static int captures_claim(const char *cap, const char *sha)
{
	char *pointfile = xstrfmt("%s/.point", cap), *was = NULL;
	char **stale;
	size_t nstale = 0;
	int ret = 0;

	if (access(pointfile, R_OK) ||
	    util_read_file(&was, NULL, pointfile, CAP_SMALL_FILE) ||
	    strcmp(was, sha)) {
		stale = list_logs(cap, &nstale);
		for (size_t i = 0; i < nstale; i++) {
			char *f = xstrfmt("%s/%s", cap, stale[i]);

			unlink(f);
			free(f);
		}
		free_list(stale, nstale);
		ret = util_write_file(pointfile, sha, strlen(sha));
	}
	free(pointfile);
	free(was);
	return ret;
}

int build_point(struct run *r, struct cell *c, size_t k)
{
	struct point *p = &r->points[k];
	/*
	 * XXX: --targets past about 4,000 objects are left out of the make
	 * line (a whole build is the better tool at that size).
	 */
	const char *argv[4096];
	char *owned[MAKE_OWNED] = { NULL }, *log = NULL, *cap = NULL,
	     *image = NULL;
	char *tail = NULL, *targets = NULL, *save = NULL;
	char *mods = NULL, *statslog = NULL, *check = NULL;
	struct build_info bi = { 0 };
	struct build_writer *w = NULL;
	struct boot_result boot;
	int64_t t0;
	size_t n, base;
	int rc, rc2 = 0, rc3 = 0, ret = -1, booted = 0;
	long long build_id;

	memset(&boot, 0, sizeof(boot));
	/* clang prints no "In function": found in the work tree */
	r->src.dir = c->tc->clang ? r->tree->src : NULL;
	cap = xstrfmt("%s/capture", c->kdir);
	if (captures_claim(cap, p->sha))
		goto out;
	log = xstrfmt("%s/make-%zu.log", c->kdir, k);
	unlink(log);
	r->point_started = util_now_ms();
	r->expected = objects_expected(r, c);
	setenv("KWARN_CAPTURE_DIR", cap, 1);
	statslog = xstrfmt("%s/ccache-stats.log", c->kdir);
	ccache_count_start(&r->cache, statslog);
	t0 = util_now_ms();
	n = base = make_argv(r, c, argv, ARRAY_SIZE(argv), owned);
	if (r->checker) {
		/*
		 * kbuild's checker on what this point compiles (C=1); on
		 * every object of the build at the first point of the run
		 * (C=2), so that an object not compiled again has a check
		 * of its own to carry, not one another run left
		 */
		argv[n++] = c->checked ? "C=1" : "C=2";
		argv[n++] = check = xstrfmt("CHECK=%s --tool=%s %s", r->cc_path,
					    r->checker, r->checker);
		base = n;
	}
	if (r->targets) {
		/* only these objects (comma-separated), no kernel image */
		targets = xstrdup(r->targets);
		for (char *t = strtok_r(targets, ",", &save);
		     t && n + 1 < ARRAY_SIZE(argv);
		     t = strtok_r(NULL, ",", &save))
			argv[n++] = t;
	} else {
		argv[n++] = c->arch->target;
		if (r->full)
			argv[n++] = "modules";
	}
	argv[n] = NULL;
	rc = run_make(r, c, k, argv, log);
	if (rc >= 0 && !interrupted && r->nr_objects && !r->targets) {
		/* the series' objects, one by one, whatever the config says */
		n = base;
		argv[n++] = "-k";
		for (size_t i = 0;
		     i < r->nr_objects && n + 2 < ARRAY_SIZE(argv); i++) {
			char *src =
				xstrfmt("%s/%s", r->tree->src, r->objects[i]);
			/* the object's .c */
			src[strlen(src) - 1] = 'c';
			if (!access(src, R_OK))
				argv[n++] = r->objects[i];
			free(src);
		}
		argv[n] = NULL;
		if (n > base + 1)
			rc2 = run_make(r, c, k, argv, log);
	}
	if (!rc && !interrupted && r->full && !r->targets) {
		/* the same command line as the build: nothing recompiles */
		progress(r, c, k, "installing modules");
		rc3 = install_modules(r, c, k, log, &mods);
	}
	unsetenv("KWARN_CAPTURE_DIR");
	if (!interrupted && rc >= 0 && r->ws.w)
		kdoc_captures(r, c, log);
	c->objtool = rc >= 0 && runs_objtool(c);
	if (!interrupted && c->objtool)
		objtool_captures(c, log);
	if (!interrupted && rc >= 0)
		progress(r, c, k, "built");
	bi.cached = r->cached;
	bi.cache_hits = r->cache.hits;
	bi.cache_misses = r->cache.misses;
	ccache_count_stop(&r->cache);
	if (interrupted || rc < 0 || rc3 < 0)
		goto out;
	bi.wall_ms = util_now_ms() - t0;
	bi.config_name = c->config_name;
	bi.config_hash = c->config_hash;
	bi.compiler = c->compiler;
	bi.flags = c->flags;
	bi.arch = c->arch->name;
	bi.build_dir = c->build_dir;
	bi.level = r->level;
	bi.status = rc || rc2 || rc3 ? "failed" : "ok";
	if (rc || rc2 || rc3)
		bi.log_tail = tail = file_tail(log, 30);
	image = xstrfmt("%s%s", c->build_dir, c->arch->image);
	if (!rc && !access(image, R_OK))
		bi.image = image;
	if (r->boot && bi.image) {
		struct boot_opts bo = { 0 };

		progress(r, c, k, "booting");
		bo.kernel = image;
		bo.arch = c->arch;
		bo.modules_dir = mods; /* NULL unless --full installed them */
		bo.silence_ms = r->silence_s * 1000;
		bo.total_ms = r->timeout_s * 1000;
		booted = !boot_run(&boot, &bo);
	}
	if (bw_begin(&w, r->db, c->commit_ids[k], &bi))
		goto out;
	if (store_objects(r, c, w) || store_composites(r, c, w))
		goto out_abort;
	for (size_t i = 0; booted && i < boot.nr_warnings; i++)
		bw_diag(w, -2, &boot.warnings[i]);
	if (booted && store_boot(NULL, r->db, bw_build_id(w), &boot))
		goto out_abort;
	if (bw_finish(&build_id, w))
		goto out;
	w = NULL;
	promote_captures(r, c);
	c->checked = 1;
	objects_count_save(r, c);
	if (classify_point(r, c, k))
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
	free(mods);
	free(statslog);
	free(check);
	ccache_count_stop(&r->cache);
	return ret;
}
