/* SPDX-License-Identifier: MIT */
#ifndef KWARN_CLASSIFY_H
#define KWARN_CLASSIFY_H

/*
 * classify.c: is an implicit fall-through a missing break or an intended
 * fall-through without its marker?  A heuristic over the source text of
 * the two cases (no parser, no compiler): the falling case ends on the
 * warning's line, the next case starts on the note's line.
 *
 * Signals of a missing break: the next case overwrites what the falling
 * case just stored before anything reads it; the next case repeats a
 * call or assignment of the falling case with another constant; the
 * falling case did its work and the next one fails at once.  Signals of
 * intent: the falling case sets up what the next one uses, advances a
 * state machine, or leaves early on a condition; the next case falls on.
 */

#include <sqlite3.h>
#include <stddef.h>

enum classify_verdict {
	CLASSIFY_INTENDED, /* likely intended: add fallthrough; */
	CLASSIFY_MISSING_BREAK, /* likely missing break: add break; */
};

struct classify_result {
	enum classify_verdict verdict;
	const char *fix; /* static: "break;" or "fallthrough;" */
	char reason[256]; /* in words, one sentence */
};

/*
 * Classify the fall-through from the case ending at WARN_LINE into the
 * label on HERE_LINE (lines are 1-based) of the LEN bytes of C source at
 * SRC.  Pure: no I/O.  Returns 0 with *out filled, or -1 when no case
 * label is found on or after HERE_LINE (then *out says "likely intended"
 * with that reason).  Never reports an error itself.
 */
int classify_fallthrough(struct classify_result *out, const char *src,
			 size_t len, long warn_line, long here_line);

/* "likely missing break" or "likely intended". */
const char *classify_verdict_name(enum classify_verdict v);

/*
 * Store R for the warning identity IDENTITY_ID in DB (schema 0002,
 * table classifications), replacing an older verdict.  Returns 0 or -1
 * (reported).
 */
int classify_store(sqlite3 *db, long long identity_id,
		   const struct classify_result *r);

#endif
