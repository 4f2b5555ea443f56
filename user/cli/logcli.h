/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_CLI_LOG_H
#define SYSTRACE_CLI_LOG_H

/*
 * What start and log share of the temporal log (logcli.c): its options,
 * and the recorder (lib/log/recorder.h) on a session, saying what it did.
 */
#include <stdbool.h>
#include <stdint.h>
#include "log/recorder.h"
#include "progress.h"

/* Bytes per CPU when --log is given without --log-buffer. */
#define ST_LOG_BUFFER_DEFAULT	(4U << 20)

struct st_log_opts {
	const char *path;		/* NULL: no log file */
	int fmt;			/* enum st_log_format; -1: from the name */
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
/*
 * Once the options are read: a file name and format that go together (a
 * Chrome or Perfetto trace is not compressed). -1, or a usage error's code.
 */
int st_log_opts_check(const struct st_log_opts *o, const char *usage);

struct st_backend;

/*
 * st_recorder_begin: FILE.partial and the spool, before anything is
 * traced. Returns 0 or an exit code (the error said).
 */
int st_log_begin(struct st_recorder **rp, const struct st_log_opts *o);
/* st_recorder_drain from session id; a failure said, once. */
/* 0, or the exit code of why the tracer's events could not be drained. */
int st_log_drain(struct st_recorder *rec, struct st_backend *be, uint32_t id);
/*
 * A last drain and st_recorder_save, with a status line on the terminal
 * progress_fd (-1: none) while the log is written; says the outcome.
 * Returns 0 or an exit code; rec is ended. To give up instead:
 * st_recorder_abandon.
 */
int st_log_save(struct st_recorder *rec, struct st_backend *be, uint32_t id,
		const struct st_log_opts *o, int progress_fd);

#endif
