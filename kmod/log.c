// SPDX-License-Identifier: GPL-2.0
/*
 * The temporal log: every counted syscall of a session, in per-CPU rings
 * that the probes fill and LOG_READ drains.
 *
 * Each CPU's ring has one writer at a time, the task running on that CPU
 * with preemption off (a probe, or st_session_kill() completing a call in
 * flight), and one reader at a time (log->read_lock). The writer owns
 * head, the reader tail; each publishes its index with a release store
 * and reads the other's with an acquire load, so a record is read only
 * after it is written and rewritten only after it is read. A writer that
 * finds its ring full counts the event in its CPU's dropped count (summed
 * into dropped_events) and goes on: the traced program never waits for the
 * reader, and the rows count the call all the same. Head and tail sit on
 * their own cache lines, so the reader does not slow the writer down beyond
 * the records it copies. The one line writers of several CPUs share is the
 * image's seq counter (st_proc.log_seq), and only among threads of one
 * image.
 *
 * A read is destructive and at most once: the events copied into a dump
 * message leave the ring, and a reader that dies before reading the message
 * loses them (they are not counted as dropped).
 */
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/log2.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>
#include "core.h"

struct st_log_rec {
	u64 ts_ns, dur_ns, proc_id, seq, addr;
	s64 ret;
	u32 tgid, tid, nr;
	u32 abi;
};

struct st_log_cpu {
	u64 head ____cacheline_aligned;	/* the writer's */
	u64 dropped;			/* the writer's: ring full */
	u64 tail ____cacheline_aligned;	/* the reader's */
	struct st_log_rec *recs ____cacheline_aligned;
};

struct st_log {
	struct st_log_cpu __percpu *cpu;
	u32 nrecs;			/* per CPU, a power of 2 */
	u32 bytes;			/* per CPU, as asked */
	size_t charged;			/* to the session, in all */
	struct mutex read_lock;
};

/**
 * st_log_new() - allocate a session's log
 * @s: the session, not yet visible to any probe
 * @bytes: buffer per CPU, SYSTRACE_LOG_BUFFER_MIN..MAX
 * @extack: where a refusal is explained
 *
 * Rounds the record count down to a power of 2. The buffers of every
 * possible CPU are charged to the session.
 *
 * Return: 0 or -errno.
 */
int st_log_new(struct st_session *s, u32 bytes, struct netlink_ext_ack *extack)
{
	struct st_log *log;
	size_t per_cpu;
	int cpu;

	u32 nrecs;

	if (bytes < SYSTRACE_LOG_BUFFER_MIN || bytes > SYSTRACE_LOG_BUFFER_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "log buffer out of range (4 KiB to 256 MiB per CPU)");
		return -ERANGE;
	}
	nrecs = rounddown_pow_of_two(bytes / sizeof(struct st_log_rec));
	per_cpu = (size_t)nrecs * sizeof(struct st_log_rec);
	/*
	 * At most half of the session's max_mem, so the rows keep room, and
	 * checked before charging: a refused charge would still count,
	 * for a moment, against every other session's max_mem_total.
	 */
	if (array_size(per_cpu, num_possible_cpus()) > st_max_mem / 2 ||
	    array_size(per_cpu, num_possible_cpus()) >
	    st_max_mem_total - min_t(u64, st_mem_total(), st_max_mem_total)) {
		NL_SET_ERR_MSG_MOD(extack, "log buffer times CPUs over half of max_mem, or over what max_mem_total has left");
		return -ENOMEM;
	}
	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log)
		goto nomem;
	mutex_init(&log->read_lock);
	log->bytes = bytes;
	log->nrecs = nrecs;
	log->charged = per_cpu * num_possible_cpus();
	if (!st_charge(s, log->charged)) {
		mutex_destroy(&log->read_lock);
		kfree(log);
		NL_SET_ERR_MSG_MOD(extack, "log buffer over the memory limit (max_mem or max_mem_total)");
		return -ENOMEM;
	}
	log->cpu = alloc_percpu(struct st_log_cpu);
	if (!log->cpu)
		goto nomem_log;
	for_each_possible_cpu(cpu) {
		struct st_log_cpu *c = per_cpu_ptr(log->cpu, cpu);

		c->recs = kvmalloc_node(per_cpu, GFP_KERNEL_ACCOUNT | __GFP_NOWARN,
					cpu_to_node(cpu));
		if (!c->recs)
			goto nomem_log;
	}
	s->log = log;
	return 0;

nomem_log:
	s->log = log;
	st_log_free(s);
nomem:
	NL_SET_ERR_MSG_MOD(extack, "cannot allocate the log buffer");
	return -ENOMEM;
}

/**
 * st_log_free() - free a session's log, if it has one
 * @s: a session no probe can reach any more
 */
void st_log_free(struct st_session *s)
{
	struct st_log *log = s->log;
	int cpu;

	if (!log)
		return;
	if (log->cpu) {
		for_each_possible_cpu(cpu)
			kvfree(per_cpu_ptr(log->cpu, cpu)->recs);
		free_percpu(log->cpu);
	}
	st_uncharge(s, log->charged);
	mutex_destroy(&log->read_lock);
	kfree(log);
	s->log = NULL;
}

/**
 * st_log_bytes() - a session's log buffer per CPU
 * @s: the session
 *
 * Return: bytes, as asked at SESSION_NEW; 0 when it keeps no log.
 */
u32 st_log_bytes(struct st_session *s)
{
	return s->log ? s->log->bytes : 0;
}

/**
 * st_log_dropped() - events the session's log could not hold
 * @s: the session
 *
 * Return: the sum over the CPUs' rings, read without stopping the writers.
 */
u64 st_log_dropped(struct st_session *s)
{
	u64 n = 0;
	int cpu;

	if (!s->log)
		return 0;
	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(s->log->cpu, cpu)->dropped);
	return n;
}

/**
 * st_log_syscall() - log the call the current thread just completed
 * @t: the thread's record
 * @site: the call's site
 * @ret: its return value
 * @dur: its duration
 *
 * Called by st_tsite_account() when the session has a log. Never sleeps.
 */
void st_log_syscall(struct st_thread *t, struct st_site *site, long ret,
		    u64 dur)
{
	struct st_log *log = t->s->log;
	struct st_log_cpu *c;
	struct st_log_rec *r;
	u64 head, seq;

	/* The image's order holds whether the event fits or not. */
	seq = atomic64_inc_return(&t->proc->log_seq) - 1;
	c = get_cpu_ptr(log->cpu);
	head = c->head;
	/* Pairs with the reader's release: the slot was read before reuse. */
	if (head - smp_load_acquire(&c->tail) >= log->nrecs) {
		WRITE_ONCE(c->dropped, c->dropped + 1);
		put_cpu_ptr(log->cpu);
		return;
	}
	r = &c->recs[head & (log->nrecs - 1)];
	r->ts_ns = t->cur.start_ns;	/* CLOCK_MONOTONIC: st_tclock() */
	r->dur_ns = dur;
	r->proc_id = t->proc->id;
	r->seq = seq;
	r->addr = site->addr;
	r->ret = ret;
	r->tgid = t->proc->tgid;
	r->tid = t->tid;
	r->nr = site->nr;
	r->abi = site->abi;
	/* The record is written before the reader can see it. */
	smp_store_release(&c->head, head + 1);
	put_cpu_ptr(log->cpu);
}

static int st_log_put(struct sk_buff *skb, const struct st_log_rec *r)
{
	const int pad = SYSTRACE_EVENT_A_PAD;
	struct nlattr *nest;

	nest = nla_nest_start(skb, SYSTRACE_A_EVENT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, SYSTRACE_EVENT_A_TS_NS, r->ts_ns, pad) ||
	    nla_put_u64_64bit(skb, SYSTRACE_EVENT_A_DUR_NS, r->dur_ns, pad) ||
	    nla_put_u64_64bit(skb, SYSTRACE_EVENT_A_PROC_ID, r->proc_id, pad) ||
	    nla_put_u64_64bit(skb, SYSTRACE_EVENT_A_SEQ, r->seq, pad) ||
	    nla_put_u64_64bit(skb, SYSTRACE_EVENT_A_ADDR, r->addr, pad) ||
	    nla_put_u64_64bit(skb, SYSTRACE_EVENT_A_RET, (u64)r->ret, pad) ||
	    nla_put_u32(skb, SYSTRACE_EVENT_A_PID, r->tgid) ||
	    nla_put_u32(skb, SYSTRACE_EVENT_A_TID, r->tid) ||
	    nla_put_u32(skb, SYSTRACE_EVENT_A_NR, r->nr) ||
	    nla_put_u32(skb, SYSTRACE_EVENT_A_ABI, r->abi)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * st_log_read() - move buffered events into a dump message
 * @s: the session
 * @skb: the message
 * @cpu: in: the CPU to go on from; out: where this call stopped
 * @budget: in/out: events this dump may still return
 * @first: the dump's first call: set @budget to the events buffered now
 *
 * Return: the events put (0: the dump is over), or -ENOENT when the
 * session has no log.
 */
int st_log_read(struct st_session *s, struct sk_buff *skb, int *cpu,
		u64 *budget, bool first)
{
	struct st_log *log = s->log;
	int n = 0, c;

	if (!log)
		return -ENOENT;
	mutex_lock(&log->read_lock);
	if (first) {
		*budget = 0;
		for_each_possible_cpu(c) {
			struct st_log_cpu *lc = per_cpu_ptr(log->cpu, c);

			/* Pairs with the writer's release of head. */
			*budget += smp_load_acquire(&lc->head) - lc->tail;
		}
	}
	for (c = *cpu; c < nr_cpu_ids && *budget; c++) {
		struct st_log_cpu *lc;
		u64 head, tail;

		if (!cpu_possible(c))
			continue;
		lc = per_cpu_ptr(log->cpu, c);
		/* Pairs with the writer's release: records up to head are written. */
		head = smp_load_acquire(&lc->head);
		for (tail = lc->tail; tail != head && *budget; tail++) {
			if (st_log_put(skb, &lc->recs[tail & (log->nrecs - 1)]))
				break;
			n++;
			(*budget)--;
		}
		if (tail != lc->tail) {
			/* The records are read before the slots go back. */
			smp_store_release(&lc->tail, tail);
		}
		if (tail != head && *budget)
			break;		/* the message is full */
	}
	*cpu = c;
	mutex_unlock(&log->read_lock);
	return n;
}
