// SPDX-License-Identifier: GPL-2.0
/*
 * nlbad: send crafted, mostly malformed requests to the "systrace" generic
 * netlink family over a raw NETLINK_GENERIC socket with extended acks on,
 * and print how the kernel answered each one.
 *
 *   nlbad [CASE...]    run the named cases (default: all but new_init)
 *   nlbad --list       print the case names with what each sends
 *
 * One line per case on stdout:
 *   CASE errno=-22 EINVAL msg="Unknown attribute type" offs=20 miss=-
 *   CASE errno=0 OK msg="" offs=- miss=-
 *   CASE noreply
 * errno is the ack's error (0: accepted), msg the extack message, offs the
 * offset of the offending attribute in the request, miss the type of a
 * missing required attribute ("-" when the ack has none).
 *
 * Exit status: 0 when every case was sent and its answer read, 1 on a
 * usage error or a local failure, 2 when the family is not registered.
 * No libnl on purpose: the point is to send what a library would refuse to.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/systrace.h>
#include "genl.h"

static struct genl_sock sock = { .fd = -1 };
static uint16_t family_id;

/* A request's buffer: a case builds one message in it, or cuts one short. */
static unsigned char req[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

static struct nlmsghdr *msg_start(struct genl_msg *m, uint16_t type, uint16_t flags,
				  uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh;

	genl_msg_init(m, req, sizeof(req));
	nlh = genl_msg_begin(m, type, NLM_F_REQUEST | NLM_F_ACK | flags,
			     genl_seq(&sock), cmd, version);
	genl_msg_end(m);
	return nlh;
}

/* Appends an attribute whose header says len_field and whose payload is len bytes. */
static void put_raw(struct genl_msg *m, uint16_t type, uint16_t len_field,
		    const void *data, size_t len)
{
	genl_put_raw(m, type, len_field, data, len);
	genl_msg_end(m);
}

static void put_attr(struct genl_msg *m, uint16_t type, const void *data, size_t len)
{
	put_raw(m, type, NLA_HDRLEN + len, data, len);
}

static void put_u32(struct genl_msg *m, uint16_t type, uint32_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

struct answer {
	int got;		/* an ack for our request arrived */
	struct genl_ack ack;	/* its error, extack message, offset, missing type */
};

/*
 * Sends m and reads until the ack (NLMSG_ERROR) or NLMSG_DONE of its
 * sequence number, or until the receive timeout: a request the kernel
 * drops gets no answer at all. Returns 0, or -1 on a local failure.
 */
static int transact(const struct genl_msg *m, struct answer *a)
{
	const struct nlmsghdr *req_nlh = genl_msg_nlh(m);
	static unsigned char rbuf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	int err;

	memset(a, 0, sizeof(*a));
	a->ack.offs = a->ack.miss_type = a->ack.miss_nest = -1;
	err = genl_send(&sock, m->buf, m->len);
	if (err) {
		fprintf(stderr, "nlbad: sendto: %s\n", strerror(-err));
		return -1;
	}
	for (;;) {
		ssize_t n = genl_recv(&sock, rbuf, sizeof(rbuf), -1);
		struct nlmsghdr *nlh;
		size_t rem;

		if (n == -EAGAIN)
			return 0;
		if (n < 0) {
			fprintf(stderr, "nlbad: recv: %s\n", strerror((int)-n));
			return -1;
		}
		rem = (size_t)n;
		for (nlh = (struct nlmsghdr *)rbuf; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			if (nlh->nlmsg_seq != req_nlh->nlmsg_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				a->got = 1;
				genl_parse_ack(nlh, &a->ack);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				a->got = 1;
				return 0;
			}
		}
	}
}

static int open_socket(void)
{
	int err = genl_open(&sock, 2000, 0);

	if (err) {
		fprintf(stderr, "nlbad: opening a NETLINK_GENERIC socket: %s\n", strerror(-err));
		return -1;
	}
	return 0;
}

/* Returns 0, 2 when the family is not registered, 1 on a local failure. */
static int resolve_family(void)
{
	int id = genl_resolve(&sock, SYSTRACE_GENL_NAME);

	if (id == -ENOENT) {
		fprintf(stderr, "nlbad: the generic netlink family \"%s\" is not registered (module not loaded?)\n",
			SYSTRACE_GENL_NAME);
		return 2;
	}
	if (id <= 0) {
		fprintf(stderr, "nlbad: CTRL_CMD_GETFAMILY failed: %s\n",
			id == -EAGAIN ? "no answer" : strerror(id ? -id : ENODATA));
		return 1;
	}
	family_id = id;
	return 0;
}

/* Each case builds one request in m. */
static void c_status_ok(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_STATUS, SYSTRACE_GENL_VERSION);
}

static void c_status_unknown_attr(struct genl_msg *m)
{
	c_status_ok(m);
	put_u32(m, SYSTRACE_A_MAX + 1, 1);
}

static void c_status_unexpected_attr(struct genl_msg *m)
{
	c_status_ok(m);
	put_u32(m, SYSTRACE_A_SESSION_ID, 1);
}

static void c_status_pad_attr(struct genl_msg *m)
{
	c_status_ok(m);
	put_u32(m, SYSTRACE_A_PAD, 0);
}

static void c_status_trunc_attr(struct genl_msg *m)
{
	uint32_t v = 1;

	c_status_ok(m);
	/* The header claims 4 payload bytes more than the message holds. */
	put_raw(m, SYSTRACE_A_SESSION_ID, NLA_HDRLEN + 8, &v, sizeof(v));
}

static void c_status_short_attr(struct genl_msg *m)
{
	uint32_t v = 0;

	c_status_ok(m);
	/* nla_len smaller than the attribute header itself. */
	put_raw(m, SYSTRACE_A_SESSION_ID, 2, &v, sizeof(v));
}

static void c_status_trunc_genlhdr(struct genl_msg *m)
{
	struct nlmsghdr *nlh;

	c_status_ok(m);
	nlh = genl_msg_nlh(m);
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	m->len = nlh->nlmsg_len;
}

static void c_status_trunc_datagram(struct genl_msg *m)
{
	c_status_ok(m);
	put_u32(m, SYSTRACE_A_SESSION_ID, 1);
	/* Only the first 20 of the nlmsg_len bytes are sent. */
	m->len = NLMSG_LENGTH(GENL_HDRLEN);
}

static void c_status_reserved(struct genl_msg *m)
{
	struct genlmsghdr *g;

	c_status_ok(m);
	g = NLMSG_DATA(genl_msg_nlh(m));
	g->reserved = 1;
}

static void c_status_bad_flags(struct genl_msg *m)
{
	msg_start(m, family_id, NLM_F_REPLACE, SYSTRACE_CMD_STATUS,
		  SYSTRACE_GENL_VERSION);
}

static void c_status_dump(struct genl_msg *m)
{
	msg_start(m, family_id, NLM_F_DUMP, SYSTRACE_CMD_STATUS,
		  SYSTRACE_GENL_VERSION);
}

static void c_unknown_cmd(struct genl_msg *m)
{
	msg_start(m, family_id, 0, 200, SYSTRACE_GENL_VERSION);
}

static void c_unspec_cmd(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_UNSPEC, SYSTRACE_GENL_VERSION);
}

static void c_del_u16_id(struct genl_msg *m)
{
	uint16_t v = 1;

	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_DEL, SYSTRACE_GENL_VERSION);
	put_attr(m, SYSTRACE_A_SESSION_ID, &v, sizeof(v));
}

static void c_del_u64_id(struct genl_msg *m)
{
	uint64_t v = 1;

	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_DEL, SYSTRACE_GENL_VERSION);
	put_attr(m, SYSTRACE_A_SESSION_ID, &v, sizeof(v));
}

static void c_del_missing_id(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_DEL, SYSTRACE_GENL_VERSION);
}

static void c_del_zero_id(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_DEL, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_SESSION_ID, 0);
}

static void c_new_str_pid(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_attr(m, SYSTRACE_A_PID, "1", 2);
}

static void c_new_name_unterminated(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_PID, 1);
	put_attr(m, SYSTRACE_A_NAME, "abcd", 4);
}

static void c_new_name_too_long(struct genl_msg *m)
{
	char name[SYSTRACE_NAME_MAX + 8];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_PID, 1);
	put_attr(m, SYSTRACE_A_NAME, name, sizeof(name));
}

static void c_new_bad_flags(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_PID, 1);
	put_u32(m, SYSTRACE_A_FLAGS, ~(uint32_t)SYSTRACE_SESSION_F_ALL);
}

static void c_new_pid_zero(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_PID, 0);
}

static void c_new_tree_on_exec(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_PID, 1);
	put_u32(m, SYSTRACE_A_FLAGS, SYSTRACE_SESSION_F_TREE | SYSTRACE_SESSION_F_ON_EXEC);
}

static void c_new_kthread(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_PID, 2);
}

static void c_new_init(struct genl_msg *m)
{
	msg_start(m, family_id, 0, SYSTRACE_CMD_SESSION_NEW, SYSTRACE_GENL_VERSION);
	put_u32(m, SYSTRACE_A_PID, 1);
}

static const struct tcase {
	const char *name;
	void (*build)(struct genl_msg *m);
	const char *what;
} cases[] = {
	{ "status_ok", c_status_ok, "a valid STATUS request (control case)" },
	{ "status_unknown_attr", c_status_unknown_attr,
	  "STATUS with an attribute type above SYSTRACE_A_MAX" },
	{ "status_unexpected_attr", c_status_unexpected_attr,
	  "STATUS with SESSION_ID, an attribute STATUS does not take" },
	{ "status_pad_attr", c_status_pad_attr, "STATUS with a PAD attribute" },
	{ "status_trunc_attr", c_status_trunc_attr,
	  "STATUS whose attribute header claims more bytes than the message has" },
	{ "status_short_attr", c_status_short_attr,
	  "STATUS with an attribute length below the attribute header" },
	{ "status_trunc_genlhdr", c_status_trunc_genlhdr,
	  "a message too short to hold the genl header" },
	{ "status_trunc_datagram", c_status_trunc_datagram,
	  "nlmsg_len larger than the datagram sent" },
	{ "status_reserved", c_status_reserved, "genlmsghdr.reserved not 0" },
	{ "status_bad_flags", c_status_bad_flags, "NLM_F_REPLACE on a request" },
	{ "status_dump", c_status_dump, "STATUS as a dump, which it is not" },
	{ "unknown_cmd", c_unknown_cmd, "command 200" },
	{ "unspec_cmd", c_unspec_cmd, "command 0 (SYSTRACE_CMD_UNSPEC)" },
	{ "del_u16_id", c_del_u16_id, "SESSION_DEL with a 2-byte SESSION_ID" },
	{ "del_u64_id", c_del_u64_id, "SESSION_DEL with an 8-byte SESSION_ID" },
	{ "del_missing_id", c_del_missing_id, "SESSION_DEL without SESSION_ID" },
	{ "del_zero_id", c_del_zero_id, "SESSION_DEL with SESSION_ID 0" },
	{ "new_str_pid", c_new_str_pid, "SESSION_NEW with PID as a 2-byte string" },
	{ "new_name_unterminated", c_new_name_unterminated,
	  "SESSION_NEW with a NAME that has no NUL" },
	{ "new_name_too_long", c_new_name_too_long,
	  "SESSION_NEW with a NAME longer than SYSTRACE_NAME_MAX - 1" },
	{ "new_bad_flags", c_new_bad_flags, "SESSION_NEW with unknown FLAGS bits" },
	{ "new_pid_zero", c_new_pid_zero, "SESSION_NEW with PID 0" },
	{ "new_tree_on_exec", c_new_tree_on_exec,
	  "SESSION_NEW with FLAGS tree and on-exec, which do not go together" },
	{ "new_kthread", c_new_kthread, "SESSION_NEW with PID 2 (kthreadd)" },
	/* Last: the cases that run only when named (they may make a session). */
	{ "new_init", c_new_init, "SESSION_NEW with PID 1 (attaches to init: only when named)" },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))
#define NDEFAULT (NCASES - 1)	/* the cases run when none is named */

static const char *errno_name(int e)
{
	static const struct { int e; const char *n; } names[] = {
		{ 0, "OK" }, { EPERM, "EPERM" }, { ENOENT, "ENOENT" },
		{ ESRCH, "ESRCH" }, { ENOMEM, "ENOMEM" }, { EBUSY, "EBUSY" },
		{ EEXIST, "EEXIST" }, { EINVAL, "EINVAL" }, { ERANGE, "ERANGE" },
		{ EMSGSIZE, "EMSGSIZE" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ENOSPC, "ENOSPC" }, { E2BIG, "E2BIG" }, { EACCES, "EACCES" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	return "E?";
}

static void print_answer(const char *name, const struct answer *a)
{
	if (!a->got) {
		printf("%s noreply\n", name);
		return;
	}
	printf("%s errno=%d %s msg=\"%s\"", name, a->ack.error, errno_name(-a->ack.error),
	       a->ack.msg);
	if (a->ack.offs >= 0)
		printf(" offs=%ld", a->ack.offs);
	else
		printf(" offs=-");
	if (a->ack.miss_type >= 0)
		printf(" miss=%ld\n", a->ack.miss_type);
	else
		printf(" miss=-\n");
}

static const struct tcase *find_case(const char *name)
{
	size_t i;

	for (i = 0; i < NCASES; i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

static int run_case(const struct tcase *c)
{
	struct genl_msg m;
	struct answer a;

	c->build(&m);
	if (transact(&m, &a))
		return -1;
	print_answer(c->name, &a);
	return fflush(stdout) ? -1 : 0;
}

int main(int argc, char **argv)
{
	size_t i;
	int ret, k;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < NCASES; i++)
			printf("%-24s %s\n", cases[i].name, cases[i].what);
		return 0;
	}
	for (k = 1; k < argc; k++) {
		if (!find_case(argv[k])) {
			fprintf(stderr, "nlbad: unknown case '%s' (see nlbad --list)\n", argv[k]);
			return 1;
		}
	}
	if (open_socket())
		return 1;
	ret = resolve_family();
	if (ret)
		return ret;
	if (argc == 1) {
		for (i = 0; i < NDEFAULT; i++)
			if (run_case(&cases[i]))
				return 1;
	} else {
		for (k = 1; k < argc; k++)
			if (run_case(find_case(argv[k])))
				return 1;
	}
	genl_close(&sock);
	return 0;
}
