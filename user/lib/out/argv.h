/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_ARGV_H
#define SYSTRACE_ARGV_H

/*
 * An image's argv as the model holds it (st_proc_row's argv, argv_len):
 * the bytes /proc/PID/cmdline gives, each argument ending in NUL, at most
 * SYSTRACE_ARGV_MAX. Written as JSON (an array of strings, invalid UTF-8
 * as U+FFFD, as paths are) and as text (a command line: each argument
 * shell-quoted, joined by single spaces), and read back from both.
 *
 * The command line, exactly (st_argv_shell, docs/semantics.md):
 *   - an argument of [A-Za-z0-9] and _@%+=:,./- only is written as it is;
 *   - the empty argument is '';
 *   - an argument of printable ASCII and valid UTF-8 otherwise is put in
 *     single quotes, a quote in it written '\'';
 *   - any other (a control byte, a newline, invalid UTF-8) is written
 *     $'...': \\, \', \n, \t, \r, and \xHH for every other byte below
 *     0x20, 0x7f and any byte that is not part of valid UTF-8.
 * bash and zsh read such a line back to the same arguments; so does
 * st_argv_parse_shell().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Not included: log_read.c has a json_string of its own. */
struct json_t;
struct st_obuf;
/* The number of arguments of argv[0, len). */
size_t st_argv_count(const char *argv, size_t len);

/* The command line of argv[0, len) appended to o. */
void st_argv_shell(struct st_obuf *o, const char *argv, size_t len);
/* The same as a string to free; NULL: no memory. */
char *st_argv_shell_str(const char *argv, size_t len);
/*
 * A command line (as st_argv_shell writes it; also "..." and \c as a
 * POSIX shell reads them) back to argv bytes: 0 with *argv (to free) and
 * *len; -EINVAL (why set) for bad quoting or more than SYSTRACE_ARGV_MAX
 * bytes; -ENOMEM.
 */
int st_argv_parse_shell(const char *s, char **argv, uint32_t *len,
			const char **why);

/* argv as a JSON array of strings appended to o (compact, as jansson). */
void st_argv_put_json(struct st_obuf *o, const char *argv, size_t len);
struct json_t *st_argv_json(const char *argv, size_t len);
/* A JSON array of strings back to argv bytes: 0, -EINVAL (why), -ENOMEM. */
int st_argv_from_json(const struct json_t *a, char **argv, uint32_t *len,
		      const char **why);

/*
 * Copies src[0, n) as the argv of a row: *argv (to free) and *len. Bytes
 * after the last NUL (an argument without its end) are kept with a NUL
 * added when the whole fits SYSTRACE_ARGV_MAX; else dropped and
 * *truncated set. 0 or -ENOMEM.
 */
int st_argv_copy(const void *src, size_t n, char **argv, uint32_t *len,
		 bool *truncated);

#endif
