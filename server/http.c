// SPDX-License-Identifier: MIT
/*
 * The HTTP layer: libmicrohttpd with a pool of threads (epoll), the checks
 * of what a request means made before its body is read (Host, method, a
 * POST's route, type, origin and token), the decoding of the request
 * target, static files from the web folder, and errors as JSON.  The
 * routes are api.c's.  A request head's syntax and limits (the target's
 * length, header lines and bytes, bodies) are the gate's alone (gate.c):
 * it checked every head before MHD reads it, but one MHD read first,
 * which refuse_early() gives to gate_request_check().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "server.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

/*
 * What libmicrohttpd may hold of one request.  It answers requests that
 * do not fit with HTML of its own, so this is well above the 32 KiB head
 * that the gate lets through (HEAD_MAX_BYTES), with room for MHD's parse
 * of it.  A connection kept alive holds all of it (MHD 0.9.75 zeroes the
 * pool between requests): 128 KiB each, measured in doc/performance.md.
 */
#define MEMORY_LIMIT (128 << 10)

static struct MHD_Daemon *daemon_;
static const struct server_opts *opts;
static char *web_root; /* realpath of the web folder, or NULL */

/* Every thread's connection, so that http_stop() can close them. */
static pthread_mutex_t dbs_lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3 **dbs;
static size_t ndbs;
static _Thread_local sqlite3 *thread_db;

/*
 * Open a read-only connection for this thread.  main() checked the
 * database with db_open() before any of these existed; api_dispatch()
 * checks the schema version again on every request.
 */
static int thread_open(sqlite3 **out)
{
	if (db_open(out, opts->db_path, DB_READ_ONLY))
		return -1;
	/* readers never block the collector; wait a little for its locks */
	sqlite3_busy_timeout(*out, 2000);
	return 0;
}

sqlite3 *http_thread_db(void)
{
	sqlite3 *db = NULL;
	size_t i;

	if (thread_db && !db_is_stale(thread_db))
		return thread_db;
	if (thread_open(&db))
		return NULL;
	pthread_mutex_lock(&dbs_lock);
	/* an immutable connection that a writer made stale is replaced */
	for (i = 0; i < ndbs && dbs[i] != thread_db; i++)
		;
	if (i == ndbs)
		dbs = xrealloc(dbs, ++ndbs * sizeof(*dbs));
	else
		db_close(thread_db);
	dbs[i] = db;
	pthread_mutex_unlock(&dbs_lock);
	thread_db = db;
	return db;
}

/* What we keep of a request between MHD's callbacks. */
struct req_ctx {
	char *uri; /* raw request target */
	size_t len;
	int started; /* the access handler was called once */
	int reuse; /* answered on the second call: MHD keeps the connection */
	const char *who; /* a POST: the name of its token */
	struct strbuf body; /* a POST: its body so far */
};

static void *uri_logger(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req_ctx *rc = xcalloc(1, sizeof(*rc));

	strbuf_init(&rc->body, 0);
	rc->len = strlen(uri);
	rc->uri = xstrdup(uri);
	return rc;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req_ctx *rc = *con_cls;

	gate_completed(c, rc && rc->reuse &&
				  toe == MHD_REQUEST_TERMINATED_COMPLETED_OK);
	if (rc) {
		free(rc->uri);
		strbuf_release(&rc->body);
		free(rc);
	}
	*con_cls = NULL;
}

/*
 * libmicrohttpd's messages, less those of the TCP options that a relayed
 * connection (a socket pair, gate.c) cannot take: one per request.
 */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	static const char *const quiet[] = {
		"Setting TCP_",
		"Failed to push the data from buffers",
	};
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (size_t i = 0; i < ARRAY_SIZE(quiet); i++)
		if (!strncmp(msg, quiet[i], strlen(quiet[i])))
			return;
	fputs(msg, stderr);
}

static void notify_connection(void *cls, struct MHD_Connection *c,
			      void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	gate_connection(c, socket_context,
			toe == MHD_CONNECTION_NOTIFY_STARTED);
}

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
 * Decode S (LEN bytes) into a new string in *out by the one rule of
 * http_target_parse(); PLUS_IS_SPACE in the query.  Returns 0, or -1 on
 * a bad escape or %00.
 */
static int url_decode(char **out, const char *s, size_t len, int plus_is_space)
{
	char *d = xmalloc(len + 1), *w = d;

	for (size_t i = 0; i < len; i++) {
		int hi, lo;

		if (s[i] != '%') {
			*w++ = plus_is_space && s[i] == '+' ? ' ' : s[i];
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
	*out = NULL;
	return -1;
}

void http_target_release(struct api_target *t)
{
	for (size_t i = 0; i < t->nseg; i++)
		free(t->seg[i]);
	for (size_t i = 0; i < t->nq; i++) {
		free(t->q[i].key);
		free(t->q[i].value);
	}
	memset(t, 0, sizeof(*t));
}

#define BAD_ESCAPE "a '%%' takes two hex digits, and %%00 is refused"

/* The query Q (LEN bytes, after the '?') into T's pairs. */
static int query_parse(struct api_target *t, struct api_reply *reply,
		       const char *q, size_t len)
{
	while (len) {
		const char *amp = memchr(q, '&', len);
		size_t n = amp ? (size_t)(amp - q) : len;
		const char *eq = memchr(q, '=', n);
		size_t klen = eq ? (size_t)(eq - q) : n;
		struct api_pair *pr = &t->q[t->nq];

		if (n) {
			if (t->nq == API_MAX_PAIRS)
				return api_fail(reply, 400,
						"bad query string: more than"
						" %d parameters",
						API_MAX_PAIRS);
			if (url_decode(&pr->key, q, klen, 1))
				return api_fail(
					reply, 400,
					"bad query string: " BAD_ESCAPE);
			t->nq++;
			if (url_decode(&pr->value, eq ? eq + 1 : q + n,
				       eq ? n - klen - 1 : 0, 1))
				return api_fail(
					reply, 400,
					"bad query string: " BAD_ESCAPE);
		}
		q += n + (amp != NULL);
		len -= n + (amp != NULL);
	}
	return 0;
}

int http_target_parse(struct api_target *out, struct api_reply *reply,
		      const char *target, size_t len)
{
	const char *hash = memchr(target, '#', len), *q;
	size_t plen, start = 1;

	memset(out, 0, sizeof(*out));
	if (hash)
		len = (size_t)(hash - target);
	q = memchr(target, '?', len);
	plen = q ? (size_t)(q - target) : len;
	if (!plen || target[0] != '/') {
		api_fail(reply, 400, "bad path: it must start with '/'");
		goto fail;
	}
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)target[i] <= ' ' || target[i] == 0x7f) {
			api_fail(reply, 400,
				 "bad path: a space or control byte");
			goto fail;
		}
	}
	for (size_t i = 1; i <= plen; i++) {
		if (i < plen && target[i] != '/')
			continue;
		if (out->nseg == API_MAX_SEGMENTS) {
			api_fail(reply, 400, "bad path: more than %d segments",
				 API_MAX_SEGMENTS);
			goto fail;
		}
		if (url_decode(&out->seg[out->nseg], target + start, i - start,
			       0)) {
			api_fail(reply, 400, "bad path: " BAD_ESCAPE);
			goto fail;
		}
		out->nseg++;
		start = i + 1;
	}
	if (q && query_parse(out, reply, q + 1, len - plen - 1))
		goto fail;
	return 0;
fail:
	http_target_release(out);
	return -1;
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

/*
 * Add the headers of an API answer to RESP, TYPE its Content-Type (NULL:
 * JSON), queue it and drop our ref.
 */
static int queue_json(struct MHD_Connection *c, int status,
		      struct MHD_Response *resp, const char *encoding,
		      const char *type)
{
	int ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type",
				type ? type :
				       "application/json; charset=utf-8");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, "Allow", "GET, HEAD");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, "WWW-Authenticate",
					"Bearer realm=\"kwarn triage\"");
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

/*
 * RESULT: the X-Kwarn-Result header (api_reply's), or NULL; TYPE: the
 * Content-Type, NULL for JSON.
 */
static int json_reply(struct MHD_Connection *c, int status, const char *body,
		      size_t len, const char *result, const char *type)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		len, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);

	if (resp && result)
		MHD_add_response_header(resp, "X-Kwarn-Result", result);
	return queue_json(c, status, resp, NULL, type);
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
						  "",
				 reply->type);
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
	if (!body) {
		static const char oops[] =
			"{\"error\":\"cannot encode the answer\",\"status\":500}";

		return json_reply(c, 500, oops, sizeof(oops) - 1, NULL, NULL);
	}
	ret = json_reply(c, reply->status, body, len, reply->result,
			 body == reply->text ? reply->type : NULL);
	free(body);
	return ret;
}

/* Answer a JSON error, its message made valid UTF-8. */
static int error_reply(struct MHD_Connection *c, int status, const char *msg)
{
	struct api_reply reply = { 0 };

	api_fail(&reply, status, "%s", msg);
	return send_reply(c, &reply);
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

int http_host_allowed(const struct server_opts *o, const char *host)
{
	struct in_addr a;
	char name[256];
	size_t n;
	const char *port;
	int bracketed = host && host[0] == '[';

	if (inet_pton(AF_INET, o->host, &a) != 1 ||
	    (ntohl(a.s_addr) >> 24) != 127)
		return 1;
	/* HTTP/1.0 without Host: not a browser, which always sends it */
	if (!host)
		return 1;
	if (bracketed) {
		n = strcspn(host + 1, "]");
		port = host + 1 + n;
		if (*port++ != ']')
			return 0;
		host++;
	} else {
		n = strcspn(host, ":");
		port = host + n;
	}
	if (*port && (*port != ':' || !port[1] ||
		      strspn(port + 1, "0123456789") != strlen(port + 1) ||
		      strlen(port + 1) > 5))
		return 0;
	if (!n || n >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	if (bracketed)
		return !strcmp(name, "::1");
	if (!strcasecmp(name, "localhost"))
		return 1;
	if (inet_pton(AF_INET, name, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127)
		return 1;
	for (size_t i = 0; i < o->nallow_host; i++)
		if (!strcasecmp(name, o->allow_host[i]))
			return 1;
	return 0;
}

/* 1 if the Origin header ORIGIN names this server as HOST reaches it. */
static int same_origin(const char *origin, const char *host)
{
	return host && !strncmp(origin, "http://", 7) &&
	       !strcasecmp(origin + 7, host);
}

/*
 * The checks of a POST (a triage, api-triage.c) before its body is read:
 * the one path that takes it, a length (its bound and syntax are the
 * gate's), a JSON body, no other site's page behind it, and a token,
 * whose name goes to RC->who.
 */
static int refuse_post(struct api_reply *reply, struct MHD_Connection *c,
		       struct req_ctx *rc)
{
	const char *host =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	const char *v;
	struct api_target t;
	int ok;

	if (!api_triage_enabled())
		return api_fail(reply, 405,
				"method not allowed: this server is"
				" read-only (start it with --triage-tokens"
				" FILE to take triage)");
	if (http_target_parse(&t, reply, rc->uri, rc->len))
		return -1;
	ok = t.nseg == 4 && !t.nq && !strcmp(t.seg[0], "api") &&
	     !strcmp(t.seg[1], "warnings") && !strcmp(t.seg[3], "triage");
	http_target_release(&t);
	if (!ok)
		return api_fail(reply, 405,
				"method not allowed: POST takes only"
				" /api/warnings/{identity}/triage");
	/* after the route's 405: a POST elsewhere needs none */
	if (!MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length"))
		return api_fail(reply, 411, "a POST takes a Content-Length");
	v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	if (!v || strncasecmp(v, "application/json", 16) ||
	    (v[16] && v[16] != ';'))
		return api_fail(reply, 415,
				"a triage body is application/json");
	/* a page of another site may not write through the user's browser */
	v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	if (v && !same_origin(v, host))
		return api_fail(reply, 403,
				"cross-origin writes are refused (Origin"
				" '%s')",
				v);
	v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site");
	if (v && strcmp(v, "same-origin") && strcmp(v, "none"))
		return api_fail(reply, 403,
				"cross-origin writes are refused"
				" (Sec-Fetch-Site '%s')",
				v);
	rc->who = api_triage_who(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     "Authorization"));
	if (!rc->who)
		return api_fail(reply, 401,
				"a triage needs a valid token"
				" (Authorization: Bearer TOKEN)");
	return 0;
}

/*
 * The checks made once the headers are in, before any body is read:
 * 0 to go on, or REPLY filled with the error.  The head's syntax and
 * limits first, the gate's (a head MHD read before the gate saw it);
 * then what it means.
 */
static int refuse_early(struct api_reply *reply, struct MHD_Connection *c,
			struct req_ctx *rc, const char *method,
			const char *version)
{
	const char *host =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");

	if (gate_request_check(reply, c, method, rc->uri, version))
		return -1;
	if (!http_host_allowed(opts, host))
		return api_fail(reply, 421,
				"host '%s' is not served here (start"
				" kwarn-server with --allow-host NAME)",
				host);
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) &&
	    strcmp(method, MHD_HTTP_METHOD_POST))
		return api_fail(reply, 405, "method not allowed");
	if (!strcmp(method, MHD_HTTP_METHOD_POST))
		return refuse_post(reply, c, rc);
	return 0;
}

/*
 * 1 if libmicrohttpd keeps the connection after answering this request:
 * HTTP/1.1 without "Connection: close", or HTTP/1.0 asking keep-alive.
 * A wrong 1 only keeps a connection MHD closed watched until the client
 * closes it or GATE_IDLE ends.
 */
static int keeps_alive(struct MHD_Connection *c, const char *version)
{
	const char *conn =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Connection");

	if (!strcmp(version, MHD_HTTP_VERSION_1_1))
		return !conn || !strcasestr(conn, "close");
	return conn && strcasestr(conn, "keep-alive");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct req_ctx *rc = *con_cls;
	struct api_reply reply = { .status = 200 };
	struct api_target t;
	int ret;

	/*
	 * Errors go on the first call, before any body is read; answers on
	 * the second, once the request is complete: an answer queued on the
	 * first call makes libmicrohttpd close the connection.
	 */
	if (!rc->started) {
		if (refuse_early(&reply, c, rc, method, version))
			return send_reply(c, &reply);
		rc->started = 1;
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* a POST's body, its length checked above; else refused */
		if (rc->who &&
		    rc->body.len + *upload_data_size <= TRIAGE_MAX_BODY)
			strbuf_add(&rc->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	rc->reuse = keeps_alive(c, version);
	if (rc->who) {
		if (http_target_parse(&t, &reply, rc->uri, rc->len))
			return send_reply(c, &reply);
		api_triage_post(&reply, t.seg[2], rc->body.buf, rc->body.len,
				rc->who);
		http_target_release(&t);
		return send_reply(c, &reply);
	}
	if (http_target_parse(&t, &reply, rc->uri, rc->len))
		return send_reply(c, &reply);
	if (t.nseg >= 1 && !strcmp(t.seg[0], "api")) {
		api_dispatch(&reply, &t, http_thread_db);
		ret = send_reply(c, &reply);
	} else {
		ret = serve_static(c, t.seg, t.nseg);
	}
	http_target_release(&t);
	return ret;
}

int http_start(const struct server_opts *o, unsigned short *port_out)
{
	struct sockaddr_in sa = { 0 };
	/*
	 * MHD splits its limit between its threads, and a worker at its
	 * share deadlocks (0.9.75): each share holds all the gate lets in.
	 */
	size_t mhd_limit = ((size_t)o->max_connections + 16) * o->threads;

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
			MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET |
			MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME,
		0, NULL, NULL, handle, NULL,
		/* first, or MHD logs the options before it on its own */
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)o->threads,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)mhd_limit,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
		MHD_OPTION_URI_LOG_CALLBACK, uri_logger, NULL,
		MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, NULL,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
		MHD_OPTION_END);
	if (!daemon_)
		return error("cannot start the HTTP daemon: %s",
			     strerror(errno));
	/* the gate listens, and answers what libmicrohttpd would in HTML */
	if (gate_start(daemon_, &sa, o->max_connections, port_out)) {
		MHD_stop_daemon(daemon_);
		daemon_ = NULL;
		return -1;
	}
	return 0;
}

void http_stop(void)
{
	gate_stop();
	if (daemon_)
		MHD_stop_daemon(daemon_);
	daemon_ = NULL;
	gate_free();
	api_results_stop();
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
