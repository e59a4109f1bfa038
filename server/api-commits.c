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

/*
 * What point P's commit changes, from the cached repository of its tree,
 * as a new object (without the commit); NULL with *why (a new string)
 * when it cannot be read.
 */
static json_t *point_patch(char **why, sqlite3 *db, const struct query_point *p)
{
	struct srctree_patch pt;
	char *repo = tree_repo_path(db, p->sha);
	json_t *o;

	*why = NULL;
	if (!repo || srctree_patch(&pt, repo, p->sha, MAX_PATCH_TEXT)) {
		*why = xstrfmt("no patch of commit #%ld %.12s (run %lld): %s",
			       p->position, p->sha, p->run_id,
			       repo ? "the tree cache cannot read it" :
				      "its tree is not in the tree cache");
		free(repo);
		return NULL;
	}
	free(repo);
	o = json_object();
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
	srctree_patch_release(&pt);
	return o;
}

/*
 * Commit COMMIT_ID's detail into REPLY, its patch as "change" (or null,
 * and "change_error" why): the commit page in one answer.  0, or -1 with
 * the error in REPLY.
 */
static int commit_reply(struct api_reply *reply, sqlite3 *db,
			long long commit_id, const char *what)
{
	struct query_point p;
	json_t *o = NULL, *change;
	char *why = NULL;

	if (query_commit_detail(&o, db, commit_id))
		return api_db_fail(reply, db);
	if (!o)
		return api_fail(reply, 404, "no commit %s", what);
	if (query_point(&p, db, commit_id)) {
		json_decref(o);
		return api_db_fail(reply, db);
	}
	change = point_patch(&why, db, &p);
	api_set(o, "change", change);
	if (why)
		api_set(o, "change_error", jstr(why));
	free(why);
	query_point_release(&p);
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

int api_commit_patch(struct api_reply *reply, const struct api_req *r)
{
	struct query_point p;
	char *why = NULL;
	json_t *o;

	if (api_point_resolve(&p, reply, r, r->args[0]))
		return -1;
	o = point_patch(&why, r->db, &p);
	if (!o) {
		api_fail(reply, 404, "%s", why);
		free(why);
		query_point_release(&p);
		return -1;
	}
	/* the commit first, as in every answer about one */
	reply->json = json_object();
	api_set(reply->json, "commit", api_point_json(&p));
	json_object_update(reply->json, o);
	json_decref(o);
	query_point_release(&p);
	return 0;
}
