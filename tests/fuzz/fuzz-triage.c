// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what a triage writer sends: the POST body
 * (triage_parse_body()) and a line of an import file
 * (triage_parse_line()), each then held to triage_check().  A record the
 * parsers pass must pass the checks, survive its export line and come
 * back from it equal; every refusal must say what is wrong.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "triage.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* R passed the checks: its line parses back to the same record. */
static void round_trip(const struct triage_rec *r)
{
	struct strbuf sb = STRBUF_INIT;
	struct triage_rec back;
	const char *why = NULL;

	triage_format_line(&sb, r);
	if (triage_parse_line(&back, &why, sb.buf, sb.len - 1) != 0)
		__builtin_trap();
	if (!same(back.fingerprint, r->fingerprint) ||
	    !same(back.state, r->state) || !same(back.reason, r->reason) ||
	    !same(back.link, r->link) || !same(back.who, r->who) ||
	    !same(back.origin, r->origin) || back.at != r->at)
		__builtin_trap();
	triage_rec_release(&back);
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data, *field = NULL, *why = NULL;
	struct triage_rec r = { 0 };
	int rc;

	/* as a POST body, for a known warning and token */
	rc = triage_parse_body(&r, &field, &why, in, size);
	if (rc && (!field || !why))
		__builtin_trap();
	if (!rc) {
		r.fingerprint = xstrdup("e3ce1c9b238e6a9f3b357d8b9d8fd28f"
					"5b94487cbd31bf0f927d020765275bf8");
		r.who = xstrdup("alice");
		r.origin = xstrdup("api");
		r.at = 1796405938;
		if (!triage_check(&r, &field, &why))
			round_trip(&r);
		else if (!field || !why)
			__builtin_trap();
	}
	triage_rec_release(&r);
	/* as a line of an import file */
	rc = triage_parse_line(&r, &why, in, size);
	if (rc < 0 && !why)
		__builtin_trap();
	if (!rc) {
		if (triage_check(&r, &field, &why))
			__builtin_trap();
		round_trip(&r);
	}
	triage_rec_release(&r);
	return 0;
}
