/* SPDX-License-Identifier: MIT */
#ifndef KWARN_CENSUS_TREE_H
#define KWARN_CENSUS_TREE_H

/*
 * The fall-through marker census of many files (a directory or a commit):
 * census_scan() of each file, added up per marker kind and spelling, with
 * the GCC levels that accept each placement.
 */

#include <jansson.h>

#include "census.h"

struct srctree_walk;

struct census_tally_row {
	enum census_marker kind;
	char *spelling;
	long count;
	long accepted[6]; /* placed so that level N accepts it */
};

/* A marker that passes at level 3 and fails at 5. */
struct census_upgrade {
	char *file;
	long line;
	char *spelling;
};

/*
 * A census in progress: zero it, set notes to json_array(), give
 * census_tally_visit with it to a struct srctree_walk; release with
 * census_tally_release().
 */
struct census_tally {
	struct census_tally_row *rows;
	size_t nr, alloc;
	struct census_upgrade *ups;
	size_t nups, aups;
	long labels, marked;
	json_t *notes; /* files with notes, owned */
};

/* A srctree_fn: scan one file into the tally CTX.  Returns 0. */
int census_tally_visit(void *ctx, const char *path, const char *buf,
		       size_t len);

/* Sort the rows: most frequent first, then by spelling. */
void census_tally_sort(struct census_tally *r);

/*
 * The census as a new JSON object (source WHAT, files, labels, marked,
 * markers (none when UPGRADE), upgrade, skipped, notes).
 */
json_t *census_tally_json(const struct census_tally *r,
			  const struct srctree_walk *w, const char *what,
			  int upgrade);

void census_tally_release(struct census_tally *r);

/* The census_file notes bits as a new JSON array of their names. */
json_t *census_notes_json(unsigned notes);

/*
 * The marker census of the *.c and *.h files of commit REV of the git
 * repository REPO_PATH, limited to PREFIX (a directory or file of the
 * tree; NULL or "" for all), as a new JSON object in *out, the one
 * `kwarn census --format json` prints.  Returns 0 or -1 (reported).
 */
int census_git_json(json_t **out, const char *repo_path, const char *rev,
		    const char *prefix);

#endif
