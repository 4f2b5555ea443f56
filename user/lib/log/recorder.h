/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_RECORDER_H
#define SYSTRACE_RECORDER_H

/*
 * The temporal log while it is recorded (recorder.c): the events a
 * tracer's drain hands over, spooled or kept; the join of them with the
 * session's rows into the log's file; and the recorder (st_recorder, at
 * the end), which runs a recording from its file opened before anything
 * is traced to the file renamed whole, for start --log and log SESSION.
 */
#include "base/hidx.h"
#include "log/log.h"

struct st_spool;

/*
 * Where a tracer's drain puts events: with a spool, each event is written
 * through to it (memory stays bounded); without, they are kept in ev[]
 * (tests, and small logs built in memory).
 */
struct st_log {
	struct st_event *ev;
	size_t n, cap;
	struct st_spool *spool;
	uint64_t pushed;		/* events taken, kept or spooled */
};

int st_log_push(struct st_log *log, const struct st_event *ev);
void st_log_free(struct st_log *log);

struct st_log_record_opts {
	const char *early_object;	/* see st_log_bounds */
	st_log_progress_fn progress;
	void *progress_ctx;
};

/*
 * The site rows a log's syscalls join, each kept in 64 bytes where a
 * dump's row takes 152: what the join, the phases and the writers read of
 * it, its strings and sym pooled in the dump it came from, its file's
 * identity (inode, mtime) once per file in the store. A glibc build has
 * 1.8 million site rows.
 */
struct st_log_site {
	uint64_t proc_id, addr;
	uint64_t first_ordinal;
	struct st_ev_site ev;
	uint32_t nr;
	uint16_t abi;
};

struct st_log_file {
	uint64_t inode, mtime_ns;
};

/*
 * A store of them, filled a row at a time by a dump's sink (sink below:
 * st_session_fetch_to), or from a dump's sites[] (st_log_sites_of).
 * symbolize: each row is symbolized as it comes (symbolize.h).
 * st_log_sites_init returns 0 or -ENOMEM.
 */
struct st_log_sites {
	struct st_log_site *v;
	size_t n, cap;
	struct st_log_file *files;	/* ev.file - 1 */
	size_t nfiles, files_cap;
	struct st_hidx file_idx;	/* files by (inode, mtime) */
	bool symbolize;
	struct st_sym_rows *sym;
	struct st_site_sink sink;	/* ctx: this store */
	struct st_site_row *scratch;	/* rows made for st_rows_of_fn */
	size_t scratch_cap;
	/*
	 * The process rows' argv, set aside (st_log_sites_argv_aside): in a
	 * temporary file beside the log as the rows come, each read back
	 * when its exec event is written. A build's 100,000 command lines
	 * are 75 MB, up to 4 KiB each; here they take 16 bytes a row.
	 */
	const char *argv_beside;	/* the log's path; NULL: argv stays in the rows */
	int argv_fd;			/* -1 until the first argv */
	int argv_err;			/* why argv stayed in the rows (errno), or 0 */
	char *argv_name;		/* a named file's (no O_TMPFILE): removed */
	struct st_log_argv { uint64_t id, off; } *argv_at; /* by row id once sorted */
	size_t argv_n, argv_cap;
	bool argv_sorted;
	uint64_t argv_end;		/* the file's bytes */
	char *argv_buf;			/* read back into, lent to argv_row */
	size_t argv_buf_cap;
	struct st_proc_row *argv_row;	/* the row lent argv_buf now, or NULL */
};
int st_log_sites_init(struct st_log_sites *s, bool symbolize);
/*
 * The dump's process rows go through the store's sink too: each row's
 * argv is moved to a temporary file beside log_path (st_log_tmpfile)
 * and read back when st_log_record writes its exec event, lent to the
 * row meanwhile; a row that has no exec event (forked without exec, or
 * there before an attach) lets its argv go. Where the file cannot be made or written, argv stays in
 * the rows (argv_err says why); nothing is lost.
 */
void st_log_sites_argv_aside(struct st_log_sites *s, const char *log_path);
int st_log_sites_of(struct st_log_sites *s, struct st_dump *d);
void st_log_sites_free(struct st_log_sites *s);

/*
 * Writes the log: log's events (spooled or kept), the process events of
 * d's rows, in order, each syscall with its site row (from sites) and
 * phase. d must be sorted (st_dump_sort); without rows (d->nprocs == 0:
 * the session is gone), syscalls go out without sites, phases or process
 * events. sites is sorted here. Returns 0 or -errno (-ENOMEM, or the
 * writer's or the spool's error).
 */
int st_log_record(struct st_log *log, const struct st_dump *d,
		  struct st_log_sites *sites, struct st_log_writer *w,
		  const struct st_log_record_opts *o);

/* ---- the recorder: one log, from before the tracing to its file ---- */

/*
 * A recording's life (st_recorder, below):
 *
 *   begin --> RECORDING --save--> SAVING --> SAVED   FILE whole
 *                |                     \---> FAILED  FILE.partial removed;
 *                |                                   the spool kept as
 *                |                                   FILE.spool
 *                \--abandon--> ABANDONED             FILE.partial removed
 *
 * RECORDING: FILE.partial and the spool beside it exist, and each drain
 * adds what the tracer holds to the spool. SAVING: the spool is finished
 * (nothing is added), the session's rows are read and the log written.
 * save and abandon each end the recorder: the spool (unless kept) is
 * removed and the recorder freed, so that the last three states are only
 * ever seen inside them.
 */
enum st_recorder_state {
	ST_REC_RECORDING,
	ST_REC_SAVING,
	ST_REC_SAVED,
	ST_REC_FAILED,
	ST_REC_ABANDONED,
};

struct st_recorder;

struct st_recorder_opts {
	const char *path;		/* the log file; outlives the recorder */
	int fmt;			/* enum st_log_format; -1: from path's name */
	const char *early_object;	/* see st_log_bounds; NULL: none */
	bool no_symbols;		/* leave the symbol column empty */
};

/*
 * The tracer, as a recorder reads it (the CLI's backend and session):
 * drain appends the events it holds for session id to log, taking them
 * out of it (st_backend_log_read); rows reads the session's rows into d,
 * sorted, its site and process rows through sink (st_session_fetch_to).
 * Both return 0 or -errno with err.
 */
struct st_recorder_src {
	int (*drain)(void *ctx, uint32_t id, struct st_log *log, size_t *n,
		     struct st_err *err);
	int (*rows)(void *ctx, uint32_t id, struct st_dump *d,
		    const struct st_site_sink *sink, struct st_err *err);
	void *ctx;
	uint32_t id;
};

/* What a save did, for the caller to say (st_recorder_save fills it). */
struct st_recorder_outcome {
	struct st_log_kind kind;
	uint64_t events;		/* written to the log */
	uint64_t dropped;		/* the tracer's: syscalls not in the log */
	int spool_err;			/* the spool's first write error, or 0 */
	/*
	 * Syscalls drained but lost to spool_err. After a failed save, only
	 * when a spool was there to keep (kept, else 0).
	 */
	uint64_t lost;
	uint64_t kept;			/* after a failure: syscalls in FILE.spool */
	bool gone;			/* no rows: the session was gone (a reset) */
	int argv_err;			/* errno: the command lines stayed in memory */
};

/*
 * Opens FILE.partial and the spool beside it, before anything is traced:
 * a bad path fails now. Returns 0, or -errno with err (nothing is left).
 */
int st_recorder_begin(struct st_recorder **rp, const struct st_recorder_opts *o,
		      struct st_err *err);
enum st_recorder_state st_recorder_state(const struct st_recorder *r);
/*
 * Takes what the tracer holds now into the spool. Its first failure is
 * returned (-errno, err set); the drains after it do nothing (return 0).
 */
int st_recorder_drain(struct st_recorder *r, const struct st_recorder_src *src,
		      struct st_err *err);
/* The events drained so far. */
uint64_t st_recorder_events(const struct st_recorder *r);
/*
 * Writes the log (the caller drains a last time before): the spool
 * finished and given the session's id, the rows read (a session gone
 * leaves the syscalls without rows: said in out->gone, not a failure),
 * the writer fed by st_log_record (progress as there), and FILE.partial
 * renamed to FILE. On failure, FILE.partial is removed and the drained
 * syscalls are kept in FILE.spool (for log --input) unless the spool
 * lost them all. Returns 0 once FILE is whole (out->spool_err may still
 * say syscalls are missing), else -errno with err. Ends r either way.
 */
int st_recorder_save(struct st_recorder *r, const struct st_recorder_src *src,
		     st_log_progress_fn progress, void *progress_ctx,
		     struct st_recorder_outcome *out, struct st_err *err);
/* Gives r up: removes FILE.partial and the spool, ends r (NULL: nothing). */
void st_recorder_abandon(struct st_recorder *r);

#endif
