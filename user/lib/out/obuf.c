// SPDX-License-Identifier: GPL-2.0
/*
 * The output buffer and the number formatter (obuf.h): pieces gathered and
 * handed to the stream in 64 KiB blocks, by a writer thread when one starts.
 */
#include <stdlib.h>
#include "base/worker.h"
#include "out/obuf.h"

/* A block of the dump file: the stream is handed pieces this large. */
#define OBUF_SIZE 65536

/* Buffers that the writer's thread may hold at once, beside the one filled. */
#define OBUF_QUEUE 3

void st_obuf_init(struct st_obuf *o, FILE *f, char *b, size_t cap)
{
	o->f = f;
	o->b = b;
	o->len = 0;
	o->cap = cap;
	o->w = NULL;
}

/* A failed write leaves the stream's error set: st_output_write reports it. */
static void write_chunk(void *f, char *b, size_t len)
{
	fwrite(b, 1, len, f);
}

void st_obuf_spill(struct st_obuf *o)
{
	if (!o->len)
		return;
	if (o->w)
		o->b = st_worker_submit(o->w, o->len);
	else
		write_chunk(o->f, o->b, o->len);
	o->len = 0;
}

void st_obuf_flush(struct st_obuf *o)
{
	if (o->w) {
		/* What is queued first, then the rest from here: no hand-off. */
		st_worker_drain(o->w);
		if (o->len)
			write_chunk(o->f, o->b, o->len);
		o->len = 0;
		return;
	}
	st_obuf_spill(o);
}

/* s does not fit in what is left of b. */
void st_obuf_write(struct st_obuf *o, const void *s, size_t n)
{
	if (n > o->cap) {
		st_obuf_flush(o);
		fwrite(s, 1, n, o->f);
		return;
	}
	st_obuf_spill(o);
	st_obuf_put(o, s, n);
}

const char st_digit_pairs[200] =
	"00010203040506070809" "10111213141516171819"
	"20212223242526272829" "30313233343536373839"
	"40414243444546474849" "50515253545556575859"
	"60616263646566676869" "70717273747576777879"
	"80818283848586878889" "90919293949596979899";

const uint64_t st_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

void st_obuf_u64(struct st_obuf *o, uint64_t v)
{
	char buf[ST_NUM_LEN];

	st_obuf_put(o, buf, (size_t)(st_put_dec(buf, v) - buf));
}

void st_obuf_s64(struct st_obuf *o, uint64_t v)
{
	char buf[ST_NUM_LEN];

	st_obuf_put(o, buf, (size_t)(st_put_sdec(buf, v) - buf));
}

void st_obuf_hex(struct st_obuf *o, uint64_t v)
{
	char buf[ST_NUM_LEN];

	st_obuf_put(o, buf, (size_t)(st_put_hex(buf, v) - buf));
}

/*
 * A buffer for o, or NULL. A thread of its own writes the full ones while
 * the next rows are formatted (worker.h); without one, the caller writes.
 */
char *st_obuf_open(struct st_obuf *o, FILE *f)
{
	struct st_worker *w;

	if (!st_worker_start(&w, OBUF_SIZE, OBUF_QUEUE + 1, write_chunk, f)) {
		st_obuf_init(o, f, st_worker_buf(w), OBUF_SIZE);
		o->w = w;
		return o->b;
	}
	st_obuf_init(o, f, malloc(OBUF_SIZE), OBUF_SIZE);
	return o->b;
}

void st_obuf_close(struct st_obuf *o)
{
	st_obuf_flush(o);
	if (o->w)
		st_worker_stop(o->w);	/* its buffers, o->b among them */
	else
		free(o->b);
	o->b = NULL;
}
