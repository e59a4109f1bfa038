// SPDX-License-Identifier: MIT
/*
 * kwarn ingest: parse a saved build log into the store as one build of a
 * commit; kwarn warnings: query warnings back.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "kwarn.h"
#include "parse.h"
#include "store.h"
#include "util.h"
#include "banned.h"

struct ingest_ctx {
	struct build_writer *w;
};

static void ingest_emit(void *ctx, const struct diag *d)
{
	struct ingest_ctx *ic = ctx;

	bw_diag(ic->w, -1, d);
}

int parse_fd_into(struct build_writer *w, int fd, const char *name,
		  const char *const *strip)
{
	struct ingest_ctx ic = { w };
	struct parser *p = parse_new(ingest_emit, &ic);
	static char buf[1 << 16];
	int ret = 0;
	ssize_t n;

	for (; strip && *strip; strip++)
		parse_add_strip_prefix(p, *strip);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = error("cannot read '%s': %s", name,
				    strerror(errno));
			break;
		}
		parse_feed(p, buf, (size_t)n);
	}
	parse_finish(p);
	bw_add_unparsed(w, parse_get_stats(p)->unparsed);
	parse_free(p);
	return ret;
}

/* The run that collects ingested logs of a tree, made on first use. */
static int ingest_run(long long *out, sqlite3 *db, long long tree_id)
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

/* The commit REF of RUN: the existing point, or a new last one. */
static int ingest_commit(long long *out, sqlite3 *db, long long run_id,
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

/* Objects listed in an object map (one path per line) as compiled. */
static int ingest_object_map(struct build_writer *w, const char *path)
{
	char *buf = NULL, *line, *next;
	long long id;

	if (util_read_file(&buf, NULL, path, 64 << 20))
		return -1;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		if (bw_object(&id, w, line, "compiled")) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

static void ingest_usage(void)
{
	fprintf(stderr, "usage: kwarn ingest --db FILE --tree NAME --commit REF"
			" [--object-map FILE] [--strip PREFIX] LOG|-\n");
}

int cmd_ingest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "tree", required_argument, NULL, 't' },
		{ "commit", required_argument, NULL, 'c' },
		{ "object-map", required_argument, NULL, 'm' },
		{ "strip", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbpath = NULL, *tree = NULL, *ref = NULL, *map = NULL;
	const char *strip[8] = { NULL };
	size_t nstrip = 0;
	struct tree_info ti = { 0 };
	struct build_info bi = { 0 };
	struct build_writer *w = NULL;
	sqlite3 *db = NULL;
	long long tree_id, run_id, commit_id, build_id;
	int c, fd = -1, ret = 2;
	const char *log;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 't':
			tree = optarg;
			break;
		case 'c':
			ref = optarg;
			break;
		case 'm':
			map = optarg;
			break;
		case 's':
			if (nstrip + 1 < ARRAY_SIZE(strip))
				strip[nstrip++] = optarg;
			break;
		case 'h':
			ingest_usage();
			return 0;
		default:
			ingest_usage();
			return 2;
		}
	}
	if (!dbpath || !tree || !ref) {
		error("missing %s (see kwarn ingest --help)",
		      !dbpath ? "--db FILE" :
		      !tree   ? "--tree NAME" :
				"--commit REF");
		return 2;
	}
	if (optind != argc - 1) {
		error("%s (see kwarn ingest --help)",
		      optind < argc ?
			      "more than one log given" :
			      "missing the log to read ('-' for stdin)");
		return 2;
	}
	log = argv[optind];
	if (!strcmp(log, "-")) {
		fd = 0;
	} else {
		fd = open(log, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			error("cannot open log '%s': %s", log, strerror(errno));
			return 2;
		}
	}
	/*
	 * SQLite frees and reallocates large blocks per statement; without
	 * this, glibc gives the heap top back and faults it in again each
	 * time (a third of the system time of a large ingest).
	 */
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	mallopt(M_TOP_PAD, 4 << 20);
	/* no global memory statistics: a mutex per allocation */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (db_open(&db, dbpath, DB_READ_WRITE))
		goto out;
	/*
	 * A build's rows are one transaction: pages that leave SQLite's
	 * cache are written to the WAL and written again when touched
	 * again.  16 MB (the default is 2) halves the system time of a
	 * large ingest and keeps it within its 64 MB.
	 */
	db_exec(db, "PRAGMA cache_size = -16384", "cannot set cache size");
	ti.name = tree;
	ti.kind = "log";
	/* one transaction for the tree, run and commit rows and the build */
	if (db_begin(db))
		goto out;
	if (store_tree(&tree_id, db, &ti) || ingest_run(&run_id, db, tree_id) ||
	    ingest_commit(&commit_id, db, run_id, ref)) {
		db_rollback(db);
		goto out;
	}
	bi.status = "ingested";
	bi.config_name = "ingested log";
	if (bw_begin(&w, db, commit_id, &bi)) {
		db_rollback(db);
		goto out;
	}
	if ((map && ingest_object_map(w, map)) ||
	    parse_fd_into(w, fd, log, strip)) {
		bw_abort(w);
		goto out;
	}
	if (bw_finish(&build_id, w))
		goto out;
	printf("build %lld: commit %s of tree %s\n", build_id, ref, tree);
	ret = 0;
out:
	if (fd > 0)
		close(fd);
	db_close(db);
	return ret;
}
