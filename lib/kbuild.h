/* SPDX-License-Identifier: MIT */
#ifndef KWARN_KBUILD_H
#define KWARN_KBUILD_H

#include <stddef.h>

/*
 * What a kbuild build directory says about its objects: the source each
 * object was compiled from (the "source_OBJ := SRC" line of .OBJ.cmd) and
 * the composite object each part is linked into (the parts listed in
 * NAME.mod).  Every path is relative to the build directory or, for
 * sources, to the source tree.  Reading files only; no SQL.
 */
struct kbuild_pair {
	char *key;
	char *value;
};

struct kbuild_map {
	struct kbuild_pair *objects; /* source -> object, sorted by source */
	size_t nr_objects, alloc_objects;
	struct kbuild_pair *composites; /* part -> composite, sorted by part */
	size_t nr_composites, alloc_composites;
};

/*
 * Read every .*.o.cmd and *.mod file below DIR (not following symbolic
 * links, skipping tools/, which kbuild does not build) into *OUT.
 * Absolute paths lose the build directory as kbuild saw it and the source
 * tree (DIR/source, the link kbuild makes for O= builds).  Returns -1
 * with an error reported when DIR cannot be read; *OUT is then empty.
 * A directory without .cmd files gives an empty map.  Release with
 * kbuild_map_release().
 */
int kbuild_map_load(struct kbuild_map *out, const char *dir);

/* The object kbuild compiled SOURCE into, or NULL. */
const char *kbuild_object(const struct kbuild_map *m, const char *source);

/* The composite object OBJECT is linked into, or NULL. */
const char *kbuild_composite(const struct kbuild_map *m, const char *object);

/* Free what M holds and empty it; M itself may be reused. */
void kbuild_map_release(struct kbuild_map *m);

#endif
