/* SPDX-License-Identifier: MIT */
#ifndef KWARN_STORE_H
#define KWARN_STORE_H

/*
 * store.c: writing trees, runs, commits and builds into the database.
 * A build's rows land in one transaction: a build_writer begins it,
 * objects and diagnostics are added, and bw_finish() computes the state
 * of every warning at this point against the previous point and commits.
 * Anything that fails before that rolls back, so nothing is half-written.
 */

#include <sqlite3.h>

#include "kbuild.h"
#include "parse.h"

struct tree_info {
	const char *name;
	const char *version;
	const char *pkg_version;
	const char *kind; /* tarball, dir, repo, log */
	const char *source;
	const char *sha256;
	const char *maintainers; /* may be NULL */
};

/* Find the tree with the same name, kind, source and sha256, or add it. */
int store_tree(long long *out, sqlite3 *db, const struct tree_info *t);

struct run_info {
	long long tree_id;
	const char *kind; /* series, nightly, ingest */
	const char *series; /* the series file or git range, or NULL */
	const char *config;
	int level;
	const char *params; /* JSON: what "measured" means */
	const char *compiler; /* the --cc name ("gcc"), or NULL */
	const char *arch; /* the --arch name ("x86_64"), or NULL */
};

/*
 * The run of tree R->tree_id with the same kind and params into *out:
 * returns 1 when that run is done (measured before), 2 when it was not
 * finished and is resumed (its status is "running" again), 0 when a new
 * run was created (always, with FORCE), -1 on errors (reported).
 */
int store_open_run(long long *out, sqlite3 *db, const struct run_info *r,
		   int force);

/*
 * Link the runs IDS[0..N) of one invocation (one per compiler): each
 * gets group_id IDS[0], replacing an earlier group.  Returns 0 or -1.
 */
int store_group_runs(sqlite3 *db, const long long *ids, size_t n);

/*
 * Record where run RUN_ID is (PROGRESS: JSON text, or NULL), in its own
 * short transaction.  Returns 0 or -1 (reported).
 */
int store_run_progress(sqlite3 *db, long long run_id, const char *progress);

/*
 * Keep REPORT (a JSON object: kwarn nightly's report entry of nightly run
 * RUN_ID) in nightly_reports, replacing an older one.  Returns 0 or -1
 * (reported).
 */
int store_nightly_report(sqlite3 *db, long long run_id, const char *report);

/* Set run RUN_ID's status, message (may be NULL) and finish time. */
int store_finish_run(sqlite3 *db, long long run_id, const char *status,
		     const char *msg);

struct commit_info {
	long long run_id;
	long position;
	const char *sha, *parent, *subject, *author, *patch;
	long long date;
	const char *apply_status; /* base, applied, failed */
	const char *apply_error;
	const char *changed; /* JSON {"file": [[first, last], ...]} */
};

/* Insert a commit row (or return the one at that position). */
int store_commit(long long *out, sqlite3 *db, const struct commit_info *c);

struct build_info {
	const char *config_name;
	const char *config_hash;
	const char *compiler;
	const char *flags;
	int level;
	const char *status; /* ok, failed, ingested */
	long long wall_ms;
	const char *log_tail;
	const char *image;
	const char *arch; /* "x86_64", "arm64", or NULL (ingested) */
	const char *build_dir; /* in kwarn's cache, NULL (ingested) */
	int cached; /* built with the compiler cache: the two below count */
	long long cache_hits, cache_misses; /* C compiles from it, and not */
};

struct build_writer;

/*
 * Begin a transaction and insert the build of COMMIT_ID.  Returns 0, or
 * -1 (reported, nothing written).  If the caller has a transaction open,
 * the build joins it: bw_finish() commits and bw_abort() rolls back all
 * of it, so that rows the caller wrote for this build (its commit) land
 * or vanish with it.
 */
int bw_begin(struct build_writer **out, sqlite3 *db, long long commit_id,
	     const struct build_info *info);

/* The id of the build row being written. */
long long bw_build_id(const struct build_writer *w);

/*
 * Record object PATH (".o", relative to the build) with STATE (compiled,
 * carried, failed, not_built); the id goes to *out.  An object already
 * recorded keeps its id and takes the new state.
 */
int bw_object(long long *out, struct build_writer *w, const char *path,
	      const char *state);

/*
 * The id of object PATH of this build, stored by bw_object() before, or
 * -1 when the build has no such object.
 */
long long bw_object_lookup(struct build_writer *w, const char *path);

/*
 * Record for each object of this build that M links into a composite
 * object (a part of a module) that composite.  Objects M names that the
 * build does not hold are skipped.  Errors are reported once and make
 * bw_finish() fail.
 */
int bw_composites(struct build_writer *w, const struct kbuild_map *m);

/*
 * Add diagnostic D printed while compiling OBJECT_ID (-1: from D->object,
 * or the translation unit it names, or none; -2: no object, e.g. boot).  Errors are reported once
 * and make bw_finish() fail.
 */
void bw_diag(struct build_writer *w, long long object_id, const struct diag *d);

/*
 * Mark the diagnostics added from now on as carried (1): their object was
 * not rebuilt at this point and they come from its last compile.
 */
void bw_set_carried(struct build_writer *w, int carried);

/* Lines read that could not be parsed, added to the build row. */
void bw_add_unparsed(struct build_writer *w, unsigned long n);

/*
 * Compute the states of this point against the previous point of the same
 * run (new, present, fixed, not_built), mark new warnings that lie inside
 * the commit's changed lines, commit, and free W.  Returns 0 with the
 * build id in *out, or -1 after rolling everything back.
 */
int bw_finish(long long *out, struct build_writer *w);

/* Roll back and free W; NULL is fine. */
void bw_abort(struct build_writer *w);

/*
 * The run that collects the ingested logs of tree TREE_ID (kind ingest,
 * made on first use) into *out.  Returns 0 or -1 (reported).
 */
int store_ingest_run(long long *out, sqlite3 *db, long long tree_id);

/*
 * The commit REF of ingest run RUN_ID into *out: the stored one, or a new
 * last point of the run.  Returns 0 or -1 (reported).
 */
int store_ingest_commit(long long *out, sqlite3 *db, long long run_id,
			const char *ref);

struct classify_result;

/*
 * Store R for the warning identity IDENTITY_ID in DB (schema 0002 and 0008,
 * table classifications), replacing an older verdict.  Returns 0 or -1
 * (reported).
 */
int store_classification(sqlite3 *db, long long identity_id,
			 const struct classify_result *r);

struct triage_rec;

/*
 * Add the triage records RECS[0..N) (each passed triage_check()) in one
 * transaction of their own: all or none.  A record equal in every field
 * to one stored is skipped (an import read twice adds nothing); their
 * number goes to *ADDED (may be NULL).  Returns 0 or -1 (reported).
 */
int store_triage(sqlite3 *db, const struct triage_rec *recs, size_t n,
		 size_t *added);

struct boot_result;

/*
 * Insert a boots row for BUILD_ID from R, the log zlib-compressed, and a
 * boot_modules row per module, and put the boot's id in *out (may be
 * NULL).  Returns 0 or -1 (reported).
 */
int store_boot(long long *out, sqlite3 *db, long long build_id,
	       const struct boot_result *r);

#endif
