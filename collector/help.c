// SPDX-License-Identifier: MIT
/*
 * kwarn help CMD: the command's manual page.
 *
 * The page is found beside the program: doc/man/ of the checkout it was
 * built in, else share/man/man1/ of the prefix it was installed in.  man(1)
 * shows it when it is installed; without man (a minimal container), the
 * page's troff source is turned into plain text here: the man(7) macros
 * the pages use are few, and a reader wants the words, not the typography.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kwarn.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

#define WIDTH 78

struct text {
	char line[4096]; /* the output line being filled */
	size_t len;
	int indent, tag; /* tag: the next line is a .TP tag */
	int nofill; /* between .EX and .EE */
};

/* Replace the troff escapes of S in place with their plain text. */
static void unescape(char *s)
{
	static const struct {
		const char *esc, *text;
	} named[] = {
		{ "(lq", "\"" }, { "(rq", "\"" }, { "(dq", "\"" },
		{ "(aq", "'" },	 { "(bu", "*" },  { "(em", "--" },
		{ "fB", "" },	 { "fI", "" },	  { "fR", "" },
		{ "fP", "" },	 { "-", "-" },	  { "e", "\\" },
		{ "&", "" },	 { ":", "" },	  { " ", " " },
	};
	char *out = s;

	while (*s) {
		size_t i;

		if (*s != '\\') {
			*out++ = *s++;
			continue;
		}
		s++;
		for (i = 0; i < ARRAY_SIZE(named); i++) {
			size_t n = strlen(named[i].esc);

			if (!strncmp(s, named[i].esc, n)) {
				size_t m = strlen(named[i].text);

				memmove(out, named[i].text, m);
				out += m;
				s += n;
				break;
			}
		}
		if (i == ARRAY_SIZE(named) && *s) /* unknown: keep the char */
			*out++ = *s++;
	}
	*out = '\0';
}

static void flush(struct text *t)
{
	if (t->len)
		printf("%.*s\n", (int)t->len, t->line);
	t->len = 0;
}

static void blank(struct text *t)
{
	flush(t);
	putchar('\n');
}

/* Add one word to the filled line, breaking it at WIDTH columns. */
static void word(struct text *t, const char *w, size_t n)
{
	if (t->len && t->len + 1 + n > WIDTH)
		flush(t);
	if (!t->len) {
		memset(t->line, ' ', (size_t)t->indent);
		t->len = (size_t)t->indent;
	} else {
		t->line[t->len++] = ' ';
	}
	if (n > sizeof(t->line) - t->len - 1)
		n = sizeof(t->line) - t->len - 1;
	memcpy(t->line + t->len, w, n);
	t->len += n;
}

/* Text of the page (escapes already gone), filled or as it is. */
static void text(struct text *t, const char *s)
{
	if (t->nofill) {
		printf("%*s%s\n", t->indent + 4, "", s);
		return;
	}
	for (;;) {
		size_t n;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		n = strcspn(s, " \t");
		word(t, s, n);
		s += n;
	}
	if (t->tag) { /* a .TP tag stands on its own line */
		flush(t);
		t->tag = 0;
		t->indent += 7;
	}
}

/*
 * The arguments of a macro line, quotes removed, joined by a space (.B,
 * .I) or by nothing (.BR, .IR and the other alternating macros).
 */
static void macro_args(char *out, size_t size, const char *args, int join)
{
	size_t len = 0;
	int first = 1;

	while (*args) {
		const char *end;

		while (*args == ' ')
			args++;
		if (!*args)
			break;
		if (*args == '"') {
			args++;
			end = strchr(args, '"');
			if (!end)
				end = args + strlen(args);
		} else {
			end = args + strcspn(args, " ");
		}
		if (!first && !join && len + 1 < size)
			out[len++] = ' ';
		first = 0;
		while (args < end && len + 1 < size)
			out[len++] = *args++;
		args = *end ? end + 1 : end;
	}
	out[len] = '\0';
}

/* .BR, .IR, .RB, .BI, .IB, .RI: fonts alternate, words are joined. */
static int alternating(const char *name)
{
	return strlen(name) == 2 && strchr("BIR", name[0]) &&
	       strchr("BIR", name[1]) && name[0] != name[1];
}

/* A paragraph macro ends a .TP body: back to the section's indent. */
static void paragraph(struct text *t, int indent)
{
	blank(t);
	t->indent = indent;
	t->tag = 0;
}

static void render(char *page)
{
	struct text t = { .indent = 7 };
	int base = 7; /* the indent of a section's text, moved by .RS/.RE */
	char *line, *save = NULL;

	for (line = strtok_r(page, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[8] = "", args[4096];
		size_t n;

		if (line[0] != '.' && line[0] != '\'') {
			unescape(line);
			text(&t, line);
			continue;
		}
		n = strcspn(line + 1, " ");
		if (n >= sizeof(name))
			continue;
		memcpy(name, line + 1, n);
		name[n] = '\0';
		macro_args(args, sizeof(args), line + 1 + n, alternating(name));
		unescape(args);
		if (!strcmp(name, "TH")) {
			args[strcspn(args, " ")] = '\0';
			printf("%s(1)\n", args);
		} else if (!strcmp(name, "SH") || !strcmp(name, "SS")) {
			blank(&t);
			printf("%*s%s\n", name[1] == 'S' ? 3 : 0, "", args);
			t.indent = base = 7;
			t.tag = 0;
		} else if (!strcmp(name, "PP") || !strcmp(name, "P") ||
			   !strcmp(name, "LP")) {
			paragraph(&t, base);
		} else if (!strcmp(name, "TP")) {
			paragraph(&t, base);
			t.tag = 1;
		} else if (!strcmp(name, "IP")) {
			paragraph(&t, base);
			if (*args) {
				args[strcspn(args, " ")] = '\0';
				word(&t, args, strlen(args));
			}
			t.indent = base + 2;
		} else if (!strcmp(name, "RS")) {
			flush(&t);
			t.indent = base += 7;
		} else if (!strcmp(name, "RE")) {
			flush(&t);
			base = base > 7 ? base - 7 : 7;
			t.indent = base + 7;
		} else if (!strcmp(name, "br") || !strcmp(name, "YS")) {
			flush(&t);
		} else if (!strcmp(name, "EX")) {
			flush(&t);
			t.nofill = 1;
		} else if (!strcmp(name, "EE")) {
			t.nofill = 0;
		} else if (!strcmp(name, "SY")) {
			flush(&t);
			text(&t, args);
		} else if (strchr("BIRS", name[0]) && *args) {
			text(&t, args); /* .B .I .BR .IR .RB .BI .SM ... */
		}
		/* anything else (comments, .na, .ad) has no text */
	}
	flush(&t);
}

/* The page of kwarn-CMD beside this program, or NULL (a new string). */
static char *find_page(const char *cmd)
{
	static const char *const dirs[] = { "doc/man", "share/man/man1" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *rel = xstrfmt("%s/kwarn-%s.1", dirs[i], cmd);
		char *path = run_data_path(rel);

		free(rel);
		if (!access(path, R_OK))
			return path;
		free(path);
	}
	return NULL;
}

int cmd_help(const char *cmd)
{
	char *path = find_page(cmd), *page = NULL, *name;

	if (util_in_path("man")) {
		fflush(stdout);
		if (path) {
			execlp("man", "man", "-l", path, (char *)NULL);
		} else {
			name = xstrfmt("kwarn-%s", cmd);
			execlp("man", "man", name, (char *)NULL);
			free(name);
		}
	}
	if (!path) {
		error("no manual page for kwarn-%s beside this kwarn", cmd);
		return 2;
	}
	if (util_read_file(&page, NULL, path, CAP_SMALL_FILE)) {
		free(path);
		return 2;
	}
	render(page);
	free(page);
	free(path);
	return 0;
}
