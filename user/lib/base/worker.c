// SPDX-License-Identifier: GPL-2.0
/*
 * One consumer thread over a ring of chunks (worker.h). The producer owns
 * the chunk at (head + queued) % n, the worker the one at head while it
 * runs fn; the rest are either queued or free. queued < n always holds
 * when the producer returns, so the two never share a chunk.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "base/worker.h"

struct st_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a chunk was queued, or stop */
	pthread_cond_t done;	/* a chunk was consumed */
	st_worker_fn fn;
	void *arg;
	size_t cap;
	unsigned int n, head, queued;
	bool stop;
	char **chunk;
	size_t *len;
};

static void *run(void *p)
{
	struct st_worker *w = p;
	unsigned int i;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->queued && !w->stop)
			pthread_cond_wait(&w->work, &w->mu);
		if (!w->queued)
			break;
		i = w->head;
		pthread_mutex_unlock(&w->mu);
		w->fn(w->arg, w->chunk[i], w->len[i]);
		pthread_mutex_lock(&w->mu);
		w->head = (w->head + 1) % w->n;
		w->queued--;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void free_worker(struct st_worker *w)
{
	unsigned int i;

	for (i = 0; w->chunk && i < w->n; i++)
		free(w->chunk[i]);
	free(w->chunk);
	free(w->len);
	free(w);
}

int st_worker_start(struct st_worker **wp, size_t cap, unsigned int nchunks,
		    st_worker_fn fn, void *arg)
{
	struct st_worker *w;
	unsigned int i;
	int ret;

	*wp = NULL;
	if (nchunks < 2 || !cap)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	w->cap = cap;
	w->n = nchunks;
	w->chunk = calloc(nchunks, sizeof(*w->chunk));
	w->len = calloc(nchunks, sizeof(*w->len));
	for (i = 0; w->chunk && i < nchunks; i++)
		if (!(w->chunk[i] = malloc(cap)))
			break;
	if (!w->chunk || !w->len || i < nchunks) {
		free_worker(w);
		return -ENOMEM;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->done, NULL);
	ret = pthread_create(&w->thread, NULL, run, w);
	if (ret) {
		pthread_cond_destroy(&w->done);
		pthread_cond_destroy(&w->work);
		pthread_mutex_destroy(&w->mu);
		free_worker(w);
		return -ret;
	}
	*wp = w;
	return 0;
}

/* The worker moves head and queued together: their sum is the producer's. */
char *st_worker_buf(struct st_worker *w)
{
	unsigned int i;

	pthread_mutex_lock(&w->mu);
	i = (w->head + w->queued) % w->n;
	pthread_mutex_unlock(&w->mu);
	return w->chunk[i];
}

size_t st_worker_cap(const struct st_worker *w)
{
	return w->cap;
}

char *st_worker_submit(struct st_worker *w, size_t len)
{
	unsigned int i;

	pthread_mutex_lock(&w->mu);
	w->len[(w->head + w->queued) % w->n] = len;
	w->queued++;
	pthread_cond_signal(&w->work);
	while (w->queued == w->n)
		pthread_cond_wait(&w->done, &w->mu);
	i = (w->head + w->queued) % w->n;
	pthread_mutex_unlock(&w->mu);
	return w->chunk[i];
}

void st_worker_drain(struct st_worker *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->queued)
		pthread_cond_wait(&w->done, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void st_worker_stop(struct st_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
	/* The worker empties the queue before it sees stop. */
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->mu);
	free_worker(w);
}
