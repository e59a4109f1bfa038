// SPDX-License-Identifier: MIT
/*
 * kwarn report --format mail: an mbox with one message per point that
 * brought new warnings, shaped like the kernel test robot's reports that
 * maintainers already read: tree:, head:, commit:, config:, compiler: and
 * reproduce: lines, a Reported-by: to copy, "All warnings (new ones
 * prefixed by >>)" over the files with new warnings, and the source
 * around each new one.  A new warning whose identity was triaged as no
 * bug to act on (report_is_settled()) asks nothing of anyone: it brings
 * no message, and is shown, marked and with its triage, only beside
 * others.  To: is the commit's author and the M: entries of
 * MAINTAINERS for those files, Cc: their R: and L: entries, matched the
 * way get_maintainer.pl matches them (F:, X:, N:; not K:, which reads the
 * files' text).  A point whose patch came from a mail (a Message-Id in
 * the patch file beside the run's series) is answered: In-Reply-To: and
 * References: it, and a Closes: tag naming the report on lore, as the
 * robot's do.  kwarn sends nothing itself:
 * `git send-email` or `mutt -f` reads the file.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "kwarn.h"
#include "query.h"
#include "report-out.h"
#include "srctree.h"
#include "tree.h"
#include "util.h"
#include "maint.h"
#include "caps.h"
#include "banned.h"

#define REPORTER "kwarn <kwarn@localhost>"
#define EXCERPT_BEFORE 5
#define EXCERPT_AFTER 2

static long long jint(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* S with every control character a space: safe in a header or a line. */
static void add_clean(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb,
			     (unsigned char)*s < ' ' || *s == 0x7f ? ' ' : *s);
}

/* Append ADDR to the JSON array LIST unless some list in SEEN has it. */
static void add_addr(json_t *list, json_t *seen, const char *addr, size_t len)
{
	char *a = xstrndup(addr, len);

	if (*a && !json_object_get(seen, a)) {
		json_object_set_new(seen, a, json_true());
		json_array_append_new(list, json_string(a));
	}
	free(a);
}

/*
 * The To: and Cc: lists for FILES: M: to TO, R: and L: to CC, from every
 * MAINTAINERS entry that matches one of them; a list's "(moderated ...)"
 * remark is dropped, as get_maintainer.pl drops it, a reviewer's name
 * kept.
 */
static void recipients(json_t *to, json_t *cc, json_t *seen,
		       const struct maint *m, json_t *files)
{
	size_t match[64], nm, i, k, na;
	const char *addr[64];
	json_t *f;

	if (!m)
		return;
	json_array_foreach(files, i, f) {
		nm = maint_match(match, ARRAY_SIZE(match), m,
				 json_string_value(f));
		if (nm > ARRAY_SIZE(match))
			nm = ARRAY_SIZE(match);
		for (k = 0; k < nm; k++) {
			na = maint_addresses(addr, ARRAY_SIZE(addr), m,
					     match[k], "M");
			for (size_t j = 0; j < na && j < ARRAY_SIZE(addr); j++)
				if (!strstr(addr[j], MAINT_CHIEF_PENGUIN))
					add_addr(to, seen, addr[j],
						 strlen(addr[j]));
		}
	}
	json_array_foreach(files, i, f) {
		nm = maint_match(match, ARRAY_SIZE(match), m,
				 json_string_value(f));
		if (nm > ARRAY_SIZE(match))
			nm = ARRAY_SIZE(match);
		for (k = 0; k < nm; k++) {
			/* a reviewer whole, with the name; a list's address */
			na = maint_addresses(addr, ARRAY_SIZE(addr), m,
					     match[k], "R");
			for (size_t j = 0; j < na && j < ARRAY_SIZE(addr); j++)
				add_addr(cc, seen, addr[j], strlen(addr[j]));
			na = maint_addresses(addr, ARRAY_SIZE(addr), m,
					     match[k], "L");
			for (size_t j = 0; j < na && j < ARRAY_SIZE(addr); j++)
				add_addr(cc, seen, addr[j],
					 strcspn(addr[j], " \t("));
		}
	}
}

static void add_header_list(struct strbuf *sb, const char *name, json_t *list)
{
	size_t i;
	json_t *a;

	if (!json_array_size(list))
		return;
	strbuf_addf(sb, "%s: ", name);
	json_array_foreach(list, i, a) {
		if (i)
			strbuf_addstr(sb, ",\n    ");
		add_clean(sb, json_string_value(a));
	}
	strbuf_addch(sb, '\n');
}

/* The text of FILE at commit SHA of GIT_DIR (new string), or NULL. */
static char *file_at(const char *git_dir, const char *sha, const char *file)
{
	char tmpl[] = "/tmp/kwarn-mail-XXXXXX";
	char *spec, *text = NULL;
	int fd;

	if (!git_dir || !*file || file[0] == '/' || sha[0] == '-')
		return NULL;
	fd = mkstemp(tmpl);
	if (fd < 0)
		return NULL;
	close(fd);
	spec = xstrfmt("%s:%s", sha, file);
	{
		const char *argv[] = { "git",  "--git-dir", git_dir,
				       "show", spec,	    NULL };

		if (util_run(argv, NULL, tmpl, "/dev/null") ||
		    util_read_file(&text, NULL, tmpl, CAP_SOURCE_FILE)) {
			free(text);
			text = NULL;
		}
	}
	unlink(tmpl);
	free(spec);
	return text;
}

/* "vim +LINE FILE" and the lines around LINE, LINE marked with '>'. */
static void add_excerpt(struct strbuf *sb, json_t *w, const char *text)
{
	long long line = jint(w, "line"), n = 1;
	const char *p = text;

	strbuf_addf(sb, "vim +%lld ", line);
	add_clean(sb, report_str(w, "file"));
	strbuf_addstr(sb, "\n\n");
	if (!text) {
		/* no tree to read: the line gcc printed */
		strbuf_addf(sb, " > %5lld\t", line);
		add_clean(sb, report_str(w, "source"));
		strbuf_addstr(sb, "\n\n");
		return;
	}
	while (*p && n <= line + EXCERPT_AFTER) {
		const char *eol = strchrnul(p, '\n');

		if (n >= line - EXCERPT_BEFORE) {
			char *l = xstrndup(p, (size_t)(eol - p));

			strbuf_addf(sb, "%s%5lld\t", n == line ? " > " : "   ",
				    n);
			for (char *c = l; *c; c++)
				strbuf_addch(sb, *c == '\t' ? '\t' :
						 (unsigned char)*c < ' ' ? ' ' :
									   *c);
			strbuf_addch(sb, '\n');
			free(l);
		}
		if (!*eol)
			break;
		p = eol + 1;
		n++;
	}
	strbuf_addch(sb, '\n');
}

/*
 * The Message-Id of point E's patch when the series came from a mail:
 * read from the patch file beside the run's series file (runs.series, as
 * kwarn run read it; the patch named by the series line whose file name
 * is the point's patch), as a new string; NULL when the run is no series
 * of patches, the file is no longer there, or it has no Message-Id.
 * Quiet.
 */
static char *point_message_id(json_t *info, json_t *e)
{
	const char *series = report_str(info, "series");
	const char *patch = report_str(e, "patch");
	char *dir, *slash, *text = NULL, *path = NULL, *line, *next, *id;

	if (!*series || !*patch || strchr(patch, '/') || access(series, R_OK) ||
	    util_read_file(&text, NULL, series, CAP_SMALL_FILE))
		return NULL;
	dir = xstrdup(series);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (line = text; !path && line && *line; line = next) {
		char *name;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		line[strcspn(line, " \t")] = '\0';
		name = strrchr(line, '/');
		if (!strcmp(name ? name + 1 : line, patch))
			path = xstrfmt("%s/%s", slash ? dir : ".", line);
	}
	free(text);
	free(dir);
	text = NULL;
	id = path && !access(path, R_OK) &&
			     !util_read_file(&text, NULL, path,
					     CAP_SOURCE_FILE) ?
		     patch_message_id(text) :
		     NULL;
	free(text);
	free(path);
	return id;
}

/*
 * The compiler: line: the build's compiler as it named itself, else the
 * run's (kwarn run --cc), else gcc, which the other reports assume of a
 * run that names none, saying that an ingested log did not record it.
 */
static void add_compiler(struct strbuf *sb, json_t *build)
{
	const char *cc = report_str(build, "compiler");
	const char *tc = report_str(build, "toolchain");

	if (*cc) {
		add_clean(sb, cc);
		return;
	}
	add_clean(sb, *tc ? tc : "gcc");
	if (!strcmp(report_str(build, "status"), "ingested"))
		strbuf_addstr(sb, " (its version not recorded: an ingested"
				  " log)");
}

/* W is new and not triaged as no bug: what a message is sent for. */
static int is_to_act_on(json_t *w)
{
	return !strcmp(report_str(w, "state"), "new") && !report_is_settled(w);
}

/*
 * One warning as gcc printed it, MARK before its first line alone (as the
 * kernel test robot marks the warning, not its source or notes), then
 * its source line, notes and triage.
 */
static void add_warning(struct strbuf *sb, json_t *w, const char *mark)
{
	struct strbuf t = STRBUF_INIT;
	const char *opt = report_str(w, "option");
	size_t i;
	json_t *n;

	strbuf_addstr(sb, mark);
	add_clean(sb, report_str(w, "file"));
	strbuf_addf(sb, ":%lld:%lld: ", jint(w, "line"), jint(w, "column"));
	add_clean(sb, report_str(w, "kind"));
	strbuf_addstr(sb, ": ");
	add_clean(sb, report_str(w, "message"));
	if (*opt) {
		strbuf_addstr(sb, " [");
		add_clean(sb, opt);
		strbuf_addch(sb, ']');
	}
	strbuf_addch(sb, '\n');
	if (*report_str(w, "source")) {
		strbuf_addf(sb, "   %5lld | ", jint(w, "line"));
		add_clean(sb, report_str(w, "source"));
		strbuf_addch(sb, '\n');
	}
	json_array_foreach(json_object_get(w, "notes"), i, n) {
		strbuf_addstr(sb, "   ");
		add_clean(sb, report_str(n, "file"));
		strbuf_addf(sb, ":%lld:%lld: note: ", jint(n, "line"),
			    jint(n, "column"));
		add_clean(sb, report_str(n, "message"));
		strbuf_addch(sb, '\n');
	}
	if (report_triage_text(&t, w)) {
		strbuf_addstr(sb, "   triage: ");
		add_clean(sb, t.buf);
		strbuf_addch(sb, '\n');
	}
	strbuf_release(&t);
}

/*
 * Every warning at E in the files of the new ones, file by file, with an
 * "In function" line when the function changes; ">> " on the new ones.
 */
static void add_all_warnings(struct strbuf *sb, json_t *e, json_t *files)
{
	size_t i, j;
	json_t *f, *w;

	json_array_foreach(files, i, f) {
		const char *file = json_string_value(f), *last = NULL;

		json_array_foreach(json_object_get(e, "warnings_list"), j, w) {
			const char *state = report_str(w, "state");
			const char *fn = report_str(w, "function");
			int is_new = !strcmp(state, "new");

			if (strcmp(report_str(w, "file"), file) ||
			    (!is_new && strcmp(state, "present")))
				continue;
			if (*fn && (!last || strcmp(last, fn))) {
				strbuf_addstr(sb, "   ");
				add_clean(sb, file);
				strbuf_addstr(sb, ": In function '");
				add_clean(sb, fn);
				strbuf_addstr(sb, "':\n");
			}
			last = fn;
			add_warning(sb, w, is_new ? ">> " : "   ");
		}
	}
}

/* Unix time T as an RFC 5322 date and as the mbox From_ line's date. */
static void dates(char *rfc, size_t rlen, char *ctime_buf, size_t clen,
		  long long t)
{
	time_t tt = (time_t)(t > 0 ? t : 0);
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(rfc, rlen, "%a, %d %b %Y %H:%M:%S +0000", &tm);
	strftime(ctime_buf, clen, "%a %b %e %H:%M:%S %Y", &tm);
}

/* The message for point E into SB (body lines not yet mbox-escaped). */
/*
 * One message for the new warnings of point E.  HEAD is the branch's
 * head; INTRODUCED ({sha, subject}, or NULL) the commit a bisection named
 * for them, which the commit: line gives instead of E's, as the kernel
 * test robot names the commit it bisected to.
 */
static void add_message(struct strbuf *sb, json_t *e, json_t *info,
			json_t *build, const struct maint *m, const char *head,
			json_t *introduced, size_t npoints, const char *git_dir)
{
	json_t *to = json_array(), *cc = json_array(), *seen = json_object();
	json_t *files = json_array(), *fseen = json_object(), *w, *first = NULL;
	const char *author = report_str(e, "author");
	char *patch_id = point_message_id(info, e), *msgid;
	long long nnew = 0;
	char rfc[64], from_date[64];
	size_t i;

	json_array_foreach(json_object_get(e, "warnings_list"), i, w) {
		const char *file = report_str(w, "file");

		if (!is_to_act_on(w))
			continue;
		nnew++;
		if (!first)
			first = w;
		if (!json_object_get(fseen, file)) {
			json_object_set_new(fseen, file, json_true());
			json_array_append_new(files, json_string(file));
		}
	}
	if (strchr(author, '@'))
		add_addr(to, seen, author, strlen(author));
	recipients(to, cc, seen, m, files);
	dates(rfc, sizeof(rfc), from_date, sizeof(from_date),
	      jint(info, "started_at"));
	strbuf_addf(sb, "From kwarn@localhost %s\n", from_date);
	strbuf_addstr(sb, "From: " REPORTER "\n");
	add_header_list(sb, "To", to);
	add_header_list(sb, "Cc", cc);
	strbuf_addstr(sb, "Subject: [kwarn ");
	add_clean(sb, report_str(info, "tree"));
	if (*report_str(info, "series")) {
		const char *s = report_str(info, "series");
		const char *b = strrchr(s, '/');

		strbuf_addch(sb, ' ');
		add_clean(sb, b && b[1] ? b + 1 : s);
	}
	if (npoints)
		strbuf_addf(sb, " %lld/%zu]", jint(e, "position"), npoints);
	else /* a nightly: the tree, compared with the nights before */
		strbuf_addf(sb, "%s%s nightly]",
			    *report_str(info, "version") ? " " : "",
			    report_str(info, "version"));
	strbuf_addf(sb, " %lld new warning%s: ", nnew, nnew == 1 ? "" : "s");
	add_clean(sb, report_str(first, "file"));
	strbuf_addf(sb, ":%lld:%lld: ", jint(first, "line"),
		    jint(first, "column"));
	add_clean(sb, report_str(first, "kind"));
	strbuf_addstr(sb, ": ");
	add_clean(sb, report_str(first, "message"));
	strbuf_addf(sb, "\nDate: %s\n", rfc);
	msgid = xstrfmt("kwarn-run%lld-%lld-%.12s@localhost", jint(info, "run"),
			jint(e, "position"), report_str(e, "commit"));
	strbuf_addf(sb, "Message-ID: <%s>\n", msgid);
	/* a reply to the patch's mail, as the robot answers a patch */
	if (patch_id) {
		strbuf_addstr(sb, "In-Reply-To: <");
		add_clean(sb, patch_id);
		strbuf_addstr(sb, ">\nReferences: <");
		add_clean(sb, patch_id);
		strbuf_addstr(sb, ">\n");
	}
	strbuf_addstr(sb, "MIME-Version: 1.0\n"
			  "Content-Type: text/plain; charset=UTF-8\n"
			  "Content-Transfer-Encoding: 8bit\n\n");
	strbuf_addstr(sb, "tree:     ");
	add_clean(sb, report_str(info, "tree"));
	if (*report_str(info, "version")) {
		strbuf_addch(sb, ' ');
		add_clean(sb, report_str(info, "version"));
	}
	if (*report_str(info, "series")) {
		strbuf_addstr(sb, " series ");
		add_clean(sb, report_str(info, "series"));
	}
	strbuf_addf(sb, "\nhead:     %s\ncommit:   %s (\"", head,
		    introduced ? report_str(introduced, "sha") :
				 report_str(e, "commit"));
	add_clean(sb, introduced ? report_str(introduced, "subject") :
				   report_str(e, "subject"));
	strbuf_addstr(sb, "\")\nconfig:   ");
	add_clean(sb, report_str(build, "config_name"));
	strbuf_addstr(sb, "\ncompiler: ");
	add_compiler(sb, build);
	strbuf_addstr(sb, "\nreproduce:\n");
	{
		/* the first new warning's: the others differ by object only */
		const char *p = report_str(first, "reproducer"), *eol;

		for (; *p; p = *eol ? eol + 1 : eol) {
			eol = strchrnul(p, '\n');
			strbuf_addstr(sb, "        ");
			strbuf_add(sb, p, (size_t)(eol - p));
			strbuf_addch(sb, '\n');
		}
	}
	strbuf_addstr(
		sb,
		"\nIf you fix the issue in a separate patch/commit (i.e. not"
		" just a new version of\nthe same patch/commit), kindly add"
		" following tags\n| Reported-by: " REPORTER "\n");
	/* the robot's Closes: this report, where the lists it went to keep it */
	if (patch_id)
		strbuf_addf(sb, "| Closes: https://lore.kernel.org/r/%s/\n",
			    msgid);
	strbuf_addstr(sb, "\nAll warnings (new ones prefixed by >>):\n\n");
	add_all_warnings(sb, e, files);
	strbuf_addch(sb, '\n');
	json_array_foreach(json_object_get(e, "warnings_list"), i, w) {
		char *text;

		if (!is_to_act_on(w))
			continue;
		text = file_at(git_dir, report_str(e, "commit"),
			       report_str(w, "file"));
		add_excerpt(sb, w, text);
		free(text);
	}
	strbuf_addstr(sb, "-- \nkwarn, a Linux kernel build-warning tracker\n");
	free(patch_id);
	free(msgid);
	json_decref(to);
	json_decref(cc);
	json_decref(seen);
	json_decref(files);
	json_decref(fseen);
}

/* MSG to FP with mboxrd escaping: ">" before every body "From " line. */
static int write_mbox(FILE *fp, const char *msg)
{
	const char *p = strchr(msg, '\n'), *eol;

	/* the From_ line itself is not escaped */
	if (!p ||
	    fwrite(msg, 1, (size_t)(p + 1 - msg), fp) != (size_t)(p + 1 - msg))
		return -1;
	for (p++; *p; p = *eol ? eol + 1 : eol) {
		const char *q = p;

		eol = strchrnul(p, '\n');
		while (*q == '>')
			q++;
		if (!strncmp(q, "From ", 5) && fputc('>', fp) == EOF)
			return -1;
		if (fwrite(p, 1, (size_t)(eol - p), fp) != (size_t)(eol - p) ||
		    fputc('\n', fp) == EOF)
			return -1;
	}
	return fputc('\n', fp) == EOF ? -1 : 0;
}

/* 1 if point E has a new warning to act on (is_to_act_on()), else 0. */
static int has_to_act_on(json_t *e)
{
	size_t i;
	json_t *w;

	json_array_foreach(json_object_get(e, "warnings_list"), i, w) {
		if (is_to_act_on(w))
			return 1;
	}
	return 0;
}

int report_mail(FILE *fp, sqlite3 *db, long long run_id)
{
	json_t *arr = NULL, *info = NULL, *e;
	struct maint *m = NULL;
	const char *maint_text, *head = "";
	char *git_dir = NULL;
	size_t i, npoints, nmail = 0;
	int ret = -1;

	if (report_run_json(&arr, db, run_id) ||
	    query_run_info(&info, db, run_id))
		goto out;
	maint_text = report_str(info, "maintainers");
	if (*maint_text && maint_parse(&m, maint_text, strlen(maint_text)))
		goto out;
	git_dir = tree_repo_dir(report_str(info, "tree_kind"),
				report_str(info, "tree"),
				report_str(info, "source"),
				report_str(info, "sha256"));
	json_array_foreach(arr, i, e)
		if (json_is_integer(json_object_get(e, "build")))
			head = report_str(e, "commit");
	npoints = json_array_size(arr) ? json_array_size(arr) - 1 : 0;
	/* a nightly's one point: what is new is report_mail_nightly()'s */
	json_array_foreach(arr, i, e) {
		json_t *build = NULL;
		struct strbuf sb = STRBUF_INIT;
		int bad;

		if (jint(e, "position") == 0 || !has_to_act_on(e) ||
		    !json_is_integer(json_object_get(e, "build")))
			continue;
		if (query_build_info(&build, db, jint(e, "build")))
			goto out;
		add_message(&sb, e, info, build, m, head, NULL, npoints,
			    git_dir);
		bad = write_mbox(fp, sb.buf);
		strbuf_release(&sb);
		json_decref(build);
		nmail++;
		if (bad) {
			error("cannot write the mbox");
			goto out;
		}
	}
	/* an empty mbox is the answer; say why on stderr */
	if (!nmail)
		fprintf(stderr,
			"kwarn: no mail: no commit of run %lld after its base brought a warning to act on\n",
			run_id);
	ret = 0;
out:
	maint_free(m);
	free(git_dir);
	json_decref(arr);
	json_decref(info);
	return ret;
}

/* Whether W of a point is one of the nightly's NEWS (file, line, message). */
static int is_news(json_t *news, json_t *w)
{
	size_t i;
	json_t *n;

	json_array_foreach(news, i, n) {
		if (!strcmp(report_str(n, "file"), report_str(w, "file")) &&
		    jint(n, "line") == jint(w, "line") &&
		    !strcmp(report_str(n, "message"), report_str(w, "message")))
			return 1;
	}
	return 0;
}

int report_mail_nightly(FILE *fp, sqlite3 *db, json_t *entry)
{
	json_t *arr = NULL, *info = NULL, *build = NULL, *e = NULL, *w;
	json_t *news = json_object_get(entry, "new"), *introduced = NULL;
	struct maint *m = NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *maint_text;
	char *git_dir = NULL;
	size_t i;
	int ret = -1, act = 0;

	json_array_foreach(news, i, w)
		act |= !report_is_settled(w);
	if (!act)
		return 0;
	if (report_run_json(&arr, db, jint(entry, "run")) ||
	    query_run_info(&info, db, jint(entry, "run")))
		goto out;
	maint_text = report_str(info, "maintainers");
	if (*maint_text && maint_parse(&m, maint_text, strlen(maint_text)))
		goto out;
	git_dir = tree_repo_dir(report_str(info, "tree_kind"),
				report_str(info, "tree"),
				report_str(info, "source"),
				report_str(info, "sha256"));
	e = json_deep_copy(json_array_get(arr, 0));
	if (!e || !json_is_integer(json_object_get(e, "build"))) {
		error("nightly run %lld has no build to mail",
		      jint(entry, "run"));
		goto out;
	}
	/*
	 * The run's one point holds every warning as new (it is its first):
	 * ">>" goes only on what the nightly found new against the nights
	 * before, the others are shown as present.
	 */
	json_array_foreach(json_object_get(e, "warnings_list"), i, w) {
		const char *state = report_str(w, "state");

		if (!strcmp(state, "new") || !strcmp(state, "present"))
			json_object_set_new(w, "state",
					    json_string(is_news(news, w) ?
								"new" :
								"present"));
	}
	if (query_build_info(&build, db, jint(e, "build")))
		goto out;
	/* a moved branch: the commit the first bisected warning came with */
	json_array_foreach(news, i, w) {
		json_t *in = json_object_get(w, "introduced");

		if (json_is_object(in) && *report_str(in, "sha") &&
		    !report_is_settled(w)) {
			introduced = in;
			break;
		}
	}
	add_message(&sb, e, info, build, m, report_str(e, "commit"), introduced,
		    0, git_dir);
	if (write_mbox(fp, sb.buf)) {
		error("cannot write the mbox");
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	maint_free(m);
	free(git_dir);
	json_decref(arr);
	json_decref(info);
	json_decref(build);
	json_decref(e);
	return ret;
}
