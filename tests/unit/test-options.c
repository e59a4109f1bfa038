// SPDX-License-Identifier: MIT
/* The table-driven option parser (common/options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "tap.h"
#include "banned.h"

static const char *const usage[] = { "t --db FILE [OPTIONS] OPERAND...", NULL };
static const char *const formats[] = { "text", "json", NULL };

struct vals {
	const char *db, *format;
	long level, jobs;
	int full;
	struct opt_list configs;
};

static int parse(struct vals *v, int *argi, char **argv)
{
	const struct opt opts[] = {
		OPT_STRING(0, "db", &v->db, "FILE", "the database"),
		OPT_LONG(0, "level", &v->level, "N", "level", 1, 5),
		OPT_LONG('j', "jobs", &v->jobs, "N", "jobs", 1, 64),
		OPT_FLAG(0, "full", &v->full, "everything"),
		OPT_LIST(0, "config", &v->configs, "FRAG", "fragments"),
		OPT_CHOICE(0, "format", &v->format, "F", "output", formats),
		OPT_END,
	};
	int argc = 0;

	memset(v, 0, sizeof(*v));
	while (argv[argc])
		argc++;
	return opt_parse(argi, argc, argv, opts, usage);
}

int main(void)
{
	struct vals v;
	int argi = 0, rc;
	char *a1[] = { "t",	 "--db",     "x.db", "one",	 "--level=3",
		       "-j4",	 "--config", "a",    "--config", "b",
		       "--full", "two",	     "--",   "--three",	 NULL };
	char *a2[] = { "t", "--level", "9", NULL };
	char *a3[] = { "t", "--nope", NULL };
	char *a4[] = { "t", "--format", "xml", NULL };
	char *a5[] = { "t", "--db", NULL };
	char *a6[] = { "t", "--full=1", NULL };
	char *a7[] = { "t", "-j", "0", NULL };

	rc = parse(&v, &argi, a1);
	ok(!rc && !strcmp(v.db, "x.db") && v.level == 3 && v.jobs == 4 &&
		   v.full,
	   "long, --x=y, short -j4 and flags are read");
	ok(v.configs.nr == 2 && !strcmp(v.configs.v[0], "a") &&
		   !strcmp(v.configs.v[1], "b"),
	   "a repeatable option keeps every value in order");
	ok(argi == 11 && !strcmp(a1[argi], "one") &&
		   !strcmp(a1[argi + 1], "two") &&
		   !strcmp(a1[argi + 2], "--three"),
	   "operands between options come last, in order; '--' ends them");
	ok(parse(&v, &argi, a2) == -1, "a value out of range is refused");
	ok(parse(&v, &argi, a3) == -1, "an unknown option is refused");
	ok(parse(&v, &argi, a4) == -1, "an unknown choice is refused");
	ok(parse(&v, &argi, a5) == -1, "a missing value is refused");
	ok(parse(&v, &argi, a6) == -1, "a flag with a value is refused");
	ok(parse(&v, &argi, a7) == -1, "a short option's range is checked");
	return tap_done();
}
