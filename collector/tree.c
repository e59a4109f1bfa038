// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tree.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

int git_fail(const char *what)
{
	const git_error *e = git_error_last();

	return error("%s: %s", what, e && e->message ? e->message : "unknown");
}

static void tree_init_lib(void)
{
	static int done;

	if (!done) {
		git_libgit2_init();
		/* the cache is ours: skip fsync and ownership checks */
		git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 0);
		git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
		done = 1;
	}
}

/*
 * Take the lock of the cache entry DIR (DIR.lock beside it): one kwarn at a
 * time checks out into a work tree.  Waits, saying so, when another holds
 * it.  Returns the descriptor, or -1 (reported).
 */
static int tree_lock(const char *dir)
{
	char *path = xstrfmt("%s.lock", dir), *parent = xstrdup(dir), *slash;
	int fd = -1;

	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	if (util_mkdir_p(parent))
		goto out;
	if (util_lock(&fd, path, 1))
		fd = -1;
	/*
	 * Every child inherits the lock: the compilers that make started
	 * outlive a kwarn killed with -9 (make dies with kwarn, its
	 * recipes do not), and the next kwarn must not check out files
	 * under them, nor take their build directory, until they are done.
	 */
	if (fd >= 0 && fcntl(fd, F_SETFD, 0))
		warning("cannot pass the lock '%s' to the build: %s", path,
			strerror(errno));
out:
	free(path);
	free(parent);
	return fd;
}

void tree_free(struct tree *t)
{
	if (!t)
		return;
	if (t->lockfd > 0)
		close(t->lockfd);
	git_repository_free(t->repo);
	git_repository_free(t->user);
	free(t->name);
	free(t->version);
	free(t->kind);
	free(t->source);
	free(t->sha256);
	free(t->dir);
	free(t->work);
	free(t->src);
	free(t);
}

/* "6.1.192" from the tree's top Makefile; NULL if it is not a kernel. */
/* "6.1.192" from the text of a kernel's top Makefile, or NULL. */
static char *kernel_version_text(const char *buf)
{
	long v[3] = { -1, -1, -1 };
	static const char *const keys[] = { "VERSION = ", "PATCHLEVEL = ",
					    "SUBLEVEL = " };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *p = strstr(buf, keys[i]);

		if (p && (p == buf || p[-1] == '\n'))
			v[i] = strtol(p + strlen(keys[i]), NULL, 10);
	}
	if (v[0] < 0 || v[1] < 0)
		return NULL;
	return v[2] > 0 ? xstrfmt("%ld.%ld.%ld", v[0], v[1], v[2]) :
			  xstrfmt("%ld.%ld", v[0], v[1]);
}

static char *kernel_version(const char *src)
{
	char *path = xstrfmt("%s/Makefile", src), *buf = NULL, *ver = NULL;

	if (!access(path, R_OK) &&
	    !util_read_file(&buf, NULL, path, CAP_SMALL_FILE))
		ver = kernel_version_text(buf);
	free(path);
	free(buf);
	return ver;
}

/* The version in the top Makefile of commit OID, or NULL. */
static char *commit_version(git_repository *repo, const git_oid *oid)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *text, *ver = NULL;

	if (!git_commit_lookup(&c, repo, oid) && !git_commit_tree(&tree, c) &&
	    !git_tree_entry_bypath(&e, tree, "Makefile") &&
	    !git_blob_lookup(&blob, repo, git_tree_entry_id(e))) {
		text = xstrndup(git_blob_rawcontent(blob),
				(size_t)git_blob_rawsize(blob));
		ver = kernel_version_text(text);
		free(text);
	}
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(c);
	return ver;
}

static int is_kernel_tree(const char *src)
{
	char *a = xstrfmt("%s/scripts/kconfig/merge_config.sh", src);
	char *b = xstrfmt("%s/arch/x86/Makefile", src);
	int ok = !access(a, R_OK) && !access(b, R_OK);

	free(a);
	free(b);
	return ok;
}

/* The tree name from a tarball path: "linux-source-6.1". */
static char *name_from_tarball(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = xstrdup(base ? base + 1 : path), *dot;

	dot = strstr(name, ".tar");
	if (dot)
		*dot = '\0';
	return name;
}

/* The single directory that a tarball unpacked into DIR, or DIR itself. */
static char *unpacked_root(const char *dir)
{
	char *found = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return xstrdup(dir);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		free(found);
		found = xstrfmt("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n == 1 && util_is_dir(found))
		return found;
	free(found);
	return xstrdup(dir);
}

static int write_oid_file(const char *path, const git_oid *oid)
{
	char hex[GIT_OID_HEXSZ + 2];

	git_oid_tostr(hex, sizeof(hex), oid);
	hex[GIT_OID_HEXSZ] = '\n';
	return util_write_file(path, hex, GIT_OID_HEXSZ + 1);
}

static int read_oid_file(git_oid *out, const char *path)
{
	char *buf = NULL;
	int ret = -1;

	if (access(path, R_OK))
		return -1;
	if (util_read_file(&buf, NULL, path, 4096))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	if (!git_oid_fromstr(out, buf))
		ret = 0;
	free(buf);
	return ret;
}

/*
 * Add every file under DIR/REL to INDEX.  Not git_index_add_all(): with
 * Debian's top-level .gitignore (ignoring everything) it meets ignored directories it
 * cannot add even with GIT_INDEX_ADD_FORCE.
 */
static int add_tree(git_index *index, const char *dir, const char *rel)
{
	char *path = xstrfmt("%s%s%s", dir, *rel ? "/" : "", rel);
	DIR *d = opendir(path);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
		free(path);
		return ret;
	}
	while (!ret && (de = readdir(d)) != NULL) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!*rel && !strcmp(de->d_name, ".git")))
			continue;
		sub = *rel ? xstrfmt("%s/%s", rel, de->d_name) :
			     xstrdup(de->d_name);
		if (de->d_type == DT_DIR)
			ret = add_tree(index, dir, sub);
		else if (git_index_add_bypath(index, sub))
			ret = git_fail(sub);
		free(sub);
	}
	closedir(d);
	free(path);
	return ret;
}

/* Import the files under FILES (T's work tree, or an upload's unpacked
   files) as T's base commit. */
static int import_worktree(struct tree *t, const char *files)
{
	git_repository_init_options opts;
	git_index *index = NULL;
	git_tree *gtree = NULL;
	git_signature *sig = NULL;
	git_oid tree_oid;
	char *gitdir = xstrfmt("%s/git", t->dir), *mk = NULL, *msg = NULL;
	char *dotgit = NULL;
	struct stat st;
	int ret = -1;

	git_repository_init_options_init(&opts,
					 GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_MKPATH |
		     GIT_REPOSITORY_INIT_NO_DOTGIT_DIR;
	opts.workdir_path = files;
	if (git_repository_init_ext(&t->repo, gitdir, &opts)) {
		git_fail("cannot create repository");
		goto out;
	}
	/* no gitlink in the tree: the kernel's setlocalversion would see it */
	unlink(dotgit = xstrfmt("%s/.git", files));
	if (git_repository_index(&index, t->repo) ||
	    add_tree(index, files, "") || git_index_write(index) ||
	    git_index_write_tree(&tree_oid, index)) {
		git_fail("cannot import the tree");
		goto out;
	}
	/* a fixed author and the date of the tree's Makefile: same id
	   on every machine */
	mk = xstrfmt("%s/Makefile", files);
	if (stat(mk, &st))
		st.st_mtime = 0;
	msg = xstrfmt("Import %s %s\n", t->name, t->version ? t->version : "");
	if (git_signature_new(&sig, "kwarn", "kwarn@localhost",
			      (git_time_t)st.st_mtime, 0) ||
	    git_tree_lookup(&gtree, t->repo, &tree_oid) ||
	    git_commit_create_v(&t->base, t->repo, NULL, sig, sig, NULL, msg,
				gtree, 0) ||
	    git_repository_set_head_detached(t->repo, &t->base)) {
		git_fail("cannot commit the imported tree");
		goto out;
	}
	t->head = t->base;
	t->have_head = 1;
	ret = 0;
out:
	git_index_free(index);
	git_tree_free(gtree);
	git_signature_free(sig);
	free(gitdir);
	free(mk);
	free(msg);
	free(dotgit);
	return ret;
}

static int open_cached(struct tree *t, const char *marker)
{
	char *gitdir = xstrfmt("%s/git", t->dir);
	int ret = -1;

	if (read_oid_file(&t->base, marker))
		goto out;
	/* bare: its work tree is ours to say, whatever core.worktree says */
	if (git_repository_open_ext(&t->repo, gitdir,
				    GIT_REPOSITORY_OPEN_NO_SEARCH |
					    GIT_REPOSITORY_OPEN_BARE,
				    NULL)) {
		git_fail("cannot open the cached tree");
		goto out;
	}
	if (git_repository_set_workdir(t->repo, t->src, 0)) {
		git_fail("cannot set the work tree");
		goto out;
	}
	{
		git_reference *head = NULL;

		if (!git_repository_head(&head, t->repo)) {
			t->head = *git_reference_target(head);
			t->have_head = 1;
		}
		git_reference_free(head);
	}
	ret = 0;
out:
	free(gitdir);
	return ret;
}

/*
 * A work tree made again from a tarball or directory has its files with
 * the dates the tarball or directory gave them, older than every object
 * of the build directories an earlier work tree left, whatever point those
 * objects were built at: make would keep them, and kwarn would carry their
 * warnings.  Remove the build directories of the work tree entry WORK
 * ($KWARN_CACHE/builds/<entry>-<12 hex digits>): the next build starts
 * from its sources.
 */
static void drop_stale_builds(const char *work)
{
	char *builds = xstrfmt("%s/builds", util_cache_dir());
	const char *entry = strrchr(work, '/') + 1;
	size_t len = strlen(entry);
	struct dirent *de;
	DIR *d = opendir(builds);

	if (!d) {
		free(builds);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		const char *rest = de->d_name + len + 1;
		char *path;

		if (strncmp(de->d_name, entry, len) || de->d_name[len] != '-' ||
		    strlen(rest) != 12 ||
		    strspn(rest, "0123456789abcdef") != 12)
			continue;
		path = xstrfmt("%s/%s", builds, de->d_name);
		if (util_is_dir(path) && util_rm_rf(path))
			warning("cannot remove the stale build directory '%s'",
				path);
		free(path);
	}
	closedir(d);
	free(builds);
}

/* Is the directory entry ENT "NAME-" and 12 hex digits? */
static int is_upload_entry(const char *ent, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(ent, name, len) && ent[len] == '-' &&
	       strlen(ent + len + 1) == 12 &&
	       strspn(ent + len + 1, "0123456789abcdef") == 12;
}

/*
 * The entry (a new string, NULL if none) of the upload of NAME imported
 * first into a cache from before uploads shared a work tree: the one with
 * a work tree of its own and the oldest import.
 */
static char *first_upload(const char *name)
{
	char *trees = xstrfmt("%s/trees", util_cache_dir()), *best = NULL;
	time_t best_t = 0;
	struct dirent *de;
	DIR *d = opendir(trees);

	while (d && (de = readdir(d)) != NULL) {
		char *marker, *src, *kind;
		struct stat st;

		if (!is_upload_entry(de->d_name, name))
			continue;
		marker = xstrfmt("%s/%s/imported", trees, de->d_name);
		src = xstrfmt("%s/%s/src", trees, de->d_name);
		kind = xstrfmt("%s/%s/kind", trees, de->d_name);
		/* a directory tree of the same name is not an upload */
		if (!stat(marker, &st) && util_is_dir(src) &&
		    access(kind, F_OK) && (!best || st.st_mtime < best_t)) {
			free(best);
			best = xstrdup(de->d_name);
			best_t = st.st_mtime;
		}
		free(marker);
		free(src);
		free(kind);
	}
	if (d)
		closedir(d);
	free(trees);
	return best;
}

/*
 * The work tree entry of the tarballs called NAME, a new string:
 * trees/NAME, or in a cache from before uploads shared a work tree, the
 * entry of its first upload, named by trees/NAME.worktree (written here
 * the first time), so that the build directories and the compiler cache
 * of that work tree stay warm.
 */
static char *name_work(const char *name)
{
	const char *cache = util_cache_dir();
	char *ptr = xstrfmt("%s/trees/%s.worktree", cache, name);
	char *buf = NULL, *work = NULL, *old;

	if (!access(ptr, R_OK) &&
	    !util_read_file(&buf, NULL, ptr, CAP_SMALL_FILE)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (is_upload_entry(buf, name))
			work = xstrfmt("%s/trees/%s", cache, buf);
	}
	free(buf);
	if (!work) {
		work = xstrfmt("%s/trees/%s", cache, name);
		if (!util_is_dir(work) && (old = first_upload(name))) {
			/* its own index describes its work tree: the owner */
			char *line = xstrfmt("%s\n", old);
			char *owner = xstrfmt("%s/trees/%s/owner", cache, old);

			if (!util_write_file(owner, line, strlen(line)) &&
			    !util_write_file(ptr, line, strlen(line))) {
				free(work);
				work = xstrfmt("%s/trees/%s", cache, old);
			}
			free(line);
			free(owner);
			free(old);
		}
	}
	free(ptr);
	return work;
}

/* T, a tarball tree NAME-SHA: its entry, and the work tree of NAME. */
static void tarball_paths(struct tree *t, const char *sha256)
{
	t->dir =
		xstrfmt("%s/trees/%s-%.12s", util_cache_dir(), t->name, sha256);
	t->work = name_work(t->name);
	t->src = xstrfmt("%s/src", t->work);
}

/* Say in T's repository that its work tree is T->src. */
static int set_workdir(struct tree *t)
{
	const char *wd = git_repository_workdir(t->repo);
	size_t len = strlen(t->src);
	git_config *cfg = NULL;
	int ret = 0;

	/* not twice to the same: libgit2 1.5 leaks the path it replaces */
	if ((!wd || strncmp(wd, t->src, len) || strcmp(wd + len, "/")) &&
	    git_repository_set_workdir(t->repo, t->src, 0))
		return git_fail("cannot set the work tree");
	if (git_repository_config(&cfg, t->repo) ||
	    git_config_set_string(cfg, "core.worktree", t->src))
		ret = git_fail("cannot set the work tree");
	git_config_free(cfg);
	return ret;
}

/* WORK/owner of T: which upload's index describes the work tree (T's,
   or with ME NULL, none). */
static int set_owner(struct tree *t, const char *me)
{
	char *opath = xstrfmt("%s/owner", t->work), *line = NULL;
	int ret = 0;

	if (me) {
		line = xstrfmt("%s\n", me);
		ret = util_write_file(opath, line, strlen(line));
	} else if (unlink(opath) && errno != ENOENT) {
		ret = error("cannot remove '%s': %s", opath, strerror(errno));
	}
	free(opath);
	free(line);
	return ret;
}

/* WORK/owner: the entry whose index describes the work tree, or NULL. */
static char *read_owner(const struct tree *t)
{
	char *opath = xstrfmt("%s/owner", t->work), *owner = NULL;

	if (!access(opath, R_OK) &&
	    !util_read_file(&owner, NULL, opath, CAP_SMALL_FILE))
		owner[strcspn(owner, "\n")] = '\0';
	free(opath);
	return owner;
}

/* Does WORK/owner name T? */
static int is_owner(const struct tree *t)
{
	char *owner = read_owner(t);
	int ret = owner && !strcmp(owner, strrchr(t->dir, '/') + 1);

	free(owner);
	return ret;
}

/*
 * Make the shared work tree of a tarball tree T hold T's HEAD when
 * another upload of the name (or nothing known) wrote it last; WORK/owner
 * names the upload whose index describes it.  That index, stat data and
 * all, copied as T's own, is the baseline of a checkout that writes only
 * the files that differ between the uploads, with new dates: make then
 * rebuilds what they change and nothing else.  With no such index (the
 * owner gone, a sync cut short), the work tree is written again whole and
 * the name's build directories are dropped.  Returns 0 or -1 (reported).
 */
static int worktree_sync(struct tree *t)
{
	char *owner = read_owner(t), *from = NULL, *to = NULL, *buf = NULL;
	const char *me = strrchr(t->dir, '/') + 1;
	git_index *index = NULL;
	git_commit *commit = NULL;
	git_checkout_options opts;
	size_t len = 0;
	int ret = -1;

	if (owner && !strcmp(owner, me) && util_is_dir(t->src)) {
		ret = 0;
		goto out;
	}
	/* from here until the owner is written, nobody knows the tree */
	if (set_owner(t, NULL))
		goto out;
	to = xstrfmt("%s/git/index", t->dir);
	if (owner && strcmp(owner, me) && !strchr(owner, '/') &&
	    *owner != '.' && util_is_dir(t->src))
		from = xstrfmt("%s/trees/%s/git/index", util_cache_dir(),
			       owner);
	if (from && !access(from, R_OK) &&
	    !util_read_file(&buf, &len, from, CAP_CAPTURE_FILE)) {
		if (util_write_file(to, buf, len))
			goto out;
	} else {
		fprintf(stderr, "kwarn: writing the work tree of %s whole\n",
			t->name);
		if ((util_is_dir(t->src) && util_rm_rf(t->src)) ||
		    util_mkdir_p(t->src))
			goto out;
		if (unlink(to) && errno != ENOENT) {
			error("cannot remove '%s': %s", to, strerror(errno));
			goto out;
		}
		drop_stale_builds(t->work);
	}
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_repository_index(&index, t->repo) || git_index_read(index, 1)) {
		git_fail("cannot read the index");
		goto out;
	}
	opts.baseline_index = index;
	if (git_commit_lookup(&commit, t->repo, &t->head) ||
	    git_checkout_tree(t->repo, (const git_object *)commit, &opts)) {
		error("cannot check out %s into '%s': %s", t->name, t->src,
		      git_error_last() ? git_error_last()->message : "?");
		goto out;
	}
	if (set_owner(t, me))
		goto out;
	ret = 0;
out:
	git_index_free(index);
	git_commit_free(commit);
	free(owner);
	free(from);
	free(to);
	free(buf);
	return ret;
}

/*
 * A tarball tree T opened from its import: its repository on the shared
 * work tree, which it then holds.  An entry from before the work tree was
 * shared loses its own, a copy of the tree to spare.
 */
static int open_tarball(struct tree *t, const char *marker)
{
	char *own = xstrfmt("%s/src", t->dir);
	int ret = -1;

	if (open_cached(t, marker) || set_workdir(t) || worktree_sync(t))
		goto out;
	if (strcmp(own, t->src) && util_is_dir(own) && util_rm_rf(own))
		warning("cannot remove '%s'", own);
	ret = 0;
out:
	free(own);
	return ret;
}

int tree_open_cached(struct tree **out, const char *name, const char *source,
		     const char *sha256)
{
	struct tree *t = xcalloc(1, sizeof(*t));
	char *marker = NULL, *lock = NULL;
	int ret = -1;

	*out = NULL;
	tree_init_lib();
	t->kind = xstrdup("tarball");
	t->name = xstrdup(name);
	t->source = xstrdup(source);
	t->sha256 = xstrdup(sha256);
	tarball_paths(t, sha256);
	marker = xstrfmt("%s/imported", t->dir);
	if (access(marker, R_OK)) {
		error("%s (%.12s) is no longer in the cache '%s'", name, sha256,
		      t->dir);
		goto out;
	}
	/* one lock for the name: its uploads share the work tree */
	lock = xstrfmt("%s/trees/%s", util_cache_dir(), name);
	t->lockfd = tree_lock(lock);
	if (t->lockfd < 0 || open_tarball(t, marker))
		goto out;
	t->version = kernel_version(t->src);
	*out = t;
	t = NULL;
	ret = 0;
out:
	if (t)
		tree_free(t);
	free(marker);
	free(lock);
	return ret;
}

/* Import a directory tree T (kind "dir") into its cache entry. */
static int import_dir(struct tree *t, const char *spec, const char *marker)
{
	char *tmp = xstrfmt("%s/unpack", t->dir), *root = NULL, *kind = NULL;
	const char *argv[] = { "cp", "-a", "--", t->source, tmp, NULL };
	int ret = -1;

	if (util_mkdir_p(tmp))
		goto out;
	if (util_run(argv, NULL, NULL, NULL)) {
		error("cannot copy '%s' into the cache", spec);
		goto out;
	}
	root = unpacked_root(tmp);
	if (!is_kernel_tree(root)) {
		error("'%s' is not a kernel tree", spec);
		goto out;
	}
	if (rename(root, t->src)) {
		error("cannot move '%s': %s", root, strerror(errno));
		goto out;
	}
	rmdir(tmp);
	t->version = kernel_version(t->src);
	kind = xstrfmt("%s/kind", t->dir);
	if (import_worktree(t, t->src) || util_write_file(kind, "dir\n", 4) ||
	    write_oid_file(marker, &t->base))
		goto out;
	drop_stale_builds(t->work);
	ret = 0;
out:
	free(tmp);
	free(root);
	free(kind);
	return ret;
}

/*
 * Import a tarball tree T into its cache entry: unpacked, imported as its
 * own repository, and checked out into the name's work tree, which it
 * becomes when there is none yet.
 */
static int import_tarball(struct tree *t, const char *spec, const char *marker)
{
	char *tmp = xstrfmt("%s/unpack", t->dir), *root = NULL;
	const char *argv[] = { "tar", "-xf", t->source,
			       "-C",  tmp,   "--no-same-owner",
			       NULL };
	int rc, ret = -1;

	if (util_mkdir_p(tmp))
		goto out;
	rc = util_run(argv, NULL, NULL, NULL);
	if (rc) {
		error("cannot unpack '%s' (tar exit %d): truncated or corrupt tarball, or disk full?",
		      spec, rc);
		goto out;
	}
	root = unpacked_root(tmp);
	if (!is_kernel_tree(root)) {
		error("'%s' is not a kernel tree", spec);
		goto out;
	}
	t->version = kernel_version(root);
	if (!util_is_dir(t->src)) {
		/* the name's first upload: its files are the work tree */
		if (set_owner(t, NULL) || util_mkdir_p(t->work))
			goto out;
		if (rename(root, t->src)) {
			error("cannot move '%s' to '%s': %s", root, t->src,
			      strerror(errno));
			goto out;
		}
		drop_stale_builds(t->work);
		if (import_worktree(t, t->src) ||
		    set_owner(t, strrchr(t->dir, '/') + 1))
			goto out;
	} else {
		/* an index that named this upload went with its repository */
		if (is_owner(t) && set_owner(t, NULL))
			goto out;
		if (import_worktree(t, root))
			goto out;
	}
	if (set_workdir(t) || worktree_sync(t) ||
	    write_oid_file(marker, &t->base))
		goto out;
	if (util_rm_rf(tmp))
		warning("cannot remove '%s'", tmp);
	ret = 0;
out:
	free(tmp);
	free(root);
	return ret;
}

int tree_import(struct tree **out, const char *spec)
{
	struct tree *t = xcalloc(1, sizeof(*t));
	char sha[65] = "", *marker = NULL, *lock = NULL;
	struct stat st;
	int ret = -1;

	*out = NULL;
	tree_init_lib();
	if (stat(spec, &st)) {
		error("cannot read tree '%s': %s", spec, strerror(errno));
		goto out;
	}
	t->source = realpath(spec, NULL);
	if (!t->source)
		t->source = xstrdup(spec);
	if (S_ISDIR(st.st_mode)) {
		/* an unpacked tree: keyed by path, copied into the cache */
		if (!is_kernel_tree(spec)) {
			error("'%s' is not a kernel tree", spec);
			goto out;
		}
		t->kind = xstrdup("dir");
		t->name = xstrdup(strrchr(t->source, '/') ?
					  strrchr(t->source, '/') + 1 :
					  t->source);
		util_sha256_hex(sha, t->source, strlen(t->source));
		t->dir = xstrfmt("%s/trees/%s-%.12s", util_cache_dir(), t->name,
				 sha);
		t->work = xstrdup(t->dir);
		t->src = xstrfmt("%s/src", t->dir);
		lock = xstrdup(t->dir);
	} else {
		t->kind = xstrdup("tarball");
		t->name = name_from_tarball(spec);
		if (util_sha256_file(sha, spec))
			goto out;
		t->sha256 = xstrdup(sha);
		/* one lock for the name: its uploads share the work tree */
		lock = xstrfmt("%s/trees/%s", util_cache_dir(), t->name);
	}
	t->lockfd = tree_lock(lock);
	if (t->lockfd < 0)
		goto out;
	if (t->sha256)
		tarball_paths(t, sha); /* under the lock: it may adopt one */
	marker = xstrfmt("%s/imported", t->dir);
	if (!access(marker, R_OK) &&
	    !(t->sha256 ? open_tarball(t, marker) : open_cached(t, marker))) {
		t->version = kernel_version(t->src);
		*out = t;
		t = NULL;
		ret = 0;
		goto out;
	}
	git_repository_free(t->repo);
	t->repo = NULL;
	/* (re)build the cache entry from scratch */
	if (strcmp(t->dir, t->work)) {
		if (util_is_dir(t->dir) && util_rm_rf(t->dir))
			goto out;
	} else if (!t->sha256) {
		if (util_is_dir(t->dir) && util_rm_rf(t->dir))
			goto out;
	} else {
		/* the entry whose work tree the name adopted: keep that */
		char *git = xstrfmt("%s/git", t->dir),
		     *unpack = xstrfmt("%s/unpack", t->dir);
		int bad = (util_is_dir(git) && util_rm_rf(git)) ||
			  (util_is_dir(unpack) && util_rm_rf(unpack));

		free(git);
		free(unpack);
		if (bad)
			goto out;
	}
	if (t->sha256 ? import_tarball(t, spec, marker) :
			import_dir(t, spec, marker))
		goto out;
	*out = t;
	t = NULL;
	ret = 0;
out:
	if (t && t->dir && ret) {
		/* never leave a half import behind */
		if (!t->sha256 || strcmp(t->dir, t->work ? t->work : "")) {
			util_rm_rf(t->dir);
		} else {
			char *git = xstrfmt("%s/git", t->dir);

			util_rm_rf(git);
			free(git);
		}
	}
	tree_free(t);
	free(marker);
	free(lock);
	return ret;
}

int tree_open_repo(struct tree **out, const char *path)
{
	struct tree *t = xcalloc(1, sizeof(*t));
	git_repository *user = NULL;
	git_repository_init_options opts;
	char sha[65], *gitdir = NULL, *alt = NULL, *altdir = NULL;
	char *altfile = NULL;
	const char *objdir;
	int ret = -1;

	*out = NULL;
	tree_init_lib();
	if (git_repository_open_ext(&user, path, 0, NULL)) {
		git_fail("cannot open repository");
		goto out;
	}
	t->kind = xstrdup("repo");
	t->source = realpath(path, NULL);
	if (!t->source)
		t->source = xstrdup(path);
	t->name = xstrdup(strrchr(t->source, '/') ?
				  strrchr(t->source, '/') + 1 :
				  t->source);
	util_sha256_hex(sha, t->source, strlen(t->source));
	t->dir = xstrfmt("%s/trees/repo-%s-%.12s", util_cache_dir(), t->name,
			 sha);
	t->work = xstrdup(t->dir);
	t->src = xstrfmt("%s/src", t->dir);
	gitdir = xstrfmt("%s/git", t->dir);
	t->lockfd = tree_lock(t->dir);
	if (t->lockfd < 0 || util_mkdir_p(t->src))
		goto out;
	git_repository_init_options_init(&opts,
					 GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_MKPATH |
		     GIT_REPOSITORY_INIT_NO_DOTGIT_DIR;
	opts.workdir_path = t->src;
	if (git_repository_init_ext(&t->repo, gitdir, &opts)) {
		git_fail("cannot create repository");
		goto out;
	}
	/* borrow the user's objects: nothing is copied */
	objdir = git_repository_commondir(user);
	altdir = xstrfmt("%s/objects/info", gitdir);
	alt = xstrfmt("%sobjects\n", objdir);
	altfile = xstrfmt("%s/alternates", altdir);
	if (util_mkdir_p(altdir) || util_write_file(altfile, alt, strlen(alt)))
		goto out;
	git_repository_free(t->repo);
	t->repo = NULL;
	if (git_repository_open_ext(&t->repo, gitdir,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) ||
	    git_repository_set_workdir(t->repo, t->src, 0)) {
		git_fail("cannot open the cached repository");
		goto out;
	}
	{
		git_reference *head = NULL;

		if (!git_repository_head(&head, t->repo)) {
			t->head = *git_reference_target(head);
			t->have_head = 1;
		}
		git_reference_free(head);
	}
	/* branch and tag names are the user's: keep it to resolve them */
	t->user = user;
	user = NULL;
	*out = t;
	t = NULL;
	ret = 0;
out:
	git_repository_free(user);
	tree_free(t);
	free(gitdir);
	free(alt);
	free(altdir);
	free(altfile);
	return ret;
}

int tree_checkout(struct tree *t, const git_oid *to)
{
	git_checkout_options opts;
	git_commit *commit = NULL;
	git_index *index = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	int ret = -1;

	git_oid_tostr(hex, sizeof(hex), to);
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_commit_lookup(&commit, t->repo, to)) {
		git_fail(hex);
		goto out;
	}
	{
		/*
		 * The commit the work tree holds may be gone (a --repo branch
		 * rewritten, its objects pruned): then the index, which
		 * names what was checked out, is the baseline, not HEAD.
		 */
		git_object *head = NULL;

		if (git_revparse_single(&head, t->repo, "HEAD^{commit}") &&
		    !git_repository_index(&index, t->repo))
			opts.baseline_index = index;
		git_object_free(head);
	}
	if (git_checkout_tree(t->repo, (const git_object *)commit, &opts) ||
	    git_repository_set_head_detached(t->repo, to)) {
		error("cannot check out %s into '%s': %s", hex, t->src,
		      git_error_last() ? git_error_last()->message : "?");
		goto out;
	}
	t->head = *to;
	t->have_head = 1;
	ret = 0;
out:
	git_index_free(index);
	git_commit_free(commit);
	return ret;
}

void patch_mail_release(struct patch_mail *m)
{
	free(m->author_name);
	free(m->author_email);
	free(m->subject);
	free(m->message);
	memset(m, 0, sizeof(*m));
}

/* A header's value, with folded continuation lines joined. */
static char *header(const char *text, const char *name)
{
	size_t nl = strlen(name);
	const char *p = text;
	struct strbuf sb = STRBUF_INIT;

	while (*p && *p != '\n') {
		const char *eol = strchr(p, '\n');

		if (!eol)
			eol = p + strlen(p);
		if (!strncasecmp(p, name, nl) && p[nl] == ':') {
			const char *v = p + nl + 1;

			while (*v == ' ')
				v++;
			strbuf_add(&sb, v, (size_t)(eol - v));
			p = *eol ? eol + 1 : eol;
			while (*p == ' ' || *p == '\t') {
				eol = strchr(p, '\n');
				if (!eol)
					eol = p + strlen(p);
				while (*p == ' ' || *p == '\t')
					p++;
				strbuf_addch(&sb, ' ');
				strbuf_add(&sb, p, (size_t)(eol - p));
				p = *eol ? eol + 1 : eol;
			}
			return strbuf_detach(&sb, NULL);
		}
		p = *eol ? eol + 1 : eol;
	}
	return NULL;
}

char *patch_message_id(const char *text)
{
	char *v, *id = NULL;
	const char *p, *end;

	if (!strncmp(text, "From ", 5) && strchr(text, '\n'))
		text = strchr(text, '\n') + 1;
	v = header(text, "Message-Id");
	if (!v)
		return NULL;
	p = v + strspn(v, " \t<");
	end = p + strcspn(p, "> \t");
	/* the id alone: no space or bracket, whatever follows it */
	if (end > p)
		id = xstrndup(p, (size_t)(end - p));
	free(v);
	return id;
}

int patch_mail_read(struct patch_mail *out, const char *text)
{
	char *from = NULL, *date = NULL, *subj = NULL, *lt;
	const char *body, *end, *s;
	struct strbuf msg = STRBUF_INIT;
	struct tm tm;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	/* skip the mbox "From <sha> <date>" line */
	if (!strncmp(text, "From ", 5) && strchr(text, '\n'))
		text = strchr(text, '\n') + 1;
	from = header(text, "From");
	date = header(text, "Date");
	subj = header(text, "Subject");
	if (!from || !date || !subj) {
		error("not a git format-patch mail: missing %s header",
		      !from ? "From" :
		      !date ? "Date" :
			      "Subject");
		goto out;
	}
	lt = strchr(from, '<');
	if (lt && strchr(lt, '>')) {
		char *n_end = lt;

		while (n_end > from && n_end[-1] == ' ')
			n_end--;
		out->author_name = xstrndup(from, (size_t)(n_end - from));
		out->author_email =
			xstrndup(lt + 1, (size_t)(strchr(lt, '>') - lt - 1));
	} else {
		out->author_name = xstrdup(from);
		out->author_email = xstrdup("");
	}
	memset(&tm, 0, sizeof(tm));
	if (!strptime(date, "%a, %d %b %Y %H:%M:%S %z", &tm) &&
	    !strptime(date, "%d %b %Y %H:%M:%S %z", &tm)) {
		error("cannot read the patch date '%s'", date);
		goto out;
	}
	out->tz_minutes = (int)(tm.tm_gmtoff / 60);
	out->date = (long long)timegm(&tm) - tm.tm_gmtoff;
	s = subj;
	if (*s == '[' && strchr(s, ']')) {
		s = strchr(s, ']') + 1;
		while (*s == ' ')
			s++;
	}
	out->subject = xstrdup(s);
	/* the body: after the blank line that ends the headers, up to --- */
	body = strstr(text, "\n\n");
	body = body ? body + 2 : text + strlen(text);
	end = strstr(body, "\n---\n");
	if (!end)
		end = strstr(body, "\ndiff --git ");
	if (!end)
		end = body + strlen(body);
	strbuf_addstr(&msg, out->subject);
	strbuf_addch(&msg, '\n');
	while (body < end && *body == '\n')
		body++;
	if (body < end) {
		strbuf_addch(&msg, '\n');
		strbuf_add(&msg, body, (size_t)(end - body));
		strbuf_addch(&msg, '\n');
	}
	out->message = strbuf_detach(&msg, NULL);
	ret = 0;
out:
	if (ret)
		patch_mail_release(out);
	free(from);
	free(date);
	free(subj);
	return ret;
}

/* Added-line ranges of DIFF as JSON text. */
static char *changes_json(git_diff *diff)
{
	json_t *obj = json_object();
	size_t nd = git_diff_num_deltas(diff);
	char *text;

	for (size_t i = 0; i < nd; i++) {
		git_patch *patch = NULL;
		json_t *ranges = json_array();
		long first = -1, last = -1;
		const git_diff_delta *delta;

		if (git_patch_from_diff(&patch, diff, i) || !patch) {
			json_decref(ranges);
			continue;
		}
		delta = git_patch_get_delta(patch);
		for (size_t h = 0; h < git_patch_num_hunks(patch); h++) {
			int nl = git_patch_num_lines_in_hunk(patch, h);

			for (int l = 0; l < nl; l++) {
				const git_diff_line *line = NULL;

				if (git_patch_get_line_in_hunk(&line, patch, h,
							       (size_t)l) ||
				    line->origin != GIT_DIFF_LINE_ADDITION)
					continue;
				if (first >= 0 &&
				    line->new_lineno == last + 1) {
					last = line->new_lineno;
					continue;
				}
				if (first >= 0)
					json_array_append_new(
						ranges,
						json_pack("[II]",
							  (json_int_t)first,
							  (json_int_t)last));
				first = last = line->new_lineno;
			}
		}
		if (first >= 0)
			json_array_append_new(
				ranges, json_pack("[II]", (json_int_t)first,
						  (json_int_t)last));
		if (delta->new_file.path && json_array_size(ranges))
			json_object_set_new(obj, delta->new_file.path, ranges);
		else
			json_decref(ranges);
		git_patch_free(patch);
	}
	text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(obj);
	return text;
}

int tree_apply_patch(git_oid *out, char **changed_out, char **err_out,
		     struct tree *t, const git_oid *parent, const char *path,
		     struct patch_mail *mail)
{
	git_commit *pc = NULL;
	git_tree *ptree = NULL, *ntree = NULL;
	git_diff *diff = NULL;
	git_index *index = NULL;
	git_signature *sig = NULL;
	git_oid tree_oid;
	char *text = NULL, *start, *sigline;
	size_t len;
	int ret = -1;

	*err_out = NULL;
	*changed_out = NULL;
	if (util_read_file(&text, &len, path, CAP_TREE_FILE)) {
		*err_out = xstrfmt("cannot read '%s'", path);
		return -1;
	}
	if (patch_mail_read(mail, text)) {
		*err_out = xstrfmt("'%s' is not a git format-patch file", path);
		goto out;
	}
	start = strstr(text, "\ndiff --git ");
	if (!start) {
		*err_out = xstrfmt("'%s' has no diff", path);
		error("%s", *err_out);
		goto out;
	}
	start++;
	/* drop the "-- \n2.39.5" signature that format-patch appends */
	sigline = strstr(start, "\n-- \n");
	if (sigline)
		sigline[1] = '\0';
	if (git_diff_from_buffer(&diff, start, strlen(start))) {
		*err_out = xstrfmt("cannot parse '%s': %s", path,
				   git_error_last()->message);
		error("%s", *err_out);
		goto out;
	}
	if (git_commit_lookup(&pc, t->repo, parent) ||
	    git_commit_tree(&ptree, pc)) {
		*err_out = xstrfmt("cannot read the parent commit");
		git_fail(*err_out);
		goto out;
	}
	if (git_apply_to_tree(&index, t->repo, ptree, diff, NULL)) {
		*err_out = xstrfmt(
			"patch '%s' does not apply: %s", path,
			git_error_last() ? git_error_last()->message : "?");
		error("%s", *err_out);
		goto out;
	}
	if (git_index_write_tree_to(&tree_oid, index, t->repo) ||
	    git_tree_lookup(&ntree, t->repo, &tree_oid) ||
	    git_signature_new(&sig, mail->author_name, mail->author_email,
			      (git_time_t)mail->date, mail->tz_minutes) ||
	    git_commit_create_v(out, t->repo, NULL, sig, sig, NULL,
				mail->message, ntree, 1, pc)) {
		*err_out = xstrfmt("cannot commit '%s'", path);
		git_fail(*err_out);
		goto out;
	}
	*changed_out = changes_json(diff);
	ret = 0;
out:
	git_commit_free(pc);
	git_tree_free(ptree);
	git_tree_free(ntree);
	git_diff_free(diff);
	git_index_free(index);
	git_signature_free(sig);
	free(text);
	return ret;
}

int tree_commit_changes(char **changed_out, struct tree *t,
			const git_oid *commit)
{
	git_commit *c = NULL, *p = NULL;
	git_tree *ct = NULL, *pt = NULL;
	git_diff *diff = NULL;
	int ret = -1;

	*changed_out = NULL;
	if (git_commit_lookup(&c, t->repo, commit) || git_commit_tree(&ct, c))
		goto fail;
	if (git_commit_parentcount(c) &&
	    (git_commit_parent(&p, c, 0) || git_commit_tree(&pt, p)))
		goto fail;
	if (git_diff_tree_to_tree(&diff, t->repo, pt, ct, NULL))
		goto fail;
	*changed_out = changes_json(diff);
	ret = 0;
	goto out;
fail:
	git_fail("cannot diff commit");
out:
	git_diff_free(diff);
	git_tree_free(ct);
	git_tree_free(pt);
	git_commit_free(c);
	git_commit_free(p);
	return ret;
}

int tree_range(git_oid **out, size_t *nr_out, struct tree *t, const char *range)
{
	/* names (branches, tags) live in the user's repository, if any */
	git_repository *names = t->user ? t->user : t->repo;
	git_revwalk *walk = NULL;
	git_object *base = NULL, *tip = NULL;
	char *dots = strstr(range, ".."), *b = NULL;
	git_oid oid, *list = NULL;
	size_t n = 1;
	int ret = -1;

	*out = NULL;
	*nr_out = 0;
	if (!dots) {
		return error("range '%s' is not BASE..TIP", range);
	}
	b = xstrndup(range, (size_t)(dots - range));
	if (git_revparse_single(&base, names, b)) {
		git_fail(b);
		goto out;
	}
	if (git_revparse_single(&tip, names, dots + 2)) {
		git_fail(dots + 2);
		goto out;
	}
	if (git_revwalk_new(&walk, t->repo) ||
	    git_revwalk_push(walk, git_object_id(tip)) ||
	    git_revwalk_hide(walk, git_object_id(base))) {
		git_fail(range);
		goto out;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	git_revwalk_simplify_first_parent(walk);
	list = xmalloc(sizeof(*list));
	git_oid_cpy(&list[0], git_object_id(base));
	while (!git_revwalk_next(&oid, walk)) {
		list = xrealloc(list, (n + 1) * sizeof(*list));
		git_oid_cpy(&list[n++], &oid);
	}
	if (t->user) {
		/* a branch's version is its tip's */
		char *v = commit_version(t->repo, &list[n - 1]);

		if (v) {
			free(t->version);
			t->version = v;
		}
	}
	*out = list;
	*nr_out = n;
	list = NULL;
	ret = 0;
out:
	free(list);
	free(b);
	git_object_free(base);
	git_object_free(tip);
	git_revwalk_free(walk);
	return ret;
}
