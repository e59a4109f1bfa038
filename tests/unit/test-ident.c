// SPDX-License-Identifier: MIT
/*
 * Unit tests of warning identity (doc/design.md, "The identity of a
 * warning"): line and column are not part of it, building the same code
 * twice gives the same identities, two identical warnings in one function
 * stay two, and a renamed function or a changed option makes a new one.
 * The store tests ingest logs into a temporary database through
 * parse_log_into(), as `kwarn ingest` does.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "ident.h"
#include "kwarn.h"
#include "parse.h"
#include "store.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

static char tmpdir[] = "/tmp/kwarn-test-ident.XXXXXX";

static void key_hash_of(unsigned char out[32], const struct diag *d)
{
	struct ident_key k;

	ident_key_from_diag(&k, d);
	ident_key_hash(out, &k);
	ident_key_release(&k);
}

static void test_pure(void)
{
	struct diag_note here = { .file = "a.c",
				  .line = 8,
				  .col = 9,
				  .message = "here",
				  .source = "        case FOO_BAR:" };
	struct diag a = { .kind = DIAG_WARNING,
			  .file = "a.c",
			  .line = 7,
			  .col = 21,
			  .function = "f",
			  .option = "-Wimplicit-fallthrough=",
			  .message = "this statement may fall through",
			  .notes = &here,
			  .nr_notes = 1 };
	struct diag b = a;
	unsigned char ha[32], hb[32];
	char fa[65], fb[65];
	char *s;

	s = ident_normalize_message("'x' declared at a.c:12:3 here");
	ok(!strcmp(s, "'x' declared at a.c here"),
	   "locations dropped from messages: '%s'", s);
	free(s);
	s = ident_normalize_message("array subscript 5 is above bounds of "
				    "'int[4]'  [x]");
	ok(!strcmp(s, "array subscript 5 is above bounds of 'int[4]' [x]"),
	   "numbers kept, spaces collapsed: '%s'", s);
	free(s);
	s = ident_note_target(&a);
	ok(s && !strcmp(s, "case FOO_BAR:"), "note target is the case label");
	free(s);

	key_hash_of(ha, &a);
	b.line = 107;
	b.col = 5;
	key_hash_of(hb, &b);
	ok(!memcmp(ha, hb, 32), "same key at another line and column: same"
				" key hash");
	ident_fingerprint(fa, ha, 0);
	ident_fingerprint(fb, hb, 0);
	ok(!strcmp(fa, fb) && strlen(fa) == 64, "... and the same fingerprint");
	ident_fingerprint(fb, hb, 1);
	ok(strcmp(fa, fb) != 0, "ordinal 1 gives another fingerprint");

	b = a;
	b.function = "g";
	key_hash_of(hb, &b);
	ok(memcmp(ha, hb, 32) != 0, "renamed function: another key");
	b = a;
	b.option = "-Wswitch";
	key_hash_of(hb, &b);
	ok(memcmp(ha, hb, 32) != 0, "changed option: another key");
	b = a;
	b.function = NULL;
	key_hash_of(hb, &b);
	ok(memcmp(ha, hb, 32) != 0, "no function differs from a function");
	b = a;
	b.file = "b.c";
	key_hash_of(hb, &b);
	ok(memcmp(ha, hb, 32) != 0, "another file: another key");
}

/*
 * A log of drivers/demo/x.c: function FN1 with two identical
 * fall-throughs, and FN2 with one warning of OPT2; all lines moved down
 * by SHIFT.  Written as GCC 12 prints it.
 */
static char *make_log(int shift, const char *fn1, const char *fn2,
		      const char *opt2)
{
	struct strbuf sb = STRBUF_INIT;
	static const char *const fmt =
		"drivers/demo/x.c:%d:17: warning: this statement may fall"
		" through [%s]\n"
		"%5d |                 demo_hit(1);\n"
		"      |                 ^~~~~~~~~~~\n"
		"drivers/demo/x.c:%d:9: note: here\n"
		"%5d |         case 2:\n"
		"      |         ^~~~\n";

	strbuf_addf(&sb, "drivers/demo/x.c: In function '%s':\n", fn1);
	for (int i = 0; i < 2; i++) {
		int l = 7 + 6 * i + shift;

		strbuf_addf(&sb, fmt, l, "-Wimplicit-fallthrough=", l, l + 1,
			    l + 1);
	}
	strbuf_addf(&sb, "drivers/demo/x.c: In function '%s':\n", fn2);
	strbuf_addf(&sb, fmt, 24 + shift, opt2, 24 + shift, 25 + shift,
		    25 + shift);
	return strbuf_detach(&sb, NULL);
}

/* Ingest TEXT as the build of commit SHA at POSITION of RUN. */
static long long ingest(sqlite3 *db, long long run, long position,
			const char *sha, const char *text, long long *commit)
{
	struct commit_info ci = {
		.run_id = run, .position = position, .sha = sha, .subject = sha
	};
	struct build_info bi = { .status = "ingested" };
	struct build_writer *w = NULL;
	struct log_reader *lr = NULL;
	char *path = xstrfmt("%s/%s.log", tmpdir, sha);
	long long build = -1;
	int fd = -1;

	if (util_write_file(path, text, strlen(text)) ||
	    store_commit(commit, db, &ci) || bw_begin(&w, db, *commit, &bi))
		goto out;
	fd = open(path, O_RDONLY);
	if (fd < 0 || log_open(&lr, fd, path) ||
	    parse_log_into(NULL, w, lr, NULL)) {
		bw_abort(w);
		goto out;
	}
	if (bw_finish(&build, w))
		build = -1;
out:
	log_close(lr);
	if (fd >= 0)
		close(fd);
	free(path);
	return build;
}

/* Number of states STATE at COMMIT. */
static long count_states(sqlite3 *db, long long commit, const char *state)
{
	sqlite3_stmt *st = NULL;
	long n = -1;

	if (db_prepare(&st, db,
		       "SELECT COUNT(*) FROM states WHERE commit_id = ?"
		       " AND state = ?"))
		return -1;
	db_bind_int(st, 1, commit, 0);
	db_bind_text(st, 2, state);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Distinct identities of build BUILD (optionally only of FUNCTION). */
static long count_identities(sqlite3 *db, long long build, const char *fn)
{
	sqlite3_stmt *st = NULL;
	long n = -1;

	if (db_prepare(&st, db,
		       "SELECT COUNT(DISTINCT identity_id), COUNT(*)"
		       " FROM diagnostics WHERE build_id = ?"
		       " AND (?2 IS NULL OR function = ?2)"))
		return -1;
	db_bind_int(st, 1, build, 0);
	db_bind_text(st, 2, fn);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Fingerprints of one compile's log, by the shared rule and the naive one. */
struct numbering {
	struct ident_places places;
	unsigned char seen[16][32];
	size_t nr;
	char shared[16][65], naive[16][65];
};

static void number_diag(void *ctx, const struct diag *d)
{
	struct numbering *nb = ctx;
	struct ident_key k;
	unsigned char kh[32];
	long naive = 0;
	int again;

	if (nb->nr == 16)
		return;
	ident_key_from_diag(&k, d);
	ident_key_hash(kh, &k);
	ident_key_release(&k);
	ident_fingerprint(nb->shared[nb->nr], kh,
			  ident_places_at(&nb->places, kh, d->line, d->col,
					  &again));
	/* what kwarn bisect did before: count every earlier equal key */
	for (size_t i = 0; i < nb->nr; i++)
		naive += !memcmp(nb->seen[i], kh, 32);
	ident_fingerprint(nb->naive[nb->nr], kh, naive);
	memcpy(nb->seen[nb->nr++], kh, 32);
}

/* Is FP a fingerprint of an identity that build BUILD stored? */
static int stored_fp(sqlite3 *db, long long build, const char *fp)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (db_prepare(&st, db,
		       "SELECT 1 FROM diagnostics d JOIN identities i"
		       " ON i.id = d.identity_id"
		       " WHERE d.build_id = ? AND i.fingerprint = ?"))
		return 0;
	db_bind_int(st, 1, build, 0);
	db_bind_text(st, 2, fp);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/*
 * tests/data/ident/macro-repeats: a warning printed twice at one place,
 * then the same key elsewhere.  kwarn bisect numbers one compile's
 * warnings with the store's function, so each fingerprint it computes is
 * one the store gave; counting every equal key before (bisect's old rule)
 * numbers the third warning 2, which the store never gave.
 */
static void test_bisect_rule(sqlite3 *db, long long run)
{
	struct numbering nb = { 0 };
	char *text = NULL;
	size_t len = 0;
	long long commit, build;
	struct parser *p;
	int shared_ok = 1, naive_ok = 1;

	if (util_read_file(&text, &len, "tests/data/ident/macro-repeats/a.log",
			   1 << 20)) {
		ok(0, "read tests/data/ident/macro-repeats/a.log");
		tap_not_run(2, "the bisect numbering checks");
		return;
	}
	build = ingest(db, run, 6, "macro", text, &commit);
	p = parse_new(number_diag, &nb);
	parse_feed(p, text, len);
	parse_finish(p);
	parse_free(p);
	ok(build > 0 && nb.nr == 3 && count_identities(db, build, NULL) == 2,
	   "macro-repeats: 3 warnings, 2 identities stored");
	for (size_t i = 0; i < nb.nr; i++) {
		shared_ok &= stored_fp(db, build, nb.shared[i]);
		naive_ok &= stored_fp(db, build, nb.naive[i]);
	}
	ok(nb.nr == 3 && shared_ok && !strcmp(nb.shared[0], nb.shared[1]) &&
		   strcmp(nb.shared[1], nb.shared[2]),
	   "bisect's numbering (ident_places_at) gives the store's"
	   " fingerprints");
	ok(nb.nr == 3 && !naive_ok,
	   "the naive numbering would have disagreed on this case");
	ident_places_release(&nb.places);
	free(text);
}

/* The checks of test_store() after its set-up: none may vanish. */
#define STORE_CHECKS 11

static void test_store(void)
{
	struct tree_info ti = { .name = "test", .kind = "log" };
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long tree, run = -1, c[8], b[8];
	char *dbpath = xstrfmt("%s/kwarn.db", tmpdir);
	char *base =
		make_log(0, "demo_one", "demo_two", "-Wimplicit-fallthrough=");
	char *shifted =
		make_log(5, "demo_one", "demo_two", "-Wimplicit-fallthrough=");
	char *renamed = make_log(5, "demo_one", "demo_two_renamed",
				 "-Wimplicit-fallthrough=");
	char *reopt = make_log(5, "demo_one", "demo_two_renamed",
			       "-Wswitch-unreachable");
	char *dup = NULL;

	if (!ok(!db_open(&db, dbpath, DB_READ_WRITE), "temp database opens")) {
		tap_not_run(STORE_CHECKS + 1, "an identity check on the store");
		goto out;
	}
	if (!store_tree(&tree, db, &ti) &&
	    !db_prepare(&st, db,
			"INSERT INTO runs(tree_id, kind) VALUES (?, 'ingest')"
			" RETURNING id")) {
		db_bind_int(st, 1, tree, 0);
		if (sqlite3_step(st) == SQLITE_ROW)
			run = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (!ok(run > 0, "a tree and an ingest run to store builds in")) {
		tap_not_run(STORE_CHECKS, "an identity check on the store");
		goto out;
	}

	b[0] = ingest(db, run, 0, "base", base, &c[0]);
	ok(b[0] > 0 && count_states(db, c[0], "present") == 3,
	   "base: 3 warnings present");
	ok(count_identities(db, b[0], "demo_one") == 2,
	   "two identical warnings in one function stay two identities");

	b[1] = ingest(db, run, 1, "same", base, &c[1]);
	ok(b[1] > 0 && count_states(db, c[1], "new") == 0 &&
		   count_states(db, c[1], "present") == 3 &&
		   count_states(db, c[1], "fixed") == 0,
	   "the same log again: zero new, all 3 present");

	b[2] = ingest(db, run, 2, "shift", shifted, &c[2]);
	ok(b[2] > 0 && count_states(db, c[2], "new") == 0 &&
		   count_states(db, c[2], "present") == 3,
	   "all lines moved down by 5: zero new, all 3 present");

	b[3] = ingest(db, run, 3, "rename", renamed, &c[3]);
	ok(b[3] > 0 && count_states(db, c[3], "new") == 1 &&
		   count_states(db, c[3], "present") == 2 &&
		   count_states(db, c[3], "fixed") == 1,
	   "renamed function: 1 new, 1 fixed, 2 present");

	b[4] = ingest(db, run, 4, "option", reopt, &c[4]);
	ok(b[4] > 0 && count_states(db, c[4], "new") == 1 &&
		   count_states(db, c[4], "present") == 2 &&
		   count_states(db, c[4], "fixed") == 1,
	   "changed option: 1 new, 1 fixed, 2 present");

	/* the same warning from two objects (a static inline): one identity
	   seen twice, not two identities */
	if (util_read_file(&dup, NULL, "tests/data/parse/static-inline.log",
			   1 << 20) == 0) {
		b[5] = ingest(db, run, 5, "inline", dup, &c[5]);
		ok(b[5] > 0 && count_identities(db, b[5], NULL) == 1,
		   "a static inline warning from two TUs: one identity");
		ok(count_states(db, c[5], "fixed") == 0 &&
			   count_states(db, c[5], "not_built") == 3,
		   "x.c not compiled there: its 3 warnings are not_built,"
		   " not fixed");
	} else {
		ok(0, "read tests/data/parse/static-inline.log");
	}
	test_bisect_rule(db, run);
out:
	db_close(db);
	free(base);
	free(shifted);
	free(renamed);
	free(reopt);
	free(dup);
	free(dbpath);
}

int main(void)
{
	int ret;

	test_pure();
	if (!mkdtemp(tmpdir)) {
		ok(0, "mkdtemp");
		tap_not_run(STORE_CHECKS + 2, "a check on the store");
		return tap_done();
	}
	test_store();
	ret = tap_done();
	util_rm_rf(tmpdir);
	return ret;
}
