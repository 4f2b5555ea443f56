// SPDX-License-Identifier: GPL-2.0
/*
 * The worker thread of the dump (worker.h): every chunk consumed once, in
 * order, whole, while the producer fills another; never a chunk shared.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "base/worker.h"
#include "test.h"

struct seen {
	size_t chunks, bytes, bad;
};

/* Chunk k holds k % 251 in each of its 100 + k % 900 bytes. */
static size_t chunk_len(size_t k)
{
	return 100 + k % 900;
}

static void check_chunk(void *arg, char *b, size_t len)
{
	struct seen *s = arg;
	size_t i, k = s->chunks;

	if (k % 64 == 0)
		usleep(2000);	/* fall behind: the producer must wait */
	if (len != chunk_len(k))
		s->bad++;
	for (i = 0; i < len; i++)
		if ((unsigned char)b[i] != k % 251)
			s->bad++;
	/* The producer may not touch this chunk: look again after a while. */
	if (k % 16 == 0) {
		usleep(200);
		for (i = 0; i < len; i++)
			if ((unsigned char)b[i] != k % 251)
				s->bad++;
	}
	s->chunks++;
	s->bytes += len;
}

TEST(worker_consumes_each_chunk_in_order_unshared)
{
	struct st_worker *w;
	struct seen s = { 0 };
	size_t k, bytes = 0;
	char *b;

	ASSERT_EQ(st_worker_start(&w, 1000, 3, check_chunk, &s), 0);
	ASSERT_EQ(st_worker_cap(w), 1000);
	b = st_worker_buf(w);
	for (k = 0; k < 3000; k++) {
		memset(b, (int)(k % 251), chunk_len(k));
		bytes += chunk_len(k);
		b = st_worker_submit(w, chunk_len(k));
		/* Fill the next one at once: it must be free already. */
		memset(b, 0xee, 1000);
	}
	st_worker_drain(w);
	EXPECT_EQ(s.chunks, 3000);
	EXPECT_EQ(s.bytes, bytes);
	EXPECT_EQ(s.bad, 0);
	st_worker_stop(w);
}

static void count_chunk(void *arg, char *b, size_t len)
{
	(void)b;
	*(size_t *)arg += len;
}

/* stop consumes what is queued; drain waits for the chunk in hand. */
TEST(worker_stop_and_drain_finish_the_queue)
{
	struct st_worker *w;
	size_t total = 0;

	ASSERT_EQ(st_worker_start(&w, 64, 4, count_chunk, &total), 0);
	st_worker_submit(w, 10);
	st_worker_submit(w, 20);
	st_worker_drain(w);
	EXPECT_EQ(total, 30);
	st_worker_submit(w, 5);
	st_worker_submit(w, 7);
	st_worker_submit(w, 9);
	st_worker_stop(w);
	EXPECT_EQ(total, 51);
	st_worker_stop(NULL);
}

TEST(worker_needs_two_chunks)
{
	struct st_worker *w = (struct st_worker *)1;
	size_t total = 0;

	EXPECT_EQ(st_worker_start(&w, 64, 1, count_chunk, &total), -EINVAL);
	EXPECT_NULL(w);
	EXPECT_EQ(st_worker_start(&w, 0, 4, count_chunk, &total), -EINVAL);
}
