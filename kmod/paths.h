/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The paths of file calls (paths.c): the path rows, and the syscall
 * probes' part, inlined into them: at the entry, whether the call takes a
 * path and where it is; at the exit, whether the session counts it.
 */
#ifndef _SYSTRACE_PATHS_H
#define _SYSTRACE_PATHS_H

#include <linux/err.h>
#include <asm/syscall.h>
#include "core.h"
#include "file_calls.h"

/*
 * One path row: the calls at @site that gave result @err on one path.
 * Its thread alone counts into it and finds it (st_thread.phash); once
 * written it is published on its image's list, which dumps walk, and it
 * lives as long as the session's rows.
 */
struct st_path {
	struct st_chash_node hnode;	/* thread->phash, owner-only */
	struct st_path *next;		/* proc->paths list, RCU readers */
	struct st_site *site;
	u64 count;			/* written by its thread only */
	u16 err;			/* 0: a success */
	u8 kind;			/* enum systrace_path_kind */
	u16 len;			/* bytes of path, without its NUL */
	char path[];
};

/* Argument @arg (0, 1 or 4) of an x86-64 syscall: rdi, rsi or r8. */
static __always_inline unsigned long st_syscall_arg(struct pt_regs *regs,
						    int arg)
{
	return arg == 0 ? regs->di : arg == 1 ? regs->si : regs->r8;
}

/*
 * The path argument of x86-64 file call @nr (file_calls.h): false for a
 * call that takes none, or whose NULL means no path.
 */
static __always_inline bool st_path_arg(struct pt_regs *regs, long nr,
					unsigned long *ptr)
{
	switch (nr) {
#define ST_PATH_CASE(n, arg, null_ok)				\
	case n:							\
		*ptr = st_syscall_arg(regs, arg);		\
		return !(null_ok) || *ptr;
	ST_FILE_CALLS(ST_PATH_CASE)
#undef ST_PATH_CASE
	}
	return false;
}

/* At sys_enter, after the call's site: note its path argument, if any. */
static __always_inline void st_path_enter(struct st_thread *t,
					  struct pt_regs *regs, long nr)
{
	t->path_call = t->paths != SYSTRACE_PATHS_OFF && t->cur.ts &&
		       !in_ia32_syscall() && st_path_arg(regs, nr, &t->path_ptr);
}

void st_path_count(struct st_thread *t, struct st_site *site, long ret,
		   const char *kpath);

/*
 * The call in flight at @ts completed with @ret: count its path, read from
 * the thread's memory, or from @kpath, the kernel's copy (an exec's).
 */
static __always_inline void st_path_exit(struct st_thread *t,
					 struct st_tsite *ts, long ret,
					 const char *kpath)
{
	t->path_call = false;
	if (t->paths == SYSTRACE_PATHS_ALL || IS_ERR_VALUE(ret))
		st_path_count(t, ts->site, ret, kpath);
}

/* The call in flight completed without an exit that shows its path. */
static inline void st_path_lost(struct st_thread *t)
{
	if (t->path_call && t->paths == SYSTRACE_PATHS_ALL)
		atomic64_inc(&t->s->dropped_paths);
	t->path_call = false;
}

struct sk_buff;
int st_nl_put_path(struct sk_buff *skb, struct st_proc *p,
		   struct st_path *row);
int st_paths_put_session(struct sk_buff *skb, struct st_session *s);
void st_paths_free(struct st_session *s, struct st_proc *p);
void st_paths_grow(struct st_session *s);

#endif
