// SPDX-License-Identifier: MIT
/*
 * The architecture table (arch.h).  arm64 boots on QEMU's virt machine
 * with the PL011 console; under TCG here, with -cpu max.
 */
#include <stddef.h>
#include <string.h>

#include "arch.h"
#include "util.h"
#include "banned.h"

static const struct arch arches[] = {
	{
		.name = "x86_64",
		.target = "bzImage",
		.image = "/arch/x86/boot/bzImage",
		.qemu = "qemu-system-x86_64",
		.machine = "pc", /* QEMU's default */
		.console = "ttyS0",
		/*
		 * Under TCG on a loaded host the IO-APIC timer check can
		 * miss its ticks and panic ("IO-APIC + timer doesn't
		 * work!", seen at load 15): the timer is QEMU's, known good.
		 */
		.cmdline = "no_timer_check",
		.config = "kernel/configs/qemu.config",
		.host = 1,
	},
	{
		.name = "arm64",
		.kbuild = "arm64",
		.cross = "aarch64-linux-gnu-",
		.target = "Image",
		.image = "/arch/arm64/boot/Image",
		.qemu = "qemu-system-aarch64",
		.machine = "virt",
		.console = "ttyAMA0",
		.config = "kernel/configs/qemu-arm64.config",
	},
};

const struct arch *arch_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(arches); i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

const struct arch *arch_host(void)
{
	return &arches[0];
}

const char *arch_names(void)
{
	return "x86_64|arm64";
}

const struct arch *arch_of_image(const char *image, size_t *dir_len)
{
	size_t n = image ? strlen(image) : 0;

	for (size_t i = 0; i < ARRAY_SIZE(arches); i++) {
		size_t k = strlen(arches[i].image);

		if (n > k && !strcmp(image + n - k, arches[i].image)) {
			if (dir_len)
				*dir_len = n - k;
			return &arches[i];
		}
	}
	return NULL;
}

char *arch_busybox(const struct arch *a)
{
	if (!a || a->host)
		return xstrdup("/bin/busybox");
	return xstrfmt("%s/busybox/%s/bin/busybox", util_cache_dir(), a->name);
}
