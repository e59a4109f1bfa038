// SPDX-License-Identifier: MIT
/*
 * The JSON endpoints.  Request data reaches SQL only as bound parameters.
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
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "db.h"
#include "json.h"
#include "query.h"
#include "server.h"
#include "util.h"
#include "ident.h"
#include "query.h"
#include "census-tree.h"
#include "srctree.h"
#include "repro.h"
#include "banned.h"

#define DEFAULT_LIMIT 100
#define MAX_LIMIT 1000
#define MAX_OFFSET 1000000000
#define MAX_CONTEXT 200
#define MAX_REF 255
#define MAX_BOOT_LOG (64 << 20)

/* helpers */

static int db_fail(struct api_reply *reply, sqlite3 *db)
{
	/* busy or gone: the client may retry; details stay in our log */
	error("query failed: %s", sqlite3_errmsg(db));
	return api_fail(reply, 503, "database query failed");
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

#define MAX_ID 0x7fffffffffffLL

/*
 * The one rule for an integer of the request, in the path or the query:
 * decimal digits only (no sign, space or leading zero), from MIN to MAX.
 * Returns 0 with *out set, or -1.
 */
static int parse_int(long long *out, const char *s, long long min,
		     long long max)
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
static int parse_id(long long *out, struct api_reply *reply, const char *name,
		    const char *s)
{
	long long v;

	if (parse_int(&v, s, 1, MAX_ID))
		return api_fail(reply, 400,
				"bad parameter '%s': want a"
				" positive integer",
				name);
	*out = v;
	return 0;
}

/* The limit and offset of a list, or 400. */
static int parse_page(long *limit, long *offset, struct api_reply *reply,
		      const struct api_req *r)
{
	const char *l = api_arg(r, "limit"), *o = api_arg(r, "offset");
	long long v;

	/* api_dispatch() checked them against params[] */
	*limit = l && !parse_int(&v, l, 1, MAX_LIMIT) ? (long)v : DEFAULT_LIMIT;
	*offset = o && !parse_int(&v, o, 0, MAX_OFFSET) ? (long)v : 0;
	return 0;
}

/*
 * Burn-downs by run ("burndown:ID") and parsed MAINTAINERS files by tree
 * ("maint:ID").  A MAINTAINERS file is parsed again when the database
 * changes; the old one is retired, since another thread may still read
 * it.  (One per tree per database change: a few.)
 */
static void maint_data_free(void *m)
{
	maint_free(m);
}

static struct cache_ent cache_slots[32];
static struct cache cache = CACHE_INIT(cache_slots, maint_data_free);

static void census_cache_free(void);

static void answers_free(void);

void api_cache_free(void)
{
	census_cache_free();
	answers_free();
	cache_release(&cache);
}

/*
 * The parsed MAINTAINERS of TREE_ID into *out (NULL if the tree has
 * none).  Parsed once per tree and database state; callers never free it.
 */
static int tree_maint(const struct maint **out, sqlite3 *db, long long tree_id)
{
	struct cache_ent *e;
	struct db_sig sig;
	struct maint *m = NULL;
	char *text = NULL, key[32];
	size_t len = 0;

	*out = NULL;
	snprintf(key, sizeof(key), "maint:%lld", tree_id);
	cache_db_sig(&sig, db);
	cache_lock(&cache);
	e = cache_find(&cache, key);
	if (e && !cache_sig_equal(&e->sig, &sig)) {
		cache_clear(&cache, e);
		e = NULL;
	}
	if (e) {
		*out = e->data;
		cache_unlock(&cache);
		return 0;
	}
	cache_unlock(&cache);
	if (query_tree_maintainers(&text, &len, db, tree_id))
		return -1;
	if (text)
		maint_parse(&m, text, len);
	free(text);
	cache_lock(&cache);
	e = cache_slot(&cache, key);
	assert(e); /* nothing in this cache is ever being built */
	e->sig = sig;
	e->data = m;
	*out = m;
	cache_unlock(&cache);
	return 0;
}

/* runs, trees, health */

int api_health(struct api_reply *reply, const struct api_req *r)
{
	long long runs = 0;

	if (query_run_total(&runs, r->db))
		return db_fail(reply, r->db);
	reply->json = json_object();
	set(reply->json, "status", json_string("ok"));
	set(reply->json, "schema", json_integer(db_schema_version()));
	set(reply->json, "runs", json_integer(runs));
	return 0;
}

int api_runs(struct api_reply *reply, const struct api_req *r)
{
	if (query_runs(&reply->json, r->db, -1))
		return db_fail(reply, r->db);
	return 0;
}

int api_trees(struct api_reply *reply, const struct api_req *r)
{
	if (query_trees(&reply->json, r->db))
		return db_fail(reply, r->db);
	return 0;
}

int api_run(struct api_reply *reply, const struct api_req *r)
{
	json_t *commits = NULL, *progress = NULL;
	long long id = 0;

	if (parse_id(&id, reply, "run id", r->args[0]))
		return -1;
	if (query_run(&reply->json, r->db, id))
		return db_fail(reply, r->db);
	if (!reply->json)
		return api_fail(reply, 404, "no run %lld", id);
	if (query_run_commits(&commits, r->db, id))
		return db_fail(reply, r->db);
	set(reply->json, "commit_list", commits);
	/* while it runs: where it is, as kwarn run last said */
	if (query_run_progress(&progress, r->db, id))
		return db_fail(reply, r->db);
	set(reply->json, "progress", progress);
	return 0;
}

/* burn-down */

/* 1 if run ID exists, 0 if not, -1 on error (reply filled). */
static int run_exists(struct api_reply *reply, sqlite3 *db, long long id)
{
	int yes = 0;

	if (query_run_exists(&yes, db, id))
		return db_fail(reply, db);
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
		set(e, "by_compiler", bc ? json_incref(bc) : json_object());
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

int api_burndown(struct api_reply *reply, const struct api_req *r)
{
	struct cache_ent *e;
	struct db_sig sig;
	json_t *arr = NULL;
	long long id = 0, fp[4];
	char *text, key[32];
	int ex;

	if (parse_id(&id, reply, "run id", r->args[0]))
		return -1;
	snprintf(key, sizeof(key), "burndown:%lld", id);
	cache_db_sig(&sig, r->db);
	cache_lock(&cache);
	e = cache_find(&cache, key);
	if (e && e->blob && cache_sig_equal(&e->sig, &sig))
		cache_serve(reply, e);
	cache_unlock(&cache);
	if (reply->blob)
		return 0;
	if (query_run_fingerprint(fp, r->db, id))
		return db_fail(reply, r->db);
	/* the database changed, but maybe not this run */
	cache_lock(&cache);
	e = cache_find(&cache, key);
	if (e && e->blob && !memcmp(e->fp, fp, sizeof(fp))) {
		e->sig = sig;
		cache_serve(reply, e);
	}
	cache_unlock(&cache);
	if (reply->blob)
		return 0;
	ex = run_exists(reply, r->db, id);
	if (ex <= 0)
		return ex < 0 ? -1 : api_fail(reply, 404, "no run %lld", id);
	if (burndown_build(&arr, r->db, id))
		return db_fail(reply, r->db);
	text = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	if (!text)
		return api_fail(reply, 500, "cannot encode the burn-down");
	reply->blob = blob_new(text, strlen(text));
	reply->gz = blob_gzip(reply->blob);
	free(text);
	cache_lock(&cache);
	e = cache_slot(&cache, key);
	assert(e);
	e->sig = sig;
	memcpy(e->fp, fp, sizeof(fp));
	e->blob = blob_ref(reply->blob);
	e->gz = reply->gz ? blob_ref(reply->gz) : NULL;
	cache_unlock(&cache);
	return 0;
}

/* points: which commit a request is about */

/*
 * Resolve the point of a request: commit REF (path or ?commit=) within
 * ?run= if given, by the one rule of query_resolve_commit(); else the last
 * built point of ?run=, else of the newest run.  404 if there is none.
 */
static int point_resolve(struct query_point *p, struct api_reply *reply,
			 const struct api_req *r, const char *ref)
{
	const char *run = api_arg(r, "run"), *cc = api_arg(r, "compiler");
	long long run_id = -1, commit_id = -1;
	int rc;

	memset(p, 0, sizeof(*p));
	if (cc && (!*cc || strlen(cc) > 32))
		return api_fail(reply, 400, "bad parameter 'compiler'");
	if (run && parse_id(&run_id, reply, "run", run))
		return -1;
	if (run) {
		rc = run_exists(reply, r->db, run_id);
		if (rc <= 0)
			return rc < 0 ? -1 :
					api_fail(reply, 404, "no run %lld",
						 run_id);
	}
	if (ref && (!*ref || strlen(ref) > MAX_REF))
		return api_fail(reply, 400,
				"bad parameter 'commit':"
				" want a sha, a prefix or an id");
	if (ref ? query_resolve_commit(&commit_id, r->db, ref, run_id) :
		  query_last_built(&commit_id, r->db, run_id))
		return db_fail(reply, r->db);
	if (commit_id < 0)
		return ref ? api_fail(reply, 404, "no commit '%s'", ref) :
			     api_fail(reply, 404, "no built commit in %s",
				      run ? "this run" : "any run");
	if (query_point(p, r->db, commit_id))
		return db_fail(reply, r->db);
	/* compiler=: the same point as that compiler's run measured it */
	if (cc) {
		commit_id = p->commit_id;
		query_point_release(p);
		if (query_commit_for_compiler(&commit_id, r->db, commit_id, cc))
			return db_fail(reply, r->db);
		if (commit_id < 0)
			return api_fail(reply, 404, "no %s build of this point",
					cc);
		if (query_point(p, r->db, commit_id))
			return db_fail(reply, r->db);
	}
	return 0;
}

static json_t *point_json(const struct query_point *p)
{
	json_t *o = json_object();

	set(o, "id", json_integer(p->commit_id));
	set(o, "sha", jstr(p->sha));
	set(o, "position", json_integer(p->position));
	set(o, "run", json_integer(p->run_id));
	return o;
}

/* warnings */

struct wquery {
	const struct query_point *p;
	const char *state; /* NULL: new and present */
	const char *file, *function;
	char *option; /* with its "-W" */
	char *files; /* JSON array of files (subsystem), or NULL */
	long limit, offset;
};

static int check_state(struct api_reply *reply, const char *s)
{
	static const char *const states[] = { "new", "present", "fixed",
					      "not_built" };

	if (!s)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(states); i++)
		if (!strcmp(s, states[i]))
			return 0;
	return api_fail(reply, 400,
			"bad parameter 'state': want new, present,"
			" fixed or not_built");
}

/* Run Q into a new object {total, limit, offset, state, commit, warnings}. */
static int warnings_run(struct api_reply *reply, sqlite3 *db,
			const struct wquery *q)
{
	struct warn_filter f = { 0 };
	json_t *got = NULL;

	f.state = q->state;
	f.file = q->file;
	f.function = q->function;
	f.option = q->option;
	f.files = q->files;
	f.limit = q->limit;
	f.offset = q->offset;
	if (query_point_warnings(&got, db, q->p, &f))
		return db_fail(reply, db);
	reply->json = json_object();
	set(reply->json, "total", json_incref(json_object_get(got, "total")));
	set(reply->json, "limit", json_integer(q->limit));
	set(reply->json, "offset", json_integer(q->offset));
	set(reply->json, "state",
	    q->state ? json_string(q->state) : json_string("new,present"));
	set(reply->json, "commit", point_json(q->p));
	set(reply->json, "warnings",
	    json_incref(json_object_get(got, "warnings")));
	json_decref(got);
	return 0;
}

/*
 * The files at point P that MAINTAINERS entry NAME covers, as a JSON
 * array text in *out.  404 if the tree has no such entry.
 */
static int subsystem_files(char **out, struct api_reply *reply, sqlite3 *db,
			   const struct query_point *p, const char *name)
{
	const struct maint *m = NULL;
	json_t *files, *all = NULL, *f;
	size_t k;
	long idx;

	if (tree_maint(&m, db, p->tree_id))
		return db_fail(reply, db);
	if (!m)
		return api_fail(reply, 404,
				"the tree of run %lld has no"
				" MAINTAINERS",
				p->run_id);
	idx = maint_find(m, name);
	if (idx < 0)
		return api_fail(reply, 404, "no MAINTAINERS entry '%s'", name);
	if (query_point_files(&all, db, p->commit_id))
		return db_fail(reply, db);
	files = json_array();
	json_array_foreach(all, k, f) {
		if (maint_entry_matches(m, (size_t)idx, json_string_value(f)))
			json_array_append(files, f);
	}
	json_decref(all);
	*out = json_dumps(files, JSON_COMPACT);
	json_decref(files);
	return 0;
}

static int warnings_common(struct api_reply *reply, const struct api_req *r,
			   const char *ref, const char *subsystem)
{
	struct wquery q = { 0 };
	struct query_point p;
	const char *opt = api_arg(r, "option");
	int ret = -1;

	q.state = api_arg(r, "state");
	q.file = api_arg(r, "file");
	q.function = api_arg(r, "function");
	if (check_state(reply, q.state) ||
	    parse_page(&q.limit, &q.offset, reply, r))
		return -1;
	if (opt && (!*opt || strlen(opt) > 128))
		return api_fail(reply, 400, "bad parameter 'option'");
	if (point_resolve(&p, reply, r, ref))
		return -1;
	q.p = &p;
	if (opt)
		q.option = strncmp(opt, "-W", 2) ? xstrfmt("-W%s", opt) :
						   xstrdup(opt);
	if (subsystem && subsystem_files(&q.files, reply, r->db, &p, subsystem))
		goto out;
	ret = warnings_run(reply, r->db, &q);
	if (!ret && subsystem)
		set(reply->json, "subsystem", jstr(subsystem));
out:
	free(q.option);
	free(q.files);
	query_point_release(&p);
	return ret;
}

int api_warnings(struct api_reply *reply, const struct api_req *r)
{
	const char *sub = api_arg(r, "subsystem");

	if (sub && !*sub)
		return api_fail(reply, 400, "bad parameter 'subsystem'");
	return warnings_common(reply, r, api_arg(r, "commit"), sub);
}

int api_commit_warnings(struct api_reply *reply, const struct api_req *r)
{
	return warnings_common(reply, r, r->args[0], NULL);
}

int api_subsystem_warnings(struct api_reply *reply, const struct api_req *r)
{
	return warnings_common(reply, r, api_arg(r, "commit"), r->args[0]);
}

/* subsystems */

struct sub_count {
	long long warnings, new_, files;
};

int api_subsystems(struct api_reply *reply, const struct api_req *r)
{
	const struct maint *m = NULL;
	struct sub_count *counts = NULL;
	struct query_point p;
	/* XXX: a file in more than 64 entries counts for the first 64 */
	size_t idx[64], n, i, k;
	json_t *arr, *byfile = NULL, *fc;
	int ret = -1;

	if (point_resolve(&p, reply, r, api_arg(r, "commit")))
		return -1;
	if (tree_maint(&m, r->db, p.tree_id)) {
		db_fail(reply, r->db);
		goto out;
	}
	reply->json = json_object();
	set(reply->json, "commit", point_json(&p));
	set(reply->json, "maintainers", json_boolean(m != NULL));
	arr = json_array();
	set(reply->json, "subsystems", arr);
	if (!m) {
		ret = 0;
		goto out;
	}
	counts = xcalloc(maint_count(m) + 1, sizeof(*counts));
	if (query_point_file_counts(&byfile, r->db, p.commit_id)) {
		db_fail(reply, r->db);
		goto out;
	}
	json_array_foreach(byfile, i, fc) {
		const char *f = json_string_value(json_object_get(fc, "file"));

		if (!f)
			continue;
		n = maint_match(idx, ARRAY_SIZE(idx), m, f);
		if (n > ARRAY_SIZE(idx))
			n = ARRAY_SIZE(idx);
		for (k = 0; k < n; k++) {
			counts[idx[k]].new_ +=
				json_integer_value(json_object_get(fc, "new"));
			counts[idx[k]].warnings += json_integer_value(
				json_object_get(fc, "warnings"));
			counts[idx[k]].files++;
		}
	}
	for (i = 0; i < maint_count(m); i++) {
		json_t *o;

		if (!counts[i].warnings)
			continue;
		o = json_object();
		set(o, "name", jstr(maint_name(m, i)));
		set(o, "warnings", json_integer(counts[i].warnings));
		set(o, "new", json_integer(counts[i].new_));
		set(o, "files", json_integer(counts[i].files));
		json_array_append_new(arr, o);
	}
	ret = 0;
out:
	json_decref(byfile);
	free(counts);
	query_point_release(&p);
	return ret;
}

/* boots */

/*
 * "modules" of REPLY's boot BOOT_ID: null when it loaded none (no --full),
 * else {"ok", "failed", "list": [{"name", "status", "message"}]} in the
 * init's order.  Returns 0 or -1 with the reply set to the error.
 */
static int boot_modules_json(struct api_reply *reply, sqlite3 *db,
			     long long boot_id)
{
	json_t *list = NULL, *m;
	long long ok = 0;
	size_t i;

	if (query_boot_modules(&list, db, boot_id))
		return db_fail(reply, db);
	if (!json_array_size(list)) {
		json_decref(list);
		set(reply->json, "modules", json_null());
		return 0;
	}
	json_array_foreach(list, i, m) {
		const char *st =
			json_string_value(json_object_get(m, "status"));

		ok += st && !strcmp(st, "ok");
	}
	{
		json_t *o = json_object();

		set(o, "ok", json_integer(ok));
		set(o, "failed",
		    json_integer((json_int_t)json_array_size(list) - ok));
		set(o, "list", list);
		set(reply->json, "modules", o);
	}
	return 0;
}

int api_boot(struct api_reply *reply, const struct api_req *r)
{
	struct query_boot b = { 0 };
	unsigned char *log = NULL;
	long long id = 0;
	int ret = -1;

	if (parse_id(&id, reply, "build id", r->args[0]))
		return -1;
	if (query_boot(&b, r->db, id))
		return db_fail(reply, r->db);
	if (!b.build_exists) {
		api_fail(reply, 404, "no build %lld", id);
		goto out;
	}
	if (!b.row) {
		api_fail(reply, 404, "build %lld was not booted", id);
		goto out;
	}
	reply->json = b.row;
	b.row = NULL;
	if (boot_modules_json(
		    reply, r->db,
		    json_integer_value(json_object_get(reply->json, "boot"))))
		goto out;
	if (!b.zlog) {
		set(reply->json, "log", json_null());
	} else {
		uLong zlen = (uLong)b.zlen;
		uLongf dlen = (uLongf)b.log_size;
		int zrc = Z_BUF_ERROR;

		/* log_size is a hint; grow while zlib says it is short */
		if (dlen == 0 || dlen > MAX_BOOT_LOG)
			dlen = zlen * 4 + 1024;
		while (dlen <= MAX_BOOT_LOG) {
			uLongf got = dlen;

			log = xrealloc(log, dlen + 1);
			zrc = uncompress(log, &got, b.zlog, zlen);
			if (zrc != Z_BUF_ERROR) {
				dlen = got;
				break;
			}
			dlen *= 2;
		}
		if (zrc != Z_OK) {
			error("cannot uncompress the log of build %lld's boot:"
			      " zlib error %d",
			      id, zrc);
			set(reply->json, "log", json_null());
			set(reply->json, "log_error",
			    json_string("corrupt compressed log"));
		} else {
			log[dlen] = '\0';
			set(reply->json, "log", jstr((char *)log));
		}
	}
	ret = 0;
out:
	free(log);
	query_boot_release(&b);
	return ret;
}

/* source lines around a warning */

/*
 * The text of FILE at commit SHA, read with libgit2 from the collector's
 * cached repository of the commit's tree (srctree.h): the commit's text
 * for every kind of tree, whatever the work tree or the directory holds
 * now.  Returns 0, or -1 when the tree is not cached (an ingested log) or
 * has no such file.
 */
static int source_text(char **out, sqlite3 *db, const char *sha,
		       const char *file)
{
	char *repo = NULL;
	size_t len = 0;
	int ret = -1;

	*out = NULL;
	if (!file || !*file || file[0] == '/' || !sha || !*sha)
		return -1;
	repo = tree_repo_path(db, sha);
	if (repo)
		ret = srctree_read(out, &len, NULL, repo, sha, file);
	free(repo);
	return ret;
}

/*
 * Lines LINE-CONTEXT to LINE+CONTEXT of TEXT as a new array of {line,
 * text}; MARKS (NR line numbers) are flagged "mark": true.
 */
static json_t *source_lines(const char *text, long line, long context,
			    const long *marks, size_t nr)
{
	json_t *lines = json_array();
	const char *s = text, *eol;
	long n = 1;

	for (; *s && n <= line + context; n++) {
		eol = strchrnul(s, '\n');
		if (n >= line - context) {
			char *t = xstrndup(s, (size_t)(eol - s));
			json_t *l = json_object();
			int mark = n == line;

			for (size_t k = 0; k < nr; k++)
				mark |= marks[k] == n;
			set(l, "line", json_integer(n));
			set(l, "text", jstr(t));
			set(l, "mark", json_boolean(mark));
			json_array_append_new(lines, l);
			free(t);
		}
		if (!*eol)
			break;
		s = eol + 1;
	}
	return lines;
}

int api_warning_source(struct api_reply *reply, const struct api_req *r)
{
	const char *ident = r->args[0], *ctx = api_arg(r, "context");
	const char *from = "db";
	json_t *w = NULL;
	struct query_point p = { 0 };
	char *text = NULL, *file = NULL;
	long context = 5, line;
	json_t *lines;
	int ret = -1;

	long long v;

	if (ctx && !parse_int(&v, ctx, 0, MAX_CONTEXT))
		context = (long)v;
	if (strlen(ident) > 128)
		return api_fail(reply, 400, "bad warning identity");
	if (api_arg(r, "commit") || api_arg(r, "run")) {
		if (point_resolve(&p, reply, r, api_arg(r, "commit")))
			return -1;
	}
	if (query_warning(&w, r->db, ident, p.commit_id ? p.commit_id : -1)) {
		db_fail(reply, r->db);
		goto out;
	}
	if (!w) {
		api_fail(reply, 404, "no warning '%s'%s", ident,
			 p.commit_id ? " at that commit" : "");
		goto out;
	}
	if (!p.commit_id &&
	    query_point(&p, r->db,
			json_integer_value(json_object_get(w, "commit_id")))) {
		db_fail(reply, r->db);
		goto out;
	}
	file = xstrdup(json_string_value(json_object_get(w, "file")));
	line = (long)json_integer_value(json_object_get(w, "line"));
	reply->json = w;
	w = NULL;
	json_object_del(reply->json, "commit_id");
	set(reply->json, "commit", point_json(&p));
	if (!source_text(&text, r->db, p.sha, file)) {
		json_t *notes = json_object_get(reply->json, "notes"), *n;
		long marks[64];
		size_t nmarks = 0, k;

		/*
		 * The notes' lines in the warning's file are marked in its
		 * excerpt; a note elsewhere (a header, a macro) gets its own.
		 * XXX: past 64 notes in one file, the rest are not marked.
		 */
		json_array_foreach(notes, k, n) {
			const char *nf =
				json_string_value(json_object_get(n, "file"));
			long nl = (long)json_integer_value(
				json_object_get(n, "line"));
			char *ntext = NULL;

			if (!nf || nl <= 0)
				continue;
			if (!strcmp(nf, file)) {
				if (nmarks < ARRAY_SIZE(marks))
					marks[nmarks++] = nl;
				continue;
			}
			if (!source_text(&ntext, r->db, p.sha, nf))
				set(n, "lines",
				    source_lines(ntext, nl, context, &nl, 1));
			free(ntext);
		}
		lines = source_lines(text, line, context, marks, nmarks);
		from = "commit";
	} else {
		json_t *l = json_object();

		lines = json_array();
		from = "db";
		set(l, "line", json_integer(line));
		set(l, "text",
		    json_incref(json_object_get(reply->json, "source")));
		set(l, "mark", json_true());
		json_array_append_new(lines, l);
	}
	set(reply->json, "from", json_string(from));
	set(reply->json, "lines", lines);
	ret = 0;
out:
	free(text);
	free(file);
	json_decref(w);
	query_point_release(&p);
	return ret;
}

/* the marker census of a commit's tree */

/*
 * Answers by commit sha and path prefix.  A tree at a commit never
 * changes, so they outlive database changes; a kernel tree takes some
 * 20 s, so one census is taken at a time and the others wait for it.
 */
static pthread_mutex_t census_scan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cache_ent census_slots[16];
static struct cache census_cache = CACHE_INIT(census_slots, NULL);

/* The cached answer for KEY into REPLY; 1 if there was one, else 0. */
static int census_cached(struct api_reply *reply, const char *key)
{
	struct cache_ent *e;

	cache_lock(&census_cache);
	e = cache_find(&census_cache, key);
	if (e)
		cache_serve(reply, e);
	cache_unlock(&census_cache);
	return e != NULL;
}

/* Keep REPLY's answer under KEY, in the least recently used slot. */
static void census_keep(const char *key, const struct api_reply *reply)
{
	struct cache_ent *e;

	cache_lock(&census_cache);
	e = cache_slot(&census_cache, key);
	assert(e);
	e->blob = blob_ref(reply->blob);
	e->gz = reply->gz ? blob_ref(reply->gz) : NULL;
	cache_unlock(&census_cache);
}

static void census_cache_free(void)
{
	cache_release(&census_cache);
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
	if (point_resolve(&p, reply, r, r->args[0])) {
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
	set(o, "source", jstr(prefix ? key : p.sha));
	set(o, "commit", jstr(p.sha));
	set(o, "path", prefix ? jstr(prefix) : json_null());
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

/* the request path: routes and their parameters */

/* How a query parameter's value is checked, whatever the route. */
static const struct param_rule {
	const char *name;
	long long min, max; /* integer range; for text, length */
	int is_text;
	const char *one_of; /* text: ',' around each allowed value */
	const char *want; /* said in the 400 */
} params[] = {
	{ "run", 1, MAX_ID, 0, NULL, "a positive integer" },
	{ "limit", 1, MAX_LIMIT, 0, NULL, "1 to 1000" },
	{ "offset", 0, MAX_OFFSET, 0, NULL, "0 to 1000000000" },
	{ "context", 0, MAX_CONTEXT, 0, NULL, "0 to 200" },
	{ "commit", 1, MAX_REF, 1, NULL, "a sha, a prefix or an id" },
	{ "file", 1, 4096, 1, NULL, "a file of the tree" },
	{ "function", 1, 4096, 1, NULL, "a function name" },
	{ "option", 1, 128, 1, NULL, "a warning option" },
	{ "subsystem", 1, 1024, 1, NULL, "a MAINTAINERS entry" },
	{ "path", 1, 1024, 1, NULL, "a directory or file of the tree" },
	{ "state", 1, 16, 1, ",new,present,fixed,not_built,",
	  "new, present, fixed or not_built" },
	{ "compiler", 1, 64, 1, NULL, "a compiler (gcc, clang-16, ...)" },
};

static const struct route {
	const char *pattern; /* "*" is one path parameter */
	int (*fn)(struct api_reply *reply, const struct api_req *r);
	const char *params; /* query parameters allowed, ' ' between */
} routes[] = {
	{ "/api/health", api_health, "" },
	{ "/api/trees", api_trees, "" },
	{ "/api/runs", api_runs, "" },
	{ "/api/runs/*", api_run, "" },
	{ "/api/runs/*/burndown", api_burndown, "" },
	{ "/api/commits/*/warnings", api_commit_warnings,
	  "run state limit offset compiler" },
	{ "/api/commits/*/census", api_commit_census, "run path" },
	{ "/api/warnings", api_warnings,
	  "run commit file function option subsystem state limit offset"
	  " compiler" },
	{ "/api/warnings/*/source", api_warning_source, "commit run context" },
	{ "/api/subsystems", api_subsystems, "run commit compiler" },
	{ "/api/subsystems/*/warnings", api_subsystem_warnings,
	  "run commit state limit offset" },
	{ "/api/builds/*/boot", api_boot, "" },
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
		for (size_t k = 0; !pr && k < ARRAY_SIZE(params); k++)
			if (!strcmp(params[k].name, key))
				pr = &params[k];
		assert(pr);
		if (!*v)
			return api_fail(reply, 400,
					"bad parameter '%s': empty, want %s",
					key, pr->want);
		if (pr->is_text ? (long long)strlen(v) > pr->max ||
					  (pr->one_of &&
					   !word_in(pr->one_of, v, ',')) :
				  parse_int(&n, v, pr->min, pr->max) != 0)
			return api_fail(reply, 400,
					"bad parameter '%s': want %s", key,
					pr->want);
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
		return db_fail(reply, db);
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

/* Keep REPLY (a 200, else nothing) as KEY's answer built at SIG. */
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
			a->sig = *sig;
		}
	}
	cache_unlock(&answers);
}

void api_dispatch(struct api_reply *reply, const struct api_target *t,
		  sqlite3 *(*db_of)(void))
{
	const char *args[API_MAX_SEGMENTS];
	struct api_req r = { NULL, args, t };
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
