/* SPDX-License-Identifier: MIT */
#ifndef KWARN_BOOT_H
#define KWARN_BOOT_H

/*
 * Booting a built kernel under QEMU and judging the boot (DESIGN.md,
 * "Boot verdict").  initramfs.c packs the init image from Debian's
 * busybox-static and qemu/init; boot.c runs QEMU, reads the serial console
 * as it comes, and turns the log into one verdict: pass, crash, hang,
 * timeout, fail or infra.  A panic can never pass: QEMU exits 0 after a
 * panic too (panic=-1 -no-reboot), so the verdict is read from the log.
 */

#include <stddef.h>
#include <sqlite3.h>

#include "parse.h"

/* initramfs.c */

enum initramfs_variant {
	INITRAMFS_NORMAL, /* /init is the init script */
	INITRAMFS_NO_INIT, /* no /init: the kernel panics (tests) */
	INITRAMFS_SLEEP, /* /init sleeps forever: a hang (tests) */
};

struct initramfs_opts {
	const char *busybox; /* default "/bin/busybox" */
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
	const char *kernel; /* bzImage */
	const char *initramfs; /* NULL: build the default one */
	const char *qemu; /* binary, default "qemu-system-x86_64" */
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

/* One module the init tried to load (its KWARN-MODULE lines). */
struct boot_module {
	char *name; /* file name without .ko: "firewire-core" */
	char status[12]; /* ok fail unfinished (load began, no result) */
	char *message; /* modprobe's (or insmod's) error, or NULL */
};

struct boot_result {
	char verdict[16]; /* pass crash hang timeout fail infra */
	char *reason; /* one line, or NULL for a pass */
	char *fingerprint; /* first lines of a crash's trace, or NULL */
	char *kernel_version; /* from the marker or the banner, or NULL */
	char nonce[33];
	const char *accel; /* "kvm", "tcg", or NULL before QEMU ran */
	long long duration_ms;
	char *log; /* serial output (QEMU's stderr too) */
	size_t log_len;
	/*
	 * Kernel WARNING splats as DIAG_BOOT diagnostics: file, line and
	 * function from the WARNING line, the message without CPU, PID or
	 * addresses so that the identity is stable from boot to boot.
	 */
	struct diag *warnings;
	size_t nr_warnings;
	/*
	 * The modules of a boot with kwarn.modules=1, in the init's order.
	 * A pass needs every one "ok" and the init's "KWARN-MODULE done".
	 */
	struct boot_module *modules;
	size_t nr_modules;
	int modules_done; /* the init said it tried them all */
};

/* The longest serial log kept; more is read and dropped. */
#define BOOT_LOG_MAX (16u << 20)

/*
 * Boot O->kernel under QEMU (KVM when /dev/kvm opens read-write, else
 * TCG) with a fresh nonce and fill *out, which the caller releases with
 * boot_result_release().  Returns 0 whenever a verdict was reached, infra
 * included; -1 only on internal errors (reported).
 */
int boot_run(struct boot_result *out, const struct boot_opts *o);

/*
 * Judge LOG (LEN bytes) of a boot started with NONCE that ended with
 * EXIT_STATUS (QEMU's, 0..255 or 128+signal), TIMED_OUT (total timeout)
 * or SILENT (silence timeout).  Pure.  Fills verdict, reason,
 * fingerprint, kernel_version, nonce, warnings and modules of *out,
 * freeing what those held; leaves the log, accel and duration alone.
 * A boot that would pass is "fail" when a module failed to load, naming
 * it, or when the kernel command line asked for modules and the init
 * never said it was done with them.  Returns 0.
 */
int boot_verdict(struct boot_result *out, const char *log, size_t len,
		 const char *nonce, int exit_status, int timed_out, int silent);

/*
 * Insert a boots row for BUILD_ID from R, the log zlib-compressed, and a
 * boot_modules row per module, and put the boot's id in *out (may be
 * NULL).  Returns 0 or -1 (reported).
 */
int boot_store(long long *out, sqlite3 *db, long long build_id,
	       const struct boot_result *r);

/* Free what R holds and zero it; NULL is fine. */
void boot_result_release(struct boot_result *r);

#endif
