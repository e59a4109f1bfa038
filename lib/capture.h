/* SPDX-License-Identifier: MIT */
#ifndef KWARN_CAPTURE_H
#define KWARN_CAPTURE_H

/*
 * The capture file kwarn-cc writes for each object it compiles, and
 * kwarn run reads: $KWARN_CAPTURE_DIR/<object path, '/' as '%'>.log
 * holding one header line "kwarn-cc rc=N obj=PATH" (N padded to four
 * places, so the header can be rewritten in place once the compiler's
 * status is known) and then that compiler's stderr, whole.  A checker
 * that kbuild runs on the object (CHECK, C=1) has its own file beside
 * it, <object>.<tool>.log, whose header ends " tool=TOOL".  libc only:
 * kwarn-cc links this and nothing else.
 */

#include <stddef.h>

/*
 * The capture file of object OBJ ("./" dropped, '/' as '%') in DIR with
 * SUFFIX (".log", or ".tmp" while it is written) into OUT (SIZE bytes,
 * cut short if too small).
 */
void capture_name(char *out, size_t size, const char *dir, const char *obj,
		  const char *suffix);

/*
 * The header for status RC (clamped to 0..9999) and object OBJ, of a
 * checker TOOL or of the compiler (NULL), into OUT (SIZE bytes); returns
 * its length, as snprintf() does.
 */
int capture_header(char *out, size_t size, int rc, const char *obj,
		   const char *tool);

/*
 * Read the header at the start of TEXT: the status into *rc and the
 * object into a new string *obj (the caller frees it).  Returns 0, or -1
 * when TEXT does not start with a header (or on out of memory).
 */
int capture_parse_header(int *rc, char **obj, const char *text);

/*
 * The checker named by the header at the start of TEXT, as a new string
 * (the caller frees it), or NULL for a compiler's capture.
 */
char *capture_parse_tool(const char *text);

#endif
