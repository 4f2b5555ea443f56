// SPDX-License-Identifier: GPL-2.0
/*
 * Replies: a session, a process row and a site row as netlink attributes,
 * in the order and with the types the UAPI header documents. netlink.c
 * puts them in its replies and dumps; nothing here knows genl.
 */
#include <linux/sched/signal.h>
#include <net/netlink.h>
#include "core.h"
#include "replies.h"
#include "paths.h"

/**
 * st_nl_put_params() - the module parameters, as a SYSTRACE_A_PARAMS nest
 * @skb: the message
 *
 * Return: 0, or -EMSGSIZE when they do not fit.
 */
int st_nl_put_params(struct sk_buff *skb)
{
	struct nlattr *nest = nla_nest_start(skb, SYSTRACE_A_PARAMS);

	if (!nest ||
	    nla_put_u32(skb, SYSTRACE_PARAM_MAX_SESSIONS, st_max_sessions) ||
	    nla_put_u32(skb, SYSTRACE_PARAM_MAX_PROCS, st_max_procs) ||
	    nla_put_u32(skb, SYSTRACE_PARAM_MAX_SITES, st_max_sites) ||
	    st_put_u64(skb, SYSTRACE_PARAM_MAX_MEM_BYTES, st_max_mem,
		       SYSTRACE_PARAM_PAD) ||
	    st_put_u64(skb, SYSTRACE_PARAM_MAX_MEM_TOTAL_BYTES,
		       READ_ONCE(st_max_mem_total), SYSTRACE_PARAM_PAD) ||
	    nla_put_u8(skb, SYSTRACE_PARAM_FORCE_LATE_RESOLVE,
		       st_testing_late_resolve()))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Session totals are sums over its process rows, taken now. The rows live
 * as long as the caller's reference: RCU is held for one row's live
 * threads at a time, and the walk may sleep between rows (up to max_procs),
 * where a fatal signal ends it: -EINTR.
 */
static int st_session_totals(struct st_session *s, struct st_proc_snap *tot)
{
	struct st_proc_snap snap;
	struct st_proc *p;

	memset(tot, 0, sizeof(*tot));
	for (p = st_next(s->procs); p;
	     p = st_next(p->next)) {
		rcu_read_lock();
		st_proc_snapshot(p, &snap);
		rcu_read_unlock();
		st_proc_counts_add(&tot->c, &snap.c);
		tot->counter_value += snap.counter_value;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/**
 * st_nl_put_session() - a session, as a SYSTRACE_A_SESSION nest
 * @skb: the message
 * @s: the session, held by a reference of the caller's
 *
 * May sleep.
 *
 * Return: 0, -EMSGSIZE when it does not fit (nothing of it is left), or
 * -EINTR when a fatal signal came first.
 */
int st_nl_put_session(struct sk_buff *skb, struct st_session *s)
{
	static const int stat_attr[ST_NSTATS] = {
#define ST_STAT_ATTR(name, key, kind) SYSTRACE_SESSION_A_##name,
		SYSTRACE_SESSION_STATS(ST_STAT_ATTR)
#undef ST_STAT_ATTR
	};
	const int pad = SYSTRACE_SESSION_A_PAD;
	struct st_proc_snap tot;
	struct nlattr *nest;
	int i;

	if (st_session_totals(s, &tot))
		return -EINTR;
	nest = nla_nest_start(skb, SYSTRACE_A_SESSION);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SYSTRACE_SESSION_A_ID, s->id) ||
	    nla_put_string(skb, SYSTRACE_SESSION_A_NAME, s->name) ||
	    nla_put_u32(skb, SYSTRACE_SESSION_A_ROOT_PID, s->root_pid) ||
	    nla_put_u32(skb, SYSTRACE_SESSION_A_STATE, st_session_state(s)) ||
	    nla_put_u32(skb, SYSTRACE_SESSION_A_FLAGS, s->flags) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_CREATED_NS, s->created_ns, pad) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_REALTIME_BASE_NS,
		       s->realtime_base_ns, pad) ||
	    nla_put_u32(skb, SYSTRACE_SESSION_A_COUNTERS, s->counters) ||
	    (s->counters_error &&
	     nla_put_string(skb, SYSTRACE_SESSION_A_COUNTERS_ERROR,
			    s->counters_error)) ||
	    nla_put_u32(skb, SYSTRACE_SESSION_A_LIVE_TASKS,
			atomic_read(&s->live_tasks)) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_PROCS, READ_ONCE(s->nprocs), pad) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_SITES,
		       atomic64_read(&s->nsites), pad) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_SYSCALLS,
		       tot.c.v[ST_PROC_SYSCALLS], pad) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_ERRORS,
		       tot.c.v[ST_PROC_ERRORS], pad) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_SYSCALL_NS,
		       tot.c.v[ST_PROC_SYSCALL_NS], pad) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_MEM_BYTES,
		       atomic64_read(&s->mem), pad) ||
	    nla_put_u32(skb, SYSTRACE_SESSION_A_PROC_ROW_BYTES,
			st_proc_row_bytes()) ||
	    nla_put_u32(skb, SYSTRACE_SESSION_A_SITE_ROW_BYTES,
			st_site_row_bytes()) ||
	    (s->log && nla_put_u32(skb, SYSTRACE_SESSION_A_LOG_BUFFER,
				   st_log_bytes(s))) ||
	    st_paths_put_session(skb, s) ||
	    (s->counters != SYSTRACE_COUNTERS_NONE && !s->counters_error &&
	     st_put_u64(skb, SYSTRACE_SESSION_A_COUNTER_VALUE,
			tot.counter_value, pad)))
		goto err;
	for (i = 0; i < ST_NSTATS; i++)
		if (st_put_u64(skb, stat_attr[i], atomic64_read(&s->stats[i]) +
			       (i == ST_DROPPED_EVENTS ? st_log_dropped(s) : 0),
			       pad))
			goto err;
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int st_put_u64s(struct sk_buff *skb, const int *attr, const u64 *v,
		       int n, int pad)
{
	int i;

	for (i = 0; i < n; i++)
		if (st_put_u64(skb, attr[i], v[i], pad))
			return -EMSGSIZE;
	return 0;
}

/* A process row's syscall counters, in SYSTRACE_PROC_COUNTERS' order. */
static int st_put_proc_counts(struct sk_buff *skb,
			      const struct st_proc_counts *c, int pad)
{
	static const int attr[ST_NPROC_COUNTS] = {
#define ST_PROC_ATTR(name, field) SYSTRACE_PROC_A_##name,
		SYSTRACE_PROC_COUNTERS(ST_PROC_ATTR)
#undef ST_PROC_ATTR
	};

	return st_put_u64s(skb, attr, c->v, ST_NPROC_COUNTS, pad);
}

/* A site row's counters, in SYSTRACE_SITE_COUNTERS' order. */
static int st_put_site_counts(struct sk_buff *skb,
			      const struct st_site_counts *c, int pad)
{
	static const int attr[ST_NSITE_COUNTS] = {
#define ST_SITE_ATTR(name, field, merge) SYSTRACE_SITE_A_##name,
		SYSTRACE_SITE_COUNTERS(ST_SITE_ATTR)
#undef ST_SITE_ATTR
	};

	return st_put_u64s(skb, attr, c->v, ST_NSITE_COUNTS, pad);
}

/*
 * A site row's errnos: a SYSTRACE_SITE_A_ERRNO nest per slot in use, and
 * SYSTRACE_SITE_A_ERRNO_OTHER, the errors no slot holds, in every row (the
 * module counts errnos). A snapshot's slots never add up to more than its
 * errors (st_site_counts_add()).
 */
static int st_put_errnos(struct sk_buff *skb, const struct st_site_counts *c,
			 int pad)
{
	const struct st_errnos *e = &c->e;
	u64 errors = c->v[ST_SITE_ERRORS], sum = 0;
	struct nlattr *nest;
	int i;

	for (i = 0; i < SYSTRACE_SITE_ERRNOS; i++) {
		if (!e->nr[i] || !e->count[i])
			continue;
		nest = nla_nest_start(skb, SYSTRACE_SITE_A_ERRNO);
		if (!nest ||
		    nla_put_u32(skb, SYSTRACE_ERRNO_A_ERRNO, e->nr[i]) ||
		    st_put_u64(skb, SYSTRACE_ERRNO_A_COUNT, e->count[i],
			       SYSTRACE_ERRNO_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
		sum += e->count[i];
	}
	return st_put_u64(skb, SYSTRACE_SITE_A_ERRNO_OTHER,
			  errors > sum ? errors - sum : 0, pad);
}

/* A process row's task accounting, in SYSTRACE_PROC_ACCT's order. */
static int st_put_acct(struct sk_buff *skb, const struct st_acct *a, int pad)
{
	static const int attr[ST_NACCT] = {
#define ST_ACCT_ATTR(name, field, column) SYSTRACE_PROC_A_##name,
		SYSTRACE_PROC_ACCT(ST_ACCT_ATTR)
#undef ST_ACCT_ATTR
	};

	return st_put_u64s(skb, attr, a->v, ST_NACCT, pad);
}

/* An image's argv, when known: its bytes, and whether they were cut. */
static int st_put_argv(struct sk_buff *skb, const struct st_argv *a)
{
	if (!a)
		return 0;
	if (nla_put(skb, SYSTRACE_PROC_A_ARGV, a->len, a->data) ||
	    (a->truncated && nla_put_u8(skb, SYSTRACE_PROC_A_ARGV_TRUNCATED, 1)))
		return -EMSGSIZE;
	return 0;
}

/**
 * st_nl_put_proc() - a process row, as a SYSTRACE_A_PROC nest
 * @skb: the message
 * @p: the row, under RCU or a session reference
 *
 * Return: 0, or -EMSGSIZE when it does not fit (nothing of it is left).
 */
int st_nl_put_proc(struct sk_buff *skb, struct st_proc *p)
{
	const int pad = SYSTRACE_PROC_A_PAD;
	struct st_proc_snap snap;
	u32 end, code, nsites;
	struct nlattr *nest;
	u64 end_ns;

	st_proc_snapshot(p, &snap);
	spin_lock(&p->lock);
	end = p->end;
	end_ns = p->end_ns;
	code = p->exit_code;
	nsites = p->nsites;
	spin_unlock(&p->lock);

	nest = nla_nest_start(skb, SYSTRACE_A_PROC);
	if (!nest)
		return -EMSGSIZE;
	if (st_put_u64(skb, SYSTRACE_PROC_A_ID, p->id, pad) ||
	    st_put_u64(skb, SYSTRACE_PROC_A_PARENT_ID, p->parent_id, pad) ||
	    st_put_u64(skb, SYSTRACE_PROC_A_PREV_ID, p->prev_id, pad) ||
	    nla_put_u32(skb, SYSTRACE_PROC_A_PID, p->pid) ||
	    nla_put_u32(skb, SYSTRACE_PROC_A_TGID, p->tgid) ||
	    nla_put_u32(skb, SYSTRACE_PROC_A_PPID, p->ppid) ||
	    nla_put_string(skb, SYSTRACE_PROC_A_COMM, p->comm) ||
	    (p->exe && nla_put_string(skb, SYSTRACE_PROC_A_EXE, p->exe->path)) ||
	    st_put_u64(skb, SYSTRACE_PROC_A_START_NS, p->start_ns, pad) ||
	    (end != SYSTRACE_END_RUNNING &&
	     st_put_u64(skb, SYSTRACE_PROC_A_END_NS, end_ns, pad)) ||
	    nla_put_u32(skb, SYSTRACE_PROC_A_END, end) ||
	    (end == SYSTRACE_END_EXITED &&
	     nla_put_u32(skb, SYSTRACE_PROC_A_EXIT_CODE, (code >> 8) & 0xff)) ||
	    (end == SYSTRACE_END_SIGNALED &&
	     (nla_put_u32(skb, SYSTRACE_PROC_A_EXIT_SIGNAL, code & 0x7f) ||
	      nla_put_u8(skb, SYSTRACE_PROC_A_CORE_DUMPED, !!(code & 0x80)))) ||
	    nla_put_u32(skb, SYSTRACE_PROC_A_THREADS, READ_ONCE(p->threads)) ||
	    (p->attached && nla_put_u8(skb, SYSTRACE_PROC_A_ATTACHED, 1)) ||
	    st_put_argv(skb, READ_ONCE(p->argv)) ||
	    st_put_proc_counts(skb, &snap.c, pad) ||
	    nla_put_u32(skb, SYSTRACE_PROC_A_SITES, nsites) ||
	    st_put_acct(skb, &snap.acct, pad) ||
	    (p->s->counters != SYSTRACE_COUNTERS_NONE && !p->s->counters_error &&
	     !READ_ONCE(p->counter_lost) &&
	     (st_put_u64(skb, SYSTRACE_PROC_A_COUNTER_VALUE, snap.counter_value,
			 pad) ||
	      nla_put_u32(skb, SYSTRACE_PROC_A_COUNTER_TASKS,
			  snap.counter_tasks)))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * st_nl_put_site() - a site row, as a SYSTRACE_A_SITE nest
 * @skb: the message
 * @p: the site's process row
 * @site: the row, under RCU
 *
 * Return: 0, or -EMSGSIZE when it does not fit (nothing of it is left).
 */
int st_nl_put_site(struct sk_buff *skb, struct st_proc *p,
		   struct st_site *site)
{
	const int pad = SYSTRACE_SITE_A_PAD;
	struct st_site_counts snap;
	struct nlattr *nest;
	/* A late resolve stores map last (release): read it first. */
	u8 map = smp_load_acquire(&site->map);
	struct st_obj *o = map == SYSTRACE_MAP_FILE ? READ_ONCE(site->obj) : NULL;
	u64 offset = map == SYSTRACE_MAP_UNKNOWN ? site->addr :
		     READ_ONCE(site->offset);

	st_site_snapshot(p, site, &snap);
	nest = nla_nest_start(skb, SYSTRACE_A_SITE);
	if (!nest)
		return -EMSGSIZE;
	if (st_put_u64(skb, SYSTRACE_SITE_A_PROC_ID, p->id, pad) ||
	    st_put_u64(skb, SYSTRACE_SITE_A_ADDR, site->addr, pad) ||
	    nla_put_u32(skb, SYSTRACE_SITE_A_NR, site->nr) ||
	    nla_put_u32(skb, SYSTRACE_SITE_A_ABI, site->abi) ||
	    nla_put_u32(skb, SYSTRACE_SITE_A_MAP, map) ||
	    st_put_u64(skb, SYSTRACE_SITE_A_OFFSET, offset, pad) ||
	    (o && (nla_put_string(skb, SYSTRACE_SITE_A_PATH, o->path) ||
		   st_put_u64(skb, SYSTRACE_SITE_A_INODE, o->ino, pad) ||
		   nla_put_u32(skb, SYSTRACE_SITE_A_DEV, o->dev) ||
		   st_put_u64(skb, SYSTRACE_SITE_A_MTIME_NS, o->mtime_ns, pad))) ||
	    st_put_site_counts(skb, &snap, pad) ||
	    st_put_errnos(skb, &snap, pad) ||
	    st_put_u64(skb, SYSTRACE_SITE_A_FIRST_NS, site->first_ns, pad) ||
	    st_put_u64(skb, SYSTRACE_SITE_A_FIRST_ORDINAL, site->first_ord,
		       pad)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}
