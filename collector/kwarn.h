/* SPDX-License-Identifier: MIT */
#ifndef KWARN_H
#define KWARN_H

/*
 * The kwarn collector's private header: the subcommands and the helpers
 * they share.  What the collector shares with the server is libkwarn, in
 * lib/, one header per module.
 */

#include <jansson.h>
#include <stdio.h>
#include <sqlite3.h>
#include <sys/types.h>

struct build_writer;
struct diag;
struct log_reader;

/* ccache.c */

/* The default size of the compiler cache (ccache's max_size). */
#define CCACHE_DEFAULT_SIZE "5G"

/* What run, nightly and bisect take: the compiler cache's options. */
struct ccache_opts {
	int off; /* --no-compiler-cache */
	int on; /* --compiler-cache: the default, said out loud */
	const char *size; /* --cache-size SIZE, or NULL: the default */
	const char *remote; /* --compiler-cache-remote URL, or NULL */
	const char *dir; /* NULL: $KWARN_CCACHE_DIR, or $KWARN_CACHE/ccache */
};

/*
 * Set up the compiler cache O describes for the compiles of our children
 * (kwarn-cc reads KWARN_CCACHE), with a launcher LAUNCHER (or NULL):
 * every CCACHE_* variable of ours is dropped and CCACHE_CONFIGPATH names
 * kwarn's own configuration file, written in the cache.  The remote
 * defaults to $KWARN_CACHE_REMOTE.  Returns 1 when compiles go through
 * the cache, 0 when they do not (turned off, or no ccache 4.7 or later:
 * said once), -1 on a bad size or URL or options that contradict
 * (reported).
 */
int ccache_setup(const struct ccache_opts *o, const char *launcher);

/* The ccache that compiles go through, or NULL when the cache is off. */
const char *ccache_program(void);

/* How many C compiles of a build came from the cache, and how many not. */
struct ccache_count {
	long long hits; /* local or remote */
	long long misses;
	long long remote_hits; /* of the hits, those from the remote */
	char *path; /* the build's stats log */
	off_t offset; /* read so far */
};

/*
 * Start counting the compiles of our children into C, in the stats log
 * PATH (emptied); without the cache, C stays at zero.
 */
void ccache_count_start(struct ccache_count *c, const char *path);
/* Add what the stats log gained since the last update. */
void ccache_count_update(struct ccache_count *c);
/* Stop counting and clear C (read its numbers first); accepts a zeroed C. */
void ccache_count_stop(struct ccache_count *c);

/* boot.c */

/* kwarn boot --kernel BZIMAGE [...] | --db FILE --build ID (see boot.h) */
int cmd_boot(int argc, char **argv);

/* fallthrough.c */

/* kwarn census TREE | [--db FILE] [--repo PATH] --commit SHA | --levels F */
int cmd_census(int argc, char **argv);
/* kwarn classify --db FILE [--repo PATH | --tree DIR] | --file F ... */
int cmd_classify(int argc, char **argv);

/* ingest.c */

/* kwarn ingest --db FILE --tree NAME --commit REF LOG|- */
int cmd_ingest(int argc, char **argv);

/* emit.c */

/* What parse_log_into() does to a log besides parsing it. */
struct parse_stats;

struct ingest_opts {
	const char *const *strip; /* prefixes to strip from file names */
	size_t nr_strip;
	const char *line_prefix; /* an ERE stripped from each line's front */
	const char *source; /* the tree's directory, for clang's functions */
	int find_root; /* find the tree root of absolute paths in the log */
	const struct kbuild_map *kbuild; /* the build directory's objects,
					    or NULL */
};

/* The source files of a tree, read once per run of their warnings. */
struct source_cache {
	const char *dir; /* the tree's directory, or NULL: none at hand */
	char *name, *text; /* the file read last, and its text */
	size_t len;
};

/*
 * Store D into W under OBJECT_ID (-1: from D's file), with its function
 * found in the source under C->dir when the compiler printed none
 * (clang); C caches the file.  Release C with source_cache_release().
 */
void source_emit(struct build_writer *w, long long object_id,
		 const struct diag *d, struct source_cache *c);
void source_cache_release(struct source_cache *c);

/*
 * Parse the log R into W, as O says (NULL: nothing but parsing).
 * Unparsed lines are counted into the build and the first few shown on
 * stderr, with the tree root found, the lines without the line prefix,
 * a log that ends mid-line and one that holds no compiler line at all.
 * The parser's counters go to *OUT unless it is NULL.  Returns 0 or -1
 * on a read error (reported): the caller aborts W.
 */
int parse_log_into(struct parse_stats *out, struct build_writer *w,
		   struct log_reader *r, const struct ingest_opts *o);

/* logread.c */

/*
 * Open the log on FD (named NAME in messages) into *out: plain text, or
 * gzip (zlib), xz or zstd (`xz -dc`, `zstd -dc`: from a file, not a
 * pipe).  Reads its first 64 KB of text, and refuses a log that is not
 * text there (a NUL byte, control bytes) and other compressed formats.
 * FD stays the caller's.  Returns 0, or -1 (reported) with *out NULL.
 */
int log_open(struct log_reader **out, int fd, const char *name);

/*
 * Up to LEN bytes of the text into BUF: the count, 0 at its end, or -1
 * (reported) on a read error or compressed data found damaged or cut.
 */
ssize_t log_read(struct log_reader *r, char *buf, size_t len);

/* The NAME R was opened with. */
const char *log_name(const struct log_reader *r);

/* 1 if R's text is nothing but white space (or nothing), else 0. */
int log_is_empty(const struct log_reader *r);

/* 1 if R was read to its end and its last byte is not a newline. */
int log_ends_mid_line(const struct log_reader *r);

/* Close R and wait for its decompressor; NULL is fine. */
void log_close(struct log_reader *r);

/* parsedump.c */

/* kwarn parse-dump [--count-only] [--chunk N] LOG|-: debug, no database */
int cmd_parse_dump(int argc, char **argv);

/* warnings.c */

/* Print warnings (from query_warnings()) as text, one per block. */
void query_print_text(FILE *fp, json_t *warnings);

/* kwarn warnings --db FILE [--commit REF] [--file F] ... */
int cmd_warnings(int argc, char **argv);

/* run.c */

/* kwarn run: build every point of a series (see run.c). */
int cmd_run(int argc, char **argv);

/* What kwarn nightly asks of the run machinery. */
struct arch;

struct run_request {
	const char *dbpath;
	const char *tree_spec; /* tarball or directory, or NULL */
	const char *cached_name; /* with cached_sha256: the earlier */
	const char *cached_sha256; /* import of tree_spec, from the cache */
	const char *repo, *range; /* or a git range */
	const char *series; /* NULL: the plain tree, one point */
	const char *kind; /* "series" or "nightly" */
	const char *pkg_version;
	const char *const *frags;
	size_t nr_frags;
	int level, jobs, boot;
	const char *launcher;
	const char *arch; /* "arm64", or NULL: the host's */
	int *measured_before; /* if not NULL: set to 1 when nothing ran */
	const char *const *cc_names; /* --cc, nr_cc of them; none: gcc */
	size_t nr_cc;
	const char *warnings; /* --warnings SPEC, or NULL */
	const char *checker; /* --checker: "sparse", or NULL */
	const char *targets; /* --targets OBJ,..., or NULL */
	struct ccache_opts cache; /* the compiler cache */
};

/*
 * Measure what Q describes, storing it as a run; its id goes to *run_id_out
 * (also when it was measured before).  Returns 0, 1 (series stopped at a
 * patch that does not apply), 2 (error, reported) or 130 (interrupted).
 */
int run_request(long long *run_id_out, const struct run_request *q);

/*
 * The first line of `gcc --version` (for arch A: its cross gcc's), as runs
 * store it (new string).
 */
char *run_compiler_version(const struct arch *a);

/* help.c */

/*
 * kwarn help CMD: the page kwarn-CMD(1) from beside this program, shown
 * by man(1), or as plain text when man is not installed.  Exit status.
 */
int cmd_help(const char *cmd);

/* The same for compiler CC ("clang-16"): what builds.compiler holds. */
char *run_cc_version(const char *cc);

/* nightly.c */

/* kwarn nightly: measure every installed tree not measured yet. */
int cmd_nightly(int argc, char **argv);

/* A data file of ours ("kernel/series"): $KWARN_DATA, or beside bin/. */
char *run_data_path(const char *rel);

/* launcher.c */

/*
 * Check a --cc-launcher value for level LEVEL: refuses unknown launchers,
 * and distributed setups that would change gcc's diagnostics (comments,
 * source lines, columns); a chain with distcc must be in pump mode and
 * pass a test compile.  0 or -1 (reported).
 */
int launcher_check(const char *launcher, int level);

/*
 * The jobs a distcc farm takes: the sum of the DISTCC_HOSTS limits
 * ("host/limit", 4 by default, localhost 2), as `distcc -j` prints it;
 * 0 when LAUNCHER has no distcc or the hosts are unknown.
 */
int launcher_jobs(const char *launcher);

/* sites.c */

/* kwarn sites --db FILE [--run ID] [--position N] [--only gcc|clang|both] */
int cmd_sites(int argc, char **argv);

/*
 * When run RUN_ID is one of a group of several compilers: one burn-down
 * column per compiler (live warnings, "-" where not built).  0 or -1.
 */
int report_print_compilers(FILE *fp, sqlite3 *db, long long run_id);

/* triage.c */

/* kwarn triage: record, list, export and import triage (triage.h). */
int cmd_triage(int argc, char **argv);

/* toolchain.c */

/* A compiler kwarn builds with (--cc NAME). */
struct toolchain {
	const char *name; /* "clang-16", as --cc takes it */
	const char *cc; /* the compiler kwarn-cc runs */
	const char *llvm; /* "LLVM=-16" on make's command line, or NULL */
	int clang; /* 1: clang's flags (no fall-through levels) */
	const char *tools[5]; /* what must be in PATH */
	const char *packages; /* what to apt-get install */
};

/* gcc: what a run without --cc builds with. */
const struct toolchain *toolchain_default(void);

/*
 * The compiler called NAME into *out.  An unknown name or a compiler
 * whose tools are not installed is one error line and -1.
 */
int toolchain_find(const struct toolchain **out, const char *name);

/*
 * The fall-through flag T understands for level LEVEL (gcc:
 * "-Wimplicit-fallthrough=N"; clang: "-Wimplicit-fallthrough"), a new
 * string.
 */
char *toolchain_fallthrough_flag(const struct toolchain *t, int level);

/*
 * The compiler kwarn-cc runs for T building for arch A, a new string: a
 * gcc is the cross gcc ("aarch64-linux-gnu-gcc"), a clang is itself (it
 * cross-compiles with kbuild's ARCH= alone).
 */
char *toolchain_cc(const struct toolchain *t, const struct arch *a);

/*
 * Whether T can build for A here: a cross gcc and its binutils must be in
 * PATH (clang needs nothing more).  One error line and -1 when not.
 */
int toolchain_check_arch(const struct toolchain *t, const struct arch *a);

/* What --warnings asks for, parsed. */
struct warn_spec {
	char *w; /* "W=12" for make's command line, or NULL */
	char *kcflags; /* "-Wmissing-prototypes ..." after kwarn's own */
	char *spec; /* the canonical spec, as params record it */
};

/*
 * Parse SPEC, a comma list of W=N kbuild levels (1, 2, 3, or several
 * digits) and -W flags, into *out (released with warn_spec_release()).
 * A bad item is one error line and -1.
 */
int warnings_parse(struct warn_spec *out, const char *spec);
void warn_spec_release(struct warn_spec *w);

/* report.c */

/* kwarn report --db FILE [--run ID] [--format text|json] */
int cmd_report(int argc, char **argv);

/*
 * One JSON entry per commit of RUN_ID in series order (commit, position,
 * subject, warnings, new, fixed, not_built, by_option, status, verdict,
 * warnings_list) into a new array *out.  Returns 0 or -1.
 */
int report_run_json(json_t **out, sqlite3 *db, long long run_id);

/*
 * Print run RUN_ID as "text", "json" or "summary" (burn-down only); the
 * text with each warning's reproducer when REPRO is set.
 */
int report_print_run(FILE *fp, sqlite3 *db, long long run_id,
		     const char *format, int repro);

/*
 * Count (and name on stderr) the warnings at the last built point of the
 * run that the base did not have; -1 on error.
 */
int report_tip_has_new(sqlite3 *db, long long run_id);

#endif
