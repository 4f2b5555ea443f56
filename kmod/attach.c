// SPDX-License-Identifier: GPL-2.0
/*
 * Attach: trace processes that already run (SESSION_NEW without F_ON_EXEC,
 * with F_TREE their living descendants too), or hold the root of an
 * F_ON_EXEC session until its exec.
 *
 * An attach runs under st_mutex and, as every generic netlink request does,
 * under genl's cb_lock (read): a family registration queued behind it
 * (down_write) stops every genl message of the machine until it returns. So
 * nothing here waits on what a traced program controls. The executable is
 * read from mm->exe_file under RCU, never under the mmap lock, which a
 * program can hold for as long as it likes (a page fault on a FUSE file
 * whose server does not answer). The tree is walked once per round, in time
 * linear in the processes, leaving RCU to reschedule. Threads taken back
 * wait for one grace period per attach. And the request stops when the
 * task that sent it is killed.
 */
#include <linux/slab.h>
#include <linux/hash.h>
#include <linux/file.h>
#include <linux/rculist.h>
#include <linux/threads.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/coredump.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <net/netlink.h>
#include "core.h"
#include "compat.h"

/**
 * st_task_traced() - is a thread of @task's process traced by a session?
 * @task: any thread of the process
 *
 * Return: true when one is.
 */
bool st_task_traced(struct task_struct *task)
{
	struct task_struct *t;
	bool traced = false;

	rcu_read_lock();
	for_each_thread(task, t) {
		if (st_thread_lookup(t)) {
			traced = true;
			break;
		}
	}
	rcu_read_unlock();
	return traced;
}

/*
 * May current read the thread @t? The credentials and dumpability checks
 * of ptrace_may_access(PTRACE_MODE_READ_REALCREDS). Called under RCU.
 */
static bool st_thread_may_read(struct task_struct *t)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	task_lock(t);
	tcred = __task_cred(t);
	ok = (uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid)) ||
	     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	smp_rmb();	/* the credentials before the dumpability, as ptrace */
	mm = t->mm;
	if (ok && (mm ? get_dumpable(mm) != SUID_DUMP_USER &&
			!ns_capable(mm->user_ns, CAP_SYS_PTRACE) :
			!t->user_dumpable &&
			!ns_capable(&init_user_ns, CAP_SYS_PTRACE)))
		ok = false;
	task_unlock(t);
	return ok;
}

/**
 * st_task_may_read() - may current read @task's process as
 *	ptrace_may_access(PTRACE_MODE_READ_REALCREDS) decides, for each of
 *	its threads that the attach would trace?
 * @task: any thread of the process
 *
 * The same rules, except the LSM hook, which the kernel does not export to
 * modules: same thread group; or the caller's real uid and gid are all of
 * the thread's, or it holds CAP_SYS_PTRACE over the thread's user
 * namespace; and a thread whose process is not dumpable (a setuid image)
 * needs CAP_SYS_PTRACE over its mm's user namespace (over the initial one
 * when it has no mm left). They are checked on every thread not exiting,
 * the threads an attach takes, never on @task alone: a group leader that
 * left by SYS_exit keeps the credentials it had then, while the threads
 * that go on may have changed theirs (a raw setresuid() changes one
 * thread's) or exec'd a setuid image. Only when every thread is exiting
 * is @task itself checked.
 *
 * Return: true when it may.
 */
bool st_task_may_read(struct task_struct *task)
{
	struct task_struct *t;
	bool ok = true, live = false;

	if (same_thread_group(task, current))
		return true;
	rcu_read_lock();
	for_each_thread(task, t) {
		if (READ_ONCE(t->flags) & PF_EXITING)
			continue;
		live = true;
		ok = st_thread_may_read(t);
		if (!ok)
			break;
	}
	if (!live)
		ok = st_thread_may_read(task);
	rcu_read_unlock();
	return ok;
}

/*
 * The executable of @task's process, the file /proc/PID/exe names (the
 * exec probe's bprm->file), through any thread that still has the address
 * space (a group leader that left by SYS_exit has none). mm->exe_file is
 * read under RCU: no mmap lock, no wait.
 */
static struct st_obj *st_exe(struct st_session *s, struct task_struct *task)
{
	struct file *exe = NULL;
	struct task_struct *t;
	struct st_obj *obj;

	rcu_read_lock();
	for_each_thread(task, t) {
		/* task_lock keeps t->mm, and so its exe_file slot, alive. */
		task_lock(t);
		if (t->mm)
			exe = st_get_file_rcu(&t->mm->exe_file);
		task_unlock(t);
		if (exe)
			break;
	}
	rcu_read_unlock();
	if (!exe)
		return NULL;
	obj = st_obj_get(s, exe, GFP_KERNEL);
	fput(exe);
	return obj;
}

/*
 * A set of pointers, each held by a reference of its owner: open
 * addressing, at most half full, grown only where the caller may sleep.
 */
struct st_pset {
	const void **slot;
	u32 bits;
	u32 n;
};

static u32 st_pset_cap(const struct st_pset *set)
{
	return set->slot ? 1U << set->bits : 0;
}

static bool st_pset_has(const struct st_pset *set, const void *key)
{
	u32 mask, i;

	if (!set->n)
		return false;
	mask = st_pset_cap(set) - 1;
	for (i = hash_ptr(key, set->bits); set->slot[i]; i = (i + 1) & mask)
		if (set->slot[i] == key)
			return true;
	return false;
}

/* Room for @more keys besides those in @set? */
static bool st_pset_room(const struct st_pset *set, u32 more)
{
	return set->n + more <= st_pset_cap(set) / 2;
}

/* Add @key, which is not in @set; st_pset_room() said there is room. */
static void st_pset_insert(struct st_pset *set, const void *key)
{
	u32 mask = st_pset_cap(set) - 1, i;

	for (i = hash_ptr(key, set->bits); set->slot[i]; i = (i + 1) & mask)
		;
	set->slot[i] = key;
	set->n++;
}

/* Make room for @more keys besides those in @set. Return: 0 or -ENOMEM. */
static int st_pset_grow(struct st_pset *set, u32 more)
{
	struct st_pset big = { .bits = max(set->bits, 5U) };
	u32 i;

	while ((1U << big.bits) / 2 < set->n + more)
		big.bits++;
	if (big.bits == set->bits && set->slot)
		return 0;
	big.slot = kvcalloc(1U << big.bits, sizeof(*big.slot),
			    GFP_KERNEL_ACCOUNT);
	if (!big.slot)
		return -ENOMEM;
	for (i = 0; i < st_pset_cap(set); i++)
		if (set->slot[i])
			st_pset_insert(&big, set->slot[i]);
	kvfree(set->slot);
	*set = big;
	return 0;
}

static void st_pset_clear(struct st_pset *set)
{
	if (set->slot)
		memset(set->slot, 0, st_pset_cap(set) * sizeof(*set->slot));
	set->n = 0;
}

/* One attach: what it did, and what it leaves for its end. */
struct st_attach {
	struct st_session *s;
	int attached;			/* threads now traced */
	int failed;			/* threads or rows refused: dropped_procs */
	struct list_head gone;		/* threads taken back (st_attach_settle) */
	/* Processes given a row, a reference each: never a second row. */
	struct st_pset tried;
};

/* Thread records made at a time, out of RCU, by st_attach_threads(). */
#define ST_THREAD_BATCH		32
/* Then, when threads keep leaving at the pauses, the rest without pausing. */
#define ST_THREAD_RESTARTS	8

/*
 * st_walk_leave() and st_walk_back() - let an RCU walk of a task list stand
 * at @t while it is out of RCU (to allocate, to let others run)
 *
 * The walk holds @t meanwhile, so its list pointers stay readable; whether
 * they still lead on through the list is for @listed to tell, back under
 * RCU. The thread list and the task list are both written under
 * tasklist_lock, before the grace period that would free what @t's
 * pointers lead to: a reader that starts after that grace period sees the
 * change.
 *
 * Return: st_walk_back(): whether @t is still listed (else the walk
 * starts again, each its own way).
 */
static void st_walk_leave(struct task_struct *t)
{
	get_task_struct(t);
	rcu_read_unlock();
}

static bool st_walk_back(struct task_struct *t,
			 bool (*listed)(struct task_struct *))
{
	bool still;

	rcu_read_lock();
	still = listed(t);
	if (still) {
		/* Not the last reference: the list's is still held. */
		put_task_struct(t);
	} else {
		/* Perhaps the last: not under RCU. */
		rcu_read_unlock();
		put_task_struct(t);
		rcu_read_lock();
	}
	return still;
}

/* Is @t still on its thread list? Its pid goes with its place there. */
static bool st_thread_listed(struct task_struct *t)
{
	return pid_alive(t);
}

/*
 * Make up to @want thread records for @pool, out of RCU, and let others
 * run; the walk stands at @t. Back under RCU.
 *
 * Return: false when @t left its thread list meanwhile (the walk starts
 * again from the first thread).
 */
static bool st_thread_refill(struct st_session *s, struct st_thread **pool,
			     int *npool, int want, struct task_struct *t)
{
	struct st_thread *nt;

	st_walk_leave(t);
	while (*npool < want && (nt = st_thread_new(s, GFP_KERNEL)))
		pool[(*npool)++] = nt;
	cond_resched();
	return st_walk_back(t, st_thread_listed);
}

/*
 * st_attach_threads() - trace every thread of @task's process as @p's
 *
 * Threads past their exit probe, or about to be, are skipped: they would
 * never leave the session. One caught in between is taken back and kept,
 * with a pin on its row, for st_attach_settle().
 *
 * The records are made out of RCU, ST_THREAD_BATCH at a time (as many as
 * the process has threads left, when fewer), with GFP_KERNEL, rescheduling
 * between batches: a process of many threads costs no run of atomic
 * allocations. When the thread the walk paused at has left its list
 * meanwhile, the walk starts again from the first thread: those it
 * attached are found traced, those it could not are counted again from
 * scratch. After ST_THREAD_RESTARTS of those it makes the rest of the
 * records under RCU, GFP_ATOMIC, without pausing.
 */
static void st_attach_threads(struct st_attach *a, struct st_proc *p,
			      struct task_struct *task)
{
	struct st_thread *pool[ST_THREAD_BATCH], *nt;
	struct st_session *s = a->s;
	struct list_head *head, *pos;
	int npool = 0, failed = 0, done = 0, restarts = 0, want;
	struct task_struct *t;

	rcu_read_lock();
	head = &task->signal->thread_head;
	pos = head;
	while ((pos = rcu_dereference(list_next_rcu(pos))) != head) {
		t = list_entry(pos, struct task_struct, thread_node);
		if (READ_ONCE(t->flags) & PF_EXITING)
			continue;
		nt = st_thread_lookup(t);
		if (nt) {
			/* Followed since (the fork probe): not a loss. */
			if (nt->s != s)
				failed++;
			continue;
		}
		if (!npool && restarts < ST_THREAD_RESTARTS) {
			want = clamp(READ_ONCE(task->signal->nr_threads) - done,
				     1, ST_THREAD_BATCH);
			if (!st_thread_refill(s, pool, &npool, want, t)) {
				restarts++;
				failed = 0;
				pos = head;
				continue;
			}
		}
		nt = npool ? pool[--npool] : st_thread_new(s, GFP_ATOMIC);
		if (nt)
			nt = st_thread_insert(s, p, t, nt, NULL);
		done++;
		if (!nt) {
			nt = st_thread_lookup(t);
			if (!nt || nt->s != s)
				failed++;
			continue;
		}
		/*
		 * It may have started to exit between the test and the
		 * insert, and passed its exit probe before the insert. The
		 * full barrier pairs with those in do_exit() between setting
		 * PF_EXITING and the probe's lookup: either the probe sees
		 * the record, or this sees the flag and takes the record back.
		 */
		smp_mb();
		if ((READ_ONCE(t->flags) & PF_EXITING) && st_thread_own(nt)) {
			if (p)
				st_proc_pin(p);
			list_add_tail(&nt->snode, &a->gone);
			continue;
		}
		a->attached++;
		/* Counted from its next return to user mode, as a fork child. */
		if (p)
			st_counter_start_attached(nt);
	}
	rcu_read_unlock();
	while (npool)
		st_thread_discard(s, pool[--npool]);
	a->failed += failed;
}

/*
 * st_attach_settle() - retire the threads the attach took back, after one
 * grace period for all of them (a probe may still hold one), and unpin
 * their rows.
 */
static void st_attach_settle(struct st_attach *a)
{
	struct st_thread *nt, *tn;
	struct st_proc *p;

	if (list_empty(&a->gone))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(nt, tn, &a->gone, snode) {
		list_del_init(&nt->snode);
		p = nt->proc;
		st_thread_detach(nt, false);
		if (p)
			st_proc_unpin_end(p);
	}
}

/*
 * st_attach_proc() - a row for the running process @task, and its threads
 * @parent_id: the parent's row, 0 for none
 * @ppid: the parent's tgid in the session's pid namespace
 *
 * Return: false when no row could be made (a limit, or no memory).
 */
static bool st_attach_proc(struct st_attach *a, struct task_struct *task,
			   u64 parent_id, pid_t ppid)
{
	struct st_session *s = a->s;
	struct st_proc *p;

	p = st_proc_new(s, task, parent_id, ppid, 0, st_exe(s, task), true,
			GFP_KERNEL);
	if (!p)
		return false;
	st_proc_pin(p);
	st_attach_threads(a, p, task);
	/*
	 * Every attached thread may have left already, and the exit probe
	 * does not end a pinned row: end it here, as the probe would have
	 * when it saw the process exit.
	 */
	st_proc_unpin_end(p);
	return true;
}

/*
 * The row of @task's process in @s, when one of its threads is traced
 * there. Called under RCU.
 */
static struct st_proc *st_traced_proc(struct st_session *s,
				      struct task_struct *task)
{
	struct task_struct *t;
	struct st_thread *st;

	for_each_thread(task, t) {
		st = st_thread_lookup(t);
		if (st && st->s == s)
			return st->proc;
	}
	return NULL;
}

static bool st_has_live_thread(struct task_struct *task)
{
	struct task_struct *t;

	for_each_thread(task, t)
		if (!(READ_ONCE(t->flags) & PF_EXITING))
			return true;
	return false;
}

/* A process of the tree, found by st_tree_collect(). */
struct st_tree_ent {
	struct task_struct *task;	/* a reference */
	bool attach;			/* living, untraced, not the caller */
};

/* The processes of a tree, parents before children. */
struct st_tree {
	struct st_tree_ent *ents;
	u32 n, cap;
	struct st_pset members;		/* their signal_structs, and the root's */
	bool partial;			/* the walk stopped early */
};

/*
 * Room for more processes. The walk takes each living process once, and
 * every one has a pid: no more than PID_MAX_LIMIT (4 Mi), so the table
 * stays within 64 MiB and its set within 128 MiB. Both are charged to the caller's memory
 * cgroup (systracectl's: the attach's scratch, freed when it returns).
 *
 * Return: 0 or -ENOMEM.
 */
static int st_tree_grow(struct st_tree *tr)
{
	u32 cap = max(tr->cap * 2, 64U);
	struct st_tree_ent *ents;

	if (tr->cap >= PID_MAX_LIMIT)
		return -ENOMEM;
	if (st_pset_grow(&tr->members, cap + 1 - tr->members.n))
		return -ENOMEM;
	ents = kvmalloc_array(cap, sizeof(*ents), GFP_KERNEL_ACCOUNT);
	if (!ents)
		return -ENOMEM;
	if (tr->n)
		memcpy(ents, tr->ents, tr->n * sizeof(*ents));
	kvfree(tr->ents);
	tr->ents = ents;
	tr->cap = cap;
	return 0;
}

static void st_tree_put(struct st_tree *tr)
{
	while (tr->n)
		put_task_struct(tr->ents[--tr->n].task);
	st_pset_clear(&tr->members);
}

/*
 * Is @p, a process the walk visited, still on the task list? A process
 * leaves it when it is released, which also clears its pid, or when a
 * thread that execs takes its place, which makes that thread the leader.
 * Both are written under tasklist_lock, before the grace period that would
 * free what @p's list pointers lead to; a reader that starts after that
 * grace period sees them.
 */
static bool st_task_listed(struct task_struct *p)
{
	return pid_alive(p) && thread_group_leader(p);
}

/*
 * st_tree_pause() - leave RCU at @p: to make room, to let others run, to
 * see whether the caller was killed; back under RCU on return
 * @gone: take @p as gone (the test knobs)
 *
 * Return: 0 to go on from @p, 1 when @p left the task list meanwhile (the
 * walk resumes at st_tree_resume()), -ENOMEM or -EINTR.
 */
static int st_tree_pause(struct st_tree *tr, struct task_struct *p, bool gone)
{
	bool listed;
	int ret = 0;

	st_walk_leave(p);
	if (tr->n == tr->cap)
		ret = st_tree_grow(tr);
	cond_resched();
	if (!ret && fatal_signal_pending(current))
		ret = -EINTR;
	listed = st_walk_back(p, st_task_listed);
	return ret ?: !listed || gone;
}

/*
 * st_tree_resume() - where the walk goes on when the process it paused at
 * left the task list: the last process it took that is still listed, else
 * @root, else the list's head. Called under RCU.
 *
 * The walk took its entries in list order, and visited every process
 * between the last of them and the one it paused at; a process keeps its
 * place in the list for as long as it is listed (an exec by another thread
 * puts that thread in the same place), and new processes go to its tail.
 * So resuming after an entry still listed skips only processes already
 * visited, and no descendant is missed. The members, @root included, stay
 * in the set: none is taken twice.
 */
static struct task_struct *st_tree_resume(struct st_tree *tr,
					  struct task_struct *root)
{
	u32 i;

	for (i = tr->n; i > 0; i--)
		if (st_task_listed(tr->ents[i - 1].task))
			return tr->ents[i - 1].task;
	return st_task_listed(root) ? root : &init_task;
}

/*
 * Testing (module parameters test_walk_gone and test_walk_stuck): take
 * the process the walk is at as gone, as if it had left the task list
 * while the walk paused there. test_walk_gone: after each process the walk
 * takes (where the walk pauses when its table is full, an attacker's
 * churn can land); test_walk_stuck: at every process. Each counts down.
 * Attaches run one at a time, under st_mutex.
 */
static bool st_tree_test_gone(struct st_tree *tr, u32 *last_n)
{
#ifdef SYSTRACE_TESTING
	u32 left;

	left = READ_ONCE(st_test_walk_stuck);
	if (left) {
		WRITE_ONCE(st_test_walk_stuck, left - 1);
		return true;
	}
	left = READ_ONCE(st_test_walk_gone);
	if (left && tr->n != *last_n) {
		*last_n = tr->n;
		WRITE_ONCE(st_test_walk_gone, left - 1);
		return true;
	}
#endif
	return false;
}

/* Resumes in a row that took no process, before a round gives up. */
#define ST_TREE_STALLS	8

/*
 * st_tree_collect() - the processes of @root's tree, @root excluded
 * @tr: receives them, a reference each, parents before children
 *
 * The task list holds processes in the order they were made, and a process
 * is only ever reparented to an older one (a thread of its parent's, a
 * subreaper among its ancestors, its namespace's init), so a parent comes
 * before its children: one lookup of the parent's signal_struct among the
 * tree's tells whether a process is in the tree, and the walk is linear in
 * the processes. The references keep every key alive, so none is reused by
 * a new process while the walk is out of RCU. (The child lists would need
 * tasklist_lock, which modules cannot take.)
 *
 * The walk pauses when its table is full and when another task should
 * run. When the process it paused at left the list meanwhile, it resumes
 * after its last entry still listed (st_tree_resume()), losing nothing. A
 * program can make it resume without progress only by having the process
 * at each pause leave the list, every time: after ST_TREE_STALLS such
 * resumes in a row, the walk ends early, tr->partial.
 *
 * Return: 0, -ENOMEM, or -EINTR when the caller was killed.
 */
static int st_tree_collect(struct st_session *s, struct task_struct *root,
			   struct st_tree *tr)
{
	struct task_struct *p, *up;
	u32 resumed_n = 0, test_n = 0;
	int stalls = 0, ret = 0;
	bool gone;

	st_tree_put(tr);
	tr->partial = false;
	if (!tr->cap) {
		ret = st_tree_grow(tr);
		if (ret)
			return ret;
	}
	st_pset_insert(&tr->members, root->signal);
	rcu_read_lock();
	p = &init_task;
	while ((p = next_task(p)) != &init_task) {
		gone = st_tree_test_gone(tr, &test_n);
		if (tr->n == tr->cap || need_resched() || gone) {
			ret = st_tree_pause(tr, p, gone);
			if (ret == 1) {
				ret = 0;
				if (tr->n != resumed_n)
					stalls = 0;
				if (++stalls > ST_TREE_STALLS) {
					tr->partial = true;
					break;
				}
				resumed_n = tr->n;
				p = st_tree_resume(tr, root);
				continue;
			}
			if (ret)
				break;
		}
		if ((READ_ONCE(p->flags) & PF_KTHREAD) ||
		    st_pset_has(&tr->members, p->signal))
			continue;
		up = rcu_dereference(p->real_parent);
		if (!st_pset_has(&tr->members, up->signal))
			continue;
		get_task_struct(p);
		tr->ents[tr->n].task = p;
		/* Not the caller itself (systracectl in a traced shell). */
		tr->ents[tr->n].attach = !same_thread_group(p, current) &&
					 st_has_live_thread(p) &&
					 !st_traced_proc(s, p);
		tr->n++;
		st_pset_insert(&tr->members, p->signal);
	}
	rcu_read_unlock();
	return ret;
}

/* Remember that @task got its row. Return: false when out of memory. */
static bool st_tried_add(struct st_pset *tried, struct task_struct *task)
{
	if (!st_pset_room(tried, 1) && st_pset_grow(tried, 1))
		return false;
	get_task_struct(task);
	st_pset_insert(tried, task);
	return true;
}

static void st_tried_free(struct st_pset *tried)
{
	u32 i;

	for (i = 0; i < st_pset_cap(tried); i++)
		if (tried->slot[i])
			put_task_struct((struct task_struct *)tried->slot[i]);
	kvfree(tried->slot);
}

/* What st_attach_one() made of a process. */
enum st_one {
	ST_ONE_DONE,	/* attached, refused (counted), or no loss */
	ST_ONE_LOST,	/* a loss, counted when no later round attaches it */
	ST_ONE_LATER,	/* still in its parent's fork: the next round */
};

/*
 * st_attach_one() - attach the descendant @task unless it is gone, traced,
 * unreadable, being forked or had its row already
 * @last: the last round: attach even a process being forked
 *
 * A process not yet woken (TASK_NEW) is still in its parent's fork: the
 * fork probe, which runs before wake_up_new_task(), may follow it at any
 * moment, with a row of its own beside the one this would make (this
 * one's would stay empty, or the probe's end detached with a drop counted).
 * It is left to the next round, when the probe has decided. The state is
 * read, with acquire, before the lookups: the probe's insert comes before
 * the store of TASK_RUNNING.
 *
 * Return: ST_ONE_LOST when it should have been attached and was not
 * (another session traces it, the caller may not read it, no memory to
 * remember it). A process refused its row counts at once, in @a->failed.
 */
static enum st_one st_attach_one(struct st_attach *a, struct task_struct *task,
				 bool last)
{
	struct st_session *s = a->s;
	struct task_struct *up;
	struct st_proc *pp;
	bool live, ours, forking;
	u64 parent_id;
	pid_t ppid;

	/* Before the lookups: the probe inserts before TASK_RUNNING. */
	forking = smp_load_acquire(&task->__state) & TASK_NEW;
	rcu_read_lock();
	live = st_has_live_thread(task);
	ours = st_traced_proc(s, task);
	up = rcu_dereference(task->real_parent);
	pp = st_traced_proc(s, up);
	parent_id = pp ? pp->id : 0;
	ppid = task_tgid_nr_ns(up, s->pidns);
	rcu_read_unlock();
	/* Exiting, or followed by the fork probe since the walk: no loss. */
	if (!live || ours || st_pset_has(&a->tried, task))
		return ST_ONE_DONE;
	if (forking && !last)
		return ST_ONE_LATER;
	if (st_task_traced(task) || !st_task_may_read(task))
		return ST_ONE_LOST;
	if (!st_tried_add(&a->tried, task))
		return ST_ONE_LOST;
	/*
	 * A process refused its row (max_procs, no memory) is in @a->tried:
	 * no later round tries it again, nor counts it. Count it now.
	 */
	if (!st_attach_proc(a, task, parent_id, ppid))
		a->failed++;
	return ST_ONE_DONE;
}

/*
 * st_attach_tree() - attach the living descendants of @root
 *
 * Once a process is attached, the fork probe follows what it creates. A
 * process found but not attached yet may fork meanwhile, so the walk runs
 * again while a round attaches something, left a process being forked, or
 * stopped early (at most ST_TREE_ROUNDS). The processes the last round
 * could not attach count in dropped_procs, once, and so does a last walk
 * that ended early.
 *
 * Return: 0, -ENOMEM, or -EINTR when the caller was killed.
 */
#define ST_TREE_ROUNDS	8
static int st_attach_tree(struct st_attach *a, struct task_struct *root)
{
	struct st_tree tr = {};
	u32 i, round, lost, later;
	int before, ret = 0;
	enum st_one one;
	bool last;

	for (round = 0; round < ST_TREE_ROUNDS && !ret; round++) {
		ret = st_tree_collect(a->s, root, &tr);
		before = a->attached;
		last = round == ST_TREE_ROUNDS - 1;
		lost = 0;
		later = 0;
		for (i = 0; i < tr.n && !ret; i++) {
			if (tr.ents[i].attach) {
				one = st_attach_one(a, tr.ents[i].task, last);
				lost += one == ST_ONE_LOST;
				later += one == ST_ONE_LATER;
			}
			if (fatal_signal_pending(current))
				ret = -EINTR;
			cond_resched();
		}
		if (!ret && ((a->attached == before && !tr.partial && !later) ||
			     last)) {
			/*
			 * A last walk that ended early did not reach every
			 * process: those past it, how many is unknown, count
			 * once, as a loss, in dropped_procs (which the
			 * session's record, list and summary show; an extack
			 * warning on a success reaches no one).
			 */
			a->failed += lost + tr.partial;
			break;
		}
	}
	st_tree_put(&tr);
	kvfree(tr.ents);
	kvfree(tr.members.slot);
	return ret;
}

/**
 * st_attach() - attach @s to the process @task, or hold its root
 * @s: a new session, not yet listed; its probes registered
 * @task: the root
 * @extack: where a failure is explained
 *
 * Without SYSTRACE_SESSION_F_ON_EXEC, @task's process gets a row and its
 * threads are traced (with F_TREE, its living descendants too); with it,
 * its threads wait for their exec, rowless.
 *
 * Return: 0; or -errno, and then the caller kills @s.
 */
int st_attach(struct st_session *s, struct task_struct *task,
	      struct netlink_ext_ack *extack)
{
	struct st_attach a = { .s = s };
	int ret = 0;
	pid_t ppid;

	INIT_LIST_HEAD(&a.gone);
	if (s->flags & SYSTRACE_SESSION_F_ON_EXEC) {
		st_attach_threads(&a, NULL, task);
	} else {
		rcu_read_lock();
		ppid = task_tgid_nr_ns(rcu_dereference(task->real_parent),
				       s->pidns);
		rcu_read_unlock();
		if (!st_attach_proc(&a, task, 0, ppid))
			a.failed++;
		if (a.attached && (s->flags & SYSTRACE_SESSION_F_TREE))
			ret = st_attach_tree(&a, task);
	}
	st_attach_settle(&a);
	st_tried_free(&a.tried);
	if (ret == -EINTR) {
		NL_SET_ERR_MSG_MOD(extack, "interrupted by a signal");
		return ret;
	}
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate the list of descendants");
		return ret;
	}
	if (a.failed)
		atomic64_add(a.failed, &s->stats[ST_DROPPED_PROCS]);
	if (!a.attached) {
		if (a.failed) {
			NL_SET_ERR_MSG_MOD(extack, "cannot attach to the root process");
			return -ENOMEM;
		}
		NL_SET_ERR_MSG_MOD(extack, "every thread of the process is exiting");
		return -ESRCH;
	}
	return 0;
}
