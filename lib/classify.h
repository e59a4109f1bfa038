/* SPDX-License-Identifier: MIT */
#ifndef KWARN_CLASSIFY_H
#define KWARN_CLASSIFY_H

/*
 * classify.c: is an implicit fall-through a missing break or an intended
 * fall-through without its marker?  A heuristic over the source text of
 * the switch (no parser, no compiler): the falling case ends before the
 * label on the note's line, the next case starts there.
 *
 * Signals of a missing break: the next case overwrites what the falling
 * case just stored (also inside a nested if or switch) before anything
 * reads it; it repeats or restarts the falling case's steps with another
 * constant; the falling case finished its work (also when it ends in
 * if (...) return ...;) and the next case is a default that reports an
 * error or returns one, or fails at once.  Weaker, and only when every
 * other case of the switch (at least two) breaks: the next case assigns
 * what the falling case assigned; it calls the other function of the
 * same family; another case that breaks does the falling case's work
 * with other values.
 *
 * Signals of intent: a state advanced, a chain of cases that fall on
 * into a case that does work, a comment that says so, a case that only
 * reports, a next case that tests the switch's value again or reads
 * what the falling case stored, a case that does another case's work
 * and then the next one's; weakly, the next case building on the same
 * value.  Not evidence of intent (issue 34, measured on real bugs): a
 * case that breaks or returns on one path, or only checks, then falls;
 * falling into a case that fails, or into one that does the falling
 * case's last step again with another string, is evidence against it;
 * so is a next case that clears the bits the falling case set, does one
 * of its steps again word for word, opens with its test again (with
 * other constants), or, through a chain, stores again what it stored or
 * ends in a default that fails (issue 34, development seed 9104).
 * When signs of intent meet any sign of a missing break, the evidence
 * disagrees and the verdict is "unsure", naming both.
 *
 * Without evidence the verdict is "unsure", with no fix: advice to add
 * fallthrough; to a real bug would hide it for good.
 */

#include <stddef.h>

enum classify_verdict {
	CLASSIFY_INTENDED, /* likely intended: add fallthrough; */
	CLASSIFY_MISSING_BREAK, /* likely missing break: add break; */
	CLASSIFY_UNSURE, /* no evidence either way: no fix */
};

struct classify_result {
	enum classify_verdict verdict;
	const char *fix; /* static: "break;", "fallthrough;", NULL if unsure */
	char reason[256]; /* in words, one sentence */
};

/*
 * Classify the fall-through from the case ending at WARN_LINE into the
 * label on HERE_LINE (lines are 1-based) of the LEN bytes of C source at
 * SRC.  Pure: no I/O.  Returns 0 with *out filled, or -1 when no case
 * label is found on or after HERE_LINE (then *out says "unsure" with that
 * reason).  Never reports an error itself.
 */
int classify_fallthrough(struct classify_result *out, const char *src,
			 size_t len, long warn_line, long here_line);

/* "likely missing break", "likely intended" or "unsure". */
const char *classify_verdict_name(enum classify_verdict v);

/*
 * The verdict a person typed (any case; "missing break", "missing-break",
 * "likely intended", "intended", "unsure"), as classify_verdict_name()
 * spells it, or "none" for "none" (not classified); NULL when it is none
 * of these.
 */
const char *classify_verdict_parse(const char *s);

/*
 * 0 if WARN_LINE (0: not given) holds code and HERE_LINE a case or
 * default label, WARN_LINE before it, as gcc's warning and its note do;
 * else -1 and the reason in WHY (a line inside a comment is no pair).
 */
int classify_check_pair(const char *src, size_t len, long warn_line,
			long here_line, char *why, size_t whylen);

#endif
