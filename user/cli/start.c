// SPDX-License-Identifier: GPL-2.0
/*
 * systracectl start: run CMD as a traced child. The child waits on a pipe
 * until the session exists; the session (SYSTRACE_SESSION_F_ON_EXEC) only
 * counts from the child's successful execve, so nothing that systracectl
 * does in the child is attributed to CMD.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "logcli.h"
#include "summary.h"
#include "subcommands.h"
#include "libsystrace.h"

const char start_usage[] =
	"Usage: systracectl start [--name NAME] [--counters MODE] [--backend B] [--quiet]\n"
	"                         [--paths MODE] [--self-usage] [--no-save]\n"
	"                         [--progress | --no-progress]\n"
	"                         [--log FILE [--log-format F] [--log-buffer SIZE]\n"
	"                          [--early-object PATH]] -- CMD [ARGS...]\n\n"
	"Runs CMD and traces it and every process it creates, from CMD's exec on.\n"
	"Prints the session id, and at the end a summary, to stderr. When CMD's\n"
	"tree is gone the session is saved as a run into the run store and\n"
	"deleted from the tracer (a store that cannot be written leaves it\n"
	"there and exits 6). SIGINT,\n"
	"SIGTERM and SIGHUP sent to systracectl are passed on to CMD. Exits with\n"
	"CMD's exit status, or dies of the signal that killed CMD. If CMD cannot\n"
	"be run: 127 when not found, 126 when not executable.\n\n"
	"  -n, --name NAME       name the session (at most 31 bytes)\n"
	"  -c, --counters MODE   what each process's perf counter counts, in user\n"
	"                        mode: instructions (default), cycles, task-clock,\n"
	"                        none\n"
	"  -b, --backend B       who traces: kmod (the module), bpf (BPF programs,\n"
	"                        pinned under /sys/fs/bpf/systrace/), auto (default:\n"
	"                        the module when it is loaded, else bpf)\n"
	"  --paths MODE          which file calls' paths are counted per site and\n"
	"                        result (report paths): errors (default: the failed\n"
	"                        calls), all, off\n"
	"  -q, --quiet           no summary at the end, and no status line\n"
	"  --progress            a status line on the terminal while CMD runs,\n"
	"                        even where CMD writes to it too (default: only\n"
	"                        when none of CMD's stdin, stdout and stderr is\n"
	"                        the terminal, and not with --quiet)\n"
	"  --no-progress         no status line\n"
	"  --no-save             keep the finished session in the tracer instead\n"
	"                        of saving it into the run store (docs/store.md;\n"
	"                        SYSTRACE_NO_SAVE=1 does the same)\n"
	"  --self-usage          at the very end, systracectl's own peak RSS and\n"
	"                        CPU time (not CMD's), even with --quiet\n"
	"  --log FILE            record every syscall in order (the temporal log)\n"
	"                        while CMD runs, and write it to FILE at the end\n"
	"                        (FILE.partial until whole; .zst compresses it)\n"
	"  --log-format F        csv, jsonl, chrome (trace-event JSON), or perfetto\n"
	"                        (protobuf trace); default: from FILE's name\n"
	"                        (.jsonl, .json, .pftrace), else csv\n"
	"  --log-buffer SIZE     the log buffer per CPU (default 4M, from\n"
	"                        4K to 256M); without --log, keep a log that\n"
	"                        systracectl log drains\n"
	"  --early-object PATH   with --log: calls before the image's first call\n"
	"                        from outside both its interpreter and PATH (e.g. an\n"
	"                        LD_PRELOAD library) are early too\n"
	"  -h, --help\n";

static volatile sig_atomic_t child_pid;

/*
 * A signal that the terminal sent (Ctrl-C, hangup) reached CMD already:
 * it is in systracectl's process group. Only signals sent to systracectl
 * itself (kill) are passed on.
 */
static void forward(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (child_pid > 0 && si->si_code != SI_KERNEL)
		kill(child_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
#define N_FORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static void forwarded_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < N_FORWARDED; i++)
		sigaddset(set, forwarded[i]);
}

static void install_forwarding(void)
{
	struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO | SA_RESTART };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded[i], &sa, NULL);
}

/* In the child: wait for the go, then exec; report a failed exec's errno. */
static void __attribute__((noreturn))
run_child(const int go[2], const int status[2], char **cmd,
	  const sigset_t *oldmask)
{
	char c;
	ssize_t n;
	int e;

	sigprocmask(SIG_SETMASK, oldmask, NULL);
	/* Our copy of the write end would keep us waiting if the parent died. */
	close(go[1]);
	close(status[0]);
	do {
		n = read(go[0], &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* systracectl gave up: no session */
	execvp(cmd[0], cmd);
	e = errno;
	while (write(status[1], &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(e == ENOENT ? 127 : 126);
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* The status line: what the session has counted so far. */
static void show_status(struct st_progress *p, struct st_backend *be, uint32_t id,
			const struct st_recorder *rec, uint64_t *last, double *last_t,
			double t)
{
	struct st_session_row s;
	struct st_err err;
	char calls[16], rate[16], events[16];

	if (st_backend_session_get(be, id, &s, &err))
		return;
	st_progress_num(calls, sizeof(calls), (double)s.syscalls);
	st_progress_num(rate, sizeof(rate), t > *last_t ?
			(double)(s.syscalls - *last) / (t - *last_t) : 0);
	*last = s.syscalls;
	*last_t = t;
	if (rec) {
		st_progress_num(events, sizeof(events), (double)st_recorder_events(rec));
		st_progress_show(p, "session %" PRIu32 ": %" PRIu64 " processes, %s syscalls (%s/s), "
				 "log %s events, %" PRIu64 " dropped", id, s.procs, calls, rate,
				 events, st_session_dropped(&s));
	} else {
		st_progress_show(p, "session %" PRIu32 ": %" PRIu64 " processes, %s syscalls (%s/s), "
				 "%" PRIu64 " dropped", id, s.procs, calls, rate,
				 st_session_dropped(&s));
	}
}

/*
 * wait_child() that, meanwhile, drains the session's log every 20 ms (so
 * that the tracer's buffers have room) and keeps a status line on a
 * terminal (at most 4 updates a second).
 */
static int wait_polling(pid_t pid, struct st_backend *be, uint32_t id,
			struct st_recorder *rec, struct st_progress *p)
{
	const struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };
	uint64_t last = 0;
	double last_t = 0, t;
	pid_t r;
	int status;

	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR)) {
			st_progress_done(p);
			return r == pid ? status : -1;
		}
		if (rec)
			st_log_drain(rec, be, id);
		if (st_progress_due(p, &t))
			show_status(p, be, id, rec, &last, &last_t, t);
		nanosleep(&tick, NULL);
	}
}

/* The errno of a failed exec, or 0 once CMD runs (the pipe closed on exec). */
static int exec_result(int fd)
{
	ssize_t n;
	int e = 0;

	do {
		n = read(fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	return n == sizeof(e) ? e : 0;
}

/*
 * CMD has been reaped. Its session may still be running (CMD left
 * processes behind) or be about to note that every task is gone.
 */
static void settle(struct st_backend *be, uint32_t id)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	struct st_session_row s;
	struct st_err err;
	int i;

	for (i = 0; i < 50; i++) {
		if (st_backend_session_get(be, id, &s, &err) ||
		    s.state == SYSTRACE_STATE_FINISHED || s.live_tasks)
			return;
		nanosleep(&tick, NULL);
	}
}

static void print_outcome(const char *cmd, int status)
{
	if (WIFSIGNALED(status))
		st_warn("%s killed by SIG%s%s", cmd, sigabbrev_np(WTERMSIG(status)) ?
			sigabbrev_np(WTERMSIG(status)) : "?",
			WCOREDUMP(status) ? " (core dumped)" : "");
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		st_warn("%s exited with status %d", cmd, WEXITSTATUS(status));
}

/* Like strace: die of CMD's signal, without dumping a core of our own. */
static int exit_like(int status)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;
	int sig;

	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	sig = WTERMSIG(status);
	fflush(stdout);
	fflush(stderr);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

/*
 * --self-usage: what systracectl itself used, its draining and the log's
 * writing included. RUSAGE_SELF counts this process's threads only, never
 * CMD's processes, which /usr/bin/time would mix in (its max RSS is the
 * largest of the whole tree's).
 */
static void print_self_usage(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return;
	st_warn("self: peak RSS %ld KiB, user %ld.%03ld s, system %ld.%03ld s "
		"(systracectl alone, not CMD)", ru.ru_maxrss,
		(long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec / 1000,
		(long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec / 1000);
}

/*
 * The options of a new session that start and attach share: -n/--name
 * NAME (1 to SYSTRACE_NAME_MAX - 1 bytes, not all digits, no control
 * character), -c/--counters MODE and --paths MODE.
 * Returns -1 when @c is one of them and @arg is good, ST_OPT_NOT_MINE when
 * @c is another option, or the exit code of a usage error.
 */
int st_session_opt(int c, const char *arg, const char *usage,
		   struct st_session_req *req)
{
	int mode;

	switch (c) {
	case 'n':
		if (!*arg)
			return st_usage_error(usage, "--name: the name is empty");
		if (strlen(arg) >= SYSTRACE_NAME_MAX)
			return st_usage_error(usage, "--name: at most %d bytes",
					      SYSTRACE_NAME_MAX - 1);
		if (strspn(arg, "0123456789") == strlen(arg))
			return st_usage_error(usage, "--name: '%s' is a number, which SESSION reads as an id",
					      arg);
		for (mode = 0; arg[mode]; mode++)
			if ((unsigned char)arg[mode] < 0x20 || arg[mode] == 0x7f)
				return st_usage_error(usage, "--name: control characters are not allowed");
		req->name = arg;
		return -1;
	case 'c':
		mode = st_counters_parse(arg);
		if (mode < 0)
			return st_usage_error(usage, "--counters: unknown mode '%s'", arg);
		req->counters = (uint32_t)mode;
		return -1;
	case 'P':
		mode = st_paths_parse(arg);
		if (mode < 0)
			return st_usage_error(usage, "--paths: unknown mode '%s' (errors, all, off)",
					      arg);
		req->paths = (uint32_t)mode;
		return -1;
	default:
		return ST_OPT_NOT_MINE;
	}
}

/* The finished session into the run store, with its log's full path. */
static int save_run(struct st_backend *be, uint32_t id, const char *log_path)
{
	char *path = log_path ? realpath(log_path, NULL) : NULL;
	int ret;

	settle(be, id);
	ret = st_run_save(be, id, path ? path : log_path);
	free(path);
	return ret;
}

struct start_opts {
	struct st_session_req req;	/* name and counters */
	int backend;			/* enum st_backend_kind */
	bool quiet;
	bool self_usage;
	bool no_save;
	int progress;			/* enum st_progress_mode */
	struct st_log_opts log;
	char **cmd;
};

/* Returns -1 to go on, or an exit code. */
static int parse(int argc, char **argv, struct start_opts *o)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "counters", required_argument, NULL, 'c' },
		{ "paths", required_argument, NULL, 'P' },
		{ "backend", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "self-usage", no_argument, NULL, 'R' },
		{ "no-save", no_argument, NULL, 'S' },
		{ "progress", no_argument, NULL, 'p' },
		{ "no-progress", no_argument, NULL, 'Q' },
		{ "log", required_argument, NULL, 'L' },
		{ "log-format", required_argument, NULL, 'f' },
		{ "log-buffer", required_argument, NULL, 'B' },
		{ "early-object", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->req.counters = SYSTRACE_COUNTERS_INSTRUCTIONS;
	o->log.fmt = -1;
	o->backend = ST_BACKEND_AUTO;
	while ((c = getopt_long(argc, argv, "+:n:c:b:qh", opts, NULL)) != -1) {
		ret = st_session_opt(c, optarg, start_usage, &o->req);
		if (ret == ST_OPT_NOT_MINE)
			ret = st_log_opt(c, optarg, start_usage, &o->log);
		if (ret != ST_OPT_NOT_MINE) {
			if (ret >= 0)
				return ret;
			continue;
		}
		switch (c) {
		case 'b':
			o->backend = st_backend_parse(optarg);
			if (o->backend < 0)
				return st_usage_error(start_usage,
						      "--backend: unknown backend '%s' (auto, kmod, bpf)",
						      optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'R':
			o->self_usage = true;
			break;
		case 'S':
			o->no_save = true;
			break;
		case 'p':
			o->progress = ST_PROGRESS_ON;
			break;
		case 'Q':
			o->progress = ST_PROGRESS_OFF;
			break;
		case 'h':
			return st_print_usage(start_usage, ST_CODES_ALL);
		default:
			return st_bad_option(start_usage, argv, c);
		}
	}
	if (optind >= argc)
		return st_usage_error(start_usage, "no command to run");
	if (st_no_save_env())
		o->no_save = true;
	if (o->quiet && o->progress == ST_PROGRESS_AUTO)
		o->progress = ST_PROGRESS_OFF;
	if (!o->log.path && (o->log.fmt >= 0 || o->log.early_object))
		return st_usage_error(start_usage, "--log-format and --early-object go with --log FILE");
	ret = st_log_opts_check(&o->log, start_usage);
	if (ret >= 0)
		return ret;
	o->cmd = argv + optind;
	return -1;
}

int start_main(int argc, char **argv)
{
	struct st_session_req req = { .flags = SYSTRACE_SESSION_F_ON_EXEC };
	struct start_opts o;
	struct st_session_row s;
	struct st_err err;
	struct st_backend *be;
	struct st_recorder *rec = NULL;
	struct st_store *pend;
	struct st_progress progress;
	sigset_t block, oldmask;
	int go[2], execst[2], ret, status, e, progress_fd;
	pid_t pid;

	ret = parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	/* Fail before forking when the tracer is not there. */
	if (st_backend_open_kind(&be, (enum st_backend_kind)o.backend, &err))
		return st_fail(&err, NULL);
	progress_fd = st_progress_cmd_tty((enum st_progress_mode)o.progress);
	/* The log's file and spool, before anything runs. */
	if (o.log.path && (ret = st_log_begin(&rec, &o.log))) {
		st_backend_close(be);
		return ret;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(execst, O_CLOEXEC)) {
		st_err_set(&err, ST_ERR_LOCAL, errno, "pipe", NULL);
		if (o.log.path)
			st_recorder_abandon(rec);
		return st_fail(&err, be);
	}

	forwarded_set(&block);
	sigprocmask(SIG_BLOCK, &block, &oldmask);
	pid = fork();
	if (pid < 0) {
		st_err_set(&err, ST_ERR_LOCAL, errno, "fork", NULL);
		if (o.log.path)
			st_recorder_abandon(rec);
		return st_fail(&err, be);
	}
	if (pid == 0)
		run_child(go, execst, o.cmd, &oldmask);
	child_pid = pid;
	install_forwarding();
	/* CMD may die before the go: a write to its pipe must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	close(go[0]);
	close(execst[1]);

	req.pid = (uint32_t)pid;
	req.name = o.req.name;
	req.counters = o.req.counters;
	req.paths = o.req.paths;
	req.log_buffer = o.log.buffer;
	st_run_settle(be);
	pend = o.no_save ? NULL : st_run_pending_begin();
	/*
	 * A signal to pass on waits until the session is whole: then CMD's
	 * end, before its exec, is the session's (with no process).
	 */
	if (st_backend_session_new(be, &req, &s, &err)) {
		child_pid = 0;
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		st_run_pending_end(pend, NULL);
		kill(pid, SIGKILL);
		wait_child(pid);
		if (o.log.path)
			st_recorder_abandon(rec);
		return st_fail(&err, be);
	}
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	st_warn("session %" PRIu32 "%s%s%s: tracing %s (pid %d)", s.id,
		s.name[0] ? " \"" : "", s.name, s.name[0] ? "\"" : "", o.cmd[0], pid);
	st_run_pending_end(pend, &s);

	while (write(go[1], "g", 1) < 0 && errno == EINTR)
		;
	close(go[1]);
	e = exec_result(execst[0]);
	close(execst[0]);
	st_progress_init_fd(&progress, progress_fd);
	status = !e && (o.log.path || progress.fd >= 0) ?
		 wait_polling(pid, be, s.id, o.log.path ? rec : NULL, &progress) :
		 wait_child(pid);
	if (e) {
		st_warn("cannot run %s: %s", o.cmd[0], strerror(e));
		/* Nothing was traced: the session would only hold a slot. */
		if (o.log.path)
			st_recorder_abandon(rec);
		st_backend_session_del(be, s.id, &err);
		st_backend_close(be);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
	}
	if (status == -1) {
		st_err_set(&err, ST_ERR_LOCAL, errno, "waitpid", NULL);
		if (o.log.path)
			st_recorder_abandon(rec);
		return st_fail(&err, be);
	}
	child_pid = 0;
	if (!o.quiet) {
		settle(be, s.id);
		st_start_summary(be, s.id);
		print_outcome(o.cmd[0], status);
	}
	if (o.log.path) {
		if (o.quiet)
			settle(be, s.id);
		ret = st_log_save(rec, be, s.id, &o.log, progress_fd);
		if (ret) {
			st_backend_close(be);
			if (o.self_usage)
				print_self_usage();
			return ret;
		}
	}
	ret = o.no_save ? 0 : save_run(be, s.id, o.log.path);
	st_backend_close(be);
	if (o.self_usage)
		print_self_usage();
	return ret ? ret : exit_like(status);
}
