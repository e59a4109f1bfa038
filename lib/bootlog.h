/* SPDX-License-Identifier: MIT */
#ifndef KWARN_BOOTLOG_H
#define KWARN_BOOTLOG_H

/*
 * The boot verdict (doc/design.md, "The boot verdict"): what a QEMU serial
 * log of a kwarn boot says.  pass needs the init's marker with this boot's
 * nonce, a clean exit and no panic, oops, BUG, WARNING or call trace;
 * otherwise crash, hang, timeout, fail or infra.  Pure: the collector runs
 * QEMU (collector/boot.c), the store keeps the result (store_boot()).
 */

#include <stddef.h>

#include "parse.h"

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
 * Set R's verdict to VERDICT (static text, at most 15 characters) with
 * REASON, a malloc'd string R now owns (or NULL), freeing the old one.
 */
void bootlog_set_verdict(struct boot_result *out, const char *verdict,
			 char *reason);

/* Free what R holds and zero it; NULL is fine. */
void boot_result_release(struct boot_result *r);

#endif
