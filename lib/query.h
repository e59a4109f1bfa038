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
 * The counts at every commit of run RUN_ID, as a new JSON object keyed by
 * the commit's id in decimal: {"warnings", "new", "fixed", "not_built",
 * "by_option": {OPTION: N}, "by_triage": {STATE: N}}.  warnings counts
 * the live states (new and present, one per identity); by_option splits
 * them by -W option, or by kind for a warning without one; by_triage by
 * the triage of their identity, every state of triage_states[] present,
 * "open" the ones never triaged or reopened.  Commits without a build
 * count zero: the caller knows which were built.  Returns 0 or -1
 * (reported).
 */
int query_run_counts(json_t **out, sqlite3 *db, long long run_id);

/*
 * One entry per commit of run RUN_ID in series order, as a new array in
 * *out: commit, position, subject, author, patch, apply_status
 * (apply_error), build, status, the counts of query_run_counts(), the
 * build's wall_ms, objects_compiled, build_dir, cache_hits and
 * cache_misses (null without the compiler cache), the boot's verdict,
 * boot_ms, boot_reason and modules, and warnings_list: the live and the
 * fixed warnings of that point (query_point_warnings()).  Returns 0 or -1.
 */
int query_run_points(json_t **out, sqlite3 *db, long long run_id);

/*
 * The points of run RUN_ID whose build failed, as a new array of
 * {position, subject} in series order.  Returns 0 or -1 (reported).
 */
int query_failed_points(json_t **out, sqlite3 *db, long long run_id);

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
 * Facts of a run (nightlies use them): its tree's name and version, the
 * compiler and boot verdict of its first point's build.  Strings are the
 * struct's.
 */
struct run_facts {
	char *tree, *version, *compiler, *verdict;
	char *source, *sha256, *pkg_version; /* of the tree */
	char *commit; /* the commit measured: a git tree's changes */
	long long tree_id;
};

/* Fill F for run RUN.  Returns 0 or -1 (reported). */
int query_run_facts(struct run_facts *f, sqlite3 *db, long long run);
void query_run_facts_release(struct run_facts *f);

/*
 * Warnings live at the base of RUN but not at the base of OLDER, as a new
 * array in *out of {file, line, column, function, option, message,
 * cause, identity, triage (query_triage_annotate())}.  With SPLIT >= 0 (the older tree rebuilt with RUN's compiler),
 * a warning that SPLIT has too comes from the compiler, any other from
 * the code; else every warning gets CAUSE.  Returns 0 or -1 (reported).
 */
int query_new_against(json_t **out, sqlite3 *db, long long run, long long older,
		      const char *cause, long long split);

/* The number of live warnings at the base of RUN into *out.  0 or -1. */
int query_base_live_count(long long *out, sqlite3 *db, long long run);

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
 * Run RUN_ID's status and message (NULL when it has none), new strings.
 * Returns 0, or -1 (reported) when there is no such run.
 */
int query_run_status(char **status_out, char **msg_out, sqlite3 *db,
		     long long run_id);

/* The kernel image of build ID, a new string, or NULL when it has none.
 * Returns 0, or -1 (reported) when there is no such build. */
int query_build_image(char **out, sqlite3 *db, long long id);

/*
 * The warnings live at the last built point of run RUN_ID that the first
 * point did not have, less those triaged as no bug (the triage_settled
 * view), as a new array of {file, line, function, message} (what
 * --fail-on-new fails on).  Returns 0 or -1 (reported).
 */
int query_tip_new(json_t **out, sqlite3 *db, long long run_id);

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
 * Warning IDENT (its identity fingerprint, or an identities id) at commit
 * COMMIT_ID (< 0: the newest commit that has it), as a new object in *out
 * with commit_id, file, line, column, source, message, object, identity,
 * function, option, verdict, fix, reason, inline_chain, build, reproducer,
 * notes and triage (query_triage_annotate()); *out is NULL when there is
 * none.  Returns 0 or -1 (reported).
 */
int query_warning(json_t **out, sqlite3 *db, const char *ident,
		  long long commit_id);

/*
 * The burn-down of run RUN_ID, one entry per commit in series order, as
 * a new array in *out: commit (sha), id, position, subject, patch,
 * apply_status, build, the counts of query_run_counts() (null for a
 * commit without a build) and boot (the newest verdict, or null).
 * Returns 0 or -1 (reported).
 */
int query_burndown(json_t **out, sqlite3 *db, long long run_id);

/*
 * Runs and trees as the REST API lists them, each a new value in *out and
 * 0, or -1 (reported):
 * - query_runs: the runs of tree TREE_ID (every run when < 0), newest
 *   first, each {id, tree {id, name, version}, kind, series, config,
 *   level, status, message, started_at, finished_at, commits, warnings
 *   (live at the tip), compiler};
 * - query_run: one of them, or NULL when there is no run ID;
 * - query_run_commits: run ID's commits {id, position, sha, subject,
 *   patch, apply_status, build, cache_hits, cache_misses} in series
 *   order (the last build's compiles from the compiler cache and not,
 *   null without it);
 * - query_trees: every tree with its runs;
 * - query_run_total, query_run_exists: how many runs; whether run ID is.
 */
int query_runs(json_t **out, sqlite3 *db, long long tree_id);

/*
 * What kwarn nightly reported of every nightly run it compared, oldest
 * first, as a new array in *out: {run, report} where report is the entry
 * it stored (store_nightly_report()), each of its new warnings with its
 * triage as it is now (query_triage_annotate()).  Returns 0 or -1
 * (reported; a stored report that is not a JSON object is an error).
 */
int query_nightly_reports(json_t **out, sqlite3 *db);
int query_run(json_t **out, sqlite3 *db, long long id);
int query_run_commits(json_t **out, sqlite3 *db, long long id);
int query_trees(json_t **out, sqlite3 *db);
int query_run_total(long long *out, sqlite3 *db);
int query_run_exists(int *out, sqlite3 *db, long long id);

/*
 * Tree TREE_ID's MAINTAINERS text, a new string of *len bytes, or NULL
 * when it has none.  Returns 0 or -1 (reported).
 */
int query_tree_maintainers(char **out, size_t *len, sqlite3 *db,
			   long long tree_id);

/*
 * What a burn-down of run ID is made of, in QUERY_RUN_FP numbers: its
 * commits, the sum of their subjects' and states' lengths, the sum of
 * their newest build ids (a new build brings new states), its newest boot
 * and the newest triage record (by_triage; records are only added); a
 * cache of the burn-down is good while they stay the same.  0 or -1.
 */
#define QUERY_RUN_FP 5
int query_run_fingerprint(long long fp[QUERY_RUN_FP], sqlite3 *db,
			  long long id);

/*
 * At commit COMMIT_ID, a new array in *out, 0 or -1 (reported):
 * - query_point_files: the files that have a warning in any state;
 * - query_point_file_counts: per file with live warnings, {file, new,
 *   warnings, open (of those, the ones triaged open or never)}.
 */
int query_point_files(json_t **out, sqlite3 *db, long long commit_id);
int query_point_file_counts(json_t **out, sqlite3 *db, long long commit_id);

/*
 * The modules boot BOOT_ID tried, {name, status, message} in the init's
 * order (empty without --full), a new array in *out.  0 or -1.
 */
int query_boot_modules(json_t **out, sqlite3 *db, long long boot_id);

/* The newest boot of a build. */
struct query_boot {
	int build_exists;
	json_t *row; /* {build, boot, verdict, reason, duration_ms, accel,
		      * kernel_version, fingerprint, created_at}, or NULL when
		      * the build was not booted */
	unsigned char *zlog; /* the zlib-compressed serial log, or NULL */
	size_t zlen, log_size; /* its length, and the log's */
};

/* Fill *out for build BUILD_ID (release it).  0 or -1 (reported). */
int query_boot(struct query_boot *out, sqlite3 *db, long long build_id);
void query_boot_release(struct query_boot *b);

/*
 * The newest run kwarn made into *out; the run of ingested logs when
 * there is no other; -1 if none.
 */
int query_newest_run(long long *out, sqlite3 *db);

/*
 * The run's tree and settings as a new object in *out: run, kind, series,
 * config, level, started_at, finished_at, tree (name), version,
 * tree_kind, source, sha256, maintainers (text or null).  0 or -1.
 */
int query_run_info(json_t **out, sqlite3 *db, long long run_id);

/*
 * One build as a new object in *out: compiler, config_name, config_hash,
 * status, level, wall_ms, created_at, log_tail, image, flags, build_dir,
 * toolchain (the run's compiler: "gcc", "clang-16"), arch, targets (the
 * run's --targets, "a.o,b.o"), each null when not stored.  0 or -1 (reported).
 */
int query_build_info(json_t **out, sqlite3 *db, long long build_id);

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
 * - query_group_counts: a new object {"POSITION": {"COMPILER": live
 *   warnings, or null when not built}} over RUN_ID's group; a run for
 *   another arch than x86_64 is "COMPILER/ARCH" ("gcc/arm64").
 * - query_sites: the live warnings at POSITION (-1: the run's last built
 *   point) of RUN_ID's group, one entry per site (identities.site:
 *   {site, file, function, compilers[], warnings[{compiler, option,
 *   message, identity}]}), into a new array; ONLY "gcc", "clang" or
 *   "both" keeps the sites that only gcc, only clang, or both warn about.
 * All return 0 or -1 (reported).
 */
/* The same as query_newest_run(). */
int query_last_run(long long *out, sqlite3 *db);

int query_commit_for_compiler(long long *out, sqlite3 *db, long long commit_id,
			      const char *compiler);
int query_commit_for(long long *out, sqlite3 *db, long long commit_id,
		     const char *compiler, const char *arch);
int query_group_run(long long *out, sqlite3 *db, long long run_id,
		    const char *compiler, const char *arch);
int query_group_counts(json_t **out, sqlite3 *db, long long run_id);

/*
 * The runs of RUN_ID's group as a new array in *out, RUN_ID first, then
 * by id: [{id, compiler, arch}]; an empty array when there is no run
 * RUN_ID.  Returns 0 or -1 (reported).
 */
int query_group_members(json_t **out, sqlite3 *db, long long run_id);
int query_sites(json_t **out, sqlite3 *db, long long run_id, long position,
		const char *only);

/*
 * The progress kwarn run last wrote for run ID (JSON, while it runs), a
 * new value in *out, or JSON null once it is done.  0 or -1 (reported).
 */
int query_run_progress(json_t **out, sqlite3 *db, long long id);

/*
 * The facts of build BUILD_ID a reproducer needs, as a prepared statement
 * in *out for the caller to step and finalize: commit sha, image,
 * config_hash, level, status, compiler, tree kind, name, source, sha256,
 * build_dir, flags, the run's compiler.  Returns 0 or -1 (reported).
 */
int query_repro_stmt(sqlite3_stmt **out, sqlite3 *db, long long build_id);

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

#endif
