// SPDX-License-Identifier: MIT
/*
 * Unit tests of the census scanner: for a small switch, the marker that
 * stands before the second label, its spelling, what lies between, and
 * the levels GCC 12 accepts it at (the gcc agreement test checks the
 * levels against gcc itself; these pin the scanner's other outputs).
 */
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "classify.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

struct scase {
	const char *what;
	const char *between; /* after "r = g(1);", before "case 1:" */
	enum census_marker marker;
	const char *spelling;
	unsigned gap;
	unsigned levels;
};

#define L(a, b, c, d, e) ((a) << 1 | (b) << 2 | (c) << 3 | (d) << 4 | (e) << 5)

static const struct scase cases[] = {
	{ "plain comment", "\t\t/* fall through */\n", CENSUS_MARK_COMMENT,
	  "/* fall through */", 0, L(1, 1, 1, 0, 0) },
	{ "FALLTHRU line comment", "\t\t// FALLTHRU\n", CENSUS_MARK_COMMENT,
	  "// fallthru", 0, L(1, 1, 1, 1, 0) },
	{ "blank line and another comment",
	  "\t\t/* Fall through */\n\n\t\t/* next */\n", CENSUS_MARK_COMMENT,
	  "/* fall through */", CENSUS_GAP_BLANK | CENSUS_GAP_COMMENT,
	  L(1, 1, 1, 0, 0) },
	{ "a statement in between", "\t\t/* fall through */\n\t\tr++;\n",
	  CENSUS_MARK_COMMENT, "/* fall through */", CENSUS_GAP_STATEMENT, 0 },
	{ "a directive in between", "\t\t/* fall through */\n#if 1\n#endif\n",
	  CENSUS_MARK_COMMENT, "/* fall through */", CENSUS_GAP_PREPROC, 0 },
	{ "before a closing brace",
	  "\t\tif (r) {\n\t\t\tr = 2;\n\t\t\t/* fall through */\n\t\t}\n",
	  CENSUS_MARK_COMMENT, "/* fall through */", CENSUS_GAP_BRACE, 0 },
	{ "the kernel's keyword", "\t\tfallthrough;\n", CENSUS_MARK_KEYWORD,
	  "fallthrough;", 0, L(1, 1, 1, 1, 1) },
	{ "the attribute", "\t\t__attribute__((__fallthrough__));\n",
	  CENSUS_MARK_ATTRIBUTE, "__attribute__((__fallthrough__));", 0,
	  L(1, 1, 1, 1, 1) },
	{ "a project macro", "\t\tFALL_THROUGH();\n", CENSUS_MARK_MACRO,
	  "FALL_THROUGH();", 0, 0 },
	{ "an unrelated comment", "\t\t/* done */\n", CENSUS_MARK_NONE, NULL, 0,
	  L(1, 0, 0, 0, 0) },
	{ "a reason after the dash", "\t\t/* fall through - see above */\n",
	  CENSUS_MARK_COMMENT, "/* fall through - ... */", 0,
	  L(1, 1, 1, 0, 0) },
	{ "a marker spliced over two lines: two blanks, not level 3",
	  "\t\t// fall \\\n through\n", CENSUS_MARK_COMMENT, "// fall through",
	  0, L(1, 1, 0, 0, 0) },
	{ "spliced with one blank", "\t\t// fall\\\n through\n",
	  CENSUS_MARK_COMMENT, "// fall through", 0, L(1, 1, 1, 0, 0) },
};

static void test_cases(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct scase *c = &cases[i];
		char *src =
			xstrfmt("int f(int x)\n{\n\tint r = 0;\n"
				"\tswitch (x) {\n\tcase 0:\n\t\tr = g(1);\n"
				"%s\tcase 1:\n\t\tr++;\n\t}\n\treturn r;\n}\n",
				c->between);
		struct census_file f;
		const struct census_label *l;

		census_scan(&f, src, strlen(src));
		if (!ok(f.nr == 2, "%s: two labels (%zu)", c->what, f.nr)) {
			census_file_release(&f);
			free(src);
			continue;
		}
		l = &f.labels[1];
		ok(l->marker == c->marker, "%s: marker %s", c->what,
		   census_marker_name(l->marker));
		ok((!c->spelling && !l->spelling) ||
			   (c->spelling && l->spelling &&
			    !strcmp(c->spelling, l->spelling)),
		   "%s: spelled '%s'", c->what,
		   l->spelling ? l->spelling : "(none)");
		ok(l->gap == c->gap, "%s: gap %#x", c->what, l->gap);
		ok(l->levels == c->levels, "%s: levels %#x", c->what,
		   l->levels);
		census_file_release(&f);
		free(src);
	}
}

static void test_file(void)
{
	static const char src[] =
		"/* case 1: in a comment */\n"
		"const char *s = \"case 2:\";\n"
		"char c = ':';\n"
		"#define SW(x) switch (x) { \\\n"
		"\tcase 3: g(); /* fall through */ \\\n"
		"\tdefault: h(); }\n"
		"int f(int x) { switch (x) { default: return 0; } }\r\n";
	struct census_file f;

	census_scan(&f, src, sizeof(src) - 1);
	ok(f.nr == 3,
	   "labels in comments and strings are none; those of "
	   "a macro body are (%zu)",
	   f.nr);
	ok(f.nr == 3 && f.labels[1].line == 6 && f.labels[1].is_default &&
		   f.labels[1].levels == L(1, 1, 1, 0, 0),
	   "the marker in the macro body counts, on the original line");
	ok(f.nr == 3 && f.labels[2].line == 7, "lines after a splice");
	ok(f.notes & CENSUS_NOTE_CRLF, "CRLF noted");
	ok(f.lines == 7, "7 lines (%ld)", f.lines);
	census_file_release(&f);
	census_file_release(NULL);
}

/* Random C-like pieces: no crash, no read outside (run under ASan too). */
static void test_random(void)
{
	static const char *const piece[] = {
		"case 1:",
		"default:",
		"/*",
		"*/",
		"//",
		"\n",
		"\\\n",
		"\"",
		"'",
		"{",
		"}",
		";",
		"fallthrough;",
		"/* fall through */",
		"x = 1;",
		"x = 2;",
		"f(x, 0);",
		"#define A(x) ",
		"#if 0\n",
		"\r\n",
		"\r",
		"\xff",
		" ",
		"break;",
		"switch (x) {",
		"(",
		")",
		"__attribute__((fallthrough))",
		"return -EINVAL;",
		"else",
		"if (x)",
		"x++;",
		"y = x;",
		"// FALLTHRU",
		"\\",
		"#",
	};
	unsigned long seed = 12345;
	int runs = 3000, labels = 0;

	for (int r = 0; r < runs; r++) {
		struct strbuf sb = STRBUF_INIT;
		struct census_file f;
		struct classify_result res;
		size_t n;

		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		n = (seed >> 33) % 120;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005UL +
			       1442695040888963407UL;
			strbuf_addstr(&sb,
				      piece[(seed >> 33) % ARRAY_SIZE(piece)]);
		}
		if (r % 7 == 0)
			strbuf_addch(&sb, '\0'); /* a NUL byte inside */
		census_scan(&f, sb.buf, sb.len);
		labels += (int)f.nr;
		for (size_t i = 0; i < f.nr && i < 4; i++)
			classify_fallthrough(&res, sb.buf, sb.len,
					     f.labels[i].line - 1,
					     f.labels[i].line);
		census_file_release(&f);
		strbuf_release(&sb);
	}
	ok(labels > 1000, "%d random inputs scanned and classified, %d labels",
	   runs, labels);
}

int main(void)
{
	util_progname = "test-census";
	test_cases();
	test_file();
	test_random();
	return tap_done();
}
