// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink client of the "systrace" family (libnl-genl-3): the
 * socket, the requests, and reading their replies. Each reply goes to
 * the request's parser (nl_decode.c), or, for a table dump, to the
 * decoder thread (nl_pipe.c).
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
#include "kmod/nl.h"
#include "kmod/nl_rx.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct st_nl {
	struct nl_sock *sk;
	int family;
};

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
	st_nl_take_reply(arg, nlmsg_hdr(msg));
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
	[SYSTRACE_CMD_PATH_GET] = "PATH_GET",
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
	     nla_put_u32(msg, SYSTRACE_A_LOG_BUFFER, n->log_buffer) < 0) ||
	    /* The default, unsaid: a module that counts no paths takes it. */
	    (n->paths != ST_PATHS_ERRORS &&
	     nla_put_u32(msg, SYSTRACE_A_PATHS, n->paths) < 0))
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
	if (req->parse == st_nl_parse_table)
		rx.dec = st_nl_decoder_start(&rx);
	while (!rx.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (rx.done)
			break;
		if (ret < 0) {
			st_nl_decoder_stop(rx.dec, &rx);
			st_err_set(err, ST_ERR_LOCAL, 0, op, "receiving: %s",
				   nl_geterror(ret));
			ret = -EIO;
			goto out;
		}
	}
	st_nl_decoder_stop(rx.dec, &rx);
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
		.cmd = SYSTRACE_CMD_STATUS, .parse = st_nl_parse_status, .arg = st,
	};

	memset(st, 0, sizeof(*st));
	return transact(nl, &req, NULL, err);
}

int st_nl_session_new(struct st_nl *nl, const struct st_session_req *sreq,
		      struct st_session_row *out, struct st_err *err)
{
	struct request req = {
		.cmd = SYSTRACE_CMD_SESSION_NEW, .new = sreq,
		.parse = st_nl_parse_session, .arg = out,
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
		.parse = st_nl_parse_session, .arg = NULL,
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
		.parse = st_nl_parse_session, .arg = out,
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
		.parse = st_nl_parse_session_list, .arg = &l,
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

static int path_key_cmp(const void *a, const void *b)
{
	return st_path_row_cmp(a, b);
}

/*
 * The session's path rows (PATH_GET). The module keeps a row per thread
 * that met a key: rows with one key are added up into one, as the BPF
 * backend's map has them.
 */
static int dump_paths(struct st_nl *nl, uint32_t id, struct st_dump *d,
		      struct st_err *err)
{
	struct table paths = {
		.type = SYSTRACE_A_PATH, .items = (void **)&d->paths, .n = &d->npaths,
		.dump = d,
	};
	struct request req = {
		.cmd = SYSTRACE_CMD_PATH_GET, .dump = true, .session_id = id,
		.parse = st_nl_parse_table, .arg = &paths,
	};
	bool intr = false;
	size_t i, n = 0;
	int ret;

	d->has_paths = true;
	d->paths_mode = d->session.paths_mode;
	d->dropped_paths = d->session.dropped_paths;
	ret = transact(nl, &req, &intr, err);
	d->interrupted |= intr;
	if (ret || !d->npaths)
		return ret;
	qsort(d->paths, d->npaths, sizeof(*d->paths), path_key_cmp);
	for (i = 1; i < d->npaths; i++) {
		if (!path_key_cmp(&d->paths[n], &d->paths[i]))
			d->paths[n].count += d->paths[i].count;
		else
			d->paths[++n] = d->paths[i];
	}
	d->npaths = n + 1;
	return 0;
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
		.parse = st_nl_parse_table, .arg = &procs,
	};
	struct request sreq = {
		.cmd = SYSTRACE_CMD_SITE_GET, .dump = true, .session_id = id,
		.parse = st_nl_parse_table, .arg = &sites,
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
	if (!ret && d->session.has_paths)
		ret = dump_paths(nl, id, d, err);
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
		.parse = st_nl_parse_events, .arg = &e,
	};
	int ret;

	ret = transact(nl, &req, NULL, err);
	*n = e.n;
	return ret;
}
