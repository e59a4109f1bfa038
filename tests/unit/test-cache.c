// SPDX-License-Identifier: MIT
/* The server's one LRU cache (server/cache.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"
#include "tap.h"
#include "util.h"
#include "banned.h"

static int freed;

static void data_free(void *p)
{
	freed++;
	free(p);
}

static struct cache_ent slots[3];
static struct cache c = CACHE_INIT(slots, data_free);

static struct cache_ent *put(const char *key, const char *body)
{
	struct cache_ent *e = cache_slot(&c, key);

	if (e)
		e->blob = blob_new(body, strlen(body));
	return e;
}

int main(void)
{
	struct api_reply reply = { 0 };
	struct cache_ent *e;
	struct db_sig s1, s2;
	char path[] = "/tmp/test-cache-XXXXXX";
	sqlite3 *db = NULL;
	int fd;

	ok(c.nr == 3, "CACHE_INIT counts the slots (%zu)", c.nr);
	cache_lock(&c);
	ok(!cache_find(&c, "a"), "an empty cache finds nothing");
	put("a", "A");
	put("b", "B");
	put("c", "C");
	e = cache_find(&c, "b");
	ok(e && !strcmp(e->blob->data, "B"), "finds what was put");
	cache_find(&c, "a"); /* now c is the least recently used */
	put("d", "D");
	ok(!cache_find(&c, "c"), "full: the least recently used one goes");
	ok(cache_find(&c, "a") && cache_find(&c, "b") && cache_find(&c, "d"),
	   "the others stay");
	e = put("a", "A2");
	ok(e && !strcmp(e->blob->data, "A2") && cache_find(&c, "b") &&
		   cache_find(&c, "d"),
	   "a key put again takes its own slot, the others stay");

	/* an entry being built is never given up */
	cache_find(&c, "b")->building = 1;
	cache_find(&c, "d")->building = 1;
	cache_find(&c, "a")->building = 1;
	ok(!cache_slot(&c, "e"), "every slot being built: no slot");
	cache_find(&c, "d")->building = 0;
	cache_find(&c, "b"); /* b is older than d now, but being built */
	ok(put("e", "E") && cache_find(&c, "b") && !cache_find(&c, "d"),
	   "the least recently used one not being built goes");

	/* bodies: one reference to the reply, one kept */
	e = cache_find(&c, "e");
	cache_serve(&reply, e);
	ok(reply.blob == e->blob && e->blob->refs == 2 && !reply.gz,
	   "serve gives the reply a reference to the body");
	blob_unref(reply.blob);

	/* data is retired, not freed, until cache_release() */
	e = cache_find(&c, "e");
	e->data = xstrdup("parsed");
	cache_clear(&c, e);
	ok(!cache_find(&c, "e") && c.nretired == 1 && !freed,
	   "a cleared entry's data is retired, not freed");
	cache_unlock(&c);
	cache_release(&c);
	ok(freed == 1 && !c.nretired && !cache_find(&c, "a"),
	   "release frees the retired data and empties the cache");

	/* the database signature changes with a write */
	fd = mkstemp(path);
	ok(fd >= 0 && sqlite3_open(path, &db) == SQLITE_OK,
	   "a database to sign");
	cache_db_sig(&s1, db);
	cache_db_sig(&s2, db);
	ok(cache_sig_equal(&s1, &s2), "the same state: the same signature");
	sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", NULL,
		     NULL, NULL);
	cache_db_sig(&s2, db);
	ok(!cache_sig_equal(&s1, &s2), "a write changes the signature");
	sqlite3_close(db);
	if (fd >= 0)
		close(fd);
	unlink(path);
	return tap_done();
}
