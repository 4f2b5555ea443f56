/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_ERR_H
#define SYSTRACE_ERR_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of every subcommand; documented in --help and docs/cli.md. */
enum st_exit {
	ST_EXIT_OK = 0,
	ST_EXIT_USAGE = 1,
	ST_EXIT_NOMODULE = 2,
	ST_EXIT_PERM = 3,
	ST_EXIT_KERNEL = 4,
	ST_EXIT_CHECK = 5,
	ST_EXIT_LOCAL = 6,
	ST_EXIT_BPF = 7,
};

enum st_err_kind {
	ST_ERR_NONE,
	ST_ERR_NOMODULE,	/* family "systrace" is not registered */
	ST_ERR_KERNEL,		/* the kernel answered with an error */
	ST_ERR_NOSESSION,	/* no session matches what was asked */
	ST_ERR_PROTO,		/* the kernel's reply did not decode */
	ST_ERR_LOCAL,		/* socket, memory, file or other local failure */
	ST_ERR_REFUSED,		/* systracectl refused it (the BPF backend's rules) */
	ST_ERR_BPF,		/* the kernel refused the BPF programs (verifier) */
};

/* Why a request failed: enough to print it and to pick the exit code. */
struct st_err {
	enum st_err_kind kind;
	int err;		/* positive errno */
	const char *op;		/* "SESSION_NEW", "open FILE", ... */
	/* the kernel's extack text, or a description (the verifier's last lines) */
	char msg[1024];
};

void st_err_set(struct st_err *e, enum st_err_kind kind, int err,
		const char *op, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int st_exit_code(const struct st_err *e);
void st_err_format(const struct st_err *e, char *buf, size_t len);
void st_err_hint(const struct st_err *e, bool root, bool userns, char *buf,
		 size_t len);
/* The error line, then a "hint: " line when there is a hint. */
void st_err_print(const struct st_err *e);

void st_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define ST_NOMODULE_MSG \
	"systrace module is not loaded; load it with: insmod kmod/systrace.ko (or modprobe systrace)"

#endif
