/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_OBUF_H
#define SYSTRACE_OBUF_H

/*
 * The output floor's buffer: everything systracectl writes in bulk (tables,
 * dumps, logs) goes through an st_obuf, and every number through its
 * formatter. Includes nothing of the project's but the writer thread.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct st_worker;

/*
 * Output gathered in b and handed to f in large pieces. A dump is hundreds
 * of millions of small pieces (a key, a number, a run of a path): one stdio
 * call each, each taking the stream's lock, cost more than the formatting.
 * Flush before writing to f directly.
 */
struct st_obuf {
	FILE *f;
	char *b;
	size_t len, cap;
	struct st_worker *w;	/* writes the full buffers; NULL: the caller */
};

void st_obuf_init(struct st_obuf *o, FILE *f, char *b, size_t cap);
/* Hands b to f and empties it; with a worker, returns before f has it. */
void st_obuf_spill(struct st_obuf *o);
/* As spill, and f has had everything: the caller may write to f itself. */
void st_obuf_flush(struct st_obuf *o);
void st_obuf_write(struct st_obuf *o, const void *s, size_t n);

/*
 * n <= 16 bytes from s to d, inline: most pieces are that short, and a
 * call of libc's memcpy per piece cost a log's writers 10% of their time.
 * Overlapping loads and stores of 8, 4 or 1 bytes; nothing read past s + n.
 */
static inline void st_copy16(char *d, const void *src, size_t n)
{
	const char *s = src;

	if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

static inline void st_obuf_put(struct st_obuf *o, const void *s, size_t n)
{
	if (n > o->cap - o->len) {
		st_obuf_write(o, s, n);
		return;
	}
	if (n <= 16)
		st_copy16(o->b + o->len, s, n);
	else
		memcpy(o->b + o->len, s, n);
	o->len += n;
}

static inline void st_obuf_putc(struct st_obuf *o, char c)
{
	if (o->len == o->cap)
		st_obuf_spill(o);
	o->b[o->len++] = c;
}

static inline void st_obuf_puts(struct st_obuf *o, const char *s)
{
	st_obuf_put(o, s, strlen(s));
}

/* As printf's %PRIu64, %PRId64 of (int64_t)v, and 0x%PRIx64. */
void st_obuf_u64(struct st_obuf *o, uint64_t v);
void st_obuf_s64(struct st_obuf *o, uint64_t v);
void st_obuf_hex(struct st_obuf *o, uint64_t v);

/*
 * The one number formatter of tables, dumps and logs: v in decimal at d
 * (as printf's %PRIu64), returning the byte after it. Its length is found
 * first (log10 from the bit length, then one comparison) and the digits
 * written backwards in pairs.
 */
extern const char st_digit_pairs[200];
extern const uint64_t st_pow10[20];

static inline char *st_put_dec(char *d, uint64_t v)
{
	unsigned int t = (unsigned int)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;
	char *end = d + t + ((v | 1) >= st_pow10[t]), *e = end;

	while (v >= 100) {
		e -= 2;
		memcpy(e, st_digit_pairs + v % 100 * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, st_digit_pairs + v * 2, 2);
	} else {
		*--e = (char)('0' + v);
	}
	return end;
}

/* As printf's %PRId64 of (int64_t)v. */
static inline char *st_put_sdec(char *d, uint64_t v)
{
	if ((int64_t)v >= 0)
		return st_put_dec(d, v);
	*d++ = '-';
	return st_put_dec(d, -v);
}

/* "0x" and lowercase hex digits (as 0x%PRIx64). */
static inline char *st_put_hex(char *d, uint64_t v)
{
	unsigned int n = (unsigned int)(67 - __builtin_clzll(v | 1)) / 4;
	char *e = d + 2 + n;

	d[0] = '0';
	d[1] = 'x';
	do {
		*--e = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	return d + 2 + n;
}

/* Long enough for any of them: 0x and 16 digits, or '-' and 20. */
#define ST_NUM_LEN 22

/*
 * A buffer for o writing to f, or NULL: a thread of its own writes the full
 * ones while the next are filled (base/worker.h); without one, the caller
 * writes. st_obuf_close flushes o and frees its buffers.
 */
char *st_obuf_open(struct st_obuf *o, FILE *f);
void st_obuf_close(struct st_obuf *o);

#endif
