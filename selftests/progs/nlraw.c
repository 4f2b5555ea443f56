// SPDX-License-Identifier: GPL-2.0
/*
 * nlraw: send one hand-made request to the "systrace" generic netlink
 * family and print what came back, for the bad-input tests.
 *
 *   nlraw [OPTIONS] CMD [ATTR...]
 *
 * CMD is a number (SYSTRACE_CMD_*). ATTR is TYPE:KIND[:VALUE] with KIND
 *   u8, u16, u32, u64   a number
 *   str                 VALUE with its NUL
 *   raw                 VALUE without a NUL
 *   fill                VALUE bytes of 'a' and a NUL
 *   zero                VALUE zero bytes
 * Options:
 *   --dump       NLM_F_DUMP instead of a do request
 *   --close N    a dump: read N messages, then close the socket mid-dump
 *   --rcvbuf N   SO_RCVBUF before sending
 *   --peek N     read as a reader with an N-byte buffer that peeks at each
 *                message's length and grows for a longer one (libnl with
 *                peeking on): the kernel sizes a dump's messages by it
 *   --version N  genl header version (default 1)
 *   --show       a dump: also print each row, "row TYPE=VALUE..." (u8,
 *                u32 and u64 as numbers, strings as they are; pads left out)
 *   --opener-uid U  the socket is opened by a child running as uid and gid U
 *                (no groups, no capabilities) and handed over; this process
 *                sends on it
 *   --sender-uid U  after opening the socket, become uid and gid U (no
 *                groups, no capabilities), then send
 *
 * Output: "ack" (a do request succeeded; "reply ROWS" first when a message
 * came back), "dump MSGS ROWS" (a dump's messages and its rows: SESSION,
 * PROC and SITE nests), "closed after N messages", or "error ERRNO NAME MSG"
 * where NAME is the errno's symbolic name and MSG the extack text ("-" if none);
 * a dump whose NLMSG_DONE carries an error prints that error.
 * Exit status: 0 when the kernel answered, 1 on a local failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/systrace.h>
#include "genl.h"

#define BUFSZ (1 << 20)

static unsigned char req[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
static struct genl_msg msg;
static char *buf;

static void die(const char *what)
{
	fprintf(stderr, "nlraw: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put_attr(int type, const void *data, size_t len)
{
	if (!genl_put(&msg, type, data, len)) {
		fprintf(stderr, "nlraw: request too large\n");
		exit(1);
	}
}

/*
 * send(), not genl_send(): a datagram sent to an explicit address is marked
 * NETLINK_SKB_DST, and netlink_capable() then skips the credentials of the
 * socket's opener, which --opener-uid tests.
 */
static void send_req(const struct genl_sock *s)
{
	genl_msg_end(&msg);
	if (send(s->fd, req, msg.len, 0) < 0)
		die("send");
}

/* The extack message of an ack or a dump's end, "-" when it has none. */
static void print_error(const struct genl_ack *ack)
{
	const char *name = strerrorname_np(-ack->error);

	printf("error %d %s %s\n", -ack->error, name ? name : "?",
	       ack->msg[0] ? ack->msg : "-");
}

static int show;

static void show_row(const struct nlattr *nest)
{
	const struct nlattr *a;
	const void *v;
	size_t len, rem;

	printf("row");
	genl_for_each_attr(a, genl_attr_data(nest), genl_attr_len(nest), rem) {
		len = genl_attr_len(a);
		v = genl_attr_data(a);
		if ((a->nla_type & NLA_TYPE_MASK) == 1)	/* *_PAD */
			continue;
		printf(" %d=", a->nla_type & NLA_TYPE_MASK);
		if (len == 1)
			printf("%u", *(const uint8_t *)v);
		else if (len == 4)
			printf("%u", *(const uint32_t *)v);
		else if (len == 8)
			printf("%llu", (unsigned long long)*(const uint64_t *)v);
		else
			printf("%.*s", (int)strnlen(v, len), (const char *)v);
	}
	printf("\n");
}

/* Rows in a message: its SESSION, PROC and SITE nests. */
static size_t count_rows(const struct nlmsghdr *n)
{
	const struct nlattr *a;
	size_t len, rem, k = 0;
	const void *attrs = genl_msg_attrs(n, &len);
	int type;

	genl_for_each_attr(a, attrs, len, rem) {
		type = a->nla_type & NLA_TYPE_MASK;
		if (type == SYSTRACE_A_SESSION || type == SYSTRACE_A_PROC ||
		    type == SYSTRACE_A_SITE) {
			k++;
			if (show)
				show_row(a);
		}
	}
	return k;
}

static long peek;

/* One message (or several), read as --peek asks. */
static ssize_t rx(const struct genl_sock *s)
{
	ssize_t n;

	if (!peek)
		return recv(s->fd, buf, BUFSZ, 0);
	n = recv(s->fd, buf, peek, MSG_PEEK | MSG_TRUNC);
	if (n < 0)
		return n;
	return recv(s->fd, buf, n > peek ? n : peek, 0);
}

static int family_id(struct genl_sock *s)
{
	int id = genl_resolve(s, SYSTRACE_GENL_NAME);

	if (id == -ENOENT) {
		fprintf(stderr, "nlraw: no family systrace (module not loaded?)\n");
		exit(1);
	}
	if (id == -ENODATA) {
		fprintf(stderr, "nlraw: no family id in the reply\n");
		exit(1);
	}
	if (id < 0) {
		errno = -id;
		die("CTRL_CMD_GETFAMILY");
	}
	return id;
}

static void add_attr_spec(char *spec)
{
	char *kind = strchr(spec, ':'), *val;
	int type = atoi(spec);
	unsigned long long v;
	size_t len;
	char *tmp;

	if (!kind) {
		fprintf(stderr, "nlraw: bad attribute '%s'\n", spec);
		exit(1);
	}
	kind++;
	val = strchr(kind, ':');
	val = val ? val + 1 : "";
	v = strtoull(val, NULL, 0);
	if (!strncmp(kind, "u8:", 3)) {
		uint8_t x = v;
		put_attr(type, &x, 1);
	} else if (!strncmp(kind, "u16:", 4)) {
		uint16_t x = v;
		put_attr(type, &x, 2);
	} else if (!strncmp(kind, "u32:", 4)) {
		uint32_t x = v;
		put_attr(type, &x, 4);
	} else if (!strncmp(kind, "u64:", 4)) {
		uint64_t x = v;
		put_attr(type, &x, 8);
	} else if (!strncmp(kind, "str:", 4)) {
		put_attr(type, val, strlen(val) + 1);
	} else if (!strncmp(kind, "raw:", 4)) {
		put_attr(type, val, strlen(val));
	} else if (!strncmp(kind, "fill:", 5) || !strncmp(kind, "zero:", 5)) {
		len = v;
		tmp = calloc(1, len + 1);
		if (!tmp)
			die("calloc");
		if (kind[0] == 'f')
			memset(tmp, 'a', len);
		put_attr(type, tmp, kind[0] == 'f' ? len + 1 : len);
		free(tmp);
	} else {
		fprintf(stderr, "nlraw: bad attribute kind in '%s'\n", spec);
		exit(1);
	}
}

static int run_do(const struct genl_sock *s)
{
	struct genl_ack ack;
	struct nlmsghdr *n;
	ssize_t len;

	for (;;) {
		len = rx(s);
		if (len < 0)
			die("recv");
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_type != NLMSG_ERROR) {
				printf("reply %zu\n", count_rows(n));
				continue;
			}
			genl_parse_ack(n, &ack);
			if (ack.error)
				print_error(&ack);
			else
				printf("ack\n");
			return 0;
		}
	}
}

static int run_dump(struct genl_sock *s, long close_after)
{
	long msgs = 0, rows = 0;
	struct genl_ack ack;
	struct nlmsghdr *n;
	ssize_t len;

	for (;;) {
		len = rx(s);
		if (len < 0)
			die("recv");
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_type == NLMSG_DONE) {
				genl_parse_ack(n, &ack);
				if (ack.error)
					print_error(&ack);
				else
					printf("dump %ld %ld\n", msgs, rows);
				return 0;
			}
			if (n->nlmsg_type == NLMSG_ERROR) {
				genl_parse_ack(n, &ack);
				print_error(&ack);
				return 0;
			}
			msgs++;
			rows += count_rows(n);
		}
		if (close_after && msgs >= close_after) {
			genl_close(s);
			printf("closed after %ld messages\n", msgs);
			return 0;
		}
	}
}

/* Become uid and gid u with no groups: every capability goes. */
static void become(long u)
{
	if (setgroups(0, NULL) || setresgid(u, u, u) || setresuid(u, u, u))
		die("becoming another user");
}

static void open_socket(struct genl_sock *s)
{
	int err = genl_open(s, 0, 0);

	if (err) {
		errno = -err;
		die("socket");
	}
}

/* A socket opened by a child running as uid u, passed back over SCM_RIGHTS. */
static void socket_opened_by(struct genl_sock *s, long u)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int sv[2], st;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		become(u);
		open_socket(s);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &s->fd, sizeof(int));
		if (sendmsg(sv[1], &mh, 0) != 1)
			die("sendmsg");
		_exit(0);
	}
	if (recvmsg(sv[0], &mh, 0) != 1)
		die("recvmsg");
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS) {
		fprintf(stderr, "nlraw: no socket from the opener\n");
		exit(1);
	}
	memset(s, 0, sizeof(*s));
	memcpy(&s->fd, CMSG_DATA(c), sizeof(int));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the opener failed");
	close(sv[0]);
	close(sv[1]);
}

int main(int argc, char **argv)
{
	int dump = 0, version = 1, cmd, i;
	struct genl_sock s;
	long close_after = 0, opener = -1, sender = -1;
	int rcvbuf = 0;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--dump"))
			dump = 1;
		else if (!strcmp(argv[i], "--close") && i + 1 < argc)
			close_after = atol(argv[++i]);
		else if (!strcmp(argv[i], "--rcvbuf") && i + 1 < argc)
			rcvbuf = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--peek") && i + 1 < argc)
			peek = atol(argv[++i]);
		else if (!strcmp(argv[i], "--show"))
			show = 1;
		else if (!strcmp(argv[i], "--version") && i + 1 < argc)
			version = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--opener-uid") && i + 1 < argc)
			opener = atol(argv[++i]);
		else if (!strcmp(argv[i], "--sender-uid") && i + 1 < argc)
			sender = atol(argv[++i]);
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: nlraw [--dump] [--show] [--close N] [--rcvbuf N] [--peek N] [--version N]\n"
			"             [--opener-uid U | --sender-uid U] CMD [TYPE:KIND:VALUE...]\n");
		return 1;
	}
	buf = malloc(BUFSZ);
	if (!buf)
		die("malloc");
	if (opener >= 0)
		socket_opened_by(&s, opener);
	else
		open_socket(&s);
	if (sender >= 0)
		become(sender);
	if (rcvbuf && setsockopt(s.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUF");
	cmd = atoi(argv[i++]);
	genl_msg_init(&msg, req, sizeof(req));
	genl_msg_begin(&msg, family_id(&s), NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK),
		       genl_seq(&s), cmd, version);
	for (; i < argc; i++)
		add_attr_spec(argv[i]);
	send_req(&s);
	return dump ? run_dump(&s, close_after) : run_do(&s);
}
