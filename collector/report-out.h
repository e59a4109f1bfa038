/* SPDX-License-Identifier: MIT */
#ifndef KWARN_REPORT_OUT_H
#define KWARN_REPORT_OUT_H

/*
 * The formats of kwarn report that other tools read: SARIF 2.1.0
 * (report-sarif.c), KCIDB v5 (report-kcidb.c) and an mbox shaped like the
 * kernel test robot's mails (report-mail.c).  Each writes run RUN_ID to FP
 * from report_run_json() and returns 0 or -1 (reported).
 */

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

int report_sarif(FILE *fp, sqlite3 *db, long long run_id);
int report_kcidb(FILE *fp, sqlite3 *db, long long run_id);
int report_mail(FILE *fp, sqlite3 *db, long long run_id);

/*
 * One message for ENTRY, a tree of kwarn nightly's report ({"run", "new":
 * [{"file", "line", "message", ...}]}): ">>" exactly on its new warnings.
 * Nothing when nothing is new.  0 or -1 (reported).
 */
int report_mail_nightly(FILE *fp, sqlite3 *db, json_t *entry);

/* The string at KEY of O, or "" (never NULL). */
const char *report_str(json_t *o, const char *key);

/*
 * 1 if warning W (with the "triage" of query_triage_annotate()) is
 * triaged as no bug to act on (triage_is_settled()), else 0.
 */
int report_is_settled(json_t *w);

struct strbuf;

/*
 * Append W's triage to SB as "STATE by WHO on DAY: REASON <LINK>" and
 * return 1; return 0 and append nothing when W was never triaged.
 */
int report_triage_text(struct strbuf *sb, json_t *w);

/* W's triage as a line "INDENTtriage: ..." on FP, or nothing. */
void report_triage_line(FILE *fp, json_t *w, const char *indent);

#endif
