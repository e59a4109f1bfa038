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

/* maint.c */

/*
 * A parsed MAINTAINERS file.  Entries are the sections of the file (a
 * title line followed by "X: value" lines); files are matched to them
 * with F:, X: and N: the way scripts/get_maintainer.pl does:
 *  - F:/X: patterns are globs (*, ?, [..]) matched against a prefix of
 *    the path; a pattern ending in '/' matches everything below it, any
 *    other pattern only paths with as many '/' as itself (so
 *    "drivers/net/ *" is that directory level only), and a pattern naming
 *    a directory without the final '/' matches below it too;
 *  - an X: match excludes the whole entry;
 *  - N: is an extended regular expression searched in the path.
 */
struct maint;

/*
 * Parse the MAINTAINERS text TEXT (LEN bytes) into *out (free with
 * maint_free()).  Bad N: expressions are skipped.  Returns 0 or -1.
 */
int maint_parse(struct maint **out, const char *text, size_t len);
void maint_free(struct maint *m);

/* Number of entries and the title of entry IDX. */
size_t maint_count(const struct maint *m);
const char *maint_name(const struct maint *m, size_t idx);
/* The index of the entry titled NAME, or -1. */
long maint_find(const struct maint *m, const char *name);

/*
 * Store into OUT (room for MAX) the entries matching FILE, most specific
 * first (deepest F: pattern; N: matches count as depth 0), and return how
 * many matched (may exceed MAX: only MAX are stored).
 */
size_t maint_match(size_t *out, size_t max, const struct maint *m,
		   const char *file);

/* 1 if entry IDX matches FILE, else 0. */
int maint_entry_matches(const struct maint *m, size_t idx, const char *file);

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
