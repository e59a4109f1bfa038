// SPDX-License-Identifier: MIT
/*
 * The HTTP layer: libmicrohttpd with a pool of threads (epoll), the route
 * table, static files from the web folder, and errors as JSON.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "server.h"
#include "util.h"
#include "banned.h"

/* Longest request target (path and query) we read: longer is 414. */
#define MAX_URI 2048
#define MAX_SEGMENTS 8

static struct MHD_Daemon *daemon_;
static const struct server_opts *opts;
static char *web_root; /* realpath of the web folder, or NULL */

/* Every thread's connection, so that http_stop() can close them. */
static pthread_mutex_t dbs_lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3 **dbs;
static size_t ndbs;
static _Thread_local sqlite3 *thread_db;

/*
 * Open a read-only connection for this thread.  Not db_open(): it reads
 * the file's header through an fd of its own and closes it, and closing
 * any fd of a file drops every POSIX lock this process holds on it, so the
 * other threads' connections would lose their shared lock and a collector
 * closing its connection would delete the WAL under them.  main() checked
 * the database with db_open() before any of these existed.
 */
static int thread_open(sqlite3 **out)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	int rc, version = -1;

	*out = NULL;
	rc = sqlite3_open_v2(opts->db_path, &db,
			     SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		error("cannot open database '%s': %s", opts->db_path,
		      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return -1;
	}
	/* readers never block the collector; wait a little for its locks */
	sqlite3_busy_timeout(db, 2000);
	sqlite3_extended_result_codes(db, 1);
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version != db_schema_version()) {
		error("database '%s' has schema version %d, expected %d",
		      opts->db_path, version, db_schema_version());
		sqlite3_close(db);
		return -1;
	}
	*out = db;
	return 0;
}

sqlite3 *http_thread_db(void)
{
	sqlite3 *db = NULL;

	if (thread_db)
		return thread_db;
	if (thread_open(&db))
		return NULL;
	pthread_mutex_lock(&dbs_lock);
	dbs = xrealloc(dbs, (ndbs + 1) * sizeof(*dbs));
	dbs[ndbs++] = db;
	pthread_mutex_unlock(&dbs_lock);
	thread_db = db;
	return db;
}

/* What we keep of a request between MHD's callbacks. */
struct req_ctx {
	char *uri; /* raw request target, NULL if too long */
	size_t len;
	int started; /* the access handler was called once */
};

static void *uri_logger(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req_ctx *rc = xcalloc(1, sizeof(*rc));

	rc->len = strlen(uri);
	if (rc->len <= MAX_URI)
		rc->uri = xstrdup(uri);
	return rc;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req_ctx *rc = *con_cls;

	if (rc) {
		free(rc->uri);
		free(rc);
	}
	*con_cls = NULL;
}

static const struct {
	const char *pattern; /* "*" is one path parameter */
	int (*fn)(struct api_reply *reply, const struct api_req *r);
	const char *params; /* query parameters allowed, ',' around each */
} routes[] = {
	{ "/api/health", api_health, "," },
	{ "/api/trees", api_trees, "," },
	{ "/api/runs", api_runs, "," },
	{ "/api/runs/*", api_run, "," },
	{ "/api/runs/*/burndown", api_burndown, "," },
	{ "/api/commits/*/warnings", api_commit_warnings,
	  ",run,state,limit,offset,compiler," },
	{ "/api/commits/*/census", api_commit_census, ",run,path," },
	{ "/api/warnings", api_warnings,
	  ",run,commit,file,function,option,subsystem,state,limit,offset,"
	  "compiler," },
	{ "/api/warnings/*/source", api_warning_source,
	  ",commit,run,context," },
	{ "/api/subsystems", api_subsystems, ",run,commit,compiler," },
	{ "/api/subsystems/*/warnings", api_subsystem_warnings,
	  ",run,commit,state,limit,offset," },
	{ "/api/builds/*/boot", api_boot, "," },
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Percent-decode S (LEN bytes) into a new string in *out.  Returns 0, or
 * -1 on a bad escape or a NUL byte.
 */
static int url_decode(char **out, const char *s, size_t len)
{
	char *d = xmalloc(len + 1), *w = d;

	for (size_t i = 0; i < len; i++) {
		int hi, lo;

		if (s[i] != '%') {
			*w++ = s[i];
			continue;
		}
		if (i + 2 >= len)
			goto bad;
		hi = hexval((unsigned char)s[i + 1]);
		lo = hexval((unsigned char)s[i + 2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			goto bad;
		*w++ = (char)(hi * 16 + lo);
		i += 2;
	}
	*w = '\0';
	*out = d;
	return 0;
bad:
	free(d);
	return -1;
}

/* Split the raw PATH into decoded segments; -1 on bad encoding. */
static int split_path(char **seg, size_t *nseg, const char *path, size_t len)
{
	size_t n = 0, i = 1, start = 1;

	*nseg = 0;
	if (!len || path[0] != '/')
		return -1;
	for (i = 1; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		if (n == MAX_SEGMENTS ||
		    url_decode(&seg[n], path + start, i - start)) {
			while (n)
				free(seg[--n]);
			return -1;
		}
		n++;
		start = i + 1;
	}
	*nseg = n;
	return 0;
}

/* 1 if the client takes gzip (and does not refuse it with q=0). */
static int accepts_gzip(struct MHD_Connection *c)
{
	const char *ae = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Accept-Encoding");
	const char *g = ae ? strstr(ae, "gzip") : NULL;

	return g && strncmp(g + 4, ";q=0", 4) != 0 &&
	       strncmp(g + 4, "; q=0", 5) != 0;
}

/* Add the headers of a JSON answer to RESP, queue it and drop our ref. */
static int queue_json(struct MHD_Connection *c, int status,
		      struct MHD_Response *resp, const char *encoding)
{
	int ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type",
				"application/json; charset=utf-8");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, "Allow", "GET, HEAD");
	if (encoding) {
		MHD_add_response_header(resp, "Vary", "Accept-Encoding");
		if (*encoding)
			MHD_add_response_header(resp, "Content-Encoding",
						encoding);
	}
	ret = MHD_queue_response(c, (unsigned)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void blob_release(void *cls)
{
	blob_unref(cls);
}

static int json_reply(struct MHD_Connection *c, int status, const char *body,
		      size_t len)
{
	return queue_json(
		c, status,
		MHD_create_response_from_buffer(len, (void *)(uintptr_t)body,
						MHD_RESPMEM_MUST_COPY),
		NULL);
}

static int error_reply(struct MHD_Connection *c, int status, const char *msg)
{
	json_t *o = json_object();
	char *body;
	int ret;

	json_object_set_new(o, "error", json_string(msg));
	json_object_set_new(o, "status", json_integer(status));
	body = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!body)
		return MHD_NO;
	ret = json_reply(c, status, body, strlen(body));
	free(body);
	return ret;
}

static int send_reply(struct MHD_Connection *c, struct api_reply *reply)
{
	char *body = reply->text;
	size_t len = reply->len;
	int ret;

	if (reply->blob) {
		struct blob *b = reply->blob;
		struct MHD_Response *resp;

		if (reply->gz && accepts_gzip(c))
			b = reply->gz;
		/* no copy: the response holds a reference to the blob */
		resp = MHD_create_response_from_buffer_with_free_callback_cls(
			b->len, b->data, blob_release, blob_ref(b));
		if (!resp)
			blob_unref(b);
		ret = queue_json(c, reply->status, resp,
				 !reply->gz	? NULL :
				 b == reply->gz ? "gzip" :
						  "");
		blob_unref(reply->blob);
		blob_unref(reply->gz);
		json_decref(reply->json);
		return ret;
	}
	if (!body && reply->json) {
		body = json_dumps(reply->json, JSON_COMPACT);
		len = body ? strlen(body) : 0;
	}
	json_decref(reply->json);
	if (!body)
		return error_reply(c, 500, "cannot encode the answer");
	ret = json_reply(c, reply->status, body, len);
	free(body);
	return ret;
}

/* Check the query parameters against the route's list. */
struct param_check {
	const char *allowed;
	char bad[64];
};

static enum MHD_Result check_param(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	struct param_check *pc = cls;
	const char *p;
	size_t len = strlen(key);

	/* the list starts with ',': a match of a real key has p > allowed */
	for (p = len && !strchr(key, ',') ? strstr(pc->allowed, key) : NULL; p;
	     p = strstr(p + 1, key))
		if (p[-1] == ',' && p[len] == ',')
			return MHD_YES;
	snprintf(pc->bad, sizeof(pc->bad), "%s", len ? key : "(empty)");
	return MHD_NO;
}

static int route(struct MHD_Connection *c, char **seg, size_t nseg)
{
	struct api_reply reply = { .status = 200 };
	struct param_check pc = { NULL, "" };
	const char *args[MAX_SEGMENTS];
	struct api_req r = { NULL, args, c };
	char msg[160];

	for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
		const char *p = routes[i].pattern + 1;
		size_t k = 0, nargs = 0;

		for (; k < nseg && *p; k++) {
			size_t l = strcspn(p, "/");

			if (l == 1 && *p == '*') {
				if (!*seg[k])
					break;
				args[nargs++] = seg[k];
			} else if (strlen(seg[k]) != l ||
				   strncmp(seg[k], p, l)) {
				break;
			}
			p += l;
			if (*p == '/')
				p++;
		}
		if (k != nseg || *p)
			continue;
		pc.allowed = routes[i].params;
		MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_param,
					  &pc);
		if (*pc.bad) {
			snprintf(msg, sizeof(msg), "unknown parameter '%s'",
				 pc.bad);
			return error_reply(c, 400, msg);
		}
		r.db = http_thread_db();
		if (!r.db)
			return error_reply(c, 503, "database unavailable");
		routes[i].fn(&reply, &r);
		return send_reply(c, &reply);
	}
	return error_reply(c, 404, "no such endpoint");
}

static const char *mime_of(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".ico", "image/x-icon" },
		{ ".txt", "text/plain; charset=utf-8" },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < ARRAY_SIZE(types); i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].type;
	return "application/octet-stream";
}

/*
 * Serve a file of the web folder.  SEG are the decoded path segments: no
 * segment may be empty (but the last), ".", "..", or hold a '/' or '\'
 * of its own; the resolved path must still lie inside the folder.
 */
static int serve_static(struct MHD_Connection *c, char **seg, size_t nseg)
{
	struct strbuf sb = STRBUF_INIT;
	struct MHD_Response *resp;
	char *real = NULL;
	struct stat st;
	int fd = -1, ret;
	size_t i, rlen;

	if (!web_root)
		return error_reply(c, 404, "no dashboard (start with --web)");
	strbuf_addstr(&sb, web_root);
	for (i = 0; i < nseg; i++) {
		const char *s = seg[i];

		if ((!*s && i + 1 < nseg) || !strcmp(s, ".") ||
		    !strcmp(s, "..") || strpbrk(s, "/\\")) {
			strbuf_release(&sb);
			return error_reply(c, 400, "bad path");
		}
		if (*s) {
			strbuf_addch(&sb, '/');
			strbuf_addstr(&sb, s);
		}
	}
	if (!nseg || !*seg[nseg - 1])
		strbuf_addstr(&sb, "/index.html");
	real = realpath(sb.buf, NULL);
	rlen = strlen(web_root);
	if (!real || strncmp(real, web_root, rlen) || real[rlen] != '/' ||
	    stat(real, &st) || !S_ISREG(st.st_mode)) {
		ret = error_reply(c, 404, "no such file");
		goto out;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = error_reply(c, 404, "no such file");
		goto out;
	}
	resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		ret = MHD_NO;
		goto out;
	}
	MHD_add_response_header(resp, "Content-Type", mime_of(real));
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:;"
				" object-src 'none'; base-uri 'none'");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
out:
	free(real);
	strbuf_release(&sb);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct req_ctx *rc = *con_cls;
	char *seg[MAX_SEGMENTS];
	size_t nseg = 0, plen;
	int ret;

	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return error_reply(c, 405, "method not allowed");
	/*
	 * Answer on the second call, once the request is complete: an answer
	 * queued on the first one makes libmicrohttpd close the connection.
	 */
	if (rc && !rc->started) {
		rc->started = 1;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* a GET with a body: ignore it */
		return MHD_YES;
	}
	if (!rc || !rc->uri)
		return error_reply(c, 414, "request target too long");
	plen = strcspn(rc->uri, "?#");
	if (strstr(rc->uri + plen, "%00"))
		return error_reply(c, 400, "bad query string");
	if (split_path(seg, &nseg, rc->uri, plen))
		return error_reply(c, 400, "bad path");
	if (nseg >= 1 && !strcmp(seg[0], "api"))
		ret = route(c, seg, nseg);
	else
		ret = serve_static(c, seg, nseg);
	while (nseg)
		free(seg[--nseg]);
	return ret;
}

int http_start(const struct server_opts *o, unsigned short *port_out)
{
	struct sockaddr_in sa = { 0 };
	const union MHD_DaemonInfo *info;
	struct sockaddr_in bound;
	socklen_t blen = sizeof(bound);

	opts = o;
	if (o->web_dir) {
		web_root = realpath(o->web_dir, NULL);
		if (!web_root || !util_is_dir(web_root))
			return error(
				"cannot use web folder '%s': %s", o->web_dir,
				web_root ? "not a directory" : strerror(errno));
	}
	sa.sin_family = AF_INET;
	sa.sin_port = htons(o->port);
	if (inet_pton(AF_INET, o->host, &sa.sin_addr) != 1)
		return error("cannot listen on '%s': not an IPv4 address",
			     o->host);
	daemon_ = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			MHD_USE_ERROR_LOG,
		o->port, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&sa, MHD_OPTION_THREAD_POOL_SIZE,
		(unsigned int)o->threads, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)900, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)30, MHD_OPTION_URI_LOG_CALLBACK, uri_logger, NULL,
		MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
		MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
		MHD_OPTION_END);
	if (!daemon_)
		return error("cannot listen on '%s:%u': %s", o->host,
			     (unsigned)o->port, strerror(errno));
	info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_LISTEN_FD);
	if (info &&
	    !getsockname(info->listen_fd, (struct sockaddr *)&bound, &blen))
		*port_out = ntohs(bound.sin_port);
	else
		*port_out = o->port;
	return 0;
}

void http_stop(void)
{
	if (daemon_)
		MHD_stop_daemon(daemon_);
	daemon_ = NULL;
	pthread_mutex_lock(&dbs_lock);
	for (size_t i = 0; i < ndbs; i++)
		db_close(dbs[i]);
	free(dbs);
	dbs = NULL;
	ndbs = 0;
	pthread_mutex_unlock(&dbs_lock);
	free(web_root);
	web_root = NULL;
}

const char *api_arg(const struct api_req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND,
					   name);
}
