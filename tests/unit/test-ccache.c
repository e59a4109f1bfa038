// SPDX-License-Identifier: MIT
/*
 * The compiler cache (collector/ccache.c, and kwarn-cc in front of ccache)
 * on real compiles, no kernel: a "fall through" comment reworded in place
 * to one that -Wimplicit-fallthrough=3 does not accept brings gcc's
 * warning back through a warm cache, and the reverse drops it, at levels
 * 3 and 5; without keep_comments_cpp the same steps replay the other
 * wording's stderr (so these checks can fail); a hit prints the compiler's
 * stderr byte for byte (gcc, and clang-16 when installed); the user's own
 * CCACHE_* settings change nothing; and two caches sharing one Redis
 * (Debian's redis-server, started here on 127.0.0.1) give the second one
 * remote hits with the same stderr.  Run from the top of the checkout,
 * after `make all`.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "kwarn.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

static char *tmp, *kwarn_cc;

/* A function whose case 1 falls into case 2 under the comment MARK. */
static char *source(const char *name, const char *mark)
{
	return xstrfmt("int %s(int x);\n"
		       "int %s(int x)\n"
		       "{\n"
		       "\tint r = 0;\n"
		       "\n"
		       "\tswitch (x) {\n"
		       "\tcase 1:\n"
		       "\t\tr += 1;\n"
		       "\t\t%s\n"
		       "\tcase 2:\n"
		       "\t\tr += 2;\n"
		       "\t\tbreak;\n"
		       "\t}\n"
		       "\treturn r;\n"
		       "}\n",
		       name, name, mark);
}

static void put(const char *file, const char *text)
{
	char *path = xstrfmt("%s/%s", tmp, file);

	if (util_write_file(path, text, strlen(text)))
		exit(2);
	free(path);
}

/*
 * Compile FILE in tmp with CC at fall-through level LEVEL (0: clang's
 * flag), through
 * kwarn-cc (the compiler cache as the environment says) or, with PLAIN,
 * the compiler alone; its stderr, a new string.  *hit (when not NULL)
 * says whether the compile came from the cache.
 */
/* Set: compile as kbuild does, with a dependency file (depend mode). */
static int depfile;

static char *compile(const char *cc, const char *file, int level, int plain,
		     int *hit)
{
	/* clang's takes no level */
	char *flag = level ? xstrfmt("-Wimplicit-fallthrough=%d", level) :
			     xstrdup("-Wimplicit-fallthrough");
	char *err = xstrfmt("%s/stderr", tmp), *log = NULL, *text = NULL;
	struct ccache_count c = { 0 };
	const char *argv[12];
	size_t n = 0;

	if (!plain)
		argv[n++] = kwarn_cc;
	argv[n++] = cc;
	argv[n++] = flag;
	argv[n++] = "-O2";
	if (depfile)
		argv[n++] = "-Wp,-MMD,out.d"; /* as kbuild compiles */
	argv[n++] = "-c";
	argv[n++] = file;
	argv[n++] = "-o";
	argv[n++] = "out.o";
	argv[n] = NULL;
	log = xstrfmt("%s/stats.log", tmp);
	ccache_count_start(&c, log);
	util_run(argv, tmp, NULL, err);
	ccache_count_update(&c);
	if (hit)
		*hit = c.hits == 1 && !c.misses;
	ccache_count_stop(&c);
	if (util_read_file(&text, NULL, err, 1 << 20))
		text = xstrdup("(unreadable)");
	free(flag);
	free(err);
	free(log);
	return text;
}

/* A cache at tmp/NAME, with REMOTE (or none); 1 when it is on. */
static int use_cache(const char *name, const char *remote)
{
	char *dir = xstrfmt("%s/%s", tmp, name);
	struct ccache_opts o = { .on = 1, .dir = dir, .remote = remote };
	int rc = ccache_setup(&o, NULL);

	free(dir);
	return rc;
}

/*
 * The steps of one cache, as in a series: MARK_A at the first point,
 * reworded in place to MARK_B at the next, each compiled cold and warm;
 * PLAIN_A and PLAIN_B are gcc's own stderr for each.  With EXACT, checks
 * each compile; otherwise returns 1 when a reworded compile printed what
 * gcc does not (the stale replay keep_comments_cpp prevents).
 */
static int steps(const char *what, const char *name, int level,
		 const char *mark_a, const char *mark_b, const char *plain_a,
		 const char *plain_b, int exact)
{
	char *a = source(name, mark_a), *b = source(name, mark_b);
	char *file = xstrfmt("%s.c", name), *got;
	int hit = 0, stale = 0;

	put(file, a);
	got = compile("gcc", file, level, 0, &hit);
	if (exact)
		ok(!strcmp(got, plain_a) && !hit,
		   "%s, level %d: cold, a miss with gcc's stderr", what, level);
	free(got);
	got = compile("gcc", file, level, 0, &hit);
	if (exact)
		ok(!strcmp(got, plain_a) && hit,
		   "%s, level %d: warm, a hit with gcc's stderr", what, level);
	free(got);
	/* reworded in place: the same length of file would not matter */
	put(file, b);
	got = compile("gcc", file, level, 0, &hit);
	stale = strcmp(got, plain_b) != 0;
	if (exact)
		ok(!stale && !hit,
		   "%s, level %d: reworded in place, a miss with gcc's stderr (%s)",
		   what, level, *plain_b ? "its warning" : "no warning");
	free(got);
	got = compile("gcc", file, level, 0, &hit);
	if (exact)
		ok(!strcmp(got, plain_b) && hit,
		   "%s, level %d: reworded, warm: a hit, byte for byte", what,
		   level);
	free(got);
	free(a);
	free(b);
	free(file);
	return stale;
}

/* The plain compiler's stderr for NAME with MARK at LEVEL. */
static char *plain(const char *cc, const char *name, const char *mark,
		   int level)
{
	char *text = source(name, mark), *file = xstrfmt("%s.c", name);
	char *got;

	put(file, text);
	got = compile(cc, file, level, 1, NULL);
	free(text);
	free(file);
	return got;
}

static const char marker[] = "/* fall through */";
static const char reworded[] = "/* fall through to the default */";

static void exactness(void)
{
	static const int levels[] = { 3, 5 };

	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		int l = levels[i];
		char *name1 = xstrfmt("unmarks%d", l);
		char *name2 = xstrfmt("marks%d", l);
		char *p_marked = plain("gcc", name1, marker, l);
		char *p_reworded = plain("gcc", name1, reworded, l);
		char *q_marked = plain("gcc", name2, marker, l);
		char *q_reworded = plain("gcc", name2, reworded, l);

		if (l == 3)
			ok(!*p_marked &&
				   strstr(p_reworded,
					  "warning: this statement may fall through"),
			   "gcc alone at level 3: the marker silences, the reworded comment does not");
		else
			ok(*p_marked && *p_reworded,
			   "gcc alone at level 5: both warn");
		steps("marker reworded away", name1, l, marker, reworded,
		      p_marked, p_reworded, 1);
		steps("marker restored", name2, l, reworded, marker, q_reworded,
		      q_marked, 1);
		free(name1);
		free(name2);
		free(p_marked);
		free(p_reworded);
		free(q_marked);
		free(q_reworded);
	}
}

/*
 * The steps with kbuild's -Wp,-MMD, where ccache's depend mode keys on the
 * bytes of the source and its headers and a miss runs no preprocessor.
 */
static void depend_exactness(void)
{
	char *p_marked, *p_reworded, *q_marked, *q_reworded;

	depfile = 1;
	p_marked = plain("gcc", "dep3", marker, 3);
	p_reworded = plain("gcc", "dep3", reworded, 3);
	q_marked = plain("gcc", "dep3r", marker, 3);
	q_reworded = plain("gcc", "dep3r", reworded, 3);
	steps("kbuild's -Wp,-MMD: marker reworded away", "dep3", 3, marker,
	      reworded, p_marked, p_reworded, 1);
	steps("kbuild's -Wp,-MMD: marker restored", "dep3r", 3, reworded,
	      marker, q_reworded, q_marked, 1);
	free(p_marked);
	free(p_reworded);
	free(q_marked);
	free(q_reworded);
	depfile = 0;
}

/*
 * The same steps under a configuration without keep_comments_cpp: the
 * reworded compile is a stale preprocessed hit, in both directions.
 */
static void without_comments(void)
{
	char *conf = xstrfmt("%s/nocomments.conf", tmp);
	char *text = xstrfmt("cache_dir = %s/nocomments\n", tmp);
	char *p1 = plain("gcc", "stale1", marker, 3);
	char *p2 = plain("gcc", "stale1", reworded, 3);
	const char *saved = getenv("CCACHE_CONFIGPATH");
	char *keep = saved ? xstrdup(saved) : NULL;

	if (util_write_file(conf, text, strlen(text)))
		exit(2);
	setenv("CCACHE_CONFIGPATH", conf, 1);
	ok(steps("", "stale1", 3, marker, reworded, p1, p2, 0),
	   "without keep_comments_cpp, ccache replays the marked version: gcc's new warning is lost");
	ok(steps("", "stale2", 3, reworded, marker, p2, p1, 0),
	   "without keep_comments_cpp, a fixed marker keeps its stale warning");
	if (keep)
		setenv("CCACHE_CONFIGPATH", keep, 1);
	free(keep);
	free(conf);
	free(text);
	free(p1);
	free(p2);
}

/* kwarn-cc's capture of a hit holds the compiler's stderr, whole. */
static void captured(void)
{
	char *cap = xstrfmt("%s/capture", tmp), path[4096];
	char *want = plain("gcc", "capture1", reworded, 3), *got, *text = NULL;
	int hit = 0;

	util_mkdir_p(cap);
	free(compile("gcc", "capture1.c", 3, 0, NULL));
	setenv("KWARN_CAPTURE_DIR", cap, 1);
	got = compile("gcc", "capture1.c", 3, 0, &hit);
	unsetenv("KWARN_CAPTURE_DIR");
	capture_name(path, sizeof(path), cap, "out.o", ".log");
	ok(hit && !strcmp(got, want) &&
		   !util_read_file(&text, NULL, path, 1 << 20) &&
		   strchr(text, '\n') && !strcmp(strchr(text, '\n') + 1, want),
	   "a hit through kwarn-cc's capture: the capture file holds gcc's stderr");
	free(cap);
	free(want);
	free(got);
	free(text);
}

static void with_clang(void)
{
	char *p, *cold, *warm;
	int hit = 0, hit2 = 0;

	if (!util_in_path("clang-16")) {
		/* its two checks, each a TAP skip that tests/run counts */
		skip("clang-16 is not installed");
		skip("clang-16 is not installed");
		return;
	}
	p = plain("clang-16", "clang1", reworded, 0);
	cold = compile("clang-16", "clang1.c", 0, 0, &hit);
	warm = compile("clang-16", "clang1.c", 0, 0, &hit2);
	ok(strstr(p, "warning: unannotated fall-through") && !hit && hit2,
	   "clang-16: a miss, then a hit");
	ok(!strcmp(p, cold) && !strcmp(p, warm),
	   "clang-16: cold and warm stderr are clang's, byte for byte");
	free(p);
	free(cold);
	free(warm);
}

/* A free TCP port on 127.0.0.1, or 0. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* 1 once something listens on PORT of 127.0.0.1, within 10 s. */
static int wait_listening(int port)
{
	for (int i = 0; i < 100; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };
		int fd = socket(AF_INET, SOCK_STREAM, 0), up;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a.sin_port = htons((uint16_t)port);
		up = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a));
		if (fd >= 0)
			close(fd);
		if (up)
			return 1;
		usleep(100000);
	}
	return 0;
}

#define NR_SHARED 20

/*
 * Two caches with separate directories, as two machines would have,
 * sharing one Redis: the second compiles the first's files from it.
 */
static void shared(void)
{
	char *dir = xstrfmt("%s/redis", tmp),
	     *log = xstrfmt("%s/redis.log", tmp);
	char *port_s, *url, *first[NR_SHARED] = { NULL };
	struct util_spawn so = { .out_path = log,
				 .err_path = log,
				 .out_fd = -1,
				 .null_stdin = 1,
				 .die_with_parent = 1 };
	const char *argv[16];
	int port = free_port(), hits = 0, remote = 0, same = 0;
	pid_t pid;

	if (!util_in_path("redis-server")) {
		for (int i = 0; i < 5; i++)
			skip("redis-server is not installed");
		free(dir);
		free(log);
		return;
	}
	port_s = xstrfmt("%d", port);
	url = xstrfmt("redis://127.0.0.1:%d", port);
	util_mkdir_p(dir);
	argv[0] = "redis-server";
	argv[1] = "--port";
	argv[2] = port_s;
	argv[3] = "--bind";
	argv[4] = "127.0.0.1";
	argv[5] = "--save";
	argv[6] = "";
	argv[7] = "--appendonly";
	argv[8] = "no";
	argv[9] = "--dir";
	argv[10] = dir;
	argv[11] = NULL;
	if (!port || util_spawn(&pid, argv, &so)) {
		ok(0, "redis-server started");
		tap_not_run(4, "a check on the shared cache");
		goto out;
	}
	if (!ok(wait_listening(port), "redis-server listens on 127.0.0.1:%d",
		port)) {
		tap_not_run(4, "a check on the shared cache");
		goto out_stop;
	}
	ok(use_cache("machine1", url) == 1, "the first cache, on %s", url);
	for (int i = 0; i < NR_SHARED; i++) {
		char *name = xstrfmt("shared%d", i), *file;
		char *text = source(name, reworded);

		file = xstrfmt("%s.c", name);
		put(file, text);
		first[i] = compile("gcc", file, 3, 0, NULL);
		free(name);
		free(text);
		free(file);
	}
	ok(use_cache("machine2", url) == 1,
	   "the second cache, another directory, the same remote");
	for (int i = 0; i < NR_SHARED; i++) {
		char *file = xstrfmt("shared%d.c", i), *got;
		char *slog = xstrfmt("%s/stats2.log", tmp);
		struct ccache_count c = { 0 };
		const char *cc[] = {
			kwarn_cc, "gcc",   "-Wimplicit-fallthrough=3",
			"-O2",	  "-c",	   file,
			"-o",	  "out.o", NULL
		};
		char *err = xstrfmt("%s/stderr", tmp);

		ccache_count_start(&c, slog);
		util_run(cc, tmp, NULL, err);
		ccache_count_update(&c);
		hits += (int)c.hits;
		remote += (int)c.remote_hits;
		ccache_count_stop(&c);
		if (!util_read_file(&got, NULL, err, 1 << 20)) {
			same += !strcmp(got, first[i]) &&
				strstr(got, "may fall through");
			free(got);
		}
		free(file);
		free(slog);
		free(err);
	}
	ok(remote * 10 >= NR_SHARED * 9 && hits == NR_SHARED,
	   "the second cache: %d of %d compiles from the remote", remote,
	   NR_SHARED);
	ok(same == NR_SHARED,
	   "the second cache: the first one's warnings, byte for byte (%d of %d)",
	   same, NR_SHARED);
out_stop:
	kill(pid, SIGTERM);
	util_wait(pid, "redis-server");
out:
	for (int i = 0; i < NR_SHARED; i++)
		free(first[i]);
	free(port_s);
	free(url);
	free(dir);
	free(log);
}

/* The user's settings, which must change nothing kwarn compiles. */
static void user_settings(void)
{
	setenv("CCACHE_DISABLE", "1", 1);
	setenv("CCACHE_NOCOMMENTS", "1", 1);
	setenv("CCACHE_SLOPPINESS", "time_macros,pch_defines", 1);
	setenv("CCACHE_BASEDIR", "/", 1);
	setenv("CCACHE_DIR", "/nonexistent", 1);
}

int main(void)
{
	char tmpl[] = "/tmp/kwarn-ccache-XXXXXX";
	char *conf = NULL;
	int on;

	kwarn_cc = realpath("bin/kwarn-cc", NULL);
	if (!ok(kwarn_cc != NULL, "bin/kwarn-cc is built (make all)") ||
	    !ok(util_in_path("ccache"), "ccache is installed") ||
	    !mkdtemp(tmpl))
		return tap_done();
	tmp = tmpl;
	unsetenv("KWARN_CAPTURE_DIR");
	user_settings();
	on = use_cache("cache", NULL);
	ok(on == 1, "the compiler cache is on");
	ok(!getenv("CCACHE_DISABLE") && !getenv("CCACHE_NOCOMMENTS") &&
		   !getenv("CCACHE_BASEDIR") && !getenv("CCACHE_DIR"),
	   "the user's CCACHE_* settings are dropped");
	if (getenv("CCACHE_CONFIGPATH") &&
	    !util_read_file(&conf, NULL, getenv("CCACHE_CONFIGPATH"), 1 << 16))
		ok(strstr(conf, "keep_comments_cpp = true\n") &&
			   strstr(conf, "max_size = " CCACHE_DEFAULT_SIZE "\n"),
		   "kwarn's configuration keeps comments, bounded to %s",
		   CCACHE_DEFAULT_SIZE);
	else
		ok(0, "kwarn's configuration is readable");
	free(conf);
	if (on == 1) {
		exactness();
		depend_exactness();
		without_comments();
		captured();
		with_clang();
		shared();
	}
	{
		struct ccache_opts off = { .off = 1 };
		struct ccache_opts bad = { .size = "lots" };
		struct ccache_opts url = { .remote = "http://x" };

		ok(ccache_setup(&off, NULL) == 0 && !ccache_program(),
		   "--no-compiler-cache: off");
		ok(ccache_setup(&off, "ccache") == -1,
		   "--no-compiler-cache with --cc-launcher ccache is refused");
		ok(ccache_setup(&bad, NULL) == -1,
		   "a bad --cache-size is refused");
		ok(ccache_setup(&url, NULL) == -1,
		   "a remote that is not redis:// is refused");
	}
	util_rm_rf(tmp);
	free(kwarn_cc);
	return tap_done();
}
