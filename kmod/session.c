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
#include <net/netlink.h>
#include "systrace.h"

DEFINE_MUTEX(st_mutex);
LIST_HEAD(st_sessions);
static u32 st_next_session_id;

static void st_session_release(struct kref *ref)
{
	struct st_session *s = container_of(ref, struct st_session, ref);

	st_free_session_rows(s);
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

static int st_attach_root(struct st_session *s, struct task_struct *task,
			  struct netlink_ext_ack *extack)
{
	struct st_thread *nt, *tn;
	struct st_proc *p = NULL;
	struct task_struct *t;
	int attached = 0, failed = 0;
	LIST_HEAD(gone);

	if (!(s->flags & SYSTRACE_SESSION_F_ON_EXEC)) {
		pid_t ppid;

		rcu_read_lock();
		ppid = task_tgid_nr_ns(rcu_dereference(task->real_parent),
				       s->pidns);
		rcu_read_unlock();
		p = st_proc_new(s, task, 0, ppid, 0, st_root_exe(s, task),
				GFP_KERNEL);
		if (!p) {
			NL_SET_ERR_MSG_MOD(extack, "cannot allocate the root's process row");
			return -ENOMEM;
		}
		st_proc_pin(p);
	}

	rcu_read_lock();
	for_each_thread(task, t) {
		/* Past its exit probe, or about to be: it would never leave. */
		if (READ_ONCE(t->flags) & PF_EXITING)
			continue;
		nt = st_thread_attach(s, p, t, GFP_ATOMIC, NULL);
		if (!nt) {
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
			list_add_tail(&nt->snode, &gone);
			continue;
		}
		attached++;
	}
	rcu_read_unlock();
	if (!list_empty(&gone)) {
		synchronize_rcu();
		list_for_each_entry_safe(nt, tn, &gone, snode) {
			list_del_init(&nt->snode);
			st_thread_detach(nt, false);
		}
	}
	if (failed)
		atomic64_add(failed, &s->stats[ST_DROPPED_PROCS]);
	/* Every attached thread may have left already: nobody ends it then. */
	if (p && st_proc_unpin(p))
		st_proc_end(p, SYSTRACE_END_DETACHED, 0);
	if (!attached) {
		if (failed) {
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
	int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	kref_init(&s->ref);
	spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->threads);
	for (i = 0; i < ARRAY_SIZE(s->objs); i++)
		INIT_HLIST_HEAD(&s->objs[i]);
	if (name)
		strscpy(s->name, name, sizeof(s->name));
	s->flags = flags;
	s->counters = counters;
	s->seed = get_random_u32();
	s->pidns = get_pid_ns(task_active_pid_ns(current));
	s->created_ns = ktime_get_ns();
	s->realtime_base_ns = ktime_get_real_ns() - s->created_ns;
	return s;
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

/**
 * st_session_new() - start tracing the tree rooted at @pid
 * @pid: root, in the caller's pid namespace
 * @name: optional session name
 * @flags: SYSTRACE_SESSION_F_*
 * @counters: enum systrace_counters
 * @out: the new session, with a reference for the caller
 * @extack: where a rejection is explained
 *
 * Return: 0 or -errno.
 */
int st_session_new(pid_t pid, const char *name, u32 flags, u32 counters,
		   struct st_session **out, struct netlink_ext_ack *extack)
{
	struct task_struct *task;
	struct st_session *s, *it;
	struct pid *spid;
	u32 n = 0;
	int ret;

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
	if (s) {
		st_session_kill(s);
		st_session_put(s);
	}
out_task:
	put_task_struct(task);
	return ret;
}

/**
 * st_session_kill() - stop tracing a session's tasks
 * @s: a session no longer reachable through st_sessions
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
