// SPDX-License-Identifier: GPL-2.0
/* Decoding dump messages: policies catch wrong types, rows are complete. */
#include <errno.h>
#include <stdlib.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include "kmod/nl.h"
#include "test.h"

static struct nl_msg *table_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 1, 0x20, 0, NLM_F_MULTI, cmd, SYSTRACE_GENL_VERSION);
	nla_put_u32(msg, SYSTRACE_A_SESSION_ID, 7);
	return msg;
}

static void put_proc(struct nl_msg *msg, uint64_t id, const char *comm)
{
	struct nlattr *nest = nla_nest_start(msg, SYSTRACE_A_PROC);

	nla_put_u64(msg, SYSTRACE_PROC_A_ID, id);
	nla_put_u64(msg, SYSTRACE_PROC_A_PARENT_ID, id - 1);
	nla_put_u32(msg, SYSTRACE_PROC_A_PID, 1000 + (uint32_t)id);
	nla_put_string(msg, SYSTRACE_PROC_A_COMM, comm);
	nla_put_u64(msg, SYSTRACE_PROC_A_START_NS, 50);
	nla_put_u32(msg, SYSTRACE_PROC_A_END, SYSTRACE_END_RUNNING);
	nla_put_u64(msg, SYSTRACE_PROC_A_SYSCALLS, 3 * id);
	nla_nest_end(msg, nest);
}

TEST(decode_several_processes_per_message)
{
	struct nl_msg *msg = table_msg(SYSTRACE_CMD_PROC_GET);
	struct st_dump d = { 0 };
	struct st_err err;

	put_proc(msg, 1, "make");
	put_proc(msg, 2, "cc1");
	ASSERT_EQ(st_nl_decode_rows(nlmsg_hdr(msg), &d, &err), 0);
	nlmsg_free(msg);
	msg = table_msg(SYSTRACE_CMD_PROC_GET);
	put_proc(msg, 3, "as");
	ASSERT_EQ(st_nl_decode_rows(nlmsg_hdr(msg), &d, &err), 0);
	ASSERT_EQ(d.nprocs, 3);
	EXPECT_EQ(d.procs[0].id, 1);
	EXPECT_EQ(d.procs[0].parent_id, 0);
	EXPECT_EQ(d.procs[1].pid, 1002);
	EXPECT_STREQ(d.procs[1].comm, "cc1");
	EXPECT_EQ(d.procs[2].syscalls, 9);
	EXPECT_FALSE(d.procs[2].has_end_ns);
	EXPECT_FALSE(d.procs[2].has_counter_value);
	EXPECT_NULL(d.procs[2].exe);
	nlmsg_free(msg);
	st_dump_free(&d);
}

TEST(decode_many_rows_across_messages)
{
	struct st_dump d = { 0 };
	struct st_err err;
	uint64_t id = 1;
	int m, r;

	for (m = 0; m < 50; m++) {
		struct nl_msg *msg = table_msg(SYSTRACE_CMD_PROC_GET);

		for (r = 0; r < 40; r++, id++)
			put_proc(msg, id, "p");
		ASSERT_EQ(st_nl_decode_rows(nlmsg_hdr(msg), &d, &err), 0);
		nlmsg_free(msg);
	}
	ASSERT_EQ(d.nprocs, 2000);
	EXPECT_EQ(d.procs[1999].id, 2000);
	EXPECT_EQ(d.procs[1234].syscalls, 3 * 1235);
	st_dump_free(&d);
}

TEST(decode_ignores_attributes_of_a_newer_abi)
{
	struct nl_msg *msg = table_msg(SYSTRACE_CMD_PROC_GET);
	struct st_dump d = { 0 };
	struct st_err err;
	struct nlattr *nest;

	nest = nla_nest_start(msg, SYSTRACE_A_PROC);
	nla_put_u64(msg, SYSTRACE_PROC_A_ID, 4);
	nla_put_u64(msg, SYSTRACE_PROC_A_MAX + 5, 99);
	nla_nest_end(msg, nest);
	nla_put_u32(msg, SYSTRACE_A_MAX + 3, 1);
	ASSERT_EQ(st_nl_decode_rows(nlmsg_hdr(msg), &d, &err), 0);
	ASSERT_EQ(d.nprocs, 1);
	EXPECT_EQ(d.procs[0].id, 4);
	nlmsg_free(msg);
	st_dump_free(&d);
}

TEST(decode_site_rows)
{
	struct nl_msg *msg = table_msg(SYSTRACE_CMD_SITE_GET);
	struct st_dump d = { 0 };
	struct st_err err;
	struct nlattr *nest;

	nest = nla_nest_start(msg, SYSTRACE_A_SITE);
	nla_put_u64(msg, SYSTRACE_SITE_A_PROC_ID, 3);
	nla_put_u64(msg, SYSTRACE_SITE_A_ADDR, 0x7f0000001234ULL);
	nla_put_u32(msg, SYSTRACE_SITE_A_NR, 39);
	nla_put_u32(msg, SYSTRACE_SITE_A_ABI, SYSTRACE_ABI_X64);
	nla_put_u32(msg, SYSTRACE_SITE_A_MAP, SYSTRACE_MAP_FILE);
	nla_put_string(msg, SYSTRACE_SITE_A_PATH, "/lib/libc.so.6");
	nla_put_u64(msg, SYSTRACE_SITE_A_OFFSET, 0x1234);
	nla_put_u64(msg, SYSTRACE_SITE_A_INODE, 77);
	nla_put_u32(msg, SYSTRACE_SITE_A_DEV, 2049);
	nla_put_u64(msg, SYSTRACE_SITE_A_CALLS, 12);
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, SYSTRACE_A_SITE);
	nla_put_u64(msg, SYSTRACE_SITE_A_PROC_ID, 3);
	nla_put_u64(msg, SYSTRACE_SITE_A_ADDR, 0x1000);
	nla_put_u32(msg, SYSTRACE_SITE_A_NR, 20);
	nla_put_u32(msg, SYSTRACE_SITE_A_ABI, SYSTRACE_ABI_IA32);
	nla_nest_end(msg, nest);
	ASSERT_EQ(st_nl_decode_rows(nlmsg_hdr(msg), &d, &err), 0);
	ASSERT_EQ(d.nsites, 2);
	EXPECT_EQ(d.sites[0].addr, 0x7f0000001234ULL);
	EXPECT_STREQ(d.sites[0].path, "/lib/libc.so.6");
	EXPECT_TRUE(d.sites[0].has_file_id);
	EXPECT_EQ(d.sites[0].dev, 2049);
	EXPECT_EQ(d.sites[0].calls, 12);
	EXPECT_EQ(d.sites[1].abi, SYSTRACE_ABI_IA32);
	EXPECT_EQ(d.sites[1].map, SYSTRACE_MAP_UNKNOWN);
	EXPECT_FALSE(d.sites[1].has_file_id);
	EXPECT_NULL(d.sites[1].path);
	nlmsg_free(msg);
	st_dump_free(&d);
}

/*
 * A site of 45 calls: 5 EACCES and 37 ENOENT as the module sends them,
 * and with third one more error of err3; ERRNO_OTHER when with_other.
 */
static void put_errno_site(struct nl_msg *msg, uint64_t addr, bool with_other,
			   bool third, uint32_t err3)
{
	struct nlattr *nest = nla_nest_start(msg, SYSTRACE_A_SITE), *e;

	nla_put_u64(msg, SYSTRACE_SITE_A_PROC_ID, 3);
	nla_put_u64(msg, SYSTRACE_SITE_A_ADDR, addr);
	nla_put_u32(msg, SYSTRACE_SITE_A_NR, 257);
	nla_put_u32(msg, SYSTRACE_SITE_A_ABI, SYSTRACE_ABI_X64);
	nla_put_u64(msg, SYSTRACE_SITE_A_CALLS, 45);
	nla_put_u64(msg, SYSTRACE_SITE_A_ERRORS, 42 + third);
	e = nla_nest_start(msg, SYSTRACE_SITE_A_ERRNO);
	nla_put_u32(msg, SYSTRACE_ERRNO_A_ERRNO, 13);
	nla_put_u64(msg, SYSTRACE_ERRNO_A_COUNT, 5);
	nla_nest_end(msg, e);
	e = nla_nest_start(msg, SYSTRACE_SITE_A_ERRNO);
	nla_put_u32(msg, SYSTRACE_ERRNO_A_ERRNO, 2);
	nla_put_u64(msg, SYSTRACE_ERRNO_A_COUNT, 37);
	nla_nest_end(msg, e);
	if (third) {
		e = nla_nest_start(msg, SYSTRACE_SITE_A_ERRNO);
		nla_put_u32(msg, SYSTRACE_ERRNO_A_ERRNO, err3);
		nla_put_u64(msg, SYSTRACE_ERRNO_A_COUNT, 1);
		nla_nest_end(msg, e);
	}
	if (with_other)
		nla_put_u64(msg, SYSTRACE_SITE_A_ERRNO_OTHER, 0);
	nla_nest_end(msg, nest);
}

/*
 * Errnos: several SITE_A_ERRNO nests in one site, in any order, kept most
 * frequent first; ERRNO_OTHER says they were counted; without it, none is
 * known (NULL), not none returned.
 */
TEST(decode_site_errnos)
{
	struct nl_msg *msg = table_msg(SYSTRACE_CMD_SITE_GET);
	struct st_dump d = { 0 };
	struct st_err err;
	const struct st_errnos *e;
	struct nlattr *nest;

	put_errno_site(msg, 0x1000, true, false, 0);
	put_errno_site(msg, 0x2000, false, false, 0);
	nest = nla_nest_start(msg, SYSTRACE_A_SITE);
	nla_put_u64(msg, SYSTRACE_SITE_A_PROC_ID, 3);
	nla_put_u64(msg, SYSTRACE_SITE_A_ADDR, 0x3000);
	nla_put_u32(msg, SYSTRACE_SITE_A_NR, 3);
	nla_put_u32(msg, SYSTRACE_SITE_A_ABI, SYSTRACE_ABI_X64);
	nla_put_u64(msg, SYSTRACE_SITE_A_CALLS, 3);
	nla_put_u64(msg, SYSTRACE_SITE_A_ERRNO_OTHER, 0);
	nla_nest_end(msg, nest);
	ASSERT_EQ(st_nl_decode_rows(nlmsg_hdr(msg), &d, &err), 0);
	ASSERT_EQ(d.nsites, 3);
	e = d.sites[0].errnos;
	ASSERT_TRUE(e);
	ASSERT_EQ(e->n, 2);
	EXPECT_EQ(e->v[0].err, 2);
	EXPECT_EQ(e->v[0].count, 37);
	EXPECT_EQ(e->v[1].err, 13);
	EXPECT_EQ(e->v[1].count, 5);
	EXPECT_EQ(e->other, 0);
	EXPECT_EQ(st_errnos_total(e), d.sites[0].errors);
	EXPECT_NULL(d.sites[1].errnos);
	ASSERT_TRUE(d.sites[2].errnos);
	EXPECT_EQ(d.sites[2].errnos->n, 0);
	EXPECT_EQ(d.sites[2].errnos->other, 0);
	nlmsg_free(msg);
	st_dump_free(&d);
}

/* One attribute of a row: a u32 (len 4), a u64 (len 8), or raw bytes. */
struct put_attr {
	int type;
	int len;
	uint64_t v;
	const char *raw;
};

#define PUT_U32(t, val) { .type = (t), .len = 4, .v = (val) }
#define PUT_U64(t, val) { .type = (t), .len = 8, .v = (val) }
#define PUT_RAW(t, s) { .type = (t), .len = sizeof(s) - 1, .raw = (s) }

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A reply of one row that the decoder must refuse: cmd's row nest holding
 * the attributes of row (up to the first of type 0), or, with errno_site,
 * put_errno_site()'s site with a third errno err3.
 */
struct reject_case {
	const char *name;
	uint8_t cmd;		/* SYSTRACE_CMD_PROC_GET or SITE_GET */
	struct put_attr row[3];
	bool errno_site;
	uint32_t err3;
	const char *why;	/* the error's message */
};

static const struct reject_case reject_cases[] = {
	{
		"decode_rejects_a_u32_where_a_u64_belongs", SYSTRACE_CMD_PROC_GET,
		{ PUT_U32(SYSTRACE_PROC_A_ID, 1) },
		.why = "process: an attribute has the wrong type or length",
	}, {
		"decode_rejects_a_u64_where_a_u32_belongs", SYSTRACE_CMD_PROC_GET,
		{ PUT_U64(SYSTRACE_PROC_A_ID, 1), PUT_U64(SYSTRACE_PROC_A_PID, 1) },
		.why = "process: an attribute has the wrong type or length",
	}, {
		"decode_rejects_an_unterminated_string", SYSTRACE_CMD_PROC_GET,
		{ PUT_U64(SYSTRACE_PROC_A_ID, 1), PUT_RAW(SYSTRACE_PROC_A_COMM, "abc") },
		.why = "process: an attribute has the wrong type or length",
	}, {
		"decode_requires_the_row_id", SYSTRACE_CMD_PROC_GET,
		{ PUT_U32(SYSTRACE_PROC_A_PID, 5) },
		.why = "process without SYSTRACE_PROC_A_ID",
	}, {
		"decode_site_requires_its_key", SYSTRACE_CMD_SITE_GET,
		{
			PUT_U64(SYSTRACE_SITE_A_PROC_ID, 3),
			PUT_U64(SYSTRACE_SITE_A_ADDR, 0x1000),
			PUT_U32(SYSTRACE_SITE_A_NR, 20),
		},
		.why = "site without PROC_ID, ADDR, NR or ABI",
	},
	/* An errno out of 1..4095, or one listed twice. */
	{
		"decode_site_errnos_refuses_errno_0", SYSTRACE_CMD_SITE_GET,
		.errno_site = true, .err3 = 0, .why = "site errno out of 1..4095",
	}, {
		"decode_site_errnos_refuses_errno_4096", SYSTRACE_CMD_SITE_GET,
		.errno_site = true, .err3 = 4096, .why = "site errno out of 1..4095",
	}, {
		"decode_site_errnos_refuses_an_errno_listed_twice", SYSTRACE_CMD_SITE_GET,
		.errno_site = true, .err3 = 13, .why = "site errno listed twice",
	},
};

static void put_row(struct nl_msg *msg, const struct reject_case *c)
{
	struct nlattr *nest;
	const struct put_attr *a;

	if (c->errno_site) {
		put_errno_site(msg, 0x1000, true, true, c->err3);
		return;
	}
	nest = nla_nest_start(msg, c->cmd == SYSTRACE_CMD_SITE_GET ?
				   SYSTRACE_A_SITE : SYSTRACE_A_PROC);
	for (a = c->row; a < c->row + ARRAY_SIZE(c->row) && a->type; a++) {
		if (a->raw)
			nla_put(msg, a->type, a->len, a->raw);
		else if (a->len == 4)
			nla_put_u32(msg, a->type, (uint32_t)a->v);
		else
			nla_put_u64(msg, a->type, a->v);
	}
	nla_nest_end(msg, nest);
}

/*
 * A malformed reply: wrong types or lengths, a row without its key, bad
 * errnos. Each case is refused as a protocol error (exit code 6) with its
 * message, and leaves no row; its name and verdict are a TAP comment.
 */
TEST(decode_rejects_bad_replies)
{
	bool any = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reject_cases); i++) {
		const struct reject_case *c = &reject_cases[i];
		struct nl_msg *msg = table_msg(c->cmd);
		struct st_dump d = { 0 };
		struct st_err err = { 0 };

		*failed = false;
		put_row(msg, c);
		EXPECT_EQ(st_nl_decode_rows(nlmsg_hdr(msg), &d, &err), -EBADMSG);
		EXPECT_EQ(err.kind, ST_ERR_PROTO);
		EXPECT_EQ(st_exit_code(&err), 6);
		EXPECT_STREQ(err.msg, c->why);
		EXPECT_EQ(d.nprocs, 0);
		EXPECT_EQ(d.nsites, 0);
		printf("# %s: %s\n", c->name, *failed ? "FAILED" : "ok");
		any |= *failed;
		nlmsg_free(msg);
		st_dump_free(&d);
	}
	*failed = any;
}

/* A site reply of n rows, ids from *id; room for large messages. */
static struct nl_msg *site_reply(uint64_t *id, size_t n)
{
	struct nl_msg *msg = nlmsg_alloc_size(n * 160 + 4096);
	struct nlattr *nest;
	size_t i;

	genlmsg_put(msg, 0, 1, 0x20, 0, NLM_F_MULTI, SYSTRACE_CMD_SITE_GET,
		    SYSTRACE_GENL_VERSION);
	for (i = 0; i < n; i++, (*id)++) {
		nest = nla_nest_start(msg, SYSTRACE_A_SITE);
		nla_put_u64(msg, SYSTRACE_SITE_A_PROC_ID, *id % 7);
		nla_put_u64(msg, SYSTRACE_SITE_A_ADDR, *id);
		nla_put_u32(msg, SYSTRACE_SITE_A_NR, 39);
		nla_put_u32(msg, SYSTRACE_SITE_A_ABI, SYSTRACE_ABI_X64);
		nla_put_string(msg, SYSTRACE_SITE_A_PATH, *id % 2 ? "/bin/a" : "/bin/b");
		nla_put_u64(msg, SYSTRACE_SITE_A_CALLS, 2 * *id);
		nla_nest_end(msg, nest);
	}
	return msg;
}

/*
 * The dumps' decoder thread: rows in the order received, across its chunks
 * and around a reply too large for one (decoded by the reader, in place).
 * thread: whether the decoder has its thread; the spies count on which
 * thread each row was decoded (parsed), so that the test proves it.
 */
static void decode_replies_in_order(bool *failed, bool thread)
{
	struct nl_msg *msg[400];
	struct nlmsghdr *nlh[400];
	struct st_dump d = { 0 };
	struct st_err err;
	struct st_spy spy;
	uint64_t id = 1;
	size_t i, n = 0;

	for (i = 0; i < 400; i++) {
		/* Reply 200: 5000 rows, more than a chunk of the decoder. */
		msg[i] = site_reply(&id, i == 200 ? 5000 : 30);
		ASSERT_TRUE(nlmsg_hdr(msg[i])->nlmsg_len > (i == 200 ? 256 * 1024 : 1000));
		nlh[n++] = nlmsg_hdr(msg[i]);
	}
	st_spy_reset();
	ASSERT_EQ(st_nl_decode_replies(nlh, n, &d, &err), 0);
	spy = st_spy_read();
	ASSERT_EQ(d.nsites, 399 * 30 + 5000);
	/* The 399 small replies on the decoder's thread, the large one here. */
	EXPECT_EQ(spy.rows_elsewhere, thread ? 399 * 30 : 0);
	EXPECT_EQ(spy.rows_here, thread ? 5000 : 399 * 30 + 5000);
	for (i = 0; i < d.nsites; i++)
		if (d.sites[i].addr != i + 1 || d.sites[i].calls != 2 * (i + 1) ||
		    d.sites[i].proc_id != (i + 1) % 7)
			break;
	EXPECT_EQ(i, d.nsites);
	EXPECT_STREQ(d.sites[0].path, "/bin/a");
	EXPECT_STREQ(d.sites[1].path, "/bin/b");
	/* One pool for every row: the decoder's strings are the dump's. */
	EXPECT_TRUE(d.sites[0].path == d.sites[d.nsites - 1].path ||
		    d.sites[1].path == d.sites[d.nsites - 1].path);
	for (i = 0; i < 400; i++)
		nlmsg_free(msg[i]);
	st_dump_free(&d);
}

TEST(decode_replies_in_order_on_the_decoder_thread)
{
	decode_replies_in_order(failed, true);
}

/* No thread to be had: the reader decodes every reply itself, the same rows. */
TEST(decode_replies_in_order_without_a_thread)
{
	ASSERT_EQ(st_test_no_threads(), 0);
	decode_replies_in_order(failed, false);
}

/*
 * n replies of 20 site rows; reply bad ends with a site that has only the
 * attribute attr (so it lacks the rest of its key).
 */
static void replies_with_bad_row(struct nl_msg **msg, struct nlmsghdr **nlh,
				 size_t n, size_t bad, int attr)
{
	struct nlattr *nest;
	uint64_t id = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		msg[i] = site_reply(&id, 20);
		if (i == bad) {
			nest = nla_nest_start(msg[i], SYSTRACE_A_SITE);
			nla_put_u64(msg[i], attr, 3);
			nla_nest_end(msg[i], nest);
		}
		nlh[i] = nlmsg_hdr(msg[i]);
	}
}

/* A bad row the decoder thread meets is reported as the reader's would be. */
TEST(decode_replies_report_the_decoder_threads_error)
{
	struct nl_msg *msg[50];
	struct nlmsghdr *nlh[50];
	struct st_dump d = { 0 };
	struct st_err err;
	struct st_spy spy;
	size_t i;

	replies_with_bad_row(msg, nlh, 50, 30, SYSTRACE_SITE_A_PROC_ID);
	st_spy_reset();
	EXPECT_EQ(st_nl_decode_replies(nlh, 50, &d, &err), -EBADMSG);
	spy = st_spy_read();
	EXPECT_EQ(err.kind, ST_ERR_PROTO);
	EXPECT_STREQ(err.msg, "site without PROC_ID, ADDR, NR or ABI");
	EXPECT_STREQ(err.op, "SITE_GET");
	/* The rows before the bad one, and none after it. */
	EXPECT_EQ(d.nsites, 31 * 20);
	/* All of them, and the bad one, decoded on the decoder's thread. */
	EXPECT_EQ(spy.rows_elsewhere, 31 * 20 + 1);
	EXPECT_EQ(spy.rows_here, 0);
	for (i = 0; i < 50; i++)
		nlmsg_free(msg[i]);
	st_dump_free(&d);
}

/*
 * Two bad replies: the first one's error is the one reported, although the
 * decoder thread meets it after the reader has met the second.
 */
TEST(decode_replies_report_the_first_error)
{
	struct nl_msg *msg[30];
	struct nlmsghdr *nlh[31], trunc = {
		.nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = 0x20,
	};
	struct st_dump d = { 0 };
	struct st_err err;
	struct st_spy spy;
	size_t i;

	replies_with_bad_row(msg, nlh, 30, 10, SYSTRACE_SITE_A_ADDR);
	nlh[30] = &trunc;
	st_spy_reset();
	EXPECT_EQ(st_nl_decode_replies(nlh, 31, &d, &err), -EBADMSG);
	spy = st_spy_read();
	EXPECT_STREQ(err.msg, "site without PROC_ID, ADDR, NR or ABI");
	EXPECT_EQ(d.nsites, 11 * 20);
	/* Every row up to the bad one on the decoder's thread, none here. */
	EXPECT_EQ(spy.rows_elsewhere, 11 * 20 + 1);
	EXPECT_EQ(spy.rows_here, 0);
	st_dump_free(&d);
	memset(&d, 0, sizeof(d));
	/* The truncated one alone. */
	EXPECT_EQ(st_nl_decode_replies(&nlh[29], 2, &d, &err), -EBADMSG);
	EXPECT_STREQ(err.msg, "truncated generic netlink header");
	for (i = 0; i < 30; i++)
		nlmsg_free(msg[i]);
	st_dump_free(&d);
}
