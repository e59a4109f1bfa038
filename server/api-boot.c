// SPDX-License-Identifier: MIT
/*
 * The boots of a build: verdict, log, modules.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "json.h"
#include "query.h"
#include "server.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

/* boots */

/*
 * "modules" of REPLY's boot BOOT_ID: null when it loaded none (no --full),
 * else {"ok", "failed", "list": [{"name", "status", "message"}]} in the
 * init's order.  Returns 0 or -1 with the reply set to the error.
 */
static int boot_modules_json(struct api_reply *reply, sqlite3 *db,
			     long long boot_id)
{
	json_t *list = NULL, *m;
	long long ok = 0;
	size_t i;

	if (query_boot_modules(&list, db, boot_id))
		return api_db_fail(reply, db);
	if (!json_array_size(list)) {
		json_decref(list);
		api_set(reply->json, "modules", json_null());
		return 0;
	}
	json_array_foreach(list, i, m) {
		const char *st =
			json_string_value(json_object_get(m, "status"));

		ok += st && !strcmp(st, "ok");
	}
	{
		json_t *o = json_object();

		api_set(o, "ok", json_integer(ok));
		api_set(o, "failed",
			json_integer((json_int_t)json_array_size(list) - ok));
		api_set(o, "list", list);
		api_set(reply->json, "modules", o);
	}
	return 0;
}

int api_boot(struct api_reply *reply, const struct api_req *r)
{
	struct query_boot b = { 0 };
	unsigned char *log = NULL;
	long long id = 0;
	int ret = -1;

	if (api_parse_id(&id, reply, "build id", r->args[0]))
		return -1;
	if (query_boot(&b, r->db, id))
		return api_db_fail(reply, r->db);
	if (!b.build_exists) {
		api_fail(reply, 404, "no build %lld", id);
		goto out;
	}
	if (!b.row) {
		api_fail(reply, 404, "build %lld was not booted", id);
		goto out;
	}
	reply->json = b.row;
	b.row = NULL;
	if (boot_modules_json(
		    reply, r->db,
		    json_integer_value(json_object_get(reply->json, "boot"))))
		goto out;
	if (!b.zlog) {
		api_set(reply->json, "log", json_null());
	} else {
		uLong zlen = (uLong)b.zlen;
		uLongf dlen = (uLongf)b.log_size;
		int zrc = Z_BUF_ERROR;

		/* log_size is a hint; grow while zlib says it is short */
		if (dlen == 0 || dlen > CAP_BOOT_LOG)
			dlen = zlen * 4 + 1024;
		while (dlen <= CAP_BOOT_LOG) {
			uLongf got = dlen;

			log = xrealloc(log, dlen + 1);
			zrc = uncompress(log, &got, b.zlog, zlen);
			if (zrc != Z_BUF_ERROR) {
				dlen = got;
				break;
			}
			dlen *= 2;
		}
		if (zrc != Z_OK) {
			error("cannot uncompress the log of build %lld's boot:"
			      " zlib error %d",
			      id, zrc);
			api_set(reply->json, "log", json_null());
			api_set(reply->json, "log_error",
				json_string("corrupt compressed log"));
		} else {
			log[dlen] = '\0';
			api_set(reply->json, "log", jstr((char *)log));
		}
	}
	ret = 0;
out:
	free(log);
	query_boot_release(&b);
	return ret;
}
