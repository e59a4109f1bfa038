// SPDX-License-Identifier: MIT
/*
 * What a triage decision changes where warnings are counted, on an
 * in-memory database: a new warning triaged as no bug does not fail
 * --fail-on-new (query_tip_new(), report_tip_has_new()) nor count in the
 * nightly (query_new_against() with report_is_settled(), as compare_run()
 * counts); the burn-down's by_triage; the warning lists' triage filter;
 * a newer record (reopened) undoing an older one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "ident.h"
#include "kwarn.h"
#include "query.h"
#include "report-out.h"
#include "store.h"
#include "triage.h"
#include "util.h"
#include "tap.h"

/*
 * Identities A (to be triaged intended), B (never triaged), C (confirmed)
 * and D (old).  Run 1, a night: D.  Run 2, a series: D at its base, D,
 * A, B and C at its tip.  Run 3, the next night: D, A, B and C.
 */
static const char fixture[] =
	"INSERT INTO trees(id, name, kind) VALUES (1, 't', 'log');"
	"INSERT INTO runs(id, tree_id, kind, status) VALUES"
	" (1, 1, 'nightly', 'done'), (2, 1, 'series', 'done'),"
	" (3, 1, 'nightly', 'done');"
	"INSERT INTO commits(id, run_id, position, sha, apply_status) VALUES"
	" (1, 1, 0, '1111111111111111111111111111111111111111', 'base'),"
	" (2, 2, 0, '2222222222222222222222222222222222222222', 'base'),"
	" (3, 2, 1, '3333333333333333333333333333333333333333', 'applied'),"
	" (4, 3, 0, '4444444444444444444444444444444444444444', 'base');"
	"INSERT INTO builds(id, commit_id, status) VALUES (1, 1, 'ingested'),"
	" (2, 2, 'ingested'), (3, 3, 'ingested'), (4, 4, 'ingested');"
	"INSERT INTO identities(id, fingerprint, kind, file, function, option,"
	" message) VALUES"
	" (1, printf('%.64c', 'a'), 'warning', 'a.c', 'fa', '-Wx', 'ma'),"
	" (2, printf('%.64c', 'b'), 'warning', 'b.c', 'fb', '-Wx', 'mb'),"
	" (3, printf('%.64c', 'c'), 'warning', 'c.c', 'fc', '-Wx', 'mc'),"
	" (4, printf('%.64c', 'd'), 'warning', 'd.c', 'fd', '-Wx', 'md');"
	"INSERT INTO states(commit_id, identity_id, state, seen) VALUES"
	" (1, 4, 'new', 1), (2, 4, 'new', 1), (3, 4, 'present', 1),"
	" (3, 1, 'new', 1), (3, 2, 'new', 1), (3, 3, 'new', 1),"
	" (4, 4, 'new', 1), (4, 1, 'new', 1), (4, 2, 'new', 1),"
	" (4, 3, 'new', 1);";

static sqlite3 *db;

/* Each identity's fp_key, as the collector writes it. */
static int set_keys(void)
{
	sqlite3_stmt *st = NULL;
	char fp[65];
	long long key;
	int ret = 0;

	if (db_prepare(&st, db,
		       "UPDATE identities SET fp_key = ?1"
		       " WHERE fingerprint = ?2"))
		return -1;
	for (char c = 'a'; c <= 'd'; c++) {
		memset(fp, c, 64);
		fp[64] = '\0';
		ident_fingerprint_key(&key, fp);
		db_bind_int(st, 1, key, 0);
		db_bind_text(st, 2, fp);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = -1;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return ret;
}

/* Record that identity C (a letter) is STATE, through store_triage(). */
static int triage(char c, char *state, long long at)
{
	char fp[65];
	struct triage_rec r = { 0 };
	const char *field, *why;

	memset(fp, c, 64);
	fp[64] = '\0';
	r.fingerprint = fp;
	r.state = state;
	r.reason = "a test says so";
	r.who = "test";
	r.origin = "cli";
	r.at = at;
	if (triage_check(&r, &field, &why))
		return error("bad record: %s: %s", field, why);
	return store_triage(db, &r, 1, NULL);
}

/* The files of ARR's warnings, in order, joined by ','. */
static char *files_of(json_t *arr)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *w;

	json_array_foreach(arr, i, w)
		strbuf_addf(&sb, "%s%s", i ? "," : "",
			    json_string_value(json_object_get(w, "file")));
	return strbuf_detach(&sb, NULL);
}

/* How the nightly counts run 3 against run 1: to act on, and settled. */
static void nightly_counts(long long *act, long long *settled)
{
	json_t *news = NULL, *w;
	size_t i;

	*act = *settled = -1;
	if (query_new_against(&news, db, 3, 1, "code", -1))
		return;
	*act = *settled = 0;
	json_array_foreach(news, i, w) {
		if (report_is_settled(w))
			++*settled;
		else
			++*act;
	}
	json_decref(news);
}

/* The by_triage of commit COMMIT_ID of run RUN_ID, as compact JSON. */
static char *by_triage(long long run_id, const char *commit_id)
{
	json_t *counts = NULL;
	char *s;

	if (query_run_counts(&counts, db, run_id))
		return xstrdup("(error)");
	s = json_dumps(json_object_get(json_object_get(counts, commit_id),
				       "by_triage"),
		       JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(counts);
	return s ? s : xstrdup("(none)");
}

/* The files of the warnings at commit 3 triaged TRIAGE, and their total. */
static char *filtered(const char *triage_state, long long *total)
{
	struct query_point p = { 0 };
	struct warn_filter f = { 0 };
	json_t *got = NULL;
	char *s;

	*total = -1;
	f.triage = triage_state;
	if (query_point(&p, db, 3) || query_point_warnings(&got, db, &p, &f)) {
		query_point_release(&p);
		return xstrdup("(error)");
	}
	*total = json_integer_value(json_object_get(got, "total"));
	s = files_of(json_object_get(got, "warnings"));
	json_decref(got);
	query_point_release(&p);
	return s;
}

int main(void)
{
	json_t *tip = NULL;
	long long act, settled, total;
	char *s;

	if (db_open(&db, ":memory:", DB_READ_WRITE) ||
	    db_exec(db, fixture, "cannot load the fixture") || set_keys())
		return 1;

	query_tip_new(&tip, db, 2);
	s = files_of(tip);
	ok(!strcmp(s, "a.c,b.c,c.c"),
	   "untriaged: the tip's new are A, B, C (%s)", s);
	free(s);
	json_decref(tip);
	nightly_counts(&act, &settled);
	ok(act == 3 && settled == 0,
	   "untriaged: the nightly counts 3 (%lld, %lld)", act, settled);

	ok(!triage('a', "intended", 1000) && !triage('c', "confirmed", 1000),
	   "A triaged intended, C confirmed");
	query_tip_new(&tip, db, 2);
	s = files_of(tip);
	ok(!strcmp(s, "b.c,c.c"),
	   "--fail-on-new: the tip's new less A, intended (%s)", s);
	free(s);
	json_decref(tip);
	ok(report_tip_has_new(db, 2) == 2,
	   "report_tip_has_new: 2 fail the run, the confirmed one among them");
	nightly_counts(&act, &settled);
	ok(act == 2 && settled == 1,
	   "the nightly: 2 to act on, 1 settled (%lld, %lld)", act, settled);

	s = by_triage(2, "3");
	ok(!strcmp(s,
		   "{\"compiler-bug\":0,\"confirmed\":1,\"false-positive\":0,"
		   "\"intended\":1,\"open\":2,\"wontfix\":0}"),
	   "by_triage at the tip: 2 open (B, D), 1 intended, 1 confirmed (%s)",
	   s);
	free(s);
	s = by_triage(2, "2");
	ok(!strcmp(s,
		   "{\"compiler-bug\":0,\"confirmed\":0,\"false-positive\":0,"
		   "\"intended\":0,\"open\":1,\"wontfix\":0}"),
	   "by_triage at the base: 1 open (D) (%s)", s);
	free(s);

	s = filtered("intended", &total);
	ok(!strcmp(s, "a.c") && total == 1, "triage=intended: A (%s, %lld)", s,
	   total);
	free(s);
	s = filtered("open", &total);
	ok(!strcmp(s, "b.c,d.c") && total == 2,
	   "triage=open: the never triaged, B and D (%s, %lld)", s, total);
	free(s);
	s = filtered(NULL, &total);
	ok(!strcmp(s, "a.c,b.c,c.c,d.c") && total == 4,
	   "no filter: all four (%s, %lld)", s, total);
	free(s);

	ok(!triage('a', "open", 2000), "A reopened: a newer record, open");
	query_tip_new(&tip, db, 2);
	s = files_of(tip);
	ok(!strcmp(s, "a.c,b.c,c.c"),
	   "the newest record counts: A fails again (%s)", s);
	free(s);
	json_decref(tip);
	nightly_counts(&act, &settled);
	ok(act == 3 && settled == 0, "and counts in the nightly (%lld, %lld)",
	   act, settled);
	s = filtered("open", &total);
	ok(!strcmp(s, "a.c,b.c,d.c") && total == 3,
	   "triage=open: a reopened warning is open (%s, %lld)", s, total);
	free(s);

	db_close(db);
	return tap_done();
}
