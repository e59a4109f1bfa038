/* SPDX-License-Identifier: MIT */
#ifndef KWARN_ARCH_H
#define KWARN_ARCH_H

#include <stddef.h>

/*
 * The architectures kwarn builds and boots: one table that says, for each,
 * what kbuild is told, which image it makes, and how QEMU boots it.  The
 * name is what users type (--arch) and what the database stores.  x86_64
 * is the host: its make command line carries no ARCH=, so the build keys
 * and parameters of every x86_64 build made before arm64 existed stay
 * valid.
 */

struct arch {
	const char *name; /* "x86_64", "arm64" */
	const char *kbuild; /* ARCH=, or NULL on the host */
	const char *cross; /* gcc's CROSS_COMPILE=, or NULL on the host */
	const char *target; /* make target of the boot image */
	const char *image; /* the boot image, below the build directory */
	const char *qemu; /* QEMU binary */
	const char *machine; /* -M */
	const char *console; /* the serial console for console= */
	const char *cmdline; /* more kernel arguments, or NULL */
	const char *config; /* kwarn's qemu config fragment, in the repo */
	int host; /* 1: KVM can run it here; host busybox and tools */
};

/* The architecture named NAME, or NULL when kwarn does not know it. */
const struct arch *arch_find(const char *name);

/* The host's architecture (x86_64): what a run without --arch builds. */
const struct arch *arch_host(void);

/* "x86_64|arm64", for usage lines and errors. */
const char *arch_names(void);

/*
 * The arch whose boot image IMAGE is (by its path's suffix below the build
 * directory), or NULL.  The length of the build directory's part goes to
 * *dir_len when DIR_LEN is not NULL.
 */
const struct arch *arch_of_image(const char *image, size_t *dir_len);

/*
 * The busybox-static packed into A's initramfs: "/bin/busybox" on the
 * host, else $KWARN_CACHE/busybox/NAME/bin/busybox (scripts/fetch-busybox
 * unpacks it from Debian's package), as a new string.
 */
char *arch_busybox(const struct arch *a);

#endif
