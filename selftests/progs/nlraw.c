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
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/systrace.h>

#define BUFSZ (1 << 20)

static char req[65536];
static size_t req_len;
static char *buf;

static void die(const char *what)
{
	fprintf(stderr, "nlraw: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put_attr(int type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(req + req_len);

	if (req_len + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(req)) {
		fprintf(stderr, "nlraw: request too large\n");
		exit(1);
	}
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(req + req_len + NLA_HDRLEN, data, len);
	memset(req + req_len + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	req_len += NLA_HDRLEN + NLA_ALIGN(len);
}

static void begin(int family, int flags, int cmd, int version)
{
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	struct genlmsghdr *g = (struct genlmsghdr *)(req + NLMSG_HDRLEN);

	memset(req, 0, sizeof(req));
	n->nlmsg_type = family;
	n->nlmsg_flags = flags;
	n->nlmsg_seq = 1;
	g->cmd = cmd;
	g->version = version;
	req_len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static void send_req(int fd)
{
	((struct nlmsghdr *)req)->nlmsg_len = req_len;
	if (send(fd, req, req_len, 0) < 0)
		die("send");
}

/* The extack message after an NLMSG_ERROR (capped ack) or NLMSG_DONE. */
static const char *ext_msg(struct nlmsghdr *n, size_t off)
{
	struct nlattr *a;
	size_t pos = NLMSG_HDRLEN + off;

	if (!(n->nlmsg_flags & NLM_F_ACK_TLVS))
		return "-";
	while (pos + NLA_HDRLEN <= n->nlmsg_len) {
		a = (struct nlattr *)((char *)n + pos);
		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			return (char *)a + NLA_HDRLEN;
		pos += NLA_ALIGN(a->nla_len);
	}
	return "-";
}

static void print_error(int err, const char *msg)
{
	const char *name = strerrorname_np(err);

	printf("error %d %s %s\n", err, name ? name : "?", msg);
}

static int show;

static void show_row(const struct nlattr *nest)
{
	const char *p = (const char *)nest + NLA_HDRLEN;
	const char *end = (const char *)nest + nest->nla_len;
	const struct nlattr *a;
	size_t len;

	printf("row");
	while (p + NLA_HDRLEN <= end) {
		a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		len = a->nla_len - NLA_HDRLEN;
		p += NLA_ALIGN(a->nla_len);
		if ((a->nla_type & NLA_TYPE_MASK) == 1)	/* *_PAD */
			continue;
		printf(" %d=", a->nla_type & NLA_TYPE_MASK);
		if (len == 1)
			printf("%u", *(const uint8_t *)((const char *)a + NLA_HDRLEN));
		else if (len == 4)
			printf("%u", *(const uint32_t *)((const char *)a + NLA_HDRLEN));
		else if (len == 8)
			printf("%llu", (unsigned long long)*(const uint64_t *)((const char *)a + NLA_HDRLEN));
		else
			printf("%.*s", (int)strnlen((const char *)a + NLA_HDRLEN, len),
			       (const char *)a + NLA_HDRLEN);
	}
	printf("\n");
}

/* Rows in a message: its SESSION, PROC and SITE nests. */
static size_t count_rows(struct nlmsghdr *n)
{
	size_t pos = NLMSG_HDRLEN + GENL_HDRLEN, k = 0;
	struct nlattr *a;
	int type;

	while (pos + NLA_HDRLEN <= n->nlmsg_len) {
		a = (struct nlattr *)((char *)n + pos);
		if (a->nla_len < NLA_HDRLEN)
			break;
		type = a->nla_type & NLA_TYPE_MASK;
		if (type == SYSTRACE_A_SESSION || type == SYSTRACE_A_PROC ||
		    type == SYSTRACE_A_SITE) {
			k++;
			if (show)
				show_row(a);
		}
		pos += NLA_ALIGN(a->nla_len);
	}
	return k;
}

static long peek;

/* One message (or several), read as --peek asks. */
static ssize_t rx(int fd)
{
	ssize_t n;

	if (!peek)
		return recv(fd, buf, BUFSZ, 0);
	n = recv(fd, buf, peek, MSG_PEEK | MSG_TRUNC);
	if (n < 0)
		return n;
	return recv(fd, buf, n > peek ? n : peek, 0);
}

static int family_id(int fd)
{
	struct nlmsghdr *n;
	struct nlattr *a;
	ssize_t len;
	size_t pos;

	begin(GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY, 1);
	put_attr(CTRL_ATTR_FAMILY_NAME, "systrace", sizeof("systrace"));
	send_req(fd);
	len = rx(fd);
	if (len < 0)
		die("recv");
	n = (struct nlmsghdr *)buf;
	if (n->nlmsg_type == NLMSG_ERROR) {
		fprintf(stderr, "nlraw: no family systrace (module not loaded?)\n");
		exit(1);
	}
	for (pos = NLMSG_HDRLEN + GENL_HDRLEN; pos + NLA_HDRLEN <= n->nlmsg_len;) {
		a = (struct nlattr *)((char *)n + pos);
		if (a->nla_len < NLA_HDRLEN)
			break;
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
		pos += NLA_ALIGN(a->nla_len);
	}
	fprintf(stderr, "nlraw: no family id in the reply\n");
	exit(1);
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

static int run_do(int fd)
{
	struct nlmsghdr *n;
	struct nlmsgerr *e;
	ssize_t len;
	int replied = 0;

	for (;;) {
		len = rx(fd);
		if (len < 0)
			die("recv");
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_type != NLMSG_ERROR) {
				printf("reply %zu\n", count_rows(n));
				replied = 1;
				continue;
			}
			e = NLMSG_DATA(n);
			if (e->error)
				print_error(-e->error, ext_msg(n, sizeof(*e)));
			else
				printf("ack\n");
			return 0;
		}
		(void)replied;
	}
}

static int run_dump(int fd, long close_after)
{
	long msgs = 0, rows = 0;
	struct nlmsghdr *n;
	ssize_t len;
	int err;

	for (;;) {
		len = rx(fd);
		if (len < 0)
			die("recv");
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_type == NLMSG_DONE) {
				err = *(int *)NLMSG_DATA(n);
				if (err)
					print_error(-err, ext_msg(n, sizeof(int)));
				else
					printf("dump %ld %ld\n", msgs, rows);
				return 0;
			}
			if (n->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(n);

				print_error(-e->error, ext_msg(n, sizeof(*e)));
				return 0;
			}
			msgs++;
			rows += count_rows(n);
		}
		if (close_after && msgs >= close_after) {
			close(fd);
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

static int open_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		die("socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return fd;
}

/* A socket opened by a child running as uid u, passed back over SCM_RIGHTS. */
static int socket_opened_by(long u)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int sv[2], fd, st;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		become(u);
		fd = open_socket();
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
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
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the opener failed");
	close(sv[0]);
	close(sv[1]);
	return fd;
}

int main(int argc, char **argv)
{
	int fd, dump = 0, version = 1, cmd, i;
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
	fd = opener >= 0 ? socket_opened_by(opener) : open_socket();
	if (sender >= 0)
		become(sender);
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUF");
	cmd = atoi(argv[i++]);
	begin(family_id(fd), NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK), cmd, version);
	for (; i < argc; i++)
		add_attr_spec(argv[i]);
	send_req(fd);
	return dump ? run_dump(fd, close_after) : run_do(fd);
}
