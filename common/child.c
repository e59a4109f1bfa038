// SPDX-License-Identifier: MIT
/*
 * Running other programs: one spawner for every child kwarn starts (make,
 * QEMU, gcc, git, dpkg-query), always from an argument array, never
 * through a shell; one way to wait; one way to capture what a child
 * prints; one PATH lookup; one lock file helper.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "banned.h"

/* In the child: open PATH as fd TARGET. */
static int child_open(int target, const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		return -1;
	if (fd != target) {
		if (dup2(fd, target) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

int util_spawn(pid_t *out, const char *const *argv, const struct util_spawn *o)
{
	static const struct util_spawn none = { .out_fd = -1 };
	int wflags;
	pid_t pid;

	if (!o)
		o = &none;
	wflags = O_WRONLY | O_CREAT | (o->append ? O_APPEND : O_TRUNC);
	pid = fork();
	if (pid < 0)
		return error("cannot run '%s': fork: %s", argv[0],
			     strerror(errno));
	if (!pid) {
		if (o->die_with_parent)
			prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (o->null_stdin && child_open(0, "/dev/null", O_RDONLY))
			_exit(126);
		if (o->in_fd > 0 && dup2(o->in_fd, 0) < 0)
			_exit(126);
		if (o->out_fd >= 0) {
			if (dup2(o->out_fd, 1) < 0)
				_exit(126);
			if (o->err_path ? child_open(2, o->err_path, wflags) :
					  dup2(o->out_fd, 2) < 0)
				_exit(126);
		} else {
			if (o->out_path && child_open(1, o->out_path, wflags))
				_exit(126);
			if (o->err_path && o->out_path &&
			    !strcmp(o->err_path, o->out_path)) {
				if (dup2(1, 2) < 0)
					_exit(126);
			} else if (o->err_path &&
				   child_open(2, o->err_path, wflags)) {
				_exit(126);
			}
		}
		if (o->cwd && chdir(o->cwd))
			_exit(126);
		/* execvp() does not modify argv; its prototype predates const */
		execvp(argv[0], (char *const *)(uintptr_t)argv);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	*out = pid;
	return 0;
}

int util_wait(pid_t pid, const char *name)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return error("waitpid '%s': %s", name, strerror(errno));
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int util_run(const char *const *argv, const char *cwd, const char *out_path,
	     const char *err_path)
{
	struct util_spawn o = { .cwd = cwd,
				.out_path = out_path,
				.err_path = err_path,
				.out_fd = -1 };
	pid_t pid;

	if (util_spawn(&pid, argv, &o))
		return -1;
	return util_wait(pid, argv[0]);
}

int util_capture(char **out, const char *const *argv, size_t max)
{
	struct util_spawn o = { .err_path = "/dev/null",
				.null_stdin = 1,
				.out_fd = -1 };
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	int fds[2], rc;
	pid_t pid;
	ssize_t n;

	*out = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return error("pipe: %s", strerror(errno));
	o.out_fd = fds[1];
	rc = util_spawn(&pid, argv, &o);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return -1;
	}
	/* what is past MAX is read and dropped, so the child never blocks */
	while ((n = read(fds[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (sb.len < max)
			strbuf_add(&sb, buf,
				   (size_t)n < max - sb.len ? (size_t)n :
							      max - sb.len);
	}
	close(fds[0]);
	rc = util_wait(pid, argv[0]);
	if (rc < 0) {
		strbuf_release(&sb);
		return -1;
	}
	*out = strbuf_detach(&sb, NULL);
	return rc;
}

int util_in_path(const char *bin)
{
	const char *path = getenv("PATH"), *p, *end;
	int found = 0;

	if (strchr(bin, '/'))
		return !access(bin, X_OK);
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin"; /* as execvp() does */
	for (p = path; p && !found; p = *end ? end + 1 : NULL) {
		char *full;

		end = strchrnul(p, ':');
		/* an empty element of PATH is the current directory */
		full = end == p ? xstrfmt("./%s", bin) :
				  xstrfmt("%.*s/%s", (int)(end - p), p, bin);
		found = !access(full, X_OK);
		free(full);
	}
	return found;
}

int util_lock(int *fd_out, const char *path, int wait)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	*fd_out = -1;
	if (fd < 0)
		return error("cannot create '%s': %s", path, strerror(errno));
	if (!flock(fd, LOCK_EX | LOCK_NB)) {
		*fd_out = fd;
		return 0;
	}
	if (errno != EWOULDBLOCK) {
		error("cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!wait) {
		close(fd);
		return 1;
	}
	fprintf(stderr,
		"kwarn: waiting for '%s', held by another kwarn (or by the compilers of one that was killed)\n",
		path);
	while (flock(fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		error("cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	*fd_out = fd;
	return 0;
}
