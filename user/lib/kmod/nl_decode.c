// SPDX-License-Identifier: GPL-2.0
/*
 * The replies of the "systrace" family decoded into model.h structs: each
 * nest validated by a policy expanded from the uapi's lists of its
 * attributes, then its rows and values taken out. Nothing here sends or
 * receives; nl.c and nl_pipe.c hand these parsers each reply.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/netlink.h>
#include "out/argv.h"
#include "log/log.h"
#include "log/recorder.h"
#include "kmod/nl_rx.h"

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

#define ST_PATH_POL(name, type) [SYSTRACE_PATH_A_##name] = ST_POL_##type(name),
static struct nla_policy path_policy[SYSTRACE_PATH_A_MAX + 1] = {
	SYSTRACE_PATH_ATTRS(ST_PATH_POL)
};
ST_POL_COVERS(__SYSTRACE_PATH_A_MAX, SYSTRACE_PATH_ATTRS(ST_ONE));

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
	s->has_paths = tb[SYSTRACE_SESSION_A_PATHS];
	s->paths_mode = u32_or_0(tb[SYSTRACE_SESSION_A_PATHS]);
	s->dropped_paths = u64_or_0(tb[SYSTRACE_SESSION_A_DROPPED_PATHS]);
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

/* A path row: its path pooled in the dump, absent unless its kind is OK. */
static int decode_path(struct rx *rx, struct nlattr *nest, struct st_dump *d,
		       struct st_path_row *r)
{
	struct nlattr *tb[SYSTRACE_PATH_A_MAX + 1];
	int ret;

	ret = parse_nest(rx, tb, SYSTRACE_PATH_A_MAX, nest, path_policy, "path");
	if (ret)
		return ret;
	if (!tb[SYSTRACE_PATH_A_PROC_ID] || !tb[SYSTRACE_PATH_A_ADDR] ||
	    !tb[SYSTRACE_PATH_A_NR] || !tb[SYSTRACE_PATH_A_KIND] ||
	    !tb[SYSTRACE_PATH_A_COUNT])
		return bad_reply(rx, "path without PROC_ID, ADDR, NR, KIND or COUNT");
	r->proc_id = nla_get_u64(tb[SYSTRACE_PATH_A_PROC_ID]);
	r->addr = nla_get_u64(tb[SYSTRACE_PATH_A_ADDR]);
	r->nr = nla_get_u32(tb[SYSTRACE_PATH_A_NR]);
	r->abi = u32_or_0(tb[SYSTRACE_PATH_A_ABI]);
	r->err = u32_or_0(tb[SYSTRACE_PATH_A_ERRNO]);
	r->count = nla_get_u64(tb[SYSTRACE_PATH_A_COUNT]);
	switch (nla_get_u32(tb[SYSTRACE_PATH_A_KIND])) {
	case SYSTRACE_PATH_OK:
		if (!tb[SYSTRACE_PATH_A_PATH])
			return bad_reply(rx, "path of kind OK without SYSTRACE_PATH_A_PATH");
		r->kind = ST_PATH_OK;
		return st_dump_str(d, nla_get_string(tb[SYSTRACE_PATH_A_PATH]), &r->path) ?
		       no_memory(rx) : 0;
	case SYSTRACE_PATH_LONG:
		r->kind = ST_PATH_LONG;
		return 0;
	case SYSTRACE_PATH_UNREADABLE:
		r->kind = ST_PATH_UNREADABLE;
		return 0;
	}
	return bad_reply(rx, "path of an unknown SYSTRACE_PATH_A_KIND");
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

int st_nl_parse_status(struct rx *rx, struct nlattr *attrs, int len)
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

int st_nl_parse_session(struct rx *rx, struct nlattr *attrs, int len)
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


int st_nl_parse_session_list(struct rx *rx, struct nlattr *attrs, int len)
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


int st_nl_parse_table(struct rx *rx, struct nlattr *attrs, int len)
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
		} else if (t->type == SYSTRACE_A_PATH) {
			row = grow(t->items, t->n, &t->cap, sizeof(struct st_path_row));
			if (!row)
				return no_memory(rx);
			ret = decode_path(rx, a, t->dump, row);
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

int st_nl_parse_events(struct rx *rx, struct nlattr *attrs, int len)
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
