// SPDX-License-Identifier: GPL-2.0
/*
 * argv: what each image was run with, as /proc/PID/cmdline gives it (the
 * bytes from mm->arg_start to mm->arg_end, each argument ending in NUL),
 * at most SYSTRACE_ARGV_MAX bytes, cut at an argument's end and flagged
 * when longer.
 *
 * No probe reads it: a probe may neither sleep nor fault. The exec probe
 * leaves the read to the thread that exec'd (ST_DEFER_ARGV, defer.c),
 * which copies it after execve's syscall exit, before the new image's
 * first user instruction: the arguments are then exactly what exec wrote,
 * in pages exec made present. The copy takes no page fault: a fault would
 * take the mmap lock, which a traced program can hold for good. The read
 * holds no lock and no session; it finds the row when it runs (defer.c).
 *
 * A process that ran before an attach is read the same way, by each of
 * its attached threads at its next return to user mode (the first one
 * wins): so an attach never waits on a traced program's memory, and its
 * rows' argv is what the process's memory holds then (a program that
 * wrote over its arguments shows what it wrote, as in /proc/PID/cmdline).
 * A process that makes no syscall after the attach keeps an unknown argv.
 *
 * A forked child runs its parent's image until it execs: its row shares
 * the parent's argv (a reference, no copy), or, when the parent's is not
 * read yet, reads its own copy of the same memory at its first return.
 *
 * Memory: the real length only, charged to the session (max_mem): refused,
 * the row's argv stays unknown, counted in dropped_nomem and dropped_argv;
 * so is a read that would fault (an argument area unmapped, swapped out or
 * not yet touched by the time it is read, only possible after an attach;
 * a forked child shares its parent's present pages).
 */
#include <linux/mm_types.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "core.h"

/**
 * st_argv_put() - drop a reference to an argv, freeing it with the last
 * @s: the session it is charged to
 * @a: the argv, or NULL
 */
void st_argv_put(struct st_session *s, struct st_argv *a)
{
	if (a && refcount_dec_and_test(&a->ref))
		st_free(s, a, struct_size(a, data, a->len));
}

/*
 * The bytes to keep of @buf, @n of @total: all of a whole NUL-ended argv;
 * else up to the last NUL (*truncated), or with a NUL added (*add) to an
 * argument a program left without one.
 */
static u32 st_argv_keep(const char *buf, u32 n, unsigned long total,
			bool *truncated, bool *add)
{
	u32 keep = n;

	*truncated = false;
	*add = false;
	if (total > n) {
		*truncated = true;
		while (keep && buf[keep - 1])
			keep--;
	} else if (keep && buf[keep - 1]) {
		if (keep < SYSTRACE_ARGV_MAX) {
			*add = true;
		} else {
			*truncated = true;
			while (keep && buf[keep - 1])
				keep--;
		}
	}
	return keep;
}

/**
 * st_argv_read() - read current's argv into @p, its image's row
 * @s: the session, whose reference the caller holds
 * @p: current's row in @s
 *
 * Process context, no lock held: the deferred work of current (defer.c).
 * Does nothing when @p has an argv already.
 */
void st_argv_read(struct st_session *s, struct st_proc *p)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, end, total;
	struct st_argv *a;
	bool truncated, add;
	unsigned long left;
	u32 n, keep;
	char *buf;

	if (READ_ONCE(p->argv) || !mm)
		return;
	spin_lock(&mm->arg_lock);
	start = mm->arg_start;
	end = mm->arg_end;
	spin_unlock(&mm->arg_lock);
	if (end < start)
		goto lost;
	total = end - start;
	n = min_t(unsigned long, total, SYSTRACE_ARGV_MAX);
	/* Transient, so not the session's: the row gets the real length. */
	buf = kmalloc(max(n, 1U), GFP_KERNEL | __GFP_NOWARN | __GFP_ACCOUNT);
	if (!buf)
		goto lost;
	/*
	 * Without faults: a fault takes the mmap lock, which the traced
	 * program may hold for good (a FUSE fault), or wait on a page it
	 * controls (userfaultfd).
	 */
	pagefault_disable();
	left = __copy_from_user_inatomic(buf, (const void __user *)start, n);
	pagefault_enable();
	if (left) {
		kfree(buf);
		goto lost;
	}
	keep = st_argv_keep(buf, n, total, &truncated, &add);
	a = st_alloc(s, struct_size(a, data, keep + add), GFP_KERNEL);
	if (!a) {
		kfree(buf);
		goto lost;
	}
	refcount_set(&a->ref, 1);
	a->len = keep + add;
	a->truncated = truncated;
	memcpy(a->data, buf, keep);	/* st_alloc zeroed the NUL added */
	kfree(buf);
	/* Another thread of an attached process may have been first. */
	if (cmpxchg(&p->argv, NULL, a))
		st_argv_put(s, a);
	return;
lost:
	st_stat_inc(s, ST_DROPPED_ARGV);
}

/**
 * st_argv_fork() - a forked child's argv: its parent image's
 * @nt: the child's record, its row new and not yet running
 * @parent: the row of the image that forked it
 *
 * From the fork probe: a reference when the parent's argv is known, else
 * the child reads its own at its first return to user mode.
 */
void st_argv_fork(struct st_thread *nt, struct st_proc *parent)
{
	struct st_argv *a = READ_ONCE(parent->argv);

	/* The parent's row holds its reference until the session's rows go. */
	if (a) {
		refcount_inc(&a->ref);
		WRITE_ONCE(nt->proc->argv, a);
	} else {
		st_defer(nt, ST_DEFER_ARGV);
	}
}
