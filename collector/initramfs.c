// SPDX-License-Identifier: MIT
/*
 * The boot check's initramfs: busybox-static, the init script, and the
 * modules of a build, packed as a cpio "newc" archive written here and
 * gzip'd with zlib.  The archive is cached by the hash of its inputs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "arch.h"
#include "boot.h"
#include "util.h"
#include "caps.h"
#include "banned.h"

/* Bumped when the archive layout changes, so cached archives are redone. */
#define INITRAMFS_FORMAT 2

static const char sleep_init[] =
	"#!/bin/busybox sh\n"
	"# kwarn test init: never finishes, prints nothing.\n"
	"while :; do /bin/busybox sleep 1000; done\n";

static const char *const variant_names[] = {
	[INITRAMFS_NORMAL] = "normal",
	[INITRAMFS_NO_INIT] = "no-init",
	[INITRAMFS_SLEEP] = "sleep",
};

int initramfs_parse_variant(enum initramfs_variant *out, const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(variant_names); i++) {
		if (!strcmp(s, variant_names[i])) {
			*out = (enum initramfs_variant)i;
			return 0;
		}
	}
	return -1;
}

int initramfs_default_init(char **out)
{
	const char *env = getenv("KWARN_QEMU_DIR");
	char exe[PATH_MAX];
	char *path = NULL, *slash;
	ssize_t n;

	*out = NULL;
	if (env && *env) {
		path = xstrfmt("%s/init", env);
		goto check;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return error("cannot read '/proc/self/exe': %s",
			     strerror(errno));
	exe[n] = '\0';
	/* bin/kwarn, build/tests/test-x: the repository is one level up */
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	path = xstrfmt("%s/qemu/init", exe);
	if (access(path, R_OK)) {
		/* installed: PREFIX/share/kwarn/qemu/init */
		free(path);
		path = xstrfmt("%s/share/kwarn/qemu/init", exe);
	}
	if (access(path, R_OK)) {
		/* build/asan/tests/test-x is one level deeper */
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			free(path);
			path = xstrfmt("%s/qemu/init", exe);
		}
	}
check:
	if (access(path, R_OK)) {
		error("cannot find the init script '%s' (set KWARN_QEMU_DIR)",
		      path);
		free(path);
		return -1;
	}
	*out = path;
	return 0;
}

struct entry {
	char *rel; /* path below the modules directory */
	struct stat st;
};

struct entries {
	struct entry *v;
	size_t nr, alloc;
};

static void entries_release(struct entries *e)
{
	for (size_t i = 0; i < e->nr; i++)
		free(e->v[i].rel);
	free(e->v);
	e->v = NULL;
	e->nr = e->alloc = 0;
}

/* Collect every file, directory and symlink below ROOT/REL into E. */
static int walk(struct entries *e, const char *root, const char *rel)
{
	char *dirpath = *rel ? xstrfmt("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(dirpath);
	struct dirent *de;
	int ret = -1;

	if (!d) {
		error("cannot open '%s': %s", dirpath, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		struct entry *ent;
		char *full;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (e->nr == e->alloc) {
			e->alloc = e->alloc ? 2 * e->alloc : 64;
			e->v = xrealloc(e->v, e->alloc * sizeof(*e->v));
		}
		ent = &e->v[e->nr];
		ent->rel = *rel ? xstrfmt("%s/%s", rel, de->d_name) :
				  xstrdup(de->d_name);
		full = xstrfmt("%s/%s", root, ent->rel);
		if (lstat(full, &ent->st)) {
			error("cannot stat '%s': %s", full, strerror(errno));
			free(full);
			free(ent->rel);
			goto out_close;
		}
		free(full);
		e->nr++;
		if (S_ISDIR(ent->st.st_mode) &&
		    walk(e, root, e->v[e->nr - 1].rel))
			goto out_close;
	}
	ret = 0;
out_close:
	closedir(d);
out:
	free(dirpath);
	return ret;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return strcmp(x->rel, y->rel);
}

struct cpio {
	struct strbuf sb;
	unsigned long ino;
};

static void cpio_pad(struct cpio *c)
{
	while (c->sb.len % 4)
		strbuf_addch(&c->sb, '\0');
}

/* One newc record: header, NAME, padding, DATA, padding. */
static void cpio_add(struct cpio *c, const char *name, unsigned mode,
		     unsigned rmajor, unsigned rminor, const void *data,
		     size_t len)
{
	strbuf_addf(&c->sb,
		    "070701%08lX%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X"
		    "%08zX%08X",
		    ++c->ino, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, len,
		    0u, 0u, rmajor, rminor, strlen(name) + 1, 0u);
	strbuf_add(&c->sb, name, strlen(name) + 1);
	cpio_pad(c);
	if (len) {
		strbuf_add(&c->sb, data, len);
		cpio_pad(c);
	}
}

static void cpio_dir(struct cpio *c, const char *name)
{
	cpio_add(c, name, S_IFDIR | 0755, 0, 0, NULL, 0);
}

static void cpio_symlink(struct cpio *c, const char *name, const char *to)
{
	cpio_add(c, name, S_IFLNK | 0777, 0, 0, to, strlen(to));
}

static int cpio_file(struct cpio *c, const char *name, const char *path,
		     unsigned perm)
{
	char *data = NULL;
	size_t len;

	if (util_read_file(&data, &len, path, CAP_CAPTURE_FILE))
		return -1;
	cpio_add(c, name, S_IFREG | perm, 0, 0, data, len);
	free(data);
	return 0;
}

/* Gzip IN into *out (a new buffer) with zlib's gzip wrapper. */
static int gzip_buf(struct strbuf *out, const struct strbuf *in)
{
	z_stream zs;
	int rc;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return error("cannot initialise zlib");
	strbuf_grow(out, deflateBound(&zs, in->len));
	zs.next_in = (unsigned char *)in->buf;
	zs.avail_in = (uInt)in->len;
	zs.next_out = (unsigned char *)out->buf;
	zs.avail_out = (uInt)(out->alloc - 1);
	rc = deflate(&zs, Z_FINISH);
	out->len = zs.total_out;
	deflateEnd(&zs);
	if (rc != Z_STREAM_END)
		return error("cannot gzip the initramfs (zlib %d)", rc);
	out->buf[out->len] = '\0';
	return 0;
}

int initramfs_build(char **out, const struct initramfs_opts *o)
{
	char *arch_bb = o->busybox ? NULL : arch_busybox(o->arch);
	const char *busybox = o->busybox ? o->busybox : arch_bb;
	struct strbuf manifest = STRBUF_INIT, gz = STRBUF_INIT;
	struct cpio c = { STRBUF_INIT, 0 };
	struct entries mods = { NULL, 0, 0 };
	char *init = NULL, *dir = NULL, *path = NULL, *full = NULL;
	char bb_sha[65], init_sha[65], sha[65];
	int ret = -1;

	*out = NULL;
	if ((unsigned)o->variant >= ARRAY_SIZE(variant_names)) {
		error("unknown initramfs variant %d", (int)o->variant);
		goto out;
	}
	if (o->init)
		init = xstrdup(o->init);
	else if (o->variant == INITRAMFS_NORMAL &&
		 initramfs_default_init(&init))
		goto out;
	if (access(busybox, R_OK)) {
		if (arch_bb && o->arch && !o->arch->host)
			error("cannot read '%s': %s (run scripts/fetch-busybox"
			      " %s)",
			      busybox, strerror(errno), o->arch->name);
		else
			error("cannot read '%s': %s (install busybox-static)",
			      busybox, strerror(errno));
		goto out;
	}
	if (util_sha256_file(bb_sha, busybox))
		goto out;
	if (o->variant == INITRAMFS_SLEEP)
		util_sha256_hex(init_sha, sleep_init, strlen(sleep_init));
	else if (o->variant == INITRAMFS_NO_INIT)
		snprintf(init_sha, sizeof(init_sha), "none");
	else if (util_sha256_file(init_sha, init))
		goto out;

	strbuf_addf(&manifest, "kwarn-initramfs %d\nvariant %s\n",
		    INITRAMFS_FORMAT, variant_names[o->variant]);
	strbuf_addf(&manifest, "busybox %s\ninit %s\n", bb_sha, init_sha);
	if (o->modules_dir) {
		if (!util_is_dir(o->modules_dir)) {
			error("'%s' is not a directory", o->modules_dir);
			goto out;
		}
		if (walk(&mods, o->modules_dir, ""))
			goto out;
		qsort(mods.v, mods.nr, sizeof(*mods.v), entry_cmp);
		for (size_t i = 0; i < mods.nr; i++) {
			const struct entry *e = &mods.v[i];

			strbuf_addf(&manifest, "mod %o %s", e->st.st_mode,
				    e->rel);
			if (S_ISREG(e->st.st_mode)) {
				free(full);
				full = xstrfmt("%s/%s", o->modules_dir, e->rel);
				if (util_sha256_file(sha, full))
					goto out;
				strbuf_addf(&manifest, " %s", sha);
			}
			strbuf_addch(&manifest, '\n');
		}
	}
	util_sha256_hex(sha, manifest.buf, manifest.len);

	dir = xstrfmt("%s/initramfs", util_cache_dir());
	path = xstrfmt("%s/%s.cpio.gz", dir, sha);
	if (!access(path, R_OK)) {
		*out = path;
		path = NULL;
		ret = 0;
		goto out;
	}
	if (util_mkdir_p(dir))
		goto out;

	static const char *const dirs[] = {
		"bin", "dev", "lib", "proc",	"root",	    "sbin",
		"sys", "tmp", "usr", "usr/bin", "usr/sbin",
	};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		cpio_dir(&c, dirs[i]);
	cpio_add(&c, "dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
	cpio_add(&c, "dev/null", S_IFCHR | 0666, 1, 3, NULL, 0);
	if (cpio_file(&c, "bin/busybox", busybox, 0755))
		goto out;
	/* without any init the kernel would fall back to /bin/sh */
	if (o->variant != INITRAMFS_NO_INIT)
		cpio_symlink(&c, "bin/sh", "busybox");
	if (o->variant == INITRAMFS_SLEEP)
		cpio_add(&c, "init", S_IFREG | 0755, 0, 0, sleep_init,
			 strlen(sleep_init));
	else if (o->variant == INITRAMFS_NORMAL &&
		 cpio_file(&c, "init", init, 0755))
		goto out;
	if (o->modules_dir) {
		cpio_dir(&c, "lib/modules");
		for (size_t i = 0; i < mods.nr; i++) {
			const struct entry *e = &mods.v[i];
			char *name = xstrfmt("lib/modules/%s", e->rel);
			char target[PATH_MAX];
			ssize_t n;
			int rc = 0;

			free(full);
			full = xstrfmt("%s/%s", o->modules_dir, e->rel);
			if (S_ISDIR(e->st.st_mode)) {
				cpio_dir(&c, name);
			} else if (S_ISREG(e->st.st_mode)) {
				rc = cpio_file(&c, name, full, 0644);
			} else if (S_ISLNK(e->st.st_mode)) {
				n = readlink(full, target, sizeof(target) - 1);
				if (n < 0) {
					rc = error("cannot read link '%s': %s",
						   full, strerror(errno));
				} else {
					target[n] = '\0';
					cpio_symlink(&c, name, target);
				}
			}
			free(name);
			if (rc)
				goto out;
		}
	}
	cpio_add(&c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	if (gzip_buf(&gz, &c.sb) || util_write_file(path, gz.buf, gz.len))
		goto out;
	*out = path;
	path = NULL;
	ret = 0;
out:
	strbuf_release(&manifest);
	strbuf_release(&gz);
	strbuf_release(&c.sb);
	entries_release(&mods);
	free(init);
	free(dir);
	free(path);
	free(full);
	free(arch_bb);
	return ret;
}
