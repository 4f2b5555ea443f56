// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: a traced process tree, its rows, its limits and its drops.
 * Sessions are created and deleted under st_mutex; probes reach a session
 * only through the task table, so deletion unhashes every thread, waits a
 * grace period, and only then retires the threads and frees the rows.
 */
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/coredump.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/timekeeping.h>
#include <linux/sort.h>
#include <linux/mm.h>
#include <net/netlink.h>
#include "systrace.h"
#include "hot.h"

DEFINE_MUTEX(st_mutex);
LIST_HEAD(st_sessions);
static u32 st_next_session_id;

static void st_session_release(struct kref *ref)
{
	struct st_session *s = container_of(ref, struct st_session, ref);

	st_free_session_rows(s);
	st_log_free(s);
	WARN_ON_ONCE(atomic64_read(&s->mem) != 0);
	put_pid_ns(s->pidns);
	kfree(s);
}

/**
 * st_session_put() - drop a reference taken by st_session_get()
 * @s: session
 *
 * Must be called from process context: the last put frees the rows.
 */
void st_session_put(struct st_session *s)
{
	kref_put(&s->ref, st_session_release);
}

/**
 * st_session_get() - find a session and take a reference
 * @id: session id
 *
 * Return: the session, or NULL when no session has that id.
 */
struct st_session *st_session_get(u32 id)
{
	struct st_session *s, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &st_sessions, node) {
		if (s->id == id && kref_get_unless_zero(&s->ref)) {
			found = s;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * st_session_state() - enum systrace_session_state of @s
 * @s: session
 *
 * Return: the state.
 */
u32 st_session_state(struct st_session *s)
{
	if (READ_ONCE(s->detached))
		return SYSTRACE_STATE_DETACHED;
	if (!atomic_read(&s->live_tasks))
		return SYSTRACE_STATE_FINISHED;
	return READ_ONCE(s->procs) ? SYSTRACE_STATE_RUNNING :
				     SYSTRACE_STATE_WAITING;
}

/**
 * st_sessions_live() - how many sessions still have a traced task
 *
 * Return: the count.
 */
u32 st_sessions_live(void)
{
	struct st_session *s;
	u32 n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &st_sessions, node)
		n += atomic_read(&s->live_tasks) > 0;
	rcu_read_unlock();
	return n;
}

/**
 * st_session_task_gone() - a traced task left the session
 * @s: session
 *
 * When it was the last one, the probes may no longer be needed.
 */
void st_session_task_gone(struct st_session *s)
{
	if (atomic_dec_and_test(&s->live_tasks))
		st_hooks_put_async();
}

static bool st_task_traced(struct task_struct *task)
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

/*
 * May current read @task as ptrace_may_access(PTRACE_MODE_READ_REALCREDS)
 * decides? The same rules, except the LSM hook, which the kernel does not
 * export to modules: same thread group; or the caller's real uid and gid
 * are all of the task's, or it holds CAP_SYS_PTRACE over the task's user
 * namespace; and a task that is not dumpable (a setuid image) needs
 * CAP_SYS_PTRACE over its mm's user namespace (over the initial one when
 * it has no mm left, such as a leader that left by SYS_exit).
 */
static bool st_may_read(struct task_struct *task)
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
	if (st_task_traced(task) || !st_may_read(task))
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

static int st_attach_root(struct st_session *s, struct task_struct *task,
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

static struct st_session *st_session_alloc(const char *name, u32 flags,
					   u32 counters)
{
	struct st_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	kref_init(&s->ref);
	spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->threads);
	if (name)
		strscpy(s->name, name, sizeof(s->name));
	s->flags = flags;
	s->counters = counters;
	s->seed = get_random_u32();
	if (st_objs_init(s)) {
		kfree(s);
		return NULL;
	}
	s->pidns = get_pid_ns(task_active_pid_ns(current));
	s->created_ns = ktime_get_ns();
	s->realtime_base_ns = ktime_get_real_ns() - s->created_ns;
	return s;
}

/**
 * st_session_new() - start tracing the tree rooted at @pid
 * @pid: root, in the caller's pid namespace
 * @name: optional session name
 * @flags: SYSTRACE_SESSION_F_*
 * @counters: enum systrace_counters
 * @log_bytes: the temporal log's buffer per CPU; 0: no log
 * @out: the new session, with a reference for the caller
 * @extack: where a rejection is explained
 *
 * Return: 0 or -errno.
 */
int st_session_new(pid_t pid, const char *name, u32 flags, u32 counters,
		   u32 log_bytes, struct st_session **out,
		   struct netlink_ext_ack *extack)
{
	struct task_struct *task;
	struct st_session *s, *it;
	struct pid *spid;
	u32 n = 0;
	int ret;

	if ((flags & SYSTRACE_SESSION_F_TREE) &&
	    (flags & (SYSTRACE_SESSION_F_ON_EXEC | SYSTRACE_SESSION_F_THREADS_ONLY))) {
		NL_SET_ERR_MSG_MOD(extack, "the tree flag goes with neither on-exec nor threads-only");
		return -EINVAL;
	}
	spid = find_get_pid(pid);
	task = spid ? get_pid_task(spid, PIDTYPE_PID) : NULL;
	put_pid(spid);
	if (!task) {
		NL_SET_ERR_MSG_MOD(extack, "no process with that pid");
		return -ESRCH;
	}
	if (task->flags & PF_KTHREAD) {
		NL_SET_ERR_MSG_MOD(extack, "the process is a kernel thread");
		ret = -EINVAL;
		goto out_task;
	}
	if (!st_may_read(task)) {
		NL_SET_ERR_MSG_MOD(extack, "permission denied: no ptrace read access to that process");
		ret = -EPERM;
		goto out_task;
	}

	s = st_session_alloc(name, flags, counters);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate a session");
		ret = -ENOMEM;
		goto out_task;
	}
	s->counters_error = st_counters_probe(counters);
	if (log_bytes) {
		ret = st_log_new(s, log_bytes, extack);
		if (ret)
			goto out_free;
	}

	mutex_lock(&st_mutex);
	list_for_each_entry(it, &st_sessions, node)
		n++;
	if (n >= st_max_sessions) {
		NL_SET_ERR_MSG_MOD(extack, "too many sessions: reset one, or raise max_sessions");
		ret = -ENOSPC;
		goto out_unlock;
	}
	if (st_task_traced(task)) {
		NL_SET_ERR_MSG_MOD(extack, "the process is already traced by a session");
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = st_hooks_get();
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack, "cannot register the tracepoint probes");
		goto out_unlock;
	}
	s->id = ++st_next_session_id;
	s->root_pid = task_tgid_nr_ns(task, s->pidns);
	ret = st_attach_root(s, task, extack);
	if (ret) {
		st_hooks_put_async();
		goto out_unlock;
	}
	list_add_tail_rcu(&s->node, &st_sessions);
	kref_get(&s->ref);
	*out = s;
	s = NULL;
	ret = 0;
out_unlock:
	mutex_unlock(&st_mutex);
	if (s)
		st_session_kill(s);
out_free:
	if (s)
		st_session_put(s);
out_task:
	put_task_struct(task);
	return ret;
}

/**
 * st_session_kill() - stop tracing a session's tasks
 * @s: a session no longer reachable through st_sessions, or a session
 *	being detached (which the caller holds a reference to)
 *
 * Takes every thread out of the task table, waits for running probes,
 * then retires the threads. Rows of images still running end as
 * SYSTRACE_END_DETACHED. Must be called from process context.
 */
void st_session_kill(struct st_session *s)
{
	struct st_thread *t, *tn;
	struct st_proc *p;
	LIST_HEAD(owned);

	spin_lock(&s->lock);
	s->dead = true;
	spin_unlock(&s->lock);
	st_threads_take(s, &owned);
	synchronize_rcu();
	list_for_each_entry_safe(t, tn, &owned, snode) {
		list_del_init(&t->snode);
		/*
		 * A call in flight (a read that blocks) counts, with its time
		 * up to now and no error: its exit will not be seen. No probe
		 * holds the record after the grace period.
		 */
		if (t->proc && t->cur.ts)
			st_tsite_account(t, 0, st_tclock(t));
		st_thread_detach(t, false);
	}
	for (p = s->procs; p; p = p->next)
		st_proc_end(p, SYSTRACE_END_DETACHED, 0);
	/* Let running probes that saw a thread finish with the rows. */
	synchronize_rcu();
}

/**
 * st_session_del() - delete a session and free its memory
 * @id: session id
 * @extack: where a rejection is explained
 *
 * Return: 0 or -errno.
 */
int st_session_del(u32 id, struct netlink_ext_ack *extack)
{
	struct st_session *s, *found = NULL;

	mutex_lock(&st_mutex);
	list_for_each_entry(s, &st_sessions, node) {
		if (s->id == id) {
			found = s;
			list_del_rcu(&s->node);
			break;
		}
	}
	mutex_unlock(&st_mutex);
	if (!found) {
		NL_SET_ERR_MSG_MOD(extack, "no session with that id");
		return -ENOENT;
	}
	synchronize_rcu();
	st_session_kill(found);
	st_session_put(found);
	return 0;
}

/**
 * st_session_detach() - stop following a session's tasks, keep its rows
 * @id: session id
 * @extack: where a rejection is explained
 *
 * Return: 0 or -errno.
 */
int st_session_detach(u32 id, struct netlink_ext_ack *extack)
{
	struct st_session *s;
	bool dead, detached;

	s = st_session_get(id);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "no session with that id");
		return -ENOENT;
	}
	/* One decision per session: the first detach, or a delete, wins. */
	spin_lock(&s->lock);
	dead = s->dead;
	detached = s->detached;
	if (!dead) {
		s->dead = true;
		WRITE_ONCE(s->detached, true);
	}
	spin_unlock(&s->lock);
	/* A concurrent delete may kill it too: each thread is taken once. */
	if (!dead)
		st_session_kill(s);
	st_session_put(s);
	if (detached) {
		NL_SET_ERR_MSG_MOD(extack, "the session is already detached");
		return -EALREADY;
	}
	if (dead) {
		NL_SET_ERR_MSG_MOD(extack, "no session with that id (being deleted)");
		return -ENOENT;
	}
	return 0;
}

/**
 * st_session_del_all() - delete every session (module unload)
 */
void st_session_del_all(void)
{
	struct st_session *s;

	while (true) {
		mutex_lock(&st_mutex);
		s = list_first_entry_or_null(&st_sessions, struct st_session,
					     node);
		if (s)
			list_del_rcu(&s->node);
		mutex_unlock(&st_mutex);
		if (!s)
			break;
		synchronize_rcu();
		st_session_kill(s);
		st_session_put(s);
	}
}
