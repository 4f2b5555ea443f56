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
#include <linux/sched/task.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>
#include "core.h"
#include "paths.h"
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
 * st_session_get_next() - the first session after @id, with a reference
 * @id: a session id, 0 for the first
 *
 * Sessions are listed in id order (made under st_mutex, ids increasing).
 *
 * Return: the session with the lowest id above @id that is not being
 * freed, or NULL when none is.
 */
struct st_session *st_session_get_next(u32 id)
{
	struct st_session *s, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &st_sessions, node) {
		if (s->id > id && kref_get_unless_zero(&s->ref)) {
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
	if (READ_ONCE(s->end) == ST_DETACHED)
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
	s->owner = current_euid();
	/* Without it, an exec into an image it could not ptrace ends tracing. */
	s->owner_ptrace = ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
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

/*
 * May a new session be named @name? Not when a live session (running, or
 * waiting for its root's exec) has that name: a name picks one session.
 * Under st_mutex, which every new session is listed under.
 */
static int st_session_name_check(const char *name,
				 struct netlink_ext_ack *extack)
{
	struct st_session *it;
	u32 state;

	if (!name)
		return 0;
	list_for_each_entry(it, &st_sessions, node) {
		state = st_session_state(it);
		if ((state == SYSTRACE_STATE_RUNNING ||
		     state == SYSTRACE_STATE_WAITING) && !strcmp(it->name, name)) {
			NL_SET_ERR_MSG_MOD(extack, "a live session already has that name");
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * Everything a new session must pass under st_mutex before it attaches:
 * the session limit, its name, the root not traced yet.
 */
static int st_session_admit(struct task_struct *task, const char *name,
			    int *bad, struct netlink_ext_ack *extack)
{
	struct st_session *it;
	u32 n = 0;
	int ret;

	list_for_each_entry(it, &st_sessions, node)
		n++;
	if (n >= st_max_sessions) {
		NL_SET_ERR_MSG_MOD(extack, "too many sessions: reset one, or raise max_sessions");
		return -ENOSPC;
	}
	ret = st_session_name_check(name, extack);
	if (ret) {
		*bad = SYSTRACE_A_NAME;
		return ret;
	}
	if (st_task_traced(task)) {
		NL_SET_ERR_MSG_MOD(extack, "the process is already traced by a session");
		*bad = SYSTRACE_A_PID;
		return -EBUSY;
	}
	return 0;
}

/**
 * st_session_new() - start tracing the tree rooted at @pid
 * @pid: root, in the caller's pid namespace
 * @name: optional session name, not empty; unique among live sessions
 * @flags: SYSTRACE_SESSION_F_*
 * @counters: enum systrace_counters
 * @log_bytes: the temporal log's buffer per CPU; 0: no log
 * @paths: enum systrace_paths
 * @out: the new session, with a reference for the caller
 * @bad: receives the request's attribute a rejection is about
 *	(SYSTRACE_A_PID, _NAME, _FLAGS, _LOG_BUFFER), 0 when none is (a
 *	limit, no memory, a signal)
 * @extack: where a rejection is explained
 *
 * st_mutex is held from the checks to the listing, over the attach, which
 * waits on nothing a traced program controls (attach.c). The root's
 * exec_update_lock is held (read) from the ptrace check to the end of the
 * attach, as perf_event_open() holds it, so that no exec into an image
 * the caller may not read comes between them; it is taken before
 * st_mutex, killably, so that a root in the middle of an exec holds up
 * only its own caller.
 *
 * Return: 0 or -errno.
 */
int st_session_new(pid_t pid, const char *name, u32 flags, u32 counters,
		   u32 log_bytes, u32 paths, struct st_session **out, int *bad,
		   struct netlink_ext_ack *extack)
{
	struct task_struct *task;
	struct st_session *s;
	struct pid *spid;
	int ret;

	*bad = SYSTRACE_A_FLAGS;
	if ((flags & SYSTRACE_SESSION_F_TREE) &&
	    (flags & (SYSTRACE_SESSION_F_ON_EXEC | SYSTRACE_SESSION_F_THREADS_ONLY))) {
		NL_SET_ERR_MSG_MOD(extack, "the tree flag goes with neither on-exec nor threads-only");
		return -EINVAL;
	}
	*bad = SYSTRACE_A_PID;
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
	if (down_read_killable(&task->signal->exec_update_lock)) {
		NL_SET_ERR_MSG_MOD(extack, "interrupted by a signal");
		*bad = 0;
		ret = -EINTR;
		goto out_task;
	}
	if (!st_task_may_read(task)) {
		NL_SET_ERR_MSG_MOD(extack, "permission denied: no ptrace read access to that process");
		ret = -EPERM;
		goto out_exec;
	}

	*bad = 0;
	s = st_session_alloc(name, flags, counters);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate a session");
		ret = -ENOMEM;
		goto out_exec;
	}
	s->counters_error = st_counters_probe(counters);
	s->paths = paths;
	if (log_bytes) {
		ret = st_log_new(s, log_bytes, extack);
		if (ret) {
			*bad = SYSTRACE_A_LOG_BUFFER;
			goto out_free;
		}
	}

	if (mutex_lock_killable(&st_mutex)) {
		NL_SET_ERR_MSG_MOD(extack, "interrupted by a signal");
		ret = -EINTR;
		goto out_free;
	}
	ret = st_session_admit(task, name, bad, extack);
	if (ret)
		goto out_unlock;
	ret = st_hooks_get();
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack, "cannot register the tracepoint probes");
		goto out_unlock;
	}
	s->id = ++st_next_session_id;
	s->root_pid = task_tgid_nr_ns(task, s->pidns);
	ret = st_attach(s, task, extack);
	if (ret) {
		/* Every thread of the root is exiting. */
		if (ret == -ESRCH)
			*bad = SYSTRACE_A_PID;
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
out_exec:
	up_read(&task->signal->exec_update_lock);
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
	if (s->end == ST_OPEN)
		WRITE_ONCE(s->end, ST_KILLED);
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
		if (t->proc && t->cur.ts) {
			st_tsite_account(t, 0, st_tclock(t));
			st_path_lost(t);
		}
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

	if (mutex_lock_killable(&st_mutex)) {
		NL_SET_ERR_MSG_MOD(extack, "interrupted by a signal");
		return -EINTR;
	}
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
	enum st_session_end end;

	s = st_session_get(id);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "no session with that id");
		return -ENOENT;
	}
	/* One decision per session: the first detach, or a delete, wins. */
	spin_lock(&s->lock);
	end = s->end;
	if (end == ST_OPEN)
		WRITE_ONCE(s->end, ST_DETACHED);
	spin_unlock(&s->lock);
	/* A concurrent delete may kill it too: each thread is taken once. */
	if (end == ST_OPEN)
		st_session_kill(s);
	st_session_put(s);
	if (end == ST_DETACHED) {
		NL_SET_ERR_MSG_MOD(extack, "the session is already detached");
		return -EALREADY;
	}
	if (end == ST_KILLED) {
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
