/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_RECORDER_H
#define SYSTRACE_RECORDER_H

/*
 * The temporal log while it is recorded (recorder.c): the events a
 * tracer's drain hands over, spooled or kept, and the join of them with
 * the session's rows into the log's file.
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

/* ---- recording ---- */

/*
 * Opens a spool for log in the directory of path (the log file), as an
 * anonymous file when the file system allows (O_TMPFILE), else as
 * PATH.spool, removed at the end. Returns 0 or -errno with err.
 */
int st_log_spool(struct st_log *log, const char *path, uint32_t session_id,
		 struct st_err *err);
/* The session the spool's events are of, once it exists. */
int st_log_spool_session(struct st_log *log, uint32_t session_id);
/* The spool's first write error (0: none) and the events it lost since. */
int st_log_spool_error(const struct st_log *log, uint64_t *lost);
/*
 * Once the drain is over: the spool's last run written, and its buffers
 * (64 MB) freed before the rows are read. Returns 0 or the spool's error.
 */
int st_log_spool_finish(struct st_log *log);
/*
 * Keeps the spool as the file path (after a failure), for `log --input`;
 * returns 0 or -errno.
 */
int st_log_spool_keep(struct st_log *log, const char *path);

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

#endif
