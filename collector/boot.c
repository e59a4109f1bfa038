// SPDX-License-Identifier: MIT
/*
 * Boot checks: run a bzImage under QEMU with the project's initramfs, read
 * the serial console as it comes, and judge the log.  The verdict comes
 * from the log and never from QEMU's exit code alone: with panic=-1 and
 * -no-reboot a panic exits 0 just like the init's `reboot -f`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "boot.h"
#include "db.h"
#include "kwarn.h"
#include "util.h"
#include "banned.h"

extern char **environ;

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
/* Failed modules named one by one in a verdict's reason. */
#define REASON_MODULES 4
/* Trace symbols kept in a crash fingerprint. */
#define FINGERPRINT_SYMBOLS 8
/* Lines after the first crash line searched for its trace. */
#define FINGERPRINT_WINDOW 80

static const char marker[] = "KWARN-BOOT-OK nonce=";
static const char dmesg_prefix[] = "KWARN-DMESG ";
static const char module_prefix[] = "KWARN-MODULE ";

/* What makes a log a crash, whatever else it says (DESIGN.md). */
static const char *const crash_patterns[] = {
	"Kernel panic", "Oops", "BUG:", "WARNING:", "Call Trace:",
};

/* One line of the log, without "\r\n" and without a printk timestamp. */
struct line {
	const char *p;
	size_t len;
};

static int line_starts(const struct line *l, const char *s)
{
	size_t n = strlen(s);

	return l->len >= n && !memcmp(l->p, s, n);
}

static const char *line_find(const struct line *l, const char *s)
{
	return memmem(l->p, l->len, s, strlen(s));
}

/* Drop "[    1.234567] " from the front of L. */
static void strip_timestamp(struct line *l)
{
	size_t i = 1;

	if (!l->len || l->p[0] != '[')
		return;
	while (i < l->len && (l->p[i] == ' ' || l->p[i] == '.' ||
			      (l->p[i] >= '0' && l->p[i] <= '9')))
		i++;
	if (i < l->len && l->p[i] == ']') {
		i++;
		if (i < l->len && l->p[i] == ' ')
			i++;
		l->p += i;
		l->len -= i;
	}
}

/* Split LOG into lines; *nr_out gets the count.  The caller frees. */
static struct line *split_lines(const char *log, size_t len, size_t *nr_out)
{
	struct line *v = NULL;
	size_t nr = 0, alloc = 0, start = 0;

	for (size_t i = 0; i <= len; i++) {
		struct line l;

		if (i < len && log[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		l.p = log + start;
		l.len = i - start;
		while (l.len &&
		       (l.p[l.len - 1] == '\r' || l.p[l.len - 1] == '\0'))
			l.len--;
		strip_timestamp(&l);
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[nr++] = l;
		start = i + 1;
	}
	*nr_out = nr;
	return v;
}

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static int is_sym(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

/*
 * L as a new string that is the same from boot to boot: no "CPU: N",
 * "PID: N", "Comm: x", hex numbers or long hex words, spaces collapsed,
 * non-printable bytes dropped.
 */
static char *normalize(const char *p, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)p[i];
		size_t j;

		if ((len - i >= 5 && !memcmp(p + i, "CPU: ", 5)) ||
		    (len - i >= 5 && !memcmp(p + i, "PID: ", 5))) {
			for (j = i + 5; j < len && p[j] >= '0' && p[j] <= '9';)
				j++;
			i = j;
			continue;
		}
		if (len - i >= 3 && p[i] == '0' && p[i + 1] == 'x' &&
		    is_hex(p[i + 2])) {
			for (j = i + 2; j < len && is_hex(p[j]);)
				j++;
			strbuf_addstr(&sb, "0x?");
			i = j;
			continue;
		}
		if (is_hex(c) && (!i || !is_sym(p[i - 1]))) {
			for (j = i; j < len && is_hex(p[j]);)
				j++;
			if (j - i >= 8 && (j == len || !is_sym(p[j]))) {
				strbuf_addch(&sb, '?');
				i = j;
				continue;
			}
		}
		if (c == ' ' || c == '\t') {
			if (sb.len && sb.buf[sb.len - 1] != ' ')
				strbuf_addch(&sb, ' ');
		} else if (c >= 0x20 && c != 0x7f) {
			strbuf_addch(&sb, (char)c);
		}
		i++;
	}
	while (sb.len && sb.buf[sb.len - 1] == ' ')
		sb.buf[--sb.len] = '\0';
	return strbuf_detach(&sb, NULL);
}

/*
 * The symbol of a trace line (" func+0x1a/0x40 [mod]") as a new string,
 * *UNRELIABLE set for the unwinder's guesses (" ? func+..."); NULL when L
 * is no such line.
 */
static char *trace_symbol(const struct line *l, int *unreliable)
{
	size_t i = 0, start;

	while (i < l->len && (l->p[i] == ' ' || l->p[i] == '\t'))
		i++;
	*unreliable = i + 1 < l->len && l->p[i] == '?' && l->p[i + 1] == ' ';
	if (*unreliable)
		i += 2;
	if (i < l->len && l->p[i] == '[') { /* "[<ffffffff8100>] " */
		while (i < l->len && l->p[i] != ' ')
			i++;
		while (i < l->len && l->p[i] == ' ')
			i++;
	}
	start = i;
	while (i < l->len && is_sym(l->p[i]))
		i++;
	if (i == start || l->len - i < 4 || memcmp(l->p + i, "+0x", 3))
		return NULL;
	return xstrndup(l->p + start, i - start);
}

/* Index of the first line holding a crash pattern, or NR. */
static size_t first_crash_line(const struct line *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < ARRAY_SIZE(crash_patterns); k++)
			if (line_find(&v[i], crash_patterns[k]))
				return i;
	return nr;
}

/*
 * The crash line and the first symbols of the trace after it: the
 * reliable ones, or the unwinder's guesses ("? func") when it has no
 * others (kernels without frame pointers or ORC, as tinyconfig's).
 */
static char *crash_fingerprint(const struct line *v, size_t nr, size_t at)
{
	struct strbuf sb = STRBUF_INIT, guesses = STRBUF_INIT;
	char *s = normalize(v[at].p, v[at].len);
	int in_trace = !!line_find(&v[at], "Call Trace:"), unreliable;
	size_t syms = 0, nr_guesses = 0;

	strbuf_addstr(&sb, s);
	free(s);
	for (size_t i = at + 1; i < nr && i <= at + FINGERPRINT_WINDOW &&
				syms < FINGERPRINT_SYMBOLS;
	     i++) {
		if (line_find(&v[i], "Call Trace:")) {
			in_trace = 1;
			continue;
		}
		if (!in_trace)
			continue;
		if (line_find(&v[i], "</TASK>") || line_find(&v[i], "---[ end"))
			break;
		s = trace_symbol(&v[i], &unreliable);
		if (s && !unreliable) {
			strbuf_addf(&sb, "\n %s", s);
			syms++;
		} else if (s && nr_guesses < FINGERPRINT_SYMBOLS) {
			strbuf_addf(&guesses, "\n ? %s", s);
			nr_guesses++;
		}
		free(s);
	}
	if (!syms)
		strbuf_add(&sb, guesses.buf, guesses.len);
	strbuf_release(&guesses);
	return strbuf_detach(&sb, NULL);
}

static void diag_clear(struct diag *d)
{
	free(d->file);
	free(d->function);
	free(d->option);
	free(d->message);
	free(d->source);
	free(d->include_chain);
	free(d->object);
	for (size_t i = 0; i < d->nr_notes; i++) {
		free(d->notes[i].file);
		free(d->notes[i].message);
		free(d->notes[i].source);
	}
	free(d->notes);
	memset(d, 0, sizeof(*d));
}

static void free_warnings(struct boot_result *r)
{
	for (size_t i = 0; i < r->nr_warnings; i++)
		diag_clear(&r->warnings[i]);
	free(r->warnings);
	r->warnings = NULL;
	r->nr_warnings = 0;
}

/*
 * Read "WARNING: CPU: 0 PID: 1 at kernel/x.c:123 func+0x1/0x2 [mod]" (or
 * "... at func+0x1/0x2" when the file is unknown) at V[AT] into *D, the
 * message taken from the lines between "cut here" and it.  Returns 1 when
 * it is such a line, else 0.
 */
static int parse_warning(struct diag *d, const struct line *v, size_t at)
{
	const struct line *l = &v[at];
	const char *p = line_find(l, "WARNING: "), *end = l->p + l->len;
	const char *tok, *colon, *plus;
	struct strbuf msg = STRBUF_INIT;
	size_t cut = at;

	if (!p)
		return 0;
	p = memmem(p, (size_t)(end - p), " at ", 4);
	if (!p)
		return 0;
	memset(d, 0, sizeof(*d));
	d->kind = DIAG_BOOT;
	tok = p + 4;
	p = memchr(tok, ' ', (size_t)(end - tok));
	if (!p)
		p = end;
	colon = memrchr(tok, ':', (size_t)(p - tok));
	if (colon && colon + 1 < p && colon[1] >= '0' && colon[1] <= '9') {
		d->file = xstrndup(tok, (size_t)(colon - tok));
		for (const char *q = colon + 1; q < p && *q >= '0' && *q <= '9';
		     q++)
			d->line = d->line * 10 + (*q - '0');
		tok = p < end ? p + 1 : end;
		p = memchr(tok, ' ', (size_t)(end - tok));
		if (!p)
			p = end;
	}
	plus = memchr(tok, '+', (size_t)(p - tok));
	if (plus)
		p = plus;
	/* without CONFIG_KALLSYMS %pS is a bare address: no function */
	if (p > tok && !(p - tok > 2 && tok[0] == '0' && tok[1] == 'x'))
		d->function = xstrndup(tok, (size_t)(p - tok));

	/* WARN(cond, fmt, ...) prints its text between "cut here" and us */
	while (cut > 0 && at - cut < 8 && !line_find(&v[cut], "cut here"))
		cut--;
	if (line_find(&v[cut], "cut here")) {
		for (size_t i = cut + 1; i < at; i++) {
			char *s = normalize(v[i].p, v[i].len);

			if (*s) {
				if (msg.len)
					strbuf_addch(&msg, ' ');
				strbuf_addstr(&msg, s);
			}
			free(s);
		}
	}
	if (!msg.len)
		strbuf_addf(&msg, "kernel warning in %s",
			    d->function ? d->function : "unknown function");
	d->message = strbuf_detach(&msg, NULL);
	return 1;
}

/*
 * Every WARNING splat of the console; the init's KWARN-DMESG copies only
 * when the console showed none (they repeat the same lines).
 */
static void collect_warnings(struct boot_result *out, const struct line *v,
			     size_t nr)
{
	size_t alloc = 0;

	for (int pass = 0; pass < 2 && !out->nr_warnings; pass++) {
		for (size_t i = 0; i < nr; i++) {
			struct line l = v[i];
			int from_dmesg = line_starts(&l, dmesg_prefix);
			struct diag d;

			if (from_dmesg != pass)
				continue;
			if (from_dmesg) {
				l.p += strlen(dmesg_prefix);
				l.len -= strlen(dmesg_prefix);
				strip_timestamp(&l);
			}
			if (!line_starts(&l, "WARNING: ") &&
			    !(from_dmesg && line_find(&l, "WARNING: ")))
				continue;
			if (!parse_warning(&d, from_dmesg ? &l : v,
					   from_dmesg ? 0 : i))
				continue;
			if (out->nr_warnings == alloc) {
				alloc = alloc ? 2 * alloc : 4;
				out->warnings = xrealloc(
					out->warnings,
					alloc * sizeof(*out->warnings));
			}
			out->warnings[out->nr_warnings++] = d;
		}
	}
}

/* 1 if the space-delimited word at P (inside L) is WORD, not empty. */
static int word_is(const struct line *l, const char *p, const char *word)
{
	size_t n = word ? strlen(word) : 0;
	size_t left = (size_t)(l->p + l->len - p);

	return n && left >= n && !memcmp(p, word, n) &&
	       (left == n || p[n] == ' ');
}

/* Copy the space-delimited word at P (inside L) into a new string. */
static char *word_at(const struct line *l, const char *p)
{
	const char *end = l->p + l->len, *q = p;

	while (q < end && *q != ' ')
		q++;
	return xstrndup(p, (size_t)(q - p));
}

static void set_verdict(struct boot_result *out, const char *verdict,
			char *reason)
{
	snprintf(out->verdict, sizeof(out->verdict), "%s", verdict);
	free(out->reason);
	out->reason = reason;
}

static void free_modules(struct boot_result *r)
{
	for (size_t i = 0; i < r->nr_modules; i++) {
		free(r->modules[i].name);
		free(r->modules[i].message);
	}
	free(r->modules);
	r->modules = NULL;
	r->nr_modules = 0;
	r->modules_done = 0;
}

/* The last module named NAME (LEN bytes), added "unfinished" if none. */
static struct boot_module *module_get(struct boot_result *r, const char *name,
				      size_t len, size_t *alloc)
{
	struct boot_module *m;

	for (size_t i = r->nr_modules; i-- > 0;)
		if (strlen(r->modules[i].name) == len &&
		    !memcmp(r->modules[i].name, name, len))
			return &r->modules[i];
	if (r->nr_modules == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 32;
		r->modules = xrealloc(r->modules, *alloc * sizeof(*r->modules));
	}
	m = &r->modules[r->nr_modules++];
	m->name = xstrndup(name, len);
	snprintf(m->status, sizeof(m->status), "unfinished");
	m->message = NULL;
	return m;
}

/*
 * The init's "KWARN-MODULE load|ok|fail NAME[: why]" and "KWARN-MODULE
 * done" lines, wherever on the line (a printk may come first).
 */
static void collect_modules(struct boot_result *out, const struct line *v,
			    size_t nr)
{
	size_t alloc = 0;

	for (size_t i = 0; i < nr; i++) {
		const char *p = line_find(&v[i], module_prefix), *end, *name;
		struct boot_module *m;
		struct line l;
		size_t len;

		if (!p)
			continue;
		end = v[i].p + v[i].len;
		l.p = p + strlen(module_prefix);
		l.len = (size_t)(end - l.p);
		if (word_is(&l, l.p, "done")) {
			out->modules_done = 1;
			continue;
		}
		p = memchr(l.p, ' ', l.len);
		if (!p || p + 1 >= end)
			continue;
		name = p + 1;
		for (len = 0;
		     name + len < end && name[len] != ' ' && name[len] != ':';)
			len++;
		if (!len)
			continue;
		if (word_is(&l, l.p, "load")) {
			m = module_get(out, name, len, &alloc);
			snprintf(m->status, sizeof(m->status), "unfinished");
		} else if (word_is(&l, l.p, "ok")) {
			m = module_get(out, name, len, &alloc);
			snprintf(m->status, sizeof(m->status), "ok");
		} else if (word_is(&l, l.p, "fail")) {
			m = module_get(out, name, len, &alloc);
			snprintf(m->status, sizeof(m->status), "fail");
			free(m->message);
			p = name + len;
			while (p < end && (*p == ':' || *p == ' '))
				p++;
			m->message = p < end ? normalize(p, (size_t)(end - p)) :
					       NULL;
		}
	}
}

/* 1 if the kernel's "Command line:" asked the init to load modules. */
static int modules_requested(const struct line *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (line_starts(&v[i], "Command line: ") &&
		    line_find(&v[i], " kwarn.modules=1"))
			return 1;
	return 0;
}

/* "modules failed to load: a (why); b (why)", or NULL when none did. */
static char *modules_failed_reason(const struct boot_result *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t nr = 0;

	for (size_t i = 0; i < r->nr_modules; i++) {
		const struct boot_module *m = &r->modules[i];

		if (strcmp(m->status, "fail"))
			continue;
		if (++nr > REASON_MODULES)
			continue;
		strbuf_addstr(&sb, nr == 1 ? "" : "; ");
		strbuf_addstr(&sb, m->name);
		if (m->message)
			strbuf_addf(&sb, " (%s)", m->message);
	}
	if (!nr) {
		strbuf_release(&sb);
		return NULL;
	}
	if (nr > REASON_MODULES)
		strbuf_addf(&sb, "; and %zu more", nr - REASON_MODULES);
	{
		char *s = xstrfmt("%s failed to load: %s",
				  nr == 1 ? "module" : "modules", sb.buf);

		strbuf_release(&sb);
		return s;
	}
}

/* The module being loaded when the log ended, or NULL. */
static const char *module_unfinished(const struct boot_result *r)
{
	for (size_t i = r->nr_modules; i-- > 0;)
		if (!strcmp(r->modules[i].status, "unfinished"))
			return r->modules[i].name;
	return NULL;
}

int boot_verdict(struct boot_result *out, const char *log, size_t len,
		 const char *nonce, int exit_status, int timed_out, int silent)
{
	size_t nr, crash;
	struct line *v = split_lines(log ? log : "", log ? len : 0, &nr);
	char *stale = NULL, *banner = NULL, *marker_version = NULL;
	const char *when;
	int marked = 0;

	free(out->fingerprint);
	out->fingerprint = NULL;
	free(out->kernel_version);
	out->kernel_version = NULL;
	free_warnings(out);
	free_modules(out);
	if (nonce != out->nonce)
		snprintf(out->nonce, sizeof(out->nonce), "%s",
			 nonce ? nonce : "");

	for (size_t i = 0; i < nr; i++) {
		const char *p, *ver;

		if (!banner && (p = line_find(&v[i], "Linux version ")))
			banner = word_at(&v[i], p + 14);
		p = line_find(&v[i], marker);
		if (!p)
			continue;
		p += strlen(marker);
		if (word_is(&v[i], p, nonce)) {
			marked = 1;
			ver = line_find(&v[i], " version=");
			if (ver && !marker_version)
				marker_version = word_at(&v[i], ver + 9);
		} else if (!stale) {
			stale = word_at(&v[i], p);
		}
	}
	out->kernel_version = marker_version ? marker_version : banner;
	if (marker_version)
		free(banner);
	collect_warnings(out, v, nr);
	collect_modules(out, v, nr);

	when = marked ? "after" : "before";
	crash = first_crash_line(v, nr);
	if (crash < nr) {
		size_t why = crash;

		/* a panic says more than the warning or trace before it */
		for (size_t i = crash; i < nr; i++) {
			if (line_find(&v[i], "Kernel panic")) {
				why = i;
				break;
			}
		}
		out->fingerprint = crash_fingerprint(v, nr, crash);
		set_verdict(out, "crash", normalize(v[why].p, v[why].len));
	} else if (timed_out) {
		set_verdict(out, "timeout",
			    xstrfmt("total timeout %s the marker", when));
	} else if (silent) {
		set_verdict(out, "hang",
			    xstrfmt("silent past the timeout %s the marker",
				    when));
	} else if (!out->kernel_version && exit_status != 0) {
		char *first = nr ? normalize(v[0].p, v[0].len) : xstrdup("");

		set_verdict(out, "infra",
			    xstrfmt("qemu exited with status %d before the "
				    "kernel started%s%s",
				    exit_status, *first ? ": " : "", first));
		free(first);
	} else if (marked && exit_status == 0) {
		char *why = modules_failed_reason(out);

		if (why)
			set_verdict(out, "fail", why);
		else if (!out->modules_done && modules_requested(v, nr))
			set_verdict(out, "fail",
				    xstrdup("the init never finished loading "
					    "the modules"));
		else
			set_verdict(out, "pass", NULL);
	} else if (marked) {
		set_verdict(out, "fail",
			    xstrfmt("qemu exited with status %d after the "
				    "marker",
				    exit_status));
	} else if (stale) {
		set_verdict(out, "fail",
			    xstrfmt("marker with a stale nonce '%s'", stale));
	} else {
		set_verdict(out, "fail",
			    xstrfmt("exited (status %d) without the init's "
				    "marker",
				    exit_status));
	}
	if (module_unfinished(out) && strcmp(out->verdict, "pass")) {
		char *r = xstrfmt("%s (while loading module %s)",
				  out->reason ? out->reason : out->verdict,
				  module_unfinished(out));

		free(out->reason);
		out->reason = r;
	}
	free(stale);
	free(v);
	return 0;
}

void boot_result_release(struct boot_result *r)
{
	if (!r)
		return;
	free(r->reason);
	free(r->fingerprint);
	free(r->kernel_version);
	free(r->log);
	free_warnings(r);
	free_modules(r);
	memset(r, 0, sizeof(*r));
}

static void set_infra(struct boot_result *out, char *reason)
{
	set_verdict(out, "infra", reason);
}

/* 1 if BIN names an executable, directly or through $PATH. */
static int find_program(const char *bin)
{
	const char *path = getenv("PATH"), *p;
	int found = 0;

	if (strchr(bin, '/'))
		return !access(bin, X_OK);
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; !found;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *full = xstrfmt("%.*s/%s", (int)n, n ? p : ".", bin);

		found = !access(full, X_OK);
		free(full);
		if (!colon)
			break;
		p = colon + 1;
	}
	return found;
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
static int spawn_piped(pid_t *pid_out, int *fd_out, char *const *argv,
		       char **err_out)
{
	posix_spawn_file_actions_t fa;
	int fds[2], rc;

	*err_out = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return error("pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	rc = posix_spawnp(pid_out, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		*err_out =
			xstrfmt("cannot run '%s': %s", argv[0], strerror(rc));
		return 0;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	*fd_out = fds[0];
	return 0;
}

struct qemu_run {
	const char *qemu, *accel, *kernel, *initramfs, *append;
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
		NULL,
	};
	struct strbuf log = STRBUF_INIT;
	int fd = -1, status = 0, timed_out = 0, silent = 0, ret = -1;
	char *spawn_err = NULL;
	int64_t start, last, now;
	char *const *av;
	pid_t pid = -1;

	out->accel = q->accel;
	/* posix_spawnp() does not modify argv; its prototype predates const */
	memcpy(&av, &(const char *const *){ argv }, sizeof(av));
	start = util_now_ms();
	if (spawn_piped(&pid, &fd, av, &spawn_err))
		goto out;
	if (spawn_err) {
		set_infra(out, spawn_err);
		ret = 0;
		goto out;
	}

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
	char *initramfs = NULL;
	int ret = -1, auto_accel;
	struct stat st;

	memset(out, 0, sizeof(*out));
	q.qemu = o->qemu ? o->qemu : "qemu-system-x86_64";
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
	if (!find_program(q.qemu)) {
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
		if (initramfs_build(&initramfs, &io)) {
			set_infra(out, xstrdup("cannot build the initramfs"));
			goto out;
		}
	}
	q.initramfs = initramfs;

	strbuf_addf(&append, "console=ttyS0 panic=-1 kwarn.nonce=%s",
		    out->nonce);
	if (o->modules_dir)
		strbuf_addstr(&append, " kwarn.modules=1");
	if (o->extra_append && *o->extra_append)
		strbuf_addf(&append, " %s", o->extra_append);
	q.append = append.buf;

	auto_accel = !o->accel || !*o->accel;
	if (!auto_accel)
		q.accel = !strcmp(o->accel, "kvm") ? "kvm" : "tcg";
	else
		q.accel = kvm_usable() ? "kvm" : "tcg";
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

/* One boot_modules row per module of R. */
static int store_modules(sqlite3 *db, long long boot_id,
			 const struct boot_result *r)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (!r->nr_modules)
		return 0;
	if (db_prepare(&st, db,
		       "INSERT OR REPLACE INTO boot_modules"
		       " (boot_id, name, status, message) VALUES (?, ?, ?, ?)"))
		return -1;
	for (size_t i = 0; i < r->nr_modules; i++) {
		const struct boot_module *m = &r->modules[i];

		if (db_bind_int(st, 1, boot_id, 0) ||
		    db_bind_text(st, 2, m->name) ||
		    db_bind_text(st, 3, m->status) ||
		    db_bind_text(st, 4, m->message) ||
		    sqlite3_step(st) != SQLITE_DONE) {
			error("cannot store module '%s' of boot %lld: %s",
			      m->name, boot_id, sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_reset(st);
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int boot_store(long long *out, sqlite3 *db, long long build_id,
	       const struct boot_result *r)
{
	sqlite3_stmt *st = NULL;
	unsigned char *z = NULL;
	long long boot_id;
	uLongf zlen = 0;
	int ret = -1;

	if (r->log_len) {
		zlen = compressBound(r->log_len);
		z = xmalloc(zlen);
		if (compress2(z, &zlen, (const Bytef *)r->log, r->log_len,
			      Z_BEST_COMPRESSION) != Z_OK) {
			error("cannot compress the boot log");
			goto out;
		}
	}
	if (db_prepare(&st, db,
		       "INSERT INTO boots (build_id, verdict, reason, "
		       "fingerprint, kernel_version, nonce, accel, "
		       "duration_ms, log, log_size) "
		       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
		goto out;
	if (db_bind_int(st, 1, build_id, 0) ||
	    db_bind_text(st, 2, r->verdict) || db_bind_text(st, 3, r->reason) ||
	    db_bind_text(st, 4, r->fingerprint) ||
	    db_bind_text(st, 5, r->kernel_version) ||
	    db_bind_text(st, 6, *r->nonce ? r->nonce : NULL) ||
	    db_bind_text(st, 7, r->accel) ||
	    db_bind_int(st, 8, r->duration_ms, 0) ||
	    (z ? sqlite3_bind_blob(st, 9, z, (int)zlen, SQLITE_TRANSIENT) :
		 sqlite3_bind_null(st, 9)) != SQLITE_OK ||
	    db_bind_int(st, 10, (long long)r->log_len, 0)) {
		error("cannot bind the boot row: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("cannot store the boot of build %lld: %s", build_id,
		      sqlite3_errmsg(db));
		goto out;
	}
	boot_id = sqlite3_last_insert_rowid(db);
	if (store_modules(db, boot_id, r))
		goto out;
	if (out)
		*out = boot_id;
	ret = 0;
out:
	sqlite3_finalize(st);
	free(z);
	return ret;
}

static void boot_usage(void)
{
	fprintf(stderr,
		"usage: kwarn boot --kernel BZIMAGE [--initramfs FILE] "
		"[--qemu BIN]\n"
		"                  [--silence S] [--timeout S] [--modules DIR]"
		" [--memory MB]\n"
		"                  [--accel kvm|tcg]"
		" [--init FILE] [--variant normal|no-init|sleep]\n"
		"                  [--log FILE]\n"
		"       kwarn boot --db FILE --build ID [options]\n");
}

/* The image of build ID into *out (NULL when it has none). */
static int build_image(char **out, sqlite3 *db, long long id)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	*out = NULL;
	if (db_prepare(&st, db, "SELECT image FROM builds WHERE id = ?") ||
	    db_bind_int(st, 1, id, 0))
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		error("no build %lld", id);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		error("cannot read build %lld: %s", id, sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_column_type(st, 0) != SQLITE_NULL && *db_col_text(st, 0))
		*out = xstrdup(db_col_text(st, 0));
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int cmd_boot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "initramfs", required_argument, NULL, 'i' },
		{ "qemu", required_argument, NULL, 'q' },
		{ "silence", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "modules", required_argument, NULL, 'm' },
		{ "memory", required_argument, NULL, 'M' },
		{ "accel", required_argument, NULL, 'a' },
		{ "init", required_argument, NULL, 'I' },
		{ "variant", required_argument, NULL, 'V' },
		{ "log", required_argument, NULL, 'l' },
		{ "db", required_argument, NULL, 'd' },
		{ "build", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct boot_opts bo = { 0 };
	struct boot_result r = { 0 };
	struct initramfs_opts io = { 0 };
	const char *dbpath = NULL, *logpath = NULL, *init = NULL;
	char *image = NULL, *initramfs = NULL;
	long build = -1, secs;
	long long boot_id = -1;
	int c, custom = 0, ret = 2;
	sqlite3 *db = NULL;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			bo.kernel = optarg;
			break;
		case 'i':
			bo.initramfs = optarg;
			break;
		case 'q':
			bo.qemu = optarg;
			break;
		case 's':
		case 't':
			if (util_parse_long(&secs, optarg, 1, 86400)) {
				error("bad number of seconds '%s'", optarg);
				goto out;
			}
			if (c == 's')
				bo.silence_ms = (int)secs * 1000;
			else
				bo.total_ms = (int)secs * 1000;
			break;
		case 'm':
			bo.modules_dir = optarg;
			break;
		case 'M':
			if (util_parse_long(&secs, optarg, 64, 65536)) {
				error("bad memory size '%s' (MB)", optarg);
				goto out;
			}
			bo.memory_mb = (int)secs;
			break;
		case 'a':
			if (strcmp(optarg, "kvm") && strcmp(optarg, "tcg")) {
				error("unknown accelerator '%s'", optarg);
				goto out;
			}
			bo.accel = optarg;
			break;
		case 'I':
			init = optarg;
			custom = 1;
			break;
		case 'V':
			if (initramfs_parse_variant(&io.variant, optarg)) {
				error("unknown initramfs variant '%s'", optarg);
				goto out;
			}
			custom = 1;
			break;
		case 'l':
			logpath = optarg;
			break;
		case 'd':
			dbpath = optarg;
			break;
		case 'b':
			if (util_parse_long(&build, optarg, 1, LONG_MAX)) {
				error("bad build id '%s'", optarg);
				goto out;
			}
			break;
		default:
			boot_usage();
			goto out;
		}
	}
	if (optind != argc || (!dbpath != (build < 0)) ||
	    (!dbpath && !bo.kernel) || (dbpath && bo.kernel) ||
	    (custom && bo.initramfs)) {
		boot_usage();
		goto out;
	}
	ret = 1;
	if (dbpath) {
		if (db_open(&db, dbpath, DB_READ_WRITE) ||
		    build_image(&image, db, build))
			goto out;
		/* a build without an image is stored as an infra verdict */
		bo.kernel = image;
	}
	if (custom) {
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
	if (db && boot_store(&boot_id, db, build, &r))
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
