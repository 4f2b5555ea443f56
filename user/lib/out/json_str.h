/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_JSON_STR_H
#define SYSTRACE_JSON_STR_H

/*
 * JSON strings: the output floor's escaping, and the decoding of \u
 * escapes that every JSON reader of the project shares.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "out/obuf.h"

/*
 * The length of the valid UTF-8 sequence at s (1 for ASCII), or 0 (RFC
 * 3629, as jansson checks it). At most avail bytes are read; a string's
 * NUL ends any sequence, so a NUL-terminated one may pass SIZE_MAX.
 */
size_t st_utf8_len(const char *s, size_t avail);
/* Whether the first n bytes of s are valid UTF-8. */
bool st_utf8_valid(const char *s, size_t n);
/*
 * The first n bytes of s at out (3 * n bytes of room), each byte that is
 * not valid UTF-8 as U+FFFD; returns the length written, no NUL added.
 */
size_t st_utf8_repair(char *out, const char *s, size_t n);
/* s as a JSON string; a byte that is not valid UTF-8 becomes U+FFFD. */
json_t *st_json_string(const char *s);
/* The same, printed as jansson prints it. */
void st_json_put_string(struct st_obuf *o, const char *s);

/* Code point c as UTF-8 at o; returns the byte after it. */
char *st_utf8_put(char *o, uint32_t c);
/*
 * The \uXXXX escape at p (the 'u', after the backslash; a surrogate pair
 * whole) as UTF-8 at *out, advanced. Returns the byte after the escape,
 * or NULL with why set: bad hex digits, a lone surrogate, or \u0000.
 * end bounds the text; NULL: it ends with a NUL.
 */
const char *st_json_unescape_u(const char *p, const char *end, char **out,
			       const char **why);

#endif
