// SPDX-License-Identifier: MIT
/*
 * The reproducer of a warning: what to type to see it again.  kwarn builds
 * with CC="kwarn-cc gcc" only to capture each compile's stderr on its own;
 * the compiler, its flags and the config are the build's, so the
 * reproducer passes the compiler itself (gcc, clang-16, a cross gcc) and
 * every other variable kwarn's make line had (run-build.c, make_argv()),
 * read back from the build's stored flags.  It builds in a fresh output directory beside a
 * fresh worktree, so kwarn's own build directory is never touched.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json.h"
#include "query.h"
#include "arch.h"
#include "repro.h"
#include "srctree.h"
#include "util.h"
#include "banned.h"

static int is_safe(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c);
}

void repro_quote(struct strbuf *sb, const char *word)
{
	const char *p;

	for (p = word; *p && is_safe((unsigned char)*p); p++)
		;
	if (*word && !*p) {
		strbuf_addstr(sb, word);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = word; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '\'');
}

/* WORDS (NULL-terminated), quoted, separated by spaces. */
static void add_words(struct strbuf *sb, const char *const *words)
{
	for (size_t i = 0; words[i]; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		repro_quote(sb, words[i]);
	}
}

/* One command line of WORDS and a newline. */
static void add_line(struct strbuf *sb, const char *const *words)
{
	add_words(sb, words);
	strbuf_addch(sb, '\n');
}

/* A "# ..." line of TEXT with every control character made a space. */
static void add_comment(struct strbuf *sb, const char *text)
{
	strbuf_addstr(sb, "# ");
	for (const char *p = text; *p; p++)
		strbuf_addch(sb,
			     (unsigned char)*p < ' ' || *p == 0x7f ? ' ' : *p);
	strbuf_addch(sb, '\n');
}

/* The variables of builds.flags, in make_argv()'s order. */
static const char *const flag_vars[] = { "KCFLAGS",	  "LLVM", "ARCH",
					 "CROSS_COMPILE", "W",	  "launcher",
					 "checker" };
/* launcher and checker are kwarn's words, not make variables */
#define FLAG_LAUNCHER 5
#define FLAG_CHECKER 6
#define NR_FLAG_VARS (sizeof(flag_vars) / sizeof(flag_vars[0]))

/* The index of the variable WORD ("NAME=...") assigns, or -1. */
static int flag_var(const char *word)
{
	for (size_t i = 0; i < NR_FLAG_VARS; i++) {
		size_t n = strlen(flag_vars[i]);

		if (!strncmp(word, flag_vars[i], n) && word[n] == '=')
			return (int)i;
	}
	return -1;
}

void repro_vars_init(struct repro_vars *v, const char *flags,
		     const char *toolchain, int level)
{
	struct strbuf val[NR_FLAG_VARS];
	int have[NR_FLAG_VARS] = { 0 }, cur = -1;
	const char *p = flags ? flags : "";

	for (size_t i = 0; i < NR_FLAG_VARS; i++)
		strbuf_init(&val[i], 0);
	while (*p) {
		size_t n = strcspn(p, " ");
		char *word = xstrndup(p, n);
		int k = flag_var(word);

		if (k >= 0) {
			cur = k;
			have[k] = 1;
			strbuf_reset(&val[k]);
			strbuf_addstr(&val[k], word);
		} else if (cur >= 0 && n) {
			/* KCFLAGS' value goes on to the next variable */
			strbuf_addf(&val[cur], " %s", word);
		}
		free(word);
		p += n;
		while (*p == ' ')
			p++;
	}
	if (!flags && level >= 0) {
		have[0] = 1;
		strbuf_addf(&val[0], "KCFLAGS=-Wimplicit-fallthrough=%d",
			    level);
	}
	if (!toolchain || !*toolchain)
		toolchain = "gcc";
	/* kbuild's CC: clang as named, gcc behind CROSS_COMPILE */
	if (!strncmp(toolchain, "clang", 5) || !have[3])
		v->cc = xstrdup(toolchain);
	else
		v->cc = xstrfmt("%s%s", val[3].buf + strlen("CROSS_COMPILE="),
				toolchain);
	v->nr = 0;
	v->words[v->nr++] = xstrfmt("CC=%s", v->cc);
	if (have[0])
		v->words[v->nr++] = xstrdup(val[0].buf);
	v->words[v->nr++] = xstrdup("CONFIG_CC_IMPLICIT_FALLTHROUGH=");
	for (size_t i = 1; i < FLAG_LAUNCHER; i++)
		if (have[i])
			v->words[v->nr++] = xstrdup(val[i].buf);
	/* kbuild's checker on the object it compiles: sparse is its CHECK */
	if (have[FLAG_CHECKER])
		v->words[v->nr++] = xstrdup("C=1");
	v->words[v->nr] = NULL;
	for (size_t i = 0; i < NR_FLAG_VARS; i++)
		strbuf_release(&val[i]);
}

void repro_vars_release(struct repro_vars *v)
{
	for (size_t i = 0; i < v->nr; i++)
		free(v->words[i]);
	v->nr = 0;
	v->words[0] = NULL;
	free(v->cc);
	v->cc = NULL;
}

/* The build directory of IMAGE (B/arch/x86/boot/bzImage), or NULL. */
static char *build_dir_of(const char *image)
{
	size_t n = 0;

	if (!arch_of_image(image, &n))
		return NULL;
	return xstrndup(image, n);
}

/* The commands for a build kwarn made itself (see repro_commands()). */
static void add_kwarn_build(struct strbuf *sb, sqlite3_stmt *st,
			    long long build_id, const char *object)
{
	const char *sha = db_col_text(st, 0);
	const char *hash = (const char *)sqlite3_column_text(st, 2);
	const char *compiler = (const char *)sqlite3_column_text(st, 5);
	char *git_dir, *build_dir, *dir, *src, *odir, *note;
	char *config = NULL, *copy = NULL;

	git_dir = tree_repo_dir(db_col_text(st, 6), db_col_text(st, 7),
				(const char *)sqlite3_column_text(st, 8),
				(const char *)sqlite3_column_text(st, 9));
	/* the build directory, or (before it was stored) the image's */
	build_dir =
		sqlite3_column_type(st, 10) != SQLITE_NULL ?
			xstrdup(db_col_text(st, 10)) :
			build_dir_of((const char *)sqlite3_column_text(st, 1));
	dir = xstrfmt("kwarn-%.12s", sha);
	src = xstrfmt("%s/src", dir);
	odir = xstrfmt("%s/build", dir);
	note = xstrfmt("build %lld of commit %.12s, compiled with %s", build_id,
		       sha, compiler ? compiler : "gcc");
	add_comment(sb, note);
	if (git_dir) {
		const char *w[] = { "git",	"--git-dir", git_dir,
				    "worktree", "add",	     "--detach",
				    src,	sha,	     NULL };

		add_line(sb, w);
	} else {
		add_comment(sb, "the tree has no repository in kwarn's cache:"
				" put the commit's tree in the src directory");
	}
	{
		const char *w[] = { "mkdir", "-p", odir, NULL };

		add_line(sb, w);
	}
	if (build_dir && hash) {
		const char *cp[] = { "cp", NULL, NULL, NULL };
		const char *ck[] = { "printf", "%s  %s\\n", hash, NULL, NULL };
		const char *sum[] = { "sha256sum", "--quiet", "-c", NULL };

		cp[1] = config = xstrfmt("%s/.config", build_dir);
		cp[2] = ck[3] = copy = xstrfmt("%s/.config", odir);
		add_line(sb, cp);
		/* the .config kwarn built with, or a loud failure */
		add_words(sb, ck);
		strbuf_addstr(sb, " | ");
		add_line(sb, sum);
	} else {
		add_comment(sb,
			    "the build's .config is not in kwarn's cache:"
			    " configure it as the build's config name says");
	}
	{
		struct repro_vars v;
		const char *w[16];
		size_t k = 0;

		repro_vars_init(&v, (const char *)sqlite3_column_text(st, 11),
				(const char *)sqlite3_column_text(st, 12),
				sqlite3_column_type(st, 3) == SQLITE_NULL ?
					-1 :
					sqlite3_column_int(st, 3));
		w[k++] = "make";
		w[k++] = "-C";
		w[k++] = src;
		w[k++] = "O=../build";
		for (size_t i = 0; i < v.nr; i++)
			w[k++] = v.words[i];
		w[k++] = object;
		w[k] = NULL;
		add_line(sb, w);
		repro_vars_release(&v);
	}
	free(git_dir);
	free(build_dir);
	free(dir);
	free(src);
	free(odir);
	free(note);
	free(config);
	free(copy);
}

int repro_commands(char **out, sqlite3 *db, long long build_id,
		   const char *object)
{
	struct db_read q;
	struct strbuf sb = STRBUF_INIT;
	sqlite3_stmt *st;

	*out = NULL;
	if (query_repro_read(&q, db, build_id))
		return -1;
	st = q.st;
	if (!db_next(&q)) {
		if (!db_done(&q, "cannot read build %lld", build_id))
			error("no build %lld in the database", build_id);
		return -1;
	}
	if (object[0] == '-') {
		/* make would take it for an option, quoted or not */
		add_comment(&sb, "the object's name starts with '-':"
				 " no make line for it");
	} else if (!strcmp(db_col_text(st, 4), "ingested")) {
		const char *w[] = { "make", object, NULL };

		add_comment(&sb, "from an ingested log: kwarn does not know"
				 " its tree, config or make variables");
		add_line(&sb, w);
	} else {
		add_kwarn_build(&sb, st, build_id, object);
	}
	*out = strbuf_detach(&sb, NULL);
	return db_done(&q, "cannot read build %lld", build_id);
}

/* "reproducer" of the one warning W (repro_attach()). */
static void attach_one(sqlite3 *db, json_t *w)
{
	const char *obj = json_string_value(json_object_get(w, "object"));
	json_t *build = json_object_get(w, "build");
	char *s = NULL;

	if (obj && json_is_integer(build) &&
	    !repro_commands(&s, db, json_integer_value(build), obj))
		json_object_set_new(w, "reproducer", jstr(s));
	else
		json_object_set_new(w, "reproducer", json_null());
	free(s);
}

void repro_attach(sqlite3 *db, json_t *warnings)
{
	json_t *w;
	size_t i;

	if (json_is_object(warnings)) {
		attach_one(db, warnings);
		return;
	}
	json_array_foreach(warnings, i, w)
		attach_one(db, w);
}
