// SPDX-License-Identifier: GPL-2.0
/*
 * Attach: trace processes that already run (SESSION_NEW without F_ON_EXEC,
 * with F_TREE their living descendants too), or hold the root of an
 * F_ON_EXEC session until its exec.
 */
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/rculist.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/coredump.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <net/netlink.h>
#include "systrace.h"

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
 * The root's executable, from the mapping of its text, through any thread
 * that still has the address space (a group leader that left by SYS_exit
 * has none).
 */
static struct st_obj *st_root_exe(struct st_session *s, struct task_struct *task)
{
	struct mm_struct *mm = NULL;
	struct task_struct *t;
	struct st_obj *obj;
	u64 offset;
	u8 map;

	rcu_read_lock();
	for_each_thread(task, t) {
		mm = get_task_mm(t);
		if (mm)
			break;
	}
	rcu_read_unlock();
	if (!mm)
		return NULL;
	obj = st_obj_at(s, mm, mm->start_code, &map, &offset, GFP_KERNEL);
	mmput(mm);
	return obj;
}

/**
 * st_task_may_read() - may current read @task as
 *	ptrace_may_access(PTRACE_MODE_READ_REALCREDS) decides?
 * @task: the task
 *
 * The same rules, except the LSM hook, which the kernel does not export to
 * modules: same thread group; or the caller's real uid and gid are all of
 * the task's, or it holds CAP_SYS_PTRACE over the task's user namespace;
 * and a task that is not dumpable (a setuid image) needs CAP_SYS_PTRACE
 * over its mm's user namespace (over the initial one when it has no mm
 * left, such as a leader that left by SYS_exit).
 *
 * Return: true when it may.
 */
bool st_task_may_read(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	task_lock(task);
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid)) ||
	     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	smp_rmb();	/* the credentials before the dumpability, as ptrace */
	mm = task->mm;
	if (ok && (mm ? get_dumpable(mm) != SUID_DUMP_USER &&
			!ns_capable(mm->user_ns, CAP_SYS_PTRACE) :
			!task->user_dumpable &&
			!ns_capable(&init_user_ns, CAP_SYS_PTRACE)))
		ok = false;
	task_unlock(task);
	return ok;
}

/* Counts of one attach, over the processes of the tree. */
struct st_attach_count {
	int attached;		/* threads now traced */
	int failed;		/* threads or rows refused: dropped_procs */
};

/*
 * st_attach_threads() - trace every thread of @task's process as @p's
 *
 * Threads past their exit probe, or about to be, are skipped: they would
 * never leave the session.
 */
static void st_attach_threads(struct st_session *s, struct st_proc *p,
			      struct task_struct *task,
			      struct st_attach_count *c)
{
	struct st_thread *nt, *tn;
	struct task_struct *t;
	LIST_HEAD(gone);

	rcu_read_lock();
	for_each_thread(task, t) {
		if (READ_ONCE(t->flags) & PF_EXITING)
			continue;
		nt = st_thread_attach(s, p, t, GFP_ATOMIC, NULL);
		if (!nt) {
			/* Followed since (the fork probe): not a loss. */
			nt = st_thread_lookup(t);
			if (!nt || nt->s != s)
				c->failed++;
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
			list_add_tail(&nt->snode, &gone);
			continue;
		}
		c->attached++;
		/* Counted from its next return to user mode, as a fork child. */
		if (p)
			st_counter_start_attached(nt);
	}
	rcu_read_unlock();
	if (!list_empty(&gone)) {
		synchronize_rcu();
		list_for_each_entry_safe(nt, tn, &gone, snode) {
			list_del_init(&nt->snode);
			st_thread_detach(nt, false);
		}
	}
}

/*
 * st_attach_proc() - a row for the running process @task, and its threads
 * @parent_id: the parent's row, 0 for none
 * @ppid: the parent's tgid in the session's pid namespace
 *
 * Return: false when no row could be made (a limit, or no memory).
 */
static bool st_attach_proc(struct st_session *s, struct task_struct *task,
			   u64 parent_id, pid_t ppid, struct st_attach_count *c)
{
	struct st_proc *p;

	p = st_proc_new(s, task, parent_id, ppid, 0, st_root_exe(s, task),
			true, GFP_KERNEL);
	if (!p)
		return false;
	st_proc_pin(p);
	st_attach_threads(s, p, task, c);
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

/* A process of the tree found by st_collect_tree(), deepest last. */
struct st_tree_ent {
	struct task_struct *task;	/* a reference is held */
	u32 depth;
};

static int st_tree_ent_cmp(const void *a, const void *b)
{
	const struct st_tree_ent *x = a, *y = b;

	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/*
 * st_collect_tree() - the living descendants of @root not traced yet
 * @ents: room for @cap entries
 *
 * The tasks list is walked under RCU, and each process's ancestry through
 * real_parent (the child lists need tasklist_lock, which modules cannot
 * take). Return: how many there are; at most @cap of them are in @ents,
 * with a reference each, parents before children.
 */
static u32 st_collect_tree(struct st_session *s, struct task_struct *root,
			   struct st_tree_ent *ents, u32 cap)
{
	struct task_struct *p, *a, *up;
	u32 n = 0, found = 0, depth;

	rcu_read_lock();
	for_each_process(p) {
		/* Not the caller itself (systracectl in a traced shell). */
		if (same_thread_group(p, root) || same_thread_group(p, current) ||
		    (READ_ONCE(p->flags) & PF_KTHREAD))
			continue;
		depth = 0;
		for (a = p; !same_thread_group(a, root); a = up) {
			up = rcu_dereference(a->real_parent);
			if (up == a)	/* the idle task: no ancestor left */
				break;
			depth++;
		}
		if (!same_thread_group(a, root) || !st_has_live_thread(p) ||
		    st_traced_proc(s, p))
			continue;
		if (n < cap) {
			get_task_struct(p);
			ents[n].task = p;
			ents[n].depth = depth;
			n++;
		}
		found++;
	}
	rcu_read_unlock();
	sort(ents, n, sizeof(*ents), st_tree_ent_cmp, NULL);
	return found;
}

/* Processes given a row by this attach: never a second one. */
struct st_tried {
	struct task_struct **tasks;	/* a reference each */
	u32 n, cap;
};

static bool st_tried_has(const struct st_tried *tr, struct task_struct *task)
{
	u32 i;

	for (i = 0; i < tr->n; i++)
		if (tr->tasks[i] == task)
			return true;
	return false;
}

static bool st_tried_add(struct st_tried *tr, struct task_struct *task)
{
	struct task_struct **grown;

	if (tr->n == tr->cap) {
		grown = kvmalloc_array(tr->cap * 2 + 8, sizeof(*grown), GFP_KERNEL);
		if (!grown)
			return false;
		if (tr->n)
			memcpy(grown, tr->tasks, tr->n * sizeof(*grown));
		kvfree(tr->tasks);
		tr->tasks = grown;
		tr->cap = tr->cap * 2 + 8;
	}
	get_task_struct(task);
	tr->tasks[tr->n++] = task;
	return true;
}

static void st_tried_free(struct st_tried *tr)
{
	while (tr->n)
		put_task_struct(tr->tasks[--tr->n]);
	kvfree(tr->tasks);
}

/*
 * st_attach_one() - attach the descendant @task unless it is gone, traced,
 * unreadable or had its row already
 *
 * Return: false when it should have been attached and was not (another
 * session traces it, the caller may not read it, a limit): a loss.
 */
static bool st_attach_one(struct st_session *s, struct task_struct *task,
			  struct st_tried *tr, struct st_attach_count *c)
{
	struct task_struct *up;
	struct st_proc *pp;
	u64 parent_id;
	bool live, ours;
	pid_t ppid;

	rcu_read_lock();
	live = st_has_live_thread(task);
	ours = st_traced_proc(s, task);
	up = rcu_dereference(task->real_parent);
	pp = st_traced_proc(s, up);
	parent_id = pp ? pp->id : 0;
	ppid = task_tgid_nr_ns(up, s->pidns);
	rcu_read_unlock();
	/* Exiting, or followed by the fork probe since the walk: no loss. */
	if (!live || ours || st_tried_has(tr, task))
		return true;
	if (st_task_traced(task) || !st_task_may_read(task))
		return false;
	if (!st_tried_add(tr, task) ||
	    !st_attach_proc(s, task, parent_id, ppid, c))
		return false;
	return true;
}

/*
 * st_attach_tree() - attach the living descendants of @root
 *
 * Once a process is attached, the fork probe follows what it creates. A
 * process found but not attached yet may fork meanwhile, so the walk runs
 * again while a round attaches something or finds more than it had room
 * for (at most ST_TREE_ROUNDS). The processes the last round could not
 * attach count in dropped_procs, once.
 *
 * Return: 0, or -ENOMEM when the list of descendants cannot be allocated.
 */
#define ST_TREE_ROUNDS	8
static int st_attach_tree(struct st_session *s, struct task_struct *root,
			  struct st_attach_count *c)
{
	struct st_tried tr = {};
	struct st_tree_ent *ents;
	u32 cap = 64, found, n, i, round, lost;
	int before, ret = 0;

	for (round = 0; round < ST_TREE_ROUNDS; round++) {
		ents = kvmalloc_array(cap, sizeof(*ents), GFP_KERNEL);
		if (!ents) {
			ret = -ENOMEM;
			break;
		}
		found = st_collect_tree(s, root, ents, cap);
		n = min(found, cap);
		before = c->attached;
		lost = found - n;
		for (i = 0; i < n; i++) {
			if (!st_attach_one(s, ents[i].task, &tr, c))
				lost++;
			put_task_struct(ents[i].task);
		}
		kvfree(ents);
		if ((c->attached == before && found <= cap) ||
		    round == ST_TREE_ROUNDS - 1) {
			c->failed += lost;
			break;
		}
		/* Room for all of them the next time, within the limit. */
		if (found > cap)
			cap = min_t(u32, found + found / 4 + 1, max(st_max_procs, 64U));
		cond_resched();
	}
	st_tried_free(&tr);
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
	struct st_attach_count c = {};
	int ret;

	if (s->flags & SYSTRACE_SESSION_F_ON_EXEC) {
		st_attach_threads(s, NULL, task, &c);
	} else {
		pid_t ppid;

		rcu_read_lock();
		ppid = task_tgid_nr_ns(rcu_dereference(task->real_parent),
				       s->pidns);
		rcu_read_unlock();
		if (!st_attach_proc(s, task, 0, ppid, &c))
			c.failed++;
		if (!c.attached && !c.failed) {
			NL_SET_ERR_MSG_MOD(extack, "every thread of the process is exiting");
			return -ESRCH;
		}
		if (c.attached && (s->flags & SYSTRACE_SESSION_F_TREE)) {
			ret = st_attach_tree(s, task, &c);
			if (ret) {
				NL_SET_ERR_MSG_MOD(extack, "cannot allocate the list of descendants");
				return ret;
			}
		}
	}
	if (c.failed)
		atomic64_add(c.failed, &s->stats[ST_DROPPED_PROCS]);
	if (!c.attached) {
		if (c.failed) {
			NL_SET_ERR_MSG_MOD(extack, "cannot attach to the root process");
			return -ENOMEM;
		}
		NL_SET_ERR_MSG_MOD(extack, "every thread of the process is exiting");
		return -ESRCH;
	}
	return 0;
}
