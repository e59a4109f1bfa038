// SPDX-License-Identifier: MIT
/*
 * What every build stores, from a capture or a whole log: each parsed
 * diagnostic into the build writer, with its function found in the
 * source when the compiler printed none (clang), and its object from
 * kbuild's files when the log's order cannot tell it (source_emit);
 * a whole make log read and parsed into one build, its tree root found
 * and its bad endings said (parse_log_into).  kwarn run's captures
 * (run-build.c) and kwarn ingest both store through here.
 */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbuild.h"
#include "kwarn.h"
#include "parse.h"
#include "store.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

struct ingest_ctx {
	struct build_writer *w;
	struct source_cache src; /* src.dir: the tree's directory, or NULL */
	char *root; /* the tree root found in the log, when it is source */
	const struct kbuild_map *kbuild; /* or NULL */
};

/* The text of FILE under C->dir, read once per run of its warnings. */
static const char *source_text(struct source_cache *c, const char *file,
			       size_t *len)
{
	char *path;

	if (c->name && !strcmp(c->name, file)) {
		*len = c->len;
		return c->text;
	}
	free(c->name);
	free(c->text);
	c->name = xstrdup(file);
	c->text = NULL;
	c->len = 0;
	path = xstrfmt("%s/%s", c->dir, file);
	/* a file that is not there: no function, not an error */
	if (access(path, R_OK) ||
	    util_read_file(&c->text, &c->len, path, CAP_SOURCE_FILE)) {
		c->text = NULL;
		c->len = 0;
	}
	free(path);
	*len = c->len;
	return c->text;
}

void source_emit(struct build_writer *w, long long object_id,
		 const struct diag *d, struct source_cache *c)
{
	struct diag copy;
	const char *text;
	size_t len;

	/*
	 * clang and sparse print no "In function" header: the function
	 * comes from the source when the tree is at hand.
	 */
	if (c->dir && !d->function && d->file && d->file[0] != '/' && d->line &&
	    (d->kind == DIAG_WARNING || d->kind == DIAG_ERROR ||
	     d->kind == DIAG_SPARSE) &&
	    (text = source_text(c, d->file, &len)) != NULL) {
		copy = *d;
		copy.function = diag_function_from_source(text, len, d->line);
		bw_diag(w, object_id, &copy);
		free(copy.function);
		return;
	}
	bw_diag(w, object_id, d);
}

void source_cache_release(struct source_cache *c)
{
	free(c->name);
	free(c->text);
	c->name = c->text = NULL;
	c->len = 0;
}

/*
 * The object kbuild says D's translation unit was compiled into, when
 * the build directory was read and it differs from the parser's.
 */
static const char *kbuild_object_of(const struct kbuild_map *m,
				    const struct diag *d)
{
	const char *tu = d->file, *c, *obj;
	char *chain_tu = NULL;

	if (!m)
		return NULL;
	if (d->include_chain) {
		/* "b.h:7, a.c:1": the last file, without its line */
		c = strrchr(d->include_chain, ' ');
		tu = c ? c + 1 : d->include_chain;
		c = strrchr(tu, ':');
		chain_tu = c ? xstrndup(tu, (size_t)(c - tu)) : xstrdup(tu);
		tu = chain_tu;
	}
	obj = kbuild_object(m, tu);
	free(chain_tu);
	if (obj && d->object && !strcmp(obj, d->object))
		return NULL;
	return obj;
}

static void ingest_emit(void *ctx, const struct diag *d)
{
	struct ingest_ctx *ic = ctx;
	const char *obj = kbuild_object_of(ic->kbuild, d);
	struct diag copy;

	if (obj) {
		copy = *d;
		copy.object = xstrdup(obj);
		source_emit(ic->w, -1, &copy, &ic->src);
		free(copy.object);
		return;
	}
	source_emit(ic->w, -1, d, &ic->src);
}

/* Does DIR hold the kernel's top-level Makefile? */
static int is_kernel_top(const char *dir, size_t len)
{
	char *a = xstrfmt("%.*sMakefile", (int)len, dir);
	char *b = xstrfmt("%.*sscripts/Makefile.build", (int)len, dir);
	int ret = !access(a, F_OK) && !access(b, F_OK);

	free(a);
	free(b);
	return ret;
}

/* Does the file S..END exist in the tree SRC? */
static int in_tree(const char *src, const char *s, const char *end)
{
	char *path = xstrfmt("%s/%.*s", src, (int)(end - s), s);
	int ret = !access(path, F_OK);

	free(path);
	return ret;
}

/*
 * Does S start with one of the kernel's top-level directories and '/'?
 * 2 if it is one that a system directory does not also have (/usr/lib,
 * /usr/include, /var/lib are no kernel tree): it confirms a tree root.
 */
static int is_top_dir(const char *s)
{
	/* the first three are system directories' names too */
	static const char *const dirs[] = {
		"include",  "lib",     "usr",	"arch", "block",    "certs",
		"crypto",   "drivers", "fs",	"init", "io_uring", "ipc",
		"kernel",   "mm",      "net",	"rust", "samples",  "scripts",
		"security", "sound",   "tools", "virt",
	};
	const size_t nr_shared = 3;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		size_t l = strlen(dirs[i]);

		if (!strncmp(s, dirs[i], l) && s[l] == '/')
			return i < nr_shared ? 1 : 2;
	}
	return 0;
}

/*
 * Is the prefix S[0..N) (ending in '/') a system header directory:
 * /usr/include/... or any directory named include or include-fixed?
 * Such a directory has net/, sound/ and security/ too, and a tree's root
 * is the directory above its include/, never one named include.
 */
static int is_header_dir(const char *s, size_t n)
{
	static const char *const names[] = { "/include/", "/include-fixed/" };

	if (n >= 13 && !memcmp(s, "/usr/include/", 13))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t l = strlen(names[i]);

		if (n >= l && !memcmp(s + n - l, names[i], l))
			return 1;
	}
	return 0;
}

/* Is S[0..N) a source or object name (".c", ".h", ".S", ".o"...)? */
static int is_source_name(const char *s, size_t n)
{
	static const char *const exts[] = { ".c",  ".h",   ".S",   ".s",   ".o",
					    ".rs", ".lds", ".dts", ".dtsi" };

	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		size_t l = strlen(exts[i]);

		if (n > l && !memcmp(s + n - l, exts[i], l))
			return 1;
	}
	return 0;
}

/*
 * The tree root that an O= build prints before every source path, found
 * in the first part of the log BUF[0..LEN): the prefix under which the
 * printed path exists in the tree SRC (may be NULL), or the directory
 * above the path that holds the kernel's top-level Makefile when it is
 * on this machine, else the prefix before a kernel top-level directory
 * that most paths share ("../" for an old-style O= build).  Only a
 * prefix the tree's own files confirm: on disk, or followed in the log
 * by a directory only a kernel tree has (arch/, drivers/, kernel/...),
 * never merely by include/ or lib/, which /usr/ and /var/ have too, and
 * never for a header directory (/usr/include/ has net/ and sound/).
 * NULL if paths are relative.
 */
static char *ingest_find_root(const char *buf, size_t len, const char *src)
{
	struct cand {
		char *prefix;
		unsigned long votes;
		int on_disk;
		int tree_dir; /* followed by a directory only a tree has */
	} c[16];
	size_t nc = 0, best = 0;
	const char *s = buf, *end = buf + len;
	char *ret = NULL;
	int lines = 0;

	while (s < end && lines++ < 200000) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end, *p = s, *colon;

		if (!strncmp(p, "In file included from ", 22))
			p += 22;
		while (p < e && *p == ' ')
			p++;
		if (!strncmp(p, "from ", 5))
			p += 5;
		colon = p < e ? memchr(p, ':', (size_t)(e - p)) : NULL;
		if (colon && (*p == '/' || !strncmp(p, "../", 3)) &&
		    !memchr(p, ' ', (size_t)(colon - p)) &&
		    is_source_name(p, (size_t)(colon - p))) {
			/* every '/' of the path: a candidate root */
			for (const char *q = p; q < colon; q++) {
				size_t l = (size_t)(q + 1 - p), i;
				int top;

				/* "/" alone is no tree root */
				if (*q != '/' || l < 2 ||
				    !(top = is_top_dir(q + 1)))
					continue;
				for (i = 0; i < nc; i++)
					if (strlen(c[i].prefix) == l &&
					    !strncmp(c[i].prefix, p, l))
						break;
				if (i == nc) {
					if (nc == ARRAY_SIZE(c))
						continue;
					c[nc].prefix = xstrndup(p, l);
					c[nc].votes = 0;
					c[nc].tree_dir = 0;
					c[nc].on_disk =
						(src &&
						 in_tree(src, q + 1, colon)) ||
						(*p == '/' &&
						 is_kernel_top(p, l));
					nc++;
				}
				c[i].votes++;
				if (top == 2 && !is_header_dir(p, l))
					c[i].tree_dir = 1;
			}
		}
		if (!nl)
			break;
		s = nl + 1;
	}
	/* unconfirmed prefixes ("/usr/" before include/) do not take part */
	best = nc;
	for (size_t i = 0; i < nc; i++) {
		if (!c[i].on_disk && !c[i].tree_dir)
			continue;
		if (best == nc || c[i].on_disk > c[best].on_disk ||
		    (c[i].on_disk == c[best].on_disk &&
		     (c[i].votes > c[best].votes ||
		      (c[i].votes == c[best].votes &&
		       strlen(c[i].prefix) < strlen(c[best].prefix)))))
			best = i;
	}
	if (best < nc)
		ret = xstrdup(c[best].prefix);
	for (size_t i = 0; i < nc; i++)
		free(c[i].prefix);
	return ret;
}

/*
 * Find the tree root in BUF, strip it in P and say so.  A root on this
 * machine is the source for IC when it has none.
 */
static void ingest_root(struct parser *p, struct ingest_ctx *ic,
			const char *buf, size_t len)
{
	char *root = ingest_find_root(buf, len, ic->src.dir);

	if (!root)
		return;
	parse_add_strip_prefix(p, root);
	fprintf(stderr,
		"kwarn ingest: removed the tree root '%s' from file"
		" names\n",
		root);
	if (!ic->src.dir && root[0] == '/' && is_kernel_top(root, strlen(root)))
		ic->src.dir = ic->root = root;
	else
		free(root);
}

/* Feed complete lines of BUF, each without its REGEX prefix. */
struct line_feed {
	struct parser *p;
	regex_t *re;
	struct strbuf part; /* a line split across reads */
	unsigned long no_prefix; /* lines the pattern did not match */
};

static void feed_line(struct line_feed *lf, const char *s, size_t n)
{
	regmatch_t m;

	if (lf->re) {
		struct strbuf *b = &lf->part;
		int rc;

		/* regexec() needs a string: the line, without its '\n' */
		strbuf_reset(b);
		strbuf_add(b, s, n);
		rc = regexec(lf->re, b->buf, 1, &m, 0);
		if (!rc && m.rm_so == 0) {
			parse_feed(lf->p, b->buf + m.rm_eo,
				   b->len - (size_t)m.rm_eo);
		} else {
			if (b->len)
				lf->no_prefix++;
			parse_feed(lf->p, b->buf, b->len);
		}
		parse_feed(lf->p, "\n", 1);
		return;
	}
	parse_feed(lf->p, s, n);
}

static void feed(struct line_feed *lf, struct strbuf *carry, const char *buf,
		 size_t len)
{
	if (!lf->re) {
		feed_line(lf, buf, len);
		return;
	}
	while (len) {
		const char *nl = memchr(buf, '\n', len);

		if (!nl) {
			strbuf_add(carry, buf, len);
			return;
		}
		if (carry->len) {
			strbuf_add(carry, buf, (size_t)(nl - buf));
			feed_line(lf, carry->buf, carry->len);
			strbuf_reset(carry);
		} else {
			feed_line(lf, buf, (size_t)(nl - buf));
		}
		len -= (size_t)(nl + 1 - buf);
		buf = nl + 1;
	}
}

/*
 * Say on stderr what the end of R and the parser's counts ST tell: a
 * log cut mid-line, or one with nothing a compiler or kbuild printed.
 */
static void ingest_check_end(const struct log_reader *r,
			     const struct parse_stats *st)
{
	if (log_ends_mid_line(r))
		warning("'%s' ends in the middle of a line (cut short?): its"
			" last line is read as it is",
			log_name(r));
	if (!log_is_empty(r) &&
	    !(st->diags + st->unparsed + st->werror_lines + st->kbuild))
		warning("'%s' holds no compiler line (no diagnostic, no kbuild"
			" CC line): is it a build log?",
			log_name(r));
}

int parse_log_into(struct parse_stats *out, struct build_writer *w,
		   struct log_reader *r, const struct ingest_opts *o)
{
	struct ingest_ctx ic = { w,
				 { o ? o->source : NULL, NULL, NULL, 0 },
				 NULL,
				 o ? o->kbuild : NULL };
	struct parser *p = parse_new(ingest_emit, &ic);
	struct line_feed lf = { p, NULL, STRBUF_INIT, 0 };
	struct strbuf head = STRBUF_INIT, carry = STRBUF_INIT;
	static char buf[1 << 16];
	const struct parse_stats *st;
	regex_t re;
	int ret = 0, sniffing = o && o->find_root;
	ssize_t n;

	for (size_t i = 0; o && i < o->nr_strip; i++)
		parse_add_strip_prefix(p, o->strip[i]);
	if (o && o->line_prefix) {
		int rc = regcomp(&re, o->line_prefix, REG_EXTENDED);

		if (rc) {
			char msg[128];

			regerror(rc, &re, msg, sizeof(msg));
			parse_free(p);
			return error("bad --strip-prefix '%s': %s",
				     o->line_prefix, msg);
		}
		lf.re = &re;
	}
	while ((n = log_read(r, buf, sizeof(buf))) != 0) {
		/* reported; the half-read log is not worth a word more */
		if (n < 0) {
			ret = -1;
			goto out;
		}
		if (!sniffing) {
			feed(&lf, &carry, buf, (size_t)n);
			continue;
		}
		/* the first 4 MB tell where the tree root is */
		strbuf_add(&head, buf, (size_t)n);
		if (head.len >= (4u << 20)) {
			sniffing = 0;
			ingest_root(p, &ic, head.buf, head.len);
			feed(&lf, &carry, head.buf, head.len);
			strbuf_release(&head);
		}
	}
	if (sniffing) {
		ingest_root(p, &ic, head.buf, head.len);
		feed(&lf, &carry, head.buf, head.len);
	}
	if (carry.len)
		feed_line(&lf, carry.buf, carry.len);
	parse_finish(p);
	st = parse_get_stats(p);
	if (out)
		*out = *st;
	bw_add_unparsed(w, st->unparsed);
	if (st->unparsed) {
		fprintf(stderr,
			"kwarn ingest: %lu line%s could not be read (a blank"
			" in a path, a prefix on each line: see"
			" --strip-prefix), the first:\n",
			st->unparsed, st->unparsed == 1 ? "" : "s");
		for (size_t i = 0; parse_unparsed_line(p, i); i++)
			fprintf(stderr, "  %s\n", parse_unparsed_line(p, i));
	}
	if (lf.re && lf.no_prefix)
		fprintf(stderr,
			"kwarn ingest: %lu line%s without the prefix '%s'\n",
			lf.no_prefix, lf.no_prefix == 1 ? "" : "s",
			o->line_prefix);
	ingest_check_end(r, st);
out:
	if (lf.re)
		regfree(&re);
	strbuf_release(&head);
	strbuf_release(&carry);
	strbuf_release(&lf.part);
	source_cache_release(&ic.src);
	free(ic.root);
	parse_free(p);
	return ret;
}
