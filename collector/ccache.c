// SPDX-License-Identifier: MIT
/*
 * The compiler cache: Debian's ccache, run by kwarn-cc in front of the
 * compiler, with kwarn's own directory and configuration, so that an
 * object compiled once at one point, tree, run or machine is not
 * compiled again.
 *
 * kbuild keeps every object's command line and rebuilds all the objects
 * of a build directory when CC changes, so the cache never shows on the
 * make command line: kwarn sets KWARN_CCACHE in its children's
 * environment and kwarn-cc (cc.c) puts ccache in front of each C
 * compile.  A cached build directory stays warm with or without it.
 *
 * Exact by construction, not by luck: ccache keys an entry on the
 * compiler (its path, size and mtime: Debian ships the driver and cc1
 * of one version together), every argument, and the text compiled.
 * kbuild passes -Wp,-MMD, so depend_mode applies: the text is the bytes
 * of the source and of every header the .d file lists, comments and all,
 * and a miss never runs the preprocessor, so a "fall through" comment
 * reworded in place is a miss, where ccache's default falls back to the
 * preprocessed text with its comments stripped and replays the stderr of
 * the other wording (a warning lost, or a stale one kept).  A compile
 * without a .d file falls back to that preprocessed text, which
 * keep_comments_cpp keeps whole.  Depend mode also keeps a miss at the
 * cost of the compile: `gcc -E -C` of kernel/fork.c takes 1.7 s here,
 * 0.36 s without -C, against 1.1 to 1.6 s for the compile itself.
 * run_second_cpp compiles the original source on a miss, so every note
 * (macro expansions, include chains) is the compiler's own, and a hit
 * replays its stderr byte for byte.  No base_dir: paths in the
 * diagnostics are never rewritten.
 *
 * The user's own ccache settings (CCACHE_* variables, ~/.ccache,
 * ~/.config/ccache, /etc/ccache.conf) never apply: every CCACHE_*
 * variable is dropped from kwarn's environment and CCACHE_CONFIGPATH
 * names kwarn's file, which keeps ccache from reading the system one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kwarn.h"
#include "util.h"
#include "banned.h"

extern char **environ;

/* 1 if SIZE is a ccache size with a unit: "5G", "500M", "1.5T", "2Gi". */
static int size_is_valid(const char *size)
{
	const char *p = size;
	int digits = 0;

	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (!digits || !*p || !strchr("kKMGT", *p))
		return 0;
	p++;
	if (*p == 'i')
		p++;
	return !*p;
}

/* 1 if URL is a Redis URL ccache takes, in one word. */
static int remote_is_valid(const char *url)
{
	if (strncmp(url, "redis://", 8) && strncmp(url, "redis+unix:", 11))
		return 0;
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

/* 1 if a word of LAUNCHER (a path or a bare name) is NAME. */
static int launcher_word(const char *launcher, const char *name)
{
	const char *p = launcher;

	while (p && *p) {
		size_t n = strcspn(p, " \t");
		const char *w = p, *slash;

		for (slash = p; slash < p + n; slash++)
			if (*slash == '/')
				w = slash + 1;
		if ((size_t)(p + n - w) == strlen(name) &&
		    !strncmp(w, name, strlen(name)))
			return 1;
		p += n;
		p += strspn(p, " \t");
	}
	return 0;
}

/* Drop every CCACHE_* variable of our environment. */
static void drop_user_settings(void)
{
	for (;;) {
		char *name = NULL;

		for (char **e = environ; e && *e; e++) {
			if (!strncmp(*e, "CCACHE_", 7)) {
				name = xstrndup(*e, strcspn(*e, "="));
				break;
			}
		}
		if (!name)
			break;
		unsetenv(name);
		free(name);
	}
}

/* The ccache program by its full path, a new string, or NULL. */
static char *ccache_path(void)
{
	const char *path = getenv("PATH"), *p, *end;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; p; p = *end ? end + 1 : NULL) {
		char *full;

		end = strchrnul(p, ':');
		if (end == p)
			continue; /* never the current directory */
		full = xstrfmt("%.*s/ccache", (int)(end - p), p);
		if (!access(full, X_OK))
			return full;
		free(full);
	}
	return NULL;
}

/*
 * 1 if PROG is a ccache that takes kwarn's configuration: 4.7 or later,
 * where remote_storage got its name; an older one refuses the file and
 * would fail every compile.  *version gets what it says, a new string.
 */
static int ccache_is_usable(char **version, const char *prog)
{
	const char *argv[] = { prog, "--version", NULL };
	char *out = NULL;
	long major = 0, minor = 0;
	int ok = 0;

	*version = NULL;
	if (!util_capture(&out, argv, 4096) && out &&
	    sscanf(out, "ccache version %ld.%ld", &major, &minor) == 2)
		ok = major > 4 || (major == 4 && minor >= 7);
	if (out) {
		out[strcspn(out, "\n")] = '\0';
		*version = out;
	}
	return ok;
}

int ccache_setup(const struct ccache_opts *o, const char *launcher)
{
	const char *env_dir = getenv("KWARN_CCACHE_DIR");
	char *dir;
	char *prog = NULL, *conf = NULL, *text = NULL, *version = NULL;
	char key[65];
	const char *size = o->size ? o->size : CCACHE_DEFAULT_SIZE;
	const char *remote = o->remote;
	int ret = -1;

	if (o->dir)
		dir = xstrdup(o->dir);
	else if (env_dir && *env_dir)
		dir = xstrdup(env_dir);
	else
		dir = xstrfmt("%s/ccache", util_cache_dir());
	unsetenv("KWARN_CCACHE");
	if (!remote && getenv("KWARN_CACHE_REMOTE") &&
	    *getenv("KWARN_CACHE_REMOTE"))
		remote = getenv("KWARN_CACHE_REMOTE");
	if (!size_is_valid(size)) {
		error("bad cache size '%s' (a number and a unit: 500M, 5G, 1T)",
		      size);
		goto out;
	}
	if (remote && !remote_is_valid(remote)) {
		error("bad compiler cache remote '%s' (redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] or redis+unix:SOCKET)",
		      remote);
		goto out;
	}
	if (o->off && launcher && launcher_word(launcher, "ccache")) {
		error("--cc-launcher ccache with --no-compiler-cache: kwarn's compiler cache is ccache; drop ccache from --cc-launcher");
		goto out;
	}
	/* kwarn's settings apply to any ccache it runs, ours or a launcher's */
	drop_user_settings();
	/* on unless turned off; a remote asks for it */
	if (o->off && o->on) {
		error("--compiler-cache with --no-compiler-cache: choose one");
		goto out;
	}
	if (o->off && o->remote) {
		error("--compiler-cache-remote with --no-compiler-cache: choose one");
		goto out;
	}
	if (o->off) {
		ret = 0;
		goto out;
	}
	prog = ccache_path();
	if (!prog) {
		static int told; /* once, however many runs a nightly makes */

		if (!told++)
			warning("no ccache in PATH: every object is compiled, without the compiler cache (run scripts/install-deps)");
		ret = 0;
		goto out;
	}
	if (!ccache_is_usable(&version, prog)) {
		static int told;

		if (!told++)
			warning("'%s' is '%s', not ccache 4.7 or later: every object is compiled, without the compiler cache",
				prog, version ? version : "?");
		ret = 0;
		goto out;
	}
	if (util_mkdir_p(dir))
		goto out;
	text = xstrfmt(
		"# kwarn's compiler cache, written by kwarn: see kwarn-run(1)\n"
		"cache_dir = %s\n"
		"max_size = %s\n"
		"keep_comments_cpp = true\n"
		"run_second_cpp = true\n"
		"direct_mode = true\n"
		"depend_mode = true\n"
		"compiler_check = mtime\n"
		"hash_dir = true\n"
		"sloppiness =\n"
		"%s%s%s",
		dir, size, remote ? "remote_storage = " : "",
		remote ? remote : "", remote ? "\n" : "");
	/* one file per settings: a concurrent kwarn with others keeps its own */
	util_sha256_hex(key, text, strlen(text));
	conf = xstrfmt("%s/kwarn-%.12s.conf", dir, key);
	if (access(conf, R_OK)) {
		if (util_write_file(conf, text, strlen(text)))
			goto out;
		/* it may hold the remote's password */
		if (chmod(conf, 0600)) {
			error("cannot chmod '%s': %s", conf, strerror(errno));
			goto out;
		}
	}
	setenv("CCACHE_CONFIGPATH", conf, 1);
	setenv("KWARN_CCACHE", prog, 1);
	ret = 1;
out:
	free(dir);
	free(version);
	free(prog);
	free(conf);
	free(text);
	return ret;
}

const char *ccache_program(void)
{
	const char *p = getenv("KWARN_CCACHE");

	return p && *p ? p : NULL;
}

void ccache_count_start(struct ccache_count *c, const char *path)
{
	ccache_count_stop(c);
	c->path = xstrdup(path);
	if (!ccache_program())
		return;
	/* a stats log of this build alone */
	if (util_write_file(path, "", 0))
		return;
	setenv("CCACHE_STATSLOG", path, 1);
}

/* Count the counters of one stats log line (without its newline). */
static void count_line(struct ccache_count *c, const char *line, size_t len)
{
	static const char hit1[] = "direct_cache_hit";
	static const char hit2[] = "preprocessed_cache_hit";
	static const char miss[] = "cache_miss";
	static const char remote[] = "remote_storage_hit";

#define IS(s) (len == sizeof(s) - 1 && !memcmp(line, s, len))
	if (IS(hit1) || IS(hit2))
		c->hits++;
	else if (IS(miss))
		c->misses++;
	else if (IS(remote))
		c->remote_hits++;
#undef IS
}

void ccache_count_update(struct ccache_count *c)
{
	char buf[8192];
	FILE *fp;
	size_t n;

	if (!c->path || !ccache_program())
		return;
	fp = fopen(c->path, "re");
	if (!fp)
		return;
	/* ccache appends whole entries: read what came since the last time */
	if (fseeko(fp, c->offset, SEEK_SET)) {
		fclose(fp);
		return;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		size_t start = 0, used = 0;

		for (size_t i = 0; i < n; i++) {
			if (buf[i] != '\n')
				continue;
			count_line(c, buf + start, i - start);
			start = used = i + 1;
		}
		c->offset += (off_t)used;
		if (used < n && fseeko(fp, c->offset, SEEK_SET))
			break;
		if (!used && n == sizeof(buf))
			break; /* a line longer than the buffer: not ours */
		if (used < n && n < sizeof(buf))
			break; /* a partial last line: the next update */
	}
	fclose(fp);
}

void ccache_count_stop(struct ccache_count *c)
{
	if (c->path)
		unsetenv("CCACHE_STATSLOG");
	free(c->path);
	memset(c, 0, sizeof(*c));
}
