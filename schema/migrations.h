/* SPDX-License-Identifier: MIT */
#ifndef KWARN_MIGRATIONS_H
#define KWARN_MIGRATIONS_H

#include <stddef.h>

/* Generated from schema/NNNN-*.sql by scripts/embed-sql (migrations.c). */
struct migration {
	int version;
	const char *name;
	const char *sql;
};

extern const struct migration migrations[];
extern const size_t migrations_count;

#endif
