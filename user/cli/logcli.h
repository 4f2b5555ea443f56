/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_CLI_LOG_H
#define SYSTRACE_CLI_LOG_H

/* The temporal log's options and drain, shared by start and log (log.c). */
#include <stdbool.h>
#include <stdint.h>
#include "log.h"

/* Bytes per CPU when --log is given without --log-buffer. */
#define ST_LOG_BUFFER_DEFAULT	(4U << 20)

struct st_log_opts {
	const char *path;		/* NULL: no log file */
	enum st_log_format fmt;
	bool fmt_set;
	uint32_t buffer;		/* bytes per CPU; 0: no log */
	const char *early_object;
	bool no_symbols;
};

/*
 * 'L' (the file), 'B' (--log-buffer), 'f' (--log-format), 'e'
 * (--early-object), 'N' (--no-symbols): -1 when @c is one of them and @arg
 * is good, ST_OPT_NOT_MINE for another option, else a usage error's code.
 */
int st_log_opt(int c, const char *arg, const char *usage,
	       struct st_log_opts *o);

struct st_backend;
struct st_err;
int st_log_drain(struct st_backend *be, uint32_t id, struct st_log *log,
		 struct st_err *err);
int st_log_save(struct st_backend *be, uint32_t id, struct st_log *log,
		const struct st_log_opts *o);

#endif
