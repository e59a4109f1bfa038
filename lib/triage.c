// SPDX-License-Identifier: MIT
/*
 * Triage records: states, checks, the export line and the POST body.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

const char *const triage_states[] = {
	"open",		"confirmed", "intended", "false-positive",
	"compiler-bug", "wontfix",   NULL,
};

static const char *const origins[] = { "cli", "api", "import", "reopen", NULL };

const char triage_export_header[] =
	"# kwarn triage 1: time fingerprint state who origin link reason,"
	" tab-separated\n";

static int in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; s && list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

int triage_state_valid(const char *s)
{
	return in_list(triage_states, s);
}

int triage_is_settled(const char *state)
{
	static const char *const settled[] = { "intended", "false-positive",
					       "compiler-bug", "wontfix",
					       NULL };

	return in_list(settled, state);
}

void triage_rec_release(struct triage_rec *r)
{
	free(r->fingerprint);
	free(r->state);
	free(r->reason);
	free(r->link);
	free(r->who);
	free(r->origin);
	memset(r, 0, sizeof(*r));
}

/* 1 if S has a control byte (TAB_OK: but a tab), else 0. */
static int has_control(const char *s, int tab_ok)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c < 0x20 && !(tab_ok && c == '\t')) || c == 0x7f)
			return 1;
	}
	return 0;
}

int triage_check(const struct triage_rec *r, const char **field,
		 const char **why)
{
	size_t n;

#define BAD(f, w)           \
	do {                \
		*field = f; \
		*why = w;   \
		return -1;  \
	} while (0)
	if (!r->fingerprint || strlen(r->fingerprint) != 64 ||
	    strspn(r->fingerprint, "0123456789abcdef") != 64)
		BAD("fingerprint", "a warning identity is 64 hex digits");
	if (!triage_state_valid(r->state))
		BAD("state", "one of open, confirmed, intended,"
			     " false-positive, compiler-bug, wontfix");
	if (!in_list(origins, r->origin))
		BAD("origin", "one of cli, api, import, reopen");
	n = r->reason ? strlen(r->reason) : 0;
	if (!n)
		BAD("reason", "say why, in a few words");
	if (n > TRIAGE_MAX_REASON)
		BAD("reason", "at most 4096 bytes");
	if (!json_is_utf8(r->reason, n) || has_control(r->reason, 1))
		BAD("reason", "UTF-8 text without control bytes");
	if (r->link) {
		n = strlen(r->link);
		if (n > TRIAGE_MAX_LINK ||
		    (strncmp(r->link, "https://", 8) &&
		     strncmp(r->link, "http://", 7)) ||
		    strpbrk(r->link, " \"<>\\") || has_control(r->link, 0) ||
		    !json_is_utf8(r->link, n))
			BAD("link", "an http or https URL, at most 2048"
				    " bytes, no spaces or quotes");
	} else if (!strcmp(r->state, "compiler-bug")) {
		BAD("link", "a compiler bug takes the link to its report");
	}
	if (!r->who || !*r->who || strlen(r->who) > 256 ||
	    has_control(r->who, 0) || !json_is_utf8(r->who, strlen(r->who)))
		BAD("who", "a name of 1 to 256 bytes, no control bytes");
	if (r->at < 0)
		BAD("time", "a time after 1970");
#undef BAD
	return 0;
}

static void add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
}

void triage_format_line(struct strbuf *sb, const struct triage_rec *r)
{
	time_t t = (time_t)r->at;
	struct tm tm;
	char when[32];

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addf(sb, "%s\t%s\t%s\t", when, r->fingerprint, r->state);
	add_escaped(sb, r->who);
	strbuf_addf(sb, "\t%s\t", r->origin);
	add_escaped(sb, r->link ? r->link : "-");
	strbuf_addch(sb, '\t');
	add_escaped(sb, r->reason);
	strbuf_addch(sb, '\n');
}

/* Field S (LEN bytes) unescaped into a new string, or NULL if bad. */
static char *unescape(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *w = out;

	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\') {
			*w++ = s[i];
			continue;
		}
		if (++i == len)
			goto bad;
		switch (s[i]) {
		case '\\':
			*w++ = '\\';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'n':
			*w++ = '\n';
			break;
		case 'r':
			*w++ = '\r';
			break;
		default:
			goto bad;
		}
	}
	*w = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* "2026-12-04T17:30:00Z" into *OUT: 0, or -1. */
static int parse_time(long long *out, const char *s)
{
	struct tm tm = { 0 };
	const char *end;

	if (strlen(s) != 20)
		return -1;
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return -1;
	*out = (long long)timegm(&tm);
	return 0;
}

int triage_parse_line(struct triage_rec *out, const char **why,
		      const char *line, size_t len)
{
	char *f[7] = { NULL };
	const char *p = line, *field;
	size_t nf = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (len && line[len - 1] == '\r')
		len--;
	if (!len || line[0] == '#')
		return 1;
	if (memchr(line, '\0', len)) {
		*why = "a NUL byte";
		return -1;
	}
	while (nf < ARRAY_SIZE(f)) {
		const char *tab = memchr(p, '\t', len - (size_t)(p - line));
		size_t n = tab ? (size_t)(tab - p) : len - (size_t)(p - line);

		f[nf] = unescape(p, n);
		if (!f[nf]) {
			*why = "a backslash that is not \\\\, \\t, \\n or \\r";
			goto out;
		}
		nf++;
		if (!tab)
			break;
		p = tab + 1;
		if (nf == ARRAY_SIZE(f)) {
			*why = "more than 7 tab-separated fields";
			goto out;
		}
	}
	if (nf != ARRAY_SIZE(f)) {
		*why = "want 7 tab-separated fields: time fingerprint state"
		       " who origin link reason";
		goto out;
	}
	if (parse_time(&out->at, f[0])) {
		*why = "a time like 2026-12-04T17:30:00Z";
		goto out;
	}
	out->fingerprint = f[1];
	out->state = f[2];
	out->who = f[3];
	out->origin = f[4];
	out->link = strcmp(f[5], "-") ? f[5] : NULL;
	out->reason = f[6];
	if (!out->link)
		free(f[5]);
	free(f[0]);
	memset(f, 0, sizeof(f));
	if (triage_check(out, &field, why)) {
		triage_rec_release(out);
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		free(f[i]);
	return ret;
}

int triage_parse_body(struct triage_rec *out, const char **field,
		      const char **why, const char *buf, size_t len)
{
	json_error_t jerr;
	json_t *o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *key;
	json_t *v;

	*field = "body";
	if (!o || !json_is_object(o)) {
		*why = "a JSON object: {\"state\": ..., \"reason\": ...,"
		       " \"link\": ...}";
		json_decref(o);
		return -1;
	}
	json_object_foreach(o, key, v) {
		char **dst = !strcmp(key, "state")  ? &out->state :
			     !strcmp(key, "reason") ? &out->reason :
			     !strcmp(key, "link")   ? &out->link :
						      NULL;

		if (!dst) {
			*why = "unknown field: the body takes state, reason"
			       " and link";
			json_decref(o);
			return -1;
		}
		if (!json_is_string(v) ||
		    memchr(json_string_value(v), '\0', json_string_length(v))) {
			*field = !strcmp(key, "state")	? "state" :
				 !strcmp(key, "reason") ? "reason" :
							  "link";
			*why = "a string";
			json_decref(o);
			return -1;
		}
		free(*dst);
		*dst = xstrdup(json_string_value(v));
	}
	json_decref(o);
	if (!out->state) {
		*field = "state";
		*why = "missing";
		return -1;
	}
	if (!out->reason) {
		*field = "reason";
		*why = "missing";
		return -1;
	}
	return 0;
}
