/* SPDX-License-Identifier: MIT */
#ifndef KWARN_JSON_H
#define KWARN_JSON_H

/*
 * JSON helpers both programs use on top of jansson.  Text from build logs
 * and sources is bytes, not always UTF-8; JSON strings must be UTF-8.
 */

#include <jansson.h>

/*
 * A new JSON string holding S, with every byte that is not part of a
 * valid UTF-8 sequence (overlong forms, surrogates and code points past
 * U+10FFFF included) replaced by '?'; JSON null when S is NULL.  Never
 * NULL.
 */
json_t *jstr(const char *s);

/* 1 if the LEN bytes at S are valid UTF-8 (as jansson wants), else 0. */
int json_is_utf8(const char *s, size_t len);

#endif
