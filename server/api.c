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
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "db.h"
#include "server.h"
#include "util.h"
#include "ident.h"
#include "query.h"
#include "census-tree.h"
#include "srctree.h"
#include "banned.h"

#define DEFAULT_LIMIT 100
#define MAX_LIMIT 1000
#define MAX_REF 255
#define MAX_BOOT_LOG (64 << 20)

/* blobs */

struct blob *blob_new(const char *data, size_t len)
{
	struct blob *b = xmalloc(sizeof(*b) + len + 1);

	b->refs = 1;
	b->len = len;
	memcpy(b->data, data, len);
	b->data[len] = '\0';
	return b;
}

struct blob *blob_ref(struct blob *b)
{
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
	return b;
}

void blob_unref(struct blob *b)
{
	if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(b);
}

struct blob *blob_gzip(const struct blob *b)
{
	z_stream zs = { 0 };
	struct blob *z;
	uLong bound;

	/* windowBits 15 + 16: a gzip header and trailer, for HTTP */
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return NULL;
	bound = deflateBound(&zs, (uLong)b->len) + 32;
	z = xmalloc(sizeof(*z) + bound);
	zs.next_in = (Bytef *)(uintptr_t)b->data;
	zs.avail_in = (uInt)b->len;
	zs.next_out = (Bytef *)z->data;
	zs.avail_out = (uInt)bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(z);
		return NULL;
	}
	z->refs = 1;
	z->len = zs.total_out;
	deflateEnd(&zs);
	return z;
}

/* helpers */

int api_fail(struct api_reply *reply, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_decref(reply->json);
	reply->json = json_object();
	json_object_set_new(reply->json, "error", json_string(msg));
	json_object_set_new(reply->json, "status", json_integer(status));
	reply->status = status;
	return -1;
}

static int db_fail(struct api_reply *reply, sqlite3 *db)
{
	/* busy or gone: the client may retry; details stay in our log */
	error("query failed: %s", sqlite3_errmsg(db));
	return api_fail(reply, 503, "database query failed");
}

/* A JSON string of S, with bytes that are not UTF-8 replaced by '?'. */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *copy;
	size_t i, len;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	len = strlen(s);
	copy = xstrdup(s);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)copy[i];
		size_t n = c < 0x80	  ? 0 :
			   (c >> 5) == 6  ? 1 :
			   (c >> 4) == 14 ? 2 :
			   (c >> 3) == 30 ? 3 :
					    9;
		size_t k;

		for (k = 1; n != 9 && k <= n; k++)
			if (i + k >= len ||
			    ((unsigned char)copy[i + k] >> 6) != 2)
				n = 9;
		if (n == 9)
			copy[i] = '?';
		else
			i += n;
	}
	j = json_string(copy);
	free(copy);
	return j ? j : json_string("");
}

static json_t *col_str(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return jstr((const char *)sqlite3_column_text(st, col));
}

static json_t *col_int(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return json_integer(sqlite3_column_int64(st, col));
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

/*
 * Set in O one key per column of ST from column FIRST on, as SPEC names
 * them: "id:i sha:s ...", i for an integer and s for a string (NULL
 * stays null).
 */
static void set_cols(json_t *o, sqlite3_stmt *st, int first, const char *spec)
{
	for (int col = first; *spec; col++) {
		const char *colon = strchr(spec, ':');
		char key[64];
		size_t n = colon ? (size_t)(colon - spec) : 0;

		if (!colon || n >= sizeof(key) || !colon[1])
			die("bad set_cols spec '%s'", spec);
		memcpy(key, spec, n);
		key[n] = '\0';
		set(o, key,
		    colon[1] == 'i' ? col_int(st, col) : col_str(st, col));
		spec = colon + 2;
		while (*spec == ' ')
			spec++;
	}
}

/* A positive id from path or query value S named NAME, or 400. */
static int parse_id(long long *out, struct api_reply *reply, const char *name,
		    const char *s)
{
	long v;

	if (util_parse_long(&v, s, 1, 0x7fffffffffffL))
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

	*limit = DEFAULT_LIMIT;
	*offset = 0;
	if (l && util_parse_long(limit, l, 1, MAX_LIMIT))
		return api_fail(reply, 400,
				"bad parameter 'limit': want 1 to"
				" %d",
				MAX_LIMIT);
	if (o && util_parse_long(offset, o, 0, 1000000000L))
		return api_fail(reply, 400,
				"bad parameter 'offset': want 0 to"
				" 1000000000");
	return 0;
}

/* Database file signature: caches are dropped when it changes. */
struct db_sig {
	struct timespec m1, m2;
	off_t s1, s2;
	ino_t i1;
};

static void db_signature(struct db_sig *sig, sqlite3 *db)
{
	const char *path = sqlite3_db_filename(db, "main");
	char wal[PATH_MAX];
	struct stat st;

	memset(sig, 0, sizeof(*sig));
	if (!path || stat(path, &st))
		return;
	sig->m1 = st.st_mtim;
	sig->s1 = st.st_size;
	sig->i1 = st.st_ino;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (!stat(wal, &st)) {
		sig->m2 = st.st_mtim;
		sig->s2 = st.st_size;
	}
}

static int sig_equal(const struct db_sig *a, const struct db_sig *b)
{
	return a->m1.tv_sec == b->m1.tv_sec && a->m1.tv_nsec == b->m1.tv_nsec &&
	       a->m2.tv_sec == b->m2.tv_sec && a->m2.tv_nsec == b->m2.tv_nsec &&
	       a->s1 == b->s1 && a->s2 == b->s2 && a->i1 == b->i1;
}

/* cache: burn-downs by run, parsed MAINTAINERS by tree */

enum cache_kind { CACHE_BURNDOWN = 1, CACHE_MAINT };

struct cache_ent {
	enum cache_kind kind;
	long long key;
	struct db_sig sig;
	struct blob *blob, *gz;
	struct maint *maint;
	unsigned long used;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cache_ent cache[32];
static unsigned long cache_clock;

static void ent_clear(struct cache_ent *e)
{
	blob_unref(e->blob);
	blob_unref(e->gz);
	/* a parsed MAINTAINERS may be in use: retire it, never free it live */
	if (e->maint) {
		static struct maint *retired[256];
		static size_t nretired;

		if (nretired < ARRAY_SIZE(retired))
			retired[nretired++] = e->maint;
	}
	memset(e, 0, sizeof(*e));
}

/* Under cache_lock: the live entry for KIND/KEY, or NULL. */
static struct cache_ent *cache_find(enum cache_kind kind, long long key,
				    const struct db_sig *sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(cache); i++) {
		struct cache_ent *e = &cache[i];

		if (e->kind != kind || e->key != key)
			continue;
		if (!sig_equal(&e->sig, sig)) {
			ent_clear(e);
			return NULL;
		}
		e->used = ++cache_clock;
		return e;
	}
	return NULL;
}

/* Under cache_lock: a slot for KIND/KEY (the least recently used). */
static struct cache_ent *cache_slot(enum cache_kind kind, long long key,
				    const struct db_sig *sig)
{
	struct cache_ent *e = &cache[0];

	for (size_t i = 0; i < ARRAY_SIZE(cache); i++) {
		if (cache[i].kind == kind && cache[i].key == key) {
			e = &cache[i];
			break;
		}
		if (cache[i].used < e->used)
			e = &cache[i];
	}
	ent_clear(e);
	e->kind = kind;
	e->key = key;
	e->sig = *sig;
	e->used = ++cache_clock;
	return e;
}

static void census_cache_free(void);

void api_cache_free(void)
{
	census_cache_free();
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < ARRAY_SIZE(cache); i++) {
		maint_free(cache[i].maint);
		cache[i].maint = NULL;
		blob_unref(cache[i].blob);
		blob_unref(cache[i].gz);
		cache[i].blob = cache[i].gz = NULL;
		cache[i].kind = 0;
	}
	pthread_mutex_unlock(&cache_lock);
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
	sqlite3_stmt *st = NULL;
	int ret = -1;

	*out = NULL;
	db_signature(&sig, db);
	pthread_mutex_lock(&cache_lock);
	e = cache_find(CACHE_MAINT, tree_id, &sig);
	if (e) {
		*out = e->maint;
		pthread_mutex_unlock(&cache_lock);
		return 0;
	}
	pthread_mutex_unlock(&cache_lock);
	if (db_prepare(&st, db, "SELECT maintainers FROM trees WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, tree_id, 0);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			maint_parse(&m,
				    (const char *)sqlite3_column_text(st, 0),
				    (size_t)sqlite3_column_bytes(st, 0));
		ret = 0;
	}
	sqlite3_finalize(st);
	if (ret)
		return -1;
	pthread_mutex_lock(&cache_lock);
	e = cache_slot(CACHE_MAINT, tree_id, &sig);
	e->maint = m;
	*out = m;
	pthread_mutex_unlock(&cache_lock);
	return 0;
}

/* runs, trees, health */

#define RUN_COLS                                                           \
	"r.id, r.tree_id, t.name, t.version, r.kind, r.series, r.config,"  \
	" r.level, r.status, r.message, r.started_at, r.finished_at,"      \
	" (SELECT COUNT(*) FROM commits c WHERE c.run_id = r.id),"         \
	" (SELECT COUNT(*) FROM states s WHERE s.commit_id = (SELECT c.id" \
	"  FROM commits c WHERE c.run_id = r.id AND EXISTS (SELECT 1 FROM" \
	"  builds b WHERE b.commit_id = c.id) ORDER BY c.position DESC"    \
	"  LIMIT 1) AND s.state IN ('new', 'present')),"                   \
	" (SELECT b.compiler FROM commits c JOIN builds b"                 \
	"  ON b.commit_id = c.id WHERE c.run_id = r.id"                    \
	"  ORDER BY b.id LIMIT 1)"                                         \
	" FROM runs r JOIN trees t ON t.id = r.tree_id"

static json_t *run_json(sqlite3_stmt *st)
{
	json_t *o = json_object(), *t = json_object();

	set(o, "id", col_int(st, 0));
	set_cols(t, st, 1, "id:i name:s version:s");
	set(o, "tree", t);
	set_cols(o, st, 4,
		 "kind:s series:s config:s level:i status:s "
		 "message:s started_at:i finished_at:i commits:i "
		 "warnings:i compiler:s");
	return o;
}

int api_health(struct api_reply *reply, const struct api_req *r)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(&st, r->db, "SELECT COUNT(*) FROM runs"))
		return db_fail(reply, r->db);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(reply, r->db);
	}
	reply->json = json_object();
	set(reply->json, "status", json_string("ok"));
	set(reply->json, "schema", json_integer(db_schema_version()));
	set(reply->json, "runs", col_int(st, 0));
	sqlite3_finalize(st);
	return 0;
}

int api_runs(struct api_reply *reply, const struct api_req *r)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (db_prepare(&st, r->db, "SELECT " RUN_COLS " ORDER BY r.id DESC"))
		return db_fail(reply, r->db);
	reply->json = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(reply->json, run_json(st));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(reply, r->db);
}

int api_trees(struct api_reply *reply, const struct api_req *r)
{
	sqlite3_stmt *st = NULL, *rs = NULL;
	int rc = SQLITE_DONE;

	if (db_prepare(&st, r->db,
		       "SELECT id, name, version, pkg_version, kind, source,"
		       " imported_at, maintainers IS NOT NULL FROM trees"
		       " ORDER BY name, id") ||
	    db_prepare(&rs, r->db,
		       "SELECT " RUN_COLS " WHERE r.tree_id = ?"
		       " ORDER BY r.id DESC")) {
		sqlite3_finalize(st);
		return db_fail(reply, r->db);
	}
	reply->json = json_array();
	while (rc == SQLITE_DONE && sqlite3_step(st) == SQLITE_ROW) {
		json_t *t = json_object(), *runs = json_array();

		set_cols(t, st, 0,
			 "id:i name:s version:s pkg_version:s kind:s "
			 "source:s imported_at:i");
		set(t, "maintainers", json_boolean(sqlite3_column_int(st, 7)));
		sqlite3_bind_int64(rs, 1, sqlite3_column_int64(st, 0));
		while ((rc = sqlite3_step(rs)) == SQLITE_ROW)
			json_array_append_new(runs, run_json(rs));
		sqlite3_reset(rs);
		set(t, "runs", runs);
		json_array_append_new(reply->json, t);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(rs);
	return rc == SQLITE_DONE ? 0 : db_fail(reply, r->db);
}

int api_run(struct api_reply *reply, const struct api_req *r)
{
	sqlite3_stmt *st = NULL;
	long long id = 0;
	json_t *commits;
	int rc;

	if (parse_id(&id, reply, "run id", r->args[0]))
		return -1;
	if (db_prepare(&st, r->db, "SELECT " RUN_COLS " WHERE r.id = ?"))
		return db_fail(reply, r->db);
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE)
			return api_fail(reply, 404, "no run %lld", id);
		return db_fail(reply, r->db);
	}
	reply->json = run_json(st);
	sqlite3_finalize(st);
	if (db_prepare(&st, r->db,
		       "SELECT c.id, c.position, c.sha, c.subject, c.patch,"
		       " c.apply_status, (SELECT MAX(b.id) FROM builds b"
		       " WHERE b.commit_id = c.id) FROM commits c"
		       " WHERE c.run_id = ? ORDER BY c.position"))
		return db_fail(reply, r->db);
	db_bind_int(st, 1, id, 0);
	commits = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *c = json_object();

		set_cols(c, st, 0,
			 "id:i position:i sha:s subject:s patch:s "
			 "apply_status:s build:i");
		json_array_append_new(commits, c);
	}
	sqlite3_finalize(st);
	set(reply->json, "commit_list", commits);
	if (rc != SQLITE_DONE)
		return db_fail(reply, r->db);
	/* while it runs: where it is, as kwarn run last said */
	if (db_prepare(&st, r->db, "SELECT progress FROM runs WHERE id = ?"))
		return db_fail(reply, r->db);
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	set(reply->json, "progress",
	    rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL ?
		    json_loads(db_col_text(st, 0), 0, NULL) :
		    json_null());
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(reply, r->db);
}

/* burn-down */

/* 1 if run ID exists, 0 if not, -1 on error (reply filled). */
static int run_exists(struct api_reply *reply, sqlite3 *db, long long id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (db_prepare(&st, db, "SELECT 1 FROM runs WHERE id = ?"))
		return db_fail(reply, db);
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_fail(reply, db);
}

/* Counts of one commit while its states stream by. */
enum { TALLY_NEW, TALLY_PRESENT, TALLY_FIXED, TALLY_NOT_BUILT, TALLY_MAX };

struct tally {
	long long commit_id;
	json_t *entry; /* the commit's burn-down entry (borrowed) */
	long long n[TALLY_MAX];
	struct {
		char *option;
		long long n;
	} opt[16];
	size_t nopt;
};

static void tally_option(struct tally *t, const char *option)
{
	size_t i;

	for (i = 0; i < t->nopt; i++) {
		if (!strcmp(t->opt[i].option, option)) {
			t->opt[i].n++;
			return;
		}
	}
	if (t->nopt == ARRAY_SIZE(t->opt))
		option = "(other)";
	for (i = 0; i < t->nopt; i++) {
		if (!strcmp(t->opt[i].option, option)) {
			t->opt[i].n++;
			return;
		}
	}
	if (t->nopt == ARRAY_SIZE(t->opt))
		return;
	t->opt[t->nopt].option = xstrdup(option);
	t->opt[t->nopt++].n = 1;
}

/* Add KEY += N in object O. */
static void add_to(json_t *o, const char *key, long long n)
{
	set(o, key,
	    json_integer(json_integer_value(json_object_get(o, key)) + n));
}

/* Add the counts to the entry (a commit may come by twice); restart. */
static void tally_flush(struct tally *t)
{
	json_t *bo;

	if (t->entry) {
		bo = json_object_get(t->entry, "by_option");
		add_to(t->entry, "warnings",
		       t->n[TALLY_NEW] + t->n[TALLY_PRESENT]);
		add_to(t->entry, "new", t->n[TALLY_NEW]);
		add_to(t->entry, "fixed", t->n[TALLY_FIXED]);
		add_to(t->entry, "not_built", t->n[TALLY_NOT_BUILT]);
		for (size_t i = 0; i < t->nopt; i++)
			if (t->opt[i].n)
				add_to(bo, t->opt[i].option, t->opt[i].n);
	}
	for (size_t i = 0; i < t->nopt; i++)
		t->opt[i].n = 0;
	memset(t->n, 0, sizeof(t->n));
	t->entry = NULL;
}

static void tally_release(struct tally *t)
{
	for (size_t i = 0; i < t->nopt; i++)
		free(t->opt[i].option);
	t->nopt = 0;
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
	struct tally acc;
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array(), *by_id = json_object();
	char key[32];
	int rc, ret = -1;

	if (db_prepare(
		    &st, db,
		    "SELECT c.id, c.position, c.sha, c.subject, c.patch,"
		    " c.apply_status, x.bid, (SELECT bo.verdict FROM boots bo"
		    "  WHERE bo.build_id = x.bid ORDER BY bo.id DESC LIMIT 1)"
		    " FROM commits c, (SELECT cc.id AS cid, (SELECT MAX(b.id)"
		    "  FROM builds b WHERE b.commit_id = cc.id) AS bid"
		    "  FROM commits cc WHERE cc.run_id = ?1) x"
		    " WHERE c.id = x.cid ORDER BY c.position"))
		goto out;
	db_bind_int(st, 1, run_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *c = json_object();
		int built = sqlite3_column_type(st, 6) != SQLITE_NULL;

		set(c, "commit", col_str(st, 2));
		set(c, "id", col_int(st, 0));
		set(c, "position", col_int(st, 1));
		set_cols(c, st, 3, "subject:s patch:s apply_status:s build:i");
		set(c, "warnings", built ? json_integer(0) : json_null());
		set(c, "new", built ? json_integer(0) : json_null());
		set(c, "fixed", built ? json_integer(0) : json_null());
		set(c, "not_built", built ? json_integer(0) : json_null());
		set(c, "by_option", json_object());
		set(c, "boot", col_str(st, 7));
		snprintf(key, sizeof(key), "%lld", sqlite3_column_int64(st, 0));
		json_object_set(by_id, key, c);
		json_array_append_new(arr, c);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto out;
	/*
	 * One pass over the run's states in commit order, counted here: a
	 * GROUP BY would sort a million rows for a thousand commits.
	 */
	if (db_prepare(&st, db,
		       "SELECT s.commit_id, s.state, i.option"
		       " FROM commits c JOIN states s ON s.commit_id = c.id"
		       " JOIN identities i ON i.id = s.identity_id"
		       " WHERE c.run_id = ?"))
		goto out;
	db_bind_int(st, 1, run_id, 0);
	memset(&acc, 0, sizeof(acc));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long cid = sqlite3_column_int64(st, 0);
		const char *state = db_col_text(st, 1);

		if (cid != acc.commit_id) {
			tally_flush(&acc);
			snprintf(key, sizeof(key), "%lld", cid);
			acc.entry = json_object_get(by_id, key);
			if (acc.entry && json_is_null(json_object_get(
						 acc.entry, "warnings")))
				acc.entry = NULL;
			acc.commit_id = cid;
		}
		if (!acc.entry)
			continue;
		if (!strcmp(state, "new") || !strcmp(state, "present")) {
			acc.n[state[0] == 'n' ? TALLY_NEW : TALLY_PRESENT]++;
			tally_option(&acc,
				     sqlite3_column_type(st, 2) == SQLITE_NULL ?
					     "(none)" :
					     db_col_text(st, 2));
		} else if (!strcmp(state, "fixed")) {
			acc.n[TALLY_FIXED]++;
		} else {
			acc.n[TALLY_NOT_BUILT]++;
		}
	}
	tally_flush(&acc);
	tally_release(&acc);
	if (rc != SQLITE_DONE)
		goto out;
	if (burndown_by_compiler(arr, db, run_id))
		goto out;
	*out = arr;
	arr = NULL;
	ret = 0;
out:
	if (ret)
		error("cannot compute burn-down of run %lld: %s", run_id,
		      sqlite3_errmsg(db));
	sqlite3_finalize(st);
	json_decref(by_id);
	json_decref(arr);
	return ret;
}

int api_burndown(struct api_reply *reply, const struct api_req *r)
{
	struct cache_ent *e;
	struct db_sig sig;
	json_t *arr = NULL;
	long long id = 0;
	char *text;
	int ex;

	if (parse_id(&id, reply, "run id", r->args[0]))
		return -1;
	db_signature(&sig, r->db);
	pthread_mutex_lock(&cache_lock);
	e = cache_find(CACHE_BURNDOWN, id, &sig);
	if (e) {
		reply->blob = blob_ref(e->blob);
		reply->gz = e->gz ? blob_ref(e->gz) : NULL;
	}
	pthread_mutex_unlock(&cache_lock);
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
	pthread_mutex_lock(&cache_lock);
	e = cache_slot(CACHE_BURNDOWN, id, &sig);
	e->blob = blob_ref(reply->blob);
	e->gz = reply->gz ? blob_ref(reply->gz) : NULL;
	pthread_mutex_unlock(&cache_lock);
	return 0;
}

/* points: which commit a request is about */

struct point {
	long long run_id, commit_id, tree_id;
	long position;
	char *sha; /* the commit's sha */
	char *base; /* sha of the run's first commit */
};

static void point_release(struct point *p)
{
	free(p->sha);
	free(p->base);
	memset(p, 0, sizeof(*p));
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Fill the rest of P from P->commit_id. */
static int point_fill(struct point *p, struct api_reply *reply, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (db_prepare(&st, db,
		       "SELECT c.run_id, c.position, c.sha, r.tree_id,"
		       " (SELECT b.sha FROM commits b WHERE b.run_id = c.run_id"
		       "  ORDER BY b.position LIMIT 1)"
		       " FROM commits c JOIN runs r ON r.id = c.run_id"
		       " WHERE c.id = ?"))
		return db_fail(reply, db);
	db_bind_int(st, 1, p->commit_id, 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		p->run_id = sqlite3_column_int64(st, 0);
		p->position = sqlite3_column_int(st, 1);
		p->sha = xstrdup(db_col_text(st, 2));
		p->tree_id = sqlite3_column_int64(st, 3);
		p->base = xstrdup(db_col_text(st, 4));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(reply, db);
}

/*
 * Resolve the point of a request: commit REF (path or ?commit=) within
 * ?run= if given; else the last built point of ?run=, else of the newest
 * run.  404 if there is none.
 */
static int point_resolve(struct point *p, struct api_reply *reply,
			 const struct api_req *r, const char *ref)
{
	const char *run = api_arg(r, "run"), *cc = api_arg(r, "compiler");
	sqlite3_stmt *st = NULL;
	long long run_id = -1;
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
	if (ref) {
		if (!*ref || strlen(ref) > MAX_REF)
			return api_fail(reply, 400,
					"bad parameter 'commit':"
					" want a sha, a prefix or an id");
		if (db_prepare(&st, r->db,
			       "SELECT id FROM commits WHERE (?2 IS NULL OR"
			       " run_id = ?2) AND (sha = ?1 OR (?3 AND id = ?4)"
			       " OR (length(?1) >= 7 AND substr(sha, 1,"
			       " length(?1)) = ?1)) ORDER BY CASE WHEN sha = ?1"
			       " THEN 0 WHEN ?3 AND id = ?4 THEN 1 ELSE 2 END,"
			       " id DESC LIMIT 1"))
			return db_fail(reply, r->db);
		db_bind_text(st, 1, ref);
		db_bind_int(st, 2, run_id, 1);
		sqlite3_bind_int(st, 3, all_digits(ref) && strlen(ref) < 19);
		sqlite3_bind_int64(st, 4,
				   all_digits(ref) && strlen(ref) < 19 ?
					   strtoll(ref, NULL, 10) :
					   -1);
	} else {
		if (db_prepare(&st, r->db,
			       "SELECT c.id FROM commits c WHERE c.run_id ="
			       " COALESCE(?1, (SELECT MAX(id) FROM runs))"
			       " AND EXISTS (SELECT 1 FROM builds b WHERE"
			       " b.commit_id = c.id)"
			       " ORDER BY c.position DESC LIMIT 1"))
			return db_fail(reply, r->db);
		db_bind_int(st, 1, run_id, 1);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		p->commit_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return ref ? api_fail(reply, 404, "no commit '%s'", ref) :
			     api_fail(reply, 404, "no built commit in %s",
				      run ? "this run" : "any run");
	if (rc != SQLITE_ROW)
		return db_fail(reply, r->db);
	/* compiler=: the same point as that compiler's run measured it */
	if (cc &&
	    query_commit_for_compiler(&p->commit_id, r->db, p->commit_id, cc))
		return db_fail(reply, r->db);
	if (p->commit_id < 0)
		return api_fail(reply, 404, "no %s build of this point", cc);
	return point_fill(p, reply, r->db);
}

static json_t *point_json(const struct point *p)
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
	const struct point *p;
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

#define WQ_WHERE                                                          \
	" WHERE s.commit_id = ?1 AND ((?2 IS NULL AND s.state IN ('new'," \
	" 'present')) OR s.state = ?2) AND (?3 IS NULL OR i.file = ?3)"   \
	" AND (?4 IS NULL OR i.function = ?4) AND (?5 IS NULL OR"         \
	" i.option = ?5) AND (?6 IS NULL OR i.file IN (SELECT value FROM" \
	" json_each(?6)))"

static void wq_bind(sqlite3_stmt *st, const struct wquery *q)
{
	db_bind_int(st, 1, q->p->commit_id, 0);
	db_bind_text(st, 2, q->state);
	db_bind_text(st, 3, q->file);
	db_bind_text(st, 4, q->function);
	db_bind_text(st, 5, q->option);
	db_bind_text(st, 6, q->files);
}

static json_t *notes_json(sqlite3_stmt *nt, long long diag_id)
{
	json_t *notes = json_array();

	sqlite3_bind_int64(nt, 1, diag_id);
	while (sqlite3_step(nt) == SQLITE_ROW) {
		json_t *n = json_object();

		set_cols(n, nt, 0, "file:s line:i column:i message:s source:s");
		json_array_append_new(notes, n);
	}
	sqlite3_reset(nt);
	return notes;
}

static json_t *reproducer(sqlite3_stmt *st, int obj_col, int flags_col)
{
	const char *obj = (const char *)sqlite3_column_text(st, obj_col);
	const char *flags = (const char *)sqlite3_column_text(st, flags_col);
	json_t *j;
	char *s;

	if (!obj)
		return json_null();
	s = xstrfmt("make O=<build>%s%s %s", flags && *flags ? " " : "",
		    flags && *flags ? flags : "", obj);
	j = jstr(s);
	free(s);
	return j;
}

/* Run Q into a new object {total, limit, offset, commit, warnings}. */
static int warnings_run(struct api_reply *reply, sqlite3 *db,
			const struct wquery *q)
{
	sqlite3_stmt *st = NULL, *nt = NULL, *cnt = NULL;
	json_t *arr;
	int rc;

	if (db_prepare(&cnt, db,
		       "SELECT COUNT(*) FROM states s JOIN identities i"
		       " ON i.id = s.identity_id" WQ_WHERE) ||
	    db_prepare(
		    &st, db,
		    "SELECT s.identity_id, s.state, s.seen, d.id,"
		    " COALESCE(d.file, i.file), d.line, d.col,"
		    " COALESCE(d.function, i.function),"
		    " COALESCE(d.option, i.option),"
		    " COALESCE(d.message, i.message), d.source, i.kind,"
		    " o.path, i.fingerprint, b.flags, d.build_id,"
		    " (SELECT c2.sha FROM states s2 JOIN commits c2"
		    "  ON c2.id = s2.commit_id WHERE s2.identity_id ="
		    "  s.identity_id AND c2.run_id = ?7 AND c2.position <= ?8"
		    "  AND s2.state = 'new' ORDER BY c2.position DESC"
		    "  LIMIT 1),"
		    " (SELECT c2.sha FROM states s2 JOIN commits c2"
		    "  ON c2.id = s2.commit_id WHERE s2.identity_id ="
		    "  s.identity_id AND c2.run_id = ?7 AND c2.position >= ?8"
		    "  AND s2.state = 'fixed' ORDER BY c2.position LIMIT 1),"
		    " s.in_change, cl.verdict, cl.fix, cl.reason"
		    /* the page first: the subqueries above run for it only */
		    " FROM (SELECT s.identity_id AS iid FROM states s"
		    "  JOIN identities i ON i.id = s.identity_id"
		    "  LEFT JOIN diagnostics d ON d.id = s.diag_id" WQ_WHERE
		    "  ORDER BY COALESCE(d.file, i.file), d.line, d.col,"
		    "  s.identity_id LIMIT ?9 OFFSET ?10) pg"
		    " JOIN states s ON s.commit_id = ?1 AND s.identity_id = pg.iid"
		    " JOIN identities i ON i.id = s.identity_id"
		    " LEFT JOIN diagnostics d ON d.id = s.diag_id"
		    " LEFT JOIN objects o ON o.id = d.object_id"
		    " LEFT JOIN builds b ON b.id = d.build_id"
		    " LEFT JOIN classifications cl"
		    "  ON cl.identity_id = s.identity_id"
		    " ORDER BY 5, 6, 7, s.identity_id") ||
	    db_prepare(&nt, db,
		       "SELECT file, line, col, message, source FROM notes"
		       " WHERE diag_id = ? ORDER BY seq")) {
		sqlite3_finalize(cnt);
		sqlite3_finalize(st);
		return db_fail(reply, db);
	}
	wq_bind(cnt, q);
	wq_bind(st, q);
	db_bind_int(st, 7, q->p->run_id, 0);
	db_bind_int(st, 8, q->p->position, 0);
	db_bind_int(st, 9, q->limit, 0);
	db_bind_int(st, 10, q->offset, 0);
	reply->json = json_object();
	if (sqlite3_step(cnt) == SQLITE_ROW)
		set(reply->json, "total", col_int(cnt, 0));
	set(reply->json, "limit", json_integer(q->limit));
	set(reply->json, "offset", json_integer(q->offset));
	set(reply->json, "state",
	    q->state ? json_string(q->state) : json_string("new,present"));
	set(reply->json, "commit", point_json(q->p));
	arr = json_array();
	set(reply->json, "warnings", arr);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *w = json_object();

		set(w, "identity", col_str(st, 13));
		set(w, "identity_id", col_int(st, 0));
		set(w, "state", col_str(st, 1));
		set_cols(w, st, 4,
			 "file:s line:i column:i function:s option:s "
			 "message:s");
		set(w, "kind", col_str(st, 11));
		set(w, "source", col_str(st, 10));
		set(w, "object", col_str(st, 12));
		set(w, "seen", col_int(st, 2));
		set(w, "build", col_int(st, 15));
		set(w, "in_change", json_boolean(sqlite3_column_int(st, 18)));
		set(w, "introduced",
		    sqlite3_column_type(st, 16) == SQLITE_NULL ?
			    jstr(q->p->base) :
			    col_str(st, 16));
		set(w, "fixed", col_str(st, 17));
		set(w, "reproducer", reproducer(st, 12, 14));
		/* kwarn classify's verdict on a fall-through, or nulls */
		set_cols(w, st, 19, "verdict:s fix:s reason:s");
		set(w, "notes",
		    sqlite3_column_type(st, 3) == SQLITE_NULL ?
			    json_array() :
			    notes_json(nt, sqlite3_column_int64(st, 3)));
		json_array_append_new(arr, w);
	}
	sqlite3_finalize(cnt);
	sqlite3_finalize(st);
	sqlite3_finalize(nt);
	return rc == SQLITE_DONE ? 0 : db_fail(reply, db);
}

/*
 * The files at point P that MAINTAINERS entry NAME covers, as a JSON
 * array text in *out.  404 if the tree has no such entry.
 */
static int subsystem_files(char **out, struct api_reply *reply, sqlite3 *db,
			   const struct point *p, const char *name)
{
	const struct maint *m = NULL;
	sqlite3_stmt *st = NULL;
	json_t *files;
	long idx;
	int rc;

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
	if (db_prepare(&st, db,
		       "SELECT DISTINCT i.file FROM states s JOIN identities i"
		       " ON i.id = s.identity_id WHERE s.commit_id = ?"
		       " AND i.file IS NOT NULL"))
		return db_fail(reply, db);
	db_bind_int(st, 1, p->commit_id, 0);
	files = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *f = db_col_text(st, 0);

		if (maint_entry_matches(m, (size_t)idx, f))
			json_array_append_new(files, jstr(f));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(files);
		return db_fail(reply, db);
	}
	*out = json_dumps(files, JSON_COMPACT);
	json_decref(files);
	return 0;
}

static int warnings_common(struct api_reply *reply, const struct api_req *r,
			   const char *ref, const char *subsystem)
{
	struct wquery q = { 0 };
	struct point p;
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
	point_release(&p);
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
	sqlite3_stmt *st = NULL;
	struct point p;
	size_t idx[64], n, i, k;
	json_t *arr;
	int rc, ret = -1;

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
	if (db_prepare(
		    &st, r->db,
		    "SELECT i.file, SUM(s.state = 'new'), COUNT(*)"
		    " FROM states s JOIN identities i ON i.id = s.identity_id"
		    " WHERE s.commit_id = ? AND s.state IN ('new', 'present')"
		    " GROUP BY i.file")) {
		db_fail(reply, r->db);
		goto out;
	}
	db_bind_int(st, 1, p.commit_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *f = db_col_text(st, 0);

		n = maint_match(idx, ARRAY_SIZE(idx), m, f);
		if (n > ARRAY_SIZE(idx))
			n = ARRAY_SIZE(idx);
		for (k = 0; k < n; k++) {
			counts[idx[k]].new_ += sqlite3_column_int64(st, 1);
			counts[idx[k]].warnings += sqlite3_column_int64(st, 2);
			counts[idx[k]].files++;
		}
	}
	if (rc != SQLITE_DONE) {
		db_fail(reply, r->db);
		goto out;
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
	sqlite3_finalize(st);
	free(counts);
	point_release(&p);
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
	sqlite3_stmt *st = NULL;
	json_t *list = json_array();
	long long ok = 0;
	int rc;

	if (db_prepare(&st, db,
		       "SELECT name, status, message FROM boot_modules"
		       " WHERE boot_id = ? ORDER BY rowid")) {
		json_decref(list);
		return db_fail(reply, db);
	}
	db_bind_int(st, 1, boot_id, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *m = json_object();

		set_cols(m, st, 0, "name:s status:s message:s");
		ok += !strcmp(db_col_text(st, 1), "ok");
		json_array_append_new(list, m);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		return db_fail(reply, db);
	}
	if (!json_array_size(list)) {
		json_decref(list);
		set(reply->json, "modules", json_null());
		return 0;
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
	sqlite3_stmt *st = NULL;
	unsigned char *log = NULL;
	long long id = 0;
	int rc, ret = -1;

	if (parse_id(&id, reply, "build id", r->args[0]))
		return -1;
	if (db_prepare(&st, r->db,
		       "SELECT (SELECT 1 FROM builds WHERE id = ?1), bo.id,"
		       " bo.verdict, bo.reason, bo.duration_ms, bo.log,"
		       " bo.log_size, bo.accel, bo.kernel_version,"
		       " bo.fingerprint, bo.created_at"
		       " FROM (SELECT 1) LEFT JOIN boots bo ON bo.id ="
		       " (SELECT MAX(id) FROM boots WHERE build_id = ?1)"))
		return db_fail(reply, r->db);
	db_bind_int(st, 1, id, 0);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_fail(reply, r->db);
		goto out;
	}
	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		api_fail(reply, 404, "no build %lld", id);
		goto out;
	}
	if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
		api_fail(reply, 404, "build %lld was not booted", id);
		goto out;
	}
	reply->json = json_object();
	set(reply->json, "build", json_integer(id));
	set(reply->json, "boot", col_int(st, 1));
	set(reply->json, "verdict", col_str(st, 2));
	set(reply->json, "reason", col_str(st, 3));
	set(reply->json, "duration_ms", col_int(st, 4));
	set(reply->json, "accel", col_str(st, 7));
	set(reply->json, "kernel_version", col_str(st, 8));
	set(reply->json, "fingerprint", col_str(st, 9));
	set(reply->json, "created_at", col_int(st, 10));
	if (boot_modules_json(reply, r->db, sqlite3_column_int64(st, 1)))
		goto out;
	if (sqlite3_column_type(st, 5) == SQLITE_NULL) {
		set(reply->json, "log", json_null());
	} else {
		const void *z = sqlite3_column_blob(st, 5);
		uLong zlen = (uLong)sqlite3_column_bytes(st, 5);
		uLongf dlen = (uLongf)sqlite3_column_int64(st, 6);
		int zrc = Z_BUF_ERROR;

		/* log_size is a hint; grow while zlib says it is short */
		if (dlen == 0 || dlen > MAX_BOOT_LOG)
			dlen = zlen * 4 + 1024;
		while (dlen <= MAX_BOOT_LOG) {
			uLongf got = dlen;

			log = xrealloc(log, dlen + 1);
			zrc = uncompress(log, &got, z, zlen);
			if (zrc != Z_BUF_ERROR) {
				dlen = got;
				break;
			}
			dlen *= 2;
		}
		if (zrc != Z_OK) {
			error("cannot uncompress the log of boot %lld: zlib"
			      " error %d",
			      sqlite3_column_int64(st, 1), zrc);
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
	sqlite3_finalize(st);
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
	sqlite3_stmt *st = NULL, *nt = NULL;
	struct point p = { 0 };
	char *text = NULL, *file = NULL;
	long context = 5, line;
	long long fp_key;
	json_t *lines;
	int rc, ret = -1;

	if (ctx && util_parse_long(&context, ctx, 0, 200))
		return api_fail(reply, 400,
				"bad parameter 'context': want 0"
				" to 200");
	if (strlen(ident) > 128)
		return api_fail(reply, 400, "bad warning identity");
	if (api_arg(r, "commit") || api_arg(r, "run")) {
		if (point_resolve(&p, reply, r, api_arg(r, "commit")))
			return -1;
	}
	if (db_prepare(
		    &st, r->db,
		    "SELECT s.commit_id, d.id, d.file, d.line, d.col,"
		    " d.source, d.message, o.path, i.fingerprint, d.function,"
		    " d.option, cl.verdict, cl.fix, cl.reason"
		    " FROM identities i JOIN states s ON s.identity_id = i.id"
		    " JOIN diagnostics d ON d.id = s.diag_id"
		    " LEFT JOIN objects o ON o.id = d.object_id"
		    " LEFT JOIN classifications cl ON cl.identity_id = i.id"
		    " WHERE ((i.fp_key = ?5 AND i.fingerprint = ?1)"
		    "  OR (?2 AND i.id = ?3))"
		    " AND (?4 IS NULL OR s.commit_id = ?4)"
		    " ORDER BY s.commit_id DESC LIMIT 1") ||
	    db_prepare(&nt, r->db,
		       "SELECT file, line, col, message, source FROM notes"
		       " WHERE diag_id = ? ORDER BY seq")) {
		db_fail(reply, r->db);
		goto out;
	}
	db_bind_text(st, 1, ident);
	sqlite3_bind_int(st, 2, all_digits(ident) && strlen(ident) < 19);
	sqlite3_bind_int64(st, 3,
			   all_digits(ident) && strlen(ident) < 19 ?
				   strtoll(ident, NULL, 10) :
				   -1);
	db_bind_int(st, 4, p.commit_id ? p.commit_id : -1, 1);
	/* the fingerprint is found through its indexed first 64 bits */
	if (ident_fingerprint_key(&fp_key, ident))
		sqlite3_bind_null(st, 5);
	else
		sqlite3_bind_int64(st, 5, fp_key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		api_fail(reply, 404, "no warning '%s'%s", ident,
			 p.commit_id ? " at that commit" : "");
		goto out;
	}
	if (rc != SQLITE_ROW) {
		db_fail(reply, r->db);
		goto out;
	}
	if (!p.commit_id) {
		p.commit_id = sqlite3_column_int64(st, 0);
		if (point_fill(&p, reply, r->db))
			goto out;
	}
	file = xstrdup(db_col_text(st, 2));
	line = sqlite3_column_int(st, 3);
	reply->json = json_object();
	set(reply->json, "identity", col_str(st, 8));
	set(reply->json, "commit", point_json(&p));
	set(reply->json, "file", col_str(st, 2));
	set(reply->json, "line", col_int(st, 3));
	set(reply->json, "column", col_int(st, 4));
	set(reply->json, "message", col_str(st, 6));
	set(reply->json, "object", col_str(st, 7));
	set(reply->json, "function", col_str(st, 9));
	set(reply->json, "option", col_str(st, 10));
	set(reply->json, "verdict", col_str(st, 11));
	set(reply->json, "fix", col_str(st, 12));
	set(reply->json, "reason", col_str(st, 13));
	set(reply->json, "notes", notes_json(nt, sqlite3_column_int64(st, 1)));
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
		set(l, "line", col_int(st, 3));
		set(l, "text", col_str(st, 5));
		set(l, "mark", json_true());
		json_array_append_new(lines, l);
	}
	set(reply->json, "from", json_string(from));
	set(reply->json, "lines", lines);
	ret = 0;
out:
	free(text);
	free(file);
	sqlite3_finalize(st);
	sqlite3_finalize(nt);
	point_release(&p);
	return ret;
}

/* the marker census of a commit's tree */

/*
 * Answers by commit sha and path prefix.  A tree at a commit never
 * changes, so they outlive database changes; a kernel tree takes some
 * 20 s, so one census is taken at a time and the others wait for it.
 */
struct census_ent {
	char *key; /* "SHA:PATH" */
	struct blob *blob, *gz;
	unsigned long used;
};

static pthread_mutex_t census_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t census_scan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct census_ent census_cache[16];
static unsigned long census_clock;

/* The cached answer for KEY into REPLY; 1 if there was one, else 0. */
static int census_cached(struct api_reply *reply, const char *key)
{
	int found = 0;

	pthread_mutex_lock(&census_lock);
	for (size_t i = 0; i < ARRAY_SIZE(census_cache); i++) {
		struct census_ent *e = &census_cache[i];

		if (!e->key || strcmp(e->key, key))
			continue;
		e->used = ++census_clock;
		reply->blob = blob_ref(e->blob);
		reply->gz = e->gz ? blob_ref(e->gz) : NULL;
		found = 1;
		break;
	}
	pthread_mutex_unlock(&census_lock);
	return found;
}

/* Keep REPLY's answer under KEY, in the least recently used slot. */
static void census_keep(const char *key, const struct api_reply *reply)
{
	struct census_ent *e = &census_cache[0];

	pthread_mutex_lock(&census_lock);
	for (size_t i = 0; i < ARRAY_SIZE(census_cache); i++)
		if (census_cache[i].used < e->used)
			e = &census_cache[i];
	free(e->key);
	blob_unref(e->blob);
	blob_unref(e->gz);
	e->key = xstrdup(key);
	e->blob = blob_ref(reply->blob);
	e->gz = reply->gz ? blob_ref(reply->gz) : NULL;
	e->used = ++census_clock;
	pthread_mutex_unlock(&census_lock);
}

static void census_cache_free(void)
{
	pthread_mutex_lock(&census_lock);
	for (size_t i = 0; i < ARRAY_SIZE(census_cache); i++) {
		free(census_cache[i].key);
		blob_unref(census_cache[i].blob);
		blob_unref(census_cache[i].gz);
		memset(&census_cache[i], 0, sizeof(census_cache[i]));
	}
	pthread_mutex_unlock(&census_lock);
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
	struct point p;
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
	point_release(&p);
	return ret;
}
