/* SPDX-License-Identifier: MIT */
#ifndef KWARN_UTIL_H
#define KWARN_UTIL_H

/*
 * Leaf helpers shared by kwarn and kwarn-server: error reporting,
 * allocation that cannot fail, and a growable string buffer with a cap.
 */

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* util.c */

/* Name printed before every message ("kwarn", "kwarn-server"). */
extern const char *util_progname;

/*
 * Print "PROG: error: MSG" on stderr, once, where the error is found.
 * Always returns -1 so that callers can write `return error(...)`.
 */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "PROG: warning: MSG" on stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "PROG: MSG" on stderr and exit(2).  Only during start-up. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Allocation that dies on out-of-memory; x*free(NULL) is fine. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* asprintf() that dies on failure. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a whole decimal string into *out.  Returns 0, or -1 if the string
 * is empty, has trailing junk, or does not fit in [min, max].
 */
int util_parse_long(long *out, const char *s, long min, long max);

/* Milliseconds of a monotonic clock. */
int64_t util_now_ms(void);

/* 1 if PATH exists and is a directory, else 0. */
int util_is_dir(const char *path);
/* mkdir -p; returns 0 or -1 with the error reported. */
int util_mkdir_p(const char *path);
/* rm -rf of a directory tree we own; returns 0 or -1. */
int util_rm_rf(const char *path);

/*
 * Read a whole file into *out (NUL-terminated, length in *len_out when not
 * NULL).  Refuses files larger than MAX bytes.  Returns 0 or -1 (reported).
 */
int util_read_file(char **out, size_t *len_out, const char *path, size_t max);
/* Write LEN bytes to PATH atomically (temp file + rename).  0 or -1. */
int util_write_file(const char *path, const void *buf, size_t len);

/*
 * The kwarn cache directory: $KWARN_CACHE, else $HOME/.cache/kwarn.
 * Returned string is static.
 */
const char *util_cache_dir(void);

/*
 * Hex SHA-256 of a file into out[65].  Returns 0 or -1 (reported).
 */
int util_sha256_file(char out[65], const char *path);
/* Hex SHA-256 of a buffer into out[65]. */
void util_sha256_hex(char out[65], const void *buf, size_t len);

/* child.c */

/* How util_spawn() starts a child; every field may be 0, but out_fd -1. */
struct util_spawn {
	const char *cwd; /* chdir there first */
	const char *out_path; /* stdout to this file */
	const char *err_path; /* stderr to this file; may be out_path */
	int append; /* append to the files (else truncate them) */
	int out_fd; /* >= 0: stdout to this descriptor, and stderr too
		       unless err_path names a file for it */
	int in_fd; /* > 0: stdin from this descriptor (0: inherited) */
	int null_stdin; /* stdin from /dev/null */
	int die_with_parent; /* SIGKILL when kwarn dies: no orphan make */
};

/*
 * Start ARGV (argv[0] looked up in PATH, no shell) as O says (NULL: all
 * inherited) and put its pid in *out.  A file that cannot be opened or a
 * program that cannot be run makes the child exit 126 or 127 with a line
 * on its stderr.  Returns 0, or -1 if it could not fork (reported).
 */
int util_spawn(pid_t *out, const char *const *argv, const struct util_spawn *o);

/*
 * Wait for child PID (NAME is for errors): its exit status (0..255),
 * 128+signal, or -1 (reported).
 */
int util_wait(pid_t pid, const char *name);

/*
 * Run ARGV and wait.  stdout and stderr go to the files named (NULL:
 * inherited, "/dev/null" to drop, the same name: one file).  CWD may be
 * NULL.  Returns what util_wait() returns.
 */
int util_run(const char *const *argv, const char *cwd, const char *out_path,
	     const char *err_path);

/*
 * Run ARGV with stdin from /dev/null and stderr dropped, and put its
 * stdout (the first MAX bytes, NUL-terminated) in a new string *out.
 * Returns the exit status as util_wait() does; *out is NULL on -1.
 */
int util_capture(char **out, const char *const *argv, size_t max);

/* 1 if BIN is an executable: a path, or a name found in $PATH; else 0. */
int util_in_path(const char *bin);

/*
 * Take the flock() lock of PATH (created if missing); its descriptor goes
 * to *fd_out (close it to unlock).  When the lock is held elsewhere: with
 * WAIT, say so on stderr and wait; without, return 1.  Returns 0 when
 * locked, -1 on errors (reported).
 */
int util_lock(int *fd_out, const char *path, int wait);

/* strbuf.c */

/*
 * A growable, always NUL-terminated buffer.  Initialise with STRBUF_INIT
 * or strbuf_init(); release with strbuf_release(), which leaves it empty
 * and reusable.
 */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char strbuf_empty[];
#define STRBUF_INIT                \
	{                          \
		strbuf_empty, 0, 0 \
	}

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Give up ownership of the buffer; the caller frees it. */
char *strbuf_detach(struct strbuf *sb, size_t *len_out);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
static inline void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

#endif
