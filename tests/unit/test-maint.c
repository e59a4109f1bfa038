// SPDX-License-Identifier: MIT
/*
 * MAINTAINERS matching: a small file exercising each rule of
 * get_maintainer.pl, then a few files against the real 6.1 MAINTAINERS:
 * $KWARN_MAINTAINERS (tests/10-unit.t takes it out of the packaged
 * tarball), else the pristine tree's in kwarn's cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "tap.h"
#include "util.h"
#include "banned.h"

static const char sample[] = "List of maintainers\n"
			     "\tM: Mail patches to: FullName <address@domain>\n"
			     "\n"
			     "# a comment line\n"
			     "FIREWIRE SUBSYSTEM\n"
			     "M:\tStefan Richter <stefanr@example.org>\n"
			     "S:\tMaintained\n"
			     "F:\tdrivers/firewire/\n"
			     "F:\tinclude/linux/firewire.h\n"
			     "F:\tinclude/uapi/linux/firewire*.h\n"
			     "\n"
			     "NET DRIVERS TOP LEVEL\n"
			     "F:\tdrivers/net/*\n"
			     "X:\tdrivers/net/skip.c\n"
			     "\n"
			     "CODECS\n"
			     "F:\tsound/soc/codecs/da[79]*.[ch]\n"
			     "F:\tdrivers/input/misc/da72??.[ch]\n"
			     "\n"
			     "CAN NETWORK DRIVERS\n"
			     "F:\tdrivers/net/can\n"
			     "\n"
			     "ARM SUB-ARCHITECTURES\n"
			     "N:\tsun[x456789]i\n"
			     "N:\tat91\n"
			     "\n"
			     "THE REST\n"
			     "F:\t*\n"
			     "F:\t*/\n";

static int matches(const struct maint *m, const char *file, const char *name)
{
	long idx = maint_find(m, name);

	return idx >= 0 && maint_entry_matches(m, (size_t)idx, file);
}

static const char *best(const struct maint *m, const char *file)
{
	size_t idx[8];

	if (!maint_match(idx, ARRAY_SIZE(idx), m, file))
		return "";
	return maint_name(m, idx[0]);
}

static void test_sample(void)
{
	struct maint *m = NULL;
	size_t idx[8];

	ok(!maint_parse(&m, sample, strlen(sample)), "sample parses");
	ok(maint_count(m) == 6, "six entries, intro text skipped (got %zu)",
	   maint_count(m));
	ok(maint_find(m, "List of maintainers") < 0, "intro line is no entry");
	ok(maint_find(m, "firewire subsystem") ==
			   maint_find(m, "FIREWIRE SUBSYSTEM") &&
		   maint_find(m, "firewire subsystem") >= 0,
	   "a title in another case finds its entry");
	{
		const char *near[1];
		size_t n = maint_suggest(near, 1, m, "net");

		ok(n == 2 && !strcmp(near[0], "NET DRIVERS TOP LEVEL") &&
			   maint_suggest(near, 1, m, "nothing such") == 0,
		   "the titles that contain 'net': %zu, the first '%s'", n,
		   n ? near[0] : "");
	}
	ok(matches(m, "drivers/firewire/core-device.c", "FIREWIRE SUBSYSTEM"),
	   "directory pattern matches a file in it");
	ok(matches(m, "drivers/firewire/deep/x.c", "FIREWIRE SUBSYSTEM"),
	   "directory pattern matches below it");
	ok(!matches(m, "drivers/firewirex/a.c", "FIREWIRE SUBSYSTEM"),
	   "directory pattern needs the slash");
	ok(matches(m, "include/uapi/linux/firewire-cdev.h",
		   "FIREWIRE SUBSYSTEM"),
	   "glob * within a file name");
	ok(matches(m, "include/linux/firewire.h", "FIREWIRE SUBSYSTEM"),
	   "exact file pattern");
	ok(matches(m, "drivers/net/loopback.c", "NET DRIVERS TOP LEVEL"),
	   "dir/* matches that level");
	ok(!matches(m, "drivers/net/can/dev.c", "NET DRIVERS TOP LEVEL"),
	   "dir/* does not match deeper levels");
	ok(!matches(m, "drivers/net/skip.c", "NET DRIVERS TOP LEVEL"),
	   "X: excludes the entry");
	ok(matches(m, "drivers/net/can/dev/dev.c", "CAN NETWORK DRIVERS"),
	   "directory named without the final slash matches below it");
	ok(!matches(m, "drivers/net/canx.c", "CAN NETWORK DRIVERS"),
	   "directory without slash does not match a longer name");
	ok(matches(m, "sound/soc/codecs/da7219.c", "CODECS") &&
		   matches(m, "sound/soc/codecs/da9055.h", "CODECS") &&
		   !matches(m, "sound/soc/codecs/da8xx.c", "CODECS"),
	   "bracket classes [79] and [ch]");
	ok(matches(m, "drivers/input/misc/da7280.c", "CODECS") &&
		   !matches(m, "drivers/input/misc/da728.c", "CODECS"),
	   "? matches exactly one character");
	ok(matches(m, "arch/arm/mach-sunxi/x.c", "ARM SUB-ARCHITECTURES") &&
		   matches(m, "drivers/tty/serial/atmel_at91.c",
			   "ARM SUB-ARCHITECTURES") &&
		   !matches(m, "drivers/sunzi.c", "ARM SUB-ARCHITECTURES"),
	   "N: regex searched in the path");
	ok(matches(m, "Makefile", "THE REST") &&
		   matches(m, "drivers/firewire/core-device.c", "THE REST"),
	   "THE REST matches everything");
	ok(maint_is_catch_all(m, (size_t)maint_find(m, "THE REST")) &&
		   !maint_is_catch_all(
			   m, (size_t)maint_find(m, "FIREWIRE SUBSYSTEM")) &&
		   !maint_is_catch_all(
			   m, (size_t)maint_find(m, "NET DRIVERS TOP LEVEL")),
	   "THE REST alone is the catch-all");
	ok(!strcmp(best(m, "drivers/firewire/core-device.c"),
		   "FIREWIRE SUBSYSTEM"),
	   "deepest pattern first (got '%s')",
	   best(m, "drivers/firewire/core-device.c"));
	ok(maint_match(idx, ARRAY_SIZE(idx), m, "drivers/net/can/x.c") == 2 &&
		   !strcmp(maint_name(m, idx[0]), "CAN NETWORK DRIVERS") &&
		   !strcmp(maint_name(m, idx[1]), "THE REST"),
	   "all matches counted, in order of depth");
	maint_free(m);
	maint_free(NULL); /* accepts NULL: a crash here fails the binary */
}

/* The checks of test_real(), all skipped when it has no MAINTAINERS. */
#define REAL_CHECKS 9

static void test_real(void)
{
	const char *env = getenv("KWARN_MAINTAINERS");
	char *path = env && *env ? xstrdup(env) :
				   xstrfmt("%s/pristine/linux-source-6.1/"
					   "MAINTAINERS",
					   util_cache_dir());
	static const struct {
		const char *file, *entry;
	} cases[] = {
		{ "drivers/firewire/core-device.c", "FIREWIRE SUBSYSTEM" },
		{ "drivers/net/can/at91_can.c", "CAN NETWORK DRIVERS" },
		{ "drivers/net/can/at91_can.c",
		  "ARM/Microchip (AT91) SoC support" },
		{ "fs/afs/fsclient.c", "AFS FILESYSTEM" },
		{ "kernel/bpf/verifier.c", "BPF [CORE]" },
		{ "drivers/gpu/drm/i915/display/intel_display.c",
		  "INTEL DRM DRIVERS (excluding Poulsbo, Moorestown and "
		  "derivative chipsets)" },
	};
	struct maint *m = NULL;
	char *text = NULL;
	size_t len;
	int parsed;

	if (util_read_file(&text, &len, path, 64 << 20)) {
		/* the file named is a set-up failure, a missing cache a skip */
		if (env && *env)
			tap_not_run(REAL_CHECKS, "read $KWARN_MAINTAINERS");
		else
			for (int i = 0; i < REAL_CHECKS; i++)
				skip("no 6.1 MAINTAINERS at %s", path);
		free(path);
		return;
	}
	parsed = !maint_parse(&m, text, len) && m;
	ok(parsed && maint_count(m) > 2000,
	   "real MAINTAINERS parses into %zu entries",
	   parsed ? maint_count(m) : 0);
	if (!parsed) {
		tap_not_run(REAL_CHECKS - 1, "a file of the real MAINTAINERS");
		goto out;
	}
	ok(!strcmp(best(m, cases[0].file), cases[0].entry),
	   "%s -> %s (got '%s')", cases[0].file, cases[0].entry,
	   best(m, cases[0].file));
	for (size_t i = 1; i < ARRAY_SIZE(cases); i++)
		ok(matches(m, cases[i].file, cases[i].entry), "%s -> %s",
		   cases[i].file, cases[i].entry);
	ok(!matches(m, "drivers/firewire/core-device.c", "AFS FILESYSTEM"),
	   "firewire is not AFS");
	{
		size_t ncatch = 0, last = 0;

		for (size_t i = 0; i < maint_count(m); i++)
			if (maint_is_catch_all(m, i))
				ncatch++, last = i;
		ok(ncatch == 1 && !strcmp(maint_name(m, last), "THE REST"),
		   "one catch-all in the real MAINTAINERS, THE REST (%zu)",
		   ncatch);
	}
out:
	maint_free(m);
	free(text);
	free(path);
}

/* maint_addresses(): M:, R: and L: values in file order, by type */
static void test_addresses(void)
{
	static const char text[] =
		"AFS FILESYSTEM\n"
		"M:\tDavid Howells <dhowells@example.org>\n"
		"R:\tMarc Dionne <marc@example.org>\n"
		"L:\tlinux-afs@example.org (moderated)\n"
		"M:\tSecond Maintainer <second@example.org>\n"
		"S:\tSupported\n"
		"F:\tfs/afs/\n";
	struct maint *m = NULL;
	const char *a[4];
	size_t n;

	maint_parse(&m, text, strlen(text));
	n = maint_addresses(a, ARRAY_SIZE(a), m, 0, "M");
	ok(n == 2 && !strcmp(a[0], "David Howells <dhowells@example.org>") &&
		   !strcmp(a[1], "Second Maintainer <second@example.org>"),
	   "M: values in file order (%zu)", n);
	n = maint_addresses(a, ARRAY_SIZE(a), m, 0, "RL");
	ok(n == 2 && !strcmp(a[0], "Marc Dionne <marc@example.org>") &&
		   !strcmp(a[1], "linux-afs@example.org (moderated)"),
	   "R: and L: values, as written (%zu)", n);
	ok(maint_addresses(a, 1, m, 0, "MRL") == 4,
	   "the count exceeds the room given");
	ok(maint_addresses(a, ARRAY_SIZE(a), m, 5, "M") == 0,
	   "no such entry: none");
	maint_free(m);
}

int main(void)
{
	test_sample();
	test_addresses();
	test_real();
	return tap_done();
}
