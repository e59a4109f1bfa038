/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_RUNS_H
#define KWARN_QUERY_RUNS_H

/*
 * Reads by question, runs: the runs: their rows as the API shows them,
 * their facts for the nightly, their status and progress, the newest
 * one.  Each function takes an open connection (read-only is enough)
 * and reports its own errors.
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

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
 * Run RUN_ID's status and message (NULL when it has none), new strings.
 * Returns 0, or -1 (reported) when there is no such run.
 */
int query_run_status(char **status_out, char **msg_out, sqlite3 *db,
		     long long run_id);

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
 * their newest build ids (a new build brings new states), its newest boot,
 * the newest triage record (by_triage; records are only added) and the
 * verdicts of kwarn classify (missing_break: their count and the sum of
 * the identities found a likely missing break); a cache of the burn-down
 * is good while they stay the same.  0 or -1.
 */
#define QUERY_RUN_FP 6
int query_run_fingerprint(long long fp[QUERY_RUN_FP], sqlite3 *db,
			  long long id);

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

/* The same as query_newest_run(). */
int query_last_run(long long *out, sqlite3 *db);

/*
 * The progress kwarn run last wrote for run ID (JSON, while it runs), a
 * new value in *out, or JSON null once it is done.  0 or -1 (reported).
 */
int query_run_progress(json_t **out, sqlite3 *db, long long id);

#endif /* KWARN_QUERY_RUNS_H */
