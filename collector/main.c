// SPDX-License-Identifier: MIT
/*
 * kwarn: track kernel build warnings across the commits of a patch series.
 */
#include <stdio.h>
#include <string.h>

#include "bisect.h"
#include "db.h"
#include "kwarn.h"
#include "util.h"
#include "version.h"
#include "banned.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "boot", cmd_boot, "boot a kernel under QEMU and judge the boot" },
	{ "ingest", cmd_ingest, "parse a saved build log into the database" },
	{ "warnings", cmd_warnings, "list the warnings of a stored build" },
	{ "run", cmd_run, "build every point of a patch series and store it" },
	{ "report", cmd_report, "per-commit report and burn-down of a run" },
	{ "sites", cmd_sites, "a campaign's warnings across compilers" },
	{ "nightly", cmd_nightly, "measure every newly installed kernel tree" },
	{ "census", cmd_census, "fall-through markers and their GCC levels" },
	{ "classify", cmd_classify, "missing break or intended fall-through?" },
	{ "bisect", cmd_bisect, "find the commit that brought a warning" },
	{ "triage", cmd_triage, "intended, false positive, compiler bug..." },
	{ "parse-dump", cmd_parse_dump, NULL },
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: kwarn COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].help) /* NULL: hidden debug command */
			fprintf(fp, "  %-10s %s\n", commands[i].name,
				commands[i].help);
	fprintf(fp, "\nkwarn help COMMAND shows a command's manual page"
		    " (server, cc: the other programs');\nkwarn --version"
		    " its version.\n");
}

/* kwarn help CMD: a command of ours, or one of the other programs. */
static int help(const char *cmd)
{
	if (!strcmp(cmd, "server") || !strcmp(cmd, "cc"))
		return cmd_help(cmd);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(cmd, commands[i].name))
			return cmd_help(cmd);
	error("unknown command '%s' (see kwarn --help)", cmd);
	return 2;
}

int main(int argc, char **argv)
{
	util_progname = "kwarn";
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return help(argv[2]);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("kwarn %s (schema %d)\n", KWARN_VERSION,
		       db_schema_version());
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	error("unknown command '%s' (see kwarn --help)", argv[1]);
	return 2;
}
