/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_COMMITS_H
#define KWARN_QUERY_COMMITS_H

/*
 * Reads by question, commits, builds and boots: which commit a
 * reference names, which build a commit has, the trees and boots behind
 * them, the compilers of a group, and a run's series of commits.  Each
 * function takes an open connection (read-only is enough) and reports
 * its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/*
 * The stored commit that REF names, by the one rule every command and
 * endpoint uses: its exact sha (or the REF given to kwarn ingest), else a
 * decimal commits.id, else a prefix of at least 7 characters of a sha;
 * the newest of several.  RUN_ID >= 0 looks only in that run.  *out is
 * the commit's id, or -1 when REF names none (not an error).  Returns 0,
 * or -1 on a database error (reported).
 */
int query_resolve_commit(long long *out, sqlite3 *db, const char *ref,
			 long long run_id);

/*
 * The last commit with a build of run RUN_ID (the newest run when
 * RUN_ID < 0) into *out, or -1 when it has none.  Returns 0 or -1.
 */
int query_last_built(long long *out, sqlite3 *db, long long run_id);

/* The first commit of run RUN_ID that was built (its base), or -1. */
int query_first_built(long long *out, sqlite3 *db, long long run_id);

/* The newest build of COMMIT_ID into *out (-1: none).  0 or -1. */
int query_commit_build(long long *out, sqlite3 *db, long long commit_id);

/* The sha of COMMIT_ID, a new string.  0, or -1 (reported) if none. */
int query_commit_sha(char **out, sqlite3 *db, long long commit_id);

/*
 * The newest build of the commit REF names (query_resolve_commit()), or
 * with REF NULL of the last built commit of the newest run, and that
 * commit.  Returns 0, or -1 (reported) when there is none.
 */
int query_find_build(long long *build_out, long long *commit_out, sqlite3 *db,
		     const char *ref);

/*
 * The points of run RUN_ID whose build failed, as a new array of
 * {position, subject} in series order.  Returns 0 or -1 (reported).
 */
int query_failed_points(json_t **out, sqlite3 *db, long long run_id);

/* The kernel image of build ID, a new string, or NULL when it has none.
 * Returns 0, or -1 (reported) when there is no such build. */
int query_build_image(char **out, sqlite3 *db, long long id);

/* The tree row a commit was measured on (strings may be NULL). */
struct query_tree {
	char *kind, *name, *source, *sha256;
};

/*
 * The tree of the newest stored commit with sha COMMIT_SHA into *out
 * (release with query_tree_release()).  Returns 0, or -1 (reported) when
 * no such commit is stored.
 */
int query_commit_tree(struct query_tree *out, sqlite3 *db,
		      const char *commit_sha);
void query_tree_release(struct query_tree *t);

/*
 * The directory of the tree NAME when kwarn knows it as one (kind 'dir')
 * and it is on disk, a new string into *out (NULL if not).  Returns 0, or
 * -1 on a database error (reported).
 */
int query_tree_dir(char **out, sqlite3 *db, const char *name);

/*
 * The modules boot BOOT_ID tried, {name, status, message} in the init's
 * order (empty without --full), a new array in *out.  0 or -1.
 */
int query_boot_modules(json_t **out, sqlite3 *db, long long boot_id);

/* The newest boot of a build. */
struct query_boot {
	int build_exists;
	json_t *row; /* {build, boot, verdict, reason, duration_ms, accel,
		      * kernel_version, fingerprint, created_at, commit: {id,
		      * sha, position, run, subject}}, or NULL when the build
		      * was not booted */
	unsigned char *zlog; /* the zlib-compressed serial log, or NULL */
	size_t zlen, log_size; /* its length, and the log's */
};

/* Fill *out for build BUILD_ID (release it).  0 or -1 (reported). */
int query_boot(struct query_boot *out, sqlite3 *db, long long build_id);
void query_boot_release(struct query_boot *b);

/*
 * Campaigns across compilers.  kwarn run --cc gcc --cc clang-16 makes
 * one run per compiler over the same points, one group; a run without a
 * group is a group of one.  A compiler name WANT matches a run's compiler
 * when equal or its family ("clang" matches "clang-16", "gcc" "gcc-12").
 *
 * - query_commit_for_compiler: the commit at COMMIT_ID's position in the
 *   run of its group built with COMPILER into *out, or -1 if none.
 * - query_commit_for: the same for COMPILER and ARCH ("arm64"), either
 *   NULL for any.
 * - query_group_run: the run of RUN_ID's group built with COMPILER and
 *   for ARCH (either NULL for any) into *out, or -1 if none.
 * All return 0 or -1 (reported).
 */
int query_commit_for_compiler(long long *out, sqlite3 *db, long long commit_id,
			      const char *compiler);
int query_commit_for(long long *out, sqlite3 *db, long long commit_id,
		     const char *compiler, const char *arch);
int query_group_run(long long *out, sqlite3 *db, long long run_id,
		    const char *compiler, const char *arch);

/*
 * The runs of RUN_ID's group as a new array in *out, RUN_ID first, then
 * by id: [{id, compiler, arch}]; an empty array when there is no run
 * RUN_ID.  Returns 0 or -1 (reported).
 */
int query_group_members(json_t **out, sqlite3 *db, long long run_id);

/*
 * The commit at POSITION of run RUN_ID into *out, or -1 when the run has
 * none there.  Returns 0 or -1 (reported).
 */
int query_commit_at(long long *out, sqlite3 *db, long long run_id,
		    long long position);

/*
 * Commit COMMIT_ID as the commit page shows it, a new object in *out:
 * {"id", "sha", "position", "run", "subject", "author", "date", "patch",
 * "parent", "apply_status", "apply_error", "build" (its newest, or
 * null), "boot" (that build's verdict, or null), "previous", "next"
 * (the neighbouring commits of its run, {"id", "position", "sha",
 * "subject"}, or null at either end)}; NULL when there is no such
 * commit.  Returns 0 or -1 (reported).
 */
int query_commit_detail(json_t **out, sqlite3 *db, long long commit_id);

/* ---- the dashboard's views: series over a run, diffs ---- */

/* One count of query_run_series(): commit index AT, a name, a count. */
typedef void series_cell_fn(void *ctx, size_t at, const char *name,
			    long long n);

/*
 * Appends run RUN_ID's commits to COMMITS: [{"id", "position", "sha",
 * "subject", "built", "boot"}] in position order.  0 or -1.
 */
int query_series_commits(json_t *commits, sqlite3 *db, long long run_id);

/*
 * Run RUN_ID's live warnings counted per commit and per KEY ("file" or
 * "option": the identity's file, or its -W option, else its kind):
 * calls CELL(CTX, commit index in COMMITS, name, count) for every name
 * with warnings at a commit, in commit order.  COMMITS is what
 * query_series_commits() gave.  0 or -1 (reported).
 */
int query_run_series(const json_t *commits, sqlite3 *db, long long run_id,
		     const char *key, series_cell_fn *cell, void *ctx);

#endif /* KWARN_QUERY_COMMITS_H */
