// SPDX-License-Identifier: MIT
/*
 * Reads by question, sources and reproducers: what a warning needs from
 * its source and its build to be looked at again: the fall-through's
 * two lines, the statements the reproducer and kwarn bisect read their
 * builds from.  The contract of each function is in query-sources.h.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "ident.h"
#include "json.h"
#include "query.h"
#include "query-impl.h"
#include "repro.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

int query_fallthrough_site(char **file_out, long *warn_out, long *here_out,
			   sqlite3 *db, long long diag_id)
{
	struct db_read q;
	/*
	 * XXX: only the first 32 notes are read; the "here" note of a
	 * fall-through comes after its macro expansion notes, which real
	 * kernel warnings keep to a handful.
	 */
	char *file = NULL, *files[32];
	long lines[32], warn = 0, here = 0;
	int n = 0, ret = -1;

	*file_out = NULL;
	if (db_read(&q, db, "SELECT file, line FROM diagnostics WHERE id = ?",
		    "i", diag_id))
		return -1;
	if (db_next(&q)) {
		file = xstrdup(db_col_text(q.st, 0));
		warn = sqlite3_column_int(q.st, 1);
	}
	if (db_done(&q, "cannot read diagnostic %lld", diag_id) || !file ||
	    db_read(&q, db,
		    "SELECT file, line, message FROM notes"
		    " WHERE diag_id = ? ORDER BY seq",
		    "i", diag_id)) {
		free(file);
		return -1;
	}
	while (n < 32 && db_next(&q)) {
		files[n] = xstrdup(db_col_text(q.st, 0));
		lines[n] = sqlite3_column_int(q.st, 1);
		if (!strcmp(db_col_text(q.st, 2), "here")) {
			here = lines[n++];
			break;
		}
		n++;
	}
	if (db_done(&q, "cannot read the notes of diagnostic %lld", diag_id))
		here = 0;
	if (here) {
		const char *hf = files[n - 1];

		if (strcmp(hf, file)) {
			/* the case ends at the macro's use in that file */
			warn = 0;
			for (int i = 0; i < n - 1; i++)
				if (!strcmp(files[i], hf))
					warn = lines[i];
			free(file);
			file = xstrdup(hf);
		}
		if (warn > 0) {
			*file_out = file;
			file = NULL;
			*warn_out = warn;
			*here_out = here;
			ret = 0;
		}
	}
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(file);
	return ret;
}

int query_fallthrough_diags(struct query_ids *out, sqlite3 *db,
			    long long build_id, long long commit_id)
{
	struct db_read q;

	memset(out, 0, sizeof(*out));
	/*
	 * With a commit: the live fall-through warnings not classified yet;
	 * else every fall-through warning of the build, once per identity.
	 */
	if (db_read(&q, db,
		    commit_id >= 0 ?
			    "SELECT s.identity_id, d.id"
			    " FROM live_states s"
			    " JOIN diagnostics d ON d.id = s.diag_id"
			    " WHERE s.commit_id = ?2"
			    " AND d.option = '-Wimplicit-fallthrough='"
			    " AND NOT EXISTS (SELECT 1 FROM classifications c"
			    "  WHERE c.identity_id = s.identity_id)"
			    " AND ?1 = ?1" :
			    "SELECT d.identity_id, MIN(d.id) FROM diagnostics d"
			    " WHERE d.build_id = ?1"
			    " AND d.identity_id IS NOT NULL"
			    " AND d.option LIKE '%implicit-fallthrough%'"
			    " AND ?2 = ?2"
			    " GROUP BY d.identity_id ORDER BY d.file, d.line",
		    "ii", build_id, commit_id))
		return -1;
	while (db_next(&q)) {
		if (out->nr == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 32;
			out->identity =
				xrealloc(out->identity,
					 out->alloc * sizeof(*out->identity));
			out->diag = xrealloc(out->diag,
					     out->alloc * sizeof(*out->diag));
		}
		out->identity[out->nr] = sqlite3_column_int64(q.st, 0);
		out->diag[out->nr++] = sqlite3_column_int64(q.st, 1);
	}
	if (db_done(&q, "cannot read the fall-through warnings")) {
		query_ids_release(out);
		return -1;
	}
	return 0;
}

void query_ids_release(struct query_ids *ids)
{
	free(ids->identity);
	free(ids->diag);
	memset(ids, 0, sizeof(*ids));
}

int query_repro_read(struct db_read *q, sqlite3 *db, long long build_id)
{
	return db_read(q, db,
		       "SELECT c.sha, b.image, b.config_hash, b.level,"
		       " b.status, b.compiler, t.kind, t.name, t.source,"
		       " t.sha256, b.build_dir, b.flags, r.compiler"
		       " FROM builds b"
		       " JOIN commits c ON c.id = b.commit_id"
		       " JOIN runs r ON r.id = c.run_id"
		       " JOIN trees t ON t.id = r.tree_id WHERE b.id = ?",
		       "i", build_id);
}

int query_bisect_stmt(sqlite3_stmt **out, sqlite3 *db, const char *ident)
{
	if (db_prepare(out, db,
		       "SELECT i.fingerprint, NULL, o.path, c.sha,"
		       " (SELECT p.sha FROM commits p WHERE p.run_id = c.run_id"
		       "  AND p.position < c.position AND EXISTS (SELECT 1"
		       "  FROM builds pb WHERE pb.commit_id = p.id)"
		       "  ORDER BY p.position DESC LIMIT 1),"
		       " b.image, b.level, t.kind, t.name, t.source, t.sha256,"
		       " b.build_dir, b.flags, r.compiler"
		       " FROM identities i"
		       " JOIN live_states s ON s.identity_id = i.id"
		       " JOIN commits c ON c.id = s.commit_id"
		       " JOIN runs r ON r.id = c.run_id"
		       " JOIN trees t ON t.id = r.tree_id"
		       " JOIN diagnostics d ON d.id = s.diag_id"
		       " JOIN builds b ON b.id = d.build_id"
		       " LEFT JOIN objects o ON o.id = d.object_id"
		       " WHERE (i.fingerprint = ?1 OR CAST(i.id AS TEXT) = ?1)"
		       " ORDER BY s.state = 'new' AND c.position > 0 DESC,"
		       " c.run_id DESC, c.position LIMIT 1"))
		return -1;
	db_bind_text(*out, 1, ident);
	return 0;
}

int query_base_shas_stmt(sqlite3_stmt **out, sqlite3 *db, long long run,
			 long long prev)
{
	if (db_prepare(out, db,
		       "SELECT (SELECT sha FROM commits WHERE run_id = ?1"
		       "  AND position = 0),"
		       " (SELECT sha FROM commits WHERE run_id = ?2"
		       "  AND position = 0)"))
		return -1;
	db_bind_int(*out, 1, run, 0);
	db_bind_int(*out, 2, prev, 0);
	return 0;
}
