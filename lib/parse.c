// SPDX-License-Identifier: MIT
/*
 * A pure, streaming parser of GCC diagnostics in kernel build logs.
 * See parse.h for the contract.  No I/O, no SQL, no globals.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"
#include "banned.h"

/* Diagnostics kept open for notes; older ones are emitted. */
#define PENDING_MAX 8
/* Lines longer than this are counted as unparsed and skipped. */
#define LINE_CAP (1u << 20)
/* Per-file context (function, include chain, object) remembered. */
#define CTX_MAX 32

/*
 * How many (compile, header) pairs a parser remembers as named: GCC
 * prints a header's include chain once a compile, so a note in a header
 * without one is of a compile that named the header before.  The oldest
 * pairs go first; a compile names its headers long after them.
 */
#define NAMED_MAX 4096

/*
 * An arena per pending diagnostic holds its strings and notes: they all
 * die together when it is emitted, so one reset replaces a dozen free()s.
 */
#define ARENA_CHUNK 4000

struct arena_chunk {
	struct arena_chunk *next;
	size_t len, cap;
	char data[];
};

struct arena {
	struct arena_chunk *head; /* the chunk being filled */
};

struct ctx_entry {
	char *file;
	size_t fcap;
	unsigned long hash; /* of file, checked before strcmp() */
	char *value; /* NULL: "At top level"; else vbuf */
	char *vbuf; /* reused from value to value: a header a line */
	size_t vcap;
	unsigned long seq;
};

#define CTX_SLOTS (4 * CTX_MAX)

struct ctx_map {
	struct ctx_entry e[CTX_MAX];
	size_t n;
	unsigned char slot[CTX_SLOTS]; /* entry + 1 by hash, linear probing */
	/* the entries from the oldest seq to the newest: who is evicted */
	unsigned char older[CTX_MAX], newer[CTX_MAX], oldest, newest;
};

struct parser {
	parse_emit_fn emit;
	void *ctx;

	struct strbuf line; /* a partial line across parse_feed() calls */
	int overlong; /* skipping the rest of an overlong line */
	struct strbuf clean; /* scratch: the line without colours */

	char **prefixes;
	size_t nr_prefixes;

	struct diag pending[PENDING_MAX];
	/* the translation unit of each, its compile under make -j, or NULL */
	char *pending_tu[PENDING_MAX];
	/* its source came in GCC's gutter: GCC's rules for chains hold */
	unsigned char pending_gcc[PENDING_MAX];
	/* its unit is certain: a chain printed with it, or its own .c */
	unsigned char pending_sure[PENDING_MAX];
	struct arena arenas[PENDING_MAX]; /* what each pending one owns */
	size_t first, nr_pending; /* a ring: the oldest, and how many */
	struct strbuf scratch, scratch2;
	/* the last file name cleaned: its raw bytes and its clean name */
	struct strbuf fraw, fclean;
	struct strbuf chainbuf; /* scratch of chain_complete() */
	struct strbuf keybuf; /* scratch of chain_unit() */
	struct strbuf jsonbuf; /* scratch of json_line() */
	struct strbuf namedbuf; /* scratch of unit_names() */

	/*
	 * compile -> function of its last header: GCC prints a header when
	 * a compile's function changes, so a diagnostic without one is in
	 * its compile's last; keyed by translation unit, or by the header's
	 * file when its unit is not known
	 */
	struct ctx_map funcs;
	struct ctx_map chains; /* file -> include chain last printed */
	struct ctx_map objects; /* source file -> object from kbuild */
	/*
	 * a make log of a C=1 build: the sources kbuild's "CHECK" lines
	 * named (sparse's lines name them after), sparse's last "U: note:
	 * in included file" (U), and the header its next diagnostic named
	 */
	struct ctx_map checks;
	char *sparse_unit, *sparse_hdr;
	int single; /* one compiler's stream: see parse_set_single_stream() */
	int sparse; /* sparse's stream: see parse_set_tool() */
	int kdoc; /* kernel-doc's lines of one source: parse_set_tool() */

	char *unparsed[PARSE_KEEP_UNPARSED]; /* the first unparsed lines */
	size_t nr_unparsed;

	/* "In function 'f'," then "    inlined from 'g' at a.c:1:2:" */
	struct strbuf inl; /* the inline chain being read */
	int in_inline; /* the last line ended with ',' */
	char *inline_fn; /* its function, for the next diagnostic */
	char *inline_chain; /* complete, for the next diagnostic */
	char *ld_function; /* the linker's last "in function `f':" */

	/* clang prints the source line bare, then a caret line */
	struct strbuf stash; /* the line after a diagnostic */
	char **stash_slot; /* whose source it is if a caret line follows */
	struct arena *stash_arena;
	int slot_kdoc; /* the source slot is a kernel-doc warning's */

	struct strbuf chain; /* an include chain being read */
	int in_chain; /* its last line ended with ',' */
	char *fresh_chain; /* complete, not yet given to a diagnostic */
	unsigned long chain_end; /* the line that completed it */
	char *chain_outer; /* clang's outer lines, while an inner one is read */
	/* a diagnostic came back to a compile after another's: make -j */
	int interleaved;
	int chain_was_fresh; /* chain_for() took the chain printed with it */
	/* hashes of (unit, file) pairs a diagnostic of the unit named: a ring */
	uint64_t named[NAMED_MAX];
	size_t nr_named, named_next;

	char **source_slot; /* where the next source line goes */
	struct arena *slot_arena; /* and whose arena it is */
	long slot_line; /* the line that source line must have */
	unsigned long seq;
	struct parse_stats stats;
};

static void inline_clear(struct parser *p);

static const char *const kind_names[] = {
	[DIAG_WARNING] = "warning",	  [DIAG_ERROR] = "error",
	[DIAG_FATAL] = "fatal error",	  [DIAG_MODPOST] = "modpost",
	[DIAG_LINKER] = "linker",	  [DIAG_BOOT] = "boot",
	[DIAG_KERNEL_DOC] = "kernel-doc", [DIAG_OBJTOOL] = "objtool",
	[DIAG_ASSEMBLER] = "assembler",	  [DIAG_MAKE] = "make",
	[DIAG_KCONFIG] = "kconfig",	  [DIAG_DTC] = "dtc",
	[DIAG_SPARSE] = "sparse",
};

const char *const diag_tools[] = {
	"compiler",  "kernel-doc", "sparse",  "objtool", "modpost", "linker",
	"assembler", "make",	   "kconfig", "dtc",	 "boot",    NULL,
};

const char *diag_tool_of(const char *kind)
{
	if (!strcmp(kind, "warning") || !strcmp(kind, "error") ||
	    !strcmp(kind, "fatal error"))
		return "compiler";
	return kind;
}

const char *diag_kind_name(enum diag_kind kind)
{
	if ((size_t)kind < ARRAY_SIZE(kind_names) && kind_names[kind])
		return kind_names[kind];
	return "unknown";
}

int diag_is_here_note(const struct diag_note *n)
{
	return n->message && !strcmp(n->message, "here");
}

/* Length of a valid UTF-8 sequence at S (at most N bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0 && s[0] >= 0xc2)
		len = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3;
	else if ((s[0] & 0xf8) == 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/*
 * A clean copy of S[0..N) into OUT (N + 1 bytes: cleaning never makes a
 * string longer): GCC's ‘’ quotes become ', invalid UTF-8 bytes become
 * '?', control characters become ' '.  Returns OUT.
 */
static char *clean_into(char *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;
	size_t i = 0;

	while (i < n) {
		size_t l, run = i;

		/*
		 * The common case: a run of printable ASCII, checked and
		 * copied 8 bytes at once (OUT has room: it is as long).
		 */
		while (run + 8 <= n) {
			uint64_t w;

			memcpy(&w, p + run, 8);
			/* any byte < 0x20, or >= 0x7f (a carry only from 0xff) */
			if (((w - 0x2020202020202020ull) | w |
			     (w + 0x0101010101010101ull)) &
			    0x8080808080808080ull)
				break;
			memcpy(o, &w, 8);
			o += 8;
			run += 8;
		}
		/* the tail: the last 8 bytes at once, overlapping this run */
		if (run + 8 > n && run < n && n >= i + 8) {
			uint64_t w;

			memcpy(&w, p + n - 8, 8);
			if (!(((w - 0x2020202020202020ull) | w |
			       (w + 0x0101010101010101ull)) &
			      0x8080808080808080ull)) {
				memcpy(o - (run - (n - 8)), &w, 8);
				o += n - run;
				run = n;
			}
		}
		while (run < n && p[run] >= 0x20 && p[run] < 0x7f)
			*o++ = (char)p[run++];
		if (run > i) {
			i = run;
			continue;
		}
		l = utf8_len(p + i, n - i);
		if (l == 1) {
			*o++ = p[i] < 0x20 || p[i] == 0x7f ? ' ' : (char)p[i];
		} else if (l == 3 && p[i] == 0xe2 && p[i + 1] == 0x80 &&
			   (p[i + 2] == 0x98 || p[i + 2] == 0x99)) {
			*o++ = '\'';
		} else if (l) {
			memcpy(o, p + i, l);
			o += l;
		} else {
			*o++ = '?';
			l = 1;
		}
		i += l;
	}
	*o = '\0';
	return out;
}

static char *clean_dup(const char *s, size_t n)
{
	return clean_into(xmalloc(n + 1), s, n);
}

static void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	void *ret;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->len + n > c->cap) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = xmalloc(sizeof(*c) + cap);
		c->next = a->head;
		c->len = 0;
		c->cap = cap;
		a->head = c;
	}
	ret = c->data + c->len;
	c->len += n;
	return ret;
}

/* Empty A, keeping one ordinary chunk for the next diagnostic. */
static void arena_reset(struct arena *a)
{
	struct arena_chunk *keep = NULL, *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		if (!keep && c->cap == ARENA_CHUNK) {
			keep = c;
			continue;
		}
		free(c);
	}
	if (keep) {
		keep->next = NULL;
		keep->len = 0;
	}
	a->head = keep;
}

static void arena_release(struct arena *a)
{
	arena_reset(a);
	free(a->head);
	a->head = NULL;
}

static char *arena_clean(struct arena *a, const char *s, size_t n)
{
	return clean_into(arena_alloc(a, n + 1), s, n);
}

static char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s);

	return memcpy(arena_alloc(a, n + 1), s, n + 1);
}

struct parser *parse_new(parse_emit_fn emit, void *ctx)
{
	struct parser *p = xcalloc(1, sizeof(*p));

	p->emit = emit;
	p->ctx = ctx;
	strbuf_init(&p->line, 0);
	strbuf_init(&p->clean, 0);
	strbuf_init(&p->chain, 0);
	strbuf_init(&p->scratch, 0);
	strbuf_init(&p->scratch2, 0);
	strbuf_init(&p->fraw, 0);
	strbuf_init(&p->fclean, 0);
	strbuf_init(&p->inl, 0);
	strbuf_init(&p->chainbuf, 0);
	strbuf_init(&p->keybuf, 0);
	strbuf_init(&p->jsonbuf, 0);
	strbuf_init(&p->namedbuf, 0);
	strbuf_init(&p->stash, 0);
	return p;
}

void parse_set_single_stream(struct parser *p)
{
	p->single = 1;
}

int parse_set_tool(struct parser *p, const char *tool)
{
	if (strcmp(tool, "sparse") && strcmp(tool, "kernel-doc"))
		return -1;
	p->single = 1;
	p->sparse = !strcmp(tool, "sparse");
	p->kdoc = !strcmp(tool, "kernel-doc");
	return 0;
}

const char *parse_unparsed_line(const struct parser *p, size_t i)
{
	return i < p->nr_unparsed ? p->unparsed[i] : NULL;
}

/* Count S[0..N) as unparsed, and keep it if it is one of the first. */
static void note_unparsed(struct parser *p, const char *s, size_t n)
{
	p->stats.unparsed++;
	if (p->nr_unparsed < PARSE_KEEP_UNPARSED)
		p->unparsed[p->nr_unparsed++] = clean_dup(s, n < 200 ? n : 200);
}

void parse_add_strip_prefix(struct parser *p, const char *prefix)
{
	p->prefixes = xrealloc(p->prefixes,
			       (p->nr_prefixes + 1) * sizeof(*p->prefixes));
	p->prefixes[p->nr_prefixes++] = xstrdup(prefix);
}

const struct parse_stats *parse_get_stats(const struct parser *p)
{
	return &p->stats;
}

/* A file name as we store it: prefixes and "./" stripped from *S. */
static void file_span(struct parser *p, const char **sp, size_t *np)
{
	const char *s = *sp;
	size_t n = *np;

	for (size_t i = 0; i < p->nr_prefixes; i++) {
		size_t l = strlen(p->prefixes[i]);

		if (l && l < n && !memcmp(s, p->prefixes[i], l)) {
			s += l;
			n -= l;
			break;
		}
	}
	while (n > 2 && s[0] == '.' && s[1] == '/') {
		s += 2;
		n -= 2;
	}
	*sp = s;
	*np = n;
}

/*
 * Drop "dir/../" pairs in place: kbuild compiles amdkfd and AMD display
 * sources as "drivers/gpu/drm/amd/amdgpu/../amdkfd/x.c", and a warning
 * must carry one name for one file.  Leading "../" stay.
 */
static char *collapse_dotdot(char *path)
{
	char *r = path, *w = path;

	while (*r) {
		char *seg = w;
		size_t len = strcspn(r, "/");

		if (len == 2 && r[0] == '.' && r[1] == '.' && w > path) {
			/* back over the previous segment, unless it is ".." */
			char *prev = w - 1; /* the '/' after it */

			while (prev > path && prev[-1] != '/')
				prev--;
			if (!(w - prev == 3 && prev[0] == '.' &&
			      prev[1] == '.')) {
				w = prev;
				r += len;
				if (*r == '/')
					r++;
				continue;
			}
		}
		memmove(seg, r, len);
		w = seg + len;
		r += len;
		if (*r == '/') {
			*w++ = '/';
			r++;
		}
	}
	*w = '\0';
	return path;
}

/*
 * Does S[0..N) hold a ".." after a '/', which collapse_dotdot() would
 * drop?  Most names do not: their only '.' is the suffix's.  Cleaning
 * makes no '/' nor '.', so the raw bytes tell.
 */
static int has_dotdot(const char *s, size_t n)
{
	const char *end = s + n, *d = s;

	while (d < end && (d = memchr(d, '.', (size_t)(end - d))) != NULL) {
		if (d > s && d[-1] == '/' && d + 1 < end && d[1] == '.')
			return 1;
		d++;
	}
	return 0;
}

/*
 * The file name S[0..N) as we store it, its length in *LEN: valid until
 * the next call.  A diagnostic, its notes and the header before it name
 * the same file, so the last one is kept and only compared.
 */
static const char *file_clean(struct parser *p, const char *s, size_t n,
			      size_t *len)
{
	file_span(p, &s, &n);
	if (n != p->fraw.len || memcmp(s, p->fraw.buf, n)) {
		strbuf_reset(&p->fraw);
		strbuf_add(&p->fraw, s, n);
		strbuf_grow(&p->fclean, n + 1);
		clean_into(p->fclean.buf, s, n);
		if (has_dotdot(s, n))
			collapse_dotdot(p->fclean.buf);
		p->fclean.len = strlen(p->fclean.buf);
	}
	*len = p->fclean.len;
	return p->fclean.buf;
}

/* A file name, cleaned, into the scratch buffer SB (valid until reused). */
static char *file_scratch(struct parser *p, struct strbuf *sb, const char *s,
			  size_t n)
{
	size_t len;
	const char *f = file_clean(p, s, n, &len);

	strbuf_grow(sb, len + 1);
	return memcpy(sb->buf, f, len + 1);
}

static char *file_dup(struct parser *p, const char *s, size_t n)
{
	file_span(p, &s, &n);
	return clean_dup(s, n);
}

static char *arena_file(struct parser *p, struct arena *a, const char *s,
			size_t n)
{
	size_t len;
	const char *f = file_clean(p, s, n, &len);

	return memcpy(arena_alloc(a, len + 1), f, len + 1);
}

/* A quick hash of a file name, eight bytes at a time. */
static unsigned long str_hash(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = n * 0x9e3779b97f4a7c15ull, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return (unsigned long)(h ^ (h >> 29));
}

/* ctx_map: a tiny map with the oldest entry evicted when full. */
static struct ctx_entry *ctx_find_h(struct ctx_map *m, const char *file,
				    unsigned long h)
{
	for (size_t i = h % CTX_SLOTS; m->slot[i]; i = (i + 1) % CTX_SLOTS) {
		struct ctx_entry *e = &m->e[m->slot[i] - 1];

		if (e->hash == h && !strcmp(e->file, file))
			return e;
	}
	return NULL;
}

/* Take entry number IDX out of the slots (backward-shift deletion). */
static void ctx_unslot(struct ctx_map *m, size_t idx)
{
	size_t i = m->e[idx].hash % CTX_SLOTS, j;

	while (m->slot[i] != idx + 1)
		i = (i + 1) % CTX_SLOTS;
	for (j = (i + 1) % CTX_SLOTS; m->slot[j]; j = (j + 1) % CTX_SLOTS) {
		size_t k = m->e[m->slot[j] - 1].hash % CTX_SLOTS;

		/* move J back to I unless its home K lies in (I, J] */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i] = 0;
}

static struct ctx_entry *ctx_find(struct ctx_map *m, const char *file)
{
	return ctx_find_h(m, file, str_hash(file));
}

/*
 * Copy S into *BUF (of *CAP bytes), growing it only when S does not fit:
 * entries are overwritten a few times per diagnostic.  Returns *BUF.
 */
static char *copy_into(char **buf, size_t *cap, const char *s)
{
	size_t n = strlen(s) + 1;

	if (n > *cap) {
		free(*buf);
		*cap = n < 64 ? 64 : n;
		*buf = xmalloc(*cap);
	}
	return memcpy(*buf, s, n);
}

/* Put entry IDX, not in the seq order yet, at its newest end. */
static void ctx_link_newest(struct ctx_map *m, size_t idx)
{
	if (m->n == 1) {
		m->oldest = (unsigned char)idx;
	} else {
		m->newer[m->newest] = (unsigned char)idx;
		m->older[idx] = m->newest;
	}
	m->newest = (unsigned char)idx;
}

/* E was set now, with SEQ (the largest yet): it becomes the newest. */
static void ctx_touch(struct ctx_map *m, struct ctx_entry *e, unsigned long seq)
{
	size_t idx = (size_t)(e - m->e);

	e->seq = seq;
	if (idx == m->newest)
		return;
	/* out of the order... */
	if (idx == m->oldest)
		m->oldest = m->newer[idx];
	else
		m->newer[m->older[idx]] = m->newer[idx];
	m->older[m->newer[idx]] = m->older[idx];
	/* ...and back in at the newest end */
	m->newer[m->newest] = (unsigned char)idx;
	m->older[idx] = m->newest;
	m->newest = (unsigned char)idx;
}

/* Set FILE (whose str_hash() is H) to VALUE in M. */
static void ctx_set_h(struct ctx_map *m, const char *file, unsigned long h,
		      const char *value, unsigned long seq)
{
	struct ctx_entry *e = ctx_find_h(m, file, h);

	if (!e) {
		if (m->n == CTX_MAX) {
			size_t old = m->oldest;

			ctx_unslot(m, old);
			e = &m->e[old];
		} else {
			e = &m->e[m->n++];
			ctx_link_newest(m, (size_t)(e - m->e));
		}
		copy_into(&e->file, &e->fcap, file);
		e->hash = h;
		{
			size_t i = h % CTX_SLOTS;

			while (m->slot[i])
				i = (i + 1) % CTX_SLOTS;
			m->slot[i] = (unsigned char)(e - m->e + 1);
		}
	} else if (e->value && value && !strcmp(e->value, value)) {
		ctx_touch(m, e, seq);
		return;
	}
	e->value = value ? copy_into(&e->vbuf, &e->vcap, value) : NULL;
	ctx_touch(m, e, seq);
}

static void ctx_set(struct ctx_map *m, const char *file, const char *value,
		    unsigned long seq)
{
	ctx_set_h(m, file, str_hash(file), value, seq);
}

static void ctx_clear(struct ctx_map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->e[i].file);
		free(m->e[i].vbuf);
	}
	memset(m->e, 0, sizeof(m->e));
	m->n = 0;
	memset(m->slot, 0, sizeof(m->slot));
}

/* The ring index of the Ith pending diagnostic, oldest first. */
static size_t pending_at(const struct parser *p, size_t i)
{
	return (p->first + i) % PENDING_MAX;
}

static void emit_oldest(struct parser *p)
{
	size_t k = p->first;

	p->emit(p->ctx, &p->pending[k]);
	p->stats.diags++;
	arena_reset(&p->arenas[k]);
	memset(&p->pending[k], 0, sizeof(p->pending[k]));
	p->pending_tu[k] = NULL;
	p->pending_gcc[k] = 0;
	p->pending_sure[k] = 0;
	p->first = (k + 1) % PENDING_MAX;
	p->nr_pending--;
	p->source_slot = NULL;
	p->slot_arena = NULL;
}

/* Does chain "a.h:3, b.c:1" name FILE? */
static int chain_names(const char *chain, const char *file)
{
	size_t l = strlen(file);
	const char *c = chain;

	while (c && *c) {
		if (!strncmp(c, file, l) && c[l] == ':')
			return 1;
		c = strstr(c, ", ");
		if (c)
			c += 2;
	}
	return 0;
}

/* The last file of a chain, the translation unit: start and length. */
static const char *chain_tu(const char *chain, size_t *len)
{
	const char *last = chain, *c = chain, *colon;

	while ((c = strstr(c, ", ")) != NULL) {
		c += 2;
		last = c;
	}
	colon = strrchr(last, ':');
	*len = colon ? (size_t)(colon - last) : strlen(last);
	return last;
}

/*
 * Does D, of translation unit TU, name FILE: as its own file, its unit,
 * on its include chain or in one of its notes?
 */
static int diag_mentions(const struct diag *d, const char *tu, const char *file)
{
	if (d->file && !strcmp(d->file, file))
		return 1;
	if (tu && !strcmp(tu, file))
		return 1;
	if (d->include_chain && chain_names(d->include_chain, file))
		return 1;
	for (size_t i = 0; i < d->nr_notes; i++)
		if (d->notes[i].file && !strcmp(d->notes[i].file, file))
			return 1;
	return 0;
}

/* The hash of the pair (unit TU, file FILE). */
static uint64_t named_hash(const char *tu, const char *file)
{
	uint64_t h = str_hash(tu);

	return (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ull ^ str_hash(file);
}

/* Has a diagnostic of unit TU named FILE (printed an include chain)? */
static int unit_named(const struct parser *p, const char *tu, const char *file)
{
	uint64_t h = named_hash(tu, file);

	for (size_t i = 0; i < p->nr_named; i++)
		if (p->named[i] == h)
			return 1;
	return 0;
}

static void unit_names_one(struct parser *p, const char *tu, const char *file)
{
	if (!strcmp(file, tu) || unit_named(p, tu, file))
		return;
	p->named[p->named_next] = named_hash(tu, file);
	p->named_next = (p->named_next + 1) % NAMED_MAX;
	if (p->nr_named < NAMED_MAX)
		p->nr_named++;
}

/* Unit TU has named FILE (may be NULL) and every file of CHAIN (or NULL). */
static void unit_names(struct parser *p, const char *tu, const char *file,
		       const char *chain)
{
	const char *c = chain;

	if (file)
		unit_names_one(p, tu, file);
	while (c && *c) {
		const char *next = strstr(c, ", ");
		const char *end = next ? next : c + strlen(c), *colon = end;

		while (colon > c && *colon != ':')
			colon--;
		if (colon > c) {
			strbuf_reset(&p->namedbuf);
			strbuf_add(&p->namedbuf, c, (size_t)(colon - c));
			unit_names_one(p, tu, p->namedbuf.buf);
		}
		c = next ? next + 2 : NULL;
	}
}

static int is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Parse "123" at S; returns digits consumed (0 if none). */
static size_t parse_num(const char *s, size_t n, long *out)
{
	size_t i = 0;
	long v = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9' && i < 9) {
		v = v * 10 + (s[i] - '0');
		i++;
	}
	if (i && i < n && s[i] >= '0' && s[i] <= '9')
		return 0; /* absurdly long number: not a location */
	*out = v;
	return i;
}

/* A string literal and its length, for tables of words. */
#define WORD(lit)                    \
	{                            \
		lit, sizeof(lit) - 1 \
	}

static int starts(const char *s, size_t n, const char *lit, size_t litlen)
{
	return n >= litlen && !memcmp(s, lit, litlen);
}
#define STARTS(s, n, lit) starts(s, n, lit, sizeof(lit) - 1)

/* "In file included from X:L:" and "                 from Y:L," */
static void chain_line(struct parser *p, const char *s, size_t n)
{
	size_t end = n;
	int more;

	if (!end)
		return;
	more = s[end - 1] == ',';
	if (s[end - 1] == ',' || s[end - 1] == ':')
		end--;
	/* GCC 7 and older print "x.c:36:0": the column is no part of it */
	{
		size_t i = end;

		while (i && s[i - 1] >= '0' && s[i - 1] <= '9')
			i--;
		if (i < end && i > 1 && s[i - 1] == ':') {
			size_t j = i - 1;

			while (j && s[j - 1] >= '0' && s[j - 1] <= '9')
				j--;
			if (j < i - 1 && j > 0 && s[j - 1] == ':')
				end = i - 1;
		}
	}
	if (p->chain.len)
		strbuf_addstr(&p->chain, ", ");
	strbuf_addstr(&p->chain, file_scratch(p, &p->scratch, s, end));
	p->in_chain = more;
	if (!more) {
		if (p->chain_outer) {
			/* clang's: this level is inside the lines before */
			strbuf_addstr(&p->chain, ", ");
			strbuf_addstr(&p->chain, p->chain_outer);
			free(p->chain_outer);
			p->chain_outer = NULL;
		}
		free(p->fresh_chain);
		p->fresh_chain = strbuf_detach(&p->chain, NULL);
		p->chain_end = p->stats.lines;
	}
}

/*
 * Can the fresh include chain be for a diagnostic or note in FILE?  Not
 * when FILE is the chain's translation unit, nor another ".c" file that
 * the chain does not name: that is another compiler's line under make -j.
 */
static int chain_fits(const char *chain, const char *file)
{
	const char *tu;
	size_t tulen, l;
	int fits;

	if (!file)
		return 1;
	tu = chain_tu(chain, &tulen);
	l = strlen(file);
	fits = tulen != l || memcmp(tu, file, l);
	if (fits && l > 2 && !strcmp(file + l - 2, ".c"))
		fits = chain_names(chain, file);
	return fits;
}

/* Is FILE a translation unit (a .c, .S or .s file)? */
static int is_tu(const char *file, size_t len)
{
	return len > 2 && file[len - 2] == '.' &&
	       (file[len - 1] == 'c' || file[len - 1] == 'S' ||
		file[len - 1] == 's');
}

static const char *chain_after(struct parser *p, const char *file);

/*
 * GCC prints only the part of an include chain it has not printed yet:
 * "In file included from outer.h:1:" for inner.h when outer.h's own chain
 * was printed before.  CHAIN with that earlier chain of its last file
 * appended, in p->scratch2 (or CHAIN itself when complete).
 */
static const char *chain_complete(struct parser *p, const char *chain)
{
	struct ctx_entry *e;
	const char *tu, *rest;
	size_t len;

	tu = chain_tu(chain, &len);
	if (is_tu(tu, len))
		return chain;
	strbuf_reset(&p->chainbuf);
	strbuf_add(&p->chainbuf, tu, len);
	e = ctx_find(&p->chains, p->chainbuf.buf);
	rest = e && e->value ? e->value : chain_after(p, p->chainbuf.buf);
	if (!rest)
		return chain;
	strbuf_reset(&p->chainbuf);
	strbuf_addstr(&p->chainbuf, chain);
	strbuf_addstr(&p->chainbuf, ", ");
	strbuf_addstr(&p->chainbuf, rest);
	return p->chainbuf.buf;
}

/*
 * The rest of a known include chain after FILE ("b.c:1" for a.h in
 * "a.h:3, b.c:1"), the newest such chain: a header on the chain already
 * printed gets no chain of its own.  NULL if no chain names FILE.
 */
static const char *chain_after(struct parser *p, const char *file)
{
	const struct ctx_entry *best = NULL;
	size_t l = strlen(file);
	const char *rest = NULL;

	for (size_t i = 0; i < p->chains.n; i++) {
		const struct ctx_entry *e = &p->chains.e[i];
		const char *c = e->value;

		if (!c || (best && e->seq < best->seq))
			continue;
		while (c && *c) {
			const char *next = strstr(c, ", ");

			if (!strncmp(c, file, l) && c[l] == ':' && next) {
				best = e;
				rest = next + 2;
				break;
			}
			c = next ? next + 2 : NULL;
		}
	}
	return rest;
}

/* Take the fresh chain for a diagnostic in FILE, or the one it had. */
static char *chain_for(struct parser *p, struct arena *a, const char *file,
		       unsigned long fh)
{
	char *chain = NULL;

	p->chain_was_fresh = 0;
	if (p->fresh_chain && chain_fits(p->fresh_chain, file)) {
		p->chain_was_fresh = 1;
		chain = arena_strdup(a, chain_complete(p, p->fresh_chain));
		free(p->fresh_chain);
		p->fresh_chain = NULL;
		if (file)
			ctx_set_h(&p->chains, file, fh, chain, ++p->seq);
	} else if (file) {
		struct ctx_entry *e = ctx_find_h(&p->chains, file, fh);

		if (e && e->value) {
			chain = arena_strdup(a, e->value);
		} else if (!is_tu(file, strlen(file))) {
			/* a header named inside a chain already printed */
			const char *rest = chain_after(p, file);

			if (rest)
				chain = arena_strdup(a, rest);
		}
	}
	return chain;
}

/*
 * The translation unit of an include chain, into SB: its last file when
 * that is a unit (a partial chain ends in a header), else NULL.
 */
static const char *chain_unit(struct strbuf *sb, const char *chain)
{
	size_t len;
	const char *tu = chain_tu(chain, &len);

	if (!is_tu(tu, len))
		return NULL;
	strbuf_reset(sb);
	strbuf_add(sb, tu, len);
	return sb->buf;
}

/* D's translation unit, into its arena A: the compile it is from. */
static char *diag_unit(struct parser *p, struct arena *a, const struct diag *d)
{
	const char *tu;

	if (!d->include_chain)
		return d->file && is_tu(d->file, strlen(d->file)) ? d->file :
								    NULL;
	tu = chain_unit(&p->keybuf, d->include_chain);
	return tu ? arena_strdup(a, tu) : NULL;
}

/*
 * Where a function header for FILE is kept in p->funcs, in p->keybuf:
 * its compile's translation unit (FILE itself, or the last of the chain
 * printed with the header or before for FILE), else FILE.
 */
static const char *header_key(struct parser *p, const char *file)
{
	const struct ctx_entry *e;
	const char *chain = NULL, *tu = NULL;

	if (is_tu(file, strlen(file)))
		return file;
	if (p->fresh_chain && chain_fits(p->fresh_chain, file))
		chain = chain_complete(p, p->fresh_chain);
	else if ((e = ctx_find(&p->chains, file)) != NULL && e->value)
		chain = e->value;
	else
		chain = chain_after(p, file);
	if (chain)
		tu = chain_unit(&p->keybuf, chain);
	return tu ? tu : file;
}

/*
 * The function around D, of unit TU: the function of its compile's last
 * header (GCC prints one whenever the function changes, and a header of
 * another compile never names it), or of the last header of its file
 * when its unit was not known.
 */
static void function_for(struct parser *p, struct arena *a, struct diag *d,
			 const char *tu, unsigned long fh)
{
	struct ctx_entry *e = NULL, *f;

	if (!d->file)
		return;
	if (tu)
		e = ctx_find(&p->funcs, tu);
	if (!tu || strcmp(tu, d->file)) {
		f = ctx_find_h(&p->funcs, d->file, fh);
		if (f && (!e || f->seq > e->seq))
			e = f;
	}
	if (e && e->value)
		d->function = arena_strdup(a, e->value);
}

/*
 * The newest entry of M whose file ends FILE[0..LEN) after a '/': an O=
 * build prints "/src/arch/x/y.c" for the object "arch/x/y.o".
 */
static struct ctx_entry *ctx_suffix(struct ctx_map *m, const char *file,
				    size_t len)
{
	struct ctx_entry *best = NULL;

	for (size_t i = 0; i < m->n; i++) {
		struct ctx_entry *e = &m->e[i];
		size_t l = strlen(e->file);

		if (l < len && file[len - l - 1] == '/' &&
		    !memcmp(file + len - l, e->file, l) &&
		    (!best || e->seq > best->seq))
			best = e;
	}
	return best;
}

/* Is FILE[0..LEN) gcc's temporary assembler file, "/tmp/ccAbC123.s"? */
static int is_temp_asm(const char *file, size_t len)
{
	const char *base = memrchr(file, '/', len);

	return base && len - (size_t)(base + 1 - file) == 10 &&
	       !memcmp(base + 1, "cc", 2) && !memcmp(file + len - 2, ".s", 2);
}

/*
 * D's object: its unit's from a kbuild "CC" line, else by kbuild's rule;
 * the unit is UNIT when given, else the last file of D's include chain,
 * else D's file (whose str_hash() is FH).
 */
static void object_for(struct parser *p, struct arena *a, struct diag *d,
		       unsigned long fh, const char *unit)
{
	struct ctx_entry *e = NULL;
	const char *tu = NULL;
	size_t len = 0;

	if (unit) {
		tu = unit;
		len = strlen(unit);
		e = ctx_find(&p->objects, unit);
	} else if (d->include_chain) {
		tu = chain_tu(d->include_chain, &len);
		strbuf_reset(&p->scratch);
		strbuf_add(&p->scratch, tu, len);
		tu = p->scratch.buf;
		e = ctx_find(&p->objects, tu);
	} else if (d->file) {
		tu = d->file;
		len = strlen(tu);
		if (len > 2 && tu[len - 2] == '.' &&
		    (tu[len - 1] == 'S' || tu[len - 1] == 's')) {
			/* kbuild_line() keys every object by its ".c" */
			strbuf_reset(&p->scratch);
			strbuf_add(&p->scratch, tu, len - 1);
			strbuf_addch(&p->scratch, 'c');
			e = ctx_find(&p->objects, p->scratch.buf);
		} else {
			e = ctx_find_h(&p->objects, d->file, fh);
		}
	}
	if (!e && tu && tu[0] == '/')
		e = ctx_suffix(&p->objects, tu, len);
	if (!e && tu && is_temp_asm(tu, len))
		return; /* gcc's own "/tmp/ccXXXXXX.s": no object of ours */
	if (e && e->value) {
		d->object = arena_strdup(a, e->value);
	} else if (tu && is_tu(tu, len)) {
		/* kbuild's rule: foo.c and foo.S give foo.o */
		d->object = arena_strdup(a, tu);
		d->object[len - 1] = 'o';
	}
}

/* Split "message [-Wopt]" into message and option. */
static void split_option(struct arena *a, struct diag *d, const char *msg,
			 size_t n)
{
	const char *open;

	while (n && (*msg == ' ' || *msg == '\t')) {
		msg++;
		n--;
	}
	if (n > 3 && msg[n - 1] == ']') {
		/* the last " [" */
		open = memrchr(msg, '[', n);
		while (open && open > msg && open[-1] != ' ')
			open = memrchr(msg, '[', (size_t)(open - msg));
		if (open == msg)
			open = NULL;
		if (open && open[1] == '-' &&
		    (open[2] == 'W' || open[2] == 'f')) {
			const char *opt = open + 1;
			size_t olen = (size_t)(msg + n - 1 - opt);

			if (STARTS(opt, olen, "-Werror=")) {
				/* GCC's -Werror=foo: the warning is -Wfoo */
				d->werror = 1;
				d->option = arena_alloc(a, olen - 8 + 3);
				memcpy(d->option, "-W", 2);
				memcpy(d->option + 2, opt + 8, olen - 8);
				d->option[olen - 8 + 2] = '\0';
			} else if (STARTS(opt, olen, "-Werror,")) {
				/* clang's "-Werror,-Wfoo" */
				d->werror = 1;
				d->option = arena_clean(a, opt + 8, olen - 8);
			} else if (olen == 7 && STARTS(opt, olen, "-Werror")) {
				/* a warning without an option, under -Werror */
				d->werror = 1;
			} else {
				d->option = arena_clean(a, opt, olen);
			}
			n = (size_t)(open - 1 - msg);
		}
	}
	d->message = arena_clean(a, msg, n);
}

/* The first 'quoted' name in MSG after FROM, into A; NULL if none. */
static char *quoted_name(struct arena *a, const char *from)
{
	const char *q = strchr(from, '\''), *e;

	if (!q)
		return NULL;
	e = strchr(q + 1, '\'');
	if (!e || e == q + 1)
		return NULL;
	return arena_clean(a, q + 1, (size_t)(e - q - 1));
}

/* The last 'quoted' name in MSG, into A; NULL if none. */
static char *last_quoted_name(struct arena *a, const char *msg)
{
	const char *e = strrchr(msg, '\''), *q;

	if (!e || e == msg)
		return NULL;
	q = memrchr(msg, '\'', (size_t)(e - msg));
	if (!q || e == q + 1)
		return NULL;
	return arena_clean(a, q + 1, (size_t)(e - q - 1));
}

/*
 * scripts/kernel-doc's warnings ("FILE:LINE: warning: ...", no column,
 * no option), and which name is their function: 1 the last quoted one,
 * 2 the name after "for " up to "()", 0 none.
 */
static const struct {
	const char *word;
	size_t len;
	int which;
} kdoc_msgs[] = {
	{ "Function parameter or member ", 29, 1 },
	{ "Function parameter or struct member ", 36, 1 }, /* 6.12 */
	{ "Excess function parameter ", 26, 1 },
	{ "Excess struct member ", 21, 1 },
	{ "Excess enum value ", 18, 1 },
	{ "Enum value ", 11, 1 },
	{ "No description found for return value of ", 42, 1 },
	{ "expecting prototype for ", 24, 2 },
	{ "This comment starts with '/**', but isn't a kernel-doc", 54, 0 },
	{ "bad line: ", 10, 0 },
	{ "cannot understand function prototype: ", 38, 0 },
	{ "Cannot understand ", 18, 0 },
	{ "missing initial short description", 33, 0 },
	{ "Incorrect use of kernel-doc format: ", 36, 0 },
	{ "duplicate section name ", 23, 0 },
	{ "wrong kernel-doc identifier on line:", 36, 0 },
	{ "Scalar ", 7, 0 },
	{ "no structured comments found", 28, 0 },
};

/*
 * Warnings whose subject is named in the message, at file scope where
 * GCC prints no "In function" header: the symbol is the function.
 */
static const struct {
	const char *word;
	size_t len;
	int first; /* 1: the name comes first ("'v' defined but not used"),
		      2: last ("stack frame size (9) exceeds limit (8) in 'f'"),
		      0: after the words */
	const char *opt; /* only with this option, or NULL */
} scope_msgs[] = {
	{ "no previous prototype for ", 26, 0, NULL },
	{ "no previous declaration for ", 28, 0, NULL },
	{ "unused function ", 16, 0, NULL }, /* clang */
	/* clang's, for a file-scope constant only */
	{ "unused variable ", 16, 0, "-Wunused-const-variable" },
	{ "' defined but not used", 22, 1, NULL },
	{ "' declared 'static' but never defined", 37, 1, NULL },
	{ "' used but never defined", 24, 1, NULL },
	{ "stack frame size ", 17, 2, NULL }, /* clang's -Wframe-larger-than */
};

/*
 * The symbol of "expecting prototype for X(). Prototype was for Y()
 * instead" at F: X, the name the comment documents, or Y when X is no
 * identifier (a comment that names its file, "lib/minmax.c"); NULL when
 * neither is one.
 */
static char *kdoc_symbol(struct arena *a, const char *f)
{
	static const char was[] = "Prototype was for ";

	for (int pass = 0; pass < 2; pass++) {
		size_t n = 0;

		while (f[n] && is_ident_char(f[n]))
			n++;
		if (n && f[n] == '(' && !(f[0] >= '0' && f[0] <= '9'))
			return arena_clean(a, f, n);
		f = strstr(f, was);
		if (!f)
			break;
		f += sizeof(was) - 1;
	}
	return NULL;
}

/* Kernel-doc's kind, and the symbol a file-scope warning names. */
static void subject_of(struct arena *a, struct diag *d)
{
	const char *m = d->message;
	size_t n;

	/* every message of both tables starts with one of these */
	if (!m[0] || !strchr("nusFETNeCbcmIdwS'", m[0]))
		return;
	n = strlen(m);
	if (d->line && !d->col && !d->option) {
		for (size_t i = 0; i < ARRAY_SIZE(kdoc_msgs); i++) {
			if (!starts(m, n, kdoc_msgs[i].word, kdoc_msgs[i].len))
				continue;
			d->kind = DIAG_KERNEL_DOC;
			d->function = NULL;
			if (kdoc_msgs[i].which == 1) {
				d->function = last_quoted_name(a, m);
			} else if (kdoc_msgs[i].which == 2) {
				d->function =
					kdoc_symbol(a, m + kdoc_msgs[i].len);
			}
			return;
		}
	}
	if (!d->option)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(scope_msgs); i++) {
		const char *w;
		char *name;

		/* the name first: "'v' defined..."; else the words first */
		if ((scope_msgs[i].first == 1) != (m[0] == '\''))
			continue;
		w = m;
		if (scope_msgs[i].first == 1)
			w = strstr(m, scope_msgs[i].word);
		else if (!starts(m, n, scope_msgs[i].word, scope_msgs[i].len))
			w = NULL;
		if (w && scope_msgs[i].opt &&
		    strcmp(d->option, scope_msgs[i].opt))
			w = NULL;
		if (!w)
			continue;
		if (scope_msgs[i].first == 2)
			name = d->function ? NULL : last_quoted_name(a, m);
		else
			name = quoted_name(a, scope_msgs[i].first ? m : w);
		if (name)
			d->function = name;
		return;
	}
}

/*
 * A diagnostic of unit TU, the newest pending one, came: after another
 * unit's, while an older one of TU is pending, it is make -j's.
 */
static void unit_seen(struct parser *p, const char *tu)
{
	size_t prev;

	if (p->interleaved || p->nr_pending < 3)
		return;
	prev = pending_at(p, p->nr_pending - 2);
	if (!p->pending_tu[prev] || !strcmp(p->pending_tu[prev], tu))
		return;
	for (size_t i = p->nr_pending - 2; i-- > 0;) {
		const char *t = p->pending_tu[pending_at(p, i)];

		if (t && !strcmp(t, tu))
			p->interleaved = 1;
	}
}

static struct diag *new_pending(struct parser *p)
{
	if (p->nr_pending == PENDING_MAX)
		emit_oldest(p);
	return &p->pending[pending_at(p, p->nr_pending++)];
}

/*
 * Which pending diagnostic a note in F is, by GCC's own structure: the
 * one it follows, unless the note names another compile.  NTU is the
 * unit an include chain printed for the note names, or NULL.  A note
 * that only its order places, where another compile's diagnostic could
 * own it, is counted in order_notes.
 */
static struct diag *note_owner(struct parser *p, const char *f, const char *ntu)
{
	size_t kn = pending_at(p, p->nr_pending - 1), other = PENDING_MAX;
	const char *dtu = p->pending_tu[kn];
	struct diag *newest = &p->pending[kn];
	int same = 0;

	if (p->single || !f)
		return newest;
	/*
	 * A note in a .c file is that compile's, once compiles are seen to
	 * interleave; in a serial log it may be another unit's (LTO's
	 * "previously declared here").
	 */
	if (!ntu && p->interleaved && is_tu(f, strlen(f)))
		ntu = f;
	if (ntu) {
		if (!dtu || !strcmp(dtu, ntu))
			return newest;
		for (size_t i = p->nr_pending - 1; i-- > 0;) {
			size_t k = pending_at(p, i);

			if (p->pending_tu[k] && !strcmp(p->pending_tu[k], ntu))
				return &p->pending[k];
		}
		p->stats.order_notes++;
		return newest;
	}
	/*
	 * A header without a chain: a compile that has named it before
	 * (GCC prints a header's include chain the first time a compile
	 * names it).  Had the newest's compile never named F, this note
	 * would have had one.  clang prints none for notes.
	 */
	if (!dtu)
		return newest;
	same = diag_mentions(newest, dtu, f) || unit_named(p, dtu, f);
	for (size_t i = p->nr_pending - 1; i-- > 0 && other == PENDING_MAX;) {
		size_t k = pending_at(p, i);
		const char *tu = p->pending_tu[k];

		if (tu && strcmp(tu, dtu) &&
		    (diag_mentions(&p->pending[k], tu, f) ||
		     unit_named(p, tu, f)))
			other = k;
	}
	if (other == PENDING_MAX)
		return newest;
	if (!same && p->pending_gcc[kn] && p->pending_gcc[other])
		return &p->pending[other];
	/* until compiles are seen to interleave, the log reads as serial */
	if (p->interleaved)
		p->stats.order_notes++;
	return newest;
}

/* gcc's "in expansion of macro 'X'" or "in definition of macro 'X'" */
static int is_macro_note(const char *msg, size_t n)
{
	return STARTS(msg, n, "in expansion of macro ") ||
	       STARTS(msg, n, "in definition of macro ");
}

/*
 * The pending diagnostic K, in a header, is of unit TU after all: its
 * include chain came from what another compile printed for that header
 * (under make -j, gcc prints a header's chain once a compile).  Its
 * function and object are TU's; its chain is unknown.
 */
static void unit_fix(struct parser *p, size_t k, const char *tu)
{
	struct diag *d = &p->pending[k];
	struct arena *a = &p->arenas[k];
	const struct ctx_entry *e;

	p->pending_tu[k] = arena_strdup(a, tu);
	p->pending_sure[k] = 1;
	unit_names(p, p->pending_tu[k], d->file, NULL);
	d->include_chain = NULL;
	if (!d->inline_chain) {
		e = ctx_find(&p->funcs, p->pending_tu[k]);
		d->function = e && e->value ? arena_strdup(a, e->value) : NULL;
		if (d->kind == DIAG_WARNING)
			subject_of(a, d);
	}
	d->object = NULL;
	object_for(p, a, d, 0, p->pending_tu[k]);
}

static void note_append(struct parser *p, struct diag *d, const char *f,
			long line, long col, const char *msg, size_t mlen);

static void add_note(struct parser *p, const char *file, size_t flen, long line,
		     long col, const char *msg, size_t mlen)
{
	struct diag *d = NULL;
	char *f = file ? file_scratch(p, &p->scratch2, file, flen) : NULL;
	const char *ntu = NULL;

	/* An inline chain or include chain printed for a note is its own */
	if (p->inline_fn && !p->in_inline)
		inline_clear(p);
	if (p->fresh_chain && chain_fits(p->fresh_chain, f)) {
		const char *chain = chain_complete(p, p->fresh_chain);

		/* it names the note's compile, and F's chain from now on */
		if (f)
			ctx_set(&p->chains, f, chain, ++p->seq);
		ntu = chain_unit(&p->keybuf, chain);
		if (ntu)
			unit_names(p, ntu, f, chain);
		free(p->fresh_chain);
		p->fresh_chain = NULL;
	}
	if (p->nr_pending && !ntu && f && is_macro_note(msg, mlen)) {
		size_t k = pending_at(p, p->nr_pending - 1);

		/*
		 * gcc writes "in expansion of macro" with its warning, at
		 * once: it is the newest's, and a .c file names its unit
		 */
		d = &p->pending[k];
		if (is_tu(f, strlen(f)) && !p->pending_sure[k] && d->file &&
		    (!p->pending_tu[k] || strcmp(p->pending_tu[k], f)))
			unit_fix(p, k, f);
	} else if (p->nr_pending) {
		d = note_owner(p, f, ntu);
	}
	if (!d) {
		p->stats.orphan_notes++;
		p->source_slot = NULL;
		return;
	}
	note_append(p, d, f, line, col, msg, mlen);
}

/* Add the note F:LINE:COL: MSG (F cleaned already, or NULL) to D. */
static void note_append(struct parser *p, struct diag *d, const char *f,
			long line, long col, const char *msg, size_t mlen)
{
	struct diag_note *note;
	struct arena *a = &p->arenas[d - p->pending];

	if (d->nr_notes == d->alloc_notes) {
		struct diag_note *old = d->notes;

		d->alloc_notes = d->alloc_notes ? 2 * d->alloc_notes : 4;
		d->notes = arena_alloc(a, d->alloc_notes * sizeof(*d->notes));
		if (d->nr_notes)
			memcpy(d->notes, old, d->nr_notes * sizeof(*d->notes));
	}
	note = &d->notes[d->nr_notes++];
	note->file = f ? arena_strdup(a, f) : NULL;
	note->line = line;
	note->col = col;
	note->message = arena_clean(a, msg, mlen);
	note->source = NULL;
	p->source_slot = &note->source;
	p->slot_arena = a;
	p->slot_line = line;
	p->stats.notes++;
}

/* Forget sparse's last "in included file" note. */
static void sparse_unit_clear(struct parser *p)
{
	free(p->sparse_unit);
	free(p->sparse_hdr);
	p->sparse_unit = p->sparse_hdr = NULL;
}

/*
 * In a make log (not sparse's stream alone), the unit whose sparse run
 * printed D, or NULL when D is not sparse's.  sparse's lines are a
 * compiler's in shape, with no option: D is sparse's when it names a
 * source kbuild's "CHECK" line named (kbuild checks a source after its
 * compile, in the same rule, so none of that compile's lines come after
 * it), or is the first diagnostic after sparse's "in included file" note,
 * or names the same header as that one did with nothing between.
 */
static const char *sparse_of_log(struct parser *p, const struct diag *d)
{
	const struct ctx_entry *e;
	int shape = (d->kind == DIAG_WARNING || d->kind == DIAG_ERROR) &&
		    !d->option && !d->werror && d->file && d->line && d->col;

	if (p->sparse || p->kdoc)
		return NULL;
	if (p->sparse_unit) {
		if (shape && !p->sparse_hdr)
			p->sparse_hdr = xstrdup(d->file);
		if (shape && !strcmp(p->sparse_hdr, d->file))
			return p->sparse_unit;
		sparse_unit_clear(p);
	}
	if (!shape || !p->checks.n)
		return NULL;
	e = ctx_find(&p->checks, d->file);
	return e ? e->file : NULL;
}

static void add_diag(struct parser *p, enum diag_kind kind, const char *file,
		     size_t flen, long line, long col, const char *msg,
		     size_t mlen)
{
	struct diag *d = new_pending(p);
	size_t k = (size_t)(d - p->pending);
	struct arena *a = &p->arenas[k];
	unsigned long fh;
	const char *su;
	char *tu;

	d->kind = kind;
	d->file = file ? arena_file(p, a, file, flen) : NULL;
	d->line = line;
	d->col = col;
	split_option(a, d, msg, mlen);
	if (kind == DIAG_ERROR && d->werror)
		d->kind = DIAG_WARNING;
	su = sparse_of_log(p, d);
	if (su) {
		/* sparse's: no chain, no function of gcc's, its unit's object */
		d->kind = DIAG_SPARSE;
		tu = p->pending_tu[k] = arena_strdup(a, su);
		p->pending_sure[k] = 1;
		object_for(p, a, d, 0, tu);
		p->source_slot = &d->source;
		p->slot_arena = a;
		p->slot_line = line;
		p->slot_kdoc = 0;
		return;
	}
	fh = d->file ? str_hash(d->file) : 0;
	d->include_chain = chain_for(p, a, d->file, fh);
	tu = p->pending_tu[k] = diag_unit(p, a, d);
	p->pending_sure[k] = p->chain_was_fresh || (tu && tu == d->file);
	if (tu && p->pending_sure[k])
		unit_names(p, tu, d->file, d->include_chain);
	if (tu)
		unit_seen(p, tu);
	function_for(p, a, d, tu, fh);
	if (p->inline_fn && !p->in_inline) {
		/* "In function 'chk'," and its "inlined from" lines */
		d->function = arena_strdup(a, p->inline_fn);
		if (p->inline_chain)
			d->inline_chain = arena_strdup(a, p->inline_chain);
		if (d->file)
			ctx_set(&p->funcs, tu ? tu : d->file, p->inline_fn,
				++p->seq);
		inline_clear(p);
	}
	if (d->kind == DIAG_WARNING)
		subject_of(a, d);
	/* kernel-doc's lines alone: words it prints that no table knows */
	if (p->kdoc && d->kind == DIAG_WARNING && d->line && !d->col &&
	    !d->option)
		d->kind = DIAG_KERNEL_DOC;
	if (d->kind == DIAG_WARNING || d->kind == DIAG_ERROR ||
	    d->kind == DIAG_FATAL || d->kind == DIAG_KERNEL_DOC ||
	    d->kind == DIAG_ASSEMBLER)
		object_for(p, a, d, fh, NULL);
	p->source_slot = &d->source;
	p->slot_arena = a;
	p->slot_line = line;
	p->slot_kdoc = d->kind == DIAG_KERNEL_DOC;
}

/* Strip quotes from NAME: ASCII '', UTF-8 ‘’ or GCC 3's `'. */
static void unquote(const char **name, size_t *nlen)
{
	const char *s = *name;
	size_t n = *nlen;

	if (n >= 2 && (s[0] == '\'' || s[0] == '`') && s[n - 1] == '\'') {
		s++;
		n -= 2;
	} else if (n >= 6 && STARTS(s, n, "\xe2\x80\x98") &&
		   !memcmp(s + n - 3, "\xe2\x80\x99", 3)) {
		s += 3;
		n -= 6;
	}
	*name = s;
	*nlen = n;
}

/* An inline chain starts: FN is the function of the next diagnostic. */
static void inline_start(struct parser *p, const char *fn)
{
	free(p->inline_fn);
	p->inline_fn = xstrdup(fn);
	free(p->inline_chain);
	p->inline_chain = NULL;
	strbuf_reset(&p->inl);
	p->in_inline = 1;
}

/* Forget an inline chain not taken by a diagnostic. */
static void inline_clear(struct parser *p)
{
	free(p->inline_fn);
	free(p->inline_chain);
	p->inline_fn = NULL;
	p->inline_chain = NULL;
	strbuf_reset(&p->inl);
	p->in_inline = 0;
}

/*
 * "FILE: In function 'f':" and friends.  REST is after "FILE: "; FILE is
 * NULL for "In function 'f'," printed before an "inlined from" chain.
 */
static int function_header(struct parser *p, const char *file, size_t flen,
			   const char *rest, size_t n)
{
	static const struct {
		const char *word;
		size_t len;
	} heads[] = {
		WORD("In function "),
		WORD("In member function "),
		WORD("In static member function "),
		WORD("In constructor "),
		WORD("In destructor "),
		WORD("In lambda function"),
	};
	const char *name = NULL;
	size_t nlen = 0;
	int inlined;

	if (!n || (rest[0] != 'I' && rest[0] != 'A'))
		return 0;
	if (STARTS(rest, n, "At top level:") ||
	    STARTS(rest, n, "At global scope:")) {
		if (file)
			ctx_set(&p->funcs,
				header_key(p, file_scratch(p, &p->scratch, file,
							   flen)),
				NULL, ++p->seq);
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		size_t hl = heads[i].len;

		if (starts(rest, n, heads[i].word, hl)) {
			name = rest + hl;
			nlen = n - hl;
			break;
		}
	}
	if (!name)
		return 0;
	/* "In function 'chk'," is followed by "inlined from" lines */
	inlined = nlen && name[nlen - 1] == ',';
	/* strip the trailing ':' or ',' and the quotes */
	if (nlen && (name[nlen - 1] == ':' || name[nlen - 1] == ','))
		nlen--;
	unquote(&name, &nlen);
	strbuf_grow(&p->scratch2, nlen + 1);
	clean_into(p->scratch2.buf, name, nlen);
	if (inlined)
		inline_start(p, p->scratch2.buf);
	if (file)
		ctx_set(&p->funcs,
			header_key(p, file_scratch(p, &p->scratch, file, flen)),
			p->scratch2.buf, ++p->seq);
	return 1;
}

/* "    inlined from 'caller' at a.c:18:2," (S without the blanks). */
static int inline_line(struct parser *p, const char *s, size_t n)
{
	const char *at, *end;
	size_t nlen;
	int more;

	if (!STARTS(s, n, "inlined from "))
		return 0;
	s += 13;
	n -= 13;
	more = n && s[n - 1] == ',';
	if (n && (s[n - 1] == ',' || s[n - 1] == ':'))
		n--;
	end = s + n;
	at = memmem(s, n, " at ", 4);
	nlen = at ? (size_t)(at - s) : n;
	unquote(&s, &nlen);
	if (p->inl.len)
		strbuf_addstr(&p->inl, ", ");
	strbuf_grow(&p->inl, nlen + 1);
	clean_into(p->inl.buf + p->inl.len, s, nlen);
	p->inl.len += strlen(p->inl.buf + p->inl.len);
	if (at) {
		const char *loc = at + 4;

		strbuf_addstr(&p->inl, " at ");
		strbuf_addstr(&p->inl, file_scratch(p, &p->scratch, loc,
						    (size_t)(end - loc)));
	}
	p->in_inline = more;
	if (!more) {
		free(p->inline_chain);
		p->inline_chain = strbuf_detach(&p->inl, NULL);
	}
	return 1;
}

static const struct {
	const char *word;
	size_t len;
	enum diag_kind kind;
	int is_note;
} kinds[] = {
	{ "warning: ", 9, DIAG_WARNING, 0 },
	{ "note: ", 6, DIAG_WARNING, 1 },
	{ "error: ", 7, DIAG_ERROR, 0 },
	{ "fatal error: ", 13, DIAG_FATAL, 0 },
	{ "internal compiler error: ", 25, DIAG_FATAL, 0 },
	{ "sorry, unimplemented: ", 22, DIAG_ERROR, 0 },
	/* GNU as: "FILE:LINE: Warning: ..." */
	{ "Warning: ", 9, DIAG_ASSEMBLER, 0 },
	{ "Error: ", 7, DIAG_ERROR, 0 },
};

enum { TOOL_NONE, TOOL_OTHER, TOOL_LINKER };

/*
 * Is S[0..N) the name of a tool ("ld", "/usr/bin/ld", "ld.lld-16",
 * "aarch64-linux-gnu-gcc", "x86_64-linux-gnu-gcc-12", "lto-wrapper"),
 * with any directory, target triplet and version?  TOOL_LINKER for a
 * linker, TOOL_OTHER for another tool, TOOL_NONE for a file.
 */
static int is_tool(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int linker;
	} tools[] = {
		{ "cc1", 0 },	   { "cc1plus", 0 },  { "gcc", 0 },
		{ "g++", 0 },	   { "cc", 0 },	      { "c++", 0 },
		{ "clang", 0 },	   { "clang++", 0 },  { "as", 0 },
		{ "collect2", 0 }, { "lto1", 0 },     { "lto-wrapper", 0 },
		{ "objcopy", 0 },  { "objdump", 0 },  { "ar", 0 },
		{ "nm", 0 },	   { "strip", 0 },    { "llvm-objcopy", 0 },
		{ "llvm-ar", 0 },  { "llvm-nm", 0 },  { "ld", 1 },
		{ "ld.bfd", 1 },   { "ld.gold", 1 },  { "ld.lld", 1 },
		{ "lld", 1 },	   { "ld64.lld", 1 },
	};
	const char *base = memrchr(s, '/', n), *dash;
	size_t i, len;

	if (base) {
		n -= (size_t)(base + 1 - s);
		s = base + 1;
	}
	/* a version: "-12", "-16", "-12.2" */
	for (i = n;
	     i && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == '.');)
		i--;
	if (i && i < n && s[i - 1] == '-')
		n = i - 1;
	for (int pass = 0; pass < 2; pass++) {
		for (i = 0; i < ARRAY_SIZE(tools); i++) {
			len = strlen(tools[i].name);
			if (len == n && !memcmp(s, tools[i].name, n))
				return tools[i].linker ? TOOL_LINKER :
							 TOOL_OTHER;
		}
		/* a target triplet: what follows its last '-' */
		dash = memrchr(s, '-', n);
		if (pass || !dash || dash == s ||
		    !memchr(s, '-', (size_t)(dash - s)))
			break;
		n -= (size_t)(dash + 1 - s);
		s = dash + 1;
	}
	return TOOL_NONE;
}

/*
 * Is S[0..N) a makefile: "Makefile", "GNUmakefile", "Kbuild",
 * "scripts/Makefile.build", "foo.mk"?
 */
static int is_makefile(const char *s, size_t n)
{
	const char *base = memrchr(s, '/', n);
	size_t bl;

	if (base) {
		n -= (size_t)(base + 1 - s);
		s = base + 1;
	}
	bl = n;
	return STARTS(s, bl, "Makefile") || STARTS(s, bl, "makefile") ||
	       STARTS(s, bl, "GNUmakefile") || STARTS(s, bl, "Kbuild") ||
	       (bl > 3 && !memcmp(s + bl - 3, ".mk", 3));
}

/*
 * A tool's error that only says an earlier step failed: collect2's "ld
 * returned 1 exit status", lto-wrapper's "gcc-12 returned 1 exit
 * status", ld's "lto-wrapper failed".  The step's own diagnostics were
 * printed before; these are not diagnostics of their own.
 */
static int is_follow_on(const char *m, size_t n)
{
	static const char tail[] = " exit status";
	const char *r;

	if (n == 18 && STARTS(m, n, "lto-wrapper failed"))
		return 1;
	if (n < sizeof(tail) ||
	    memcmp(m + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1))
		return 0;
	r = memmem(m, n, " returned ", 10);
	return r != NULL;
}

/* "make: warning: ...", "make[4]: warning: ..." (S is the name). */
static int is_make(const char *s, size_t n)
{
	size_t i;

	if (n == 4 && !memcmp(s, "make", 4))
		return 1;
	if (n < 7 || memcmp(s, "make[", 5) || s[n - 1] != ']')
		return 0;
	for (i = 5; i < n - 1; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/*
 * "FOO.o: warning: objtool: func()+0x12: msg": the object's, with the
 * function it names.  REST is after "FOO.o: warning: objtool: ".
 */
static void objtool_line(struct parser *p, const char *obj, size_t olen,
			 const char *rest, size_t n)
{
	const char *colon = memmem(rest, n, ": ", 2), *plus;
	struct diag *d;
	struct arena *a;
	size_t fl = 0;

	/* "func+0x1: " or "func()+0x1: ": the offset moves with any change */
	if (colon) {
		plus = memchr(rest, '+', (size_t)(colon - rest));
		if (plus && plus[1] == '0' && plus[2] == 'x' &&
		    !memchr(rest, ' ', (size_t)(colon - rest)))
			fl = (size_t)(plus - rest);
	}
	add_diag(p, DIAG_OBJTOOL, obj, olen, 0, 0, fl ? colon + 2 : rest,
		 fl ? n - (size_t)(colon + 2 - rest) : n);
	d = &p->pending[pending_at(p, p->nr_pending - 1)];
	a = &p->arenas[d - p->pending];
	if (fl >= 2 && rest[fl - 2] == '(' && rest[fl - 1] == ')')
		fl -= 2;
	/* ".entry.text+0x1": an offset in a section, no symbol */
	if (fl && rest[0] != '.')
		d->function = arena_clean(a, rest, fl);
	d->object = arena_strdup(a, d->file);
}

/*
 * Kconfig's "FILE:LINE:warning: msg" (no blank after the line) and dtc's
 * "FILE:L.C-L.C: Warning (check): /node: msg" or "FILE: Warning (check):
 * msg": their own kinds, the check as the option and dtc's node as the
 * function.  Returns 1 if S[0..N) was one.
 */
static int config_line(struct parser *p, const char *s, size_t n)
{
	const char *w = memmem(s, n, ":warning: ", 10), *sep;
	long line = 0, col = 0;
	size_t d, flen;

	if (w && !memchr(s, ' ', (size_t)(w - s))) {
		/* Kconfig: the number before ":warning: " is the line */
		const char *c = memrchr(s, ':', (size_t)(w - s));

		if (!c || c == s ||
		    parse_num(c + 1, (size_t)(w - c - 1), &line) !=
			    (size_t)(w - c - 1) ||
		    !line)
			return 0;
		add_diag(p, DIAG_KCONFIG, s, (size_t)(c - s), line, 0, w + 10,
			 n - (size_t)(w - s) - 10);
		return 1;
	}
	sep = memmem(s, n, ": Warning (", 11);
	if (!sep || memchr(s, ' ', (size_t)(sep - s)))
		return 0;
	flen = (size_t)(sep - s);
	{
		/* ":11.15-13.5": the start's line and column */
		const char *c = memrchr(s, ':', flen);

		if (c && (d = parse_num(c + 1, flen - (size_t)(c + 1 - s),
					&line)) != 0) {
			const char *q = c + 1 + d;

			if (q < s + flen && *q == '.')
				parse_num(q + 1, (size_t)(s + flen - q - 1),
					  &col);
			flen = (size_t)(c - s);
		} else {
			line = 0;
		}
	}
	{
		const char *chk = sep + 11, *end = s + n;
		const char *close = memchr(chk, ')', (size_t)(end - chk));
		struct diag *dg;
		struct arena *a;
		const char *msg;

		if (!close || close + 2 > end || close[1] != ':')
			return 0;
		msg = close + 2;
		add_diag(p, DIAG_DTC, s, flen, line, col, msg,
			 (size_t)(end - msg));
		dg = &p->pending[pending_at(p, p->nr_pending - 1)];
		a = &p->arenas[dg - p->pending];
		/* dtc's -W flag names the check: -Wno-unit_address_vs_reg */
		dg->option = arena_alloc(a, (size_t)(close - chk) + 3);
		memcpy(dg->option, "-W", 2);
		clean_into(dg->option + 2, chk, (size_t)(close - chk));
		if (dg->message[0] == '/' && strstr(dg->message, ": "))
			dg->function =
				arena_clean(a, dg->message,
					    (size_t)(strstr(dg->message, ": ") -
						     dg->message));
	}
	return 1;
}

/*
 * In a make log, a line of sparse's under one of its diagnostics, with
 * no kind: "FILE:LINE:COL:    expected int *p" and "...:    got ..." at
 * its place (the diagnostic at that place is sparse's, whoever's lines
 * came between: no compiler prints such a line), "FILE:LINE:COL:
 * originally declared here" right after it.  Its note, as in sparse's
 * own stream (sparse_line()); 1 if the line was one of these.
 */
static int sparse_note(struct parser *p, const char *file, size_t flen,
		       long line, long col, const char *rest, size_t rlen)
{
	struct diag *d = NULL;
	const char *f;

	if (p->sparse || !p->nr_pending || !col)
		return 0;
	f = file_scratch(p, &p->scratch2, file, flen);
	if (rlen && rest[0] == ' ') {
		for (size_t i = p->nr_pending; i-- > 0 && !d;) {
			struct diag *c = &p->pending[pending_at(p, i)];

			if (c->line == line && c->col == col && c->file &&
			    !strcmp(c->file, f) &&
			    (c->kind == DIAG_SPARSE ||
			     ((c->kind == DIAG_WARNING ||
			       c->kind == DIAG_ERROR) &&
			      !c->option && !c->werror)))
				d = c;
		}
		if (!d)
			return 0;
		if (d->kind != DIAG_SPARSE) {
			/* a log without kbuild's CHECK lines (V=1) */
			d->kind = DIAG_SPARSE;
			d->function = NULL;
			d->include_chain = NULL;
		}
		while (rlen && *rest == ' ') {
			rest++;
			rlen--;
		}
	} else {
		d = &p->pending[pending_at(p, p->nr_pending - 1)];
		if (d->kind != DIAG_SPARSE)
			return 0;
	}
	if (!rlen)
		return 0;
	note_append(p, d, f, line, col, rest, rlen);
	return 1;
}

/*
 * "FILE:LINE:COL: kind: msg", "FILE:LINE: kind: msg", "FILE: kind: msg",
 * "tool: kind: msg", "ld: FILE: warning: msg", objtool's and make's
 * warnings, and function headers.  Returns 1 if the line was one of these.
 */
static int diag_line(struct parser *p, const char *s, size_t n)
{
	const char *sep = NULL, *rest, *file = s;
	size_t flen, rlen;
	long line = 0, col = 0;
	int tool = 0;

	/* the ": " that ends the location: locations have no blanks */
	sep = memchr(s, ' ', n);
	if (!sep || sep < s + 2 || sep[-1] != ':' ||
	    memchr(s, '\t', (size_t)(sep - s)))
		return 0;
	sep--;
	flen = (size_t)(sep - s);
	rest = sep + 2;
	rlen = n - flen - 2;

	/* peel ":COL" and ":LINE" off the end of the location */
	{
		const char *c = memrchr(s, ':', flen);
		long a = 0, b = 0;

		if (c &&
		    parse_num(c + 1, (size_t)(s + flen - c - 1), &a) ==
			    (size_t)(s + flen - c - 1) &&
		    c + 1 < s + flen) {
			const char *c2 = memrchr(s, ':', (size_t)(c - s));

			if (c2 &&
			    parse_num(c2 + 1, (size_t)(c - c2 - 1), &b) ==
				    (size_t)(c - c2 - 1) &&
			    c2 + 1 < c) {
				line = b;
				col = a;
				flen = (size_t)(c2 - s);
			} else {
				line = a;
				flen = (size_t)(c - s);
			}
		}
	}
	if (!flen)
		return 0;
	if (!line && flen > 3 && file[flen - 1] == ')' &&
	    STARTS(rest, rlen, "warning: ")) {
		/* the linker's "x.c:(.text+0x10): warning: ..." */
		const char *sec = memmem(file, flen, ":(", 2);

		if (sec) {
			struct diag *d;

			add_diag(p, DIAG_LINKER, file, (size_t)(sec - file), 0,
				 0, rest + 9, rlen - 9);
			d = &p->pending[pending_at(p, p->nr_pending - 1)];
			if (p->ld_function)
				d->function =
					arena_strdup(&p->arenas[d - p->pending],
						     p->ld_function);
			return 1;
		}
	}
	if (!line && function_header(p, file, flen, rest, rlen))
		return 1;
	if (!line && STARTS(rest, rlen, "Assembler messages:"))
		return 0; /* GNU as names the file again on each line */
	if (!line && is_make(file, flen)) {
		if (!STARTS(rest, rlen, "warning: "))
			return 0;
		add_diag(p, DIAG_MAKE, NULL, 0, 0, 0, rest + 9, rlen - 9);
		return 1;
	}
	if (!line && STARTS(rest, rlen, "warning: objtool: ")) {
		objtool_line(p, file, flen, rest + 18, rlen - 18);
		return 1;
	}
	if (!line && STARTS(rest, rlen, "note: in included file")) {
		/* sparse's (gcc's says "In file included from") */
		sparse_unit_clear(p);
		p->sparse_unit = file_dup(p, file, flen);
		p->stats.other++;
		return 1;
	}

	tool = line ? TOOL_NONE : is_tool(file, flen);
	if (tool && !(rlen > 0 && (STARTS(rest, rlen, "warning: ") ||
				   STARTS(rest, rlen, "error: ") ||
				   STARTS(rest, rlen, "note: ") ||
				   STARTS(rest, rlen, "fatal error: ")))) {
		/* "ld: foo.o: warning: ..." */
		if (tool == TOOL_LINKER) {
			const char *w = memmem(rest, rlen, ": warning: ", 11);
			const char *f =
				memmem(rest, rlen, ": in function ", 14);

			if (f && !w) {
				/* "ld: x.o: in function `main':", GCC 3 quotes */
				const char *name = f + 14;
				size_t nl = rlen - (size_t)(name - rest);

				if (nl && name[nl - 1] == ':')
					nl--;
				unquote(&name, &nl);
				free(p->ld_function);
				p->ld_function = clean_dup(name, nl);
				return 1;
			}

			if (w && STARTS(w + 11, rlen - (size_t)(w - rest) - 11,
					"objtool: ")) {
				/* objtool's line, passed on by the linker */
				objtool_line(p, rest, (size_t)(w - rest),
					     w + 20,
					     rlen - (size_t)(w - rest) - 20);
				return 1;
			}
			if (w) {
				add_diag(p, DIAG_LINKER, rest,
					 (size_t)(w - rest), 0, 0, w + 11,
					 rlen - (size_t)(w - rest) - 11);
				return 1;
			}
		}
		return 0;
	}
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		enum diag_kind kind = kinds[k].kind;

		if (!starts(rest, rlen, kinds[k].word, kinds[k].len))
			continue;
		/* GNU as: a line, never a column, and never a tool */
		if ((kind == DIAG_ASSEMBLER || kinds[k].word[0] == 'E') &&
		    (!line || col))
			continue;
		if (tool == TOOL_LINKER && kind == DIAG_WARNING)
			kind = DIAG_LINKER;
		/* "Makefile:12: warning: overriding recipe ...": make's */
		if (kind == DIAG_WARNING && !kinds[k].is_note && line && !col &&
		    is_makefile(file, flen))
			kind = DIAG_MAKE;
		if (tool && (kind == DIAG_ERROR || kind == DIAG_FATAL) &&
		    is_follow_on(rest + kinds[k].len, rlen - kinds[k].len)) {
			p->stats.other++;
			return 1;
		}
		if (kinds[k].is_note)
			add_note(p, tool ? NULL : file, flen, line, col,
				 rest + kinds[k].len, rlen - kinds[k].len);
		else if (kind == DIAG_MAKE)
			add_diag(p, kind, file, flen, line, 0,
				 rest + kinds[k].len, rlen - kinds[k].len);
		else
			add_diag(p, kind, tool ? NULL : file, flen, line, col,
				 rest + kinds[k].len, rlen - kinds[k].len);
		return 1;
	}
	if (line && sparse_note(p, file, flen, line, col, rest, rlen))
		return 1;
	if (line) {
		/* a location with a kind we do not know ("remark:") */
		note_unparsed(p, s, n);
		return 1;
	}
	return 0;
}

/* "  CC      drivers/x.o" and "  CC [M]  drivers/x.o" */
static int kbuild_line(struct parser *p, const char *s, size_t n)
{
	const char *path;
	size_t plen;
	char *obj, *src;

	if (n < 12 || s[0] != ' ' || s[1] != ' ' || s[2] < 'A' || s[2] > 'Z')
		return 0;
	if (STARTS(s, n, "  CHECK ")) {
		/* C=1: what sparse prints next names this source */
		path = s + 8;
		plen = n - 8;
		while (plen && *path == ' ') {
			path++;
			plen--;
		}
		if (plen && !memchr(path, ' ', plen)) {
			src = file_dup(p, path, plen);
			ctx_set(&p->checks, src, "", ++p->seq);
			free(src);
		}
		return 1;
	}
	if (!STARTS(s, n, "  CC ")) {
		/* LD, AR, MODPOST...: what follows is not a compile's */
		for (size_t i = 2; i < 10; i++)
			if (!((s[i] >= 'A' && s[i] <= 'Z') || s[i] == ' ' ||
			      s[i] == '[' || s[i] == ']'))
				return 0;
		return 1;
	}
	path = s + 4;
	plen = n - 4;
	while (plen && *path == ' ') {
		path++;
		plen--;
	}
	if (STARTS(path, plen, "[M]")) {
		path += 3;
		plen -= 3;
		while (plen && *path == ' ') {
			path++;
			plen--;
		}
	}
	if (plen < 3 || memchr(path, ' ', plen) ||
	    memcmp(path + plen - 2, ".o", 2))
		return 0;
	/*
	 * The object as kbuild names it ("amdgpu/../display/x.o"), under
	 * the source's name as a diagnostic carries it ("display/x.c").
	 */
	obj = file_dup(p, path, plen);
	src = collapse_dotdot(xstrdup(obj));
	/* a stripped prefix or cleaned bytes make it shorter than PATH */
	plen = strlen(src);
	if (plen && src[plen - 1] == 'o') {
		/* "x.c", which stands for "x.S" too (see object_for()) */
		src[plen - 1] = 'c';
		ctx_set(&p->objects, src, obj, ++p->seq);
	}
	free(obj);
	free(src);
	return 1;
}

/*
 * The unfilled source slot of a pending diagnostic or note at LINE, newest
 * first: under make -j a source line may come after another compiler's
 * diagnostic, and its gutter number tells whose it is.
 */
static char **source_slot_for(struct parser *p, long line, struct arena **a)
{
	for (size_t i = p->nr_pending; i-- > 0;) {
		struct diag *d = &p->pending[pending_at(p, i)];

		*a = &p->arenas[pending_at(p, i)];
		for (size_t j = d->nr_notes; j-- > 0;)
			if (d->notes[j].line == line && !d->notes[j].source)
				return &d->notes[j].source;
		if (d->line == line && !d->source)
			return &d->source;
	}
	return NULL;
}

/* A "  12 | code" or "     |   ^~~" line, or a fix-it "+++ |+" line. */
static int source_line(struct parser *p, const char *s, size_t n)
{
	size_t i = 0, start;
	long num = 0;
	int digits = 0, plus = 0;
	struct arena *a = p->slot_arena;
	char **slot;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* the gutter's blanks, 8 bytes at a time: the first non-blank is
	   the lowest non-zero byte of the word XOR blanks */
	while (i + 8 <= n) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		w ^= 0x2020202020202020ull;
		if (w) {
			i += (size_t)__builtin_ctzll(w) / 8;
			break;
		}
		i += 8;
	}
#endif
	while (i < n && s[i] == ' ')
		i++;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '+')) {
		if (s[i] == '+')
			plus = 1;
		else if (num < 100000000)
			num = num * 10 + (s[i] - '0');
		i++;
		digits = 1;
	}
	if (i + 1 >= n || s[i] != ' ' || s[i + 1] != '|')
		return 0;
	if (!digits || plus)
		return 1;
	if (p->source_slot && !*p->source_slot && p->slot_line == num)
		slot = p->source_slot;
	else
		slot = source_slot_for(p, num, &a);
	if (slot) {
		if (a)
			p->pending_gcc[a - p->arenas] = 1;
		start = i + 2;
		if (start < n && s[start] == ' ')
			start++;
		*slot = arena_clean(a, s + start, n - start);
	}
	return 1;
}

/* clang's caret line under a source line: blanks, '^' and '~' only. */
static int is_caret_line(const char *s, size_t n)
{
	int caret = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '^')
			caret = 1;
		else if (s[i] != ' ' && s[i] != '\t' && s[i] != '~')
			return 0;
	}
	return caret;
}

/*
 * Does S look like a diagnostic that no rule read: a "kind: " after
 * something that is not a location we know (a blank in the path, a
 * prefix a CI system put on every line)?
 */
static int looks_like_diag(const char *s, size_t n)
{
	const char *c = s, *end = s + n;

	while ((c = memchr(c, ':', (size_t)(end - c))) != NULL) {
		size_t left = (size_t)(end - c);

		c++;
		if (STARTS(c - 1, left, ": warning: ") ||
		    STARTS(c - 1, left, ": error: ") ||
		    STARTS(c - 1, left, ": note: ") ||
		    STARTS(c - 1, left, ": fatal error: "))
			return 1;
	}
	return 0;
}

/*
 * A line no rule read: chatter, the bare source line clang prints after
 * a diagnostic (kept until the caret line under it tells), or a
 * diagnostic in a shape we do not know (counted and kept).
 */
static void other_line(struct parser *p, const char *s, size_t n)
{
	if (looks_like_diag(s, n)) {
		note_unparsed(p, s, n);
	} else {
		if (p->source_slot && !*p->source_slot) {
			strbuf_reset(&p->stash);
			strbuf_add(&p->stash, s, n);
			p->stash_slot = p->source_slot;
			p->stash_arena = p->slot_arena;
		}
		p->stats.other++;
	}
	p->source_slot = NULL;
}

/* "{standard input}:27041: Warning: msg" from GNU as fed by a pipe. */
static int stdin_as_line(struct parser *p, const char *s, size_t n)
{
	const char *r = s + 17;
	size_t rn = n - 17, d;
	long line = 0;

	d = parse_num(r, rn, &line);
	if (!d || d + 2 > rn || r[d] != ':' || r[d + 1] != ' ')
		return 0;
	r += d + 2;
	rn -= d + 2;
	if (STARTS(r, rn, "Warning: "))
		add_diag(p, DIAG_ASSEMBLER, NULL, 0, line, 0, r + 9, rn - 9);
	else if (STARTS(r, rn, "Error: "))
		add_diag(p, DIAG_ERROR, NULL, 0, line, 0, r + 7, rn - 7);
	else
		return 0;
	return 1;
}

/* The first location's caret of a JSON diagnostic: file, line, column. */
static const char *json_caret(json_t *d, long *line, long *col)
{
	json_t *caret = json_object_get(
		json_array_get(json_object_get(d, "locations"), 0), "caret");
	const char *file = json_string_value(json_object_get(caret, "file"));

	*line = (long)json_integer_value(json_object_get(caret, "line"));
	*col = (long)json_integer_value(json_object_get(caret, "column"));
	return file;
}

/*
 * gcc's -fdiagnostics-format=json: one line, an array of diagnostics for
 * one compile, each with its notes as "children".  Exact: nothing to
 * pair, though gcc 12 prints neither the function nor the include chain.
 * Returns 0 if S[0..N) is not such an array.
 */
static int json_line(struct parser *p, const char *s, size_t n)
{
	static const struct {
		const char *kind;
		enum diag_kind dk;
	} jkinds[] = {
		{ "warning", DIAG_WARNING },
		{ "error", DIAG_ERROR },
		{ "fatal error", DIAG_FATAL },
		{ "sorry, unimplemented", DIAG_ERROR },
		{ "internal compiler error", DIAG_FATAL },
	};
	json_t *all = json_loadb(s, n, 0, NULL), *d;
	size_t i, j, k;
	int single = p->single;

	if (!json_is_array(all)) {
		json_decref(all);
		return 0;
	}
	/* a note is its parent's: no pairing by order or file */
	p->single = 1;
	json_array_foreach(all, i, d) {
		const char *kind =
			json_string_value(json_object_get(d, "kind"));
		const char *msg =
			json_string_value(json_object_get(d, "message"));
		const char *opt =
			json_string_value(json_object_get(d, "option"));
		const char *file;
		json_t *child;
		long line, col;

		if (!kind || !msg)
			continue;
		for (k = 0; k < ARRAY_SIZE(jkinds); k++)
			if (!strcmp(kind, jkinds[k].kind))
				break;
		file = json_caret(d, &line, &col);
		if (k == ARRAY_SIZE(jkinds)) {
			if (!strcmp(kind, "note"))
				add_note(p, file, file ? strlen(file) : 0, line,
					 col, msg, strlen(msg));
			continue;
		}
		/* "message [-Wopt]", as the text says it, for split_option() */
		strbuf_reset(&p->jsonbuf);
		strbuf_addstr(&p->jsonbuf, msg);
		if (opt) {
			strbuf_addstr(&p->jsonbuf, " [");
			strbuf_addstr(&p->jsonbuf, opt);
			strbuf_addch(&p->jsonbuf, ']');
		}
		add_diag(p, jkinds[k].dk, file, file ? strlen(file) : 0, line,
			 col, p->jsonbuf.buf, p->jsonbuf.len);
		json_array_foreach(json_object_get(d, "children"), j, child) {
			const char *cm = json_string_value(
				json_object_get(child, "message"));
			const char *cf = json_caret(child, &line, &col);

			if (cm)
				add_note(p, cf, cf ? strlen(cf) : 0, line, col,
					 cm, strlen(cm));
		}
	}
	p->single = single;
	p->source_slot = NULL;
	json_decref(all);
	return 1;
}

/* One line; MAYBE_ESC is 0 when it is known to hold no ESC byte. */
/*
 * A line of sparse's stream: "FILE:LINE:COL: warning: MSG" (or error:) is
 * a diagnostic; "FILE:LINE:COL:    expected int *p", "...: got ..." and
 * "FILE:LINE:COL: originally declared here" are the newest one's notes;
 * "FILE: note: in included file (through X):" only says which unit the
 * next one came through (the capture's object already says it).
 */
static int sparse_line(struct parser *p, const char *s, size_t n)
{
	const char *c1, *c2, *c3, *rest;
	long line = 0, col = 0;
	size_t rlen;

	c1 = memchr(s, ':', n);
	if (!c1 || c1 == s)
		return 0;
	if (STARTS(c1, (size_t)(s + n - c1), ": note: in included file")) {
		p->stats.other++;
		return 1;
	}
	c2 = memchr(c1 + 1, ':', (size_t)(s + n - c1 - 1));
	c3 = c2 ? memchr(c2 + 1, ':', (size_t)(s + n - c2 - 1)) : NULL;
	if (!c3 ||
	    parse_num(c1 + 1, (size_t)(c2 - c1 - 1), &line) !=
		    (size_t)(c2 - c1 - 1) ||
	    parse_num(c2 + 1, (size_t)(c3 - c2 - 1), &col) !=
		    (size_t)(c3 - c2 - 1) ||
	    !line || c3 + 1 >= s + n || c3[1] != ' ')
		return 0;
	rest = c3 + 2;
	rlen = (size_t)(s + n - rest);
	if (STARTS(rest, rlen, "warning: ")) {
		add_diag(p, DIAG_SPARSE, s, (size_t)(c1 - s), line, col,
			 rest + 9, rlen - 9);
		return 1;
	}
	if (STARTS(rest, rlen, "error: ")) {
		add_diag(p, DIAG_SPARSE, s, (size_t)(c1 - s), line, col,
			 rest + 7, rlen - 7);
		return 1;
	}
	while (rlen && *rest == ' ') {
		rest++;
		rlen--;
	}
	if (!rlen)
		return 0;
	add_note(p, s, (size_t)(c1 - s), line, col, rest, rlen);
	return 1;
}

static void parse_line(struct parser *p, const char *s, size_t n, int maybe_esc)
{
	p->stats.lines++;
	if (n && s[n - 1] == '\r')
		n--;
	if (maybe_esc && memchr(s, '\x1b', n)) {
		/* drop ANSI colour sequences: ESC [ params letter */
		strbuf_reset(&p->clean);
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '\x1b' && i + 1 < n && s[i + 1] == '[') {
				i += 2;
				while (i < n &&
				       !((s[i] >= 'A' && s[i] <= 'Z') ||
					 (s[i] >= 'a' && s[i] <= 'z')))
					i++;
				continue;
			}
			/* OSC, as in GCC's URL links: ESC ] ... BEL or ESC \ */
			if (s[i] == '\x1b' && i + 1 < n && s[i + 1] == ']') {
				i += 2;
				while (i < n && s[i] != '\a' &&
				       !(s[i] == '\x1b' && i + 1 < n &&
					 s[i + 1] == '\\'))
					i++;
				if (i < n && s[i] == '\x1b')
					i++;
				continue;
			}
			strbuf_addch(&p->clean, s[i]);
		}
		s = p->clean.buf;
		n = p->clean.len;
	}
	/* clang's bare source line, known by the caret line under it */
	if (p->stash_slot) {
		char **slot = p->stash_slot;

		p->stash_slot = NULL;
		if (is_caret_line(s, n)) {
			if (!*slot)
				*slot = arena_clean(p->stash_arena,
						    p->stash.buf, p->stash.len);
			p->stats.other++;
			return;
		}
	}
	if (!n) {
		p->stats.other++;
		return;
	}
	if (s[0] == ' ' || s[0] == '\t') {
		size_t i = 0;

		if (source_line(p, s, n))
			return;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (p->in_chain && STARTS(s + i, n - i, "from ")) {
			chain_line(p, s + i + 5, n - i - 5);
			return;
		}
		if (p->in_inline && inline_line(p, s + i, n - i))
			return;
		if (p->slot_kdoc && p->source_slot && !*p->source_slot &&
		    STARTS(s, n, " *")) {
			/* the comment line kernel-doc prints after some */
			*p->source_slot =
				arena_clean(p->slot_arena, s + 1, n - 1);
			p->stats.other++;
			return;
		}
		if (kbuild_line(p, s, n))
			p->stats.kbuild++;
		else
			other_line(p, s, n);
		p->source_slot = NULL;
		return;
	}
	if (p->sparse && sparse_line(p, s, n))
		return;
	/* the whole-line forms, told apart by their first byte */
	switch (s[0]) {
	case 'I':
		if (STARTS(s, n, "In file included from ")) {
			strbuf_reset(&p->chain);
			free(p->chain_outer);
			p->chain_outer = NULL;
			/* clang: a level a line, the outermost first */
			if (p->fresh_chain &&
			    p->chain_end + 1 == p->stats.lines) {
				p->chain_outer = p->fresh_chain;
				p->fresh_chain = NULL;
			}
			chain_line(p, s + 22, n - 22);
			return;
		}
		/* "In function 'chk'," before "inlined from" lines */
		if (STARTS(s, n, "In ") && s[n - 1] == ',' &&
		    function_header(p, NULL, 0, s, n))
			return;
		break;
	case 'W':
		if (STARTS(s, n, "WARNING: modpost: ")) {
			add_diag(p, DIAG_MODPOST, NULL, 0, 0, 0, s + 18,
				 n - 18);
			return;
		}
		break;
	case 'E':
		if (STARTS(s, n, "ERROR: modpost: ")) {
			add_diag(p, DIAG_ERROR, NULL, 0, 0, 0, s + 16, n - 16);
			return;
		}
		break;
	case 'F':
		if (STARTS(s, n, "FATAL: modpost: ")) {
			add_diag(p, DIAG_MODPOST, NULL, 0, 0, 0, s + 16,
				 n - 16);
			return;
		}
		break;
	case '{':
		if (STARTS(s, n, "{standard input}:") && stdin_as_line(p, s, n))
			return;
		break;
	case '[':
		if (STARTS(s, n, "[{\"kind\": ") && json_line(p, s, n))
			return;
		if (n == 2 && s[1] == ']') {
			p->stats.other++; /* a compile without diagnostics */
			return;
		}
		break;
	case 'c':
		if (STARTS(s, n, "cc1: all warnings being treated as errors") ||
		    STARTS(s, n,
			   "cc1: some warnings being treated as errors")) {
			p->stats.werror_lines++;
			return;
		}
		break;
	case 'l':
		if (STARTS(s, n,
			   "lto1: all warnings being treated as errors") ||
		    STARTS(s, n,
			   "lto1: some warnings being treated as errors")) {
			p->stats.werror_lines++;
			return;
		}
		break;
	default:
		break;
	}
	if (diag_line(p, s, n) || config_line(p, s, n))
		return;
	other_line(p, s, n);
}

void parse_feed(struct parser *p, const char *buf, size_t len)
{
	/* colours are rare: look for ESC once per buffer, not per line */
	int esc = memchr(buf, '\x1b', len) != NULL;

	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t chunk = nl ? (size_t)(nl - buf) : len;

		if (p->overlong) {
			/* skip to the end of an overlong line */
		} else if (p->line.len + chunk > LINE_CAP) {
			p->overlong = 1;
			p->stats.unparsed++;
			p->stats.lines++;
			strbuf_reset(&p->line);
		} else if (!nl) {
			strbuf_add(&p->line, buf, chunk);
		} else if (p->line.len) {
			strbuf_add(&p->line, buf, chunk);
			parse_line(p, p->line.buf, p->line.len, 1);
			strbuf_reset(&p->line);
		} else {
			parse_line(p, buf, chunk, esc);
		}
		if (!nl)
			return;
		p->overlong = 0;
		buf = nl + 1;
		len -= chunk + 1;
	}
}

void parse_finish(struct parser *p)
{
	if (p->line.len && !p->overlong)
		parse_line(p, p->line.buf, p->line.len, 1);
	strbuf_reset(&p->line);
	p->overlong = 0;
	while (p->nr_pending)
		emit_oldest(p);
	free(p->fresh_chain);
	p->fresh_chain = NULL;
	free(p->chain_outer);
	p->chain_outer = NULL;
	p->in_chain = 0;
}

void parse_free(struct parser *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < PENDING_MAX; i++)
		arena_release(&p->arenas[i]);
	ctx_clear(&p->funcs);
	ctx_clear(&p->chains);
	ctx_clear(&p->objects);
	ctx_clear(&p->checks);
	sparse_unit_clear(p);
	for (size_t i = 0; i < p->nr_prefixes; i++)
		free(p->prefixes[i]);
	free(p->prefixes);
	free(p->fresh_chain);
	free(p->chain_outer);
	free(p->ld_function);
	inline_clear(p);
	for (size_t i = 0; i < p->nr_unparsed; i++)
		free(p->unparsed[i]);
	strbuf_release(&p->inl);
	strbuf_release(&p->stash);
	strbuf_release(&p->chainbuf);
	strbuf_release(&p->keybuf);
	strbuf_release(&p->jsonbuf);
	strbuf_release(&p->namedbuf);
	strbuf_release(&p->line);
	strbuf_release(&p->clean);
	strbuf_release(&p->chain);
	strbuf_release(&p->scratch);
	strbuf_release(&p->scratch2);
	strbuf_release(&p->fraw);
	strbuf_release(&p->fclean);
	free(p);
}

/* The Nth line (1-based) of TEXT: its start, and its length in *LEN. */
static const char *text_line(const char *text, size_t len, long n,
			     size_t *out_len)
{
	const char *s = text, *end = text + len, *nl;

	for (long i = 1; i < n && s < end; i++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			return NULL;
		s = nl + 1;
	}
	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(end - s));
	*out_len = nl ? (size_t)(nl - s) : (size_t)(end - s);
	return s;
}

/* Words before a function's name that are not it (C's own, attributes). */
static const struct {
	const char *word;
	int group; /* 1: its "(...)" follows and is skipped with it */
} not_names[] = {
	{ "void", 0 },
	{ "char", 0 },
	{ "short", 0 },
	{ "int", 0 },
	{ "long", 0 },
	{ "unsigned", 0 },
	{ "signed", 0 },
	{ "float", 0 },
	{ "double", 0 },
	{ "_Bool", 0 },
	{ "bool", 0 },
	{ "const", 0 },
	{ "volatile", 0 },
	{ "static", 0 },
	{ "inline", 0 },
	{ "extern", 0 },
	{ "struct", 0 },
	{ "union", 0 },
	{ "enum", 0 },
	{ "register", 0 },
	{ "restrict", 0 },
	{ "__restrict", 0 },
	{ "typeof", 1 },
	{ "__typeof__", 1 },
	{ "sizeof", 1 },
	{ "__attribute__", 1 },
	{ "__attribute", 1 },
	{ "__printf", 1 },
	{ "__scanf", 1 },
	{ "__section", 1 },
	{ "__aligned", 1 },
	{ "__alloc_size", 1 },
	{ "__must_hold", 1 },
	{ "__acquires", 1 },
	{ "__releases", 1 },
	{ "__cond_acquires", 1 },
	{ "__cond_releases", 1 },
	{ "__counted_by", 1 },
	{ "__diag_ignore", 1 },
};

/* Is S[0..N) one of not_names?  Its index + 1, or 0. */
static size_t not_name(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(not_names); i++)
		if (strlen(not_names[i].word) == n &&
		    !memcmp(not_names[i].word, s, n))
			return i + 1;
	return 0;
}

/* Is S[0..N) in capitals, a macro by the kernel's habit? */
static int is_macro_name(const char *s, size_t n)
{
	int letter = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			return 0;
		if (s[i] >= 'A' && s[i] <= 'Z')
			letter = 1;
	}
	return letter;
}

/*
 * The name a declarator D[0..N) (comments already blanked) defines: the
 * first identifier followed by "(" that is no type, keyword or attribute
 * (whose own "(...)" is skipped), so that "static void (*get(int n))(int)"
 * is get.  NULL for a function defined through a macro
 * ("SYSCALL_DEFINE1(name, ...)", "DEFINE_SHOW(x)"): gcc names the
 * function the macro makes, which the source does not spell.
 */
static char *declarator_name(const char *d, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t b, e, j, k;

		if (!is_ident_char(d[i]) || (d[i] >= '0' && d[i] <= '9')) {
			i++;
			continue;
		}
		b = i;
		while (i < n && is_ident_char(d[i]))
			i++;
		e = i;
		for (j = e;
		     j < n && (d[j] == ' ' || d[j] == '\t' || d[j] == '\n');
		     j++)
			;
		if (j == n || d[j] != '(')
			continue;
		k = not_name(d + b, e - b);
		if (k && not_names[k - 1].group) {
			/* skip the attribute's balanced "(...)" */
			int depth = 0;

			for (i = j; i < n; i++) {
				depth += d[i] == '(' ? 1 : d[i] == ')' ? -1 : 0;
				if (!depth)
					break;
			}
			continue;
		}
		if (k)
			continue;
		if (is_macro_name(d + b, e - b))
			return NULL;
		return clean_dup(d + b, e - b);
	}
	return NULL;
}

/*
 * Does the line S[0..N), in column 0, open a function on the line of its
 * name: "int f(int x) {"?  Not an initializer ("... = {").
 */
static int opens_on_decl(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (!n || s[n - 1] != '{' || s[0] == ' ' || s[0] == '\t' ||
	    s[0] == '#' || s[0] == '}' || s[0] == '/' || s[0] == '*')
		return 0;
	return memchr(s, '(', n) && !memchr(s, '=', n);
}

/*
 * Is the line S[0..N), in column 0, a whole function on one line:
 * "static inline int f(int x) { return x; }"?  Its name's "(" comes
 * before the first "{", and no "=" (not an initializer).
 */
static int one_line_function(const char *s, size_t n)
{
	const char *brace = memchr(s, '{', n), *paren = memchr(s, '(', n);

	if (!n || !brace || !paren || paren > brace || s[0] == ' ' ||
	    s[0] == '\t' || s[0] == '#' || s[0] == '}' || s[0] == '/' ||
	    s[0] == '*')
		return 0;
	return !memchr(s, '=', (size_t)(brace - s)) &&
	       memchr(brace, '}', n - (size_t)(brace - s));
}

/* Does line S[0..N) end a statement or a comment (not a declarator)? */
static int ends_before_decl(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return !n || s[0] == '#' || s[n - 1] == ';' || s[n - 1] == '}' ||
	       s[n - 1] == '{' ||
	       (n >= 2 && s[n - 2] == '*' && s[n - 1] == '/');
}

char *diag_function_from_source(const char *text, size_t len, long line)
{
	struct strbuf decl = STRBUF_INIT;
	const char *s;
	char *name;
	size_t n;
	long open = 0, first;
	int same_line = 0;

	/* the "{" that opens the function: in column 0, or after its name */
	for (long i = line; i > 0 && !open; i--) {
		s = text_line(text, len, i, &n);
		if (!s)
			return NULL;
		if (n && s[0] == '}' && i < line)
			return NULL; /* between two functions */
		if (n && s[0] == '{')
			open = i;
		else if (opens_on_decl(s, n))
			open = i, same_line = 1;
		else if (i == line && one_line_function(s, n))
			open = i, same_line = 2; /* the warning is in it */
	}
	if (!open)
		return NULL;
	/* the declarator: the lines above it back to a blank line or a ';' */
	first = same_line ? open : open - 1;
	while (first > 1 && first > open - 10) {
		s = text_line(text, len, first - 1, &n);
		if (!s || ends_before_decl(s, n))
			break;
		first--;
	}
	for (long i = first; i <= (same_line ? open : open - 1); i++) {
		s = text_line(text, len, i, &n);
		if (!s)
			break;
		if (i == open && same_line == 2)
			n = (size_t)((const char *)memchr(s, '{', n) - s);
		else if (i == open && same_line)
			n = (size_t)((const char *)memrchr(s, '{', n) - s);
		strbuf_add(&decl, s, n);
		strbuf_addch(&decl, '\n');
	}
	/* blank the comments, so that no word in one is taken */
	for (size_t i = 0; i + 1 < decl.len; i++) {
		if (decl.buf[i] == '/' && decl.buf[i + 1] == '*') {
			char *c = strstr(decl.buf + i + 2, "*/");
			size_t end = c ? (size_t)(c - decl.buf) + 2 : decl.len;

			memset(decl.buf + i, ' ', end - i);
			i = end;
		} else if (decl.buf[i] == '/' && decl.buf[i + 1] == '/') {
			while (i < decl.len && decl.buf[i] != '\n')
				decl.buf[i++] = ' ';
		}
	}
	name = declarator_name(decl.buf, decl.len);
	strbuf_release(&decl);
	return name;
}
