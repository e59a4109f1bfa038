// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"
#include "banned.h"

void opt_usage(FILE *fp, const struct opt *opts, const char *const *usage)
{
	for (size_t i = 0; usage && usage[i]; i++)
		fprintf(fp, "%s %s\n", i ? "      " : "usage:", usage[i]);
	fputc('\n', fp);
	for (const struct opt *o = opts; o->type != OPT_END_T; o++) {
		char left[64];

		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s",
				 o->short_name, o->long_name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s",
				 o->long_name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(fp, "    %-28s %s", left, o->help ? o->help : "");
		if (o->type == OPT_LONG_T)
			fprintf(fp, " (%ld to %ld)", o->min, o->max);
		if (o->type == OPT_LIST_T)
			fprintf(fp, " (repeatable)");
		if (o->type == OPT_CHOICE_T) {
			fprintf(fp, " (");
			for (size_t k = 0; o->choices[k]; k++)
				fprintf(fp, "%s%s", k ? ", " : "",
					o->choices[k]);
			fputc(')', fp);
		}
		fputc('\n', fp);
	}
}

/* Store VAL (NULL for a flag) into O; 0, or -1 after one error line. */
static int opt_set(const struct opt *o, const char *val)
{
	switch (o->type) {
	case OPT_STRING_T:
		*(const char **)o->value = val;
		return 0;
	case OPT_LIST_T: {
		struct opt_list *l = o->value;

		if (l->nr == ARRAY_SIZE(l->v))
			return error("too many --%s (at most %zu)",
				     o->long_name, ARRAY_SIZE(l->v));
		l->v[l->nr++] = val;
		return 0;
	}
	case OPT_LONG_T:
		if (util_parse_long(o->value, val, o->min, o->max))
			return error("--%s must be %ld to %ld, not '%s'",
				     o->long_name, o->min, o->max, val);
		return 0;
	case OPT_FLAG_T:
		*(int *)o->value = 1;
		return 0;
	case OPT_CHOICE_T:
		for (size_t k = 0; o->choices[k]; k++) {
			if (!strcmp(val, o->choices[k])) {
				*(const char **)o->value = o->choices[k];
				return 0;
			}
		}
		{
			struct strbuf sb = STRBUF_INIT;

			for (size_t k = 0; o->choices[k]; k++)
				strbuf_addf(&sb, "%s%s", k ? ", " : "",
					    o->choices[k]);
			error("unknown --%s '%s' (%s)", o->long_name, val,
			      sb.buf);
			strbuf_release(&sb);
			return -1;
		}
	case OPT_END_T:
		break;
	}
	return -1;
}

static const struct opt *opt_find(const struct opt *opts, const char *name,
				  size_t len, char short_name)
{
	for (const struct opt *o = opts; o->type != OPT_END_T; o++) {
		if (short_name ? o->short_name == short_name :
				 strlen(o->long_name) == len &&
					 !strncmp(o->long_name, name, len))
			return o;
	}
	return NULL;
}

int opt_parse(int *argi, int argc, char **argv, const struct opt *opts,
	      const char *const *usage)
{
	char **operands = xcalloc((size_t)argc + 1, sizeof(*operands));
	int i, n = 0, ret = -1;

	/* operands may come between options; they end up last, in order */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const struct opt *o;

		if (!strcmp(a, "--")) {
			while (++i < argc)
				operands[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			operands[n++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opt_usage(stdout, opts, usage);
			ret = 1;
			goto out;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			o = opt_find(opts, a + 2,
				     eq ? (size_t)(eq - a - 2) : strlen(a + 2),
				     0);
			if (eq)
				val = eq + 1;
		} else {
			o = opt_find(opts, NULL, 0, a[1]);
			if (o && a[2])
				val = a + 2; /* -j4 */
		}
		if (!o) {
			error("unknown option '%s' (see --help)", a);
			goto out;
		}
		if (o->type == OPT_FLAG_T) {
			if (val) {
				error("--%s takes no value", o->long_name);
				goto out;
			}
		} else if (!val) {
			if (i + 1 >= argc) {
				error("--%s needs a value (%s)", o->long_name,
				      o->arg ? o->arg : "one");
				goto out;
			}
			val = argv[++i];
		}
		if (opt_set(o, val))
			goto out;
	}
	*argi = argc - n;
	memcpy(argv + *argi, operands, (size_t)n * sizeof(*argv));
	ret = 0;
out:
	free(operands);
	return ret;
}
