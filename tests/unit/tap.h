/* SPDX-License-Identifier: MIT */
#ifndef KWARN_TAP_H
#define KWARN_TAP_H

/*
 * A tiny TAP producer for the unit tests: ok(cond, fmt, ...) prints
 * "ok N - what" or "not ok N - what"; tap_done() prints the plan and the
 * "N passed, N failed" line and returns the exit status.
 */

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

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

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	printf("%d passed, %d failed\n", tap_n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
