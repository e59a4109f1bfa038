// SPDX-License-Identifier: MIT
/*
 * Compiler launchers (--cc-launcher): what kwarn lets stand between
 * kwarn-cc and gcc, and how many jobs a distcc farm takes.
 *
 * Measured with gcc 12 and distcc 3.4 on Debian 12 (README.md,
 * "Distributed builds"): plain distcc preprocesses locally and ships the
 * preprocessed text, so every "fall through" comment is gone (one more
 * warning), and the remote gcc, which has no sources, prints no source
 * lines, byte columns instead of display columns and no "in expansion of
 * macro" notes: identities change at every level.  -C or -fdirectives-only
 * on both steps keep the markers but not the source lines or the columns.
 * Only distcc's pump mode, where the remote gcc compiles the original
 * sources, gave the local build's stderr byte for byte, and only while its
 * include server works (Debian 12's fails on Python 3.10 and later,
 * distcc bug 454, and distcc then silently preprocesses locally), forgets
 * the files kwarn checks out at each point, and the remote can read the
 * sources at the client's paths for the source lines.  scripts/kwarn-pump
 * starts such an include server; a chain with distcc is accepted only
 * under it, after a test compile through the chain, in the kwarn cache,
 * printed exactly what gcc prints.  icecc ships preprocessed text too and
 * is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kwarn.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

/* The test compile: a marked fall-through, an unmarked one, one in a
 * macro expansion and one in a header, with source lines and tabs. */
static const char probe_h[] =
	"static inline int kwarn_probe_h(int x)\n"
	"{\n"
	"\tswitch (x) {\n"
	"\tcase 1:\n"
	"\t\tx++;\n"
	"\tcase 2:\n"
	"\t\treturn x;\n"
	"\t}\n"
	"\treturn 0;\n"
	"}\n"
	"#define KWARN_PROBE_ADD(v)\tdo { r += (v); } while (0)\n";
static const char probe_c[] = "#include <kwarn-probe.h>\n"
			      "int kwarn_probe(int x);\n"
			      "int kwarn_probe(int x)\n"
			      "{\n"
			      "\tint r = 0;\n"
			      "\n"
			      "\tswitch (x) {\n"
			      "\tcase 1:\n"
			      "\t\tr += 1;\n"
			      "\t\t/* fall through */\n"
			      "\tcase 2:\n"
			      "\t\tr += 2;\n"
			      "\t\tbreak;\n"
			      "\tcase 3:\n"
			      "\t\tKWARN_PROBE_ADD(3);\n"
			      "\tcase 4:\n"
			      "\t\tr += 4;\n"
			      "\t\tbreak;\n"
			      "\tcase 5:\n"
			      "\t\tr += 5;\n"
			      "\tcase 6:\n"
			      "\t\tr += kwarn_probe_h(x);\n"
			      "\t\tbreak;\n"
			      "\t}\n"
			      "\treturn r;\n"
			      "}\n";

static const char *word_base(const char *word)
{
	const char *slash = strrchr(word, '/');

	return slash ? slash + 1 : word;
}

/* 1 if a word of LAUNCHER (a path or a bare name) is NAME. */
static int launcher_has(const char *launcher, const char *name)
{
	char *copy = xstrdup(launcher), *tok, *save = NULL;
	int found = 0;

	for (tok = strtok_r(copy, " \t", &save); tok && !found;
	     tok = strtok_r(NULL, " \t", &save))
		found = !strcmp(word_base(tok), name);
	free(copy);
	return found;
}

/* Drop distcc's own "distcc[PID] ..." lines from TEXT, in place. */
static void drop_distcc_lines(char *text)
{
	char *in = text, *out = text;

	while (*in) {
		char *nl = strchr(in, '\n');
		size_t len = nl ? (size_t)(nl - in) + 1 : strlen(in);

		if (strncmp(in, "distcc[", 7)) {
			memmove(out, in, len);
			out += len;
		}
		in += len;
	}
	*out = '\0';
}

/*
 * Compile DIR/kwarn-probe.c with ARGV (a compiler command of N words, the
 * flags are added) and put its stderr in *out.  0 or -1 (reported).
 */
static int probe_compile(char **out, const char *dir, const char **argv,
			 size_t n, const char *obj)
{
	char *err = xstrfmt("%s/%s.err", dir, obj);
	char *inc = xstrfmt("-I%s/include", dir);
	char *src = xstrfmt("%s/kwarn-probe.c", dir);
	int rc, ret = -1;

	argv[n++] = inc;
	argv[n++] = "-Wimplicit-fallthrough=3";
	argv[n++] = "-c";
	argv[n++] = src;
	argv[n++] = "-o";
	argv[n++] = obj;
	argv[n] = NULL;
	rc = util_run(argv, dir, NULL, err);
	if (rc < 0 || util_read_file(out, NULL, err, CAP_SMALL_FILE))
		goto out;
	if (rc) {
		error("test compile with '%s' failed (exit %d): %.300s",
		      argv[0], rc, *out);
		goto out;
	}
	ret = 0;
out:
	free(err);
	free(inc);
	free(src);
	return ret;
}

/*
 * Run the probe through LAUNCHER and through gcc alone: 0 when the two
 * print the same diagnostics, -1 (reported) otherwise.
 */
static int launcher_probe(const char *launcher)
{
	char *dir = xstrfmt("%s/probe-XXXXXX", util_cache_dir());
	char *copy = xstrdup(launcher), *tok, *save = NULL, *path = NULL;
	char *local = NULL, *remote = NULL;
	const char *argv[32];
	size_t n = 0;
	int ret = -1;

	/* in the cache, which build hosts are told to share, readable by
	 * distccd's user */
	if (util_mkdir_p(util_cache_dir()))
		goto out_nodir;
	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		error("cannot create '%s': %s", dir, strerror(errno));
		goto out_nodir;
	}
	path = xstrfmt("%s/include", dir);
	if (mkdir(path, 0755)) {
		error("cannot create '%s': %s", path, strerror(errno));
		goto out;
	}
	free(path);
	path = xstrfmt("%s/include/kwarn-probe.h", dir);
	if (util_write_file(path, probe_h, strlen(probe_h)))
		goto out;
	free(path);
	path = xstrfmt("%s/kwarn-probe.c", dir);
	if (util_write_file(path, probe_c, strlen(probe_c)))
		goto out;
	argv[0] = "gcc";
	if (probe_compile(&local, dir, argv, 1, "local.o"))
		goto out;
	for (tok = strtok_r(copy, " \t", &save); tok && n < 16;
	     tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	argv[n++] = "gcc";
	if (probe_compile(&remote, dir, argv, n, "launcher.o"))
		goto out;
	if (strstr(remote, "preprocessing locally")) {
		error("distcc-pump's include server gave up on a test compile, so distcc preprocessed locally and dropped the comments (the include server of distcc 3.4 fails on Python 3.10 and later unless started by scripts/kwarn-pump)");
		goto out;
	}
	drop_distcc_lines(remote);
	if (!strstr(local, "warning:") || strcmp(local, remote)) {
		error("'%s' changes gcc's diagnostics on a test compile in '%s' (comment markers, source lines or columns): every build host must see the kwarn cache at the same path, readable by distccd",
		      launcher, util_cache_dir());
		goto out;
	}
	ret = 0;
out:
	util_rm_rf(dir);
out_nodir:
	free(dir);
	free(path);
	free(copy);
	free(local);
	free(remote);
	return ret;
}

int launcher_check(const char *launcher, int level)
{
	static const char *const known[] = { "ccache", "distcc", "icecc" };
	char *copy = xstrdup(launcher), *tok, *save = NULL;
	int ret = -1, words = 0;

	(void)level; /* source lines and columns count at every level */
	for (tok = strtok_r(copy, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		int ok = 0;

		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			ok |= !strcmp(word_base(tok), known[i]);
		if (!ok) {
			error("unknown compiler launcher '%s' (ccache, distcc, or both)",
			      tok);
			goto out;
		}
		words++;
	}
	if (!words) {
		error("empty compiler launcher '%s'", launcher);
		goto out;
	}
	if (launcher_has(launcher, "icecc")) {
		error("icecc compiles preprocessed text without the sources, so comment markers, source lines or columns differ from a local build: use distcc in pump mode");
		goto out;
	}
	if (launcher_has(launcher, "distcc")) {
		const char *port = getenv("INCLUDE_SERVER_PORT");

		if (!port || !*port) {
			error("distcc without pump mode preprocesses locally and drops every /* fall through */ comment: run 'scripts/kwarn-pump kwarn run ...' (see README.md, Distributed builds)");
			goto out;
		}
		if (!getenv("KWARN_PUMP")) {
			error("distcc-pump's include server must be started by scripts/kwarn-pump: otherwise it keeps shipping the sources of the first point it saw");
			goto out;
		}
		if (access(port, F_OK)) {
			error("distcc-pump's include server socket '%s' is gone: start it again with scripts/kwarn-pump",
			      port);
			goto out;
		}
		if (launcher_probe(launcher))
			goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* The job limit of one DISTCC_HOSTS entry, 0 when unknown. */
static int host_jobs(const char *entry, size_t len)
{
	const char *slash = memchr(entry, '/', len);
	const char *end = entry + len;
	int localhost = len >= 9 && !strncmp(entry, "localhost", 9) &&
			(len == 9 || entry[9] == '/' || entry[9] == ',');
	long v = 0;

	if (entry[0] == '+' || entry[0] == '-')
		return entry[0] == '-' ? -1 : 0; /* zeroconf; an option */
	if (!slash)
		return localhost ? 2 : 4; /* distcc's defaults */
	for (const char *p = slash + 1; p < end && *p >= '0' && *p <= '9';
	     p++) {
		v = v * 10 + (*p - '0');
		if (v > 10000)
			return 0;
	}
	return (int)v;
}

int launcher_jobs(const char *launcher)
{
	const char *hosts = getenv("DISTCC_HOSTS"), *p;
	int total = 0;

	if (!launcher || !launcher_has(launcher, "distcc") || !hosts)
		return 0;
	for (p = hosts; *p;) {
		size_t len;
		int j;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		len = strcspn(p, " \t\n");
		if (!len)
			break;
		j = host_jobs(p, len);
		if (j == 0)
			return 0;
		if (j > 0)
			total += j;
		p += len;
	}
	return total;
}
