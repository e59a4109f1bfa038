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
 * The run's tree and settings as a new object in *out: run, kind, series,
 * config, level, started_at, finished_at, tree (name), version,
 * tree_kind, source, sha256, maintainers (text or null).  0 or -1.
 */
int report_run_info(json_t **out, sqlite3 *db, long long run_id);

/*
 * One build as a new object in *out: compiler, config_name, config_hash,
 * status, level, wall_ms, created_at, log_tail, image (each null when not
 * stored).  0 or -1 (reported).
 */
int report_build_info(json_t **out, sqlite3 *db, long long build_id);

/* The string at KEY of O, or "" (never NULL). */
const char *report_str(json_t *o, const char *key);

#endif
