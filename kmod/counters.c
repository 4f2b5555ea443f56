// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task perf counters (instructions, cycles or task-clock), summed per
 * process image. Probes cannot sleep, and creating or reading a counter
 * may, so the task does that itself, by deferred work (defer.c) on its way
 * back to user mode: it creates its counter after its fork, after an exec
 * that found none, or after an attach; and reads it at an exec, before the
 * new image's first instruction, to split the count between the images.
 *
 * At exit the task is past its last return to user mode, but perf is done
 * with it too: do_exit() calls perf_event_exit_task() (which takes the
 * task's events off it and freezes their counts) before exit_mm() and the
 * exit probe, so the final read runs from a workqueue, whatever the task
 * does after its probe. An exec into an image that is not dumpable (setuid,
 * setgid, file capabilities, an unreadable binary) has perf do the same
 * from begin_new_exec(), so that another user's counter learns nothing of
 * it: the counter then counts no more, no new one is made for such an
 * image, and its row says it has no count (counter_lost).
 *
 * A counter holds a session reference and is charged to the session; it is
 * read and freed when its thread leaves the session (exit, or the
 * session's end), so the reference lasts no longer than the thread's
 * record.
 */
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched/coredump.h>
#include "core.h"
#include "tables.h"

struct st_counter {
	refcount_t ref;
	struct st_session *s;		/* charged; a reference */
	struct perf_event *ev;
	struct mutex lock;		/* the reads: base, split, dead */
	u64 base;			/* value when the current image began */
	struct st_proc *split;		/* an exec's old image, not read yet */
	bool dead;			/* perf took it off the task (setuid) */
	struct st_proc *last;		/* the exit read's image */
	struct work_struct work;	/* the exit read, from st_wq */
};

static struct workqueue_struct *st_wq;

static void st_counter_attr(u32 mode, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->exclude_hv = 1;
	switch (mode) {
	case SYSTRACE_COUNTERS_INSTRUCTIONS:
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_INSTRUCTIONS;
		a->exclude_kernel = 1;
		break;
	case SYSTRACE_COUNTERS_CYCLES:
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
		a->exclude_kernel = 1;
		break;
	default:
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_TASK_CLOCK;
		break;
	}
}

/**
 * st_counters_probe() - can this machine count @mode?
 * @mode: enum systrace_counters
 *
 * Must be called from process context.
 *
 * Return: NULL when it can (or @mode is none), else why not.
 */
const char *st_counters_probe(u32 mode)
{
	struct perf_event_attr a;
	struct perf_event *ev;

	if (mode == SYSTRACE_COUNTERS_NONE)
		return NULL;
	st_counter_attr(mode, &a);
	ev = perf_event_create_kernel_counter(&a, -1, current, NULL, NULL);
	if (!IS_ERR(ev)) {
		perf_event_release_kernel(ev);
		return NULL;
	}
	switch (PTR_ERR(ev)) {
	case -ENOENT:
	case -EOPNOTSUPP:
	case -ENODEV:
		return "the CPU exposes no hardware performance counter for this event (no PMU, e.g. in a VM)";
	case -EACCES:
	case -EPERM:
		return "perf events are not permitted here";
	default:
		return "perf event creation failed";
	}
}

static bool st_counting(struct st_session *s)
{
	return s->counters != SYSTRACE_COUNTERS_NONE && !s->counters_error;
}

/* What a counter costs: ours and the kernel's event. */
#define ST_COUNTER_BYTES (sizeof(struct st_counter) + sizeof(struct perf_event))

static void st_counter_put(struct st_counter *c)
{
	struct st_session *s = c->s;

	if (!refcount_dec_and_test(&c->ref))
		return;
	perf_event_release_kernel(c->ev);
	mutex_destroy(&c->lock);
	kfree(c);
	st_uncharge(s, ST_COUNTER_BYTES);
	st_session_put(s);
}

static void st_counter_credit(struct st_proc *p, u64 v)
{
	spin_lock(&p->lock);
	write_seqcount_begin(&p->seq);
	p->counter_value += v;
	p->counter_tasks++;
	write_seqcount_end(&p->seq);
	spin_unlock(&p->lock);
}

/*
 * Credit the images the counter has not credited yet, up to now: an exec's
 * old image whose split was not read (all of the count since its base, the
 * new image having run no instruction of its own yet), then @p, unless
 * perf took the counter off the task at that exec. Under c->lock.
 */
static void st_counter_read(struct st_counter *c, struct st_proc *p)
{
	u64 enabled, running, v;

	lockdep_assert_held(&c->lock);
	v = perf_event_read_value(c->ev, &enabled, &running);
	if (c->split) {
		st_counter_credit(c->split, v - c->base);
		c->split = NULL;
		c->base = v;
	}
	if (p && !c->dead)
		st_counter_credit(p, v - c->base);
	c->base = v;
}

/* The exit read: the count of the task's last image. */
static void st_counter_last_fn(struct work_struct *work)
{
	struct st_counter *c = container_of(work, struct st_counter, work);
	struct st_session *s = c->s;

	st_testing_work_delay();
	mutex_lock(&c->lock);
	st_counter_read(c, c->last);
	mutex_unlock(&c->lock);
	/* The counter's session reference outlives the call. */
	st_session_task_gone(s);
	st_counter_put(c);
}

/**
 * st_counter_create() - create current's counter, if its record still
 *	wants one (deferred work, in current)
 * @s: the session of current's record when the work began, referenced
 */
void st_counter_create(struct st_session *s)
{
	struct perf_event_attr a;
	struct st_counter *c;
	struct st_thread *t;

	/* A record of another session than the one that asked: it says. */
	if (!st_counting(s))
		return;
	/* Nor does perf count an image it made undumpable (see above). */
	if (get_dumpable(current->mm) != SUID_DUMP_USER) {
		rcu_read_lock();
		t = st_thread_lookup(current);
		if (t && t->s == s && t->proc)
			WRITE_ONCE(t->proc->counter_lost, true);
		rcu_read_unlock();
		return;
	}
	if (!st_charge(s, ST_COUNTER_BYTES))
		goto drop;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		goto uncharge;
	st_counter_attr(s->counters, &a);
	c->ev = perf_event_create_kernel_counter(&a, -1, current, NULL, NULL);
	if (IS_ERR(c->ev)) {
		kfree(c);
		goto uncharge;
	}
	c->s = s;
	kref_get(&s->ref);
	refcount_set(&c->ref, 1);
	mutex_init(&c->lock);
	INIT_WORK(&c->work, st_counter_last_fn);
	/*
	 * Installed under RCU: a session's end takes the record out of the
	 * table and waits a grace period before it releases the counter.
	 */
	rcu_read_lock();
	t = st_thread_lookup(current);
	if (t && t->s == s && t->proc && !t->counter) {
		t->counter = c;
		c = NULL;
	}
	rcu_read_unlock();
	/* Traced no more (the session ended meanwhile), or counted already. */
	if (c)
		st_counter_put(c);
	return;
uncharge:
	st_uncharge(s, ST_COUNTER_BYTES);
drop:
	st_stat_inc(s, ST_DROPPED_COUNTERS);
}

/**
 * st_counter_split() - read the count of the image current exec'd from
 *	(deferred work, in current)
 * @s: the session of current's record when the work began, referenced
 *
 * Before the new image's first instruction, so the count since is the new
 * image's. A session's end that reads the counter first credits the old
 * image itself (st_counter_release()): the split is read once.
 */
void st_counter_split(struct st_session *s)
{
	struct st_counter *c = NULL;
	struct st_thread *t;

	rcu_read_lock();
	t = st_thread_lookup(current);
	/* The record holds its counter until a grace period after it left. */
	if (t && t->s == s && t->counter) {
		c = t->counter;
		refcount_inc(&c->ref);
	}
	rcu_read_unlock();
	if (!c)
		return;
	mutex_lock(&c->lock);
	if (c->split)
		st_counter_read(c, NULL);
	mutex_unlock(&c->lock);
	st_counter_put(c);
}

/**
 * st_counter_split_lost() - an exec's split read could not be queued
 * @t: current's record, from its syscall exit probe
 *
 * The old image is not credited; its count goes to the new one, as the
 * next read finds it. Counted in dropped_counters.
 */
void st_counter_split_lost(struct st_thread *t)
{
	struct st_counter *c = t->counter;

	/* The owner's probe: no read runs, the record is current's own. */
	if (c && c->split) {
		WRITE_ONCE(c->split, NULL);
		st_stat_inc(t->s, ST_DROPPED_COUNTERS);
	}
}

/**
 * st_counter_start() - count @t's task from its next return to user mode
 * @t: a new thread record (fork probe)
 */
void st_counter_start(struct st_thread *t)
{
	if (st_counting(t->s))
		st_defer(t, ST_DEFER_COUNTER);
}

/**
 * st_counter_start_attached() - count @t's task, attached while it ran,
 *	from its next return to user mode after a syscall
 * @t: the record, just attached (process context, under RCU)
 *
 * The task may sleep in a syscall for as long as it likes: nothing is
 * queued until that syscall returns.
 */
void st_counter_start_attached(struct st_thread *t)
{
	st_counter_start(t);
}

/**
 * st_counter_exec() - an exec replaced @old's image with @nt's
 * @nt: the new image's record of the task
 * @old: the old one, whose counter moves to @nt
 *
 * Called from the exec probe; the split is read before the new image runs.
 */
void st_counter_exec(struct st_thread *nt, struct st_thread *old)
{
	struct st_counter *c = old->counter;

	if (!st_counting(nt->s))
		return;
	if (!c) {
		st_counter_start(nt);
		return;
	}
	old->counter = NULL;
	nt->counter = c;
	/*
	 * No read runs meanwhile: the record was the task's own until now,
	 * and a session's end waits a grace period after this probe before
	 * it reads the counter.
	 */
	if (c->dead) {
		WRITE_ONCE(nt->proc->counter_lost, true);
		return;
	}
	c->split = old->proc;
	/* begin_new_exec() took the events off a task it made undumpable. */
	if (get_dumpable(current->mm) != SUID_DUMP_USER) {
		c->dead = true;
		WRITE_ONCE(nt->proc->counter_lost, true);
	}
	st_defer(nt, ST_DEFER_SPLIT);
}

/**
 * st_counter_exit() - the task of @t is exiting; read its counter later
 * @t: the record, from a probe in the task itself
 *
 * Return: true when the read was queued; it then reports the task gone.
 */
bool st_counter_exit(struct st_thread *t)
{
	struct st_counter *c = t->counter;

	if (!c)
		return false;
	t->counter = NULL;
	c->last = t->proc;
	/* The record's reference passes to the work. */
	return queue_work(st_wq, &c->work);
}

/**
 * st_counter_release() - read and free the counter of a detached thread
 * @t: the record, owned by a caller in process context
 */
void st_counter_release(struct st_thread *t)
{
	struct st_counter *c = t->counter;

	if (!c)
		return;
	t->counter = NULL;
	mutex_lock(&c->lock);
	st_counter_read(c, t->proc);
	mutex_unlock(&c->lock);
	st_counter_put(c);
}

/**
 * st_counters_init() - make the workqueue of the exit reads
 *
 * Return: 0 or -ENOMEM.
 */
int st_counters_init(void)
{
	st_wq = alloc_workqueue("systrace", 0, 0);
	return st_wq ? 0 : -ENOMEM;
}

/**
 * st_counters_exit() - finish every queued exit read
 */
void st_counters_exit(void)
{
	destroy_workqueue(st_wq);
}
