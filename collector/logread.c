// SPDX-License-Identifier: MIT
/*
 * Reading a saved build log as text, whatever it was saved as: plain,
 * gzip (zlib, in this process), xz or zstd (their own tool, started
 * through the one spawner).  A log that is not text (an executable, an
 * archive, random bytes) is refused from its first bytes, before
 * anything is parsed or stored; a compressed log found damaged later is
 * a read error, which makes the ingest store nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "kwarn.h"
#include "util.h"
#include "banned.h"

/* The text looked at before the log is taken; also the read size. */
#define LOG_HEAD (64u << 10)
/*
 * What is checked of a log that streams in (a pipe, a FIFO): enough to
 * know its format and see binary data, without waiting for LOG_HEAD
 * bytes that a build still running has not printed yet.
 */
#define LOG_HEAD_STREAM 512u

enum log_how {
	LOG_GZIP, /* zlib, in this process */
	LOG_TOOL, /* TOOL -dc with the log on its stdin */
	LOG_REFUSE, /* a format kwarn does not read; TOOL says what does */
};

/* Compressed and archive formats, known by their first bytes. */
static const struct log_format {
	const char *magic;
	size_t len;
	const char *name;
	enum log_how how;
	const char *tool;
} log_formats[] = {
	{ "\x1f\x8b", 2, "gzip", LOG_GZIP, NULL },
	/* six bytes: the string's own NUL is the last */
	{ "\xfd\x37\x7a\x58\x5a", 6, "xz", LOG_TOOL, "xz" },
	{ "\x28\xb5\x2f\xfd", 4, "zstd", LOG_TOOL, "zstd" },
	{ "BZh", 3, "bzip2", LOG_REFUSE, "bzip2 -dc" },
	{ "\x04\x22\x4d\x18", 4, "lz4", LOG_REFUSE, "lz4 -dc" },
	{ "PK\x03\x04", 4, "zip", LOG_REFUSE, "unzip -p" },
};

struct log_reader {
	char *name;
	int fd; /* the log as given: the caller's to close */
	const struct log_format *fmt; /* NULL: plain text */
	int eof; /* FD is at its end */
	int done; /* the text is at its end */
	/* LOG_GZIP: the stream; a member ended (another may follow) */
	z_stream z;
	int z_live, z_member_end;
	/* LOG_TOOL: the decompressor, and the read end of its stdout */
	pid_t pid;
	int pipe;
	/* the first LOG_HEAD bytes of text, given out before the rest */
	char *head;
	size_t head_len, head_off;
	int empty;
	unsigned long long given; /* bytes given out */
	char last; /* the last of them */
	unsigned char in[LOG_HEAD]; /* FD's bytes, before decompression */
};

/* read() FD into BUF until LEN bytes or its end: the count, or -1. */
static ssize_t read_full(struct log_reader *r, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len && !r->eof) {
		n = read(r->fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error("cannot read '%s': %s", r->name,
				     strerror(errno));
		if (!n)
			r->eof = 1;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * Up to LEN bytes of the gzip'd log, decompressed: the count, 0 at its
 * end, or -1 (reported) when the data is damaged or cut short.  Members
 * one after another (gzip -c a b >c) are read as one text.
 */
static ssize_t gzip_read(struct log_reader *r, char *buf, size_t len)
{
	z_stream *z = &r->z;
	ssize_t n;
	int rc;

	z->next_out = (unsigned char *)buf;
	z->avail_out = (uInt)len;
	while (z->avail_out == len) {
		if (!z->avail_in && !r->eof) {
			n = read_full(r, r->in, sizeof(r->in));
			if (n < 0)
				return -1;
			z->next_in = r->in;
			z->avail_in = (uInt)n;
		}
		if (r->z_member_end) {
			if (!z->avail_in)
				break;
			if (inflateReset(z) != Z_OK)
				return error("cannot decompress '%s': zlib"
					     " reset failed",
					     r->name);
			r->z_member_end = 0;
		}
		rc = inflate(z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			r->z_member_end = 1;
		else if (rc == Z_BUF_ERROR && !z->avail_in && r->eof)
			return error("cannot decompress '%s': the gzip data"
				     " ends early (a file cut short?)",
				     r->name);
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return error("cannot decompress '%s': %s at byte %lu"
				     " of its gzip data",
				     r->name, z->msg ? z->msg : "damaged data",
				     (unsigned long)z->total_in);
	}
	return (ssize_t)(len - z->avail_out);
}

/*
 * Up to LEN bytes of what the decompressor prints: the count, 0 at its
 * end, or -1 (reported) when it failed.
 */
static ssize_t tool_read(struct log_reader *r, char *buf, size_t len)
{
	ssize_t n;
	int rc;

	for (;;) {
		n = read(r->pipe, buf, len);
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n < 0)
		return error("cannot read '%s' through %s: %s", r->name,
			     r->fmt->tool, strerror(errno));
	if (n)
		return n;
	close(r->pipe);
	r->pipe = -1;
	rc = util_wait(r->pid, r->fmt->tool);
	r->pid = 0;
	if (rc)
		return error("cannot decompress '%s': '%s -dc' failed (exit"
			     " %d: the %s data damaged or cut short?)",
			     r->name, r->fmt->tool, rc, r->fmt->name);
	return 0;
}

/* Up to LEN bytes of text, past the head: the count, 0 at the end, -1. */
static ssize_t text_read(struct log_reader *r, char *buf, size_t len)
{
	ssize_t n = 0;

	if (r->done)
		return 0;
	if (!r->fmt)
		n = read_full(r, buf, len);
	else if (r->fmt->how == LOG_GZIP)
		n = gzip_read(r, buf, len);
	else
		n = tool_read(r, buf, len);
	if (!n)
		r->done = 1;
	return n;
}

/*
 * Start TOOL -dc with the log on its stdin, from where the caller gave
 * it (POS), so that nothing read here is lost.  A pipe cannot be read
 * again: its bytes are gone.  Returns 0 or -1 (reported).
 */
static int tool_start(struct log_reader *r, off_t pos)
{
	const char *argv[] = { r->fmt->tool, "-dc", NULL };
	struct util_spawn o = { .err_path = "/dev/null",
				.in_fd = r->fd,
				.die_with_parent = 1 };
	int fds[2], rc;

	if (pos < 0 || lseek(r->fd, pos, SEEK_SET) < 0)
		return error("cannot read the %s-compressed log '%s' from a"
			     " pipe: give its file name, or pipe it through"
			     " '%s -dc'",
			     r->fmt->name, r->name, r->fmt->tool);
	if (!util_in_path(r->fmt->tool))
		return error("cannot read the %s-compressed log '%s': '%s'"
			     " is not installed",
			     r->fmt->name, r->name, r->fmt->tool);
	if (pipe2(fds, O_CLOEXEC))
		return error("pipe: %s", strerror(errno));
	o.out_fd = fds[1];
	rc = util_spawn(&r->pid, argv, &o);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return -1;
	}
	r->pipe = fds[0];
	return 0;
}

/*
 * Whether text holds BUF[0..LEN): "" if it does, else why not.  A NUL
 * byte, or more than 1 byte in 100 a control byte that logs do not hold
 * (they hold tabs, CR, form feeds, bells and colour escapes).
 */
static const char *why_binary(char why[64], const char *buf, size_t len)
{
	const char *nul = memchr(buf, '\0', len);
	size_t ctl = 0;

	if (nul) {
		snprintf(why, 64, "a NUL byte at offset %zu",
			 (size_t)(nul - buf));
		return why;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if ((c < 0x20 && !strchr("\a\b\t\n\v\f\r\x1b", c)) || c == 0x7f)
			ctl++;
	}
	if (ctl * 100 > len) {
		snprintf(why, 64, "%zu control bytes in its first %zu", ctl,
			 len);
		return why;
	}
	return "";
}

/* 1 if BUF[0..LEN) is nothing but white space, else 0. */
static int is_blank(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\n\v\f\r", buf[i]))
			return 0;
	return 1;
}

int log_open(struct log_reader **out, int fd, const char *name)
{
	struct log_reader *r = xcalloc(1, sizeof(*r));
	off_t pos = lseek(fd, 0, SEEK_CUR);
	const char *why;
	char buf[64];
	struct stat st;
	size_t head;
	ssize_t n;

	*out = NULL;
	head = !fstat(fd, &st) && S_ISREG(st.st_mode) ? LOG_HEAD :
							LOG_HEAD_STREAM;
	r->name = xstrdup(name);
	r->fd = fd;
	r->pipe = -1;
	n = read_full(r, r->in, head);
	if (n < 0)
		goto fail;
	for (size_t i = 0; i < ARRAY_SIZE(log_formats) && !r->fmt; i++)
		if ((size_t)n >= log_formats[i].len &&
		    !memcmp(r->in, log_formats[i].magic, log_formats[i].len))
			r->fmt = &log_formats[i];
	if (r->fmt && r->fmt->how == LOG_REFUSE) {
		error("'%s' is %s-compressed: kwarn reads plain, gzip, xz and"
		      " zstd logs (pipe it through '%s' into kwarn ingest -)",
		      name, r->fmt->name, r->fmt->tool);
		goto fail;
	}
	r->head = xmalloc(LOG_HEAD);
	if (!r->fmt) {
		memcpy(r->head, r->in, (size_t)n);
		r->head_len = (size_t)n;
	} else if (r->fmt->how == LOG_GZIP) {
		/* 15 + 32: a window of 32 KB, with the gzip header */
		if (inflateInit2(&r->z, 15 + 32) != Z_OK) {
			error("cannot initialise zlib");
			goto fail;
		}
		r->z_live = 1;
		r->z.next_in = r->in;
		r->z.avail_in = (uInt)n;
	} else if (tool_start(r, pos)) {
		goto fail;
	}
	while (r->head_len < head && (n = text_read(r, r->head + r->head_len,
						    head - r->head_len)) > 0)
		r->head_len += (size_t)n;
	if (n < 0)
		goto fail;
	why = why_binary(buf, r->head, r->head_len);
	if (*why && r->fmt) {
		error("'%s' is not a build log: its %s content is binary data"
		      " (%s)",
		      name, r->fmt->name, why);
		goto fail;
	}
	if (*why) {
		error("'%s' is not a build log: binary data (%s)", name, why);
		goto fail;
	}
	r->empty = r->done && is_blank(r->head, r->head_len);
	*out = r;
	return 0;
fail:
	log_close(r);
	return -1;
}

ssize_t log_read(struct log_reader *r, char *buf, size_t len)
{
	ssize_t n;

	if (r->head_off < r->head_len) {
		n = (ssize_t)(r->head_len - r->head_off);
		if ((size_t)n > len)
			n = (ssize_t)len;
		memcpy(buf, r->head + r->head_off, (size_t)n);
		r->head_off += (size_t)n;
	} else {
		n = text_read(r, buf, len);
	}
	if (n > 0) {
		r->given += (unsigned long long)n;
		r->last = buf[n - 1];
	}
	return n;
}

const char *log_name(const struct log_reader *r)
{
	return r->name;
}

int log_is_empty(const struct log_reader *r)
{
	return r->empty;
}

int log_ends_mid_line(const struct log_reader *r)
{
	return r->done && r->given && r->last != '\n';
}

void log_close(struct log_reader *r)
{
	if (!r)
		return;
	if (r->z_live)
		inflateEnd(&r->z);
	/* a decompressor not read to its end meets a closed pipe */
	if (r->pipe >= 0)
		close(r->pipe);
	if (r->pid > 0)
		util_wait(r->pid, r->fmt->tool);
	free(r->head);
	free(r->name);
	free(r);
}
