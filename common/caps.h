/* SPDX-License-Identifier: MIT */
#ifndef KWARN_CAPS_H
#define KWARN_CAPS_H

/*
 * The largest file kwarn and kwarn-server read whole (util_read_file()),
 * by what the file is, each with why it is that size.  A larger file is
 * refused with an error naming it, never cut short.  Build logs are not
 * here: they are streamed (collector/logread.c), whatever their size.
 * The server's limits on requests and answers are in server/server.h.
 */

/* One number on a line (the objects a cold build compiled): a long long. */
#define CAP_NUMBER_FILE 64

/* A command's few lines read back (gcc --version): far over any real one. */
#define CAP_COMMAND_OUTPUT (64u << 10)

/*
 * A file a person writes or kwarn writes small: a config fragment, a quilt
 * series, a man page, a stamp, the top Makefile of a tree (70 kB in 6.12),
 * one test compile's stderr.  The largest real one is tens of kB.
 */
#define CAP_SMALL_FILE (1u << 20)

/* The tokens file of the triage write path: a few lines per person. */
#define CAP_TOKENS_FILE (64u << 10)

/*
 * One C source or header (the census's walk, the mail's quoted lines,
 * the classifier, the function finder of kwarn ingest): the kernel's largest generated sources are a
 * few MB (amdgpu's register headers, 6.12), so 32 MB only stops a file
 * that is not source.
 */
#define CAP_SOURCE_FILE (32u << 20)

/*
 * A kernel tree's generated or listed file read whole: MAINTAINERS (0.8
 * MB), a .config, a .cmd or .mod file of kbuild, a patch of the series,
 * an object map, a triage export, one compile's output in kwarn bisect,
 * and the kwarn-cc binary copied into the cache.  64 MB is about 80 times
 * the largest seen (MAINTAINERS).
 */
#define CAP_TREE_FILE (64u << 20)

/*
 * One object's capture (its compiler's stderr, with the source lines and
 * notes gcc prints) and the make log whose tail an error quotes: W=1 on an
 * allmodconfig object prints at most a few MB; 256 MB keeps a runaway
 * compiler from taking the machine.  A boot log and a packed initramfs
 * file (busybox is 2 MB, a large module tens of MB) share it.
 */
#define CAP_CAPTURE_FILE (256u << 20)

/* A serial console log of one boot, as the server returns it. */
#define CAP_BOOT_LOG (64u << 20)

#endif /* KWARN_CAPS_H */
