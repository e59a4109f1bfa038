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
#include "db.h"
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

	if (t->kind != CTOK_IDENT)
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(always); k++)
		if (n >= strlen(always[k]) &&
		    !memcmp(p, always[k], strlen(always[k])))
			return 1;
	/* dev_err(), netdev_dbg(), drm_warn(), ath10k_dbg(): by the word */
	for (size_t k = 0; k < ARRAY_SIZE(words) && !print; k++)
		print = has_part(p, n, words[k]);
	return print && i + 1 < c->ncode && punct(c, i + 1, '(');
}

static int says(struct classify_result *out, enum classify_verdict v,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int says(struct classify_result *out, enum classify_verdict v,
		const char *fmt, ...)
{
	va_list ap;

	out->verdict = v;
	out->fix = v == CLASSIFY_MISSING_BREAK ? "break;" : "fallthrough;";
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

/*
 * Signal 3: the next case fails at once: return -E...  Not BUG(): count
 * then crash is a common intended path.
 */
static int fails_at_once(const struct cls *c, const struct body *b)
{
	for (int j = 0; j < b->n; j++) {
		const struct stmt *s = &b->s[j];
		long f = s->first;

		if (is_print_call(c, f))
			continue;
		if (is(c, f, "return") && f + 2 <= s->last &&
		    punct(c, f + 1, '-') && T(c, f + 2)->kind == CTOK_IDENT &&
		    c->lx.buf[T(c, f + 2)->start] == 'E')
			return 1;
		/*
		 * Not "err = -EIO; break;": an error path that several
		 * cases share after some bookkeeping of their own.
		 */
		return 0;
	}
	return 0;
}

/* The falling case did real work: an unconditional store or call. */
static int did_work(const struct cls *c, const struct body *a)
{
	int work = 0;

	for (int i = 0; i < a->n; i++) {
		const struct stmt *s = &a->s[i];

		if (s->exits)
			return 0; /* it leaves on a condition */
		if (is_print_call(c, s->first))
			return 0; /* it reports, then fails with the next */
		if (!s->control)
			work = 1;
	}
	return work;
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

/* The next case reads something the falling case stored. */
static int sets_up(const struct cls *c, const struct body *a,
		   const struct body *b)
{
	for (int i = 0; i < a->n; i++) {
		const struct stmt *sa = &a->s[i];
		long base;

		if (sa->op < 0 || sa->control)
			continue;
		base = lhs_base(c, sa);
		if (base < 0)
			continue;
		for (int j = 0; j < b->n; j++) {
			const struct stmt *sb = &b->s[j];

			if (sb->op >= 0 && !sb->compound && !sb->control &&
			    same_lhs(c, sa, sb) &&
			    !mentions(c, sb->op + 1, sb->last, base))
				break; /* overwritten first */
			if (mentions(c, sb->first, sb->last, base))
				return 1;
		}
	}
	return 0;
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

int classify_fallthrough(struct classify_result *out, const char *src,
			 size_t len, long warn_line, long here_line)
{
	struct cls c;
	struct body *a = NULL, *b = NULL;
	long k, i, from, to;
	int depth, ret = 0;
	char what[96];

	memset(&c, 0, sizeof(c));
	clex_run(&c.lx, src, len);
	c.code = xmalloc((c.lx.nr + 1) * sizeof(*c.code));
	for (size_t t = 0; t < c.lx.nr; t++)
		if (c.lx.toks[t].kind != CTOK_COMMENT &&
		    c.lx.toks[t].kind != CTOK_PREPROC)
			c.code[c.ncode++] = (long)t;
	k = find_label(&c, here_line);
	if (k < 0) {
		says(out, CLASSIFY_INTENDED, "no case label at line %ld",
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
	/* the next case: up to the next label or the switch's } */
	to = label_end(&c, k);
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
	cut_body(a, &c, from, k, 1);
	cut_body(b, &c, to, i, 0);
	b->falls_on = b->falls_on && i < c.ncode && !punct(&c, i, '}');
	(void)warn_line;

	if (dead_store(&c, a, b, what, sizeof(what))) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the next case overwrites '%s' before anything reads "
		     "what this case stored there",
		     what);
	} else if (!a->n) {
		says(out, CLASSIFY_INTENDED,
		     "the falling case has no statements of its own");
	} else if (sets_up(&c, a, b)) {
		says(out, CLASSIFY_INTENDED,
		     "the next case uses what the falling case set up");
	} else if (advances_state(&c, a)) {
		says(out, CLASSIFY_INTENDED,
		     "the falling case advances a state the next case "
		     "continues from");
	} else if (b->falls_on) {
		says(out, CLASSIFY_INTENDED,
		     "the next case falls on too: a chain of steps");
	} else if (repeats(&c, a, b, what, sizeof(what))) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the next case repeats '%s' with another constant", what);
	} else if (restarts(&c, a, b, what, sizeof(what))) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the next case starts over with '%s' and redoes this "
		     "case's work differently",
		     what);
	} else if (did_work(&c, a) && fails_at_once(&c, b)) {
		says(out, CLASSIFY_MISSING_BREAK,
		     "the falling case did its work and the next case fails "
		     "at once");
	} else {
		says(out, CLASSIFY_INTENDED,
		     "no sign that the falling case's work is undone or "
		     "repeated");
	}
out:
	free(a);
	free(b);
	free(c.code);
	clex_release(&c.lx);
	return ret;
}

const char *classify_verdict_name(enum classify_verdict v)
{
	return v == CLASSIFY_MISSING_BREAK ? "likely missing break" :
					     "likely intended";
}

int classify_store(sqlite3 *db, long long identity_id,
		   const struct classify_result *r)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (db_prepare(&st, db,
		       "INSERT INTO classifications (identity_id, verdict, "
		       "fix, reason) VALUES (?, ?, ?, ?) "
		       "ON CONFLICT (identity_id) DO UPDATE SET "
		       "verdict = excluded.verdict, fix = excluded.fix, "
		       "reason = excluded.reason, "
		       "classified_at = unixepoch()"))
		return -1;
	if (db_bind_int(st, 1, identity_id, 0) ||
	    db_bind_text(st, 2, classify_verdict_name(r->verdict)) ||
	    db_bind_text(st, 3, r->fix) || db_bind_text(st, 4, r->reason))
		goto out;
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store the verdict of identity %lld: %s",
		      identity_id, sqlite3_errmsg(db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}
