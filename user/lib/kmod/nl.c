// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink client of the "systrace" family (libnl-genl-3). Replies
 * are validated with a policy per nest and decoded into model.h structs.
 *
 * One request at a time: send it, then read until its end (an ACK, an
 * error, or NLMSG_DONE for a dump), skipping anything whose sequence
 * number is not the request's. Errors carry the kernel's extack message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include "out/argv.h"
#include "log/log.h"
#include "log/recorder.h"
#include "kmod/nl.h"
#include "base/worker.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct st_nl {
	struct nl_sock *sk;
	int family;
};

struct rx;
typedef int (*parse_fn)(struct rx *rx, struct nlattr *attrs, int len);

/* The state of one request while its replies are read. */
struct rx {
	uint32_t seq;
	bool done;
	int kernel_err;		/* positive errno the kernel answered */
	char extack[200];
	int local_err;		/* decoding failed: positive errno */
	char why[160];
	bool interrupted;
	parse_fn parse;
	void *arg;
	struct decoder *dec;	/* decodes the replies' rows, or NULL */
};

/*
 * The replies' policies, one per nest, expanded from the uapi's lists of
 * its attributes: each attribute's type as libnl checks it. NEST is
 * NLA_UNSPEC, since libnl's NLA_NESTED would reject an empty nest; BINARY
 * is at most SYSTRACE_<NAME>_MAX bytes. The counters of the other lists
 * are u64s.
 */
#define ST_POL_U8(name)		{ .type = NLA_U8, .minlen = 1, .maxlen = 1 }
#define ST_POL_U32(name)	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define ST_POL_U64(name)	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define ST_POL_STRING(name)	{ .type = NLA_STRING }
#define ST_POL_NEST(name)	{ .type = NLA_UNSPEC }
#define ST_POL_BINARY(name)	\
	{ .type = NLA_UNSPEC, .maxlen = SYSTRACE_##name##_MAX }

/*
 * Every attribute but UNSPEC and PAD is in one of its nest's lists: the
 * count of their lines says none is missing, and -Woverride-init (in
 * -Wextra) that none is listed twice.
 */
#define ST_ONE(...) + 1
#define ST_POL_COVERS(max, lists) \
	_Static_assert(2 lists == max, "an attribute below " #max " in no list")

#define ST_ATTR_POL(name, type) [SYSTRACE_A_##name] = ST_POL_##type(name),
static struct nla_policy top_policy[SYSTRACE_A_MAX + 1] = {
	SYSTRACE_ATTRS(ST_ATTR_POL)
};
ST_POL_COVERS(__SYSTRACE_A_MAX, SYSTRACE_ATTRS(ST_ONE));

/* From st_params_desc, by param_policy_make(). */
static struct nla_policy param_policy[SYSTRACE_PARAM_MAX + 1];

#define ST_SESSION_POL(name, type) \
	[SYSTRACE_SESSION_A_##name] = ST_POL_##type(name),
#define ST_STAT_POL(name, key, kind) \
	[SYSTRACE_SESSION_A_##name] = ST_POL_U64(name),
static struct nla_policy session_policy[SYSTRACE_SESSION_A_MAX + 1] = {
	SYSTRACE_SESSION_ATTRS(ST_SESSION_POL)
	SYSTRACE_SESSION_STATS(ST_STAT_POL)
};
ST_POL_COVERS(__SYSTRACE_SESSION_A_MAX,
	      SYSTRACE_SESSION_ATTRS(ST_ONE) SYSTRACE_SESSION_STATS(ST_ONE));

#define ST_PROC_POL(name, type) [SYSTRACE_PROC_A_##name] = ST_POL_##type(name),
#define ST_PROC_COUNTER_POL(name, field) \
	[SYSTRACE_PROC_A_##name] = ST_POL_U64(name),
#define ST_ACCT_POL(name, field, column) \
	[SYSTRACE_PROC_A_##name] = ST_POL_U64(name),
static struct nla_policy proc_policy[SYSTRACE_PROC_A_MAX + 1] = {
	SYSTRACE_PROC_ATTRS(ST_PROC_POL)
	SYSTRACE_PROC_COUNTERS(ST_PROC_COUNTER_POL)
	SYSTRACE_PROC_ACCT(ST_ACCT_POL)
};
ST_POL_COVERS(__SYSTRACE_PROC_A_MAX, SYSTRACE_PROC_ATTRS(ST_ONE)
	      SYSTRACE_PROC_COUNTERS(ST_ONE) SYSTRACE_PROC_ACCT(ST_ONE));

#define ST_SITE_POL(name, type) [SYSTRACE_SITE_A_##name] = ST_POL_##type(name),
#define ST_SITE_COUNTER_POL(name, field, merge) \
	[SYSTRACE_SITE_A_##name] = ST_POL_U64(name),
static struct nla_policy site_policy[SYSTRACE_SITE_A_MAX + 1] = {
	SYSTRACE_SITE_ATTRS(ST_SITE_POL)
	SYSTRACE_SITE_COUNTERS(ST_SITE_COUNTER_POL)
};
ST_POL_COVERS(__SYSTRACE_SITE_A_MAX,
	      SYSTRACE_SITE_ATTRS(ST_ONE) SYSTRACE_SITE_COUNTERS(ST_ONE));

#define ST_ERRNO_POL(name, type) \
	[SYSTRACE_ERRNO_A_##name] = ST_POL_##type(name),
static struct nla_policy errno_policy[SYSTRACE_ERRNO_A_MAX + 1] = {
	SYSTRACE_ERRNO_ATTRS(ST_ERRNO_POL)
};
ST_POL_COVERS(__SYSTRACE_ERRNO_A_MAX, SYSTRACE_ERRNO_ATTRS(ST_ONE));

#define ST_EVENT_POL(name, type) \
	[SYSTRACE_EVENT_A_##name] = ST_POL_##type(name),
static struct nla_policy event_policy[SYSTRACE_EVENT_A_MAX + 1] = {
	SYSTRACE_EVENT_ATTRS(ST_EVENT_POL)
};
ST_POL_COVERS(__SYSTRACE_EVENT_A_MAX, SYSTRACE_EVENT_ATTRS(ST_ONE));

static int bad_reply(struct rx *rx, const char *why)
{
	if (!rx->local_err) {
		rx->local_err = EBADMSG;
		snprintf(rx->why, sizeof(rx->why), "%s", why);
	}
	return -EBADMSG;
}

static int no_memory(struct rx *rx)
{
	if (!rx->local_err) {
		rx->local_err = ENOMEM;
		snprintf(rx->why, sizeof(rx->why), "out of memory");
	}
	return -ENOMEM;
}

static uint64_t u64_or_0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t u32_or_0(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

static void copy_str(char *dst, size_t len, struct nlattr *a)
{
	snprintf(dst, len, "%s", a ? nla_get_string(a) : "");
}

/* Returns 0, or -ENOMEM; *dst stays NULL when the attribute is absent. */
static int dup_str(char **dst, struct nlattr *a)
{
	*dst = NULL;
	if (!a)
		return 0;
	*dst = strdup(nla_get_string(a));
	return *dst ? 0 : -ENOMEM;
}

static int parse_nest(struct rx *rx, struct nlattr **tb, int max,
		      struct nlattr *nest, struct nla_policy *policy,
		      const char *what)
{
	char why[96];

	if (nla_parse_nested(tb, max, nest, policy) < 0) {
		snprintf(why, sizeof(why), "%s: an attribute has the wrong type or length",
			 what);
		return bad_reply(rx, why);
	}
	return 0;
}

static int decode_session(struct rx *rx, struct nlattr *nest,
			  struct st_session_row *s)
{
	struct nlattr *tb[SYSTRACE_SESSION_A_MAX + 1];
	size_t i;
	int ret;

	ret = parse_nest(rx, tb, SYSTRACE_SESSION_A_MAX, nest, session_policy,
			 "session");
	if (ret)
		return ret;
	if (!tb[SYSTRACE_SESSION_A_ID])
		return bad_reply(rx, "session without SYSTRACE_SESSION_A_ID");

	memset(s, 0, sizeof(*s));
	s->id = nla_get_u32(tb[SYSTRACE_SESSION_A_ID]);
	copy_str(s->name, sizeof(s->name), tb[SYSTRACE_SESSION_A_NAME]);
	s->root_pid = u32_or_0(tb[SYSTRACE_SESSION_A_ROOT_PID]);
	s->state = u32_or_0(tb[SYSTRACE_SESSION_A_STATE]);
	s->flags = u32_or_0(tb[SYSTRACE_SESSION_A_FLAGS]);
	s->created_ns = u64_or_0(tb[SYSTRACE_SESSION_A_CREATED_NS]);
	s->realtime_base_ns = u64_or_0(tb[SYSTRACE_SESSION_A_REALTIME_BASE_NS]);
	s->counters = u32_or_0(tb[SYSTRACE_SESSION_A_COUNTERS]);
	s->has_counters_error = tb[SYSTRACE_SESSION_A_COUNTERS_ERROR];
	copy_str(s->counters_error, sizeof(s->counters_error),
		 tb[SYSTRACE_SESSION_A_COUNTERS_ERROR]);
	s->live_tasks = u32_or_0(tb[SYSTRACE_SESSION_A_LIVE_TASKS]);
	s->procs = u64_or_0(tb[SYSTRACE_SESSION_A_PROCS]);
	s->sites = u64_or_0(tb[SYSTRACE_SESSION_A_SITES]);
	s->syscalls = u64_or_0(tb[SYSTRACE_SESSION_A_SYSCALLS]);
	s->errors = u64_or_0(tb[SYSTRACE_SESSION_A_ERRORS]);
	s->syscall_ns = u64_or_0(tb[SYSTRACE_SESSION_A_SYSCALL_NS]);
	for (i = 0; i < st_session_nstats; i++)
		*st_stat_ptr(s, &st_session_stats[i]) =
			u64_or_0(tb[st_session_stats[i].attr]);
	s->mem_bytes = u64_or_0(tb[SYSTRACE_SESSION_A_MEM_BYTES]);
	s->proc_row_bytes = u32_or_0(tb[SYSTRACE_SESSION_A_PROC_ROW_BYTES]);
	s->site_row_bytes = u32_or_0(tb[SYSTRACE_SESSION_A_SITE_ROW_BYTES]);
	s->log_buffer = u32_or_0(tb[SYSTRACE_SESSION_A_LOG_BUFFER]);
	s->has_counter_value = tb[SYSTRACE_SESSION_A_COUNTER_VALUE];
	s->counter_value = u64_or_0(tb[SYSTRACE_SESSION_A_COUNTER_VALUE]);
	return 0;
}

/* argv: bytes as /proc/PID/cmdline gives them, absent when unknown. */
static int decode_argv(struct rx *rx, struct nlattr **tb, struct st_proc_row *p)
{
	struct nlattr *a = tb[SYSTRACE_PROC_A_ARGV];

	if (!a)
		return 0;
	if (nla_len(a) > SYSTRACE_ARGV_MAX)
		return bad_reply(rx, "SYSTRACE_PROC_A_ARGV longer than SYSTRACE_ARGV_MAX");
	p->argv_truncated = tb[SYSTRACE_PROC_A_ARGV_TRUNCATED] &&
			    nla_get_u8(tb[SYSTRACE_PROC_A_ARGV_TRUNCATED]);
	if (st_argv_copy(nla_data(a), (size_t)nla_len(a), &p->argv, &p->argv_len,
			 &p->argv_truncated))
		return no_memory(rx);
	return 0;
}

static int decode_proc(struct rx *rx, struct nlattr *nest, struct st_proc_row *p)
{
	struct nlattr *tb[SYSTRACE_PROC_A_MAX + 1];
	int ret;

	ret = parse_nest(rx, tb, SYSTRACE_PROC_A_MAX, nest, proc_policy, "process");
	if (ret)
		return ret;
	if (!tb[SYSTRACE_PROC_A_ID])
		return bad_reply(rx, "process without SYSTRACE_PROC_A_ID");

	memset(p, 0, sizeof(*p));
	p->id = nla_get_u64(tb[SYSTRACE_PROC_A_ID]);
	p->parent_id = u64_or_0(tb[SYSTRACE_PROC_A_PARENT_ID]);
	p->prev_id = u64_or_0(tb[SYSTRACE_PROC_A_PREV_ID]);
	p->pid = u32_or_0(tb[SYSTRACE_PROC_A_PID]);
	p->tgid = u32_or_0(tb[SYSTRACE_PROC_A_TGID]);
	p->ppid = u32_or_0(tb[SYSTRACE_PROC_A_PPID]);
	copy_str(p->comm, sizeof(p->comm), tb[SYSTRACE_PROC_A_COMM]);
	p->start_ns = u64_or_0(tb[SYSTRACE_PROC_A_START_NS]);
	p->has_end_ns = tb[SYSTRACE_PROC_A_END_NS];
	p->end_ns = u64_or_0(tb[SYSTRACE_PROC_A_END_NS]);
	p->end = u32_or_0(tb[SYSTRACE_PROC_A_END]);
	p->has_exit_code = tb[SYSTRACE_PROC_A_EXIT_CODE];
	p->exit_code = u32_or_0(tb[SYSTRACE_PROC_A_EXIT_CODE]);
	p->has_exit_signal = tb[SYSTRACE_PROC_A_EXIT_SIGNAL];
	p->exit_signal = u32_or_0(tb[SYSTRACE_PROC_A_EXIT_SIGNAL]);
	p->core_dumped = tb[SYSTRACE_PROC_A_CORE_DUMPED] &&
			 nla_get_u8(tb[SYSTRACE_PROC_A_CORE_DUMPED]);
	p->threads = u32_or_0(tb[SYSTRACE_PROC_A_THREADS]);
#define ST_PROC_DECODE(name, field) \
	p->field = u64_or_0(tb[SYSTRACE_PROC_A_##name]);
	SYSTRACE_PROC_COUNTERS(ST_PROC_DECODE)
#undef ST_PROC_DECODE
	p->sites = u32_or_0(tb[SYSTRACE_PROC_A_SITES]);
#define ST_ACCT_DECODE(name, field, column) \
	p->field = u64_or_0(tb[SYSTRACE_PROC_A_##name]);
	SYSTRACE_PROC_ACCT(ST_ACCT_DECODE)
#undef ST_ACCT_DECODE
	p->has_counter_value = tb[SYSTRACE_PROC_A_COUNTER_VALUE];
	p->counter_value = u64_or_0(tb[SYSTRACE_PROC_A_COUNTER_VALUE]);
	p->counter_tasks = u32_or_0(tb[SYSTRACE_PROC_A_COUNTER_TASKS]);
	p->attached = tb[SYSTRACE_PROC_A_ATTACHED] &&
		      nla_get_u8(tb[SYSTRACE_PROC_A_ATTACHED]);
	if (dup_str(&p->exe, tb[SYSTRACE_PROC_A_EXE]))
		return no_memory(rx);
	ret = decode_argv(rx, tb, p);
	if (ret) {
		free(p->exe);	/* the row is not counted: nothing frees it */
		p->exe = NULL;
	}
	return ret;
}

/*
 * The site's SYSTRACE_SITE_A_ERRNO nests (one per errno, so not in the
 * parsed table, which keeps one attribute of a type), and other.
 */
static int decode_errnos(struct rx *rx, struct nlattr *site, struct st_dump *d,
			 struct st_site_row *s, uint64_t other)
{
	struct nlattr *tb[SYSTRACE_ERRNO_A_MAX + 1], *a;
	struct st_errnos e = { .other = other };
	uint32_t err, i;
	int rem, ret;

	nla_for_each_nested(a, site, rem) {
		if (nla_type(a) != SYSTRACE_SITE_A_ERRNO)
			continue;
		ret = parse_nest(rx, tb, SYSTRACE_ERRNO_A_MAX, a, errno_policy, "site errno");
		if (ret)
			return ret;
		if (!tb[SYSTRACE_ERRNO_A_ERRNO] || !tb[SYSTRACE_ERRNO_A_COUNT])
			return bad_reply(rx, "site errno without ERRNO or COUNT");
		err = nla_get_u32(tb[SYSTRACE_ERRNO_A_ERRNO]);
		if (!err || err > 4095)
			return bad_reply(rx, "site errno out of 1..4095");
		for (i = 0; i < e.n; i++)
			if (e.v[i].err == err)
				return bad_reply(rx, "site errno listed twice");
		if (e.n == SYSTRACE_SITE_ERRNOS)
			return bad_reply(rx, "site with more errnos than SYSTRACE_SITE_ERRNOS");
		st_errnos_add(&e, err, nla_get_u64(tb[SYSTRACE_ERRNO_A_COUNT]));
	}
	if (st_dump_errnos(d, &e, &s->errnos))
		return no_memory(rx);
	return 0;
}

static int decode_site(struct rx *rx, struct nlattr *nest, struct st_dump *d,
		       struct st_site_row *s)
{
	struct nlattr *tb[SYSTRACE_SITE_A_MAX + 1];
	int ret;

	ret = parse_nest(rx, tb, SYSTRACE_SITE_A_MAX, nest, site_policy, "site");
	if (ret)
		return ret;
	if (!tb[SYSTRACE_SITE_A_PROC_ID] || !tb[SYSTRACE_SITE_A_ADDR] ||
	    !tb[SYSTRACE_SITE_A_NR] || !tb[SYSTRACE_SITE_A_ABI])
		return bad_reply(rx, "site without PROC_ID, ADDR, NR or ABI");

	memset(s, 0, sizeof(*s));
	s->proc_id = nla_get_u64(tb[SYSTRACE_SITE_A_PROC_ID]);
	s->addr = nla_get_u64(tb[SYSTRACE_SITE_A_ADDR]);
	s->nr = nla_get_u32(tb[SYSTRACE_SITE_A_NR]);
	s->abi = nla_get_u32(tb[SYSTRACE_SITE_A_ABI]);
	s->map = u32_or_0(tb[SYSTRACE_SITE_A_MAP]);
	s->offset = u64_or_0(tb[SYSTRACE_SITE_A_OFFSET]);
	s->has_file_id = tb[SYSTRACE_SITE_A_INODE];
	s->inode = u64_or_0(tb[SYSTRACE_SITE_A_INODE]);
	s->dev = u32_or_0(tb[SYSTRACE_SITE_A_DEV]);
	s->mtime_ns = u64_or_0(tb[SYSTRACE_SITE_A_MTIME_NS]);
#define ST_SITE_DECODE(name, field, merge) \
	s->field = u64_or_0(tb[SYSTRACE_SITE_A_##name]);
	SYSTRACE_SITE_COUNTERS(ST_SITE_DECODE)
#undef ST_SITE_DECODE
	s->first_ns = u64_or_0(tb[SYSTRACE_SITE_A_FIRST_NS]);
	s->first_ordinal = u64_or_0(tb[SYSTRACE_SITE_A_FIRST_ORDINAL]);
	if (tb[SYSTRACE_SITE_A_PATH] &&
	    st_dump_str(d, nla_get_string(tb[SYSTRACE_SITE_A_PATH]), &s->path))
		return no_memory(rx);
	if (tb[SYSTRACE_SITE_A_ERRNO_OTHER])
		return decode_errnos(rx, nest, d, s,
				     nla_get_u64(tb[SYSTRACE_SITE_A_ERRNO_OTHER]));
	return 0;
}

/* Grows *items (of n elements of size sz) by one zeroed element. */
static void *grow(void **items, size_t *n, size_t *cap, size_t sz)
{
	void *p;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;

		p = realloc(*items, ncap * sz);
		if (!p)
			return NULL;
		*items = p;
		*cap = ncap;
	}
	p = (char *)*items + *n * sz;
	memset(p, 0, sz);
	return p;
}

static int parse_top(struct rx *rx, struct nlattr **tb, struct nlattr *attrs,
		     int len)
{
	if (nla_parse(tb, SYSTRACE_A_MAX, attrs, len, top_policy) < 0)
		return bad_reply(rx, "an attribute has the wrong type or length");
	return 0;
}

static void param_policy_make(void)
{
	static const struct nla_policy by_type[] = {
		[ST_PARAM_U32] = ST_POL_U32(),
		[ST_PARAM_U64] = ST_POL_U64(),
		[ST_PARAM_BOOL] = ST_POL_U8(),
	};
	size_t i;

	for (i = 0; i < st_nparams; i++)
		param_policy[st_params_desc[i].attr] = by_type[st_params_desc[i].type];
}

static uint64_t param_value(const struct st_param_desc *d, struct nlattr *a)
{
	if (!a)
		return 0;
	switch (d->type) {
	case ST_PARAM_U32:
		return nla_get_u32(a);
	case ST_PARAM_U64:
		return nla_get_u64(a);
	case ST_PARAM_BOOL:
		return nla_get_u8(a);
	}
	return 0;
}

static int parse_status(struct rx *rx, struct nlattr *attrs, int len)
{
	struct nlattr *tb[SYSTRACE_A_MAX + 1], *pt[SYSTRACE_PARAM_MAX + 1];
	struct st_status *st = rx->arg;
	size_t i;
	int ret;

	ret = parse_top(rx, tb, attrs, len);
	if (ret)
		return ret;
	if (!tb[SYSTRACE_A_VERSION] || !tb[SYSTRACE_A_ABI_VERSION])
		return bad_reply(rx, "status without VERSION or ABI_VERSION");
	copy_str(st->version, sizeof(st->version), tb[SYSTRACE_A_VERSION]);
	st->abi_version = nla_get_u32(tb[SYSTRACE_A_ABI_VERSION]);
	st->sessions_live = u32_or_0(tb[SYSTRACE_A_SESSIONS_LIVE]);
	st->mem_bytes = u64_or_0(tb[SYSTRACE_A_MEM_BYTES]);
	st->probes_active = tb[SYSTRACE_A_PROBES_ACTIVE] &&
			    nla_get_u8(tb[SYSTRACE_A_PROBES_ACTIVE]);
	if (tb[SYSTRACE_A_PARAMS]) {
		param_policy_make();
		ret = parse_nest(rx, pt, SYSTRACE_PARAM_MAX, tb[SYSTRACE_A_PARAMS],
				 param_policy, "params");
		if (ret)
			return ret;
		for (i = 0; i < st_nparams; i++)
			st_param_set(&st->params, &st_params_desc[i],
				     param_value(&st_params_desc[i],
						 pt[st_params_desc[i].attr]));
	}
	return 0;
}

static int parse_session(struct rx *rx, struct nlattr *attrs, int len)
{
	struct nlattr *tb[SYSTRACE_A_MAX + 1];
	int ret;

	ret = parse_top(rx, tb, attrs, len);
	if (ret)
		return ret;
	if (!tb[SYSTRACE_A_SESSION])
		return bad_reply(rx, "reply without SYSTRACE_A_SESSION");
	return decode_session(rx, tb[SYSTRACE_A_SESSION], rx->arg);
}

struct session_list {
	struct st_session_row *items;
	size_t n, cap;
};

static int parse_session_list(struct rx *rx, struct nlattr *attrs, int len)
{
	struct nlattr *tb[SYSTRACE_A_MAX + 1];
	struct session_list *l = rx->arg;
	struct st_session_row *s;
	int ret;

	ret = parse_top(rx, tb, attrs, len);
	if (ret)
		return ret;
	if (!tb[SYSTRACE_A_SESSION])
		return bad_reply(rx, "reply without SYSTRACE_A_SESSION");
	s = grow((void **)&l->items, &l->n, &l->cap, sizeof(*s));
	if (!s)
		return no_memory(rx);
	ret = decode_session(rx, tb[SYSTRACE_A_SESSION], s);
	if (!ret)
		l->n++;
	return ret;
}

/* Table dumps carry several nests of one type per message. */
struct table {
	int type;		/* SYSTRACE_A_PROC or SYSTRACE_A_SITE */
	void **items;
	size_t *n;
	size_t cap;
	struct st_dump *dump;	/* its pool holds the sites' paths */
};

static int parse_table(struct rx *rx, struct nlattr *attrs, int len)
{
	struct table *t = rx->arg;
	struct nlattr *a;
	int rem, ret;

	if (nla_validate(attrs, len, SYSTRACE_A_MAX, top_policy) < 0)
		return bad_reply(rx, "an attribute has the wrong type or length");
	nla_for_each_attr(a, attrs, len, rem) {
		void *row;

		if (nla_type(a) != t->type)
			continue;
		if (t->type == SYSTRACE_A_PROC) {
			row = grow(t->items, t->n, &t->cap, sizeof(struct st_proc_row));
			if (!row)
				return no_memory(rx);
			ret = decode_proc(rx, a, row);
			if (!ret && t->dump->sink && t->dump->sink->proc &&
			    t->dump->sink->proc(t->dump->sink->ctx, t->dump, row)) {
				struct st_proc_row *r = row;

				/* Not counted: nothing else frees it. */
				free(r->exe);
				free(r->argv);
				r->exe = r->argv = NULL;
				return no_memory(rx);
			}
		} else if (t->dump->sink) {
			struct st_site_row r;

			ret = decode_site(rx, a, t->dump, &r);
			if (ret)
				return ret;
			if (t->dump->sink->row(t->dump->sink->ctx, t->dump, &r))
				return no_memory(rx);
			t->dump->sunk++;
			continue;
		} else {
			row = grow(t->items, t->n, &t->cap, sizeof(struct st_site_row));
			if (!row)
				return no_memory(rx);
			ret = decode_site(rx, a, t->dump, row);
		}
		if (ret)
			return ret;
		(*t->n)++;
	}
	return 0;
}

/*
 * A table dump's rows are decoded on a thread of their own (worker.h)
 * while the main one reads the next replies: a dump of 750k site rows
 * spends about as long in the kernel's netlink dump as in decoding. The
 * main thread copies each reply's attributes into a chunk, as a record of
 * its length (8 bytes) and the attributes, padded to 8 bytes; the decoder
 * alone touches the table, the dump's pool and its own rx until it stops.
 */
#define DEC_CHUNK (256 * 1024)
#define DEC_QUEUE 8

struct decoder {
	struct st_worker *w;
	char *buf;		/* the chunk being filled */
	size_t len;
	struct rx rx;		/* the decoder's errors, and the table */
};

#define REC_HDR 8
#define REC_ALIGN(n) (((n) + 7) & ~(size_t)7)

static void decode_chunk(void *arg, char *b, size_t len)
{
	struct decoder *dc = arg;
	size_t off = 0;
	uint32_t n;

	while (off < len) {
		memcpy(&n, b + off, sizeof(n));
		off += REC_HDR;
		if (!dc->rx.local_err)
			parse_table(&dc->rx, (struct nlattr *)(b + off), (int)n);
		off += REC_ALIGN(n);
	}
}

/* NULL: no thread (the caller decodes as it reads). */
static struct decoder *decoder_start(const struct rx *rx)
{
	struct decoder *dc = calloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->rx.parse = rx->parse;
	dc->rx.arg = rx->arg;
	if (st_worker_start(&dc->w, DEC_CHUNK, DEC_QUEUE, decode_chunk, dc)) {
		free(dc);
		return NULL;
	}
	dc->buf = st_worker_buf(dc->w);
	return dc;
}

/* Hands the records gathered so far to the decoder. */
static void decoder_submit(struct decoder *dc)
{
	if (dc->len)
		dc->buf = st_worker_submit(dc->w, dc->len);
	dc->len = 0;
}

/* Queues the attributes; false: too large for a chunk, decode them here. */
static bool decoder_put(struct decoder *dc, struct nlattr *attrs, int len)
{
	size_t need = REC_HDR + REC_ALIGN((size_t)len);
	uint32_t n = (uint32_t)len;

	if (need > DEC_CHUNK) {
		/* The decoder must be idle before this thread touches the table. */
		decoder_submit(dc);
		st_worker_drain(dc->w);
		/* After an error, the rows that follow are not decoded. */
		return dc->rx.local_err != 0;
	}
	if (dc->len + need > DEC_CHUNK)
		decoder_submit(dc);
	memcpy(dc->buf + dc->len, &n, sizeof(n));
	memcpy(dc->buf + dc->len + REC_HDR, attrs, (size_t)len);
	dc->len += need;
	return true;
}

/*
 * Decodes what is queued, ends the thread, and passes its error on to rx:
 * the decoder's came first, since this thread stops queueing at its own.
 */
static void decoder_stop(struct decoder *dc, struct rx *rx)
{
	if (!dc)
		return;
	decoder_submit(dc);
	st_worker_stop(dc->w);
	if (dc->rx.local_err) {
		rx->local_err = dc->rx.local_err;
		memcpy(rx->why, dc->rx.why, sizeof(rx->why));
	}
	free(dc);
	rx->dec = NULL;
}

/* One reply of a request: its rows decoded, or queued for the decoder. */
static void take_reply(struct rx *rx, struct nlmsghdr *nlh)
{
	struct genlmsghdr *gnlh;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		rx->interrupted = true;
	if (rx->local_err)
		return;	/* keep reading to the end of the reply */
	if (!genlmsg_valid_hdr(nlh, 0)) {
		bad_reply(rx, "truncated generic netlink header");
		return;
	}
	gnlh = nlmsg_data(nlh);
	if (rx->dec && decoder_put(rx->dec, genlmsg_attrdata(gnlh, 0),
				   genlmsg_attrlen(gnlh, 0)))
		return;
	rx->parse(rx, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0));
}

/* The replies' rows, appended to d; dec: decoded on the decoder's thread. */
static int decode_replies(struct nlmsghdr *const *nlh, size_t n,
			  struct st_dump *d, bool dec, struct st_err *err)
{
	struct table procs = {
		.type = SYSTRACE_A_PROC, .items = (void **)&d->procs,
		.n = &d->nprocs, .cap = d->nprocs, .dump = d,
	};
	struct table sites = {
		.type = SYSTRACE_A_SITE, .items = (void **)&d->sites,
		.n = &d->nsites, .cap = d->nsites, .dump = d,
	};
	struct rx rx = { .parse = parse_table };
	bool site;
	size_t i;

	if (!n)
		return 0;
	if (!genlmsg_valid_hdr(nlh[0], 0)) {
		st_err_set(err, ST_ERR_PROTO, EBADMSG, "dump",
			   "truncated generic netlink header");
		return -EBADMSG;
	}
	site = ((struct genlmsghdr *)nlmsg_data(nlh[0]))->cmd == SYSTRACE_CMD_SITE_GET;
	rx.arg = site ? &sites : &procs;
	if (dec)
		rx.dec = decoder_start(&rx);
	for (i = 0; i < n; i++)
		take_reply(&rx, nlh[i]);
	decoder_stop(rx.dec, &rx);
	if (!rx.local_err)
		return 0;
	st_err_set(err, rx.local_err == ENOMEM ? ST_ERR_LOCAL : ST_ERR_PROTO,
		   rx.local_err, site ? "SITE_GET" : "PROC_GET", "%s", rx.why);
	return -rx.local_err;
}

int st_nl_decode_rows(struct nlmsghdr *nlh, struct st_dump *d,
		      struct st_err *err)
{
	return decode_replies(&nlh, 1, d, false, err);
}

int st_nl_decode_replies(struct nlmsghdr *const *nlh, size_t n,
			 struct st_dump *d, struct st_err *err)
{
	return decode_replies(nlh, n, d, true, err);
}

struct events {
	struct st_log *log;
	size_t n;
};

static int parse_events(struct rx *rx, struct nlattr *attrs, int len)
{
	struct nlattr *tb[SYSTRACE_EVENT_A_MAX + 1];
	struct events *e = rx->arg;
	struct nlattr *a;
	int rem, ret;

	if (nla_validate(attrs, len, SYSTRACE_A_MAX, top_policy) < 0)
		return bad_reply(rx, "an attribute has the wrong type or length");
	nla_for_each_attr(a, attrs, len, rem) {
		struct st_event ev = { .kind = ST_EV_SYSCALL };

		if (nla_type(a) != SYSTRACE_A_EVENT)
			continue;
		ret = parse_nest(rx, tb, SYSTRACE_EVENT_A_MAX, a, event_policy,
				 "event");
		if (ret)
			return ret;
		if (!tb[SYSTRACE_EVENT_A_PROC_ID] || !tb[SYSTRACE_EVENT_A_TS_NS])
			return bad_reply(rx, "event without SYSTRACE_EVENT_A_PROC_ID or TS_NS");
		ev.ts_ns = nla_get_u64(tb[SYSTRACE_EVENT_A_TS_NS]);
		ev.dur_ns = u64_or_0(tb[SYSTRACE_EVENT_A_DUR_NS]);
		ev.proc_id = nla_get_u64(tb[SYSTRACE_EVENT_A_PROC_ID]);
		ev.seq = u64_or_0(tb[SYSTRACE_EVENT_A_SEQ]);
		ev.addr = u64_or_0(tb[SYSTRACE_EVENT_A_ADDR]);
		ev.ret = (int64_t)u64_or_0(tb[SYSTRACE_EVENT_A_RET]);
		ev.pid = u32_or_0(tb[SYSTRACE_EVENT_A_PID]);
		ev.tid = u32_or_0(tb[SYSTRACE_EVENT_A_TID]);
		ev.nr = u32_or_0(tb[SYSTRACE_EVENT_A_NR]);
		ev.abi = u32_or_0(tb[SYSTRACE_EVENT_A_ABI]);
		if (st_log_push(e->log, &ev))
			return no_memory(rx);
		e->n++;
	}
	return 0;
}

static struct nla_policy extack_policy[NLMSGERR_ATTR_MAX + 1] = {
	[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	[NLMSGERR_ATTR_MISS_TYPE] = { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
};

/* The TLVs after the first off bytes of an error's or a DONE's payload. */
static void read_extack(struct rx *rx, const struct nlmsghdr *nlh, size_t off)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = NLMSG_ALIGN(off);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + off)
		return;
	len = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)NLMSG_DATA(nlh) + off), (int)len,
		      extack_policy) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(rx->extack, sizeof(rx->extack), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	else if (tb[NLMSGERR_ATTR_MISS_TYPE])
		snprintf(rx->extack, sizeof(rx->extack),
			 "missing attribute type %u",
			 nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]));
}

static int on_seq(struct nl_msg *msg, void *arg)
{
	struct rx *rx = arg;

	return nlmsg_hdr(msg)->nlmsg_seq == rx->seq ? NL_OK : NL_SKIP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	take_reply(arg, nlmsg_hdr(msg));
	return NL_OK;
}

static int on_intr(struct nl_msg *msg, void *arg)
{
	struct rx *rx = arg;

	(void)msg;
	rx->interrupted = true;
	return NL_OK;
}

/* The end of a dump: its payload is the dump's result, then extack TLVs. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct rx *rx = arg;
	int result;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		rx->interrupted = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		memcpy(&result, NLMSG_DATA(nlh), sizeof(result));
		if (result < 0) {
			rx->kernel_err = -result;
			read_extack(rx, nlh, sizeof(int));
		}
	}
	rx->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct rx *rx = arg;

	(void)msg;
	rx->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	const struct nlmsghdr *nlh =
		(const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	struct rx *rx = arg;
	size_t off = sizeof(*e);

	(void)nla;
	rx->kernel_err = e->error < 0 ? -e->error : e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	read_extack(rx, nlh, off);
	rx->done = true;
	return NL_STOP;
}

static const char *const cmd_names[] = {
	[SYSTRACE_CMD_STATUS] = "STATUS",
	[SYSTRACE_CMD_SESSION_NEW] = "SESSION_NEW",
	[SYSTRACE_CMD_SESSION_DEL] = "SESSION_DEL",
	[SYSTRACE_CMD_SESSION_GET] = "SESSION_GET",
	[SYSTRACE_CMD_PROC_GET] = "PROC_GET",
	[SYSTRACE_CMD_SITE_GET] = "SITE_GET",
	[SYSTRACE_CMD_SESSION_DETACH] = "SESSION_DETACH",
	[SYSTRACE_CMD_LOG_READ] = "LOG_READ",
};

struct request {
	uint8_t cmd;
	bool dump;
	uint32_t session_id;	/* 0: none */
	const struct st_session_req *new;
	parse_fn parse;
	void *arg;
};

static int put_attrs(struct nl_msg *msg, const struct request *req)
{
	const struct st_session_req *n = req->new;

	if (req->session_id &&
	    nla_put_u32(msg, SYSTRACE_A_SESSION_ID, req->session_id) < 0)
		return -EMSGSIZE;
	if (!n)
		return 0;
	if (nla_put_u32(msg, SYSTRACE_A_PID, n->pid) < 0 ||
	    (n->name && nla_put_string(msg, SYSTRACE_A_NAME, n->name) < 0) ||
	    nla_put_u32(msg, SYSTRACE_A_FLAGS, n->flags) < 0 ||
	    nla_put_u32(msg, SYSTRACE_A_COUNTERS, n->counters) < 0 ||
	    (n->log_buffer &&
	     nla_put_u32(msg, SYSTRACE_A_LOG_BUFFER, n->log_buffer) < 0))
		return -EMSGSIZE;
	return 0;
}

static int transact(struct st_nl *nl, const struct request *req,
		    bool *interrupted, struct st_err *err)
{
	const char *op = cmd_names[req->cmd];
	struct rx rx = { .parse = req->parse, .arg = req->arg };
	struct nl_msg *msg;
	struct nl_cb *cb = NULL;
	int ret;

	msg = nlmsg_alloc();
	if (!msg) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, op, NULL);
		return -ENOMEM;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 req->dump ? NLM_F_DUMP : NLM_F_ACK, req->cmd,
			 SYSTRACE_GENL_VERSION) ||
	    put_attrs(msg, req) < 0) {
		st_err_set(err, ST_ERR_LOCAL, EMSGSIZE, op, "building the request");
		ret = -EMSGSIZE;
		goto out;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, op, NULL);
		ret = -ENOMEM;
		goto out;
	}
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, on_seq, &rx);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &rx);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, on_intr, &rx);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &rx);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &rx);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &rx);

	ret = nl_send_auto(nl->sk, msg);
	if (ret < 0) {
		st_err_set(err, ST_ERR_LOCAL, 0, op, "sending: %s", nl_geterror(ret));
		ret = -EIO;
		goto out;
	}
	rx.seq = nlmsg_hdr(msg)->nlmsg_seq;
	if (req->parse == parse_table)
		rx.dec = decoder_start(&rx);
	while (!rx.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (rx.done)
			break;
		if (ret < 0) {
			decoder_stop(rx.dec, &rx);
			st_err_set(err, ST_ERR_LOCAL, 0, op, "receiving: %s",
				   nl_geterror(ret));
			ret = -EIO;
			goto out;
		}
	}
	decoder_stop(rx.dec, &rx);
	if (interrupted)
		*interrupted = rx.interrupted;
	if (rx.kernel_err) {
		st_err_set(err, ST_ERR_KERNEL, rx.kernel_err, op, "%s", rx.extack);
		ret = -rx.kernel_err;
	} else if (rx.local_err == ENOMEM) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, op, NULL);
		ret = -ENOMEM;
	} else if (rx.local_err) {
		st_err_set(err, ST_ERR_PROTO, rx.local_err, op, "%s", rx.why);
		ret = -rx.local_err;
	} else {
		ret = 0;
	}
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

/* SYSTRACE_RCVBUF, SYSTRACE_MSGBUF: small buffers, for testing dumps. */
static int env_size(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return 0;
	n = strtol(v, &end, 0);
	return *end || n <= 0 || n > (1 << 30) ? 0 : (int)n;
}

int st_nl_open(struct st_nl **nlp, struct st_err *err)
{
	struct st_nl *nl;
	int ret, fd, one = 1, n;

	*nlp = NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl || !(nl->sk = nl_socket_alloc())) {
		free(nl);
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "netlink socket", NULL);
		return -ENOMEM;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		st_err_set(err, ST_ERR_LOCAL, 0, "netlink socket", "%s",
			   nl_geterror(ret));
		ret = -EIO;
		goto fail;
	}
	fd = nl_socket_get_fd(nl->sk);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* Best effort: kernels without them still answer, with less detail. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	nl->family = genl_ctrl_resolve(nl->sk, SYSTRACE_GENL_NAME);
	if (nl->family < 0) {
		ret = nl->family;
		if (ret == -NLE_OBJ_NOTFOUND) {
			st_err_set(err, ST_ERR_NOMODULE, ENOENT, "resolve family", NULL);
			ret = -ENOENT;
		} else {
			st_err_set(err, ST_ERR_LOCAL, 0, "resolve family \"systrace\"",
				   "%s", nl_geterror(ret));
			ret = -EIO;
		}
		goto fail;
	}
	/* From here on, each request asks for its own ACK or DONE. */
	nl_socket_disable_auto_ack(nl->sk);

	n = env_size("SYSTRACE_RCVBUF");
	if (n && nl_socket_set_buffer_size(nl->sk, n, 0) < 0) {
		st_err_set(err, ST_ERR_LOCAL, 0, "SYSTRACE_RCVBUF", "cannot set SO_RCVBUF");
		ret = -EINVAL;
		goto fail;
	}
	n = env_size("SYSTRACE_MSGBUF");
	if (n) {
		nl_socket_set_msg_buf_size(nl->sk, (size_t)n);
		nl_socket_enable_msg_peek(nl->sk);
	}
	*nlp = nl;
	return 0;
fail:
	nl_socket_free(nl->sk);
	free(nl);
	return ret;
}

void st_nl_close(struct st_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

int st_nl_status(struct st_nl *nl, struct st_status *st, struct st_err *err)
{
	struct request req = {
		.cmd = SYSTRACE_CMD_STATUS, .parse = parse_status, .arg = st,
	};

	memset(st, 0, sizeof(*st));
	return transact(nl, &req, NULL, err);
}

int st_nl_session_new(struct st_nl *nl, const struct st_session_req *sreq,
		      struct st_session_row *out, struct st_err *err)
{
	struct request req = {
		.cmd = SYSTRACE_CMD_SESSION_NEW, .new = sreq,
		.parse = parse_session, .arg = out,
	};

	memset(out, 0, sizeof(*out));
	return transact(nl, &req, NULL, err);
}

/* SESSION_DEL, or SESSION_DETACH: an ack, no reply. */
static int session_op(struct st_nl *nl, uint8_t cmd, uint32_t id,
		      struct st_err *err)
{
	struct request req = {
		.cmd = cmd, .session_id = id,
		.parse = parse_session, .arg = NULL,
	};
	struct st_session_row ignored;

	req.arg = &ignored;
	return transact(nl, &req, NULL, err);
}

int st_nl_session_del(struct st_nl *nl, uint32_t id, struct st_err *err)
{
	return session_op(nl, SYSTRACE_CMD_SESSION_DEL, id, err);
}

int st_nl_session_detach(struct st_nl *nl, uint32_t id, struct st_err *err)
{
	return session_op(nl, SYSTRACE_CMD_SESSION_DETACH, id, err);
}

int st_nl_session_get(struct st_nl *nl, uint32_t id, struct st_session_row *out,
		      struct st_err *err)
{
	struct request req = {
		.cmd = SYSTRACE_CMD_SESSION_GET, .session_id = id,
		.parse = parse_session, .arg = out,
	};

	memset(out, 0, sizeof(*out));
	return transact(nl, &req, NULL, err);
}

int st_nl_session_list(struct st_nl *nl, struct st_session_row **out, size_t *n,
		       bool *interrupted, struct st_err *err)
{
	struct session_list l = { 0 };
	struct request req = {
		.cmd = SYSTRACE_CMD_SESSION_GET, .dump = true,
		.parse = parse_session_list, .arg = &l,
	};
	int ret;

	ret = transact(nl, &req, interrupted, err);
	if (ret) {
		free(l.items);
		l.items = NULL;
		l.n = 0;
	}
	*out = l.items;
	*n = l.n;
	return ret;
}

int st_nl_dump(struct st_nl *nl, uint32_t id, struct st_dump *d,
	       const struct st_site_sink *sink, struct st_err *err)
{
	struct table procs = {
		.type = SYSTRACE_A_PROC, .items = (void **)&d->procs, .n = &d->nprocs,
		.dump = d,
	};
	struct table sites = {
		.type = SYSTRACE_A_SITE, .items = (void **)&d->sites, .n = &d->nsites,
		.dump = d,
	};
	struct request preq = {
		.cmd = SYSTRACE_CMD_PROC_GET, .dump = true, .session_id = id,
		.parse = parse_table, .arg = &procs,
	};
	struct request sreq = {
		.cmd = SYSTRACE_CMD_SITE_GET, .dump = true, .session_id = id,
		.parse = parse_table, .arg = &sites,
	};
	bool intr = false;
	int ret;

	memset(d, 0, sizeof(*d));
	d->sink = sink;
	/* The session first: if it had finished, the rows read next are final. */
	ret = st_nl_session_get(nl, id, &d->session, err);
	if (ret)
		return ret;
	ret = transact(nl, &preq, &intr, err);
	d->interrupted |= intr;
	if (!ret) {
		ret = transact(nl, &sreq, &intr, err);
		d->interrupted |= intr;
	}
	if (ret)
		st_dump_free(d);
	return ret;
}

int st_nl_log_read(struct st_nl *nl, uint32_t id, struct st_log *log,
		   size_t *n, struct st_err *err)
{
	struct events e = { .log = log };
	struct request req = {
		.cmd = SYSTRACE_CMD_LOG_READ, .dump = true, .session_id = id,
		.parse = parse_events, .arg = &e,
	};
	int ret;

	ret = transact(nl, &req, NULL, err);
	*n = e.n;
	return ret;
}
