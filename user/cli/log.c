// SPDX-License-Identifier: GPL-2.0
/*
 * The temporal log from the CLI: start's --log options, draining a
 * session's events while it runs, and writing the log file at the end;
 * systracectl log, which does the same for a session started elsewhere.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "log.h"
#include "logcli.h"
#include "subcommands.h"
#include "systrace.h"

const char log_usage[] =
	"Usage: systracectl log [SESSION] -o FILE [--log-format FORMAT]\n"
	"                       [--early-object PATH] [--no-symbols]\n"
	"       systracectl log --input LOG -o FILE [--log-format FORMAT]\n\n"
	"Drains the temporal log of SESSION (default: the newest), a session\n"
	"started with --log or --log-buffer, until every traced task is gone\n"
	"or SIGINT, then writes every syscall in order with its site and phase,\n"
	"and the fork, exec and exit events, to FILE. Each event is read once:\n"
	"run one reader per session. With --input, converts a saved CSV or JSONL\n"
	"log to FORMAT (its phases as saved) instead.\n\n"
	"  -o, --output FILE      the log file (required)\n"
	"  -f, --log-format F     csv (default), jsonl, or chrome (trace-event\n"
	"                         JSON for Perfetto and chrome://tracing)\n"
	"  -e, --early-object P   calls before the image's first call from\n"
	"                         outside both its interpreter and P (e.g. an\n"
	"                         LD_PRELOAD library) are early too\n"
	"  --no-symbols           leave the symbol column empty\n"
	"  -i, --input LOG        a saved log to convert, not a session\n"
	"  -h, --help\n";

static const struct {
	const char *name;
	enum st_log_format fmt;
} formats[] = {
	{ "csv", ST_LOG_CSV },
	{ "jsonl", ST_LOG_JSONL },
	{ "chrome", ST_LOG_CHROME },
};

/* 64K, 4M, 1G: binary units; a plain number is bytes. */
static int parse_size(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -EINVAL;
	if (v > (UINT32_MAX >> shift))
		return -ERANGE;
	*out = (uint32_t)(v << shift);
	return 0;
}

int st_log_opt(int c, const char *arg, const char *usage,
	       struct st_log_opts *o)
{
	size_t i;

	switch (c) {
	case 'L':
		o->path = arg;
		if (!o->buffer)
			o->buffer = ST_LOG_BUFFER_DEFAULT;
		return -1;
	case 'B':
		if (parse_size(arg, &o->buffer) || o->buffer < SYSTRACE_LOG_BUFFER_MIN ||
		    o->buffer > SYSTRACE_LOG_BUFFER_MAX)
			return st_usage_error(usage, "--log-buffer: '%s' is not a size from 4K to 256M (bytes per CPU)",
					      arg);
		return -1;
	case 'f':
		for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
			if (!strcmp(arg, formats[i].name)) {
				o->fmt = formats[i].fmt;
				o->fmt_set = true;
				return -1;
			}
		return st_usage_error(usage, "--log-format: '%s' is not csv, jsonl or chrome", arg);
	case 'e':
		o->early_object = arg;
		return -1;
	case 'N':
		o->no_symbols = true;
		return -1;
	default:
		return ST_OPT_NOT_MINE;
	}
}

int st_log_drain(struct st_backend *be, uint32_t id, struct st_log *log,
		 struct st_err *err)
{
	size_t n;

	return st_backend_log_read(be, id, log, &n, err);
}

/* The final drain, the rows, and the file. Returns 0 or an exit code. */
int st_log_save(struct st_backend *be, uint32_t id, struct st_log *log,
		const struct st_log_opts *o)
{
	struct st_dump d;
	struct st_err err;
	FILE *f;
	int ret;

	if (st_log_drain(be, id, log, &err) || st_session_fetch(be, id, &d, &err))
		return st_fail(&err, NULL);
	if (!o->no_symbols && st_symbolize_dump(&d)) {
		st_err_set(&err, ST_ERR_LOCAL, ENOMEM, "symbolizing the sites", NULL);
		st_dump_free(&d);
		return st_fail(&err, NULL);
	}
	if (st_log_finish(log, &d)) {
		st_err_set(&err, ST_ERR_LOCAL, ENOMEM, "ordering the log", NULL);
		st_dump_free(&d);
		return st_fail(&err, NULL);
	}
	st_log_phases(log, &d, o->early_object);
	f = fopen(o->path, "w");
	if (!f) {
		st_err_set(&err, ST_ERR_LOCAL, errno, o->path, NULL);
		st_dump_free(&d);
		return st_fail(&err, NULL);
	}
	ret = st_log_write(f, o->fmt, log, &d);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret) {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "writing the log", "%s", o->path);
		st_dump_free(&d);
		return st_fail(&err, NULL);
	}
	st_warn("log: %zu events to %s%s", log->n, o->path,
		d.session.dropped_events ? "" : ", none dropped");
	if (d.session.dropped_events)
		st_warn("log: %" PRIu64 " syscalls are not in the log: its buffer was full "
			"(they are in the rows; see --log-buffer)", d.session.dropped_events);
	st_dump_free(&d);
	return 0;
}

/* log --input: a saved log in another format. */
static int convert(const char *input, const struct st_log_opts *o)
{
	struct st_log log = { 0 };
	struct st_dump d = { 0 };
	struct st_err err;
	FILE *f;
	int ret;

	if (st_log_load(input, &log, &d, &err))
		return st_fail(&err, NULL);
	f = fopen(o->path, "w");
	if (!f) {
		st_err_set(&err, ST_ERR_LOCAL, errno, o->path, NULL);
		ret = st_fail(&err, NULL);
		goto out;
	}
	ret = st_log_write(f, o->fmt, &log, &d);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret) {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "writing the log", "%s", o->path);
		ret = st_fail(&err, NULL);
	}
out:
	st_log_free(&log);
	st_dump_free(&d);
	return ret;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

int log_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'L' },
		{ "log-format", required_argument, NULL, 'f' },
		{ "early-object", required_argument, NULL, 'e' },
		{ "no-symbols", no_argument, NULL, 'N' },
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *input = NULL;
	const struct timespec tick = { .tv_nsec = 50 * 1000 * 1000 };
	struct st_log_opts o = { .fmt = ST_LOG_CSV };
	struct st_log log = { 0 };
	struct sigaction sa = { .sa_handler = on_stop };
	struct st_session_row s;
	struct st_backend *be;
	struct st_err err;
	uint32_t id;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":o:f:e:i:h", opts, NULL)) != -1) {
		if (c == 'o')
			c = 'L';
		if (c == 'i') {
			input = optarg;
			continue;
		}
		ret = st_log_opt(c, optarg, log_usage, &o);
		if (ret >= 0)
			return ret;
		if (ret == -1)
			continue;
		if (c == 'h')
			return st_print_usage(log_usage, ST_CODES_READ);
		return st_bad_option(log_usage, argv, c);
	}
	if (!o.path)
		return st_usage_error(log_usage, "no output file: -o FILE");
	if (argc - optind > 1)
		return st_usage_error(log_usage, "one session at most");
	if (input) {
		if (optind < argc || o.early_object)
			return st_usage_error(log_usage, "--input takes no SESSION and no --early-object");
		return convert(input, &o);
	}
	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	if (st_session_pick(be, optind < argc ? argv[optind] : NULL, &id, &err) ||
	    st_backend_session_get(be, id, &s, &err))
		return st_fail(&err, be);
	if (!s.log_buffer) {
		st_err_set(&err, ST_ERR_KERNEL, ENOENT, "log",
			   "session %" PRIu32 " keeps no log: start it with --log FILE or --log-buffer SIZE",
			   id);
		return st_fail(&err, be);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		if (st_log_drain(be, id, &log, &err) ||
		    st_backend_session_get(be, id, &s, &err)) {
			st_log_free(&log);
			return st_fail(&err, be);
		}
		if (st_state_final(s.state))
			break;
		nanosleep(&tick, NULL);
	}
	ret = st_log_save(be, id, &log, &o);
	st_log_free(&log);
	st_backend_close(be);
	return ret;
}
