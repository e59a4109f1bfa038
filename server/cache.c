// SPDX-License-Identifier: MIT
/*
 * The server's one cache: a small fixed array of answers by key, the
 * least recently used one given up first.  Three instances use it
 * (api.c): burn-downs and parsed MAINTAINERS files, census answers, and
 * whole API answers; each keeps its own policy for when an entry is out
 * of date, because each answer goes stale in its own way.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "server.h"
#include "util.h"
#include "banned.h"

void cache_db_sig(struct db_sig *sig, sqlite3 *db)
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

int cache_sig_equal(const struct db_sig *a, const struct db_sig *b)
{
	return a->m1.tv_sec == b->m1.tv_sec && a->m1.tv_nsec == b->m1.tv_nsec &&
	       a->m2.tv_sec == b->m2.tv_sec && a->m2.tv_nsec == b->m2.tv_nsec &&
	       a->s1 == b->s1 && a->s2 == b->s2 && a->i1 == b->i1;
}

void cache_lock(struct cache *c)
{
	pthread_mutex_lock(&c->lock);
}

void cache_unlock(struct cache *c)
{
	pthread_mutex_unlock(&c->lock);
}

struct cache_ent *cache_find(struct cache *c, const char *key)
{
	for (size_t i = 0; i < c->nr; i++) {
		struct cache_ent *e = &c->ent[i];

		if (e->key && !strcmp(e->key, key)) {
			e->used = ++c->clock;
			return e;
		}
	}
	return NULL;
}

void cache_clear(struct cache *c, struct cache_ent *e)
{
	free(e->key);
	blob_unref(e->blob);
	blob_unref(e->gz);
	blob_unref(e->aux);
	if (e->data) {
		c->retired = xrealloc(c->retired,
				      (c->nretired + 1) * sizeof(*c->retired));
		c->retired[c->nretired++] = e->data;
	}
	memset(e, 0, sizeof(*e));
}

struct cache_ent *cache_slot(struct cache *c, const char *key)
{
	struct cache_ent *e = NULL;

	for (size_t i = 0; i < c->nr; i++) {
		struct cache_ent *x = &c->ent[i];

		if (x->key && !strcmp(x->key, key)) {
			e = x;
			break;
		}
		if (!x->building && (!e || x->used < e->used))
			e = x;
	}
	if (!e)
		return NULL;
	cache_clear(c, e);
	e->key = xstrdup(key);
	e->used = ++c->clock;
	return e;
}

void cache_serve(struct api_reply *reply, const struct cache_ent *e)
{
	reply->blob = blob_ref(e->blob);
	reply->gz = e->gz ? blob_ref(e->gz) : NULL;
	reply->type = e->type;
}

void cache_release(struct cache *c)
{
	cache_lock(c);
	for (size_t i = 0; i < c->nr; i++)
		cache_clear(c, &c->ent[i]);
	for (size_t i = 0; i < c->nretired; i++)
		c->data_free(c->retired[i]);
	free(c->retired);
	c->retired = NULL;
	c->nretired = 0;
	c->clock = 0;
	cache_unlock(c);
}
