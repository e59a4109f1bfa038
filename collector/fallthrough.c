// SPDX-License-Identifier: MIT
/*
 * kwarn census and kwarn classify: the commands around census.c and
 * classify.c.  Sources come from a directory, or from a commit of a git
 * repository read with libgit2 (the collector keeps every tree that way).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <git2.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "census.h"
#include "classify.h"
#include "db.h"
#include "kwarn.h"
#include "util.h"
#include "banned.h"

/* Larger sources are skipped with a note. */
#define MAX_SOURCE (32u << 20)

/* A JSON string of S; bytes that are not UTF-8 become '?'. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j)
		return j;
	copy = xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* ---- reading sources ---- */

typedef int (*source_fn)(void *ctx, const char *path, const char *buf,
			 size_t len);

struct source_skip {
	char *path;
	const char *why;
};

struct source_walk {
	source_fn fn;
	void *ctx;
	struct source_skip *skips;
	size_t nskips, askips;
	long files;
};

static void walk_skip(struct source_walk *w, const char *path, const char *why)
{
	if (w->nskips == w->askips) {
		w->askips = w->askips ? 2 * w->askips : 8;
		w->skips = xrealloc(w->skips, w->askips * sizeof(*w->skips));
	}
	w->skips[w->nskips].path = xstrdup(path);
	w->skips[w->nskips++].why = why;
}

static void walk_release(struct source_walk *w)
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

static int walk_one(struct source_walk *w, const char *rel, const char *buf,
		    size_t len)
{
	if (len > MAX_SOURCE) {
		walk_skip(w, rel, "too large");
		return 0;
	}
	if (looks_binary(buf, len)) {
		walk_skip(w, rel, "binary, not C");
		return 0;
	}
	w->files++;
	return w->fn(w->ctx, rel, buf, len);
}

static int walk_dir(struct source_walk *w, const char *root, const char *rel)
{
	char *dir = *rel ? xstrfmt("%s/%s", root, rel) : xstrdup(root);
	struct dirent **ents = NULL;
	int n, i, ret = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		/* the tree itself must be readable; below it, a note */
		if (*rel)
			walk_skip(w, rel, "unreadable directory");
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
			walk_skip(w, sub, "cannot stat");
		} else if (S_ISDIR(st.st_mode)) {
			ret = walk_dir(w, root, sub);
		} else if (S_ISREG(st.st_mode) && is_c_name(name)) {
			char *buf = NULL;
			size_t len = 0;

			if (st.st_size > (off_t)MAX_SOURCE)
				walk_skip(w, sub, "too large");
			else if (util_read_file(&buf, &len, full, MAX_SOURCE))
				walk_skip(w, sub, "unreadable");
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
static int walk_path(struct source_walk *w, const char *path)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (stat(path, &st))
		return error("cannot open '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return walk_dir(w, path, "");
	if (util_read_file(&buf, &len, path, MAX_SOURCE))
		return -1;
	ret = walk_one(w, path, buf, len);
	free(buf);
	return ret;
}

struct git_walk_ctx {
	struct source_walk *w;
	git_repository *repo;
	int ret;
	const char *base; /* path of the walked subtree, "" or "dir/" */
};

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
		walk_skip(g->w, rel, "cannot read blob");
	} else {
		git_object_size_t sz = git_blob_rawsize(blob);

		if (sz > MAX_SOURCE)
			walk_skip(g->w, rel, "too large");
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
static int walk_git(struct source_walk *w, const char *repo_path,
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
static int read_source(char **out, size_t *len, const char *tree_dir,
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

		ret = util_read_file(out, len, p, MAX_SOURCE);
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

/*
 * The sha of a stored commit named by REF (its id in the commits table, a
 * sha or a prefix), and when REPO_OUT is not NULL the cached repository of
 * its tree (tree_repo_path()).
 */
static int db_commit_sha(char **out, char **repo_out, const char *dbpath,
			 const char *ref)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;

	*out = NULL;
	if (repo_out)
		*repo_out = NULL;
	if (db_open(&db, dbpath, DB_READ_ONLY))
		return -1;
	if (db_prepare(&st, db,
		       "SELECT sha FROM commits WHERE CAST(id AS TEXT) = ?1 "
		       "OR sha = ?1 OR sha LIKE ?1 || '%' ORDER BY id DESC "
		       "LIMIT 1"))
		goto out;
	db_bind_text(st, 1, ref);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = xstrdup(db_col_text(st, 0));
		ret = 0;
	} else {
		error("no commit '%s' in '%s'", ref, dbpath);
	}
	if (!ret && repo_out && !(*repo_out = tree_repo_path(db, *out)))
		ret = -1;
out:
	sqlite3_finalize(st);
	db_close(db);
	return ret;
}

/* ---- kwarn census ---- */

struct tally_row {
	enum census_marker kind;
	char *spelling;
	long count;
	long accepted[6]; /* placed so that level N accepts it */
};

struct upgrade {
	char *file;
	long line;
	char *spelling;
};

struct census_run {
	struct tally_row *rows;
	size_t nr, alloc;
	struct upgrade *ups;
	size_t nups, aups;
	long labels, marked, files_noted;
	json_t *notes;
};

static struct tally_row *tally_find(struct census_run *r,
				    enum census_marker kind, const char *sp)
{
	struct tally_row *row;

	for (size_t i = 0; i < r->nr; i++)
		if (r->rows[i].kind == kind && !strcmp(r->rows[i].spelling, sp))
			return &r->rows[i];
	if (r->nr == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 64;
		r->rows = xrealloc(r->rows, r->alloc * sizeof(*r->rows));
	}
	row = &r->rows[r->nr++];
	memset(row, 0, sizeof(*row));
	row->kind = kind;
	row->spelling = xstrdup(sp);
	return row;
}

static const char *const note_names[] = {
	"unterminated comment",
	"unterminated string",
	"NUL bytes",
	"CRLF",
	"not UTF-8",
};

static json_t *notes_json(unsigned notes)
{
	json_t *a = json_array();

	for (size_t i = 0; i < ARRAY_SIZE(note_names); i++)
		if (notes & (1u << i))
			json_array_append_new(a, json_string(note_names[i]));
	return a;
}

static int census_visit(void *ctx, const char *path, const char *buf,
			size_t len)
{
	struct census_run *r = ctx;
	struct census_file f;

	census_scan(&f, buf, len);
	if (f.notes) {
		json_t *o = json_object();

		json_object_set_new(o, "file", jstr(path));
		json_object_set_new(o, "notes", notes_json(f.notes));
		json_array_append_new(r->notes, o);
	}
	for (size_t i = 0; i < f.nr; i++) {
		const struct census_label *l = &f.labels[i];
		struct tally_row *row;

		r->labels++;
		if (l->marker == CENSUS_MARK_NONE)
			continue;
		r->marked++;
		row = tally_find(r, l->marker, l->spelling);
		row->count++;
		for (int lv = 1; lv <= 5; lv++)
			if (l->levels & (1u << lv))
				row->accepted[lv]++;
		if ((l->levels & (1u << 3)) && !(l->levels & (1u << 5))) {
			struct upgrade *u;

			if (r->nups == r->aups) {
				r->aups = r->aups ? 2 * r->aups : 64;
				r->ups = xrealloc(r->ups,
						  r->aups * sizeof(*r->ups));
			}
			u = &r->ups[r->nups++];
			u->file = xstrdup(path);
			u->line = l->marker_line;
			u->spelling = xstrdup(l->spelling ? l->spelling : "");
		}
	}
	census_file_release(&f);
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct tally_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->spelling, y->spelling);
}

static void census_print_text(struct census_run *r, struct source_walk *w,
			      const char *what, int upgrade)
{
	size_t i, shown = 0, rest = 0;
	long rest_count = 0;

	if (upgrade) {
		for (i = 0; i < r->nups; i++)
			printf("%s:%ld: %s\n", r->ups[i].file, r->ups[i].line,
			       r->ups[i].spelling);
		printf("%zu marker(s) pass at -Wimplicit-fallthrough=3 and "
		       "fail at =5\n",
		       r->nups);
		return;
	}
	printf("fall-through markers in %s: %ld files, %ld case labels, "
	       "%ld with a marker\n\n",
	       what, w->files, r->labels, r->marked);
	printf("%-10s %7s %7s %7s %7s  %s\n", "kind", "count", "ok@=3", "ok@=4",
	       "ok@=5", "spelling (case folded)");
	for (i = 0; i < r->nr; i++) {
		const struct tally_row *row = &r->rows[i];

		if (shown >= 40 && row->count < 2) {
			rest++;
			rest_count += row->count;
			continue;
		}
		shown++;
		printf("%-10s %7ld %7ld %7ld %7ld  %s\n",
		       census_marker_name(row->kind), row->count,
		       row->accepted[3], row->accepted[4], row->accepted[5],
		       row->spelling);
	}
	if (rest)
		printf("%-10s %7ld %23s  (%zu other spellings, once each)\n",
		       "other", rest_count, "", rest);
	printf("\n%zu marker(s) pass at =3 and fail at =5 (see --upgrade)\n",
	       r->nups);
	for (i = 0; i < w->nskips; i++)
		printf("skipped %s: %s\n", w->skips[i].path, w->skips[i].why);
	if (json_array_size(r->notes))
		printf("%zu file(s) with notes (see --format json)\n",
		       json_array_size(r->notes));
}

static json_t *census_json(struct census_run *r, struct source_walk *w,
			   const char *what, int upgrade)
{
	json_t *o = json_object(), *a = json_array(), *ups = json_array();
	json_t *sk = json_array();
	size_t i;

	json_object_set_new(o, "source", jstr(what));
	json_object_set_new(o, "files", json_integer(w->files));
	json_object_set_new(o, "labels", json_integer(r->labels));
	json_object_set_new(o, "marked", json_integer(r->marked));
	for (i = 0; i < r->nr && !upgrade; i++) {
		json_t *m = json_object(), *acc = json_object();

		json_object_set_new(
			m, "kind",
			json_string(census_marker_name(r->rows[i].kind)));
		json_object_set_new(m, "spelling", jstr(r->rows[i].spelling));
		json_object_set_new(m, "count", json_integer(r->rows[i].count));
		for (int lv = 1; lv <= 5; lv++) {
			char k[2] = { (char)('0' + lv), 0 };

			json_object_set_new(
				acc, k, json_integer(r->rows[i].accepted[lv]));
		}
		json_object_set_new(m, "accepted", acc);
		json_array_append_new(a, m);
	}
	json_object_set_new(o, "markers", a);
	for (i = 0; i < r->nups; i++) {
		json_t *u = json_object();

		json_object_set_new(u, "file", jstr(r->ups[i].file));
		json_object_set_new(u, "line", json_integer(r->ups[i].line));
		json_object_set_new(u, "marker", jstr(r->ups[i].spelling));
		json_array_append_new(ups, u);
	}
	json_object_set_new(o, "upgrade", ups);
	for (i = 0; i < w->nskips; i++) {
		json_t *s = json_object();

		json_object_set_new(s, "file", jstr(w->skips[i].path));
		json_object_set_new(s, "reason", json_string(w->skips[i].why));
		json_array_append_new(sk, s);
	}
	json_object_set_new(o, "skipped", sk);
	json_object_set_new(o, "notes", json_incref(r->notes));
	return o;
}

static void census_run_release(struct census_run *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free(r->rows[i].spelling);
	free(r->rows);
	for (size_t i = 0; i < r->nups; i++) {
		free(r->ups[i].file);
		free(r->ups[i].spelling);
	}
	free(r->ups);
	json_decref(r->notes);
}

int census_git_json(json_t **out, const char *repo_path, const char *rev,
		    const char *prefix)
{
	struct census_run r = { 0 };
	struct source_walk w = { 0 };
	char *what;
	int ret = -1;

	*out = NULL;
	r.notes = json_array();
	w.fn = census_visit;
	w.ctx = &r;
	if (!walk_git(&w, repo_path, rev, prefix)) {
		qsort(r.rows, r.nr, sizeof(*r.rows), row_cmp);
		what = prefix && *prefix ?
			       xstrfmt("%s@%s:%s", repo_path, rev, prefix) :
			       xstrfmt("%s@%s", repo_path, rev);
		*out = census_json(&r, &w, what, 0);
		free(what);
		ret = 0;
	}
	census_run_release(&r);
	walk_release(&w);
	return ret;
}

static const char *const gap_names[] = {
	"blank line", "comment", "statement", "brace", "preprocessor line",
};

/* kwarn census --levels FILE: every label and its levels, as JSON. */
static int census_levels(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	struct census_file f;
	json_t *a = json_array(), *o = json_object();

	if (util_read_file(&buf, &len, path, MAX_SOURCE))
		return -1;
	census_scan(&f, buf, len);
	for (size_t i = 0; i < f.nr; i++) {
		const struct census_label *l = &f.labels[i];
		json_t *e = json_object(), *lv = json_array(),
		       *g = json_array();

		json_object_set_new(e, "line", json_integer(l->line));
		json_object_set_new(e, "label",
				    json_string(l->is_default ? "default" :
								"case"));
		for (int n = 1; n <= 5; n++)
			if (l->levels & (1u << n))
				json_array_append_new(lv, json_integer(n));
		json_object_set_new(e, "levels", lv);
		json_object_set_new(e, "marker",
				    json_string(census_marker_name(l->marker)));
		if (l->spelling)
			json_object_set_new(e, "spelling", jstr(l->spelling));
		if (l->marker_line)
			json_object_set_new(e, "marker_line",
					    json_integer(l->marker_line));
		for (size_t k = 0; k < ARRAY_SIZE(gap_names); k++)
			if (l->gap & (1u << k))
				json_array_append_new(
					g, json_string(gap_names[k]));
		json_object_set_new(e, "gap", g);
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "file", jstr(path));
	json_object_set_new(o, "notes", notes_json(f.notes));
	json_object_set_new(o, "labels", a);
	json_dumpf(o, stdout, JSON_INDENT(1));
	putchar('\n');
	json_decref(o);
	census_file_release(&f);
	free(buf);
	return 0;
}

static void census_usage(FILE *fp)
{
	fprintf(fp,
		"usage: kwarn census TREE... [--format text|json] [--upgrade]\n"
		"       kwarn census --repo PATH --commit SHA [--path DIR] "
		"[...]\n"
		"       kwarn census --db FILE --commit ID [--repo PATH] "
		"[--path DIR] [...]\n"
		"       kwarn census --levels FILE.c\n");
}

int cmd_census(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "commit", required_argument, NULL, 'c' },
		{ "repo", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "upgrade", no_argument, NULL, 'u' },
		{ "levels", required_argument, NULL, 'l' },
		{ "path", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbpath = NULL, *commit = NULL, *repo = NULL;
	const char *format = "text", *levels = NULL, *prefix = NULL;
	struct census_run r = { 0 };
	struct source_walk w = { 0 };
	char *sha = NULL, *what = NULL, *cached = NULL;
	int upgrade = 0, c, ret = -1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 'c':
			commit = optarg;
			break;
		case 'r':
			repo = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'u':
			upgrade = 1;
			break;
		case 'l':
			levels = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'h':
			census_usage(stdout);
			return 0;
		default:
			census_usage(stderr);
			return 2;
		}
	}
	if (levels)
		return census_levels(levels) ? 1 : 0;
	if (strcmp(format, "text") && strcmp(format, "json")) {
		error("unknown format '%s' (text or json)", format);
		return 2;
	}
	if ((dbpath || repo) && !commit) {
		error("'--commit' is needed with '--db' or '--repo'");
		return 2;
	}
	if (commit && !repo && !dbpath) {
		error("'--db' or '--repo' is needed to read commit '%s'",
		      commit);
		return 2;
	}
	if (prefix && !commit) {
		error("'--path' is for a commit; name the directory instead");
		return 2;
	}
	if (!commit && optind >= argc) {
		census_usage(stderr);
		return 2;
	}
	r.notes = json_array();
	w.fn = census_visit;
	w.ctx = &r;
	if (commit) {
		/* without --repo, the collector's copy of the commit's tree */
		if (dbpath &&
		    db_commit_sha(&sha, repo ? NULL : &cached, dbpath, commit))
			goto out;
		if (!repo)
			repo = cached;
		what = prefix ? xstrfmt("%s@%s:%s", repo, sha ? sha : commit,
					prefix) :
				xstrfmt("%s@%s", repo, sha ? sha : commit);
		if (walk_git(&w, repo, sha ? sha : commit, prefix))
			goto out;
	} else {
		struct strbuf sb = STRBUF_INIT;

		for (int i = optind; i < argc; i++) {
			strbuf_addf(&sb, "%s%s", i > optind ? " " : "",
				    argv[i]);
			if (walk_path(&w, argv[i])) {
				strbuf_release(&sb);
				goto out;
			}
		}
		what = strbuf_detach(&sb, NULL);
	}
	qsort(r.rows, r.nr, sizeof(*r.rows), row_cmp);
	if (!strcmp(format, "json")) {
		json_t *o = census_json(&r, &w, what, upgrade);

		json_dumpf(o, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(o);
	} else {
		census_print_text(&r, &w, what, upgrade);
	}
	ret = 0;
out:
	census_run_release(&r);
	walk_release(&w);
	free(sha);
	free(what);
	free(cached);
	return ret ? 1 : 0;
}

/* ---- kwarn classify ---- */

/* Blank "fallthrough;" on LINE (1-based) of BUF; 0 if done, -1 if none. */
static int blank_fallthrough(char *buf, size_t len, long line)
{
	size_t i = 0;
	long l = 1;
	char *p, *e;

	while (i < len && l < line)
		if (buf[i++] == '\n')
			l++;
	if (l != line)
		return -1;
	e = memchr(buf + i, '\n', len - i);
	if (!e)
		e = buf + len;
	p = memmem(buf + i, (size_t)(e - (buf + i)), "fallthrough", 11);
	if (!p)
		return -1;
	for (e = p + 11; *e == ' ' || *e == '\t'; e++)
		;
	if (*e != ';')
		return -1;
	memset(p, ' ', (size_t)(e - p + 1));
	return 0;
}

struct eval_run {
	long sites, flagged;
	int verbose;
};

static int eval_visit(void *ctx, const char *path, const char *buf, size_t len)
{
	struct eval_run *ev = ctx;
	struct census_file f;
	char *copy = NULL;

	census_scan(&f, buf, len);
	for (size_t i = 0; i < f.nr; i++) {
		const struct census_label *l = &f.labels[i];
		struct classify_result r;

		if (l->marker != CENSUS_MARK_KEYWORD)
			continue;
		free(copy);
		copy = xmalloc(len + 1);
		memcpy(copy, buf, len);
		copy[len] = '\0';
		if (blank_fallthrough(copy, len, l->marker_line))
			continue;
		ev->sites++;
		classify_fallthrough(&r, copy, len, l->prev_line, l->line);
		if (ev->verbose > 1)
			printf("%s:%ld: %s: %s\n", path, l->line,
			       classify_verdict_name(r.verdict), r.reason);
		if (r.verdict == CLASSIFY_MISSING_BREAK) {
			ev->flagged++;
			if (ev->verbose == 1)
				printf("flagged %s:%ld: %s\n", path, l->line,
				       r.reason);
		}
	}
	free(copy);
	census_file_release(&f);
	return 0;
}

/* kwarn classify --eval-intended DIR...: intended sites called bugs. */
static int classify_eval(char **dirs, int n, int verbose)
{
	struct eval_run ev = { 0, 0, verbose };
	struct source_walk w = { 0 };
	int ret = 0;

	w.fn = eval_visit;
	w.ctx = &ev;
	for (int i = 0; i < n && !ret; i++)
		ret = walk_path(&w, dirs[i]);
	walk_release(&w);
	if (ret)
		return -1;
	printf("intended sites: %ld, flagged as missing break: %ld (%.2f%%)\n",
	       ev.sites, ev.flagged,
	       ev.sites ? 100.0 * (double)ev.flagged / (double)ev.sites : 0.0);
	return 0;
}

static void print_result(const char *file, long warn, long here,
			 const struct classify_result *r, int as_json)
{
	if (as_json) {
		json_t *o = json_object();

		json_object_set_new(o, "file", jstr(file));
		json_object_set_new(o, "warn_line", json_integer(warn));
		json_object_set_new(o, "here_line", json_integer(here));
		json_object_set_new(
			o, "verdict",
			json_string(classify_verdict_name(r->verdict)));
		/* unsure: no fix to suggest */
		json_object_set_new(o, "fix",
				    r->fix ? jstr(r->fix) : json_null());
		json_object_set_new(o, "reason", jstr(r->reason));
		json_dumpf(o, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(o);
		return;
	}
	printf("%s:%ld: %s (%s): %s\n", file, warn,
	       classify_verdict_name(r->verdict),
	       r->fix ? r->fix : "no fix: read both cases", r->reason);
}

/* Classify the stored implicit-fallthrough warnings of one build. */
static int classify_db(const char *dbpath, const char *ref, const char *repo,
		       const char *tree_dir, int as_json)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL, *cs = NULL;
	long long build = -1, commit = -1;
	char *sha = NULL, *cached = NULL;
	long done = 0, bugs = 0, unsure = 0, failed = 0;
	int ret = -1;

	if (db_open(&db, dbpath, DB_READ_WRITE) ||
	    query_find_build(&build, &commit, db, ref))
		goto out;
	if (!tree_dir) {
		if (db_prepare(&cs, db, "SELECT sha FROM commits WHERE id = ?"))
			goto out;
		db_bind_int(cs, 1, commit, 0);
		if (sqlite3_step(cs) != SQLITE_ROW) {
			error("no commit for build %lld", build);
			goto out;
		}
		sha = xstrdup(db_col_text(cs, 0));
		/* without --repo, the collector's copy of the commit's tree */
		if (!repo && !(repo = cached = tree_repo_path(db, sha)))
			goto out;
	}
	if (db_prepare(&st, db,
		       "SELECT d.identity_id, MIN(d.id) FROM diagnostics d "
		       "WHERE d.build_id = ? AND d.identity_id IS NOT NULL "
		       "AND d.option LIKE '%implicit-fallthrough%' "
		       "GROUP BY d.identity_id ORDER BY d.file, d.line"))
		goto out;
	db_bind_int(st, 1, build, 0);
	if (db_begin(db))
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		char *file = NULL;
		long warn = 0, here = 0;
		struct classify_result r;
		char *src = NULL;
		size_t len = 0;

		if (classify_site(&file, &warn, &here, db,
				  sqlite3_column_int64(st, 1)) ||
		    read_source(&src, &len, tree_dir, repo, sha, file)) {
			failed++;
		} else {
			classify_fallthrough(&r, src, len, warn, here);
			if (classify_store(db, id, &r)) {
				free(src);
				free(file);
				db_rollback(db);
				goto out;
			}
			print_result(file, warn, here, &r, as_json);
			done++;
			bugs += r.verdict == CLASSIFY_MISSING_BREAK;
			unsure += r.verdict == CLASSIFY_UNSURE;
		}
		free(src);
		free(file);
	}
	if (db_commit(db))
		goto out;
	if (!as_json)
		printf("%ld classified: %ld likely missing break, %ld unsure, "
		       "%ld not readable\n",
		       done, bugs, unsure, failed);
	ret = 0;
out:
	sqlite3_finalize(cs);
	sqlite3_finalize(st);
	db_close(db);
	free(sha);
	free(cached);
	return ret;
}

static void classify_usage(FILE *fp)
{
	fprintf(fp,
		"usage: kwarn classify --db FILE [--commit REF] "
		"[--repo PATH | --tree DIR] [--format text|json]\n"
		"       kwarn classify --file FILE.c --warn LINE --here LINE "
		"[--format json]\n"
		"       kwarn classify --eval-intended [-v] DIR...\n");
}

int classify_site(char **file_out, long *warn_out, long *here_out, sqlite3 *db,
		  long long diag_id)
{
	sqlite3_stmt *st = NULL;
	char *file = NULL, *files[32];
	long lines[32], warn = 0, here = 0;
	int n = 0, ret = -1;

	*file_out = NULL;
	if (db_prepare(&st, db,
		       "SELECT file, line FROM diagnostics WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, diag_id, 0);
	if (sqlite3_step(st) == SQLITE_ROW) {
		file = xstrdup(db_col_text(st, 0));
		warn = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (!file || db_prepare(&st, db,
				"SELECT file, line, message FROM notes"
				" WHERE diag_id = ? ORDER BY seq")) {
		free(file);
		return -1;
	}
	db_bind_int(st, 1, diag_id, 0);
	while (n < 32 && sqlite3_step(st) == SQLITE_ROW) {
		files[n] = xstrdup(db_col_text(st, 0));
		lines[n] = sqlite3_column_int(st, 1);
		if (!strcmp(db_col_text(st, 2), "here")) {
			here = lines[n++];
			break;
		}
		n++;
	}
	sqlite3_finalize(st);
	if (here) {
		const char *hf = files[n - 1];

		if (strcmp(hf, file)) {
			/* the case ends at the macro's use in that file */
			warn = 0;
			for (int i = 0; i < n - 1; i++)
				if (!strcmp(files[i], hf))
					warn = lines[i];
			free(file);
			file = xstrdup(hf);
		}
		if (warn > 0) {
			*file_out = file;
			file = NULL;
			*warn_out = warn;
			*here_out = here;
			ret = 0;
		}
	}
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(file);
	return ret;
}

int cmd_classify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "commit", required_argument, NULL, 'c' },
		{ "repo", required_argument, NULL, 'r' },
		{ "tree", required_argument, NULL, 't' },
		{ "file", required_argument, NULL, 'F' },
		{ "warn", required_argument, NULL, 'w' },
		{ "here", required_argument, NULL, 'H' },
		{ "format", required_argument, NULL, 'f' },
		{ "eval-intended", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbpath = NULL, *commit = NULL, *repo = NULL;
	const char *tree = NULL, *file = NULL, *format = "text";
	long warn = 0, here = 0;
	int eval = 0, verbose = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 'c':
			commit = optarg;
			break;
		case 'r':
			repo = optarg;
			break;
		case 't':
			tree = optarg;
			break;
		case 'F':
			file = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'e':
			eval = 1;
			break;
		case 'v':
			verbose++;
			break;
		case 'w':
		case 'H':
			if (util_parse_long(c == 'w' ? &warn : &here, optarg, 1,
					    1L << 30)) {
				error("bad line number '%s'", optarg);
				return 2;
			}
			break;
		case 'h':
			classify_usage(stdout);
			return 0;
		default:
			classify_usage(stderr);
			return 2;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "json")) {
		error("unknown format '%s' (text or json)", format);
		return 2;
	}
	if (eval) {
		if (optind >= argc) {
			classify_usage(stderr);
			return 2;
		}
		return classify_eval(argv + optind, argc - optind, verbose) ?
			       1 :
			       0;
	}
	if (file) {
		struct classify_result r;
		char *src = NULL;
		size_t len = 0;
		int rc;

		if (!here) {
			error("'--here' is needed with '--file'");
			return 2;
		}
		if (util_read_file(&src, &len, file, MAX_SOURCE))
			return 1;
		rc = classify_fallthrough(&r, src, len, warn, here);
		free(src);
		if (rc) {
			error("no case label on or after line %ld of '%s'",
			      here, file);
			return 1;
		}
		print_result(file, warn, here, &r, !strcmp(format, "json"));
		return 0;
	}
	if (!dbpath) {
		classify_usage(stderr);
		return 2;
	}
	return classify_db(dbpath, commit, repo, tree,
			   !strcmp(format, "json")) ?
		       1 :
		       0;
}
