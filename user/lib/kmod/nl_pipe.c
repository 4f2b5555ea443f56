// SPDX-License-Identifier: GPL-2.0
/*
 * The table dumps' pipeline: while the transport reads the next replies,
 * a second thread decodes the rows of those already read (see below).
 * Also the decoding of replies handed in by a caller (st_nl_decode_rows,
 * st_nl_decode_replies: the unit tests').
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include "base/worker.h"
#include "kmod/nl.h"
#include "kmod/nl_rx.h"

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
			st_nl_parse_table(&dc->rx, (struct nlattr *)(b + off), (int)n);
		off += REC_ALIGN(n);
	}
}

/* NULL: no thread (the caller decodes as it reads). */
struct decoder *st_nl_decoder_start(const struct rx *rx)
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
void st_nl_decoder_stop(struct decoder *dc, struct rx *rx)
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
void st_nl_take_reply(struct rx *rx, struct nlmsghdr *nlh)
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
	struct rx rx = { .parse = st_nl_parse_table };
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
		rx.dec = st_nl_decoder_start(&rx);
	for (i = 0; i < n; i++)
		st_nl_take_reply(&rx, nlh[i]);
	st_nl_decoder_stop(rx.dec, &rx);
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
