// SPDX-License-Identifier: MIT
/*
 * The compilers kwarn builds with (--cc) and the extra warnings it asks
 * for (--warnings): what each name means on the make command line, and
 * the checks that refuse a bad one before anything is built.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "kwarn.h"
#include "util.h"
#include "banned.h"

/*
 * Debian's packages.  A clang build is an LLVM build, as kbuild documents
 * it: LLVM=1 for the unversioned tools, LLVM=-NN for clang-NN, ld.lld-NN,
 * llvm-ar-NN and the rest; tools[] are what must be installed.
 */
static const struct toolchain toolchains[] = {
	{ "gcc", "gcc", NULL, 0, { "gcc", NULL }, "gcc" },
	{ "gcc-11", "gcc-11", NULL, 0, { "gcc-11", NULL }, "gcc-11" },
	{ "gcc-12", "gcc-12", NULL, 0, { "gcc-12", NULL }, "gcc-12" },
	{ "clang",
	  "clang",
	  "LLVM=1",
	  1,
	  { "clang", "ld.lld", "llvm-ar", "llvm-nm", "llvm-objcopy" },
	  "clang lld llvm" },
	{ "clang-14",
	  "clang-14",
	  "LLVM=-14",
	  1,
	  { "clang-14", "ld.lld-14", "llvm-ar-14", "llvm-nm-14",
	    "llvm-objcopy-14" },
	  "clang-14 lld-14 llvm-14" },
	{ "clang-15",
	  "clang-15",
	  "LLVM=-15",
	  1,
	  { "clang-15", "ld.lld-15", "llvm-ar-15", "llvm-nm-15",
	    "llvm-objcopy-15" },
	  "clang-15 lld-15 llvm-15" },
	{ "clang-16",
	  "clang-16",
	  "LLVM=-16",
	  1,
	  { "clang-16", "ld.lld-16", "llvm-ar-16", "llvm-nm-16",
	    "llvm-objcopy-16" },
	  "clang-16 lld-16 llvm-16" },
};

const struct toolchain *toolchain_default(void)
{
	return &toolchains[0];
}

int toolchain_find(const struct toolchain **out, const char *name)
{
	const struct toolchain *t = NULL;
	struct strbuf known = STRBUF_INIT;

	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(toolchains); i++) {
		if (!strcmp(toolchains[i].name, name))
			t = &toolchains[i];
		strbuf_addf(&known, "%s%s", i ? ", " : "", toolchains[i].name);
	}
	if (!t) {
		error("unknown compiler '%s' (--cc takes %s)", name, known.buf);
		strbuf_release(&known);
		return -1;
	}
	strbuf_release(&known);
	for (size_t i = 0; i < ARRAY_SIZE(t->tools) && t->tools[i]; i++) {
		if (!util_in_path(t->tools[i]))
			return error("compiler '%s' is not installed: no '%s'"
				     " in PATH (apt-get install %s)",
				     name, t->tools[i], t->packages);
	}
	*out = t;
	return 0;
}

char *toolchain_fallthrough_flag(const struct toolchain *t, int level)
{
	/* clang has no levels and takes only the attribute, never a comment */
	if (t->clang)
		return xstrdup("-Wimplicit-fallthrough");
	return xstrfmt("-Wimplicit-fallthrough=%d", level);
}

char *toolchain_cc(const struct toolchain *t, const struct arch *a)
{
	if (t->clang || !a || !a->cross)
		return xstrdup(t->cc);
	return xstrfmt("%s%s", a->cross, t->cc);
}

int toolchain_check_arch(const struct toolchain *t, const struct arch *a)
{
	char *cc, *ld;
	int ret = 0;

	if (t->clang || !a || !a->cross)
		return 0;
	cc = toolchain_cc(t, a);
	ld = xstrfmt("%sld", a->cross);
	if (!util_in_path(cc) || !util_in_path(ld))
		ret = error("no %s compiler for %s: no '%s' in PATH"
			    " (apt-get install %s-%.*s)",
			    t->name, a->name, util_in_path(cc) ? ld : cc, t->cc,
			    (int)strlen(a->cross) - 1, a->cross);
	free(cc);
	free(ld);
	return ret;
}

/* A compiler warning flag: -W then letters, digits, '-', '_', '=', '+'. */
static int is_warning_flag(const char *s)
{
	if (strncmp(s, "-W", 2) || !s[2] || s[2] == '-' || s[2] == '=')
		return 0;
	/* -Wl, -Wa, -Wp pass options to other tools: not warnings */
	if (s[3] == ',' || (s[2] == 'l' && !s[3]))
		return 0;
	for (s += 2; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '=' || *s == '+'))
			return 0;
	}
	return 1;
}

int warnings_parse(struct warn_spec *out, const char *spec)
{
	struct strbuf flags = STRBUF_INIT;
	char levels[4] = "", *copy = xstrdup(spec), *save = NULL;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!*spec) {
		free(copy);
		return error("--warnings is empty");
	}
	for (char *it = strtok_r(copy, ",", &save); it && !ret;
	     it = strtok_r(NULL, ",", &save)) {
		if (!strncmp(it, "W=", 2)) {
			/* kbuild's levels: any of 1, 2, 3 (W=12 is both) */
			const char *d = it + 2;

			if (!*d)
				ret = error("--warnings: '%s' has no level",
					    it);
			for (; *d && !ret; d++) {
				if (*d < '1' || *d > '3')
					ret = error("--warnings: '%s' is not a"
						    " kbuild level (W=1, W=2,"
						    " W=3 or a combination like"
						    " W=12)",
						    it);
				else if (!strchr(levels, *d))
					levels[strlen(levels)] = *d;
			}
		} else if (is_warning_flag(it)) {
			strbuf_addf(&flags, "%s%s", flags.len ? " " : "", it);
		} else {
			ret = error("--warnings: '%s' is neither W=N nor a -W"
				    " warning flag",
				    it);
		}
	}
	free(copy);
	if (ret) {
		strbuf_release(&flags);
		return -1;
	}
	/* sorted: W=21 and W=12 are one build */
	for (int i = 0; levels[i]; i++)
		for (int j = i + 1; levels[j]; j++)
			if (levels[j] < levels[i]) {
				char c = levels[i];

				levels[i] = levels[j];
				levels[j] = c;
			}
	out->w = levels[0] ? xstrfmt("W=%s", levels) : NULL;
	out->kcflags = flags.len ? strbuf_detach(&flags, NULL) : NULL;
	strbuf_release(&flags);
	out->spec = xstrfmt("%s%s%s", out->w ? out->w : "",
			    out->w && out->kcflags ? "," : "",
			    out->kcflags ? out->kcflags : "");
	for (char *p = out->spec; *p; p++)
		if (*p == ' ')
			*p = ',';
	return 0;
}

void warn_spec_release(struct warn_spec *w)
{
	free(w->w);
	free(w->kcflags);
	free(w->spec);
	memset(w, 0, sizeof(*w));
}
