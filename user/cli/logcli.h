/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_CLI_LOG_H
#define SYSTRACE_CLI_LOG_H

/*
 * The temporal log's options, its file and its drain, shared by start and
 * log (log.c); and the status line both show on a terminal.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "log.h"

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

/* A log being recorded: its file (FILE.partial until the end) and events. */
struct st_log_rec {
	struct st_log_kind kind;
	struct st_log_out *out;
	struct st_log log;
	bool drain_failed;
};

struct st_backend;
struct st_err;

/*
 * Opens FILE.partial and the spool beside it, before anything is traced.
 * Returns 0 or an exit code (the error said).
 */
int st_log_begin(struct st_log_rec *rec, const struct st_log_opts *o);
/* Takes what the tracer has buffered; says a failure once. */
void st_log_drain(struct st_log_rec *rec, struct st_backend *be, uint32_t id);
/*
 * The last drain, the rows, and the file: renamed to FILE when whole.
 * Returns 0 or an exit code; frees what rec holds either way.
 */
int st_log_save(struct st_log_rec *rec, struct st_backend *be, uint32_t id,
		const struct st_log_opts *o);
/* Gives up: removes FILE.partial and the spool. */
void st_log_abandon(struct st_log_rec *rec);

/*
 * One status line on stderr, rewritten in place, at most 4 times a
 * second, only when stderr is a terminal.
 */
struct st_progress {
	bool on, shown;
	struct timespec last, start;
	/*
	 * Tests only: ST_TEST_PROGRESS_EVERY=N makes every Nth call of
	 * st_progress_due due, whatever the clock says, so that a test counts
	 * redraws exactly on any machine.
	 */
	unsigned long every, calls;
};

void st_progress_init(struct st_progress *p);
/* Whether a new line is due (and the time since the start, in s). */
bool st_progress_due(struct st_progress *p, double *elapsed);
void st_progress_show(struct st_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Erases the line, so that what follows starts clean. */
void st_progress_done(struct st_progress *p);
/* 1234567 as "1.23M", for a status line. */
void st_progress_num(char *buf, size_t len, double v);

#endif
