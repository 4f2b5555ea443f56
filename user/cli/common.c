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
#include "report.h"
#include "subcommands.h"
#include "libsystrace.h"

/* Each exit code, for the help of the commands that can return it. */
static const char *const exit_code_text[] = {
	[ST_EXIT_OK] = "success",
	[ST_EXIT_USAGE] = "usage error",
	[ST_EXIT_NOMODULE] = "the systrace module is not loaded (and no BPF session serves)",
	[ST_EXIT_PERM] = "permission denied (systrace needs CAP_PERFMON or CAP_SYS_ADMIN, the BPF backend CAP_SYS_ADMIN: run as root)",
	[ST_EXIT_KERNEL] = "the kernel rejected the request (its message is printed), or no such session",
	[ST_EXIT_CHECK] = "data check failed: a finished session's totals do not equal the sums of its rows",
	[ST_EXIT_LOCAL] = "local failure: out of memory, cannot write the output, malformed kernel reply, a BPF pin tree that is not root's own",
	[ST_EXIT_BPF] = "the kernel refused the BPF backend's programs (the verifier's last lines follow)",
};

/* "Exit codes:" and a line per code of codes (ST_CODE bits). */
void st_print_exit_codes(FILE *f, unsigned int codes)
{
	size_t i;

	fputs("Exit codes:\n", f);
	for (i = 0; i < sizeof(exit_code_text) / sizeof(exit_code_text[0]); i++)
		if (codes & ST_CODE(i))
			fprintf(f, "  %zu  %s\n", i, exit_code_text[i]);
	if (codes & ST_CODE_CMD)
		fputs("  start: once CMD runs, systracectl exits with CMD's status, or dies of CMD's signal\n",
		      f);
}

/* The help text, then the exit codes the command can return. */
int st_print_usage(const char *text, unsigned int codes)
{
	fputs(text, stdout);
	if (codes) {
		fputc('\n', stdout);
		st_print_exit_codes(stdout, codes);
	}
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

/*
 * An option getopt_long refused, c being what it returned ('?': unknown,
 * ':': missing its argument; the option strings start with ':' so that
 * getopt prints nothing itself): said once, with the synopsis.
 */
int st_bad_option(const char *usage, char **argv, int c)
{
	const char *tok = optind > 0 ? argv[optind - 1] : "";
	int len;

	if (!strncmp(tok, "--", 2)) {
		len = (int)strcspn(tok, "=");
		if (c == ':')
			return st_usage_error(usage, "option '%s' needs an argument", tok);
		if (optopt && tok[len])
			return st_usage_error(usage, "option '%.*s' takes no argument", len, tok);
		return st_usage_error(usage, "unknown option '%.*s'", len, tok);
	}
	if (c == ':')
		return st_usage_error(usage, "option '-%c' needs an argument", optopt);
	return st_usage_error(usage, "unknown option '-%c'", optopt);
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
 * of them) and -o/--output FILE; and --wide, where text is printed. Returns -1 when @c is one of them,
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
	case 'W':
		o->wide = true;
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

/* The lists of a selection point into strings copied here. */
static int keep_copy(struct st_select *s, char *copy)
{
	char **k = realloc(s->copies, (s->ncopies + 1) * sizeof(*k));

	if (!k) {
		free(copy);
		return -ENOMEM;
	}
	k[s->ncopies++] = copy;
	s->copies = k;
	return 0;
}

static int add_word(const char ***list, size_t *n, const char *w)
{
	const char **l = realloc(*list, (*n + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	l[(*n)++] = w;
	*list = l;
	return 0;
}

/*
 * The selection options (ST_SELECT_OPTIONS): --syscall and --pid take
 * comma-separated lists, and each of --syscall, --comm and --pid may be
 * given again. A --syscall list that starts with '!' is one to leave out,
 * as strace's -e trace=!LIST. Returns -1 when @c is one of them and @arg is good,
 * ST_OPT_NOT_MINE when @c is another option, or a usage error's code.
 */
int st_select_opt(int c, const char *arg, const char *usage, struct st_select *s)
{
	char *copy, *w, *save = NULL;
	const char ***words = &s->syscalls;
	size_t *nwords = &s->nsyscalls, had;
	uint32_t pid;
	uint32_t *p;
	int ret = 0;

	switch (c) {
	case ST_OPT_SORT:
		if (!*arg)
			return st_usage_error(usage, "--sort needs a KEY");
		s->sort = arg;
		return -1;
	case ST_OPT_TOP:
		if (st_parse_u64(arg, &s->top, 1))
			return st_usage_error(usage, "--top needs a number >= 1");
		s->has_top = true;
		return -1;
	case ST_OPT_ERRORS:
		s->errors = true;
		return -1;
	case ST_OPT_COMM:
		if (!*arg)
			return st_usage_error(usage, "--comm needs a name or a pattern");
		if (add_word(&s->comms, &s->ncomms, arg))
			return st_usage_error(usage, "out of memory");
		return -1;
	case ST_OPT_SYSCALL:
	case ST_OPT_PID:
		break;
	default:
		return ST_OPT_NOT_MINE;
	}
	if (c == ST_OPT_SYSCALL && *arg == '!') {
		words = &s->nosyscalls;
		nwords = &s->nnosyscalls;
		arg++;
	}
	had = *nwords;
	copy = strdup(arg);
	if (!copy || keep_copy(s, copy))
		return st_usage_error(usage, "out of memory");
	for (w = strtok_r(copy, ",", &save); w && !ret; w = strtok_r(NULL, ",", &save)) {
		if (c == ST_OPT_SYSCALL) {
			ret = add_word(words, nwords, w);
			continue;
		}
		if (st_parse_u32(w, &pid))
			return st_usage_error(usage, "--pid: '%s' is not a process id", w);
		p = realloc(s->pids, (s->npids + 1) * sizeof(*p));
		if (!p)
			return st_usage_error(usage, "out of memory");
		p[s->npids++] = pid;
		s->pids = p;
	}
	if (ret)
		return st_usage_error(usage, "out of memory");
	if (c == ST_OPT_SYSCALL && *nwords == had)
		return st_usage_error(usage, "--syscall needs a NAME");
	if (c == ST_OPT_PID && !s->npids)
		return st_usage_error(usage, "--pid needs a PID");
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
		st_qsort(*ss, *n, sizeof(**ss), by_id);
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

	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			return st_print_usage(cmd->usage, ST_CODES_READ);
		default:
			return st_bad_option(cmd->usage, argv, c);
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

/* The session arg names among list: its id, or the newest of its name. */
static bool find_session(const struct st_session_row *list, size_t n,
			 const char *arg, uint32_t *id)
{
	bool found = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (arg && strcmp(list[i].name, arg))
			continue;
		if (!found || list[i].id > *id)
			*id = list[i].id;
		found = true;
	}
	return found;
}

/* "$UNSET" names no session, not the unnamed ones. */
static int refuse_empty(const char *arg, struct st_err *err)
{
	if (!arg || *arg)
		return 0;
	st_err_set(err, ST_ERR_REFUSED, EINVAL, "session",
		   "an empty name names no session: give an id or a name");
	return -EINVAL;
}

static void no_session(struct st_err *err, const char *arg)
{
	if (arg)
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no session with id or name \"%s\" (see: systracectl list)", arg);
	else
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no sessions (start one with: systracectl start -- CMD)");
}

/*
 * arg: a session id, a session name (the newest session of that name), or
 * NULL for the newest session (the highest id). Sessions are shared by
 * every user of the host: when arg is NULL and there are others, a note
 * on stderr names the one read.
 */
int st_session_pick(struct st_backend *be, const char *arg, uint32_t *id,
		    struct st_err *err)
{
	struct st_session_row *list;
	bool found;
	size_t i, n;
	int ret;

	if (arg && !st_parse_u32(arg, id))
		return 0;
	ret = refuse_empty(arg, err);
	if (ret)
		return ret;
	ret = st_backend_session_list(be, &list, &n, NULL, err);
	if (ret)
		return ret;
	found = find_session(list, n, arg, id);
	if (found && !arg && n > 1) {
		for (i = 0; list[i].id != *id; i++)
			;
		st_warn("note: no SESSION given: session %" PRIu32 "%s%s%s, the newest of %zu "
			"(see: systracectl list)", *id, list[i].name[0] ? " \"" : "",
			list[i].name, list[i].name[0] ? "\"" : "", n);
	}
	free(list);
	if (found)
		return 0;
	no_session(err, arg);
	return -ENOENT;
}

/*
 * The sessions args[0 .. n - 1] name (ids, or names: the newest of each),
 * each once, in the order given, into ids (room for n). One that names no
 * session fails them all, before any is acted on. Returns how many, or
 * -errno.
 */
int st_session_ids(struct st_backend *be, char *const *args, size_t n,
		   uint32_t *ids, struct st_err *err)
{
	struct st_session_row *list = NULL;
	size_t i, k, nlist = 0, out = 0;
	uint32_t id;
	int ret;

	for (i = 0; i < n; i++) {
		if (st_parse_u32(args[i], &id)) {
			ret = refuse_empty(args[i], err);
			if (ret) {
				free(list);
				return ret;
			}
			if (!list) {
				ret = st_backend_session_list(be, &list, &nlist, NULL, err);
				if (ret)
					return ret;
			}
			if (!find_session(list, nlist, args[i], &id)) {
				free(list);
				no_session(err, args[i]);
				return -ENOENT;
			}
		}
		for (k = 0; k < out && ids[k] != id; k++)
			;
		if (k == out)
			ids[out++] = id;
	}
	free(list);
	return (int)out;
}

/*
 * The whole session, sorted; retried while the kernel flags it
 * inconsistent. With a sink, the site rows go there (st_site_sink): a
 * retry first calls its reset.
 */
int st_session_fetch_to(struct st_backend *be, uint32_t id, struct st_dump *d,
			const struct st_site_sink *sink, struct st_err *err)
{
	int ret, try;

	for (try = 1; try <= ST_DUMP_TRIES; try++) {
		ret = st_backend_dump(be, id, d, sink, err);
		if (ret)
			return ret;
		if (!d->interrupted)
			break;
		if (try < ST_DUMP_TRIES) {
			st_dump_free(d);
			if (sink && sink->reset)
				sink->reset(sink->ctx);
		}
	}
	if (d->interrupted)
		st_warn("session %u changed during each of %d dumps; "
			"the rows below are each valid but may not add up",
			id, ST_DUMP_TRIES);
	st_dump_sort(d);
	return 0;
}

int st_session_fetch(struct st_backend *be, uint32_t id, struct st_dump *d,
		     struct st_err *err)
{
	return st_session_fetch_to(be, id, d, NULL, err);
}

/*
 * What a report reads: the saved `dump --json` document input, or else the
 * session arg (as st_session_pick() takes it) read whole from the kernel,
 * or else the stored run arg names (st_run_read). A tracer that cannot be
 * asked (no module, a pin tree not root's) leaves the stored runs
 * readable; its error is said when the store has no such run either
 * (unless it only says that there is no such session).
 */
int st_dump_read(const char *arg, const char *input, struct st_dump *d,
		 struct st_err *err)
{
	struct st_backend *be;
	struct st_err serr;
	uint32_t id;
	int ret;

	if (input)
		return st_dump_load(input, d, err);
	ret = st_backend_open(&be, err);
	if (!ret) {
		ret = st_session_pick(be, arg, &id, err);
		if (!ret)
			ret = st_session_fetch(be, id, d, err);
		st_backend_close(be);
		if (!ret)
			return 0;
	}
	if (!st_run_read(arg, d, &serr))
		return 0;
	if (serr.kind == ST_ERR_NOSESSION &&
	    (err->kind == ST_ERR_NOSESSION || err->kind == ST_ERR_NOMODULE || err->err == ENOENT))
		*err = serr;
	return ret;
}

/*
 * Says on stderr what a totals check found: bad mismatches, described by
 * the lines of why (NULL: none). Returns ST_EXIT_CHECK when a finished
 * session does not add up, else 0.
 */
int st_session_check_verdict(const struct st_dump *d, unsigned int bad,
			     const char *why)
{
	const struct st_session_row *s = &d->session;

	if (!st_state_final(s->state)) {
		st_warn("note: session %u is %s (%u live tasks): the data is live%s",
			s->id, st_state_name(s->state) ? st_state_name(s->state) : "not finished",
			s->live_tasks, bad ? " and its totals do not add up yet" : "");
		return 0;
	}
	if (!bad)
		return 0;
	st_warn("ERROR: DATA CHECK FAILED for finished session %u: %u totals do not match their rows:",
		s->id, bad);
	fputs(why ? why : "", stderr);
	if (st_session_dropped(s))
		st_warn("the session dropped %llu events (see: systracectl status)",
			(unsigned long long)st_session_dropped(s));
	return ST_EXIT_CHECK;
}

/*
 * Runs the totals check and says what it found on stderr. Returns
 * ST_EXIT_CHECK when a finished session does not add up, else 0.
 */
int st_session_report_check(const struct st_dump *d)
{
	char *why = NULL;
	size_t len = 0;
	unsigned int bad;
	FILE *f;
	int ret;

	if (d->selected) {
		st_warn("note: session %u's data is a selection (some rows were left out): "
			"its totals are not checked", d->session.id);
		return 0;
	}
	f = open_memstream(&why, &len);
	bad = st_check_totals(d, f);
	if (f)
		fclose(f);
	ret = st_session_check_verdict(d, bad, why);
	free(why);
	return ret;
}

