// SPDX-License-Identifier: MIT
/*
 * The work tree that every upload of a tarball name shares
 * (collector/tree.c), on small tarballs made here with tar: the first
 * upload's files become trees/NAME/src; a second upload writes only the
 * files that differ (the others keep their inode and date, so make
 * rebuilds only what changed), adds and removes files, and keeps its own
 * repository; opening the first again brings its files back the same way;
 * an upload whose entry is gone is imported again; a work tree nobody
 * knows (its owner's index gone) is written whole; and a cache from
 * before the work tree was shared adopts the work tree of the name's
 * first upload, so that its build directories stay warm.  Run from the
 * top of the checkout, after `make all`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"
#include "kwarn.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

static char *tmp;

static void put(const char *dir, const char *rel, const char *text)
{
	char *path = xstrfmt("%s/%s", dir, rel), *parent = xstrdup(path);

	*strrchr(parent, '/') = '\0';
	if (util_mkdir_p(parent) || util_write_file(path, text, strlen(text)))
		exit(99);
	free(path);
	free(parent);
}

/*
 * tmp/up-TAG/linux-source-9.8.tar: a kernel-shaped tree (what
 * is_kernel_tree() looks for) with a.c saying A, and, when WITH_D, d.c.
 * Returns the tarball's path.
 */
static char *upload(const char *tag, const char *a, int with_d)
{
	char *dir = xstrfmt("%s/up-%s", tmp, tag);
	char *top = xstrfmt("%s/linux-source-9.8", dir);
	char *tar = xstrfmt("%s/linux-source-9.8.tar", dir);
	const char *argv[] = { "tar", "-cf", tar, "-C", dir, "linux-source-9.8",
			       NULL };

	put(top, "Makefile", "VERSION = 9\nPATCHLEVEL = 8\nSUBLEVEL = 1\n");
	put(top, "scripts/kconfig/merge_config.sh", "#!/bin/sh\n");
	put(top, "arch/x86/Makefile", "# x86\n");
	put(top, "include/linux/b.h", "#define B 1\n");
	put(top, "kernel/b.c", "int b;\n");
	put(top, "kernel/a.c", a);
	if (with_d)
		put(top, "kernel/d.c", "int d;\n");
	if (util_run(argv, NULL, NULL, NULL))
		exit(99);
	free(dir);
	free(top);
	return tar;
}

static char *src_file(const char *rel)
{
	char *path = xstrfmt("%s/trees/linux-source-9.8/src/%s", tmp, rel);
	char *text = NULL;

	if (access(path, R_OK) || util_read_file(&text, NULL, path, 4096))
		text = NULL;
	free(path);
	return text;
}

static int same_text(const char *rel, const char *want)
{
	char *got = src_file(rel);
	int same = got && want && !strcmp(got, want);

	if (!got && !want)
		same = 1;
	free(got);
	return same;
}

/* The inode and modification time of a work tree file. */
static int file_stamp(struct stat *st, const char *rel)
{
	char *path = xstrfmt("%s/trees/linux-source-9.8/src/%s", tmp, rel);
	int rc = stat(path, st);

	free(path);
	return rc;
}

static int same_stamp(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static char *owner(void)
{
	char *path = xstrfmt("%s/trees/linux-source-9.8/owner", tmp);
	char *text = NULL;

	if (access(path, R_OK) || util_read_file(&text, NULL, path, 4096))
		text = xstrdup("");
	text[strcspn(text, "\n")] = '\0';
	free(path);
	return text;
}

/* Is there a file or directory at trees/ENTRY/REST? */
static int exists(const char *entry, const char *rest)
{
	char *path = xstrfmt("%s/trees/%s%s", tmp, entry, rest);
	int rc = access(path, F_OK) == 0;

	free(path);
	return rc;
}

/* Is tmp/builds/ENTRY-0123456789ab/x still there? */
static int builds_kept(const char *entry)
{
	char *path = xstrfmt("%s/builds/%s-0123456789ab/x", tmp, entry);
	int rc = access(path, F_OK) == 0;

	free(path);
	return rc;
}

int main(void)
{
	char tmpl[] = "/tmp/kwarn-test-tree-XXXXXX", *up1, *up2, *e1, *e2;
	char *ow, *cache_root, *want_src, *adopted;
	struct tree *t = NULL;
	struct stat b0, b1, a1, h0, h1;
	int rc;

	tmp = mkdtemp(tmpl);
	if (!tmp)
		return 99;
	setenv("KWARN_CACHE", tmp, 1);
	want_src = xstrfmt("%s/trees/linux-source-9.8/src", tmp);
	up1 = upload("1", "int a = 1;\n", 1);
	up2 = upload("2", "int a = 2;\n", 0);

	/* 1. the name's first upload: its files are the work tree */
	rc = tree_import(&t, up1);
	ok(rc == 0 && t, "the first upload is imported");
	if (!t) {
		tap_not_run(20, "the shared work tree");
		return tap_done();
	}
	ok(!strcmp(t->src, want_src), "its work tree is trees/NAME/src (%s)",
	   t->src);
	e1 = xstrdup(strrchr(t->dir, '/') + 1);
	ok(!exists(e1, "/src"), "its entry (%s) has no work tree of its own",
	   e1);
	ow = owner();
	ok(!strcmp(ow, e1), "it owns the work tree (%s)", ow);
	free(ow);
	ok(same_text("kernel/a.c", "int a = 1;\n") &&
		   same_text("kernel/d.c", "int d;\n"),
	   "the work tree holds its files");
	tree_free(t);
	t = NULL;
	file_stamp(&b0, "kernel/b.c");
	file_stamp(&h0, "include/linux/b.h");

	/* 2. a second upload: only what differs is written */
	rc = tree_import(&t, up2);
	ok(rc == 0 && t, "the second upload is imported");
	if (!t) {
		tap_not_run(15, "the shared work tree");
		return tap_done();
	}
	e2 = xstrdup(strrchr(t->dir, '/') + 1);
	ok(strcmp(e1, e2) && !strcmp(t->src, want_src),
	   "a repository of its own (%s), the same work tree", e2);
	ok(same_text("kernel/a.c", "int a = 2;\n"), "the changed file is new");
	ok(same_text("kernel/d.c", NULL), "the file it lacks is gone");
	file_stamp(&b1, "kernel/b.c");
	file_stamp(&h1, "include/linux/b.h");
	ok(same_stamp(&b0, &b1) && same_stamp(&h0, &h1),
	   "the files both uploads have alike are not written again");
	ow = owner();
	ok(!strcmp(ow, e2), "it owns the work tree now (%s)", ow);
	free(ow);
	ok(git_oid_equal(&t->head, &t->base),
	   "it holds the upload's own import");
	tree_free(t);
	t = NULL;
	file_stamp(&a1, "kernel/a.c");

	/* 3. the first again, from its import: the same way back */
	rc = tree_import(&t, up1);
	ok(rc == 0 && t && !strcmp(strrchr(t->dir, '/') + 1, e1),
	   "the first upload opens from its import");
	ok(same_text("kernel/a.c", "int a = 1;\n") &&
		   same_text("kernel/d.c", "int d;\n"),
	   "its files are back");
	file_stamp(&b1, "kernel/b.c");
	ok(same_stamp(&b0, &b1), "and the others untouched");
	tree_free(t);
	t = NULL;

	/* 4. an upload whose entry is gone is imported again */
	cache_root = xstrfmt("%s/trees/%s", tmp, e2);
	util_rm_rf(cache_root);
	free(cache_root);
	rc = tree_import(&t, up2);
	ok(rc == 0 && t && same_text("kernel/a.c", "int a = 2;\n") &&
		   same_text("kernel/d.c", NULL),
	   "an upload whose entry is gone: imported again, its files");
	tree_free(t);
	t = NULL;

	/* 5. the owner's index gone: the work tree is written whole */
	cache_root = xstrfmt("%s/trees/%s/git/index", tmp, e2);
	unlink(cache_root);
	free(cache_root);
	rc = tree_import(&t, up1);
	file_stamp(&b1, "kernel/b.c");
	ok(rc == 0 && t && same_text("kernel/a.c", "int a = 1;\n") &&
		   !same_stamp(&b0, &b1),
	   "no index describes the work tree: written whole");
	tree_free(t);
	t = NULL;

	/*
	 * 6. a cache from before the work tree was shared: the first
	 * upload's entry has the work tree (moved there, as that layout had
	 * it), and the name's directory is not there yet
	 */
	{
		char *from = xstrfmt("%s/trees/linux-source-9.8/src", tmp);
		char *to = xstrfmt("%s/trees/%s/src", tmp, e1);
		char *name = xstrfmt("%s/trees/linux-source-9.8", tmp);
		char *builds = xstrfmt("%s/builds/%s-0123456789ab/x", tmp, e1);

		rc = rename(from, to) || util_rm_rf(name);
		put(tmp, strstr(builds, "builds/"), "object\n");
		ok(rc == 0, "an old layout made (%s/src)", e1);
		free(from);
		free(to);
		free(name);
		free(builds);
	}
	{
		char *path = xstrfmt("%s/trees/%s/src/kernel/b.c", tmp, e1);

		stat(path, &b0);
		free(path);
	}
	adopted = xstrfmt("%s/trees/%s", tmp, e1);
	rc = tree_import(&t, up2);
	ok(rc == 0 && t && !strcmp(t->work, adopted),
	   "the second upload adopts the first's work tree (%s)",
	   t ? t->work : "?");
	ok(exists(e1, "/src/kernel/a.c") && !exists("linux-source-9.8", ""),
	   "no other work tree is made");
	{
		char *path = xstrfmt("%s/trees/%s/src/kernel/b.c", tmp, e1);
		char *a = xstrfmt("%s/trees/%s/src/kernel/a.c", tmp, e1);
		char *text = NULL;

		stat(path, &b1);
		ok(same_stamp(&b0, &b1) &&
			   !util_read_file(&text, NULL, a, 4096) &&
			   !strcmp(text, "int a = 2;\n"),
		   "only what differs written there");
		free(path);
		free(a);
		free(text);
	}
	ok(builds_kept(e1), "the build directories of that work tree are kept");
	tree_free(t);
	t = NULL;

	util_rm_rf(tmp);
	free(up1);
	free(up2);
	free(e1);
	free(e2);
	free(want_src);
	free(adopted);
	return tap_done();
}
