/* SPDX-License-Identifier: MIT */
#ifndef KWARN_BOOT_H
#define KWARN_BOOT_H

/*
 * Booting a built kernel under QEMU and judging the boot (doc/design.md,
 * "The boot verdict").  initramfs.c packs the init image from Debian's
 * busybox-static and qemu/init; boot.c runs QEMU, reads the serial console
 * as it comes, and turns the log into one verdict: pass, crash, hang,
 * timeout, fail or infra.  A panic can never pass: QEMU exits 0 after a
 * panic too (panic=-1 -no-reboot), so the verdict is read from the log.
 */

#include <stddef.h>
#include <sqlite3.h>

#include "bootlog.h"

struct arch;

/* initramfs.c */

enum initramfs_variant {
	INITRAMFS_NORMAL, /* /init is the init script */
	INITRAMFS_NO_INIT, /* no /init: the kernel panics (tests) */
	INITRAMFS_SLEEP, /* /init sleeps forever: a hang (tests) */
};

struct initramfs_opts {
	const char *busybox; /* default "/bin/busybox" */
	const struct arch *arch; /* busybox of this arch (arch_busybox()) */
	const char *init; /* init script; default initramfs_default_init() */
	const char *modules_dir; /* copied as /lib/modules, or NULL */
	enum initramfs_variant variant;
};

/*
 * The path of qemu/init: $KWARN_QEMU_DIR/init, else ../qemu/init next to
 * the running program's directory.  A new string in *out; 0, or -1 with
 * the error reported.
 */
int initramfs_default_init(char **out);

/*
 * Build (or find in the cache) the gzip'd cpio "newc" archive for O and
 * put its path, a new string, in *out.  The archive lives at
 * $KWARN_CACHE/initramfs/<sha256 of the inputs>.cpio.gz, so it is built
 * again whenever busybox, the init script, the variant or a file of the
 * modules directory changes.  Returns 0 or -1 (reported).
 */
int initramfs_build(char **out, const struct initramfs_opts *o);

/* "normal", "no-init", "sleep" into *out; 0, or -1 when unknown. */
int initramfs_parse_variant(enum initramfs_variant *out, const char *s);

/* boot.c */

struct boot_opts {
	const char *kernel; /* the arch's boot image (bzImage, Image) */
	const struct arch *arch; /* NULL: the host's (x86_64) */
	const char *initramfs; /* NULL: build the default one */
	const char *qemu; /* binary, default the arch's (qemu-system-x86_64) */
	/*
	 * Packed as /lib/modules and loaded by the init (kwarn.modules=1),
	 * or NULL: what `make modules_install` put in INSTALL_MOD_PATH's
	 * lib/modules.
	 */
	const char *modules_dir;
	int silence_ms; /* 0: 30 s, 120 s with modules */
	int total_ms; /* 0: 120 s, 900 s with modules */
	int memory_mb; /* 0: 256 MB, 1024 MB with modules */
	const char *extra_append; /* appended to the kernel command line */
	const char *accel; /* "kvm", "tcg", or NULL: KVM when usable */
};

/*
 * Boot O->kernel under QEMU for O->arch (KVM when the arch is the host's
 * and /dev/kvm opens read-write, else TCG) with a fresh nonce and fill *out, which the caller releases with
 * boot_result_release().  Returns 0 whenever a verdict was reached, infra
 * included; -1 only on internal errors (reported).
 */
int boot_run(struct boot_result *out, const struct boot_opts *o);

#endif
