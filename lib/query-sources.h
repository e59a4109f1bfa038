/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_SOURCES_H
#define KWARN_QUERY_SOURCES_H

/*
 * Reads by question, sources and reproducers: what a warning needs from
 * its source and its build to be looked at again: the fall-through's
 * two lines, the statements the reproducer and kwarn bisect read their
 * builds from.  Each function takes an open connection (read-only is
 * enough) and reports its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

#include "db.h"

/*
 * Where the fall-through of diagnostic DIAG_ID is: the file of its "here"
 * note, the line where the falling case ends (the warning's line, or the
 * macro's use when GCC points into a macro's header) and the label's line.
 * Returns 0 with a new string in *file_out, or -1 when it has no "here".
 */
int query_fallthrough_site(char **file_out, long *warn_out, long *here_out,
			   sqlite3 *db, long long diag_id);

/* Pairs of an identity and one of its diagnostics. */
struct query_ids {
	long long *identity, *diag;
	size_t nr, alloc;
};

/*
 * The implicit fall-through warnings to classify: with COMMIT_ID >= 0 the
 * live ones at that commit that have no verdict yet, else every one of
 * build BUILD_ID (one diagnostic per identity, in file order).  Fills
 * *out (release with query_ids_release()).  Returns 0 or -1 (reported).
 */
int query_fallthrough_diags(struct query_ids *out, sqlite3 *db,
			    long long build_id, long long commit_id);
void query_ids_release(struct query_ids *ids);

/*
 * The facts of build BUILD_ID a reproducer needs, as a read (db_read())
 * in Q for the caller to step and end with db_done(): commit sha, image,
 * config_hash, level, status, compiler, tree kind, name, source, sha256,
 * build_dir, flags, the run's compiler.  Returns 0 or -1 (reported).
 */
int query_repro_read(struct db_read *q, sqlite3 *db, long long build_id);

/*
 * Warning IDENT (fingerprint or identities id) where it came after a
 * point without it, else its newest live state, as a prepared statement
 * for kwarn bisect to step: fingerprint, NULL, object, sha, the previous
 * built sha, image, level, tree kind, name, source, sha256, build_dir,
 * flags, the run's compiler.  0 or -1.
 */
int query_bisect_stmt(sqlite3_stmt **out, sqlite3 *db, const char *ident);

/* The first commits' shas of runs RUN and PREV, one row, prepared. */
int query_base_shas_stmt(sqlite3_stmt **out, sqlite3 *db, long long run,
			 long long prev);

#endif /* KWARN_QUERY_SOURCES_H */
