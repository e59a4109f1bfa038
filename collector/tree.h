/* SPDX-License-Identifier: MIT */
#ifndef KWARN_TREE_H
#define KWARN_TREE_H

/*
 * tree.c: kernel source trees in the cache, as git repositories made with
 * libgit2, and patch series applied to them as commits.
 *
 * A packaged tarball is unpacked once and imported, every file whatever
 * .gitignore says, as one commit whose id is the same on every machine,
 * into its own repository $KWARN_CACHE/trees/NAME-SHA/git (no .git in the
 * work tree: the kernel's setlocalversion would see it).  Every upload of
 * a tarball NAME shares one work tree, $KWARN_CACHE/trees/NAME/src: a new
 * upload is checked out over the one before, writing only the files that
 * differ, so that its paths (and with them the compiler cache's keys) and
 * its build directories stay those of the name, and make rebuilds only
 * what the upload changed.  A cache made before the work tree was shared
 * keeps the work tree of the name's first upload (trees/NAME.worktree
 * names it).  An unpacked directory and a --repo tree have a work tree
 * each (KEY/src).  Patches become commits with the author and date of
 * their mail headers.
 */

#include <git2.h>

struct tree {
	char *name; /* "linux-source-6.1" */
	char *version; /* "6.1.192", from the tree's Makefile */
	char *kind; /* tarball, dir, repo */
	char *source; /* the tarball, directory or repository */
	char *sha256; /* of the tarball, else NULL */
	char *dir; /* the cache directory of this tree */
	char *work; /* the cache directory of its work tree (a tarball's:
		       shared by every upload of the name) */
	char *src; /* its work tree, WORK/src */
	git_repository *repo;
	git_repository *user; /* a --repo tree: the user's, for names */
	git_oid base; /* the imported commit */
	git_oid head; /* what the work tree holds now */
	int have_head;
	int lockfd; /* held while we use the work tree */
};

/*
 * Import SPEC (a linux-source tarball or an unpacked directory) into the
 * cache, or open the import made earlier.  Returns 0 with a new tree in
 * *out (free with tree_free()), or -1 with the cause reported ("'X' is not
 * a kernel tree", "cannot unpack ...").
 */
int tree_import(struct tree **out, const char *spec);

/*
 * Open the import made earlier of the tarball NAME with checksum SHA256,
 * once read from SOURCE, without the tarball itself (it may have been
 * replaced by a newer upload since).  Returns 0 with a new tree in *out,
 * or -1 ("... is no longer in the cache").
 */
int tree_open_cached(struct tree **out, const char *name, const char *source,
		     const char *sha256);

/*
 * Open the user's git repository PATH and use it as the tree, with a work
 * tree of our own in the cache.  Resolves BASE into *base_out.
 */
int tree_open_repo(struct tree **out, const char *path);

void tree_free(struct tree *t);

/*
 * Make the work tree hold commit TO, writing only the files that differ
 * from what it holds now, so that make rebuilds only what depends on them.
 * Returns 0 or -1 (reported).
 */
int tree_checkout(struct tree *t, const git_oid *to);

/* A patch mail: headers and body of a `git format-patch` file. */
struct patch_mail {
	char *author_name, *author_email;
	long long date; /* Unix time */
	int tz_minutes; /* offset from UTC */
	char *subject; /* without "[PATCH ...]" */
	char *message; /* subject, blank line, body (up to "---") */
};

/* Parse the mail headers of PATH.  Returns 0 or -1 (reported). */
int patch_mail_read(struct patch_mail *out, const char *text);
void patch_mail_release(struct patch_mail *m);
/*
 * The Message-Id of the patch mail TEXT (its headers, as git format-patch
 * or a mail archive gives them), without its <>, as a new string; NULL
 * when it has none (a quilt patch of a diff alone).  Quiet.
 */
char *patch_message_id(const char *text);

/*
 * Apply the patch file PATH on top of commit PARENT as a new commit,
 * written into *out; *changed_out gets a new JSON text of the lines it
 * adds ({"file": [[first, last], ...]}), caller frees.  On failure returns
 * -1 with *err_out a new string saying which file and hunk failed (also
 * reported); nothing is committed.
 */
int tree_apply_patch(git_oid *out, char **changed_out, char **err_out,
		     struct tree *t, const git_oid *parent, const char *path,
		     struct patch_mail *mail);

/*
 * The commits BASE..TIP of the tree's repository, oldest first along the
 * first parents, into a new array *out of *nr_out ids (BASE included as
 * the first).  Returns 0 or -1.
 */
int tree_range(git_oid **out, size_t *nr_out, struct tree *t,
	       const char *range);

/* The files a commit changes against its first parent, as a JSON text
   of added line ranges (like tree_apply_patch's). */
int tree_commit_changes(char **changed_out, struct tree *t,
			const git_oid *commit);

/* Report libgit2's last error as "WHAT: message"; returns -1. */
int git_fail(const char *what);

#endif
