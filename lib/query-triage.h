/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_TRIAGE_H
#define KWARN_QUERY_TRIAGE_H

/*
 * Reads by question, triage decisions: the triage records (schema
 * 0024): the current decision of an identity, its history, and the
 * warnings annotated with their triage.  Each function takes an open
 * connection (read-only is enough) and reports its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/* Triage (schema 0024) */

struct triage_rec;

/*
 * The newest triage record of FINGERPRINT into *out (fields owned by the
 * caller: triage_rec_release()); *out is left zeroed (state NULL) when
 * there is none, and the warning is open.  Returns 0 or -1 (reported).
 */
int query_triage_current(struct triage_rec *out, sqlite3 *db,
			 const char *fingerprint);

/*
 * Set "triage" in every object of the array WARNINGS that has a string
 * member KEY (the fingerprint): {state, reason, link, who, at, origin}
 * of its newest record, or {state: "open"} when it has none.  Returns 0
 * or -1 (reported).
 */
int query_triage_annotate(sqlite3 *db, json_t *warnings, const char *key);

/*
 * Call FN(R, CTX) for every triage record, by fingerprint and then in
 * the order they were written (the export's stable order); with
 * CURRENT, only each fingerprint's newest.  FN returns 0 to go on.
 * Returns 0, or -1 (reported, or FN's failure).
 */
int query_triage_each(sqlite3 *db, int current,
		      int (*fn)(const struct triage_rec *r, void *ctx),
		      void *ctx);

/*
 * Call FN(R, CTX) for every triage record of FINGERPRINT, oldest first.
 * Returns 0, or -1 (reported, or FN's failure).
 */
int query_triage_history(sqlite3 *db, const char *fingerprint,
			 int (*fn)(const struct triage_rec *r, void *ctx),
			 void *ctx);

/*
 * The identities of every compiler that warns at SITE (identities.site,
 * as kwarn sites prints it) into *OUT, a JSON array of fingerprints in
 * their order; empty when no identity has that site.  Returns 0 or -1
 * (reported).
 */
int query_site_identities(json_t **out, sqlite3 *db, const char *site);

#endif /* KWARN_QUERY_TRIAGE_H */
