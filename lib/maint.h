/* SPDX-License-Identifier: MIT */
#ifndef KWARN_MAINT_H
#define KWARN_MAINT_H

/*
 * The MAINTAINERS matcher, shared by kwarn-server (subsystem filters) and
 * kwarn report --format mail (To: and Cc:).
 */

#include <stddef.h>

/*
 * A parsed MAINTAINERS file.  Entries are the sections of the file (a
 * title line followed by "X: value" lines); files are matched to them
 * with F:, X: and N: the way scripts/get_maintainer.pl does:
 *  - F:/X: patterns are globs (*, ?, [..]) matched against a prefix of
 *    the path; a pattern ending in '/' matches everything below it, any
 *    other pattern only paths with as many '/' as itself (so
 *    "drivers/net/ *" is that directory level only), and a pattern naming
 *    a directory without the final '/' matches below it too;
 *  - an X: match excludes the whole entry;
 *  - N: is an extended regular expression searched in the path.
 */
struct maint;

/*
 * Parse the MAINTAINERS text TEXT (LEN bytes) into *out (free with
 * maint_free()).  Bad N: expressions are skipped.  Returns 0 or -1.
 */
int maint_parse(struct maint **out, const char *text, size_t len);
void maint_free(struct maint *m);

/* Number of entries and the title of entry IDX. */
size_t maint_count(const struct maint *m);
const char *maint_name(const struct maint *m, size_t idx);
/*
 * The index of the entry titled NAME, or else the one title equal to it
 * in any case (AFS for "afs filesystem"), or -1.
 */
long maint_find(const struct maint *m, const char *name);
/*
 * The titles that contain NAME in any case, the first MAX of them into
 * OUT (valid while M is): how many there are.
 */
size_t maint_suggest(const char **out, size_t max, const struct maint *m,
		     const char *name);

/*
 * Store into OUT (room for MAX) the entries matching FILE, most specific
 * first (deepest F: pattern; N: matches count as depth 0), and return how
 * many matched (may exceed MAX: only MAX are stored).
 */
size_t maint_match(size_t *out, size_t max, const struct maint *m,
		   const char *file);

/* 1 if entry IDX matches FILE, else 0. */
int maint_entry_matches(const struct maint *m, size_t idx, const char *file);

/*
 * 1 if entry IDX names every file of the tree (an F: pattern that is a
 * lone star, with or without a slash, as THE REST has): the catch-all,
 * nobody's subsystem; else 0.
 */
int maint_is_catch_all(const struct maint *m, size_t idx);

/*
 * Store into OUT (room for MAX) the values of entry IDX's lines whose
 * type letter is in TYPES ("MRL": maintainers, reviewers, lists), in the
 * order of the file, and return how many there are (may exceed MAX).
 * The strings belong to M.
 */
size_t maint_addresses(const char **out, size_t max, const struct maint *m,
		       size_t idx, const char *types);

/*
 * An M: address that get_maintainer.pl leaves out unless asked
 * (--git-chief-penguins): every file is under THE REST, and he is not
 * whom a warning is for.
 */
#define MAINT_CHIEF_PENGUIN "<torvalds@linux-foundation.org>"

#endif
