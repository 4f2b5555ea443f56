// SPDX-License-Identifier: GPL-2.0
/* The backend the CLI talks to, and the calls it makes through its ops. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"

struct st_backend {
	const struct st_backend_ops *ops;
	void *priv;
};

static int backend_try(struct st_backend *b, const struct st_backend_ops *ops,
		       struct st_err *err)
{
	b->ops = ops;
	return ops->open(&b->priv, err);
}

/*
 * AUTO for a reader (@for_new false): what SYSTRACE_BACKEND names, else
 * the module when it is loaded, else BPF (whose sessions, if any, are
 * the only ones there can be).
 */
static int backend_open(struct st_backend **bp, enum st_backend_kind kind,
			bool for_new, struct st_err *err)
{
	struct st_backend *b;
	int ret;

	*bp = NULL;
	if (!for_new && kind == ST_BACKEND_AUTO && getenv("SYSTRACE_BACKEND") &&
	    st_backend_parse(getenv("SYSTRACE_BACKEND")) >= 0)
		kind = (enum st_backend_kind)st_backend_parse(getenv("SYSTRACE_BACKEND"));
	b = calloc(1, sizeof(*b));
	if (!b) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "backend", NULL);
		return -ENOMEM;
	}
	switch (kind) {
	case ST_BACKEND_KMOD:
		ret = backend_try(b, &st_backend_kmod, err);
		break;
	case ST_BACKEND_BPF:
		ret = backend_try(b, &st_backend_bpf, err);
		break;
	default:
		ret = backend_try(b, &st_backend_kmod, err);
		if (ret && err->kind == ST_ERR_NOMODULE)
			ret = backend_try(b, &st_backend_bpf, err);
		break;
	}
	if (ret) {
		free(b);
		return ret;
	}
	*bp = b;
	return 0;
}

int st_backend_open(struct st_backend **bp, struct st_err *err)
{
	return backend_open(bp, ST_BACKEND_AUTO, false, err);
}

int st_backend_open_kind(struct st_backend **bp, enum st_backend_kind kind,
			 struct st_err *err)
{
	return backend_open(bp, kind, true, err);
}

void st_backend_close(struct st_backend *b)
{
	if (!b)
		return;
	b->ops->close(b->priv);
	free(b);
}

int st_backend_status(struct st_backend *b, struct st_status *st,
		      struct st_err *err)
{
	return b->ops->status(b->priv, st, err);
}

int st_backend_session_new(struct st_backend *b,
			   const struct st_session_req *req,
			   struct st_session_row *out, struct st_err *err)
{
	return b->ops->session_new(b->priv, req, out, err);
}

int st_backend_session_del(struct st_backend *b, uint32_t id,
			   struct st_err *err)
{
	return b->ops->session_del(b->priv, id, err);
}

int st_backend_session_detach(struct st_backend *b, uint32_t id,
			      struct st_err *err)
{
	return b->ops->session_detach(b->priv, id, err);
}

int st_backend_session_get(struct st_backend *b, uint32_t id,
			   struct st_session_row *out, struct st_err *err)
{
	return b->ops->session_get(b->priv, id, out, err);
}

int st_backend_session_list(struct st_backend *b, struct st_session_row **out,
			    size_t *n, bool *interrupted, struct st_err *err)
{
	return b->ops->session_list(b->priv, out, n, interrupted, err);
}

int st_backend_dump(struct st_backend *b, uint32_t id, struct st_dump *d,
		    const struct st_site_sink *sink, struct st_err *err)
{
	return b->ops->dump(b->priv, id, d, sink, err);
}

int st_backend_log_read(struct st_backend *b, uint32_t id, struct st_log *log,
			size_t *n, struct st_err *err)
{
	*n = 0;
	return b->ops->log_read(b->priv, id, log, n, err);
}
