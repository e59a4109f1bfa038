// SPDX-License-Identifier: MIT
/*
 * A missing break or an intended fall-through?  The two cases around an
 * implicit-fallthrough warning, cut into top-level statements with the
 * census lexer, weighed by a few signals (see classify.h).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "census.h"
#include "classify.h"
#include "util.h"
#include "banned.h"

#define MAX_STMTS 256

/* A top-level statement of a case body: code tokens [first, last]. */
struct stmt {
	long first, last;
	long op; /* index of the assignment '=', or -1 */
	int compound; /* length of the +, <<, ... before '=' */
	int control; /* if, for, while, switch, do, else, a block */
	int exits; /* break, return, goto or continue inside */
	int is_exit; /* the statement itself is one of those */
};

struct body {
	struct stmt s[MAX_STMTS];
	int n;
	int ends_in_exit; /* last statement leaves the switch */
	int falls_on; /* ends without leaving: into the next case */
};

struct cls {
	struct clex lx;
	long *code; /* indexes of code tokens (no comments) */
	long ncode;
};

static const struct ctok *T(const struct cls *c, long i)
{
	return &c->lx.toks[c->code[i]];
}

static int is(const struct cls *c, long i, const char *s)
{
	return clex_is(&c->lx, T(c, i), s);
}

static int punct(const struct cls *c, long i, char ch)
{
	const struct ctok *t = T(c, i);

	return t->kind == CTOK_PUNCT && c->lx.buf[t->start] == ch;
}

static int same_text(const struct cls *c, long i, long j)
{
	const struct ctok *a = T(c, i), *b = T(c, j);

	return a->end - a->start == b->end - b->start &&
	       !memcmp(c->lx.buf + a->start, c->lx.buf + b->start,
		       a->end - a->start);
}

/* A literal value: a number, a character, true or false. */
static int is_value(const struct cls *c, long i)
{
	const struct ctok *t = T(c, i);

	return t->kind == CTOK_NUMBER || t->kind == CTOK_CHAR ||
	       is(c, i, "true") || is(c, i, "false");
}

static int is_exit_word(const struct cls *c, long i)
{
	return is(c, i, "break") || is(c, i, "return") || is(c, i, "goto") ||
	       is(c, i, "continue");
}

static int is_control_word(const struct cls *c, long i)
{
	return is(c, i, "if") || is(c, i, "for") || is(c, i, "while") ||
	       is(c, i, "switch") || is(c, i, "do") || is(c, i, "else");
}

/* Is the '=' at I an assignment (not ==, <=, >=, !=)? Sets *compound. */
static int assign_at(const struct cls *c, long i, long first, int *compound)
{
	const struct ctok *t = T(c, i);

	if (!punct(c, i, '='))
		return 0;
	if (i + 1 < c->ncode && punct(c, i + 1, '=') &&
	    T(c, i + 1)->start == t->end)
		return 0;
	*compound = 0;
	if (i > first && T(c, i - 1)->kind == CTOK_PUNCT &&
	    T(c, i - 1)->end == t->start) {
		char p = c->lx.buf[T(c, i - 1)->start];

		if (p == '=' || p == '!')
			return 0;
		if (p == '<' || p == '>') {
			/* <<= and >>= are compound; <= and >= compare */
			if (i - 1 > first && punct(c, i - 2, p) &&
			    T(c, i - 2)->end == T(c, i - 1)->start)
				*compound = 2;
			else
				return 0;
		} else if (strchr("+-*/%&|^", p)) {
			*compound = 1;
		}
	}
	return 1;
}

/* Cut code tokens [from, to) into top-level statements. */
static void cut_body(struct body *b, const struct cls *c, long from, long to,
		     int drop_before_exit)
{
	long i, start = from;
	int paren = 0, brace = 0;

	memset(b, 0, sizeof(*b));
	for (i = from; i < to && b->n < MAX_STMTS; i++) {
		struct stmt *s;
		int end = 0;

		if (punct(c, i, '(') || punct(c, i, '['))
			paren++;
		else if ((punct(c, i, ')') || punct(c, i, ']')) && paren)
			paren--;
		else if (punct(c, i, '{'))
			brace++;
		else if (punct(c, i, '}') && brace)
			end = --brace == 0 && paren == 0 &&
			      !(i + 1 < to && (is(c, i + 1, "else") ||
					       is(c, i + 1, "while")));
		else if (punct(c, i, ';') && !paren && !brace)
			end = 1;
		else if (punct(c, i, ':') && !paren && !brace &&
			 i == start + 1 && T(c, start)->kind == CTOK_IDENT)
			end = 1; /* a goto label */
		if (!end)
			continue;
		s = &b->s[b->n++];
		memset(s, 0, sizeof(*s));
		s->first = start;
		s->last = i;
		s->op = -1;
		s->control = is_control_word(c, start) || punct(c, start, '{');
		s->is_exit = is_exit_word(c, start);
		/*
		 * What stands before an unconditional break or return
		 * cannot fall through (the other branch of an #ifdef).
		 */
		if (s->is_exit && drop_before_exit && i + 1 < to) {
			b->n = 0;
			start = i + 1;
			continue;
		}
		for (long k = start; k <= i; k++) {
			int comp = 0;

			if (is_exit_word(c, k))
				s->exits = 1;
			if (!s->control && s->op < 0 &&
			    assign_at(c, k, start, &comp)) {
				s->op = k;
				s->compound = comp;
			}
		}
		start = i + 1;
	}
	if (b->n) {
		const struct stmt *l = &b->s[b->n - 1];

		b->ends_in_exit = l->is_exit;
		b->falls_on = !l->is_exit;
	}
}

/* Index just past the left side of S's assignment (before "+=" etc). */
static long lhs_end(const struct stmt *s)
{
	return s->op - s->compound;
}

/* The first identifier of the left side of S (its base variable). */
static long lhs_base(const struct cls *c, const struct stmt *s)
{
	for (long k = s->first; k < lhs_end(s); k++)
		if (T(c, k)->kind == CTOK_IDENT)
			return k;
	return -1;
}

/* A left side that moves or calls: *p++ = x, f(a)->b = x. */
static int lhs_has_effects(const struct cls *c, const struct stmt *s)
{
	for (long k = s->first; k < lhs_end(s); k++)
		if (punct(c, k, '(') ||
		    (k + 1 < lhs_end(s) &&
		     (punct(c, k, '+') || punct(c, k, '-')) &&
		     punct(c, k + 1, c->lx.buf[T(c, k)->start])))
			return 1;
	return 0;
}

/* Does [from, to] mention the identifier at BASE? */
static int mentions(const struct cls *c, long from, long to, long base)
{
	for (long k = from; k <= to; k++)
		if (T(c, k)->kind == CTOK_IDENT && same_text(c, k, base))
			return 1;
	return 0;
}

/* Do two left sides read the same? */
static int same_lhs(const struct cls *c, const struct stmt *a,
		    const struct stmt *b)
{
	long n = lhs_end(a) - a->first;

	if (n != lhs_end(b) - b->first || n <= 0)
		return 0;
	for (long k = 0; k < n; k++)
		if (!same_text(c, a->first + k, b->first + k))
			return 0;
	return 1;
}

/* Is WORD one of the '_'-separated parts of the name P (N bytes)? */
static int has_part(const char *p, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= n; i++)
		if ((i == 0 || p[i - 1] == '_') &&
		    (i + w == n || p[i + w] == '_') &&
		    !strncasecmp(p + i, word, w))
			return 1;
	return 0;
}

/* A call that only reports: pr_err(), dev_warn(), DRM_DEBUG(), ... */
static int is_print_call(const struct cls *c, long i)
{
	const struct ctok *t = T(c, i);
	const char *p = c->lx.buf + t->start;
	size_t n = t->end - t->start;
	static const char *const always[] = {
		"pr_",	 "printk", "dprintk", "WARN",	    "DBG",    "dbg",
		"debug", "IWL_",   "mlog",    "snd_printd", "trace_", "BUG",
	};
	static const char *const words[] = {
		"err",	 "error",  "warn",   "warning", "info",
		"dbg",	 "debug",  "notice", "crit",	"alert",
		"emerg", "printk", "print",  "log",
	};
	int print = 0;

	/* a call: debugfs_priv->x = v is no report (issue 34, seed 9104) */
	if (t->kind != CTOK_IDENT || i + 1 >= c->ncode || !punct(c, i + 1, '('))
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(always); k++)
		if (n >= strlen(always[k]) &&
		    !memcmp(p, always[k], strlen(always[k])))
			return 1;
	/* dev_err(), netdev_dbg(), drm_warn(), ath10k_dbg(): by the word */
	for (size_t k = 0; k < ARRAY_SIZE(words) && !print; k++)
		print = has_part(p, n, words[k]);
	return print;
}

static int says(struct classify_result *out, enum classify_verdict v,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int says(struct classify_result *out, enum classify_verdict v,
		const char *fmt, ...)
{
	va_list ap;

	out->verdict = v;
	out->fix = v == CLASSIFY_MISSING_BREAK ? "break;" :
		   v == CLASSIFY_INTENDED      ? "fallthrough;" :
						 NULL;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
	return 0;
}

static void tok_str(char *dst, size_t n, const struct cls *c, long from,
		    long to)
{
	size_t o = 0;

	for (long k = from; k <= to && o + 1 < n; k++) {
		const struct ctok *t = T(c, k);
		size_t len = t->end - t->start;

		if (len > n - 1 - o)
			len = n - 1 - o;
		memcpy(dst + o, c->lx.buf + t->start, len);
		o += len;
	}
	dst[o] = '\0';
}

/* Does any statement after the I-th of A leave on a condition? */
static int exits_after(const struct body *a, int i)
{
	for (int k = i + 1; k < a->n; k++)
		if (a->s[k].exits)
			return 1;
	return 0;
}

/*
 * Signal 1: a plain store of the falling case that nothing reads before
 * the next case stores to the same place again.
 */
static int dead_store(const struct cls *c, const struct body *a,
		      const struct body *b, char *what, size_t n)
{
	for (int i = a->n - 1; i >= 0; i--) {
		const struct stmt *sa = &a->s[i];
		long base;

		if (sa->op < 0 || sa->compound || sa->control)
			continue;
		base = lhs_base(c, sa);
		if (base < 0 || lhs_has_effects(c, sa))
			continue;
		/* read later in the falling case: not dead there */
		if (i + 1 < a->n &&
		    mentions(c, a->s[i + 1].first, a->s[a->n - 1].last, base))
			continue;
		/* seen by whoever an early exit after it leads to */
		if (exits_after(a, i))
			continue;
		for (int j = 0; j < b->n; j++) {
			const struct stmt *sb = &b->s[j];

			if (sb->control || sb->exits)
				break;
			if (sb->op >= 0 && !sb->compound &&
			    same_lhs(c, sa, sb) &&
			    !mentions(c, sb->op + 1, sb->last, base)) {
				tok_str(what, n, c, sa->first, lhs_end(sa) - 1);
				return 1;
			}
			if (mentions(c, sb->first, sb->last, base))
				break;
		}
	}
	return 0;
}

/*
 * Same shape, different values: the number of literal values that differ,
 * or -1.  A value counts only as an argument of the statement's own call
 * (or of its right side's), not inside an index or a nested call, where
 * it picks another object (vol_op[2], MC_REG(6)) rather than another
 * value for the same one.
 */
static int const_diff(const struct cls *c, const struct stmt *x,
		      const struct stmt *y)
{
	long n = x->last - x->first;
	int diff = 0, paren = 0, bracket = 0;

	if (n != y->last - y->first || n < 3)
		return -1;
	for (long k = 0; k <= n; k++) {
		long i = x->first + k, j = y->first + k;

		if (punct(c, i, '('))
			paren++;
		else if (punct(c, i, ')'))
			paren--;
		else if (punct(c, i, '['))
			bracket++;
		else if (punct(c, i, ']'))
			bracket--;
		if (same_text(c, i, j))
			continue;
		if (!is_value(c, i) || !is_value(c, j) || bracket || paren > 1)
			return -1;
		diff++;
	}
	return diff;
}

/*
 * Signal 2: the next case redoes the falling case's steps, one of them
 * with another value (seed 009: read, set the field to 0, write; then
 * read, set it to 1, write).  At least two of the next case's statements
 * must match the falling case's, one of them exactly, so that a shared
 * tail (skb_pull(skb, 1) then skb_pull(skb, 3)) or the next step of an
 * init sequence (write 1 to 0xc4, then 0 to 0xbf) is not a repeat.
 */
static int repeats(const struct cls *c, const struct body *a,
		   const struct body *b, char *what, size_t n)
{
	int matched = 0, same = 0, changed = -1;

	for (int j = 0; j < b->n; j++) {
		const struct stmt *sb = &b->s[j];

		if (sb->control || sb->exits)
			break;
		for (int i = 0; i < a->n; i++) {
			const struct stmt *sa = &a->s[i];
			int d;

			if (sa->control || sa->exits ||
			    is_print_call(c, sa->first))
				continue;
			d = const_diff(c, sa, sb);
			if (d < 0)
				continue;
			matched++;
			same += d == 0;
			if (d > 0 && changed < 0)
				changed = i;
			break;
		}
	}
	if (matched < 2 || !same || changed < 0)
		return 0;
	tok_str(what, n, c, a->s[changed].first, a->s[changed].last);
	return 1;
}

/*
 * Signal 2b: the next case starts over with the falling case's first step
 * (val = readl(r); val |= BIT; writel(val, r); then val = readl(r);
 * val &= ~BIT; ...), matching at least two of its statements but not
 * all: an unrolled loop repeats every statement, a restart does not.
 */
static int restarts(const struct cls *c, const struct body *a,
		    const struct body *b, char *what, size_t n)
{
	int matched = 0, differs = 0;

	if (a->n < 2 || b->n < 2 || a->s[0].control ||
	    const_diff(c, &a->s[0], &b->s[0]) != 0)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->s[i].exits)
			return 0;
	for (int j = 0; j < b->n; j++) {
		const struct stmt *sb = &b->s[j];
		int found = 0;

		if (sb->control || sb->exits)
			break;
		for (int i = 0; i < a->n && !found; i++)
			found = const_diff(c, &a->s[i], sb) == 0;
		matched += found;
		differs |= !found;
	}
	if (matched < 2 || !differs)
		return 0;
	tok_str(what, n, c, a->s[0].first, a->s[0].last);
	return 1;
}

/* The falling case advances a state: x->state++, step = NEXT, ... */
static int advances_state(const struct cls *c, const struct body *a)
{
	static const char *const words[] = {
		"state", "unmarshall", "stage", "step", "phase", "STATE",
	};

	for (int i = 0; i < a->n; i++) {
		const struct stmt *s = &a->s[i];

		for (long k = s->first; k <= s->last; k++) {
			const struct ctok *t = T(c, k);

			if (t->kind != CTOK_IDENT)
				continue;
			for (size_t w = 0; w < ARRAY_SIZE(words); w++)
				if (memmem(c->lx.buf + t->start,
					   t->end - t->start, words[w],
					   strlen(words[w])) &&
				    ((k + 2 <= s->last &&
				      punct(c, k + 1, '+') &&
				      punct(c, k + 2, '+')) ||
				     (k >= s->first + 2 &&
				      punct(c, k - 1, '+') &&
				      punct(c, k - 2, '+')) ||
				     (s->op == k + 1)))
					return 1;
		}
	}
	return 0;
}

/* ---- signals over any statement, nested ones included ---- */

/*
 * The first token of the left side of the assignment whose '=' is at OP
 * (a variable, a field path, an element, *p), or -1 when the left side
 * moves or calls (*p++ = x, f(a)->b = x).
 */
static long lhs_start(const struct cls *c, long op, long first)
{
	long i = op - 1;

	while (i >= first) {
		if (T(c, i)->kind == CTOK_IDENT) {
			i--;
		} else if (punct(c, i, ']')) {
			int d = 0;

			for (; i >= first; i--) {
				if (punct(c, i, ']'))
					d++;
				else if (punct(c, i, '[') && --d == 0)
					break;
				else if (punct(c, i, '(') || punct(c, i, ')') ||
					 (i > first &&
					  (punct(c, i, '+') ||
					   punct(c, i, '-')) &&
					  punct(c, i - 1,
						c->lx.buf[T(c, i)->start])))
					return -1; /* a[f(x)], a[i++] */
			}
			i--;
		} else if (punct(c, i, '.') || (punct(c, i, '>') && i > first &&
						punct(c, i - 1, '-'))) {
			i -= punct(c, i, '.') ? 1 : 2;
		} else {
			break;
		}
	}
	i++;
	if (i >= op || T(c, i)->kind != CTOK_IDENT)
		return -1;
	/* *p = x: the star belongs to the left side unless it multiplies */
	if (i > first && punct(c, i - 1, '*') &&
	    (i - 1 == first || punct(c, i - 2, ';') || punct(c, i - 2, '{') ||
	     punct(c, i - 2, '}') || punct(c, i - 2, ')') ||
	     punct(c, i - 2, ':')))
		i--;
	if (i > first && (punct(c, i - 1, '+') || punct(c, i - 1, '-')) &&
	    i - 1 > first && punct(c, i - 2, c->lx.buf[T(c, i - 1)->start]))
		return -1; /* ++p = x */
	return i;
}

/* An assignment anywhere in a case: its left side [first, last]. */
struct store {
	long first, last, op;
	int compound;
};

#define MAX_STORES 64

/* The plain and compound assignments of code tokens [from, to). */
static int find_stores(struct store *st, const struct cls *c, long from,
		       long to)
{
	int n = 0, paren = 0;

	for (long i = from; i < to && n < MAX_STORES; i++) {
		int comp = 0;
		long f;

		if (punct(c, i, '('))
			paren++;
		else if (punct(c, i, ')') && paren)
			paren--;
		/* not the '=' of a for header or of a macro's argument */
		if (paren || !assign_at(c, i, from, &comp))
			continue;
		f = lhs_start(c, i - comp, from);
		if (f < 0)
			continue;
		st[n].first = f;
		st[n].last = i - comp - 1;
		st[n].op = i;
		st[n].compound = comp;
		n++;
	}
	return n;
}

/* Do code tokens at I and J start the same N tokens? */
static int same_seq(const struct cls *c, long i, long j, long n)
{
	for (long k = 0; k < n; k++)
		if (!same_text(c, i + k, j + k))
			return 0;
	return 1;
}

/*
 * Does the member path at I (.a, .b[2].c) end in a plain assignment
 * before TO?  The struct it names a member of is written, not read.
 */
static int member_store(const struct cls *c, long i, long to)
{
	int comp = 0;

	while (i + 1 < to) {
		if (punct(c, i, '.') && T(c, i + 1)->kind == CTOK_IDENT) {
			i += 2;
		} else if (punct(c, i, '[')) {
			int d = 0;

			for (; i < to; i++) {
				if (punct(c, i, '['))
					d++;
				else if (punct(c, i, ']') && --d == 0)
					break;
				else if (punct(c, i, '(') ||
					 (punct(c, i, '=') && d == 1))
					return 0; /* a call or a store inside */
			}
			i++;
		} else {
			break;
		}
	}
	return i < to && assign_at(c, i, i, &comp) && !comp;
}

/*
 * Is the left side S read in [from, to): named there other than as the
 * left side of a plain assignment?
 */
static long read_at(const struct cls *c, const struct store *s, long from,
		    long to)
{
	long n = s->last - s->first + 1;

	for (long i = from; i + n <= to; i++) {
		int comp = 0;

		if (!same_seq(c, i, s->first, n))
			continue;
		/* s.f = x stores into the s stored before: no read of it */
		if (i + n < to && punct(c, i + n, '.') &&
		    member_store(c, i + n, to))
			continue;
		/* a longer path that starts the same: p->a is not p->ab */
		if (i + n < to &&
		    (punct(c, i + n, '.') || punct(c, i + n, '[') ||
		     (punct(c, i + n, '-') && i + n + 1 < to &&
		      punct(c, i + n + 1, '>'))))
			return i;
		if (i > from && (punct(c, i - 1, '.') ||
				 (i - 2 >= from && punct(c, i - 1, '>') &&
				  punct(c, i - 2, '-'))))
			continue; /* x->len is not len */
		if (i + n < to && assign_at(c, i + n, from, &comp) && !comp)
			continue;
		return i;
	}
	return -1;
}

/*
 * Does the falling case [from, to) leave the switch early anywhere:
 * return, goto, or a break or continue outside a nested loop or switch?
 * With ONLY_BREAK, is there such a break (a path that ends the case)?
 */
static int leaves_early(const struct cls *c, long from, long to, int only_break)
{
	/*
	 * XXX: braces nested deeper than 64 are counted but not remembered:
	 * a break that deep is taken as leaving the case even inside a
	 * loop.  No kernel switch nests that deep.
	 */
	int stack[64], depth = 0, pending = 0, paren = 0;

	for (long i = from; i < to; i++) {
		if (punct(c, i, '('))
			paren++;
		else if (punct(c, i, ')') && paren)
			paren--;
		else if (is(c, i, "switch") || is(c, i, "for") ||
			 is(c, i, "while") || is(c, i, "do"))
			pending = 1;
		else if (punct(c, i, '{')) {
			if (depth < 64)
				stack[depth] = pending ||
					       (depth && stack[depth - 1]);
			depth++;
			pending = 0;
		} else if (punct(c, i, '}') && depth) {
			depth--;
		} else if (punct(c, i, ';') && !paren) {
			pending = 0;
		} else if (is(c, i, "return") || is(c, i, "goto")) {
			if (!only_break)
				return 1;
		} else if ((is(c, i, "break") ||
			    (!only_break && is(c, i, "continue"))) &&
			   !(depth && depth <= 64 && stack[depth - 1]) &&
			   !pending) {
			return 1;
		}
	}
	return 0;
}

/*
 * Signal 1b: the falling case stores, even inside an if or a nested
 * switch, and never leaves early; the next case stores to the same place
 * before anything reads it (a nested switch that picks an id, then the
 * next case's own id).
 */
static int dead_store_nested(const struct cls *c, long afrom, long ato,
			     const struct body *b, char *what, size_t n)
{
	struct store st[MAX_STORES];
	int ns;

	if (leaves_early(c, afrom, ato, 0))
		return 0;
	ns = find_stores(st, c, afrom, ato);
	for (int i = 0; i < ns; i++) {
		const struct store *s = &st[i];

		if (s->compound)
			continue;
		/* read after it in the falling case: not dead there */
		if (read_at(c, s, s->op + 1, ato) >= 0)
			continue;
		for (int j = 0; j < b->n; j++) {
			const struct stmt *sb = &b->s[j];
			long len = s->last - s->first + 1;

			if (sb->control || sb->exits)
				break;
			if (sb->op >= 0 && !sb->compound &&
			    lhs_end(sb) - sb->first == len &&
			    same_seq(c, sb->first, s->first, len) &&
			    read_at(c, s, sb->op + 1, sb->last + 1) < 0) {
				tok_str(what, n, c, s->first, s->last);
				return 1;
			}
			if (read_at(c, s, sb->first, sb->last + 1) >= 0)
				break;
		}
	}
	return 0;
}

/*
 * Signal 4: the next case assigns, anywhere, a place the falling case
 * assigned, without reading it first (if (len) rc = S_IRUGO; after
 * rc = S_IRUGO;).  Weaker than a dead store: the next store may not
 * happen.
 */
static int same_stores(const struct cls *c, const struct body *a, long afrom,
		       long ato, long bfrom, long bto, char *what, size_t n)
{
	struct store sa[MAX_STORES], sb[MAX_STORES];
	int na = find_stores(sa, c, afrom, ato);
	int nb = find_stores(sb, c, bfrom, bto);

	for (int i = 0; i < na; i++) {
		long len = sa[i].last - sa[i].first + 1;
		int top = 0;

		/* a store on the way out (in an if that breaks) is no match */
		for (int t = 0; t < a->n && !top; t++)
			top = a->s[t].op == sa[i].op && !a->s[t].control;
		if (sa[i].compound || !top)
			continue;
		/* read after it in the falling case: it did its job there */
		if (read_at(c, &sa[i], sa[i].op + 1, ato) >= 0)
			continue;
		for (int j = 0; j < nb; j++) {
			long r;

			if (sb[j].compound ||
			    sb[j].last - sb[j].first + 1 != len ||
			    !same_seq(c, sa[i].first, sb[j].first, len))
				continue;
			r = read_at(c, &sa[i], bfrom, bto);
			if (r >= 0 && r < sb[j].first)
				break; /* read first: it builds on it */
			tok_str(what, n, c, sa[i].first, sa[i].last);
			return 1;
		}
	}
	return 0;
}

/*
 * Same statement but for names and values: the number of tokens that
 * differ (identifiers for identifiers, literals for literals), or -1.
 */
static int shape_diff(const struct cls *c, const struct stmt *x,
		      const struct stmt *y)
{
	long n = x->last - x->first;
	int diff = 0;

	if (n != y->last - y->first)
		return -1;
	for (long k = 0; k <= n; k++) {
		long i = x->first + k, j = y->first + k;
		enum ctok_kind ki = T(c, i)->kind, kj = T(c, j)->kind;

		if (same_text(c, i, j))
			continue;
		if (ki == CTOK_PUNCT || kj == CTOK_PUNCT ||
		    (ki == CTOK_IDENT) != (kj == CTOK_IDENT) ||
		    is_control_word(c, i) || is_control_word(c, j) ||
		    is_exit_word(c, i) || is_exit_word(c, j))
			return -1;
		diff++;
	}
	return diff;
}

/*
 * Two calls of one family on matching arguments, the other member for
 * the other case: crypto_unregister_aead(&alg.aead) then
 * crypto_unregister_ahash(&alg.hash).  Not the same function again
 * with other arguments (a sequence of steps) and not stores to two
 * fields (setting two flags).
 */
static int alternative_calls(const struct cls *c, const struct stmt *x,
			     const struct stmt *y)
{
	const struct ctok *fx = T(c, x->first), *fy = T(c, y->first);
	size_t nx = fx->end - fx->start, ny = fy->end - fy->start, p = 0;
	const char *a = c->lx.buf + fx->start, *b = c->lx.buf + fy->start;
	int d = shape_diff(c, x, y);

	if (d <= 0 || x->control || y->control || x->op >= 0 || y->op >= 0 ||
	    fx->kind != CTOK_IDENT || x->first + 1 > x->last ||
	    !punct(c, x->first + 1, '(') || same_text(c, x->first, y->first))
		return 0;
	while (p < nx && p < ny && a[p] == b[p])
		p++;
	/* a common stem up to a '_': crypto_unregister_ */
	while (p && a[p - 1] != '_')
		p--;
	return p >= 4 && d <= 1 + (x->last - x->first + 1) / 4;
}

/* The statements of B that do work: all but a last exit. */
static int work_count(const struct body *b)
{
	return b->n - (b->n && b->s[b->n - 1].is_exit);
}

/* How many of the tokens that differ are strings (another message)? */
static int string_diffs(const struct cls *c, const struct stmt *x,
			const struct stmt *y)
{
	int n = 0;

	for (long k = 0; x->first + k <= x->last; k++)
		n += T(c, x->first + k)->kind == CTOK_STRING &&
		     !same_text(c, x->first + k, y->first + k);
	return n;
}

/* The same call or the same left side: the tokens before ( or =. */
static int same_head(const struct cls *c, const struct stmt *x,
		     const struct stmt *y)
{
	for (long k = 0; x->first + k <= x->last; k++) {
		long i = x->first + k;

		if (!same_text(c, i, y->first + k))
			return 0;
		if (punct(c, i, '(') || (x->op >= 0 && i == x->op))
			return 1;
	}
	return 1;
}

/*
 * 1 when B's work is A's with other arguments or values, each step the
 * same call or store (a parallel case), 2 when it is exactly A's, else 0.
 */
static int same_work(const struct cls *c, const struct body *a,
		     const struct body *b)
{
	int n = work_count(a), diff = 0;

	if (!n || n != work_count(b))
		return 0;
	for (int i = 0; i < n; i++) {
		int d = shape_diff(c, &a->s[i], &b->s[i]);

		if (d < 0 || a->s[i].control || b->s[i].control ||
		    a->s[i].compound || b->s[i].compound ||
		    !same_head(c, &a->s[i], &b->s[i]))
			return 0; /* x |= A; beside x |= B; builds up a value */
		diff += d - string_diffs(c, &a->s[i], &b->s[i]);
	}
	if (!diff)
		return 2;
	return diff <= n + 1 ? 1 : 0;
}

/*
 * The falling case's last statement X (a call or a store, not a control
 * statement), done again in [from, to] with only its strings changed:
 * CX18_INFO("rev (A)") then CX18_INFO("rev (B)"), or
 * recheck(musb, devctl, "one") then if (recheck(musb, devctl, "other")).
 * Falling into it does the step twice, the second time saying something
 * else.  Not other numbers (out[2] = in[2]; then out[1] = in[1]; is an
 * unrolled copy) and not other names.
 */
static int same_step_again(const struct cls *c, const struct stmt *x, long from,
			   long to)
{
	long n = x->last - x->first; /* without the ';' */

	if (x->control || n < 2 || T(c, x->first)->kind != CTOK_IDENT ||
	    is_exit_word(c, x->first) || is_control_word(c, x->first))
		return 0;
	for (long j = from; j + n - 1 <= to; j++) {
		int diff = 0, ok = 1;

		if (!same_text(c, x->first, j))
			continue;
		for (long k = 1; k < n && ok; k++) {
			long a = x->first + k, b = j + k;
			enum ctok_kind ka = T(c, a)->kind, kb = T(c, b)->kind;

			if (same_text(c, a, b))
				continue;
			if (ka == CTOK_STRING && kb == CTOK_STRING)
				diff++;
			else
				ok = 0;
		}
		if (ok && diff)
			return 1;
	}
	return 0;
}

/* A call that reports an error: dev_err(), pr_warn(), WARN_ON(), ... */
static int is_error_report(const struct cls *c, long i)
{
	const struct ctok *t = T(c, i);
	const char *p = c->lx.buf + t->start;
	size_t n = t->end - t->start;
	static const char *const words[] = { "err",   "error", "warn", "crit",
					     "alert", "emerg", "WARN" };

	if (!is_print_call(c, i))
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(words); k++)
		if (memmem(p, n, words[k], strlen(words[k])))
			return 1;
	return 0;
}

/* return -EINVAL, return ERR_PTR(-E...), err = -EIO: an error value. */
static int is_error_value(const struct cls *c, long i, long last)
{
	for (; i <= last; i++)
		if (punct(c, i, '-') && i + 1 <= last &&
		    T(c, i + 1)->kind == CTOK_IDENT &&
		    c->lx.buf[T(c, i + 1)->start] == 'E' &&
		    isupper((unsigned char)c->lx.buf[T(c, i + 1)->start + 1]))
			return 1;
	return 0;
}

/* A label named for a failure: error, err_free, out_fail, bad, inval. */
static int error_label(const struct cls *c, long i)
{
	const struct ctok *t = T(c, i);
	const char *p = c->lx.buf + t->start;
	size_t n = t->end - t->start;
	static const char *const words[] = { "err", "error", "fail",
					     "bad", "inval", "einval" };

	if (t->kind != CTOK_IDENT)
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(words); k++)
		if (has_part(p, n, words[k]))
			return 1;
	return 0;
}

/*
 * Signal 3b: the next case only reports an error or fails (default:
 * dev_err(...); return -EINVAL; or WARN_ON_ONCE(1); break;).  Not an
 * error value stored and a break (err = -EIO; break;): an error path
 * that several cases share after some bookkeeping of their own.
 */
static int reports_error(const struct cls *c, const struct body *b)
{
	int bad = 0;

	for (int j = 0; j < b->n; j++) {
		const struct stmt *s = &b->s[j];
		long f = s->first;

		if (is_error_report(c, f))
			bad = 1;
		else if (is_print_call(c, f))
			continue;
		else if (is(c, f, "return"))
			return bad || is_error_value(c, f, s->last);
		else if (is(c, f, "break"))
			return bad;
		else if (is(c, f, "goto"))
			return bad ||
			       (f + 1 <= s->last && error_label(c, f + 1));
		else
			return 0;
	}
	return bad;
}

/*
 * The falling case finished an action: it stored or called something
 * (not only reported), and it ends there, or in if (...) return ...;
 * after that work.
 */
static int finished_work(const struct cls *c, const struct body *a)
{
	int work = 0;

	for (int i = 0; i < a->n; i++) {
		const struct stmt *s = &a->s[i];
		int last = i == a->n - 1;

		/* if (...) return ...; after the work, not if (...) break; */
		if (s->exits &&
		    !(last && s->control && work && is(c, s->first, "if") &&
		      !leaves_early(c, s->first, s->last + 1, 1)))
			return 0;
		if (is_print_call(c, s->first)) {
			if (last)
				return 0; /* it reports, then fails */
			continue;
		}
		if (!s->control || s->op >= 0)
			work = 1;
		else if (!s->exits)
			work = 1; /* an if or a loop that does work */
	}
	return work;
}

/* The falling case only reports: it warns and takes the next case's path. */
static int only_reports(const struct cls *c, const struct body *a)
{
	for (int i = 0; i < a->n; i++)
		if (!is_print_call(c, a->s[i].first))
			return 0;
	return a->n > 0;
}

/*
 * The falling case only checks: conditional exits, and the error value
 * that one of them returns (r = -EINVAL; if (bad) break;).
 */
static int only_checks(const struct cls *c, const struct body *a)
{
	int checks = 0;

	for (int i = 0; i < a->n; i++) {
		const struct stmt *s = &a->s[i];

		if (s->control && s->exits && is(c, s->first, "if"))
			checks++;
		else if (s->op >= 0 && !s->control &&
			 (is_error_value(c, s->op, s->last) ||
			  (s->last - s->op <= 2 && is_value(c, s->op + 1))))
			continue;
		else
			return 0;
	}
	return checks > 0 && a->s[a->n - 1].control;
}

/* A comment between the falling case and the label says it falls. */
static int comment_says_falls(const struct cls *c, long k)
{
	static const char *const words[] = { "fall",	"Fall", "FALL",
					     "thru",	"THRU", "through",
					     "continue" };
	size_t from = k > 0 ? (size_t)c->code[k - 1] + 1 : 0;

	for (size_t t = from; t < (size_t)c->code[k]; t++) {
		const struct ctok *tk = &c->lx.toks[t];

		if (tk->kind != CTOK_COMMENT)
			continue;
		for (size_t w = 0; w < ARRAY_SIZE(words); w++)
			if (memmem(c->lx.buf + tk->start, tk->end - tk->start,
				   words[w], strlen(words[w])))
				return 1;
	}
	return 0;
}

/*
 * Weak signs of intent: the next case builds up the same value (flags
 * |= A; then flags |= B;), or does the same to another part of the same
 * object (set(&reg, TX, 1); then set(&reg, RX, 1);), or repeats a step
 * that moves on (*q++ = 0xff; twice: an unrolled sequence).
 */
static int accumulates(const struct cls *c, const struct body *a,
		       const struct body *b)
{
	const struct stmt *x, *y;
	int d;

	if (!a->n || !b->n)
		return 0;
	x = &a->s[a->n - 1];
	y = &b->s[0];
	if (x->op >= 0 && x->compound && y->op >= 0 && y->compound &&
	    same_lhs(c, x, y))
		return 1;
	d = shape_diff(c, x, y);
	if (d == 0)
		return lhs_has_effects(c, x) || (x->op >= 0 && x->compound) ||
		       (x->op >= 0 && lhs_base(c, x) >= 0 &&
			mentions(c, x->op + 1, x->last, lhs_base(c, x)));
	/* the same call on the same first argument, another flag */
	return d == 1 && T(c, x->first)->kind == CTOK_IDENT &&
	       same_text(c, x->first, y->first) && x->first + 1 <= x->last &&
	       punct(c, x->first + 1, '(') && x->first + 2 <= x->last &&
	       same_text(c, x->first + 2, y->first + 2);
}

/* Code-token index of the first case/default label on or after LINE. */
static long find_label(const struct cls *c, long line)
{
	for (long i = 0; i < c->ncode; i++)
		if (T(c, i)->line >= line &&
		    (is(c, i, "case") || is(c, i, "default")))
			return i;
	return -1;
}

/* Index just past the ':' that ends the label at I. */
static long label_end(const struct cls *c, long i)
{
	int paren = 0;

	for (; i < c->ncode; i++) {
		if (punct(c, i, '(') || punct(c, i, '['))
			paren++;
		else if ((punct(c, i, ')') || punct(c, i, ']')) && paren)
			paren--;
		else if (punct(c, i, ':') && !paren &&
			 !(i + 1 < c->ncode && punct(c, i + 1, ':')))
			return i + 1;
		else if (punct(c, i, ';') || punct(c, i, '{'))
			break;
	}
	return i;
}

/* ---- the whole switch: its case groups ---- */

#define MAX_GROUPS 512

/* A case group: one or more labels, then statements [from, to). */
struct group {
	long label, from, to;
	int is_default, labels;
	int leaves; /* ends in break, return, goto, or the switch's end */
	int marked; /* ends in fallthrough; */
};

struct sw {
	struct group g[MAX_GROUPS];
	int n;
	long cond, cond_end; /* the switch's expression [cond, cond_end) */
	int fall, next; /* the falling group and the next one, or -1 */
};

/* Does the last statement of B leave: an exit, or a block ending in one? */
static int body_leaves(const struct cls *c, const struct body *b)
{
	const struct stmt *l;

	if (!b->n)
		return 0;
	l = &b->s[b->n - 1];
	if (l->is_exit)
		return 1;
	if (punct(c, l->first, '{') && l->last - 1 > l->first) {
		struct body *in = xmalloc(sizeof(*in));
		int r;

		cut_body(in, c, l->first + 1, l->last, 0);
		r = body_leaves(c, in);
		free(in);
		return r;
	}
	/* BUG(), panic(), unreachable(): nothing follows */
	return is(c, l->first, "BUG") || is(c, l->first, "panic") ||
	       is(c, l->first, "unreachable");
}

/* Is the last statement of B the fallthrough; marker? */
static int body_marked(const struct cls *c, const struct body *b)
{
	const struct stmt *l = b->n ? &b->s[b->n - 1] : NULL;

	return l && (is(c, l->first, "fallthrough") ||
		     is(c, l->first, "__attribute__"));
}

/*
 * The groups of the switch whose label is at K, with the falling group
 * (ending at K) and the next one (starting at K).  Returns 0, or -1 when
 * the label does not sit directly in a switch's braces.
 */
static int find_groups(struct sw *sw, const struct cls *c, long k)
{
	long open = -1, close, i;
	int depth = 0;
	struct body *b;

	sw->n = 0;
	sw->fall = sw->next = -1;
	for (i = k - 1; i >= 0; i--) {
		if (punct(c, i, '}')) {
			depth++;
		} else if (punct(c, i, '{')) {
			if (!depth) {
				open = i;
				break;
			}
			depth--;
		}
	}
	if (open < 1 || !punct(c, open - 1, ')'))
		return -1;
	for (i = open - 1, depth = 0; i >= 0; i--) {
		if (punct(c, i, ')'))
			depth++;
		else if (punct(c, i, '(') && --depth == 0)
			break;
	}
	if (i < 1 || !is(c, i - 1, "switch"))
		return -1;
	sw->cond = i + 1;
	sw->cond_end = open - 1;
	for (close = open + 1, depth = 0; close < c->ncode; close++) {
		if (punct(c, close, '{'))
			depth++;
		else if (punct(c, close, '}') && depth-- == 0)
			break;
	}
	for (i = open + 1, depth = 0; i < close; i++) {
		long e;

		if (punct(c, i, '{') || punct(c, i, '('))
			depth++;
		else if ((punct(c, i, '}') || punct(c, i, ')')) && depth)
			depth--;
		if (depth || !(is(c, i, "case") || is(c, i, "default")))
			continue;
		e = label_end(c, i);
		if (sw->n && sw->g[sw->n - 1].from == i) {
			/* another label of the same group */
			sw->g[sw->n - 1].from = e;
		} else if (sw->n < MAX_GROUPS) {
			if (sw->n)
				sw->g[sw->n - 1].to = i;
			memset(&sw->g[sw->n], 0, sizeof(sw->g[0]));
			sw->g[sw->n].label = i;
			sw->g[sw->n].from = e;
			sw->n++;
		} else {
			return -1;
		}
		if (is(c, i, "default"))
			sw->g[sw->n - 1].is_default = 1;
		sw->g[sw->n - 1].labels++;
		if (i == k)
			sw->next = sw->n - 1;
		i = e - 1;
	}
	if (!sw->n || sw->next < 0)
		return -1;
	sw->g[sw->n - 1].to = close;
	b = xmalloc(sizeof(*b));
	for (int g = 0; g < sw->n; g++) {
		cut_body(b, c, sw->g[g].from, sw->g[g].to, 0);
		sw->g[g].leaves = body_leaves(c, b) || g == sw->n - 1;
		sw->g[g].marked = body_marked(c, b);
	}
	free(b);
	if (sw->next > 0 && sw->g[sw->next - 1].to == k &&
	    sw->g[sw->next].label == k)
		sw->fall = sw->next - 1;
	return 0;
}

/*
 * The group after the next one does work: a next case that falls on
 * into a bare break; (case -EADDRINUSE: rpc_delay(); fallthrough;
 * case -EAGAIN: break;) ends there, it starts no chain.  True when the
 * switch is unknown.
 */
static int chain_goes_on(const struct cls *c, const struct sw *sw)
{
	struct body *g;
	int r;

	if (sw->next < 0 || sw->next + 1 >= sw->n)
		return 1;
	g = xmalloc(sizeof(*g));
	cut_body(g, c, sw->g[sw->next + 1].from, sw->g[sw->next + 1].to, 0);
	r = work_count(g) > 0;
	free(g);
	return r;
}

/*
 * Parallel groups: every other case of the switch (at least two) ends in
 * break, return or goto, and none falls on.
 */
static int all_others_leave(const struct sw *sw)
{
	int others = 0;

	if (sw->fall < 0)
		return 0;
	for (int g = 0; g < sw->n; g++) {
		if (g == sw->fall || sw->g[g].from >= sw->g[g].to)
			continue;
		if (!sw->g[g].leaves || sw->g[g].marked)
			return 0;
		others++;
	}
	return others >= 2;
}

/*
 * Another case that leaves does the falling case's work with other names
 * or values (1: a parallel case), or exactly that work (2: the falling
 * case adds that case's work to the next one's).
 */
static int sibling_work(const struct cls *c, const struct sw *sw,
			const struct body *a)
{
	struct body *g;
	int best = 0;

	if (sw->fall < 0)
		return 0;
	g = xmalloc(sizeof(*g));
	for (int i = 0; i < sw->n && best < 2; i++) {
		int r;

		if (i == sw->fall || i == sw->next || !sw->g[i].leaves)
			continue;
		cut_body(g, c, sw->g[i].from, sw->g[i].to, 0);
		if (!g->n || !g->s[g->n - 1].is_exit)
			continue;
		r = same_work(c, a, g);
		if (r > best)
			best = r;
	}
	free(g);
	return best;
}

/*
 * The next case compares the switch's value again (if (cmd == OTHER)):
 * it tells apart the cases that reach it, so it expects this one.  Not
 * when it only tells apart its own labels.
 */
static int tells_apart(const struct cls *c, const struct sw *sw, long from,
		       long to)
{
	long n = sw->cond_end - sw->cond;
	const struct group *fall, *next;

	if (!sw->n || sw->fall < 0 || n <= 0)
		return 0;
	fall = &sw->g[sw->fall];
	next = &sw->g[sw->next];
	for (long i = from; i + n + 1 < to; i++) {
		long v;

		if (!same_seq(c, i, sw->cond, n) ||
		    !((punct(c, i + n, '=') || punct(c, i + n, '!')) &&
		      punct(c, i + n + 1, '=')))
			continue;
		if (next->labels == 1)
			return 1;
		/* compared with one of the falling case's labels */
		v = i + n + 2;
		for (long l = fall->label; l < fall->from; l++)
			if (is(c, l, "case") && v < to &&
			    same_text(c, l + 1, v))
				return 1;
	}
	return 0;
}

/* Does a compound assignment (|=, <<=) start at I, before STOP? */
static int compound_after(const struct cls *c, long i, long stop)
{
	int comp = 0;

	for (long k = i; k < stop && k <= i + 2; k++)
		if (punct(c, k, '='))
			return assign_at(c, k, i, &comp) && comp;
	return 0;
}

/* The next case reads what the falling case stored (not x |= y). */
static int uses_stored(const struct cls *c, long afrom, long ato, long bfrom,
		       long bto)
{
	struct store sa[MAX_STORES], sb[MAX_STORES];
	int na = find_stores(sa, c, afrom, ato);
	int nb = find_stores(sb, c, bfrom, bto);

	for (int i = 0; i < na; i++) {
		long len = sa[i].last - sa[i].first + 1;
		long r = bfrom, stop = bto;

		/* up to the end of the first plain store there again */
		for (int j = 0; j < nb; j++) {
			if (sb[j].compound ||
			    sb[j].last - sb[j].first + 1 != len ||
			    !same_seq(c, sa[i].first, sb[j].first, len))
				continue;
			for (stop = sb[j].op;
			     stop < bto && !punct(c, stop, ';'); stop++)
				;
			break;
		}
		while ((r = read_at(c, &sa[i], r, stop)) >= 0) {
			if (!compound_after(c, r + len, stop))
				return 1;
			r += len;
		}
	}
	return 0;
}

/* ---- counter-signals: what real missing breaks show (issue 34) ---- */

/* The index of the ')' that closes the '(' at I, or -1. */
static long close_paren(const struct cls *c, long i, long last)
{
	int d = 0;

	for (; i <= last; i++) {
		if (punct(c, i, '('))
			d++;
		else if (punct(c, i, ')') && --d == 0)
			return i;
	}
	return -1;
}

/* Does the if statement X have an else of its own? */
static int has_else(const struct cls *c, const struct stmt *x)
{
	int d = 0;

	for (long k = x->first; k <= x->last; k++) {
		if (punct(c, k, '{') || punct(c, k, '('))
			d++;
		else if (punct(c, k, '}') || punct(c, k, ')'))
			d--;
		else if (!d && is(c, k, "else"))
			return 1;
	}
	return 0;
}

/* A constant: a literal, or a name in capitals (EINVAL, OPT_RST). */
static int is_constant(const struct cls *c, long i)
{
	const struct ctok *t = T(c, i);

	if (t->kind != CTOK_IDENT)
		return t->kind == CTOK_NUMBER || t->kind == CTOK_CHAR ||
		       t->kind == CTOK_STRING;
	for (size_t k = t->start; k < t->end; k++)
		if (islower((unsigned char)c->lx.buf[k]))
			return 0;
	return 1;
}

/*
 * Both cases open with the same test: if or switch on the same
 * condition, or on one with a few other constants (if (len != 2)
 * return; then if (len != 3) return;), and the falling case does more
 * than that test.  Parallel cases check their own preconditions; a case
 * meant to fall would not test again what the falling case just tested.
 * Not a cascade whose cases are each one test (case 16: if (goal == X)
 * { ...; break; } then case 32: if (goal == X) ...): that is how a
 * fall-through that tries each size in turn reads.
 */
static int same_opening(const struct cls *c, const struct body *a,
			const struct body *b)
{
	const struct stmt *x, *y;
	long xe, ye, n;
	int diff = 0;

	if (!b->n || !a->n)
		return 0;
	x = &a->s[0];
	y = &b->s[0];
	/* one test and nothing else: a cascade, unless both paths work */
	if (work_count(a) < 2 && !is(c, x->first, "switch") && !has_else(c, x))
		return 0;
	if (!((is(c, x->first, "if") && is(c, y->first, "if")) ||
	      (is(c, x->first, "switch") && is(c, y->first, "switch"))) ||
	    x->first + 1 > x->last || !punct(c, x->first + 1, '('))
		return 0;
	xe = close_paren(c, x->first + 1, x->last);
	ye = close_paren(c, y->first + 1, y->last);
	n = xe - x->first;
	if (xe < 0 || ye < 0 || n != ye - y->first)
		return 0;
	for (long k = 2; k < n; k++) {
		long i = x->first + k, j = y->first + k;
		enum ctok_kind ki = T(c, i)->kind, kj = T(c, j)->kind;

		if (same_text(c, i, j))
			continue;
		if (ki != kj || !is_constant(c, i) || !is_constant(c, j))
			return 0;
		diff++;
	}
	return diff <= 1 + (n - 2) / 4;
}

/* Tokens [i, i + n) and [j, j + n) read the same. */
static int same_run(const struct cls *c, long i, long j, long n)
{
	return n > 0 && same_seq(c, i, j, n);
}

/*
 * The next case clears the bits the falling case set, or sets the ones
 * it cleared: x |= M; then x &= ~M;.  Whatever the falling case did to
 * them is undone.
 */
static int undoes(const struct cls *c, const struct body *a,
		  const struct body *b, char *what, size_t n)
{
	for (int i = 0; i < a->n; i++) {
		const struct stmt *x = &a->s[i];
		char ox;

		if (x->control || x->op < 0 || x->compound != 1)
			continue;
		ox = c->lx.buf[T(c, x->op - 1)->start];
		if (ox != '|' && ox != '&')
			continue;
		for (int j = 0; j < b->n; j++) {
			const struct stmt *y = &b->s[j];
			long xf = x->op + 1, xl = x->last - 1;
			long yf = y->op + 1, yl = y->last - 1;
			char oy;

			if (y->control || y->exits)
				break;
			if (y->op < 0 || y->compound != 1 || !same_lhs(c, x, y))
				continue;
			oy = c->lx.buf[T(c, y->op - 1)->start];
			if (oy == ox || (oy != '|' && oy != '&'))
				continue;
			/* the one with '&' negates: ~M or ~(M) */
			if (ox == '&') {
				long t;

				t = xf, xf = yf, yf = t;
				t = xl, xl = yl, yl = t;
			}
			if (!punct(c, yf, '~'))
				continue;
			yf++;
			if (punct(c, yf, '(') && close_paren(c, yf, yl) == yl)
				yf++, yl--;
			if (punct(c, xf, '(') && close_paren(c, xf, xl) == xl)
				xf++, xl--;
			if (xl - xf == yl - yf &&
			    same_run(c, xf, yf, xl - xf + 1)) {
				tok_str(what, n, c, x->first, lhs_end(x) - 1);
				return 1;
			}
		}
	}
	return 0;
}

/*
 * A statement that is the same every time it runs: a plain call or a
 * plain store whose right side does not read what it stores, with no
 * ++ or -- and no compound assignment.
 */
static int repeatable(const struct cls *c, const struct stmt *x)
{
	if (x->control || x->exits || x->compound || x->last - x->first < 3 ||
	    is_print_call(c, x->first) || T(c, x->first)->kind != CTOK_IDENT)
		return 0;
	for (long k = x->first; k < x->last; k++)
		if ((punct(c, k, '+') || punct(c, k, '-')) &&
		    punct(c, k + 1, c->lx.buf[T(c, k)->start]))
			return 0;
	if (x->op >= 0)
		return !lhs_has_effects(c, x) && lhs_base(c, x) >= 0 &&
		       !mentions(c, x->op + 1, x->last, lhs_base(c, x));
	return punct(c, x->first + 1, '(');
}

/*
 * The next case does one of the falling case's steps again, word for
 * word (del_timer(&t); then, after the fall, del_timer(&t); again):
 * falling into it does that step twice.  Also in the case after it when
 * the next case falls on.  Not when the falling case advances a state:
 * the same call is then the next step (ret = afs_extract_data(call,
 * true); in each state), and not when what it reads was stored again in
 * between (fw = A; ret = load(fw); then fw = B; ret = load(fw);).
 */
static int stored_between(const struct cls *c, const struct stmt *x,
			  const struct body *b, int upto)
{
	for (int k = 0; b && k < upto; k++) {
		long base;

		if (b->s[k].op < 0 || b->s[k].control)
			continue;
		base = lhs_base(c, &b->s[k]);
		if (base >= 0 && mentions(c, x->first, x->last, base))
			return 1;
	}
	return 0;
}

static int does_again(const struct cls *c, const struct body *a,
		      const struct body *pre, const struct body *b, char *what,
		      size_t n)
{
	if (!b)
		return 0;
	for (int j = 0; j < b->n; j++) {
		const struct stmt *y = &b->s[j];

		if (y->control || y->exits)
			break;
		for (int i = 0; i < a->n; i++) {
			const struct stmt *x = &a->s[i];

			if (!repeatable(c, x) ||
			    x->last - x->first != y->last - y->first ||
			    !same_seq(c, x->first, y->first,
				      x->last - x->first + 1))
				continue;
			/* fw = B; ret = load(fw); after ret = load(fw): new */
			if (stored_between(c, x, b, j) ||
			    (pre && stored_between(c, x, pre, pre->n)))
				continue;
			tok_str(what, n, c, x->first, x->last - 1);
			return 1;
		}
	}
	return 0;
}

/*
 * The case after the next one, when the next one falls on: a default
 * that reports an error or fails.  The chain the falling case joins
 * ends in a failure.
 */
static int chain_fails(const struct cls *c, const struct sw *sw)
{
	struct body *g;
	int r;

	if (sw->next < 0 || sw->next + 1 >= sw->n ||
	    !sw->g[sw->next + 1].is_default)
		return 0;
	g = xmalloc(sizeof(*g));
	cut_body(g, c, sw->g[sw->next + 1].from, sw->g[sw->next + 1].to, 0);
	r = g->n && reports_error(c, g);
	free(g);
	return r;
}

/*
 * The next case falls on without naming what the falling case stored
 * last, and the case after it stores there again before reading it
 * (ch->state = READY; then p1 = 2; fallthrough; then ch->state =
 * SILDET;): a dead store through the chain.
 */
static int dead_through(const struct cls *c, long afrom, long ato, long bfrom,
			long bto, const struct body *g, char *what, size_t n)
{
	struct store st[MAX_STORES];
	int ns;

	if (!g || leaves_early(c, afrom, ato, 0))
		return 0;
	ns = find_stores(st, c, afrom, ato);
	for (int i = 0; i < ns; i++) {
		const struct store *s = &st[i];
		long len = s->last - s->first + 1;

		if (s->compound || T(c, s->first)->kind != CTOK_IDENT ||
		    read_at(c, s, s->op + 1, ato) >= 0 ||
		    mentions(c, bfrom, bto - 1, s->first))
			continue;
		for (int j = 0; j < g->n; j++) {
			const struct stmt *sg = &g->s[j];

			if (sg->control || sg->exits)
				break;
			if (sg->op >= 0 && !sg->compound &&
			    lhs_end(sg) - sg->first == len &&
			    same_seq(c, sg->first, s->first, len) &&
			    read_at(c, s, sg->op + 1, sg->last + 1) < 0) {
				tok_str(what, n, c, s->first, s->last);
				return 1;
			}
			if (read_at(c, s, sg->first, sg->last + 1) >= 0)
				break;
		}
	}
	return 0;
}

/* The body of the group after the next one, or NULL.  Free it. */
static struct body *group_after(const struct cls *c, const struct sw *sw)
{
	struct body *g;

	if (sw->next < 0 || sw->next + 1 >= sw->n)
		return NULL;
	g = xmalloc(sizeof(*g));
	cut_body(g, c, sw->g[sw->next + 1].from, sw->g[sw->next + 1].to, 0);
	return g;
}

int classify_fallthrough(struct classify_result *out, const char *src,
			 size_t len, long warn_line, long here_line)
{
	struct cls c;
	struct body *a = NULL, *b = NULL;
	struct sw *sw = NULL;
	struct body *after = NULL;
	long k, i, from, to;
	int depth, ret = 0, parallel, sib, is_error_default, fails, again = 0;
	int counter = 0;
	const char *intent = NULL;
	char what[96], miss[160] = "";

	memset(&c, 0, sizeof(c));
	clex_run(&c.lx, src, len);
	c.code = xmalloc((c.lx.nr + 1) * sizeof(*c.code));
	for (size_t t = 0; t < c.lx.nr; t++)
		if (c.lx.toks[t].kind != CTOK_COMMENT &&
		    c.lx.toks[t].kind != CTOK_PREPROC)
			c.code[c.ncode++] = (long)t;
	k = find_label(&c, here_line);
	if (k < 0) {
		says(out, CLASSIFY_UNSURE, "no case label at line %ld",
		     here_line);
		ret = -1;
		goto out;
	}
	/* the falling case: back to the label before, or the switch's { */
	for (i = k - 1, depth = 0; i >= 0; i--) {
		if (punct(&c, i, '}'))
			depth++;
		else if (punct(&c, i, '{') && depth-- == 0)
			break;
		else if (!depth && (is(&c, i, "case") || is(&c, i, "default")))
			break;
	}
	from = i < 0 ? 0 : punct(&c, i, '{') ? i + 1 : label_end(&c, i);
	/* the next case: past its labels, up to the next label or the } */
	to = label_end(&c, k);
	while (to < c.ncode && (is(&c, to, "case") || is(&c, to, "default")))
		to = label_end(&c, to);
	for (i = to, depth = 0; i < c.ncode; i++) {
		if (punct(&c, i, '{'))
			depth++;
		else if (punct(&c, i, '}') && depth-- == 0)
			break;
		else if (!depth && (is(&c, i, "case") || is(&c, i, "default")))
			break;
	}
	a = xmalloc(sizeof(*a));
	b = xmalloc(sizeof(*b));
	sw = xmalloc(sizeof(*sw));
	cut_body(a, &c, from, k, 1);
	cut_body(b, &c, to, i, 0);
	/* case X: { ...; break; } leaves too (issue 34, seed 9104) */
	b->falls_on = b->falls_on && i < c.ncode && !punct(&c, i, '}') &&
		      !body_leaves(&c, b);
	if (find_groups(sw, &c, k))
		sw->n = 0, sw->fall = sw->next = -1;
	parallel = all_others_leave(sw);
	after = group_after(&c, sw);
	sib = a->n ? sibling_work(&c, sw, a) : 0;
	is_error_default = sw->next >= 0 ? sw->g[sw->next].is_default :
					   is(&c, k, "default");
	(void)warn_line;

	/*
	 * Evidence of a missing break, the strongest first.  Then evidence
	 * of intent, but only of a kind that real missing breaks do not
	 * also show (issue 34: a case that breaks or returns on one path,
	 * or only checks, then falls into a default that fails, is the
	 * classic missing break): when the falling case falls into a case
	 * that fails, or a weaker sign of a missing break is there too,
	 * the evidence disagrees and the verdict is "unsure".  No evidence
	 * is "unsure", never "intended".
	 */
	fails = b->n && ((is_error_default && reports_error(&c, b)) ||
			 (is(&c, b->s[0].first, "return") &&
			  is_error_value(&c, b->s[0].first, b->s[0].last)));
	if (dead_store(&c, a, b, what, sizeof(what)) ||
	    dead_store_nested(&c, from, k, b, what, sizeof(what))) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the next case overwrites '%s' before anything reads "
		     "what this case stored there",
		     what);
		goto out;
	} else if (repeats(&c, a, b, what, sizeof(what))) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the next case repeats '%s' with another constant", what);
		goto out;
	} else if (restarts(&c, a, b, what, sizeof(what))) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the next case starts over with '%s' and redoes this "
		     "case's work differently",
		     what);
		goto out;
	} else if (finished_work(&c, a) && b->n && is_error_default &&
		   reports_error(&c, b)) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the falling case finished its work and the next case "
		     "is a default that reports an error or returns one");
		goto out;
	} else if (finished_work(&c, a) && b->n &&
		   is(&c, b->s[0].first, "return") &&
		   is_error_value(&c, b->s[0].first, b->s[0].last)) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the falling case finished its work and the next case "
		     "fails at once");
		goto out;
	}

	/* signs of intent */
	if (!a->n)
		intent = "the falling case has no statements of its own";
	else if (comment_says_falls(&c, k))
		intent = "a comment before the next case says it falls through";
	else if (advances_state(&c, a))
		intent = "the falling case advances a state the next case "
			 "continues from";
	else if ((b->falls_on || body_marked(&c, b)) && chain_goes_on(&c, sw))
		intent = "the next case falls on too: a chain of steps";
	else if (tells_apart(&c, sw, to, i))
		intent = "the next case tests the switch's value again: it "
			 "expects other cases to fall into it";
	else if (only_reports(&c, a))
		intent = "the falling case only reports, then takes the next "
			 "case's path";
	else if (uses_stored(&c, from, k, to, i))
		intent = "the next case reads what the falling case stored";
	else if (sib == 2 && !parallel)
		intent = "the falling case does another case's work, then the "
			 "next one's: a case that combines two";
	else if (!parallel && accumulates(&c, a, b))
		intent = "the next case builds on the same value or object "
			 "the falling case worked on";

	/* weaker signs of a missing break */
	if (parallel &&
	    same_stores(&c, a, from, k, to, i, what, sizeof(what))) {
		snprintf(miss, sizeof(miss),
			 "every other case breaks, and the next case assigns "
			 "'%s' again",
			 what);
	} else if (parallel && a->n && b->n &&
		   alternative_calls(&c, &a->s[a->n - 1], &b->s[0])) {
		snprintf(miss, sizeof(miss),
			 "every other case breaks, and the next case calls "
			 "the other function of the same family");
	} else if (parallel && sib == 1) {
		snprintf(miss, sizeof(miss),
			 "every other case breaks, one of them after this "
			 "case's work with other names or values");
	} else if (fails) {
		snprintf(miss, sizeof(miss), "it falls into a case that fails");
	} else if (a->n && b->n &&
		   same_step_again(&c, &a->s[a->n - 1], b->s[0].first,
				   b->s[0].last)) {
		snprintf(miss, sizeof(miss),
			 "the next case does this case's last step again "
			 "with another string");
		again = 1;
	} else if (undoes(&c, a, b, what, sizeof(what))) {
		snprintf(miss, sizeof(miss),
			 "the next case undoes what this case set in '%s'",
			 what);
		counter = 1;
	} else if (!advances_state(&c, a) &&
		   (does_again(&c, a, NULL, b, what, sizeof(what)) ||
		    (b->falls_on &&
		     does_again(&c, a, b, after, what, sizeof(what))))) {
		snprintf(miss, sizeof(miss),
			 "the next case does '%s' again, word for word", what);
		counter = 1;
	} else if (b->falls_on && dead_through(&c, from, k, to, i, after, what,
					       sizeof(what))) {
		snprintf(miss, sizeof(miss),
			 "the case after the next stores to '%s' unread", what);
		counter = 1;
	} else if (same_opening(&c, a, b)) {
		snprintf(miss, sizeof(miss),
			 "the next case opens with this case's test again");
		counter = 1;
	} else if ((b->falls_on || body_marked(&c, b)) && chain_fails(&c, sw)) {
		snprintf(miss, sizeof(miss),
			 "the next case falls on into a default that fails");
		counter = 1;
	}

	if (intent && !*miss)
		says(out, CLASSIFY_INTENDED, "%s", intent);
	else if (intent)
		says(out, CLASSIFY_UNSURE, "the evidence disagrees: %s; but %s",
		     intent, miss);
	else if (*miss && !fails && !again && !counter)
		says(out, CLASSIFY_MISSING_BREAK, "%s", miss);
	else if (again || counter)
		says(out, CLASSIFY_UNSURE, "%s: read both cases", miss);
	else if (fails)
		says(out, CLASSIFY_UNSURE,
		     "the falling case falls into a case that fails, but "
		     "%s: read both cases",
		     only_checks(&c, a) ? "it only checks and leaves early" :
		     leaves_early(&c, from, k, 0) ?
					  "it also leaves on one of its paths" :
					  "it ends in a report");
	else
		says(out, CLASSIFY_UNSURE,
		     "no evidence either way%s: read both cases",
		     parallel ? " (every other case breaks)" : "");
out:
	free(after);
	free(sw);
	free(a);
	free(b);
	free(c.code);
	clex_release(&c.lx);
	return ret;
}

const char *classify_verdict_name(enum classify_verdict v)
{
	return v == CLASSIFY_MISSING_BREAK ? "likely missing break" :
	       v == CLASSIFY_INTENDED	   ? "likely intended" :
					     "unsure";
}

const char *classify_verdict_parse(const char *s)
{
	static const struct {
		const char *typed, *name;
	} v[] = {
		{ "likely missing break", "likely missing break" },
		{ "missing break", "likely missing break" },
		{ "likely intended", "likely intended" },
		{ "intended", "likely intended" },
		{ "unsure", "unsure" },
		{ "none", "none" },
	};
	char w[32];
	size_t i, n;

	/* '-', '_' and '+' as spaces: the forms of an address */
	for (n = 0; s[n] && n < sizeof(w) - 1; n++)
		w[n] = strchr("-_+", s[n]) ? ' ' : s[n];
	if (s[n])
		return NULL;
	w[n] = 0;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (!strcasecmp(w, v[i].typed))
			return v[i].name;
	return NULL;
}

int classify_check_pair(const char *src, size_t len, long warn_line,
			long here_line, char *why, size_t whylen)
{
	struct clex lx;
	int warn_code = 0, here_label = 0;

	clex_run(&lx, src, len);
	for (size_t t = 0; t < lx.nr; t++) {
		const struct ctok *k = &lx.toks[t];

		if (k->kind == CTOK_COMMENT || k->kind == CTOK_PREPROC)
			continue;
		warn_code |= k->line <= warn_line && warn_line <= k->end_line;
		here_label |=
			k->line == here_line &&
			(clex_is(&lx, k, "case") || clex_is(&lx, k, "default"));
	}
	clex_release(&lx);
	if (!here_label)
		snprintf(why, whylen,
			 "line %ld has no case label (nor "
			 "default) outside a comment",
			 here_line);
	else if (warn_line > 0 && !warn_code)
		snprintf(why, whylen,
			 "line %ld has no statement outside "
			 "a comment",
			 warn_line);
	else if (warn_line >= here_line)
		snprintf(why, whylen,
			 "the statement (line %ld) is not before "
			 "the label (line %ld)",
			 warn_line, here_line);
	else
		return 0;
	return -1;
}
