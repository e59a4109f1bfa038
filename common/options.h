/* SPDX-License-Identifier: MIT */
#ifndef KWARN_OPTIONS_H
#define KWARN_OPTIONS_H

/*
 * A table-driven option parser in the spirit of git's parse-options: a
 * command lists its options once, with their type, range and help, and
 * gets --help, checked values and one error line for free.
 *
 *	static const struct opt opts[] = {
 *		OPT_STRING('d', "db", &dbpath, "FILE", "the database"),
 *		OPT_LONG(0, "level", &level, "N", "the fall-through level", 1, 5),
 *		OPT_END,
 *	};
 *	rc = opt_parse(&argi, argc, argv, opts, usage);
 */

#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_END_T,
	OPT_STRING_T, /* const char **: the last one given wins */
	OPT_LIST_T, /* struct opt_list *: repeatable, in order */
	OPT_LONG_T, /* long *, within [min, max] */
	OPT_FLAG_T, /* int *: set to 1 */
	OPT_CHOICE_T, /* const char **, one of choices */
};

struct opt {
	enum opt_type type;
	char short_name; /* 0: none */
	const char *long_name;
	void *value;
	const char *arg; /* the value's name in the help ("FILE") */
	const char *help;
	long min, max;
	const char *const *choices; /* NULL-terminated */
};

/* XXX: a repeatable option keeps at most 16 values, and says so. */
struct opt_list {
	const char *v[16];
	size_t nr;
};

#define OPT_STRING(s, l, v, a, h)                       \
	{                                               \
		OPT_STRING_T, s, l, v, a, h, 0, 0, NULL \
	}
#define OPT_LIST(s, l, v, a, h)                       \
	{                                             \
		OPT_LIST_T, s, l, v, a, h, 0, 0, NULL \
	}
#define OPT_LONG(s, l, v, a, h, lo, hi)                 \
	{                                               \
		OPT_LONG_T, s, l, v, a, h, lo, hi, NULL \
	}
#define OPT_FLAG(s, l, v, h)                             \
	{                                                \
		OPT_FLAG_T, s, l, v, NULL, h, 0, 0, NULL \
	}
#define OPT_CHOICE(s, l, v, a, h, c)                 \
	{                                            \
		OPT_CHOICE_T, s, l, v, a, h, 0, 0, c \
	}
#define OPT_END                                                  \
	{                                                        \
		OPT_END_T, 0, NULL, NULL, NULL, NULL, 0, 0, NULL \
	}

/*
 * Parse the options of ARGV (argv[0] is the command) against OPTS; the
 * index of the first operand goes to *argi.  -h/--help prints USAGE (a
 * NULL-terminated list of lines) and the table to stdout and returns 1;
 * an unknown option or a bad value is reported in one line naming it and
 * returns -1 (the command exits 2); else 0.  "--" ends the options.
 */
int opt_parse(int *argi, int argc, char **argv, const struct opt *opts,
	      const char *const *usage);

/* Print USAGE and the option table to FP (what --help prints). */
void opt_usage(FILE *fp, const struct opt *opts, const char *const *usage);

#endif
