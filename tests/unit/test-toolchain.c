// SPDX-License-Identifier: MIT
/*
 * Unit tests of collector/toolchain.c and ident_site_key(): what --warnings
 * accepts and makes of it, the fall-through flag per compiler, the refusal
 * of an unknown --cc, and the site gcc and clang share for one fall-through
 * (their diagnostics as the parser reads the captures of a real gcc 12 and
 * clang 16 build of tests/data/campaign's patch 1).
 */
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "kwarn.h"
#include "parse.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

static const struct {
	const char *spec;
	int rc;
	const char *w, *kcflags, *canon; /* NULL: none */
} spec_cases[] = {
	{ "W=1", 0, "W=1", NULL, "W=1" },
	{ "W=21", 0, "W=12", NULL, "W=12" },
	{ "W=1,W=2", 0, "W=12", NULL, "W=12" },
	{ "W=3,-Wmissing-prototypes", 0, "W=3", "-Wmissing-prototypes",
	  "W=3,-Wmissing-prototypes" },
	{ "-Wstringop-overflow,-Wno-unused-but-set-variable", 0, NULL,
	  "-Wstringop-overflow -Wno-unused-but-set-variable",
	  "-Wstringop-overflow,-Wno-unused-but-set-variable" },
	{ "-Warray-bounds=2", 0, NULL, "-Warray-bounds=2", "-Warray-bounds=2" },
	{ "W=4", -1, NULL, NULL, NULL },
	{ "W=", -1, NULL, NULL, NULL },
	{ "W=e", -1, NULL, NULL, NULL },
	{ "-O2", -1, NULL, NULL, NULL },
	{ "-Wl,--oops", -1, NULL, NULL, NULL },
	{ "-W", -1, NULL, NULL, NULL },
	{ "-Wfoo;rm", -1, NULL, NULL, NULL },
	{ "W=1,,", 0, "W=1", NULL, "W=1" },
	{ "", -1, NULL, NULL, NULL },
};

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Parse LOG (one compiler's stderr) and keep its first warning in OUT. */
struct first {
	char *site;
};

static void keep_first(void *ctx, const struct diag *d)
{
	struct first *f = ctx;

	if (!f->site && d->kind == DIAG_WARNING)
		f->site = ident_site_key(d);
}

static char *site_of(const char *log, const char *function)
{
	struct first f = { NULL };
	struct parser *p = parse_new(keep_first, &f);

	parse_set_single_stream(p);
	parse_feed(p, log, strlen(log));
	parse_finish(p);
	parse_free(p);
	/* clang prints no function: kwarn run finds it in the source */
	if (f.site && function && strstr(f.site, "||")) {
		char *bar = strstr(f.site, "||");
		char *s = xstrfmt("%.*s|%s|%s", (int)(bar - f.site), f.site,
				  function, bar + 2);

		free(f.site);
		f.site = s;
	}
	return f.site;
}

int main(void)
{
	const struct toolchain *t = NULL;
	char *s, *g, *c;

	for (size_t i = 0; i < ARRAY_SIZE(spec_cases); i++) {
		struct warn_spec w;
		int rc = warnings_parse(&w, spec_cases[i].spec);

		ok(rc == spec_cases[i].rc && same(w.w, spec_cases[i].w) &&
			   same(w.kcflags, spec_cases[i].kcflags) &&
			   same(w.spec, spec_cases[i].canon),
		   "--warnings '%s': rc %d, W '%s', KCFLAGS '%s', spec '%s'",
		   spec_cases[i].spec, rc, w.w ? w.w : "-",
		   w.kcflags ? w.kcflags : "-", w.spec ? w.spec : "-");
		warn_spec_release(&w);
	}
	ok(toolchain_find(&t, "icc") == -1 && !t, "--cc icc is refused");
	ok(toolchain_find(&t, "gcc") == 0 && t == toolchain_default(),
	   "--cc gcc is the default compiler");
	s = toolchain_fallthrough_flag(toolchain_default(), 3);
	ok(!strcmp(s, "-Wimplicit-fallthrough=3"), "gcc gets the level (%s)",
	   s);
	free(s);
	if (toolchain_find(&t, "clang-16") == 0) {
		s = toolchain_fallthrough_flag(t, 3);
		ok(!strcmp(s, "-Wimplicit-fallthrough") && t->clang &&
			   !strcmp(t->llvm, "LLVM=-16"),
		   "clang-16: %s, no level, LLVM=-16", s);
		free(s);
	} else {
		skip("clang-16 is not installed");
	}

	/*
	 * gcc 12 and clang 16 on the missing break of tests/data/campaign's
	 * patch 1 (kwarn-cc's captures, the tree root stripped)
	 */
	g = site_of(
		"kernel/panic.c: In function \xe2\x80\x98kwarn_campaign_switch"
		"\xe2\x80\x99:\n"
		"kernel/panic.c:831:21: warning: this statement may fall"
		" through [-Wimplicit-fallthrough=]\n"
		"  831 |                 ret = -1;\n"
		"      |                 ~~~~^~~~\n"
		"kernel/panic.c:832:9: note: here\n"
		"  832 |         case 3:\n"
		"      |         ^~~~\n",
		NULL);
	c = site_of("kernel/panic.c:832:2: warning: unannotated fall-through"
		    " between switch labels [-Wimplicit-fallthrough]\n"
		    "        case 3:\n"
		    "        ^\n"
		    "kernel/panic.c:832:2: note: insert"
		    " '__attribute__((fallthrough));' to silence this warning\n"
		    "        case 3:\n"
		    "        ^\n"
		    "        __attribute__((fallthrough)); \n"
		    "kernel/panic.c:832:2: note: insert 'break;' to avoid"
		    " fall-through\n"
		    "        case 3:\n"
		    "        ^\n"
		    "        break; \n"
		    "1 warning generated.\n",
		    "kwarn_campaign_switch");
	ok(g && !strcmp(g, "kernel/panic.c|kwarn_campaign_switch|"
			   "-Wimplicit-fallthrough|case 3:"),
	   "gcc's site: the label it notes (%s)", g ? g : "none");
	ok(g && c && !strcmp(g, c), "clang's site is gcc's (%s)",
	   c ? c : "none");
	free(g);
	free(c);

	/*
	 * A falling macro from a header (tests/data/sites/generate: real
	 * gcc 12 and clang 16 logs): gcc warns in reg.h and notes the label
	 * in dccg.c, clang warns on that label; one site, in the .c file.
	 */
	g = c = NULL;
	if (!util_read_file(&s, NULL, "tests/data/sites/macro-header.gcc.log",
			    1 << 20)) {
		g = site_of(s, NULL);
		free(s);
	}
	if (!util_read_file(&s, NULL, "tests/data/sites/macro-header.clang.log",
			    1 << 20)) {
		c = site_of(s, "dccg_init");
		free(s);
	}
	ok(g && !strcmp(g, "dccg.c|dccg_init|-Wimplicit-fallthrough|case 4:"),
	   "gcc's site of a header macro's fall-through is the label's file"
	   " (%s)",
	   g ? g : "none");
	ok(g && c && !strcmp(g, c), "clang's site is gcc's there too (%s)",
	   c ? c : "none");
	free(g);
	free(c);
	return tap_done();
}
