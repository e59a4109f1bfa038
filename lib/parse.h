/* SPDX-License-Identifier: MIT */
#ifndef KWARN_PARSE_H
#define KWARN_PARSE_H

/*
 * parse.c: a pure, streaming parser of GCC (7 to 12) and clang (14, 16)
 * output as it appears in kernel builds.  Bytes in (any chunking),
 * diagnostics out through a callback.  No I/O, no SQL, no globals.
 *
 * It understands "In file included from" chains (GCC 7's "x.c:36:0,"
 * too), "In function" headers (ASCII, UTF-8 and GCC 3 quotes) and their
 * "inlined from" chains, warning/error/fatal error lines with their
 * [-Wflag], [-Wflag=], [-Werror=flag], [-Werror], clang's [-Werror,-Wflag]
 * or [-fpermissive] option, every note that follows, source and caret
 * blocks (GCC's gutter and clang's bare lines), ANSI colours, CRLF,
 * kbuild's "CC foo.o" lines, kernel-doc, objtool, modpost, assembler,
 * linker and other tool lines, make's own warnings, Kconfig's and dtc's,
 * and gcc's -fdiagnostics-format=json (an array a line, read exactly).  A note belongs to
 * the diagnostic it follows, unless GCC's own structure names another
 * compile of a `make -j` log: an include chain printed for the note names
 * its translation unit, and GCC prints a header's chain the first time a
 * compile names that header.  A note that only its order places, where
 * another compile could own it, is counted (order_notes), never guessed.
 * Lines it cannot read are counted, and the first few kept.
 */

#include <stddef.h>

enum diag_kind {
	DIAG_WARNING,
	DIAG_ERROR,
	DIAG_FATAL, /* "fatal error:" */
	DIAG_MODPOST, /* "WARNING: modpost: ..." */
	DIAG_LINKER, /* "ld: warning: ..." */
	DIAG_BOOT, /* a kernel WARNING seen at boot (not from the parser) */
	DIAG_KERNEL_DOC, /* scripts/kernel-doc's "FILE:LINE: warning:" */
	DIAG_OBJTOOL, /* "foo.o: warning: objtool: ..." */
	DIAG_ASSEMBLER, /* "foo.S:12: Warning: ..." (GNU as) */
	DIAG_MAKE, /* "make[4]: warning: ...", "Makefile:3: warning: ..." */
	DIAG_KCONFIG, /* ".config:12:warning: override: ..." */
	DIAG_DTC, /* "x.dts:11.15-13.5: Warning (check): /node: ..." */
	DIAG_SPARSE, /* sparse's "x.c:3:9: warning: ...", from a capture */
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
	char *function; /* enclosing function, or NULL; for file-scope
			   warnings and kernel-doc the symbol they name */
	char *option; /* "-Wimplicit-fallthrough=", or NULL */
	int werror; /* promoted to an error by -Werror: kind and option
		       stay the warning's, so its identity does not change */
	char *message; /* without the [option] suffix */
	char *source; /* the source line, or NULL */
	char *include_chain; /* "a.c:1" or "b.h:7, a.c:1" (innermost
				   first, as GCC prints it), or NULL */
	char *inline_chain; /* "caller at a.c:18:2, top at a.c:30:3"
			       (GCC's "inlined from" lines, innermost
			       first), or NULL; not part of the identity */
	char *object; /* from a kbuild "CC" line naming this source (or
			 its translation unit), else the kbuild rule
			 (foo.c gives foo.o), else NULL: never a guess */
	struct diag_note *notes;
	size_t nr_notes, alloc_notes;
};

struct parse_stats {
	unsigned long lines; /* lines read */
	unsigned long diags; /* diagnostics emitted */
	unsigned long notes; /* notes paired with a diagnostic */
	unsigned long orphan_notes; /* notes with nothing to pair with */
	unsigned long order_notes; /* notes placed by order only: another
				      compile's diagnostic could own them */
	unsigned long unparsed; /* lines that looked like a diagnostic
					   but could not be read, overlong
					   lines, unknown kinds */
	unsigned long other; /* make and other chatter */
	unsigned long kbuild; /* kbuild's "  CC      x.o", "  LD ..." lines */
	unsigned long werror_lines; /* "warnings being treated as errors" */
};

/* How many unparsed lines a parser keeps for its caller to show. */
#define PARSE_KEEP_UNPARSED 5

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

/*
 * P reads one compiler's output alone (a kwarn-cc capture): a note is
 * always the newest diagnostic's, with no pairing by file.
 */
void parse_set_single_stream(struct parser *p);

/*
 * P reads one tool's output alone, for one object: "sparse" (a kwarn-cc
 * capture of kbuild's CHECK), whose diagnostics are then of that kind
 * and the lines under each ("expected ...", "got ...") its notes; or
 * "kernel-doc" (the lines kbuild's kernel-doc printed for one source),
 * read as any log's kernel-doc lines are.  Returns -1 for a tool it does
 * not know.
 */
int parse_set_tool(struct parser *p, const char *tool);

/* Feed LEN bytes; lines may be split anywhere across calls. */
void parse_feed(struct parser *p, const char *buf, size_t len);

/* End of input: parse a final unterminated line and emit what is pending. */
void parse_finish(struct parser *p);

const struct parse_stats *parse_get_stats(const struct parser *p);

/*
 * The Ith of the first PARSE_KEEP_UNPARSED unparsed lines (cleaned, at
 * most 200 bytes), or NULL past the last one kept.  Owned by P.
 */
const char *parse_unparsed_line(const struct parser *p, size_t i);

/* Free P; NULL is fine. */
void parse_free(struct parser *p);

/* "warning", "error", ... for a kind. */
const char *diag_kind_name(enum diag_kind kind);

/*
 * The tools a diagnostic is counted and filtered by (its "kind" in
 * kind= and --kind), NULL-terminated: "compiler" for the kinds warning,
 * error and fatal error, and every other kind by its name (kernel-doc,
 * sparse, objtool, modpost, ...).  An error a tool prints as "error:"
 * (ld's, modpost's "ERROR:") is kind error, so the compiler's.
 * KIND_TOOL() in lib/query-impl.h is the same rule in SQL.
 */
extern const char *const diag_tools[];

/* The tool of a stored kind ("fatal error" gives "compiler"). */
const char *diag_tool_of(const char *kind);

/*
 * The function whose body holds line LINE of the C source TEXT[0..LEN),
 * for compilers that print no "In function" header (clang): the name
 * the declarator above the nearest "{" in column 0 (or ending a column-0
 * line that has its name) defines, as gcc names it: past attributes and
 * the return type, inside "(*f(int))(int)".  A new string (free() it),
 * or NULL when LINE is at file scope or unclear, or the function is made
 * by a macro ("SYSCALL_DEFINE1(x, ...)": gcc names what the macro makes).
 */
char *diag_function_from_source(const char *text, size_t len, long line);

/* 1 if a note's message is GCC's "here" (the fall-through target). */
int diag_is_here_note(const struct diag_note *n);

#endif
