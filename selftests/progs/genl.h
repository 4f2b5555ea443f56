/* SPDX-License-Identifier: GPL-2.0 */
/*
 * genl.h: raw generic netlink for the test programs, with no library in
 * between, so that a test can send what a library would refuse to build.
 *
 *   socket    genl_open() (extended and capped acks, a receive timeout, a
 *             receive buffer), genl_send(), genl_recv(), genl_close(),
 *             genl_resolve() (CTRL_CMD_GETFAMILY: name to family id)
 *   building  genl_msg_init(), then per message of a datagram
 *             genl_msg_begin() ... genl_msg_end(); attributes with
 *             genl_put*() (genl_put_raw() writes any nla_len, a lie
 *             included), nests with genl_nest_start()/genl_nest_end()
 *   parsing   genl_for_each_attr(), genl_attr_find(), genl_attr_u32()...,
 *             genl_msg_attrs() (the attributes after the genl header),
 *             genl_parse_ack() (NLMSG_ERROR or NLMSG_DONE: the error, the
 *             extack message, offset and missing attribute)
 *
 * Every function is static inline: a program uses what it needs and the
 * rest costs nothing, with no unused-function warning.
 */
#ifndef SYSTRACE_SELFTESTS_GENL_H
#define SYSTRACE_SELFTESTS_GENL_H

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* --- the socket ------------------------------------------------------- */

struct genl_sock {
	int fd;
	uint32_t portid;	/* the kernel-chosen port id of the socket */
	uint32_t seq;		/* genl_seq(): the last sequence number used */
};

/*
 * Opens a NETLINK_GENERIC socket with NETLINK_EXT_ACK and NETLINK_CAP_ACK
 * (an ack does not quote the request), bound to a port id the kernel
 * chooses. rcvtimeo_ms > 0 sets SO_RCVTIMEO; rcvbuf > 0 sets the receive
 * buffer (SO_RCVBUFFORCE when allowed, else SO_RCVBUF, which the kernel
 * caps at rmem_max). Returns 0 or -errno.
 */
static inline int genl_open(struct genl_sock *s, int rcvtimeo_ms, int rcvbuf)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof(sa);
	int one = 1, err;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	if (setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)))
		goto fail;
	if (rcvtimeo_ms > 0) {
		struct timeval tv = {
			.tv_sec = rcvtimeo_ms / 1000,
			.tv_usec = (rcvtimeo_ms % 1000) * 1000,
		};

		if (setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			goto fail;
	}
	if (rcvbuf > 0 &&
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		goto fail;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &salen))
		goto fail;
	s->portid = sa.nl_pid;
	return 0;
fail:
	err = -errno;
	close(s->fd);
	s->fd = -1;
	return err;
}

static inline void genl_close(struct genl_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* The next sequence number of the socket (never 0). */
static inline uint32_t genl_seq(struct genl_sock *s)
{
	if (++s->seq == 0)
		s->seq = 1;
	return s->seq;
}

/* Sends one datagram to the kernel. Returns 0 or -errno. */
static inline int genl_send(const struct genl_sock *s, const void *buf, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n = sendto(s->fd, buf, len, 0, (struct sockaddr *)&kernel,
			   sizeof(kernel));

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

/*
 * Receives one datagram. timeout_ms < 0 waits as the socket says
 * (SO_RCVTIMEO), 0 does not wait, > 0 waits that long. Returns its length,
 * -EAGAIN when nothing came in time, or -errno (-ENOBUFS: the socket's
 * receive queue overran and answers were lost).
 */
static inline ssize_t genl_recv(const struct genl_sock *s, void *buf, size_t len,
				int timeout_ms)
{
	ssize_t n;

	if (timeout_ms >= 0) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		int r;

		do
			r = poll(&p, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EAGAIN;
	}
	do
		n = recv(s->fd, buf, len, timeout_ms >= 0 ? MSG_DONTWAIT : 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n;
}

/* --- building requests --------------------------------------------------- */

struct genl_msg {
	unsigned char *buf;
	size_t cap;
	size_t len;		/* bytes of the datagram so far */
	size_t hdr;		/* offset of the message being built */
	int overflow;		/* a put did not fit (and wrote nothing) */
};

static inline void genl_msg_init(struct genl_msg *m, void *buf, size_t cap)
{
	m->buf = buf;
	m->cap = cap;
	m->len = 0;
	m->hdr = 0;
	m->overflow = 0;
}

static inline struct nlmsghdr *genl_msg_nlh(const struct genl_msg *m)
{
	return (struct nlmsghdr *)(m->buf + m->hdr);
}

/* Makes room for len bytes at the end (zeroed); NULL when they do not fit. */
static inline void *genl_msg_reserve(struct genl_msg *m, size_t len)
{
	void *p;

	if (m->overflow || len > m->cap - m->len) {
		m->overflow = 1;
		return NULL;
	}
	p = m->buf + m->len;
	memset(p, 0, len);
	m->len += len;
	return p;
}

/* Appends len raw bytes, no alignment: for garbage and cut-off tails. */
static inline int genl_put_bytes(struct genl_msg *m, const void *data, size_t len)
{
	void *p = genl_msg_reserve(m, len);

	if (!p)
		return -EMSGSIZE;
	memcpy(p, data, len);
	return 0;
}

/* Pads the datagram to the next 4-byte boundary with zeros. */
static inline void genl_msg_align(struct genl_msg *m)
{
	genl_msg_reserve(m, NLMSG_ALIGN(m->len) - m->len);
}

/*
 * Starts a message at the next aligned offset of the datagram: its
 * nlmsghdr and genlmsghdr. genl_msg_end() sets its nlmsg_len.
 */
static inline struct nlmsghdr *genl_msg_begin(struct genl_msg *m, uint16_t type,
					      uint16_t flags, uint32_t seq,
					      uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	genl_msg_align(m);
	m->hdr = m->len;
	nlh = genl_msg_reserve(m, NLMSG_HDRLEN + GENL_HDRLEN);
	if (!nlh)
		return NULL;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	g = NLMSG_DATA(nlh);
	g->cmd = cmd;
	g->version = version;
	nlh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	return nlh;
}

/* nlmsg_len := every byte since genl_msg_begin(). */
static inline void genl_msg_end(struct genl_msg *m)
{
	genl_msg_nlh(m)->nlmsg_len = m->len - m->hdr;
}

/*
 * Appends an attribute whose header says len_field, whatever the payload
 * really is (len bytes), then pads it to 4 bytes. Returns the attribute,
 * or NULL when it does not fit.
 */
static inline struct nlattr *genl_put_raw(struct genl_msg *m, uint16_t type,
					  uint16_t len_field, const void *data,
					  size_t len)
{
	struct nlattr *a;

	genl_msg_align(m);
	a = genl_msg_reserve(m, NLA_HDRLEN + NLA_ALIGN(len));
	if (!a)
		return NULL;
	a->nla_type = type;
	a->nla_len = len_field;
	if (len)
		memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
	return a;
}

static inline struct nlattr *genl_put(struct genl_msg *m, uint16_t type,
				      const void *data, size_t len)
{
	if (NLA_HDRLEN + len > 0xffff) {
		m->overflow = 1;
		return NULL;
	}
	return genl_put_raw(m, type, NLA_HDRLEN + len, data, len);
}

static inline struct nlattr *genl_put_u8(struct genl_msg *m, uint16_t type, uint8_t v)
{
	return genl_put(m, type, &v, sizeof(v));
}

static inline struct nlattr *genl_put_u16(struct genl_msg *m, uint16_t type, uint16_t v)
{
	return genl_put(m, type, &v, sizeof(v));
}

static inline struct nlattr *genl_put_u32(struct genl_msg *m, uint16_t type, uint32_t v)
{
	return genl_put(m, type, &v, sizeof(v));
}

static inline struct nlattr *genl_put_u64(struct genl_msg *m, uint16_t type, uint64_t v)
{
	return genl_put(m, type, &v, sizeof(v));
}

/* A string with its NUL. */
static inline struct nlattr *genl_put_str(struct genl_msg *m, uint16_t type,
					  const char *s)
{
	return genl_put(m, type, s, strlen(s) + 1);
}

/*
 * A nest: genl_nest_start() returns its offset in the datagram (type is
 * written as given: OR in NLA_F_NESTED for a well-formed nest);
 * genl_nest_end() sets its nla_len over everything put since.
 */
static inline size_t genl_nest_start(struct genl_msg *m, uint16_t type)
{
	struct nlattr *a = genl_put_raw(m, type, NLA_HDRLEN, NULL, 0);

	return a ? (size_t)((unsigned char *)a - m->buf) : (size_t)-1;
}

static inline void genl_nest_end(struct genl_msg *m, size_t off)
{
	struct nlattr *a;

	if (off == (size_t)-1 || m->overflow)
		return;
	a = (struct nlattr *)(m->buf + off);
	a->nla_len = m->len - off > 0xffff ? 0xffff : m->len - off;
}

/* --- parsing answers ------------------------------------------------------ */

/*
 * Walks the well-formed attributes of head[0..len): the walk stops at the
 * first attribute shorter than its header or longer than what is left.
 */
#define genl_for_each_attr(a, head, len, rem)					\
	for ((a) = (const struct nlattr *)(head), (rem) = (len);		\
	     (rem) >= NLA_HDRLEN && (a)->nla_len >= NLA_HDRLEN &&		\
	     (a)->nla_len <= (rem);						\
	     (rem) -= (size_t)NLA_ALIGN((a)->nla_len) < (rem) ?		\
		      (size_t)NLA_ALIGN((a)->nla_len) : (rem),			\
	     (a) = (const struct nlattr *)((const unsigned char *)(a) +	\
					   NLA_ALIGN((a)->nla_len)))

static inline const void *genl_attr_data(const struct nlattr *a)
{
	return (const unsigned char *)a + NLA_HDRLEN;
}

static inline size_t genl_attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* The attributes of a genl message: after its genlmsghdr. */
static inline const struct nlattr *genl_msg_attrs(const struct nlmsghdr *nlh,
						  size_t *len)
{
	size_t start = NLMSG_HDRLEN + GENL_HDRLEN;

	*len = nlh->nlmsg_len > start ? nlh->nlmsg_len - start : 0;
	return (const struct nlattr *)((const unsigned char *)nlh + start);
}

/* The first attribute of type (flag bits ignored), or NULL. */
static inline const struct nlattr *genl_attr_find(const void *head, size_t len,
						  int type)
{
	const struct nlattr *a;
	size_t rem;

	genl_for_each_attr(a, head, len, rem)
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

/* Reads a scalar of exactly its size: 0, or -EINVAL when a is NULL or its size differs. */
static inline int genl_attr_u8(const struct nlattr *a, uint8_t *v)
{
	if (!a || genl_attr_len(a) != sizeof(*v))
		return -EINVAL;
	memcpy(v, genl_attr_data(a), sizeof(*v));
	return 0;
}

static inline int genl_attr_u16(const struct nlattr *a, uint16_t *v)
{
	if (!a || genl_attr_len(a) != sizeof(*v))
		return -EINVAL;
	memcpy(v, genl_attr_data(a), sizeof(*v));
	return 0;
}

static inline int genl_attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a || genl_attr_len(a) != sizeof(*v))
		return -EINVAL;
	memcpy(v, genl_attr_data(a), sizeof(*v));
	return 0;
}

static inline int genl_attr_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a || genl_attr_len(a) != sizeof(*v))
		return -EINVAL;
	memcpy(v, genl_attr_data(a), sizeof(*v));
	return 0;
}

struct genl_ack {
	int error;		/* 0 or -errno */
	char msg[256];		/* NLMSGERR_ATTR_MSG, "" when none */
	long offs;		/* NLMSGERR_ATTR_OFFS, -1 when none */
	long miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 when none */
	long miss_nest;		/* NLMSGERR_ATTR_MISS_NEST, -1 when none */
};

/*
 * Parses an NLMSG_ERROR (an ack: error 0, or a rejection) or an
 * NLMSG_DONE (the end of a dump: its error, 0 when it went well) with
 * their extended-ack attributes. Returns 0, or -EBADMSG for another type
 * or a message too short to hold what its header says.
 */
static inline int genl_parse_ack(const struct nlmsghdr *nlh, struct genl_ack *a)
{
	const unsigned char *p = NLMSG_DATA(nlh);
	const unsigned char *end = (const unsigned char *)nlh + nlh->nlmsg_len;
	const struct nlattr *t;
	size_t rem, plen;

	memset(a, 0, sizeof(*a));
	a->offs = a->miss_type = a->miss_nest = -1;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = (const struct nlmsgerr *)p;

		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EBADMSG;
		a->error = e->error;
		p += sizeof(*e);
		/* Without NLM_F_CAPPED the ack quotes the whole request. */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			p += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(e->msg);
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		int err = 0;

		/* A dump's end carries its error (a bare one may carry none). */
		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(err)))
			memcpy(&err, p, sizeof(err));
		a->error = err;
		p += sizeof(err);
	} else {
		return -EBADMSG;
	}
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || p >= end)
		return 0;
	genl_for_each_attr(t, p, (size_t)(end - p), rem) {
		plen = genl_attr_len(t);
		switch (t->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			snprintf(a->msg, sizeof(a->msg), "%.*s", (int)plen,
				 (const char *)genl_attr_data(t));
			a->msg[strcspn(a->msg, "\n")] = '\0';
			break;
		case NLMSGERR_ATTR_OFFS:
			if (plen == 4)
				a->offs = *(const uint32_t *)genl_attr_data(t);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (plen == 4)
				a->miss_type = *(const uint32_t *)genl_attr_data(t);
			break;
		case NLMSGERR_ATTR_MISS_NEST:
			if (plen == 4)
				a->miss_nest = *(const uint32_t *)genl_attr_data(t);
			break;
		}
	}
	return 0;
}

/*
 * Resolves a family name to its id (CTRL_CMD_GETFAMILY). Returns the id,
 * -ENOENT when no such family is registered, -EAGAIN when no answer came
 * within the socket's timeout, or another -errno.
 */
static inline int genl_resolve(struct genl_sock *s, const char *name)
{
	unsigned char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct genl_msg m;
	uint32_t seq = genl_seq(s);
	int id = -ENODATA, err;

	genl_msg_init(&m, buf, sizeof(buf));
	genl_msg_begin(&m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, seq,
		       CTRL_CMD_GETFAMILY, 1);
	genl_put_str(&m, CTRL_ATTR_FAMILY_NAME, name);
	genl_msg_end(&m);
	if (m.overflow)
		return -EMSGSIZE;
	err = genl_send(s, buf, m.len);
	if (err)
		return err;
	for (;;) {
		ssize_t n = genl_recv(s, buf, sizeof(buf), -1);
		const struct nlmsghdr *nlh;
		size_t rem;

		if (n < 0)
			return (int)n;
		rem = (size_t)n;
		for (nlh = (const struct nlmsghdr *)buf; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			struct genl_ack ack;
			const struct nlattr *attrs;
			uint16_t v;
			size_t alen;

			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				if (genl_parse_ack(nlh, &ack))
					return -EBADMSG;
				return ack.error ? ack.error : id;
			}
			if (nlh->nlmsg_type != GENL_ID_CTRL)
				continue;
			attrs = genl_msg_attrs(nlh, &alen);
			if (!genl_attr_u16(genl_attr_find(attrs, alen,
							  CTRL_ATTR_FAMILY_ID), &v))
				id = v;
		}
	}
}

#endif /* SYSTRACE_SELFTESTS_GENL_H */
