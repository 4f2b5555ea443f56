// SPDX-License-Identifier: GPL-2.0
/* The kernel module's backend: the generic netlink family of nl.c. */
#include <errno.h>
#include "backend.h"
#include "kmod/nl.h"

static int kmod_open(void **priv, struct st_err *err)
{
	struct st_nl *nl;
	int ret;

	ret = st_nl_open(&nl, err);
	*priv = nl;
	return ret;
}

static void kmod_close(void *priv)
{
	st_nl_close(priv);
}

static int kmod_status(void *priv, struct st_status *st, struct st_err *err)
{
	return st_nl_status(priv, st, err);
}

static int kmod_session_new(void *priv, const struct st_session_req *req,
			    struct st_session_row *out, struct st_err *err)
{
	return st_nl_session_new(priv, req, out, err);
}

static int kmod_session_del(void *priv, uint32_t id, struct st_err *err)
{
	return st_nl_session_del(priv, id, err);
}

static int kmod_session_detach(void *priv, uint32_t id, struct st_err *err)
{
	return st_nl_session_detach(priv, id, err);
}

static int kmod_session_get(void *priv, uint32_t id, struct st_session_row *out,
			    struct st_err *err)
{
	return st_nl_session_get(priv, id, out, err);
}

static int kmod_session_list(void *priv, struct st_session_row **out, size_t *n,
			     bool *interrupted, struct st_err *err)
{
	return st_nl_session_list(priv, out, n, interrupted, err);
}

static int kmod_dump(void *priv, uint32_t id, struct st_dump *d,
		     const struct st_site_sink *sink, struct st_err *err)
{
	return st_nl_dump(priv, id, d, sink, err);
}

static int kmod_log_read(void *priv, uint32_t id, struct st_log *log,
			 size_t *n, struct st_err *err)
{
	return st_nl_log_read(priv, id, log, n, err);
}

const struct st_backend_ops st_backend_kmod = {
	.open = kmod_open,
	.close = kmod_close,
	.status = kmod_status,
	.session_new = kmod_session_new,
	.session_del = kmod_session_del,
	.session_detach = kmod_session_detach,
	.session_get = kmod_session_get,
	.session_list = kmod_session_list,
	.dump = kmod_dump,
	.log_read = kmod_log_read,
};
