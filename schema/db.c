// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "migrations.h"
#include "../common/util.h"
#include "../common/banned.h"

int db_schema_version(void)
{
	return migrations[migrations_count - 1].version;
}

/*
 * What to add to the message of error RC on DB: a write that failed for
 * want of space says so (a full file system can also fail the -shm
 * mapping, which SQLite calls a disk I/O error).
 */
static const char *full_hint(sqlite3 *db, int rc)
{
	int e = sqlite3_system_errno(db);

	if ((rc & 0xff) == SQLITE_FULL || rc == SQLITE_IOERR_WRITE ||
	    rc == SQLITE_IOERR_FSYNC ||
	    ((rc & 0xff) == SQLITE_IOERR &&
	     (e == ENOSPC || e == EDQUOT || e == EFBIG)))
		return " (disk full, or a file size limit?)";
	return "";
}

int db_exec(sqlite3 *db, const char *sql, const char *what)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	const char *file = sqlite3_db_filename(db, "main");

	if (rc == SQLITE_OK)
		return 0;
	error("%s '%s': %s%s", what,
	      file && *file ? file : ":memory:", msg ? msg : sqlite3_errmsg(db),
	      full_hint(db, rc));
	sqlite3_free(msg);
	return -1;
}

int db_prepare(sqlite3_stmt **out, sqlite3 *db, const char *sql)
{
	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, out, NULL) == SQLITE_OK)
		return 0;
	return error("cannot prepare statement: %s", sqlite3_errmsg(db));
}

int db_read(struct db_read *q, sqlite3 *db, const char *sql, const char *binds,
	    ...)
{
	va_list ap;
	int i, rc = SQLITE_OK;

	q->db = db;
	q->rc = SQLITE_OK;
	q->rows = 0;
	if (db_prepare(&q->st, db, sql))
		return -1;
	va_start(ap, binds);
	for (i = 0; binds[i] && rc == SQLITE_OK; i++) {
		long long v;
		const char *s;

		switch (binds[i]) {
		case 'i':
		case 'n':
			v = va_arg(ap, long long);
			rc = binds[i] == 'n' && v < 0 ?
				     sqlite3_bind_null(q->st, i + 1) :
				     sqlite3_bind_int64(q->st, i + 1, v);
			break;
		case 'd':
			rc = sqlite3_bind_int(q->st, i + 1, va_arg(ap, int));
			break;
		case 's':
			s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(q->st, i + 1, s, -1,
						   SQLITE_TRANSIENT) :
				 sqlite3_bind_null(q->st, i + 1);
			break;
		default: /* a programming error: fail loudly, not silently */
			error("db_read: no bind letter '%c'", binds[i]);
			rc = SQLITE_MISUSE;
		}
	}
	va_end(ap);
	if (rc == SQLITE_OK)
		return 0;
	error("cannot bind parameter %d: %s", i, sqlite3_errmsg(db));
	sqlite3_finalize(q->st);
	q->st = NULL;
	return -1;
}

int db_next(struct db_read *q)
{
	q->rc = sqlite3_step(q->st);
	if (q->rc != SQLITE_ROW)
		return 0;
	q->rows++;
	return 1;
}

int db_vdone(struct db_read *q, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	int failed = q->rc != SQLITE_OK && q->rc != SQLITE_ROW &&
		     q->rc != SQLITE_DONE;

	if (failed) {
		strbuf_vaddf(&sb, fmt, ap);
		error("%s: %s", sb.buf, sqlite3_errmsg(q->db));
		strbuf_release(&sb);
	}
	sqlite3_finalize(q->st);
	q->st = NULL;
	return failed ? -1 : 0;
}

int db_done(struct db_read *q, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = db_vdone(q, fmt, ap);
	va_end(ap);
	return ret;
}

int db_begin(sqlite3 *db)
{
	return db_exec(db, "BEGIN IMMEDIATE", "cannot start a transaction on");
}

int db_commit(sqlite3 *db)
{
	return db_exec(db, "COMMIT", "cannot commit to");
}

void db_rollback(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int db_bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, idx) == SQLITE_OK ? 0 : -1;
	return sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT) ==
			       SQLITE_OK ?
		       0 :
		       -1;
}

int db_bind_text_static(sqlite3_stmt *st, int idx, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, idx) == SQLITE_OK ? 0 : -1;
	return sqlite3_bind_text(st, idx, s, -1, SQLITE_STATIC) == SQLITE_OK ?
		       0 :
		       -1;
}

int db_bind_int(sqlite3_stmt *st, int idx, long long v, int null_if_neg)
{
	if (null_if_neg && v < 0)
		return sqlite3_bind_null(st, idx) == SQLITE_OK ? 0 : -1;
	return sqlite3_bind_int64(st, idx, v) == SQLITE_OK ? 0 : -1;
}

const char *db_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? (const char *)s : "";
}

char *db_col_strdup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? xstrdup((const char *)s) : NULL;
}

/*
 * PRAGMA user_version into *out.  Returns 0, 1 when the file is not an
 * SQLite database, 2 when another process holds it locked (past the busy
 * timeout), or -1 (the cause in sqlite3_errmsg()).  The file is read
 * through SQLite only: opening and closing a descriptor of our own on it
 * would drop the POSIX locks of every other connection of this process
 * to it.
 */
static int user_version(int *out, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int ret = -1, rc;

	rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		ret = 0;
	} else if ((rc & 0xff) == SQLITE_NOTADB) {
		ret = 1;
	} else if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
		ret = 2;
	}
	sqlite3_finalize(st);
	return ret;
}

/*
 * 1 if DB holds tables although its user_version is 0: an SQLite file of
 * some other program, which kwarn must neither migrate nor read.  0 if
 * not, -1 on error.
 */
static int is_foreign(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_schema WHERE name NOT LIKE"
			       " 'sqlite_%' LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* 1 if PATH's "-wal" file exists, else 0. */
static int has_wal(const char *path)
{
	char wal[PATH_MAX];
	struct stat st;

	snprintf(wal, sizeof(wal), "%s-wal", path);
	return !stat(wal, &st);
}

/*
 * When PATH's -wal or -shm file exists but this process may not read it
 * (or, for a writer, write it), say which file and what it needs: SQLite
 * says only "unable to open database file".  Returns -1 when it did, 0
 * when they are not the cause.
 */
static int check_companions(const char *path, enum db_mode mode)
{
	static const char *const suffix[] = { "-wal", "-shm" };
	int need = mode == DB_READ_ONLY ? R_OK : R_OK | W_OK;
	char file[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		snprintf(file, sizeof(file), "%s%s", path, suffix[i]);
		if (access(file, F_OK) || !access(file, need))
			continue;
		return error("cannot open database '%s': its '%s' needs %s"
			     " permission for this user (%s)",
			     path, file,
			     mode == DB_READ_ONLY ? "read" : "read and write",
			     strerror(errno));
	}
	return 0;
}

/*
 * Open PATH read-only and immutable: no locks, no -shm or -wal.  Only
 * for a database that nothing has open (no -wal file) and whose -shm we
 * cannot create; db_is_stale() says when a writer appears.
 */
static int open_immutable(sqlite3 **out, const char *path)
{
	struct strbuf uri = STRBUF_INIT;
	int rc;

	strbuf_addstr(&uri, "file:");
	for (const char *p = path; *p; p++) {
		if (strchr("?#%", *p) || (unsigned char)*p < 0x20)
			strbuf_addf(&uri, "%%%02X", (unsigned char)*p);
		else
			strbuf_addch(&uri, *p);
	}
	strbuf_addstr(&uri, "?immutable=1");
	rc = sqlite3_open_v2(uri.buf, out,
			     SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
				     SQLITE_OPEN_URI,
			     NULL);
	strbuf_release(&uri);
	return rc;
}

int db_is_stale(sqlite3 *db)
{
	const char *file = sqlite3_db_filename(db, "main");

	return file && sqlite3_uri_boolean(file, "immutable", 0) &&
	       has_wal(file);
}

/* Apply the migrations past HAVE, each in one transaction; 0 or -1. */
static int migrate(sqlite3 *db, const char *path, int have)
{
	for (size_t i = 0; i < migrations_count; i++) {
		const struct migration *m = &migrations[i];
		char pragma[64];
		int rc;

		if (m->version <= have)
			continue;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d",
			 m->version);
		rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, m->sql, NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, pragma, NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			/* one error: which step failed is in SQLite's words */
			error("cannot migrate '%s' to version %d (%s): %s%s",
			      path, m->version, m->name, sqlite3_errmsg(db),
			      full_hint(db, rc));
			db_rollback(db);
			return -1;
		}
	}
	return 0;
}

/* Past this many pages after a commit the WAL is checkpointed whole. */
#define WAL_CHECKPOINT_PAGES 1000

static int wal_hook(void *cls, sqlite3 *db, const char *name, int pages)
{
	/*
	 * TRUNCATE, not the default PASSIVE: a passive checkpoint never
	 * restarts the WAL while readers keep coming, so under a busy
	 * server it grows without bound.  This one waits (the busy
	 * timeout) for the readers of the old snapshot, which the server
	 * keeps to one request each; readers arriving meanwhile read the
	 * main file and do not hold it up.  Failing is harmless: the
	 * next commit tries again.
	 */
	if (pages >= WAL_CHECKPOINT_PAGES)
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE,
					  NULL, NULL);
	return SQLITE_OK;
}

/*
 * A writer's WAL: checkpointed whole past WAL_CHECKPOINT_PAGES, cut
 * back to 4 MB when reset, and left in place at close with its -shm
 * (emptied), so that readers that may not create them, like a server of
 * another user, can still open the database.
 */
static void keep_wal_bounded(sqlite3 *db)
{
	int on = 1;

	sqlite3_wal_hook(db, wal_hook, NULL);
	db_exec(db, "PRAGMA journal_size_limit = 4194304", "pragma");
	sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
}

int db_open(sqlite3 **out, const char *path, enum db_mode mode)
{
	sqlite3 *db = NULL;
	int flags, have = 0, rc, created = 0;
	struct stat st;

	*out = NULL;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return error("'%s' is a directory, not a kwarn database", path);
	if (mode == DB_READ_WRITE && db_is_new(path))
		created = 1;
	if (mode == DB_READ_ONLY && stat(path, &st))
		return error("cannot open database '%s': %s", path,
			     strerror(errno));
	flags = mode == DB_READ_ONLY ?
			SQLITE_OPEN_READONLY :
			SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		error("cannot open database '%s': %s", path,
		      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_busy_timeout(db, 10000);
	sqlite3_extended_result_codes(db, 1);
	rc = user_version(&have, db);
	/*
	 * A reader that may not create the -shm file (a database of
	 * another user, a read-only file system) cannot read a WAL database
	 * that nothing has open, since the collector removed its -wal and
	 * -shm.  Without a -wal everything is in the main file, and an
	 * immutable open reads it safely until a writer comes back.
	 */
	if (rc < 0 && mode == DB_READ_ONLY && !has_wal(path) &&
	    ((sqlite3_errcode(db) & 0xff) == SQLITE_READONLY ||
	     (sqlite3_errcode(db) & 0xff) == SQLITE_CANTOPEN)) {
		sqlite3_close(db);
		db = NULL;
		rc = open_immutable(&db, path);
		if (rc != SQLITE_OK) {
			error("cannot open database '%s': %s", path,
			      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
			goto fail;
		}
		sqlite3_extended_result_codes(db, 1);
		rc = user_version(&have, db);
	}
	if (rc < 0 && check_companions(path, mode))
		goto fail;
	if (rc == 1) {
		error("'%s' is not a kwarn database (not SQLite)", path);
		goto fail;
	}
	if (rc == 2) {
		error("database '%s' is locked by another process (waited 10 s)",
		      path);
		goto fail;
	}
	if (rc) {
		error("'%s' is not a usable kwarn database: %s", path,
		      sqlite3_errmsg(db));
		goto fail;
	}
	if (!have && (rc = is_foreign(db)) != 0) {
		if (rc < 0)
			error("'%s' is not a usable kwarn database: %s", path,
			      sqlite3_errmsg(db));
		else
			error("'%s' is an SQLite database of another program"
			      " (tables of its own, user_version 0), not"
			      " kwarn's: left as it is",
			      path);
		goto fail;
	}
	if (have > db_schema_version()) {
		error("'%s' has schema version %d, newer than this kwarn's %d",
		      path, have, db_schema_version());
		goto fail;
	}
	if (mode == DB_READ_ONLY) {
		if (have < db_schema_version()) {
			error("'%s' has schema version %d, expected %d (run kwarn on it first)",
			      path, have, db_schema_version());
			goto fail;
		}
	} else {
		if (db_exec(db, "PRAGMA journal_mode = WAL",
			    "cannot enable WAL") ||
		    migrate(db, path, have))
			goto fail;
		db_exec(db, "PRAGMA synchronous = NORMAL", "pragma");
		keep_wal_bounded(db);
		/* a build's rows land in one transaction: 16 MB of page
		   cache keeps it from spilling into the WAL midway */
		db_exec(db, "PRAGMA cache_size = -16000", "pragma");
	}
	if (db_exec(db, "PRAGMA foreign_keys = ON",
		    "cannot enable foreign keys"))
		goto fail;
	*out = db;
	return 0;
fail:
	if (created && db)
		db_close_new(db, path);
	else
		sqlite3_close(db);
	return -1;
}

void db_close(sqlite3 *db)
{
	if (db)
		sqlite3_close(db);
}

int db_is_new(const char *path)
{
	struct stat st;

	return stat(path, &st) && errno == ENOENT;
}

/* 1 if DB holds a build, 0 if not or if it cannot tell (no schema yet). */
static int has_build(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM builds LIMIT 1", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW;
}

void db_close_new(sqlite3 *db, const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char file[PATH_MAX];
	int keep;

	if (!db)
		return;
	db_rollback(db);
	keep = has_build(db);
	sqlite3_close(db);
	if (keep)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		struct stat st;

		snprintf(file, sizeof(file), "%s%s", path, suffix[i]);
		if (!lstat(file, &st) && unlink(file))
			warning("cannot remove '%s': %s", file,
				strerror(errno));
	}
}

int db_quick_check(sqlite3 *db)
{
	const char *file = sqlite3_db_filename(db, "main"), *msg, *nl;
	sqlite3_stmt *st = NULL;
	int rc;

	if (db_prepare(&st, db, "PRAGMA quick_check(1)"))
		return -1;
	rc = sqlite3_step(st);
	msg = rc == SQLITE_ROW ? db_col_text(st, 0) : sqlite3_errmsg(db);
	if (rc == SQLITE_ROW && !strcmp(msg, "ok")) {
		sqlite3_finalize(st);
		return 0;
	}
	/* one line: "*** in database main ***\nPage 14: ..." */
	if (!strncmp(msg, "*** ", 4) && (nl = strchr(msg, '\n')) != NULL)
		msg = nl + 1;
	error("'%s' is damaged: %.*s (PRAGMA quick_check)", file,
	      (int)strcspn(msg, "\n"), msg);
	sqlite3_finalize(st);
	return -1;
}

void db_bulk_cache(sqlite3 *db)
{
	if (sqlite3_exec(db, "PRAGMA cache_size = -16384", NULL, NULL, NULL) !=
	    SQLITE_OK)
		warning("cannot set the page cache size: %s",
			sqlite3_errmsg(db));
}

int db_read_begin(int *version_out, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*version_out = -1;
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return error("cannot begin a read: %s", sqlite3_errmsg(db));
	rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		*version_out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (*version_out < 0) {
		error("cannot read the schema version: %s", sqlite3_errmsg(db));
		db_rollback(db);
		return -1;
	}
	return 0;
}
