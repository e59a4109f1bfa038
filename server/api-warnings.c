// SPDX-License-Identifier: MIT
/*
 * The warnings at a point (a commit of a run), by subsystem, and the
 * source lines around a warning.
 */
#include <assert.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify.h"
#include "db.h"
#include "json.h"
#include "query.h"
#include "repro.h"
#include "server.h"
#include "api-views.h"
#include "util.h"
#include "srctree.h"
#include "banned.h"

/*
 * The parsed MAINTAINERS of TREE_ID into *out (NULL if the tree has
 * none).  Parsed once per tree and database state; callers never free it.
 */
int api_tree_maint(const struct maint **out, sqlite3 *db, long long tree_id)
{
	struct cache_ent *e;
	struct db_sig sig;
	struct maint *m = NULL;
	char *text = NULL, key[32];
	size_t len = 0;

	*out = NULL;
	snprintf(key, sizeof(key), "maint:%lld", tree_id);
	cache_db_sig(&sig, db);
	cache_lock(&api_cache);
	e = cache_find(&api_cache, key);
	if (e && !cache_sig_equal(&e->sig, &sig)) {
		cache_clear(&api_cache, e);
		e = NULL;
	}
	if (e) {
		*out = e->data;
		cache_unlock(&api_cache);
		return 0;
	}
	cache_unlock(&api_cache);
	if (query_tree_maintainers(&text, &len, db, tree_id))
		return -1;
	if (text)
		maint_parse(&m, text, len);
	free(text);
	cache_lock(&api_cache);
	e = cache_slot(&api_cache, key);
	assert(e); /* nothing in this cache is ever being built */
	e->sig = sig;
	e->data = m;
	*out = m;
	cache_unlock(&api_cache);
	return 0;
}

/* points: which commit a request is about */

/*
 * Resolve the point of a request: commit REF (path or ?commit=) within
 * ?run= if given, by the one rule of query_resolve_commit(); else the last
 * built point of ?run=, else of the newest run.  404 if there is none.
 */
int api_point_resolve(struct query_point *p, struct api_reply *reply,
		      const struct api_req *r, const char *ref)
{
	const char *run = api_arg(r, "run"), *cc = api_arg(r, "compiler");
	const char *arch = api_arg(r, "arch");
	long long run_id = -1, commit_id = -1;
	int rc;

	memset(p, 0, sizeof(*p));
	if (run && api_parse_id(&run_id, reply, "run", run))
		return -1;
	if (run) {
		rc = api_run_exists(reply, r->db, run_id);
		if (rc <= 0)
			return rc < 0 ? -1 :
					api_fail(reply, 404, "no run %lld",
						 run_id);
	}
	/* a path's commit: ?commit= was checked by the parameter table */
	if (ref && (!*ref || strlen(ref) > MAX_REF))
		return api_fail(reply, 400,
				"bad parameter 'commit':"
				" want a sha, a prefix or an id");
	if (ref ? query_resolve_commit(&commit_id, r->db, ref, run_id) :
		  query_last_built(&commit_id, r->db, run_id))
		return api_db_fail(reply, r->db);
	if (commit_id < 0)
		return ref ? api_fail(reply, 404, "no commit '%s'", ref) :
			     api_fail(reply, 404, "no built commit in %s",
				      run ? "this run" : "any run");
	if (query_point(p, r->db, commit_id))
		return api_db_fail(reply, r->db);
	/* compiler=, arch=: the same point as that run of the group measured it */
	if (cc || arch) {
		commit_id = p->commit_id;
		query_point_release(p);
		if (query_commit_for(&commit_id, r->db, commit_id, cc, arch))
			return api_db_fail(reply, r->db);
		if (commit_id < 0)
			return api_fail(reply, 404,
					"no %s%s%s build of this point",
					cc ? cc : "", cc && arch ? " " : "",
					arch ? arch : "");
		if (query_point(p, r->db, commit_id))
			return api_db_fail(reply, r->db);
	}
	return 0;
}

json_t *api_point_json(const struct query_point *p)
{
	json_t *o = json_object();

	api_set(o, "id", json_integer(p->commit_id));
	api_set(o, "sha", jstr(p->sha));
	api_set(o, "position", json_integer(p->position));
	api_set(o, "run", json_integer(p->run_id));
	return o;
}

/* warnings */

struct wquery {
	const struct query_point *p;
	const char *state; /* NULL: new and present */
	const char *triage; /* NULL: any */
	const char *verdict; /* as stored, "none", or NULL: any */
	const char *file, *function;
	char *option; /* with its "-W" */
	const char *kind; /* a tool of diag_tools[] (parse.h), or NULL */
	char *files; /* JSON array of files (subsystem), or NULL */
	const char *subsystem, *owner; /* named in the answer, or NULL */
	long limit, offset;
};

/*
 * The envelope of Q's answer with WARNINGS (a new reference is taken) as
 * its last member: {total, limit, offset, state, triage, verdict, commit,
 * subsystem, owner, warnings}.
 */
static json_t *warnings_envelope(const struct wquery *q, json_int_t total,
				 json_t *warnings)
{
	json_t *o = json_object();

	api_set(o, "total", json_integer(total));
	api_set(o, "limit", json_integer(q->limit));
	api_set(o, "offset", json_integer(q->offset));
	api_set(o, "state",
		q->state ? json_string(q->state) : json_string("new,present"));
	api_set(o, "triage", q->triage ? jstr(q->triage) : NULL);
	api_set(o, "verdict", q->verdict ? jstr(q->verdict) : NULL);
	api_set(o, "kind", q->kind ? jstr(q->kind) : NULL);
	api_set(o, "commit", api_point_json(q->p));
	if (q->subsystem)
		api_set(o, "subsystem", jstr(q->subsystem));
	if (q->owner)
		api_set(o, "owner", jstr(q->owner));
	api_set(o, "warnings", json_incref(warnings));
	return o;
}

static void filter_of(struct warn_filter *f, const struct wquery *q)
{
	f->state = q->state;
	f->file = q->file;
	f->function = q->function;
	f->option = q->option;
	f->files = q->files;
	f->triage = q->triage;
	f->verdict = q->verdict;
	f->kind = q->kind;
	f->limit = q->limit;
	f->offset = q->offset;
}

/*
 * A point's whole sorted result for one filter, kept between writes so
 * that any page of it costs a copy, whatever its offset: a client paging
 * through, or many asking at random offsets, would otherwise each sort
 * the point's warnings and read the details of their page again.  The
 * rows' compact JSON texts one after the other (blob) and where each
 * starts (aux); fp[0] the row count, fp[1] the requests read page by page
 * while none was kept, fp[2] set when the result could not be kept at
 * state sig.  The second request of a result larger than its page hands
 * the build to the builder thread below, and so does the first after a
 * write to a kept one, whose previous state's pages are served meanwhile
 * (as the answer cache does; the reply says so in X-Kwarn-Result).  A
 * result of more than RESULT_ROWS rows or RESULT_BYTES bytes is never
 * kept: its pages are read one by one.
 */
#define RESULT_ROWS 50000
#define RESULT_BYTES (8 << 20) /* 4 slots: at most 32 MB */

static struct cache_ent result_slots[4];
struct cache api_result_cache = CACHE_INIT(result_slots, NULL);

static char *result_key(const struct wquery *q)
{
	return xstrfmt("%lld\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s", q->p->commit_id,
		       q->state ? q->state : "", q->triage ? q->triage : "",
		       q->verdict ? q->verdict : "", q->file ? q->file : "",
		       q->function ? q->function : "",
		       q->option ? q->option : "", q->kind ? q->kind : "",
		       q->files ? q->files : "");
}

/* A result being built: the rows' texts one after the other, and where. */
struct result_text {
	sqlite3 *db;
	struct strbuf text;
	size_t *off, n, alloc;
};

/* query_point_warnings_each()'s EACH: row W's text into CTX; 1: too big. */
static int result_row(void *ctx, json_t *w)
{
	struct result_text *rt = ctx;
	char *t;

	repro_attach(rt->db, w);
	t = json_dumps(w, JSON_COMPACT);
	json_decref(w);
	if (!t)
		return 1;
	if (rt->n + 2 > rt->alloc) {
		rt->alloc = rt->alloc ? 2 * rt->alloc : 1024;
		rt->off = xrealloc(rt->off, rt->alloc * sizeof(*rt->off));
	}
	rt->off[rt->n++] = rt->text.len;
	strbuf_addstr(&rt->text, t);
	free(t);
	return rt->n > RESULT_ROWS || rt->text.len > RESULT_BYTES ? 1 : 0;
}

/*
 * Q's whole result as blob and index (texts of rows, their offsets), the
 * rows serialized as the query reads them; 1 if it is too big to keep.
 */
static int result_build(struct blob **text, struct blob **index, sqlite3 *db,
			const struct wquery *q)
{
	struct result_text rt = { .db = db, .text = STRBUF_INIT };
	struct warn_filter f = { 0 };
	long long total;
	int rc;

	filter_of(&f, q);
	f.limit = -1;
	f.offset = 0;
	rc = query_point_warnings_each(&total, db, q->p, &f, result_row, &rt);
	if (!rc) {
		if (!rt.off)
			rt.off = xmalloc(sizeof(*rt.off));
		rt.off[rt.n] = rt.text.len;
		*text = blob_new(rt.text.buf, rt.text.len);
		*index = blob_new((const char *)rt.off,
				  (rt.n + 1) * sizeof(*rt.off));
	}
	free(rt.off);
	strbuf_release(&rt.text);
	return rc;
}

/*
 * Q's page of TEXT/INDEX (result_build()) as REPLY's text; STALE: of the
 * database state before the last write, while the builder rebuilds it.
 */
static void result_serve(struct api_reply *reply, const struct wquery *q,
			 const struct blob *text, const struct blob *index,
			 int stale)
{
	const size_t *off = (const size_t *)(const void *)index->data;
	size_t n = index->len / sizeof(*off) - 1, from, to;
	json_t *o, *empty = json_array();
	struct strbuf sb = STRBUF_INIT;
	char *head;

	from = (size_t)q->offset < n ? (size_t)q->offset : n;
	to = n - from > (size_t)q->limit ? from + (size_t)q->limit : n;
	o = warnings_envelope(q, (json_int_t)n, empty);
	json_decref(empty);
	head = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	/* head ends with "warnings":[]} */
	assert(head && strlen(head) >= 3);
	strbuf_add(&sb, head, strlen(head) - 2);
	for (size_t i = from; i < to; i++) {
		if (i > from)
			strbuf_addch(&sb, ',');
		strbuf_add(&sb, text->data + off[i], off[i + 1] - off[i]);
	}
	strbuf_addstr(&sb, "]}");
	free(head);
	reply->status = 200;
	reply->result = stale ? "kept, rebuilding" : "kept";
	reply->len = sb.len;
	reply->text = strbuf_detach(&sb, NULL);
}

/*
 * The one thread that builds kept results, with a connection of its own,
 * so that no worker thread (and no connection it serves) waits for a
 * build: a request that finds no current result reads its page alone and
 * hands the build here.  One job at a time; a request that finds the
 * thread busy reads its page alone and leaves the build to a later one.
 */
struct result_job {
	char *key;
	long long commit_id;
	char *state, *triage, *verdict, *file, *function, *option, *kind;
	char *files;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	int started, stop;
	struct result_job *job; /* waiting, or NULL */
	int busy;
	sqlite3 *(*db_of)(void);
} builder = { .lock = PTHREAD_MUTEX_INITIALIZER,
	      .cond = PTHREAD_COND_INITIALIZER };

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void job_free(struct result_job *j)
{
	if (!j)
		return;
	free(j->key);
	free(j->state);
	free(j->triage);
	free(j->verdict);
	free(j->file);
	free(j->function);
	free(j->option);
	free(j->kind);
	free(j->files);
	free(j);
}

/* Build job J's result and keep it (or give the entry up on failure). */
static void job_run(const struct result_job *j, sqlite3 *db)
{
	struct blob *text = NULL, *index = NULL;
	struct wquery q = { 0 };
	struct query_point p;
	struct cache_ent *e;
	struct db_sig sig = { 0 };
	int ret = -1, version = -1, have_point = 0;

	q.state = j->state;
	q.triage = j->triage;
	q.verdict = j->verdict;
	q.file = j->file;
	q.function = j->function;
	q.option = j->option;
	q.kind = j->kind;
	q.files = j->files;
	if (db) {
		/* the state before the snapshot: a write meanwhile rebuilds */
		cache_db_sig(&sig, db);
		if (!db_read_begin(&version, db)) {
			if (version == db_schema_version() &&
			    !query_point(&p, db, j->commit_id)) {
				have_point = 1;
				q.p = &p;
				ret = result_build(&text, &index, db, &q);
			}
			db_rollback(db);
		}
	}
	cache_lock(&api_result_cache);
	e = cache_find(&api_result_cache, j->key);
	if (e && e->building) {
		e->building = 0;
		if (!ret) {
			blob_unref(e->blob);
			blob_unref(e->aux);
			e->blob = blob_ref(text);
			e->aux = blob_ref(index);
			e->sig = sig;
			e->fp[0] = (long long)(index->len / sizeof(size_t)) - 1;
			e->fp[2] = 0;
		} else {
			/* too large, or failed: read page by page at this state */
			blob_unref(e->blob);
			blob_unref(e->aux);
			e->blob = e->aux = NULL;
			e->sig = sig;
			e->fp[2] = 1;
		}
	}
	cache_unlock(&api_result_cache);
	blob_unref(text);
	blob_unref(index);
	if (have_point)
		query_point_release(&p);
}

static void *builder_main(void *unused)
{
	pthread_mutex_lock(&builder.lock);
	for (;;) {
		struct result_job *j;

		while (!builder.stop && !builder.job)
			pthread_cond_wait(&builder.cond, &builder.lock);
		if (builder.stop)
			break;
		j = builder.job;
		builder.job = NULL;
		builder.busy = 1;
		pthread_mutex_unlock(&builder.lock);
		job_run(j, builder.db_of());
		job_free(j);
		pthread_mutex_lock(&builder.lock);
		builder.busy = 0;
	}
	pthread_mutex_unlock(&builder.lock);
	return NULL;
}

/* Hand Q's build (entry KEY) to the builder: 1, or 0 if it is busy. */
static int builder_take(const char *key, const struct wquery *q,
			sqlite3 *(*db_of)(void))
{
	struct result_job *j;
	int ok = 0;

	pthread_mutex_lock(&builder.lock);
	if (builder.stop || builder.job || builder.busy || !db_of)
		goto out;
	if (!builder.started) {
		builder.db_of = db_of;
		if (pthread_create(&builder.thread, NULL, builder_main, NULL))
			goto out;
		builder.started = 1;
	}
	j = xcalloc(1, sizeof(*j));
	j->key = xstrdup(key);
	j->commit_id = q->p->commit_id;
	j->state = dup_or_null(q->state);
	j->triage = dup_or_null(q->triage);
	j->verdict = dup_or_null(q->verdict);
	j->file = dup_or_null(q->file);
	j->function = dup_or_null(q->function);
	j->option = dup_or_null(q->option);
	j->kind = dup_or_null(q->kind);
	j->files = dup_or_null(q->files);
	builder.job = j;
	pthread_cond_signal(&builder.cond);
	ok = 1;
out:
	pthread_mutex_unlock(&builder.lock);
	return ok;
}

void api_results_forget(void)
{
	cache_lock(&api_result_cache);
	for (size_t i = 0; i < api_result_cache.nr; i++) {
		struct cache_ent *e = &api_result_cache.ent[i];

		if (!e->key)
			continue;
		if (!e->building) {
			cache_clear(&api_result_cache, e);
			continue;
		}
		/* the builder's result will be of before: never current */
		blob_unref(e->blob);
		blob_unref(e->aux);
		e->blob = e->aux = NULL;
	}
	cache_unlock(&api_result_cache);
}

void api_results_stop(void)
{
	int started;

	pthread_mutex_lock(&builder.lock);
	builder.stop = 1;
	started = builder.started;
	job_free(builder.job);
	builder.job = NULL;
	pthread_cond_signal(&builder.cond);
	pthread_mutex_unlock(&builder.lock);
	if (started)
		pthread_join(builder.thread, NULL);
}

/*
 * Serve Q from the kept result when it is current, or of the state before
 * the last write while the builder rebuilds it: 1 if REPLY is set, else 0
 * (read the page alone).
 */
static int result_page(struct api_reply *reply, const struct api_req *r,
		       const struct wquery *q)
{
	const char *path = sqlite3_db_filename(r->db, "main");
	struct blob *text = NULL, *index = NULL;
	struct cache_ent *e;
	struct db_sig sig;
	char *key;
	int stale = 0;

	if (!path || !*path)
		return 0;
	key = result_key(q);
	cache_db_sig(&sig, r->db);
	cache_lock(&api_result_cache);
	e = cache_find(&api_result_cache, key);
	if (e && e->blob && (e->building || cache_sig_equal(&e->sig, &sig))) {
		text = blob_ref(e->blob);
		index = blob_ref(e->aux);
		stale = !cache_sig_equal(&e->sig, &sig);
	}
	cache_unlock(&api_result_cache);
	free(key);
	if (!text)
		return 0;
	result_serve(reply, q, text, index, stale);
	blob_unref(text);
	blob_unref(index);
	return 1;
}

/*
 * Q was read page by page, TOTAL rows: hand its build to the builder
 * when this request is the one to ask (the second one of a result larger
 * than a page, or the first after a write to one kept), unless it is too
 * large to keep or failed to build at this state.
 */
static void result_ask(const struct api_req *r, const struct wquery *q,
		       long long total)
{
	const char *path = sqlite3_db_filename(r->db, "main");
	struct cache_ent *e;
	struct db_sig sig;
	char *key;
	int build;

	if (!path || !*path || total <= q->limit || total > RESULT_ROWS)
		return;
	key = result_key(q);
	cache_db_sig(&sig, r->db);
	cache_lock(&api_result_cache);
	e = cache_find(&api_result_cache, key);
	if (!e) {
		e = cache_slot(&api_result_cache, key);
		if (e)
			e->fp[1] = 1;
	} else if (!e->building &&
		   !(e->fp[2] && cache_sig_equal(&e->sig, &sig))) {
		/* a kept result out of date, or the second request */
		build = e->blob || ++e->fp[1] >= 2;
		if (build && builder_take(key, q, r->db_of))
			e->building = 1;
	}
	cache_unlock(&api_result_cache);
	free(key);
}

/* Run Q into REPLY: warnings_envelope() with Q's page. */
static int warnings_run(struct api_reply *reply, const struct api_req *r,
			const struct wquery *q)
{
	sqlite3 *db = r->db;
	struct warn_filter f = { 0 };
	json_t *got = NULL;

	if (result_page(reply, r, q))
		return 0;
	filter_of(&f, q);
	if (query_point_warnings(&got, db, q->p, &f))
		return api_db_fail(reply, db);
	repro_attach(db, json_object_get(got, "warnings"));
	reply->json = warnings_envelope(
		q, json_integer_value(json_object_get(got, "total")),
		json_object_get(got, "warnings"));
	result_ask(r, q, json_integer_value(json_object_get(got, "total")));
	json_decref(got);
	return 0;
}

/* 1 if an M: of an entry of M matching FILE has OWNER in it, else 0. */
static int file_owned(const struct maint *m, const char *file,
		      const char *owner)
{
	/* XXX: a file in more than 64 entries is owned by the first 64's */
	size_t idx[64], n = maint_match(idx, ARRAY_SIZE(idx), m, file);
	const char *addr[64];

	for (size_t k = 0; k < n && k < ARRAY_SIZE(idx); k++) {
		size_t na =
			maint_addresses(addr, ARRAY_SIZE(addr), m, idx[k], "M");

		for (size_t j = 0; j < na && j < ARRAY_SIZE(addr); j++)
			if (strcasestr(addr[j], owner))
				return 1;
	}
	return 0;
}

/* The 404 of a subsystem NAME that no title of M is: the closest ones. */
static int no_entry(struct api_reply *reply, const struct maint *m,
		    const char *name)
{
	const char *near[5];
	size_t n = maint_suggest(near, ARRAY_SIZE(near), m, name);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < n && i < ARRAY_SIZE(near); i++)
		strbuf_addf(&sb, "%s'%s'", i ? ", " : "", near[i]);
	if (n > ARRAY_SIZE(near))
		strbuf_addf(&sb, " and %zu more", n - ARRAY_SIZE(near));
	ret = n ? api_fail(reply, 404,
			   "no MAINTAINERS entry '%s'; titles with it: %s",
			   name, sb.buf) :
		  api_fail(reply, 404, "no MAINTAINERS entry '%s'", name);
	strbuf_release(&sb);
	return ret;
}

/*
 * The files at point P that MAINTAINERS entry SUBSYSTEM covers and
 * whose maintainers (M:) include OWNER (either may be NULL), as a JSON
 * array text in *out, and the entry's title as MAINTAINERS spells it in
 * *canon.  404 if the tree has no MAINTAINERS or no such entry.
 */
static int point_files(char **out, const char **canon, struct api_reply *reply,
		       sqlite3 *db, const struct query_point *p,
		       const char *subsystem, const char *owner)
{
	const struct maint *m = NULL;
	json_t *files, *all = NULL, *f;
	size_t k;
	long idx = -1;

	if (api_tree_maint(&m, db, p->tree_id))
		return api_db_fail(reply, db);
	if (!m)
		return api_fail(reply, 404,
				"the tree of run %lld has no"
				" MAINTAINERS",
				p->run_id);
	if (subsystem) {
		idx = maint_find(m, subsystem);
		if (idx < 0)
			return no_entry(reply, m, subsystem);
		*canon = maint_name(m, (size_t)idx);
	}
	if (query_point_files(&all, db, p->commit_id))
		return api_db_fail(reply, db);
	files = json_array();
	json_array_foreach(all, k, f) {
		const char *name = json_string_value(f);

		if ((idx < 0 || maint_entry_matches(m, (size_t)idx, name)) &&
		    (!owner || file_owned(m, name, owner)))
			json_array_append(files, f);
	}
	json_decref(all);
	*out = json_dumps(files, JSON_COMPACT);
	json_decref(files);
	return 0;
}

/* CSV */

/* The columns of a warnings CSV: the scalar members of a JSON row. */
/* clang-format off */
static const char *const csv_columns[] = {
	"identity", "state", "file", "line", "column", "function", "option",
	"message", "kind", "werror", "object", "seen", "introduced",
	"introduced_author", "fixed", "verdict", "fix", "reason", "triage",
	"notes",
};
/* clang-format on */

/* S as a CSV field (RFC 4180): quoted if it holds a comma, quote or newline. */
static void csv_field(struct strbuf *sb, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

/*
 * Column NAME of JSON row W as CSV: null is empty, triage its state,
 * notes each "FILE:LINE:COLUMN: MESSAGE", "; " between.
 */
static void csv_value(struct strbuf *sb, json_t *w, const char *name)
{
	json_t *v = json_object_get(w, name), *note;
	struct strbuf notes = STRBUF_INIT;
	char num[32];
	size_t i;

	if (!strcmp(name, "triage"))
		v = json_object_get(v, "state");
	if (json_is_string(v)) {
		csv_field(sb, json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		strbuf_addstr(sb, num);
	} else if (json_is_boolean(v)) {
		strbuf_addstr(sb, json_is_true(v) ? "true" : "false");
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, note) {
			const char *f = json_string_value(
				json_object_get(note, "file"));
			const char *msg = json_string_value(
				json_object_get(note, "message"));

			strbuf_addf(&notes,
				    "%s%s:%" JSON_INTEGER_FORMAT
				    ":%" JSON_INTEGER_FORMAT ": %s",
				    i ? "; " : "", f ? f : "",
				    json_integer_value(
					    json_object_get(note, "line")),
				    json_integer_value(
					    json_object_get(note, "column")),
				    msg ? msg : "");
		}
		csv_field(sb, notes.buf);
	}
	strbuf_release(&notes);
}

/*
 * REPLY's warnings page (its JSON, or a kept result's text) as CSV: a
 * header row, then one row per warning in the same order, CRLF after
 * each.  X-Kwarn-Result stays, so a kept result's page is not kept by
 * the answer cache, as its JSON is not.
 */
static int warnings_csv(struct api_reply *reply)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *o = reply->json, *w;
	size_t i;

	if (!o) {
		o = json_loadb(reply->text, reply->len, 0, NULL);
		free(reply->text);
		reply->text = NULL;
		if (!o) {
			reply->result = NULL;
			return api_fail(reply, 500, "cannot read the page");
		}
	}
	for (i = 0; i < ARRAY_SIZE(csv_columns); i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", csv_columns[i]);
	strbuf_addstr(&sb, "\r\n");
	json_array_foreach(json_object_get(o, "warnings"), i, w) {
		for (size_t k = 0; k < ARRAY_SIZE(csv_columns); k++) {
			if (k)
				strbuf_addch(&sb, ',');
			csv_value(&sb, w, csv_columns[k]);
		}
		strbuf_addstr(&sb, "\r\n");
	}
	json_decref(o);
	reply->json = NULL;
	reply->len = sb.len;
	reply->text = strbuf_detach(&sb, NULL);
	reply->type = "text/csv; charset=utf-8; header=present";
	return 0;
}

static int warnings_common(struct api_reply *reply, const struct api_req *r,
			   const char *ref, const char *subsystem,
			   const char *owner)
{
	struct wquery q = { 0 };
	struct query_point p;
	const char *opt = api_arg(r, "option");
	const char *verdict = api_arg(r, "verdict");
	const char *format = api_arg(r, "format");
	int ret = -1;

	q.state = api_arg(r, "state");
	q.triage = api_arg(r, "triage");
	q.kind = api_arg(r, "kind");
	/* as a person types it, named in the answer as the classifier does */
	if (verdict && !(q.verdict = classify_verdict_parse(verdict)))
		return api_fail(reply, 400,
				"bad parameter 'verdict': want missing-break,"
				" intended, unsure or none");
	q.file = api_arg(r, "file");
	q.function = api_arg(r, "function");
	/* the parameter table checked every value; this reads the page */
	if (api_parse_page(&q.limit, &q.offset, reply, r))
		return -1;
	if (api_point_resolve(&p, reply, r, ref))
		return -1;
	q.p = &p;
	if (opt)
		q.option = strncmp(opt, "-W", 2) ? xstrfmt("-W%s", opt) :
						   xstrdup(opt);
	if ((subsystem || owner) && point_files(&q.files, &subsystem, reply,
						r->db, &p, subsystem, owner))
		goto out;
	q.subsystem = subsystem;
	q.owner = owner;
	ret = warnings_run(reply, r, &q);
	if (!ret && format && !strcmp(format, "csv"))
		ret = warnings_csv(reply);
out:
	free(q.option);
	free(q.files);
	query_point_release(&p);
	return ret;
}

int api_warnings(struct api_reply *reply, const struct api_req *r)
{
	return warnings_common(reply, r, api_arg(r, "commit"),
			       api_arg(r, "subsystem"), api_arg(r, "owner"));
}

int api_commit_warnings(struct api_reply *reply, const struct api_req *r)
{
	return warnings_common(reply, r, r->args[0], NULL, NULL);
}

int api_subsystem_warnings(struct api_reply *reply, const struct api_req *r)
{
	return warnings_common(reply, r, api_arg(r, "commit"), r->args[0],
			       NULL);
}

/* subsystems */

/* Entry IDX's lines of TYPE (M, R or L) of M, as a new array. */
static json_t *entry_people(const struct maint *m, size_t idx, const char *type)
{
	const char *addr[64];
	size_t n = maint_addresses(addr, ARRAY_SIZE(addr), m, idx, type);
	json_t *arr = json_array();

	/* XXX: past 64 lines of one type, the rest are not named */
	for (size_t k = 0; k < n && k < ARRAY_SIZE(addr); k++)
		json_array_append_new(arr, jstr(addr[k]));
	return arr;
}

struct sub_count {
	long long warnings, new_, open, files;
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

	if (api_point_resolve(&p, reply, r, api_arg(r, "commit")))
		return -1;
	if (api_tree_maint(&m, r->db, p.tree_id)) {
		api_db_fail(reply, r->db);
		goto out;
	}
	reply->json = json_object();
	api_set(reply->json, "commit", api_point_json(&p));
	api_set(reply->json, "maintainers", json_boolean(m != NULL));
	arr = json_array();
	api_set(reply->json, "subsystems", arr);
	if (!m) {
		ret = 0;
		goto out;
	}
	counts = xcalloc(maint_count(m) + 1, sizeof(*counts));
	if (query_point_file_counts(&byfile, r->db, p.commit_id,
				    api_arg(r, "kind"))) {
		api_db_fail(reply, r->db);
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
			counts[idx[k]].open +=
				json_integer_value(json_object_get(fc, "open"));
			counts[idx[k]].files++;
		}
	}
	/* the catch-all (THE REST) last, after every entry of its own */
	for (int last = 0; last < 2; last++) {
		for (i = 0; i < maint_count(m); i++) {
			json_t *o;
			int all = maint_is_catch_all(m, i);

			if (!counts[i].warnings || all != last)
				continue;
			o = json_object();
			api_set(o, "name", jstr(maint_name(m, i)));
			api_set(o, "catch_all", json_boolean(all));
			api_set(o, "warnings",
				json_integer(counts[i].warnings));
			api_set(o, "new", json_integer(counts[i].new_));
			api_set(o, "open", json_integer(counts[i].open));
			api_set(o, "files", json_integer(counts[i].files));
			api_set(o, "maintainers", entry_people(m, i, "M"));
			api_set(o, "reviewers", entry_people(m, i, "R"));
			api_set(o, "lists", entry_people(m, i, "L"));
			json_array_append_new(arr, o);
		}
	}
	ret = 0;
out:
	json_decref(byfile);
	free(counts);
	query_point_release(&p);
	return ret;
}

/* maintainers: the people of M: lines, and their warnings */

/* Add the counts of file FC to OWNER's entry in BY, ENTRY among its. */
static void owner_add(json_t *by, const char *owner, const char *entry,
		      json_t *fc, int first)
{
	static const char *const keys[] = { "open", "warnings", "new" };
	json_t *o = json_object_get(by, owner), *entries;
	size_t i;
	json_t *e;
	int has = 0;

	if (!o) {
		o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:[]}", "name", owner,
			      "open", (json_int_t)0, "warnings", (json_int_t)0,
			      "new", (json_int_t)0, "files", (json_int_t)0,
			      "entries");
		json_object_set_new(by, owner, o);
	}
	entries = json_object_get(o, "entries");
	json_array_foreach(entries, i, e)
		has |= !strcmp(json_string_value(e), entry);
	if (!has)
		json_array_append_new(entries, jstr(entry));
	if (!first)
		return;
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		json_object_set_new(
			o, keys[i],
			json_integer(json_integer_value(
					     json_object_get(o, keys[i])) +
				     json_integer_value(
					     json_object_get(fc, keys[i]))));
	json_object_set_new(
		o, "files",
		json_integer(json_integer_value(json_object_get(o, "files")) +
			     1));
}

/* Most open warnings first, then most warnings, then by name. */
static int owner_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t d;

	d = json_integer_value(json_object_get(y, "open")) -
	    json_integer_value(json_object_get(x, "open"));
	if (!d)
		d = json_integer_value(json_object_get(y, "warnings")) -
		    json_integer_value(json_object_get(x, "warnings"));
	if (d)
		return d < 0 ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "name")),
		      json_string_value(json_object_get(y, "name")));
}

int api_maintainers(struct api_reply *reply, const struct api_req *r)
{
	const struct maint *m = NULL;
	struct query_point p;
	json_t *byfile = NULL, *by = NULL, *fc, *o, *arr;
	json_t **list = NULL;
	const char *key;
	size_t i, n = 0;
	int ret = -1;

	if (api_point_resolve(&p, reply, r, api_arg(r, "commit")))
		return -1;
	if (api_tree_maint(&m, r->db, p.tree_id) ||
	    (m && query_point_file_counts(&byfile, r->db, p.commit_id,
					  api_arg(r, "kind")))) {
		api_db_fail(reply, r->db);
		goto out;
	}
	by = json_object();
	json_array_foreach(byfile, i, fc) {
		const char *f = json_string_value(json_object_get(fc, "file"));
		/* XXX: a file in more than 64 entries counts for the first 64 */
		size_t idx[64], ne;
		json_t *seen;

		if (!f)
			continue;
		ne = maint_match(idx, ARRAY_SIZE(idx), m, f);
		seen = json_object();
		for (size_t k = 0; k < ne && k < ARRAY_SIZE(idx); k++) {
			const char *addr[64];
			size_t na = maint_addresses(addr, ARRAY_SIZE(addr), m,
						    idx[k], "M");

			for (size_t j = 0; j < na && j < ARRAY_SIZE(addr);
			     j++) {
				/* as get_maintainer.pl: not without asking */
				if (strstr(addr[j], MAINT_CHIEF_PENGUIN))
					continue;
				owner_add(by, addr[j], maint_name(m, idx[k]),
					  fc, !json_object_get(seen, addr[j]));
				json_object_set_new(seen, addr[j], json_true());
			}
		}
		json_decref(seen);
	}
	list = xcalloc(json_object_size(by) + 1, sizeof(*list));
	json_object_foreach(by, key, o)
		list[n++] = o;
	qsort(list, n, sizeof(*list), owner_cmp);
	reply->json = json_object();
	api_set(reply->json, "commit", api_point_json(&p));
	api_set(reply->json, "maintainers", json_boolean(m != NULL));
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append(arr, list[i]);
	api_set(reply->json, "owners", arr);
	ret = 0;
out:
	free(list);
	json_decref(by);
	json_decref(byfile);
	query_point_release(&p);
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
			api_set(l, "line", json_integer(n));
			api_set(l, "text", jstr(t));
			api_set(l, "mark", json_boolean(mark));
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
	const char *from = "db", *run = api_arg(r, "run");
	long long run_id = -1;
	json_t *w = NULL;
	struct query_point p = { 0 };
	char *text = NULL, *file = NULL;
	long context = 5, line;
	json_t *lines;
	int ret = -1;

	long long v;

	if (ctx && !api_parse_int(&v, ctx, 0, MAX_CONTEXT))
		context = (long)v;
	if (strlen(ident) > 128)
		return api_fail(reply, 400, "bad warning identity");
	if (run && api_parse_id(&run_id, reply, "run", run))
		return -1;
	/* ?run= alone: where the warning was live last in that run */
	if (api_arg(r, "commit")) {
		if (api_point_resolve(&p, reply, r, api_arg(r, "commit")))
			return -1;
	} else if (run) {
		int rc = api_run_exists(reply, r->db, run_id);

		if (rc <= 0)
			return rc < 0 ? -1 :
					api_fail(reply, 404, "no run %lld",
						 run_id);
	}
	if (query_warning(&w, r->db, ident, p.commit_id ? p.commit_id : -1,
			  run_id)) {
		api_db_fail(reply, r->db);
		goto out;
	}
	if (!w && p.commit_id) {
		api_fail(reply, 404,
			 "no warning '%s' at commit #%ld %.12s of run %lld",
			 ident, p.position, p.sha, p.run_id);
		goto out;
	}
	if (!w) {
		if (run)
			api_fail(reply, 404, "no warning '%s' in run %lld",
				 ident, run_id);
		else
			api_fail(reply, 404, "no warning '%s'", ident);
		goto out;
	}
	if (!p.commit_id &&
	    query_point(&p, r->db,
			json_integer_value(json_object_get(w, "commit_id")))) {
		api_db_fail(reply, r->db);
		goto out;
	}
	repro_attach(r->db, w);
	file = xstrdup(json_string_value(json_object_get(w, "file")));
	line = (long)json_integer_value(json_object_get(w, "line"));
	reply->json = w;
	w = NULL;
	json_object_del(reply->json, "commit_id");
	api_set(reply->json, "commit", api_point_json(&p));
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
				api_set(n, "lines",
					source_lines(ntext, nl, context, &nl,
						     1));
			free(ntext);
		}
		lines = source_lines(text, line, context, marks, nmarks);
		from = "commit";
	} else {
		json_t *l = json_object();

		lines = json_array();
		from = "db";
		api_set(l, "line", json_integer(line));
		api_set(l, "text",
			json_incref(json_object_get(reply->json, "source")));
		api_set(l, "mark", json_true());
		json_array_append_new(lines, l);
	}
	api_set(reply->json, "from", json_string(from));
	api_set(reply->json, "lines", lines);
	ret = 0;
out:
	free(text);
	free(file);
	json_decref(w);
	query_point_release(&p);
	return ret;
}
