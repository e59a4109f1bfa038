// SPDX-License-Identifier: MIT
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"
#include "banned.h"

/*
 * The length of the valid UTF-8 sequence at S (N bytes left), or 0 when
 * the byte at S starts none.
 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int json_is_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < len) {
		k = utf8_seq(p + i, len - i);
		if (!k || (k == 1 && !p[i]))
			return 0;
		i += k;
	}
	return 1;
}

json_t *jstr(const char *s)
{
	size_t len, i = 0, k;
	char *copy;
	json_t *j;

	if (!s)
		return json_null();
	len = strlen(s);
	if (json_is_utf8(s, len))
		return json_stringn(s, len);
	copy = xstrdup(s);
	while (i < len) {
		k = utf8_seq((const unsigned char *)copy + i, len - i);
		if (!k) {
			copy[i++] = '?';
			continue;
		}
		i += k;
	}
	j = json_stringn(copy, len);
	free(copy);
	return j ? j : json_string("");
}

json_t *json_col_str(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return jstr((const char *)sqlite3_column_text(st, col));
}

json_t *json_col_int(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return json_integer(sqlite3_column_int64(st, col));
}

void json_set_cols(json_t *o, sqlite3_stmt *st, int first, const char *spec)
{
	for (int col = first; *spec; col++) {
		const char *colon = strchr(spec, ':');
		char key[64];
		size_t n = colon ? (size_t)(colon - spec) : 0;

		/* a bad spec is a bug in the caller, not bad input */
		assert(colon && n < sizeof(key) && colon[1]);
		memcpy(key, spec, n);
		key[n] = '\0';
		json_object_set_new(o, key,
				    colon[1] == 'i' ? json_col_int(st, col) :
						      json_col_str(st, col));
		spec = colon + 2;
		while (*spec == ' ')
			spec++;
	}
}
