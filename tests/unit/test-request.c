// SPDX-License-Identifier: MIT
/*
 * kwarn-server's request path without a socket, as data: a request
 * target in, the status and a word of the answer out, through
 * http_target_parse() and api_dispatch() on an in-memory database; Host
 * headers through http_host_allowed(); request heads through
 * gate_head_check(), at its limits too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "server.h"
#include "util.h"
#include "tap.h"

static sqlite3 *db;

static sqlite3 *test_db(void)
{
	return db;
}

static const char fixture[] =
	"INSERT INTO trees(id, name, kind) VALUES (1, 't', 'log');"
	"INSERT INTO runs(id, tree_id, kind, status) VALUES (1, 1, 'ingest',"
	" 'done');"
	"INSERT INTO commits(id, run_id, position, sha, apply_status) VALUES"
	" (1, 1, 0, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'base');"
	"INSERT INTO builds(id, commit_id, status) VALUES (1, 1, 'ingested');"
	"INSERT INTO identities(id, fingerprint, kind, file, function, option,"
	" message) VALUES (1, 'ab', 'warning', 'a.c', 'f', '-Wx', 'm');"
	"INSERT INTO states(commit_id, identity_id, state, seen) VALUES"
	" (1, 1, 'new', 1);";

static const struct {
	const char *target;
	int status;
	const char *word; /* in the body */
} requests[] = {
	{ "/api/health", 200, "\"ok\"" },
	{ "/api/runs/1", 200, "commit_list" },
	{ "/api/warnings?run=1&limit=1", 200, "\"total\":1" },
	{ "/api/warnings?file=a.c&state=new", 200, "\"total\":1" },
	{ "/api/warnings?subsystem=X+Y", 404, "MAINTAINERS" },
	{ "/api/nope", 404, "no such endpoint" },
	{ "/api/runs/01", 400, "run id" },
	{ "/api/runs/1?x=1", 400, "unknown parameter 'x'" },
	{ "/api/warnings?limit=01", 400, "'limit'" },
	{ "/api/warnings?limit=+1", 400, "'limit'" },
	{ "/api/warnings?limit=%201", 400, "'limit'" },
	{ "/api/warnings?limit=1%20", 400, "'limit'" },
	{ "/api/warnings?limit=1001", 400, "1 to 1000" },
	{ "/api/warnings?offset=0", 200, "\"offset\":0" },
	{ "/api/warnings?file=", 400, "'file': empty" },
	{ "/api/warnings?option=", 400, "'option': empty" },
	{ "/api/warnings?run", 400, "'run': empty" },
	{ "/api/warnings?run=1&run=1", 400, "given twice" },
	{ "/api/warnings?state=bogus", 400, "'state'" },
	{ "/api/warnings?triage=open", 200, "\"total\":1" },
	{ "/api/warnings?triage=wontfix", 200, "\"total\":0" },
	{ "/api/warnings?triage=bogus", 400,
	  "want open, confirmed, intended, false-positive, compiler-bug or"
	  " wontfix" },
	{ "/api/warnings?triage=", 400, "'triage': empty, want open," },
	{ "/api/commits/1/warnings?triage=open", 200, "\"triage\":\"open\"" },
	{ "/api/subsystems/X/warnings?triage=no", 400, "'triage'" },
	{ "/api/diff?triage=open", 400, "unknown parameter 'triage'" },
	{ "/api/maintainers?run=1", 200, "\"maintainers\":false" },
	{ "/api/warnings?owner=x", 404, "no MAINTAINERS" },
	{ "/api/warnings?file=%zz", 400, "bad query string" },
	{ "/api/warnings?commit=%zz", 400, "bad query string" },
	{ "/api/warnings?%zz=1", 400, "bad query string" },
	{ "/api/warnings?file=a%00b", 400, "bad query string" },
	{ "/api/runs/%zz", 400, "bad path" },
	{ "/api/commits/%ff/warnings", 404, "no commit '?'" },
	{ "/api/commits/%C0%80/warnings", 404, "no commit '?\?'" },
	{ "/api/warnings?x%ff=1", 400, "unknown parameter 'x?'" },
	{ "/api/warnings?=1", 400, "(empty)" },
	{ "/api/a/b/c/d/e/f/g/h/i", 400, "segments" },
	{ "/api/health#frag", 200, "\"ok\"" },
	{ "api/health", 400, "start with '/'" },
	{ "/api/he alth", 400, "space or control" },
};

static const struct {
	const char *listen, *host;
	int allowed;
} hosts[] = {
	{ "127.0.0.1", NULL, 1 },
	{ "127.0.0.1", "localhost", 1 },
	{ "127.0.0.1", "LocalHost:8080", 1 },
	{ "127.0.0.1", "127.0.0.1:8080", 1 },
	{ "127.0.0.1", "127.9.9.9", 1 },
	{ "127.0.0.1", "[::1]:8080", 1 },
	{ "127.0.0.1", "kwarn.example", 1 },
	{ "127.0.0.1", "evil.example", 0 },
	{ "127.0.0.1", "evil.example:8080", 0 },
	{ "127.0.0.1", "127.0.0.1.evil.example", 0 },
	{ "127.0.0.1", "localhost:80x", 0 },
	{ "127.0.0.1", "[::2]", 0 },
	{ "127.0.0.1", "[::1", 0 },
	{ "127.0.0.1", "", 0 },
	{ "192.168.1.2", "evil.example", 1 },
};

static const struct {
	const char *head;
	int rc, status;
} heads[] = {
	{ "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, 0 },
	{ "GET / HTTP/1.0\r\n\r\n", 0, 0 },
	{ "GET / HTTP/1.1\nHost: x\n\n", 0, 0 },
	{ "GET / HTTP/1.1\r\nHost: x\r\n", 1, 0 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 0, 0 },
	{ "GET /\r\n\r\n", -1, 400 },
	{ "GET  HTTP/1.1\r\nHost: x\r\n\r\n", -1, 400 },
	{ "GET / HTTP/2.0\r\nHost: x\r\n\r\n", -1, 505 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", -1, 400 },
	{ "GET / HTTP/1.1\r\nHost: x\r\n Folded: v\r\n\r\n", -1, 400 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", -1, 400 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", -1,
	  400 },
	{ "GET / HTTP/1.1\r\n\r\n", -1, 400 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", -1, 400 },
	/* libmicrohttpd answers a space after the digits in HTML */
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0 \r\n\r\n", -1, 400 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length:\t0\r\n\r\n", 0, 0 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 00\r\n\r\n", 0, 0 },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", -1, 400 },
	/* it reads the first of two, where the body ends */
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
	  "Content-Length: 50\r\n\r\n",
	  -1, 400 },
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", 0, 0 },
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8192\r\n\r\n", 0, 0 },
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8193\r\n\r\n", -1,
	  413 },
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12345678901234\r\n"
	  "\r\n",
	  -1, 413 },
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5x\r\n\r\n", -1, 400 },
	{ "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
	  -1, 400 },
};

/*
 * Heads at the limits (doc/man/kwarn-server.1, ERRORS): a target of
 * TARGET bytes, header lines of FIELD bytes (each line end counted) to
 * make BYTES in all, and ENDED or not: its rc and status.
 */
static const struct {
	size_t target, bytes;
	int ended, rc, status;
} limits[] = {
	{ 2048, 0, 1, 0, 0 }, /* the longest target */
	{ 2049, 0, 1, -1, 414 }, /* one byte more */
	{ 40000, 0, 0, -1, 414 }, /* the request line not even ended */
	{ 10, 32768, 1, 0, 0 }, /* the largest head */
	{ 10, 32769, 1, -1, 431 }, /* one byte more */
	{ 10, 32767, 0, 1, 0 }, /* 32767 bytes, more to come: wait */
	{ 10, 32768, 0, -1, 431 }, /* 32768 and not ended: over */
	{ 3000, 40000, 1, -1, 414 }, /* the target is why */
};

/*
 * The head LIMITS[I] describes, in SB: its request line, a Host, and one
 * header line "X: vvv..." to make the size.
 */
static void limit_head(struct strbuf *sb, size_t i)
{
	strbuf_addstr(sb, "GET /");
	while (sb->len < limits[i].target + 4)
		strbuf_addch(sb, 'a');
	if (limits[i].target < 30000)
		strbuf_addstr(sb, " HTTP/1.1\r\nHost: x\r\n");
	if (limits[i].bytes) {
		/* "X: ", then the line's end and the empty line's, if ended */
		size_t end = limits[i].bytes - (limits[i].ended ? 4 : 0);

		strbuf_addstr(sb, "X: ");
		while (sb->len < end)
			strbuf_addch(sb, 'v');
	}
	if (limits[i].ended)
		strbuf_addstr(sb, limits[i].bytes ? "\r\n\r\n" : "\r\n");
}

/* The reply's body as text (owned), "" if none. */
static char *body_of(struct api_reply *reply)
{
	if (reply->blob)
		return xstrndup(reply->blob->data, reply->blob->len);
	if (reply->json)
		return json_dumps(reply->json, JSON_COMPACT);
	return xstrdup("");
}

static void reply_release(struct api_reply *reply)
{
	json_decref(reply->json);
	free(reply->text);
	blob_unref(reply->blob);
	blob_unref(reply->gz);
}

int main(void)
{
	if (db_open(&db, ":memory:", DB_READ_WRITE) ||
	    db_exec(db, fixture, "cannot load the fixture"))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(requests); i++) {
		struct api_reply reply = { .status = 200 };
		struct api_target t;
		char *body;

		if (!http_target_parse(&t, &reply, requests[i].target,
				       strlen(requests[i].target))) {
			api_dispatch(&reply, &t, test_db);
			http_target_release(&t);
		}
		body = body_of(&reply);
		ok(reply.status == requests[i].status &&
			   strstr(body, requests[i].word),
		   "%s: %d with \"%s\" (got %d %s)", requests[i].target,
		   requests[i].status, requests[i].word, reply.status, body);
		free(body);
		reply_release(&reply);
	}
	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++) {
		struct server_opts o = { .host = hosts[i].listen,
					 .allow_host = { "kwarn.example" },
					 .nallow_host = 1 };

		ok(http_host_allowed(&o, hosts[i].host) == hosts[i].allowed,
		   "on %s, Host '%s' %s", hosts[i].listen,
		   hosts[i].host ? hosts[i].host : "(none)",
		   hosts[i].allowed ? "served" : "refused");
	}
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		struct api_reply reply = { .status = 200 };
		int rc = gate_head_check(&reply, heads[i].head,
					 strlen(heads[i].head));

		ok(rc == heads[i].rc &&
			   (rc >= 0 || reply.status == heads[i].status),
		   "head %zu: %d %d (got %d %d)", i, heads[i].rc,
		   heads[i].status, rc, rc < 0 ? reply.status : 0);
		reply_release(&reply);
	}
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		struct api_reply reply = { .status = 200 };
		struct strbuf sb = STRBUF_INIT;
		int rc;

		limit_head(&sb, i);
		rc = gate_head_check(&reply, sb.buf, sb.len);
		ok(rc == limits[i].rc &&
			   (rc >= 0 || reply.status == limits[i].status) &&
			   (!limits[i].bytes || sb.len == limits[i].bytes),
		   "a head of %zu bytes (target %zu, %s): %d %d (got %d %d)",
		   sb.len, limits[i].target,
		   limits[i].ended ? "ended" : "not ended", limits[i].rc,
		   limits[i].status, rc, rc < 0 ? reply.status : 0);
		reply_release(&reply);
		strbuf_release(&sb);
	}
	for (size_t lines = 100; lines <= 101; lines++) {
		struct api_reply reply = { .status = 200 };
		struct strbuf sb = STRBUF_INIT;
		int rc;

		strbuf_addstr(&sb, "GET / HTTP/1.1\r\nHost: x\r\n");
		for (size_t k = 1; k < lines; k++)
			strbuf_addf(&sb, "X-H%zu: v\r\n", k);
		strbuf_addstr(&sb, "\r\n");
		rc = gate_head_check(&reply, sb.buf, sb.len);
		ok(lines == 100 ? rc == 0 : rc == -1 && reply.status == 431,
		   "%zu header lines: %s (got %d %d)", lines,
		   lines == 100 ? "good" : "431", rc,
		   rc < 0 ? reply.status : 0);
		reply_release(&reply);
		strbuf_release(&sb);
	}
	db_close(db);
	return tap_done();
}
