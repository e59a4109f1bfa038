/* SPDX-License-Identifier: MIT */
#ifndef KWARN_TREEPATH_H
#define KWARN_TREEPATH_H

/*
 * Where the collector keeps the git repository of a tree, from the trees
 * row alone (KIND, NAME, SOURCE, SHA256): $KWARN_CACHE/trees/.../git, as
 * a new string the caller frees, whether or not it is on disk.  NULL for
 * a tree with no repository (an ingested log) or a bad row.  Quiet.
 */
char *tree_repo_dir(const char *kind, const char *name, const char *source,
		    const char *sha256);

#endif
