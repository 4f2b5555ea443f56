// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred work: what a probe cannot do itself (sleep for the mmap lock,
 * create or read a perf counter) it queues as a work item that runs later,
 * by task_work in a task or from a workqueue. A queued item holds a module
 * reference (its function is module text) and a session reference (it
 * touches the session's rows), and its memory is charged to the session.
 * This file owns that life: alloc, queue, cancel, done.
 */
#include <linux/module.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include "systrace.h"
#include "tables.h"

/**
 * st_defer_alloc() - a work item of @size bytes, which begins with a
 *	struct st_defer, charged to @s, with a module reference
 * @s: session
 * @size: bytes of the caller's structure
 *
 * Return: the zeroed item, or NULL when memory or the module reference
 * was refused; the caller counts the loss.
 */
void *st_defer_alloc(struct st_session *s, size_t size)
{
	struct st_defer *d;

	d = st_alloc(s, size, GFP_NOWAIT);
	if (!d)
		return NULL;
	if (!try_module_get(THIS_MODULE)) {
		st_free(s, d, size);
		return NULL;
	}
	d->s = s;
	d->size = size;
	return d;
}

/**
 * st_defer_task() - run @fn in @task, on its way back to user mode (or in
 *	exit_task_work)
 * @d: an item of st_defer_alloc()
 * @task: the task; one that is past exit_task_work refuses
 * @fn: the callback; it ends with st_defer_done()
 *
 * The session reference is taken first: the task may run the work before
 * this returns. A probe's session outlives the probe's RCU section, so the
 * put on refusal is never the last.
 *
 * Return: true when queued; false leaves @d to the caller.
 */
bool st_defer_task(struct st_defer *d, struct task_struct *task,
		   task_work_func_t fn)
{
	kref_get(&d->s->ref);
	init_task_work(&d->cb, fn);
	if (!task_work_add(task, &d->cb, TWA_RESUME))
		return true;
	st_session_put(d->s);
	return false;
}

/**
 * st_defer_wq() - run @fn from @wq
 * @d: an item of st_defer_alloc()
 * @wq: the workqueue
 * @fn: the function; it ends with st_defer_done()
 */
void st_defer_wq(struct st_defer *d, struct workqueue_struct *wq,
		 work_func_t fn)
{
	kref_get(&d->s->ref);
	INIT_WORK(&d->work, fn);
	queue_work(wq, &d->work);
}

/**
 * st_defer_cancel() - give back an item that was never queued
 * @d: the item
 */
void st_defer_cancel(struct st_defer *d)
{
	st_free(d->s, d, d->size);
	module_put(THIS_MODULE);
}

/**
 * st_defer_done() - the work is over: free it, drop its references
 * @d: the item
 *
 * The last call of a work's function: past the module_put, only the
 * return into the caller's text remains, which module exit waits for
 * (synchronize_rcu_tasks).
 */
void st_defer_done(struct st_defer *d)
{
	struct st_session *s = d->s;

	st_free(s, d, d->size);
	st_session_put(s);
	module_put(THIS_MODULE);
}
