// SPDX-License-Identifier: MIT
/*
 * kwarn run, the making of points: the base overlay and a quilt series
 * applied to the imported tree as commits, a git range, or the plain tree;
 * the installed trees a series can run on; the points stored as commits.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kwarn.h"
#include "run.h"
#include "store.h"
#include "tree.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

static void point_add(struct run *r, const git_oid *oid, const char *subject,
		      const char *author, long long date, const char *patch,
		      char *changed)
{
	struct point *p;

	r->points = xrealloc(r->points, (r->nr_points + 1) * sizeof(*p));
	p = &r->points[r->nr_points++];
	memset(p, 0, sizeof(*p));
	p->oid = *oid;
	git_oid_tostr(p->sha, sizeof(p->sha), oid);
	p->subject = xstrdup(subject);
	p->author = xstrdup(author ? author : "");
	p->date = date;
	p->patch = patch ? xstrdup(patch) : NULL;
	p->changed = changed;
}

/* Read a quilt series file: patch paths relative to its directory. */
static int read_series(char ***out, size_t *nr, const char *path)
{
	char *text = NULL, *line, *next, *dir = xstrdup(path), *slash;
	char **list = NULL;
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else {
		free(dir);
		dir = xstrdup(".");
	}
	if (util_read_file(&text, NULL, path, CAP_SMALL_FILE)) {
		free(dir);
		return -1;
	}
	for (line = text; line && *line; line = next) {
		char *p, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		end = line + strcspn(line, " \t");
		*end = '\0';
		p = xstrfmt("%s/%s", dir, line);
		if (access(p, R_OK)) {
			error("series '%s' names '%s', which is missing", path,
			      line);
			free(p);
			for (size_t i = 0; i < n; i++)
				free(list[i]);
			free(list);
			free(text);
			free(dir);
			return -1;
		}
		list = xrealloc(list, (n + 1) * sizeof(*list));
		list[n++] = p;
	}
	free(text);
	free(dir);
	*out = list;
	*nr = n;
	return 0;
}

void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* Apply the base overlay (if any) and the series; fills r->points. */
int make_points(struct run *r)
{
	char **base = NULL, **series = NULL, *base_series = NULL, *dir, *s;
	size_t nb = 0, ns = 0;
	git_oid head = r->tree->base, next;
	int ret = -1;

	dir = xstrdup(r->series);
	s = strrchr(dir, '/');
	if (s)
		*s = '\0';
	base_series = xstrfmt("%s/base/series", s ? dir : ".");
	if (!access(base_series, R_OK) && read_series(&base, &nb, base_series))
		goto out;
	if (read_series(&series, &ns, r->series))
		goto out;
	for (size_t i = 0; i < nb; i++) {
		struct patch_mail m;
		char *changed = NULL, *err = NULL;

		if (tree_apply_patch(&next, &changed, &err, r->tree, &head,
				     base[i], &m)) {
			const char *name = strrchr(base[i], '/');

			/*
			 * An expected outcome on a newer tree, recorded as a
			 * patch of the series that does not apply is: the run
			 * gets one unbuilt point, the import, and the reason.
			 */
			r->apply_failure = xstrfmt(
				"base overlay patch %zu '%s' does not apply to %s %s: %s",
				i + 1, name ? name + 1 : base[i], r->tree->name,
				r->tree->version ? r->tree->version : "",
				err ? err : "?");
			point_add(r, &r->tree->base, "campaign base", "kwarn",
				  0, NULL, NULL);
			r->points[r->nr_points - 1].unapplied = 1;
			free(err);
			patch_mail_release(&m);
			ret = 0;
			goto out;
		}
		free(changed);
		patch_mail_release(&m);
		head = next;
	}
	{
		char *changed = NULL;

		/* the base point: what the overlay changed is "touched" */
		if (nb && tree_commit_changes(&changed, r->tree, &head))
			goto out;
		if (!nb)
			changed = NULL;
		point_add(r, &head, nb ? "campaign base" : "base", "kwarn", 0,
			  NULL, changed);
	}
	if (nb > 0) {
		/* diff of the whole overlay against the import */
		git_commit *c = NULL, *b = NULL;
		git_tree *ct = NULL, *bt = NULL;
		git_diff *diff = NULL;

		if (!git_commit_lookup(&c, r->tree->repo, &head) &&
		    !git_commit_lookup(&b, r->tree->repo, &r->tree->base) &&
		    !git_commit_tree(&ct, c) && !git_commit_tree(&bt, b) &&
		    !git_diff_tree_to_tree(&diff, r->tree->repo, bt, ct,
					   NULL)) {
			json_t *o = json_object();

			for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
				const git_diff_delta *d =
					git_diff_get_delta(diff, i);

				json_object_set_new(o, d->new_file.path,
						    json_array());
			}
			free(r->points[0].changed);
			r->points[0].changed =
				json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
			json_decref(o);
		}
		git_diff_free(diff);
		git_tree_free(ct);
		git_tree_free(bt);
		git_commit_free(c);
		git_commit_free(b);
	}
	for (size_t i = 0; i < ns; i++) {
		struct patch_mail m;
		char *changed = NULL, *err = NULL;
		const char *name = strrchr(series[i], '/');

		name = name ? name + 1 : series[i];
		if (tree_apply_patch(&next, &changed, &err, r->tree, &head,
				     series[i], &m)) {
			r->apply_failure = xstrfmt("patch %zu '%s': %s", i + 1,
						   name, err ? err : "?");
			/* record the failing patch as a point without a build */
			point_add(r, &head, m.subject ? m.subject : name,
				  m.author_name, m.date, name, NULL);
			r->points[r->nr_points - 1].unapplied = 1;
			free(err);
			patch_mail_release(&m);
			break;
		}
		point_add(r, &next, m.subject, m.author_name, m.date, name,
			  changed);
		patch_mail_release(&m);
		head = next;
	}
	ret = 0;
out:
	free_list(base, nb);
	free_list(series, ns);
	free(base_series);
	free(dir);
	return ret;
}

int make_points_range(struct run *r)
{
	git_oid *list = NULL;
	size_t n = 0;

	if (tree_range(&list, &n, r->tree, r->range))
		return -1;
	for (size_t i = 0; i < n; i++) {
		git_commit *c = NULL;
		char *changed = NULL;

		if (git_commit_lookup(&c, r->tree->repo, &list[i])) {
			free(list);
			return git_fail("cannot read commit");
		}
		if (i)
			tree_commit_changes(&changed, r->tree, &list[i]);
		point_add(r, &list[i], git_commit_summary(c),
			  git_commit_author(c)->name,
			  (long long)git_commit_time(c), NULL, changed);
		git_commit_free(c);
	}
	free(list);
	return 0;
}

/* The plain tree: one point, the import itself. */
int make_points_plain(struct run *r)
{
	char *subject = xstrfmt("%s %s", r->tree->name,
				r->tree->version ? r->tree->version : "");

	point_add(r, &r->tree->base, subject, "kwarn", 0, NULL, NULL);
	free(subject);
	return 0;
}

static int version_cmp_desc(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	long xv[3] = { 0, 0, 0 }, yv[3] = { 0, 0, 0 };

	sscanf(strrchr(x, '/') + 1, "linux-source-%ld.%ld.%ld", &xv[0], &xv[1],
	       &xv[2]);
	sscanf(strrchr(y, '/') + 1, "linux-source-%ld.%ld.%ld", &yv[0], &yv[1],
	       &yv[2]);
	for (int i = 0; i < 3; i++)
		if (xv[i] != yv[i])
			return xv[i] > yv[i] ? -1 : 1;
	return strcmp(x, y);
}

/*
 * The candidate trees for a series: /usr/src/linux-source-*.tar.*, the
 * one the series names with "# kwarn-tree: NAME" first, then newest
 * first.  Returns how many are in the new list *out.
 */
size_t default_trees(char ***out, const char *series)
{
	char *text = NULL, *want = NULL, **list = NULL;
	DIR *d = opendir("/usr/src");
	struct dirent *de;
	size_t n = 0;

	if (series && !util_read_file(&text, NULL, series, CAP_SMALL_FILE)) {
		char *p = strstr(text, "# kwarn-tree:");

		if (p) {
			p += 13;
			while (*p == ' ')
				p++;
			want = xstrndup(p, strcspn(p, " \n"));
		}
		free(text);
	}
	while (d && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "linux-source-", 13) ||
		    !strstr(de->d_name, ".tar."))
			continue;
		list = xrealloc(list, (n + 1) * sizeof(*list));
		list[n++] = xstrfmt("/usr/src/%s", de->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), version_cmp_desc);
	for (size_t i = 0; want && i < n; i++) {
		const char *base = strrchr(list[i], '/') + 1;

		if (!strncmp(base, want, strlen(want)) &&
		    base[strlen(want)] == '.') {
			char *w = list[i];

			memmove(&list[1], &list[0], i * sizeof(*list));
			list[0] = w;
			break;
		}
	}
	free(want);
	*out = list;
	return n;
}

/* Forget the tree and the points, to try another tree. */
void run_reset_tree(struct run *r)
{
	for (size_t i = 0; i < r->nr_points; i++) {
		free(r->points[i].subject);
		free(r->points[i].author);
		free(r->points[i].patch);
		free(r->points[i].changed);
	}
	free(r->points);
	r->points = NULL;
	r->nr_points = 0;
	free(r->apply_failure);
	r->apply_failure = NULL;
	tree_free(r->tree);
	r->tree = NULL;
}

int store_points(struct run *r, struct cell *c)
{
	free(c->commit_ids);
	c->commit_ids = xcalloc(r->nr_points, sizeof(*c->commit_ids));
	for (size_t i = 0; i < r->nr_points; i++) {
		struct point *p = &r->points[i];
		struct commit_info ci = { 0 };

		ci.run_id = c->run_id;
		ci.position = (long)i;
		ci.sha = p->sha;
		ci.parent = i ? r->points[i - 1].sha : NULL;
		ci.subject = p->subject;
		ci.author = p->author;
		ci.date = p->date ? p->date : -1;
		ci.patch = p->patch;
		ci.apply_status = p->unapplied ? "failed" :
				  !i	       ? "base" :
						 "applied";
		ci.apply_error = p->unapplied ? r->apply_failure : NULL;
		ci.changed = p->changed;
		if (store_commit(&c->commit_ids[i], r->db, &ci))
			return -1;
	}
	return 0;
}
