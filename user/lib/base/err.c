// SPDX-License-Identifier: GPL-2.0
/* Error reporting and the mapping from errors to exit codes. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "base/err.h"

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
	case ST_ERR_REFUSED:
		if (e->err == EPERM || e->err == EACCES)
			return ST_EXIT_PERM;
		return ST_EXIT_KERNEL;
	case ST_ERR_BPF:
		return ST_EXIT_BPF;
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
		if ((e->err == EPERM || e->err == EACCES) && !e->msg[0]) {
			snprintf(buf, len, "kernel rejected %s: permission denied (%s)",
				 op, strerror(e->err));
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
	case ST_ERR_REFUSED:
		snprintf(buf, len, "%s: %s (%s)", op, e->msg, strerror(e->err));
		break;
	case ST_ERR_BPF:
		snprintf(buf, len, "%s: %s", op, e->msg);
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

/*
 * What to do about a permission error, given who the caller is: root
 * (euid 0) or not, and inside a user namespace or not. Empty for other
 * errors.
 */
void st_err_hint(const struct st_err *e, bool root, bool userns, char *buf,
		 size_t len)
{
	buf[0] = '\0';
	if ((e->kind != ST_ERR_KERNEL && e->kind != ST_ERR_REFUSED) ||
	    (e->err != EPERM && e->err != EACCES))
		return;
	if (strstr(e->msg, "BPF backend"))
		snprintf(buf, len, "%s", !root ? "you are not root: run systracectl as root" :
			 userns ? "you are root only inside a user namespace (a container?): "
				  "the BPF backend needs CAP_SYS_ADMIN in the initial one; "
				  "run systracectl as root on the host" :
				  "this root process lacks CAP_SYS_ADMIN: run systracectl "
				  "with root's capabilities");
	else if (strstr(e->msg, "ptrace"))
		snprintf(buf, len, "tracing a process of another uid or gid, or one "
			 "that is not dumpable (setuid, setgid, file capabilities), "
			 "also needs CAP_SYS_PTRACE, as root has; "
			 "systracectl start -- CMD traces a CMD of your own");
	else if (!root)
		snprintf(buf, len, "you are not root: run systracectl as root, "
			 "or give it CAP_PERFMON (as perf needs)");
	else if (userns)
		snprintf(buf, len, "you are root only inside a user namespace "
			 "(a container?), and CAP_PERFMON or CAP_SYS_ADMIN count "
			 "only in the initial one: run systracectl as root on the host");
	else
		snprintf(buf, len, "this root process lacks CAP_PERFMON and "
			 "CAP_SYS_ADMIN: run systracectl with root's capabilities");
}

/*
 * Whether this process is in a user namespace other than the initial
 * one: the initial namespace maps every uid to itself in one line.
 */
static bool in_user_namespace(void)
{
	unsigned long first, lower, count;
	FILE *f = fopen("/proc/self/uid_map", "r");
	int n, c;

	if (!f)
		return false;
	n = fscanf(f, "%lu %lu %lu", &first, &lower, &count);
	while ((c = fgetc(f)) == ' ' || c == '\n')
		;
	fclose(f);
	return !(n == 3 && first == 0 && lower == 0 && count == 4294967295UL &&
		 c == EOF);
}

void st_err_print(const struct st_err *e)
{
	char buf[1536];

	st_err_format(e, buf, sizeof(buf));
	st_warn("%s", buf);
	st_err_hint(e, geteuid() == 0, in_user_namespace(), buf, sizeof(buf));
	if (buf[0])
		st_warn("hint: %s", buf);
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
