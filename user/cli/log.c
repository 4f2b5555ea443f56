// SPDX-License-Identifier: GPL-2.0
/*
 * systracectl log: records the temporal log of a session started
 * elsewhere (the recorder of lib/log/recorder.h, through logcli.c, as
 * start --log does), or converts a saved log to another format.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "logcli.h"
#include "subcommands.h"
#include "libsystrace.h"

const char log_usage[] =
	"Usage: systracectl log [SESSION] -o FILE [--log-format FORMAT]\n"
	"                       [--early-object PATH] [--no-symbols]\n"
	"       systracectl log --input LOG -o FILE [--log-format FORMAT]\n\n"
	"Drains the temporal log of SESSION (default: the newest), a session\n"
	"started with --log or --log-buffer, until every traced task is gone\n"
	"or SIGINT, then writes every syscall in order with its site and phase,\n"
	"and the fork, exec and exit events, to FILE. Each event is read once:\n"
	"run one reader per session. With --input, converts a saved log (CSV or\n"
	"JSONL, zstd-compressed or not, or a spool a failed recording kept) to\n"
	"FORMAT (its phases as saved) instead. A SESSION that no live session\n"
	"answers is a stored run (docs/store.md): the log file its start --log\n"
	"wrote, whose path the store keeps, is converted the same way.\n\n"
	"  -o, --output FILE      the log file: written as FILE.partial, renamed\n"
	"                         once whole; a name ending in .zst compresses it\n"
	"  -f, --log-format F     csv, jsonl, chrome (trace-event JSON), or\n"
	"                         perfetto (Perfetto's protobuf trace); default:\n"
	"                         from FILE's name (.jsonl, .json, .pftrace,\n"
	"                         .perfetto-trace), else csv\n"
	"  -e, --early-object P   calls before the image's first call from\n"
	"                         outside both its interpreter and P (e.g. an\n"
	"                         LD_PRELOAD library) are early too\n"
	"  --no-symbols           leave the symbol column empty\n"
	"  -i, --input LOG        a saved log to convert, not a session\n"
	"  -h, --help\n";

/* ---- log --input: a saved log in another format, streamed ---- */

static int convert(const char *input, const struct st_log_opts *o)
{
	struct st_log_src *src = NULL;
	struct st_log_writer *w = NULL;
	struct st_log_out *out = NULL;
	struct st_log_kind kind;
	struct st_progress p;
	struct st_event ev;
	struct st_err err;
	uint64_t n = 0, done, size;
	double t;
	char a[16], b[16];
	int ret;

	if (st_log_kind_of(o->path, o->fmt, &kind, &err) ||
	    st_log_src_open(&src, input, &err))
		return st_fail(&err, NULL);
	if (st_log_out_open(&out, o->path, &kind, &err)) {
		st_log_src_close(src);
		return st_fail(&err, NULL);
	}
	st_progress_init(&p);
	/* The writer once the first event has said the session. */
	while ((ret = st_log_src_next(src, &ev, &err)) == 1) {
		if (!w && (ret = st_log_writer_new(&w, st_log_out_file(out), kind.fmt,
						   st_log_src_meta(src)))) {
			st_err_set(&err, ST_ERR_LOCAL, -ret, "log", NULL);
			break;
		}
		ret = st_log_writer_event(w, &ev);
		if (ret) {
			st_err_set(&err, ST_ERR_LOCAL, -ret, "writing the log", "%s",
				   st_log_out_partial(out));
			break;
		}
		if (!(++n & 0xffff) && st_progress_due(&p, &t)) {
			st_log_src_progress(src, &done, &size);
			st_progress_num(a, sizeof(a), (double)n);
			st_progress_num(b, sizeof(b), t > 0 ? (double)n / t : 0);
			if (size)
				st_progress_show(&p, "converting %s: %s events, %s/s, %.0f%%", input,
						 a, b, 100.0 * (double)done / (double)size);
			else
				st_progress_show(&p, "converting %s: %s events, %s/s", input, a, b);
		}
	}
	if (!ret && !w && (ret = st_log_writer_new(&w, st_log_out_file(out), kind.fmt,
						   st_log_src_meta(src))))
		st_err_set(&err, ST_ERR_LOCAL, -ret, "log", NULL);
	if (!ret) {
		ret = st_log_writer_end(w);
		if (ret)
			st_err_set(&err, ST_ERR_LOCAL, -ret, "writing the log", "%s",
				   st_log_out_partial(out));
	}
	st_progress_done(&p);
	st_log_writer_free(w);
	st_log_src_close(src);
	if (!ret) {
		ret = st_log_out_commit(out, &err);
		out = NULL;
	}
	st_log_out_abort(out);
	if (ret)
		return st_fail(&err, NULL);
	st_warn("log: %" PRIu64 " events from %s to %s (%s%s)", n, input, o->path,
		st_log_format_name(kind.fmt), kind.zstd ? ", zstd" : "");
	return 0;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* Drains session id until it is over (or SIGINT), then writes the log. */
static int record(struct st_backend *be, uint32_t id, const struct st_log_opts *o)
{
	const struct timespec tick = { .tv_nsec = 50 * 1000 * 1000 };
	struct sigaction sa = { .sa_handler = on_stop };
	struct st_session_row s;
	struct st_recorder *rec;
	struct st_progress p;
	struct st_err err;
	char a[16];
	int ret;

	ret = st_log_begin(&rec, o);
	if (ret) {
		st_backend_close(be);
		return ret;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	st_progress_init(&p);
	while (!stop) {
		ret = st_log_drain(rec, be, id);
		if (ret == ST_EXIT_PERM) {
			/* Refused: no log, rather than an empty one. */
			st_progress_done(&p);
			st_recorder_abandon(rec);
			st_backend_close(be);
			return ret;
		}
		if (st_backend_session_get(be, id, &s, &err)) {
			st_progress_done(&p);
			st_err_print(&err);
			break;	/* gone: write what was drained */
		}
		if (st_state_final(s.state))
			break;
		if (st_progress_due(&p, NULL)) {
			st_progress_num(a, sizeof(a), (double)st_recorder_events(rec));
			st_progress_show(&p, "session %" PRIu32 ": %s events drained, %" PRIu64 " dropped",
					 id, a, s.dropped_events);
		}
		nanosleep(&tick, NULL);
	}
	st_progress_done(&p);
	ret = st_log_save(rec, be, id, o, STDERR_FILENO);
	st_backend_close(be);
	return ret;
}

/*
 * No live session answers arg (or no tracer can be asked): the stored run
 * it names, whose log file start --log wrote, converted to o's format.
 * The tracer's error (terr) is said when the store knows nothing better.
 */
static int stored(const char *arg, const struct st_log_opts *o, const struct st_err *terr)
{
	struct st_err err;
	char *path;
	int ret;

	if (st_run_log(arg, &path, &err)) {
		if (err.kind == ST_ERR_NONE ||
		    (err.kind == ST_ERR_NOSESSION && !strcmp(err.op, "session") &&
		     terr->kind != ST_ERR_NOSESSION && terr->kind != ST_ERR_NOMODULE &&
		     terr->err != ENOENT))
			return st_fail(terr, NULL);
		return st_fail(&err, NULL);
	}
	if (o->early_object) {
		free(path);
		return st_usage_error(log_usage, "--early-object: a stored run's log keeps the phases it was saved with");
	}
	ret = convert(path, o);
	free(path);
	return ret;
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
	const char *input = NULL, *arg;
	struct st_log_opts o = { .fmt = -1 };
	struct st_session_row s;
	struct st_backend *be;
	struct st_err err;
	uint32_t id;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":o:f:e:i:h", opts, NULL)) != -1) {
		if (c == 'o')
			c = 'L';
		if (c == 'i') {
			if (input)
				return st_usage_error(log_usage,
						      "--input given twice ('%s', '%s'): log converts one LOG",
						      input, optarg);
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
	ret = st_log_opts_check(&o, log_usage);
	if (ret >= 0)
		return ret;
	if (argc - optind > 1)
		return st_usage_error(log_usage, "one session at most");
	if (input) {
		if (optind < argc || o.early_object)
			return st_usage_error(log_usage, "--input takes no SESSION and no --early-object");
		return convert(input, &o);
	}
	arg = optind < argc ? argv[optind] : NULL;
	ret = st_backend_open(&be, &err);
	if (!ret && (ret = st_session_pick(be, arg, &id, &err)))
		st_backend_close(be);
	if (ret)
		return stored(arg, &o, &err);
	if (st_backend_session_get(be, id, &s, &err))
		return st_fail(&err, be);
	if (!s.log_buffer) {
		/* Not the kernel's refusal: the session has no log to drain. */
		st_err_set(&err, ST_ERR_NOSESSION, ENOENT, "log",
			   "session %" PRIu32 " keeps no log: start it with --log FILE or --log-buffer SIZE",
			   id);
		return st_fail(&err, be);
	}
	return record(be, id, &o);
}
