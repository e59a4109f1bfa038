/* SPDX-License-Identifier: MIT */
#ifndef KWARN_DB_H
#define KWARN_DB_H

/*
 * Opening and migrating the kwarn database: the one piece that both the
 * collector and the server need.  The migrations are the numbered files
 * schema/NNNN-name.sql, compiled in; each is applied in one transaction
 * that also sets PRAGMA user_version to its number.
 */

#include <sqlite3.h>
#include <stdarg.h>

enum db_mode {
	DB_READ_WRITE, /* create if missing, migrate to the newest version */
	DB_READ_ONLY, /* must exist and be at the newest version */
};

/*
 * Open PATH into *out with WAL, foreign keys and a busy timeout.  Refuses
 * a directory, a file that is not SQLite, an SQLite file of another
 * program (tables of its own at user_version 0: left unchanged), and a
 * database whose user_version is newer than this program knows.
 * Returns 0, or -1 with one error reported and *out left NULL; a
 * database it created and could not make usable (a full disk) is
 * removed again with its -wal and -shm (see db_close_new()).
 *
 * DB_READ_WRITE keeps the WAL bounded (whole checkpoints, a size limit)
 * and leaves the -wal and -shm files at close for readers.  DB_READ_ONLY
 * writes nothing; when it may not create the -shm and no -wal exists
 * (nothing has the database open), it opens the file immutable: see
 * db_is_stale().
 */
int db_open(sqlite3 **out, const char *path, enum db_mode mode);

/*
 * 1 if DB was opened immutable by db_open() and a -wal file has since
 * appeared (a writer came): close it and open again.  Else 0.
 */
int db_is_stale(sqlite3 *db);

/* Close DB; NULL is fine. */
void db_close(sqlite3 *db);

/* 1 if nothing is at PATH yet: db_open() would create the database. */
int db_is_new(const char *path);

/*
 * Close DB (NULL is fine), a database at PATH that this process created
 * and then failed to fill, and remove it with its -wal, -shm and
 * -journal files, so that the failure leaves nothing behind.  Kept when
 * it holds a build: another process stored one meanwhile.  db_open()
 * does this itself when it cannot make a new database usable.
 */
void db_close_new(sqlite3 *db, const char *path);

/*
 * Run PRAGMA quick_check on DB: every page read and the b-trees walked,
 * in time linear in the file, so for a start-up check and not per
 * request.  Returns 0 if it says "ok", else -1 with its first finding
 * reported, naming the file.
 */
int db_quick_check(sqlite3 *db);

/* The newest schema version compiled in. */
int db_schema_version(void);

/*
 * Run SQL (no results) on DB, reporting "WHAT: sqlite message" on error.
 * Returns 0 or -1.
 */
int db_exec(sqlite3 *db, const char *sql, const char *what);

/*
 * Begin a read transaction on DB and put the schema version it sees in
 * *version_out, so that one request reads one schema.  Returns 0, or -1
 * (reported, no transaction left open).
 */
int db_read_begin(int *version_out, sqlite3 *db);

/*
 * Give DB the page cache of a bulk writer: a build's rows are one
 * transaction, and pages that leave the cache are written to the WAL and
 * again when touched again.  16 MB (the default is 2) halves the system
 * time of a large ingest and keeps it within its 64 MB.  A failure is
 * only a warning: it costs time, not data.
 */
void db_bulk_cache(sqlite3 *db);

/*
 * Prepare SQL into *out, reporting the error once.  Returns 0 or -1.
 */
int db_prepare(sqlite3_stmt **out, sqlite3 *db, const char *sql);

/*
 * A read: one statement prepared, bound, stepped row by row and
 * finalized, with its error reported once.  Every read is this loop:
 *
 *	struct db_read q;
 *
 *	if (db_read(&q, db, "SELECT name FROM runs WHERE id = ?", "i", id))
 *		return -1;
 *	while (db_next(&q))
 *		use(db_col_text(q.st, 0));
 *	if (db_done(&q, "cannot read run %lld", id))
 *		return -1;
 *
 * A caller may leave the loop early (one row wanted): db_done() is
 * still called, and only a failed step is an error.
 */
struct db_read {
	sqlite3 *db;
	sqlite3_stmt *st;
	int rc; /* the last sqlite3_step()'s */
	long rows; /* rows stepped so far */
};

/*
 * Prepare SQL on DB into Q and bind its parameters 1, 2, ... from the
 * arguments, one letter of BINDS each: 'i' a long long, 'n' a long long
 * bound NULL when negative, 's' a const char * (NULL binds NULL; the
 * statement copies it), 'd' an int.  Returns 0, or -1 with the error
 * reported and nothing left to finalize.
 */
int db_read(struct db_read *q, sqlite3 *db, const char *sql, const char *binds,
	    ...);

/* Step Q: 1 with a row in q->st, 0 when done or a step failed. */
int db_next(struct db_read *q);

/*
 * Finalize Q.  Returns 0, or -1 when a step failed, reporting
 * "FMT...: sqlite's message" once.
 */
int db_done(struct db_read *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int db_vdone(struct db_read *q, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK; 0 or -1 (ROLLBACK never fails). */
int db_begin(sqlite3 *db);
int db_commit(sqlite3 *db);
void db_rollback(sqlite3 *db);

/*
 * Bind TEXT, or NULL when S is NULL.  The statement copies S.
 */
int db_bind_text(sqlite3_stmt *st, int idx, const char *s);

/*
 * The same without the copy, for statements run once per row: the
 * caller keeps S unchanged until the statement is stepped and reset.
 */
int db_bind_text_static(sqlite3_stmt *st, int idx, const char *s);

/* Bind an integer, or NULL when V < 0 and NULL_IF_NEG is set. */
int db_bind_int(sqlite3_stmt *st, int idx, long long v, int null_if_neg);

/*
 * Column as a C string, "" when NULL (valid until the next step).
 */
const char *db_col_text(sqlite3_stmt *st, int col);

/* A copy of the column's text (free() it), NULL when it is NULL. */
char *db_col_strdup(sqlite3_stmt *st, int col);

#endif
