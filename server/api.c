// SPDX-License-Identifier: MIT
/*
 * The JSON API: the route table, the checks of every request, the
 * dispatch and the answers kept between writes; the endpoints are in
 * api-*.c by resource.  Request data reaches SQL only as bound parameters.
 *
 * A "point" is one commit of a run.  The warnings at a point are its
 * `states` rows in state new or present (one per identity: a header
 * warning printed by ten objects is one warning).  A commit is named by
 * its exact sha (or the REF given to `kwarn ingest`), else by a decimal
 * commits.id, else by a sha prefix of at least 7 characters; when several
 * runs hold it, the newest wins unless ?run= says which.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "parse.h"
#include "server.h"
#include "api-views.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

#define DEFAULT_LIMIT 100
#define MAX_LIMIT 1000
#define MAX_OFFSET 1000000000

/* helpers */

int api_db_fail(struct api_reply *reply, sqlite3 *db)
{
	/* busy or gone: the client may retry; details stay in our log */
	error("query failed: %s", sqlite3_errmsg(db));
	return api_fail(reply, 503, "database query failed");
}

void api_set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

#define MAX_ID 0x7fffffffffffLL

/*
 * The one rule for an integer of the request, in the path or the query:
 * decimal digits only (no sign, space or leading zero), from MIN to MAX.
 * Returns 0 with *out set, or -1.
 */
int api_parse_int(long long *out, const char *s, long long min, long long max)
{
	size_t n = strspn(s, "0123456789");
	long long v;

	if (!n || s[n] || n > 15 || (s[0] == '0' && n > 1))
		return -1;
	v = strtoll(s, NULL, 10);
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A positive id from path or query value S named NAME, or 400. */
int api_parse_id(long long *out, struct api_reply *reply, const char *name,
		 const char *s)
{
	long long v;

	if (api_parse_int(&v, s, 1, MAX_ID))
		return api_fail(reply, 400,
				"bad parameter '%s': want a"
				" positive integer",
				name);
	*out = v;
	return 0;
}

/* The limit and offset of a list, or 400. */
int api_parse_page(long *limit, long *offset, struct api_reply *reply,
		   const struct api_req *r)
{
	const char *l = api_arg(r, "limit"), *o = api_arg(r, "offset");
	long long v;

	/* api_dispatch() checked them against params[] */
	*limit = l && !api_parse_int(&v, l, 1, MAX_LIMIT) ? (long)v :
							    DEFAULT_LIMIT;
	*offset = o && !api_parse_int(&v, o, 0, MAX_OFFSET) ? (long)v : 0;
	return 0;
}

/*
 * The server's caches (cache.c).  api_cache: burn-downs by run
 * ("burndown:ID", api-runs.c) and parsed MAINTAINERS files by tree
 * ("maint:ID", api-warnings.c); a MAINTAINERS file is parsed again when
 * the database changes and the old one retired, since another thread may
 * still read it (one per tree per database change: a few).
 * api_census_cache: census answers (api-census.c).  answers: whole
 * answers by request (below).
 */
static void maint_data_free(void *m)
{
	maint_free(m);
}

static struct cache_ent cache_slots[32];
struct cache api_cache = CACHE_INIT(cache_slots, maint_data_free);
static struct cache_ent census_slots[16];
struct cache api_census_cache = CACHE_INIT(census_slots, NULL);

static void answers_free(void);

void api_cache_free(void)
{
	cache_release(&api_result_cache);
	cache_release(&api_census_cache);
	answers_free();
	cache_release(&api_cache);
}

/* the request path: routes and their parameters */

/* How a query parameter's value is checked, whatever the route. */
static const struct param_rule {
	const char *name;
	long long min, max; /* integer range; for text, length */
	int is_text;
	const char *one_of; /* text: ',' around each allowed value */
	const char *want; /* said in the 400 */
	/* text: one of this list kept elsewhere (said in the 400), or NULL */
	const char *const *among;
} params[] = {
	{ "run", 1, MAX_ID, 0, NULL, "a positive integer", NULL },
	{ "limit", 1, MAX_LIMIT, 0, NULL, "1 to 1000", NULL },
	{ "offset", 0, MAX_OFFSET, 0, NULL, "0 to 1000000000", NULL },
	{ "context", 0, MAX_CONTEXT, 0, NULL, "0 to 200", NULL },
	{ "commit", 1, MAX_REF, 1, NULL, "a sha, a prefix or an id", NULL },
	{ "file", 1, 4096, 1, NULL, "a file of the tree", NULL },
	{ "function", 1, 4096, 1, NULL, "a function name", NULL },
	{ "option", 1, 128, 1, NULL, "a warning option", NULL },
	{ "subsystem", 1, 1024, 1, NULL, "a MAINTAINERS entry", NULL },
	{ "path", 1, 1024, 1, NULL, "a directory or file of the tree", NULL },
	{ "state", 1, 16, 1, ",new,present,fixed,not_built,",
	  "new, present, fixed or not_built", NULL },
	{ "compiler", 1, 32, 1, NULL, "a compiler (gcc, clang-16, ...)", NULL },
	{ "by", 1, 16, 1, ",subsystem,file,option,",
	  "subsystem, file or option", NULL },
	{ "from", 1, MAX_REF, 1, NULL, "a sha, a prefix or an id", NULL },
	{ "to", 1, MAX_REF, 1, NULL, "a sha, a prefix or an id", NULL },
	{ "from_run", 1, MAX_ID, 0, NULL, "a positive integer", NULL },
	{ "to_run", 1, MAX_ID, 0, NULL, "a positive integer", NULL },
	{ "arch", 1, 16, 1, ",x86_64,arm64,", "x86_64 or arm64", NULL },
	{ "group", 1, 1, 1, ",1,", "1", NULL },
	{ "triage", 1, 32, 1, NULL, NULL, triage_states },
	/* the tool of a diagnostic; /api/diff's is below */
	{ "kind", 1, 16, 1, NULL, NULL, diag_tools },
	{ "owner", 1, 256, 1, NULL, "a maintainer's name or address", NULL },
	{ "verdict", 1, 32, 1, NULL, "missing-break, intended, unsure or none",
	  NULL },
	{ "format", 1, 8, 1, ",json,csv,", "json or csv", NULL },
};

/* A parameter one route checks by a rule of its own, before params[]. */
static const struct route_param {
	const char *route;
	struct param_rule rule;
} route_params[] = {
	/* a kind of change between two commits, not a tool */
	{ "/api/diff",
	  { "kind", 1, 16, 1, ",new,fixed,remaining,not_built,",
	    "new, fixed, remaining or not_built", NULL } },
};

static const struct route {
	const char *pattern; /* "*" is one path parameter */
	int (*fn)(struct api_reply *reply, const struct api_req *r);
	const char *params; /* query parameters allowed, ' ' between */
} routes[] = {
	{ "/api/health", api_health, "" },
	{ "/api/trees", api_trees, "" },
	{ "/api/nightly", api_nightly, "" },
	{ "/api/runs", api_runs, "" },
	{ "/api/runs/*", api_run, "" },
	{ "/api/runs/*/burndown", api_burndown, "compiler arch group" },
	{ "/api/commits/*/warnings", api_commit_warnings,
	  "run state triage verdict kind limit offset compiler arch format" },
	{ "/api/commits/*/census", api_commit_census, "run path" },
	{ "/api/commits/*", api_commit, "run" },
	{ "/api/commits/*/patch", api_commit_patch, "run" },
	{ "/api/runs/*/commits/*", api_run_commit, "" },
	{ "/api/warnings", api_warnings,
	  "run commit file function option kind subsystem owner state"
	  " triage verdict limit offset compiler arch format" },
	{ "/api/warnings/*/source", api_warning_source, "commit run context" },
	{ "/api/subsystems", api_subsystems, "run commit kind compiler arch" },
	{ "/api/maintainers", api_maintainers,
	  "run commit kind compiler arch" },
	{ "/api/subsystems/*/warnings", api_subsystem_warnings,
	  "run commit state triage verdict kind limit offset format" },
	{ "/api/builds/*/boot", api_boot, "" },
	{ "/api/runs/*/series", api_run_series, "by limit offset" },
	{ "/api/diff", api_diff,
	  "from to run from_run to_run kind limit offset" },
	{ "/api/warnings/*/states", api_warning_states, "run" },
	{ "/api/warnings/*/triage", api_warning_triage, "" },
};

const char *api_arg(const struct api_req *r, const char *name)
{
	for (size_t i = 0; i < r->t->nq; i++)
		if (!strcmp(r->t->q[i].key, name))
			return r->t->q[i].value;
	return NULL;
}

/* 1 if WORD is one of the words of LIST (separated by SEP), else 0. */
static int word_in(const char *list, const char *word, char sep)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t l = strcspn(p, (char[]){ sep, 0 });

		if (l == n && n && !memcmp(p, word, n))
			return 1;
		p += l;
		while (*p == sep)
			p++;
	}
	return 0;
}

/* The route T's path names, its path parameters into ARGS; or NULL. */
static const struct route *route_match(const char **args,
				       const struct api_target *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
		const char *p = routes[i].pattern + 1;
		size_t k = 0, nargs = 0;

		for (; k < t->nseg && *p; k++) {
			size_t l = strcspn(p, "/");

			if (l == 1 && *p == '*') {
				if (!*t->seg[k])
					break;
				args[nargs++] = t->seg[k];
			} else if (strlen(t->seg[k]) != l ||
				   strncmp(t->seg[k], p, l)) {
				break;
			}
			p += l;
			if (*p == '/')
				p++;
		}
		if (k == t->nseg && !*p)
			return &routes[i];
	}
	return NULL;
}

/* 1 if S is one of the NULL-terminated LIST, else 0. */
static int among(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* The 400 of PR's parameter: "want ...", its want or its list. */
static int param_fail(struct api_reply *reply, const struct param_rule *pr,
		      int empty)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (size_t i = 0; pr->among && pr->among[i]; i++)
		strbuf_addf(&sb, "%s%s",
			    !i		     ? "" :
			    pr->among[i + 1] ? ", " :
					       " or ",
			    pr->among[i]);
	ret = api_fail(reply, 400, "bad parameter '%s': %swant %s", pr->name,
		       empty ? "empty, " : "", pr->among ? sb.buf : pr->want);
	strbuf_release(&sb);
	return ret;
}

/* Check T's query against RT's list and params[]: 0, or 400. */
static int params_check(struct api_reply *reply, const struct route *rt,
			const struct api_target *t)
{
	for (size_t i = 0; i < t->nq; i++) {
		const char *key = t->q[i].key, *v = t->q[i].value;
		const struct param_rule *pr = NULL;
		long long n;

		if (!word_in(rt->params, key, ' '))
			return api_fail(reply, 400, "unknown parameter '%s'",
					*key ? key : "(empty)");
		for (size_t k = 0; k < i; k++)
			if (!strcmp(t->q[k].key, key))
				return api_fail(reply, 400,
						"parameter '%s' given twice",
						key);
		for (size_t k = 0; !pr && k < ARRAY_SIZE(route_params); k++)
			if (!strcmp(route_params[k].route, rt->pattern) &&
			    !strcmp(route_params[k].rule.name, key))
				pr = &route_params[k].rule;
		for (size_t k = 0; !pr && k < ARRAY_SIZE(params); k++)
			if (!strcmp(params[k].name, key))
				pr = &params[k];
		assert(pr);
		if (!*v)
			return param_fail(reply, pr, 1);
		if (pr->is_text ? (long long)strlen(v) > pr->max ||
					  (pr->one_of &&
					   !word_in(pr->one_of, v, ',')) ||
					  (pr->among && !among(pr->among, v)) :
				  api_parse_int(&n, v, pr->min, pr->max) != 0)
			return param_fail(reply, pr, 0);
	}
	return 0;
}

/*
 * Start the request's read transaction on DB, at our schema version:
 * one snapshot for the whole answer, and one answer from every thread
 * when the schema changes under us.  0, or -1 with REPLY set to a 503.
 */
static int read_begin(struct api_reply *reply, sqlite3 *db)
{
	int version = -1;

	if (db_read_begin(&version, db))
		return api_db_fail(reply, db);
	if (version == db_schema_version())
		return 0;
	db_rollback(db);
	return api_fail(reply, 503,
			"the database is at schema version %d, this server"
			" reads version %d: restart kwarn-server",
			version, db_schema_version());
}

/*
 * Whole answers, by request, kept until the database changes: under load
 * with a collector writing, each answer is built once per write, by the
 * first request that finds it out of date, while the requests that come
 * meanwhile get the previous one instead of all building it again.
 */
#define ANSWER_SLOTS 64
#define ANSWER_MAX (512 << 10) /* 64 of them stay well within 100 MB */

static struct cache_ent answer_slots[ANSWER_SLOTS];
static struct cache answers = CACHE_INIT(answer_slots, NULL);

/* T as a key: its segments and pairs, each with its length before it. */
static char *answer_key(const struct api_target *t)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < t->nseg; i++)
		strbuf_addf(&sb, "/%zu:%s", strlen(t->seg[i]), t->seg[i]);
	for (size_t i = 0; i < t->nq; i++)
		strbuf_addf(&sb, "&%zu:%s=%zu:%s", strlen(t->q[i].key),
			    t->q[i].key, strlen(t->q[i].value), t->q[i].value);
	return strbuf_detach(&sb, NULL);
}

/* What answer_get() found. */
enum { ANSWER_BUILD, ANSWER_CLAIMED, ANSWER_SERVED };

/*
 * Under the answers' lock: put KEY's answer into REPLY when it is
 * current, or out of date while another request builds it from a
 * database it found at our schema version (ANSWER_SERVED); else claim the
 * building of it (ANSWER_CLAIMED), or leave it to another that is
 * checking the schema (ANSWER_BUILD: build, keep nothing).
 */
static int answer_get(struct api_reply *reply, const char *key,
		      const struct db_sig *sig)
{
	struct cache_ent *a = cache_find(&answers, key);

	if (a && a->blob &&
	    (cache_sig_equal(&a->sig, sig) || a->building == 1)) {
		cache_serve(reply, a);
		return ANSWER_SERVED;
	}
	if (a && a->building)
		return ANSWER_BUILD;
	if (!a) {
		a = cache_slot(&answers, key);
		if (!a)
			return ANSWER_BUILD; /* every slot busy */
	}
	a->building = 2; /* checking the schema: no stale answers yet */
	return ANSWER_CLAIMED;
}

/* The schema is ours: requests may have the old answer meanwhile. */
static void answer_verified(const char *key)
{
	struct cache_ent *a;

	cache_lock(&answers);
	a = cache_find(&answers, key);
	if (a && a->building == 2)
		a->building = 1;
	cache_unlock(&answers);
}

/*
 * Keep REPLY (a 200, else nothing) as KEY's answer built at SIG: its
 * JSON, or its text (a CSV) unless it is a kept result's page (which may
 * be of the state before SIG: api-warnings.c), with their gzip form.
 */
static void answer_put(struct api_reply *reply, const char *key,
		       const struct db_sig *sig)
{
	char *text = NULL;
	struct cache_ent *a;

	if (reply->status == 200 && !reply->blob && reply->json) {
		text = json_dumps(reply->json, JSON_COMPACT);
		if (text && strlen(text) <= ANSWER_MAX) {
			reply->blob = blob_new(text, strlen(text));
			reply->gz = blob_gzip(reply->blob);
			json_decref(reply->json);
			reply->json = NULL;
		}
		free(text);
	} else if (reply->status == 200 && !reply->blob && reply->text &&
		   !reply->result && reply->len <= ANSWER_MAX) {
		reply->blob = blob_new(reply->text, reply->len);
		reply->gz = blob_gzip(reply->blob);
		free(reply->text);
		reply->text = NULL;
	}
	cache_lock(&answers);
	a = cache_find(&answers, key);
	if (a && a->building) {
		a->building = 0;
		if (reply->status == 200 && reply->blob) {
			blob_unref(a->blob);
			blob_unref(a->gz);
			a->blob = blob_ref(reply->blob);
			a->gz = reply->gz ? blob_ref(reply->gz) : NULL;
			a->type = reply->type;
			a->sig = *sig;
		}
	}
	cache_unlock(&answers);
}

void api_dispatch(struct api_reply *reply, const struct api_target *t,
		  sqlite3 *(*db_of)(void))
{
	const char *args[API_MAX_SEGMENTS];
	struct api_req r = { NULL, args, t, db_of };
	const struct route *rt = route_match(args, t);
	const char *file;
	struct db_sig sig;
	char *key = NULL;
	int got;

	if (!rt) {
		api_fail(reply, 404, "no such endpoint");
		return;
	}
	if (params_check(reply, rt, t))
		return;
	r.db = db_of();
	if (!r.db) {
		api_fail(reply, 503, "database unavailable");
		return;
	}
	/* the census keeps its own answers; an in-memory database none */
	file = sqlite3_db_filename(r.db, "main");
	if (rt->fn != api_commit_census && file && *file) {
		key = answer_key(t);
		cache_db_sig(&sig, r.db);
		cache_lock(&answers);
		got = answer_get(reply, key, &sig);
		cache_unlock(&answers);
		if (got != ANSWER_CLAIMED) {
			free(key);
			key = NULL;
		}
		if (got == ANSWER_SERVED)
			return;
	}
	if (!read_begin(reply, r.db)) {
		if (key)
			answer_verified(key);
		rt->fn(reply, &r);
		db_rollback(r.db);
	}
	if (key)
		answer_put(reply, key, &sig);
	free(key);
}

static void answers_free(void)
{
	cache_release(&answers);
}
