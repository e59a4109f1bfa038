// SPDX-License-Identifier: MIT
/*
 * Reading a tree: the *.c and *.h files of a directory or of a commit of
 * a git repository (libgit2), one file at a commit, and where the
 * collector keeps the git repository of a stored tree.  The cache scheme
 * is tree.c's (tree_import(), tree_open_repo()); it is repeated here from
 * the database row alone, so that readers (kwarn census, kwarn classify,
 * the server) need no struct tree and take no lock.
 */
#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "query.h"
#include "srctree.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

struct git_walk_ctx {
	struct srctree_walk *w;
	git_repository *repo;
	int ret;
	const char *base; /* path of the walked subtree, "" or "dir/" */
};

void srctree_skip_file(struct srctree_walk *w, const char *path,
		       const char *why)
{
	if (w->nskips == w->askips) {
		w->askips = w->askips ? 2 * w->askips : 8;
		w->skips = xrealloc(w->skips, w->askips * sizeof(*w->skips));
	}
	w->skips[w->nskips].path = xstrdup(path);
	w->skips[w->nskips++].why = why;
}

void srctree_walk_release(struct srctree_walk *w)
{
	for (size_t i = 0; i < w->nskips; i++)
		free(w->skips[i].path);
	free(w->skips);
}

static int is_c_name(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 2] == '.' &&
	       (name[n - 1] == 'c' || name[n - 1] == 'h');
}

/* Not C: a NUL byte in the first 8 KiB, as git and grep decide. */
static int looks_binary(const char *buf, size_t len)
{
	return memchr(buf, '\0', len < 8192 ? len : 8192) != NULL;
}

static int walk_one(struct srctree_walk *w, const char *rel, const char *buf,
		    size_t len)
{
	if (len > CAP_SOURCE_FILE) {
		srctree_skip_file(w, rel, "too large");
		return 0;
	}
	if (looks_binary(buf, len)) {
		srctree_skip_file(w, rel, "binary, not C");
		return 0;
	}
	w->files++;
	return w->fn(w->ctx, rel, buf, len);
}

static int walk_dir(struct srctree_walk *w, const char *root, const char *rel)
{
	char *dir = *rel ? xstrfmt("%s/%s", root, rel) : xstrdup(root);
	struct dirent **ents = NULL;
	int n, i, ret = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		/* the tree itself must be readable; below it, a note */
		if (*rel)
			srctree_skip_file(w, rel, "unreadable directory");
		else
			ret = error("cannot read directory '%s': %s", dir,
				    strerror(errno));
		free(dir);
		return ret;
	}
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *sub, *full;
		struct stat st;

		if (!strcmp(name, ".") || !strcmp(name, "..") ||
		    !strcmp(name, ".git") || ret) {
			free(ents[i]);
			continue;
		}
		sub = *rel ? xstrfmt("%s/%s", rel, name) : xstrdup(name);
		full = xstrfmt("%s/%s", root, sub);
		if (lstat(full, &st)) {
			srctree_skip_file(w, sub, "cannot stat");
		} else if (S_ISDIR(st.st_mode)) {
			ret = walk_dir(w, root, sub);
		} else if (S_ISREG(st.st_mode) && is_c_name(name)) {
			char *buf = NULL;
			size_t len = 0;

			if (st.st_size > (off_t)CAP_SOURCE_FILE)
				srctree_skip_file(w, sub, "too large");
			else if (util_read_file(&buf, &len, full,
						CAP_SOURCE_FILE))
				srctree_skip_file(w, sub, "unreadable");
			else
				ret = walk_one(w, sub, buf, len);
			free(buf);
		}
		free(sub);
		free(full);
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return ret;
}

/* Walk PATH: a directory tree, or a single file. */
int srctree_walk_path(struct srctree_walk *w, const char *path)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (stat(path, &st))
		return error("cannot open '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return walk_dir(w, path, "");
	if (util_read_file(&buf, &len, path, CAP_SOURCE_FILE))
		return -1;
	ret = walk_one(w, path, buf, len);
	free(buf);
	return ret;
}

static int git_walk_cb(const char *root, const git_tree_entry *e, void *p)
{
	struct git_walk_ctx *g = p;
	const char *name = git_tree_entry_name(e);
	git_blob *blob = NULL;
	char *rel;

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || !is_c_name(name))
		return 0;
	rel = xstrfmt("%s%s%s", g->base, root, name);
	if (git_blob_lookup(&blob, g->repo, git_tree_entry_id(e))) {
		srctree_skip_file(g->w, rel, "cannot read blob");
	} else {
		git_object_size_t sz = git_blob_rawsize(blob);

		if (sz > CAP_SOURCE_FILE)
			srctree_skip_file(g->w, rel, "too large");
		else if (walk_one(g->w, rel, git_blob_rawcontent(blob),
				  (size_t)sz))
			g->ret = -1;
	}
	git_blob_free(blob);
	free(rel);
	return g->ret ? -1 : 0;
}

static int open_commit_tree(git_repository **repo_out, git_tree **tree_out,
			    const char *repo_path, const char *rev)
{
	git_object *obj = NULL;
	int ret = 0;

	git_libgit2_init();
	if (git_repository_open_ext(repo_out, repo_path, 0, NULL)) {
		*repo_out = NULL;
		return error("cannot open repository '%s': %s", repo_path,
			     git_error_last() ? git_error_last()->message :
						"?");
	}
	if (git_revparse_single(&obj, *repo_out, rev) ||
	    git_object_peel((git_object **)tree_out, obj, GIT_OBJECT_TREE)) {
		ret = error("unknown commit '%s' in '%s'", rev, repo_path);
		git_repository_free(*repo_out);
		*repo_out = NULL;
	}
	git_object_free(obj);
	return ret;
}

/*
 * Walk the *.c and *.h files of commit REV of the repository REPO_PATH,
 * below PREFIX (a directory or a file of the tree) if not NULL or "".
 */
int srctree_walk_git(struct srctree_walk *w, const char *repo_path,
		     const char *rev, const char *prefix)
{
	struct git_walk_ctx g = { w, NULL, 0, "" };
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *e = NULL;
	char *path = NULL, *base = NULL, *slash;
	size_t n;

	if (open_commit_tree(&g.repo, &tree, repo_path, rev))
		return -1;
	if (!prefix || !*prefix) {
		if (git_tree_walk(tree, GIT_TREEWALK_PRE, git_walk_cb, &g) &&
		    !g.ret)
			g.ret = error("cannot walk commit '%s'", rev);
		goto out;
	}
	path = xstrdup(prefix);
	n = strlen(path);
	while (n && path[n - 1] == '/')
		path[--n] = '\0';
	if (!n || git_tree_entry_bypath(&e, tree, path)) {
		g.ret = error("no path '%s' at commit '%s'", prefix, rev);
		goto out;
	}
	if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		if (git_tree_lookup(&sub, g.repo, git_tree_entry_id(e))) {
			g.ret = error("cannot read '%s' at commit '%s'", path,
				      rev);
			goto out;
		}
		g.base = base = xstrfmt("%s/", path);
		if (git_tree_walk(sub, GIT_TREEWALK_PRE, git_walk_cb, &g) &&
		    !g.ret)
			g.ret = error("cannot walk '%s' at commit '%s'", path,
				      rev);
	} else {
		/* one file: the callback wants its directory as the root */
		slash = strrchr(path, '/');
		base = slash ? xstrndup(path, (size_t)(slash - path) + 1) :
			       xstrdup("");
		git_walk_cb(base, e, &g);
	}
out:
	git_tree_entry_free(e);
	git_tree_free(sub);
	git_tree_free(tree);
	git_repository_free(g.repo);
	free(path);
	free(base);
	return g.ret;
}

/* Read one file of a commit, or of a directory, into *out. */
int srctree_read(char **out, size_t *len, const char *tree_dir,
		 const char *repo_path, const char *rev, const char *file)
{
	git_repository *repo = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int ret = -1;

	*out = NULL;
	if (tree_dir) {
		char *p = xstrfmt("%s/%s", tree_dir, file);

		ret = util_read_file(out, len, p, CAP_SOURCE_FILE);
		free(p);
		return ret;
	}
	if (open_commit_tree(&repo, &tree, repo_path, rev))
		return -1;
	if (git_tree_entry_bypath(&e, tree, file) ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(e))) {
		error("no file '%s' at commit '%s'", file, rev);
		goto out;
	}
	*len = (size_t)git_blob_rawsize(blob);
	*out = xmalloc(*len + 1);
	memcpy(*out, git_blob_rawcontent(blob), *len);
	(*out)[*len] = '\0';
	ret = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_repository_free(repo);
	return ret;
}

char *tree_repo_dir(const char *kind, const char *name, const char *source,
		    const char *sha256)
{
	char sha[65];

	if (!kind || !name || strchr(name, '/') || !strcmp(name, ".."))
		return NULL;
	if (!strcmp(kind, "tarball") && sha256 && strlen(sha256) >= 12)
		return xstrfmt("%s/trees/%s-%.12s/git", util_cache_dir(), name,
			       sha256);
	if ((!strcmp(kind, "dir") || !strcmp(kind, "repo")) && source) {
		util_sha256_hex(sha, source, strlen(source));
		return xstrfmt("%s/trees/%s%s-%.12s/git", util_cache_dir(),
			       strcmp(kind, "repo") ? "" : "repo-", name, sha);
	}
	return NULL;
}

char *tree_repo_path(sqlite3 *db, const char *commit_sha)
{
	struct query_tree t = { 0 };
	char *dir = NULL;

	if (query_commit_tree(&t, db, commit_sha))
		return NULL;
	if (!t.kind || !t.name || strchr(t.name, '/') ||
	    !strcmp(t.name, "..")) {
		error("bad tree of commit '%s'", commit_sha);
		goto out;
	}
	dir = tree_repo_dir(t.kind, t.name, t.source, t.sha256);
	if (!dir) {
		error("the tree '%s' of commit '%s' has no repository (kind "
		      "'%s')",
		      t.name, commit_sha, t.kind);
		goto out;
	}
	if (!util_is_dir(dir)) {
		error("the tree '%s' of commit '%s' is not in the cache: no "
		      "'%s'",
		      t.name, commit_sha, dir);
		free(dir);
		dir = NULL;
	}
out:
	query_tree_release(&t);
	return dir;
}

static const char *git_why(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "?";
}

static char delta_status(git_delta_t s)
{
	switch (s) {
	case GIT_DELTA_ADDED:
		return 'A';
	case GIT_DELTA_DELETED:
		return 'D';
	case GIT_DELTA_RENAMED:
		return 'R';
	case GIT_DELTA_TYPECHANGE:
		return 'T';
	default:
		return 'M';
	}
}

/* Append PATCH's text to OUT->diff, cut at a line past MAX bytes. */
static int patch_text(struct srctree_patch *out, struct strbuf *sb,
		      git_patch *patch, size_t max)
{
	git_buf buf = { 0 };
	const char *nl;
	size_t room;

	if (out->truncated)
		return 0;
	if (git_patch_to_buf(&buf, patch))
		return -1;
	room = max > sb->len ? max - sb->len : 0;
	if (buf.size <= room) {
		strbuf_add(sb, buf.ptr, buf.size);
	} else {
		/* the last whole line that fits */
		nl = room ? memrchr(buf.ptr, '\n', room) : NULL;
		if (nl)
			strbuf_add(sb, buf.ptr, (size_t)(nl - buf.ptr) + 1);
		out->truncated = 1;
	}
	git_buf_dispose(&buf);
	return 0;
}

int srctree_patch(struct srctree_patch *out, const char *repo_path,
		  const char *rev, size_t max)
{
	git_diff_options opts;
	git_diff_find_options find;
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *commit = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff *diff = NULL;
	struct strbuf sb = STRBUF_INIT;
	const git_signature *sig;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	git_libgit2_init();
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
	if (git_repository_open_ext(&repo, repo_path, 0, NULL)) {
		repo = NULL;
		error("cannot open repository '%s': %s", repo_path, git_why());
		goto out;
	}
	if (git_revparse_single(&obj, repo, rev) ||
	    git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT)) {
		error("unknown commit '%s' in '%s'", rev, repo_path);
		goto out;
	}
	if (git_commit_tree(&tree, commit) ||
	    (git_commit_parentcount(commit) &&
	     (git_commit_parent(&parent, commit, 0) ||
	      git_commit_tree(&ptree, parent)))) {
		error("cannot read commit '%s' or its parent: %s", rev,
		      git_why());
		goto out;
	}
	if (parent)
		out->parent = xstrdup(git_oid_tostr_s(git_commit_id(parent)));
	sig = git_commit_author(commit);
	out->author = xstrdup(sig && sig->name ? sig->name : "");
	out->email = xstrdup(sig && sig->email ? sig->email : "");
	out->date = sig ? (long long)sig->when.time : 0;
	out->message = xstrdup(
		git_commit_message(commit) ? git_commit_message(commit) : "");
	if (git_diff_tree_to_tree(&diff, repo, ptree, tree, &opts) ||
	    git_diff_find_similar(diff, &find)) {
		error("cannot diff commit '%s': %s", rev, git_why());
		goto out;
	}
	out->nfiles = git_diff_num_deltas(diff);
	out->files = xcalloc(out->nfiles + 1, sizeof(*out->files));
	for (size_t i = 0; i < out->nfiles; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct srctree_file *f = &out->files[i];
		git_patch *patch = NULL;
		size_t ctx, add = 0, del = 0;

		f->path = xstrdup(d->new_file.path ? d->new_file.path :
						     d->old_file.path);
		if (d->status == GIT_DELTA_RENAMED && d->old_file.path)
			f->old_path = xstrdup(d->old_file.path);
		f->status = delta_status(d->status);
		if (git_patch_from_diff(&patch, diff, i) ||
		    (patch && git_patch_line_stats(&ctx, &add, &del, patch)) ||
		    (patch && patch_text(out, &sb, patch, max))) {
			git_patch_free(patch);
			error("cannot diff '%s' at commit '%s': %s", f->path,
			      rev, git_why());
			goto out;
		}
		f->binary = !!(git_diff_get_delta(diff, i)->flags &
			       GIT_DIFF_FLAG_BINARY);
		f->additions = (long)add;
		f->deletions = (long)del;
		out->additions += f->additions;
		out->deletions += f->deletions;
		git_patch_free(patch);
	}
	out->len = sb.len;
	out->diff = strbuf_detach(&sb, NULL);
	ret = 0;
out:
	strbuf_release(&sb);
	if (ret)
		srctree_patch_release(out);
	git_diff_free(diff);
	git_tree_free(ptree);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(commit);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

void srctree_patch_release(struct srctree_patch *p)
{
	for (size_t i = 0; p->files && i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].old_path);
	}
	free(p->files);
	free(p->parent);
	free(p->author);
	free(p->email);
	free(p->message);
	free(p->diff);
	memset(p, 0, sizeof(*p));
}
