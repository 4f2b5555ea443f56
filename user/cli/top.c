// SPDX-License-Identifier: GPL-2.0
/*
 * systracectl top: a view of a running session, refreshed every interval:
 * its busiest processes and syscalls since the last read.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "report.h"
#include "subcommands.h"
#include "libsystrace.h"

const char top_usage[] =
	"Usage: systracectl top [SESSION] [--interval S] [--count N] [--top N] [--wide]\n\n"
	"Shows a running session's busiest processes and syscalls: what each\n"
	"gained since the last read (calls and errors per second, time inside\n"
	"the calls), read again every interval until the session has no task\n"
	"left, --count frames were shown, or SIGINT. On a terminal each frame\n"
	"replaces the last; otherwise frames follow each other, separated by a\n"
	"blank line. SESSION is as for dump (default: the newest session); a\n"
	"stored run (docs/store.md) shows one frame, its rates over the run's\n"
	"span: from its creation to its last process's end.\n\n"
	"  --interval S   seconds between reads, 1 to 3600 (default 1)\n"
	"  --count N      stop after N frames (default: when the session ends)\n"
	"  --top N        rows of each table (default 10)\n"
	"  --wide         every column and whole strings\n"
	"  -h, --help\n";

#define DEFAULT_TOP 10

struct top_opts {
	const char *session;
	uint64_t interval, count, top;
	bool wide;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* Returns -1 to go on, or an exit code. */
static int parse(int argc, char **argv, struct top_opts *o)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "top", required_argument, NULL, 'k' },
		ST_WIDE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	o->interval = 1;
	o->top = DEFAULT_TOP;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (st_parse_u64(optarg, &o->interval, 1) || o->interval > 3600)
				return st_usage_error(top_usage, "--interval needs 1 to 3600 seconds");
			break;
		case 'n':
			if (st_parse_u64(optarg, &o->count, 1))
				return st_usage_error(top_usage, "--count needs a number >= 1");
			break;
		case 'k':
			if (st_parse_u64(optarg, &o->top, 1))
				return st_usage_error(top_usage, "--top needs a number >= 1");
			break;
		case 'W':
			o->wide = true;
			break;
		case 'h':
			return st_print_usage(top_usage, ST_CODES_READ);
		default:
			return st_bad_option(top_usage, argv, c);
		}
	}
	if (optind < argc)
		o->session = argv[optind++];
	if (optind < argc)
		return st_usage_error(top_usage, "unexpected argument '%s'", argv[optind]);
	return -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One frame to stdout: a terminal is cleared first. */
static int frame(const struct top_opts *o, const struct st_dump *prev,
		 const struct st_dump *now, uint64_t ns, bool tty, bool first)
{
	struct rt_report r = { 0 };
	int ret;

	ret = report_top(&r, prev, now, ns, o->top);
	if (!ret) {
		if (tty)
			fputs("\033[H\033[2J", stdout);
		else if (!first)
			fputc('\n', stdout);
		ret = rt_report_print_layout(stdout, &r, ST_FMT_TEXT, NULL,
					     o->wide ? &st_text_wide : &st_text_fit);
		if (!ret && (fflush(stdout) || ferror(stdout)))
			ret = -EIO;
	}
	rt_report_free(&r);
	return ret;
}

/* Sleeps s seconds, or less when SIGINT or SIGTERM came. */
static void pause_s(uint64_t s)
{
	struct timespec ts = { .tv_sec = (time_t)s };

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * No live session answers (or no tracer can be asked): the stored run
 * o->session names, as one frame whose rates are over the run's span, from
 * its creation to its last process's end. The tracer's error (terr) is
 * said when the store has no such run either.
 */
static int stored(const struct top_opts *o, const struct st_err *terr, bool tty)
{
	struct st_dump d;
	struct st_err err;
	uint64_t end = 0;
	size_t i;
	int ret;

	memset(&d, 0, sizeof(d));
	if (st_run_read(o->session, &d, &err)) {
		if (err.kind == ST_ERR_NOSESSION &&
		    (terr->kind == ST_ERR_NOSESSION || terr->kind == ST_ERR_NOMODULE ||
		     terr->err == ENOENT))
			return st_fail(&err, NULL);
		return st_fail(terr, NULL);
	}
	for (i = 0; i < d.nprocs; i++)
		if (d.procs[i].has_end_ns && d.procs[i].end_ns > end)
			end = d.procs[i].end_ns;
	ret = frame(o, NULL, &d, end > d.session.created_ns ? end - d.session.created_ns : 1,
		    tty, true);
	st_dump_free(&d);
	if (ret) {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "writing the view", NULL);
		return st_fail(&err, NULL);
	}
	return ST_EXIT_OK;
}

int top_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct st_dump d[2];
	struct top_opts o = { 0 };
	struct st_backend *be;
	struct st_err err;
	uint64_t t[2] = { 0, 0 }, shown = 0;
	bool tty = isatty(STDOUT_FILENO);
	uint32_t id;
	int ret, cur = 0;

	memset(d, 0, sizeof(d));
	ret = parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (st_backend_open(&be, &err))
		return stored(&o, &err, tty);
	if (st_session_pick(be, o.session, &id, &err)) {
		st_backend_close(be);
		return stored(&o, &err, tty);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		memset(&d[cur], 0, sizeof(d[cur]));
		if (st_session_fetch(be, id, &d[cur], &err)) {
			st_dump_free(&d[!cur]);
			return st_fail(&err, be);
		}
		t[cur] = now_ns();
		/* The first frame: since the session began. */
		ret = frame(&o, shown ? &d[!cur] : NULL, &d[cur],
			    shown ? t[cur] - t[!cur] :
				    t[cur] - (d[cur].session.created_ns ?
					      d[cur].session.created_ns : t[cur]),
			    tty, !shown);
		shown++;
		st_dump_free(&d[!cur]);
		if (ret || stop || (o.count && shown >= o.count) ||
		    st_state_final(d[cur].session.state))
			break;
		pause_s(o.interval);
		if (stop)
			break;
		cur = !cur;
	}
	st_dump_free(&d[cur]);
	st_backend_close(be);
	if (ret) {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "writing the view", NULL);
		return st_fail(&err, NULL);
	}
	return ST_EXIT_OK;
}
