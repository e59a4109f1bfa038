/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_WARNINGS_H
#define KWARN_QUERY_WARNINGS_H

/*
 * Reads by question, warnings at a point: the warnings of one point as
 * every view lists them, one warning whole, the files of a point, the
 * sites a warning has across compilers.  Each function takes an open
 * connection (read-only is enough) and reports its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/* A commit of a run, as the warnings at it are read. */
struct query_point {
	long long run_id, commit_id, tree_id;
	long position;
	char *sha; /* the commit's sha */
	char *base; /* the sha of the run's first commit */
};

/* Fill P for COMMIT_ID.  Returns 0, or -1 (reported) if it is unknown. */
int query_point(struct query_point *p, sqlite3 *db, long long commit_id);
void query_point_release(struct query_point *p);

/* Which warnings of a point; every field may be left 0 / NULL. */
struct warn_filter {
	const char *state; /* new, present, fixed, not_built; NULL: live */
	const char *file; /* exact path */
	const char *function;
	/* "-Wimplicit-fallthrough=", with or without -W, "=" or a level */
	const char *option;
	const char *files; /* a JSON array of paths (a subsystem's) */
	const char *triage; /* a state of triage_states[] ("open": none) */
	/* kwarn classify's verdict as stored, or "none": not classified */
	const char *verdict;
	const char *kind; /* a tool of diag_tools[] (parse.h): "compiler"... */
	long limit, offset; /* limit <= 0: all */
};

/*
 * The warnings at point P that F selects, one per identity, as a new
 * object {"total", "warnings"} in *out: every reader of warnings (kwarn
 * warnings, kwarn report, GET /api/warnings) describes a warning with
 * these fields and meanings: identity, identity_id, state (at P), file,
 * line, column, function, option, message, kind, werror, source (the
 * line as printed), inline_chain, object, seen (how many objects printed
 * it at P), build, in_change, introduced and fixed (the commits of P's
 * run), introduced_author (the author of the commit of the run that
 * introduced it, null when it predates the run), reproducer, verdict,
 * fix, reason (kwarn classify's, or null), notes and triage
 * (query_triage_annotate()).  Ordered by file, line, column.  Returns 0
 * or -1 (reported).
 */
int query_point_warnings(json_t **out, sqlite3 *db, const struct query_point *p,
			 const struct warn_filter *f);

/*
 * The same warnings row by row, for a reader that serializes or counts
 * them as they come: each warning object, as described above, goes to
 * EACH in order (EACH takes the reference), and the count of all that F
 * selects, not only this page, to *total.  They are read, annotated and
 * handed on a few hundred at a time, so a whole point's result is never
 * held at once.  EACH returns 0 to go on, else a value that stops the
 * read and becomes the return value; otherwise 0 or -1 (reported).
 */
typedef int query_warning_fn(void *ctx, json_t *w);
int query_point_warnings_each(long long *total, sqlite3 *db,
			      const struct query_point *p,
			      const struct warn_filter *f,
			      query_warning_fn *each, void *ctx);

/*
 * Warning IDENT (its identity fingerprint, or an identities id) at commit
 * COMMIT_ID (< 0: the newest commit, of run RUN_ID if >= 0, where it is
 * live, else the newest where it has any state), as a new object in *out
 * with commit_id, file, line, column, source, message, object, identity,
 * function, option, verdict, fix, reason, inline_chain, build, reproducer,
 * notes and triage (query_triage_annotate()); *out is NULL when there is
 * none.  Returns 0 or -1 (reported).
 */
int query_warning(json_t **out, sqlite3 *db, const char *ident,
		  long long commit_id, long long run_id);

/*
 * At commit COMMIT_ID, a new array in *out, 0 or -1 (reported):
 * - query_point_files: the files that have a warning in any state;
 * - query_point_file_counts: per file with live warnings of tool KIND
 *   (diag_tools[], parse.h; NULL: any), {file, new, warnings, open (of
 *   those, the ones triaged open or never)}.
 */
int query_point_files(json_t **out, sqlite3 *db, long long commit_id);
int query_point_file_counts(json_t **out, sqlite3 *db, long long commit_id,
			    const char *kind);

/*
 * The live warnings at POSITION (-1: the run's last built point) of
 * RUN_ID's group (query-commits.h), one entry per site
 * (identities.site and the line of its label at that point, which tells
 * apart two labels of one text in one function: {site, line, file,
 * function, compilers[] (each once), warnings[{compiler, option,
 * message, identity}]}), into a new array;
 * ONLY "gcc", "clang" or "both" keeps the sites that only gcc, only
 * clang, or both warn about.  Returns 0 or -1 (reported).
 */
int query_sites(json_t **out, sqlite3 *db, long long run_id, long position,
		const char *only);

#endif /* KWARN_QUERY_WARNINGS_H */
