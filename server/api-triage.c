// SPDX-License-Identifier: MIT
/*
 * Triage through the server: the tokens that may write, the one write
 * (POST /api/warnings/{identity}/triage), and a warning's triage history
 * (GET of the same path).  Without --triage-tokens the server writes
 * nothing and every POST is a 405.
 */
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db.h"
#include "json.h"
#include "query.h"
#include "server.h"
#include "store.h"
#include "triage.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

/* The tokens file holds at most this many tokens. */
#define TOKENS_MAX 256
/* The shortest token taken: 128 bits of hex or base64. */
#define TOKEN_MIN_LEN 22

static struct {
	struct triage_token {
		char *name;
		unsigned char hash[32]; /* SHA-256 of the token */
	} tok[TOKENS_MAX];
	size_t n;
	const char *db_path;
	pthread_mutex_t lock; /* guards db */
	sqlite3 *db; /* the one writing connection, opened on first use */
} w = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void sha256(unsigned char out[32], const char *s, size_t len)
{
	unsigned int n = 32;

	if (!EVP_Digest(s, len, out, &n, EVP_sha256(), NULL))
		memset(out, 0, 32);
}

int api_triage_tokens(const char *path, const char *db_path)
{
	char *buf = NULL, *p, *end;
	struct stat st;
	size_t len, lineno = 0;
	int ret = -1;

	if (stat(path, &st))
		return error("cannot read --triage-tokens '%s': %s", path,
			     strerror(errno));
	if (st.st_mode & 077)
		return error("--triage-tokens '%s' can be read by others"
			     " (mode %03o): chmod 600 it",
			     path, (unsigned)(st.st_mode & 0777));
	if (util_read_file(&buf, &len, path, CAP_TOKENS_FILE))
		return -1;
	for (p = buf, end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *sp, *tok;
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		lineno++;
		p[l] = '\0';
		if (l && p[l - 1] == '\r')
			p[--l] = '\0';
		if (!l || p[0] == '#')
			goto next;
		sp = strpbrk(p, " \t");
		tok = sp ? sp + strspn(sp, " \t") : NULL;
		if (!sp || sp == p || !*tok || strpbrk(tok, " \t") ||
		    strlen(tok) < TOKEN_MIN_LEN) {
			error("%s:%zu: want NAME TOKEN (a token of %d bytes or"
			      " more)",
			      path, lineno, TOKEN_MIN_LEN);
			goto out;
		}
		if (w.n == TOKENS_MAX) {
			error("%s: more than %d tokens", path, TOKENS_MAX);
			goto out;
		}
		*sp = '\0';
		w.tok[w.n].name = xstrdup(p);
		sha256(w.tok[w.n].hash, tok, strlen(tok));
		w.n++;
next:
		p = nl ? nl + 1 : end;
	}
	if (!w.n) {
		error("--triage-tokens '%s' holds no token", path);
		goto out;
	}
	w.db_path = db_path;
	ret = 0;
out:
	if (ret)
		api_triage_free();
	/* the tokens live on only as their hashes */
	if (buf)
		OPENSSL_cleanse(buf, len);
	free(buf);
	return ret;
}

int api_triage_enabled(void)
{
	return w.n > 0;
}

const char *api_triage_who(const char *authorization)
{
	unsigned char h[32];
	const char *name = NULL, *tok;

	if (!authorization || strncasecmp(authorization, "Bearer ", 7))
		return NULL;
	tok = authorization + 7;
	sha256(h, tok, strlen(tok));
	/* every token compared, in constant time: no early way out */
	for (size_t i = 0; i < w.n; i++)
		if (!CRYPTO_memcmp(h, w.tok[i].hash, sizeof(h)))
			name = w.tok[i].name;
	return name;
}

/* The writing connection, under w.lock: opened once, kept. */
static sqlite3 *write_db(void)
{
	if (!w.db && !db_open(&w.db, w.db_path, DB_READ_WRITE))
		sqlite3_busy_timeout(w.db, 5000);
	return w.db;
}

int api_triage_post(struct api_reply *reply, const char *ident,
		    const char *body, size_t len, const char *who)
{
	struct triage_rec r = { 0 };
	const char *field = NULL, *why = NULL;
	json_t *info = NULL;
	sqlite3 *db;
	int ret = -1;

	if (triage_parse_body(&r, &field, &why, body, len)) {
		api_fail(reply, 400, "bad %s: %s", field, why);
		goto out;
	}
	r.fingerprint = xstrdup(ident);
	r.who = xstrdup(who);
	r.origin = xstrdup("api");
	r.at = (long long)time(NULL);
	if (triage_check(&r, &field, &why)) {
		api_fail(reply,
			 field && !strcmp(field, "fingerprint") ? 404 : 400,
			 "bad %s: %s", field, why);
		goto out;
	}
	pthread_mutex_lock(&w.lock);
	db = write_db();
	if (!db) {
		pthread_mutex_unlock(&w.lock);
		api_fail(reply, 503, "the database cannot be written");
		goto out;
	}
	if (query_identity_info(&info, db, ident)) {
		pthread_mutex_unlock(&w.lock);
		api_db_fail(reply, db);
		goto out;
	}
	if (!info) {
		pthread_mutex_unlock(&w.lock);
		api_fail(reply, 404, "no warning '%s'", ident);
		goto out;
	}
	if (store_triage(db, &r, 1, NULL)) {
		pthread_mutex_unlock(&w.lock);
		api_fail(reply, 503, "the triage could not be stored");
		goto out;
	}
	pthread_mutex_unlock(&w.lock);
	/* whoever wrote it reads it next: no kept page of before */
	api_results_forget();
	reply->status = 201;
	reply->json = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s}", "identity",
				r.fingerprint, "state", r.state, "reason",
				r.reason, "who", r.who, "at", (json_int_t)r.at,
				"origin", r.origin);
	api_set(reply->json, "link", r.link ? jstr(r.link) : NULL);
	api_set(reply->json, "warning", info);
	info = NULL;
	ret = 0;
out:
	json_decref(info);
	triage_rec_release(&r);
	return ret;
}

static int history_one(const struct triage_rec *r, void *ctx)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:s}", "state", r->state,
			      "reason", r->reason, "who", r->who, "at",
			      (json_int_t)r->at, "origin", r->origin);

	api_set(o, "link", r->link ? jstr(r->link) : NULL);
	json_array_append_new(ctx, o);
	return 0;
}

int api_warning_triage(struct api_reply *reply, const struct api_req *r)
{
	const char *ident = r->args[0];
	struct triage_rec cur;
	json_t *info = NULL, *hist;

	if (query_identity_info(&info, r->db, ident))
		return api_db_fail(reply, r->db);
	if (!info)
		return api_fail(reply, 404, "no warning '%s'", ident);
	if (query_triage_current(&cur, r->db, ident)) {
		json_decref(info);
		return api_db_fail(reply, r->db);
	}
	hist = json_array();
	if (query_triage_history(r->db, ident, history_one, hist)) {
		json_decref(info);
		json_decref(hist);
		triage_rec_release(&cur);
		return api_db_fail(reply, r->db);
	}
	reply->json = json_pack("{s:s, s:s, s:o, s:o, s:b}", "identity", ident,
				"state", cur.state ? cur.state : "open",
				"warning", info, "history", hist, "writable",
				api_triage_enabled());
	triage_rec_release(&cur);
	return 0;
}

void api_triage_free(void)
{
	for (size_t i = 0; i < w.n; i++) {
		free(w.tok[i].name);
		OPENSSL_cleanse(w.tok[i].hash, sizeof(w.tok[i].hash));
	}
	w.n = 0;
	if (w.db)
		db_close(w.db);
	w.db = NULL;
}
