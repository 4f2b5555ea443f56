// SPDX-License-Identifier: GPL-2.0
/*
 * Mapped files: each file a site lies in, interned once per session
 * (st_obj) in a keyed hash that grows (chash.h), found from an address
 * under the mmap lock; and the late resolution of sites whose first hit
 * found that lock busy, by task_work.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/dcache.h>
#include <linux/jhash.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/mm.h>
#include <linux/task_work.h>
#include <linux/module.h>
#include <asm/vsyscall.h>
#include "systrace.h"
#include "tables.h"
#include "compat.h"

/*
 * Keyed with the session's random seed, as the site hash is: a program
 * picks the files it maps (memfds, whose inode numbers come in sequence),
 * and must not be able to aim them all at one chain, which every first hit
 * of a site walks under the session's lock.
 */
static u32 st_obj_hash(u32 seed, u32 dev, u64 ino)
{
	return jhash_3words((u32)ino, (u32)(ino >> 32), dev, seed);
}

static u32 st_obj_node_hash(const struct st_chash_node *node, u32 seed)
{
	const struct st_obj *o = container_of(node, struct st_obj, hnode);

	return st_obj_hash(seed, o->dev, o->ino);
}

/* Under s->lock. */
static struct st_obj *st_obj_find(struct st_session *s, u32 hash, u32 dev,
				  u64 ino)
{
	struct st_obj *o;

	if (!s->objs.buckets)
		return NULL;
	st_chash_for_each(o, &s->objs, hash, hnode)
		if (o->dev == dev && o->ino == ino)
			return o;
	return NULL;
}

/**
 * st_objs_init() - give a new session its table of mapped files
 * @s: the session, not yet visible to any probe
 *
 * Return: 0, or -ENOMEM.
 */
int st_objs_init(struct st_session *s)
{
	return st_chash_init(&s->objs, s, s->seed, GFP_KERNEL);
}

/**
 * st_objs_free() - free a session's mapped files and their table
 * @s: a session whose rows are being freed
 */
void st_objs_free(struct st_session *s)
{
	struct st_chash_node *node, *next;
	struct st_obj *o;
	u32 i;

	for (i = 0; i < s->objs.nbuckets; i++) {
		for (node = s->objs.buckets[i]; node; node = next) {
			next = node->next;
			o = container_of(node, struct st_obj, hnode);
			st_free(s, o, sizeof(*o) + strlen(o->path) + 1);
		}
	}
	st_chash_free(&s->objs, s);
	s->nobjs = 0;
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
	u32 hash = st_obj_hash(s->seed, dev, ino);
	struct st_obj *o, *found;
	char *buf, *path;
	size_t len;

	spin_lock(&s->lock);
	o = st_obj_find(s, hash, dev, ino);
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
	found = st_obj_find(s, hash, dev, ino);
	if (!found && s->objs.buckets)
		st_chash_add(&s->objs, s, &o->hnode, hash, ++s->nobjs,
			     st_obj_node_hash);
	spin_unlock(&s->lock);
	if (found || !s->objs.buckets) {
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
	struct st_defer d;
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
			/* The same item and references, in another task. */
			init_task_work(&w->d.cb, st_resolve_fn);
			if (!task_work_add(t->task, &w->d.cb, TWA_RESUME)) {
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
	struct st_rwork *w = container_of(cb, struct st_rwork, d.cb);
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
	st_defer_done(&w->d);
}

/* From a probe in current, a thread of @p that just made a pending site. */
void st_resolve_later(struct st_proc *p)
{
	struct st_session *s = p->s;
	struct st_rwork *w;

	if (test_and_set_bit(0, &p->resolve_queued))
		return;
	w = st_defer_alloc(s, sizeof(*w));
	if (!w)
		goto drop;
	w->proc = p;
	w->exec_id = current->self_exec_id;
	/* It runs only after this probe returns, in this task. */
	if (st_defer_task(&w->d, current, st_resolve_fn))
		return;
	st_defer_cancel(&w->d);
drop:
	clear_bit(0, &p->resolve_queued);
	smp_mb__after_atomic();
	st_resolve_pending(p, NULL);
}
