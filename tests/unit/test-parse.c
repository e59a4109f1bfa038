// SPDX-License-Identifier: MIT
/*
 * Unit tests of the parser's streaming: any chunking gives the same
 * diagnostics, overlong lines are counted and skipped, invalid UTF-8 is
 * replaced, and binary garbage neither crashes nor leaks control bytes.
 * Run from the top of the tree (it reads the logs in tests/data/parse).
 */
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

struct collect {
	struct strbuf out; /* every diagnostic, serialised */
	unsigned long n;
	int bad_strings; /* strings with invalid UTF-8 or controls */
};

/*
 * 1 if S is valid UTF-8 (as jansson checks it: no overlong forms, no
 * surrogates) without control characters.
 */
static int clean_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t len = 1;

		if (*p < 0x20 || *p == 0x7f)
			return 0;
		if (*p >= 0x80) {
			if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
				len = 2;
			else if ((*p & 0xf0) == 0xe0)
				len = 3;
			else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
				len = 4;
			else
				return 0;
			for (size_t i = 1; i < len; i++)
				if ((p[i] & 0xc0) != 0x80)
					return 0;
			if ((p[0] == 0xe0 && p[1] < 0xa0) ||
			    (p[0] == 0xed && p[1] >= 0xa0) ||
			    (p[0] == 0xf0 && p[1] < 0x90) ||
			    (p[0] == 0xf4 && p[1] >= 0x90))
				return 0;
		}
		p += len;
	}
	return 1;
}

static void add_str(struct collect *c, const char *key, const char *s)
{
	strbuf_addf(&c->out, "%s=%s\n", key, s ? s : "(null)");
	if (s && !clean_string(s))
		c->bad_strings++;
}

static void collect_emit(void *ctx, const struct diag *d)
{
	struct collect *c = ctx;

	c->n++;
	strbuf_addf(&c->out, "kind=%d line=%ld col=%ld werror=%d\n", d->kind,
		    d->line, d->col, d->werror);
	add_str(c, "file", d->file);
	add_str(c, "function", d->function);
	add_str(c, "option", d->option);
	add_str(c, "message", d->message);
	add_str(c, "source", d->source);
	add_str(c, "include", d->include_chain);
	add_str(c, "object", d->object);
	for (size_t i = 0; i < d->nr_notes; i++) {
		strbuf_addf(&c->out, "note line=%ld col=%ld\n",
			    d->notes[i].line, d->notes[i].col);
		add_str(c, "nfile", d->notes[i].file);
		add_str(c, "nmessage", d->notes[i].message);
		add_str(c, "nsource", d->notes[i].source);
	}
}

/*
 * Parse BUF in chunks: CHUNK bytes each, or random sizes up to 4096 from
 * SEED when CHUNK is 0.  The result (diagnostics and stats) goes to C.
 */
static void parse_chunked(struct collect *c, struct parse_stats *stats,
			  const char *buf, size_t len, size_t chunk,
			  unsigned int seed)
{
	struct parser *p = parse_new(collect_emit, c);
	size_t off = 0;

	strbuf_init(&c->out, 0);
	c->n = 0;
	c->bad_strings = 0;
	while (off < len) {
		size_t n = chunk ? chunk : (size_t)rand_r(&seed) % 4096 + 1;

		if (n > len - off)
			n = len - off;
		parse_feed(p, buf + off, n);
		off += n;
	}
	parse_finish(p);
	*stats = *parse_get_stats(p);
	parse_free(p);
}

static int stats_equal(const struct parse_stats *a, const struct parse_stats *b)
{
	return a->lines == b->lines && a->diags == b->diags &&
	       a->notes == b->notes && a->orphan_notes == b->orphan_notes &&
	       a->order_notes == b->order_notes && a->unparsed == b->unparsed &&
	       a->other == b->other && a->werror_lines == b->werror_lines;
}

static void test_chunking(void)
{
	glob_t g;
	struct strbuf all = STRBUF_INIT;
	struct collect whole, bytes, random;
	struct parse_stats sw, sb, sr;
	unsigned long diags;

	if (glob("tests/data/parse/*.log", 0, NULL, &g)) {
		ok(0, "parser cases found in tests/data/parse");
		return;
	}
	/* each case on its own, then all of them as one log */
	for (size_t i = 0; i <= g.gl_pathc; i++) {
		char *buf = NULL;
		size_t len = 0;
		const char *name = i < g.gl_pathc ? g.gl_pathv[i] : "all";

		if (i < g.gl_pathc) {
			if (util_read_file(&buf, &len, g.gl_pathv[i],
					   1 << 24)) {
				ok(0, "read %s", name);
				continue;
			}
			strbuf_add(&all, buf, len);
		} else {
			buf = strbuf_detach(&all, &len);
		}
		parse_chunked(&whole, &sw, buf, len, len ? len : 1, 0);
		parse_chunked(&bytes, &sb, buf, len, 1, 0);
		parse_chunked(&random, &sr, buf, len, 0, (unsigned int)i + 1);
		diags = sw.diags;
		ok(!strcmp(whole.out.buf, bytes.out.buf) &&
			   stats_equal(&sw, &sb),
		   "%s: byte by byte = one piece (%lu diagnostics)", name,
		   diags);
		ok(!strcmp(whole.out.buf, random.out.buf) &&
			   stats_equal(&sw, &sr),
		   "%s: random chunks = one piece", name);
		if (i == g.gl_pathc)
			ok(diags > 30 && whole.bad_strings == 0,
			   "all cases together: %lu diagnostics, all strings"
			   " clean UTF-8",
			   diags);
		strbuf_release(&whole.out);
		strbuf_release(&bytes.out);
		strbuf_release(&random.out);
		free(buf);
	}
	globfree(&g);
}

static const char warn_log[] =
	"drivers/x.c: In function 'x_probe':\n"
	"drivers/x.c:7:21: warning: this statement may fall through"
	" [-Wimplicit-fallthrough=]\n"
	"    7 |                 ret = arg;\n"
	"      |                 ~~~~^~~~~\n"
	"drivers/x.c:8:9: note: here\n"
	"    8 |         case 2:\n"
	"      |         ^~~~\n";

static void test_overlong(void)
{
	size_t big = 3u << 20;
	char *line = xmalloc(big + 1);
	struct collect c;
	struct parse_stats st;
	struct strbuf log = STRBUF_INIT;

	/* a 3 MB line that starts like a diagnostic, then a real one */
	memset(line, 'a', big);
	memcpy(line, "drivers/x.c:1:1: warning: ", 26);
	line[big] = '\n';
	strbuf_add(&log, line, big + 1);
	strbuf_addstr(&log, warn_log);
	parse_chunked(&c, &st, log.buf, log.len, 65536, 0);
	ok(st.unparsed == 1, "3 MB line counted as unparsed (%lu)",
	   st.unparsed);
	ok(c.n == 1 && strstr(c.out.buf, "function=x_probe\n") &&
		   strstr(c.out.buf, "nmessage=here\n"),
	   "the warning after it is parsed with function and note");
	ok(st.lines == 8, "lines counted: %lu", st.lines);
	strbuf_release(&c.out);

	/* the same line fed in one piece, and unterminated at the end */
	parse_chunked(&c, &st, log.buf, log.len, log.len, 0);
	ok(st.unparsed == 1 && c.n == 1, "same in one piece");
	strbuf_release(&c.out);
	parse_chunked(&c, &st, line, big, 4096, 0);
	ok(st.unparsed == 1 && c.n == 0,
	   "unterminated 3 MB last line: unparsed, nothing emitted");
	strbuf_release(&c.out);
	strbuf_release(&log);
	free(line);
}

static void test_utf8(void)
{
	static const char log[] =
		"a.c: In function \xe2\x80\x98"
		"f\xff"
		"\xe2\x80\x99:\n"
		"a.c:3:5: warning: bad \xc3( \xed\xa0\x80 \xe2\x80\x98x\xe2\x80"
		"\x99 ok \xc3\xa9 [-Wimplicit-fallthrough=]\n"
		"a.c:4:1: note: here \x01\x7f\n";
	struct collect c;
	struct parse_stats st;

	parse_chunked(&c, &st, log, sizeof(log) - 1, 3, 0);
	ok(c.n == 1 && c.bad_strings == 0, "invalid UTF-8 replaced");
	ok(strstr(c.out.buf, "function=f?\n") != NULL,
	   "UTF-8 quotes stripped from the function name, \\xff replaced");
	ok(strstr(c.out.buf, "message=bad ?( ") != NULL &&
		   strstr(c.out.buf, " 'x' ok \xc3\xa9\n") != NULL,
	   "message: bad bytes replaced, quotes made ASCII, valid UTF-8 kept");
	ok(strstr(c.out.buf, "option=-Wimplicit-fallthrough=\n") != NULL,
	   "option still found");
	strbuf_release(&c.out);
}

static void test_garbage(void)
{
	size_t len = 1 << 20;
	char *buf = xmalloc(len);
	unsigned int seed = 42;
	struct collect c;
	struct parse_stats st;

	for (size_t i = 0; i < len; i++)
		buf[i] = (char)rand_r(&seed);
	/* sprinkle things that look like diagnostics into the noise */
	for (size_t off = 1000; off + 200 < len; off += 9973) {
		static const char *const bits[] = {
			"\na.c:1:2: warning: x [-W",
			"\nIn file included from ",
			"\n   12 | ",
			"\nb.h: In function '",
			"\n  CC [M]  x",
			"\nc.c:3:4: note: here\n",
		};
		const char *b = bits[(off / 9973) % ARRAY_SIZE(bits)];

		memcpy(buf + off, b, strlen(b));
	}
	parse_chunked(&c, &st, buf, len, 0, 7);
	ok(st.lines > 1000, "1 MB of garbage parsed: %lu lines, %lu diags",
	   st.lines, st.diags);
	ok(c.bad_strings == 0, "no invalid UTF-8 or control bytes emitted");
	strbuf_release(&c.out);
	free(buf);
}

static void test_notes(void)
{
	static const char log[] =
		"a.c:4:1: note: here\n"
		"cc1: note: unrecognized command-line option\n";
	struct collect c;
	struct parse_stats st;

	parse_chunked(&c, &st, log, sizeof(log) - 1, 5, 0);
	ok(c.n == 0 && st.orphan_notes == 2,
	   "notes with no diagnostic counted as orphans");
	strbuf_release(&c.out);
}

/* kbuild "CC" lines under a stripped prefix (found by the fuzzer). */
static void test_kbuild_prefix(void)
{
	static const char log[] =
		"  CC      /build/linux/drivers/x.o\n"
		"/build/linux/drivers/x.c: In function 'x_probe':\n"
		"/build/linux/drivers/x.c:7:21: warning: w [-Wfoo]\n"
		"  CC      /build/linux/a.o\n"
		"  CC      /build/linux/.o\n";
	struct collect c = { STRBUF_INIT, 0, 0 };
	struct parser *p = parse_new(collect_emit, &c);

	parse_add_strip_prefix(p, "/build/linux/");
	parse_feed(p, log, sizeof(log) - 1);
	parse_finish(p);
	ok(c.n == 1 && strstr(c.out.buf, "file=drivers/x.c\n") &&
		   strstr(c.out.buf, "object=drivers/x.o\n") &&
		   strstr(c.out.buf, "function=x_probe\n"),
	   "prefix stripped from files and kbuild objects");
	parse_free(p);
	strbuf_release(&c.out);
}

int main(void)
{
	test_chunking();
	test_overlong();
	test_utf8();
	test_garbage();
	test_notes();
	test_kbuild_prefix();
	return tap_done();
}
