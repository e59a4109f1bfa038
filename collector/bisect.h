/* SPDX-License-Identifier: MIT */
#ifndef KWARN_BISECT_H
#define KWARN_BISECT_H

/*
 * bisect.c: the commit that introduced a warning, found by rebuilding
 * only the warning's object, as `git bisect` would with a test that
 * compiles one file.
 */

/*
 * kwarn bisect --db FILE --warning ID [--repo PATH] [--good REF]
 * [--bad REF] [--dir DIR]: exit 0 with "introduced by SHA ("subject")",
 * 1 when skipped commits leave several candidates, 2 on error.
 */
int cmd_bisect(int argc, char **argv);

#endif
