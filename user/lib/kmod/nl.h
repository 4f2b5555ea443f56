/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_NL_H
#define SYSTRACE_NL_H

/*
 * The only user of libnl: sends the family's commands and decodes the
 * replies into the plain structs of model.h; the kmod backend's transport
 * (backend_kmod.c), private to lib/. Every function returns 0 or -errno
 * and, on failure, fills *err (kernel errno and extack message, or what
 * went wrong locally).
 */
#include <stdbool.h>
#include "backend.h"
#include "base/err.h"
#include "model/model.h"

struct st_nl;

int st_nl_open(struct st_nl **nlp, struct st_err *err);
void st_nl_close(struct st_nl *nl);

int st_nl_status(struct st_nl *nl, struct st_status *st, struct st_err *err);
int st_nl_session_new(struct st_nl *nl, const struct st_session_req *req,
		      struct st_session_row *out, struct st_err *err);
int st_nl_session_del(struct st_nl *nl, uint32_t id, struct st_err *err);
int st_nl_session_detach(struct st_nl *nl, uint32_t id, struct st_err *err);
int st_nl_session_get(struct st_nl *nl, uint32_t id, struct st_session_row *out,
		      struct st_err *err);
int st_nl_session_list(struct st_nl *nl, struct st_session_row **out, size_t *n,
		       bool *interrupted, struct st_err *err);
/*
 * Fills d->session, procs and sites (not sorted); sets d->interrupted.
 * With a sink (NULL: none), the site rows go there (model.h).
 */
int st_nl_dump(struct st_nl *nl, uint32_t id, struct st_dump *d,
	       const struct st_site_sink *sink, struct st_err *err);

/* LOG_READ: appends the events buffered now to log; *n: how many. */
int st_nl_log_read(struct st_nl *nl, uint32_t id, struct st_log *log,
		   size_t *n, struct st_err *err);

struct nlmsghdr;
/*
 * Decodes one message of a PROC_GET or SITE_GET dump, appending its rows to
 * d; what the dumps do for each message they receive (the unit tests feed
 * it messages of their own).
 */
int st_nl_decode_rows(struct nlmsghdr *nlh, struct st_dump *d,
		      struct st_err *err);
/*
 * The replies of one PROC_GET or SITE_GET dump, in order, as the dump
 * reads them: decoded on a second thread while the next ones are taken.
 */
int st_nl_decode_replies(struct nlmsghdr *const *nlh, size_t n,
			 struct st_dump *d, struct st_err *err);

#endif
