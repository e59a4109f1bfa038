// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "banned.h"

const char *util_progname = "kwarn";

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", util_progname, prefix, msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu elements", nmemb);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die("out of memory allocating %zu bytes", n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return p;
}

int util_parse_long(long *out, const char *s, long min, long max)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int64_t util_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int util_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int util_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return error("path too long: '%s'", path);
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return error("cannot create '%s': %s", buf,
				     strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return error("cannot create '%s': %s", buf, strerror(errno));
	return 0;
}

int util_rm_rf(const char *path)
{
	const char *argv[] = { "rm", "-rf", "--", path, NULL };

	return util_run(argv, NULL, NULL, NULL) == 0 ? 0 : -1;
}

int util_read_file(char **out, size_t *len_out, const char *path, size_t max)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return error("'%s' is not a regular file", path);
	}
	if ((size_t)st.st_size > max) {
		close(fd);
		return error("'%s' is too large (%lld bytes)", path,
			     (long long)st.st_size);
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	return 0;
}

int util_write_file(const char *path, const void *buf, size_t len)
{
	char *tmp = xstrfmt("%s.tmp.%d", path, (int)getpid());
	const char *p = buf;
	int fd, ret = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error("cannot write '%s': %s", tmp, strerror(errno));
			close(fd);
			unlink(tmp);
			goto out;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) || rename(tmp, path)) {
		error("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

const char *util_cache_dir(void)
{
	static char *dir;
	const char *env;

	if (dir)
		return dir;
	env = getenv("KWARN_CACHE");
	if (env && *env)
		dir = xstrdup(env);
	else
		dir = xstrfmt("%s/.cache/kwarn",
			      getenv("HOME") ? getenv("HOME") : "/tmp");
	return dir;
}

static void hex(char out[65], const unsigned char *md)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[64] = '\0';
}

void util_sha256_hex(char out[65], const void *buf, size_t len)
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL);
	hex(out, md);
}

int util_sha256_file(char out[65], const char *path)
{
	unsigned char md[32], buf[1 << 16];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = NULL;
	int fd, ret = -1;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		error("cannot initialise sha256");
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	if (n < 0) {
		error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	hex(out, md);
	ret = 0;
out:
	EVP_MD_CTX_free(ctx);
	close(fd);
	return ret;
}
