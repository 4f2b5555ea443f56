/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_CLI_PROGRESS_H
#define SYSTRACE_CLI_PROGRESS_H

/*
 * One status line on stderr, rewritten in place, at most 4 times a
 * second, only when stderr is a terminal (progress.c): start's, log's
 * and report's while they record, write or read a log.
 */
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

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
