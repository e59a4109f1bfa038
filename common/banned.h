/* SPDX-License-Identifier: MIT */
#ifndef KWARN_BANNED_H
#define KWARN_BANNED_H

/*
 * Unsafe libc calls, turned into compile errors the way git's banned.h
 * does it.  Use snprintf(), strbuf or memcpy() with an explicit length,
 * and strtol() with error checking instead.
 */
#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef gets
#define gets(x) BANNED(gets)

#endif
