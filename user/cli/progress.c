// SPDX-License-Identifier: GPL-2.0
/*
 * The status line of start, log and report on a terminal (progress.h).
 * Each redraw is one write(2) of the terminal's own carriage return, the
 * text and its clear-to-end-of-line, so that a line is never left half
 * drawn; terminfo gives both sequences, with their padding (tputs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include "common.h"
#include "progress.h"

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * The terminal's cr and el, or false when terminfo has no entry for TERM
 * or the entry cannot erase a line. One TERM serves a process: the entry
 * is looked up once.
 */
static bool term_caps(int fd, const char **cr, const char **el)
{
	static int state;	/* 0: not looked up, 1: usable, -1: not */
	static const char *s_cr, *s_el;
	int err;

	if (!state) {
		state = -1;
		if (!setupterm(NULL, fd, &err) && err == 1) {
			s_cr = tigetstr("cr");
			s_el = tigetstr("el");
			if (s_cr && s_cr != (char *)-1 && s_el && s_el != (char *)-1)
				state = 1;
		}
	}
	*cr = s_cr;
	*el = s_el;
	return state > 0;
}

/* A redraw as tputs spells it, sent in one write. */
static struct {
	char buf[1024];
	size_t n;
} line;

static int line_putc(int c)
{
	if (line.n < sizeof(line.buf))
		line.buf[line.n++] = (char)c;
	return c;
}

static void line_puts(const char *s, size_t max_cols)
{
	size_t cols = 0;

	for (; *s; s++) {
		/* A UTF-8 continuation byte takes no column of its own. */
		if (((unsigned char)*s & 0xc0) != 0x80 && ++cols > max_cols)
			break;
		line_putc((unsigned char)*s);
	}
}

static void line_send(int fd)
{
	size_t off = 0;
	ssize_t w;

	while (off < line.n) {
		w = write(fd, line.buf + off, line.n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	line.n = 0;
}

/*
 * Only the foreground process group may draw: a systracectl sent to the
 * background leaves the terminal to whoever has it now.
 */
static bool foreground(int fd)
{
	pid_t pg = tcgetpgrp(fd);

	return pg >= 0 && pg == getpgrp();
}

void st_progress_init_fd(struct st_progress *p, int fd)
{
	const char *every = getenv("ST_TEST_PROGRESS_EVERY");
	const char *cr, *el;

	memset(p, 0, sizeof(*p));
	p->fd = fd >= 0 && isatty(fd) == 1 && term_caps(fd, &cr, &el) ? fd : -1;
	p->every = every ? strtoul(every, NULL, 10) : 0;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
}

void st_progress_init(struct st_progress *p)
{
	st_progress_init_fd(p, STDERR_FILENO);
}

/* Is @fd our controlling terminal? (TIOCGSID answers only for that one.) */
static bool is_ctty(int fd)
{
	pid_t sid;

	return isatty(fd) == 1 && ioctl(fd, TIOCGSID, &sid) == 0;
}

int st_progress_cmd_tty(enum st_progress_mode mode)
{
	const char *cr, *el;
	int fd, i;

	if (mode == ST_PROGRESS_OFF)
		return -1;
	if (mode == ST_PROGRESS_AUTO)
		for (i = 0; i <= STDERR_FILENO; i++)
			if (is_ctty(i))
				return -1;
	fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (mode == ST_PROGRESS_ON)
			st_warn("--progress: no status line: no terminal (/dev/tty: %s)",
				strerror(errno));
		return -1;
	}
	if (!term_caps(fd, &cr, &el)) {
		if (mode == ST_PROGRESS_ON && !getenv("TERM"))
			st_warn("--progress: no status line: TERM is not set");
		else if (mode == ST_PROGRESS_ON)
			st_warn("--progress: no status line: terminfo has no entry for TERM=%s that can erase a line",
				getenv("TERM"));
		close(fd);
		return -1;
	}
	return fd;
}

bool st_progress_due(struct st_progress *p, double *elapsed)
{
	struct timespec now;

	if (p->fd < 0)
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
	static const char prefix[] = "systracectl: ";
	const char *cr, *el;
	struct winsize ws;
	size_t max_cols = (size_t)-1;
	char text[512];
	va_list ap;

	if (p->fd < 0 || !foreground(p->fd) || !term_caps(p->fd, &cr, &el))
		return;
	va_start(ap, fmt);
	memcpy(text, prefix, sizeof(prefix) - 1);
	vsnprintf(text + sizeof(prefix) - 1, sizeof(text) - (sizeof(prefix) - 1), fmt, ap);
	va_end(ap);
	/* Short of the last column: a line that wraps cannot be rewritten. */
	if (!ioctl(p->fd, TIOCGWINSZ, &ws) && ws.ws_col > 1)
		max_cols = ws.ws_col - 1U;
	tputs(cr, 1, line_putc);
	line_puts(text, max_cols);
	tputs(el, 1, line_putc);
	line_send(p->fd);
	p->shown = true;
}

void st_progress_done(struct st_progress *p)
{
	const char *cr, *el;

	if (p->shown && foreground(p->fd) && term_caps(p->fd, &cr, &el)) {
		tputs(cr, 1, line_putc);
		tputs(el, 1, line_putc);
		line_send(p->fd);
	}
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
