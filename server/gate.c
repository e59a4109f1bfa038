// SPDX-License-Identifier: MIT
/*
 * The gate: kwarn-server's listening socket, and the one owner of a
 * request head's syntax and limits.  libmicrohttpd 0.9.75 answers a
 * request head it cannot parse with HTML of its own (and sends its
 * status line twice for a bad Content-Length), before any callback of
 * ours runs.  So one thread accepts the connections, peeks at the head
 * of each one's first request without consuming it, answers a bad head
 * with a JSON error, and hands the others to libmicrohttpd
 * (MHD_add_connection()), which reads the request from the start.
 * head_check() is the rule, with the one set of limits below: the
 * request line, NUL bytes, header lines, the target's length (414), the
 * head's lines and bytes (431), one Host, no Transfer-Encoding, and a
 * body only for a POST, of one Content-Length up to TRIAGE_MAX_BODY
 * (413).  http.c checks only what a head means (Host, method, route,
 * type, origin, token).
 *
 * A POST's body is counted with its head: the gate reads on after it
 * when it is in the bytes peeked at, and else expects the next head
 * where the body ends.  A connection kept alive comes back between
 * requests: once MHD has answered every request it read, and read
 * nothing the gate did not check, http.c's completion callback suspends
 * it (gate_completed()), the gate peeks at the next head the same way,
 * and resumes it, or answers the JSON error itself and leaves MHD an end
 * of file.
 *
 * A bad head pipelined behind good ones in the bytes the gate peeks at
 * would reach MHD unchecked, and a burst of pipelined requests longer
 * than those bytes would wait for a head the gate cannot see.  So such a
 * connection is relayed: the gate takes its bytes off the socket and a
 * thread of its own goes on reading the client, checks every head
 * (passing a POST's body on unread), gives MHD only the good ones over a
 * socket pair in place of the client's socket, and copies MHD's answers
 * back; after a bad head, once MHD has answered every good one, it sends
 * the JSON error and closes.
 *
 * One path is left: a request that comes in a later packet while MHD
 * still reads the ones before (pipelined in separate writes, or behind
 * a POST whose body came after its head) is read by MHD before the gate
 * sees it.  For such a request http.c asks gate_request_check(), which
 * holds the head MHD parsed to the same rule; only what MHD itself
 * refuses to parse (a bad request line or version, a malformed header
 * line) still gets its HTML there.
 *
 * The gate counts the connections open (pending heads and MHD's) and
 * answers one past --max-connections with a 503 and closes it at once:
 * libmicrohttpd 0.9.75 must never reach its own limit, where its workers
 * deadlock on a lock they hold (measured: wrk -c950 against a limit of
 * 900 hung the server for good, SIGTERM included).
 */
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/tcp.h>

#include "server.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

/*
 * The limits of a request head, the one set of them (doc/man's ERRORS
 * print them): every head the gate peeks at or relays, and every one
 * MHD read unseen (gate_request_check()), is held to these.
 */
/* Bytes of the request target (path and query): more is 414. */
#define HEAD_MAX_TARGET 2048
/* Header lines: more is 431. */
#define HEAD_MAX_LINES 100
/*
 * Bytes of the whole head, request line to empty line: more is 431.
 * MHD keeps a connection's head in its pool (http.c's MEMORY_LIMIT).
 */
#define HEAD_MAX_BYTES (32 << 10)

/* Bytes the gate peeks at: the pipelined heads it checks at once. */
#define GATE_PEEK (64 << 10)
/* Connections whose head is still coming; more are refused (503). */
#define GATE_SLOTS 512
/* Seconds a client has to send its first request head: then 408. */
#define GATE_TIMEOUT 10
/* Seconds a kept-alive connection may wait for its next request. */
#define GATE_IDLE 30
/* Seconds a relay waits for the client to take its last answer. */
#define GATE_SEND_TIMEOUT 30
/* Bytes of MHD's answers a relay holds for a client that reads slowly. */
#define GATE_RELAY_OUT (64 << 10)
/* Watched connections are told apart from the slots by this bit. */
#define ID_WATCH 0x40000000u

#define ID_LISTEN 0xfffffffeu
#define ID_WAKE 0xffffffffu

struct gate_slot {
	int fd; /* -1: free */
	int64_t deadline; /* util_now_ms() */
	struct sockaddr_storage addr;
	socklen_t alen;
};

/*
 * A connection relayed: its thread reads CLIENT, checks each request
 * head, writes the good ones to PEER, whose other end MHD serves, and
 * copies MHD's answers back.  Once it takes no more requests (a bad
 * head, the client's end of file, a head not finished in time) it ends
 * MHD's side when MHD has answered every head given (gate_completed()
 * or the thread, whichever sees it), then sends REPLY, if any, when MHD
 * kept the connection.  Freed by the last of the thread and MHD's
 * connection (gate_connection()).
 */
struct gate_relay {
	int client, peer;
	int refs;
	pthread_mutex_t lock; /* guards the four fields below */
	unsigned long heads, done; /* heads given to MHD, answered by it */
	int stopped; /* no more heads: end MHD's side once done == heads */
	int reuse; /* MHD kept the connection after its last answer */
	struct api_reply reply; /* the error after the last answer, if any */
	int64_t deadline; /* for the head begun after GOOD */
	size_t inlen, good; /* IN holds GOOD bytes of checked heads first */
	size_t body; /* bytes of a POST's body still to pass on unread */
	size_t outpos, outlen;
	char in[GATE_PEEK];
	char out[GATE_RELAY_OUT];
};

/*
 * What the gate knows of a connection it handed to MHD, by its fd.  The
 * gate thread writes it before handing over and while MHD has it
 * suspended; MHD's thread for the connection in between.
 */
struct gate_watch {
	struct MHD_Connection *conn; /* non-NULL: suspended, ours to resume */
	uint64_t checked; /* bytes of the request heads checked */
	unsigned long heads, done; /* heads checked, requests answered */
	int64_t deadline;
	struct gate_relay *relay; /* non-NULL: relayed */
};

static struct {
	struct MHD_Daemon *daemon;
	struct gate_watch *watch;
	size_t nwatch, maxfd; /* watch[] holds nwatch, fds below maxfd used */
	int64_t idle_check; /* when expire() looks at the watched next */
	int listen_fd, epoll_fd, wake_fd;
	pthread_t thread;
	int running;
	int nrelays; /* relay threads running */
	unsigned max; /* connections open at once */
	unsigned npending; /* slots in use */
	int starting, live; /* handed to MHD and not started; MHD's open */
	struct gate_slot slot[GATE_SLOTS];
	char buf[GATE_PEEK + 1];
} g = { .listen_fd = -1, .epoll_fd = -1, .wake_fd = -1 };

/* The length of the line at S (up to LEN), its '\n' not counted. */
static size_t line_len(const char *s, size_t len)
{
	const char *nl = memchr(s, '\n', len);

	return nl ? (size_t)(nl - s) : len;
}

/* 1 if S (N bytes) is an HTTP token (a method or a header name). */
static int is_token(const char *s, size_t n)
{
	static const char specials[] = "!#$%&'*+-.^_`|~";

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') &&
		    !(c >= 'A' && c <= 'Z') && (!c || !strchr(specials, c)))
			return 0;
	}
	return 1;
}

static int target_too_long(struct api_reply *reply)
{
	return api_fail(reply, 414,
			"request target too long (at most %d bytes)",
			HEAD_MAX_TARGET);
}

/* Check the request line L (N bytes, no line end). */
static int check_request_line(struct api_reply *reply, const char *l, size_t n)
{
	const char *sp1 = memchr(l, ' ', n), *sp2, *v;
	size_t vlen;

	if (!sp1 || !is_token(l, (size_t)(sp1 - l)))
		return api_fail(reply, 400, "bad request line");
	sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - l));
	if (!sp2)
		return api_fail(reply, 400,
				"bad request line: no HTTP version"
				" (HTTP/0.9 is not served)");
	if (sp2 == sp1 + 1)
		return api_fail(reply, 400, "bad request line: empty target");
	if ((size_t)(sp2 - sp1 - 1) > HEAD_MAX_TARGET)
		return target_too_long(reply);
	v = sp2 + 1;
	vlen = n - (size_t)(v - l);
	if (memchr(v, ' ', vlen))
		return api_fail(reply, 400, "bad request line");
	if (vlen == 8 &&
	    (!memcmp(v, "HTTP/1.1", 8) || !memcmp(v, "HTTP/1.0", 8)))
		return 0;
	if (vlen > 5 && !memcmp(v, "HTTP/", 5))
		return api_fail(reply, 505,
				"HTTP version not supported (HTTP/1.0 and"
				" HTTP/1.1 are)");
	return api_fail(reply, 400, "bad request line: bad HTTP version");
}

/*
 * A head over HEAD_MAX_BYTES, LEN bytes of it in BUF: 414 if a target
 * over HEAD_MAX_TARGET is why (all of the request line may not be in),
 * else 431.
 */
static int head_too_large(struct api_reply *reply, const char *buf, size_t len)
{
	size_t n = line_len(buf, len);
	const char *sp1 = memchr(buf, ' ', n), *end;

	if (sp1) {
		end = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - buf));
		if (!end)
			end = buf + n;
		if ((size_t)(end - sp1 - 1) > HEAD_MAX_TARGET)
			return target_too_long(reply);
	}
	return api_fail(reply, 431,
			"request head too large (at most %d header lines and"
			" %d bytes)",
			HEAD_MAX_LINES, HEAD_MAX_BYTES);
}

/* 1 if header line H (N bytes) is named NAME (any case). */
static int header_is(const char *h, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && h[k] == ':' && !strncasecmp(h, name, k);
}

/*
 * The Content-Length header's value, V to END, into *BODY for a POST
 * (POST), which may take TRIAGE_MAX_BODY bytes; any other request takes
 * none.  Digits alone: libmicrohttpd answers a space after them in
 * HTML, with its status line twice.
 */
static int content_length(struct api_reply *reply, const char *v,
			  const char *end, int post, size_t *body)
{
	size_t cl = 0;

	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	if (v == end || strspn(v, "0123456789") < (size_t)(end - v))
		return api_fail(reply, 400,
				"bad Content-Length: want its digits alone");
	for (; v < end && cl <= TRIAGE_MAX_BODY; v++)
		cl = cl * 10 + (size_t)(*v - '0');
	if (cl && !post)
		return api_fail(reply, 400,
				"a GET or HEAD takes no body"
				" (Content-Length must be 0)");
	if (cl > TRIAGE_MAX_BODY)
		return api_fail(reply, 413, "a request body over %d bytes",
				TRIAGE_MAX_BODY);
	*body = cl;
	return 0;
}

/*
 * gate_head_check(), with the head's length and its empty line in *HLEN,
 * and the length of the body that follows in *BODY: 0 but for a POST
 * (triage, api-triage.c), whose body may take TRIAGE_MAX_BODY bytes.
 */
static int head_check(struct api_reply *reply, const char *buf, size_t len,
		      size_t *hlen, size_t *body)
{
	size_t pos, n, rl, lines = 0;
	int te = 0, host = 0, clen = 0, v11, post;

	/* the head ends at the first empty line */
	for (pos = 0;; pos += n + 1) {
		if (pos >= len)
			goto more;
		n = line_len(buf + pos, len - pos);
		/* MHD and the C strings after it would take a NUL as an end */
		if (memchr(buf + pos, '\0', n))
			return api_fail(reply, 400,
					"a NUL byte in the request head");
		if (pos + n == len)
			goto more;
		if (n == 0 || (n == 1 && buf[pos] == '\r'))
			break;
	}
	*hlen = pos + n + 1;
	if (*hlen > HEAD_MAX_BYTES)
		return head_too_large(reply, buf, len);
	len = pos;
	n = line_len(buf, len);
	rl = n && buf[n - 1] == '\r' ? n - 1 : n;
	if (check_request_line(reply, buf, rl))
		return -1;
	v11 = !memcmp(buf + rl - 8, "HTTP/1.1", 8);
	post = rl > 5 && !memcmp(buf, "POST ", 5);
	*body = 0;
	for (pos = n + 1; pos < len; pos += n + 1) {
		const char *h = buf + pos, *colon;
		size_t hl;

		n = line_len(h, len - pos);
		hl = n && h[n - 1] == '\r' ? n - 1 : n;
		if (++lines > HEAD_MAX_LINES)
			return head_too_large(reply, buf, len);
		colon = memchr(h, ':', hl);
		if (!colon || !is_token(h, (size_t)(colon - h)))
			return api_fail(reply, 400,
					"bad header line: want NAME: VALUE");
		if (header_is(h, hl, "Transfer-Encoding"))
			te = 1;
		if (header_is(h, hl, "Host"))
			host++;
		/* MHD takes the first of two, the gate would count the last */
		if (header_is(h, hl, "Content-Length") &&
		    (clen++ ? api_fail(reply, 400,
				       "more than one Content-Length") :
			      content_length(reply, colon + 1, h + hl, post,
					     body)))
			return -1;
	}
	if (te)
		return api_fail(reply, 400,
				post ? "a POST body takes a Content-Length"
				       " (Transfer-Encoding refused)" :
				       "a GET or HEAD takes no body"
				       " (Transfer-Encoding refused)");
	if (host > 1 || (v11 && !host))
		return api_fail(reply, 400,
				"an HTTP/1.1 request takes one Host header");
	return 0;
more:
	/* what is missing makes it longer still */
	if (len >= HEAD_MAX_BYTES)
		return head_too_large(reply, buf, len);
	return 1;
}

int gate_head_check(struct api_reply *reply, const char *buf, size_t len)
{
	size_t hlen, body;

	return head_check(reply, buf, len, &hlen, &body);
}

/*
 * Check the complete heads at the start of BUF (LEN bytes), a POST's
 * body counted with its head: their bytes and number go to *BYTES and
 * *NHEADS, up to the first bad or incomplete one.  Returns 0 if at least
 * one is good, else gate_head_check()'s answer for the first; 1 (more to
 * come) also when good heads are followed by an incomplete one, *BYTES
 * and *NHEADS counting the good.  A bad head after good ones fills BAD
 * (its json stays NULL if there is none).  The checks stop at a body not
 * all in BUF, *BYTES then past LEN: MHD reads it, and the next head is
 * where it ends.
 */
static int heads_check(struct api_reply *reply, struct api_reply *bad,
		       const char *buf, size_t len, size_t *bytes,
		       unsigned long *nheads)
{
	size_t hlen, blen;
	int rc = head_check(reply, buf, len, &hlen, &blen);

	*bytes = 0;
	*nheads = 0;
	bad->json = NULL;
	if (rc)
		return rc;
	do {
		*bytes += hlen + blen;
		++*nheads;
	} while (*bytes < len &&
		 !(rc = head_check(bad, buf + *bytes, len - *bytes, &hlen,
				   &blen)));
	/*
	 * Good heads, then the start of another: wait for all of it.  Handed
	 * over now, MHD would read the rest itself, unchecked, and answer a
	 * bad one with its HTML.
	 */
	return *bytes < len && rc > 0 ? 1 : 0;
}

/* Send all of BUF (LEN bytes) on FD: 0, or -1 if it cannot. */
static int send_all(int fd, const char *buf, size_t len, int flags)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | flags);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Send REPLY's JSON error as an answer on FD (send() FLAGS) and free it. */
static void reply_send(int fd, struct api_reply *reply, int flags)
{
	char *body = json_dumps(reply->json, JSON_COMPACT);
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb,
		    "HTTP/1.1 %d %s\r\nContent-Type: application/json;"
		    " charset=utf-8\r\nCache-Control: no-store\r\n"
		    "X-Content-Type-Options: nosniff\r\nConnection: close\r\n"
		    "Content-Length: %zu\r\n\r\n%s",
		    reply->status,
		    MHD_get_reason_phrase_for((unsigned)reply->status),
		    body ? strlen(body) : 0, body ? body : "");
	(void)send_all(fd, sb.buf, sb.len, flags);
	strbuf_release(&sb);
	free(body);
	json_decref(reply->json);
	reply->json = NULL;
}

/*
 * Answer REPLY's JSON error on FD, UNREAD bytes of the request read first
 * (so that closing does not reset the connection), and end our side.
 */
static void answer(int fd, struct api_reply *reply, size_t unread)
{
	ssize_t r = 0;

	if (unread)
		r = recv(fd, g.buf, unread, MSG_DONTWAIT);
	(void)r;
	reply_send(fd, reply, MSG_DONTWAIT);
	shutdown(fd, SHUT_WR);
}

/* Answer REPLY's JSON error on FD and close it. */
static void refuse(int fd, struct api_reply *reply, size_t unread)
{
	answer(fd, reply, unread);
	close(fd);
}

static void slot_close(struct gate_slot *s)
{
	epoll_ctl(g.epoll_fd, EPOLL_CTL_DEL, s->fd, NULL);
	s->fd = -1;
	g.npending--;
}

/* Answer a connection past the limit with a 503 and close it at once. */
static void too_busy(int fd)
{
	struct api_reply reply = { 0 };

	api_fail(&reply, 503, "too many connections (at most %u open)", g.max);
	reply_send(fd, &reply, MSG_DONTWAIT);
	shutdown(fd, SHUT_WR);
	close(fd);
}

static void relay_unref(struct gate_relay *r)
{
	if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL))
		return;
	json_decref(r->reply.json);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/*
 * Hand FD's connection to libmicrohttpd, CHECKED bytes of it in NHEADS
 * request heads checked (0 and 0: none, it is never watched), relayed
 * by RELAY if not NULL (MHD's reference to it taken).
 */
static void hand_over(int fd, const struct sockaddr_storage *addr,
		      socklen_t alen, size_t checked, unsigned long nheads,
		      struct gate_relay *relay)
{
	if ((size_t)fd < g.nwatch) {
		struct gate_watch *w = &g.watch[fd];

		if ((size_t)fd >= g.maxfd)
			g.maxfd = (size_t)fd + 1;
		w->conn = NULL;
		w->checked = nheads ? checked : UINT64_MAX;
		w->heads = nheads;
		w->done = 0;
		/* the last connection on FD cleared it in gate_connection() */
		__atomic_store_n(&w->relay, relay, __ATOMIC_RELEASE);
	}
	__atomic_add_fetch(&g.starting, 1, __ATOMIC_ACQ_REL);
	/* on failure MHD has closed FD itself */
	if (MHD_add_connection(g.daemon, fd, (const struct sockaddr *)addr,
			       alen) != MHD_YES) {
		__atomic_sub_fetch(&g.starting, 1, __ATOMIC_ACQ_REL);
		if ((size_t)fd < g.nwatch)
			g.watch[fd].relay = NULL;
		if (relay)
			relay_unref(relay);
	}
}

void gate_connection(struct MHD_Connection *c, void **ctx, int started)
{
	static char started_mark;
	const union MHD_ConnectionInfo *ci;
	struct gate_relay *r = NULL;

	if (started) {
		*ctx = &started_mark;
		__atomic_sub_fetch(&g.starting, 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&g.live, 1, __ATOMIC_ACQ_REL);
		return;
	}
	/* MHD closes a connection it could not start without starting it */
	if (*ctx == &started_mark)
		__atomic_sub_fetch(&g.live, 1, __ATOMIC_ACQ_REL);
	else
		__atomic_sub_fetch(&g.starting, 1, __ATOMIC_ACQ_REL);
	*ctx = NULL;
	/* its descriptor is still open: no other connection has it yet */
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci && ci->connect_fd >= 0 && (size_t)ci->connect_fd < g.nwatch) {
		r = __atomic_exchange_n(&g.watch[ci->connect_fd].relay, NULL,
					__ATOMIC_ACQ_REL);
	}
	if (r)
		relay_unref(r);
}

/* Give FD's suspended connection back to MHD. */
static void watch_release(int fd)
{
	struct gate_watch *w = &g.watch[fd];
	struct MHD_Connection *c = w->conn;

	epoll_ctl(g.epoll_fd, EPOLL_CTL_DEL, fd, NULL);
	w->conn = NULL;
	MHD_resume_connection(c);
}

/*
 * End FD's suspended connection: REPLY's error (if any) answered, and
 * an end of file left in its place for MHD, which then closes it.
 */
static void watch_end(int fd, struct api_reply *reply, size_t unread)
{
	int sp[2];

	epoll_ctl(g.epoll_fd, EPOLL_CTL_DEL, fd, NULL);
	if (reply)
		answer(fd, reply, unread);
	if (!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
		close(sp[1]);
		dup2(sp[0], fd);
		close(sp[0]);
	} else {
		shutdown(fd, SHUT_RDWR);
	}
	watch_release(fd);
}

/*
 * Take no more requests on R: REPLY (if not NULL, its error taken) goes
 * after the last answer.  MHD's side ends now if it has answered all.
 */
static void relay_stop(struct gate_relay *r, struct api_reply *reply)
{
	pthread_mutex_lock(&r->lock);
	if (!r->stopped) {
		r->stopped = 1;
		if (reply) {
			r->reply = *reply;
			reply->json = NULL;
		}
		if (r->done == r->heads)
			shutdown(r->peer, SHUT_WR);
	}
	pthread_mutex_unlock(&r->lock);
	if (reply) {
		json_decref(reply->json);
		reply->json = NULL;
	}
}

/*
 * Check the heads R's client sent after the good ones, a POST's body
 * passed on unread; stop at a bad one.
 */
static void relay_check(struct gate_relay *r)
{
	struct api_reply reply = { .status = 200 };
	size_t hlen, body;
	int rc;

	while (!r->stopped && r->good < r->inlen) {
		if (r->body) {
			body = r->inlen - r->good < r->body ?
				       r->inlen - r->good :
				       r->body;
			r->good += body;
			r->body -= body;
			continue;
		}
		rc = head_check(&reply, r->in + r->good, r->inlen - r->good,
				&hlen, &body);
		if (rc > 0)
			return;
		if (rc < 0) {
			/* the bad head and what follows never reach MHD */
			r->inlen = r->good;
			relay_stop(r, &reply);
			return;
		}
		pthread_mutex_lock(&r->lock);
		r->heads++;
		pthread_mutex_unlock(&r->lock);
		r->good += hlen;
		r->body = body;
	}
}

/* What recv() or send() returned: 1 for "try again later", else 0. */
static int again(ssize_t n)
{
	return n < 0 && (errno == EAGAIN || errno == EINTR);
}

/*
 * One round of R's relay: poll both ends, move what can be moved.
 * Returns 1 while the relay goes on, 0 once MHD's end is closed and its
 * answers are passed on (or the client is gone).
 */
static int relay_step(struct gate_relay *r, int *peer_eof, int *client_gone)
{
	/* an end that is done is left out, or its hang-up would spin poll() */
	struct pollfd p[2] = { { .fd = *client_gone ? -1 : r->client },
			       { .fd = *peer_eof ? -1 : r->peer } };
	struct api_reply reply = { 0 };
	ssize_t n;

	if (*peer_eof && (r->outpos == r->outlen || *client_gone))
		return 0;
	if (!r->stopped && r->inlen < sizeof(r->in))
		p[0].events |= POLLIN;
	if (r->outpos < r->outlen && !*client_gone)
		p[0].events |= POLLOUT;
	if (!*peer_eof && r->outpos == r->outlen)
		p[1].events |= POLLIN;
	if (r->good)
		p[1].events |= POLLOUT;
	if (poll(p, 2, 1000) < 0 && errno != EINTR)
		return 0;
	if (!(p[0].events & POLLIN) && (p[0].revents & (POLLHUP | POLLERR))) {
		/* the client is gone: MHD sees an end of file */
		*client_gone = 1;
		r->inlen = r->good = 0;
		relay_stop(r, NULL);
	}
	if ((p[1].events & POLLIN) && p[1].revents) {
		n = recv(r->peer, r->out, sizeof(r->out), MSG_DONTWAIT);
		if (n > 0) {
			r->outpos = 0;
			r->outlen = (size_t)n;
		} else if (!again(n)) {
			*peer_eof = 1;
		}
	}
	if ((p[0].events & POLLOUT) && p[0].revents) {
		n = send(r->client, r->out + r->outpos, r->outlen - r->outpos,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			r->outpos += (size_t)n;
		} else if (!again(n)) {
			/* the client is gone: MHD sees an end of file */
			*client_gone = 1;
			r->inlen = r->good = 0;
			relay_stop(r, NULL);
		}
	}
	if ((p[0].events & POLLIN) && p[0].revents) {
		n = recv(r->client, r->in + r->inlen, sizeof(r->in) - r->inlen,
			 MSG_DONTWAIT);
		if (n > 0) {
			r->inlen += (size_t)n;
			r->deadline = util_now_ms() + GATE_TIMEOUT * 1000;
			relay_check(r);
		} else if (!again(n)) {
			/* half a head and no more to come: dropped */
			r->inlen = r->good;
			relay_stop(r, NULL);
		}
	}
	if ((p[1].events & POLLOUT) && p[1].revents) {
		n = send(r->peer, r->in, r->good, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			memmove(r->in, r->in + n, r->inlen - (size_t)n);
			r->inlen -= (size_t)n;
			r->good -= (size_t)n;
		} else if (!again(n)) {
			*peer_eof = 1;
		}
	}
	if (!r->stopped && r->inlen > r->good && util_now_ms() >= r->deadline) {
		api_fail(&reply, 408, "no complete request head in %d s",
			 GATE_TIMEOUT);
		r->inlen = r->good;
		relay_stop(r, &reply);
	}
	return 1;
}

/*
 * The relay thread: requests in, answers out, until MHD closes its end;
 * then the error after the last answer if MHD answered every head and
 * kept the connection.
 */
static void *relay_main(void *arg)
{
	struct gate_relay *r = arg;
	struct timeval tv = { .tv_sec = GATE_SEND_TIMEOUT };
	int peer_eof = 0, client_gone = 0, tail;
	char buf[4096];
	size_t drained = 0;
	ssize_t n;

	relay_check(r);
	while (relay_step(r, &peer_eof, &client_gone))
		;
	pthread_mutex_lock(&r->lock);
	tail = r->reply.json && r->done == r->heads && r->reuse;
	pthread_mutex_unlock(&r->lock);
	(void)fcntl(r->client, F_SETFL,
		    fcntl(r->client, F_GETFL) & ~O_NONBLOCK);
	(void)setsockopt(r->client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!client_gone && tail)
		reply_send(r->client, &r->reply, 0);
	shutdown(r->client, SHUT_WR);
	/* what the client sent after, read so that closing does not reset */
	tv.tv_sec = 1;
	setsockopt(r->client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (drained < (1 << 20) &&
	       (n = recv(r->client, buf, sizeof(buf), 0)) > 0)
		drained += (size_t)n;
	close(r->client);
	close(r->peer);
	__atomic_sub_fetch(&g.nrelays, 1, __ATOMIC_RELEASE);
	relay_unref(r);
	return NULL;
}

/*
 * Relay the connection on CLIENT, whose N bytes peeked at hold BYTES of
 * NHEADS good heads: those N bytes are read off into the relay, whose
 * thread gives MHD the good heads on *MHD_OUT and goes on checking what
 * follows; the relay goes to *OUT, with a reference for MHD's
 * connection.  With STOP, the relay takes nothing after the good heads,
 * and STOP's error (taken) follows their answers.  Returns 0, or -1 with
 * nothing changed.
 */
static int relay_start(struct gate_relay **out, int *mhd_out, int client,
		       size_t n, size_t bytes, unsigned long nheads,
		       struct api_reply *stop)
{
	struct gate_relay *r = NULL;
	pthread_attr_t attr;
	int sp[2] = { -1, -1 }, started = 0;
	ssize_t got;

	if (__atomic_add_fetch(&g.nrelays, 1, __ATOMIC_ACQ_REL) > SERVER_RELAYS)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       sp) ||
	    (size_t)sp[0] >= g.nwatch)
		goto fail;
	r = xcalloc(1, sizeof(*r));
	r->client = client;
	r->peer = sp[1];
	r->refs = 2;
	r->heads = nheads;
	r->deadline = util_now_ms() + GATE_TIMEOUT * 1000;
	pthread_mutex_init(&r->lock, NULL);
	if (pthread_attr_init(&attr))
		goto fail;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	got = recv(client, r->in, n, MSG_DONTWAIT);
	r->inlen = got > 0 ? (size_t)got : 0;
	r->good = bytes <= r->inlen ? bytes : r->inlen;
	r->body = bytes - r->good;
	(void)fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK);
	if (stop) {
		r->inlen = r->good;
		relay_stop(r, stop);
	}
	started = !pthread_create(&(pthread_t){ 0 }, &attr, relay_main, r);
	pthread_attr_destroy(&attr);
	if (!started)
		goto fail;
	*mhd_out = sp[0];
	*out = r;
	return 0;
fail:
	if (r) {
		/* the caller answers STOP's error itself */
		if (stop)
			stop->json = r->reply.json;
		pthread_mutex_destroy(&r->lock);
		free(r);
	}
	if (sp[0] >= 0) {
		close(sp[0]);
		close(sp[1]);
	}
	__atomic_sub_fetch(&g.nrelays, 1, __ATOMIC_RELEASE);
	return -1;
}

/* The next request head of a kept-alive connection, or part of it. */
static void on_watch(int fd, uint32_t events)
{
	struct gate_watch *w = &g.watch[fd];
	struct api_reply reply = { .status = 200 };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT,
				  .data.u32 = ID_WATCH | (uint32_t)fd };
	ssize_t n = recv(fd, g.buf, GATE_PEEK, MSG_PEEK | MSG_DONTWAIT);
	struct api_reply bad;
	struct gate_relay *r;
	unsigned long nheads;
	size_t bytes;
	int rc, client, mhd, full;

	if (!w->conn)
		return;
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		epoll_ctl(g.epoll_fd, EPOLL_CTL_MOD, fd, &ev);
		return;
	}
	/* closed, or half a head and no more to come: MHD sees the end */
	if (n <= 0) {
		watch_release(fd);
		return;
	}
	rc = heads_check(&reply, &bad, g.buf, (size_t)n, &bytes, &nheads);
	/* good heads fill what the gate peeks at: the relay reads on */
	full = rc > 0 && nheads && n == GATE_PEEK;
	if (rc > 0 && !full && !(events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
		epoll_ctl(g.epoll_fd, EPOLL_CTL_MOD, fd, &ev);
		return;
	}
	if (rc < 0) {
		watch_end(fd, &reply, (size_t)n);
		return;
	}
	if (bad.json || full) {
		/* MHD keeps FD, which becomes its end of the relay */
		client = dup(fd);
		if (client < 0 ||
		    relay_start(&r, &mhd, client, (size_t)n, bytes, nheads,
				bad.json ? &bad : NULL)) {
			if (client >= 0)
				close(client);
			if (!bad.json)
				api_fail(&bad, 503,
					 "too many pipelining connections");
			watch_end(fd, &bad, (size_t)n);
			return;
		}
		epoll_ctl(g.epoll_fd, EPOLL_CTL_DEL, fd, NULL);
		dup2(mhd, fd);
		close(mhd);
		w->heads += nheads;
		w->relay = r;
		watch_release(fd);
		return;
	}
	w->checked += bytes;
	w->heads += nheads;
	watch_release(fd);
}

void gate_completed(struct MHD_Connection *c, int reuse)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP |
					    EPOLLONESHOT };
	struct tcp_info ti;
	socklen_t tlen = sizeof(ti);
	struct gate_relay *r;
	struct gate_watch *w;
	int fd, queued = 0;

	if (!ci)
		return;
	fd = ci->connect_fd;
	if (fd < 0 || (size_t)fd >= g.nwatch)
		return;
	w = &g.watch[fd];
	w->done++;
	r = w->relay;
	if (r) {
		/* the relay's thread checks the heads: count the answer */
		pthread_mutex_lock(&r->lock);
		r->done++;
		r->reuse = reuse;
		if (r->stopped && r->done == r->heads)
			shutdown(r->peer, SHUT_WR);
		pthread_mutex_unlock(&r->lock);
		return;
	}
	if (!reuse || !__atomic_load_n(&g.running, __ATOMIC_ACQUIRE) ||
	    w->done != w->heads)
		return;
	/*
	 * What MHD took from the socket (received less still queued) must
	 * be exactly the heads checked and answered: else it holds bytes
	 * the gate has not seen, and checking what comes next is too late.
	 */
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tlen) ||
	    tlen < offsetof(struct tcp_info, tcpi_bytes_received) +
			    sizeof(ti.tcpi_bytes_received) ||
	    ioctl(fd, FIONREAD, &queued))
		return;
	/*
	 * MHD read a request the gate never saw (it came in a later packet
	 * while MHD read the ones before): MHD goes on alone, and http.c
	 * holds each request after to the gate's rule through
	 * gate_request_check(); a head MHD cannot parse gets its HTML.
	 * Ending the connection here instead would drop the good requests
	 * a pipelining client sent in separate writes.
	 */
	if (ti.tcpi_bytes_received - (uint64_t)queued != w->checked)
		return;
	/* the deadline first: expire() reads it once it sees conn */
	w->deadline = util_now_ms() + GATE_IDLE * 1000;
	__atomic_store_n(&w->conn, c, __ATOMIC_RELEASE);
	MHD_suspend_connection(c);
	ev.data.u32 = ID_WATCH | (uint32_t)fd;
	if (epoll_ctl(g.epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
		__atomic_store_n(&w->conn, NULL, __ATOMIC_RELEASE);
		MHD_resume_connection(c);
	}
}

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	strbuf_addf(cls, "%s: %s\r\n", key, value ? value : "");
	return MHD_YES;
}

int gate_request_check(struct api_reply *reply, struct MHD_Connection *c,
		       const char *method, const char *target,
		       const char *version)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct strbuf sb = STRBUF_INIT;
	size_t hlen, body;
	int rc;

	/*
	 * Requests are answered in order: the next one is the gate's if it
	 * checked more heads than MHD has answered.  A relay checks all.
	 */
	if (ci && ci->connect_fd >= 0 && (size_t)ci->connect_fd < g.nwatch) {
		struct gate_watch *w = &g.watch[ci->connect_fd];

		if (__atomic_load_n(&w->relay, __ATOMIC_ACQUIRE) ||
		    w->done < w->heads)
			return 0;
	}
	/* the head again from MHD's parse of it, whose end it found */
	strbuf_addf(&sb, "%s %s %s\r\n", method, target, version);
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, &sb);
	strbuf_addstr(&sb, "\r\n");
	rc = head_check(reply, sb.buf, sb.len, &hlen, &body);
	strbuf_release(&sb);
	return rc < 0 ? -1 : 0;
}

static void on_data(struct gate_slot *s)
{
	struct api_reply reply = { .status = 200 };
	ssize_t n = recv(s->fd, g.buf, GATE_PEEK, MSG_PEEK);
	struct api_reply bad;
	struct gate_relay *r;
	unsigned long nheads;
	size_t bytes;
	int fd = s->fd, rc, mhd, full;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		slot_close(s);
		close(fd);
		return;
	}
	rc = heads_check(&reply, &bad, g.buf, (size_t)n, &bytes, &nheads);
	/* good heads fill what the gate peeks at: the relay reads on */
	full = rc > 0 && nheads && n == GATE_PEEK;
	if (rc > 0 && !full)
		return;
	slot_close(s);
	if (rc < 0) {
		refuse(fd, &reply, (size_t)n);
	} else if (!bad.json && !full) {
		hand_over(fd, &s->addr, s->alen, bytes, nheads, NULL);
	} else if (relay_start(&r, &mhd, fd, (size_t)n, bytes, nheads,
			       bad.json ? &bad : NULL)) {
		if (!bad.json)
			api_fail(&bad, 503, "too many pipelining connections");
		refuse(fd, &bad, (size_t)n);
	} else {
		hand_over(mhd, &s->addr, s->alen, bytes, nheads, r);
	}
}

static void on_accept(void)
{
	for (;;) {
		struct sockaddr_storage addr;
		socklen_t alen = sizeof(addr);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET |
						    EPOLLRDHUP };
		int fd = accept4(g.listen_fd, (struct sockaddr *)&addr, &alen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		unsigned open;
		size_t i;

		if (fd < 0)
			return;
		open = g.npending +
		       (unsigned)__atomic_load_n(&g.starting,
						 __ATOMIC_ACQUIRE) +
		       (unsigned)__atomic_load_n(&g.live, __ATOMIC_ACQUIRE);
		for (i = 0; i < GATE_SLOTS && g.slot[i].fd >= 0; i++)
			;
		if (open >= g.max || i == GATE_SLOTS) {
			too_busy(fd);
			continue;
		}
		g.slot[i].fd = fd;
		g.slot[i].addr = addr;
		g.slot[i].alen = alen;
		g.slot[i].deadline = util_now_ms() + GATE_TIMEOUT * 1000;
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(g.epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
			g.slot[i].fd = -1;
			close(fd);
			continue;
		}
		g.npending++;
	}
}

/*
 * Slot S's client (on FD) sent good heads and part of another, then nothing for
 * GATE_TIMEOUT: the good ones are answered, then REPLY (the 408) through
 * a relay.  0 if so (REPLY taken), else -1 with nothing done.
 */
static int expire_relay(struct gate_slot *s, int fd, struct api_reply *reply)
{
	struct api_reply first = { .status = 200 }, bad;
	struct gate_relay *r;
	unsigned long nheads;
	size_t bytes;
	ssize_t n = recv(fd, g.buf, GATE_PEEK, MSG_PEEK | MSG_DONTWAIT);
	int mhd;

	if (n <= 0 ||
	    heads_check(&first, &bad, g.buf, (size_t)n, &bytes, &nheads) <= 0 ||
	    !nheads) {
		json_decref(first.json);
		json_decref(bad.json);
		return -1;
	}
	if (relay_start(&r, &mhd, fd, (size_t)n, bytes, nheads, reply))
		return -1;
	hand_over(mhd, &s->addr, s->alen, bytes, nheads, r);
	return 0;
}

static void expire(void)
{
	int64_t now = util_now_ms();

	for (size_t i = 0; i < GATE_SLOTS; i++) {
		struct gate_slot *s = &g.slot[i];
		struct api_reply reply = { 0 };
		int fd = s->fd;

		if (fd < 0 || s->deadline > now)
			continue;
		slot_close(s);
		api_fail(&reply, 408, "no complete request head in %d s",
			 GATE_TIMEOUT);
		if (!expire_relay(s, fd, &reply))
			continue;
		refuse(fd, &reply, 0);
	}
	/* kept alive and idle too long: closed, as MHD would */
	if (now < g.idle_check)
		return;
	g.idle_check = now + 1000;
	for (size_t fd = 0; fd < g.maxfd; fd++)
		if (__atomic_load_n(&g.watch[fd].conn, __ATOMIC_ACQUIRE) &&
		    g.watch[fd].deadline <= now)
			watch_end((int)fd, NULL, 0);
}

static void *gate_main(void *arg)
{
	struct epoll_event ev[64];

	while (__atomic_load_n(&g.running, __ATOMIC_ACQUIRE)) {
		int n = epoll_wait(g.epoll_fd, ev, ARRAY_SIZE(ev), 500);

		for (int i = 0; i < n; i++) {
			uint32_t id = ev[i].data.u32;

			if (id == ID_WAKE)
				continue;
			if (id == ID_LISTEN)
				on_accept();
			else if (id & ID_WATCH)
				on_watch((int)(id & ~ID_WATCH), ev[i].events);
			else if (id < GATE_SLOTS && g.slot[id].fd >= 0)
				on_data(&g.slot[id]);
		}
		expire();
	}
	return NULL;
}

int gate_start(struct MHD_Daemon *d, const struct sockaddr_in *sa, unsigned max,
	       unsigned short *port_out)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_in bound;
	socklen_t blen = sizeof(bound);
	struct rlimit rl;
	int one = 1;

	for (size_t i = 0; i < GATE_SLOTS; i++)
		g.slot[i].fd = -1;
	g.daemon = d;
	g.max = max;
	g.npending = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		rl.rlim_cur = 1024;
	g.nwatch = rl.rlim_cur < 65536 ? (size_t)rl.rlim_cur : 65536;
	g.watch = xcalloc(g.nwatch, sizeof(*g.watch));
	g.listen_fd =
		socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (g.listen_fd < 0 ||
	    setsockopt(g.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) ||
	    bind(g.listen_fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(g.listen_fd, 1024) ||
	    getsockname(g.listen_fd, (struct sockaddr *)&bound, &blen))
		goto fail;
	*port_out = ntohs(bound.sin_port);
	g.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	g.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g.epoll_fd < 0 || g.wake_fd < 0)
		goto fail;
	ev.data.u32 = ID_LISTEN;
	if (epoll_ctl(g.epoll_fd, EPOLL_CTL_ADD, g.listen_fd, &ev))
		goto fail;
	ev.data.u32 = ID_WAKE;
	if (epoll_ctl(g.epoll_fd, EPOLL_CTL_ADD, g.wake_fd, &ev))
		goto fail;
	g.running = 1;
	if (pthread_create(&g.thread, NULL, gate_main, NULL)) {
		g.running = 0;
		errno = EAGAIN;
		goto fail;
	}
	return 0;
fail:
	error("cannot listen on port %u: %s", (unsigned)ntohs(sa->sin_port),
	      strerror(errno));
	gate_stop();
	gate_free();
	return -1;
}

void gate_stop(void)
{
	uint64_t one = 1;
	ssize_t r;

	if (g.running) {
		__atomic_store_n(&g.running, 0, __ATOMIC_RELEASE);
		r = write(g.wake_fd, &one, sizeof(one));
		(void)r;
		pthread_join(g.thread, NULL);
	}
	/* MHD cannot stop with connections suspended */
	for (size_t fd = 0; fd < g.maxfd; fd++)
		if (__atomic_load_n(&g.watch[fd].conn, __ATOMIC_ACQUIRE))
			watch_end((int)fd, NULL, 0);
	for (size_t i = 0; i < GATE_SLOTS; i++) {
		if (g.slot[i].fd >= 0)
			close(g.slot[i].fd);
		g.slot[i].fd = -1;
	}
	if (g.listen_fd >= 0)
		close(g.listen_fd);
	if (g.epoll_fd >= 0)
		close(g.epoll_fd);
	if (g.wake_fd >= 0)
		close(g.wake_fd);
	g.listen_fd = g.epoll_fd = g.wake_fd = -1;
}

void gate_free(void)
{
	free(g.watch);
	g.watch = NULL;
	g.nwatch = g.maxfd = 0;
}
