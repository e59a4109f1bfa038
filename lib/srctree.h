/* SPDX-License-Identifier: MIT */
#ifndef KWARN_SRCTREE_H
#define KWARN_SRCTREE_H

/*
 * Reading a kernel tree: the *.c and *.h files of a directory or of a
 * commit of a git repository, one file at a commit, and where the
 * collector caches the git repository of a stored tree.  This is the one
 * module that knows the cache layout ($KWARN_CACHE/trees/KEY/git).
 */

#include <sqlite3.h>
#include <stddef.h>

/* Called with each file's path (relative to the walked tree) and text. */
typedef int (*srctree_fn)(void *ctx, const char *path, const char *buf,
			  size_t len);

struct srctree_skip {
	char *path;
	const char *why; /* static text */
};

/*
 * One walk: set fn and ctx, zero the rest; release with
 * srctree_walk_release().  Files that cannot be read, binary files and
 * files over CAP_SOURCE_FILE (caps.h) are not visited but listed in skips.
 */
struct srctree_walk {
	srctree_fn fn;
	void *ctx;
	struct srctree_skip *skips;
	size_t nskips, askips;
	long files; /* visited */
};

/*
 * Visit PATH: every *.c and *.h below a directory (sorted, .git left
 * out), or one file.  Returns 0, or -1 when PATH cannot be read or FN
 * returned non-zero.
 */
int srctree_walk_path(struct srctree_walk *w, const char *path);

/*
 * Visit the *.c and *.h files of commit (or any revision) REV of the git
 * repository REPO_PATH, below PREFIX (a directory or a file of the tree)
 * when PREFIX is neither NULL nor "".  Returns 0 or -1 (reported).
 */
int srctree_walk_git(struct srctree_walk *w, const char *repo_path,
		     const char *rev, const char *prefix);

/* Note PATH as not visited, for WHY (static text). */
void srctree_skip_file(struct srctree_walk *w, const char *path,
		       const char *why);

/* Free the skip list; W itself is the caller's. */
void srctree_walk_release(struct srctree_walk *w);

/*
 * Read FILE (a path relative to the tree) into a new NUL-terminated
 * buffer *out of *len bytes: from the directory TREE_DIR when it is not
 * NULL, else from revision REV of the repository REPO_PATH.  Returns 0,
 * or -1 (reported) with *out NULL.
 */
int srctree_read(char **out, size_t *len, const char *tree_dir,
		 const char *repo_path, const char *rev, const char *file);

/*
 * Where the collector keeps the git repository of a tree, from the trees
 * row alone (KIND, NAME, SOURCE, SHA256): $KWARN_CACHE/trees/.../git, as
 * a new string the caller frees, whether or not it is on disk.  NULL for
 * a tree with no repository (an ingested log) or a bad row.  Quiet.
 */
char *tree_repo_dir(const char *kind, const char *name, const char *source,
		    const char *sha256);

/*
 * The collector's cached git repository of the tree of stored commit
 * COMMIT_SHA ($KWARN_CACHE/trees/.../git), as a new string the caller
 * frees; NULL (reported) if the commit is not stored, its tree has no
 * repository (an ingested log) or the repository is not on disk.
 */
char *tree_repo_path(sqlite3 *db, const char *commit_sha);

/* One file a commit changes (srctree_patch()). */
struct srctree_file {
	char *path, *old_path; /* old_path: where a renamed file was */
	char status; /* 'A'dded, 'D'eleted, 'M'odified, 'R'enamed, 'T'ype */
	int binary;
	long additions, deletions;
};

/* What a commit changes against its first parent. */
struct srctree_patch {
	char *parent; /* the parent's sha, NULL for a root commit */
	char *author, *email, *message; /* as the commit has them */
	long long date; /* the author's time, seconds since the epoch */
	struct srctree_file *files;
	size_t nfiles;
	long additions, deletions; /* of every file */
	char *diff; /* the unified diff, NUL-terminated */
	size_t len; /* its length */
	int truncated; /* 1 when the diff was cut at MAX bytes */
};

/*
 * The change commit REV of the repository REPO_PATH makes against its
 * first parent (the empty tree for a root commit), renames found as git
 * finds them: its files with their line counts (the diffstat), and its
 * unified diff up to MAX bytes (cut at a line, *truncated said).
 * Returns 0, or -1 (reported, naming the commit) with OUT empty; release
 * with srctree_patch_release().
 */
int srctree_patch(struct srctree_patch *out, const char *repo_path,
		  const char *rev, size_t max);
void srctree_patch_release(struct srctree_patch *p);

#endif
