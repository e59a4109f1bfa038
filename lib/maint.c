// SPDX-License-Identifier: MIT
/*
 * MAINTAINERS: which entries a file belongs to, following the rules of
 * scripts/get_maintainer.pl (see server.h).  Pure: text in, indexes out.
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "maint.h"
#include "util.h"
#include "banned.h"

struct maint_pat {
	char *glob; /* F:/X: value, trailing blanks dropped */
	size_t lit; /* length of the literal head of GLOB */
	int depth; /* get_maintainer.pl's value_pd */
	int bare; /* no glob characters, no final '/' */
};

struct maint_entry {
	char *name;
	struct maint_pat *f, *x;
	size_t nf, nx;
	regex_t *n;
	size_t nn;
	char **addr; /* M:, R:, L: values, in file order */
	char *addr_type; /* their letters */
	size_t naddr;
};

struct maint {
	struct maint_entry *e;
	size_t n, alloc;
};

static size_t count_slashes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/*
 * 1 if the bracket expression at P ("[...]") holds C; *END is set past
 * the closing ']'.  -1 if there is no closing ']' (P is then literal).
 */
static int glob_class(const char *p, char c, const char **end)
{
	const char *q = p + 1;
	int neg = 0, hit = 0;

	if (*q == '^' || *q == '!') {
		neg = 1;
		q++;
	}
	if (*q == ']')
		return -1;
	for (; *q && *q != ']'; q++) {
		if (q[1] == '-' && q[2] && q[2] != ']') {
			if (c >= q[0] && c <= q[2])
				hit = 1;
			q += 2;
		} else if (*q == c) {
			hit = 1;
		}
	}
	if (!*q)
		return -1;
	*end = q + 1;
	return hit != neg;
}

/* 1 if glob P matches a prefix of F (perl's m@^$pattern@), else 0. */
static int glob_prefix(const char *p, const char *f)
{
	while (*p) {
		const char *end;
		int r;

		if (*p == '*') {
			do {
				if (glob_prefix(p + 1, f))
					return 1;
			} while (*f++);
			return 0;
		}
		if (!*f)
			return 0;
		if (*p == '?') {
			p++;
			f++;
			continue;
		}
		if (*p == '[') {
			r = glob_class(p, *f, &end);
			if (r == 0)
				return 0;
			if (r == 1) {
				p = end;
				f++;
				continue;
			}
		}
		if (*p != *f)
			return 0;
		p++;
		f++;
	}
	return 1;
}

/* get_maintainer.pl's file_match_pattern(), plus its directory case. */
static int pat_matches(const struct maint_pat *pt, const char *file)
{
	size_t len = strlen(pt->glob);

	if (strncmp(file, pt->glob, pt->lit))
		return 0;
	if (!glob_prefix(pt->glob, file))
		return 0;
	if (len && pt->glob[len - 1] == '/')
		return 1;
	/* "F: drivers/firewire" is a file or a directory: the tree would say */
	if (pt->bare)
		return !file[len] || file[len] == '/';
	return count_slashes(file) == count_slashes(pt->glob);
}

static void pat_init(struct maint_pat *pt, const char *v, size_t len)
{
	pt->glob = xstrndup(v, len);
	pt->lit = strcspn(pt->glob, "*?[");
	pt->bare = pt->glob[pt->lit] == '\0' && len && pt->glob[len - 1] != '/';
	pt->depth = (int)count_slashes(pt->glob);
	if (!len || pt->glob[len - 1] != '/')
		pt->depth++;
	if (pt->glob[0] == '*')
		pt->depth = -1;
}

#define GROW(arr, n)                                                 \
	do {                                                         \
		(arr) = xrealloc((arr), ((n) + 1) * sizeof(*(arr))); \
	} while (0)

static void entry_add(struct maint_entry *e, char type, const char *v,
		      size_t len)
{
	char *re, *w;
	const char *r;

	switch (type) {
	case 'F':
		GROW(e->f, e->nf);
		pat_init(&e->f[e->nf++], v, len);
		break;
	case 'X':
		GROW(e->x, e->nx);
		pat_init(&e->x[e->nx++], v, len);
		break;
	case 'N':
		/* perl's m/$value/x: unescaped blanks are not part of it */
		re = w = xmalloc(len + 1);
		for (r = v; r < v + len; r++) {
			if (*r == '\\' && r + 1 < v + len) {
				*w++ = *r++;
				*w++ = *r;
			} else if (!isspace((unsigned char)*r)) {
				*w++ = *r;
			}
		}
		*w = '\0';
		GROW(e->n, e->nn);
		if (!regcomp(&e->n[e->nn], re, REG_EXTENDED | REG_NOSUB))
			e->nn++;
		free(re);
		break;
	case 'M':
	case 'R':
	case 'L':
		GROW(e->addr, e->naddr);
		GROW(e->addr_type, e->naddr);
		e->addr_type[e->naddr] = type;
		e->addr[e->naddr++] = xstrndup(v, len);
		break;
	default:
		break;
	}
}

int maint_parse(struct maint **out, const char *text, size_t len)
{
	struct maint *m = xcalloc(1, sizeof(*m));
	const char *p = text, *end = text + len, *title = NULL;
	size_t title_len = 0;
	int in_section = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q, *v, *ve;

		if (!eol)
			eol = end;
		ve = eol;
		while (ve > p && isspace((unsigned char)ve[-1]))
			ve--;
		for (q = p; q < ve && isspace((unsigned char)*q); q++)
			;
		if (q == ve || *q == '#') {
			p = eol + 1;
			continue;
		}
		if (ve - p >= 2 && isupper((unsigned char)p[0]) &&
		    p[1] == ':') {
			struct maint_entry *e;

			if (!in_section) {
				if (m->n == m->alloc) {
					m->alloc = m->alloc ? 2 * m->alloc : 64;
					m->e = xrealloc(
						m->e, m->alloc * sizeof(*m->e));
				}
				e = &m->e[m->n++];
				memset(e, 0, sizeof(*e));
				e->name = title ? xstrndup(title, title_len) :
						  xstrdup("");
				in_section = 1;
			}
			e = &m->e[m->n - 1];
			for (v = p + 2; v < ve && isspace((unsigned char)*v);
			     v++)
				;
			entry_add(e, p[0], v, (size_t)(ve - v));
		} else {
			title = p;
			title_len = (size_t)(ve - p);
			in_section = 0;
		}
		p = eol + 1;
	}
	*out = m;
	return 0;
}

void maint_free(struct maint *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		struct maint_entry *e = &m->e[i];
		size_t j;

		for (j = 0; j < e->nf; j++)
			free(e->f[j].glob);
		for (j = 0; j < e->nx; j++)
			free(e->x[j].glob);
		for (j = 0; j < e->nn; j++)
			regfree(&e->n[j]);
		for (j = 0; j < e->naddr; j++)
			free(e->addr[j]);
		free(e->addr);
		free(e->addr_type);
		free(e->f);
		free(e->x);
		free(e->n);
		free(e->name);
	}
	free(m->e);
	free(m);
}

size_t maint_count(const struct maint *m)
{
	return m->n;
}

const char *maint_name(const struct maint *m, size_t idx)
{
	return idx < m->n ? m->e[idx].name : NULL;
}

long maint_find(const struct maint *m, const char *name)
{
	long found = -1;

	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].name, name))
			return (long)i;
	/* as a person types it: any case, when one title alone matches */
	for (size_t i = 0; i < m->n; i++) {
		if (strcasecmp(m->e[i].name, name))
			continue;
		if (found >= 0)
			return -1;
		found = (long)i;
	}
	return found;
}

size_t maint_suggest(const char **out, size_t max, const struct maint *m,
		     const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n && *name; i++) {
		if (!strcasestr(m->e[i].name, name))
			continue;
		if (n < max)
			out[n] = m->e[i].name;
		n++;
	}
	return n;
}

/* The depth of entry E's best match of FILE, or INT_MIN-ish if none. */
#define NO_MATCH (-1000)
static int entry_depth(const struct maint_entry *e, const char *file)
{
	int depth = NO_MATCH;
	size_t j;

	for (j = 0; j < e->nx; j++)
		if (pat_matches(&e->x[j], file))
			return NO_MATCH;
	for (j = 0; j < e->nf; j++)
		if (e->f[j].depth > depth && pat_matches(&e->f[j], file))
			depth = e->f[j].depth;
	for (j = 0; j < e->nn && depth < 0; j++)
		if (!regexec(&e->n[j], file, 0, NULL, 0))
			depth = 0;
	return depth;
}

int maint_entry_matches(const struct maint *m, size_t idx, const char *file)
{
	return idx < m->n && entry_depth(&m->e[idx], file) != NO_MATCH;
}

size_t maint_match(size_t *out, size_t max, const struct maint *m,
		   const char *file)
{
	/*
	 * XXX: at most 64 entries are ranked: with MAX over 64 a file's
	 * 65th entry and later are not stored (the count returned still
	 * says how many matched).  Every caller asks for 64; no kernel
	 * file is in more than about 20 entries.
	 */
	int depths[64];
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++) {
		int d = entry_depth(&m->e[i], file);
		size_t k;

		if (d == NO_MATCH)
			continue;
		if (n < max && n < ARRAY_SIZE(depths)) {
			/* insertion by depth, stable for equal depths */
			for (k = n; k > 0 && depths[k - 1] < d; k--) {
				depths[k] = depths[k - 1];
				out[k] = out[k - 1];
			}
			depths[k] = d;
			out[k] = i;
		} else if (max && max <= ARRAY_SIZE(depths) &&
			   d > depths[max - 1]) {
			for (k = max - 1; k > 0 && depths[k - 1] < d; k--) {
				depths[k] = depths[k - 1];
				out[k] = out[k - 1];
			}
			depths[k] = d;
			out[k] = i;
		}
		n++;
	}
	return n;
}

int maint_is_catch_all(const struct maint *m, size_t idx)
{
	if (idx >= m->n)
		return 0;
	for (size_t j = 0; j < m->e[idx].nf; j++)
		if (!strcmp(m->e[idx].f[j].glob, "*") ||
		    !strcmp(m->e[idx].f[j].glob, "*/"))
			return 1;
	return 0;
}

size_t maint_addresses(const char **out, size_t max, const struct maint *m,
		       size_t idx, const char *types)
{
	const struct maint_entry *e;
	size_t n = 0;

	if (idx >= m->n)
		return 0;
	e = &m->e[idx];
	for (size_t j = 0; j < e->naddr; j++) {
		if (!strchr(types, e->addr_type[j]))
			continue;
		if (n < max)
			out[n] = e->addr[j];
		n++;
	}
	return n;
}
