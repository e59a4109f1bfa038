// SPDX-License-Identifier: MIT
/*
 * The marker census of many files: census_scan() of each (census.c),
 * added up per marker spelling, as the JSON `kwarn census --format json`
 * prints and GET /api/commits/{id}/census serves.
 */
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "census-tree.h"
#include "json.h"
#include "srctree.h"
#include "util.h"
#include "banned.h"

static struct census_tally_row *
tally_find(struct census_tally *r, enum census_marker kind, const char *sp)
{
	struct census_tally_row *row;

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

json_t *census_notes_json(unsigned notes)
{
	json_t *a = json_array();

	for (size_t i = 0; i < ARRAY_SIZE(note_names); i++)
		if (notes & (1u << i))
			json_array_append_new(a, json_string(note_names[i]));
	return a;
}

int census_tally_visit(void *ctx, const char *path, const char *buf, size_t len)
{
	struct census_tally *r = ctx;
	struct census_file f;

	census_scan(&f, buf, len);
	if (f.notes) {
		json_t *o = json_object();

		json_object_set_new(o, "file", jstr(path));
		json_object_set_new(o, "notes", census_notes_json(f.notes));
		json_array_append_new(r->notes, o);
	}
	for (size_t i = 0; i < f.nr; i++) {
		const struct census_label *l = &f.labels[i];
		struct census_tally_row *row;

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
			struct census_upgrade *u;

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
	const struct census_tally_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->spelling, y->spelling);
}

json_t *census_tally_json(const struct census_tally *r,
			  const struct srctree_walk *w, const char *what,
			  int upgrade)
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

void census_tally_release(struct census_tally *r)
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

void census_tally_sort(struct census_tally *r)
{
	qsort(r->rows, r->nr, sizeof(*r->rows), row_cmp);
}

int census_git_json(json_t **out, const char *repo_path, const char *rev,
		    const char *prefix)
{
	struct census_tally r = { 0 };
	struct srctree_walk w = { 0 };
	char *what;
	int ret = -1;

	*out = NULL;
	r.notes = json_array();
	w.fn = census_tally_visit;
	w.ctx = &r;
	if (!srctree_walk_git(&w, repo_path, rev, prefix)) {
		census_tally_sort(&r);
		what = prefix && *prefix ?
			       xstrfmt("%s@%s:%s", repo_path, rev, prefix) :
			       xstrfmt("%s@%s", repo_path, rev);
		*out = census_tally_json(&r, &w, what, 0);
		free(what);
		ret = 0;
	}
	census_tally_release(&r);
	srctree_walk_release(&w);
	return ret;
}
