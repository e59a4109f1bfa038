// SPDX-License-Identifier: MIT
/*
 * The runs, the trees, health, and a run's burn-down.
 */
#include <assert.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "query.h"
#include "server.h"
#include "util.h"
#include "banned.h"

/* runs, trees, health */

int api_health(struct api_reply *reply, const struct api_req *r)
{
	long long runs = 0;

	if (query_run_total(&runs, r->db))
		return api_db_fail(reply, r->db);
	reply->json = json_object();
	api_set(reply->json, "status", json_string("ok"));
	api_set(reply->json, "schema", json_integer(db_schema_version()));
	api_set(reply->json, "runs", json_integer(runs));
	api_set(reply->json, "triage", json_boolean(api_triage_enabled()));
	return 0;
}

int api_runs(struct api_reply *reply, const struct api_req *r)
{
	if (query_runs(&reply->json, r->db, -1))
		return api_db_fail(reply, r->db);
	return 0;
}

int api_nightly(struct api_reply *reply, const struct api_req *r)
{
	if (query_nightly_reports(&reply->json, r->db))
		return api_db_fail(reply, r->db);
	return 0;
}

int api_trees(struct api_reply *reply, const struct api_req *r)
{
	if (query_trees(&reply->json, r->db))
		return api_db_fail(reply, r->db);
	return 0;
}

int api_run(struct api_reply *reply, const struct api_req *r)
{
	json_t *commits = NULL, *progress = NULL;
	long long id = 0;

	if (api_parse_id(&id, reply, "run id", r->args[0]))
		return -1;
	if (query_run(&reply->json, r->db, id))
		return api_db_fail(reply, r->db);
	if (!reply->json)
		return api_fail(reply, 404, "no run %lld", id);
	if (query_run_commits(&commits, r->db, id))
		return api_db_fail(reply, r->db);
	api_set(reply->json, "commit_list", commits);
	/* while it runs: where it is, as kwarn run last said */
	if (query_run_progress(&progress, r->db, id))
		return api_db_fail(reply, r->db);
	api_set(reply->json, "progress", progress);
	return 0;
}

/* burn-down */

/* 1 if run ID exists, 0 if not, -1 on error (reply filled). */
int api_run_exists(struct api_reply *reply, sqlite3 *db, long long id)
{
	int yes = 0;

	if (query_run_exists(&yes, db, id))
		return api_db_fail(reply, db);
	return yes;
}

/*
 * by_compiler on every entry of ARR: the point's live warnings in each
 * run of RUN_ID's group (kwarn run --cc ... --cc ...), null where that
 * compiler's build is missing.
 */
static int burndown_by_compiler(json_t *arr, sqlite3 *db, long long run_id)
{
	json_t *counts = NULL, *e;
	char key[24];
	size_t i;

	if (query_group_counts(&counts, db, run_id))
		return -1;
	json_array_foreach(arr, i, e) {
		json_t *bc;

		snprintf(key, sizeof(key), "%lld",
			 json_integer_value(json_object_get(e, "position")));
		bc = json_object_get(counts, key);
		api_set(e, "by_compiler", bc ? json_incref(bc) : json_object());
	}
	json_decref(counts);
	return 0;
}

static int burndown_build(json_t **out, sqlite3 *db, long long run_id)
{
	if (query_burndown(out, db, run_id) ||
	    burndown_by_compiler(*out, db, run_id)) {
		json_decref(*out);
		*out = NULL;
		return error("cannot compute burn-down of run %lld", run_id);
	}
	return 0;
}

/*
 * What a burn-down of run ID is made of, in four numbers: its commits,
 * the sum of their subjects' and states' lengths, the sum of their
 * newest build ids (a new build brings new states), and its newest boot.
 * A write elsewhere (another run, a classification) changes none of
 * them, and the burn-down is not built again for it.
 */

/*
 * group=1: the burn-down of every run of run ID's group in one answer,
 * [{id, compiler, arch, burndown}], ID first.  XXX not cached as one
 * run's is: a group is a few runs, each built in one query.
 */
static int burndown_group(struct api_reply *reply, const struct api_req *r,
			  long long id)
{
	json_t *members = NULL, *m;
	size_t i;

	if (query_group_members(&members, r->db, id))
		return api_db_fail(reply, r->db);
	if (!json_array_size(members)) {
		json_decref(members);
		return api_fail(reply, 404, "no run %lld", id);
	}
	json_array_foreach(members, i, m) {
		json_t *arr = NULL;

		if (burndown_build(
			    &arr, r->db,
			    json_integer_value(json_object_get(m, "id")))) {
			json_decref(members);
			return api_db_fail(reply, r->db);
		}
		api_set(m, "burndown", arr);
	}
	reply->json = members;
	return 0;
}

/* The check of KEY's entry that this request took on (CHECKING) failed. */
static void burndown_checked(const char *key, int checking)
{
	struct cache_ent *e;

	if (!checking)
		return;
	cache_lock(&api_cache);
	e = cache_find(&api_cache, key);
	if (e)
		e->building = 0;
	cache_unlock(&api_cache);
}

int api_burndown(struct api_reply *reply, const struct api_req *r)
{
	struct cache_ent *e;
	struct db_sig sig;
	json_t *arr = NULL;
	long long id = 0, fp[QUERY_RUN_FP];
	char *text, key[32];
	int ex, checking = 0;

	if (api_parse_id(&id, reply, "run id", r->args[0]))
		return -1;
	if (api_arg(r, "group")) {
		if (api_arg(r, "compiler") || api_arg(r, "arch"))
			return api_fail(reply, 400,
					"group with compiler or arch: "
					"one run or all of them, not both");
		return burndown_group(reply, r, id);
	}
	/* compiler=, arch=: that run of the group's burn-down */
	if (api_arg(r, "compiler") || api_arg(r, "arch")) {
		long long want = -1;

		if (query_group_run(&want, r->db, id, api_arg(r, "compiler"),
				    api_arg(r, "arch")))
			return api_db_fail(reply, r->db);
		if (want < 0)
			return api_fail(reply, 404, "no such run in group %lld",
					id);
		id = want;
	}
	snprintf(key, sizeof(key), "burndown:%lld", id);
	cache_db_sig(&sig, r->db);
	cache_lock(&api_cache);
	e = cache_find(&api_cache, key);
	if (e && e->blob) {
		/*
		 * The database changed: one request checks whether this run
		 * did (and rebuilds it if so); the others meanwhile get the
		 * answer of a moment ago, as they would have a moment ago.
		 * A write costs one check, not one per request in flight.
		 */
		if (cache_sig_equal(&e->sig, &sig) || e->building)
			cache_serve(reply, e);
		else
			e->building = checking = 1;
	}
	cache_unlock(&api_cache);
	if (reply->blob)
		return 0;
	if (query_run_fingerprint(fp, r->db, id)) {
		burndown_checked(key, checking);
		return api_db_fail(reply, r->db);
	}
	/* the database changed, but maybe not this run */
	cache_lock(&api_cache);
	e = cache_find(&api_cache, key);
	if (e && e->blob && !memcmp(e->fp, fp, sizeof(fp))) {
		e->sig = sig;
		e->building = 0;
		cache_serve(reply, e);
	}
	cache_unlock(&api_cache);
	if (reply->blob)
		return 0;
	ex = api_run_exists(reply, r->db, id);
	if (ex <= 0) {
		burndown_checked(key, checking);
		return ex < 0 ? -1 : api_fail(reply, 404, "no run %lld", id);
	}
	if (burndown_build(&arr, r->db, id)) {
		burndown_checked(key, checking);
		return api_db_fail(reply, r->db);
	}
	text = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	if (!text) {
		burndown_checked(key, checking);
		return api_fail(reply, 500, "cannot encode the burn-down");
	}
	reply->blob = blob_new(text, strlen(text));
	reply->gz = blob_gzip(reply->blob);
	free(text);
	cache_lock(&api_cache);
	e = cache_slot(&api_cache, key);
	assert(e);
	e->sig = sig;
	memcpy(e->fp, fp, sizeof(fp));
	e->blob = blob_ref(reply->blob);
	e->gz = reply->gz ? blob_ref(reply->gz) : NULL;
	cache_unlock(&api_cache);
	return 0;
}
