// SPDX-License-Identifier: GPL-2.0
/*
 * Memory: the slab caches of the rows, and what every allocation of a
 * session is charged to (its max_mem, the modules's max_mem_total, the
 * memory cgroup of the task that makes the row); task accounting (CPU
 * time, context switches, faults) as a sum or a baseline. The module's
 * init and exit of the tables start here.
 */
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>
#include "core.h"
#include "tables.h"

struct kmem_cache *st_proc_cache, *st_site_cache;
struct kmem_cache *st_tsite_cache, *st_thread_cache;

int st_tables_init(void)
{
	int ret;

	/* Charged to the memory cgroup of the task that makes the row. */
	st_proc_cache = KMEM_CACHE(st_proc, SLAB_ACCOUNT);
	st_site_cache = KMEM_CACHE(st_site, SLAB_ACCOUNT);
	st_tsite_cache = KMEM_CACHE(st_tsite, SLAB_ACCOUNT);
	st_thread_cache = KMEM_CACHE(st_thread, SLAB_ACCOUNT);
	if (!st_proc_cache || !st_site_cache || !st_tsite_cache ||
	    !st_thread_cache) {
		ret = -ENOMEM;
		goto err_caches;
	}
	ret = st_threads_init();
	if (ret)
		goto err_caches;
	return 0;

err_caches:
	kmem_cache_destroy(st_thread_cache);
	kmem_cache_destroy(st_tsite_cache);
	kmem_cache_destroy(st_site_cache);
	kmem_cache_destroy(st_proc_cache);
	return ret;
}

void st_tables_exit(void)
{
	st_threads_exit();
	kmem_cache_destroy(st_thread_cache);
	kmem_cache_destroy(st_tsite_cache);
	kmem_cache_destroy(st_site_cache);
	kmem_cache_destroy(st_proc_cache);
}

/* Bytes held by every session, against max_mem_total. */
static atomic64_t st_mem_all;

/**
 * st_mem_total() - bytes held by all sessions
 *
 * Return: the sum.
 */
u64 st_mem_total(void)
{
	return atomic64_read(&st_mem_all);
}

/**
 * st_charge_quiet() - count @size bytes against @s's and the global limit
 * @s: session
 * @size: bytes
 *
 * Return: true when both limits allow it; else false, counted nowhere.
 */
bool st_charge_quiet(struct st_session *s, size_t size)
{
	if ((u64)atomic64_add_return(size, &s->mem) > st_max_mem)
		goto undo_session;
	if ((u64)atomic64_add_return(size, &st_mem_all) > st_max_mem_total)
		goto undo_all;
	return true;

undo_all:
	atomic64_sub(size, &st_mem_all);
undo_session:
	atomic64_sub(size, &s->mem);
	return false;
}

/**
 * st_charge() - st_charge_quiet(), for memory whose refusal loses data
 * @s: session
 * @size: bytes
 *
 * Return: true when both limits allow it; else false, counted in
 * dropped_nomem.
 */
bool st_charge(struct st_session *s, size_t size)
{
	if (st_charge_quiet(s, size))
		return true;
	st_stat_inc(s, ST_DROPPED_NOMEM);
	return false;
}

/**
 * st_uncharge() - give back what st_charge() counted
 * @s: session
 * @size: bytes
 */
void st_uncharge(struct st_session *s, size_t size)
{
	atomic64_sub(size, &st_mem_all);
	atomic64_sub(size, &s->mem);
}

/**
 * st_alloc() - zeroed memory charged to @s and to current's memory cgroup
 * @s: session
 * @size: bytes
 * @gfp: allocation context
 *
 * Return: the memory, or NULL when a limit or the allocator refused
 * (counted in dropped_nomem).
 */
void *st_alloc(struct st_session *s, size_t size, gfp_t gfp)
{
	void *p;

	if (!st_charge(s, size))
		return NULL;
	p = kzalloc(size, gfp | __GFP_NOWARN | __GFP_ACCOUNT);
	if (!p) {
		st_uncharge(s, size);
		st_stat_inc(s, ST_DROPPED_NOMEM);
	}
	return p;
}

/**
 * st_free() - free what st_alloc() gave
 * @s: session
 * @p: the memory, or NULL
 * @size: the size it was allocated with
 */
void st_free(struct st_session *s, void *p, size_t size)
{
	if (!p)
		return;
	kfree(p);
	st_uncharge(s, size);
}

void *st_cache_alloc(struct st_session *s, struct kmem_cache *c,
			    gfp_t gfp)
{
	void *p;

	if (!st_charge(s, kmem_cache_size(c)))
		return NULL;
	p = kmem_cache_zalloc(c, gfp | __GFP_NOWARN);
	if (!p) {
		st_uncharge(s, kmem_cache_size(c));
		st_stat_inc(s, ST_DROPPED_NOMEM);
	}
	return p;
}

void st_cache_free(struct st_session *s, struct kmem_cache *c, void *p)
{
	if (!p)
		return;
	kmem_cache_free(c, p);
	st_uncharge(s, kmem_cache_size(c));
}

/*
 * Task accounting: CPU time, context switches and faults. The CPU times
 * are the kernel's adjusted ones, as getrusage(), /proc and time(1) report
 * them: the tick samples of utime and stime scaled to the task's precise
 * runtime (sum_exec_runtime), never decreasing. The raw samples alone miss
 * a task that ran less than a tick, and under a hypervisor that steals
 * ticks (TCG) can say half of the truth.
 */
void st_acct_read(struct task_struct *task, struct st_acct *a)
{
	u64 utime, stime;

	task_cputime_adjusted(task, &utime, &stime);
	a->v[ST_ACCT_USER_NS] = utime;
	a->v[ST_ACCT_SYS_NS] = stime;
	a->v[ST_ACCT_NVCSW] = READ_ONCE(task->nvcsw);
	a->v[ST_ACCT_NIVCSW] = READ_ONCE(task->nivcsw);
	a->v[ST_ACCT_MINFLT] = READ_ONCE(task->min_flt);
	a->v[ST_ACCT_MAJFLT] = READ_ONCE(task->maj_flt);
}

void st_acct_add_delta(struct st_acct *sum, struct task_struct *task,
			      const struct st_acct *base)
{
	struct st_acct now;
	int i;

	st_acct_read(task, &now);
	for (i = 0; i < ST_NACCT; i++)
		sum->v[i] += now.v[i] - base->v[i];
}
