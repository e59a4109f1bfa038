// SPDX-License-Identifier: MIT
/*
 * GET /api/runs/{id}/series: a run's counts per commit for every
 * subsystem, file or option in one answer, what the dashboard's
 * "over time" tables and sparklines are drawn from.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api-views.h"
#include "json.h"
#include "query.h"
#include "util.h"
#include "banned.h"

/* The rows being summed: one name and one count per commit each. */
struct rows {
	json_t *index; /* name -> row number */
	char **name;
	long long *count; /* n * ncommits; -1: not built */
	size_t n, cap, ncommits;
	const long long *blank; /* a row of a fresh name */
};

static long long *row_of(struct rows *rs, const char *name)
{
	json_t *at = json_object_get(rs->index, name);
	size_t i;

	if (at)
		return rs->count +
		       (size_t)json_integer_value(at) * rs->ncommits;
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 64;
		rs->name = xrealloc(rs->name, rs->cap * sizeof(*rs->name));
		rs->count = xrealloc(rs->count, rs->cap * rs->ncommits *
							sizeof(*rs->count));
	}
	i = rs->n++;
	rs->name[i] = xstrdup(name);
	memcpy(rs->count + i * rs->ncommits, rs->blank,
	       rs->ncommits * sizeof(*rs->count));
	json_object_set_new(rs->index, name, json_integer((json_int_t)i));
	return rs->count + i * rs->ncommits;
}

static const struct rows *sort_rows; /* qsort has no context */

static int by_base(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	long long ci = sort_rows->count[i * sort_rows->ncommits];
	long long ck = sort_rows->count[k * sort_rows->ncommits];

	if (ci != ck)
		return ci < ck ? 1 : -1;
	return strcmp(sort_rows->name[i], sort_rows->name[k]);
}

/*
 * ROWS as the answer's "rows", by count at the base, then name: LIMIT of
 * them (< 0: all) from OFFSET.  *max gets the largest count of all.
 */
static json_t *rows_json(struct rows *rs, long limit, long offset,
			 long long *max)
{
	static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;
	size_t *order = xcalloc(rs->n + 1, sizeof(*order));
	json_t *arr = json_array();

	for (size_t i = 0; i < rs->n; i++)
		order[i] = i;
	pthread_mutex_lock(&sort_lock);
	sort_rows = rs;
	qsort(order, rs->n, sizeof(*order), by_base);
	pthread_mutex_unlock(&sort_lock);
	*max = 0;
	for (size_t k = 0; k < rs->n * rs->ncommits; k++)
		if (rs->count[k] > *max)
			*max = rs->count[k];
	for (size_t k = (size_t)offset;
	     k < rs->n && (limit < 0 || k < (size_t)(offset + limit)); k++) {
		const long long *c = rs->count + order[k] * rs->ncommits;
		json_t *counts = json_array();

		for (size_t j = 0; j < rs->ncommits; j++)
			json_array_append_new(counts,
					      c[j] < 0 ? json_null() :
							 json_integer(c[j]));
		json_array_append_new(arr, json_pack("{s:s,s:o}", "name",
						     rs->name[order[k]],
						     "counts", counts));
	}
	free(order);
	return arr;
}

static void rows_free(struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		free(rs->name[i]);
	free(rs->name);
	free(rs->count);
	json_decref(rs->index);
}

/*
 * Add CELLS ([[commit, file, count]]) to RS under every MAINTAINERS entry
 * of M that covers the file, each file matched once.
 */
static void add_by_subsystem(struct rows *rs, const struct maint *m,
			     json_t *cells)
{
	/* XXX: a file in more than 64 entries counts for the first 64 */
	size_t idx[64], n, i;
	json_t *memo = json_object(), *cell;

	json_array_foreach(cells, i, cell) {
		const char *f = json_string_value(json_array_get(cell, 1));
		json_int_t at = json_integer_value(json_array_get(cell, 0));
		json_int_t cnt = json_integer_value(json_array_get(cell, 2));
		json_t *list, *e;
		size_t k;

		if (!f || at < 0 || (size_t)at >= rs->ncommits)
			continue;
		list = json_object_get(memo, f);
		if (!list) {
			n = maint_match(idx, ARRAY_SIZE(idx), m, f);
			if (n > ARRAY_SIZE(idx))
				n = ARRAY_SIZE(idx);
			list = json_array();
			for (k = 0; k < n; k++)
				json_array_append_new(
					list, json_integer((json_int_t)idx[k]));
			json_object_set_new(memo, f, list);
		}
		json_array_foreach(list, k, e) {
			long long *row = row_of(
				rs,
				maint_name(m, (size_t)json_integer_value(e)));

			row[at] += cnt;
		}
	}
	json_decref(memo);
}

int api_run_series(struct api_reply *reply, const struct api_req *r)
{
	const char *by = api_arg(r, "by"), *lim = api_arg(r, "limit");
	const char *off = api_arg(r, "offset");
	const struct maint *m = NULL;
	struct rows rs = { 0 };
	json_t *got = NULL, *commits, *cells, *c, *cell;
	long long id = 0, tree_id = -1, *blank = NULL, max = 0;
	long limit = lim ? atol(lim) : -1, offset = off ? atol(off) : 0;
	size_t i;
	int ex, ret = -1;

	if (!by)
		by = "subsystem";
	if (api_parse_id(&id, reply, "run id", r->args[0]))
		return -1;
	ex = api_run_exists(reply, r->db, id);
	if (ex <= 0)
		return ex < 0 ? -1 : api_fail(reply, 404, "no run %lld", id);
	if (query_run_series(&got, r->db, id,
			     !strcmp(by, "option") ? "option" : "file"))
		return api_db_fail(reply, r->db);
	commits = json_object_get(got, "commits");
	cells = json_object_get(got, "cells");
	rs.ncommits = json_array_size(commits);
	rs.index = json_object();
	blank = xcalloc(rs.ncommits + 1, sizeof(*blank));
	json_array_foreach(commits, i, c)
		blank[i] = json_is_true(json_object_get(c, "built")) ? 0 : -1;
	rs.blank = blank;
	reply->json = json_object();
	json_object_set_new(reply->json, "run", json_integer(id));
	json_object_set_new(reply->json, "by", json_string(by));
	json_object_set_new(reply->json, "commits", json_incref(commits));
	if (!strcmp(by, "subsystem")) {
		json_t *run = NULL;

		if (query_run(&run, r->db, id)) {
			api_db_fail(reply, r->db);
			goto out;
		}
		tree_id = json_integer_value(
			json_object_get(json_object_get(run, "tree"), "id"));
		json_decref(run);
		if (api_tree_maint(&m, r->db, tree_id)) {
			api_db_fail(reply, r->db);
			goto out;
		}
		json_object_set_new(reply->json, "maintainers",
				    json_boolean(m != NULL));
		if (m)
			add_by_subsystem(&rs, m, cells);
	} else {
		json_array_foreach(cells, i, cell) {
			const char *name =
				json_string_value(json_array_get(cell, 1));
			json_int_t at =
				json_integer_value(json_array_get(cell, 0));

			if (at < 0 || (size_t)at >= rs.ncommits)
				continue;
			row_of(&rs, name ? name : "")[at] +=
				json_integer_value(json_array_get(cell, 2));
		}
	}
	/* limit and offset page the rows (checked by api_dispatch) */
	json_object_set_new(reply->json, "total_rows",
			    json_integer((json_int_t)rs.n));
	json_object_set_new(reply->json, "offset", json_integer(offset));
	json_object_set_new(reply->json, "rows",
			    rows_json(&rs, limit, offset, &max));
	json_object_set_new(reply->json, "max", json_integer(max));
	ret = 0;
out:
	rows_free(&rs);
	free(blank);
	json_decref(got);
	return ret;
}
