// SPDX-License-Identifier: GPL-2.0
/*
 * Mapped files: each file a site lies in, interned once per session
 * (st_obj) in a keyed hash that grows (chash.h), found from an address
 * under the mmap lock; and the late resolution of sites whose first hit
 * found that lock busy, by deferred work.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/dcache.h>
#include <linux/jhash.h>
#include <linux/sched/mm.h>
#include <asm/vsyscall.h>
#include "core.h"
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

/*
 * The files' table wants to grow: current grows it from its deferred work,
 * if current is a thread of @s (a new file is found by one, but for the
 * executable a tracer's attach interns).
 */
static void st_objs_ask_grow(struct st_session *s)
{
	struct st_thread *t;

	rcu_read_lock();
	t = st_thread_lookup(current);
	if (t && t->s == s)
		st_defer(t, ST_DEFER_GROW);
	rcu_read_unlock();
}

/**
 * st_objs_grow() - grow the session's table of files as its count asks
 * @s: the session, referenced by the caller
 *
 * From a thread's deferred work (ST_DEFER_GROW), where it may sleep.
 */
void st_objs_grow(struct st_session *s)
{
	st_chash_grow(&s->objs, s, &s->lock, &s->nobjs, st_obj_node_hash);
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
	bool grow;

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
	grow = !found && s->objs.buckets &&
	       st_chash_add(&s->objs, &o->hnode, hash, ++s->nobjs);
	spin_unlock(&s->lock);
	if (grow)
		st_objs_ask_grow(s);
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
 * The mmap lock is only tried, never waited for: a traced program can hold
 * it for as long as it likes. A failed try leaves SYSTRACE_MAP_UNKNOWN for
 * the caller to resolve later (st_resolve_later()).
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
	if (st_testing_late_resolve() || !mmap_read_trylock(mm))
		return ERR_PTR(-EAGAIN);
	obj = st_obj_locked(s, mm, addr, map, offset, gfp);
	mmap_read_unlock(mm);
	return obj;
}

/*
 * Late resolution. A probe cannot wait for the mmap lock, so a new site
 * whose first hit finds it taken (another thread mapping memory) is left
 * pending, and the thread that made it resolves it by deferred work
 * (defer.c) on its way back to user mode, where it may sleep: before it
 * runs another instruction of the image, so before anyone can have waited
 * for the image's end. The work resolves every pending site of the image.
 *
 * A thread whose call never returns (exit, exit_group, a fatal signal)
 * cannot: it has no address space by its exit probe. Its live siblings
 * then get the work, each at its next syscall exit (st_resolve_handoff());
 * no sibling can have exec'd into a new image meanwhile (an exec first
 * waits in de_thread() for every other thread to die). A thread that
 * blocks for good in the call holds nothing either. Sites left pending
 * when the image ends with no thread in it (or its session ends) stay
 * unknown, counted in dropped_resolve (st_resolve_drop()).
 */
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
static bool st_site_claim(struct st_proc *p, struct st_site *site)
{
	if (!READ_ONCE(site->pending) || !xchg(&site->pending, 0))
		return false;
	atomic_dec(&p->npending);
	return true;
}

/*
 * Resolve every pending site of @p in @mm, whose mmap lock the caller
 * holds; with no @mm, give up on them: they stay unknown, counted. The
 * walk starts at the first site that was pending when none was before.
 */
static void st_resolve_pending(struct st_proc *p, struct mm_struct *mm)
{
	struct st_site *site;

	/* Pairs with st_resolve_later()'s release: the site, then the hint. */
	for (site = smp_load_acquire(&p->first_pending); site;
	     site = st_next(site->next)) {
		if (!atomic_read(&p->npending))
			break;
		if (!st_site_claim(p, site))
			continue;
		if (mm) {
			st_site_resolve(p->s, mm, site);
			st_stat_inc(p->s, ST_LATE_RESOLVES);
		} else {
			st_stat_inc(p->s, ST_DROPPED_RESOLVE);
		}
	}
}

/**
 * st_resolve_later() - @site of @p was published pending by @t
 * @t: current's record, from a probe
 * @p: its process row, whose lock the caller holds
 * @site: the new site
 */
void st_resolve_later(struct st_thread *t, struct st_proc *p,
		      struct st_site *site)
{
	lockdep_assert_held(&p->lock);
	if (!atomic_read(&p->npending)) {
		/* Walkers start here: the site is published before the hint. */
		smp_store_release(&p->first_pending, site);
	}
	atomic_inc(&p->npending);
	st_defer(t, ST_DEFER_RESOLVE);
}

/**
 * st_resolve_handoff() - a thread left @p with sites pending: each live
 *	thread of @p resolves them at its next syscall exit
 * @p: the row, whose lock the caller holds
 */
void st_resolve_handoff(struct st_proc *p)
{
	struct st_thread *t;

	lockdep_assert_held(&p->lock);
	list_for_each_entry(t, &p->live, plist)
		st_defer(t, ST_DEFER_RESOLVE);
}

/**
 * st_resolve_now() - resolve @p's pending sites, in a thread of its image
 * @p: current's process row (deferred work, in process context, with a
 *	reference to its session)
 *
 * The mmap lock is only tried here too: a traced program controls it (a
 * thread stuck in a FUSE fault holds it, and one mmap() queued behind
 * makes every reader wait), and the work holds a session reference and a
 * module reference meanwhile.
 *
 * Return: true when the lock was taken: the caller tries again at the
 * thread's next syscall exit.
 */
bool st_resolve_now(struct st_proc *p)
{
	struct mm_struct *mm = current->mm;

	if (!atomic_read(&p->npending) || READ_ONCE(p->s->end) != ST_OPEN)
		return false;
	/* d_path() is relative to current's root: none past exit_fs(). */
	if (!mm || !current->fs)
		return false;
	if (!mmap_read_trylock(mm))
		return true;
	st_resolve_pending(p, mm);
	mmap_read_unlock(mm);
	return false;
}

/**
 * st_resolve_drop() - no thread will resolve @p's pending sites any more
 * @p: a row that ended with no thread left, or whose session ended
 */
void st_resolve_drop(struct st_proc *p)
{
	st_resolve_pending(p, NULL);
}
