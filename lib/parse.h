/* SPDX-License-Identifier: MIT */
#ifndef KWARN_PARSE_H
#define KWARN_PARSE_H

/*
 * parse.c: a pure, streaming parser of GCC 12 output as it appears in
 * kernel builds.  Bytes in (any chunking), diagnostics out through a
 * callback.  No I/O, no SQL, no globals.
 *
 * It understands "In file included from" chains, "In function" headers
 * (ASCII and UTF-8 quotes), warning/error/fatal error lines with their
 * [-Wflag], [-Wflag=] or [-Werror=flag] option, every note that follows,
 * source and caret blocks, ANSI colours, CRLF, kbuild's "CC foo.o" lines,
 * cc1 lines, modpost and linker warnings.  Notes are paired with their
 * diagnostic by file and order, so lines of two compilers interleaved by
 * `make -j` still pair up.  Lines it cannot read are counted.
 */

#include <stddef.h>

enum diag_kind {
	DIAG_WARNING,
	DIAG_ERROR,
	DIAG_FATAL, /* "fatal error:" */
	DIAG_MODPOST, /* "WARNING: modpost: ..." */
	DIAG_LINKER, /* "ld: warning: ..." */
	DIAG_BOOT, /* a kernel WARNING seen at boot (not from the parser) */
};

struct diag_note {
	char *file; /* NULL for "cc1: note:" */
	long line; /* 0 when unknown */
	long col;
	char *message;
	char *source; /* the source line GCC printed, or NULL */
};

/*
 * One diagnostic.  Strings are UTF-8 (invalid bytes replaced), with GCC's
 * ‘’ quotes turned into ASCII ', and never NULL unless documented.
 */
struct diag {
	enum diag_kind kind;
	char *file; /* NULL for cc1/modpost/linker without file */
	long line, col; /* 0 when unknown */
	char *function; /* enclosing function, or NULL */
	char *option; /* "-Wimplicit-fallthrough=", or NULL */
	int werror; /* promoted by -Werror */
	char *message; /* without the [option] suffix */
	char *source; /* the source line, or NULL */
	char *include_chain; /* "a.c:1" or "b.h:7, a.c:1" (innermost
				   first, as GCC prints it), or NULL */
	char *object; /* object from kbuild "CC" lines, or NULL */
	struct diag_note *notes;
	size_t nr_notes, alloc_notes;
};

struct parse_stats {
	unsigned long lines; /* lines read */
	unsigned long diags; /* diagnostics emitted */
	unsigned long notes; /* notes paired with a diagnostic */
	unsigned long orphan_notes; /* notes with nothing to pair with */
	unsigned long unparsed; /* lines that looked like a diagnostic
					   but could not be read, overlong
					   lines, unknown kinds */
	unsigned long other; /* make/kbuild/other chatter */
	unsigned long werror_lines; /* "warnings being treated as errors" */
};

/* Called once per diagnostic, in input order; D is valid only inside. */
typedef void (*parse_emit_fn)(void *ctx, const struct diag *d);

struct parser;

/* A new parser that calls EMIT(CTX, diag).  Free with parse_free(). */
struct parser *parse_new(parse_emit_fn emit, void *ctx);

/*
 * Strip PREFIX (e.g. the absolute source directory, with a final '/')
 * from the front of every file name.  May be called several times to add
 * prefixes; the parser copies them.
 */
void parse_add_strip_prefix(struct parser *p, const char *prefix);

/* Feed LEN bytes; lines may be split anywhere across calls. */
void parse_feed(struct parser *p, const char *buf, size_t len);

/* End of input: parse a final unterminated line and emit what is pending. */
void parse_finish(struct parser *p);

const struct parse_stats *parse_get_stats(const struct parser *p);

/* Free P; NULL is fine. */
void parse_free(struct parser *p);

/* "warning", "error", ... for a kind. */
const char *diag_kind_name(enum diag_kind kind);

/* 1 if a note's message is GCC's "here" (the fall-through target). */
int diag_is_here_note(const struct diag_note *n);

#endif
