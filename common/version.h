/* SPDX-License-Identifier: MIT */
#ifndef KWARN_VERSION_H
#define KWARN_VERSION_H

/*
 * kwarn's version, one for every program: what `kwarn --version` and
 * `kwarn-server --version` print, with the database schema they write
 * and read (db_schema_version()).  Raised with each release.
 */
#define KWARN_VERSION "0.8"

#endif
