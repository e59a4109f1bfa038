// SPDX-License-Identifier: MIT
/*
 * kwarn-cc: the compiler launcher that kbuild runs as CC="kwarn-cc gcc".
 *
 * It runs the rest of its command line (a compiler, or a chain such as
 * "ccache gcc" or "distcc gcc") and, when $KWARN_CAPTURE_DIR is set and
 * the command compiles one C file into an object, saves that compiler's
 * stderr on its own in a capture file (lib/capture.h).  So each object's
 * diagnostics stay whole however make -j interleaves compilers.  The
 * compiler's stderr is passed on to ours as well, and its exit status is
 * ours.  It links nothing but libc, to cost each compile little.
 *
 * When $KWARN_CCACHE names a ccache (kwarn's compiler cache, set up by
 * collector/ccache.c with its configuration in the environment), such a
 * compile runs through it: "ccache" words of the chain are that cache
 * already and are dropped, and a distcc behind becomes ccache's prefix
 * command, so that ccache keys on the compiler itself and distcc only
 * compiles the misses.  The make command line, which kbuild records,
 * stays the same with the cache or without.
 *
 * As kbuild's checker, CHECK="kwarn-cc --tool=sparse sparse" (kwarn run
 * --checker sparse), it runs the checker the same way and saves its
 * stderr in the object's checker capture (lib/capture.h).  kbuild gives a
 * checker the compile's flags but no -o: the object is the one whose
 * dependency file "-Wp,-MMD,dir/.name.o.d" names.  Never through ccache.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "banned.h"

extern char **environ;

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The object of a "-c ... -o X.o file.c" compile, or NULL. */
static const char *compiled_object(int argc, char **argv)
{
	const char *obj = NULL;
	int compile = 0, csrc = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		size_t l = strlen(a);

		if (!strcmp(a, "-c"))
			compile = 1;
		else if (!strcmp(a, "-E") || !strcmp(a, "-S") ||
			 !strcmp(a, "-M") || !strcmp(a, "-MM"))
			return NULL;
		else if (!strcmp(a, "-o") && i + 1 < argc)
			obj = argv[++i];
		else if (l > 2 && a[0] != '-' && !strcmp(a + l - 2, ".c"))
			csrc = 1;
	}
	if (!compile || !csrc || !obj)
		return NULL;
	if (strlen(obj) < 3 || strcmp(obj + strlen(obj) - 2, ".o"))
		return NULL;
	return obj;
}

/*
 * The object of a checker's command line ARGV, from the dependency file
 * kbuild passes in the compile's flags ("-Wp,-MMD,kernel/.fork.o.d" is
 * kernel/fork.o), into OUT (SIZE bytes), or NULL.
 */
static const char *checked_object(int argc, char **argv, char *out, size_t size)
{
	for (int i = 0; i < argc; i++) {
		const char *d, *slash, *base;
		size_t l, dl;

		if (strncmp(argv[i], "-Wp,-MMD,", 9) &&
		    strncmp(argv[i], "-Wp,-MD,", 8))
			continue;
		d = strchr(argv[i] + 4, ',') + 1;
		while (!strncmp(d, "./", 2))
			d += 2;
		slash = strrchr(d, '/');
		base = slash ? slash + 1 : d;
		dl = (size_t)(base - d);
		l = strlen(base);
		if (base[0] != '.' || l < 6 || strcmp(base + l - 4, ".o.d") ||
		    dl + l >= size)
			return NULL;
		memcpy(out, d, dl);
		memcpy(out + dl, base + 1, l - 3);
		out[dl + l - 3] = '\0';
		return out;
	}
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The command that compiles ARGV (a NULL-terminated chain) through the
 * ccache CCACHE, in a new array: ccache, then the chain without its own
 * ccache words and without a distcc, which goes to CCACHE_PREFIX.
 */
static char **through_ccache(const char *ccache, char **argv, int argc)
{
	char **cmd = malloc(((size_t)argc + 2) * sizeof(*cmd));
	int n = 0;

	if (!cmd)
		return NULL;
	while (*argv && !strcmp(base_name(*argv), "ccache"))
		argv++;
	if (*argv && !strcmp(base_name(*argv), "distcc")) {
		setenv("CCACHE_PREFIX", *argv, 1);
		argv++;
	}
	/* execvp() takes no const; it does not write the strings */
	cmd[n++] = (char *)(uintptr_t)ccache;
	while (*argv)
		cmd[n++] = *argv++;
	cmd[n] = NULL;
	return cmd;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("KWARN_CAPTURE_DIR");
	const char *ccache = getenv("KWARN_CCACHE");
	const char *obj, *tool = NULL;
	char tmp[PATH_MAX], final[PATH_MAX], head[PATH_MAX + 64], buf[8192];
	char checked[PATH_MAX], suffix[80];
	char **cmd = argv + 1;
	posix_spawn_file_actions_t fa;
	int pipefd[2], fd = -1, status, hlen;
	pid_t pid;
	ssize_t n;

	if (argc > 1 && !strncmp(argv[1], "--tool=", 7)) {
		tool = argv[1] + 7;
		argv++;
		argc--;
		cmd = argv + 1;
		if (!*tool || strlen(tool) > 32 || strchr(tool, '/')) {
			fputs("kwarn-cc: --tool=NAME: a short name\n", stderr);
			return 2;
		}
	}
	if (argc < 2) {
		fputs("usage: kwarn-cc [--tool=CHECKER] COMPILER [ARGS...]\n",
		      stderr);
		return 2;
	}
	if (tool) {
		obj = checked_object(argc - 1, argv + 1, checked,
				     sizeof(checked));
	} else {
		obj = compiled_object(argc - 1, argv + 1);
		if (obj && ccache && *ccache) {
			cmd = through_ccache(ccache, argv + 1, argc);
			if (!cmd) {
				fputs("kwarn-cc: out of memory\n", stderr);
				return 127;
			}
		}
	}
	if (!obj || !dir || !*dir) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "kwarn-cc: cannot run '%s': %s\n", cmd[0],
			strerror(errno));
		return 127;
	}
	if (pipe2(pipefd, O_CLOEXEC)) {
		fprintf(stderr, "kwarn-cc: pipe: %s\n", strerror(errno));
		return 127;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	if (posix_spawnp(&pid, cmd[0], &fa, NULL, cmd, environ)) {
		fprintf(stderr, "kwarn-cc: cannot run '%s': %s\n", cmd[0],
			strerror(errno));
		return 127;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);

	snprintf(suffix, sizeof(suffix), "%s%s.tmp", tool ? "." : "",
		 tool ? tool : "");
	capture_name(tmp, sizeof(tmp), dir, obj, suffix);
	snprintf(suffix, sizeof(suffix), "%s%s.log", tool ? "." : "",
		 tool ? tool : "");
	capture_name(final, sizeof(final), dir, obj, suffix);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "kwarn-cc: cannot create '%s': %s\n", tmp,
			strerror(errno));
	/* placeholder header, rewritten with the status at the end */
	hlen = capture_header(head, sizeof(head), 0, obj, tool);
	if (fd >= 0 && write_all(fd, head, (size_t)hlen))
		fd = -1;
	while ((n = read(pipefd[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		write_all(2, buf, (size_t)n);
		if (fd >= 0 && write_all(fd, buf, (size_t)n)) {
			close(fd);
			fd = -1;
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (fd >= 0) {
		int rc = WIFEXITED(status) ? WEXITSTATUS(status) :
					     128 + WTERMSIG(status);

		hlen = capture_header(head, sizeof(head), rc, obj, tool);
		if (pwrite(fd, head, (size_t)hlen, 0) != hlen || close(fd) ||
		    rename(tmp, final))
			fprintf(stderr, "kwarn-cc: cannot save '%s'\n", final);
	}
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
