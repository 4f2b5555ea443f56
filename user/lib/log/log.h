/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_H
#define SYSTRACE_LOG_H

/*
 * The temporal log of a session: every counted syscall of the traced tree
 * in order, with the process events (fork, exec, exit) among them.
 *
 * Everything streams: no part of systracectl holds a log's events.
 *
 * Recording (start --log, log SESSION): the tracer hands raw syscall
 * events (st_event, kind ST_EV_SYSCALL, no site) to st_log_push(), which
 * writes them through to a spool (log_spool.c): sorted runs of compressed
 * records in a file beside the log. At the end, st_log_record() merges the
 * runs with the process events made from the session's rows (a fork is a
 * row's start, an exec the start of a row with a prev_id, an exit a row's
 * end), in (ts_ns, kind, proc_id, seq) order, joins each syscall to its
 * site row on (proc_id, addr, abi, nr), sets its phase from the rows
 * (log_phases.c), and hands each event to a writer (st_log_writer): CSV,
 * JSONL, Chrome trace-event JSON or Perfetto's protobuf trace, the first
 * two optionally zstd-compressed. The file is written as FILE.partial and
 * renamed at the end (st_log_out).
 *
 * Reading (log --input, report --input): st_log_src reads a saved CSV or
 * JSONL log (compressed or not), or a spool kept after a failure, one
 * event at a time; st_log_load() builds from it the rows a dump would have
 * and what the reports need of the events (st_log_sums), bounded by the
 * rows, never by the events.
 *
 * Columns, in CSV order (JSONL has the same keys; empty CSV = JSON null):
 *   session_id  proc_id  pid  tid  comm  seq  ts_ns  dur_ns  event
 *   abi  nr  syscall  ret  errno  addr  map  path  offset  symbol
 *   phase  early  child_proc_id  child_pid  exit_code  exit_signal
 *   argv  argv_truncated  arg_path
 * event is "syscall", "fork", "exec" or "exit"; phase is "loader" or
 * "program" (syscalls only); early is 0 or 1. An exec's path is its
 * executable, its argv its row's (argv.h: CSV a command line, JSONL an
 * array of strings), from the rows like every process event, so the
 * spool (syscalls only) has none. arg_path is a file call's path
 * argument as its path row shows it (report paths: the path, "<longer
 * than 255 bytes>" or "<unreadable>"), empty for a call whose path was
 * not counted (--paths errors and a success, --paths off, a drop); the
 * spool keeps the row's id, joined to the session's path rows at the end
 * as a site is. Readers ignore the columns they do not know, and take a
 * log without the last three (a log of before arg_path: none has one).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/err.h"
#include "sym/interp.h"
#include "model/model.h"

enum st_ev_kind {
	ST_EV_SYSCALL,
	ST_EV_FORK,	/* proc_id: the parent image; child_*: the new row */
	ST_EV_EXEC,	/* proc_id: the new image; its prev_id the old one */
	ST_EV_EXIT,	/* proc_id: the image that ended */
};

enum st_phase {
	ST_PHASE_NONE,		/* not a syscall, or its image is unknown */
	ST_PHASE_LOADER,	/* before the image's first syscall from
				 * outside its ELF interpreter */
	ST_PHASE_PROGRAM,
};

/*
 * What a log says of a syscall's site (the fields of its site row a log
 * has): pooled strings and sym, as the row's.
 */
struct st_ev_site {
	const char *path;		/* NULL unless SYSTRACE_MAP_FILE */
	const struct st_sym *sym;	/* NULL: not symbolized */
	uint64_t offset;
	uint32_t map;			/* enum systrace_map */
	/* st_log_sites' own: its file's identity, from 1; 0: none */
	uint32_t file;
};

/*
 * One event. site and proc point to rows that stay valid while the event
 * is handed over (a writer's call, a source's next read), no longer.
 */
struct st_event {
	enum st_ev_kind kind;
	uint64_t proc_id;
	uint32_t pid, tid;		/* tgid and thread id, session's pidns */
	uint64_t seq;			/* syscall: ordinal in its image, from 0 */
	uint64_t ts_ns;			/* CLOCK_MONOTONIC: entry, start or end */
	uint64_t dur_ns;		/* syscall: entry to exit */
	uint32_t abi, nr;		/* syscall */
	int64_t ret;			/* syscall: return value */
	uint64_t addr;			/* syscall: its site's address */
	const struct st_ev_site *site;	/* NULL: no site row (dropped) */
	enum st_phase phase;
	bool early;			/* loader, or before --early-object */
	uint64_t child_proc_id;		/* fork */
	uint32_t child_pid;		/* fork */
	const struct st_proc_row *proc;	/* the row of proc_id; NULL if none */
	/*
	 * syscall: the path row its path counted in (start --paths), by its
	 * id in the session (0: none), and what that row shows for its path
	 * (st_path_shown; NULL: none, or not joined yet), valid as site.
	 */
	uint64_t path_id;
	const char *arg_path;
};

/* Orders events as a log does: time, process events first, image, seq. */
int st_event_cmp(const struct st_event *x, const struct st_event *y);

struct st_log;

/* Called now and then while events are written: done of total. */
typedef void (*st_log_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* ---- writing ---- */

enum st_log_format {
	ST_LOG_CSV,
	ST_LOG_JSONL,
	ST_LOG_CHROME,
	ST_LOG_PERFETTO,
};

/* "csv", "jsonl", "chrome", "perfetto"; -1 for anything else. */
int st_log_format_parse(const char *name);
const char *st_log_format_name(enum st_log_format fmt);

/* A log file's format and whether it is zstd-compressed. */
struct st_log_kind {
	enum st_log_format fmt;
	bool zstd;
};

/*
 * The kind of the log at path: zstd when the name ends in .zst; the
 * format fmt if >= 0, else from the name (.jsonl, .json: chrome,
 * .pftrace or .perfetto-trace: perfetto; anything else csv). Only CSV and
 * JSONL are compressed: -EINVAL, with err, for another format in a .zst.
 */
int st_log_kind_of(const char *path, int fmt, struct st_log_kind *k,
		   struct st_err *err);

/* What a writer says of the whole log. */
struct st_log_meta {
	uint32_t session_id;
	uint64_t dropped_events;	/* the tracer's count at the end */
};

struct st_log_writer;

/* Writes to f, which it does not close. Returns 0 or -ENOMEM. */
int st_log_writer_new(struct st_log_writer **wp, FILE *f,
		      enum st_log_format fmt, const struct st_log_meta *m);
/* One event, in log order (st_event_cmp). Returns 0 or -errno. */
int st_log_writer_event(struct st_log_writer *w, const struct st_event *ev);
/* The end of the log: flushes everything; 0 or -errno (a write failed). */
int st_log_writer_end(struct st_log_writer *w);
uint64_t st_log_writer_events(const struct st_log_writer *w);
void st_log_writer_free(struct st_log_writer *w);

/*
 * A log file being written: FILE.partial, through zstd when the kind says
 * so, renamed to FILE by commit. Open checks the directory and creates
 * FILE.partial, so that a bad path fails before any tracing.
 */
struct st_log_out;

int st_log_out_open(struct st_log_out **op, const char *path,
		    const struct st_log_kind *k, struct st_err *err);
FILE *st_log_out_file(struct st_log_out *o);
const char *st_log_out_partial(const struct st_log_out *o);
/* Flushes, closes and renames; on failure keeps nothing, err set. */
int st_log_out_commit(struct st_log_out *o, struct st_err *err);
/* Removes FILE.partial (NULL: nothing). */
void st_log_out_abort(struct st_log_out *o);

/* ---- phases from the rows (log_phases.c) ---- */

/*
 * The phase of every syscall of an image, from its rows: a call is in the
 * loader phase when its seq is below the first_ordinal of the image's
 * first site row outside its ELF interpreter (identified as report phases
 * does: lib/interp.c), else in the program phase; an image without a
 * loader phase (begun by fork, or static) is all program; an image whose
 * interpreter is unknown gets no phase. Early: the loader phase and, with
 * an early object (a path, e.g. an LD_PRELOAD interceptor), the calls
 * before the first site row outside both the interpreter and it.
 */
enum st_bound_mode { ST_BOUND_UNKNOWN, ST_BOUND_PROGRAM, ST_BOUND_PHASED };

struct st_bound {
	enum st_bound_mode mode;
	uint64_t loader_end;		/* seq of the first program call */
	uint64_t early_end;		/* seq of the first non-early call */
};

/* out[i] for d->procs[i] (d sorted). Returns 0 or -ENOMEM. */
int st_log_bounds(const struct st_dump *d, const char *early_object,
		  struct st_bound *out);
/* The same, each image's site rows from rows_of (interp.h). */
int st_log_bounds_by(const struct st_dump *d, st_rows_of_fn rows_of, void *ctx,
		     const char *early_object, struct st_bound *out);
/* Sets ev->phase and ev->early from the bound of its image (NULL: none). */
void st_log_phase_set(struct st_event *ev, const struct st_bound *b);
/* The same for an in-memory log (tests). Returns 0 or -ENOMEM. */
int st_log_set_phases(struct st_log *log, const struct st_dump *d,
		      const char *early_object);

/* ---- reading ---- */

struct st_log_src;

/*
 * Opens a saved log: CSV (RFC 4180, a header row) or JSONL, either zstd-
 * compressed (told by its first bytes, not its name), or a spool kept
 * after a failure. Anything else (an empty file, a JSON array, a number)
 * is refused with the line and the reason. Returns 0 or -errno with err.
 */
int st_log_src_open(struct st_log_src **sp, const char *path,
		    struct st_err *err);
/*
 * The next event into *ev (its proc and site valid until the next call):
 * 1, 0 at the end, or -errno with err ("FILE:LINE: reason").
 */
int st_log_src_next(struct st_log_src *s, struct st_event *ev,
		    struct st_err *err);
/* Bytes of the file read so far, and its size (0: unknown). */
void st_log_src_progress(const struct st_log_src *s, uint64_t *done,
			 uint64_t *size);
const struct st_log_meta *st_log_src_meta(const struct st_log_src *s);
void st_log_src_close(struct st_log_src *s);

/* Whether path holds a saved log (CSV, JSONL, compressed or not, a spool). */
bool st_log_is_log(const char *path);

/* What the reports need of a log's events, beside the rows. */
struct st_log_image {
	bool unknown;			/* a syscall without a phase */
	bool has_loader, has_program;
	uint64_t boundary;		/* lowest seq of a program-phase call */
	uint64_t program_ns;		/* earliest program-phase call */
	const char *interp;		/* the site of its lowest-seq loader call */
	uint64_t interp_seq;
	uint64_t last_ns;		/* the latest end of its events */
};

/* The calls of one (image, addr, abi, nr), with a site row or not. */
struct st_log_group {
	uint64_t proc_id, addr;
	uint32_t abi, nr;
	uint64_t loader_calls, program_calls, none_calls;
	uint64_t first_seq;
	enum st_phase first_phase;	/* of the lowest-seq call */
};

struct st_log_sums {
	struct st_log_image *images;	/* as d->procs */
	struct st_log_group *groups;	/* by (proc_id, addr, abi, nr) */
	size_t ngroups;
	uint64_t events, syscalls;
	uint64_t last_ns;		/* the latest end of any event */
};

void st_log_sums_free(struct st_log_sums *s);

/*
 * Reads the log at path into d (the process and site rows it names: pid,
 * comm, parent, start and end, exit status; path, offset, symbol; calls
 * and times) and sums (NULL: not wanted). Phase and early are read, not
 * computed. progress: as for st_log_record, in bytes. Returns 0 or -errno
 * with err.
 */
int st_log_load(const char *path, struct st_dump *d, struct st_log_sums *sums,
		st_log_progress_fn progress, void *ctx, struct st_err *err);
/* The same, the sums without their groups (none: ngroups 0). */
int st_log_load_images(const char *path, struct st_dump *d, struct st_log_sums *sums,
		       st_log_progress_fn progress, void *ctx, struct st_err *err);

/*
 * The sums of an in-memory log (tests), events in log order, as d's rows
 * (strings pooled in d).
 */
int st_log_sums_of(const struct st_log *log, struct st_dump *d,
		   struct st_log_sums *sums);

#endif
