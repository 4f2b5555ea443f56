/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mem.c, objs.c, rows.c and threads.c share among themselves and with
 * nothing else: the row caches, the charged cache allocations, task
 * accounting deltas, and the calls one of them makes into another.
 */
#ifndef _SYSTRACE_TABLES_H
#define _SYSTRACE_TABLES_H

#include <linux/task_work.h>
#include <linux/workqueue.h>
#include "systrace.h"

struct kmem_cache;

/* mem.c */
extern struct kmem_cache *st_proc_cache, *st_site_cache;
extern struct kmem_cache *st_tsite_cache, *st_thread_cache;
void *st_cache_alloc(struct st_session *s, struct kmem_cache *c, gfp_t gfp);
void st_cache_free(struct st_session *s, struct kmem_cache *c, void *p);
void st_acct_add_delta(struct st_acct *sum, struct task_struct *task,
		       const struct st_acct *base);

/* threads.c */
int st_threads_init(void);
void st_threads_exit(void);

/* rows.c */
void st_proc_free_buckets(struct st_proc *p);

/* defer.c: a work item begins with this. */
struct st_defer {
	struct callback_head cb;
	struct work_struct work;	/* from a workqueue instead */
	struct st_session *s;		/* a reference while queued */
	size_t size;			/* of the whole item, charged */
};

void *st_defer_alloc(struct st_session *s, size_t size);
bool st_defer_task(struct st_defer *d, struct task_struct *task,
		   task_work_func_t fn);
void st_defer_wq(struct st_defer *d, struct workqueue_struct *wq,
		 work_func_t fn);
void st_defer_cancel(struct st_defer *d);
void st_defer_done(struct st_defer *d);

/* objs.c */
void st_resolve_later(struct st_proc *p);

#endif
