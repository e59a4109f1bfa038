// SPDX-License-Identifier: MIT
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "util.h"
#include "banned.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

char *ident_normalize_message(const char *msg)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = msg;

	while (*p) {
		/* ":123" or ":123:45" right after a word: a location */
		if (*p == ':' && is_digit(p[1]) && p > msg && p[-1] != ' ') {
			const char *q = p + 1;

			while (is_digit(*q))
				q++;
			if (*q == ':' && is_digit(q[1])) {
				q++;
				while (is_digit(*q))
					q++;
			}
			/* only when it ends there (not "1:2x") */
			if (!*q || *q == ' ' || *q == ',' || *q == ')' ||
			    *q == ':' || *q == '\'' || *q == ']') {
				p = q;
				continue;
			}
		}
		if (*p == ' ' && (sb.len == 0 || sb.buf[sb.len - 1] == ' ')) {
			p++;
			continue;
		}
		strbuf_addch(&sb, *p++);
	}
	while (sb.len && sb.buf[sb.len - 1] == ' ')
		sb.buf[--sb.len] = '\0';
	return strbuf_detach(&sb, NULL);
}

/* S without leading and trailing blanks: a new string, or NULL if empty. */
static char *trimmed(const char *s)
{
	const char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end > s ? xstrndup(s, (size_t)(end - s)) : NULL;
}

/*
 * The case label on source line S ("case FOO:", "default:"), or the
 * trimmed line itself when it has none; a new string, or NULL if empty.
 */
static char *line_label(const char *s)
{
	const char *c, *end;

	c = strstr(s, "case ");
	if (!c)
		c = strstr(s, "default");
	if (!c)
		return trimmed(s); /* no label on the line */
	/* up to the label's ':' (not a "::"), or the end of the line */
	end = c;
	while (*end && !(*end == ':' && end[1] != ':'))
		end++;
	if (*end == ':')
		end++;
	return xstrndup(c, (size_t)(end - c));
}

/* gcc's "here" note of D, the label a fall-through reaches, or NULL. */
static const struct diag_note *here_note(const struct diag *d)
{
	for (size_t i = 0; i < d->nr_notes; i++)
		if (diag_is_here_note(&d->notes[i]))
			return &d->notes[i];
	return NULL;
}

char *ident_note_target(const struct diag *d)
{
	const struct diag_note *n = here_note(d);

	if (!n || !n->source)
		return NULL;
	return line_label(n->source);
}

char *ident_site_key(const struct diag *d)
{
	const char *opt = d->option ? d->option : "";
	const char *file = d->file ? d->file : "";
	size_t optlen = strcspn(opt, "=");
	const struct diag_note *here = here_note(d);
	char *anchor = ident_note_target(d), *site;

	/*
	 * The site is where the label is: gcc warns on the statement that
	 * falls, which may be a macro's body in a header (6.1's dcn20_dccg.c
	 * with reg_helper.h's REG_SET), and notes the label in the .c file,
	 * where clang warns.
	 */
	if (anchor && here->file)
		file = here->file;

	/*
	 * gcc warns on the statement that falls and notes the label it
	 * reaches; clang warns on that label: the label is the anchor.
	 */
	if (!anchor && d->source && optlen &&
	    !strncmp(opt, "-Wimplicit-fallthrough", optlen))
		anchor = line_label(d->source);
	else if (!anchor && d->source)
		anchor = trimmed(d->source);
	if (!anchor)
		anchor = ident_normalize_message(d->message ? d->message : "");
	site = xstrfmt("%s|%s|%.*s|%s", file, d->function ? d->function : "",
		       (int)optlen, opt, anchor);
	free(anchor);
	return site;
}

void ident_key_from_diag(struct ident_key *out, const struct diag *d)
{
	out->kind = diag_kind_name(d->kind);
	out->file = d->file;
	out->function = d->function;
	out->option = d->option;
	out->message = ident_normalize_message(d->message ? d->message : "");
	out->note_target = ident_note_target(d);
}

void ident_key_release(struct ident_key *k)
{
	free(k->message);
	free(k->note_target);
	k->message = NULL;
	k->note_target = NULL;
}

/*
 * SHA-256, fetched once: EVP_sha256() makes every EVP_DigestInit_ex()
 * look the algorithm up again, a tenth of the time of a large ingest,
 * which hashes twice per warning.  Never freed: it lives as long as the
 * program.
 */
static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

static const EVP_MD *ident_sha256(void)
{
	pthread_once(&sha256_once, sha256_fetch);
	if (!sha256_md)
		die("cannot load sha256 from libcrypto");
	return sha256_md;
}

void ident_key_hash(unsigned char out[32], const struct ident_key *k)
{
	const char *parts[] = { k->kind,   k->file,    k->function,
				k->option, k->message, k->note_target };
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int len = 0;

	if (!ctx)
		die("out of memory");
	EVP_DigestInit_ex(ctx, ident_sha256(), NULL);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		/* "\1" marks NULL, so that NULL and "" differ */
		if (parts[i])
			EVP_DigestUpdate(ctx, parts[i], strlen(parts[i]) + 1);
		else
			EVP_DigestUpdate(ctx, "\1", 2);
	}
	EVP_DigestFinal_ex(ctx, out, &len);
	EVP_MD_CTX_free(ctx);
}

void ident_fingerprint(char out[65], const unsigned char keyhash[32],
		       long ordinal)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char buf[32 + 24], md[32];
	int n = snprintf((char *)buf + 32, 24, "#%ld", ordinal);

	memcpy(buf, keyhash, 32);
	/* util_sha256_hex(), without its look-up of the algorithm */
	EVP_Digest(buf, 32 + (size_t)n, md, NULL, ident_sha256(), NULL);
	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[64] = '\0';
}

int ident_fingerprint_key(long long *out, const char *fp)
{
	uint64_t k = 0;

	for (int i = 0; i < 16; i++) {
		char c = fp[i];

		if (c >= '0' && c <= '9')
			k = k << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			k = k << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -1;
	}
	/* two's complement, as SQLite's << and | make it in 0005 */
	memcpy(out, &k, sizeof(*out));
	return 0;
}

/*
 * A map from 16-byte keys (the first 128 bits of a SHA-256) to integers,
 * sized for a build with a million distinct warnings in well under the
 * 64 MB an ingest may use: entries are stored densely (24 bytes each,
 * grown by realloc, which moves large blocks without copying) and found
 * through an open-addressing table of 4-byte entry numbers.
 */
static size_t hmap_hash(const unsigned char key[IDENT_HKEY])
{
	uint64_t h;

	/* the key is already uniform; mix anyway, for keys that are not */
	memcpy(&h, key, sizeof(h));
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 29));
}

/* The slot of KEY: its entry, or the free slot where it would go. */
static uint32_t *hmap_slot(const struct ident_hmap *m,
			   const unsigned char key[IDENT_HKEY])
{
	for (size_t i = hmap_hash(key) & (m->cap - 1);;
	     i = (i + 1) & (m->cap - 1)) {
		uint32_t s = m->slots[i];

		if (!s || !memcmp(m->e[s - 1].key, key, IDENT_HKEY))
			return &m->slots[i];
	}
}

static void hmap_grow(struct ident_hmap *m)
{
	free(m->slots);
	m->cap = m->cap ? m->cap * 2 : 1024;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < m->n; i++)
		*hmap_slot(m, m->e[i].key) = (uint32_t)(i + 1);
}

long long ident_hmap_get(const struct ident_hmap *m,
			 const unsigned char key[IDENT_HKEY])
{
	uint32_t s;

	if (!m->cap)
		return -1;
	s = *hmap_slot(m, key);
	return s ? m->e[s - 1].val : -1;
}

void ident_hmap_put(struct ident_hmap *m, const unsigned char key[IDENT_HKEY],
		    long long val)
{
	uint32_t *s;

	/* load factor at most 3/4 */
	if ((m->n + 1) * 4 > m->cap * 3)
		hmap_grow(m);
	s = hmap_slot(m, key);
	if (!*s) {
		if (m->n == m->alloc) {
			m->alloc = m->alloc ? m->alloc + m->alloc / 2 : 1024;
			m->e = xrealloc(m->e, m->alloc * sizeof(*m->e));
		}
		memcpy(m->e[m->n].key, key, IDENT_HKEY);
		*s = (uint32_t)++m->n;
	}
	m->e[*s - 1].val = val;
}

void ident_hmap_free(struct ident_hmap *m)
{
	free(m->e);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* Mix line and column into a copy of the key hash. */
static void placed_key(unsigned char out[32], const unsigned char kh[32],
		       long line, long col)
{
	unsigned long long l = (unsigned long long)line * 0x9e3779b97f4a7c15ull,
			   c = (unsigned long long)col * 0xc2b2ae3d27d4eb4full;

	memcpy(out, kh, 32);
	for (int i = 0; i < 8; i++) {
		out[i] ^= (unsigned char)(l >> (8 * i));
		out[8 + i] ^= (unsigned char)(c >> (8 * i));
	}
	out[31] ^= 0x5a;
}

long ident_places_at(struct ident_places *p, const unsigned char kh[32],
		     long line, long col, int *again)
{
	unsigned char pk[32];
	long long ordinal;

	placed_key(pk, kh, line, col);
	ordinal = ident_hmap_get(&p->placed, pk);
	*again = ordinal >= 0;
	if (*again)
		return (long)ordinal;
	ordinal = ident_hmap_get(&p->ordinals, kh);
	if (ordinal < 0)
		ordinal = 0;
	ident_hmap_put(&p->ordinals, kh, ordinal + 1);
	ident_hmap_put(&p->placed, pk, ordinal);
	return (long)ordinal;
}

void ident_places_release(struct ident_places *p)
{
	ident_hmap_free(&p->placed);
	ident_hmap_free(&p->ordinals);
}
