/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_WORKER_H
#define SYSTRACE_WORKER_H

#include <stddef.h>

/*
 * A second thread that consumes chunks of bytes in the order they are
 * handed to it, while the caller fills the next one: the dump uses it to
 * decode netlink replies while more are read, and to write the file while
 * the next rows are formatted. Under emulation, or on a busy machine, that
 * uses the second CPU for what the dump used to do in turn.
 *
 * The caller fills st_worker_buf() (at most st_worker_cap() bytes) and
 * hands it over with st_worker_submit(), which returns the next chunk to
 * fill; it blocks while every chunk is queued, so the memory is bounded by
 * nchunks x cap. fn(arg, chunk, len) runs on the worker's thread, one chunk
 * at a time, in the order submitted. Only the worker touches what fn
 * touches until st_worker_drain() or st_worker_stop() returns.
 */
struct st_worker;

typedef void (*st_worker_fn)(void *arg, char *chunk, size_t len);

/* 0, or -errno (no memory, no thread): the caller then works alone. */
int st_worker_start(struct st_worker **wp, size_t cap, unsigned int nchunks,
		    st_worker_fn fn, void *arg);
char *st_worker_buf(struct st_worker *w);
size_t st_worker_cap(const struct st_worker *w);
/* Hands over the first len bytes of st_worker_buf(); returns the next buffer. */
char *st_worker_submit(struct st_worker *w, size_t len);
/* Waits until fn has returned for every chunk submitted. */
void st_worker_drain(struct st_worker *w);
/* Drains, ends the thread and frees w (NULL: nothing). */
void st_worker_stop(struct st_worker *w);

#endif
