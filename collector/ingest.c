// SPDX-License-Identifier: MIT
/*
 * kwarn ingest: a saved build log into the store as one build of a
 * commit, parsed by parse_log_into() (emit.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <malloc.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "kbuild.h"
#include "kwarn.h"
#include "options.h"
#include "query.h"
#include "parse.h"
#include "store.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

/* Objects listed in an object map (one path per line) as compiled. */
static int ingest_object_map(struct build_writer *w, const char *path)
{
	char *buf = NULL, *line, *next;
	long long id;

	if (util_read_file(&buf, NULL, path, CAP_TREE_FILE))
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

/*
 * Log LR as the one build of commit REF of tree TREE in DB, in one
 * transaction with the tree, run and commit rows: the objects of MAP (if
 * any), the parsed diagnostics, the composites of KB (if any).  The
 * build's id into *out, the parser's counters into *st.  Returns 0 or -1
 * (reported; nothing stored).
 */
static int ingest_store(long long *out, sqlite3 *db, const char *tree,
			const char *ref, const char *map, struct log_reader *lr,
			struct ingest_opts *io, const struct kbuild_map *kb,
			struct parse_stats *st)
{
	struct tree_info ti = { 0 };
	struct build_info bi = { 0 };
	struct build_writer *w = NULL;
	long long tree_id, run_id, commit_id;
	char *tree_dir = NULL;
	int ret = -1;

	/* a tree kwarn knows as a directory is the source at hand */
	if (!io->source && query_tree_dir(&tree_dir, db, tree))
		return -1;
	if (!io->source)
		io->source = tree_dir;
	ti.name = tree;
	ti.kind = "log";
	if (db_begin(db))
		goto out;
	if (store_tree(&tree_id, db, &ti) ||
	    store_ingest_run(&run_id, db, tree_id) ||
	    store_ingest_commit(&commit_id, db, run_id, ref)) {
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
	    parse_log_into(st, w, lr, io) || (kb && bw_composites(w, kb))) {
		bw_abort(w);
		goto out;
	}
	ret = bw_finish(out, w);
out:
	if (io->source == tree_dir)
		io->source = NULL;
	free(tree_dir);
	return ret;
}

static const char *const ingest_usage[] = {
	"kwarn ingest --db FILE --tree NAME --commit REF [--object-map FILE]",
	"             [--strip PREFIX]... [--strip-prefix REGEX] [--source DIR]",
	"             [--no-find-root] [--build-dir DIR] [--allow-empty] LOG|-",
	NULL,
};

int cmd_ingest(int argc, char **argv)
{
	const char *dbpath = NULL, *tree = NULL, *ref = NULL, *map = NULL;
	const char *strip[ARRAY_SIZE(((struct opt_list *)0)->v) + 1] = { NULL };
	struct opt_list strips = { { NULL }, 0 };
	struct ingest_opts io = { strip, 0, NULL, NULL, 1, NULL };
	const char *build_dir = NULL;
	struct kbuild_map kb = { 0 };
	int no_find_root = 0, allow_empty = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &dbpath, "FILE", "the database"),
		OPT_STRING(0, "tree", &tree, "NAME", "the tree the log is of"),
		OPT_STRING(0, "commit", &ref, "REF",
			   "the commit the log is of (any name)"),
		OPT_STRING(0, "object-map", &map, "FILE",
			   "objects compiled, one per line"),
		OPT_LIST(0, "strip", &strips, "PREFIX",
			 "remove PREFIX from file names"),
		OPT_STRING(0, "strip-prefix", &io.line_prefix, "REGEX",
			   "remove REGEX from the start of every line"),
		OPT_STRING(0, "source", &io.source, "DIR",
			   "the tree's sources, to find the root and functions"),
		OPT_FLAG(0, "no-find-root", &no_find_root,
			 "keep the printed paths as they are"),
		OPT_STRING(0, "build-dir", &build_dir, "DIR",
			   "the kbuild build directory: objects from its"
			   " .cmd and .mod files"),
		OPT_FLAG(0, "allow-empty", &allow_empty,
			 "store an empty log as a build with no warnings"),
		OPT_END,
	};
	struct log_reader *lr = NULL;
	struct parse_stats st = { 0 };
	sqlite3 *db = NULL;
	long long build_id;
	int argi, rc, fd = -1, ret = 2, is_new = 0;
	const char *log, *name;

	rc = opt_parse(&argi, argc, argv, opts, ingest_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	for (size_t i = 0; i < strips.nr; i++)
		strip[i] = strips.v[i];
	io.find_root = !no_find_root;
	if (!dbpath || !tree || !ref) {
		error("missing %s (see kwarn ingest --help)",
		      !dbpath ? "--db FILE" :
		      !tree   ? "--tree NAME" :
				"--commit REF");
		return 2;
	}
	if (argi != argc - 1) {
		error("%s (see kwarn ingest --help)",
		      argi < argc ? "more than one log given" :
				    "missing the log to read ('-' for stdin)");
		return 2;
	}
	io.nr_strip = strips.nr;
	/* read before the log, so that a bad directory stores nothing */
	if (build_dir) {
		if (kbuild_map_load(&kb, build_dir))
			return 2;
		if (!kb.nr_objects) {
			error("no kbuild .cmd files in '%s'", build_dir);
			return 2;
		}
		io.kbuild = &kb;
	}
	log = argv[argi];
	name = strcmp(log, "-") ? log : "standard input";
	if (!strcmp(log, "-")) {
		fd = 0;
	} else {
		fd = open(log, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			error("cannot open log '%s': %s", log, strerror(errno));
			kbuild_map_release(&kb);
			return 2;
		}
	}
	/*
	 * Its first bytes before the database: a log that is not text, or
	 * is empty, opens nothing and changes no state already stored.
	 */
	if (log_open(&lr, fd, name))
		goto out;
	if (log_is_empty(lr) && !allow_empty) {
		error("'%s' is empty: no build stored (--allow-empty stores"
		      " it as a build with no warnings)",
		      name);
		goto out;
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
	/* a failed ingest into a new database leaves no database */
	is_new = db_is_new(dbpath);
	if (db_open(&db, dbpath, DB_READ_WRITE))
		goto out;
	/* a build's rows are one transaction: a larger page cache */
	db_bulk_cache(db);
	if (ingest_store(&build_id, db, tree, ref, map, lr, &io,
			 build_dir ? &kb : NULL, &st))
		goto out;
	printf("build %lld: commit %s of tree %s\n", build_id, ref, tree);
	/* make -j's interleaving that the log's own structure left open */
	printf("%lu note%s placed by order only\n", st.order_notes,
	       st.order_notes == 1 ? "" : "s");
	ret = 0;
out:
	log_close(lr);
	if (fd > 0)
		close(fd);
	if (ret && is_new)
		db_close_new(db, dbpath);
	else
		db_close(db);
	kbuild_map_release(&kb);
	return ret;
}
