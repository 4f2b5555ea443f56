// SPDX-License-Identifier: GPL-2.0
/*
 * JSON strings, both ways (json_str.h): bytes out as JSON string literals
 * (invalid UTF-8 as U+FFFD, jansson's escapes), and the \u escapes of
 * JSON read back to UTF-8, one copy for every reader.
 */
#include <stdlib.h>
#include <string.h>
#include "out/json_str.h"

/*
 * The length of the valid UTF-8 sequence at s (1 for ASCII), or 0 (RFC
 * 3629, as jansson checks it). At most avail bytes are read; a string's
 * NUL ends any sequence, so a NUL-terminated one may pass SIZE_MAX.
 */
size_t st_utf8_len(const char *s, size_t avail)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, i;
	uint32_t cp;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4;
	else
		return 0;
	cp = u[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if (i >= avail || (u[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * The first n bytes of s as valid UTF-8 at out (room for 3 * n bytes):
 * each byte that is not part of a valid sequence becomes U+FFFD, as the
 * JSON writers and the Perfetto trace both give it. Returns the length
 * written (no NUL added).
 */
size_t st_utf8_repair(char *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	char *o = out;
	size_t k;

	while (p < end) {
		k = *p < 0x80 ? 1 : st_utf8_len((const char *)p, (size_t)(end - p));
		if (k) {
			memcpy(o, p, k);
			o += k;
			p += k;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	return (size_t)(o - out);
}

/* Whether the first n bytes of s are valid UTF-8 (ASCII is checked 8 bytes a step). */
bool st_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	uint64_t x;
	size_t k;

	while (p < end) {
		if (end - p >= 8) {
			memcpy(&x, p, 8);
			if (!(x & 0x8080808080808080ULL)) {
				p += 8;
				continue;
			}
		}
		k = *p < 0x80 ? 1 : st_utf8_len((const char *)p, (size_t)(end - p));
		if (!k)
			return false;
		p += k;
	}
	return true;
}

/*
 * Paths and comms are bytes; JSON strings are Unicode. A byte that is not
 * part of valid UTF-8 becomes U+FFFD rather than losing the whole string.
 */
json_t *st_json_string(const char *s)
{
	json_t *j = json_string(s);
	size_t n;
	char *buf;

	if (j)
		return j;
	n = strlen(s);
	buf = malloc(n * 3 + 1);
	if (!buf)
		return NULL;
	buf[st_utf8_repair(buf, s, n)] = '\0';
	j = json_string(buf);
	free(buf);
	return j;
}

/* The bytes st_json_put_string copies as they are: ASCII from ' ' but " (0x22) and \ (0x5c). */
static const bool json_plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true,
};

/* Whether the 8 bytes at p hold one that json_plain[] does not have. */
static inline bool json_word_special(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t x, q, b;

	memcpy(&x, p, 8);
	q = x ^ (ones * '"');
	b = x ^ (ones * '\\');
	/* A byte < 0x20, == '"', == '\\', or >= 0x80 (its high bit). */
	return ((x - ones * 0x20) | (q - ones) | (b - ones) | x) & high;
}

/*
 * s as a JSON string literal, byte for byte what dumping st_json_string(s)
 * prints: invalid UTF-8 becomes U+FFFD, and jansson's escapes (", \\, the
 * control characters; nothing else, as without JSON_ENSURE_ASCII and
 * JSON_ESCAPE_SLASH). A dump writes one per string cell: runs of plain
 * bytes are copied whole, and only bytes >= 0x80 are decoded.
 */
void st_json_put_string(struct st_obuf *o, const char *s)
{
	static const char *const esc[0x20] = {
		['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n",
		['\r'] = "\\r", ['\t'] = "\\t",
	};
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s, *run;
	char u[6] = "\\u00";
	size_t n;

	st_obuf_putc(o, '"');
	/* Whole words of plain bytes first (a path is tens of them). */
	n = strlen(s);
	for (run = p; n >= 8 && !json_word_special(p); p += 8, n -= 8)
		;
	st_obuf_put(o, run, p - run);
	for (;;) {
		for (run = p; json_plain[*p]; p++)
			;
		st_obuf_put(o, run, p - run);
		if (!*p)
			break;
		if (*p >= 0x80) {
			n = st_utf8_len((const char *)p, SIZE_MAX);
			if (n)
				st_obuf_put(o, p, n);
			else
				st_obuf_put(o, "\xef\xbf\xbd", 3);
			p += n ? n : 1;
			continue;
		}
		if (*p == '"' || *p == '\\') {
			st_obuf_putc(o, '\\');
			st_obuf_putc(o, *p);
		} else if (esc[*p]) {
			st_obuf_put(o, esc[*p], 2);
		} else {
			u[4] = hex[*p >> 4];
			u[5] = hex[*p & 0xf];
			st_obuf_put(o, u, 6);
		}
		p++;
	}
	st_obuf_putc(o, '"');
}

/* Each byte's value as a hex digit plus one, 0 for none: one load per digit. */
static const uint8_t hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The 4 hex digits at p as a number, or -1; a NUL or end stops them. */
static int hex4(const char *p, const char *end)
{
	int v = 0, i, h;

	if (end && end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		h = hex1[(unsigned char)p[i]] - 1;
		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

char *st_utf8_put(char *o, uint32_t c)
{
	if (c < 0x80) {
		*o++ = (char)c;
	} else if (c < 0x800) {
		*o++ = (char)(0xc0 | c >> 6);
		*o++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (char)(0xe0 | c >> 12);
		*o++ = (char)(0x80 | (c >> 6 & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (char)(0xf0 | c >> 18);
		*o++ = (char)(0x80 | (c >> 12 & 0x3f));
		*o++ = (char)(0x80 | (c >> 6 & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	}
	return o;
}

const char *st_json_unescape_u(const char *p, const char *end, char **out,
			       const char **why)
{
	int c = hex4(p + 1, end), lo;

	if (c < 0) {
		*why = "a bad \\u escape";
		return NULL;
	}
	p += 5;
	if (c >= 0xd800 && c < 0xdc00) {
		lo = (!end || end - p >= 2) && p[0] == '\\' && p[1] == 'u' ?
		     hex4(p + 2, end) : -1;
		if (lo < 0xdc00 || lo >= 0xe000) {
			*why = "a lone surrogate in a \\u escape";
			return NULL;
		}
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	} else if (c >= 0xdc00 && c < 0xe000) {
		*why = "a lone surrogate in a \\u escape";
		return NULL;
	} else if (!c) {
		*why = "a NUL (\\u0000) in a string";
		return NULL;
	}
	*out = st_utf8_put(*out, (uint32_t)c);
	return p;
}
