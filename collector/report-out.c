// SPDX-License-Identifier: MIT
/*
 * What the report formats read besides report_run_json(): the run's tree
 * and each build's compiler, config and times; and how a warning's triage
 * reads in text.
 */
#include <string.h>
#include <time.h>

#include "db.h"
#include "report-out.h"
#include "triage.h"
#include "util.h"
#include "banned.h"

const char *report_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

int report_is_settled(json_t *w)
{
	return triage_is_settled(
		report_str(json_object_get(w, "triage"), "state"));
}

int report_triage_text(struct strbuf *sb, json_t *w)
{
	json_t *t = json_object_get(w, "triage");
	time_t at = (time_t)json_integer_value(json_object_get(t, "at"));
	char day[16] = "";
	struct tm tm;

	if (!*report_str(t, "who"))
		return 0; /* open, never triaged */
	if (gmtime_r(&at, &tm))
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	strbuf_addf(sb, "%s by %s on %s: %s", report_str(t, "state"),
		    report_str(t, "who"), day, report_str(t, "reason"));
	if (*report_str(t, "link"))
		strbuf_addf(sb, " <%s>", report_str(t, "link"));
	return 1;
}

void report_triage_line(FILE *fp, json_t *w, const char *indent)
{
	struct strbuf sb = STRBUF_INIT;

	if (report_triage_text(&sb, w))
		fprintf(fp, "%striage: %s\n", indent, sb.buf);
	strbuf_release(&sb);
}
