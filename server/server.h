/* SPDX-License-Identifier: MIT */
#ifndef KWARN_SERVER_H
#define KWARN_SERVER_H

/*
 * kwarn-server's private header: the MAINTAINERS matcher (maint.c), the
 * HTTP layer (http.c) and the JSON endpoints (api.c).
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/* maint.c: see maint.h */
#include "maint.h"

/* api.c */

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

/* One request as the router hands it to an endpoint. */
struct api_req {
	sqlite3 *db; /* this thread's read-only connection */
	const char *const *args; /* path parameters, e.g. the run id */
	void *conn; /* struct MHD_Connection, for query values */
};

/* What an endpoint answers. */
struct api_reply {
	int status; /* HTTP status */
	json_t *json; /* body (owned); NULL: use text/len */
	char *text; /* pre-built JSON body (owned, malloc'd) */
	size_t len;
	struct blob *blob; /* shared pre-built body (one reference) */
	struct blob *gz; /* the same gzip-compressed, or NULL */
};

/* Query parameter NAME of the request, or NULL. */
const char *api_arg(const struct api_req *r, const char *name);

/* Fill REPLY with a JSON error {"error": MSG}; returns -1. */
int api_fail(struct api_reply *reply, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The endpoints; each fills REPLY and returns 0, or -1 after api_fail(). */
int api_health(struct api_reply *reply, const struct api_req *r);
int api_runs(struct api_reply *reply, const struct api_req *r);
int api_run(struct api_reply *reply, const struct api_req *r);
int api_burndown(struct api_reply *reply, const struct api_req *r);
int api_commit_warnings(struct api_reply *reply, const struct api_req *r);
int api_warnings(struct api_reply *reply, const struct api_req *r);
int api_warning_source(struct api_reply *reply, const struct api_req *r);
int api_subsystems(struct api_reply *reply, const struct api_req *r);
int api_subsystem_warnings(struct api_reply *reply, const struct api_req *r);
int api_boot(struct api_reply *reply, const struct api_req *r);
int api_trees(struct api_reply *reply, const struct api_req *r);
/*
 * GET /api/commits/{id}/census[?path=DIR]: the fall-through marker census
 * of the tree at that commit (as `kwarn census --format json`), read from
 * the collector's cached repository; 404 if the tree is not cached.
 */
int api_commit_census(struct api_reply *reply, const struct api_req *r);

/* Drop every cache (burn-downs, parsed MAINTAINERS); at shutdown. */
void api_cache_free(void);

/* http.c */

struct server_opts {
	const char *db_path;
	const char *web_dir; /* NULL: no dashboard */
	const char *host; /* IPv4 literal */
	unsigned short port; /* 0: any free port */
	unsigned threads;
};

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
