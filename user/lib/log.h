/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_H
#define SYSTRACE_LOG_H

/*
 * The temporal log of a session: every counted syscall of the traced tree
 * in order, with the process events (fork, exec, exit) among them.
 *
 * The tracer hands systracectl raw syscall events (st_event with kind
 * ST_EV_SYSCALL and no site); systracectl adds the process events from the
 * session's process rows (a fork is a row's start, an exec the start of a
 * row with a prev_id, an exit a row's end), joins each syscall to its site
 * row on (proc_id, addr, nr, abi), orders the whole by (ts_ns, kind, seq),
 * sets each syscall's phase (st_log_phases), and writes CSV, JSONL or the
 * Chrome trace-event format. A saved CSV or JSONL log reads back into the
 * same struct (st_log_load) for the reports.
 *
 * Columns, in CSV order (JSONL has the same keys; empty CSV = JSON null):
 *   session_id  proc_id  pid  tid  comm  seq  ts_ns  dur_ns  event
 *   abi  nr  syscall  ret  errno  addr  map  path  offset  symbol
 *   phase  early  child_proc_id  child_pid  exit_code  exit_signal
 * event is "syscall", "fork", "exec" or "exit"; phase is "loader" or
 * "program" (syscalls only); early is 0 or 1.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "err.h"
#include "model.h"

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
	const struct st_site_row *site;	/* NULL: no site row (dropped) */
	enum st_phase phase;
	bool early;			/* loader, or before --early-object */
	uint64_t child_proc_id;		/* fork */
	uint32_t child_pid;		/* fork */
	const struct st_proc_row *proc;	/* the row of proc_id; NULL if none */
};

struct st_log {
	struct st_event *ev;
	size_t n, cap;
	uint64_t dropped_events;	/* the session's counter at the end */
};

enum st_log_format {
	ST_LOG_CSV,
	ST_LOG_JSONL,
	ST_LOG_CHROME,
};

/*
 * Orders two syscall events by their site row's key (proc_id, addr, abi,
 * nr), as st_site_ptr_cmp orders the rows; 0 for the same site.
 */
int st_event_site_cmp(const struct st_event *x, const struct st_event *y);
int st_log_push(struct st_log *log, const struct st_event *ev);
void st_log_free(struct st_log *log);

/*
 * Adds the process events of d's rows, joins syscalls to d's site rows
 * and their rows, and sorts. d must be sorted (st_dump_sort) and outlive
 * the log.
 */
int st_log_finish(struct st_log *log, const struct st_dump *d);

/*
 * Sets phase and early of every syscall. early_object: a path (for
 * example an LD_PRELOAD interceptor) whose calls before the image's first
 * call from outside both it and the interpreter are also early; NULL:
 * early is the loader phase.
 */
void st_log_phases(struct st_log *log, const struct st_dump *d,
		   const char *early_object);
/* The same, returning 0 or -ENOMEM (then the phases are not all set). */
int st_log_set_phases(struct st_log *log, const struct st_dump *d,
		      const char *early_object);

int st_log_write(FILE *f, enum st_log_format fmt, const struct st_log *log,
		 const struct st_dump *d);
/* The Chrome trace-event JSON of a finished log (log_chrome.c). */
int st_log_write_chrome(FILE *f, const struct st_log *log,
			const struct st_dump *d);

/*
 * Reads a saved CSV or JSONL log back: the events into log, and into d the
 * process and site rows they name (what the log says of them: pid, comm,
 * parent, start and end, exit status; path, offset, symbol), which the
 * events point to. Phase and early are read, not computed.
 */
int st_log_load(const char *path, struct st_log *log, struct st_dump *d,
		struct st_err *err);
/* Whether path holds a saved log (CSV or JSONL) rather than a dump. */
bool st_log_is_log(const char *path);

#endif
