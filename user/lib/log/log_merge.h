/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_MERGE_H
#define SYSTRACE_LOG_MERGE_H

/*
 * Sources of events, each in log order (st_event_cmp), read as one
 * (log_merge.c): a spool's runs, and arrays. Memory: one chunk per run.
 */
#include "log/log.h"
#include "log/log_spool.h"

struct st_merge;

int st_merge_new(struct st_merge **mp);
/* Every run of a spool that has been flushed. */
int st_merge_add_spool(struct st_merge *m, const struct st_spool *s);
int st_merge_add_runs(struct st_merge *m, int fd,
		      const struct st_spool_run *runs, size_t n);
/* ev[0 .. n - 1] in log order; they must outlive the merge. */
int st_merge_add_array(struct st_merge *m, const struct st_event *const *ev,
		       size_t n);
/*
 * Events from fn(ctx, ev), in log order: 1 and the next event in *ev, 0
 * at the end, or -errno.
 */
typedef int (*st_merge_next_fn)(void *ctx, struct st_event *ev);
int st_merge_add_fn(struct st_merge *m, st_merge_next_fn fn, void *ctx);
int st_merge_start(struct st_merge *m);
/* The next event (NULL at the end), valid until st_merge_pop. */
const struct st_event *st_merge_peek(const struct st_merge *m);
int st_merge_pop(struct st_merge *m);
void st_merge_free(struct st_merge *m);

#endif
