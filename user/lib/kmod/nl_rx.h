/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_NL_RX_H
#define SYSTRACE_NL_RX_H

/*
 * What the netlink backend's three files share, private to them: the
 * state of one request while its replies are read (struct rx), the
 * parsers of the replies (nl_decode.c) and the decoder thread of the table
 * dumps (nl_pipe.c), which the transport (nl.c) hands each reply. A parser
 * takes one reply's attributes; on a malformed or unaffordable one it
 * records the first error in rx (bad_reply, no_memory) and the request
 * fails with it once its replies are all read.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include "model/model.h"

struct nlattr;
struct nlmsghdr;
struct decoder;
struct st_log;

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

static inline int bad_reply(struct rx *rx, const char *why)
{
	if (!rx->local_err) {
		rx->local_err = EBADMSG;
		snprintf(rx->why, sizeof(rx->why), "%s", why);
	}
	return -EBADMSG;
}

static inline int no_memory(struct rx *rx)
{
	if (!rx->local_err) {
		rx->local_err = ENOMEM;
		snprintf(rx->why, sizeof(rx->why), "out of memory");
	}
	return -ENOMEM;
}

/* The arg of a SESSION_GET dump's parser: the sessions, grown by one each. */
struct session_list {
	struct st_session_row *items;
	size_t n, cap;
};

/* Table dumps carry several nests of one type per message. */
struct table {
	int type;		/* SYSTRACE_A_PROC, SYSTRACE_A_SITE or SYSTRACE_A_PATH */
	void **items;
	size_t *n;
	size_t cap;
	struct st_dump *dump;	/* its pool holds the sites' paths */
};

/* The arg of LOG_READ's parser: the log the events go to, and how many. */
struct events {
	struct st_log *log;
	size_t n;
};

/* nl_decode.c: one reply's attributes, decoded into rx->arg. */
int st_nl_parse_status(struct rx *rx, struct nlattr *attrs, int len);
int st_nl_parse_session(struct rx *rx, struct nlattr *attrs, int len);
int st_nl_parse_session_list(struct rx *rx, struct nlattr *attrs, int len);
int st_nl_parse_table(struct rx *rx, struct nlattr *attrs, int len);
int st_nl_parse_events(struct rx *rx, struct nlattr *attrs, int len);

/*
 * nl_pipe.c: the decoder thread of a table dump (rx->parse is
 * st_nl_parse_table); NULL when there is no thread, and the replies are
 * decoded as they are read. st_nl_take_reply hands it each reply, or
 * decodes the reply at once; st_nl_decoder_stop waits for it and passes its
 * first error on to rx.
 */
struct decoder *st_nl_decoder_start(const struct rx *rx);
void st_nl_decoder_stop(struct decoder *dc, struct rx *rx);
void st_nl_take_reply(struct rx *rx, struct nlmsghdr *nlh);

#endif
