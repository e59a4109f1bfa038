// SPDX-License-Identifier: MIT
/*
 * Boot checks: run a bzImage under QEMU with the project's initramfs, read
 * the serial console as it comes, and judge the log.  The verdict comes
 * from the log and never from QEMU's exit code alone: with panic=-1 and
 * -no-reboot a panic exits 0 just like the init's `reboot -f`.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "arch.h"
#include "boot.h"
#include "db.h"
#include "kwarn.h"
#include "options.h"
#include "query.h"
#include "store.h"
#include "util.h"
#include "banned.h"

#define BOOT_SILENCE_MS 30000
#define BOOT_TOTAL_MS 120000
#define BOOT_MEMORY_MB 256
/*
 * With modules: each one is unpacked, relocated and initialised without
 * a word on the console.  The 40 modules of the campaign config (amdgpu.ko
 * 8 MB, i915.ko 2.5 MB) loaded within a 3 s TCG boot here (README.md,
 * "--full"); the limits leave room for configs with many more modules
 * and for a machine busy with builds.  1 GB holds the unpacked modules.
 */
#define BOOT_MODULES_SILENCE_MS 120000
#define BOOT_MODULES_TOTAL_MS 900000
#define BOOT_MODULES_MEMORY_MB 1024
static void set_infra(struct boot_result *out, char *reason)
{
	bootlog_set_verdict(out, "infra", reason);
}

/* Set once QEMU failed to start under KVM: nested KVM can refuse MSRs. */
static int kvm_broken;

static int kvm_usable(void)
{
	int fd;

	if (kvm_broken)
		return 0;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int make_nonce(char out[33])
{
	unsigned char raw[16];
	size_t got = 0;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error("getrandom: %s", strerror(errno));
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* Start ARGV with stdout and stderr on a pipe; its read end in *fd_out. */
static int spawn_piped(pid_t *pid_out, int *fd_out, const char *const *argv)
{
	struct util_spawn o = { .null_stdin = 1 };
	int fds[2], rc;

	if (pipe2(fds, O_CLOEXEC))
		return error("pipe: %s", strerror(errno));
	o.out_fd = fds[1];
	rc = util_spawn(pid_out, argv, &o);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return -1;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	*fd_out = fds[0];
	return 0;
}

struct qemu_run {
	const char *qemu, *machine, *accel, *kernel, *initramfs, *append;
	char memory[16]; /* -m, in MB */
	int silence_ms, total_ms;
};

/*
 * One QEMU run: read the console until QEMU exits or a timeout kills it,
 * then judge the log into *OUT.  0, or -1 on internal errors (reported).
 */
static int qemu_run(struct boot_result *out, const struct qemu_run *q)
{
	const char *argv[] = {
		q->qemu,      "-nographic",
		"-no-reboot", "-m",
		q->memory,    "-nic",
		"none", /* no NIC: no iPXE option ROM to load */
		"-accel",     q->accel,
		"-cpu",	      !strcmp(q->accel, "kvm") ? "host" : "max",
		"-kernel",    q->kernel,
		"-initrd",    q->initramfs,
		"-append",    q->append,
		"-M",	      q->machine,
		NULL,
	};
	struct strbuf log = STRBUF_INIT;
	int fd = -1, status = 0, timed_out = 0, silent = 0, ret = -1;
	int64_t start, last, now;
	pid_t pid = -1;

	out->accel = q->accel;
	start = util_now_ms();
	if (spawn_piped(&pid, &fd, argv))
		goto out;

	last = start;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int64_t wait;
		char buf[65536];
		ssize_t n;

		now = util_now_ms();
		if (now - start >= q->total_ms) {
			timed_out = 1;
			break;
		}
		if (now - last >= q->silence_ms) {
			silent = 1;
			break;
		}
		wait = q->total_ms - (now - start);
		if (q->silence_ms - (now - last) < wait)
			wait = q->silence_ms - (now - last);
		if (poll(&pfd, 1, (int)wait) < 0 && errno != EINTR) {
			error("poll: %s", strerror(errno));
			goto out_kill;
		}
		n = read(fd, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			error("cannot read from '%s': %s", q->qemu,
			      strerror(errno));
			goto out_kill;
		}
		last = util_now_ms();
		if (log.len < BOOT_LOG_MAX) {
			size_t keep = (size_t)n;

			if (keep > BOOT_LOG_MAX - log.len)
				keep = BOOT_LOG_MAX - log.len;
			strbuf_add(&log, buf, keep);
		}
	}
	if (timed_out || silent)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			error("waitpid '%s': %s", q->qemu, strerror(errno));
			goto out;
		}
	}
	out->duration_ms = util_now_ms() - start;
	status = WIFEXITED(status) ? WEXITSTATUS(status) :
				     128 + WTERMSIG(status);
	boot_verdict(out, log.buf, log.len, out->nonce, status, timed_out,
		     silent);
	free(out->log);
	out->log = strbuf_detach(&log, &out->log_len);
	ret = 0;
	goto out;
out_kill:
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&log);
	return ret;
}

int boot_run(struct boot_result *out, const struct boot_opts *o)
{
	struct strbuf append = STRBUF_INIT;
	struct qemu_run q = { 0 };
	const struct arch *arch;
	char *initramfs = NULL;
	int ret = -1, auto_accel;
	struct stat st;

	memset(out, 0, sizeof(*out));
	arch = o->arch ? o->arch : arch_host();
	q.qemu = o->qemu ? o->qemu : arch->qemu;
	q.machine = arch->machine;
	q.silence_ms = o->silence_ms > 0 ? o->silence_ms :
		       o->modules_dir	 ? BOOT_MODULES_SILENCE_MS :
					   BOOT_SILENCE_MS;
	q.total_ms = o->total_ms > 0 ? o->total_ms :
		     o->modules_dir  ? BOOT_MODULES_TOTAL_MS :
				       BOOT_TOTAL_MS;
	snprintf(q.memory, sizeof(q.memory), "%d",
		 o->memory_mb > 0 ? o->memory_mb :
		 o->modules_dir	  ? BOOT_MODULES_MEMORY_MB :
				    BOOT_MEMORY_MB);
	q.kernel = o->kernel;
	if (make_nonce(out->nonce))
		goto out;
	ret = 0;
	if (!o->kernel || stat(o->kernel, &st) || !S_ISREG(st.st_mode) ||
	    access(o->kernel, R_OK)) {
		set_infra(out, xstrfmt("no kernel image '%s'",
				       o->kernel ? o->kernel : "(none)"));
		goto out;
	}
	if (!util_in_path(q.qemu)) {
		set_infra(out, xstrfmt("no QEMU binary '%s'", q.qemu));
		goto out;
	}
	if (o->initramfs) {
		if (access(o->initramfs, R_OK)) {
			set_infra(out,
				  xstrfmt("no initramfs '%s'", o->initramfs));
			goto out;
		}
		initramfs = xstrdup(o->initramfs);
	} else {
		struct initramfs_opts io = { 0 };

		io.modules_dir = o->modules_dir;
		io.arch = arch;
		if (initramfs_build(&initramfs, &io)) {
			set_infra(out, xstrdup("cannot build the initramfs"));
			goto out;
		}
	}
	q.initramfs = initramfs;

	strbuf_addf(&append, "console=%s panic=-1 kwarn.nonce=%s",
		    arch->console, out->nonce);
	if (arch->cmdline)
		strbuf_addf(&append, " %s", arch->cmdline);
	if (o->modules_dir)
		strbuf_addstr(&append, " kwarn.modules=1");
	if (o->extra_append && *o->extra_append)
		strbuf_addf(&append, " %s", o->extra_append);
	q.append = append.buf;

	auto_accel = !o->accel || !*o->accel;
	if (!auto_accel)
		q.accel = !strcmp(o->accel, "kvm") ? "kvm" : "tcg";
	else
		q.accel = arch->host && kvm_usable() ? "kvm" : "tcg";
	ret = qemu_run(out, &q);
	if (!ret && auto_accel && !strcmp(q.accel, "kvm") &&
	    !strcmp(out->verdict, "infra") && out->log_len) {
		/* QEMU died under KVM before the kernel ran: use TCG */
		kvm_broken = 1;
		q.accel = "tcg";
		ret = qemu_run(out, &q);
	}
out:
	strbuf_release(&append);
	free(initramfs);
	return ret;
}

static const char *const boot_usage[] = {
	"kwarn boot --kernel IMAGE [--arch x86_64|arm64] [--initramfs FILE]",
	"           [--qemu BIN]",
	"           [--silence S] [--timeout S] [--modules DIR] [--memory MB]",
	"           [--accel kvm|tcg] [--init FILE] [--variant V] [--log FILE]",
	"kwarn boot --db FILE --build ID [options]",
	NULL,
};

static const char *const accels[] = { "kvm", "tcg", NULL };
static const char *const variants[] = { "normal", "no-init", "sleep", NULL };

int cmd_boot(int argc, char **argv)
{
	struct boot_opts bo = { 0 };
	struct boot_result r = { 0 };
	struct initramfs_opts io = { 0 };
	const char *dbpath = NULL, *logpath = NULL, *init = NULL;
	const char *variant = NULL, *arch = NULL;
	char *image = NULL, *initramfs = NULL;
	long build = -1, silence = 0, timeout = 0, memory = 0;
	long long boot_id = -1;
	int argi, rc, custom = 0, ret = 2;
	sqlite3 *db = NULL;
	const struct opt opts[] = {
		OPT_STRING(0, "kernel", &bo.kernel, "IMAGE", "the kernel"),
		OPT_STRING(0, "arch", &arch, "ARCH",
			   "x86_64 or arm64 (default: the image's)"),
		OPT_STRING(0, "initramfs", &bo.initramfs, "FILE",
			   "the initramfs (default: busybox and qemu/init)"),
		OPT_STRING(0, "qemu", &bo.qemu, "BIN",
			   "QEMU (default: the arch's, qemu-system-x86_64)"),
		OPT_LONG(0, "silence", &silence, "S",
			 "a hang after S seconds without output", 1, 86400),
		OPT_LONG(0, "timeout", &timeout, "S", "at most S seconds", 1,
			 86400),
		OPT_STRING(0, "modules", &bo.modules_dir, "DIR",
			   "a lib/modules to pack and load"),
		OPT_LONG(0, "memory", &memory, "MB", "guest memory", 64, 65536),
		OPT_CHOICE(0, "accel", &bo.accel, "A",
			   "accelerator (default: KVM when usable)", accels),
		OPT_STRING(0, "init", &init, "FILE", "another init script"),
		OPT_CHOICE(0, "variant", &variant, "V",
			   "initramfs variant (tests)", variants),
		OPT_STRING(0, "log", &logpath, "FILE", "write the serial log"),
		OPT_STRING(0, "db", &dbpath, "FILE",
			   "boot a stored build and store the boot"),
		OPT_LONG(0, "build", &build, "ID", "the build, with --db", 1,
			 1L << 40),
		OPT_END,
	};

	rc = opt_parse(&argi, argc, argv, opts, boot_usage);
	if (rc)
		return rc > 0 ? 0 : 2;
	bo.silence_ms = (int)silence * 1000;
	bo.total_ms = (int)timeout * 1000;
	bo.memory_mb = (int)memory;
	custom = init || variant;
	if (variant)
		initramfs_parse_variant(&io.variant, variant);
	if (argi != argc || (!dbpath != (build < 0)) ||
	    (!dbpath && !bo.kernel) || (dbpath && bo.kernel) ||
	    (custom && bo.initramfs)) {
		opt_usage(stderr, opts, boot_usage);
		goto out;
	}
	if (arch && !(bo.arch = arch_find(arch))) {
		error("unknown architecture '%s' (%s)", arch, arch_names());
		goto out;
	}
	ret = 1;
	if (dbpath) {
		if (db_open(&db, dbpath, DB_READ_WRITE) ||
		    query_build_image(&image, db, build))
			goto out;
		/* a build without an image is stored as an infra verdict */
		bo.kernel = image;
	}
	/* an arm64 Image is booted as one: B/arch/arm64/boot/Image */
	if (!bo.arch)
		bo.arch = arch_of_image(bo.kernel, NULL);
	if (custom) {
		io.arch = bo.arch;
		io.init = init;
		io.modules_dir = bo.modules_dir;
		if (initramfs_build(&initramfs, &io))
			goto out;
		bo.initramfs = initramfs;
	}
	if (boot_run(&r, &bo))
		goto out;
	if (logpath && r.log && util_write_file(logpath, r.log, r.log_len))
		goto out;
	if (db && store_boot(&boot_id, db, build, &r))
		goto out;
	printf("%s %.1f s %s (%s)", r.verdict, (double)r.duration_ms / 1000,
	       r.kernel_version ? r.kernel_version : "-",
	       r.accel ? r.accel : "-");
	if (r.reason)
		printf(": %s", r.reason);
	putchar('\n');
	if (r.fingerprint)
		printf("fingerprint:\n%s\n", r.fingerprint);
	if (r.nr_modules || bo.modules_dir) {
		size_t nok = 0;

		for (size_t i = 0; i < r.nr_modules; i++)
			nok += !strcmp(r.modules[i].status, "ok");
		printf("modules: %zu ok, %zu not%s\n", nok, r.nr_modules - nok,
		       r.modules_done ? "" : " (unfinished)");
		for (size_t i = 0; i < r.nr_modules; i++)
			if (strcmp(r.modules[i].status, "ok"))
				printf("module %s %s%s%s\n",
				       r.modules[i].status, r.modules[i].name,
				       r.modules[i].message ? ": " : "",
				       r.modules[i].message ?
					       r.modules[i].message :
					       "");
	}
	for (size_t i = 0; i < r.nr_warnings; i++)
		printf("boot warning: %s:%ld: %s: %s\n",
		       r.warnings[i].file ? r.warnings[i].file : "-",
		       r.warnings[i].line,
		       r.warnings[i].function ? r.warnings[i].function : "-",
		       r.warnings[i].message);
	if (boot_id >= 0)
		printf("stored boot %lld of build %ld\n", boot_id, build);
	ret = strcmp(r.verdict, "pass") ? 1 : 0;
out:
	boot_result_release(&r);
	db_close(db);
	free(image);
	free(initramfs);
	return ret;
}
