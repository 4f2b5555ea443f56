/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_CLI_PROGRESS_H
#define SYSTRACE_CLI_PROGRESS_H

/*
 * One status line on a terminal, rewritten in place, at most 4 times a
 * second (progress.c): start's, log's and report's while they record,
 * write or read a log. It is drawn with the terminal's own terminfo
 * sequences (cr, el): a terminal whose type terminfo does not know, or
 * that cannot erase a line, gets no status line. It is drawn only while
 * systracectl's process group is the terminal's foreground one, and cut to
 * the terminal's width.
 */
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct st_progress {
	int fd;			/* the terminal; -1: no status line */
	bool shown;
	struct timespec last, start;
	/*
	 * Tests only: ST_TEST_PROGRESS_EVERY=N makes every Nth call of
	 * st_progress_due due, whatever the clock says, so that a test counts
	 * redraws exactly on any machine.
	 */
	unsigned long every, calls;
};

/* The status line of log and report: on stderr, when it is a terminal. */
void st_progress_init(struct st_progress *p);
/* A status line on @fd when it is a terminal (-1: none). */
void st_progress_init_fd(struct st_progress *p, int fd);

/* start's --progress, --no-progress, or neither. */
enum st_progress_mode { ST_PROGRESS_AUTO, ST_PROGRESS_ON, ST_PROGRESS_OFF };

/*
 * Where start draws its status line while CMD runs: the controlling
 * terminal (/dev/tty), opened close-on-exec, or -1 for none. CMD owns that
 * terminal when any of the standard fds it inherits (0, 1, 2) is it: AUTO
 * then gives none. ON gives the terminal whenever there is one (and says
 * why when there is none); OFF, none.
 */
int st_progress_cmd_tty(enum st_progress_mode mode);

/* Whether a new line is due (and the time since the start, in s). */
bool st_progress_due(struct st_progress *p, double *elapsed);
void st_progress_show(struct st_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Erases the line, so that what follows starts clean. */
void st_progress_done(struct st_progress *p);
/* 1234567 as "1.23M", for a status line. */
void st_progress_num(char *buf, size_t len, double v);

#endif
