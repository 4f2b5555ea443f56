// SPDX-License-Identifier: GPL-2.0
/* The backend the CLI talks to, and the calls it makes through its ops. */
#include <errno.h>
#include <stdlib.h>
#include "backend.h"

struct st_backend {
	const struct st_backend_ops *ops;
	void *priv;
};

int st_backend_open(struct st_backend **bp, struct st_err *err)
{
	struct st_backend *b;
	int ret;

	*bp = NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "backend", NULL);
		return -ENOMEM;
	}
	b->ops = &st_backend_kmod;
	ret = b->ops->open(&b->priv, err);
	if (ret) {
		free(b);
		return ret;
	}
	*bp = b;
	return 0;
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
		    struct st_err *err)
{
	return b->ops->dump(b->priv, id, d, err);
}

int st_backend_log_read(struct st_backend *b, uint32_t id, struct st_log *log,
			size_t *n, struct st_err *err)
{
	return b->ops->log_read(b->priv, id, log, n, err);
}
