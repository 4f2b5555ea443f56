// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "systrace": the only code in the module that
 * knows genl. Every op needs what perf needs to observe any task
 * (CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace); deleting,
 * detaching or draining a session is its owner's (or CAP_SYS_ADMIN's).
 * Each op has its own strict policy, and explains every rejection in
 * extack. Tables are returned by resumable dumps whose cursor is a row
 * pointer, valid because rows live as long as the session reference the
 * dump holds.
 */
#include <linux/pid.h>
#include <linux/threads.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <net/sock.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <net/genetlink.h>
#include "core.h"
#include "replies.h"
#include "compat.h"
#include "paths.h"

static struct genl_family st_family;

static const struct nla_policy st_session_id_policy[SYSTRACE_A_MAX + 1] = {
	[SYSTRACE_A_SESSION_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static struct netlink_range_validation st_pid_range = {
	.min = 1,
	.max = PID_MAX_LIMIT,
};

static struct netlink_range_validation st_log_range = {
	.min = SYSTRACE_LOG_BUFFER_MIN,
	.max = SYSTRACE_LOG_BUFFER_MAX,
};

static const struct nla_policy st_session_new_policy[SYSTRACE_A_MAX + 1] = {
	[SYSTRACE_A_PID] = NLA_POLICY_FULL_RANGE(NLA_U32, &st_pid_range),
	[SYSTRACE_A_NAME] = { .type = NLA_NUL_STRING,
			      .len = SYSTRACE_NAME_MAX - 1 },
	[SYSTRACE_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, SYSTRACE_SESSION_F_ALL),
	[SYSTRACE_A_COUNTERS] = NLA_POLICY_MAX(NLA_U32, SYSTRACE_COUNTERS_MAX),
	[SYSTRACE_A_LOG_BUFFER] = NLA_POLICY_FULL_RANGE(NLA_U32, &st_log_range),
	[SYSTRACE_A_PATHS] = NLA_POLICY_MAX(NLA_U32, SYSTRACE_PATHS_MAX),
};

/* Dump state, kept in cb->ctx between the messages of one dump. */
struct st_dump_ctx {
	struct st_session *s;
	union {
		struct {
			/* last row emitted, or the rows' owner */
			struct st_proc *proc;
			void *row;		/* last row emitted of ->proc */
		};
		struct {
			u64 budget;		/* events the dump may return */
			int cpu;		/* the ring it goes on from */
		} log;
	};
	const char *err_msg;		/* bad request, for the first dumpit */
	int err;
	u32 session_id;			/* session list: last id emitted */
	bool started;
};

static struct st_dump_ctx *st_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct st_dump_ctx) > sizeof(cb->ctx));
	return (struct st_dump_ctx *)cb->ctx;
}

/* A row with a PATH_MAX path, a whole argv, the rest and the headers. */
#define ST_DUMP_MIN_ALLOC	(PATH_MAX + SYSTRACE_ARGV_MAX + 1024)

#define ST_EPERM_MSG "permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace"

/*
 * The caller may observe any task, as perf with the same capabilities
 * may: both the task that sends the request and the one that opened the
 * socket hold CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace.
 * CAP_NET_ADMIN alone (a container's) is not enough.
 */
static bool st_nl_capable(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_PERFMON) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}

#define ST_EOWNER_MSG "permission denied: the session is another user's; only its owner, or CAP_SYS_ADMIN, may delete, detach or drain it"

/*
 * May the caller delete, detach or drain @s? Its owner may (both the
 * sender and the socket's opener have its euid), and CAP_SYS_ADMIN in the
 * initial user namespace may. CAP_PERFMON alone only observes.
 */
static bool st_nl_owns(const struct sk_buff *skb, const struct st_session *s)
{
	const struct sock *sk = NETLINK_CB(skb).sk;
	const struct file *f = sk && sk->sk_socket ? sk->sk_socket->file : NULL;

	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return true;
	return f && uid_eq(f->f_cred->euid, s->owner) &&
	       uid_eq(current_euid(), s->owner);
}

static int st_nl_check_perm(struct sk_buff *skb, struct genl_info *info)
{
	if (st_nl_capable(skb))
		return 0;
	NL_SET_ERR_MSG_MOD(info->extack, ST_EPERM_MSG);
	return -EPERM;
}

static int st_nl_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = st_nl_check_perm(skb, info);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &st_family, 0, SYSTRACE_CMD_STATUS);
	if (!hdr ||
	    nla_put_string(msg, SYSTRACE_A_VERSION, SYSTRACE_VERSION) ||
	    nla_put_u32(msg, SYSTRACE_A_ABI_VERSION, SYSTRACE_ABI_VERSION) ||
	    st_nl_put_params(msg) ||
	    nla_put_u32(msg, SYSTRACE_A_SESSIONS_LIVE, st_sessions_live()) ||
	    st_put_u64(msg, SYSTRACE_A_MEM_BYTES, st_mem_total(),
		       SYSTRACE_A_PAD) ||
	    nla_put_u8(msg, SYSTRACE_A_PROBES_ACTIVE, st_hooks_active())) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int st_nl_reply_session(struct genl_info *info, struct st_session *s,
			       u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &st_family, 0, cmd);
	ret = hdr ? st_nl_put_session(msg, s) : -EMSGSIZE;
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int st_nl_session_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	u32 flags = 0, counters = SYSTRACE_COUNTERS_NONE, log_bytes = 0;
	u32 paths = SYSTRACE_PATHS_ERRORS;
	const char *name = NULL;
	struct st_session *s;
	int ret, bad;

	ret = st_nl_check_perm(skb, info);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, SYSTRACE_A_PID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing the root pid");
		return -EINVAL;
	}
	if (attrs[SYSTRACE_A_NAME]) {
		name = nla_data(attrs[SYSTRACE_A_NAME]);
		if (!name[0]) {
			NL_SET_ERR_MSG_MOD(info->extack, "the session name is empty: give a name, or none");
			NL_SET_BAD_ATTR(info->extack, attrs[SYSTRACE_A_NAME]);
			return -EINVAL;
		}
	}
	if (attrs[SYSTRACE_A_FLAGS])
		flags = nla_get_u32(attrs[SYSTRACE_A_FLAGS]);
	if (attrs[SYSTRACE_A_COUNTERS])
		counters = nla_get_u32(attrs[SYSTRACE_A_COUNTERS]);
	if (attrs[SYSTRACE_A_LOG_BUFFER])
		log_bytes = nla_get_u32(attrs[SYSTRACE_A_LOG_BUFFER]);
	if (attrs[SYSTRACE_A_PATHS])
		paths = nla_get_u32(attrs[SYSTRACE_A_PATHS]);

	ret = st_session_new(nla_get_u32(attrs[SYSTRACE_A_PID]), name, flags,
			     counters, log_bytes, paths, &s, &bad,
			     info->extack);
	if (ret) {
		/* Only an attribute the rejection is about. */
		if (bad && attrs[bad])
			NL_SET_BAD_ATTR(info->extack, attrs[bad]);
		return ret;
	}
	ret = st_nl_reply_session(info, s, SYSTRACE_CMD_SESSION_NEW);
	st_session_put(s);
	return ret;
}

static int st_nl_session_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	int (*op)(u32 id, struct netlink_ext_ack *extack);
	struct st_session *s;
	bool owns;
	u32 id;
	int ret;

	ret = st_nl_check_perm(skb, info);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, SYSTRACE_A_SESSION_ID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing session id");
		return -EINVAL;
	}
	id = nla_get_u32(info->attrs[SYSTRACE_A_SESSION_ID]);
	/* An id names one session for good, and its owner never changes. */
	s = st_session_get(id);
	if (s) {
		owns = st_nl_owns(skb, s);
		st_session_put(s);
		if (!owns) {
			NL_SET_ERR_MSG_MOD(info->extack, ST_EOWNER_MSG);
			NL_SET_BAD_ATTR(info->extack,
					info->attrs[SYSTRACE_A_SESSION_ID]);
			return -EPERM;
		}
	}
	/* DETACH takes the same request as DEL. */
	op = info->genlhdr->cmd == SYSTRACE_CMD_SESSION_DETACH ?
	     st_session_detach : st_session_del;
	ret = op(id, info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack,
				info->attrs[SYSTRACE_A_SESSION_ID]);
	return ret;
}

static int st_nl_session_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct st_session *s;
	int ret;

	ret = st_nl_check_perm(skb, info);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, SYSTRACE_A_SESSION_ID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing session id");
		return -EINVAL;
	}
	s = st_session_get(nla_get_u32(info->attrs[SYSTRACE_A_SESSION_ID]));
	if (!s) {
		NL_SET_ERR_MSG_MOD(info->extack, "no session with that id");
		NL_SET_BAD_ATTR(info->extack,
				info->attrs[SYSTRACE_A_SESSION_ID]);
		return -ENOENT;
	}
	ret = st_nl_reply_session(info, s, SYSTRACE_CMD_SESSION_GET);
	st_session_put(s);
	return ret;
}

static void *st_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb,
			 u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, &st_family, NLM_F_MULTI, cmd);
}

/*
 * A bad request is reported by the first dumpit call rather than by
 * ->start: 6.1 gives ->start no extack, while dumpit's error reaches the
 * caller with its message in NLMSG_DONE on every kernel under test. The
 * privilege is checked here, in the context of the request.
 */
static int st_nl_dump_start(struct netlink_callback *cb)
{
	struct st_dump_ctx *ctx = st_ctx(cb);

	/*
	 * Every message can hold the largest row, one with a path of
	 * PATH_MAX: a message sized by a small reader's buffer would fail the
	 * dump on that row. The reader then needs a buffer of 16 KiB, or to
	 * peek at each message's length (libnl does).
	 */
	cb->min_dump_alloc = ST_DUMP_MIN_ALLOC;
	if (!st_nl_capable(cb->skb)) {
		ctx->err = -EPERM;
		ctx->err_msg = KBUILD_MODNAME ": " ST_EPERM_MSG;
	}
	return 0;
}

static int st_nl_table_error(struct netlink_callback *cb)
{
	struct st_dump_ctx *ctx = st_ctx(cb);

	/* NL_SET_ERR_MSG() takes only literals on 6.1. */
	if (cb->extack)
		cb->extack->_msg = ctx->err_msg;
	return ctx->err;
}

/*
 * Sessions, one message each, in id order (they are listed in the order
 * made), resumed after the last id. Not under st_mutex: a list never waits
 * for an attach. Each session is filled holding a reference of its own,
 * out of RCU, since its totals walk its rows (up to max_procs); the next
 * is found again by id, so a session deleted meanwhile is simply not
 * there.
 */
static int st_nl_session_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct st_dump_ctx *ctx = st_ctx(cb);
	struct st_session *s;
	void *hdr;
	int n = 0, ret;

	if (ctx->err)
		return st_nl_table_error(cb);
	while ((s = st_session_get_next(ctx->session_id))) {
		hdr = st_dump_hdr(skb, cb, SYSTRACE_CMD_SESSION_GET);
		ret = hdr ? st_nl_put_session(skb, s) : -EMSGSIZE;
		if (ret) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			st_session_put(s);
			if (ret == -EINTR)
				return ret;
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->session_id = s->id;
		st_session_put(s);
		n++;
	}
	return n ? skb->len : 0;
}

static int st_nl_table_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = st_dump_attrs(cb);
	struct st_dump_ctx *ctx = st_ctx(cb);

	st_nl_dump_start(cb);
	if (ctx->err)
		return 0;
	if (!attrs[SYSTRACE_A_SESSION_ID]) {
		ctx->err = -EINVAL;
		ctx->err_msg = KBUILD_MODNAME ": missing session id";
		return 0;
	}
	ctx->s = st_session_get(nla_get_u32(attrs[SYSTRACE_A_SESSION_ID]));
	if (!ctx->s) {
		ctx->err = -ENOENT;
		ctx->err_msg = KBUILD_MODNAME ": no session with that id";
		return 0;
	}
	/* Reading the log takes its events: the owner's to do. */
	if (((struct genlmsghdr *)nlmsg_data(cb->nlh))->cmd ==
	    SYSTRACE_CMD_LOG_READ && !st_nl_owns(cb->skb, ctx->s)) {
		st_session_put(ctx->s);
		ctx->s = NULL;
		ctx->err = -EPERM;
		ctx->err_msg = KBUILD_MODNAME ": " ST_EOWNER_MSG;
	}
	return 0;
}

static int st_nl_table_done(struct netlink_callback *cb)
{
	struct st_dump_ctx *ctx = st_ctx(cb);

	if (ctx->s)
		st_session_put(ctx->s);
	ctx->s = NULL;
	return 0;
}

static struct st_proc *st_first_proc(struct st_session *s)
{
	return st_next(s->procs);
}

static struct st_proc *st_next_proc(struct st_proc *p)
{
	return st_next(p->next);
}

/*
 * Open a dump message: the session id, then rows. A change of the
 * session's row generation between two messages sets NLM_F_DUMP_INTR.
 */
static void *st_table_msg(struct sk_buff *skb, struct netlink_callback *cb,
			  u8 cmd)
{
	struct st_session *s = st_ctx(cb)->s;
	void *hdr;

	cb->seq = ((u32)atomic_read(&s->gen) << 1) | 1;
	hdr = st_dump_hdr(skb, cb, cmd);
	if (!hdr)
		return NULL;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, SYSTRACE_A_SESSION_ID, s->id)) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

static int st_table_end(struct sk_buff *skb, void *hdr, int rows, bool more)
{
	if (!rows) {
		genlmsg_cancel(skb, hdr);
		/* A row that does not fit an empty message never will. */
		return more ? -EMSGSIZE : 0;
	}
	genlmsg_end(skb, hdr);
	return skb->len;
}

static int st_nl_proc_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct st_dump_ctx *ctx = st_ctx(cb);
	struct st_proc *p;
	int rows = 0;
	void *hdr;

	if (ctx->err)
		return st_nl_table_error(cb);
	cond_resched();
	hdr = st_table_msg(skb, cb, SYSTRACE_CMD_PROC_GET);
	if (!hdr)
		return -EMSGSIZE;
	rcu_read_lock();
	p = ctx->proc ? st_next_proc(ctx->proc) : st_first_proc(ctx->s);
	for (; p; p = st_next_proc(p)) {
		if (st_nl_put_proc(skb, p))
			break;
		ctx->proc = p;
		rows++;
	}
	rcu_read_unlock();
	return st_table_end(skb, hdr, rows, p);
}

/*
 * A table of rows per process image (sites, paths): the images in order,
 * each image's rows in order, resumed after the last row sent.
 */
struct st_rows_kind {
	u8 cmd;
	void *(*first)(struct st_proc *p);
	void *(*next)(void *row);
	int (*put)(struct sk_buff *skb, struct st_proc *p, void *row);
};

static int st_nl_rows_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct st_rows_kind *k)
{
	struct st_dump_ctx *ctx = st_ctx(cb);
	struct st_proc *p;
	void *row = NULL;
	int rows = 0;
	void *hdr;

	if (ctx->err)
		return st_nl_table_error(cb);
	cond_resched();
	hdr = st_table_msg(skb, cb, k->cmd);
	if (!hdr)
		return -EMSGSIZE;
	rcu_read_lock();
	if (!ctx->started) {
		ctx->proc = st_first_proc(ctx->s);
		ctx->started = true;
	}
	for (p = ctx->proc; p; p = st_next_proc(p)) {
		ctx->proc = p;
		row = ctx->row ? k->next(ctx->row) : k->first(p);
		for (; row; row = k->next(row)) {
			if (k->put(skb, p, row))
				goto full;
			ctx->row = row;
			rows++;
		}
		ctx->row = NULL;
	}
	/* Every row sent: the next call finds nothing and ends the dump. */
	ctx->proc = NULL;
full:
	rcu_read_unlock();
	return st_table_end(skb, hdr, rows, row);
}

static void *st_site_first(struct st_proc *p)
{
	return st_next(p->sites);
}

static void *st_site_next(void *row)
{
	return st_next(((struct st_site *)row)->next);
}

static int st_site_put(struct sk_buff *skb, struct st_proc *p, void *row)
{
	return st_nl_put_site(skb, p, row);
}

static const struct st_rows_kind st_site_rows = {
	.cmd = SYSTRACE_CMD_SITE_GET,
	.first = st_site_first,
	.next = st_site_next,
	.put = st_site_put,
};

static int st_nl_site_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return st_nl_rows_dumpit(skb, cb, &st_site_rows);
}

static void *st_path_first(struct st_proc *p)
{
	return st_next(p->paths);
}

static void *st_path_next(void *row)
{
	return st_next(((struct st_path *)row)->next);
}

static int st_path_put(struct sk_buff *skb, struct st_proc *p, void *row)
{
	return st_nl_put_path(skb, p, row);
}

static const struct st_rows_kind st_path_rows = {
	.cmd = SYSTRACE_CMD_PATH_GET,
	.first = st_path_first,
	.next = st_path_next,
	.put = st_path_put,
};

static int st_nl_path_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return st_nl_rows_dumpit(skb, cb, &st_path_rows);
}

/*
 * The log's events, taken out of its buffers: no NLM_F_DUMP_INTR, since
 * each event is returned once whatever the rows do meanwhile.
 */
static int st_nl_log_read_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct st_dump_ctx *ctx = st_ctx(cb);
	void *hdr;
	int n;

	if (ctx->err)
		return st_nl_table_error(cb);
	cond_resched();
	hdr = st_dump_hdr(skb, cb, SYSTRACE_CMD_LOG_READ);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SYSTRACE_A_SESSION_ID, ctx->s->id)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	n = st_log_read(ctx->s, skb, &ctx->log.cpu, &ctx->log.budget,
			!ctx->started);
	if (n == -ENOENT && !ctx->started) {
		genlmsg_cancel(skb, hdr);
		ctx->err = -ENOENT;
		ctx->err_msg = KBUILD_MODNAME ": the session keeps no log (start it with a log buffer)";
		return st_nl_table_error(cb);
	}
	ctx->started = true;
	if (n <= 0) {
		genlmsg_cancel(skb, hdr);
		return 0;
	}
	genlmsg_end(skb, hdr);
	return skb->len;
}

static const struct genl_ops st_nl_ops[] = {
	{
		.cmd = SYSTRACE_CMD_STATUS,
		.doit = st_nl_status_doit,
	},
	{
		.cmd = SYSTRACE_CMD_SESSION_NEW,
		.policy = st_session_new_policy,
		.maxattr = SYSTRACE_A_MAX,
		.doit = st_nl_session_new_doit,
	},
	{
		.cmd = SYSTRACE_CMD_SESSION_DEL,
		.policy = st_session_id_policy,
		.maxattr = SYSTRACE_A_MAX,
		.doit = st_nl_session_del_doit,
	},
	{
		.cmd = SYSTRACE_CMD_SESSION_DETACH,
		.policy = st_session_id_policy,
		.maxattr = SYSTRACE_A_MAX,
		.doit = st_nl_session_del_doit,
	},
	{
		.cmd = SYSTRACE_CMD_SESSION_GET,
		.policy = st_session_id_policy,
		.maxattr = SYSTRACE_A_MAX,
		.doit = st_nl_session_get_doit,
		.start = st_nl_dump_start,
		.dumpit = st_nl_session_get_dumpit,
	},
	{
		.cmd = SYSTRACE_CMD_PROC_GET,
		.policy = st_session_id_policy,
		.maxattr = SYSTRACE_A_MAX,
		.start = st_nl_table_start,
		.dumpit = st_nl_proc_get_dumpit,
		.done = st_nl_table_done,
	},
	{
		.cmd = SYSTRACE_CMD_SITE_GET,
		.policy = st_session_id_policy,
		.maxattr = SYSTRACE_A_MAX,
		.start = st_nl_table_start,
		.dumpit = st_nl_site_get_dumpit,
		.done = st_nl_table_done,
	},
	{
		.cmd = SYSTRACE_CMD_LOG_READ,
		.policy = st_session_id_policy,
		.maxattr = SYSTRACE_A_MAX,
		.start = st_nl_table_start,
		.dumpit = st_nl_log_read_dumpit,
		.done = st_nl_table_done,
	},
	{
		.cmd = SYSTRACE_CMD_PATH_GET,
		.policy = st_session_id_policy,
		.maxattr = SYSTRACE_A_MAX,
		.start = st_nl_table_start,
		.dumpit = st_nl_path_get_dumpit,
		.done = st_nl_table_done,
	},
};

static struct genl_family st_family __ro_after_init = {
	.name = SYSTRACE_GENL_NAME,
	.version = SYSTRACE_GENL_VERSION,
	.maxattr = SYSTRACE_A_MAX,
	.module = THIS_MODULE,
	.netnsok = true,
	/*
	 * Ops serialize on st_mutex or session references, not genl_mutex.
	 * genl still holds cb_lock (read) around every request, on 6.1 as on
	 * 6.12, and a family (un)registration waits for it (write) while every
	 * later genl message of the machine waits behind that: no op may wait
	 * on a traced program (attach.c).
	 */
	.parallel_ops = true,
	.ops = st_nl_ops,
	.n_ops = ARRAY_SIZE(st_nl_ops),
	.resv_start_op = 0,
};

/**
 * st_netlink_init() - register the family; userspace can reach us after it
 *
 * Return: 0 or -errno.
 */
int st_netlink_init(void)
{
	return genl_register_family(&st_family);
}

/**
 * st_netlink_exit() - unregister the family; no request runs after it
 */
void st_netlink_exit(void)
{
	genl_unregister_family(&st_family);
}
