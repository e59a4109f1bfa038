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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kwarn.h"
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
		" unparsed %lu, other %lu, werror lines %lu\n",
		s->lines, s->diags, s->notes, s->orphan_notes, s->unparsed,
		s->other, s->werror_lines);
}

static void parsedump_usage(void)
{
	fprintf(stderr, "usage: kwarn parse-dump [--count-only] [--chunk N]"
			" [--strip PREFIX] LOG|-\n");
}

int cmd_parse_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count-only", no_argument, NULL, 'n' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "strip", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_ctx dc = { stdout, 0 };
	struct parser *p = NULL;
	const char *log;
	static char buf[1 << 16];
	long chunk = sizeof(buf);
	int c, fd = 0, ret = 2;
	ssize_t n;

	p = parse_new(dump_emit, &dc);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dc.fp = NULL;
			break;
		case 'c':
			if (util_parse_long(&chunk, optarg, 1, sizeof(buf))) {
				error("bad chunk size '%s'", optarg);
				goto out;
			}
			break;
		case 's':
			parse_add_strip_prefix(p, optarg);
			break;
		default:
			parsedump_usage();
			goto out;
		}
	}
	if (optind != argc - 1) {
		parsedump_usage();
		goto out;
	}
	log = argv[optind];
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
