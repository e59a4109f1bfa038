/* SPDX-License-Identifier: MIT */
#ifndef KWARN_TAP_H
#define KWARN_TAP_H

/*
 * A tiny TAP producer for the unit tests: ok(cond, fmt, ...) prints
 * "ok N - what" or "not ok N - what"; skip(fmt, ...) prints
 * "ok N # skip why" for a check that could not run here (tests/run counts
 * every skip and fails on one that tests/skip-allow.txt does not name);
 * tap_not_run(count, what) prints "not ok" for each of COUNT checks that a
 * failed set-up kept from running, so that none of them vanishes;
 * tap_done() prints the plan and the "N passed, N failed, N skipped" line
 * and returns the exit status.
 */

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed, tap_skipped;

__attribute__((format(printf, 2, 3))) static inline int ok(int cond,
							   const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 1, 2))) static inline void skip(const char *fmt,
							      ...)
{
	va_list ap;

	tap_n++;
	tap_skipped++;
	printf("ok %d # skip ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline void tap_not_run(int count, const char *what)
{
	for (int i = 0; i < count; i++)
		ok(0, "%s (not run: its set-up failed)", what);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	printf("%d passed, %d failed, %d skipped\n",
	       tap_n - tap_failed - tap_skipped, tap_failed, tap_skipped);
	return tap_failed ? 1 : 0;
}

#endif
