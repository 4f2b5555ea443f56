/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mem.c, objs.c, rows.c and threads.c share among themselves and with
 * nothing else: the row caches, the charged cache allocations, task
 * accounting deltas, and the calls one of them makes into another.
 */
#ifndef _SYSTRACE_TABLES_H
#define _SYSTRACE_TABLES_H

#include "core.h"

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
bool st_proc_settle(struct st_proc *p);

/* objs.c */
void st_resolve_later(struct st_thread *t, struct st_proc *p,
		      struct st_site *site);
void st_resolve_handoff(struct st_proc *p);
bool st_resolve_now(struct st_proc *p);
void st_resolve_drop(struct st_proc *p);

/* counters.c: deferred work, in current */
void st_counter_create(struct st_session *s);
void st_counter_split(struct st_session *s);
void st_counter_split_lost(struct st_thread *t);

#endif
