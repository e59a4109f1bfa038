/* SPDX-License-Identifier: MIT */
#ifndef KWARN_CENSUS_H
#define KWARN_CENSUS_H

/*
 * census.c: fall-through markers in C source, and the levels of
 * -Wimplicit-fallthrough at which GCC 12 accepts them.
 *
 * Pure functions: a buffer in, structs out, no I/O.  The scanner is a
 * lexer, not a parser: it knows comments, strings, character literals,
 * line continuations (backslash-newline, as GCC splices them), CRLF and
 * lone CR, preprocessor lines (a #define body is lexed as code: GCC keeps
 * the fall-through flag of its tokens), and never reads outside the
 * buffer, whatever the bytes are.  tests/52-levels-gcc.t holds the level
 * verdicts against gcc 12 itself.
 */

#include <stddef.h>

enum census_marker {
	CENSUS_MARK_NONE,
	CENSUS_MARK_COMMENT, /* a comment that speaks of falling through */
	CENSUS_MARK_KEYWORD, /* fallthrough; (the kernel's macro) */
	CENSUS_MARK_ATTRIBUTE, /* __attribute__((fallthrough)), [[...]] */
	CENSUS_MARK_MACRO, /* FALLTHROUGH; fall_through(); ... */
};

/* What lies between a marker and its label (bits of census_label.gap). */
enum census_gap {
	CENSUS_GAP_BLANK = 1 << 0, /* a blank line */
	CENSUS_GAP_COMMENT = 1 << 1, /* another comment */
	CENSUS_GAP_STATEMENT = 1 << 2, /* code: a statement, an expression */
	CENSUS_GAP_BRACE = 1 << 3, /* a closing brace */
	CENSUS_GAP_PREPROC = 1 << 4, /* a preprocessor line */
};

/* File-level notes (bits of census_file.notes). */
enum census_note {
	CENSUS_NOTE_UNTERMINATED_COMMENT = 1 << 0,
	CENSUS_NOTE_UNTERMINATED_STRING = 1 << 1,
	CENSUS_NOTE_NUL_BYTES = 1 << 2,
	CENSUS_NOTE_CRLF = 1 << 3,
	CENSUS_NOTE_NOT_UTF8 = 1 << 4,
};

/* One `case` or `default` label and the marker standing before it. */
struct census_label {
	long line; /* of the label */
	int is_default;
	long prev_line; /* last line of the code before it, 0: none */
	char prev_char; /* that code's last character: ; } { : ) ... */
	enum census_marker marker;
	char *spelling; /* normalised marker spelling, or NULL */
	long marker_line; /* first line of the marker, 0: none */
	unsigned gap; /* enum census_gap: between marker and label */
	/*
	 * Bit N set (N = 1..5): at -Wimplicit-fallthrough=N GCC 12 takes the
	 * label as one that may be fallen into, by GCC's comment patterns and
	 * placement rules (or an attribute statement right before it).
	 */
	unsigned levels;
};

struct census_file {
	struct census_label *labels;
	size_t nr, alloc;
	long lines;
	unsigned notes; /* enum census_note */
};

/*
 * Scan LEN bytes of C source at SRC (need not be NUL-terminated) into
 * *out, which the caller releases with census_file_release().  Always
 * succeeds; oddities of the input are recorded in out->notes.
 */
void census_scan(struct census_file *out, const char *src, size_t len);
void census_file_release(struct census_file *f);

/*
 * The levels (bits 1..4) at which GCC 12 takes the comment TEXT (LEN
 * bytes, from its opening slash to its end: after the star-slash of a
 * block comment, before the newline of a line comment) as a fall-through
 * comment.  TEXT must be followed by readable bytes up to a NUL, as in a
 * scanner's buffer; a copy with "\n" appended will do.
 */
unsigned census_comment_levels(const char *text, size_t len);

/*
 * The census key of a comment: lower case, delimiters and surrounding
 * blanks dropped, inner blanks collapsed, a trailing " - reason" cut, in
 * a new string ("/\* fall through *\/", "// fallthrough").
 */
char *census_comment_key(const char *text, size_t len);

/* 1 if the comment text speaks of falling through, else 0. */
int census_comment_is_marker(const char *text, size_t len);

/*
 * The lexer underneath, shared with classify.c.  Offsets index the
 * cleaned buffer (splices removed, CRLF made LF, NUL bytes made blanks),
 * which is NUL-terminated with padding; lines are the original file's.
 */
enum ctok_kind {
	CTOK_IDENT,
	CTOK_NUMBER,
	CTOK_STRING,
	CTOK_CHAR,
	CTOK_PUNCT, /* one character */
	CTOK_COMMENT,
	CTOK_PREPROC, /* a whole directive, comments inside included */
	CTOK_OTHER,
};

struct ctok {
	enum ctok_kind kind;
	size_t start, end;
	long line, end_line;
};

struct clex {
	char *buf; /* cleaned text */
	size_t len;
	struct ctok *toks;
	size_t nr, alloc;
	long lines;
	unsigned notes; /* enum census_note */
};

/* Lex LEN bytes at SRC into *out; release with clex_release(). */
void clex_run(struct clex *out, const char *src, size_t len);
void clex_release(struct clex *lx);

/* 1 if token T is the identifier (or punctuation) S, else 0. */
int clex_is(const struct clex *lx, const struct ctok *t, const char *s);

/* Name of a marker kind: "comment", "keyword", ... */
const char *census_marker_name(enum census_marker m);

#endif
