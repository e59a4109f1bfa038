// SPDX-License-Identifier: MIT
/*
 * GET /api/warnings/{id}/states: one warning's state at every commit of
 * a run, the strip on the dashboard's warning page, with the commits
 * that introduced and fixed it.
 */
#include <string.h>

#include "api-views.h"
#include "json.h"
#include "query.h"
#include "util.h"
#include "banned.h"

static json_t *commit_ref(json_t *c)
{
	if (!c)
		return json_null();
	return json_pack("{s:O,s:O,s:O,s:O}", "id", json_object_get(c, "id"),
			 "sha", json_object_get(c, "sha"), "position",
			 json_object_get(c, "position"), "subject",
			 json_object_get(c, "subject"));
}

int api_warning_states(struct api_reply *reply, const struct api_req *r)
{
	const char *ident = r->args[0], *run = api_arg(r, "run");
	json_t *got = NULL, *c, *intro = NULL, *fixed = NULL, *chain = NULL;
	long long run_id = -1;
	size_t i;
	int ex;

	if (!*ident || strlen(ident) > 128)
		return api_fail(reply, 400, "bad warning identity");
	if (run) {
		if (api_parse_id(&run_id, reply, "run", run))
			return -1;
		ex = api_run_exists(reply, r->db, run_id);
		if (ex <= 0)
			return ex < 0 ? -1 :
					api_fail(reply, 404, "no run %lld",
						 run_id);
	}
	if (query_identity_states(&got, r->db, ident, run_id))
		return api_db_fail(reply, r->db);
	if (!got)
		return api_fail(reply, 404, "no warning '%s'", ident);
	/* introduced: where it became new (else where it is first seen) */
	json_array_foreach(json_object_get(got, "states"), i, c) {
		const char *s = json_string_value(json_object_get(c, "state"));

		if (!s)
			continue;
		if (!chain &&
		    json_is_string(json_object_get(c, "include_chain")))
			chain = json_object_get(c, "include_chain");
		if (!strcmp(s, "new") || (!intro && (!strcmp(s, "present")))) {
			intro = c;
			fixed = NULL;
		} else if (intro && !fixed && !strcmp(s, "fixed")) {
			fixed = c;
		}
	}
	json_object_set_new(got, "introduced", commit_ref(intro));
	json_object_set_new(got, "fixed", commit_ref(fixed));
	json_object_set_new(got, "include_chain",
			    chain ? json_incref(chain) : json_null());
	reply->json = got;
	return 0;
}
