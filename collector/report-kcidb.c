// SPDX-License-Identifier: MIT
/*
 * kwarn report --format kcidb: the run in KernelCI's common database
 * format, kcidb-io's schema version 5 (minor 3), so that `kcidb-validate`
 * and `kcidb-submit` take it as it is.  Each point is a checkout, its
 * build a build (compiler, config, log excerpt), its boot a test at path
 * "boot" (and "boot.modules" with --full), each warning identity an issue
 * and each build that printed it (or fixed it) an incident.  Every id
 * starts with the origin "kwarn:".  No property is ever null: what kwarn
 * does not know is left out, as the schema asks.
 *
 * What people decided about a warning (kwarn triage) is the issue's: v5
 * has no triage state, so it goes in the issue's misc as "triage" (state,
 * reason, who, at, origin, link); its link is the issue's report_url (the
 * schema's "report describing the issue", such as the compiler's bug);
 * and a compiler bug or a false positive names the tool, not the code, as
 * its culprit.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "kwarn.h"
#include "query.h"
#include "arch.h"
#include "report-out.h"
#include "repro.h"
#include "util.h"
#include "banned.h"

#define ORIGIN "kwarn"

static void set_str(json_t *o, const char *key, const char *v)
{
	if (v && *v)
		json_object_set_new(o, key, json_string(v));
}

/* Unix time T as RFC 3339 in UTC, into O at KEY (left out when 0). */
static void set_time(json_t *o, const char *key, long long t)
{
	char buf[32];
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&tt, &tm))
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
	json_object_set_new(o, key, json_string(buf));
}

static int is_sha1(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 40;
}

static long long jint(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static json_t *checkout_of(json_t *e, json_t *info, char *id)
{
	json_t *c = json_object(), *misc = json_object();
	const char *sha = report_str(e, "commit");

	json_object_set_new(c, "id", json_string(id));
	json_object_set_new(c, "origin", json_string(ORIGIN));
	set_str(c, "tree_name", report_str(info, "tree"));
	if (is_sha1(sha))
		json_object_set_new(c, "git_commit_hash", json_string(sha));
	set_str(c, "comment", report_str(e, "subject"));
	set_time(c, "start_time", jint(info, "started_at"));
	json_object_set_new(
		c, "valid",
		json_boolean(strcmp(report_str(e, "apply_status"), "failed")));
	json_object_set_new(misc, "run", json_integer(jint(info, "run")));
	json_object_set_new(misc, "position",
			    json_integer(jint(e, "position")));
	json_object_set_new(misc, "commit", json_string(sha));
	set_str(misc, "patch", report_str(e, "patch"));
	set_str(misc, "version", report_str(info, "version"));
	set_str(misc, "apply_error", report_str(e, "apply_error"));
	json_object_set_new(c, "misc", misc);
	return c;
}

/* The build's architecture: stored, or its image's; the host's. */
static const struct arch *arch_of_build(json_t *build)
{
	const struct arch *a = arch_find(report_str(build, "arch"));

	if (!a)
		a = arch_of_image(report_str(build, "image"), NULL);
	return a ? a : arch_host();
}

/*
 * The make line kwarn ran for the image, quoted as the reproducer quotes
 * it: the build's own variables (repro.h), CC behind kwarn-cc.
 */
static char *command_of(json_t *build)
{
	struct strbuf sb = STRBUF_INIT;
	const char *image = report_str(build, "image");
	const char *flags = report_str(build, "flags");
	const char *targets = report_str(build, "targets");
	const struct arch *a = arch_of_build(build);
	struct repro_vars v;
	size_t n = 0;
	char *dir, *w;

	dir = *report_str(build, "build_dir") ?
		      xstrdup(report_str(build, "build_dir")) :
	      arch_of_image(image, &n) ? xstrndup(image, n) :
					 xstrdup("BUILD");
	repro_vars_init(&v, *flags ? flags : NULL,
			report_str(build, "toolchain"),
			json_is_integer(json_object_get(build, "level")) ?
				(int)jint(build, "level") :
				-1);
	strbuf_addstr(&sb, "make ");
	w = xstrfmt("O=%s", dir);
	repro_quote(&sb, w);
	free(w);
	strbuf_addch(&sb, ' ');
	w = xstrfmt("CC=kwarn-cc %s", v.cc);
	repro_quote(&sb, w);
	free(w);
	/* words[0] is CC= */
	for (size_t i = 1; i < v.nr; i++) {
		strbuf_addch(&sb, ' ');
		repro_quote(&sb, v.words[i]);
	}
	if (*targets) {
		/* --targets: these objects, no image */
		for (const char *p = targets; *p;) {
			size_t len = strcspn(p, ",");
			char *t = xstrndup(p, len);

			strbuf_addch(&sb, ' ');
			repro_quote(&sb, t);
			free(t);
			p += len;
			p += *p == ',';
		}
	} else {
		strbuf_addf(&sb, " %s", a->target);
	}
	repro_vars_release(&v);
	free(dir);
	return strbuf_detach(&sb, NULL);
}

static json_t *build_of(json_t *e, json_t *build, const char *checkout_id,
			const char *id)
{
	json_t *b = json_object(), *misc = json_object();
	const char *status = report_str(build, "status");
	long long ms = jint(build, "wall_ms");

	json_object_set_new(b, "id", json_string(id));
	json_object_set_new(b, "origin", json_string(ORIGIN));
	json_object_set_new(b, "checkout_id", json_string(checkout_id));
	set_time(b, "start_time", jint(build, "created_at") - ms / 1000);
	if (ms > 0)
		json_object_set_new(b, "duration", json_real(ms / 1000.0));
	set_str(b, "compiler", report_str(build, "compiler"));
	set_str(b, "config_name", report_str(build, "config_name"));
	set_str(b, "log_excerpt", report_str(build, "log_tail"));
	if (strcmp(status, "ingested")) {
		char *cmd = command_of(build);

		json_object_set_new(b, "architecture",
				    json_string(arch_of_build(build)->name));
		json_object_set_new(b, "command", json_string(cmd));
		free(cmd);
		json_object_set_new(
			b, "status",
			json_string(!strcmp(status, "ok") ? "PASS" : "FAIL"));
	}
	json_object_set_new(misc, "warnings",
			    json_integer(jint(e, "warnings")));
	json_object_set_new(misc, "new", json_integer(jint(e, "new")));
	json_object_set_new(misc, "fixed", json_integer(jint(e, "fixed")));
	json_object_set_new(misc, "not_built",
			    json_integer(jint(e, "not_built")));
	json_object_set_new(misc, "objects_compiled",
			    json_integer(jint(e, "objects_compiled")));
	set_str(misc, "config_hash", report_str(build, "config_hash"));
	json_object_set_new(b, "misc", misc);
	return b;
}

/* pass is PASS; infra is the harness's failure (ERROR); the rest FAIL. */
static const char *test_status(const char *verdict)
{
	if (!strcmp(verdict, "pass"))
		return "PASS";
	if (!strcmp(verdict, "infra"))
		return "ERROR";
	return "FAIL";
}

static void add_boot(json_t *tests, json_t *e, const char *build_id)
{
	json_t *t, *mods = json_object_get(e, "modules"), *misc;
	const char *verdict = report_str(e, "verdict");
	char *id;

	if (!*verdict)
		return;
	t = json_object();
	id = xstrfmt("%s-boot", build_id);
	json_object_set_new(t, "id", json_string(id));
	json_object_set_new(t, "origin", json_string(ORIGIN));
	json_object_set_new(t, "build_id", json_string(build_id));
	json_object_set_new(t, "path", json_string("boot"));
	json_object_set_new(t, "status", json_string(test_status(verdict)));
	set_str(t, "comment", report_str(e, "boot_reason"));
	if (json_is_integer(json_object_get(e, "boot_ms")))
		json_object_set_new(t, "duration",
				    json_real(jint(e, "boot_ms") / 1000.0));
	json_object_set_new(t, "misc", json_pack("{s:s}", "verdict", verdict));
	json_array_append_new(tests, t);
	free(id);
	if (!json_is_object(mods))
		return;
	t = json_object();
	id = xstrfmt("%s-boot-modules", build_id);
	json_object_set_new(t, "id", json_string(id));
	json_object_set_new(t, "origin", json_string(ORIGIN));
	json_object_set_new(t, "build_id", json_string(build_id));
	json_object_set_new(t, "path", json_string("boot.modules"));
	json_object_set_new(t, "status",
			    json_string(jint(mods, "failed") ? "FAIL" :
							       "PASS"));
	misc = json_deep_copy(mods);
	json_object_set_new(t, "misc", misc);
	json_array_append_new(tests, t);
	free(id);
}

/*
 * W's triage for the issue's misc: {state} for a warning never triaged,
 * else its newest record without nulls, the time in RFC 3339.
 */
static json_t *triage_misc(json_t *w)
{
	json_t *t = json_object_get(w, "triage"), *o = json_object();

	set_str(o, "state", report_str(t, "state"));
	set_str(o, "reason", report_str(t, "reason"));
	set_str(o, "who", report_str(t, "who"));
	set_time(o, "at", jint(t, "at"));
	set_str(o, "origin", report_str(t, "origin"));
	set_str(o, "link", report_str(t, "link"));
	return o;
}

static void add_issue(json_t *issues, json_t *seen, json_t *w)
{
	const char *ident = report_str(w, "identity");
	const char *fn = report_str(w, "function");
	const char *opt = report_str(w, "option");
	const char *triage = report_str(json_object_get(w, "triage"), "state");
	/* the compiler said something that is not so */
	int tool = !strcmp(triage, "compiler-bug") ||
		   !strcmp(triage, "false-positive");
	json_t *is, *misc, *culprit;
	char *id, *subject;

	if (json_object_get(seen, ident))
		return;
	json_object_set_new(seen, ident, json_true());
	id = xstrfmt(ORIGIN ":%s", ident);
	subject = xstrfmt("%s:%lld:%lld: %s: %s%s%s%s", report_str(w, "file"),
			  jint(w, "line"), jint(w, "column"),
			  report_str(w, "kind"), report_str(w, "message"),
			  *opt ? " [" : "", opt, *opt ? "]" : "");
	is = json_object();
	json_object_set_new(is, "id", json_string(id));
	json_object_set_new(is, "version", json_integer(1));
	json_object_set_new(is, "origin", json_string(ORIGIN));
	json_object_set_new(is, "report_subject", json_string(subject));
	/*
	 * XXX: a triage that changes the culprit leaves the version at 1,
	 * which KCIDB reads to pick the newest description of an issue: a
	 * report sent before the decision and one after have the same.
	 */
	set_str(is, "report_url",
		report_str(json_object_get(w, "triage"), "link"));
	culprit = json_pack("{s:b, s:b, s:b}", "code", !tool, "tool", tool,
			    "harness", 0);
	json_object_set_new(is, "culprit", culprit);
	if (*fn) {
		char *c = xstrfmt("in function '%s'", fn);

		json_object_set_new(is, "comment", json_string(c));
		free(c);
	}
	misc = json_object();
	set_str(misc, "file", report_str(w, "file"));
	set_str(misc, "function", fn);
	set_str(misc, "option", opt);
	set_str(misc, "kind", report_str(w, "kind"));
	set_str(misc, "message", report_str(w, "message"));
	json_object_set_new(misc, "triage", triage_misc(w));
	json_object_set_new(is, "misc", misc);
	json_array_append_new(issues, is);
	free(id);
	free(subject);
}

static void add_incident(json_t *incidents, json_t *w, const char *build_id)
{
	const char *state = report_str(w, "state");
	json_t *in = json_object(), *misc = json_object();
	char *id = xstrfmt("%s-%s", build_id, report_str(w, "identity"));
	char *issue = xstrfmt(ORIGIN ":%s", report_str(w, "identity"));

	json_object_set_new(in, "id", json_string(id));
	json_object_set_new(in, "origin", json_string(ORIGIN));
	json_object_set_new(in, "issue_id", json_string(issue));
	json_object_set_new(in, "issue_version", json_integer(1));
	json_object_set_new(in, "build_id", json_string(build_id));
	json_object_set_new(in, "present",
			    json_boolean(strcmp(state, "fixed")));
	json_object_set_new(misc, "state", json_string(state));
	json_object_set_new(misc, "line", json_integer(jint(w, "line")));
	json_object_set_new(misc, "column", json_integer(jint(w, "column")));
	set_str(misc, "object", report_str(w, "object"));
	json_object_set_new(in, "misc", misc);
	json_array_append_new(incidents, in);
	free(id);
	free(issue);
}

int report_kcidb(FILE *fp, sqlite3 *db, long long run_id)
{
	json_t *arr = NULL, *info = NULL, *o = NULL, *e, *w;
	json_t *checkouts, *builds, *tests, *issues, *incidents, *seen;
	size_t i, j;
	int ret = -1;

	if (report_run_json(&arr, db, run_id) ||
	    query_run_info(&info, db, run_id))
		goto out;
	o = json_object();
	json_object_set_new(o, "version",
			    json_pack("{s:i, s:i}", "major", 5, "minor", 3));
	json_object_set_new(o, "checkouts", checkouts = json_array());
	json_object_set_new(o, "builds", builds = json_array());
	json_object_set_new(o, "tests", tests = json_array());
	json_object_set_new(o, "issues", issues = json_array());
	json_object_set_new(o, "incidents", incidents = json_array());
	seen = json_object();
	json_array_foreach(arr, i, e) {
		json_t *build = NULL;
		char *cid, *bid;

		cid = xstrfmt(ORIGIN ":%lld-%lld", run_id, jint(e, "position"));
		json_array_append_new(checkouts, checkout_of(e, info, cid));
		if (!json_is_integer(json_object_get(e, "build"))) {
			free(cid);
			continue;
		}
		if (query_build_info(&build, db, jint(e, "build"))) {
			free(cid);
			json_decref(seen);
			goto out;
		}
		bid = xstrfmt(ORIGIN ":build-%lld", jint(e, "build"));
		json_array_append_new(builds, build_of(e, build, cid, bid));
		add_boot(tests, e, bid);
		json_array_foreach(json_object_get(e, "warnings_list"), j, w) {
			if (!strcmp(report_str(w, "state"), "not_built") ||
			    !*report_str(w, "identity"))
				continue;
			add_issue(issues, seen, w);
			add_incident(incidents, w, bid);
		}
		json_decref(build);
		free(cid);
		free(bid);
	}
	json_decref(seen);
	if (json_dumpf(o, fp, JSON_INDENT(2)) || fputc('\n', fp) == EOF) {
		error("cannot write the KCIDB report");
		goto out;
	}
	ret = 0;
out:
	json_decref(arr);
	json_decref(info);
	json_decref(o);
	return ret;
}
