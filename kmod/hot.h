/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscall probes' fast path, inlined into them: "is current traced?"
 * from the per-CPU task cache, the thread's counters for the site it
 * entered, and the count at the exit. Each falls back to a call into
 * threads.c or rows.c only when the cache or the thread's last site
 * misses.
 */
#ifndef _SYSTRACE_HOT_H
#define _SYSTRACE_HOT_H

#include <linux/percpu.h>
#include <linux/err.h>
#include <asm/syscall.h>
#include "core.h"

/*
 * The answer to "is current traced?" for the last tasks that made a
 * syscall on a CPU: more than one, so that two processes that take turns
 * on a CPU (a pipe ping-pong) do not evict each other. The entries hold
 * the generation of the task table (st_tasks_gen) read before their
 * lookups, and are used only while the table is as those lookups saw it
 * (or a change is still in flight, which a lookup could have missed as
 * well). A record that left the table is freed only after a grace period
 * that started after the bump, and a probe that starts later sees the
 * bump. Only the syscall probes touch the cache, with preemption disabled,
 * and never from an interrupt.
 */
#define ST_TASK_CACHE_WAYS 4

struct st_task_cache {
	unsigned long gen;
	struct task_struct *task[ST_TASK_CACHE_WAYS];
	struct st_thread *t[ST_TASK_CACHE_WAYS];	/* NULL: not traced */
	unsigned int next;				/* the way to refill */
};

DECLARE_PER_CPU(struct st_task_cache, st_task_cache);
extern atomic_long_t st_tasks_gen;

struct st_thread *st_thread_current_miss(struct st_task_cache *c);

/**
 * st_thread_current() - current's record, from a syscall probe
 *
 * Must be called with preemption disabled, as the syscall probes do.
 *
 * Return: the record, or NULL when current is not traced.
 */
static __always_inline struct st_thread *st_thread_current(void)
{
	struct st_task_cache *c = this_cpu_ptr(&st_task_cache);
	struct task_struct *task = current;
	int i;

	if (likely(c->gen == atomic_long_read(&st_tasks_gen))) {
		for (i = 0; i < ST_TASK_CACHE_WAYS; i++)
			if (c->task[i] == task)
				return c->t[i];
	}
	return st_thread_current_miss(c);
}

static __always_inline u8 st_abi(long *nr)
{
	if (in_ia32_syscall())
		return SYSTRACE_ABI_IA32;
#ifdef __X32_SYSCALL_BIT
	if (*nr & __X32_SYSCALL_BIT) {
		*nr &= ~__X32_SYSCALL_BIT;
		return SYSTRACE_ABI_X32;
	}
#endif
	return SYSTRACE_ABI_X64;
}

/**
 * st_tsite_get() - the calling thread's counters for the site it entered
 * @t: current's record
 * @regs: user registers at syscall entry
 * @nr: syscall number
 *
 * The fast path (the thread's last site again) reads only @t.
 *
 * Return: the counters, or NULL when the syscall cannot be counted
 * (counted in dropped_syscalls).
 */
static __always_inline struct st_tsite *st_tsite_get(struct st_thread *t,
						     struct pt_regs *regs,
						     long nr)
{
	u64 addr = instruction_pointer(regs) - 2;
	u8 abi = st_abi(&nr);

	if (st_skip(SITE) && t->last)
		return t->last;
	if (likely(t->last && t->last_addr == addr && t->last_nr == (u32)nr &&
		   t->last_abi == abi))
		return t->last;
	return st_tsite_find(t, addr, nr, abi);
}

/**
 * st_errno_count() - count a failed call's errno in its thread's site
 * @e: the slots of the thread's counters for the site (only it writes them)
 * @ret: the call's return value, an error (-4095..-1)
 *
 * Its errno's slot, else the first free one; with none free, the error is
 * left to the errors counter alone (the row's other). Called after the
 * errors counter is written, and readers read the slots before it
 * (st_site_counts_add()), so that they never find more in the slots than
 * in the errors: the stores are ordered by smp_wmb(), a compiler barrier
 * on x86, whose stores become visible in program order.
 */
static __always_inline void st_errno_count(struct st_errnos *e, long ret)
{
	u16 nr = (u16)-ret;
	int i;

	smp_wmb();	/* the errors counter before the slots */
	for (i = 0; i < SYSTRACE_SITE_ERRNOS; i++) {
		if (e->nr[i] == nr) {
			WRITE_ONCE(e->count[i], e->count[i] + 1);
			return;
		}
		if (!e->nr[i]) {
			/* Readers skip a slot whose count is still 0. */
			WRITE_ONCE(e->count[i], 1);
			WRITE_ONCE(e->nr[i], nr);
			return;
		}
	}
}

/**
 * st_tsite_account() - complete the in-flight syscall of a thread
 * @t: current's record, or one its caller owns
 * @ret: its return value
 * @now: st_tclock() at the exit
 */
static __always_inline void st_tsite_account(struct st_thread *t, long ret,
					     u64 now)
{
	struct st_tsite *ts = t->cur.ts;
	u64 *c = ts->c.v, *tc = t->c.v;
	u64 d = now - t->cur.start_ns;
	bool err = IS_ERR_VALUE(ret);

	t->cur.ts = NULL;
	if (st_skip(COUNT))
		return;
	/* Entry and exit on two CPUs whose clocks differ by more. */
	if ((s64)d < 0)
		d = 0;
	if (!c[ST_SITE_CALLS] || d < c[ST_SITE_MIN_NS])
		WRITE_ONCE(c[ST_SITE_MIN_NS], d);
	if (d > c[ST_SITE_MAX_NS])
		WRITE_ONCE(c[ST_SITE_MAX_NS], d);
	WRITE_ONCE(c[ST_SITE_TOTAL_NS], c[ST_SITE_TOTAL_NS] + d);
	WRITE_ONCE(c[ST_SITE_ERRORS], c[ST_SITE_ERRORS] + err);
	WRITE_ONCE(c[ST_SITE_CALLS], c[ST_SITE_CALLS] + 1);
	WRITE_ONCE(tc[ST_PROC_SYSCALL_NS], tc[ST_PROC_SYSCALL_NS] + d);
	WRITE_ONCE(tc[ST_PROC_ERRORS], tc[ST_PROC_ERRORS] + err);
	WRITE_ONCE(tc[ST_PROC_SYSCALLS], tc[ST_PROC_SYSCALLS] + 1);
	if (unlikely(err))
		st_errno_count(&ts->c.e, ret);
	if (unlikely(t->logging))
		st_log_syscall(t, ts->site, ret, d);
}

#endif
