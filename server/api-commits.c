// SPDX-License-Identifier: MIT
/*
 * One commit as the dashboard's commit page shows it: what the database
 * holds of it and its neighbours in the run, by reference or by its
 * position in a run, and its patch from the collector's cached repository
 * of the tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "query.h"
#include "server.h"
#include "srctree.h"
#include "util.h"
#include "banned.h"

/*
 * The diff of a patch is cut past 1 MB: more than anyone reads on a
 * page, and twice the largest answer kept whole (api.c).  Its list of
 * files and their counts stay whole.
 */
#define MAX_PATCH_TEXT (1u << 20)

/* COMMIT_ID's detail into REPLY: 0, or -1 with the error in REPLY. */
static int commit_reply(struct api_reply *reply, sqlite3 *db,
			long long commit_id, const char *what)
{
	json_t *o = NULL;

	if (query_commit_detail(&o, db, commit_id))
		return api_db_fail(reply, db);
	if (!o)
		return api_fail(reply, 404, "no commit %s", what);
	reply->json = o;
	return 0;
}

int api_commit(struct api_reply *reply, const struct api_req *r)
{
	struct query_point p;
	char *what;
	int ret;

	if (api_point_resolve(&p, reply, r, r->args[0]))
		return -1;
	what = xstrfmt("'%s'", r->args[0]);
	ret = commit_reply(reply, r->db, p.commit_id, what);
	free(what);
	query_point_release(&p);
	return ret;
}

int api_run_commit(struct api_reply *reply, const struct api_req *r)
{
	long long run, pos, id;
	char *what;
	int ret, rc;

	if (api_parse_id(&run, reply, "run id", r->args[0]))
		return -1;
	if (api_parse_int(&pos, r->args[1], 0, 0x7fffffffLL))
		return api_fail(reply, 400,
				"bad position '%s': want 0 or a positive"
				" integer",
				r->args[1]);
	rc = api_run_exists(reply, r->db, run);
	if (rc <= 0)
		return rc < 0 ? -1 : api_fail(reply, 404, "no run %lld", run);
	if (query_commit_at(&id, r->db, run, pos))
		return api_db_fail(reply, r->db);
	if (id < 0)
		return api_fail(reply, 404, "no commit #%lld in run %lld", pos,
				run);
	what = xstrfmt("#%lld of run %lld", pos, run);
	ret = commit_reply(reply, r->db, id, what);
	free(what);
	return ret;
}

static json_t *patch_files(const struct srctree_patch *pt)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < pt->nfiles; i++) {
		const struct srctree_file *f = &pt->files[i];
		json_t *o = json_object();

		api_set(o, "path", jstr(f->path));
		api_set(o, "old_path", f->old_path ? jstr(f->old_path) : NULL);
		api_set(o, "status", json_stringn(&f->status, 1));
		api_set(o, "binary", json_boolean(f->binary));
		api_set(o, "additions", json_integer(f->additions));
		api_set(o, "deletions", json_integer(f->deletions));
		json_array_append_new(arr, o);
	}
	return arr;
}

int api_commit_patch(struct api_reply *reply, const struct api_req *r)
{
	struct srctree_patch pt;
	struct query_point p;
	char *repo = NULL;
	json_t *o;
	int ret = -1;

	if (api_point_resolve(&p, reply, r, r->args[0]))
		return -1;
	repo = tree_repo_path(r->db, p.sha);
	if (!repo) {
		api_fail(reply, 404,
			 "no patch of commit #%ld %.12s (run %lld): its tree is"
			 " not in the tree cache",
			 p.position, p.sha, p.run_id);
		goto out;
	}
	if (srctree_patch(&pt, repo, p.sha, MAX_PATCH_TEXT)) {
		api_fail(reply, 404,
			 "no patch of commit #%ld %.12s (run %lld): the tree"
			 " cache cannot read it",
			 p.position, p.sha, p.run_id);
		goto out;
	}
	o = json_object();
	api_set(o, "commit", api_point_json(&p));
	api_set(o, "parent", pt.parent ? jstr(pt.parent) : NULL);
	api_set(o, "author", jstr(pt.author));
	api_set(o, "email", jstr(pt.email));
	api_set(o, "date", json_integer(pt.date));
	api_set(o, "message", jstr(pt.message));
	api_set(o, "files", patch_files(&pt));
	api_set(o, "additions", json_integer(pt.additions));
	api_set(o, "deletions", json_integer(pt.deletions));
	api_set(o, "diff", jstr(pt.diff));
	api_set(o, "truncated", json_boolean(pt.truncated));
	reply->json = o;
	srctree_patch_release(&pt);
	ret = 0;
out:
	free(repo);
	query_point_release(&p);
	return ret;
}
