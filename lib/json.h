/* SPDX-License-Identifier: MIT */
#ifndef KWARN_JSON_H
#define KWARN_JSON_H

/*
 * JSON helpers both programs use on top of jansson.  Text from build logs
 * and sources is bytes, not always UTF-8; JSON strings must be UTF-8.
 */

#include <jansson.h>
#include <sqlite3.h>

/*
 * A new JSON string holding S, with every byte that is not part of a
 * valid UTF-8 sequence (overlong forms, surrogates and code points past
 * U+10FFFF included) replaced by '?'; JSON null when S is NULL.  Never
 * NULL.
 */
json_t *jstr(const char *s);

/* 1 if the LEN bytes at S are valid UTF-8 (as jansson wants), else 0. */
int json_is_utf8(const char *s, size_t len);

/* Column COL of ST's row as a JSON string (jstr()) or integer; SQL NULL
 * is JSON null. */
json_t *json_col_str(sqlite3_stmt *st, int col);
json_t *json_col_int(sqlite3_stmt *st, int col);

/*
 * Set in O one key per column of ST's row from column FIRST on, as SPEC
 * names them: "id:i sha:s ...", i for an integer and s for a string (NULL
 * stays null).  One line instead of a dozen json_object_set_new() calls.
 */
void json_set_cols(json_t *o, sqlite3_stmt *st, int first, const char *spec);

#endif
