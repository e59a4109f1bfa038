// SPDX-License-Identifier: MIT
/*
 * Unit tests of collector/launcher.c without a distcc farm (that is
 * tests/70-distcc.t): launcher_jobs() against what `distcc -j` printed for
 * the same DISTCC_HOSTS (distcc 3.4), and the refusals of launcher_check()
 * that need no daemon: unknown words, icecc, distcc without pump mode or
 * with an include server kwarn did not start.
 */
#include <stdlib.h>
#include <string.h>

#include "kwarn.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

static const struct {
	const char *hosts;
	int jobs;
} jobs_cases[] = {
	/* the numbers `DISTCC_HOSTS=... distcc -j` printed */
	{ "127.0.0.1:4000/2,cpp,lzo 127.0.0.1:4001/2,cpp,lzo", 4 },
	{ "a b/8 localhost", 14 },
	{ "localhost/3 a,lzo", 7 },
	{ "--randomize a:3632/6 @b/3", 9 },
	{ "  host1/4,cpp,lzo\thost2/4,cpp,lzo  ", 8 },
	/* unknown: distcc asks zeroconf, kwarn cannot tell */
	{ "+zeroconf", 0 },
	{ "", 0 },
};

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(jobs_cases); i++) {
		setenv("DISTCC_HOSTS", jobs_cases[i].hosts, 1);
		ok(launcher_jobs("distcc") == jobs_cases[i].jobs,
		   "launcher_jobs with DISTCC_HOSTS='%s' is %d (got %d)",
		   jobs_cases[i].hosts, jobs_cases[i].jobs,
		   launcher_jobs("distcc"));
	}
	setenv("DISTCC_HOSTS", "a/6 b/6", 1);
	ok(launcher_jobs("ccache distcc") == 12, "a chain with distcc counts");
	ok(launcher_jobs("/usr/bin/distcc") == 12, "distcc by its path counts");
	ok(launcher_jobs("ccache") == 0, "no distcc: 0");
	unsetenv("DISTCC_HOSTS");
	ok(launcher_jobs("distcc") == 0, "no DISTCC_HOSTS: 0");

	unsetenv("INCLUDE_SERVER_PORT");
	unsetenv("KWARN_PUMP");
	ok(launcher_check("ccache", 3) == 0, "ccache is accepted");
	ok(launcher_check("/usr/bin/ccache", 3) == 0,
	   "ccache by its path is accepted");
	ok(launcher_check("ccache gcc-wrapper", 3) == -1,
	   "an unknown word is refused");
	ok(launcher_check("", 3) == -1, "an empty launcher is refused");
	ok(launcher_check("distcc", 3) == -1,
	   "distcc without pump mode is refused");
	ok(launcher_check("ccache distcc", 5) == -1,
	   "also at level 5: source lines and columns differ too");
	ok(launcher_check("icecc", 3) == -1, "icecc is refused");
	setenv("ICECC_REMOTE_CPP", "1", 1);
	ok(launcher_check("icecc", 3) == -1,
	   "icecc with ICECC_REMOTE_CPP=1 is refused");
	setenv("INCLUDE_SERVER_PORT", "/nonexistent/kwarn/socket", 1);
	ok(launcher_check("distcc", 3) == -1,
	   "an include server not started by scripts/kwarn-pump is refused");
	setenv("KWARN_PUMP", "1", 1);
	ok(launcher_check("distcc", 3) == -1,
	   "an include server whose socket is gone is refused");
	return tap_done();
}
