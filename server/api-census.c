// SPDX-License-Identifier: MIT
/*
 * The fall-through marker census of a commit's tree.
 */
#include <assert.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "query.h"
#include "server.h"
#include "util.h"
#include "census-tree.h"
#include "srctree.h"
#include "banned.h"

/* the marker census of a commit's tree */

/*
 * Answers by commit sha and path prefix.  A tree at a commit never
 * changes, so they outlive database changes; a kernel tree takes some
 * 20 s, so one census is taken at a time and the others wait for it.
 */
static pthread_mutex_t census_scan_lock = PTHREAD_MUTEX_INITIALIZER;

/* The cached answer for KEY into REPLY; 1 if there was one, else 0. */
static int census_cached(struct api_reply *reply, const char *key)
{
	struct cache_ent *e;

	cache_lock(&api_census_cache);
	e = cache_find(&api_census_cache, key);
	if (e)
		cache_serve(reply, e);
	cache_unlock(&api_census_cache);
	return e != NULL;
}

/* Keep REPLY's answer under KEY, in the least recently used slot. */
static void census_keep(const char *key, const struct api_reply *reply)
{
	struct cache_ent *e;

	cache_lock(&api_census_cache);
	e = cache_slot(&api_census_cache, key);
	assert(e);
	e->blob = blob_ref(reply->blob);
	e->gz = reply->gz ? blob_ref(reply->gz) : NULL;
	cache_unlock(&api_census_cache);
}

/* A ?path= of the tree: relative, no "..", trailing slashes dropped. */
static int census_prefix(char **out, struct api_reply *reply, const char *s)
{
	size_t n;

	*out = NULL;
	if (!s)
		return 0;
	n = strlen(s);
	while (n && s[n - 1] == '/')
		n--;
	if (n > 1024 || s[0] == '/' || strstr(s, "..") || strchr(s, '\\'))
		return api_fail(reply, 400,
				"bad parameter 'path': want a directory or"
				" file of the tree, like drivers/firewire");
	if (n)
		*out = xstrndup(s, n);
	return 0;
}

int api_commit_census(struct api_reply *reply, const struct api_req *r)
{
	struct query_point p;
	char *prefix = NULL, *key = NULL, *repo = NULL, *text = NULL;
	json_t *o = NULL;
	int ret = -1;

	if (census_prefix(&prefix, reply, api_arg(r, "path")))
		return -1;
	if (api_point_resolve(&p, reply, r, r->args[0])) {
		free(prefix);
		return -1;
	}
	key = xstrfmt("%s:%s", p.sha, prefix ? prefix : "");
	if (census_cached(reply, key)) {
		ret = 0;
		goto out;
	}
	pthread_mutex_lock(&census_scan_lock);
	/* another request may have taken this census while we waited */
	if (census_cached(reply, key)) {
		ret = 0;
		goto out_unlock;
	}
	repo = tree_repo_path(r->db, p.sha);
	if (!repo) {
		api_fail(reply, 404,
			 "the tree of commit '%s' is not in the tree cache",
			 p.sha);
		goto out_unlock;
	}
	if (census_git_json(&o, repo, p.sha, prefix)) {
		if (prefix)
			api_fail(reply, 404, "no path '%s' at commit '%s'",
				 prefix, p.sha);
		else
			api_fail(reply, 404,
				 "cannot read commit '%s' from the tree cache",
				 p.sha);
		goto out_unlock;
	}
	/* the cache path is the server's business: name the commit */
	api_set(o, "source", jstr(prefix ? key : p.sha));
	api_set(o, "commit", jstr(p.sha));
	api_set(o, "path", prefix ? jstr(prefix) : json_null());
	text = json_dumps(o, JSON_COMPACT);
	if (!text) {
		api_fail(reply, 500, "cannot encode the census");
		goto out_unlock;
	}
	reply->blob = blob_new(text, strlen(text));
	reply->gz = blob_gzip(reply->blob);
	census_keep(key, reply);
	ret = 0;
out_unlock:
	pthread_mutex_unlock(&census_scan_lock);
out:
	json_decref(o);
	free(text);
	free(repo);
	free(key);
	free(prefix);
	query_point_release(&p);
	return ret;
}
