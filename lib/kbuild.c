// SPDX-License-Identifier: MIT
/*
 * Reading a kbuild build directory: which object each source was compiled
 * into, and which composite object each part is linked into.  kbuild
 * writes both down: .OBJ.cmd holds "source_OBJ := SRC" for every compiled
 * object (OBJ and SRC absolute for external modules, SRC absolute for O=
 * builds), NAME.mod lists the parts of module NAME.o.  Built-in composite
 * objects are not linked in 6.1: their parts go straight into built-in.a,
 * so only modules have a composite.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbuild.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

struct walk {
	struct kbuild_map *m;
	char *prefix; /* the build directory as kbuild saw it, with '/' */
	char **mods; /* *.mod files, relative to the build directory */
	size_t nr_mods, alloc_mods;
	int failed;
};

static void add_pair(struct kbuild_pair **v, size_t *nr, size_t *alloc,
		     char *key, char *value)
{
	if (*nr == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 64;
		*v = xrealloc(*v, *alloc * sizeof(**v));
	}
	(*v)[*nr].key = key;
	(*v)[*nr].value = value;
	(*nr)++;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), l = strlen(suffix);

	return n >= l && !strcmp(s + n - l, suffix);
}

/* The "source_" line of .OBJ.cmd at PATH; OBJ is REL (build-relative). */
static void read_cmd(struct walk *wk, const char *path, const char *rel)
{
	char *buf = NULL, *line, *end, *key, *val, *sep;
	size_t klen, rlen = strlen(rel);

	if (util_read_file(&buf, NULL, path, CAP_TREE_FILE)) {
		wk->failed = 1;
		return;
	}
	for (line = buf; line && *line; line = end) {
		end = strchr(line, '\n');
		if (end)
			*end++ = '\0';
		if (strncmp(line, "source_", 7))
			continue;
		key = line + 7;
		sep = strstr(key, " := ");
		if (!sep)
			break;
		*sep = '\0';
		val = sep + 4;
		while (*val == ' ')
			val++;
		klen = strlen(key);
		/* KEY is REL, or REL under the build directory kbuild saw */
		if (klen < rlen || strcmp(key + klen - rlen, rel) ||
		    (klen > rlen && key[klen - rlen - 1] != '/'))
			break;
		if (!wk->prefix)
			wk->prefix = xstrndup(key, klen - rlen);
		add_pair(&wk->m->objects, &wk->m->nr_objects,
			 &wk->m->alloc_objects, xstrdup(val), xstrdup(rel));
		break;
	}
	free(buf);
}

static void walk_dir(struct walk *wk, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		error("cannot read '%s': %s", dir, strerror(errno));
		wk->failed = 1;
		return;
	}
	while ((e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		char *path, *r;
		struct stat st;

		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		path = xstrfmt("%s/%s", dir, n);
		r = *rel ? xstrfmt("%s/%s", rel, n) : xstrdup(n);
		if (lstat(path, &st)) {
			/* gone while we looked: nothing kbuild says */
		} else if (S_ISDIR(st.st_mode)) {
			/* tools/ has its own build system; .kwarn is ours */
			if (n[0] != '.' && (*rel || strcmp(n, "tools")))
				walk_dir(wk, path, r);
		} else if (S_ISREG(st.st_mode) && n[0] == '.' &&
			   has_suffix(n, ".o.cmd")) {
			char *obj = *rel ? xstrfmt("%s/%.*s", rel,
						   (int)(strlen(n) - 5),
						   n + 1) :
					   xstrndup(n + 1, strlen(n) - 5);

			read_cmd(wk, path, obj);
			free(obj);
		} else if (S_ISREG(st.st_mode) && has_suffix(n, ".mod")) {
			if (wk->nr_mods == wk->alloc_mods) {
				wk->alloc_mods = wk->alloc_mods ?
							 2 * wk->alloc_mods :
							 16;
				wk->mods = xrealloc(wk->mods,
						    wk->alloc_mods *
							    sizeof(*wk->mods));
			}
			wk->mods[wk->nr_mods++] = xstrdup(r);
			r = NULL;
		}
		free(path);
		free(r);
		if (wk->failed)
			break;
	}
	closedir(d);
}

/* S without PREFIX when it starts with it (PREFIX may be NULL or ""). */
static const char *unprefixed(const char *s, const char *prefix)
{
	size_t l = prefix ? strlen(prefix) : 0;

	return l && !strncmp(s, prefix, l) ? s + l : s;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct kbuild_pair *x = a, *y = b;

	return strcmp(x->key, y->key);
}

/* Sort V by key; a key given two different values gets none. */
static void sort_pairs(struct kbuild_pair *v, size_t nr)
{
	size_t i, j, k;
	int same;

	qsort(v, nr, sizeof(*v), pair_cmp);
	for (i = 0; i < nr; i = j) {
		same = 1;
		for (j = i + 1; j < nr && !strcmp(v[i].key, v[j].key); j++)
			same &= !strcmp(v[i].value, v[j].value);
		/* one source in two objects: which one warned is unknown */
		for (k = i; !same && k < j; k++) {
			free(v[k].value);
			v[k].value = NULL;
		}
	}
}

/* The parts listed in REL (NAME.mod under DIR) go into NAME.o. */
static void read_mod(struct walk *wk, const char *dir, const char *rel)
{
	char *path = xstrfmt("%s/%s", dir, rel), *buf = NULL, *line, *end;
	char *composite = xstrfmt("%.*s.o", (int)(strlen(rel) - 4), rel);

	if (util_read_file(&buf, NULL, path, CAP_TREE_FILE)) {
		wk->failed = 1;
		goto out;
	}
	for (line = buf; line && *line; line = end) {
		const char *part;

		end = strchr(line, '\n');
		if (end)
			*end++ = '\0';
		part = unprefixed(line, wk->prefix);
		if (!*part || !strcmp(part, composite))
			continue;
		add_pair(&wk->m->composites, &wk->m->nr_composites,
			 &wk->m->alloc_composites, xstrdup(part),
			 xstrdup(composite));
	}
out:
	free(buf);
	free(composite);
	free(path);
}

int kbuild_map_load(struct kbuild_map *out, const char *dir)
{
	struct walk wk = { out, NULL, NULL, 0, 0, 0 };
	char link[PATH_MAX], *srctree = NULL, *link_path;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	walk_dir(&wk, dir, "");
	/* O= builds: kbuild links DIR/source to the source tree */
	link_path = xstrfmt("%s/source", dir);
	n = readlink(link_path, link, sizeof(link) - 1);
	free(link_path);
	if (n > 0) {
		link[n] = '\0';
		srctree = xstrfmt("%s%s", link, link[n - 1] == '/' ? "" : "/");
	}
	for (size_t i = 0; !wk.failed && i < out->nr_objects; i++) {
		char *s = out->objects[i].key;
		const char *u = unprefixed(s, wk.prefix);

		if (u == s)
			u = unprefixed(s, srctree);
		if (u != s) {
			out->objects[i].key = xstrdup(u);
			free(s);
		}
	}
	for (size_t i = 0; !wk.failed && i < wk.nr_mods; i++)
		read_mod(&wk, dir, wk.mods[i]);
	for (size_t i = 0; i < wk.nr_mods; i++)
		free(wk.mods[i]);
	free(wk.mods);
	free(wk.prefix);
	free(srctree);
	if (wk.failed) {
		kbuild_map_release(out);
		return -1;
	}
	sort_pairs(out->objects, out->nr_objects);
	sort_pairs(out->composites, out->nr_composites);
	return 0;
}

static const char *lookup(const struct kbuild_pair *v, size_t nr,
			  const char *key)
{
	struct kbuild_pair k = { (char *)(uintptr_t)key, NULL };
	const struct kbuild_pair *p;

	if (!nr || !key)
		return NULL;
	p = bsearch(&k, v, nr, sizeof(*v), pair_cmp);
	return p ? p->value : NULL;
}

const char *kbuild_object(const struct kbuild_map *m, const char *source)
{
	return lookup(m->objects, m->nr_objects, source);
}

const char *kbuild_composite(const struct kbuild_map *m, const char *object)
{
	return lookup(m->composites, m->nr_composites, object);
}

void kbuild_map_release(struct kbuild_map *m)
{
	for (size_t i = 0; i < m->nr_objects; i++) {
		free(m->objects[i].key);
		free(m->objects[i].value);
	}
	for (size_t i = 0; i < m->nr_composites; i++) {
		free(m->composites[i].key);
		free(m->composites[i].value);
	}
	free(m->objects);
	free(m->composites);
	memset(m, 0, sizeof(*m));
}
