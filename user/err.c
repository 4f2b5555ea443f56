// SPDX-License-Identifier: GPL-2.0
/* Error reporting and the mapping from errors to exit codes. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include "err.h"

void st_err_set(struct st_err *e, enum st_err_kind kind, int err,
		const char *op, const char *fmt, ...)
{
	va_list ap;

	e->kind = kind;
	e->err = err < 0 ? -err : err;
	e->op = op;
	e->msg[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
}

int st_exit_code(const struct st_err *e)
{
	switch (e->kind) {
	case ST_ERR_NONE:
		return ST_EXIT_OK;
	case ST_ERR_NOMODULE:
		return ST_EXIT_NOMODULE;
	case ST_ERR_KERNEL:
		if (e->err == EPERM || e->err == EACCES)
			return ST_EXIT_PERM;
		return ST_EXIT_KERNEL;
	case ST_ERR_NOSESSION:
		return ST_EXIT_KERNEL;
	case ST_ERR_PROTO:
	case ST_ERR_LOCAL:
		break;
	}
	return ST_EXIT_LOCAL;
}

/* One line, without the program name or the newline. */
void st_err_format(const struct st_err *e, char *buf, size_t len)
{
	const char *op = e->op ? e->op : "request";

	switch (e->kind) {
	case ST_ERR_NONE:
		snprintf(buf, len, "no error");
		break;
	case ST_ERR_NOMODULE:
		snprintf(buf, len, "%s", ST_NOMODULE_MSG);
		break;
	case ST_ERR_KERNEL:
		if (e->err == EPERM || e->err == EACCES) {
			snprintf(buf, len,
				 "permission denied: %s needs CAP_NET_ADMIN%s%s%s (%s)",
				 op, geteuid() ? "; you are not root, run as root" : "",
				 e->msg[0] ? ": " : "", e->msg, strerror(e->err));
			break;
		}
		if (e->msg[0])
			snprintf(buf, len, "kernel rejected %s: %s (%s)", op,
				 e->msg, strerror(e->err));
		else
			snprintf(buf, len, "kernel rejected %s: %s", op,
				 strerror(e->err));
		break;
	case ST_ERR_NOSESSION:
		snprintf(buf, len, "%s", e->msg);
		break;
	case ST_ERR_PROTO:
		snprintf(buf, len, "malformed reply to %s: %s", op, e->msg);
		break;
	case ST_ERR_LOCAL:
		if (e->msg[0] && e->err)
			snprintf(buf, len, "%s: %s: %s", op, e->msg, strerror(e->err));
		else if (e->msg[0])
			snprintf(buf, len, "%s: %s", op, e->msg);
		else
			snprintf(buf, len, "%s: %s", op, strerror(e->err));
		break;
	}
}

void st_err_print(const struct st_err *e)
{
	char buf[512];

	st_err_format(e, buf, sizeof(buf));
	st_warn("%s", buf);
}

void st_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("systracectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
