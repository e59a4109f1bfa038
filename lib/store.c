// SPDX-License-Identifier: MIT
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bootlog.h"
#include "classify.h"
#include "db.h"
#include "ident.h"
#include "store.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

/*
 * Object path -> id, for the build being written: diagnostics name their
 * object far more often than there are objects, and a look-up here costs
 * less than the SELECT it saves.  Direct-mapped and of fixed size, so
 * that a build of 100,000 objects stays within its memory: a diagnostic's
 * object is mostly one of those of the last few lines.
 */
#define OBJCACHE_SLOTS 1024

struct objcache_entry {
	char *path; /* NULL when free */
	long long id;
};

struct objcache {
	struct objcache_entry e[OBJCACHE_SLOTS];
};

static struct objcache_entry *objcache_slot(struct objcache *c,
					    const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (const char *s = path; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return &c->e[(h ^ (h >> 32)) % OBJCACHE_SLOTS];
}

/* The id of PATH, or -1 when it is not in the cache. */
static long long objcache_get(struct objcache *c, const char *path)
{
	struct objcache_entry *e = objcache_slot(c, path);

	return e->path && !strcmp(e->path, path) ? e->id : -1;
}

static void objcache_put(struct objcache *c, const char *path, long long id)
{
	struct objcache_entry *e = objcache_slot(c, path);

	if (!e->path || strcmp(e->path, path)) {
		free(e->path);
		e->path = xstrdup(path);
	}
	e->id = id;
}

static void objcache_clear(struct objcache *c)
{
	for (size_t i = 0; i < OBJCACHE_SLOTS; i++)
		free(c->e[i].path);
	memset(c, 0, sizeof(*c));
}

enum {
	ST_DIAG,
	ST_NOTE,
	ST_IDENT,
	ST_IDENT_GET,
	ST_OBJECT,
	ST_OBJECT_GET,
	ST_OBJECT_NEW,
	ST_MAX,
};

static const char *const stmt_sql[ST_MAX] = {
	[ST_DIAG] = "INSERT INTO diagnostics(build_id, object_id, identity_id,"
		    " kind, option, werror, file, line, col, function, message,"
		    " source, include_chain, carried, inline_chain)"
		    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_NOTE] = "INSERT INTO notes(diag_id, seq, file, line, col, message,"
		    " source) VALUES (?,?,?,?,?,?,?)",
	/* looked up first: most identities exist from an earlier build */
	[ST_IDENT] = "INSERT INTO identities(fingerprint, kind, file, function,"
		     " option, message, note_target, ordinal, fp_key, site)"
		     " VALUES (?,?,?,?,?,?,?,?,?,?)",
	[ST_IDENT_GET] = "SELECT id FROM identities WHERE fp_key = ?"
			 " AND fingerprint = ?",
	[ST_OBJECT] =
		"INSERT INTO objects(build_id, path, state) VALUES (?,?,?)"
		" ON CONFLICT(build_id, path) DO UPDATE"
		" SET state = excluded.state RETURNING id",
	[ST_OBJECT_GET] =
		"SELECT id FROM objects WHERE build_id = ? AND path = ?",
	[ST_OBJECT_NEW] = "INSERT OR IGNORE INTO objects(build_id, path, state)"
			  " VALUES (?, ?, 'compiled')",
};

struct build_writer {
	sqlite3 *db;
	sqlite3_stmt *st[ST_MAX];
	long long build_id, commit_id;
	int failed;
	int carried; /* diagnostics added now are carried */
	unsigned long unparsed;
	struct ident_places places; /* the ordinal rule of this build */
	struct ident_hmap ids; /* ids_key() -> identity */
	struct objcache objects; /* objects of this build, path -> id */
};

int store_tree(long long *out, sqlite3 *db, const struct tree_info *t)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (db_prepare(&st, db,
		       "SELECT id FROM trees WHERE name = ? AND kind = ?"
		       " AND source IS ? AND sha256 IS ?"))
		return -1;
	db_bind_text(st, 1, t->name);
	db_bind_text(st, 2, t->kind);
	db_bind_text(st, 3, t->source);
	db_bind_text(st, 4, t->sha256);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
		ret = 0;
		/* a git branch moves on: its version is the newest seen */
		if (t->version && !strcmp(t->kind, "repo") &&
		    (db_prepare(&st, db,
				"UPDATE trees SET version = ? WHERE id = ?") ||
		     db_bind_text(st, 1, t->version) ||
		     db_bind_int(st, 2, *out, 0) ||
		     sqlite3_step(st) != SQLITE_DONE))
			ret = error("cannot store the version of tree '%s'",
				    t->name);
		goto out;
	}
	sqlite3_finalize(st);
	if (db_prepare(&st, db,
		       "INSERT INTO trees(name, version, pkg_version, kind,"
		       " source, sha256, maintainers) VALUES (?,?,?,?,?,?,?)"))
		return -1;
	db_bind_text(st, 1, t->name);
	db_bind_text(st, 2, t->version);
	db_bind_text(st, 3, t->pkg_version);
	db_bind_text(st, 4, t->kind);
	db_bind_text(st, 5, t->source);
	db_bind_text(st, 6, t->sha256);
	db_bind_text(st, 7, t->maintainers);
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store tree '%s': %s", t->name,
		      sqlite3_errmsg(db));
		goto out;
	}
	*out = sqlite3_last_insert_rowid(db);
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int store_commit(long long *out, sqlite3 *db, const struct commit_info *c)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (db_prepare(&st, db,
		       "INSERT INTO commits(run_id, position, sha, parent,"
		       " subject, author, date, patch, apply_status,"
		       " apply_error, changed) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
		       " ON CONFLICT(run_id, position) DO UPDATE"
		       " SET apply_status = excluded.apply_status,"
		       " apply_error = excluded.apply_error RETURNING id"))
		return -1;
	db_bind_int(st, 1, c->run_id, 0);
	db_bind_int(st, 2, c->position, 0);
	db_bind_text(st, 3, c->sha);
	db_bind_text(st, 4, c->parent);
	db_bind_text(st, 5, c->subject);
	db_bind_text(st, 6, c->author);
	db_bind_int(st, 7, c->date, 1);
	db_bind_text(st, 8, c->patch);
	db_bind_text(st, 9, c->apply_status ? c->apply_status : "applied");
	db_bind_text(st, 10, c->apply_error);
	db_bind_text(st, 11, c->changed);
	if (sqlite3_step(st) != SQLITE_ROW) {
		error("cannot store commit '%s': %s", c->sha,
		      sqlite3_errmsg(db));
		goto out;
	}
	*out = sqlite3_column_int64(st, 0);
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int bw_begin(struct build_writer **out, sqlite3 *db, long long commit_id,
	     const struct build_info *info)
{
	struct build_writer *w = xcalloc(1, sizeof(*w));
	sqlite3_stmt *st = NULL;

	*out = NULL;
	w->db = db;
	w->commit_id = commit_id;
	/* join the caller's transaction, if it has one open */
	if (sqlite3_get_autocommit(db) && db_begin(db)) {
		free(w);
		return -1;
	}
	for (int i = 0; i < ST_MAX; i++)
		if (db_prepare(&w->st[i], db, stmt_sql[i]))
			goto fail;
	if (db_prepare(&st, db,
		       "INSERT INTO builds(commit_id, config_name, config_hash,"
		       " compiler, flags, level, status, wall_ms, log_tail,"
		       " image, arch, build_dir, cache_hits, cache_misses)"
		       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"))
		goto fail;
	db_bind_int(st, 1, commit_id, 0);
	db_bind_text(st, 2, info->config_name);
	db_bind_text(st, 3, info->config_hash);
	db_bind_text(st, 4, info->compiler);
	db_bind_text(st, 5, info->flags);
	db_bind_int(st, 6, info->level, 1);
	db_bind_text(st, 7, info->status);
	db_bind_int(st, 8, info->wall_ms, 1);
	db_bind_text(st, 9, info->log_tail);
	db_bind_text(st, 10, info->image);
	db_bind_text(st, 11, info->arch);
	db_bind_text(st, 12, info->build_dir);
	db_bind_int(st, 13, info->cached ? info->cache_hits : -1, 1);
	db_bind_int(st, 14, info->cached ? info->cache_misses : -1, 1);
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store build: %s", sqlite3_errmsg(db));
		goto fail;
	}
	sqlite3_finalize(st);
	w->build_id = sqlite3_last_insert_rowid(db);
	*out = w;
	return 0;
fail:
	sqlite3_finalize(st);
	bw_abort(w);
	return -1;
}

long long bw_build_id(const struct build_writer *w)
{
	return w->build_id;
}

int bw_object(long long *out, struct build_writer *w, const char *path,
	      const char *state)
{
	sqlite3_stmt *st = w->st[ST_OBJECT];
	int ret = -1;

	db_bind_int(st, 1, w->build_id, 0);
	db_bind_text(st, 2, path);
	db_bind_text(st, 3, state);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		objcache_put(&w->objects, path, *out);
		ret = 0;
	} else {
		error("cannot store object '%s': %s", path,
		      sqlite3_errmsg(w->db));
		w->failed = 1;
	}
	sqlite3_reset(st);
	return ret;
}

long long bw_object_lookup(struct build_writer *w, const char *path)
{
	sqlite3_stmt *st = w->st[ST_OBJECT_GET];
	long long id = objcache_get(&w->objects, path);

	if (id >= 0 || w->failed)
		return id;
	db_bind_int(st, 1, w->build_id, 0);
	db_bind_text(st, 2, path);
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		objcache_put(&w->objects, path, id);
	}
	sqlite3_reset(st);
	return id;
}

int bw_composites(struct build_writer *w, const struct kbuild_map *m)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (w->failed)
		return -1;
	if (sqlite3_prepare_v2(w->db,
			       "UPDATE objects SET composite = ?3"
			       " WHERE build_id = ?1 AND path = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < m->nr_composites; i++) {
		db_bind_int(st, 1, w->build_id, 0);
		db_bind_text_static(st, 2, m->composites[i].key);
		db_bind_text_static(st, 3, m->composites[i].value);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		sqlite3_reset(st);
	}
	ret = 0;
out:
	if (ret) {
		error("cannot store composite objects: %s",
		      sqlite3_errmsg(w->db));
		w->failed = 1;
	}
	sqlite3_finalize(st);
	return ret;
}

/* The object a diagnostic came from when the caller does not know it. */
static long long object_of(struct build_writer *w, const struct diag *d)
{
	sqlite3_stmt *st;
	char *path = NULL, *dot;
	long long id = -1;

	if (d->object) {
		path = xstrdup(d->object);
	} else {
		const char *tu = d->file, *c;

		if (d->include_chain) {
			c = strrchr(d->include_chain, ' ');
			tu = c ? c + 1 : d->include_chain;
		}
		if (!tu)
			return -1;
		path = xstrdup(tu);
		dot = strrchr(path, ':');
		if (dot && d->include_chain)
			*dot = '\0';
		dot = strrchr(path, '.');
		if (!dot || (strcmp(dot, ".c") && strcmp(dot, ".S"))) {
			free(path);
			return -1;
		}
		dot[1] = 'o';
	}
	id = objcache_get(&w->objects, path);
	if (id >= 0) {
		free(path);
		return id;
	}
	/*
	 * Not in the cache: mostly a new object, so insert first (a plain
	 * insert: bw_object()'s upsert costs twice as much), and look it
	 * up only when the UNIQUE (build_id, path) says it is there.
	 */
	st = w->st[ST_OBJECT_NEW];
	db_bind_int(st, 1, w->build_id, 0);
	db_bind_text_static(st, 2, path);
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store object '%s': %s", path,
		      sqlite3_errmsg(w->db));
		w->failed = 1;
	} else if (sqlite3_changes(w->db)) {
		id = sqlite3_last_insert_rowid(w->db);
	}
	sqlite3_reset(st);
	if (id < 0 && !w->failed) {
		st = w->st[ST_OBJECT_GET];
		db_bind_int(st, 1, w->build_id, 0);
		db_bind_text_static(st, 2, path);
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	if (id >= 0)
		objcache_put(&w->objects, path, id);
	free(path);
	return id;
}

/*
 * The key of w->ids: key hash KH with ORDINAL mixed in, cheaper than the
 * fingerprint (a SHA-256) for the warnings a build prints again.
 */
static void ids_key(unsigned char out[IDENT_HKEY], const unsigned char kh[32],
		    long ordinal)
{
	unsigned long long o =
		(unsigned long long)ordinal * 0x9e3779b97f4a7c15ull;

	memcpy(out, kh, IDENT_HKEY);
	for (int i = 0; i < 8; i++)
		out[8 + i] ^= (unsigned char)(o >> (8 * i));
}

/* The identity of D, by the ordinal rule of ident.h. */
static long long identity_of(struct build_writer *w, const struct diag *d)
{
	sqlite3_stmt *st = w->st[ST_IDENT], *get = w->st[ST_IDENT_GET];
	struct ident_key k;
	unsigned char kh[32], fb[IDENT_HKEY];
	char fp[65];
	long long id, fp_key;
	long ordinal;
	char *site = NULL;
	int again;

	ident_key_from_diag(&k, d);
	ident_key_hash(kh, &k);
	ordinal = ident_places_at(&w->places, kh, d->line, d->col, &again);
	ids_key(fb, kh, ordinal);
	/* the same warning again: its identity is known */
	id = again ? ident_hmap_get(&w->ids, fb) : -1;
	if (id >= 0)
		goto out;
	ident_fingerprint(fp, kh, ordinal);
	if (ident_fingerprint_key(&fp_key, fp))
		die("fingerprint '%s' is not hex", fp);
	db_bind_int(get, 1, fp_key, 0);
	db_bind_text_static(get, 2, fp);
	if (sqlite3_step(get) == SQLITE_ROW)
		id = sqlite3_column_int64(get, 0);
	sqlite3_reset(get);
	if (id >= 0)
		goto place;
	db_bind_text_static(st, 1, fp);
	db_bind_text_static(st, 2, k.kind);
	db_bind_text_static(st, 3, k.file);
	db_bind_text_static(st, 4, k.function);
	db_bind_text_static(st, 5, k.option);
	db_bind_text_static(st, 6, k.message);
	db_bind_text_static(st, 7, k.note_target);
	db_bind_int(st, 8, ordinal, 0);
	db_bind_int(st, 9, fp_key, 0);
	site = ident_site_key(d);
	db_bind_text_static(st, 10, site);
	if (sqlite3_step(st) == SQLITE_DONE) {
		id = sqlite3_last_insert_rowid(w->db);
	} else {
		error("cannot store identity: %s", sqlite3_errmsg(w->db));
		w->failed = 1;
	}
	sqlite3_reset(st);
place:
	if (id >= 0)
		ident_hmap_put(&w->ids, fb, id);
out:
	ident_key_release(&k);
	free(site);
	return id;
}

void bw_diag(struct build_writer *w, long long object_id, const struct diag *d)
{
	sqlite3_stmt *st = w->st[ST_DIAG], *nt = w->st[ST_NOTE];
	long long diag_id, ident;

	if (w->failed)
		return;
	if (object_id == -1)
		object_id = object_of(w, d);
	ident = identity_of(w, d);
	/* reported there: a row without them would only add a follow-on */
	if (w->failed)
		return;
	db_bind_int(st, 1, w->build_id, 0);
	db_bind_int(st, 2, object_id, 1);
	db_bind_int(st, 3, ident, 1);
	db_bind_text_static(st, 4, diag_kind_name(d->kind));
	db_bind_text_static(st, 5, d->option);
	db_bind_int(st, 6, d->werror, 0);
	db_bind_text_static(st, 7, d->file);
	db_bind_int(st, 8, d->line, 0);
	db_bind_int(st, 9, d->col, 0);
	db_bind_text_static(st, 10, d->function);
	db_bind_text_static(st, 11, d->message ? d->message : "");
	db_bind_text_static(st, 12, d->source);
	db_bind_text_static(st, 13, d->include_chain);
	db_bind_int(st, 14, w->carried, 0);
	db_bind_text_static(st, 15, d->inline_chain);
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store diagnostic: %s", sqlite3_errmsg(w->db));
		w->failed = 1;
		sqlite3_reset(st);
		return;
	}
	sqlite3_reset(st);
	diag_id = sqlite3_last_insert_rowid(w->db);
	for (size_t i = 0; i < d->nr_notes; i++) {
		const struct diag_note *n = &d->notes[i];

		db_bind_int(nt, 1, diag_id, 0);
		db_bind_int(nt, 2, (long long)i, 0);
		db_bind_text_static(nt, 3, n->file);
		db_bind_int(nt, 4, n->line, 0);
		db_bind_int(nt, 5, n->col, 0);
		db_bind_text_static(nt, 6, n->message ? n->message : "");
		db_bind_text_static(nt, 7, n->source);
		if (sqlite3_step(nt) != SQLITE_DONE) {
			error("cannot store note: %s", sqlite3_errmsg(w->db));
			w->failed = 1;
		}
		sqlite3_reset(nt);
	}
}

void bw_set_carried(struct build_writer *w, int carried)
{
	w->carried = carried;
}

void bw_add_unparsed(struct build_writer *w, unsigned long n)
{
	w->unparsed += n;
}

/* Is LINE of FILE inside the ranges of a changed-lines JSON object? */
static int in_ranges(json_t *changed, const char *file, long line)
{
	json_t *ranges = file ? json_object_get(changed, file) : NULL;
	size_t i;
	json_t *r;

	json_array_foreach(ranges, i, r) {
		long first = (long)json_integer_value(json_array_get(r, 0));
		long last = (long)json_integer_value(json_array_get(r, 1));

		if (line >= first && line <= last)
			return 1;
	}
	return 0;
}

static int mark_in_change(struct build_writer *w)
{
	sqlite3_stmt *st = NULL, *up = NULL;
	json_t *changed = NULL;
	int ret = -1;

	if (db_prepare(&st, w->db, "SELECT changed FROM commits WHERE id = ?"))
		return -1;
	db_bind_int(st, 1, w->commit_id, 0);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_TEXT)
		changed = json_loads(db_col_text(st, 0), 0, NULL);
	sqlite3_finalize(st);
	st = NULL;
	if (!changed)
		return 0;
	if (db_prepare(&st, w->db,
		       "SELECT s.identity_id, d.file, d.line FROM states s"
		       " JOIN diagnostics d ON d.id = s.diag_id"
		       " WHERE s.commit_id = ? AND s.state = 'new'") ||
	    db_prepare(&up, w->db,
		       "UPDATE states SET in_change = 1 WHERE commit_id = ?"
		       " AND identity_id = ?"))
		goto out;
	db_bind_int(st, 1, w->commit_id, 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!in_ranges(changed, db_col_text(st, 1),
			       sqlite3_column_int(st, 2)))
			continue;
		db_bind_int(up, 1, w->commit_id, 0);
		db_bind_int(up, 2, sqlite3_column_int64(st, 0), 0);
		if (sqlite3_step(up) != SQLITE_DONE)
			goto out;
		sqlite3_reset(up);
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(up);
	json_decref(changed);
	return ret;
}

/*
 * Triage that this point undoes, as records of kwarn's own: a warning
 * triaged anything but open that comes back new after it was fixed
 * earlier in the run; and a new warning in the place of a triaged one
 * that went away here (same file, function and kind), whose message or
 * option changed, which inherits nothing and is recorded open with what
 * it replaced.  Skipped while nothing is triaged.
 */
static int reopen_triaged(struct build_writer *w)
{
	static const char *const sql[] = {
		"INSERT INTO triage(fingerprint, state, reason, link, who, at,"
		" origin)"
		" SELECT i.fingerprint, 'open', 'reopened: back at '"
		" || substr(c.sha, 1, 12) || ' after it was fixed, triaged '"
		" || t.state || ' by ' || t.who || ': ' || t.reason,"
		" NULL, 'kwarn', unixepoch(), 'reopen'"
		" FROM states s JOIN identities i ON i.id = s.identity_id"
		" JOIN triage_current t ON t.fingerprint = i.fingerprint"
		" JOIN commits c ON c.id = s.commit_id"
		" WHERE s.commit_id = :cid AND s.state = 'new'"
		" AND t.state <> 'open' AND EXISTS (SELECT 1 FROM states f"
		"  JOIN commits fc ON fc.id = f.commit_id"
		"  WHERE f.identity_id = s.identity_id AND f.state = 'fixed'"
		"  AND fc.run_id = c.run_id AND fc.position < c.position)",
		"INSERT INTO triage(fingerprint, state, reason, link, who, at,"
		" origin)"
		" SELECT ni.fingerprint, 'open', 'reopened: in the place of '"
		" || COALESCE(oi.option, oi.kind) || ' ''' || oi.message"
		" || ''', triaged ' || t.state || ' by ' || t.who || ': '"
		" || t.reason, NULL, 'kwarn', unixepoch(), 'reopen'"
		" FROM states ns JOIN identities ni ON ni.id = ns.identity_id"
		" JOIN states os ON os.commit_id = ns.commit_id"
		"  AND os.state = 'fixed'"
		" JOIN identities oi ON oi.id = os.identity_id"
		"  AND oi.file IS ni.file AND oi.function IS ni.function"
		"  AND oi.kind = ni.kind AND (oi.message <> ni.message"
		"  OR oi.option IS NOT ni.option)"
		" JOIN triage_current t ON t.fingerprint = oi.fingerprint"
		"  AND t.state <> 'open'"
		" WHERE ns.commit_id = :cid AND ns.state = 'new'"
		" AND NOT EXISTS (SELECT 1 FROM triage x"
		"  WHERE x.fingerprint = ni.fingerprint)"
		" GROUP BY ni.id",
	};
	sqlite3_stmt *st = NULL;
	int rc;

	if (db_prepare(&st, w->db, "SELECT EXISTS (SELECT 1 FROM triage)"))
		return -1;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || !sqlite3_column_int(st, 0)) {
		sqlite3_finalize(st);
		return rc == SQLITE_ROW ? 0 :
					  error("cannot read triage: %s",
						sqlite3_errmsg(w->db));
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < ARRAY_SIZE(sql); i++) {
		if (db_prepare(&st, w->db, sql[i]))
			return -1;
		db_bind_int(st, sqlite3_bind_parameter_index(st, ":cid"),
			    w->commit_id, 0);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return error("cannot reopen triaged warnings: %s",
				     sqlite3_errmsg(w->db));
	}
	return 0;
}

static int compute_states(struct build_writer *w)
{
	static const char *const sql[] = {
		/* the previous point of the same run that has a build */
		"CREATE TEMP TABLE IF NOT EXISTS prev_point (id INTEGER)",
		"DELETE FROM prev_point",
		"INSERT INTO prev_point SELECT p.id FROM commits c"
		" JOIN commits p ON p.run_id = c.run_id"
		" AND p.position < c.position"
		" WHERE c.id = :cid AND EXISTS"
		" (SELECT 1 FROM builds b WHERE b.commit_id = p.id)"
		" ORDER BY p.position DESC LIMIT 1",
		/* a rebuild of the same commit replaces its states */
		"DELETE FROM states WHERE commit_id = :cid",
		/* what this build printed */
		"INSERT INTO states(commit_id, identity_id, state, diag_id, seen)"
		" SELECT :cid, d.identity_id,"
		" CASE WHEN NOT EXISTS (SELECT 1 FROM prev_point) THEN 'present'"
		" WHEN EXISTS (SELECT 1 FROM states s, prev_point p"
		"  WHERE s.commit_id = p.id AND s.identity_id = d.identity_id"
		"  AND s.state <> 'fixed') THEN 'present' ELSE 'new' END,"
		" MIN(d.id), COUNT(*) FROM diagnostics d"
		" WHERE d.build_id = :bid AND d.identity_id IS NOT NULL"
		" GROUP BY d.identity_id",
		/* what went away: fixed only if an object that printed it
		   was compiled again here, else not built */
		"INSERT INTO states(commit_id, identity_id, state, diag_id, seen)"
		" SELECT :cid, s.identity_id,"
		" CASE WHEN EXISTS (SELECT 1 FROM diagnostics pd"
		"  JOIN objects po ON po.id = pd.object_id"
		"  JOIN objects co ON co.build_id = :bid AND co.path = po.path"
		"  AND co.state = 'compiled'"
		"  WHERE pd.identity_id = s.identity_id AND pd.build_id ="
		"  (SELECT build_id FROM diagnostics WHERE id = s.diag_id))"
		" THEN 'fixed' ELSE 'not_built' END, s.diag_id, 0"
		" FROM states s, prev_point p WHERE s.commit_id = p.id"
		" AND s.state <> 'fixed' AND NOT EXISTS (SELECT 1 FROM states c"
		"  WHERE c.commit_id = :cid AND c.identity_id = s.identity_id)",
	};
	sqlite3_stmt *st = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(sql); i++) {
		int idx;

		if (db_prepare(&st, w->db, sql[i]))
			return -1;
		idx = sqlite3_bind_parameter_index(st, ":cid");
		if (idx)
			db_bind_int(st, idx, w->commit_id, 0);
		idx = sqlite3_bind_parameter_index(st, ":bid");
		if (idx)
			db_bind_int(st, idx, w->build_id, 0);
		if (sqlite3_step(st) != SQLITE_DONE) {
			error("cannot compute warning states: %s",
			      sqlite3_errmsg(w->db));
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_finalize(st);
	}
	if (mark_in_change(w))
		return -1;
	return reopen_triaged(w);
}

static void bw_free(struct build_writer *w)
{
	for (int i = 0; i < ST_MAX; i++)
		sqlite3_finalize(w->st[i]);
	ident_places_release(&w->places);
	ident_hmap_free(&w->ids);
	objcache_clear(&w->objects);
	free(w);
}

int bw_finish(long long *out, struct build_writer *w)
{
	sqlite3_stmt *st = NULL;

	if (w->failed)
		goto fail;
	if (db_prepare(
		    &st, w->db,
		    "UPDATE builds SET unparsed_lines = ?1, objects_compiled ="
		    " (SELECT COUNT(*) FROM objects WHERE build_id = ?2"
		    " AND state = 'compiled') WHERE id = ?2"))
		goto fail;
	db_bind_int(st, 1, (long long)w->unparsed, 0);
	db_bind_int(st, 2, w->build_id, 0);
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot update build: %s", sqlite3_errmsg(w->db));
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (compute_states(w) || db_commit(w->db))
		goto fail;
	*out = w->build_id;
	bw_free(w);
	return 0;
fail:
	sqlite3_finalize(st);
	bw_abort(w);
	return -1;
}

void bw_abort(struct build_writer *w)
{
	if (!w)
		return;
	db_rollback(w->db);
	bw_free(w);
}

int store_open_run(long long *out, sqlite3 *db, const struct run_info *r,
		   int force)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	*out = -1;
	if (!force) {
		if (db_prepare(&st, db,
			       "SELECT id, status = 'done' FROM runs"
			       " WHERE tree_id = ? AND kind = ? AND params = ?"
			       " ORDER BY id DESC LIMIT 1"))
			return -1;
		db_bind_int(st, 1, r->tree_id, 0);
		db_bind_text(st, 2, r->kind);
		db_bind_text(st, 3, r->params);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(st, 0);
			ret = sqlite3_column_int(st, 1) ? 1 : 2;
		} else if (rc != SQLITE_DONE) {
			error("cannot look up runs: %s", sqlite3_errmsg(db));
		}
		sqlite3_finalize(st);
		st = NULL;
		if (rc == SQLITE_ROW && ret == 2) {
			if (db_prepare(&st, db,
				       "UPDATE runs SET status = 'running'"
				       " WHERE id = ?"))
				return -1;
			db_bind_int(st, 1, *out, 0);
			if (sqlite3_step(st) != SQLITE_DONE)
				ret = error("cannot resume run %lld: %s", *out,
					    sqlite3_errmsg(db));
			sqlite3_finalize(st);
		}
		if (rc != SQLITE_DONE)
			return ret;
	}
	if (db_prepare(&st, db,
		       "INSERT INTO runs(tree_id, kind, series, config, level,"
		       " params, compiler, arch)"
		       " VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"))
		return -1;
	db_bind_int(st, 1, r->tree_id, 0);
	db_bind_text(st, 2, r->kind);
	db_bind_text(st, 3, r->series);
	db_bind_text(st, 4, r->config);
	db_bind_int(st, 5, r->level, 0);
	db_bind_text(st, 6, r->params);
	db_bind_text(st, 7, r->compiler);
	db_bind_text(st, 8, r->arch);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		ret = 0;
	} else {
		ret = error("cannot create run: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return ret;
}

int store_group_runs(sqlite3 *db, const long long *ids, size_t n)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (db_prepare(&st, db, "UPDATE runs SET group_id = ? WHERE id = ?"))
		return -1;
	for (size_t i = 0; i < n && !ret; i++) {
		db_bind_int(st, 1, ids[0], 0);
		db_bind_int(st, 2, ids[i], 0);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = error("cannot group run %lld: %s", ids[i],
				    sqlite3_errmsg(db));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return ret;
}

int store_run_progress(sqlite3 *db, long long run_id, const char *progress)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (db_prepare(&st, db, "UPDATE runs SET progress = ? WHERE id = ?"))
		return -1;
	db_bind_text(st, 1, progress);
	db_bind_int(st, 2, run_id, 0);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = error("cannot record the progress of run %lld: %s",
			    run_id, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int store_nightly_report(sqlite3 *db, long long run_id, const char *report)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (db_prepare(&st, db,
		       "INSERT OR REPLACE INTO nightly_reports(run_id, report)"
		       " VALUES (?, ?)"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	db_bind_text(st, 2, report);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = error("cannot keep the nightly report of run %lld: %s",
			    run_id, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

int store_finish_run(sqlite3 *db, long long run_id, const char *status,
		     const char *msg)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (db_prepare(
		    &st, db,
		    "UPDATE runs SET status = ?1, message = ?2,"
		    " finished_at = unixepoch(), progress = NULL WHERE id = ?3"))
		return -1;
	db_bind_text(st, 1, status);
	db_bind_text(st, 2, msg);
	db_bind_int(st, 3, run_id, 0);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = error("cannot finish run %lld: %s", run_id,
			    sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

/* One boot_modules row per module of R. */
static int store_modules(sqlite3 *db, long long boot_id,
			 const struct boot_result *r)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (!r->nr_modules)
		return 0;
	if (db_prepare(&st, db,
		       "INSERT OR REPLACE INTO boot_modules"
		       " (boot_id, name, status, message) VALUES (?, ?, ?, ?)"))
		return -1;
	for (size_t i = 0; i < r->nr_modules; i++) {
		const struct boot_module *m = &r->modules[i];

		if (db_bind_int(st, 1, boot_id, 0) ||
		    db_bind_text(st, 2, m->name) ||
		    db_bind_text(st, 3, m->status) ||
		    db_bind_text(st, 4, m->message) ||
		    sqlite3_step(st) != SQLITE_DONE) {
			error("cannot store module '%s' of boot %lld: %s",
			      m->name, boot_id, sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_reset(st);
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int store_boot(long long *out, sqlite3 *db, long long build_id,
	       const struct boot_result *r)
{
	sqlite3_stmt *st = NULL;
	unsigned char *z = NULL;
	long long boot_id;
	uLongf zlen = 0;
	int ret = -1;

	if (r->log_len) {
		zlen = compressBound(r->log_len);
		z = xmalloc(zlen);
		if (compress2(z, &zlen, (const Bytef *)r->log, r->log_len,
			      Z_BEST_COMPRESSION) != Z_OK) {
			error("cannot compress the boot log");
			goto out;
		}
	}
	if (db_prepare(&st, db,
		       "INSERT INTO boots (build_id, verdict, reason, "
		       "fingerprint, kernel_version, nonce, accel, "
		       "duration_ms, log, log_size) "
		       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
		goto out;
	if (db_bind_int(st, 1, build_id, 0) ||
	    db_bind_text(st, 2, r->verdict) || db_bind_text(st, 3, r->reason) ||
	    db_bind_text(st, 4, r->fingerprint) ||
	    db_bind_text(st, 5, r->kernel_version) ||
	    db_bind_text(st, 6, *r->nonce ? r->nonce : NULL) ||
	    db_bind_text(st, 7, r->accel) ||
	    db_bind_int(st, 8, r->duration_ms, 0) ||
	    (z ? sqlite3_bind_blob(st, 9, z, (int)zlen, SQLITE_TRANSIENT) :
		 sqlite3_bind_null(st, 9)) != SQLITE_OK ||
	    db_bind_int(st, 10, (long long)r->log_len, 0)) {
		error("cannot bind the boot row: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store the boot of build %lld: %s", build_id,
		      sqlite3_errmsg(db));
		goto out;
	}
	boot_id = sqlite3_last_insert_rowid(db);
	if (store_modules(db, boot_id, r))
		goto out;
	if (out)
		*out = boot_id;
	ret = 0;
out:
	sqlite3_finalize(st);
	free(z);
	return ret;
}

int store_ingest_run(long long *out, sqlite3 *db, long long tree_id)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (db_prepare(
		    &st, db,
		    "SELECT id FROM runs WHERE tree_id = ? AND kind = 'ingest'"
		    " ORDER BY id LIMIT 1"))
		return -1;
	db_bind_int(st, 1, tree_id, 0);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (db_prepare(&st, db,
		       "INSERT INTO runs(tree_id, kind, status) VALUES (?,"
		       " 'ingest', 'done') RETURNING id"))
		return -1;
	db_bind_int(st, 1, tree_id, 0);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		ret = 0;
	} else {
		error("cannot create ingest run: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return ret;
}

int store_ingest_commit(long long *out, sqlite3 *db, long long run_id,
			const char *ref)
{
	struct commit_info c = { 0 };
	sqlite3_stmt *st = NULL;
	long position = 0;

	if (db_prepare(&st, db,
		       "SELECT id FROM commits WHERE run_id = ? AND sha = ?"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	db_bind_text(st, 2, ref);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (db_prepare(&st, db,
		       "SELECT COALESCE(MAX(position) + 1, 0) FROM commits"
		       " WHERE run_id = ?"))
		return -1;
	db_bind_int(st, 1, run_id, 0);
	if (sqlite3_step(st) == SQLITE_ROW)
		position = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	c.run_id = run_id;
	c.position = position;
	c.sha = ref;
	c.subject = ref;
	c.apply_status = position ? "applied" : "base";
	return store_commit(out, db, &c);
}

int store_classification(sqlite3 *db, long long identity_id,
			 const struct classify_result *r)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (db_prepare(&st, db,
		       "INSERT INTO classifications (identity_id, verdict, "
		       "fix, reason) VALUES (?, ?, ?, ?) "
		       "ON CONFLICT (identity_id) DO UPDATE SET "
		       "verdict = excluded.verdict, fix = excluded.fix, "
		       "reason = excluded.reason, "
		       "classified_at = unixepoch()"))
		return -1;
	if (db_bind_int(st, 1, identity_id, 0) ||
	    db_bind_text(st, 2, classify_verdict_name(r->verdict)) ||
	    db_bind_text(st, 3, r->fix) || db_bind_text(st, 4, r->reason))
		goto out;
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store the verdict of identity %lld: %s",
		      identity_id, sqlite3_errmsg(db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int store_triage(sqlite3 *db, const struct triage_rec *recs, size_t n,
		 size_t *added)
{
	sqlite3_stmt *st = NULL;
	size_t done = 0;

	if (added)
		*added = 0;
	if (db_begin(db))
		return -1;
	if (db_prepare(&st, db,
		       "INSERT INTO triage(fingerprint, state, reason, link,"
		       " who, at, origin)"
		       " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE NOT EXISTS"
		       " (SELECT 1 FROM triage WHERE fingerprint = ?1"
		       " AND state = ?2 AND reason = ?3 AND link IS ?4"
		       " AND who = ?5 AND at = ?6 AND origin = ?7)"))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const struct triage_rec *r = &recs[i];

		if (db_bind_text(st, 1, r->fingerprint) ||
		    db_bind_text(st, 2, r->state) ||
		    db_bind_text(st, 3, r->reason) ||
		    db_bind_text(st, 4, r->link) ||
		    db_bind_text(st, 5, r->who) ||
		    db_bind_int(st, 6, r->at, 0) ||
		    db_bind_text(st, 7, r->origin))
			goto fail;
		if (sqlite3_step(st) != SQLITE_DONE) {
			error("cannot store the triage of '%s': %s",
			      r->fingerprint, sqlite3_errmsg(db));
			goto fail;
		}
		done += (size_t)sqlite3_changes(db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (db_commit(db)) {
		db_rollback(db);
		return -1;
	}
	if (added)
		*added = done;
	return 0;
fail:
	sqlite3_finalize(st);
	db_rollback(db);
	return -1;
}
