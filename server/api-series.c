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
	long long *blank; /* a row of a fresh name */
};

/* RS, empty, for the run's COMMITS: a commit not built counts -1. */
static void rows_init(struct rows *rs, const json_t *commits)
{
	long long *blank;
	const json_t *c;
	size_t i;

	rs->ncommits = json_array_size(commits);
	rs->index = json_object();
	blank = xcalloc(rs->ncommits + 1, sizeof(*blank));
	json_array_foreach(commits, i, c)
		blank[i] = json_is_true(json_object_get(c, "built")) ? 0 : -1;
	rs->blank = blank;
}

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

/* query_run_series()'s cells into the rows CTX. */
static void add_cell(void *ctx, size_t at, const char *name, long long n)
{
	struct rows *rs = ctx;

	long long *row;

	if (at >= rs->ncommits)
		return;
	row = row_of(rs, name ? name : "");
	/* built after its commit was read as not built (a collector at work) */
	if (row[at] < 0)
		row[at] = 0;
	row[at] += n;
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
	free(rs->blank);
	json_decref(rs->index);
}

/*
 * Add the rows of FILES to RS under every MAINTAINERS entry of M that
 * covers their file: a file is matched once, whatever its number of
 * commits.
 */
static void add_by_subsystem(struct rows *rs, const struct maint *m,
			     const struct rows *files)
{
	/* XXX: a file in more than 64 entries counts for the first 64 */
	size_t idx[64], n;

	for (size_t f = 0; f < files->n; f++) {
		const long long *fc = files->count + f * files->ncommits;

		n = maint_match(idx, ARRAY_SIZE(idx), m, files->name[f]);
		if (n > ARRAY_SIZE(idx))
			n = ARRAY_SIZE(idx);
		for (size_t k = 0; k < n; k++) {
			long long *row = row_of(rs, maint_name(m, idx[k]));

			for (size_t j = 0; j < rs->ncommits; j++)
				if (fc[j] > 0)
					row[j] += fc[j];
		}
	}
}

int api_run_series(struct api_reply *reply, const struct api_req *r)
{
	const char *by = api_arg(r, "by"), *lim = api_arg(r, "limit");
	const char *off = api_arg(r, "offset");
	const struct maint *m = NULL;
	struct rows rs = { 0 }, files = { 0 };
	json_t *commits = json_array();
	long long id = 0, tree_id = -1, max = 0;
	long limit = lim ? atol(lim) : -1, offset = off ? atol(off) : 0;
	int ex, ret = -1;

	if (!by)
		by = "subsystem";
	if (api_parse_id(&id, reply, "run id", r->args[0]))
		goto out;
	ex = api_run_exists(reply, r->db, id);
	if (ex <= 0) {
		if (!ex)
			api_fail(reply, 404, "no run %lld", id);
		goto out;
	}
	/* the commits come first, then the cells: FILES is made for them */
	if (query_series_commits(commits, r->db, id)) {
		api_db_fail(reply, r->db);
		goto out;
	}
	/* by subsystem: the files' rows first, then summed under entries */
	rows_init(&rs, commits);
	if (!strcmp(by, "subsystem"))
		rows_init(&files, commits);
	if (query_run_series(commits, r->db, id,
			     !strcmp(by, "option") ? "option" : "file",
			     add_cell, files.index ? &files : &rs)) {
		api_db_fail(reply, r->db);
		goto out;
	}
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
			add_by_subsystem(&rs, m, &files);
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
	rows_free(&files);
	json_decref(commits);
	return ret;
}
