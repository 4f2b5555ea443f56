/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_CLI_COMMON_H
#define SYSTRACE_CLI_COMMON_H

#include "libsystrace.h"

#define ST_DUMP_TRIES 4		/* the first dump and 3 retries */

int st_session_pick(struct st_backend *be, const char *arg, uint32_t *id,
		    struct st_err *err);
int st_session_ids(struct st_backend *be, char *const *args, size_t n,
		   uint32_t *ids, struct st_err *err);
int st_session_fetch(struct st_backend *be, uint32_t id, struct st_dump *d,
		     struct st_err *err);
int st_session_fetch_to(struct st_backend *be, uint32_t id, struct st_dump *d,
			const struct st_site_sink *sink, struct st_err *err);
int st_dump_read(const char *arg, const char *input, struct st_dump *d,
		 struct st_err *err);
/*
 * save.c: the run store. st_run_pending: the session r will be saved by
 * this command (if it dies, by the next). st_run_save: session id saved
 * and freed; 0 or an exit code, said. st_run_settle: finished sessions
 * left pending are saved. st_run_read: a stored run, as st_dump_read.
 * st_run_log: the temporal log's file of a stored run, readable.
 */
int st_run_pending(const struct st_session_row *r);
/*
 * The same in two steps around the session's making: the store's write
 * lock (NULL: no store, said), then the session r's pending row (r NULL:
 * none was made) and the lock given back. No wait between the two, so a
 * command killed while it sets up leaves no session unknown to the store
 * but for that instant.
 */
struct st_store;
struct st_store *st_run_pending_begin(void);
int st_run_pending_end(struct st_store *s, const struct st_session_row *r);
int st_run_save(struct st_backend *be, uint32_t id, const char *log_path);
void st_run_settle(struct st_backend *be);
int st_run_read(const char *arg, struct st_dump *d, struct st_err *err);
int st_run_log(const char *arg, char **path, struct st_err *err);
/* SYSTRACE_NO_SAVE set to 1: start and attach as with --no-save. */
bool st_no_save_env(void);
int st_session_report_check(const struct st_dump *d);
int st_session_check_verdict(const struct st_dump *d, unsigned int bad,
			     const char *why);
/* --csv, --json and -o/--output FILE, for getopt_long's option lists. */
#define ST_OUTPUT_OPTIONS						\
	{ "csv", no_argument, NULL, 'C' },				\
	{ "json", no_argument, NULL, 'J' },				\
	{ "output", required_argument, NULL, 'o' }
/* --wide, for the commands that print text tables (report, diff). */
#define ST_WIDE_OPTION { "wide", no_argument, NULL, 'W' }
int st_output_opt(int c, const char *arg, const char *usage,
		  struct st_output_opts *o);
struct st_select;
int st_select_opt(int c, const char *arg, const char *usage, struct st_select *s);
/*
 * A command of sessions, list's and status's: its only option --json, its
 * data the backend's sessions (and with status, the module's status),
 * written to stdout by print.
 */
struct st_sessions_cmd {
	const char *usage;
	bool status;			/* also the status, and its ABI check */
	bool by_id;			/* the sessions sorted by id */
	int (*print)(const struct st_status *st,
		     const struct st_session_row *ss, size_t n, bool json);
};

int st_sessions_main(int argc, char **argv, const struct st_sessions_cmd *cmd);
int st_parse_u32(const char *s, uint32_t *out);

#endif
