// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred work: what a probe cannot do itself (wait for the mmap lock,
 * create or read a perf counter, copy its argv from user memory) the
 * thread does in process context, by
 * task_work. A probe never queues that work, it only sets a bit in a
 * thread's record (st_defer()); the thread's next syscall exit queues one
 * work in itself for every bit (st_defer_queue()), and it runs right
 * after, before the thread's next user instruction (task_work_run() in
 * exit_to_user_mode_loop(), or at the top of get_signal() when a signal
 * comes first). So no work waits in a thread that sleeps: a thread that
 * blocks in a syscall for good has queued nothing, and its bits go with
 * its record when the session ends. Nor does a work wait on what the
 * traced program controls: a resolve that finds the mmap lock taken sets
 * its bit again, for the next syscall exit.
 *
 * A queued work holds a module reference (its function is module text)
 * for the moment it waits to run, and nothing of a session: it finds the
 * session through current's record when it runs, and does nothing once
 * there is none. Its few bytes are charged to the thread's memory cgroup,
 * not to a session. What is left pending when a thread never returns
 * (exit, exit_group, a kill) is not lost: the site resolves through a
 * sibling (objs.c), the counter's final read runs from a workqueue
 * (counters.c).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include "core.h"
#include "paths.h"
#include "tables.h"

struct st_twork {
	struct callback_head cb;
	unsigned long bits;		/* enum st_defer */
};

static void st_twork_fn(struct callback_head *cb)
{
	struct st_twork *w = container_of(cb, struct st_twork, cb);
	unsigned long bits = w->bits, again = 0;
	struct st_session *s = NULL;
	struct st_proc *p = NULL;
	struct st_thread *t;
	unsigned int i;

	kfree(w);
	rcu_read_lock();
	t = st_thread_lookup(current);
	/* A record found under RCU keeps its session from being freed. */
	if (t && t->proc && kref_get_unless_zero(&t->s->ref)) {
		s = t->s;
		p = t->proc;
	}
	rcu_read_unlock();
	if (s) {
		/* The session's reference keeps its rows, p among them. */
		if (bits & BIT(ST_DEFER_SPLIT))
			st_counter_split(s);
		if (bits & BIT(ST_DEFER_COUNTER))
			st_counter_create(s);
		if ((bits & BIT(ST_DEFER_RESOLVE)) && st_resolve_now(p))
			again |= BIT(ST_DEFER_RESOLVE);
		if (bits & BIT(ST_DEFER_ARGV))
			st_argv_read(s, p);
		if (bits & BIT(ST_DEFER_GROW)) {
			st_sites_grow(s, p);
			st_paths_grow(s);
			st_objs_grow(s);
		}
		/* Not waited for: left to current's next syscall exit. */
		rcu_read_lock();
		t = again ? st_thread_lookup(current) : NULL;
		if (t && t->s == s && t->proc == p)
			for_each_set_bit(i, &again, BITS_PER_LONG)
				st_defer(t, i);
		rcu_read_unlock();
		st_session_put(s);
	}
	/*
	 * The last call of module text here: past it only the return into
	 * task_work_run() remains, which module exit waits for
	 * (synchronize_rcu_tasks).
	 */
	module_put(THIS_MODULE);
}

/**
 * st_defer_queue() - queue current's deferred work in current
 * @t: current's record, from the syscall exit probe
 *
 * A work that cannot be queued (no memory, the module going away) leaves
 * its bits for the next syscall exit, except an exec's counter split,
 * which would no longer be one: that is counted in dropped_counters.
 */
void st_defer_queue(struct st_thread *t)
{
	unsigned long bits = xchg(&t->defer, 0);
	struct st_twork *w;
	unsigned int i;

	if (!bits)
		return;
	w = kmalloc(sizeof(*w), GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT);
	if (!w)
		goto retry;
	if (!try_module_get(THIS_MODULE)) {
		kfree(w);
		goto retry;
	}
	w->bits = bits;
	init_task_work(&w->cb, st_twork_fn);
	if (!task_work_add(current, &w->cb, TWA_RESUME))
		return;
	module_put(THIS_MODULE);
	kfree(w);
retry:
	if (bits & BIT(ST_DEFER_SPLIT))
		st_counter_split_lost(t);
	bits &= ~BIT(ST_DEFER_SPLIT);
	for_each_set_bit(i, &bits, BITS_PER_LONG)
		set_bit(i, &t->defer);
}
