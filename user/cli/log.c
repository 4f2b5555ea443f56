// SPDX-License-Identifier: GPL-2.0
/*
 * The temporal log from the CLI: start's --log options; recording (the
 * file opened before anything is traced, the events spooled as they are
 * drained, the log written at the end as FILE.partial and renamed);
 * systracectl log, which records a session started elsewhere or converts
 * a saved log; and the status line of both on a terminal.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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
	"run one reader per session. With --input, converts a saved log (CSV or\n"
	"JSONL, zstd-compressed or not, or a spool a failed recording kept) to\n"
	"FORMAT (its phases as saved) instead.\n\n"
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
		o->fmt = st_log_format_parse(arg);
		if (o->fmt < 0)
			return st_usage_error(usage, "--log-format: '%s' is not csv, jsonl, chrome or perfetto",
					      arg);
		return -1;
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

/* ---- the status line ---- */

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

/* ---- recording ---- */

int st_log_begin(struct st_log_rec *rec, const struct st_log_opts *o)
{
	struct st_err err;

	memset(rec, 0, sizeof(*rec));
	if (st_log_kind_of(o->path, o->fmt, &rec->kind, &err) ||
	    st_log_out_open(&rec->out, o->path, &rec->kind, &err))
		return st_fail(&err, NULL);
	if (st_log_spool(&rec->log, o->path, 0, &err)) {
		st_log_out_abort(rec->out);
		rec->out = NULL;
		return st_fail(&err, NULL);
	}
	return 0;
}

void st_log_drain(struct st_log_rec *rec, struct st_backend *be, uint32_t id)
{
	struct st_err err;
	size_t n;

	if (rec->drain_failed)
		return;
	if (st_backend_log_read(be, id, &rec->log, &n, &err)) {
		st_err_print(&err);
		st_warn("log: the events the tracer holds now are not drained");
		rec->drain_failed = true;
	}
}

void st_log_abandon(struct st_log_rec *rec)
{
	st_log_out_abort(rec->out);
	rec->out = NULL;
	st_log_free(&rec->log);
}

struct save_progress {
	struct st_progress p;
};

static void save_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct save_progress *sp = ctx;
	char a[16], b[16];

	if (!st_progress_due(&sp->p, NULL))
		return;
	st_progress_num(a, sizeof(a), (double)done);
	st_progress_num(b, sizeof(b), (double)total);
	st_progress_show(&sp->p, "writing the log: %s of %s events (%.0f%%)", a, b,
			 total ? 100.0 * (double)done / (double)total : 100.0);
}

/* After a failure: the drained events stay in FILE.spool, and we say so. */
static void keep_spool(struct st_log_rec *rec, const char *path)
{
	uint64_t lost = 0;
	char *keep = NULL;

	st_log_spool_error(&rec->log, &lost);
	if (rec->log.pushed <= lost || asprintf(&keep, "%s.spool", path) < 0)
		return;
	if (!st_log_spool_keep(&rec->log, keep))
		st_warn("log: the %" PRIu64 " drained syscalls are kept in %s: "
			"systracectl log --input %s -o FILE writes them (without sites, phases or process events)",
			rec->log.pushed - lost, keep, keep);
	if (lost)
		st_warn("log: %" PRIu64 " drained syscalls are lost: writing the spool failed", lost);
	free(keep);
}

/*
 * The session's process rows into d and its site rows into sites, a row
 * at a time (symbolized unless --no-symbols): a glibc build's 1.8 million
 * site rows are never held whole, and its command lines wait in a file
 * beside the log (st_log_sites_argv_aside). None when the session is gone (a
 * reset): said, not fatal. On failure, nothing is left to free.
 */
static int rows(struct st_backend *be, uint32_t id, const struct st_log_opts *o,
		struct st_dump *d, struct st_log_sites *sites, struct st_err *err)
{
	int ret;

	if (st_log_sites_init(sites, !o->no_symbols)) {
		st_log_sites_free(sites);
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "symbolizing the sites", NULL);
		return -ENOMEM;
	}
	st_log_sites_argv_aside(sites, o->path);
	ret = st_session_fetch_to(be, id, d, &sites->sink, err);
	if (!ret && sites->argv_err)
		st_warn("log: the command lines stay in memory: they could not be set aside in a temporary file for %s (%s)",
			o->path, strerror(sites->argv_err));
	/* The module says ENOENT; the BPF backend finds no pinned session. */
	if (ret && (err->kind == ST_ERR_NOSESSION ||
		    (err->kind == ST_ERR_KERNEL && err->err == ENOENT))) {
		st_warn("log: session %" PRIu32 " is gone (reset?): its rows with it; the log's syscalls "
			"go out without their sites, phases and process events", id);
		memset(d, 0, sizeof(*d));
		d->session.id = id;
		sites->n = 0;
		return 0;
	}
	if (ret)
		st_log_sites_free(sites);
	return ret;
}

int st_log_save(struct st_log_rec *rec, struct st_backend *be, uint32_t id,
		const struct st_log_opts *o)
{
	struct st_log_record_opts ro = { .early_object = o->early_object };
	struct save_progress sp;
	struct st_log_writer *w = NULL;
	struct st_log_meta meta = { .session_id = id };
	struct st_log_sites sites;
	struct st_dump d;
	struct st_err err;
	uint64_t lost = 0, events;
	int ret, spool_err;

	st_log_drain(rec, be, id);
	st_log_spool_session(&rec->log, id);
	/* Its error is kept: said below, as every spool error. */
	st_log_spool_finish(&rec->log);
	if (rows(be, id, o, &d, &sites, &err)) {
		st_err_print(&err);
		keep_spool(rec, o->path);
		st_log_abandon(rec);
		return st_exit_code(&err);
	}
	meta.dropped_events = d.session.dropped_events;
	st_progress_init(&sp.p);
	ro.progress = save_progress;
	ro.progress_ctx = &sp;
	ret = st_log_writer_new(&w, st_log_out_file(rec->out), rec->kind.fmt, &meta);
	if (!ret)
		ret = st_log_record(&rec->log, &d, &sites, w, &ro);
	if (!ret)
		ret = st_log_writer_end(w);
	st_progress_done(&sp.p);
	events = w ? st_log_writer_events(w) : 0;
	st_log_writer_free(w);
	spool_err = st_log_spool_error(&rec->log, &lost);
	if (!ret) {
		ret = st_log_out_commit(rec->out, &err);
		rec->out = NULL;
	} else {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "writing the log", "%s",
			   st_log_out_partial(rec->out));
	}
	if (ret) {
		st_err_print(&err);
		keep_spool(rec, o->path);
		st_log_abandon(rec);
		st_log_sites_free(&sites);
		st_dump_free(&d);
		return st_exit_code(&err);
	}
	st_warn("log: %" PRIu64 " events to %s (%s%s)%s", events, o->path,
		st_log_format_name(rec->kind.fmt), rec->kind.zstd ? ", zstd" : "",
		d.session.dropped_events || lost ? "" : ", none dropped");
	if (d.session.dropped_events)
		st_warn("log: %" PRIu64 " syscalls are not in the log: its buffer was full "
			"(they are in the rows; see --log-buffer)", d.session.dropped_events);
	if (spool_err)
		st_warn("log: %" PRIu64 " drained syscalls are not in the log: writing the spool failed (%s)",
			lost, strerror(-spool_err));
	st_log_abandon(rec);
	st_log_sites_free(&sites);
	st_dump_free(&d);
	return spool_err ? ST_EXIT_LOCAL : 0;
}

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
	struct st_log_rec rec;
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
		st_log_drain(&rec, be, id);
		if (st_backend_session_get(be, id, &s, &err)) {
			st_progress_done(&p);
			st_err_print(&err);
			break;	/* gone: write what was drained */
		}
		if (st_state_final(s.state))
			break;
		if (st_progress_due(&p, NULL)) {
			st_progress_num(a, sizeof(a), (double)rec.log.pushed);
			st_progress_show(&p, "session %" PRIu32 ": %s events drained, %" PRIu64 " dropped",
					 id, a, s.dropped_events);
		}
		nanosleep(&tick, NULL);
	}
	st_progress_done(&p);
	ret = st_log_save(&rec, be, id, o);
	st_backend_close(be);
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
	const char *input = NULL;
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
	return record(be, id, &o);
}
