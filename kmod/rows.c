// SPDX-License-Identifier: GPL-2.0
/*
 * Rows: process rows (one per image) and site rows (one per image, call
 * site, syscall number and ABI), with the hot path that finds a thread's
 * private counters for the site it entered and counts the call; and the
 * snapshots dumps take of both, and the freeing of a session's rows.
 *
 * Row creation (first hit of a site, fork, exec, exit) takes proc->lock or
 * session->lock. Readers (dumps) walk the append-only ->next lists under
 * RCU and retry across merges with proc->seq.
 *
 * Sites are found through two chash.h tables, both keyed by st_site_hash():
 * a process row's (its site rows, under proc->lock) and a thread's (its
 * st_tsite counters, touched only by the thread or its owner).
 */
#include <linux/slab.h>
#include <linux/rculist.h>
#include <linux/jhash.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include "core.h"
#include "tables.h"
#include "paths.h"

/* ---- process rows ---- */

/**
 * st_proc_new() - make and publish a process row for @task
 * @s: session
 * @task: the task whose image the row describes
 * @parent_id: the parent image's id, 0 for none
 * @ppid: the parent's tgid in the session's pid namespace
 * @prev_id: the id of the image this one replaced by exec, 0 for none
 * @exe: the executable, or NULL when unknown
 * @attached: @task ran before the session attached to it
 * @gfp: allocation context
 *
 * Return: the row, or NULL when a limit or the allocator refused; the
 * caller counts the lost process once, in dropped_procs.
 */
struct st_proc *st_proc_new(struct st_session *s, struct task_struct *task,
			    u64 parent_id, pid_t ppid, u64 prev_id,
			    struct st_obj *exe, bool attached, gfp_t gfp)
{
	struct st_proc *p;

	if (READ_ONCE(s->nprocs) >= st_max_procs)
		return NULL;
	p = st_cache_alloc(s, st_proc_cache, gfp);
	if (!p)
		return NULL;
	if (st_chash_init(&p->hash, s, s->seed, gfp)) {
		st_cache_free(s, st_proc_cache, p);
		return NULL;
	}
	p->s = s;
	p->parent_id = parent_id;
	p->ppid = ppid;
	p->prev_id = prev_id;
	p->exe = exe;
	p->attached = attached;
	p->pid = __task_pid_nr_ns(task, PIDTYPE_PID, s->pidns);
	p->tgid = __task_pid_nr_ns(task, PIDTYPE_TGID, s->pidns);
	__get_task_comm(p->comm, sizeof(p->comm), task);
	p->start_ns = ktime_get_ns();
	p->end = SYSTRACE_END_RUNNING;
	spin_lock_init(&p->lock);
	seqcount_spinlock_init(&p->seq, &p->lock);
	INIT_LIST_HEAD(&p->live);

	spin_lock(&s->lock);
	if (s->end != ST_OPEN || s->nprocs >= st_max_procs) {
		spin_unlock(&s->lock);
		st_chash_free(&p->hash, s);
		st_cache_free(s, st_proc_cache, p);
		return NULL;
	}
	p->id = ++s->next_id;
	s->nprocs++;
	if (s->procs_tail)
		st_publish(s->procs_tail->next, p);
	else
		st_publish(s->procs, p);
	s->procs_tail = p;
	atomic_inc(&s->gen);
	spin_unlock(&s->lock);
	return p;
}

/**
 * st_proc_settle() - free what @p no longer needs once it is over
 * @p: the row, whose lock the caller holds
 *
 * A row that has ended, with no live thread and no pin left, gets no new
 * site and no thread to resolve its pending ones: its site table goes.
 *
 * Return: true when sites are left pending; the caller gives up on them
 * with st_resolve_drop() once it has released the lock.
 */
bool st_proc_settle(struct st_proc *p)
{
	lockdep_assert_held(&p->lock);
	if (p->end == SYSTRACE_END_RUNNING || !list_empty(&p->live) ||
	    p->pins || !p->hash.buckets)
		return false;
	st_chash_free(&p->hash, p->s);
	return atomic_read(&p->npending);
}

/**
 * st_proc_end() - record how a process image ended
 * @p: the row
 * @end: enum systrace_end
 * @code: raw wait status for SYSTRACE_END_EXITED/SIGNALED
 *
 * Return: true when this call ended it, false when it had already ended.
 */
bool st_proc_end(struct st_proc *p, u32 end, u32 code)
{
	bool ended, drop = false;

	spin_lock(&p->lock);
	ended = p->end == SYSTRACE_END_RUNNING;
	if (ended) {
		p->end_ns = ktime_get_ns();
		p->exit_code = code;
		WRITE_ONCE(p->end, end);
		drop = st_proc_settle(p);
	}
	spin_unlock(&p->lock);
	if (drop)
		st_resolve_drop(p);
	atomic_inc(&p->s->gen);
	return ended;
}

/**
 * st_proc_pin() - keep @p running while threads are attached to it
 * @p: the row
 *
 * A thread that leaves before its siblings are attached would otherwise
 * end the row, or not end it when the last one is taken back.
 */
void st_proc_pin(struct st_proc *p)
{
	spin_lock(&p->lock);
	p->pins++;
	spin_unlock(&p->lock);
}

/**
 * st_proc_exit() - @p's process exited with wait status @code
 * @p: the row, whose last traced thread has just left
 * @code: the raw wait status
 */
void st_proc_exit(struct st_proc *p, u32 code)
{
	bool sig = code & 0x7f;

	if (st_proc_end(p, sig ? SYSTRACE_END_SIGNALED : SYSTRACE_END_EXITED,
			code)) {
		st_stat_inc(p->s, ST_EXITS);
		if (sig)
			st_stat_inc(p->s, ST_SIGNAL_EXITS);
	}
}

/**
 * st_proc_unpin_end() - undo st_proc_pin(), and end @p if no thread is left
 * @p: the row
 *
 * A row left with no thread ends with the code of the last thread that
 * exited while it was pinned (one taken back by the attach may still have
 * been on its list then); one none of whose threads exited (all taken
 * back, or never attached) ends detached.
 */
void st_proc_unpin_end(struct st_proc *p)
{
	bool empty, exited, drop;
	u32 code;

	spin_lock(&p->lock);
	empty = !--p->pins && list_empty(&p->live);
	exited = p->pinned_exit;
	code = p->pinned_code;
	/* Ended meanwhile (its thread exec'd): only the pin kept its table. */
	drop = st_proc_settle(p);
	spin_unlock(&p->lock);
	if (drop)
		st_resolve_drop(p);
	if (!empty)
		return;
	if (exited)
		st_proc_exit(p, code);
	else
		st_proc_end(p, SYSTRACE_END_DETACHED, 0);
}

/* ---- sites ---- */

/*
 * Keyed with the session's random seed, over every bit of the key: a
 * program chooses its call sites and syscall numbers (any u32, valid or
 * not), and must not be able to aim them all at one chain. A user address
 * fits in 57 bits, so the ABI sits above it.
 */
static u32 st_site_hash(u32 seed, u64 addr, u32 nr, u8 abi)
{
	return jhash_3words((u32)addr, (u32)(addr >> 32) ^ ((u32)abi << 28),
			    nr, seed);
}

static inline bool st_site_is(const struct st_site *site, u64 addr, u32 nr,
			      u8 abi)
{
	return site->addr == addr && site->nr == nr && site->abi == abi;
}

static u32 st_site_node_hash(const struct st_chash_node *node, u32 seed)
{
	const struct st_site *site = container_of(node, struct st_site, hnode);

	return st_site_hash(seed, site->addr, site->nr, site->abi);
}

static u32 st_tsite_node_hash(const struct st_chash_node *node, u32 seed)
{
	const struct st_tsite *ts = container_of(node, struct st_tsite, hnode);

	return st_site_node_hash(&ts->site->hnode, seed);
}

/* Under p->lock. */
static struct st_site *st_site_find(struct st_proc *p, u32 hash, u64 addr,
				    u32 nr, u8 abi)
{
	struct st_site *site;

	if (!p->hash.buckets)
		return NULL;
	st_chash_for_each(site, &p->hash, hash, hnode)
		if (st_site_is(site, addr, nr, abi))
			return site;
	return NULL;
}

/**
 * st_thread_ordinal() - the image's syscalls that completed before @t's
 *	next one, as @t saw them
 * @t: a thread record with its image
 *
 * Its own calls, and those its creator had seen when it cloned it (which
 * includes the creator's own, and so up to the image's first thread). O(1),
 * for the first hit of a site: exact while the image has one thread; a
 * sibling's calls that ran meanwhile are not in it.
 *
 * Return: the ordinal.
 */
u64 st_thread_ordinal(const struct st_thread *t)
{
	return t->ord_base + READ_ONCE(t->c.v[ST_PROC_SYSCALLS]);
}

static struct st_site *st_site_get(struct st_thread *t, u64 addr, u32 nr,
				   u8 abi)
{
	struct st_proc *p = t->proc;
	struct st_session *s = t->s;
	u32 hash = st_site_hash(p->hash.seed, addr, nr, abi);
	struct st_site *site, *found;

	spin_lock(&p->lock);
	site = st_site_find(p, hash, addr, nr, abi);
	spin_unlock(&p->lock);
	if (site)
		return site;

	if (atomic64_read(&s->nsites) >= st_max_sites) {
		st_stat_inc(s, ST_DROPPED_SITES);
		return NULL;
	}
	site = st_cache_alloc(s, st_site_cache, GFP_NOWAIT);
	if (!site) {
		st_stat_inc(s, ST_DROPPED_SITES);
		return NULL;
	}
	site->addr = addr;
	site->nr = nr;
	site->abi = abi;
	site->obj = st_obj_at(s, current->mm, addr, &site->map, &site->offset,
			      GFP_NOWAIT);
	if (IS_ERR(site->obj)) {
		site->obj = NULL;
		site->pending = 1;
	}
	site->first_ns = ktime_get_ns();

	spin_lock(&p->lock);
	found = st_site_find(p, hash, addr, nr, abi);
	if (!found && p->hash.buckets) {
		site->first_ord = st_thread_ordinal(t);
		if (p->sites_tail)
			st_publish(p->sites_tail->next, site);
		else
			st_publish(p->sites, site);
		p->sites_tail = site;
		if (st_chash_add(&p->hash, &site->hnode, hash, ++p->nsites))
			st_defer(t, ST_DEFER_GROW);
		if (site->pending)
			st_resolve_later(t, p, site);
	}
	spin_unlock(&p->lock);
	if (found || !p->hash.buckets) {
		st_cache_free(s, st_site_cache, site);
		return found;
	}
	atomic64_inc(&s->nsites);
	atomic_inc(&s->gen);
	return site;
}

static noinline struct st_tsite *st_tsite_new(struct st_thread *t, u32 hash,
					      u64 addr, u32 nr, u8 abi)
{
	struct st_site *site;
	struct st_tsite *ts;

	site = st_site_get(t, addr, nr, abi);
	if (!site)
		return NULL;
	ts = st_cache_alloc(t->s, st_tsite_cache, GFP_NOWAIT);
	if (!ts)
		return NULL;
	ts->site = site;
	/* Dumps of a live image find a site's live counters from the site. */
	spin_lock(&t->proc->lock);
	hlist_add_head_rcu(&ts->snode, &site->live);
	spin_unlock(&t->proc->lock);
	ts->next = t->tsites;
	rcu_assign_pointer(t->tsites, ts);
	if (st_chash_add(&t->hash, &ts->hnode, hash, ++t->ntsites))
		st_defer(t, ST_DEFER_GROW);
	return ts;
}

/**
 * st_tsite_find() - the calling thread's counters for a site, the slow way
 * @t: current's record
 * @addr: the site's address
 * @nr: syscall number
 * @abi: enum systrace_abi
 *
 * Called by st_tsite_get() when the thread enters another site than the
 * last one: looks the thread's sites up, or makes the counters (and the
 * site row, at the first hit in the image), and makes them the last site.
 * Under the probe's disabled preemption, which the records' and rows'
 * grace periods wait for.
 *
 * Return: the counters, or NULL when the syscall cannot be counted
 * (counted in dropped_syscalls).
 */
struct st_tsite *st_tsite_find(struct st_thread *t, u64 addr, u32 nr, u8 abi)
{
	u32 hash = st_site_hash(t->hash.seed, addr, nr, abi);
	struct st_tsite *ts;

	st_chash_for_each(ts, &t->hash, hash, hnode)
		if (st_site_is(ts->site, addr, nr, abi))
			break;
	if (unlikely(!ts)) {
		rcu_read_lock();
		ts = st_tsite_new(t, hash, addr, nr, abi);
		rcu_read_unlock();
	}
	if (unlikely(!ts)) {
		st_stat_inc(t->s, ST_DROPPED_SYSCALLS);
		return NULL;
	}
	t->last = ts;
	t->last_addr = addr;
	t->last_nr = nr;
	t->last_abi = abi;
	return ts;
}

/**
 * st_sites_grow() - grow current's site table and its image's, as their
 *	counts ask (ST_DEFER_GROW)
 * @s: the session, referenced by the caller
 * @p: current's image, a row of @s
 *
 * From current's deferred work, where it may sleep.
 */
void st_sites_grow(struct st_session *s, struct st_proc *p)
{
	st_chash_grow(&p->hash, s, &p->lock, &p->nsites, st_site_node_hash);
	st_own_table_grow(s, offsetof(struct st_thread, hash),
			  offsetof(struct st_thread, ntsites), st_tsite_node_hash);
}

/**
 * st_own_table_grow() - grow one of current's own tables, as its count asks
 * @s: the session, referenced by the caller
 * @hoff: the table's offset in struct st_thread
 * @noff: the offset of its count (a u32)
 * @fn: the table's node hash
 *
 * From current's deferred work, where it may sleep. Such a table has no
 * lock: only current looks it up and adds to it, and a thread that takes
 * its record waits for a grace period before it touches the table. So the
 * new buckets are swapped in under RCU, on a record that is still current's.
 */
void st_own_table_grow(struct st_session *s, size_t hoff, size_t noff,
		       st_chash_fn fn)
{
	struct st_chash_node **nb;
	struct st_thread *t;
	u32 n;

	rcu_read_lock();
	t = st_thread_lookup(current);
	n = t && t->s == s ? st_chash_want((void *)t + hoff,
					   *(u32 *)((void *)t + noff)) : 0;
	rcu_read_unlock();
	if (!n)
		return;
	nb = st_chash_buckets_alloc(s, n);
	rcu_read_lock();
	t = st_thread_lookup(current);
	if (t && t->s != s)
		t = NULL;
	if (t && !nb)
		st_chash_grow_failed((void *)t + hoff, s);
	else if (t)
		nb = st_chash_swap((void *)t + hoff, nb, &n, fn);
	rcu_read_unlock();
	st_chash_buckets_free(s, nb, n);
}

/* ---- merges and snapshots for dumps ---- */

/*
 * Add errno slots @s into @d, which no one else writes: each errno to its
 * slot in @d, else to the first free one; with none free, its count is
 * left to @d's errors alone (its other).
 */
static void st_errnos_add(struct st_errnos *d, const struct st_errnos *s)
{
	int i, j;

	for (i = 0; i < SYSTRACE_SITE_ERRNOS; i++) {
		if (!s->nr[i] || !s->count[i])
			continue;
		for (j = 0; j < SYSTRACE_SITE_ERRNOS; j++) {
			if (d->nr[j] == s->nr[i]) {
				d->count[j] += s->count[i];
				break;
			}
			if (!d->nr[j]) {
				d->nr[j] = s->nr[i];
				d->count[j] = s->count[i];
				break;
			}
		}
	}
}

/**
 * st_site_counts_add() - merge a thread's site counters into a sum
 * @d: the sum (a site row's, or a snapshot's)
 * @s: the thread's, which it may be counting into meanwhile
 *
 * Each counter merges as its SYSTRACE_SITE_COUNTERS entry says, and the
 * errno slots by errno (st_errnos_add()); a thread that completed no call
 * adds nothing (to the minimum neither). The slots are read before the
 * errors, which the thread wrote first (st_errno_count()): the sum never
 * holds more in its slots than in its errors.
 */
void st_site_counts_add(struct st_site_counts *d,
			const struct st_site_counts *s)
{
	static const u8 how[ST_NSITE_COUNTS] = {
#define ST_SITE_MERGE(name, field, merge) SYSTRACE_MERGE_##merge,
		SYSTRACE_SITE_COUNTERS(ST_SITE_MERGE)
#undef ST_SITE_MERGE
	};
	bool first = !d->v[ST_SITE_CALLS];
	struct st_errnos e;
	int i;

	for (i = 0; i < SYSTRACE_SITE_ERRNOS; i++) {
		e.nr[i] = READ_ONCE(s->e.nr[i]);
		e.count[i] = READ_ONCE(s->e.count[i]);
	}
	smp_rmb();	/* the slots before the errors */
	if (!READ_ONCE(s->v[ST_SITE_CALLS]))
		return;
	st_errnos_add(&d->e, &e);
	for (i = 0; i < ST_NSITE_COUNTS; i++) {
		u64 v = READ_ONCE(s->v[i]);

		switch (how[i]) {
		case SYSTRACE_MERGE_SUM:
			d->v[i] += v;
			break;
		case SYSTRACE_MERGE_MIN:
			if (first || v < d->v[i])
				d->v[i] = v;
			break;
		case SYSTRACE_MERGE_MAX:
			if (v > d->v[i])
				d->v[i] = v;
			break;
		}
	}
}

/**
 * st_proc_counts_add() - add a thread's process counters to a sum
 * @d: the sum (a process row's, or a snapshot's)
 * @s: the thread's, which it may be counting into meanwhile
 */
void st_proc_counts_add(struct st_proc_counts *d,
			const struct st_proc_counts *s)
{
	int i;

	for (i = 0; i < ST_NPROC_COUNTS; i++)
		d->v[i] += READ_ONCE(s->v[i]);
}

/*
 * Lockless passes a snapshot makes before it takes proc->lock: each thread
 * that leaves meanwhile (a merge) forces one more, and a program that
 * makes and ends threads without pause could otherwise keep a dump (and
 * the genl lock it holds) in the loop for as long as it likes.
 */
#define ST_SNAP_TRIES	3

/* The counters and the accounting baselines, not the cputime reads. */
static void st_proc_snap_counts(struct st_proc *p, struct st_proc_snap *snap)
{
	struct st_thread *t;
	int i;

	snap->c = p->c;
	snap->acct = p->acct;
	snap->counter_value = p->counter_value;
	snap->counter_tasks = p->counter_tasks;
	snap->live_threads = 0;
	list_for_each_entry_rcu(t, &p->live, plist) {
		st_proc_counts_add(&snap->c, &t->c);
		for (i = 0; i < ST_NACCT; i++)
			snap->acct.v[i] -= t->base.v[i];
		snap->live_threads++;
	}
}

/* What the live threads' tasks have used up to now. */
static void st_proc_snap_acct(struct st_proc *p, struct st_proc_snap *snap)
{
	struct st_thread *t;
	struct st_acct now;
	int i;

	list_for_each_entry_rcu(t, &p->live, plist) {
		st_acct_read(t->task, &now);
		for (i = 0; i < ST_NACCT; i++)
			snap->acct.v[i] += now.v[i];
	}
}

/**
 * st_proc_snapshot() - a process row's totals, merged and live
 * @p: the row
 * @snap: filled in
 *
 * At most ST_SNAP_TRIES lockless passes over the live threads' counters,
 * then one under proc->lock, which every merge takes: bounded by the
 * row's live threads whatever they do. Their tasks' times are read once,
 * out of the retried passes, and only kept when no merge ran meanwhile
 * (else read again under the lock).
 *
 * Must be called under rcu_read_lock(), without proc->lock.
 */
void st_proc_snapshot(struct st_proc *p, struct st_proc_snap *snap)
{
	unsigned int seq;
	int tries;

	for (tries = 0; tries < ST_SNAP_TRIES; tries++) {
		seq = read_seqcount_begin(&p->seq);
		st_proc_snap_counts(p, snap);
		if (read_seqcount_retry(&p->seq, seq))
			continue;
		st_proc_snap_acct(p, snap);
		if (!read_seqcount_retry(&p->seq, seq))
			return;
		break;
	}
	spin_lock(&p->lock);
	st_proc_snap_counts(p, snap);
	st_proc_snap_acct(p, snap);
	spin_unlock(&p->lock);
}

static void st_site_snap_counts(struct st_site *site,
				struct st_site_counts *snap)
{
	struct st_tsite *ts;

	*snap = site->c;
	hlist_for_each_entry_rcu(ts, &site->live, snode)
		st_site_counts_add(snap, &ts->c);
}

/**
 * st_site_snapshot() - a site row's counters, merged and live
 * @p: the site's process row
 * @site: the row
 * @snap: filled in
 *
 * Walks only the live threads that hit this site, so a dump is linear in
 * the rows and their threads; as st_proc_snapshot(), a bounded number of
 * lockless passes, then one under proc->lock.
 *
 * Must be called under rcu_read_lock(), without proc->lock.
 */
void st_site_snapshot(struct st_proc *p, struct st_site *site,
		      struct st_site_counts *snap)
{
	unsigned int seq;
	int tries;

	for (tries = 0; tries < ST_SNAP_TRIES; tries++) {
		seq = read_seqcount_begin(&p->seq);
		st_site_snap_counts(site, snap);
		if (!read_seqcount_retry(&p->seq, seq))
			return;
	}
	spin_lock(&p->lock);
	st_site_snap_counts(site, snap);
	spin_unlock(&p->lock);
}

/**
 * st_free_session_rows() - free every row of a session
 * @s: a session with no thread left in the task table, after a grace period
 */
void st_free_session_rows(struct st_session *s)
{
	struct st_proc *p, *pn;
	struct st_site *site, *sn;

	for (p = s->procs; p; p = pn) {
		pn = p->next;
		for (site = p->sites; site; site = sn) {
			sn = site->next;
			st_cache_free(s, st_site_cache, site);
		}
		st_chash_free(&p->hash, s);
		st_paths_free(s, p);
		st_argv_put(s, p->argv);
		st_cache_free(s, st_proc_cache, p);
		cond_resched();
	}
	s->procs = NULL;
	s->procs_tail = NULL;
	st_objs_free(s);
}

u32 st_proc_row_bytes(void)
{
	return kmem_cache_size(st_proc_cache);
}

u32 st_site_row_bytes(void)
{
	return kmem_cache_size(st_site_cache);
}
