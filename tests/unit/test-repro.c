// SPDX-License-Identifier: MIT
/*
 * repro_quote(): every word, however crafted, comes back from /bin/sh as
 * the same single word, and nothing in it runs (the marker it would
 * create lies in this run's own temporary folder).  repro_vars_init(): the
 * make variables read back from builds.flags as the collector writes it
 * (run.c, cc_prepare()), for gcc, clang, a cross gcc, W=1 and a launcher.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "repro.h"
#include "util.h"
#include "tap.h"

/* @P stands for the marker file that a word which ran would create */
static const char *const words[] = {
	"drivers/firewire/core-device.o",
	"drivers/x;touch${IFS}@P;$(id).o",
	"a'b",
	"'",
	"''",
	"$(touch @P)",
	"`touch @P`",
	"a b\tc",
	"line\nbreak",
	"\\",
	"*",
	"~root",
	"!x",
	"a=b c",
	"KCFLAGS=-Wimplicit-fallthrough=3",
	"",
	"#comment",
	"x|y&z>w<v",
	"é",
};

/* WORD with each @P replaced by MARKER. */
static char *with_marker(const char *word, const char *marker)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	while ((p = strstr(word, "@P"))) {
		strbuf_add(&sb, word, (size_t)(p - word));
		strbuf_addstr(&sb, marker);
		word = p + 2;
	}
	strbuf_addstr(&sb, word);
	return strbuf_detach(&sb, NULL);
}

/* The words of FLAGS for TOOLCHAIN, joined by '|'. */
static char *vars(const char *flags, const char *toolchain, int level)
{
	struct repro_vars v;
	struct strbuf sb = STRBUF_INIT;

	repro_vars_init(&v, flags, toolchain, level);
	for (size_t i = 0; i < v.nr; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", v.words[i]);
	ok(v.words[v.nr] == NULL, "the words end in NULL");
	repro_vars_release(&v);
	return strbuf_detach(&sb, NULL);
}

static void check_vars(const char *flags, const char *toolchain, int level,
		       const char *want)
{
	char *got = vars(flags, toolchain, level);

	ok(!strcmp(got, want), "%s, %s: %s (got %s)", flags ? flags : "(null)",
	   toolchain ? toolchain : "(null)", want, got);
	free(got);
}

int main(void)
{
	char dir[] = "/tmp/kwarn-test-repro-XXXXXX";
	char *out, *marker;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	out = xstrfmt("%s/out", dir);
	marker = xstrfmt("%s/p", dir);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		struct strbuf cmd = STRBUF_INIT;
		char *text = NULL, *word = with_marker(words[i], marker);
		size_t len = 0;
		int rc;

		/* one argument, printed between markers, byte for byte */
		strbuf_addstr(&cmd, "printf '<%s>' ");
		repro_quote(&cmd, word);
		strbuf_addstr(&cmd, "; printf '%d' $#; set -- ");
		repro_quote(&cmd, word);
		strbuf_addstr(&cmd, "; printf '%d' $#");
		{
			const char *argv[] = { "sh", "-c", cmd.buf, NULL };

			rc = util_run(argv, NULL, out, "/dev/null");
		}
		util_read_file(&text, &len, out, 1 << 20);
		{
			char *want = xstrfmt("<%s>01", word);

			ok(!rc && text && !strcmp(text, want),
			   "word %zu comes back as itself, one word", i);
			free(want);
		}
		free(text);
		free(word);
		strbuf_release(&cmd);
	}
	{
		struct strbuf sb = STRBUF_INIT;

		repro_quote(&sb, "drivers/firewire/core-device.o");
		ok(!strcmp(sb.buf, "drivers/firewire/core-device.o"),
		   "a plain path is left as it is");
		strbuf_reset(&sb);
		repro_quote(&sb, "CONFIG_CC_IMPLICIT_FALLTHROUGH=");
		ok(!strcmp(sb.buf, "CONFIG_CC_IMPLICIT_FALLTHROUGH="),
		   "an empty make assignment needs no quotes");
		strbuf_reset(&sb);
		repro_quote(&sb, "");
		ok(!strcmp(sb.buf, "''"), "the empty word is ''");
		strbuf_release(&sb);
	}
	check_vars("KCFLAGS=-Wimplicit-fallthrough=3", "gcc", 3,
		   "CC=gcc|KCFLAGS=-Wimplicit-fallthrough=3|"
		   "CONFIG_CC_IMPLICIT_FALLTHROUGH=");
	check_vars("KCFLAGS=-Wimplicit-fallthrough LLVM=-16", "clang-16", 3,
		   "CC=clang-16|KCFLAGS=-Wimplicit-fallthrough|"
		   "CONFIG_CC_IMPLICIT_FALLTHROUGH=|LLVM=-16");
	check_vars(
		"KCFLAGS=-Wimplicit-fallthrough=3 -Wstringop-overflow "
		"-Wno-array-bounds ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
		" W=1 launcher=ccache",
		"gcc-12", 3,
		"CC=aarch64-linux-gnu-gcc-12|KCFLAGS=-Wimplicit-fallthrough=3"
		" -Wstringop-overflow -Wno-array-bounds|"
		"CONFIG_CC_IMPLICIT_FALLTHROUGH=|ARCH=arm64|"
		"CROSS_COMPILE=aarch64-linux-gnu-|W=1");
	check_vars("KCFLAGS=-Wimplicit-fallthrough LLVM=1 ARCH=arm64", "clang",
		   5,
		   "CC=clang|KCFLAGS=-Wimplicit-fallthrough|"
		   "CONFIG_CC_IMPLICIT_FALLTHROUGH=|LLVM=1|ARCH=arm64");
	/* --checker sparse: kbuild's C=1, and no word of kwarn's own */
	check_vars("KCFLAGS=-Wimplicit-fallthrough=3 W=1 launcher=distcc"
		   " checker=sparse",
		   "gcc", 3,
		   "CC=gcc|KCFLAGS=-Wimplicit-fallthrough=3|"
		   "CONFIG_CC_IMPLICIT_FALLTHROUGH=|W=1|C=1");
	check_vars("KCFLAGS=-Wimplicit-fallthrough=3 checker=sparse", "gcc", 3,
		   "CC=gcc|KCFLAGS=-Wimplicit-fallthrough=3|"
		   "CONFIG_CC_IMPLICIT_FALLTHROUGH=|C=1");
	/* a build stored before its flags were: the level, and gcc */
	check_vars(NULL, NULL, 5,
		   "CC=gcc|KCFLAGS=-Wimplicit-fallthrough=5|"
		   "CONFIG_CC_IMPLICIT_FALLTHROUGH=");
	check_vars(NULL, NULL, -1, "CC=gcc|CONFIG_CC_IMPLICIT_FALLTHROUGH=");
	ok(access(marker, F_OK) != 0, "no crafted word ran anything");
	util_rm_rf(dir);
	free(out);
	free(marker);
	return tap_done();
}
