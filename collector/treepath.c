// SPDX-License-Identifier: MIT
/*
 * Where the collector keeps the git repository of a stored tree.  The
 * scheme is tree.c's (tree_import(), tree_open_repo()); it is repeated
 * here from the database row alone, so that readers (kwarn census,
 * kwarn classify, the server) need no struct tree and take no lock.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "kwarn.h"
#include "treepath.h"
#include "util.h"
#include "banned.h"

char *tree_repo_dir(const char *kind, const char *name, const char *source,
		    const char *sha256)
{
	char sha[65];

	if (!kind || !name || strchr(name, '/') || !strcmp(name, ".."))
		return NULL;
	if (!strcmp(kind, "tarball") && sha256 && strlen(sha256) >= 12)
		return xstrfmt("%s/trees/%s-%.12s/git", util_cache_dir(), name,
			       sha256);
	if ((!strcmp(kind, "dir") || !strcmp(kind, "repo")) && source) {
		util_sha256_hex(sha, source, strlen(source));
		return xstrfmt("%s/trees/%s%s-%.12s/git", util_cache_dir(),
			       strcmp(kind, "repo") ? "" : "repo-", name, sha);
	}
	return NULL;
}

char *tree_repo_path(sqlite3 *db, const char *commit_sha)
{
	sqlite3_stmt *st = NULL;
	const char *kind, *name, *source, *sum;
	char *dir = NULL;
	int rc;

	if (db_prepare(&st, db,
		       "SELECT t.kind, t.name, t.source, t.sha256 FROM commits c"
		       " JOIN runs r ON r.id = c.run_id"
		       " JOIN trees t ON t.id = r.tree_id"
		       " WHERE c.sha = ? ORDER BY c.id DESC LIMIT 1"))
		return NULL;
	db_bind_text(st, 1, commit_sha);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			error("no stored commit '%s'", commit_sha);
		else
			error("cannot look up commit '%s': %s", commit_sha,
			      sqlite3_errmsg(db));
		goto out;
	}
	kind = db_col_text(st, 0);
	name = db_col_text(st, 1);
	source = db_col_text(st, 2);
	sum = db_col_text(st, 3);
	if (!kind || !name || strchr(name, '/') || !strcmp(name, "..")) {
		error("bad tree of commit '%s'", commit_sha);
		goto out;
	}
	dir = tree_repo_dir(kind, name, source, sum);
	if (!dir) {
		error("the tree '%s' of commit '%s' has no repository (kind "
		      "'%s')",
		      name, commit_sha, kind);
		goto out;
	}
	if (!util_is_dir(dir)) {
		error("the tree '%s' of commit '%s' is not in the cache: no "
		      "'%s'",
		      name, commit_sha, dir);
		free(dir);
		dir = NULL;
	}
out:
	sqlite3_finalize(st);
	return dir;
}
