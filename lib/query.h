/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_H
#define KWARN_QUERY_H

/*
 * Every read that more than one command or endpoint makes: which commit a
 * reference names, the warnings at a point, the counts at a point.  The
 * collector's commands and the server's endpoints ask these questions
 * here, so that they get one answer.  Each function takes an open
 * connection (read-only is enough) and reports its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>

struct warn_filter {
	long long build_id; /* required */
	const char *file; /* exact path, or NULL */
	const char *function;
	const char *option; /* "-Wimplicit-fallthrough=" or without -W */
	long long commit_id; /* for states; -1 if none */
	const char *state; /* new, present, fixed, not_built, or NULL */
};

/*
 * The warnings of one build, one entry per identity, as a new JSON array
 * in *out (the caller owns it).  Each entry has the fields of the REST
 * API: file, line, column, function, option, message, kind, object, seen,
 * identity, state (when a commit is known) and notes.  Returns 0 or -1.
 */
int query_warnings(json_t **out, sqlite3 *db, const struct warn_filter *f);

/*
 * Resolve REF (a commit id or prefix, or NULL for the newest build) into
 * the newest build of it and its commit.  Returns 0 or -1 (reported).
 */
int query_find_build(long long *build_out, long long *commit_out, sqlite3 *db,
		     const char *ref);

#endif
