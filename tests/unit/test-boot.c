// SPDX-License-Identifier: MIT
/*
 * Unit tests of the boot verdict and the initramfs builder.
 *
 * boot_verdict() cases are data (tests/data/boot/NAME.expected beside the
 * real serial logs they name): a clean boot passes; a marker followed by
 * a panic is a crash although QEMU exited 0; a stale nonce is a fail; a
 * WARNING splat is a crash with a fingerprint and one DIAG_BOOT warning
 * whose identity does not change with CPU, PID, offsets or printk times.
 * The initramfs is unpacked again to check what the kernel will find.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "boot.h"
#include "ident.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

#define DATA "tests/data/boot"

static const char *str_or(const char *s)
{
	return s ? s : "(null)";
}

/* "a\nb" in an expectation is a newline. */
static char *unescape(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'n') {
			strbuf_addch(&sb, '\n');
			s++;
		} else {
			strbuf_addch(&sb, *s);
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* "module NAME STATUS" or "module_message NAME MESSAGE" against R. */
static void check_module(const char *name, const struct boot_result *r,
			 const char *key, const char *v)
{
	const char *sp = strchr(v, ' ');
	const struct boot_module *m = NULL;
	size_t n = sp ? (size_t)(sp - v) : strlen(v);

	for (size_t i = 0; i < r->nr_modules; i++)
		if (strlen(r->modules[i].name) == n &&
		    !strncmp(r->modules[i].name, v, n))
			m = &r->modules[i];
	if (!strcmp(key, "module"))
		ok(m && sp && !strcmp(m->status, sp + 1),
		   "%s: module %.*s is %s", name, (int)n, v,
		   m ? m->status : "missing");
	else
		ok(m && sp && m->message && !strcmp(m->message, sp + 1),
		   "%s: module %.*s says '%s'", name, (int)n, v,
		   m ? str_or(m->message) : "-");
}

static void check_expectation(const char *name, const struct boot_result *r,
			      const char *key, const char *val)
{
	const struct diag *w = r->nr_warnings ? &r->warnings[0] : NULL;
	char *v = unescape(val);

	if (!strcmp(key, "verdict"))
		ok(!strcmp(r->verdict, v), "%s: verdict '%s' (want '%s')", name,
		   r->verdict, v);
	else if (!strcmp(key, "reason"))
		ok(r->reason && !strcmp(r->reason, v), "%s: reason '%s'", name,
		   str_or(r->reason));
	else if (!strcmp(key, "modules"))
		ok(r->nr_modules == strtoul(v, NULL, 10),
		   "%s: %zu modules (want %s)", name, r->nr_modules, v);
	else if (!strcmp(key, "modules_done"))
		ok(r->modules_done == (int)strtol(v, NULL, 10),
		   "%s: modules_done %d (want %s)", name, r->modules_done, v);
	else if (!strcmp(key, "module") || !strcmp(key, "module_message"))
		check_module(name, r, key, v);
	else if (!strcmp(key, "reason~"))
		ok(r->reason && strstr(r->reason, v),
		   "%s: reason '%s' has '%s'", name, str_or(r->reason), v);
	else if (!strcmp(key, "fingerprint~"))
		ok(r->fingerprint && strstr(r->fingerprint, v),
		   "%s: fingerprint has '%s'", name, v);
	else if (!strcmp(key, "fingerprint") && !strcmp(v, "none"))
		ok(!r->fingerprint, "%s: no fingerprint", name);
	else if (!strcmp(key, "kernel_version"))
		ok(r->kernel_version && !strcmp(r->kernel_version, v),
		   "%s: kernel version '%s'", name, str_or(r->kernel_version));
	else if (!strcmp(key, "warnings"))
		ok(r->nr_warnings == strtoul(v, NULL, 10),
		   "%s: %zu warnings (want %s)", name, r->nr_warnings, v);
	else if (!strcmp(key, "warning.file"))
		ok(w && w->file && !strcmp(w->file, v), "%s: warning file '%s'",
		   name, w ? str_or(w->file) : "-");
	else if (!strcmp(key, "warning.line"))
		ok(w && w->line == strtol(v, NULL, 10), "%s: warning line %ld",
		   name, w ? w->line : -1);
	else if (!strcmp(key, "warning.function"))
		ok(w && w->function && !strcmp(w->function, v),
		   "%s: warning function '%s'", name,
		   w ? str_or(w->function) : "-");
	else if (!strcmp(key, "warning.message"))
		ok(w && w->kind == DIAG_BOOT && !strcmp(w->message, v),
		   "%s: DIAG_BOOT warning message '%s'", name,
		   w ? w->message : "-");
	else
		ok(0, "%s: unknown expectation '%s'", name, key);
	free(v);
}

static int is_input(const char *key)
{
	return !strcmp(key, "log") || !strcmp(key, "nonce") ||
	       !strcmp(key, "exit") || !strcmp(key, "timed_out") ||
	       !strcmp(key, "silent");
}

/*
 * Run one NAME.expected case: "key value" lines, inputs first read, then
 * every other line checked against the verdict.
 */
static void run_case(const char *name)
{
	char *path = xstrfmt(DATA "/%s.expected", name);
	char *text = NULL, *log = NULL, *logname = xstrfmt("%s.log", name);
	const char *nonce = "";
	int exit_status = 0, timed_out = 0, silent = 0;
	struct boot_result r = { 0 };
	char **keys = NULL, **vals = NULL;
	size_t loglen = 0, nr = 0;

	if (util_read_file(&text, NULL, path, 1 << 20)) {
		ok(0, "%s: read %s", name, path);
		goto out;
	}
	for (char *line = text, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n'), *sp;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		sp = strchr(line, ' ');
		if (*line == '#' || !sp)
			continue;
		*sp = '\0';
		keys = xrealloc(keys, (nr + 1) * sizeof(*keys));
		vals = xrealloc(vals, (nr + 1) * sizeof(*vals));
		keys[nr] = line;
		vals[nr++] = sp + 1;
	}
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(keys[i], "log")) {
			free(logname);
			logname = xstrdup(vals[i]);
		} else if (!strcmp(keys[i], "nonce")) {
			nonce = vals[i];
		} else if (!strcmp(keys[i], "exit")) {
			exit_status = (int)strtol(vals[i], NULL, 10);
		} else if (!strcmp(keys[i], "timed_out")) {
			timed_out = (int)strtol(vals[i], NULL, 10);
		} else if (!strcmp(keys[i], "silent")) {
			silent = (int)strtol(vals[i], NULL, 10);
		}
	}
	free(path);
	path = xstrfmt(DATA "/%s", logname);
	if (util_read_file(&log, &loglen, path, 16 << 20)) {
		ok(0, "%s: read %s", name, path);
		goto out;
	}
	boot_verdict(&r, log, loglen, nonce, exit_status, timed_out, silent);
	ok(!strcmp(r.nonce, nonce), "%s: nonce kept", name);
	for (size_t i = 0; i < nr; i++)
		if (!is_input(keys[i]))
			check_expectation(name, &r, keys[i], vals[i]);
out:
	boot_result_release(&r);
	free(keys);
	free(vals);
	free(text);
	free(log);
	free(logname);
	free(path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_cases(void)
{
	DIR *d = opendir(DATA);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0;

	if (!ok(d != NULL, "open " DATA " (run from the top directory)"))
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n > 9 && !strcmp(de->d_name + n - 9, ".expected")) {
			names = xrealloc(names, (nr + 1) * sizeof(*names));
			names[nr++] = xstrndup(de->d_name, n - 9);
		}
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), cmp_str);
	ok(nr >= 10, "%zu verdict cases", nr);
	for (size_t i = 0; i < nr; i++) {
		run_case(names[i]);
		free(names[i]);
	}
	free(names);
}

static int judge_file(struct boot_result *r, const char *file,
		      const char *nonce)
{
	char *path = xstrfmt(DATA "/%s", file), *log = NULL;
	size_t len;
	int ret = util_read_file(&log, &len, path, 16 << 20);

	if (!ret)
		boot_verdict(r, log, len, nonce, 0, 0, 0);
	free(log);
	free(path);
	return ret;
}

static void key_hash(unsigned char out[32], const struct diag *d)
{
	struct ident_key k;

	ident_key_from_diag(&k, d);
	ident_key_hash(out, &k);
	ident_key_release(&k);
}

/* The same WARNING on two boots has one identity. */
static void test_warning_identity(void)
{
	const char *nonce = "c0ffbdb3cfbef9b481be9a9d83b17d29";
	struct boot_result a = { 0 }, b = { 0 };
	unsigned char ha[32], hb[32];

	if (!ok(!judge_file(&a, "warning.log", nonce) &&
			!judge_file(&b, "warning-other-boot.log", nonce) &&
			a.nr_warnings == 1 && b.nr_warnings == 1,
		"both warning logs give one warning"))
		goto out;
	key_hash(ha, &a.warnings[0]);
	key_hash(hb, &b.warnings[0]);
	ok(!memcmp(ha, hb, sizeof(ha)),
	   "a boot WARNING keeps its identity across CPU, PID, offsets, times");
	ok(!strcmp(a.fingerprint, b.fingerprint),
	   "and its crash fingerprint too");
out:
	boot_result_release(&a);
	boot_result_release(&b);
}

/* Synthetic edge cases that need no log file. */
static void test_inline(void)
{
	static const char dmesg_only[] =
		"Linux version 6.1.192 (x) #1\n"
		"KWARN-BOOT-OK nonce=abc version=6.1.192\r\n"
		"KWARN-DMESG [    2.5] WARNING: CPU: 0 PID: 1 at fs/x.c:12 "
		"f_x+0x1/0x2 [mod_x]\n"
		"reboot: Restarting system\n";
	static const char nosyms[] =
		"Linux version 6.1.192 (x) #1\n"
		"WARNING: CPU: 0 PID: 1 at mm/y.c:91 0xffffffff81144fc9\n"
		"KWARN-BOOT-OK nonce=abc version=6.1.192\r\n";
	static const char clean[] =
		"Linux version 6.1.192 (x) #1\n"
		"KWARN-BOOT-OK nonce=abc version=6.1.192\r\n"
		"reboot: Restarting system\n";
	struct boot_result r = { 0 };

	boot_verdict(&r, dmesg_only, strlen(dmesg_only), "abc", 0, 0, 0);
	ok(!strcmp(r.verdict, "crash"),
	   "a warning found only by the init's "
	   "dmesg scan is a crash (%s)",
	   r.verdict);
	ok(r.nr_warnings == 1 && r.warnings[0].file &&
		   !strcmp(r.warnings[0].file, "fs/x.c") &&
		   r.warnings[0].line == 12 &&
		   !strcmp(str_or(r.warnings[0].function), "f_x"),
	   "and its file, line and function are read");
	boot_verdict(&r, nosyms, strlen(nosyms), "abc", 0, 0, 0);
	ok(!strcmp(r.verdict, "crash") && r.nr_warnings == 1 &&
		   !r.warnings[0].function && r.warnings[0].line == 91 &&
		   !strcmp(str_or(r.warnings[0].file), "mm/y.c") &&
		   !strstr(r.warnings[0].message, "ffff"),
	   "without kallsyms a warning has file and line, no address");
	boot_verdict(&r, clean, strlen(clean), "abc", 0, 0, 0);
	ok(!strcmp(r.verdict, "pass") && r.nr_warnings == 0 && !r.reason,
	   "judging again resets the result (%s)", r.verdict);
	boot_verdict(&r, clean, strlen(clean), "abc", 1, 0, 0);
	ok(!strcmp(r.verdict, "fail"),
	   "the marker with a non-zero exit is "
	   "a fail (%s)",
	   r.verdict);
	boot_verdict(&r, clean, strlen(clean), "abc", 0, 0, 1);
	ok(!strcmp(r.verdict, "hang"), "silence after the marker is a hang");
	boot_verdict(&r, clean, strlen(clean), "", 0, 0, 0);
	ok(strcmp(r.verdict, "pass"), "no nonce never passes (%s)", r.verdict);
	boot_verdict(&r, NULL, 0, "abc", 0, 0, 0);
	ok(!strcmp(r.verdict, "fail"), "an empty log with exit 0 is a fail");
	boot_verdict(&r, clean, strlen(clean) - 30, "abc", 0, 0, 0);
	ok(!strcmp(r.verdict, "pass"), "an unterminated last line is read");
	boot_result_release(&r);
}

/* The names of the newc entries of a .cpio.gz, and /init's content. */
static int list_cpio(struct strbuf *names, char **init, const char *path)
{
	struct strbuf raw = STRBUF_INIT;
	gzFile gz = gzopen(path, "rb");
	char buf[65536];
	size_t off = 0;
	int n, ret = -1;

	*init = NULL;
	if (!gz)
		return -1;
	while ((n = gzread(gz, buf, sizeof(buf))) > 0)
		strbuf_add(&raw, buf, (size_t)n);
	gzclose(gz);
	while (off + 110 <= raw.len) {
		char field[9] = { 0 };
		unsigned long namesize, filesize;
		const char *name;

		if (memcmp(raw.buf + off, "070701", 6))
			goto out;
		memcpy(field, raw.buf + off + 6 + 6 * 8, 8);
		filesize = strtoul(field, NULL, 16);
		memcpy(field, raw.buf + off + 6 + 11 * 8, 8);
		namesize = strtoul(field, NULL, 16);
		name = raw.buf + off + 110;
		if (!strcmp(name, "TRAILER!!!")) {
			ret = 0;
			goto out;
		}
		strbuf_addf(names, "%s\n", name);
		off = (off + 110 + namesize + 3) & ~3ul;
		if (!strcmp(name, "init"))
			*init = xstrndup(raw.buf + off, filesize);
		off = (off + filesize + 3) & ~3ul;
	}
out:
	strbuf_release(&raw);
	return ret;
}

static int write_str(const char *path, const char *s)
{
	return util_write_file(path, s, strlen(s));
}

static void test_initramfs(const char *dir)
{
	char *bb = xstrfmt("%s/busybox", dir), *init = xstrfmt("%s/init", dir);
	char *mods = xstrfmt("%s/modules", dir);
	char *ko = xstrfmt("%s/6.1.192/kernel/x.ko", mods);
	char *sub = xstrfmt("%s/6.1.192/kernel", mods);
	char *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL, *p5 = NULL;
	char *p6 = NULL, *content = NULL;
	struct initramfs_opts o = { 0 };
	struct strbuf names = STRBUF_INIT;

	if (write_str(bb, "not really busybox\n") ||
	    write_str(init, "#!/bin/busybox sh\necho one\n") ||
	    util_mkdir_p(sub) || write_str(ko, "module\n")) {
		ok(0, "set up the initramfs inputs");
		goto out;
	}
	o.busybox = bb;
	o.init = init;
	ok(!initramfs_build(&p1, &o) && p1 && !access(p1, R_OK),
	   "an initramfs is built");
	ok(p1 && !strncmp(p1, dir, strlen(dir)) && strstr(p1, "/initramfs/") &&
		   strstr(p1, ".cpio.gz"),
	   "under $KWARN_CACHE/initramfs/ (%s)", str_or(p1));
	ok(!initramfs_build(&p2, &o) && p2 && !strcmp(p1, p2),
	   "the same inputs give the same archive");
	if (p1 && !list_cpio(&names, &content, p1)) {
		ok(strstr(names.buf, "\ninit\n") && content &&
			   !strcmp(content, "#!/bin/busybox sh\necho one\n"),
		   "/init is the init script");
		ok(strstr(names.buf, "bin/busybox\n") &&
			   strstr(names.buf, "dev/console\n") &&
			   !strstr(names.buf, "lib/modules"),
		   "with busybox and /dev/console, no modules");
	} else {
		ok(0, "the archive is a gzip'd newc cpio");
		ok(0, "with busybox and /dev/console");
	}
	write_str(init, "#!/bin/busybox sh\necho two\n");
	ok(!initramfs_build(&p3, &o) && p3 && strcmp(p1, p3),
	   "a changed init script gives a new archive");
	o.modules_dir = mods;
	ok(!initramfs_build(&p4, &o) && p4 && strcmp(p3, p4),
	   "modules give a new archive");
	strbuf_reset(&names);
	free(content);
	content = NULL;
	ok(p4 && !list_cpio(&names, &content, p4) &&
		   strstr(names.buf, "lib/modules/6.1.192/kernel/x.ko\n"),
	   "the modules are under /lib/modules");
	write_str(ko, "module, rebuilt\n");
	ok(!initramfs_build(&p5, &o) && p5 && strcmp(p4, p5),
	   "a changed module gives a new archive");
	o.modules_dir = NULL;
	o.variant = INITRAMFS_NO_INIT;
	strbuf_reset(&names);
	free(content);
	content = NULL;
	ok(!initramfs_build(&p6, &o) && p6 &&
		   !list_cpio(&names, &content, p6) && !content &&
		   !strstr(names.buf, "bin/sh\n") &&
		   strstr(names.buf, "bin/busybox"),
	   "the no-init variant has neither /init nor /bin/sh");
	free(p6);
	p6 = NULL;
	o.variant = INITRAMFS_SLEEP;
	strbuf_reset(&names);
	free(content);
	content = NULL;
	ok(!initramfs_build(&p6, &o) && p6 &&
		   !list_cpio(&names, &content, p6) && content &&
		   strstr(content, "sleep"),
	   "the sleep variant's /init sleeps");
	free(p6);
	p6 = NULL;
	o.busybox = "/nonexistent/busybox";
	o.variant = INITRAMFS_NORMAL;
	ok(initramfs_build(&p6, &o) == -1 && !p6,
	   "a missing busybox is an error");
out:
	strbuf_release(&names);
	free(content);
	free(bb);
	free(init);
	free(mods);
	free(ko);
	free(sub);
	free(p1);
	free(p2);
	free(p3);
	free(p4);
	free(p5);
	free(p6);
}

int main(void)
{
	char tmpdir[] = "/tmp/kwarn-test-boot.XXXXXX";

	util_progname = "test-boot";
	test_cases();
	test_warning_identity();
	test_inline();
	if (ok(mkdtemp(tmpdir) != NULL, "temporary directory")) {
		setenv("KWARN_CACHE", tmpdir, 1);
		test_initramfs(tmpdir);
		util_rm_rf(tmpdir);
	}
	return tap_done();
}
