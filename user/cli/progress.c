// SPDX-License-Identifier: GPL-2.0
/* The status line of start, log and report on a terminal (progress.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "progress.h"

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void st_progress_init(struct st_progress *p)
{
	const char *every = getenv("ST_TEST_PROGRESS_EVERY");

	memset(p, 0, sizeof(*p));
	p->on = isatty(STDERR_FILENO) == 1;
	p->every = every ? strtoul(every, NULL, 10) : 0;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
}

bool st_progress_due(struct st_progress *p, double *elapsed)
{
	struct timespec now;

	if (!p->on)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->every ? ++p->calls % p->every : since(&p->last, &now) < 0.25)
		return false;
	p->last = now;
	if (elapsed)
		*elapsed = since(&p->start, &now);
	return true;
}

void st_progress_show(struct st_progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->on)
		return;
	fputs("\rsystracectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\033[K", stderr);
	fflush(stderr);
	p->shown = true;
}

void st_progress_done(struct st_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

void st_progress_num(char *buf, size_t len, double v)
{
	if (v < 1e4)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else
		snprintf(buf, len, "%.2fG", v / 1e9);
}
