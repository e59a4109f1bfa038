/* SPDX-License-Identifier: MIT */
#ifndef KWARN_SERVER_H
#define KWARN_SERVER_H

/*
 * kwarn-server's private header: the MAINTAINERS matcher (maint.c), the
 * replies (reply.c), the HTTP layer (http.c) and the JSON endpoints
 * (api.c).
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/* maint.c: see maint.h */
#include "maint.h"
#include "query.h"

/* reply.c */

/* A reference-counted, immutable body shared by cached answers. */
struct blob {
	int refs;
	size_t len;
	char data[];
};

/* A blob holding a copy of DATA, with one reference. */
struct blob *blob_new(const char *data, size_t len);
struct blob *blob_ref(struct blob *b);
/* Drop one reference; the last one frees B.  NULL is fine. */
void blob_unref(struct blob *b);
/* B's data gzip-compressed into a new blob, or NULL on failure. */
struct blob *blob_gzip(const struct blob *b);

/* What an endpoint answers. */
struct api_reply {
	int status; /* HTTP status */
	json_t *json; /* body (owned); NULL: use text/len */
	char *text; /* pre-built JSON body (owned, malloc'd) */
	size_t len;
	struct blob *blob; /* shared pre-built body (one reference) */
	struct blob *gz; /* the same gzip-compressed, or NULL */
	/* X-Kwarn-Result: a page of a kept result (api-warnings.c), or NULL */
	const char *result;
	/* the Content-Type of a 200's body (a static string); NULL: JSON */
	const char *type;
};

/*
 * Fill REPLY with a JSON error {"error": MSG, "status": STATUS}; bytes of
 * MSG that are not UTF-8 (an echoed path or value) become '?'.
 * Returns -1.
 */
int api_fail(struct api_reply *reply, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* cache.c */

#include <pthread.h>
#include <sys/types.h>
#include <time.h>

/* The database files' signature: a write changes it. */
struct db_sig {
	struct timespec m1, m2; /* mtime of the database and its -wal */
	off_t s1, s2; /* their sizes */
	ino_t i1; /* the database's inode: replaced, not written */
};

/* DB's signature into *sig (all zero for an in-memory database). */
void cache_db_sig(struct db_sig *sig, sqlite3 *db);
/* 1 if A and B are the same database state, else 0. */
int cache_sig_equal(const struct db_sig *a, const struct db_sig *b);

/* One answer in a cache. */
struct cache_ent {
	char *key; /* owned; NULL: a free slot */
	struct db_sig sig; /* the database it was built from, if it matters */
	/* what else tells it is current (a burn-down's) */
	long long fp[QUERY_RUN_FP];
	struct blob *blob, *gz; /* one reference each, or NULL */
	struct blob *aux; /* an index into blob (api-warnings.c), or NULL */
	const char *type; /* blob's Content-Type (api_reply's), NULL: JSON */
	void *data; /* owned; retired, never freed, when the entry goes */
	int building; /* nonzero: not to be given up (a request builds it) */
	unsigned long used; /* the cache's clock when last used */
};

/*
 * A fixed number of entries with one lock; when full, the least recently
 * used entry that is not being built is given up.  Data of an entry that
 * goes is kept until cache_release(), since another thread may still read
 * it.  Define one with CACHE_INIT(slots, data_free).
 */
struct cache {
	pthread_mutex_t lock;
	struct cache_ent *ent;
	size_t nr;
	unsigned long clock;
	void (*data_free)(void *); /* for retired data; NULL: none is kept */
	void **retired;
	size_t nretired;
};

#define CACHE_INIT(slots, free_fn)                                            \
	{                                                                     \
		PTHREAD_MUTEX_INITIALIZER, slots,                             \
			sizeof(slots) / sizeof((slots)[0]), 0, free_fn, NULL, \
			0                                                     \
	}

void cache_lock(struct cache *c);
void cache_unlock(struct cache *c);
/* Under the lock: KEY's entry, now the most recently used; else NULL. */
struct cache_ent *cache_find(struct cache *c, const char *key);
/*
 * Under the lock: an empty entry holding a copy of KEY, the most
 * recently used: KEY's own, else the least recently used one not being
 * built.  NULL when every entry is being built.
 */
struct cache_ent *cache_slot(struct cache *c, const char *key);
/* Under the lock: empty E, retiring its data. */
void cache_clear(struct cache *c, struct cache_ent *e);
/* Under the lock: E's bodies into REPLY, a reference each, and their type. */
void cache_serve(struct api_reply *reply, const struct cache_ent *e);
/* Empty every entry and free the retired data; at shutdown.  Takes the lock. */
void cache_release(struct cache *c);

/* api.c */

#define API_MAX_SEGMENTS 8
#define API_MAX_PAIRS 16

/*
 * A request target decoded by http_target_parse(): the path split at
 * '/' into segments, the query split at '&' into key=value pairs.  Every
 * string is owned (http_target_release() frees them) and NUL-free, but
 * not necessarily UTF-8.
 */
struct api_target {
	char *seg[API_MAX_SEGMENTS];
	size_t nseg;
	struct api_pair {
		char *key, *value; /* value "" when the pair has no '=' */
	} q[API_MAX_PAIRS];
	size_t nq;
};

/* One request as the router hands it to an endpoint. */
struct api_req {
	sqlite3 *db; /* this thread's read-only connection */
	const char *const *args; /* path parameters, e.g. the run id */
	const struct api_target *t; /* the query, through api_arg() */
	/* the calling thread's connection, for work handed to another */
	sqlite3 *(*db_of)(void);
};

/*
 * Query parameter NAME of the request, or NULL.  api_dispatch() has
 * checked it against the route's list and its rule (an integer in range,
 * a non-empty text of bounded length, a state name), and that it comes
 * once.
 */
const char *api_arg(const struct api_req *r, const char *name);

/* api.c: what the endpoint files (api-*.c) share */

#define MAX_CONTEXT 200 /* ?context= lines around a warning */
#define MAX_REF 255 /* the longest commit reference */

/* The caches of the endpoints (see api.c). */
extern struct cache api_cache, api_census_cache, api_result_cache;

/* A 503 for a failed query of DB, logged here.  Returns -1. */
int api_db_fail(struct api_reply *reply, sqlite3 *db);
/* O[KEY] = V, stolen; a NULL V is JSON null. */
void api_set(json_t *o, const char *key, json_t *v);
/*
 * The one rule for an integer of the request, in the path or the query:
 * decimal digits only (no sign, space or leading zero), from MIN to MAX.
 * Returns 0 with *out set, or -1.
 */
int api_parse_int(long long *out, const char *s, long long min, long long max);
/* A positive id from path or query value S named NAME, or 400. */
int api_parse_id(long long *out, struct api_reply *reply, const char *name,
		 const char *s);
/* The ?limit= and ?offset= of a list, or 400. */
int api_parse_page(long *limit, long *offset, struct api_reply *reply,
		   const struct api_req *r);

/* api-runs.c */

/* 1 if run ID exists, 0 if not, -1 on error (REPLY filled). */
int api_run_exists(struct api_reply *reply, sqlite3 *db, long long id);

/* api-warnings.c */

struct query_point;
/*
 * Resolve the point of a request: commit REF (path or ?commit=) within
 * ?run= if given, by the one rule of query_resolve_commit(); else the last
 * built point of ?run=, else of the newest run.  0, or -1 with a 404 (none)
 * or another error in REPLY.
 */
int api_point_resolve(struct query_point *p, struct api_reply *reply,
		      const struct api_req *r, const char *ref);
/* The point as the "commit" object of the replies, a new object. */
json_t *api_point_json(const struct query_point *p);

/* The endpoints (api-*.c); each fills REPLY and returns 0, or -1 after api_fail(). */
int api_health(struct api_reply *reply, const struct api_req *r);
int api_runs(struct api_reply *reply, const struct api_req *r);
int api_run(struct api_reply *reply, const struct api_req *r);
int api_burndown(struct api_reply *reply, const struct api_req *r);
int api_commit_warnings(struct api_reply *reply, const struct api_req *r);
int api_warnings(struct api_reply *reply, const struct api_req *r);
int api_warning_source(struct api_reply *reply, const struct api_req *r);
int api_subsystems(struct api_reply *reply, const struct api_req *r);
int api_subsystem_warnings(struct api_reply *reply, const struct api_req *r);
/*
 * GET /api/maintainers?run=&commit=: the people of the M: lines of the
 * tree's MAINTAINERS, with the point's live warnings in their files:
 * {"commit", "maintainers" (false: the tree has none), "owners": [{"name",
 * "open" (never triaged or reopened), "warnings", "new", "files",
 * "entries"}]}, most open first.  /api/warnings?owner= lists them.
 */
int api_maintainers(struct api_reply *reply, const struct api_req *r);
/*
 * GET /api/commits/{ref}[?run=N] and /api/runs/{id}/commits/{position}:
 * one commit as query_commit_detail() gives it (subject, author, date,
 * its build and boot, the previous and next commit of its run) and its
 * patch as "change" (null, and "change_error" why, when there is none);
 * 404 for none (api-commits.c).
 */
int api_commit(struct api_reply *reply, const struct api_req *r);
int api_run_commit(struct api_reply *reply, const struct api_req *r);
/*
 * GET /api/commits/{ref}/patch[?run=N]: what the commit changes against
 * its parent, from the collector's cached repository of its tree:
 * {"commit", "parent", "author", "email", "date", "message", "files":
 * [{"path", "old_path", "status" (A, D, M, R, T), "binary", "additions",
 * "deletions"}], "additions", "deletions", "diff" (unified, cut past
 * 1 MB), "truncated"}; 404 naming the commit when its tree is not cached.
 */
int api_commit_patch(struct api_reply *reply, const struct api_req *r);
int api_boot(struct api_reply *reply, const struct api_req *r);
int api_trees(struct api_reply *reply, const struct api_req *r);
/*
 * GET /api/nightly: what kwarn nightly reported of each nightly run it
 * compared, oldest first: [{"run", "report"}], report being the entry of
 * `kwarn nightly --format json`'s "trees" (the new warnings with the
 * cause kwarn nightly gave each, "previous_compiler" when it changed).
 */
int api_nightly(struct api_reply *reply, const struct api_req *r);
/*
 * GET /api/commits/{id}/census[?path=DIR]: the fall-through marker census
 * of the tree at that commit (as `kwarn census --format json`), read from
 * the collector's cached repository; 404 if the tree is not cached.
 */
int api_commit_census(struct api_reply *reply, const struct api_req *r);
/*
 * GET /api/warnings/{identity}/triage: the warning's triage, {"identity",
 * "state" (open when never triaged), "warning": {file, function, option,
 * message}, "history": [{state, reason, link, who, at, origin}, oldest
 * first], "writable" (the server takes triage)}; 404 for an unknown one.
 */
int api_warning_triage(struct api_reply *reply, const struct api_req *r);

/* api-triage.c: the one write the server makes */

/*
 * Read the tokens file PATH (one "NAME TOKEN" a line, # comments; refused
 * when others may read it, or a token is under 22 bytes) and let the
 * server write triage into DB_PATH on their behalf.  Only the tokens'
 * SHA-256 are kept.  Returns 0 or -1 (reported).
 */
int api_triage_tokens(const char *path, const char *db_path);
/* 1 if the server takes triage (it read tokens), else 0. */
int api_triage_enabled(void);
/*
 * The name of the token in AUTHORIZATION ("Bearer TOKEN"), compared with
 * every token in constant time; NULL if none matches.
 */
const char *api_triage_who(const char *authorization);
/*
 * POST /api/warnings/{IDENT}/triage with BODY (LEN bytes: {"state",
 * "reason", "link"}) on behalf of WHO: checked (400 naming the field,
 * 404 for an unknown warning), stored in a short transaction of its own
 * (503 if it cannot be), answered 201 with the record.  Returns 0 or -1,
 * REPLY filled in both cases.
 */
int api_triage_post(struct api_reply *reply, const char *ident,
		    const char *body, size_t len, const char *who);
/* Forget the tokens and close the writing connection; at shutdown. */
void api_triage_free(void);

/*
 * Answer the API request T (its first segment is "api"): find its route
 * (404), check its query parameters (400), take a connection from DB_OF
 * (503 if it gives NULL) and run the endpoint in one read transaction,
 * after checking that the database is still at our schema version (503
 * with the reason if not).  REPLY is filled in every case.
 */
void api_dispatch(struct api_reply *reply, const struct api_target *t,
		  sqlite3 *(*db_of)(void));

/*
 * Stop the thread that builds kept results (api-warnings.c), waiting for
 * the build under way; before the connections close.
 */
void api_results_stop(void);
/*
 * Forget every kept result after the server's own write (a triage), so
 * that no page of the state before it is served, not even while a build
 * runs (api-warnings.c).
 */
void api_results_forget(void);

/* Drop every cache (burn-downs, parsed MAINTAINERS); at shutdown. */
void api_cache_free(void);

/* gate.c */

struct MHD_Daemon;
struct sockaddr_in;
struct MHD_Connection;

/*
 * Check a request head, BUF (LEN bytes, what has come so far), by the
 * one rule of the server for a head's syntax and limits: the request
 * line (HTTP/1.0 or 1.1, a method, a target of 1 to 2048 bytes, else
 * 414), header lines (NAME: VALUE, at most 100), at most 32 KiB in all
 * (else 431), one Host in HTTP/1.1, no Transfer-Encoding, at most one
 * Content-Length, of digits: 0 but for a POST, whose body may take
 * TRIAGE_MAX_BODY bytes (else 413); no NUL byte.  Returns 0 if it may go
 * on, 1 if the head is not complete yet, or -1 with REPLY filled.
 */
int gate_head_check(struct api_reply *reply, const char *buf, size_t len);
/*
 * The head of the request that MHD is starting on C, METHOD TARGET (raw,
 * as sent) VERSION and the headers MHD parsed, held to
 * gate_head_check()'s rule if the gate did not see it (MHD read it
 * before the gate could: gate.c).  0 to go on, or -1 with REPLY filled.
 * From the thread serving C.
 */
int gate_request_check(struct api_reply *reply, struct MHD_Connection *c,
		       const char *method, const char *target,
		       const char *version);

/*
 * Listen on SA (its port goes to *port_out) in a thread of its own that
 * answers bad first request heads in JSON and hands every other
 * connection to daemon D (started with MHD_USE_NO_LISTEN_SOCKET).  At
 * most MAX connections are open at once, those whose head is still coming
 * included: one more is answered 503 and closed at once.  D's own limit
 * must be above what MAX can reach (libmicrohttpd 0.9.75 deadlocks its
 * workers at its limit).  Returns 0 or -1 (reported).
 */
int gate_start(struct MHD_Daemon *d, const struct sockaddr_in *sa, unsigned max,
	       unsigned short *port_out);
/* Stop that thread and close the socket and pending connections. */
void gate_stop(void);
/*
 * Free what MHD's threads still read while they close connections
 * (gate_connection()): after MHD_stop_daemon().
 */
void gate_free(void);
/*
 * MHD has answered a request on C (REUSE: and keeps the connection):
 * from the thread that answered, suspend C until the gate has checked
 * the next request head, if MHD has not read one already.
 */
void gate_completed(struct MHD_Connection *c, int reuse);
/*
 * MHD started serving connection C (STARTED 1), or closed it (0), with
 * CTX its socket context: what the gate counts against its limit, and
 * where a relay learns that MHD is done with it.
 */
void gate_connection(struct MHD_Connection *c, void **ctx, int started);

/* http.c */

#define SERVER_MAX_ALLOW_HOST 16
/*
 * Connections open at once by default.  Each costs a descriptor and, once
 * MHD has answered on it and keeps it, 128 KiB of memory (http.c's
 * MEMORY_LIMIT, touched whole): 64 MiB for 512.
 */
#define SERVER_MAX_CONNECTIONS 512
/* Pipelining connections relayed by the gate at once, a thread each. */
#define SERVER_RELAYS 64

struct server_opts {
	const char *db_path;
	const char *web_dir; /* NULL: no dashboard */
	const char *host; /* IPv4 literal */
	unsigned short port; /* 0: any free port */
	unsigned threads;
	/* connections open at once, pending heads included; more are refused */
	unsigned max_connections;
	/* Host header names accepted besides localhost and loopback ones */
	const char *allow_host[SERVER_MAX_ALLOW_HOST];
	size_t nallow_host;
	/* non-NULL: the tokens file, and the server takes triage */
	const char *triage_tokens;
};

/*
 * Decode the request target TARGET (LEN bytes) into *out with one rule
 * for every part of it: "%XX" is the byte 0xXX (two hex digits, never
 * %00), a '+' in the query is a space (as forms and URLSearchParams send
 * it), and any other byte is itself.  A '#' ends the target.  On a bad
 * escape, too many segments or pairs, fills REPLY with a 400 and returns
 * -1 (*out then holds nothing); else 0.
 */
int http_target_parse(struct api_target *out, struct api_reply *reply,
		      const char *target, size_t len);
void http_target_release(struct api_target *t);

/*
 * 1 if a request with Host header HOST (NULL: none) may be answered by a
 * server listening on O->host: any when that is not a loopback address;
 * else only localhost, loopback addresses and O->allow_host, each with
 * or without a port.
 */
int http_host_allowed(const struct server_opts *o, const char *host);

/*
 * Start the HTTP daemon.  The port actually bound goes to *port_out.
 * Returns 0 or -1 (reported).
 */
int http_start(const struct server_opts *o, unsigned short *port_out);

/* Stop the daemon, close every database connection it opened. */
void http_stop(void);

/*
 * The sqlite connection of the calling thread, opened read-only on first
 * use.  NULL (reported) if it cannot be opened.
 */
sqlite3 *http_thread_db(void);

#endif
