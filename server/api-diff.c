// SPDX-License-Identifier: MIT
/*
 * GET /api/diff: the warnings new, fixed, remaining and no longer built
 * between two commits, grouped by MAINTAINERS entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-views.h"
#include "json.h"
#include "query.h"
#include "server.h"
#include "util.h"
#include "banned.h"

static const char *const kinds[] = { "new", "fixed", "remaining", "not_built" };

/* The longest page of one kind: what an answer holds at most, per kind. */
#define DIFF_MAX_LIMIT 1000

static int live(const char *state)
{
	return state && (!strcmp(state, "new") || !strcmp(state, "present"));
}

/*
 * Which of kinds[] row W is: live at one side or both.  Gone at TO
 * while its object was not compiled is not_built, never fixed.
 */
static size_t kind_of(const struct diff_row *w)
{
	if (!live(w->from))
		return 0;
	if (live(w->to))
		return 2;
	return w->to && !strcmp(w->to, "not_built") ? 3 : 1;
}

/*
 * Resolve query parameter NAME (a commit; with RUN_ID, "base" or "tip":
 * the run's first or last built commit), or NAME_run (a run: its last
 * built commit, a night's tip), to a point; or 400 / 404.
 */
static int side(struct query_point *p, struct api_reply *reply,
		const struct api_req *r, const char *name, long long run_id)
{
	char runkey[16];
	const char *ref = api_arg(r, name), *run;
	long long id = -1, rid;
	int ex;

	snprintf(runkey, sizeof(runkey), "%s_run", name);
	run = api_arg(r, runkey);
	if (!!ref == !!run)
		return api_fail(reply, 400,
				ref ? "give '%s' or '%s', not both" :
				      "missing parameter '%s' (or '%s')",
				name, runkey);
	if (run) {
		if (api_parse_id(&rid, reply, runkey, run))
			return -1;
		ex = api_run_exists(reply, r->db, rid);
		if (ex <= 0)
			return ex < 0 ?
				       -1 :
				       api_fail(reply, 404, "no run %lld", rid);
		if (query_last_built(&id, r->db, rid))
			return api_db_fail(reply, r->db);
		if (id < 0)
			return api_fail(reply, 404,
					"no built commit in run %lld", rid);
	} else if (!strcmp(ref, "base") || !strcmp(ref, "tip")) {
		/* the run's first or last built commit, as the burn-down's */
		if (run_id < 0)
			return api_fail(reply, 400, "%s=%s needs 'run'", name,
					ref);
		if ((*ref == 'b' ? query_first_built :
				   query_last_built)(&id, r->db, run_id))
			return api_db_fail(reply, r->db);
		if (id < 0)
			return api_fail(reply, 404,
					"no built commit in run %lld", run_id);
	} else {
		if (query_resolve_commit(&id, r->db, ref, run_id))
			return api_db_fail(reply, r->db);
		if (id < 0)
			return api_fail(reply, 404, "no commit '%s'", ref);
	}
	if (query_point(p, r->db, id))
		return api_db_fail(reply, r->db);
	return 0;
}

static json_t *side_json(const struct query_point *p)
{
	return json_pack("{s:I,s:s,s:I,s:I}", "id", (json_int_t)p->commit_id,
			 "sha", p->sha, "position", (json_int_t)p->position,
			 "run", (json_int_t)p->run_id);
}

/*
 * The diff as it is read: every row counted (in total and under each
 * MAINTAINERS entry that covers its file), and kept only when it is on
 * the page asked for, so an answer's memory is bounded by the page.
 */
struct diff_walk {
	const struct maint *m;
	json_t *subs, *lists[ARRAY_SIZE(kinds)];
	long long count[ARRAY_SIZE(kinds)];
	long limit, offset;
	char *file; /* the last row's file: rows come sorted by file */
	/* XXX: a file in more than 64 entries counts for the first 64 */
	size_t idx[64], nidx;
};

static json_t *row_json(const struct diff_row *w)
{
	json_t *o = json_object();

	api_set(o, "identity", jstr(w->identity));
	api_set(o, "identity_id", json_integer(w->identity_id));
	api_set(o, "file", jstr(w->file));
	api_set(o, "line", w->line < 0 ? json_null() : json_integer(w->line));
	api_set(o, "function", jstr(w->function));
	api_set(o, "option", jstr(w->option));
	api_set(o, "message", jstr(w->message));
	api_set(o, "from", jstr(w->from));
	api_set(o, "to", jstr(w->to));
	api_set(o, "verdict", jstr(w->verdict));
	api_set(o, "fix", jstr(w->fix));
	api_set(o, "reason", jstr(w->reason));
	return o;
}

/* Count row W of kind K under every entry of the tree's MAINTAINERS. */
static void count_subsystems(struct diff_walk *d, const struct diff_row *w,
			     size_t k)
{
	if (!d->m || !w->file)
		return;
	if (!d->file || strcmp(d->file, w->file)) {
		free(d->file);
		d->file = xstrdup(w->file);
		d->nidx =
			maint_match(d->idx, ARRAY_SIZE(d->idx), d->m, w->file);
		if (d->nidx > ARRAY_SIZE(d->idx))
			d->nidx = ARRAY_SIZE(d->idx);
	}
	for (size_t i = 0; i < d->nidx; i++) {
		const char *name = maint_name(d->m, d->idx[i]);
		json_t *s = json_object_get(d->subs, name);

		if (!s) {
			s = json_pack("{s:s,s:i,s:i,s:i,s:i}", "name", name,
				      "new", 0, "fixed", 0, "remaining", 0,
				      "not_built", 0);
			json_object_set_new(d->subs, name, s);
		}
		json_object_set_new(
			s, kinds[k],
			json_integer(json_integer_value(
					     json_object_get(s, kinds[k])) +
				     1));
	}
}

static int diff_row(const struct diff_row *w, void *ctx)
{
	struct diff_walk *d = ctx;
	size_t k = kind_of(w);
	long long at = d->count[k]++;

	count_subsystems(d, w, k);
	if (d->lists[k] && at >= d->offset && at - d->offset < d->limit)
		json_array_append_new(d->lists[k], row_json(w));
	return 0;
}

/* limit (1 to 1000, default 1000), offset, kind: the page asked for. */
static int parse_page(struct diff_walk *d, struct api_reply *reply,
		      const struct api_req *r)
{
	const char *kind = api_arg(r, "kind");
	long offset;

	if (api_parse_page(&d->limit, &offset, reply, r))
		return -1;
	if (!api_arg(r, "limit"))
		d->limit = DIFF_MAX_LIMIT;
	d->offset = offset;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!kind || !strcmp(kind, kinds[i]))
			d->lists[i] = json_array();
	return 0;
}

int api_diff(struct api_reply *reply, const struct api_req *r)
{
	const char *run = api_arg(r, "run");
	struct query_point a = { 0 }, b = { 0 };
	struct diff_walk d = { 0 };
	json_t *counts, *arr, *v;
	long long run_id = -1;
	const char *key;
	size_t i;
	int ret = -1, ex;

	if (parse_page(&d, reply, r))
		goto out;
	if (run) {
		if (api_parse_id(&run_id, reply, "run", run))
			goto out;
		ex = api_run_exists(reply, r->db, run_id);
		if (ex <= 0) {
			if (!ex)
				api_fail(reply, 404, "no run %lld", run_id);
			goto out;
		}
	}
	if (side(&a, reply, r, "from", run_id) ||
	    side(&b, reply, r, "to", run_id))
		goto out;
	d.subs = json_object();
	if (api_tree_maint(&d.m, r->db, b.tree_id) ||
	    query_diff_each(r->db, a.commit_id, b.commit_id, diff_row, &d)) {
		api_db_fail(reply, r->db);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (d.lists[i] &&
		    query_triage_annotate(r->db, d.lists[i], "identity")) {
			api_db_fail(reply, r->db);
			goto out;
		}
	reply->json = json_object();
	json_object_set_new(reply->json, "from", side_json(&a));
	json_object_set_new(reply->json, "to", side_json(&b));
	counts = json_object();
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		json_object_set_new(counts, kinds[i],
				    json_integer((json_int_t)d.count[i]));
		if (d.lists[i])
			json_object_set(reply->json, kinds[i], d.lists[i]);
	}
	json_object_set_new(reply->json, "counts", counts);
	api_set(reply->json, "kind", jstr(api_arg(r, "kind")));
	api_set(reply->json, "limit", json_integer(d.limit));
	api_set(reply->json, "offset", json_integer(d.offset));
	json_object_set_new(reply->json, "maintainers",
			    json_boolean(d.m != NULL));
	arr = json_array();
	json_object_foreach(d.subs, key, v)
		json_array_append(arr, v);
	json_object_set_new(reply->json, "subsystems", arr);
	ret = 0;
out:
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		json_decref(d.lists[i]);
	json_decref(d.subs);
	free(d.file);
	query_point_release(&a);
	query_point_release(&b);
	return ret;
}
