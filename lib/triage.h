/* SPDX-License-Identifier: MIT */
#ifndef KWARN_TRIAGE_H
#define KWARN_TRIAGE_H

/*
 * triage.c: what a person decided about a warning identity (schema 0024):
 * its states, the checks every record passes whoever writes it (the CLI,
 * an import, the server), the line of the export file, and the body of
 * the server's POST.  Pure: bytes in, records out; no I/O, no SQL.
 */

#include <stddef.h>

#include "util.h"

/* Longest reason and link a record takes, in bytes. */
#define TRIAGE_MAX_REASON 4096
#define TRIAGE_MAX_LINK 2048
/* Largest POST body the server reads for one record. */
#define TRIAGE_MAX_BODY 8192

/* The states, NULL-terminated: "open" first, the default of every warning. */
extern const char *const triage_states[];

/* 1 if S is one of triage_states[], else 0. */
int triage_state_valid(const char *s);

/*
 * 1 if STATE says the warning is no bug to act on (intended, false
 * positive, compiler bug, won't fix): a new warning of that identity
 * fails neither `kwarn run --fail-on-new` nor the nightly.  Else 0.
 */
int triage_is_settled(const char *state);

struct triage_rec {
	char *fingerprint; /* 64 hex digits */
	char *state;
	char *reason;
	char *link; /* NULL: none */
	char *who;
	char *origin; /* cli, api, import, reopen */
	long long at; /* seconds since the epoch */
};

/* Free R's strings and zero it; R may be zeroed already. */
void triage_rec_release(struct triage_rec *r);

/*
 * Check R as every writer must: a fingerprint of 64 hex digits, a known
 * state and origin, a reason of 1 to TRIAGE_MAX_REASON bytes of UTF-8
 * without control bytes but tab, a link (required for compiler-bug) that
 * is an http(s) URL of at most TRIAGE_MAX_LINK bytes, a who without
 * control bytes.  Returns 0, or -1 with *FIELD naming the field and *WHY
 * saying what is wrong (static strings).
 */
int triage_check(const struct triage_rec *r, const char **field,
		 const char **why);

/*
 * The export file: a header line, then one record a line, its fields
 * separated by tabs: time (UTC, 2026-12-04T17:30:00Z), fingerprint,
 * state, who, origin, link ("-" for none), reason; a backslash, tab,
 * newline or carriage return in a field is written \\, \t, \n or \r.
 */
extern const char triage_export_header[];

/* Append R's line, with its newline, to SB. */
void triage_format_line(struct strbuf *sb, const struct triage_rec *r);

/*
 * Parse the export line LINE (LEN bytes, no newline) into *OUT (owned by
 * the caller: triage_rec_release()).  Returns 1 for a comment or blank
 * line (nothing in *OUT), 0 for a record that passes triage_check(), or
 * -1 with *WHY saying what is wrong.
 */
int triage_parse_line(struct triage_rec *out, const char **why,
		      const char *line, size_t len);

/*
 * Parse the server's POST body BUF (LEN bytes): a JSON object with
 * "state", "reason" and optionally "link", nothing else.  Fills those of
 * *OUT (the caller sets fingerprint, who, origin and at, then calls
 * triage_check()).  Returns 0, or -1 with *FIELD ("body" for the whole)
 * and *WHY (static strings).
 */
int triage_parse_body(struct triage_rec *out, const char **field,
		      const char **why, const char *buf, size_t len);

#endif
