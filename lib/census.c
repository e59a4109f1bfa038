// SPDX-License-Identifier: MIT
/*
 * Fall-through markers in C source and GCC 12's rules for them: a lexer
 * over a cleaned copy of the text (what GCC's preprocessor sees), the
 * comment patterns of -Wimplicit-fallthrough=1..4, and the placement
 * rule (only blank space and other comments between the comment and the
 * label; a preprocessor line, a statement or a brace breaks it).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "util.h"
#include "banned.h"

/* NUL padding after the cleaned text, so lookahead never leaves it. */
#define PAD 16

/* Longest comment text kept in a census key. */
#define KEY_MAX 48

static const char *const marker_names[] = {
	[CENSUS_MARK_NONE] = "none",
	[CENSUS_MARK_COMMENT] = "comment",
	[CENSUS_MARK_KEYWORD] = "keyword",
	[CENSUS_MARK_ATTRIBUTE] = "attribute",
	[CENSUS_MARK_MACRO] = "macro",
};

const char *census_marker_name(enum census_marker m)
{
	if ((size_t)m >= ARRAY_SIZE(marker_names))
		return "none";
	return marker_names[m];
}

/*
 * Splices: cleaned offsets at which a line break was removed, so that
 * a token's line is the original file's.
 */
struct cleaner {
	size_t *splice;
	size_t nsplice, alloc;
	/* monotone cursor for line_at() */
	size_t pos, si;
	long line;
};

static void clean(struct clex *lx, struct cleaner *c, const char *src,
		  size_t len)
{
	char *d = xmalloc(len + PAD + 1);
	size_t i = 0, o = 0;
	int valid_utf8 = 1;

	while (i < len) {
		unsigned char ch = (unsigned char)src[i];

		if (ch == '\\') {
			size_t j = i + 1;

			/* GCC splices even with blanks before the newline */
			while (j < len && (src[j] == ' ' || src[j] == '\t'))
				j++;
			if (j < len && (src[j] == '\n' || src[j] == '\r')) {
				if (src[j] == '\r' && j + 1 < len &&
				    src[j + 1] == '\n')
					j++;
				if (c->nsplice == c->alloc) {
					c->alloc = c->alloc ? 2 * c->alloc : 16;
					c->splice = xrealloc(
						c->splice,
						c->alloc * sizeof(*c->splice));
				}
				c->splice[c->nsplice++] = o;
				i = j + 1;
				continue;
			}
		} else if (ch == '\r') {
			if (i + 1 < len && src[i + 1] == '\n') {
				lx->notes |= CENSUS_NOTE_CRLF;
				i++;
			}
			d[o++] = '\n';
			i++;
			continue;
		} else if (ch == '\0') {
			lx->notes |= CENSUS_NOTE_NUL_BYTES;
			d[o++] = ' ';
			i++;
			continue;
		} else if (ch >= 0x80 && valid_utf8) {
			size_t n = ch >= 0xf0 ? 3 :
				   ch >= 0xe0 ? 2 :
				   ch >= 0xc0 ? 1 :
						0;
			size_t k;

			if (!n || i + n >= len + 1 || ch > 0xf4)
				valid_utf8 = 0;
			for (k = 1; valid_utf8 && k <= n; k++)
				if (i + k >= len ||
				    ((unsigned char)src[i + k] & 0xc0) != 0x80)
					valid_utf8 = 0;
			if (!valid_utf8)
				lx->notes |= CENSUS_NOTE_NOT_UTF8;
			else {
				memcpy(d + o, src + i, n + 1);
				o += n + 1;
				i += n + 1;
				continue;
			}
		}
		d[o++] = (char)ch;
		i++;
	}
	/* GCC's buffers always end with a newline */
	if (!o || d[o - 1] != '\n')
		d[o++] = '\n';
	memset(d + o, 0, PAD);
	lx->buf = d;
	lx->len = o;
	c->pos = 0;
	c->si = 0;
	c->line = 1;
}

/* The original line of cleaned offset OFF; OFF must not go backwards. */
static long line_at(struct cleaner *c, const char *buf, size_t off)
{
	for (; c->pos < off; c->pos++)
		if (buf[c->pos] == '\n')
			c->line++;
	while (c->si < c->nsplice && c->splice[c->si] <= off) {
		c->line++;
		c->si++;
	}
	return c->line;
}

static int is_ident_start(unsigned char ch)
{
	return isalpha(ch) || ch == '_' || ch == '$' || ch >= 0x80;
}

static int is_ident_char(unsigned char ch)
{
	return is_ident_start(ch) || isdigit(ch);
}

/* End of a block comment whose body starts at I; sets *open if none. */
static size_t skip_block_comment(const char *b, size_t n, size_t i, int *open)
{
	for (; i + 1 < n; i++)
		if (b[i] == '*' && b[i + 1] == '/')
			return i + 2;
	*open = 1;
	return n;
}

/* End of a string or character literal opened at I (the quote). */
static size_t skip_literal(const char *b, size_t n, size_t i, int *open)
{
	char q = b[i++];

	for (; i < n; i++) {
		if (b[i] == '\\' && i + 1 < n && b[i + 1] != '\n')
			i++;
		else if (b[i] == q)
			return i + 1;
		else if (b[i] == '\n')
			break;
	}
	*open = 1;
	return i;
}

/* End of a directive starting at I: the newline outside comments. */
static size_t skip_directive(const char *b, size_t n, size_t i, int *ocom,
			     int *ostr)
{
	while (i < n && b[i] != '\n') {
		if (b[i] == '/' && b[i + 1] == '*')
			i = skip_block_comment(b, n, i + 2, ocom);
		else if (b[i] == '/' && b[i + 1] == '/')
			while (i < n && b[i] != '\n')
				i++;
		else if (b[i] == '"' || b[i] == '\'')
			i = skip_literal(b, n, i, ostr);
		else
			i++;
	}
	return i;
}

/*
 * If the directive at I is "#define NAME" or "#define NAME(params)", the
 * offset where its body starts; else I.
 */
static size_t define_body(const char *b, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && (b[j] == ' ' || b[j] == '\t'))
		j++;
	if (n - j < 7 || memcmp(b + j, "define", 6) ||
	    (b[j + 6] != ' ' && b[j + 6] != '\t'))
		return i;
	for (j += 6; j < n && (b[j] == ' ' || b[j] == '\t'); j++)
		;
	if (j >= n || !is_ident_start((unsigned char)b[j]))
		return i;
	while (j < n && is_ident_char((unsigned char)b[j]))
		j++;
	if (b[j] == '(') {
		while (j < n && b[j] != ')' && b[j] != '\n')
			j++;
		if (b[j] != ')')
			return i;
		j++;
	}
	return j;
}

static void push_tok(struct clex *lx, struct cleaner *c, enum ctok_kind k,
		     size_t s, size_t e)
{
	struct ctok *t;

	if (lx->nr == lx->alloc) {
		lx->alloc = lx->alloc ? 2 * lx->alloc : 256;
		lx->toks = xrealloc(lx->toks, lx->alloc * sizeof(*lx->toks));
	}
	t = &lx->toks[lx->nr++];
	t->kind = k;
	t->start = s;
	t->end = e;
	t->line = line_at(c, lx->buf, s);
	t->end_line = line_at(c, lx->buf, e > s ? e - 1 : s);
}

void clex_run(struct clex *lx, const char *src, size_t len)
{
	struct cleaner c = { 0 };
	const char *b;
	size_t n, i = 0;
	int bol = 1, ocom = 0, ostr = 0, in_define = 0;

	memset(lx, 0, sizeof(*lx));
	clean(lx, &c, src, len);
	b = lx->buf;
	n = lx->len;
	while (i < n) {
		unsigned char ch = (unsigned char)b[i];
		enum ctok_kind k;
		size_t s = i;

		if (ch == '\n') {
			/* the end of a macro body is a directive boundary */
			if (in_define)
				push_tok(lx, &c, CTOK_PREPROC, i, i);
			in_define = 0;
			bol = 1;
			i++;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\f' || ch == '\v') {
			i++;
			continue;
		}
		if (ch == '/' && b[i + 1] == '*') {
			k = CTOK_COMMENT;
			i = skip_block_comment(b, n, i + 2, &ocom);
		} else if (ch == '/' && b[i + 1] == '/') {
			k = CTOK_COMMENT;
			while (i < n && b[i] != '\n')
				i++;
		} else if (ch == '#' && bol) {
			k = CTOK_PREPROC;
			/*
			 * A macro body is lexed as code: GCC keeps the
			 * fall-through flag of its tokens, so markers and
			 * labels in it count where the macro is used.
			 */
			i = define_body(b, n, i);
			in_define = i != s;
			if (!in_define)
				i = skip_directive(b, n, i, &ocom, &ostr);
		} else if (isdigit(ch) ||
			   (ch == '.' && isdigit((unsigned char)b[i + 1]))) {
			k = CTOK_NUMBER;
			for (i++; i < n; i++) {
				unsigned char x = (unsigned char)b[i];

				if ((x == '+' || x == '-') &&
				    strchr("eEpP", b[i - 1]))
					continue;
				if (!is_ident_char(x) && x != '.')
					break;
			}
		} else if (is_ident_start(ch)) {
			k = CTOK_IDENT;
			while (i < n && is_ident_char((unsigned char)b[i]))
				i++;
		} else if (ch == '"') {
			k = CTOK_STRING;
			i = skip_literal(b, n, i, &ostr);
		} else if (ch == '\'') {
			k = CTOK_CHAR;
			i = skip_literal(b, n, i, &ostr);
		} else if (ch < 0x20 || ch == 0x7f) {
			k = CTOK_OTHER;
			i++;
		} else {
			k = CTOK_PUNCT;
			i++;
		}
		if (k != CTOK_COMMENT)
			bol = 0;
		push_tok(lx, &c, k, s, i);
	}
	if (ocom)
		lx->notes |= CENSUS_NOTE_UNTERMINATED_COMMENT;
	if (ostr)
		lx->notes |= CENSUS_NOTE_UNTERMINATED_STRING;
	lx->lines = line_at(&c, b, n);
	if (n && b[n - 1] == '\n')
		lx->lines--;
	free(c.splice);
}

void clex_release(struct clex *lx)
{
	if (!lx)
		return;
	free(lx->buf);
	free(lx->toks);
	memset(lx, 0, sizeof(*lx));
}

int clex_is(const struct clex *lx, const struct ctok *t, const char *s)
{
	size_t n = strlen(s);

	return t->end - t->start == n && !memcmp(lx->buf + t->start, s, n);
}

/*
 * GCC 12's comment rules (libcpp/lex.cc, fallthrough_comment_p),
 * restated.  P points just past the comment's opening slash, at the
 * star or the second slash; END is where GCC's cursor stands after the
 * comment.  Reads past END stop at the first mismatch, as GCC's do.
 */
static int level2_match(const char *p, const char *end)
{
	const char *f = p + 1;

	for (; end - f >= 8; f++) {
		if (tolower((unsigned char)f[0]) != 'f' ||
		    tolower((unsigned char)f[1]) != 'a' ||
		    tolower((unsigned char)f[2]) != 'l' ||
		    tolower((unsigned char)f[3]) != 'l')
			continue;
		f += 4;
		if (*f == 's' || *f == 'S')
			f++;
		while (*f == ' ' || *f == '\t' || *f == '-')
			f++;
		if (tolower((unsigned char)f[0]) != 't' ||
		    tolower((unsigned char)f[1]) != 'h' ||
		    tolower((unsigned char)f[2]) != 'r')
			continue;
		if (f[3] == 'u' || f[3] == 'U')
			return 1;
		if (tolower((unsigned char)f[3]) == 'o' &&
		    tolower((unsigned char)f[4]) == 'u' &&
		    tolower((unsigned char)f[5]) == 'g' &&
		    tolower((unsigned char)f[6]) == 'h')
			return 1;
	}
	return 0;
}

static int has(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

static int blank_or(char ch, const char *also)
{
	return ch == ' ' || ch == '\t' || (ch && strchr(also, ch));
}

/* The optional "else," / "intentional(ly)" lead of the level 3 pattern. */
static const char *level3_lead(const char *f, const char *end, char *first,
			       int *upper)
{
	char c0 = *f;

	if (c0 == 'E' || c0 == 'e') {
		if (end - f < 13)
			return NULL;
		if (c0 == 'E' && !memcmp(f + 1, "LSE", 3))
			*upper = 1;
		else if (memcmp(f + 1, "lse", 3))
			return NULL;
		f += 4;
		if (*f == ',')
			f++;
		if (*f++ != ' ')
			return NULL;
		if ((*upper && *f == 'f') || (c0 == 'e' && *f == 'F'))
			return NULL;
	} else if (c0 == 'I' || c0 == 'i') {
		if (end - f < 20)
			return NULL;
		if (c0 == 'I' && !memcmp(f + 1, "NTENTIONAL", 10))
			*upper = 1;
		else if (memcmp(f + 1, "ntentional", 10))
			return NULL;
		f += 11;
		if (*f == ' ') {
			f++;
			if (*upper && *f == 'f')
				return NULL;
		} else if (*upper) {
			if (memcmp(f, "LY F", 4))
				return NULL;
			f += 3;
		} else {
			if (memcmp(f, "ly ", 3))
				return NULL;
			f += 3;
		}
		if (c0 == 'i' && *f == 'F')
			return NULL;
	}
	*first = *f;
	return f;
}

/* The level 3 sentence: ELSE/INTENTIONAL, FALL(S)THR(OUGH|U), reason. */
static const char *level3_sentence(const char *f, const char *end, int block)
{
	int upper = 0;
	char first;

	while (blank_or(*f, ".!"))
		f++;
	f = level3_lead(f, end, &first, &upper);
	if (!f || (first != 'F' && first != 'f') || end - f < 8)
		return NULL;
	if (first == 'F' && !memcmp(f + 1, "ALL", 3))
		upper = 1;
	else if (upper || memcmp(f + 1, "all", 3))
		return NULL;
	f += 4;
	if (*f == (upper ? 'S' : 's') && f[1] == ' ')
		f += 2;
	else if (*f == ' ' || *f == '-')
		f++;
	else if (*f != (upper ? 'T' : 't'))
		return NULL;
	/* "Fall Through" and "fall through", not "fall Through" */
	if (!((first == 'F' && *f == 'T') || (!upper && *f == 't')))
		return NULL;
	if (end - f < 4)
		return NULL;
	if (!memcmp(f + 1, upper ? "HRU" : "hru", 3)) {
		f += 4;
	} else {
		if (end - f < 7 ||
		    memcmp(f + 1, upper ? "HROUGH" : "hrough", 6))
			return NULL;
		f += 7;
	}
	while (blank_or(*f, ".!"))
		f++;
	if (*f != '-')
		return f;
	f++;
	if (!block) {
		while (*f && *f != '\n' && *f != '\r')
			f++;
		return f;
	}
	for (;;) {
		while (*f && *f != '*' && *f != '\n' && *f != '\r')
			f++;
		if (*f != '*' || f[1] == '/')
			break;
		f++;
	}
	return f;
}

static int level34_match(const char *p, const char *end, int level)
{
	int block = *p == '*';
	const char *f = p + 1;

	if (*f == '-' || *f == '@') {
		int at = *f == '@';

		if (!has(f + 1, end, "fallthrough"))
			return 0;
		if (at && f[12] != '@')
			return 0;
		f += 12 + at;
	} else if (*f == 'l') {
		if (!has(f + 1, end, "int -fallthrough"))
			return 0;
		f += 17;
		while (*f == ' ' || *f == '\t')
			f++;
	} else if (level == 4) {
		while (*f == ' ' || *f == '\t')
			f++;
		if (!has(f, end, "FALLTHR"))
			return 0;
		f += 7;
		if (*f == 'U')
			f++;
		else if (has(f, end, "OUGH"))
			f += 4;
		else
			return 0;
		while (*f == ' ' || *f == '\t')
			f++;
	} else {
		f = level3_sentence(f, end, block);
		if (!f)
			return 0;
	}
	if (block)
		return f[0] == '*' && f[1] == '/';
	return *f == '\n';
}

unsigned census_comment_levels(const char *text, size_t len)
{
	const char *p, *end = text + len;
	unsigned lv = 1u << 1;

	if (len < 2 || text[0] != '/' || (text[1] != '*' && text[1] != '/'))
		return 0;
	/* an unterminated block comment is an error, never a marker */
	if (text[1] == '*' &&
	    (len < 4 || text[len - 2] != '*' || text[len - 1] != '/'))
		return 0;
	p = text + 1;
	if (level2_match(p, end))
		lv |= 1u << 2;
	if (level34_match(p, end, 3))
		lv |= 1u << 3;
	if (level34_match(p, end, 4))
		lv |= 1u << 4;
	return lv;
}

int census_comment_is_marker(const char *text, size_t len)
{
	return (census_comment_levels(text, len) & (1u << 2)) != 0;
}

char *census_comment_key(const char *text, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	int block = len >= 2 && text[1] == '*';
	size_t i = 2, e = len, mark;
	char *thr;
	int space = 0;

	if (block && len >= 4 && text[len - 2] == '*' && text[len - 1] == '/')
		e = len - 2;
	strbuf_addstr(&sb, block ? "/* " : "// ");
	mark = sb.len;
	for (; i < e; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (ch == '\n') {
			/* the " * " that starts each line of a long comment */
			while (i + 1 < e &&
			       (text[i + 1] == ' ' || text[i + 1] == '\t'))
				i++;
			if (i + 1 < e && text[i + 1] == '*')
				i++;
			space = 1;
			continue;
		}
		if (isspace(ch)) {
			space = 1;
			continue;
		}
		if (space && sb.len > mark)
			strbuf_addch(&sb, ' ');
		space = 0;
		strbuf_addch(&sb, tolower(ch));
	}
	/* cut a trailing " - reason" after the fall-through words */
	thr = strstr(sb.buf + mark, "thr");
	if (thr) {
		char *dash = strstr(thr, " - ");

		if (!dash)
			dash = strstr(thr, " -- ");
		if (dash) {
			sb.len = (size_t)(dash - sb.buf);
			sb.buf[sb.len] = '\0';
			strbuf_addstr(&sb, " - ...");
		}
	}
	/* prose is grouped by its start */
	if (sb.len > mark + KEY_MAX) {
		sb.len = mark + KEY_MAX - 3;
		sb.buf[sb.len] = '\0';
		strbuf_addstr(&sb, "...");
	}
	if (block)
		strbuf_addstr(&sb, sb.len > mark ? " */" : "*/");
	return strbuf_detach(&sb, NULL);
}

/* ---- labels and their markers ---- */

static int tok_is_punct(const struct clex *lx, const struct ctok *t, char c)
{
	return t->kind == CTOK_PUNCT && lx->buf[t->start] == c;
}

static int ident_ci_has(const struct clex *lx, const struct ctok *t,
			const char *needle)
{
	size_t n = strlen(needle), len = t->end - t->start, i, k;

	for (i = 0; i + n <= len; i++) {
		for (k = 0; k < n; k++)
			if (tolower((unsigned char)lx->buf[t->start + i + k]) !=
			    needle[k])
				break;
		if (k == n)
			return 1;
	}
	return 0;
}

/* Previous token before index I that is code (not comment or directive). */
static long prev_code(const struct clex *lx, long i)
{
	for (i--; i >= 0; i--)
		if (lx->toks[i].kind != CTOK_COMMENT &&
		    lx->toks[i].kind != CTOK_PREPROC)
			return i;
	return -1;
}

/*
 * The statement marker ending at the ';' at index SEMI: fallthrough;,
 * __attribute__((fallthrough));, [[fallthrough]];, FALLTHROUGH; or
 * FALL_THROUGH();.  Returns the kind and sets *first to its first token.
 */
static enum census_marker stmt_marker(const struct clex *lx, long semi,
				      long *first)
{
	const struct ctok *t = lx->toks;
	long a = prev_code(lx, semi), b, c, d, e;

	if (a < 0)
		return CENSUS_MARK_NONE;
	if (t[a].kind == CTOK_IDENT) {
		b = prev_code(lx, a);
		/*
		 * A lone identifier statement, not "x = fallthrough;"; a
		 * ')' before it ends a macro call without its semicolon.
		 */
		if (b >= 0 && !tok_is_punct(lx, &t[b], ';') &&
		    !tok_is_punct(lx, &t[b], '{') &&
		    !tok_is_punct(lx, &t[b], '}') &&
		    !tok_is_punct(lx, &t[b], ':') &&
		    !tok_is_punct(lx, &t[b], ')') &&
		    !clex_is(lx, &t[b], "else"))
			return CENSUS_MARK_NONE;
		*first = a;
		if (clex_is(lx, &t[a], "fallthrough"))
			return CENSUS_MARK_KEYWORD;
		if (ident_ci_has(lx, &t[a], "fall") &&
		    ident_ci_has(lx, &t[a], "thr"))
			return CENSUS_MARK_MACRO;
		return CENSUS_MARK_NONE;
	}
	if (tok_is_punct(lx, &t[a], ')')) {
		b = prev_code(lx, a);
		if (b < 0)
			return CENSUS_MARK_NONE;
		/* MACRO() */
		if (tok_is_punct(lx, &t[b], '(')) {
			c = prev_code(lx, b);
			if (c >= 0 && t[c].kind == CTOK_IDENT &&
			    ident_ci_has(lx, &t[c], "fall") &&
			    ident_ci_has(lx, &t[c], "thr")) {
				*first = c;
				return CENSUS_MARK_MACRO;
			}
			return CENSUS_MARK_NONE;
		}
		/* __attribute__((NAME)) */
		if (!tok_is_punct(lx, &t[b], ')'))
			return CENSUS_MARK_NONE;
		c = prev_code(lx, b);
		d = c >= 0 ? prev_code(lx, c) : -1;
		e = d >= 0 ? prev_code(lx, d) : -1;
		if (e < 0 || t[c].kind != CTOK_IDENT ||
		    !tok_is_punct(lx, &t[d], '(') ||
		    !tok_is_punct(lx, &t[e], '('))
			return CENSUS_MARK_NONE;
		if (!clex_is(lx, &t[c], "fallthrough") &&
		    !clex_is(lx, &t[c], "__fallthrough__"))
			return CENSUS_MARK_NONE;
		e = prev_code(lx, e);
		if (e < 0 || (!clex_is(lx, &t[e], "__attribute__") &&
			      !clex_is(lx, &t[e], "__attribute")))
			return CENSUS_MARK_NONE;
		*first = e;
		return CENSUS_MARK_ATTRIBUTE;
	}
	if (tok_is_punct(lx, &t[a], ']')) {
		/* [[fallthrough]], [[gnu::fallthrough]] */
		long k = a;
		int n;

		for (n = 0; n < 8 && k >= 0; n++) {
			k = prev_code(lx, k);
			if (k >= 1 && tok_is_punct(lx, &t[k], '[') &&
			    tok_is_punct(lx, &t[k - 1], '[')) {
				*first = k - 1;
				return ident_ci_has(lx, &t[a - 2],
						    "fallthrough") ?
					       CENSUS_MARK_ATTRIBUTE :
					       CENSUS_MARK_NONE;
			}
		}
	}
	return CENSUS_MARK_NONE;
}

static char *tokens_text(const struct clex *lx, long from, long to)
{
	struct strbuf sb = STRBUF_INIT;
	long i;

	for (i = from; i <= to; i++) {
		const struct ctok *t = &lx->toks[i];

		if (t->kind == CTOK_COMMENT || t->kind == CTOK_PREPROC)
			continue;
		strbuf_add(&sb, lx->buf + t->start, t->end - t->start);
	}
	return strbuf_detach(&sb, NULL);
}

/* What lies strictly between token indexes FROM and TO. */
static unsigned gap_between(const struct clex *lx, long from, long to)
{
	unsigned gap = 0;
	long i;

	for (i = from + 1; i <= to; i++) {
		const struct ctok *t = &lx->toks[i];

		if (t->line - lx->toks[i - 1].end_line > 1)
			gap |= CENSUS_GAP_BLANK;
		if (i == to)
			break;
		if (t->kind == CTOK_COMMENT)
			gap |= CENSUS_GAP_COMMENT;
		else if (t->kind == CTOK_PREPROC)
			gap |= CENSUS_GAP_PREPROC;
		else if (tok_is_punct(lx, t, '}'))
			gap |= CENSUS_GAP_BRACE;
		else
			gap |= CENSUS_GAP_STATEMENT;
	}
	return gap;
}

/*
 * Does the '}' at index I close a plain block, one that follows a label,
 * a statement or another brace (not an if, loop or else body)?
 */
static int closes_block(const struct clex *lx, long i)
{
	const struct ctok *t = lx->toks;
	long depth = 0, p;

	for (; i >= 0; i = prev_code(lx, i)) {
		if (tok_is_punct(lx, &t[i], '}'))
			depth++;
		else if (tok_is_punct(lx, &t[i], '{') && --depth == 0)
			break;
	}
	if (i < 0)
		return 0;
	p = prev_code(lx, i);
	return p >= 0 &&
	       (tok_is_punct(lx, &t[p], ':') || tok_is_punct(lx, &t[p], ';') ||
		tok_is_punct(lx, &t[p], '{') || tok_is_punct(lx, &t[p], '}'));
}

/* Fill the marker of label L at token index K. */
static void find_marker(struct census_label *l, const struct clex *lx, long k)
{
	const struct ctok *t = lx->toks;
	long i, first = -1, semis = 0;
	enum census_marker m;

	/*
	 * A statement marker: the code right before is "...;".  GCC looks
	 * through empty statements and out of plain blocks that end there
	 * (case 0: { ...; fallthrough; }), not out of an if's braces.
	 */
	i = prev_code(lx, k);
	while (i >= 0) {
		long p = prev_code(lx, i);

		if (tok_is_punct(lx, &t[i], ';') && p >= 0 &&
		    tok_is_punct(lx, &t[p], ';'))
			i = p;
		else if (tok_is_punct(lx, &t[i], '}') && closes_block(lx, i))
			i = p;
		else
			break;
	}
	if (i >= 0 && tok_is_punct(lx, &t[i], ';')) {
		m = stmt_marker(lx, i, &first);
		if (m != CENSUS_MARK_NONE) {
			l->marker = m;
			l->marker_line = t[first].line;
			l->spelling = tokens_text(lx, first, i);
			if (m == CENSUS_MARK_KEYWORD ||
			    m == CENSUS_MARK_ATTRIBUTE)
				l->levels |=
					m == CENSUS_MARK_KEYWORD ||
							!memcmp(l->spelling,
								"__attr", 6) ?
						0x3eu :
						0;
			l->gap = gap_between(lx, i, k);
			return;
		}
	}
	/*
	 * The nearest comment marker, or a fallthrough; that stands where
	 * GCC does not take it (inside an if), a statement or two back.
	 */
	for (i = k - 1; i >= 0 && k - i < 64; i--) {
		if (clex_is(lx, &t[i], "fallthrough") && i + 1 < k &&
		    tok_is_punct(lx, &t[i + 1], ';')) {
			l->marker = CENSUS_MARK_KEYWORD;
			l->marker_line = t[i].line;
			l->spelling = xstrdup("fallthrough;");
			l->gap = gap_between(lx, i + 1, k);
			return;
		}
		if (t[i].kind == CTOK_COMMENT) {
			if (census_comment_is_marker(lx->buf + t[i].start,
						     t[i].end - t[i].start))
				break;
			continue;
		}
		if (t[i].kind == CTOK_PREPROC)
			continue;
		if (tok_is_punct(lx, &t[i], '{') ||
		    clex_is(lx, &t[i], "case") ||
		    clex_is(lx, &t[i], "default") ||
		    clex_is(lx, &t[i], "switch"))
			return;
		if (tok_is_punct(lx, &t[i], ';') && ++semis > 3)
			return;
	}
	if (i < 0 || k - i >= 64)
		return;
	l->marker = CENSUS_MARK_COMMENT;
	l->marker_line = t[i].line;
	l->spelling =
		census_comment_key(lx->buf + t[i].start, t[i].end - t[i].start);
	l->gap = gap_between(lx, i, k);
}

static void add_label(struct census_file *f, const struct clex *lx, long k)
{
	const struct ctok *t = lx->toks;
	struct census_label *l;
	long i;

	if (f->nr == f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 32;
		f->labels = xrealloc(f->labels, f->alloc * sizeof(*f->labels));
	}
	l = &f->labels[f->nr++];
	memset(l, 0, sizeof(*l));
	l->line = t[k].line;
	l->is_default = clex_is(lx, &t[k], "default");
	i = prev_code(lx, k);
	if (i >= 0) {
		l->prev_line = t[i].end_line;
		l->prev_char = lx->buf[t[i].end - 1];
	}
	/* GCC: the comments since the last token, no directive between */
	for (i = k - 1; i >= 0 && t[i].kind == CTOK_COMMENT; i--)
		l->levels |= census_comment_levels(lx->buf + t[i].start,
						   t[i].end - t[i].start);
	find_marker(l, lx, k);
}

void census_scan(struct census_file *out, const char *src, size_t len)
{
	struct clex lx;
	size_t k;

	memset(out, 0, sizeof(*out));
	clex_run(&lx, src, len);
	out->notes = lx.notes;
	out->lines = lx.lines;
	for (k = 0; k < lx.nr; k++) {
		const struct ctok *t = &lx.toks[k];

		if (t->kind != CTOK_IDENT)
			continue;
		if (clex_is(&lx, t, "case")) {
			add_label(out, &lx, (long)k);
		} else if (clex_is(&lx, t, "default")) {
			size_t j = k + 1;

			while (j < lx.nr && lx.toks[j].kind == CTOK_COMMENT)
				j++;
			if (j < lx.nr && tok_is_punct(&lx, &lx.toks[j], ':'))
				add_label(out, &lx, (long)k);
		}
	}
	clex_release(&lx);
}

void census_file_release(struct census_file *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		free(f->labels[i].spelling);
	free(f->labels);
	memset(f, 0, sizeof(*f));
}
