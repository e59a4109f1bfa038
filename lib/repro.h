/* SPDX-License-Identifier: MIT */
#ifndef KWARN_REPRO_H
#define KWARN_REPRO_H

/*
 * repro.c: the commands that rebuild one warning's object as kwarn built
 * it, from nothing but the user's shell and kwarn's cache: the tree at the
 * build's commit (a git worktree of the cached repository), the build's
 * stored .config (checked against its sha256), and the make line with
 * every variable kwarn passed, and the object.  Every word is quoted for a
 * POSIX shell, so a file name from a log stays one inert word.
 *
 * Shared by kwarn (report) and kwarn-server (the API, the dashboard); it
 * reads the database only and includes no program's private header.
 */

#include <jansson.h>
#include <sqlite3.h>

struct strbuf;

/*
 * Append WORD to SB quoted for a POSIX shell: unchanged when it holds only
 * [A-Za-z0-9_@%+=:,./-] and is not empty, else in single quotes with each
 * ' written as '\''.
 */
void repro_quote(struct strbuf *sb, const char *word);

/*
 * The make variables of a build kwarn made, as separate make words:
 * CC=, KCFLAGS=, CONFIG_CC_IMPLICIT_FALLTHROUGH= (empty: the level is
 * KCFLAGS'), then LLVM=, ARCH=, CROSS_COMPILE= and W= where the build had
 * them, in the order of kwarn's own make line (run-build.c, make_argv()).
 * FLAGS is builds.flags as the collector writes it ("KCFLAGS=-W... -W...
 * LLVM=-16 ARCH=arm64 W=1 launcher=X": a variable starts at a word that
 * names one, KCFLAGS' value runs on to the next; the launcher is kwarn's
 * and is left out); TOOLCHAIN is the run's compiler ("gcc", "gcc-11",
 * "clang-16"; NULL: gcc), which with CROSS_COMPILE gives CC as kbuild
 * would; LEVEL (< 0: none) makes KCFLAGS when FLAGS is NULL, a database
 * older than the flags.
 */
struct repro_vars {
	char *words[10];
	size_t nr;
	char *cc; /* CC's value alone: "gcc", "aarch64-linux-gnu-gcc" */
};

void repro_vars_init(struct repro_vars *v, const char *flags,
		     const char *toolchain, int level);
void repro_vars_release(struct repro_vars *v);

/*
 * The reproducer of OBJECT ("drivers/x/y.o") at build BUILD_ID: shell
 * commands, one per line, each line ending in '\n', as a new string in
 * *out (caller frees).  A build kwarn did not make itself (an ingested
 * log) gets a comment line saying what is unknown and the bare make
 * line.  Returns 0, or -1 (reported) on a database error or an unknown
 * build; *out is NULL then.
 */
int repro_commands(char **out, sqlite3 *db, long long build_id,
		   const char *object);

/*
 * Set "reproducer" in each warning of WARNINGS (an array of the query
 * layer's warning objects, or one such object): repro_commands() of its
 * "object" at its "build", or null when it has neither or the build is
 * unknown.  The query layer leaves the key null; the edge that shows
 * warnings (kwarn warnings and report, the server) attaches it here.
 */
void repro_attach(sqlite3 *db, json_t *warnings);

#endif
