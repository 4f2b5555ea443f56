/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * systrace: per-process and per-call-site syscall statistics of a traced
 * process tree, gathered in the kernel and exported over generic netlink.
 *
 * Family "systrace" (SYSTRACE_GENL_NAME), version SYSTRACE_GENL_VERSION.
 * Every command needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user
 * namespace, held by both the sending task and the socket's opener (what
 * perf needs to observe any task); otherwise it fails with EPERM. The
 * family is reachable from every network namespace. SESSION_NEW also
 * needs ptrace read access (PTRACE_MODE_READ_REALCREDS rules) to the root
 * process. A session belongs to the effective uid that made it:
 * SESSION_DEL, SESSION_DETACH and LOG_READ fail with EPERM unless the
 * sender and the socket's opener have that euid, or hold CAP_SYS_ADMIN
 * in the initial user namespace. Attributes are validated strictly: unknown attributes,
 * wrong types and wrong lengths are rejected with an extack message.
 * All 64-bit values are NLA_U64 attributes aligned with SYSTRACE_A_PAD
 * (or the nest's own *_PAD attribute); no C structs travel on the wire.
 *
 * Commands and their attribute trees:
 *
 * SYSTRACE_CMD_STATUS (do)
 *   request:  none
 *   reply:    SYSTRACE_A_VERSION, SYSTRACE_A_ABI_VERSION,
 *             SYSTRACE_A_PARAMS (nest of SYSTRACE_PARAM_*),
 *             SYSTRACE_A_SESSIONS_LIVE, SYSTRACE_A_MEM_BYTES,
 *             SYSTRACE_A_PROBES_ACTIVE
 *
 * SYSTRACE_CMD_SESSION_NEW (do)
 *   request:  SYSTRACE_A_PID (required): root of the traced tree, as seen
 *             in the caller's pid namespace. Without
 *             SYSTRACE_SESSION_F_ON_EXEC the process is running already
 *             (attach): its row, and with SYSTRACE_SESSION_F_TREE those of
 *             its living descendants, carry SYSTRACE_PROC_A_ATTACHED and
 *             count from the attach on;
 *             SYSTRACE_A_NAME (optional, 1 to SYSTRACE_NAME_MAX - 1 bytes;
 *             EEXIST while a live session, running or waiting, has it);
 *             SYSTRACE_A_FLAGS (optional, SYSTRACE_SESSION_F_*);
 *             SYSTRACE_A_COUNTERS (optional, enum systrace_counters,
 *             default SYSTRACE_COUNTERS_NONE);
 *             SYSTRACE_A_LOG_BUFFER (optional): keep a temporal log of
 *             every counted syscall in a buffer of this many bytes per
 *             CPU (SYSTRACE_LOG_BUFFER_MIN..MAX), read by LOG_READ; an
 *             event that finds it full is counted in DROPPED_EVENTS.
 *             SYSTRACE_A_PATHS (optional, enum systrace_paths, default
 *             SYSTRACE_PATHS_ERRORS): which file calls' paths are counted,
 *             read by PATH_GET.
 *   reply:    SYSTRACE_A_SESSION (nest of SYSTRACE_SESSION_A_*)
 *
 * SYSTRACE_CMD_SESSION_DEL (do)
 *   request:  SYSTRACE_A_SESSION_ID (required)
 *   reply:    none (ack). All of the session's memory is freed; its live
 *             processes keep running untraced.
 *
 * SYSTRACE_CMD_SESSION_DETACH (do)
 *   request:  SYSTRACE_A_SESSION_ID (required)
 *   reply:    none (ack). The session stops following its tasks, which
 *             keep running untraced; its rows stay, those still running
 *             end as SYSTRACE_END_DETACHED, and its state becomes
 *             SYSTRACE_STATE_DETACHED.
 *
 * SYSTRACE_CMD_SESSION_GET (do with SYSTRACE_A_SESSION_ID, or dump)
 *   reply:    one message per session: SYSTRACE_A_SESSION (nest)
 *
 * SYSTRACE_CMD_PROC_GET (dump)
 *   request:  SYSTRACE_A_SESSION_ID (required)
 *   reply:    one SYSTRACE_A_PROC nest per process image, several per message.
 *
 * SYSTRACE_CMD_SITE_GET (dump)
 *   request:  SYSTRACE_A_SESSION_ID (required)
 *   reply:    one SYSTRACE_A_SITE nest per (process image, call site,
 *             syscall number, ABI), several per message. A tracer that
 *             counts errnos puts SYSTRACE_SITE_A_ERRNO_OTHER in every site
 *             nest, and one SYSTRACE_SITE_A_ERRNO nest (of
 *             SYSTRACE_ERRNO_A_*) per errno it kept for the site (see
 *             SYSTRACE_SITE_ERRNOS below).
 *
 * SYSTRACE_CMD_LOG_READ (dump)
 *   request:  SYSTRACE_A_SESSION_ID (required), of a session made with
 *             SYSTRACE_A_LOG_BUFFER
 *   reply:    one SYSTRACE_A_EVENT nest per syscall event, several per
 *             message, taken out of the session's per-CPU buffers: each
 *             event is returned at most once, to one reader (events in a
 *             message the reader never reads are lost, uncounted). The
 *             events of one CPU come in the order they completed, not in
 *             SYSTRACE_EVENT_A_TS_NS order, and one dump may return newer
 *             events of a CPU before older ones of another: a reader sorts
 *             what it has read by TS_NS (and a streaming one holds events
 *             back until no older one can come). A dump returns at most the
 *             events buffered when it starts, so it ends under any load.
 *
 * SYSTRACE_CMD_PATH_GET (dump)
 *   request:  SYSTRACE_A_SESSION_ID (required)
 *   reply:    one SYSTRACE_A_PATH nest (of SYSTRACE_PATH_A_*) per path
 *             row, several per message. Two rows with the same key (two
 *             threads of an image counted the same path) add up.
 *
 * Dumps are resumable with any receive buffer size. Each dump message is
 * large enough for a row with a PATH_MAX path (about 5 KiB): read with a
 * buffer of 8 KiB, or peek at each message's length first. A dump whose table
 * changed between two of its messages (a live session) carries
 * NLM_F_DUMP_INTR; the rows it returned are still each valid.
 */
#ifndef _UAPI_LINUX_SYSTRACE_H
#define _UAPI_LINUX_SYSTRACE_H

#define SYSTRACE_GENL_NAME	"systrace"
/*
 * Versions. The ABI grows by appending: new commands, attributes, flags and
 * enum values go at the end of their enum, and a peer that does not know
 * one rejects it (the module: EOPNOTSUPP for a command, an extack error
 * for an attribute or a reserved flag bit, under strict validation) or
 * ignores it (systracectl skips attributes it does not know). Appending
 * changes no version. SYSTRACE_ABI_VERSION (reported by STATUS; systracectl
 * warns when it differs from its own) changes only when an existing
 * command, attribute or value changes meaning or goes away.
 * SYSTRACE_GENL_VERSION is the genl header's version field, which genl does
 * not dispatch on: it stays equal to SYSTRACE_ABI_VERSION.
 */
#define SYSTRACE_GENL_VERSION	1
#define SYSTRACE_ABI_VERSION	1

#define SYSTRACE_NAME_MAX	32	/* session name, with the NUL */
#define SYSTRACE_COMM_MAX	16	/* TASK_COMM_LEN */
#define SYSTRACE_ARGV_MAX	4096	/* argv bytes kept per image, NULs included */

enum systrace_cmd {
	SYSTRACE_CMD_UNSPEC,
	SYSTRACE_CMD_STATUS,
	SYSTRACE_CMD_SESSION_NEW,
	SYSTRACE_CMD_SESSION_DEL,
	SYSTRACE_CMD_SESSION_GET,
	SYSTRACE_CMD_PROC_GET,
	SYSTRACE_CMD_SITE_GET,
	SYSTRACE_CMD_SESSION_DETACH,
	SYSTRACE_CMD_LOG_READ,
	SYSTRACE_CMD_PATH_GET,

	__SYSTRACE_CMD_MAX,
	SYSTRACE_CMD_MAX = __SYSTRACE_CMD_MAX - 1
};

enum systrace_attr {
	SYSTRACE_A_UNSPEC,
	SYSTRACE_A_PAD,
	SYSTRACE_A_VERSION,		/* string: module version */
	SYSTRACE_A_ABI_VERSION,		/* u32: SYSTRACE_ABI_VERSION */
	SYSTRACE_A_PARAMS,		/* nest: SYSTRACE_PARAM_* */
	SYSTRACE_A_SESSIONS_LIVE,	/* u32 */
	SYSTRACE_A_MEM_BYTES,		/* u64: memory held by all sessions */
	SYSTRACE_A_PROBES_ACTIVE,	/* u8: 1 while tracepoints are hooked */
	SYSTRACE_A_SESSION_ID,		/* u32 */
	SYSTRACE_A_PID,			/* u32 */
	SYSTRACE_A_NAME,		/* string */
	SYSTRACE_A_FLAGS,		/* u32: SYSTRACE_SESSION_F_* */
	SYSTRACE_A_COUNTERS,		/* u32: enum systrace_counters */
	SYSTRACE_A_SESSION,		/* nest: SYSTRACE_SESSION_A_* */
	SYSTRACE_A_PROC,		/* nest: SYSTRACE_PROC_A_* */
	SYSTRACE_A_SITE,		/* nest: SYSTRACE_SITE_A_* */
	SYSTRACE_A_LOG_BUFFER,		/* u32: log bytes per CPU */
	SYSTRACE_A_EVENT,		/* nest: SYSTRACE_EVENT_A_* */
	SYSTRACE_A_PATHS,		/* u32: enum systrace_paths */
	SYSTRACE_A_PATH,		/* nest: SYSTRACE_PATH_A_* */

	__SYSTRACE_A_MAX,
	SYSTRACE_A_MAX = __SYSTRACE_A_MAX - 1
};

/*
 * The attributes' types, one X-macro list per nest: X(NAME, type) for each
 * attribute of the nest's enum, in its order, but *_UNSPEC, *_PAD and the
 * u64 counters, which have lists of their own (SYSTRACE_SESSION_STATS,
 * SYSTRACE_PROC_COUNTERS, SYSTRACE_PROC_ACCT, SYSTRACE_SITE_COUNTERS).
 * type is one of U8, U32, U64 (an integer of that width), STRING
 * (NUL-terminated), NEST, or BINARY (bytes, at most SYSTRACE_<NAME>_MAX of
 * them). systracectl's policies for the replies derive from these lists,
 * and check that every attribute is in one: a new attribute is its line
 * appended to its enum and its line appended to its nest's list.
 */
#define SYSTRACE_ATTRS(X)					\
	X(VERSION, STRING)					\
	X(ABI_VERSION, U32)					\
	X(PARAMS, NEST)						\
	X(SESSIONS_LIVE, U32)					\
	X(MEM_BYTES, U64)					\
	X(PROBES_ACTIVE, U8)					\
	X(SESSION_ID, U32)					\
	X(PID, U32)						\
	X(NAME, STRING)						\
	X(FLAGS, U32)						\
	X(COUNTERS, U32)					\
	X(SESSION, NEST)					\
	X(PROC, NEST)						\
	X(SITE, NEST)						\
	X(LOG_BUFFER, U32)					\
	X(EVENT, NEST)						\
	X(PATHS, U32)						\
	X(PATH, NEST)

/* Module parameters, as reported by STATUS. */
enum systrace_param_attr {
	SYSTRACE_PARAM_UNSPEC,
	SYSTRACE_PARAM_PAD,
	SYSTRACE_PARAM_MAX_SESSIONS,		/* u32 */
	SYSTRACE_PARAM_MAX_PROCS,		/* u32: process rows per session */
	SYSTRACE_PARAM_MAX_SITES,		/* u32: site rows per session */
	SYSTRACE_PARAM_MAX_MEM_BYTES,		/* u64: memory per session */
	SYSTRACE_PARAM_FORCE_LATE_RESOLVE,	/* u8: testing, 0 or 1 */
	SYSTRACE_PARAM_MAX_MEM_TOTAL_BYTES,	/* u64: memory of all sessions */

	__SYSTRACE_PARAM_MAX,
	SYSTRACE_PARAM_MAX = __SYSTRACE_PARAM_MAX - 1
};

enum systrace_session_flags {
	/*
	 * The root is not counted until its next successful execve; the
	 * first process row is the image that execve loads.
	 */
	SYSTRACE_SESSION_F_ON_EXEC = 1U << 0,
	/*
	 * Attach: also trace the root's living descendants, each with its
	 * own row. Not with F_ON_EXEC or F_THREADS_ONLY.
	 */
	SYSTRACE_SESSION_F_TREE = 1U << 1,
	/*
	 * Follow new threads, but not new processes: only the root's
	 * process images are traced. Not with F_TREE.
	 */
	SYSTRACE_SESSION_F_THREADS_ONLY = 1U << 2,

	SYSTRACE_SESSION_F_ALL = SYSTRACE_SESSION_F_ON_EXEC |
				 SYSTRACE_SESSION_F_TREE |
				 SYSTRACE_SESSION_F_THREADS_ONLY
};

/* What each traced task's perf event counts (user mode only). */
enum systrace_counters {
	SYSTRACE_COUNTERS_NONE,
	SYSTRACE_COUNTERS_INSTRUCTIONS,
	SYSTRACE_COUNTERS_CYCLES,
	SYSTRACE_COUNTERS_TASK_CLOCK,

	__SYSTRACE_COUNTERS_MAX,
	SYSTRACE_COUNTERS_MAX = __SYSTRACE_COUNTERS_MAX - 1
};

enum systrace_session_state {
	SYSTRACE_STATE_WAITING,		/* F_ON_EXEC: root has not exec'd yet */
	SYSTRACE_STATE_RUNNING,		/* some traced task is alive */
	SYSTRACE_STATE_FINISHED,	/* every traced task has exited */
	SYSTRACE_STATE_DETACHED,	/* SESSION_DETACH: no longer followed */

	__SYSTRACE_STATE_MAX
};

enum systrace_session_attr {
	SYSTRACE_SESSION_A_UNSPEC,
	SYSTRACE_SESSION_A_PAD,
	SYSTRACE_SESSION_A_ID,			/* u32 */
	SYSTRACE_SESSION_A_NAME,		/* string */
	SYSTRACE_SESSION_A_ROOT_PID,		/* u32 */
	SYSTRACE_SESSION_A_STATE,		/* u32: enum systrace_session_state */
	SYSTRACE_SESSION_A_FLAGS,		/* u32 */
	SYSTRACE_SESSION_A_CREATED_NS,		/* u64: CLOCK_MONOTONIC */
	SYSTRACE_SESSION_A_REALTIME_BASE_NS,	/* u64: realtime - monotonic */
	SYSTRACE_SESSION_A_COUNTERS,		/* u32: enum systrace_counters */
	SYSTRACE_SESSION_A_COUNTERS_ERROR,	/* string: why counters are off */
	SYSTRACE_SESSION_A_LIVE_TASKS,		/* u32 */
	SYSTRACE_SESSION_A_PROCS,		/* u64: process rows */
	SYSTRACE_SESSION_A_SITES,		/* u64: site rows */
	SYSTRACE_SESSION_A_SYSCALLS,		/* u64: sum over process rows */
	SYSTRACE_SESSION_A_ERRORS,		/* u64 */
	SYSTRACE_SESSION_A_SYSCALL_NS,		/* u64 */
	SYSTRACE_SESSION_A_FORKS,		/* u64: processes forked */
	SYSTRACE_SESSION_A_CLONES,		/* u64: threads cloned */
	SYSTRACE_SESSION_A_EXECS,		/* u64 */
	SYSTRACE_SESSION_A_EXITS,		/* u64: process exits */
	SYSTRACE_SESSION_A_SIGNAL_EXITS,	/* u64: exits by a signal */
	SYSTRACE_SESSION_A_DROPPED_PROCS,	/* u64: tasks not followed */
	SYSTRACE_SESSION_A_DROPPED_SITES,	/* u64: site rows not made */
	SYSTRACE_SESSION_A_DROPPED_SYSCALLS,	/* u64: syscalls not counted */
	SYSTRACE_SESSION_A_DROPPED_NOMEM,	/* u64: allocation failures */
	SYSTRACE_SESSION_A_DROPPED_RESOLVE,	/* u64: sites with no mapping */
	SYSTRACE_SESSION_A_DROPPED_COUNTERS,	/* u64: perf counters not made */
	SYSTRACE_SESSION_A_MEM_BYTES,		/* u64 */
	SYSTRACE_SESSION_A_PROC_ROW_BYTES,	/* u32: bytes per process row */
	SYSTRACE_SESSION_A_SITE_ROW_BYTES,	/* u32: bytes per site row */
	SYSTRACE_SESSION_A_COUNTER_VALUE,	/* u64: sum over process rows */
	/* u64: sites resolved after their first hit (mmap lock busy then) */
	SYSTRACE_SESSION_A_LATE_RESOLVES,
	/* u32: log bytes per CPU; absent: no log */
	SYSTRACE_SESSION_A_LOG_BUFFER,
	/* u64: log events lost to a full buffer (in the rows all the same) */
	SYSTRACE_SESSION_A_DROPPED_EVENTS,
	/* u64: images whose argv is unknown (no memory, or unreadable) */
	SYSTRACE_SESSION_A_DROPPED_ARGV,
	/* u64: hash grows that found no memory (nothing lost: longer chains) */
	SYSTRACE_SESSION_A_HASH_GROW_FAILED,
	/* u32: enum systrace_paths; absent: a module that counts no paths */
	SYSTRACE_SESSION_A_PATHS,
	/* u64: file calls whose path has no row (max_mem, no memory) */
	SYSTRACE_SESSION_A_DROPPED_PATHS,

	__SYSTRACE_SESSION_A_MAX,
	SYSTRACE_SESSION_A_MAX = __SYSTRACE_SESSION_A_MAX - 1
};

/*
 * The session's counters of events and of losses: each is a u64 attribute
 * SYSTRACE_SESSION_A_<NAME> above, listed here as X(NAME, key, kind) in the
 * order of their JSON keys, where key is the name systracectl shows and
 * kind one of enum systrace_stat_kind. The module's counter array and its
 * reply, and systracectl's decoding, model, JSON, saved-dump loading,
 * status and drop totals all derive from this list: a new counter is its
 * attribute appended to the enum above and its line appended here.
 */
enum systrace_stat_kind {
	SYSTRACE_STAT_EVENT,	/* something the traced tree did */
	SYSTRACE_STAT_DROP,	/* something not recorded: key dropped_* */
	SYSTRACE_STAT_NOTE,	/* worth knowing; nothing was lost */
	SYSTRACE_STAT_LOG_DROP,	/* not in the log, but in the rows */
};

#define SYSTRACE_SESSION_STATS(X)				\
	X(FORKS, forks, EVENT)					\
	X(CLONES, clones, EVENT)				\
	X(EXECS, execs, EVENT)					\
	X(EXITS, exits, EVENT)					\
	X(SIGNAL_EXITS, signal_exits, EVENT)			\
	X(DROPPED_PROCS, dropped_procs, DROP)			\
	X(DROPPED_SITES, dropped_sites, DROP)			\
	X(DROPPED_SYSCALLS, dropped_syscalls, DROP)		\
	X(DROPPED_NOMEM, dropped_nomem, DROP)			\
	X(DROPPED_RESOLVE, dropped_resolve, DROP)		\
	X(DROPPED_COUNTERS, dropped_counters, DROP)		\
	X(LATE_RESOLVES, late_resolves, NOTE)			\
	X(DROPPED_EVENTS, dropped_events, LOG_DROP)		\
	X(DROPPED_ARGV, dropped_argv, DROP)			\
	X(HASH_GROW_FAILED, hash_grow_failed, NOTE)

/* The session's other attributes: X(NAME, type) (see SYSTRACE_ATTRS). */
#define SYSTRACE_SESSION_ATTRS(X)				\
	X(ID, U32)						\
	X(NAME, STRING)						\
	X(ROOT_PID, U32)					\
	X(STATE, U32)						\
	X(FLAGS, U32)						\
	X(CREATED_NS, U64)					\
	X(REALTIME_BASE_NS, U64)				\
	X(COUNTERS, U32)					\
	X(COUNTERS_ERROR, STRING)				\
	X(LIVE_TASKS, U32)					\
	X(PROCS, U64)						\
	X(SITES, U64)						\
	X(SYSCALLS, U64)					\
	X(ERRORS, U64)						\
	X(SYSCALL_NS, U64)					\
	X(MEM_BYTES, U64)					\
	X(PROC_ROW_BYTES, U32)					\
	X(SITE_ROW_BYTES, U32)					\
	X(COUNTER_VALUE, U64)					\
	X(LOG_BUFFER, U32)					\
	X(PATHS, U32)						\
	X(DROPPED_PATHS, U64)

/* The temporal log's buffer per CPU, in bytes (SYSTRACE_A_LOG_BUFFER). */
#define SYSTRACE_LOG_BUFFER_MIN	(4U << 10)
#define SYSTRACE_LOG_BUFFER_MAX	(256U << 20)

/* One syscall of the temporal log (SYSTRACE_A_EVENT). */
enum systrace_event_attr {
	SYSTRACE_EVENT_A_UNSPEC,
	SYSTRACE_EVENT_A_PAD,
	SYSTRACE_EVENT_A_TS_NS,		/* u64: entry, CLOCK_MONOTONIC */
	SYSTRACE_EVENT_A_DUR_NS,	/* u64: entry to exit */
	SYSTRACE_EVENT_A_PROC_ID,	/* u64: its process row */
	/* u64: syscalls its image completed before this one (from 0) */
	SYSTRACE_EVENT_A_SEQ,
	SYSTRACE_EVENT_A_ADDR,		/* u64: the site, as SITE_A_ADDR */
	SYSTRACE_EVENT_A_RET,		/* u64: the return value, as s64 */
	SYSTRACE_EVENT_A_PID,		/* u32: thread group id */
	SYSTRACE_EVENT_A_TID,		/* u32: thread id */
	SYSTRACE_EVENT_A_NR,		/* u32: syscall number */
	SYSTRACE_EVENT_A_ABI,		/* u32: enum systrace_abi */

	__SYSTRACE_EVENT_A_MAX,
	SYSTRACE_EVENT_A_MAX = __SYSTRACE_EVENT_A_MAX - 1
};

/* An event's attributes: X(NAME, type) (see SYSTRACE_ATTRS). */
#define SYSTRACE_EVENT_ATTRS(X)					\
	X(TS_NS, U64)						\
	X(DUR_NS, U64)						\
	X(PROC_ID, U64)						\
	X(SEQ, U64)						\
	X(ADDR, U64)						\
	X(RET, U64)						\
	X(PID, U32)						\
	X(TID, U32)						\
	X(NR, U32)						\
	X(ABI, U32)

/*
 * Which file calls' paths a session counts (SYSTRACE_A_PATHS on
 * SESSION_NEW; absent: SYSTRACE_PATHS_ERRORS): the x86-64 calls of
 * strace's %file class, by their first path argument (symlink and
 * symlinkat: the target; mount: the target), read at the call's exit.
 */
enum systrace_paths {
	SYSTRACE_PATHS_ERRORS,		/* the calls that failed */
	SYSTRACE_PATHS_ALL,		/* every call */
	SYSTRACE_PATHS_OFF,		/* none */

	__SYSTRACE_PATHS_MAX,
	SYSTRACE_PATHS_MAX = __SYSTRACE_PATHS_MAX - 1
};

/* Bytes of a path a path row keeps, with its NUL. */
#define SYSTRACE_PATH_BOUND	256

/* What a path row's path is. */
enum systrace_path_kind {
	SYSTRACE_PATH_OK,		/* SYSTRACE_PATH_A_PATH holds it */
	SYSTRACE_PATH_LONG,		/* SYSTRACE_PATH_BOUND bytes or more */
	SYSTRACE_PATH_UNREADABLE,	/* a bad pointer, or a page not there */

	__SYSTRACE_PATH_KIND_MAX
};

/*
 * One path row (SYSTRACE_A_PATH): the calls of syscall (NR, ABI) at the
 * site (PROC_ID, ADDR) that gave result ERRNO (0: success) on one path.
 */
enum systrace_path_attr {
	SYSTRACE_PATH_A_UNSPEC,
	SYSTRACE_PATH_A_PAD,
	SYSTRACE_PATH_A_PROC_ID,	/* u64: as SITE_A_PROC_ID */
	SYSTRACE_PATH_A_ADDR,		/* u64: as SITE_A_ADDR */
	SYSTRACE_PATH_A_NR,		/* u32 */
	SYSTRACE_PATH_A_ABI,		/* u32: enum systrace_abi */
	SYSTRACE_PATH_A_ERRNO,		/* u32: 0, or the calls' -ret */
	SYSTRACE_PATH_A_KIND,		/* u32: enum systrace_path_kind */
	SYSTRACE_PATH_A_PATH,		/* string: with SYSTRACE_PATH_OK */
	SYSTRACE_PATH_A_COUNT,		/* u64 */

	__SYSTRACE_PATH_A_MAX,
	SYSTRACE_PATH_A_MAX = __SYSTRACE_PATH_A_MAX - 1
};

/* A path row's attributes: X(NAME, type) (see SYSTRACE_ATTRS). */
#define SYSTRACE_PATH_ATTRS(X)					\
	X(PROC_ID, U64)						\
	X(ADDR, U64)						\
	X(NR, U32)						\
	X(ABI, U32)						\
	X(ERRNO, U32)						\
	X(KIND, U32)						\
	X(PATH, STRING)						\
	X(COUNT, U64)

/* How a process image ended. */
enum systrace_end {
	SYSTRACE_END_RUNNING,		/* still alive */
	SYSTRACE_END_EXITED,		/* EXIT_CODE holds the status */
	SYSTRACE_END_SIGNALED,		/* EXIT_SIGNAL holds the signal */
	SYSTRACE_END_EXEC,		/* replaced by a successful execve */
	SYSTRACE_END_DETACHED,		/* session deleted or detached */
	/*
	 * Replaced by a successful execve of an image that the session's
	 * creator could not ptrace (setuid, setgid, file capabilities, an
	 * unreadable file): the new image and what it starts are not traced.
	 */
	SYSTRACE_END_EXEC_UNTRACED,

	__SYSTRACE_END_MAX
};

enum systrace_proc_attr {
	SYSTRACE_PROC_A_UNSPEC,
	SYSTRACE_PROC_A_PAD,
	SYSTRACE_PROC_A_ID,		/* u64: unique in the session, never 0 */
	SYSTRACE_PROC_A_PARENT_ID,	/* u64: parent's image at fork, 0: none */
	SYSTRACE_PROC_A_PREV_ID,	/* u64: image this one replaced, 0: none */
	SYSTRACE_PROC_A_PID,		/* u32: in the session creator's pid ns */
	SYSTRACE_PROC_A_TGID,		/* u32 */
	SYSTRACE_PROC_A_PPID,		/* u32: parent's tgid at fork */
	SYSTRACE_PROC_A_COMM,		/* string */
	SYSTRACE_PROC_A_EXE,		/* string: absent when unknown */
	SYSTRACE_PROC_A_START_NS,	/* u64: CLOCK_MONOTONIC */
	SYSTRACE_PROC_A_END_NS,		/* u64: absent while running */
	SYSTRACE_PROC_A_END,		/* u32: enum systrace_end */
	SYSTRACE_PROC_A_EXIT_CODE,	/* u32: with SYSTRACE_END_EXITED */
	SYSTRACE_PROC_A_EXIT_SIGNAL,	/* u32: with SYSTRACE_END_SIGNALED */
	SYSTRACE_PROC_A_CORE_DUMPED,	/* u8 */
	SYSTRACE_PROC_A_THREADS,	/* u32: threads this image ever had */
	SYSTRACE_PROC_A_SYSCALLS,	/* u64 */
	SYSTRACE_PROC_A_ERRORS,		/* u64: returns in [-4095, -1] */
	SYSTRACE_PROC_A_SYSCALL_NS,	/* u64 */
	SYSTRACE_PROC_A_SITES,		/* u32: site rows */
	SYSTRACE_PROC_A_USER_NS,	/* u64: user CPU time */
	SYSTRACE_PROC_A_SYS_NS,		/* u64: system CPU time */
	SYSTRACE_PROC_A_NVCSW,		/* u64: voluntary context switches */
	SYSTRACE_PROC_A_NIVCSW,		/* u64: involuntary ones */
	SYSTRACE_PROC_A_MINFLT,		/* u64 */
	SYSTRACE_PROC_A_MAJFLT,		/* u64 */
	SYSTRACE_PROC_A_COUNTER_VALUE,	/* u64: absent when not counted */
	SYSTRACE_PROC_A_COUNTER_TASKS,	/* u32: tasks whose counter was read */
	SYSTRACE_PROC_A_ATTACHED,	/* u8: 1: it ran before the attach */
	SYSTRACE_PROC_A_ARGV,		/* binary: argv as /proc/PID/cmdline
					 * gives it, each argument ending in
					 * NUL, at most SYSTRACE_ARGV_MAX bytes;
					 * absent when unknown */
	SYSTRACE_PROC_A_ARGV_TRUNCATED,	/* u8: 1: argv was longer, cut at
					 * an argument's end */

	__SYSTRACE_PROC_A_MAX,
	SYSTRACE_PROC_A_MAX = __SYSTRACE_PROC_A_MAX - 1
};

/*
 * A process row's task accounting, summed over its threads while they were
 * traced: X(NAME, field, column) with SYSTRACE_PROC_A_<NAME> its u64
 * attribute, field its name in the module's and systracectl's structs, and
 * column its CSV header and JSON key, in column order. The module reads
 * each from the task (kmod/mem.c, st_acct_read); its sums, its reply, and
 * systracectl's decoding, model, columns and dump loading derive from this
 * list. A new one is its attribute appended above, its line here, and its
 * read from the task.
 */
#define SYSTRACE_PROC_ACCT(X)					\
	X(USER_NS, user_ns, user_time_ns)			\
	X(SYS_NS, sys_ns, sys_time_ns)				\
	X(NVCSW, nvcsw, voluntary_ctxt_switches)		\
	X(NIVCSW, nivcsw, involuntary_ctxt_switches)		\
	X(MINFLT, minflt, minor_faults)				\
	X(MAJFLT, majflt, major_faults)

/*
 * A process row's syscall counters, summed over its threads while they were
 * traced: X(NAME, field) with SYSTRACE_PROC_A_<NAME> its u64 attribute and
 * field its name in the module's and systracectl's structs, its CSV header
 * and its JSON key, in column order. The module counts each per thread in
 * st_tsite_account() (kmod/rows.c); its per-thread and per-row fields, the
 * fold of a thread into its row, the snapshot and the reply, and
 * systracectl's decoding, model, columns and dump loading derive from this
 * list. A new one is its attribute appended above, its line here, and its
 * count.
 */
#define SYSTRACE_PROC_COUNTERS(X)				\
	X(SYSCALLS, syscalls)					\
	X(ERRORS, errors)					\
	X(SYSCALL_NS, syscall_ns)

/*
 * A process row's other attributes: X(NAME, type) (see SYSTRACE_ATTRS),
 * those of neither SYSTRACE_PROC_ACCT nor SYSTRACE_PROC_COUNTERS.
 */
#define SYSTRACE_PROC_ATTRS(X)					\
	X(ID, U64)						\
	X(PARENT_ID, U64)					\
	X(PREV_ID, U64)						\
	X(PID, U32)						\
	X(TGID, U32)						\
	X(PPID, U32)						\
	X(COMM, STRING)						\
	X(EXE, STRING)						\
	X(START_NS, U64)					\
	X(END_NS, U64)						\
	X(END, U32)						\
	X(EXIT_CODE, U32)					\
	X(EXIT_SIGNAL, U32)					\
	X(CORE_DUMPED, U8)					\
	X(THREADS, U32)						\
	X(SITES, U32)						\
	X(COUNTER_VALUE, U64)					\
	X(COUNTER_TASKS, U32)					\
	X(ATTACHED, U8)						\
	X(ARGV, BINARY)						\
	X(ARGV_TRUNCATED, U8)

enum systrace_abi {
	SYSTRACE_ABI_X64,
	SYSTRACE_ABI_IA32,
	SYSTRACE_ABI_X32,

	__SYSTRACE_ABI_MAX
};

/* What kind of mapping a call site lies in. */
enum systrace_map {
	SYSTRACE_MAP_UNKNOWN,		/* not resolved (see DROPPED_RESOLVE) */
	SYSTRACE_MAP_FILE,		/* PATH + OFFSET: offset in the file */
	SYSTRACE_MAP_ANON,		/* OFFSET is the address */
	SYSTRACE_MAP_VDSO,		/* OFFSET is the address */
	SYSTRACE_MAP_VSYSCALL,		/* OFFSET is the address */

	__SYSTRACE_MAP_MAX
};

enum systrace_site_attr {
	SYSTRACE_SITE_A_UNSPEC,
	SYSTRACE_SITE_A_PAD,
	SYSTRACE_SITE_A_PROC_ID,	/* u64: SYSTRACE_PROC_A_ID of its image */
	SYSTRACE_SITE_A_ADDR,		/* u64: address of the syscall insn */
	SYSTRACE_SITE_A_NR,		/* u32: syscall number in its ABI */
	SYSTRACE_SITE_A_ABI,		/* u32: enum systrace_abi */
	SYSTRACE_SITE_A_MAP,		/* u32: enum systrace_map */
	SYSTRACE_SITE_A_PATH,		/* string: with SYSTRACE_MAP_FILE */
	SYSTRACE_SITE_A_OFFSET,		/* u64 */
	SYSTRACE_SITE_A_INODE,		/* u64: file identity at first hit */
	SYSTRACE_SITE_A_DEV,		/* u32: st_dev (new_encode_dev) */
	SYSTRACE_SITE_A_MTIME_NS,	/* u64: mtime at first hit */
	SYSTRACE_SITE_A_CALLS,		/* u64 */
	SYSTRACE_SITE_A_ERRORS,		/* u64 */
	SYSTRACE_SITE_A_TOTAL_NS,	/* u64 */
	SYSTRACE_SITE_A_MIN_NS,		/* u64 */
	SYSTRACE_SITE_A_MAX_NS,		/* u64 */
	SYSTRACE_SITE_A_FIRST_NS,	/* u64: CLOCK_MONOTONIC of first entry */
	SYSTRACE_SITE_A_FIRST_ORDINAL,	/* u64: syscalls done before it */
	/* nest: SYSTRACE_ERRNO_A_*, once per errno kept; 0..SITE_ERRNOS of them */
	SYSTRACE_SITE_A_ERRNO,
	/* u64: errors whose errno has no SITE_A_ERRNO; absent: none counted */
	SYSTRACE_SITE_A_ERRNO_OTHER,

	__SYSTRACE_SITE_A_MAX,
	SYSTRACE_SITE_A_MAX = __SYSTRACE_SITE_A_MAX - 1
};

/*
 * Why a site's calls failed: the errno (-ret, 1..4095) of its errors, for
 * at most SYSTRACE_SITE_ERRNOS errnos per site row, plus the errors of the
 * others in one count. A tracer that counts errnos sends, in every site
 * nest, SYSTRACE_SITE_A_ERRNO_OTHER (0 when every error is listed) and one
 * SYSTRACE_SITE_A_ERRNO nest per errno it kept, with a non-zero count, in
 * no particular order, each errno at most once. Then, for each site row:
 *
 *   sum of the SYSTRACE_ERRNO_A_COUNTs + SYSTRACE_SITE_A_ERRNO_OTHER
 *     == SYSTRACE_SITE_A_ERRORS
 *
 * and each count is exact: the number of the row's calls that returned
 * -ERRNO. Which errnos are kept when a site returned more than
 * SYSTRACE_SITE_ERRNOS distinct ones is the tracer's choice, made with
 * bounded memory: the first ones it met, or, where it merges counts (a
 * thread's into its row), the most frequent of those. Without
 * SYSTRACE_SITE_A_ERRNO_OTHER the row's errnos are unknown (a tracer that
 * does not count them), which is not the same as none.
 */
#define SYSTRACE_SITE_ERRNOS	4

enum systrace_errno_attr {
	SYSTRACE_ERRNO_A_UNSPEC,
	SYSTRACE_ERRNO_A_PAD,
	SYSTRACE_ERRNO_A_ERRNO,		/* u32: 1..4095, the calls' -ret */
	SYSTRACE_ERRNO_A_COUNT,		/* u64: calls that returned -ERRNO, > 0 */

	__SYSTRACE_ERRNO_A_MAX,
	SYSTRACE_ERRNO_A_MAX = __SYSTRACE_ERRNO_A_MAX - 1
};

/* An errno nest's attributes: X(NAME, type) (see SYSTRACE_ATTRS). */
#define SYSTRACE_ERRNO_ATTRS(X)					\
	X(ERRNO, U32)						\
	X(COUNT, U64)

/*
 * How two values of one counter combine: those of two threads into their
 * site row, and those of two site rows into a sum per syscall. MIN and MAX
 * are over the calls counted: a thread with none adds nothing to its row.
 */
enum systrace_merge {
	SYSTRACE_MERGE_SUM,
	SYSTRACE_MERGE_MIN,
	SYSTRACE_MERGE_MAX,
};

/*
 * A site row's counters: X(NAME, field, merge) with SYSTRACE_SITE_A_<NAME>
 * its u64 attribute, field its name in the module's and systracectl's
 * structs, its CSV header and its JSON key, and merge a SYSTRACE_MERGE_*,
 * in column order. The module counts each per thread in st_tsite_account()
 * (kmod/rows.c); its per-thread and per-row fields, the fold of a thread
 * into its row, the snapshot and the reply, and systracectl's decoding,
 * model, columns (of the sites and of `dump --syscalls`), sums per syscall
 * and dump loading derive from this list. A new one is its attribute
 * appended above, its line here, and its count.
 */
#define SYSTRACE_SITE_COUNTERS(X)				\
	X(CALLS, calls, SUM)					\
	X(ERRORS, errors, SUM)					\
	X(TOTAL_NS, total_ns, SUM)				\
	X(MIN_NS, min_ns, MIN)					\
	X(MAX_NS, max_ns, MAX)

/*
 * A site row's other attributes: X(NAME, type) (see SYSTRACE_ATTRS), those
 * not in SYSTRACE_SITE_COUNTERS.
 */
#define SYSTRACE_SITE_ATTRS(X)					\
	X(PROC_ID, U64)						\
	X(ADDR, U64)						\
	X(NR, U32)						\
	X(ABI, U32)						\
	X(MAP, U32)						\
	X(PATH, STRING)						\
	X(OFFSET, U64)						\
	X(INODE, U64)						\
	X(DEV, U32)						\
	X(MTIME_NS, U64)					\
	X(FIRST_NS, U64)					\
	X(FIRST_ORDINAL, U64)					\
	X(ERRNO, NEST)						\
	X(ERRNO_OTHER, U64)

#endif /* _UAPI_LINUX_SYSTRACE_H */
