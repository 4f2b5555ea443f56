// SPDX-License-Identifier: GPL-2.0
/*
 * What start and log share of the temporal log (logcli.h): the --log
 * options, and the recorder (lib/log/recorder.h) on a session of the
 * backend: its drains and its save, and what they say on stderr. The
 * recorder does every step and owns its states; this file only binds it
 * to the tracer and says the outcome.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "logcli.h"
#include "subcommands.h"
#include "libsystrace.h"

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

int st_log_opts_check(const struct st_log_opts *o, const char *usage)
{
	struct st_log_kind kind;
	struct st_err err;

	if (o->path && st_log_kind_of(o->path, o->fmt, &kind, &err))
		return st_usage_error(usage, "%s", err.msg);
	return -1;
}

/* ---- the recorder on session id of a backend ---- */

static int tracer_drain(void *be, uint32_t id, struct st_log *log, size_t *n,
			struct st_err *err)
{
	return st_backend_log_read(be, id, log, n, err);
}

static int tracer_rows(void *be, uint32_t id, struct st_dump *d,
		       const struct st_site_sink *sink, struct st_err *err)
{
	return st_session_fetch_to(be, id, d, sink, err);
}

#define TRACER(be, sid) (&(const struct st_recorder_src){			\
	.drain = tracer_drain, .rows = tracer_rows, .ctx = (be), .id = (sid) })

int st_log_begin(struct st_recorder **rp, const struct st_log_opts *o)
{
	const struct st_recorder_opts ro = {
		.path = o->path, .fmt = o->fmt,
		.early_object = o->early_object, .no_symbols = o->no_symbols,
	};
	struct st_err err;

	return st_recorder_begin(rp, &ro, &err) ? st_fail(&err, NULL) : 0;
}

int st_log_drain(struct st_recorder *rec, struct st_backend *be, uint32_t id)
{
	struct st_err err;
	int code;

	if (!st_recorder_drain(rec, TRACER(be, id), &err))
		return 0;
	st_err_print(&err);
	code = st_exit_code(&err);
	/* A refusal (not the session's owner) is final: nothing is drained. */
	if (code != ST_EXIT_PERM)
		st_warn("log: the events the tracer holds now are not drained");
	return code;
}

static void save_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct st_progress *p = ctx;
	char a[16], b[16];

	if (!st_progress_due(p, NULL))
		return;
	st_progress_num(a, sizeof(a), (double)done);
	st_progress_num(b, sizeof(b), (double)total);
	st_progress_show(p, "writing the log: %s of %s events (%.0f%%)", a, b,
			 total ? 100.0 * (double)done / (double)total : 100.0);
}

int st_log_save(struct st_recorder *rec, struct st_backend *be, uint32_t id,
		const struct st_log_opts *o, int progress_fd)
{
	struct st_recorder_outcome oc;
	struct st_progress p;
	struct st_err err;
	int ret;

	st_log_drain(rec, be, id);
	st_progress_init_fd(&p, progress_fd);
	ret = st_recorder_save(rec, TRACER(be, id), save_progress, &p, &oc, &err);
	st_progress_done(&p);
	if (oc.argv_err)
		st_warn("log: the command lines stay in memory: they could not be set aside in a temporary file for %s (%s)",
			o->path, strerror(oc.argv_err));
	if (oc.gone)
		st_warn("log: session %" PRIu32 " is gone (reset?): its rows with it; the log's syscalls "
			"go out without their sites, phases and process events", id);
	if (ret) {
		st_err_print(&err);
		if (oc.kept)
			st_warn("log: the %" PRIu64 " drained syscalls are kept in %s.spool: "
				"systracectl log --input %s.spool -o FILE writes them (without sites, phases or process events)",
				oc.kept, o->path, o->path);
		if (oc.lost)
			st_warn("log: %" PRIu64 " drained syscalls are lost: writing the spool failed", oc.lost);
		return st_exit_code(&err);
	}
	st_warn("log: %" PRIu64 " events to %s (%s%s)%s", oc.events, o->path,
		st_log_format_name(oc.kind.fmt), oc.kind.zstd ? ", zstd" : "",
		oc.dropped || oc.lost ? "" : ", none dropped");
	if (oc.dropped)
		st_warn("log: %" PRIu64 " syscalls are not in the log: its buffer was full "
			"(they are in the rows; see --log-buffer)", oc.dropped);
	if (oc.spool_err)
		st_warn("log: %" PRIu64 " drained syscalls are not in the log: writing the spool failed (%s)",
			oc.lost, strerror(-oc.spool_err));
	return oc.spool_err ? ST_EXIT_LOCAL : 0;
}
