// SPDX-License-Identifier: MIT
/*
 * Compiler launchers (--cc-launcher): what kwarn lets stand between
 * kwarn-cc and gcc.  A distributed compile that preprocesses locally and
 * ships the preprocessed text drops every comment, and with it every
 * "fall through" comment marker: level 1 to 4 would then report warnings
 * that a local build does not.  Such a setup is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "kwarn.h"
#include "util.h"
#include "banned.h"

static int word_is(const char *launcher, const char *name)
{
	size_t l = strlen(name);
	const char *p = launcher;

	while ((p = strstr(p, name)) != NULL) {
		int start = p == launcher || p[-1] == ' ' || p[-1] == '/';
		int end = p[l] == '\0' || p[l] == ' ';

		if (start && end)
			return 1;
		p += l;
	}
	return 0;
}

int launcher_check(const char *launcher, int level)
{
	static const char *const known[] = { "ccache", "distcc", "icecc",
					     "pump" };
	char *copy = xstrdup(launcher), *tok, *save = NULL;
	int ret = 0;

	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		const char *base = strrchr(tok, '/') ? strrchr(tok, '/') + 1 : tok;
		int ok = 0;

		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			ok |= !strcmp(base, known[i]);
		if (!ok) {
			ret = error("unknown compiler launcher '%s' (ccache, distcc, icecc)",
				    tok);
			goto out;
		}
	}
	if (level >= 5)
		goto out; /* comments do not count at level 5 */
	if (word_is(launcher, "distcc") && !getenv("INCLUDE_SERVER_PORT")) {
		ret = error("distcc without pump mode drops comments, so /* fall through */ markers vanish at level %d: run kwarn under 'pump' (distcc-pump)",
			    level);
		goto out;
	}
	if (word_is(launcher, "icecc") &&
	    (!getenv("ICECC_REMOTE_CPP") ||
	     strcmp(getenv("ICECC_REMOTE_CPP"), "1"))) {
		ret = error("icecc preprocesses locally unless ICECC_REMOTE_CPP=1, so /* fall through */ markers vanish at level %d",
			    level);
		goto out;
	}
out:
	free(copy);
	return ret;
}
