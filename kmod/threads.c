// SPDX-License-Identifier: GPL-2.0
/*
 * Threads: the global task table that answers "is current traced?" (with
 * its per-CPU cache), a thread's record from its attach to its detach (with
 * its private site table, a chash.h table that rows.c fills), the fold of
 * its private counters into its rows, and the session's count of live
 * tasks (live_tasks) that this file raises and lowers.
 *
 * Writers: a thread alone writes its st_thread and st_tsite counters, so
 * the hot path takes no lock. Attach, own and take change the table under
 * session->lock; a record leaves it exactly once (st_thread_own or
 * st_threads_take) and is freed after a grace period.
 */
#include <linux/slab.h>
#include <linux/rhashtable.h>
#include <linux/rculist.h>
#include <linux/hash.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include "core.h"
#include "tables.h"
#include "hot.h"

/*
 * The key is a task pointer: a multiplicative hash and a pointer compare,
 * both inlined into every probe, in place of jhash2 and memcmp.
 */
static u32 st_task_hashfn(const void *key, u32 len, u32 seed)
{
	return hash_long(*(const unsigned long *)key ^ seed, 32);
}

static int st_task_cmpfn(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct st_thread *t = obj;

	return t->task != *(struct task_struct * const *)arg->key;
}

static struct rhashtable st_tasks;
static const struct rhashtable_params st_task_params = {
	.key_len = sizeof(struct task_struct *),
	.key_offset = offsetof(struct st_thread, task),
	.head_offset = offsetof(struct st_thread, node),
	.hashfn = st_task_hashfn,
	.obj_cmpfn = st_task_cmpfn,
	.automatic_shrinking = true,
};

int st_threads_init(void)
{
	return rhashtable_init(&st_tasks, &st_task_params);
}

void st_threads_exit(void)
{
	rhashtable_destroy(&st_tasks);
}

struct st_thread *st_thread_lookup(struct task_struct *task)
{
	return rhashtable_lookup(&st_tasks, &task, st_task_params);
}

DEFINE_PER_CPU(struct st_task_cache, st_task_cache);
atomic_long_t st_tasks_gen;

static void st_tasks_changed(void)
{
	smp_mb__before_atomic();
	atomic_long_inc(&st_tasks_gen);
}

/**
 * st_thread_current_miss() - look current up and cache the answer
 * @c: this CPU's task cache (see hot.h), which missed
 *
 * Return: current's record, or NULL when current is not traced.
 */
struct st_thread *st_thread_current_miss(struct st_task_cache *c)
{
	unsigned long gen = atomic_long_read(&st_tasks_gen);
	struct st_thread *t;
	unsigned int i;

	if (c->gen != gen) {
		memset(c->task, 0, sizeof(c->task));
		c->gen = gen;
	}
	smp_rmb();	/* the generation before the lookup */
	rcu_read_lock();
	t = st_thread_lookup(current);
	rcu_read_unlock();
	i = c->next++ % ST_TASK_CACHE_WAYS;
	c->task[i] = current;
	c->t[i] = t;
	return t;
}

/**
 * st_thread_new() - a thread record, not yet anyone's
 * @s: the session its memory is charged to
 * @gfp: allocation context
 *
 * Return: the record, for st_thread_insert() or st_thread_discard(); or
 * NULL (max_mem, no memory).
 */
struct st_thread *st_thread_new(struct st_session *s, gfp_t gfp)
{
	struct st_thread *t;

	t = st_cache_alloc(s, st_thread_cache, gfp);
	if (!t)
		return NULL;
	if (st_chash_init(&t->hash, s, s->seed, gfp)) {
		st_cache_free(s, st_thread_cache, t);
		return NULL;
	}
	return t;
}

/**
 * st_thread_discard() - free a record st_thread_new() made and nobody took
 * @s: its session
 * @t: the record
 */
void st_thread_discard(struct st_session *s, struct st_thread *t)
{
	st_chash_free(&t->hash, s);
	st_chash_free(&t->phash, s);
	st_cache_free(s, st_thread_cache, t);
}

/**
 * st_thread_insert() - start tracing @task as a thread of @p, with the
 *	record @t from st_thread_new()
 * @s: session
 * @p: process row, NULL for a root that waits for its exec
 * @task: the task, which must not run traced code before this returns
 * @t: the record, which this takes or frees
 * @old: the record @task had before an exec, which the new one replaces in
 *	the task table and whose ownership passes to the caller; or NULL
 *
 * Does not sleep. Unless the caller holds RCU, the record may be freed
 * (the task exited) as soon as this returns.
 *
 * Return: @t, or NULL (already traced, dead session).
 */
struct st_thread *st_thread_insert(struct st_session *s, struct st_proc *p,
				   struct task_struct *task,
				   struct st_thread *t, struct st_thread *old)
{
	int ret;

	t->tid = task_pid_nr_ns(task, s->pidns);
	t->logging = s->log;
	t->paths = s->paths;
	t->task = task;
	t->s = s;
	t->proc = p;
	/* A process that ran before the attach: its argv at its next return. */
	if (p && p->attached && !READ_ONCE(p->argv))
		st_defer(t, ST_DEFER_ARGV);
	st_acct_read(task, &t->base);
	INIT_LIST_HEAD(&t->plist);
	INIT_LIST_HEAD(&t->snode);

	spin_lock(&s->lock);
	if (s->end != ST_OPEN)
		ret = -ESRCH;
	else if (old)
		ret = old->owned ? -ESRCH :
		      rhashtable_replace_fast(&st_tasks, &old->node, &t->node,
					      st_task_params);
	else
		ret = rhashtable_lookup_insert_fast(&st_tasks, &t->node,
						    st_task_params);
	if (!ret) {
		st_tasks_changed();
		if (old) {
			old->owned = true;
			list_del_init(&old->snode);
		}
		list_add_tail(&t->snode, &s->threads);
		get_task_struct(task);
		atomic_inc(&s->live_tasks);
		if (p) {
			spin_lock(&p->lock);
			list_add_tail_rcu(&t->plist, &p->live);
			p->threads++;
			spin_unlock(&p->lock);
		}
	}
	spin_unlock(&s->lock);
	if (ret) {
		st_thread_discard(s, t);
		return NULL;
	}
	return t;
}

/**
 * st_thread_attach() - start tracing @task as a thread of @p
 * @s: session
 * @p: process row, NULL for a root that waits for its exec
 * @task: the task, which must not run traced code before this returns
 * @gfp: allocation context
 * @old: as for st_thread_insert()
 *
 * Return: the record, or NULL (already traced, dead session, no memory).
 */
struct st_thread *st_thread_attach(struct st_session *s, struct st_proc *p,
				   struct task_struct *task, gfp_t gfp,
				   struct st_thread *old)
{
	struct st_thread *t = st_thread_new(s, gfp);

	return t ? st_thread_insert(s, p, task, t, old) : NULL;
}

static void st_thread_free_rcu(struct rcu_head *head)
{
	struct st_thread *t = container_of(head, struct st_thread, rcu);
	struct st_tsite *ts, *next;

	for (ts = t->tsites; ts; ts = next) {
		next = ts->next;
		kmem_cache_free(st_tsite_cache, ts);
	}
	put_task_struct(t->task);
	kmem_cache_free(st_thread_cache, t);
}

/*
 * Fold a thread's counters into its process row and take it off the row's
 * live list. The caller owns @t: it is the thread itself, or @t was taken
 * out of the task table and a grace period has passed.
 */
static bool st_thread_merge(struct st_thread *t)
{
	struct st_proc *p = t->proc;
	struct st_tsite *ts;
	bool last, drop;

	spin_lock(&p->lock);
	write_seqcount_begin(&p->seq);
	for (ts = t->tsites; ts; ts = ts->next) {
		st_site_counts_add(&ts->site->c, &ts->c);
		hlist_del_rcu(&ts->snode);
	}
	st_proc_counts_add(&p->c, &t->c);
	st_acct_add_delta(&p->acct, t->task, &t->base);
	list_del_rcu(&t->plist);
	write_seqcount_end(&p->seq);
	/*
	 * A thread exited while the row is pinned: when no thread is left at
	 * the unpin, st_proc_unpin_end() ends it with the last exit's code.
	 * Not only when this is the last thread on the list: one the attach
	 * took back, caught exiting, stays there until st_attach_settle().
	 */
	if (t->exited && p->pins) {
		p->pinned_exit = true;
		p->pinned_code = t->exit_code;
	}
	last = list_empty(&p->live) && !p->pins;
	/* It cannot resolve the sites it left pending: its siblings do. */
	if (atomic_read(&p->npending))
		st_resolve_handoff(p);
	drop = st_proc_settle(p);
	spin_unlock(&p->lock);
	if (drop)
		st_resolve_drop(p);
	return last;
}

/**
 * st_thread_detach() - retire a thread record whose owner is the caller
 * @t: the record, already out of the task table
 * @in_probe: called by the task itself from a probe, where its perf
 *	counter can only be read later, by task_work
 *
 * Merges it into its process row and frees it after a grace period.
 *
 * Return: true when it was the last live thread of its process row.
 */
bool st_thread_detach(struct st_thread *t, bool in_probe)
{
	struct st_session *s = t->s;
	bool deferred = false, last = false;
	size_t bytes;

	if (t->proc)
		last = st_thread_merge(t);
	if (in_probe)
		deferred = st_counter_exit(t);
	else
		st_counter_release(t);
	/* Only the owner looks its buckets up: no reader needs them now. */
	st_chash_free(&t->hash, s);
	st_chash_free(&t->phash, s);
	bytes = kmem_cache_size(st_thread_cache) +
		t->ntsites * kmem_cache_size(st_tsite_cache);
	st_uncharge(s, bytes);
	call_rcu(&t->rcu, st_thread_free_rcu);
	/* A deferred counter read reports the task gone when it is done. */
	if (!deferred)
		st_session_task_gone(s);
	return last;
}

/**
 * st_thread_own() - take @t out of the task table and its session's list
 * @t: the record
 *
 * Exactly one caller succeeds and then owns @t; a caller other than the
 * thread itself must wait for a grace period before touching it.
 *
 * Return: true when this caller took it.
 */
bool st_thread_own(struct st_thread *t)
{
	struct st_session *s = t->s;
	bool own;

	spin_lock(&s->lock);
	own = !t->owned;
	if (own) {
		t->owned = true;
		list_del_init(&t->snode);
		rhashtable_remove_fast(&st_tasks, &t->node, st_task_params);
		st_tasks_changed();
	}
	spin_unlock(&s->lock);
	return own;
}

/**
 * st_threads_take() - own every thread of an ended session
 * @s: a session past ST_OPEN, so that no thread joins it any more
 * @owned: receives the records, linked by ->snode
 *
 * A probe that still holds one of them (it looked it up before) finds it
 * owned and leaves it alone; the caller waits for a grace period before
 * touching the records.
 */
void st_threads_take(struct st_session *s, struct list_head *owned)
{
	struct st_thread *t;

	spin_lock(&s->lock);
	WARN_ON_ONCE(s->end == ST_OPEN);
	list_for_each_entry(t, &s->threads, snode) {
		t->owned = true;
		rhashtable_remove_fast(&st_tasks, &t->node, st_task_params);
	}
	list_splice_init(&s->threads, owned);
	st_tasks_changed();
	spin_unlock(&s->lock);
}
