// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for kwarn-server's request path, without a socket:
 * the input's first line is a request target, the rest a Host header.
 * The whole input is checked as a request head (gate_head_check()); the
 * target is decoded (http_target_parse()), routed and its parameters
 * checked, and the endpoint run (api_dispatch()) on a small in-memory
 * database; the Host goes through http_host_allowed().  Every answer must
 * encode as JSON, and every error must carry its "error" message.
 * Build: make build/fuzz-request; run: make fuzz-request.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "server.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sqlite3 *db;

/* Two commits of one run, three warnings, one fixed at the second. */
static const char fixture[] =
	"INSERT INTO trees(id, name, kind, maintainers) VALUES (1, 'fz',"
	" 'log', 'FIREWIRE SUBSYSTEM\nF:\tdrivers/firewire/\n\n"
	"THE REST\nF:\t*\nF:\t*/\n');"
	"INSERT INTO runs(id, tree_id, kind, status) VALUES (1, 1, 'ingest',"
	" 'done');"
	"INSERT INTO commits(id, run_id, position, sha, apply_status) VALUES"
	" (1, 1, 0, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'base'),"
	" (2, 1, 1, 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'applied');"
	"INSERT INTO builds(id, commit_id, status) VALUES (1, 1, 'ingested'),"
	" (2, 2, 'ingested');"
	"INSERT INTO identities(id, fingerprint, kind, file, function, option,"
	" message, fp_key) VALUES"
	" (1, '0123456789abcdef0123456789abcdef', 'warning',"
	" 'drivers/firewire/core.c', 'fw_a', '-Wimplicit-fallthrough=',"
	" 'this statement may fall through', 81985529216486895),"
	" (2, 'fedcba9876543210fedcba9876543210', 'warning', 'fs/afs/x.c',"
	" 'afs_b', '-Wimplicit-fallthrough=', 'this statement may fall"
	" through', -81985529216486896),"
	" (3, '00000000000000000000000000000001', 'warning', 'net/dev.c',"
	" 'dev_x', NULL, 'unused variable', 0);"
	"INSERT INTO diagnostics(id, build_id, identity_id, kind, option, file,"
	" line, col, function, message, source) VALUES"
	" (1, 1, 1, 'warning', '-Wimplicit-fallthrough=',"
	" 'drivers/firewire/core.c', 9, 5, 'fw_a', 'this statement may fall"
	" through', 'r += 2;'),"
	" (2, 2, 2, 'warning', '-Wimplicit-fallthrough=', 'fs/afs/x.c', 6, 3,"
	" 'afs_b', 'this statement may fall through', 'x++;');"
	"INSERT INTO states(commit_id, identity_id, state, diag_id, seen) VALUES"
	" (1, 1, 'new', 1, 1), (1, 3, 'new', NULL, 1), (2, 1, 'fixed', NULL, 0),"
	" (2, 2, 'new', 2, 1), (2, 3, 'not_built', NULL, 0);"
	"INSERT INTO boots(build_id, verdict, reason, duration_ms, log,"
	" log_size, accel) VALUES (2, 'pass', 'marker', 10, x'00', 1, 'tcg');";

static sqlite3 *fuzz_db(void)
{
	return db;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* nothing of the machine's tree cache is read */
	setenv("KWARN_CACHE", "/nonexistent/kwarn-fuzz", 1);
	if (db_open(&db, ":memory:", DB_READ_WRITE) ||
	    db_exec(db, fixture, "cannot load the fuzz fixture"))
		abort();
	return 0;
}

/* The reply must encode, and an error must say what it is. */
static void check_reply(struct api_reply *reply)
{
	char *body;

	if (reply->json) {
		body = json_dumps(reply->json, JSON_COMPACT);
		if (!body)
			__builtin_trap();
		if (reply->status >= 400 &&
		    !json_is_string(json_object_get(reply->json, "error")))
			__builtin_trap();
		free(body);
	}
	json_decref(reply->json);
	free(reply->text);
	blob_unref(reply->blob);
	blob_unref(reply->gz);
}

/* The length of the head at IN (SIZE bytes): up to its empty line. */
static size_t head_len(const char *in, size_t size)
{
	for (size_t i = 0; i + 1 < size; i++) {
		if (in[i] != '\n')
			continue;
		if (in[i + 1] == '\n')
			return i + 2;
		if (i + 2 < size && in[i + 1] == '\r' && in[i + 2] == '\n')
			return i + 3;
	}
	return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	const char *nl = memchr(in, '\n', size);
	size_t tlen = nl ? (size_t)(nl - in) : size;
	struct server_opts o = { .host = "127.0.0.1",
				 .allow_host = { "kwarn.example" },
				 .nallow_host = 1 };
	struct api_reply reply = { .status = 200 };
	struct api_target t;
	int rc;

	/* the whole input as the head of a first request, for the gate */
	rc = gate_head_check(&reply, in, size);
	if (rc < 0) {
		if (reply.status < 400)
			__builtin_trap();
		check_reply(&reply);
	}
	/* a head the gate passes holds no NUL: MHD would cut it there */
	if (!rc && memchr(in, '\0', head_len(in, size)))
		__builtin_trap();
	reply = (struct api_reply){ .status = 200 };
	if (nl) {
		char *host = xstrndup(nl + 1, size - tlen - 1);

		(void)http_host_allowed(&o, host);
		free(host);
	}
	if (http_target_parse(&t, &reply, in, tlen)) {
		if (reply.status != 400)
			__builtin_trap();
		check_reply(&reply);
		return 0;
	}
	if (t.nseg && !strcmp(t.seg[0], "api"))
		api_dispatch(&reply, &t, fuzz_db);
	check_reply(&reply);
	http_target_release(&t);
	return 0;
}
