// SPDX-License-Identifier: GPL-2.0
/*
 * systracectl attach: trace a process that runs already (SESSION_NEW
 * without F_ON_EXEC), and systracectl detach: stop following a session's
 * tasks and keep its rows (SESSION_DETACH).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "subcommands.h"
#include "libsystrace.h"

const char attach_usage[] =
	"Usage: systracectl attach [--tree | --threads-only] [--name NAME] [--counters MODE] [--quiet]\n"
	"                          [--paths MODE] [--no-save] PID\n\n"
	"Traces the running process PID and, from now on, every process it creates.\n"
	"Returns at once and prints the session id on stdout; dump, report and\n"
	"status read the session while it runs, detach stops following it.\n"
	"Rows of processes that ran before the attach have attached=true, and\n"
	"count from the attach on (start_ns is the attach).\n\n"
	"  -t, --tree            also trace PID's living descendants, each in its\n"
	"                        own row\n"
	"  -T, --threads-only    follow PID's new threads, not its new processes\n"
	"  -n, --name NAME       name the session (at most 31 bytes)\n"
	"  -c, --counters MODE   what each process's perf counter counts, in user\n"
	"                        mode: instructions (default), cycles, task-clock,\n"
	"                        none\n"
	"  --paths MODE          which file calls' paths are counted (report paths):\n"
	"                        errors (default), all, off\n"
	"  -q, --quiet           print only the session id\n"
	"  --no-save             once finished, keep the session in the tracer:\n"
	"                        else the next systracectl command that sees it\n"
	"                        finished saves it into the run store\n"
	"  -h, --help\n";

const char detach_usage[] =
	"Usage: systracectl detach SESSION...\n\n"
	"Stops following the tasks of each session named, which run on untraced.\n"
	"A session keeps its rows (those still running end as detached) and its\n"
	"state becomes detached: dump and report read it until reset deletes it.\n"
	"Each SESSION is an id or a name (the newest session of that name); as\n"
	"sessions are shared by every user of the host, there is no default.\n"
	"When one SESSION names no session, none is detached.\n\n"
	"  -h, --help\n\n"
	"Exit codes:\n"
	"  0  success\n"
	"  1  usage error\n"
	"  2  the systrace module is not loaded\n"
	"  3  permission denied\n"
	"  4  no such session, or the kernel refused to detach one (its message\n"
	"     is printed; the others are detached all the same)\n"
	"  6  local failure: out of memory, malformed kernel reply\n";

struct attach_opts {
	struct st_session_req req;
	bool quiet;
	bool no_save;
};

/* Returns -1 to go on, or an exit code. */
static int parse(int argc, char **argv, struct attach_opts *o)
{
	static const struct option opts[] = {
		{ "tree", no_argument, NULL, 't' },
		{ "threads-only", no_argument, NULL, 'T' },
		{ "name", required_argument, NULL, 'n' },
		{ "counters", required_argument, NULL, 'c' },
		{ "paths", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-save", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->req.counters = SYSTRACE_COUNTERS_INSTRUCTIONS;
	while ((c = getopt_long(argc, argv, ":tTn:c:qh", opts, NULL)) != -1) {
		ret = st_session_opt(c, optarg, attach_usage, &o->req);
		if (ret != ST_OPT_NOT_MINE) {
			if (ret >= 0)
				return ret;
			continue;
		}
		switch (c) {
		case 't':
			o->req.flags |= SYSTRACE_SESSION_F_TREE;
			break;
		case 'T':
			o->req.flags |= SYSTRACE_SESSION_F_THREADS_ONLY;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'S':
			o->no_save = true;
			break;
		case 'h':
			return st_print_usage(attach_usage, ST_CODES_READ | ST_CODE(ST_EXIT_BPF));
		default:
			return st_bad_option(attach_usage, argv, c);
		}
	}
	if ((o->req.flags & SYSTRACE_SESSION_F_TREE) &&
	    (o->req.flags & SYSTRACE_SESSION_F_THREADS_ONLY))
		return st_usage_error(attach_usage, "give --tree or --threads-only, not both");
	if (optind >= argc)
		return st_usage_error(attach_usage, "no PID to attach to");
	if (st_parse_u32(argv[optind], &o->req.pid) || !o->req.pid ||
	    o->req.pid > INT32_MAX)
		return st_usage_error(attach_usage, "PID: '%s' is not a process id",
				      argv[optind]);
	if (++optind < argc)
		return st_usage_error(attach_usage, "unexpected argument '%s'", argv[optind]);
	if (st_no_save_env())
		o->no_save = true;
	return -1;
}

/* The rows the attach made: one per process found running. */
static void say_attached(struct st_backend *be, const struct st_session_row *s,
			 uint32_t pid)
{
	struct st_session_row now;
	struct st_err err;

	if (st_backend_session_get(be, s->id, &now, &err))
		now = *s;
	st_warn("session %" PRIu32 "%s%s%s: attached to pid %" PRIu32 ": %" PRIu64
		" process%s, %" PRIu32 " live task%s%s",
		s->id, s->name[0] ? " \"" : "", s->name, s->name[0] ? "\"" : "",
		pid, now.procs, now.procs == 1 ? "" : "es", now.live_tasks,
		now.live_tasks == 1 ? "" : "s",
		now.dropped_procs ? " (some tasks were not followed: see status)" : "");
}

int attach_main(int argc, char **argv)
{
	struct attach_opts o;
	struct st_session_row s;
	struct st_err err;
	struct st_backend *be = NULL;
	int ret;

	ret = parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (st_backend_open(&be, &err) ||
	    st_backend_session_new(be, &o.req, &s, &err))
		return st_fail(&err, be);
	if (!o.quiet)
		say_attached(be, &s, o.req.pid);
	if (!o.no_save)
		st_run_pending(&s);
	if (printf("%" PRIu32 "\n", s.id) < 0 || fflush(stdout)) {
		st_err_set(&err, ST_ERR_LOCAL, errno, "stdout", NULL);
		return st_fail(&err, be);
	}
	st_backend_close(be);
	return ST_EXIT_OK;
}

int detach_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct st_err err;
	struct st_backend *be = NULL;
	int c, code = ST_EXIT_OK, i, n;
	uint32_t *ids;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return st_print_usage(detach_usage, 0);
		default:
			return st_bad_option(detach_usage, argv, c);
		}
	}
	if (optind == argc)
		return st_usage_error(detach_usage, "which sessions? give SESSION... (see: systracectl list)");
	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	ids = calloc(argc - optind, sizeof(*ids));
	if (!ids) {
		st_err_set(&err, ST_ERR_LOCAL, ENOMEM, "detach", NULL);
		return st_fail(&err, be);
	}
	n = st_session_ids(be, argv + optind, argc - optind, ids, &err);
	if (n < 0) {
		free(ids);
		return st_fail(&err, be);
	}
	for (i = 0; i < n; i++) {
		if (st_backend_session_detach(be, ids[i], &err)) {
			st_err_print(&err);
			if (code == ST_EXIT_OK)
				code = st_exit_code(&err);
			continue;
		}
		st_warn("detached session %" PRIu32, ids[i]);
	}
	free(ids);
	st_backend_close(be);
	return code;
}
