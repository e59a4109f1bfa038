// SPDX-License-Identifier: MIT
/*
 * kwarn report --format sarif: the run as a SARIF 2.1.0 log (OASIS), the
 * format code-scanning tools and editors read.  One SARIF run per built
 * point with the compiler (gcc or clang) as tool.driver and one rule per
 * -W option, and beside it one run per other kbuild tool that said
 * something at that point (sparse, kernel-doc, objtool, ...: SARIF's run
 * is one tool's analysis), that tool as its driver; each warning is a result with its place relative to the
 * tree's root (uriBaseId SRCROOT: "./" of REPOROOT, the checkout or
 * unpacked source wherever the reader has it, so that nothing names this
 * machine), its notes as relatedLocations, its function as a
 * logicalLocation, the classifier's break; as a fix (an insertion before
 * the note's case label), kwarn's identity as a partial fingerprint, and its
 * baselineState against the previous point: new, unchanged, or absent
 * (fixed here).  A warning triaged as no bug to act on (intended, a false
 * positive, a compiler bug, won't fix) is suppressed: an external
 * suppression, accepted, its reason the justification; every result says
 * its triage in its properties.  Not-built warnings are left out: nothing
 * was measured.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "kwarn.h"
#include "parse.h"
#include "query.h"
#include "report-out.h"
#include "util.h"
#include "banned.h"

static const char sarif_schema[] =
	"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
	"sarif-schema-2.1.0.json";

static json_t *text_msg(const char *s)
{
	json_t *m = json_object();

	json_object_set_new(m, "text", json_string(s));
	return m;
}

/* PATH as a URI reference: unreserved characters and '/' kept, else %XX. */
static char *uri_of(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
			strbuf_addch(&sb, *p);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	}
	return strbuf_detach(&sb, NULL);
}

/* A physicalLocation of FILE:LINE:COL with SNIPPET (may be NULL). */
static json_t *phys_loc(const char *file, long long line, long long col,
			const char *snippet)
{
	json_t *pl = json_object(), *al = json_object(), *reg;
	char *uri = uri_of(file);

	if (file[0] == '/') {
		char *abs = xstrfmt("file://%s", uri);

		json_object_set_new(al, "uri", json_string(abs));
		free(abs);
	} else {
		json_object_set_new(al, "uri", json_string(uri));
		json_object_set_new(al, "uriBaseId", json_string("SRCROOT"));
	}
	free(uri);
	json_object_set_new(pl, "artifactLocation", al);
	if (line > 0) {
		reg = json_object();
		json_object_set_new(reg, "startLine", json_integer(line));
		if (col > 0)
			json_object_set_new(reg, "startColumn",
					    json_integer(col));
		if (snippet && *snippet)
			json_object_set_new(reg, "snippet", text_msg(snippet));
		json_object_set_new(pl, "region", reg);
	}
	return pl;
}

/*
 * W's rule: its -W option as people write it, without gcc's "=" (gcc
 * prints -Wimplicit-fallthrough=, clang -Wimplicit-fallthrough: one rule),
 * or its kind.  A new string.
 */
static char *rule_id(json_t *w)
{
	const char *opt = report_str(w, "option");

	if (!*opt)
		return xstrdup(report_str(w, "kind"));
	return xstrndup(opt, strcspn(opt, "="));
}

/* The index of rule ID in RULES, added (with INDEX) when new. */
static size_t rule_index(json_t *rules, json_t *index, const char *id,
			 int clang)
{
	json_t *r, *at = json_object_get(index, id), *help;
	char *desc;

	if (at)
		return (size_t)json_integer_value(at);
	r = json_object();
	json_object_set_new(r, "id", json_string(id));
	if (!strncmp(id, "-W", 2)) {
		desc = xstrfmt("%s warning option %s", clang ? "clang" : "gcc",
			       id);
		help = json_string(clang ? "https://clang.llvm.org/docs/"
					   "DiagnosticsReference.html" :
					   "https://gcc.gnu.org/onlinedocs/gcc/"
					   "Warning-Options.html");
	} else {
		desc = xstrfmt("%s diagnostics without a -W option", id);
		help = NULL;
	}
	json_object_set_new(r, "shortDescription", text_msg(desc));
	free(desc);
	if (help)
		json_object_set_new(r, "helpUri", help);
	json_object_set_new(index, id, json_integer(json_array_size(rules)));
	json_array_append_new(rules, r);
	return json_array_size(rules) - 1;
}

/*
 * The classifier's fix of W as a SARIF fix when it is a break;: "break;"
 * inserted before the case or default label its note points at (an empty
 * deletedRegion at the start of that line), indented as the falling
 * statement, in tabs; else NULL.
 */
static json_t *break_fix(json_t *w)
{
	const char *src = report_str(w, "source"), *lab = NULL;
	json_t *n, *note = NULL, *al, *rep, *fix;
	struct strbuf sb = STRBUF_INIT;
	long long line;
	size_t i, col = 0;
	char *text, *uri;

	if (strcmp(report_str(w, "fix"), "break;"))
		return NULL;
	json_array_foreach(json_object_get(w, "notes"), i, n) {
		lab = report_str(n, "source");
		lab += strspn(lab, " \t");
		if (!strncmp(lab, "case", 4) || !strncmp(lab, "default", 7)) {
			note = n;
			break;
		}
	}
	line = json_integer_value(json_object_get(note, "line"));
	if (!note || line < 1 || *report_str(note, "file") == '/')
		return NULL;
	/* gcc shows tabs as spaces to 8-column stops: the kernel's tabs */
	for (i = 0; src[i] == ' ' || src[i] == '\t'; i++)
		col = src[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
	for (i = 0; i < col / 8 + col % 8; i++)
		strbuf_addch(&sb, i < col / 8 ? '\t' : ' ');
	strbuf_addstr(&sb, "break;\n");
	text = strbuf_detach(&sb, NULL);
	uri = uri_of(report_str(note, "file"));
	al = json_pack("{s:s, s:s}", "uri", uri, "uriBaseId", "SRCROOT");
	rep = json_pack("{s:{s:I, s:i, s:I, s:i}, s:{s:s}}", "deletedRegion",
			"startLine", (json_int_t)line, "startColumn", 1,
			"endLine", (json_int_t)line, "endColumn", 1,
			"insertedContent", "text", text);
	fix = json_pack("{s:{s:s}, s:[{s:o, s:[o]}]}", "description", "text",
			"Insert break; before the next case label, as"
			" kwarn classify suggests",
			"artifactChanges", "artifactLocation", al,
			"replacements", rep);
	free(text);
	free(uri);
	return fix;
}

static const char *level_of(json_t *w)
{
	const char *kind = report_str(w, "kind");

	if (json_is_true(json_object_get(w, "werror")) ||
	    !strcmp(kind, "error") || !strcmp(kind, "fatal error"))
		return "error";
	return "warning";
}

static json_t *result_of(json_t *w, json_t *rules, json_t *index, int base,
			 int clang)
{
	json_t *res = json_object(), *loc = json_object(), *locs = json_array();
	json_t *rel = json_array(), *n, *fp, *props, *fix;
	const char *state = report_str(w, "state"), *fn;
	char *rule = rule_id(w);
	size_t i, ri = rule_index(rules, index, rule, clang);

	json_object_set_new(res, "ruleId", json_string(rule));
	free(rule);
	json_object_set_new(res, "ruleIndex", json_integer(ri));
	json_object_set_new(res, "level", json_string(level_of(w)));
	json_object_set_new(res, "message", text_msg(report_str(w, "message")));
	json_object_set_new(
		loc, "physicalLocation",
		phys_loc(report_str(w, "file"),
			 json_integer_value(json_object_get(w, "line")),
			 json_integer_value(json_object_get(w, "column")),
			 report_str(w, "source")));
	fn = report_str(w, "function");
	if (*fn) {
		json_t *ll = json_object();

		json_object_set_new(ll, "name", json_string(fn));
		json_object_set_new(ll, "fullyQualifiedName", json_string(fn));
		json_object_set_new(ll, "kind", json_string("function"));
		json_object_set_new(loc, "logicalLocations",
				    json_pack("[o]", ll));
	}
	json_array_append_new(locs, loc);
	json_object_set_new(res, "locations", locs);
	json_array_foreach(json_object_get(w, "notes"), i, n) {
		json_t *rl = json_object();

		json_object_set_new(rl, "id", json_integer(i));
		json_object_set_new(
			rl, "physicalLocation",
			phys_loc(report_str(n, "file"),
				 json_integer_value(json_object_get(n, "line")),
				 json_integer_value(
					 json_object_get(n, "column")),
				 report_str(n, "source")));
		json_object_set_new(rl, "message",
				    text_msg(report_str(n, "message")));
		json_array_append_new(rel, rl);
	}
	if (json_array_size(rel))
		json_object_set_new(res, "relatedLocations", rel);
	else
		json_decref(rel);
	fp = json_object();
	json_object_set_new(fp, "kwarnIdentity/v1",
			    json_string(report_str(w, "identity")));
	json_object_set_new(res, "partialFingerprints", fp);
	if (!base)
		json_object_set_new(
			res, "baselineState",
			json_string(!strcmp(state, "new")   ? "new" :
				    !strcmp(state, "fixed") ? "absent" :
							      "unchanged"));
	props = json_object();
	json_object_set_new(props, "state", json_string(state));
	if (*report_str(w, "object"))
		json_object_set_new(props, "object",
				    json_string(report_str(w, "object")));
	json_object_set_new(props, "seen",
			    json_incref(json_object_get(w, "seen")));
	if (*report_str(w, "reproducer"))
		json_object_set_new(props, "reproducer",
				    json_string(report_str(w, "reproducer")));
	json_object_set_new(props, "triage",
			    json_deep_copy(json_object_get(w, "triage")));
	/* kwarn classify's reading of a fall-through, when it made one */
	if (*report_str(w, "verdict")) {
		json_object_set_new(props, "verdict",
				    json_string(report_str(w, "verdict")));
		json_object_set_new(props, "fix",
				    json_string(report_str(w, "fix")));
		json_object_set_new(props, "reason",
				    json_string(report_str(w, "reason")));
	}
	fix = break_fix(w);
	if (fix)
		json_object_set_new(res, "fixes", json_pack("[o]", fix));
	json_object_set_new(res, "properties", props);
	/* absent, not empty, for the others: nothing suppresses them */
	if (report_is_settled(w))
		json_object_set_new(
			res, "suppressions",
			json_pack("[{s:s, s:s, s:s}]", "kind", "external",
				  "status", "accepted", "justification",
				  report_str(json_object_get(w, "triage"),
					     "reason")));
	return res;
}

/*
 * "12.2.0" from "gcc (Debian 12.2.0-14+deb12u1) 12.2.0" (the last word),
 * "16.0.6" from "Debian clang version 16.0.6 (15~deb12u1)" (the word
 * after "version").
 */
static json_t *version_of(const char *compiler)
{
	const char *v = strstr(compiler, " version ");

	if (v) {
		v += strlen(" version ");
		return json_stringn(v, strcspn(v, " "));
	}
	v = strrchr(compiler, ' ');
	return json_string(v && v[1] ? v + 1 : compiler);
}

/* Is the build's compiler clang (its toolchain, else its --version)? */
static int is_clang(json_t *build)
{
	const char *tc = report_str(build, "toolchain");

	if (*tc)
		return !strncmp(tc, "clang", 5);
	return strstr(report_str(build, "compiler"), "clang") != NULL;
}

/* Where a kbuild tool other than the compiler is documented, or NULL. */
static const char *tool_uri(const char *tool)
{
	static const char *const uris[][2] = {
		{ "sparse", "https://sparse.docs.kernel.org/" },
		{ "kernel-doc",
		  "https://docs.kernel.org/doc-guide/kernel-doc.html" },
		{ "objtool", "https://docs.kernel.org/dev-tools/objtool.html" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(uris); i++)
		if (!strcmp(uris[i][0], tool))
			return uris[i][1];
	return NULL;
}

/* Does W count at point E of TOOL's run: measured, and said by TOOL? */
static int in_run(json_t *w, const char *tool)
{
	return strcmp(report_str(w, "state"), "not_built") &&
	       !strcmp(diag_tool_of(report_str(w, "kind")), tool);
}

/*
 * The SARIF run of TOOL ("compiler": gcc or clang, the build's own) at
 * point E: its results, and the rules they name.
 */
static json_t *sarif_run(json_t *e, json_t *info, json_t *build,
			 const char *tool)
{
	json_t *run = json_object(), *driver = json_object(), *tj;
	json_t *rules = json_array(), *index = json_object();
	json_t *results = json_array(), *w, *bases, *root, *props;
	const char *compiler = report_str(build, "compiler");
	int base = json_integer_value(json_object_get(e, "position")) == 0;
	int cc = !strcmp(tool, "compiler");
	char *id, *desc;
	size_t i;

	if (cc) {
		json_object_set_new(driver, "name",
				    json_string(is_clang(build) ? "clang" :
								  "gcc"));
		if (*compiler) {
			json_object_set_new(driver, "fullName",
					    json_string(compiler));
			json_object_set_new(driver, "version",
					    version_of(compiler));
		}
		json_object_set_new(
			driver, "informationUri",
			json_string(is_clang(build) ?
					    "https://clang.llvm.org/" :
					    "https://gcc.gnu.org/"));
	} else {
		json_object_set_new(driver, "name", json_string(tool));
		if (tool_uri(tool))
			json_object_set_new(driver, "informationUri",
					    json_string(tool_uri(tool)));
	}
	json_array_foreach(json_object_get(e, "warnings_list"), i, w) {
		if (!in_run(w, tool))
			continue;
		json_array_append_new(results, result_of(w, rules, index, base,
							 is_clang(build)));
	}
	json_decref(index);
	json_object_set_new(driver, "rules", rules);
	tj = json_object();
	json_object_set_new(tj, "driver", driver);
	json_object_set_new(run, "tool", tj);
	/* the compiler's category as before; each other tool its own */
	id = xstrfmt("kwarn/run-%lld/point-%lld/%s%s",
		     json_integer_value(json_object_get(info, "run")),
		     json_integer_value(json_object_get(e, "position")),
		     cc ? "" : tool, cc ? "" : "/");
	json_object_set_new(run, "automationDetails",
			    json_pack("{s:s}", "id", id));
	free(id);
	/*
	 * SRCROOT relative to REPOROOT, which has no uri: the reader's own
	 * checkout of the tree (or its unpacked source), not this machine's
	 * cache.  The commit is in the run's properties.
	 */
	bases = json_object();
	json_object_set_new(bases, "REPOROOT",
			    json_pack("{s:o}", "description",
				      text_msg("the top of the tree's checkout"
					       " or unpacked source, where the"
					       " reader has it")));
	root = json_object();
	json_object_set_new(root, "uri", json_string("./"));
	json_object_set_new(root, "uriBaseId", json_string("REPOROOT"));
	desc = xstrfmt("the root of %s%s%s at commit %s",
		       report_str(info, "tree"),
		       *report_str(info, "version") ? " " : "",
		       report_str(info, "version"), report_str(e, "commit"));
	json_object_set_new(root, "description", text_msg(desc));
	free(desc);
	json_object_set_new(bases, "SRCROOT", root);
	json_object_set_new(run, "originalUriBaseIds", bases);
	json_object_set_new(run, "columnKind",
			    json_string("unicodeCodePoints"));
	json_object_set_new(run, "results", results);
	props = json_object();
	json_object_set_new(props, "commit",
			    json_string(report_str(e, "commit")));
	json_object_set_new(props, "position",
			    json_incref(json_object_get(e, "position")));
	json_object_set_new(props, "subject",
			    json_string(report_str(e, "subject")));
	json_object_set_new(props, "build",
			    json_incref(json_object_get(e, "build")));
	json_object_set_new(props, "config",
			    json_string(report_str(build, "config_name")));
	json_object_set_new(run, "properties", props);
	return run;
}

int report_sarif(FILE *fp, sqlite3 *db, long long run_id)
{
	json_t *arr = NULL, *info = NULL, *log = NULL, *runs, *e;
	size_t i;
	int ret = -1;

	if (report_run_json(&arr, db, run_id) ||
	    query_run_info(&info, db, run_id))
		goto out;
	runs = json_array();
	json_array_foreach(arr, i, e) {
		json_t *build = NULL;

		if (!json_is_integer(json_object_get(e, "build")))
			continue;
		if (query_build_info(
			    &build, db,
			    json_integer_value(json_object_get(e, "build")))) {
			json_decref(runs);
			goto out;
		}
		json_array_append_new(runs,
				      sarif_run(e, info, build, "compiler"));
		for (size_t k = 0; diag_tools[k]; k++) {
			json_t *w;
			size_t j;

			if (!strcmp(diag_tools[k], "compiler"))
				continue;
			json_array_foreach(json_object_get(e, "warnings_list"),
					   j, w)
				if (in_run(w, diag_tools[k]))
					break;
			if (j < json_array_size(
					json_object_get(e, "warnings_list")))
				json_array_append_new(runs,
						      sarif_run(e, info, build,
								diag_tools[k]));
		}
		json_decref(build);
	}
	log = json_object();
	json_object_set_new(log, "$schema", json_string(sarif_schema));
	json_object_set_new(log, "version", json_string("2.1.0"));
	json_object_set_new(log, "runs", runs);
	if (json_dumpf(log, fp, JSON_INDENT(2)) || fputc('\n', fp) == EOF) {
		error("cannot write the SARIF log");
		goto out;
	}
	ret = 0;
out:
	json_decref(arr);
	json_decref(info);
	json_decref(log);
	return ret;
}
