// SPDX-License-Identifier: MIT
/*
 * The boot verdict: a QEMU serial log in, one verdict out (doc/design.md,
 * "The boot verdict").  The verdict comes from the log and never from QEMU's
 * exit code alone: with panic=-1 and -no-reboot a panic exits 0 just like
 * the init's `reboot -f`.  Pure: no I/O, no SQL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootlog.h"
#include "util.h"
#include "banned.h"

/* Failed modules named one by one in a verdict's reason. */
#define REASON_MODULES 4
/* Trace symbols kept in a crash fingerprint. */
#define FINGERPRINT_SYMBOLS 8
/* Lines after the first crash line searched for its trace. */
#define FINGERPRINT_WINDOW 80

static const char marker[] = "KWARN-BOOT-OK nonce=";
static const char dmesg_prefix[] = "KWARN-DMESG ";
static const char module_prefix[] = "KWARN-MODULE ";

/*
 * What makes a log a crash, whatever else it says (doc/design.md, "The
 * boot verdict").
 */
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

void bootlog_set_verdict(struct boot_result *out, const char *verdict,
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
		bootlog_set_verdict(out, "crash",
				    normalize(v[why].p, v[why].len));
	} else if (timed_out) {
		bootlog_set_verdict(out, "timeout",
				    xstrfmt("total timeout %s the marker",
					    when));
	} else if (silent) {
		bootlog_set_verdict(
			out, "hang",
			xstrfmt("silent past the timeout %s the marker", when));
	} else if (!out->kernel_version && exit_status != 0) {
		char *first = nr ? normalize(v[0].p, v[0].len) : xstrdup("");

		bootlog_set_verdict(
			out, "infra",
			xstrfmt("qemu exited with status %d before the "
				"kernel started%s%s",
				exit_status, *first ? ": " : "", first));
		free(first);
	} else if (marked && exit_status == 0) {
		char *why = modules_failed_reason(out);

		if (why)
			bootlog_set_verdict(out, "fail", why);
		else if (!out->modules_done && modules_requested(v, nr))
			bootlog_set_verdict(
				out, "fail",
				xstrdup("the init never finished loading "
					"the modules"));
		else
			bootlog_set_verdict(out, "pass", NULL);
	} else if (marked) {
		bootlog_set_verdict(
			out, "fail",
			xstrfmt("qemu exited with status %d after the "
				"marker",
				exit_status));
	} else if (stale) {
		bootlog_set_verdict(out, "fail",
				    xstrfmt("marker with a stale nonce '%s'",
					    stale));
	} else {
		bootlog_set_verdict(
			out, "fail",
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
