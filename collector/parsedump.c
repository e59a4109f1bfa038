// SPDX-License-Identifier: MIT
/*
 * kwarn parse-dump: a hidden debug command that runs the parser alone (no
 * database) over a log and prints every diagnostic, its notes and the
 * parser's counters in a stable text form.  The parser-case tests diff
 * this output against tests/data/parse/NAME.expected; the benchmark times
 * it with --count-only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kwarn.h"
#include "options.h"
#include "parse.h"
#include "util.h"
#include "banned.h"

struct dump_ctx {
	FILE *fp; /* NULL: count only */
	unsigned long n;
};

static void dump_str(FILE *fp, const char *indent, const char *key,
		     const char *val)
{
	if (val)
		fprintf(fp, "%s%s: %s\n", indent, key, val);
}

static void dump_emit(void *ctx, const struct diag *d)
{
	struct dump_ctx *dc = ctx;
	FILE *fp = dc->fp;

	dc->n++;
	if (!fp)
		return;
	fprintf(fp, "diag %lu: %s\n", dc->n, diag_kind_name(d->kind));
	fprintf(fp, "  at: %s:%ld:%ld\n", d->file ? d->file : "(none)", d->line,
		d->col);
	fprintf(fp, "  function: %s\n", d->function ? d->function : "(none)");
	fprintf(fp, "  option: %s\n", d->option ? d->option : "(none)");
	fprintf(fp, "  werror: %d\n", d->werror);
	fprintf(fp, "  message: %s\n", d->message ? d->message : "");
	dump_str(fp, "  ", "source", d->source);
	dump_str(fp, "  ", "include", d->include_chain);
	dump_str(fp, "  ", "inlined from", d->inline_chain);
	dump_str(fp, "  ", "object", d->object);
	for (size_t i = 0; i < d->nr_notes; i++) {
		const struct diag_note *n = &d->notes[i];

		fprintf(fp, "  note %zu: %s:%ld:%ld: %s\n", i + 1,
			n->file ? n->file : "(none)", n->line, n->col,
			n->message ? n->message : "");
		dump_str(fp, "    ", "source", n->source);
	}
}

static void dump_stats(FILE *fp, const struct parse_stats *s)
{
	fprintf(fp,
		"stats: lines %lu, diags %lu, notes %lu, orphan notes %lu,"
		" by order %lu, unparsed %lu, other %lu, werror lines %lu\n",
		s->lines, s->diags, s->notes, s->orphan_notes, s->order_notes,
		s->unparsed, s->other, s->werror_lines);
}

static const char *const parsedump_usage[] = {
	"kwarn parse-dump [--count-only] [--chunk N] [--strip PREFIX]...",
	"                 [--tool CHECKER] LOG|-",
	NULL,
};

int cmd_parse_dump(int argc, char **argv)
{
	struct dump_ctx dc = { stdout, 0 };
	struct opt_list strips = { { NULL }, 0 };
	struct parser *p = NULL;
	const char *log, *tool = NULL;
	static char buf[1 << 16];
	long chunk = sizeof(buf);
	int count_only = 0, argi, rc, fd = 0, ret = 2;
	const struct opt opts[] = {
		OPT_FLAG(0, "count-only", &count_only, "print only the counts"),
		OPT_LONG(0, "chunk", &chunk, "N",
			 "feed the parser N bytes at a time", 1,
			 (long)sizeof(buf)),
		OPT_LIST(0, "strip", &strips, "PREFIX",
			 "remove PREFIX from file names"),
		OPT_STRING(0, "tool", &tool, "CHECKER",
			   "LOG is what CHECKER (sparse) printed for one file"),
		OPT_END,
	};
	ssize_t n;

	rc = opt_parse(&argi, argc, argv, opts, parsedump_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (argi != argc - 1) {
		opt_usage(stderr, opts, parsedump_usage);
		return 2;
	}
	if (count_only)
		dc.fp = NULL;
	p = parse_new(dump_emit, &dc);
	if (tool && parse_set_tool(p, tool)) {
		error("unknown checker '%s' (kwarn knows sparse and kernel-doc)",
		      tool);
		goto out;
	}
	for (size_t i = 0; i < strips.nr; i++)
		parse_add_strip_prefix(p, strips.v[i]);
	log = argv[argi];
	if (strcmp(log, "-")) {
		fd = open(log, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			error("cannot open log '%s': %s", log, strerror(errno));
			goto out;
		}
	}
	while ((n = read(fd, buf, (size_t)chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error("cannot read '%s': %s", log, strerror(errno));
			goto out;
		}
		parse_feed(p, buf, (size_t)n);
	}
	parse_finish(p);
	dump_stats(stdout, parse_get_stats(p));
	for (size_t i = 0; parse_unparsed_line(p, i); i++)
		printf("unparsed: %s\n", parse_unparsed_line(p, i));
	ret = 0;
out:
	if (fd > 0)
		close(fd);
	parse_free(p);
	return ret;
}
