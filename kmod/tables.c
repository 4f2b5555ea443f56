// SPDX-License-Identifier: GPL-2.0
/*
 * The tables behind a session: the global task table ("is current traced?"),
 * process rows, site rows, each thread's private site counters, and the
 * mapped files the sites lie in.
 *
 * Writers: a thread alone writes its st_thread and st_tsite counters, so
 * the hot path takes no lock. Row creation (first hit of a site, fork,
 * exec, exit) takes proc->lock or session->lock. Readers (dumps) walk the
 * append-only ->next lists under RCU and retry across merges with proc->seq.
 */
#include <linux/slab.h>
#include <linux/rhashtable.h>
#include <linux/rculist.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/dcache.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/mm.h>
#include <linux/timekeeping.h>
#include <linux/task_work.h>
#include <linux/module.h>
#include <asm/vsyscall.h>
#include <asm/syscall.h>
#include "systrace.h"
#include "compat.h"

#define ST_BUCKETS_MIN 16

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

static struct kmem_cache *st_proc_cache, *st_site_cache;
static struct kmem_cache *st_tsite_cache, *st_thread_cache;

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
	ret = rhashtable_init(&st_tasks, &st_task_params);
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
	rhashtable_destroy(&st_tasks);
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
 * st_charge() - count @size bytes against @s's and the global limit
 * @s: session
 * @size: bytes
 *
 * Return: true when both limits allow it; else false, counted in
 * dropped_nomem.
 */
bool st_charge(struct st_session *s, size_t size)
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

static void *st_cache_alloc(struct st_session *s, struct kmem_cache *c,
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

static void st_cache_free(struct st_session *s, struct kmem_cache *c, void *p)
{
	if (!p)
		return;
	kmem_cache_free(c, p);
	st_uncharge(s, kmem_cache_size(c));
}

/* Task accounting: CPU time, context switches and faults. */
void st_acct_read(struct task_struct *task, struct st_acct *a)
{
	a->utime = READ_ONCE(task->utime);
	a->stime = READ_ONCE(task->stime);
	a->nvcsw = READ_ONCE(task->nvcsw);
	a->nivcsw = READ_ONCE(task->nivcsw);
	a->minflt = READ_ONCE(task->min_flt);
	a->majflt = READ_ONCE(task->maj_flt);
}

static void st_acct_add_delta(struct st_acct *sum, struct task_struct *task,
			      const struct st_acct *base)
{
	struct st_acct now;

	st_acct_read(task, &now);
	sum->utime += now.utime - base->utime;
	sum->stime += now.stime - base->stime;
	sum->nvcsw += now.nvcsw - base->nvcsw;
	sum->nivcsw += now.nivcsw - base->nivcsw;
	sum->minflt += now.minflt - base->minflt;
	sum->majflt += now.majflt - base->majflt;
}

/* ---- mapped files ---- */

static u32 st_obj_hash(u32 dev, u64 ino)
{
	return hash_64(ino ^ ((u64)dev << 32), 6);
}

static struct st_obj *st_obj_find(struct st_session *s, u32 dev, u64 ino)
{
	struct st_obj *o;

	hlist_for_each_entry(o, &s->objs[st_obj_hash(dev, ino)], hnode)
		if (o->dev == dev && o->ino == ino)
			return o;
	return NULL;
}

/**
 * st_obj_get() - the session's interned record of a mapped file
 * @s: session
 * @f: the file
 * @gfp: allocation context
 *
 * Return: the record, or NULL when it could not be made (counted).
 */
struct st_obj *st_obj_get(struct st_session *s, struct file *f, gfp_t gfp)
{
	struct inode *inode = file_inode(f);
	u32 dev = new_encode_dev(inode->i_sb->s_dev);
	u64 ino = inode->i_ino;
	struct st_obj *o, *found;
	char *buf, *path;
	size_t len;

	spin_lock(&s->lock);
	o = st_obj_find(s, dev, ino);
	spin_unlock(&s->lock);
	if (o)
		return o;
	/* d_path() is relative to current's root: none past exit_fs(). */
	if (!current->fs) {
		st_stat_inc(s, ST_DROPPED_RESOLVE);
		return NULL;
	}

	buf = kmalloc(PATH_MAX, gfp | __GFP_NOWARN);
	if (!buf) {
		st_stat_inc(s, ST_DROPPED_NOMEM);
		return NULL;
	}
	path = d_path(&f->f_path, buf, PATH_MAX);
	if (IS_ERR(path)) {
		kfree(buf);
		st_stat_inc(s, ST_DROPPED_RESOLVE);
		return NULL;
	}
	len = strlen(path);
	o = st_alloc(s, sizeof(*o) + len + 1, gfp);
	if (o) {
		o->dev = dev;
		o->ino = ino;
		o->mtime_ns = st_inode_mtime_ns(inode);
		memcpy(o->path, path, len + 1);
	}
	kfree(buf);
	if (!o)
		return NULL;

	spin_lock(&s->lock);
	found = st_obj_find(s, dev, ino);
	if (!found)
		hlist_add_head(&o->hnode, &s->objs[st_obj_hash(dev, ino)]);
	spin_unlock(&s->lock);
	if (found) {
		st_free(s, o, sizeof(*o) + len + 1);
		o = found;
	}
	return o;
}

/* The mapping @addr lies in; the caller holds @mm's mmap lock. */
static struct st_obj *st_obj_locked(struct st_session *s,
				    struct mm_struct *mm, unsigned long addr,
				    u8 *map, u64 *offset, gfp_t gfp)
{
	struct vm_area_struct *vma;
	struct st_obj *obj = NULL;

	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr) {
		st_stat_inc(s, ST_DROPPED_RESOLVE);
	} else if (vma->vm_file) {
		obj = st_obj_get(s, vma->vm_file, gfp);
		if (obj) {
			*map = SYSTRACE_MAP_FILE;
			*offset = addr - vma->vm_start +
				  ((u64)vma->vm_pgoff << PAGE_SHIFT);
		}
	} else if (vma->vm_start == (unsigned long)mm->context.vdso) {
		*map = SYSTRACE_MAP_VDSO;
	} else {
		*map = SYSTRACE_MAP_ANON;
	}
	return obj;
}

/**
 * st_obj_at() - find the mapping an address lies in
 * @s: session
 * @mm: address space (may be NULL)
 * @addr: user address
 * @map: set to the enum systrace_map kind
 * @offset: set to the file offset, or to @addr when not file-backed
 * @gfp: allocation context
 *
 * Waits for the mmap lock only when @gfp may block. Otherwise the lock is
 * only tried, and a failed try leaves SYSTRACE_MAP_UNKNOWN for the caller
 * to resolve later (st_resolve_later()).
 *
 * Return: the file record for SYSTRACE_MAP_FILE, ERR_PTR(-EAGAIN) when the
 * lock was taken, NULL otherwise.
 */
struct st_obj *st_obj_at(struct st_session *s, struct mm_struct *mm,
			 unsigned long addr, u8 *map, u64 *offset, gfp_t gfp)
{
	struct st_obj *obj;

	*map = SYSTRACE_MAP_UNKNOWN;
	*offset = addr;
	if (addr >= VSYSCALL_ADDR && addr < VSYSCALL_ADDR + PAGE_SIZE) {
		*map = SYSTRACE_MAP_VSYSCALL;
		return NULL;
	}
	if (!mm) {
		st_stat_inc(s, ST_DROPPED_RESOLVE);
		return NULL;
	}
	if (gfpflags_allow_blocking(gfp)) {
		/* A request waits, but not unkillably, on another's lock. */
		if (mmap_read_lock_killable(mm))
			return NULL;
	} else if (READ_ONCE(st_force_late_resolve) || !mmap_read_trylock(mm))
		return ERR_PTR(-EAGAIN);
	obj = st_obj_locked(s, mm, addr, map, offset, gfp);
	mmap_read_unlock(mm);
	return obj;
}

/*
 * Late resolution. A probe cannot wait for the mmap lock, so a new site
 * whose first hit finds it taken (another thread mapping memory) is left
 * pending, and the thread resolves it by task_work on its way back to
 * user mode, where it may sleep: before it runs another instruction of
 * the image, so before anyone can have waited for the image's end. The
 * work holds a module reference and a session reference (the session
 * owns the rows). One work per image is queued at a time; it resolves
 * every pending site of the image.
 *
 * A thread whose first exit call made the site never returns to user
 * mode: its work runs in exit_task_work(), after exit_mm() and exit_fs(),
 * with no address space and no root to make a path from. It hands the
 * work to a live sibling, which runs it on its own way back to user
 * mode. No sibling can have exec'd into a new image meanwhile: an exec
 * first waits in de_thread() for every other thread to die, current
 * included, and current is still in do_exit().
 */
struct st_rwork {
	struct callback_head cb;
	struct st_proc *proc;
	u64 exec_id;			/* the running task's, when queued */
};

static void st_site_resolve(struct st_session *s, struct mm_struct *mm,
			    struct st_site *site)
{
	struct st_obj *obj;
	u64 offset = site->addr;
	u8 map = SYSTRACE_MAP_UNKNOWN;

	obj = st_obj_locked(s, mm, site->addr, &map, &offset, GFP_KERNEL);
	WRITE_ONCE(site->obj, obj);
	WRITE_ONCE(site->offset, offset);
	/* Pairs with the acquire in dumps: map last, after what it covers. */
	smp_store_release(&site->map, map);
}

/* Claim @site's resolution: exactly one caller gets true. */
static bool st_site_claim(struct st_site *site)
{
	return READ_ONCE(site->pending) && xchg(&site->pending, 0);
}

/*
 * Resolve every pending site of @p in @mm, whose mmap lock the caller
 * holds; with no @mm, give up on them: they stay unknown, counted.
 */
static void st_resolve_pending(struct st_proc *p, struct mm_struct *mm)
{
	struct st_site *site;

	for (site = st_next(p->sites); site; site = st_next(site->next)) {
		if (!st_site_claim(site))
			continue;
		if (mm) {
			st_site_resolve(p->s, mm, site);
			st_stat_inc(p->s, ST_LATE_RESOLVES);
		} else {
			st_stat_inc(p->s, ST_DROPPED_RESOLVE);
		}
	}
}

static void st_resolve_fn(struct callback_head *cb);

/* Will @k return to user mode in @w's image, soon if @running? */
static bool st_resolve_target(struct task_struct *k, bool running)
{
	if (k == current || fatal_signal_pending(k) ||
	    (READ_ONCE(k->flags) & (PF_EXITING | ST_PF_WORKER)))
		return false;
	return !running || task_is_running(k);
}

/*
 * Queue @w on a live sibling of current in @w's image, one that runs if
 * there is one (a sleeping one resolves only when it wakes up).
 * Return: false when there is none.
 */
static bool st_resolve_handoff(struct st_rwork *w)
{
	struct st_proc *p = w->proc;
	struct st_thread *t;
	bool queued = false;
	int pass;

	spin_lock(&p->lock);
	for (pass = 0; pass < 2 && !queued; pass++) {
		list_for_each_entry(t, &p->live, plist) {
			if (!st_resolve_target(t->task, pass == 0))
				continue;
			w->exec_id = READ_ONCE(t->task->self_exec_id);
			init_task_work(&w->cb, st_resolve_fn);
			if (!task_work_add(t->task, &w->cb, TWA_RESUME)) {
				queued = true;
				break;
			}
		}
	}
	/*
	 * Sites made pending from now on queue a work in their own thread
	 * rather than wait for this sibling: a site is claimed once, so two
	 * works of one image never resolve it twice. Still under p->lock,
	 * which keeps the sibling on p->live and so the session alive.
	 */
	if (queued) {
		clear_bit(0, &p->resolve_queued);
		smp_mb__after_atomic();
	}
	spin_unlock(&p->lock);
	return queued;
}

static void st_resolve_fn(struct callback_head *cb)
{
	struct st_rwork *w = container_of(cb, struct st_rwork, cb);
	struct st_proc *p = w->proc;
	struct st_session *s = p->s;
	/* Still the image the work was queued for (no exec since)? */
	bool same = READ_ONCE(current->self_exec_id) == w->exec_id;
	struct mm_struct *mm = same && !READ_ONCE(s->dead) ? current->mm : NULL;

	if (mm && !current->fs)
		mm = NULL;
	if (same && !READ_ONCE(s->dead) && !mm) {
		if (st_resolve_handoff(w))
			return;
	}
	/* Sites made pending from here on queue a work of their own. */
	clear_bit(0, &p->resolve_queued);
	smp_mb__after_atomic();
	if (mm) {
		mmap_read_lock(mm);
		st_resolve_pending(p, mm);
		mmap_read_unlock(mm);
	} else {
		st_resolve_pending(p, NULL);
	}
	st_free(s, w, sizeof(*w));
	st_session_put(s);
	module_put(THIS_MODULE);
}

/* From a probe in current, a thread of @p that just made a pending site. */
static void st_resolve_later(struct st_proc *p)
{
	struct st_session *s = p->s;
	struct st_rwork *w;

	if (test_and_set_bit(0, &p->resolve_queued))
		return;
	w = st_alloc(s, sizeof(*w), GFP_NOWAIT);
	if (!w)
		goto drop;
	if (!try_module_get(THIS_MODULE)) {
		st_free(s, w, sizeof(*w));
		goto drop;
	}
	w->proc = p;
	w->exec_id = current->self_exec_id;
	init_task_work(&w->cb, st_resolve_fn);
	/* It runs only after this probe returns, in this task. */
	if (!task_work_add(current, &w->cb, TWA_RESUME)) {
		kref_get(&s->ref);
		return;
	}
	module_put(THIS_MODULE);
	st_free(s, w, sizeof(*w));
drop:
	clear_bit(0, &p->resolve_queued);
	smp_mb__after_atomic();
	st_resolve_pending(p, NULL);
}

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
	p->buckets = st_alloc(s, ST_BUCKETS_MIN * sizeof(*p->buckets), gfp);
	if (!p->buckets) {
		st_cache_free(s, st_proc_cache, p);
		return NULL;
	}
	p->nbuckets = ST_BUCKETS_MIN;
	p->seed = s->seed;
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
	if (s->dead || s->nprocs >= st_max_procs) {
		spin_unlock(&s->lock);
		st_free(s, p->buckets, p->nbuckets * sizeof(*p->buckets));
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

static void st_proc_free_buckets(struct st_proc *p)
{
	st_free(p->s, p->buckets, p->nbuckets * sizeof(*p->buckets));
	p->buckets = NULL;
	p->nbuckets = 0;
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
	bool ended;

	spin_lock(&p->lock);
	ended = p->end == SYSTRACE_END_RUNNING;
	if (ended) {
		p->end_ns = ktime_get_ns();
		p->exit_code = code;
		WRITE_ONCE(p->end, end);
		if (list_empty(&p->live))
			st_proc_free_buckets(p);
	}
	spin_unlock(&p->lock);
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
 * A row whose threads all exited while it was pinned ends as they did;
 * one whose threads were all taken back (or never attached) as detached.
 */
void st_proc_unpin_end(struct st_proc *p)
{
	bool empty, exited;
	u32 code;

	spin_lock(&p->lock);
	empty = !--p->pins && list_empty(&p->live);
	exited = p->pinned_exit;
	code = p->pinned_code;
	spin_unlock(&p->lock);
	if (!empty)
		return;
	if (exited)
		st_proc_exit(p, code);
	else
		st_proc_end(p, SYSTRACE_END_DETACHED, 0);
}

/* ---- threads ---- */

struct st_thread *st_thread_lookup(struct task_struct *task)
{
	return rhashtable_lookup(&st_tasks, &task, st_task_params);
}

/*
 * The syscall probes' answer to "is current traced?", cached per CPU: a
 * loop of syscalls on one CPU, traced or not, looks the task table up
 * once. Every change of the table bumps st_tasks_gen after it is made; an
 * entry holds the generation read before its lookup, so it is used only
 * while the table is as that lookup saw it (or a change is still in
 * flight, which a lookup could have missed as well). A record that left
 * the table is freed only after a grace period that started after the
 * bump, and a probe that starts later sees the bump.
 */
struct st_task_cache {
	struct task_struct *task;
	struct st_thread *t;		/* NULL: not traced */
	unsigned long gen;
};

static DEFINE_PER_CPU(struct st_task_cache, st_task_cache);
static atomic_long_t st_tasks_gen;

static void st_tasks_changed(void)
{
	smp_mb__before_atomic();
	atomic_long_inc(&st_tasks_gen);
}

/**
 * st_thread_current() - current's record, from a syscall probe
 *
 * Must be called under rcu_read_lock().
 *
 * Return: the record, or NULL when current is not traced.
 */
struct st_thread *st_thread_current(void)
{
	struct st_task_cache *c = get_cpu_ptr(&st_task_cache);
	unsigned long gen = atomic_long_read(&st_tasks_gen);
	struct st_thread *t;

	if (likely(c->task == current && c->gen == gen)) {
		t = c->t;
	} else {
		smp_rmb();	/* the generation before the lookup */
		t = st_thread_lookup(current);
		c->task = current;
		c->t = t;
		c->gen = gen;
	}
	put_cpu_ptr(&st_task_cache);
	return t;
}

/**
 * st_thread_attach() - start tracing @task as a thread of @p
 * @s: session
 * @p: process row, NULL for a root that waits for its exec
 * @task: the task, which must not run traced code before this returns
 * @gfp: allocation context
 * @old: the record @task had before an exec, which the new one replaces in
 *	the task table and whose ownership passes to the caller; or NULL
 *
 * Return: the record, or NULL (already traced, dead session, no memory).
 */
struct st_thread *st_thread_attach(struct st_session *s, struct st_proc *p,
				   struct task_struct *task, gfp_t gfp,
				   struct st_thread *old)
{
	struct st_thread *t;
	int ret;

	t = st_cache_alloc(s, st_thread_cache, gfp);
	if (!t)
		return NULL;
	t->buckets = st_alloc(s, ST_BUCKETS_MIN * sizeof(*t->buckets), gfp);
	if (!t->buckets) {
		st_cache_free(s, st_thread_cache, t);
		return NULL;
	}
	t->nbuckets = ST_BUCKETS_MIN;
	t->seed = s->seed;
	t->task = task;
	t->s = s;
	t->proc = p;
	st_acct_read(task, &t->base);
	INIT_LIST_HEAD(&t->plist);
	INIT_LIST_HEAD(&t->snode);

	spin_lock(&s->lock);
	if (s->dead)
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
		st_free(s, t->buckets, t->nbuckets * sizeof(*t->buckets));
		st_cache_free(s, st_thread_cache, t);
		return NULL;
	}
	return t;
}

static void st_thread_free_rcu(struct rcu_head *head)
{
	struct st_thread *t = container_of(head, struct st_thread, rcu);
	struct st_tsite *ts, *next;

	for (ts = t->tsites; ts; ts = next) {
		next = ts->next;
		kmem_cache_free(st_tsite_cache, ts);
	}
	kfree(t->buckets);
	put_task_struct(t->task);
	kmem_cache_free(st_thread_cache, t);
}

static void st_site_merge(struct st_site *site, const struct st_tsite *ts)
{
	if (!ts->calls)
		return;
	if (!site->calls || ts->min_ns < site->min_ns)
		site->min_ns = ts->min_ns;
	if (ts->max_ns > site->max_ns)
		site->max_ns = ts->max_ns;
	site->calls += ts->calls;
	site->errors += ts->errors;
	site->total_ns += ts->total_ns;
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
	bool last;

	spin_lock(&p->lock);
	write_seqcount_begin(&p->seq);
	for (ts = t->tsites; ts; ts = ts->next) {
		st_site_merge(ts->site, ts);
		hlist_del_rcu(&ts->snode);
	}
	p->syscalls += t->syscalls;
	p->errors += t->errors;
	p->syscall_ns += t->syscall_ns;
	st_acct_add_delta(&p->acct, t->task, &t->base);
	list_del_rcu(&t->plist);
	write_seqcount_end(&p->seq);
	/* Its last thread left while it is pinned: st_proc_unpin_end() ends it. */
	if (t->exited && list_empty(&p->live) && p->pins) {
		p->pinned_exit = true;
		p->pinned_code = t->exit_code;
	}
	last = list_empty(&p->live) && !p->pins;
	if (last && p->end != SYSTRACE_END_RUNNING)
		st_proc_free_buckets(p);
	spin_unlock(&p->lock);
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
	bytes = kmem_cache_size(st_thread_cache) +
		t->nbuckets * sizeof(*t->buckets) +
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
 * st_threads_take() - own every thread of a dead session
 * @s: a session marked dead, so that no thread joins it any more
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
	WARN_ON_ONCE(!s->dead);
	list_for_each_entry(t, &s->threads, snode) {
		t->owned = true;
		rhashtable_remove_fast(&st_tasks, &t->node, st_task_params);
	}
	list_splice_init(&s->threads, owned);
	st_tasks_changed();
	spin_unlock(&s->lock);
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

static struct st_site *st_site_find(struct st_proc *p, u64 addr, u32 nr,
				    u8 abi)
{
	struct st_site *site;

	if (!p->buckets)
		return NULL;
	site = p->buckets[st_site_hash(p->seed, addr, nr, abi) & (p->nbuckets - 1)];
	for (; site; site = site->hnext)
		if (site->addr == addr && site->nr == nr && site->abi == abi)
			return site;
	return NULL;
}

/* Double the bucket array when chains grow long; failure is harmless. */
static void st_proc_grow(struct st_proc *p)
{
	u32 n = p->nbuckets * 2, i, b;
	struct st_site **nb, *site, *next;

	nb = st_alloc(p->s, n * sizeof(*nb), GFP_NOWAIT);
	if (!nb)
		return;
	for (i = 0; i < p->nbuckets; i++) {
		for (site = p->buckets[i]; site; site = next) {
			next = site->hnext;
			b = st_site_hash(p->seed, site->addr, site->nr, site->abi) &
			    (n - 1);
			site->hnext = nb[b];
			nb[b] = site;
		}
	}
	st_free(p->s, p->buckets, p->nbuckets * sizeof(*p->buckets));
	p->buckets = nb;
	p->nbuckets = n;
}

/* Syscalls the image had completed: merged threads plus live ones. */
static u64 st_proc_ordinal(struct st_proc *p)
{
	struct st_thread *t;
	u64 n = p->syscalls;

	list_for_each_entry(t, &p->live, plist)
		n += READ_ONCE(t->syscalls);
	return n;
}

static struct st_site *st_site_get(struct st_thread *t, u64 addr, u32 nr,
				   u8 abi)
{
	struct st_proc *p = t->proc;
	struct st_session *s = t->s;
	struct st_site *site, *found;
	u32 b;

	spin_lock(&p->lock);
	site = st_site_find(p, addr, nr, abi);
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
	found = st_site_find(p, addr, nr, abi);
	if (!found && p->buckets) {
		site->first_ord = st_proc_ordinal(p);
		p->nsites++;
		b = st_site_hash(p->seed, addr, nr, abi) & (p->nbuckets - 1);
		site->hnext = p->buckets[b];
		p->buckets[b] = site;
		if (p->sites_tail)
			st_publish(p->sites_tail->next, site);
		else
			st_publish(p->sites, site);
		p->sites_tail = site;
		if (p->nsites > 2 * p->nbuckets)
			st_proc_grow(p);
	}
	spin_unlock(&p->lock);
	if (found || !p->buckets) {
		st_cache_free(s, st_site_cache, site);
		return found;
	}
	atomic64_inc(&s->nsites);
	atomic_inc(&s->gen);
	if (site->pending)
		st_resolve_later(p);
	return site;
}

static void st_thread_grow(struct st_thread *t)
{
	u32 n = t->nbuckets * 2, i, b;
	struct st_tsite **nb, *ts, *next;

	nb = st_alloc(t->s, n * sizeof(*nb), GFP_NOWAIT);
	if (!nb)
		return;
	for (i = 0; i < t->nbuckets; i++) {
		for (ts = t->buckets[i]; ts; ts = next) {
			next = ts->hnext;
			b = st_site_hash(t->seed, ts->site->addr, ts->site->nr,
					 ts->site->abi) & (n - 1);
			ts->hnext = nb[b];
			nb[b] = ts;
		}
	}
	st_free(t->s, t->buckets, t->nbuckets * sizeof(*t->buckets));
	t->buckets = nb;
	t->nbuckets = n;
}

static noinline struct st_tsite *st_tsite_new(struct st_thread *t, u64 addr,
					      u32 nr, u8 abi)
{
	struct st_site *site;
	struct st_tsite *ts;
	u32 b;

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
	b = st_site_hash(t->seed, addr, nr, abi) & (t->nbuckets - 1);
	ts->hnext = t->buckets[b];
	t->buckets[b] = ts;
	ts->next = t->tsites;
	rcu_assign_pointer(t->tsites, ts);
	if (++t->ntsites > 2 * t->nbuckets)
		st_thread_grow(t);
	return ts;
}

static inline u8 st_abi(long *nr)
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
 * The fast path reads only memory the thread owns.
 *
 * Return: the counters, or NULL when the syscall cannot be counted
 * (counted in dropped_syscalls).
 */
struct st_tsite *st_tsite_get(struct st_thread *t, struct pt_regs *regs,
			      long nr)
{
	u64 addr = instruction_pointer(regs) - 2;
	u8 abi = st_abi(&nr);
	struct st_tsite *ts = t->last;

	if (likely(ts && ts->site->addr == addr && ts->site->nr == nr &&
		   ts->site->abi == abi))
		return ts;
	ts = t->buckets[st_site_hash(t->seed, addr, nr, abi) &
			(t->nbuckets - 1)];
	for (; ts; ts = ts->hnext)
		if (ts->site->addr == addr && ts->site->nr == nr &&
		    ts->site->abi == abi)
			break;
	if (unlikely(!ts))
		ts = st_tsite_new(t, addr, nr, abi);
	if (unlikely(!ts))
		st_stat_inc(t->s, ST_DROPPED_SYSCALLS);
	else
		t->last = ts;
	return ts;
}

/**
 * st_tsite_account() - complete the in-flight syscall of the current thread
 * @t: current's record
 * @ret: its return value
 * @now: st_clock() at the exit
 */
void st_tsite_account(struct st_thread *t, long ret, u64 now)
{
	struct st_tsite *ts = t->cur.ts;
	u64 d = now - t->cur.start_ns;
	bool err = IS_ERR_VALUE(ret);

	/* Entry and exit on two CPUs whose clocks differ by more. */
	if ((s64)d < 0)
		d = 0;

	t->cur.ts = NULL;
	if (!ts->calls || d < ts->min_ns)
		WRITE_ONCE(ts->min_ns, d);
	if (d > ts->max_ns)
		WRITE_ONCE(ts->max_ns, d);
	WRITE_ONCE(ts->total_ns, ts->total_ns + d);
	WRITE_ONCE(ts->errors, ts->errors + err);
	WRITE_ONCE(ts->calls, ts->calls + 1);
	WRITE_ONCE(t->syscall_ns, t->syscall_ns + d);
	WRITE_ONCE(t->errors, t->errors + err);
	WRITE_ONCE(t->syscalls, t->syscalls + 1);
}

/* ---- snapshots for dumps ---- */

/**
 * st_proc_snapshot() - a process row's totals, merged and live
 * @p: the row
 * @snap: filled in
 *
 * Must be called under rcu_read_lock().
 */
void st_proc_snapshot(struct st_proc *p, struct st_proc_snap *snap)
{
	struct st_thread *t;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&p->seq);
		snap->syscalls = READ_ONCE(p->syscalls);
		snap->errors = READ_ONCE(p->errors);
		snap->syscall_ns = READ_ONCE(p->syscall_ns);
		snap->acct = p->acct;
		snap->counter_value = p->counter_value;
		snap->counter_tasks = p->counter_tasks;
		snap->live_threads = 0;
		list_for_each_entry_rcu(t, &p->live, plist) {
			snap->syscalls += READ_ONCE(t->syscalls);
			snap->errors += READ_ONCE(t->errors);
			snap->syscall_ns += READ_ONCE(t->syscall_ns);
			st_acct_add_delta(&snap->acct, t->task, &t->base);
			snap->live_threads++;
		}
	} while (read_seqcount_retry(&p->seq, seq));
}

/**
 * st_site_snapshot() - a site row's counters, merged and live
 * @p: the site's process row
 * @site: the row
 * @snap: filled in
 *
 * Must be called under rcu_read_lock(). Walks only the live threads that
 * hit this site, so a dump is linear in the rows and their threads.
 */
void st_site_snapshot(struct st_proc *p, struct st_site *site,
		      struct st_site_snap *snap)
{
	struct st_tsite *ts;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&p->seq);
		snap->calls = READ_ONCE(site->calls);
		snap->errors = READ_ONCE(site->errors);
		snap->total_ns = READ_ONCE(site->total_ns);
		snap->min_ns = READ_ONCE(site->min_ns);
		snap->max_ns = READ_ONCE(site->max_ns);
		hlist_for_each_entry_rcu(ts, &site->live, snode) {
			u64 calls = READ_ONCE(ts->calls);
			u64 mn = READ_ONCE(ts->min_ns);
			u64 mx = READ_ONCE(ts->max_ns);

			if (!calls)
				continue;
			if (!snap->calls || mn < snap->min_ns)
				snap->min_ns = mn;
			if (mx > snap->max_ns)
				snap->max_ns = mx;
			snap->calls += calls;
			snap->errors += READ_ONCE(ts->errors);
			snap->total_ns += READ_ONCE(ts->total_ns);
		}
	} while (read_seqcount_retry(&p->seq, seq));
}

/**
 * st_free_session_rows() - free every row of a session
 * @s: a session with no thread left in the task table, after a grace period
 */
void st_free_session_rows(struct st_session *s)
{
	struct st_proc *p, *pn;
	struct st_site *site, *sn;
	struct st_obj *o;
	struct hlist_node *tmp;
	int i;

	for (p = s->procs; p; p = pn) {
		pn = p->next;
		for (site = p->sites; site; site = sn) {
			sn = site->next;
			st_cache_free(s, st_site_cache, site);
		}
		st_proc_free_buckets(p);
		st_cache_free(s, st_proc_cache, p);
		cond_resched();
	}
	s->procs = NULL;
	s->procs_tail = NULL;
	for (i = 0; i < ARRAY_SIZE(s->objs); i++) {
		hlist_for_each_entry_safe(o, tmp, &s->objs[i], hnode) {
			hlist_del(&o->hnode);
			st_free(s, o, sizeof(*o) + strlen(o->path) + 1);
		}
	}
}

u32 st_proc_row_bytes(void)
{
	return kmem_cache_size(st_proc_cache);
}

u32 st_site_row_bytes(void)
{
	return kmem_cache_size(st_site_cache);
}
