// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "banned.h"

/* Hard cap: no single buffer of ours may grow past 1 GiB. */
#define STRBUF_MAX ((size_t)1 << 30)

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len_out)
{
	char *p;

	if (!sb->alloc)
		strbuf_grow(sb, 0);
	p = sb->buf;
	if (len_out)
		*len_out = sb->len;
	strbuf_init(sb, 0);
	return p;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	int was_empty = !sb->alloc;

	if (extra > STRBUF_MAX || need > STRBUF_MAX)
		die("buffer would exceed %zu bytes", STRBUF_MAX);
	if (need <= sb->alloc)
		return;
	if (was_empty)
		sb->buf = NULL;
	sb->alloc = need < 64 ? 64 : need + need / 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	if (was_empty)
		sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0,
		      fmt, cp);
	va_end(cp);
	if (n < 0)
		die("vsnprintf failed");
	if (sb->len + (size_t)n + 1 > sb->alloc) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}
