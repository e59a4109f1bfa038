// SPDX-License-Identifier: MIT
/*
 * What an endpoint answers with: reference-counted bodies shared by the
 * cached answers, their gzip form (which http.c sends to a client that
 * takes it), and the JSON error reply.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "json.h"
#include "server.h"
#include "util.h"
#include "banned.h"

struct blob *blob_new(const char *data, size_t len)
{
	struct blob *b = xmalloc(sizeof(*b) + len + 1);

	b->refs = 1;
	b->len = len;
	memcpy(b->data, data, len);
	b->data[len] = '\0';
	return b;
}

struct blob *blob_ref(struct blob *b)
{
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
	return b;
}

void blob_unref(struct blob *b)
{
	if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(b);
}

struct blob *blob_gzip(const struct blob *b)
{
	z_stream zs = { 0 };
	struct blob *z;
	uLong bound;

	/* windowBits 15 + 16: a gzip header and trailer, for HTTP */
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return NULL;
	bound = deflateBound(&zs, (uLong)b->len) + 32;
	z = xmalloc(sizeof(*z) + bound);
	zs.next_in = (Bytef *)(uintptr_t)b->data;
	zs.avail_in = (uInt)b->len;
	zs.next_out = (Bytef *)z->data;
	zs.avail_out = (uInt)bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(z);
		return NULL;
	}
	z->refs = 1;
	z->len = zs.total_out;
	deflateEnd(&zs);
	return z;
}

int api_fail(struct api_reply *reply, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_decref(reply->json);
	reply->json = json_object();
	json_object_set_new(reply->json, "error", jstr(msg));
	json_object_set_new(reply->json, "status", json_integer(status));
	reply->status = status;
	reply->type = NULL; /* an error is JSON, whatever was asked */
	return -1;
}
