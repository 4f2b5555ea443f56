// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task perf counters (instructions, cycles or task-clock), summed per
 * process image. Probes cannot sleep, and creating or reading a counter
 * may, so the task does that work itself through task_work: at its first
 * return to user mode after fork or exec (before its first user
 * instruction), after an exec to split the count between the two images,
 * and in exit_task_work, where the counter still exists. Each queued work
 * holds a module reference and a session reference. Work items, counters
 * and their perf events are charged to the session's memory.
 */
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include "systrace.h"
#include "tables.h"

struct st_counter {
	refcount_t ref;
	struct st_session *s;		/* charged; a reference */
	struct perf_event *ev;
	u64 base;			/* value when the current image began */
	struct work_struct free_work;	/* last put from a probe */
};

static struct workqueue_struct *st_wq;

struct st_cwork {
	struct st_defer d;		/* its workqueue item: the fallback */
	struct st_counter *c;		/* NULL: create one for current */
	struct st_proc *proc;		/* image to credit with the count */
	bool gone;			/* the task left: report it when done */
};

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

static void st_counter_free(struct st_counter *c)
{
	struct st_session *s = c->s;

	perf_event_release_kernel(c->ev);
	kfree(c);
	st_uncharge(s, ST_COUNTER_BYTES);
	st_session_put(s);
}

static void st_counter_free_fn(struct work_struct *work)
{
	st_counter_free(container_of(work, struct st_counter, free_work));
}

static void st_counter_put(struct st_counter *c)
{
	if (refcount_dec_and_test(&c->ref))
		st_counter_free(c);
}

/* Releasing a perf event may sleep: from a probe, leave it to st_wq. */
static void st_counter_put_async(struct st_counter *c)
{
	if (refcount_dec_and_test(&c->ref))
		queue_work(st_wq, &c->free_work);
}

static u64 st_counter_read(struct st_counter *c)
{
	u64 enabled, running;

	return perf_event_read_value(c->ev, &enabled, &running);
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

/* Read the count since the image began, credit it, and drop the ref. */
static void st_cwork_read(struct st_cwork *w)
{
	u64 v = st_counter_read(w->c);

	if (w->proc)
		st_counter_credit(w->proc, v - w->c->base);
	w->c->base = v;
	st_counter_put(w->c);
	if (w->gone)
		st_session_task_gone(w->d.s);
}

static void st_cwork_start(struct st_cwork *w)
{
	struct perf_event_attr a;
	struct st_counter *c;
	struct st_thread *t;

	if (!st_charge(w->d.s, ST_COUNTER_BYTES))
		goto drop;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		goto uncharge;
	st_counter_attr(w->d.s->counters, &a);
	c->ev = perf_event_create_kernel_counter(&a, -1, current, NULL, NULL);
	if (IS_ERR(c->ev)) {
		kfree(c);
		goto uncharge;
	}
	c->s = w->d.s;
	kref_get(&c->s->ref);
	refcount_set(&c->ref, 1);
	INIT_WORK(&c->free_work, st_counter_free_fn);
	rcu_read_lock();
	t = st_thread_lookup(current);
	if (t && t->s == w->d.s && !t->counter) {
		t->counter = c;
		c = NULL;
	}
	rcu_read_unlock();
	/* Traced no more: the session was deleted meanwhile. */
	if (c)
		st_counter_put(c);
	return;
uncharge:
	st_uncharge(w->d.s, ST_COUNTER_BYTES);
drop:
	st_stat_inc(w->d.s, ST_DROPPED_COUNTERS);
}

static void st_cwork_run(struct st_cwork *w)
{
	if (w->c)
		st_cwork_read(w);
	else
		st_cwork_start(w);
	st_defer_done(&w->d);
}

static void st_cwork_task_fn(struct callback_head *cb)
{
	st_cwork_run(container_of(cb, struct st_cwork, d.cb));
}

static void st_cwork_work_fn(struct work_struct *work)
{
	st_cwork_run(container_of(work, struct st_cwork, d.work));
}

/*
 * Queue work on @task. A task past exit_task_work refuses task_work; a
 * read then runs from st_wq, which can still read a final count.
 */
static bool st_cwork_queue(struct st_session *s, struct task_struct *task,
			   struct st_counter *c, struct st_proc *proc,
			   bool gone)
{
	struct st_cwork *w;

	w = st_defer_alloc(s, sizeof(*w));
	if (!w)
		goto drop;
	w->c = c;
	w->proc = proc;
	w->gone = gone;
	/* The task runs the work only after this probe returns. */
	if (st_defer_task(&w->d, task, st_cwork_task_fn))
		return true;
	if (c) {
		st_defer_wq(&w->d, st_wq, st_cwork_work_fn);
		return true;
	}
	st_defer_cancel(&w->d);
drop:
	st_stat_inc(s, ST_DROPPED_COUNTERS);
	return false;
}

/*
 * A thread attached while it runs (attach) may sleep in a syscall for as
 * long as it likes, and its work runs only when it next returns to user
 * mode. That work must not keep a deleted session alive (and its memory
 * charged) meanwhile, so it holds no session reference and no charge: it
 * finds the session through current's thread record when it runs, and
 * does nothing when there is none. It holds the module reference.
 */
struct st_awork {
	struct callback_head cb;
};

static void st_awork_fn(struct callback_head *cb)
{
	struct st_cwork w = {};
	struct st_session *s = NULL;
	struct st_thread *t;

	kfree(container_of(cb, struct st_awork, cb));
	rcu_read_lock();
	t = st_thread_lookup(current);
	/* A record found under RCU keeps its session from being freed. */
	if (t && t->proc && !t->counter && kref_get_unless_zero(&t->s->ref))
		s = t->s;
	rcu_read_unlock();
	if (s) {
		w.d.s = s;
		st_cwork_start(&w);
		st_session_put(s);
	}
	module_put(THIS_MODULE);
}

/**
 * st_counter_start_attached() - count @t's task, attached while it ran,
 *	from its next return to user mode
 * @t: the record, just attached (process context, under RCU)
 */
void st_counter_start_attached(struct st_thread *t)
{
	struct st_awork *w;

	if (!st_counting(t->s))
		return;
	w = kzalloc(sizeof(*w), GFP_ATOMIC | __GFP_NOWARN);
	if (!w)
		goto drop;
	if (!try_module_get(THIS_MODULE)) {
		kfree(w);
		goto drop;
	}
	init_task_work(&w->cb, st_awork_fn);
	if (!task_work_add(t->task, &w->cb, TWA_RESUME))
		return;
	module_put(THIS_MODULE);
	kfree(w);
drop:
	st_stat_inc(t->s, ST_DROPPED_COUNTERS);
}

/**
 * st_counter_start() - count @t's task from its next return to user mode
 * @t: a thread record, from a probe
 */
void st_counter_start(struct st_thread *t)
{
	if (st_counting(t->s))
		st_cwork_queue(t->s, t->task, NULL, NULL, false);
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
	refcount_inc(&c->ref);
	if (!st_cwork_queue(nt->s, nt->task, c, old->proc, false))
		refcount_dec(&c->ref);
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
	if (st_cwork_queue(t->s, t->task, c, t->proc, true))
		return true;
	/* Cannot read it now, nor free it here: leave it to a kworker. */
	st_counter_put_async(c);
	return false;
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
	if (t->proc)
		st_counter_credit(t->proc, st_counter_read(c) - c->base);
	st_counter_put(c);
}

/**
 * st_counters_init() - make the workqueue for releases from probes
 *
 * Return: 0 or -ENOMEM.
 */
int st_counters_init(void)
{
	st_wq = alloc_workqueue("systrace", 0, 0);
	return st_wq ? 0 : -ENOMEM;
}

/**
 * st_counters_exit() - finish every queued release
 */
void st_counters_exit(void)
{
	destroy_workqueue(st_wq);
}
