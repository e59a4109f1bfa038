// SPDX-License-Identifier: MIT
/*
 * GET /api/diff: the warnings new, fixed, remaining and no longer built
 * between two commits, grouped by MAINTAINERS entry.
 */
#include <stdio.h>
#include <string.h>

#include "api-views.h"
#include "json.h"
#include "query.h"
#include "util.h"
#include "banned.h"

static const char *const kinds[] = { "new", "fixed", "remaining", "not_built" };

static int live(const char *state)
{
	return state && (!strcmp(state, "new") || !strcmp(state, "present"));
}

/*
 * Which of kinds[] warning W (query_diff()) is: live at one side or
 * both.  Gone at TO while its object was not compiled is not_built,
 * never fixed.
 */
static size_t kind_of(json_t *w)
{
	const char *a = json_string_value(json_object_get(w, "from"));
	const char *b = json_string_value(json_object_get(w, "to"));

	if (!live(a))
		return 0;
	if (live(b))
		return 2;
	return b && !strcmp(b, "not_built") ? 3 : 1;
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

/* Count warning W of kind K under every entry of M that covers it. */
static void count_subsystems(json_t *subs, const struct maint *m, json_t *w,
			     size_t k)
{
	/* XXX: a file in more than 64 entries counts for the first 64 */
	size_t idx[64], n;
	const char *f = json_string_value(json_object_get(w, "file"));

	if (!m || !f)
		return;
	n = maint_match(idx, ARRAY_SIZE(idx), m, f);
	if (n > ARRAY_SIZE(idx))
		n = ARRAY_SIZE(idx);
	for (size_t i = 0; i < n; i++) {
		const char *name = maint_name(m, idx[i]);
		json_t *s = json_object_get(subs, name);

		if (!s) {
			s = json_pack("{s:s,s:i,s:i,s:i,s:i}", "name", name,
				      "new", 0, "fixed", 0, "remaining", 0,
				      "not_built", 0);
			json_object_set_new(subs, name, s);
		}
		json_object_set_new(
			s, kinds[k],
			json_integer(json_integer_value(
					     json_object_get(s, kinds[k])) +
				     1));
	}
}

int api_diff(struct api_reply *reply, const struct api_req *r)
{
	const char *run = api_arg(r, "run");
	struct query_point a = { 0 }, b = { 0 };
	const struct maint *m = NULL;
	json_t *rows = NULL, *lists[4], *counts, *subs, *arr, *w, *v;
	long long run_id = -1;
	const char *key;
	size_t i;
	int ret = -1, ex;

	if (run) {
		if (api_parse_id(&run_id, reply, "run", run))
			return -1;
		ex = api_run_exists(reply, r->db, run_id);
		if (ex <= 0)
			return ex < 0 ? -1 :
					api_fail(reply, 404, "no run %lld",
						 run_id);
	}
	if (side(&a, reply, r, "from", run_id) ||
	    side(&b, reply, r, "to", run_id))
		goto out;
	if (query_diff(&rows, r->db, a.commit_id, b.commit_id) ||
	    api_tree_maint(&m, r->db, b.tree_id)) {
		api_db_fail(reply, r->db);
		goto out;
	}
	subs = json_object();
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		lists[i] = json_array();
	json_array_foreach(rows, i, w) {
		size_t k = kind_of(w);

		json_array_append(lists[k], w);
		count_subsystems(subs, m, w, k);
	}
	reply->json = json_object();
	json_object_set_new(reply->json, "from", side_json(&a));
	json_object_set_new(reply->json, "to", side_json(&b));
	counts = json_object();
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		json_object_set_new(
			counts, kinds[i],
			json_integer((json_int_t)json_array_size(lists[i])));
		json_object_set_new(reply->json, kinds[i], lists[i]);
	}
	json_object_set_new(reply->json, "counts", counts);
	json_object_set_new(reply->json, "maintainers",
			    json_boolean(m != NULL));
	arr = json_array();
	json_object_foreach(subs, key, v)
		json_array_append(arr, v);
	json_decref(subs);
	json_object_set_new(reply->json, "subsystems", arr);
	ret = 0;
out:
	json_decref(rows);
	query_point_release(&a);
	query_point_release(&b);
	return ret;
}
