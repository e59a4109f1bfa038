/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_HISTORY_H
#define KWARN_QUERY_HISTORY_H

/*
 * Reads by question, history and states: how warnings move between
 * builds: the nightly's comparisons with earlier runs, the diff of two
 * commits, the states of one identity over a run, identities by name.
 * Each function takes an open connection (read-only is enough) and
 * reports its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/*
 * Warnings live at the base of RUN but not at the base of OLDER, as a new
 * array in *out of {file, line, column, function, option, message,
 * cause, identity, kind (the tool's: "warning", "sparse", ...), triage
 * (query_triage_annotate())}.  With SPLIT >= 0 (the older tree rebuilt
 * with RUN's compiler), a warning that SPLIT has too comes from the
 * compiler, any other from the code; else every warning gets CAUSE.
 * Returns 0 or -1 (reported).
 */
int query_new_against(json_t **out, sqlite3 *db, long long run, long long older,
		      const char *cause, long long split);

/*
 * Finished nightlies into *out, -1 when there is none; each returns 0 or
 * -1 (reported):
 * - query_previous_nightly: the last one of tree name NAME before RUN
 *   for ARCH ("arm64"; NULL: RUN's own arch, x86_64 when RUN is none);
 * - query_previous_nightly_of: the same, of one cell of a nightly's
 *   matrix: built by --cc CC ("gcc" also matches runs from before --cc)
 *   with the same --warnings and --targets (NULL: none), for ARCH (NULL:
 *   x86_64);
 * - query_nightly_with_compiler: the newest of tree TREE_ID built with
 *   COMPILER;
 * - query_newest_older_tree: the newest of another tree whose version is
 *   not newer than VERSION (by numeric parts); of the runs of that
 *   version, one built with COMPILER is preferred, then the latest.
 */
int query_previous_nightly(long long *out, sqlite3 *db, long long run,
			   const char *name, const char *arch);
int query_previous_nightly_of(long long *out, sqlite3 *db, long long run,
			      const char *name, const char *cc,
			      const char *warnings, const char *targets,
			      const char *arch);
int query_nightly_with_compiler(long long *out, sqlite3 *db, long long tree_id,
				const char *compiler);
int query_newest_older_tree(long long *out, sqlite3 *db, long long run,
			    const char *name, const char *version,
			    const char *compiler);

/*
 * Is there a finished nightly of the tarball PATH (SHA) with CONFIG and
 * COMPILER?  1 or 0 into *out (a new compiler measures every tree
 * again).  Returns 0 or -1 (reported): an error is never "not measured".
 */
int query_nightly_measured(int *out, sqlite3 *db, const char *path,
			   const char *sha, const char *config,
			   const char *compiler);

/*
 * The identity a person names into *out (a new string): a fingerprint
 * or a unique prefix of at least 8 of its hex digits, or FILE:LINE of a
 * warning at the tip of a run (the newest run first; the newest build of
 * any commit when no tip has one).  Returns 0, 1 when nothing matches
 * or several do (said on stderr, with the candidates), -1 on errors.
 */
int query_identity_named(char **out, sqlite3 *db, const char *name);

/*
 * The identity FINGERPRINT's file, function, option (else kind) and
 * message into *out as {file, function, option, message}, or NULL when
 * no build has it.  Returns 0 or -1 (reported).
 */
int query_identity_info(json_t **out, sqlite3 *db, const char *fingerprint);

/* One row of query_diff_each(); valid during the call only. */
struct diff_row {
	const char *identity; /* the fingerprint */
	long long identity_id;
	const char *file;
	long long line; /* -1: none */
	const char *function, *option, *message;
	const char *from, *to; /* the state at each commit, or NULL */
	const char *verdict, *fix, *reason; /* kwarn classify's, or NULL */
};

/*
 * Every warning live at commit FROM or at commit TO (any two commits, of
 * one run or of two), one row each, sorted by file and line, passed to FN
 * as it is read: nothing is held but the row, so a diff of any size costs
 * what the caller keeps.  Stops at FN's first non-zero return and returns
 * it; else 0, or -1 (reported).
 */
int query_diff_each(sqlite3 *db, long long from, long long to,
		    int (*fn)(const struct diff_row *row, void *ctx),
		    void *ctx);

/*
 * Warning IDENT (fingerprint or identities id) across the commits of run
 * RUN_ID (< 0: the newest run that has a state of it) into *out:
 * {"identity", "identity_id", "run", "states": [{"id", "position", "sha",
 * "subject", "state" (null: no state), "include_chain"}] in position
 * order}, or NULL when IDENT names no warning.  0 or -1 (reported).
 */
int query_identity_states(json_t **out, sqlite3 *db, const char *ident,
			  long long run_id);

#endif /* KWARN_QUERY_HISTORY_H */
