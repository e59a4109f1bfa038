/* SPDX-License-Identifier: MIT */
#ifndef KWARN_RUN_H
#define KWARN_RUN_H

/*
 * kwarn run's orchestration, in three files that share struct run:
 * run.c has the options, the driver (cmd_run, run_request) and the run
 * row; run-points.c makes the points (the base overlay and quilt series
 * applied as commits, a git range, the plain tree, the installed trees to
 * try); run-build.c builds one point (config, kbuild, modules, the
 * captures of kwarn-cc parsed and stored, the classifier).  Private to
 * these three files.
 */

#include <signal.h>
#include <stdio.h>
#include <sqlite3.h>

#include "kwarn.h"
#include "tree.h"

struct point {
	git_oid oid;
	char sha[GIT_OID_HEXSZ + 1];
	char *subject, *author, *patch, *changed;
	long long date;
	int unapplied; /* its patch did not apply: stored as failed, not built */
};

/*
 * One cell of a run: a compiler for an architecture, built with the run's
 * warning spec (r->ws) and config fragments.  Each cell has its own run
 * row, commits, build directory and build parameters; the points (and
 * their checkouts) are shared.  Every build step is given its cell: the
 * run holds no "current compiler".
 */
struct cell {
	const struct toolchain *tc;
	const struct arch *arch; /* --arch; the host's (x86_64) without */
	long long run_id;
	long long *commit_ids; /* per point, as stored for this cell's run */
	char *build_dir, *kdir; /* B, and B/.kwarn */
	char *config_hash, *compiler, *flags, *params;
	char *config_name; /* the base and the fragments, as runs.config */
	const char *frags[16]; /* the fragments for this arch */
	int lockfd;
	int measured; /* measured before: nothing to build */
	int checked; /* a point of this run was checked: C=1 from now on */
	int objtool; /* this point's build ran objtool on its objects */
};

/* make_argv()'s strings, freed by make_argv_release() */
#define MAKE_OWNED 6

struct run {
	/* options */
	const char *dbpath, *tree_spec, *repo, *range, *series;
	const char *cached_name, *cached_sha256;
	const char *config_base, *launcher, *targets;
	const char *config_base_path; /* --config-base FILE: a full .config */
	const char *frags[16];
	size_t nr_frags;
	int level, jobs, full, boot, fail_on_new, force;
	int no_series; /* measure the plain tree: one point */
	int *measured_before; /* set when the run was measured before */
	const char *kind; /* "series" or "nightly" */
	const char *pkg_version;
	const char *cc_names[8]; /* --cc, in order; none: gcc */
	size_t nr_cc_names;
	const char *arch_names[4]; /* --arch, in order; none: x86_64 */
	size_t nr_arch_names;
	const char *warnings; /* --warnings SPEC, or NULL */
	const char *checker; /* --checker: "sparse", or NULL */
	struct ccache_opts cco; /* the compiler cache's options */
	FILE *out; /* where the summary goes */
	int silence_s, timeout_s;
	/* state */
	sqlite3 *db;
	struct tree *tree;
	long long tree_id;
	struct point *points;
	size_t nr_points;
	char *apply_failure; /* why the series stopped, if it did */
	char **objects; /* single-object targets */
	size_t nr_objects;
	struct cell *cells; /* one per compiler and architecture */
	size_t nr_cells;
	char *default_series, *default_frags[2]; /* without --series */
	char **cands; /* the candidate trees, when kwarn chose them */
	size_t ncands;
	char *maint; /* the tree's MAINTAINERS */
	char *arch_frags[32]; /* each cell's qemu config, where not x86_64's */
	char *config_base_label; /* the base, or "FILE@sha256-prefix" */
	char *cc_path; /* kwarn-cc next to us */
	struct warn_spec ws; /* parsed --warnings */
	struct source_cache src; /* the work tree at the point being stored */
	int tty;
	int64_t started, point_started;
	size_t expected; /* objects a cold build will compile, or 0 */
	int cached; /* compiles go through the compiler cache */
	struct ccache_count cache; /* the point's compiles from it */
};

/* run.c */

/* The signal that interrupted the run, or 0. */
extern volatile sig_atomic_t interrupted;

/* run-points.c */

/*
 * Apply the base overlay (if any) beside r->series and the series to
 * r->tree, one point per commit; on a patch that does not apply the
 * points stop there and r->apply_failure says why.  0 or -1, reported.
 */
int make_points(struct run *r);
/* The commits of r->range in r->tree, oldest first, as points. */
int make_points_range(struct run *r);
/* The imported tree itself as the one point. */
int make_points_plain(struct run *r);
/* Forget r->tree and its points, to try another tree. */
void run_reset_tree(struct run *r);
/*
 * Store r's points as the commits of C's run, their ids into
 * c->commit_ids.  0 or -1, reported.
 */
int store_points(struct run *r, struct cell *c);
/*
 * The candidate trees for a series: /usr/src/linux-source-*.tar.*, the
 * one the series names with "# kwarn-tree: NAME" first, then newest
 * first.  Returns how many are in the new list *out.
 */
size_t default_trees(char ***out, const char *series);
/* Free n strings and the list; accepts NULL. */
void free_list(char **list, size_t n);

/* run-build.c */

/*
 * Print the progress line of point k (on a tty, over the last one), for
 * cell C (NULL before any cell is chosen).
 */
void progress(struct run *r, struct cell *c, size_t k, const char *what);
/* KCFLAGS for C's compiler and r's warning level, a new string. */
char *run_kcflags(struct run *r, struct cell *c);
/* Make C's .config in its build directory.  0 or -1, reported. */
int configure(struct run *r, struct cell *c);
/* The single-object targets: every .c that a point changes. */
void collect_objects(struct run *r);
/*
 * Build point k (already checked out) in cell C and store it, captures,
 * boot and classifier verdicts, in one transaction.  0 or -1, reported;
 * -1 also when interrupted.
 */
int build_point(struct run *r, struct cell *c, size_t k);

#endif /* KWARN_RUN_H */
