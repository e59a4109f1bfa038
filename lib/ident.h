/* SPDX-License-Identifier: MIT */
#ifndef KWARN_IDENT_H
#define KWARN_IDENT_H

/*
 * ident.c: the identity of a warning across commits (doc/design.md, "The
 * identity of a warning").  Pure functions: kind, file, enclosing
 * function, -W option, the message with locations dropped, and the note's
 * target (the case label) make the key; within one build the same key at
 * the same place is one warning, and identical keys elsewhere are told
 * apart by an ordinal (struct ident_places).  Line and column are not
 * part of the key, so moving code does not make a warning new.
 */

#include <stddef.h>
#include <stdint.h>

#include "parse.h"

/* What a fingerprint is computed from; strings may be NULL. */
struct ident_key {
	const char *kind;
	const char *file;
	const char *function;
	const char *option;
	char *message; /* normalised, owned */
	char *note_target; /* owned, or NULL */
};

/*
 * Fill *out from D.  The caller releases it with ident_key_release().
 */
void ident_key_from_diag(struct ident_key *out, const struct diag *d);
void ident_key_release(struct ident_key *k);

/*
 * The message with "file:line:col" locations and bare ":line:col" dropped,
 * spaces collapsed.  Returns a new string.
 */
char *ident_normalize_message(const char *msg);

/*
 * The case label a "here" note points at ("case FOO:", "default:"), taken
 * from its source text; a new string, or NULL when there is none.
 */
char *ident_note_target(const struct diag *d);

/*
 * The site of D, the same whichever compiler warns there: "file|function|
 * option without =N|anchor", the anchor being the case label a
 * fall-through reaches (gcc's "here" note, clang's own line; the file is
 * then the label's, which for a falling macro from a header is the .c
 * file gcc notes and clang warns in), else the
 * warning line's trimmed text, else the normalised message.  Not the
 * identity (gcc and clang word a warning differently): what links
 * identities across compilers.  Returns a new string.
 */
char *ident_site_key(const struct diag *d);

/* Binary hash of the key (no ordinal) into out[32]. */
void ident_key_hash(unsigned char out[32], const struct ident_key *k);

/* Hex fingerprint of a key hash and an ordinal into out[65]. */
void ident_fingerprint(char out[65], const unsigned char keyhash[32],
		       long ordinal);

/*
 * The integer key of a hex fingerprint into *out: its first 64 bits (16
 * hex digits, big-endian) as a signed integer, which the identities
 * table indexes as fp_key.  Returns 0, or -1 when FP does not start with
 * 16 lower-case hex digits.
 */
int ident_fingerprint_key(long long *out, const char *fp);

/*
 * The ordinal rule of one build.  A warning printed again at the same
 * (key, line, column) is the same warning (a header's warning seen from
 * several objects, a static inline's from every user); identical keys
 * at other places are told apart by ordinals 0, 1, 2... in the order a
 * build meets them.  Zero-initialise one per build; release it with
 * ident_places_release().  Sized for a million distinct warnings in well
 * under the 64 MB an ingest may use.
 */
#define IDENT_HKEY 16

struct ident_hentry {
	unsigned char key[IDENT_HKEY];
	long long val;
};

struct ident_hmap {
	struct ident_hentry *e; /* e[0..n) */
	size_t n, alloc;
	uint32_t *slots; /* entry number + 1, or 0 when free */
	size_t cap; /* a power of two */
};

struct ident_places {
	struct ident_hmap placed; /* key hash ^ line/col -> ordinal */
	struct ident_hmap ordinals; /* key hash -> next ordinal */
};

/*
 * The ordinal of a warning of key hash KH at (LINE, COL) in this build:
 * the one it was given when met at that place before (*again is then 1:
 * the same warning printed again), else the next ordinal of KH (*again
 * 0).  The store and kwarn bisect both number warnings by this function.
 */
long ident_places_at(struct ident_places *p, const unsigned char kh[32],
		     long line, long col, int *again);

/* The value for the 16-byte KEY in M, or -1. */
long long ident_hmap_get(const struct ident_hmap *m,
			 const unsigned char key[IDENT_HKEY]);
/* Set KEY's value in M to VAL (>= 0). */
void ident_hmap_put(struct ident_hmap *m, const unsigned char key[IDENT_HKEY],
		    long long val);
/* Free what M holds and leave it empty. */
void ident_hmap_free(struct ident_hmap *m);

/* Free what P holds and leave it empty; P may be empty already. */
void ident_places_release(struct ident_places *p);

#endif
