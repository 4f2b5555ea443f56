/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_SUBCOMMANDS_H
#define SYSTRACE_SUBCOMMANDS_H

#include <stdbool.h>
#include <stdio.h>
#include "base/err.h"

int status_main(int argc, char **argv);
int start_main(int argc, char **argv);
int dump_main(int argc, char **argv);
int list_main(int argc, char **argv);
int reset_main(int argc, char **argv);
int attach_main(int argc, char **argv);
int detach_main(int argc, char **argv);
int report_main(int argc, char **argv);
int diff_main(int argc, char **argv);
int log_main(int argc, char **argv);
int top_main(int argc, char **argv);
int save_main(int argc, char **argv);
int export_main(int argc, char **argv);
int help_main(int argc, char **argv);

extern const char status_usage[];
extern const char start_usage[];
extern const char dump_usage[];
extern const char list_usage[];
extern const char reset_usage[];
extern const char attach_usage[];
extern const char detach_usage[];
extern const char report_usage[];
extern const char diff_usage[];
extern const char log_usage[];
extern const char top_usage[];
extern const char save_usage[];
extern const char export_usage[];

/*
 * Exit codes a command can return, for its --help: ST_CODE(enum st_exit)
 * bits, and ST_CODE_CMD for start's "CMD's status".
 */
#define ST_CODE(n)		(1U << (n))
#define ST_CODE_CMD		(1U << 8)
/* What any command that asks a backend can return. */
#define ST_CODES_READ		(ST_CODE(ST_EXIT_OK) | ST_CODE(ST_EXIT_USAGE) | \
				 ST_CODE(ST_EXIT_NOMODULE) | ST_CODE(ST_EXIT_PERM) | \
				 ST_CODE(ST_EXIT_KERNEL) | ST_CODE(ST_EXIT_LOCAL))
/* ... and the totals check's failure. */
#define ST_CODES_CHECKED	(ST_CODES_READ | ST_CODE(ST_EXIT_CHECK))
#define ST_CODES_ALL		(ST_CODES_CHECKED | ST_CODE(ST_EXIT_BPF) | ST_CODE_CMD)

extern const char help_usage[];
void st_print_exit_codes(FILE *f, unsigned int codes);

/* start.c: the value of -n/--name or -c/--counters, into @req. */
struct st_session_req;
#define ST_OPT_NOT_MINE	(-2)
int st_session_opt(int c, const char *arg, const char *usage,
		   struct st_session_req *req);

/* list.c, status.c: the output of list and status, text or JSON. */
struct st_session_row;
struct st_status;
int st_list_print(FILE *f, const struct st_session_row *ss, size_t n, bool json);
int st_status_print(const struct st_status *st, const struct st_session_row *ss,
		    size_t n, bool json);

int st_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int st_print_usage(const char *usage, unsigned int codes);
int st_bad_option(const char *usage, char **argv, int c);

struct st_backend;
struct st_err;
int st_fail(const struct st_err *err, struct st_backend *be);

#endif
