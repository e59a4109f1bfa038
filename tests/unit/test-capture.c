// SPDX-License-Identifier: MIT
/*
 * The kwarn-cc capture format (lib/capture.h): names, and headers written
 * by kwarn-cc read back by kwarn run, including the rewrite in place.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "tap.h"
#include "banned.h"

int main(void)
{
	char name[64], head[256], small[12];
	char *obj = NULL;
	int rc = -1, n, m;

	capture_name(name, sizeof(name), "/c", "./drivers/fw/core.o", ".log");
	ok(!strcmp(name, "/c/drivers%fw%core.o.log"), "name: '%s'", name);
	capture_name(small, sizeof(small), "/c", "drivers/fw/core.o", ".log");
	ok(strlen(small) < sizeof(small), "a short buffer is cut, not overrun");

	n = capture_header(head, sizeof(head), 0, "kernel/panic.o", NULL);
	m = capture_header(head, sizeof(head), 1, "kernel/panic.o", NULL);
	ok(n == m, "the placeholder and the final header have one length (%d)",
	   n);
	ok(!capture_parse_header(&rc, &obj, head) && rc == 1 &&
		   !strcmp(obj, "kernel/panic.o"),
	   "a header reads back: rc=%d obj=%s", rc, obj ? obj : "?");
	free(obj);
	obj = NULL;
	capture_header(head, sizeof(head), 123456, "a.o", NULL);
	ok(!capture_parse_header(&rc, &obj, head) && rc == 9999,
	   "a status past 9999 is clamped (%d)", rc);
	free(obj);
	obj = NULL;
	ok(capture_parse_header(&rc, &obj, "gcc: error: x\n") && !obj,
	   "a file without a header is refused");
	ok(capture_parse_header(&rc, &obj, "kwarn-cc rc=x obj=a.o\n"),
	   "a header without a status is refused");
	ok(!capture_parse_tool(head), "a compiler's capture names no tool");

	/* a checker's capture: the same object, and its tool */
	n = capture_header(head, sizeof(head), 0, "mm/slab.o", "sparse");
	m = capture_header(head, sizeof(head), 3, "mm/slab.o", "sparse");
	ok(n == m, "a checker's header is rewritten in place too (%d)", n);
	ok(!capture_parse_header(&rc, &obj, head) && rc == 3 &&
		   !strcmp(obj, "mm/slab.o"),
	   "a checker's header reads back its object: rc=%d obj=%s", rc,
	   obj ? obj : "?");
	free(obj);
	obj = capture_parse_tool(head);
	ok(obj && !strcmp(obj, "sparse"), "and its tool: %s",
	   obj ? obj : "(none)");
	free(obj);
	return tap_done();
}
