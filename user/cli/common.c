// SPDX-License-Identifier: GPL-2.0
/*
 * What the subcommands share: usage and error exits, choosing a session
 * from the command line, and reading it whole.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "subcommands.h"
#include "systrace.h"

const char st_exit_codes_help[] =
	"Exit codes:\n"
	"  0  success\n"
	"  1  usage error\n"
	"  2  the systrace module is not loaded\n"
	"  3  permission denied (systrace needs CAP_PERFMON or CAP_SYS_ADMIN, the BPF backend\n"
	"     CAP_SYS_ADMIN: run as root)\n"
	"  4  the kernel rejected the request (its message is printed), or no such session\n"
	"  5  data check failed: a finished session's totals do not equal the sums of its rows\n"
	"  6  local failure: out of memory, cannot write the output, malformed kernel reply,\n"
	"     a BPF pin tree that is not root's own\n"
	"  7  the kernel refused the BPF backend's programs (the verifier's last lines follow)\n"
	"  start: once CMD runs, systracectl exits with CMD's status, or dies of CMD's signal\n";

int st_print_usage(const char *text)
{
	fputs(text, stdout);
	fprintf(stdout, "\n%s", st_exit_codes_help);
	return ST_EXIT_OK;
}

int st_usage_error(const char *text, const char *fmt, ...)
{
	const char *end;
	va_list ap;

	fputs("systracectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* The synopsis: the usage text up to its first blank line. */
	end = strstr(text, "\n\n");
	fprintf(stderr, "\n%.*s\n(--help shows all options)\n",
		(int)(end ? end - text : (ptrdiff_t)strlen(text)), text);
	return ST_EXIT_USAGE;
}

/* Prints err, closes the backend be, returns the exit code for err. */
int st_fail(const struct st_err *err, struct st_backend *be)
{
	st_err_print(err);
	st_backend_close(be);
	return st_exit_code(err);
}

/*
 * The output options that dump, report and diff share: --csv, --json (one
 * of them) and -o/--output FILE. Returns -1 when @c is one of them,
 * ST_OPT_NOT_MINE when @c is another option, or the exit code of a usage
 * error.
 */
int st_output_opt(int c, const char *arg, const char *usage,
		  struct st_output_opts *o)
{
	enum st_format f;

	switch (c) {
	case 'C':
		f = ST_FMT_CSV;
		break;
	case 'J':
		f = ST_FMT_JSON;
		break;
	case 'o':
		o->path = arg;
		return -1;
	default:
		return ST_OPT_NOT_MINE;
	}
	if (o->format_set && o->format != f)
		return st_usage_error(usage, "give one of --csv, --json");
	o->format = f;
	o->format_set = true;
	return -1;
}

/* Decimal, no sign, no junk. Returns 0 or -EINVAL. */
static int by_id(const void *a, const void *b)
{
	const struct st_session_row *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The sessions (and the status) from the backend; 0 or an exit code. */
static int sessions_read(const struct st_sessions_cmd *cmd, struct st_status *st,
			 struct st_session_row **ss, size_t *n)
{
	struct st_backend *be;
	struct st_err err;

	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	if (cmd->status && st_backend_status(be, st, &err))
		return st_fail(&err, be);
	if (st_backend_session_list(be, ss, n, NULL, &err))
		return st_fail(&err, be);
	st_backend_close(be);
	if (cmd->status && st->abi_version != SYSTRACE_ABI_VERSION)
		st_warn("warning: the module speaks ABI %" PRIu32 ", this systracectl ABI %d",
			st->abi_version, SYSTRACE_ABI_VERSION);
	if (cmd->by_id && *n)
		qsort(*ss, *n, sizeof(**ss), by_id);
	return ST_EXIT_OK;
}

int st_sessions_main(int argc, char **argv, const struct st_sessions_cmd *cmd)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct st_session_row *ss = NULL;
	struct st_status st;
	bool json = false;
	size_t n = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			return st_print_usage(cmd->usage);
		default:
			return st_usage_error(cmd->usage, "bad option");
		}
	}
	if (optind < argc)
		return st_usage_error(cmd->usage, "unexpected argument '%s'", argv[optind]);

	ret = sessions_read(cmd, &st, &ss, &n);
	if (ret)
		return ret;
	if (cmd->print(&st, ss, n, json)) {
		free(ss);
		st_warn("out of memory");
		return ST_EXIT_LOCAL;
	}
	free(ss);
	if (fflush(stdout) || ferror(stdout)) {
		st_warn("cannot write the output");
		return ST_EXIT_LOCAL;
	}
	return ST_EXIT_OK;
}

int st_parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* Decimal, no sign, no junk, at least min. Returns 0 or -EINVAL. */
int st_parse_u64(const char *s, uint64_t *out, uint64_t min)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * arg: a session id, a session name (the newest session of that name), or
 * NULL for the newest session (the highest id).
 */
int st_session_pick(struct st_backend *be, const char *arg, uint32_t *id,
		    struct st_err *err)
{
	struct st_session_row *list;
	size_t i, n;
	bool found = false;
	int ret;

	if (arg && !st_parse_u32(arg, id))
		return 0;
	/* "$UNSET" names no session, not the unnamed ones. */
	if (arg && !*arg) {
		st_err_set(err, ST_ERR_REFUSED, EINVAL, "session",
			   "an empty name names no session: give an id or a name");
		return -EINVAL;
	}
	ret = st_backend_session_list(be, &list, &n, NULL, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (arg && strcmp(list[i].name, arg))
			continue;
		if (!found || list[i].id > *id)
			*id = list[i].id;
		found = true;
	}
	free(list);
	if (found)
		return 0;
	if (arg)
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no session with id or name \"%s\" (see: systracectl list)", arg);
	else
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no sessions (start one with: systracectl start -- CMD)");
	return -ENOENT;
}

/* The whole session, sorted; retried while the kernel flags it inconsistent. */
int st_session_fetch(struct st_backend *be, uint32_t id, struct st_dump *d,
		     struct st_err *err)
{
	int ret, try;

	for (try = 1; try <= ST_DUMP_TRIES; try++) {
		ret = st_backend_dump(be, id, d, err);
		if (ret)
			return ret;
		if (!d->interrupted)
			break;
		if (try < ST_DUMP_TRIES)
			st_dump_free(d);
	}
	if (d->interrupted)
		st_warn("session %u changed during each of %d dumps; "
			"the rows below are each valid but may not add up",
			id, ST_DUMP_TRIES);
	st_dump_sort(d);
	return 0;
}

/*
 * What a report reads: the saved `dump --json` document input, or else the
 * session arg (as st_session_pick() takes it) read whole from the kernel.
 */
int st_dump_read(const char *arg, const char *input, struct st_dump *d,
		 struct st_err *err)
{
	struct st_backend *be;
	uint32_t id;
	int ret;

	if (input)
		return st_dump_load(input, d, err);
	ret = st_backend_open(&be, err);
	if (ret)
		return ret;
	ret = st_session_pick(be, arg, &id, err);
	if (!ret)
		ret = st_session_fetch(be, id, d, err);
	st_backend_close(be);
	return ret;
}

/*
 * Runs the totals check and says what it found on stderr. Returns
 * ST_EXIT_CHECK when a finished session does not add up, else 0.
 */
int st_session_report_check(const struct st_dump *d)
{
	const struct st_session_row *s = &d->session;
	char *why = NULL;
	size_t len = 0;
	unsigned int bad;
	FILE *f;

	f = open_memstream(&why, &len);
	bad = st_check_totals(d, f);
	if (f)
		fclose(f);
	if (!st_state_final(s->state)) {
		st_warn("note: session %u is %s (%u live tasks): the data is live%s",
			s->id, st_state_name(s->state) ? st_state_name(s->state) : "not finished",
			s->live_tasks, bad ? " and its totals do not add up yet" : "");
		free(why);
		return 0;
	}
	if (!bad) {
		free(why);
		return 0;
	}
	st_warn("ERROR: DATA CHECK FAILED for finished session %u: %u totals do not match their rows:",
		s->id, bad);
	fputs(why ? why : "", stderr);
	if (st_session_dropped(s))
		st_warn("the session dropped %llu events (see: systracectl status)",
			(unsigned long long)st_session_dropped(s));
	free(why);
	return ST_EXIT_CHECK;
}

