// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint probes. They are registered while a session has a live task
 * and unregistered (from a work item, since probes cannot sleep) when the
 * last one is gone, so an idle system pays nothing.
 *
 * Probes never sleep: GFP_NOWAIT only. What they cannot do they leave to
 * the thread itself (defer.c), which the syscall exit probe queues.
 */
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/binfmts.h>
#include <linux/timekeeping.h>
#include <linux/pid_namespace.h>
#include <linux/sched/coredump.h>
#include "core.h"
#include "hot.h"
#include "paths.h"

/*
 * The syscall probes disable preemption themselves. On 6.1 and 6.12 the
 * tracepoint has done it already, and theirs only nests; upstream made
 * the syscall tracepoints faultable after 6.12, and their probes may then
 * run preemptible. With preemption off they may use the per-CPU task
 * cache (hot.h), and they need no rcu_read_lock() of their own: every
 * grace period waits for them (the flavours of RCU are one since 4.20),
 * and a thread record is freed by call_rcu(), a session's rows after
 * synchronize_rcu(). What dereferences RCU pointers in their slow paths
 * takes the read lock for lockdep's sake.
 */
#define st_probe_begin()	preempt_disable_notrace()
#define st_probe_end()		preempt_enable_notrace()

#if SYSTRACE_BENCH_SKIP & ST_SKIP_TASK
static DEFINE_PER_CPU(unsigned long, st_bench_calls);
#define st_bench_count()	this_cpu_inc(st_bench_calls)
#else
#define st_bench_count()	do { } while (0)
#endif

static void st_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct st_thread *t;

	if (st_skip(TASK)) {
		st_bench_count();
		return;
	}
	st_probe_begin();
	t = st_thread_current();
	if (t && t->proc && id >= 0) {
		if (unlikely(t->cur.ts)) {
			st_tsite_account(t, 0, st_tclock(t));
			st_path_lost(t);
		}
		t->cur.ts = st_tsite_get(t, regs, id);
		t->cur.start_ns = st_tclock(t);
		st_path_enter(t, regs, id);
	}
	st_probe_end();
}

static void st_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct st_thread *t;

	if (st_skip(TASK)) {
		st_bench_count();
		return;
	}
	st_probe_begin();
	t = st_thread_current();
	if (t) {
		struct st_tsite *ts = t->cur.ts;

		if (ts) {
			st_tsite_account(t, ret, st_tclock(t));
			if (unlikely(t->path_call))
				st_path_exit(t, ts, ret, NULL);
		}
		/* The thread goes back to user mode now: it runs what waits. */
		if (unlikely(READ_ONCE(t->defer)))
			st_defer_queue(t);
	}
	st_probe_end();
}

static void st_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	struct st_thread *t, *nt = NULL;
	struct st_session *s;
	struct st_proc *p;

	rcu_read_lock();
	t = st_thread_lookup(parent);
	if (!t || !t->proc)
		goto out;
	s = t->s;
	if (child->tgid == parent->tgid) {
		st_stat_inc(s, ST_CLONES);
		nt = st_thread_attach(s, t->proc, child, GFP_NOWAIT, NULL);
		/* The child runs only after this probe: no site hit yet. */
		if (nt)
			nt->ord_base = st_thread_ordinal(t);
	} else {
		/* Not followed by request: neither a fork nor a drop. */
		if (s->flags & SYSTRACE_SESSION_F_THREADS_ONLY)
			goto out;
		st_stat_inc(s, ST_FORKS);
		p = st_proc_new(s, child, t->proc->id, t->proc->tgid, 0,
				t->proc->exe, false, GFP_NOWAIT);
		if (p) {
			nt = st_thread_attach(s, p, child, GFP_NOWAIT, NULL);
			if (nt)
				st_argv_fork(nt, t->proc);
			else
				st_proc_end(p, SYSTRACE_END_DETACHED, 0);
		}
	}
	if (nt)
		st_counter_start(nt);
	else
		st_stat_inc(s, ST_DROPPED_PROCS);
out:
	rcu_read_unlock();
}

/* The exec'ing task's parent tgid, for a root that had no row before. */
static pid_t st_real_ppid(struct task_struct *task, struct st_session *s)
{
	return task_tgid_nr_ns(rcu_dereference(task->real_parent), s->pidns);
}

static void st_probe_exec(void *data, struct task_struct *task,
			  pid_t old_pid, struct linux_binprm *bprm)
{
	struct st_thread *t, *nt = NULL;
	struct st_proc *old, *p;
	struct st_session *s;

	rcu_read_lock();
	t = st_thread_lookup(task);
	if (!t)
		goto out;
	s = t->s;
	old = t->proc;
	/* execve's own exit runs in the new image; it belongs to the old. */
	if (old && t->cur.ts) {
		struct st_tsite *ts = t->cur.ts;

		st_tsite_account(t, 0, st_tclock(t));
		if (t->path_call)
			st_path_exit(t, ts, 0, bprm->filename);
	}
	/*
	 * An image the session's creator could not ptrace is not traced, as
	 * perf stops counting it: begin_new_exec() left the new mm
	 * undumpable (setuid, setgid, file capabilities, an unreadable file).
	 * The old image's row ends saying so; the task leaves the session.
	 */
	if (!s->owner_ptrace && get_dumpable(task->mm) != SUID_DUMP_USER) {
		if (!st_thread_own(t))
			goto out;
		if (old)
			st_proc_end(old, SYSTRACE_END_EXEC_UNTRACED, 0);
		st_thread_detach(t, true);
		goto out;
	}
	p = st_proc_new(s, task, old ? old->parent_id : 0,
			old ? old->ppid : st_real_ppid(task, s),
			old ? old->id : 0, st_obj_get(s, bprm->file, GFP_NOWAIT),
			false, GFP_NOWAIT);
	if (p) {
		nt = st_thread_attach(s, p, task, GFP_NOWAIT, t);
		if (!nt)
			st_proc_end(p, SYSTRACE_END_DETACHED, 0);
	}
	if (nt) {
		st_stat_inc(s, ST_EXECS);
		st_counter_exec(nt, t);
		/* Read after execve's exit, before the image's first instruction. */
		st_defer(nt, ST_DEFER_ARGV);
	} else {
		st_stat_inc(s, ST_DROPPED_PROCS);
		if (!st_thread_own(t))
			goto out;
	}
	if (old)
		st_proc_end(old, nt ? SYSTRACE_END_EXEC : SYSTRACE_END_DETACHED,
			    0);
	st_thread_detach(t, true);
out:
	rcu_read_unlock();
}

/*
 * The wait status of a process whose last traced thread is exiting, as
 * wait(2) will report it: the group's. The group has one as soon as
 * exit_group or a fatal signal ends it, and also (since 5.19) when its
 * last thread calls SYS_exit: do_exit() records that thread's code as
 * the group's before this probe runs, whatever code the leader left with.
 * Otherwise threads the session does not trace are left, and the thread's
 * own code is all there is.
 */
static u32 st_exit_code(struct task_struct *task)
{
	struct signal_struct *sig = task->signal;

	if (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT)
		return READ_ONCE(sig->group_exit_code);
	return task->exit_code;
}

static void st_probe_exit(void *data, struct task_struct *task)
{
	struct st_thread *t;
	struct st_proc *p;
	u32 code;

	rcu_read_lock();
	t = st_thread_lookup(task);
	if (!t)
		goto out;
	/* exit and exit_group never return: complete them here. */
	if (t->proc && t->cur.ts) {
		st_tsite_account(t, 0, st_tclock(t));
		st_path_lost(t);
	}
	if (!st_thread_own(t))
		goto out;
	p = t->proc;
	code = st_exit_code(task);
	t->exited = true;
	t->exit_code = code;
	/* The image ends with its last traced thread, whichever that is. */
	if (st_thread_detach(t, true) && p)
		st_proc_exit(p, code);
out:
	rcu_read_unlock();
}

struct st_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

/* Lifecycle probes first, so no syscall is seen from an unknown task. */
static struct st_tp st_tps[] = {
	{ "sched_process_fork", st_probe_fork },
	{ "sched_process_exec", st_probe_exec },
	{ "sched_process_exit", st_probe_exit },
	{ "sys_enter", st_probe_sys_enter },
	{ "sys_exit", st_probe_sys_exit },
};

static bool st_registered;
static void st_hooks_work_fn(struct work_struct *work);
static DECLARE_WORK(st_hooks_work, st_hooks_work_fn);

static void st_tp_find(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(st_tps); i++)
		if (!strcmp(tp->name, st_tps[i].name))
			st_tps[i].tp = tp;
}

/*
 * Probes may still run after this returns, until a grace period has passed
 * (tracepoint_synchronize_unregister(): an SRCU and an RCU one, seconds
 * under load). Only the module's unload needs that wait, and it is made
 * without st_mutex, so that SESSION_NEW never queues behind it:
 * - a probe finds sessions only through the task table, and a session's
 *   rows are freed only after its threads left the table and a grace
 *   period of the session's own passed (st_session_kill());
 * - registering again during the wait is safe: the tracepoint core orders
 *   a 1->0->1 transition itself (tp_rcu_cond_sync()), and a probe of the
 *   old registration still running is the same code on the same data;
 * - unload: st_hooks_exit() unregisters under st_mutex, then waits for a
 *   grace period that starts after any unregistration (its own, or the
 *   work's, made before the work dropped st_mutex), and st_hooks_flush(),
 *   called after the last counter exit read that can queue the work (the
 *   last task of a session, st_counters_exit()), waits for a work item
 *   still in its wait, so the module's code and data outlive every probe
 *   and every waiter.
 */
static void st_hooks_unregister(int n)
{
	while (n--)
		tracepoint_probe_unregister(st_tps[n].tp, st_tps[n].probe, NULL);
}

/**
 * st_hooks_get() - make sure the probes are registered
 *
 * Must be called with st_mutex held.
 *
 * Return: 0 or -errno.
 */
int st_hooks_get(void)
{
	int i, ret;

	lockdep_assert_held(&st_mutex);
	if (st_registered)
		return 0;
	for (i = 0; i < ARRAY_SIZE(st_tps); i++) {
		ret = tracepoint_probe_register(st_tps[i].tp, st_tps[i].probe,
						NULL);
		if (ret) {
			pr_err("cannot register probe on %s: %d\n",
			       st_tps[i].name, ret);
			st_hooks_unregister(i);
			return ret;
		}
	}
	st_registered = true;
	return 0;
}

static void st_hooks_work_fn(struct work_struct *work)
{
	bool unregistered = false;

	st_testing_work_delay();
	mutex_lock(&st_mutex);
	if (st_registered && !st_sessions_live()) {
		st_hooks_unregister(ARRAY_SIZE(st_tps));
		st_registered = false;
		unregistered = true;
	}
	mutex_unlock(&st_mutex);
	/* Outside st_mutex: see st_hooks_unregister(). */
	if (unregistered)
		tracepoint_synchronize_unregister();
}

/**
 * st_hooks_put_async() - unregister the probes soon if nothing is traced
 *
 * Safe from a probe.
 */
void st_hooks_put_async(void)
{
	schedule_work(&st_hooks_work);
}

/**
 * st_hooks_active() - whether the probes are registered
 *
 * Return: true while they are.
 */
bool st_hooks_active(void)
{
	return READ_ONCE(st_registered);
}

/**
 * st_hooks_init() - find the tracepoints the probes attach to
 *
 * Return: 0, or -ENOENT when this kernel lacks one.
 */
int st_hooks_init(void)
{
	int i;

	for_each_kernel_tracepoint(st_tp_find, NULL);
	for (i = 0; i < ARRAY_SIZE(st_tps); i++) {
		if (!st_tps[i].tp) {
			pr_err("tracepoint %s not found\n", st_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

/**
 * st_hooks_exit() - unregister the probes and wait for running ones
 *
 * Called once netlink is gone, so nothing registers them again.
 */
void st_hooks_exit(void)
{
	mutex_lock(&st_mutex);
	if (st_registered) {
		st_hooks_unregister(ARRAY_SIZE(st_tps));
		st_registered = false;
	}
	mutex_unlock(&st_mutex);
	/* Whoever unregistered them: see st_hooks_unregister(). */
	tracepoint_synchronize_unregister();
}

/**
 * st_hooks_flush() - wait for a queued unregistration (module unload)
 */
void st_hooks_flush(void)
{
	cancel_work_sync(&st_hooks_work);
}
