/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of the BPF backend's maps, shared by the programs
 * (systrace.bpf.c) and their loader and reader (lib/bpf_*.c). Keys and
 * values are read and written by both sides: fixed-size fields only.
 *
 * One set of programs serves every session. The maps pinned in the pin
 * tree (/sys/fs/bpf/systrace/, STB_PIN_* below) are shared: the sessions'
 * slots, the tasks' storage, and one array of maps per kind of data whose
 * entry N is the data map of the session in slot N.
 */
#ifndef SYSTRACE_BPF_H
#define SYSTRACE_BPF_H

#define STB_COMM_LEN	16
/* Bytes of a path: PATH_MAX, plus room the verifier needs for a last copy. */
#define STB_PATH_MAX	4096
#define STB_NAME_MAX	256
#define STB_PATH_DEPTH	64

/* Sessions that may exist at once: the slots of `sessions`. */
#define STB_MAX_SESSIONS	64
/* The layout of the pin tree; another one is refused, never followed. */
#define STB_LAYOUT	6
#define STB_MAGIC	0x7379737472616365ULL	/* "systrace" */

/* The pins of the tree, all maps (bpffs holds nothing else). */
#define STB_PIN_HOST		"host"		/* written last: the tree is whole */
#define STB_PIN_TASKS		"tasks"
#define STB_PIN_SESSIONS	"sessions"
#define STB_PIN_PROCS		"procs"
#define STB_PIN_SITES		"sites"
#define STB_PIN_FILES		"files"
#define STB_PIN_LOGS		"logs"
#define STB_PIN_NOTIFY		"notify"
#define STB_PIN_COUNTERS	"counters"
#define STB_PIN_ARGV		"argv"
#define STB_PIN_PATHS		"paths"

/* The programs that tracing attaches, in struct stb_host's link_id[] order. */
enum {
	STB_LINK_SYS_ENTER,
	STB_LINK_SYS_EXIT,
	STB_LINK_FORK,
	STB_LINK_EXEC,
	STB_LINK_EXIT,
	STB_LINK_SWITCH,	/* only while a session counts perf events */
	STB_NLINKS
};

/* The host's entry: made with the tree, which lives until reboot. */
struct stb_host {
	__u64 magic;		/* STB_MAGIC */
	__u32 layout;		/* STB_LAYOUT */
	__u32 ncpus;		/* possible CPUs: the stride of `logs` */
	__u64 last_sid;		/* the last session id handed out */
	__u32 link_id[STB_NLINKS];	/* the links' ids while attached */
	__u32 pad;
};

/* struct stb_task.state */
enum {
	STB_TASK_PENDING = 1,	/* the root, before its first successful exec */
	STB_TASK_ACTIVE,
	STB_TASK_GONE,		/* exited, or could not be followed */
};

/* struct stb_sess.state */
enum {
	STB_SESS_FREE,		/* sid is 0 */
	STB_SESS_CREATING,	/* being made: not a session yet */
	STB_SESS_LIVE,		/* followed: waiting, running or finished */
	STB_SESS_DETACHED,	/* no longer followed */
};

struct stb_site_key {
	__u64 proc_id;
	__u64 addr;
	__u32 nr;
	__u32 abi;
};

/*
 * Sites of an image made while the mmap lock was busy, retried at each
 * syscall exit of the image's threads: address << 16 | nr << 4 | abi
 * (user addresses have 47 bits), 0 for a free slot.
 */
#define STB_PENDING	8

/* One per traced task, in task storage. */
struct stb_task {
	__u64 sid;		/* its session, which must still be in slot */
	__u32 slot;
	__u8 state;
	__u8 inflight;
	__u8 abi;
	__u8 cnt_valid;		/* cnt_base was read at its switch-in */
	__u64 proc_id;
	__u64 start_ns;		/* entry of the in-flight syscall */
	__u64 addr;
	__u32 nr;
	__u32 tid;		/* in the session's pid namespace */
	__u8 site_ok;		/* the row of the last call's site exists */
	__u8 argv_want;		/* its image's argv is read at its next syscall exit */
	__u8 path_call;		/* the call in flight takes a path: path_ptr */
	__u8 pad[5];
	__u64 path_ptr;		/* its path argument, as given (--paths) */
	__u64 base_utime, base_stime, base_rtime, base_nvcsw, base_nivcsw;
	__u64 base_minflt, base_majflt;
	__u64 cnt_base;		/* the CPU's counter at the switch-in */
	__u64 cnt_sum;		/* counted since the image began */
};

/* What the programs count for a session, updated atomically. */
struct stb_meta {
	__u64 next_id;		/* the last process row id handed out */
	__s64 live_tasks;
	__u64 procs, sites;
	__u64 forks, clones, execs, exits, signal_exits;
	__u64 dropped_procs, dropped_sites, dropped_syscalls;
	__u64 dropped_nomem, dropped_resolve, dropped_counters;
	__u64 late_resolves;
	__u64 dropped_events;	/* the log's ring was full */
	__u64 dropped_argv;	/* argv not kept: unreadable, map full, max_mem */
	__u64 mem_bytes;	/* held: against max_mem (fixed_bytes included) */
	__u64 paths;		/* rows of `paths` */
	__u64 dropped_paths;	/* path calls not counted: `paths` full, max_mem */
	__u64 last_path_id;	/* the last path row id handed out */
};

#define STB_NAME_LEN	32	/* SYSTRACE_NAME_MAX */
#define STB_TOKEN_LEN	16

/*
 * A session's slot in `sessions`. systracectl writes the first part (sid
 * last when it makes one, first when it frees one) through the map's
 * mmap, a field at a time once the programs may read it; the programs
 * write only `m`.
 */
struct stb_sess {
	__u64 sid;		/* 0: a free slot */
	__u8 token[STB_TOKEN_LEN];	/* random: who made it */
	__u32 state;		/* STB_SESS_* */
	__u32 flags;		/* SYSTRACE_SESSION_F_* */
	__u32 counters;		/* enum systrace_counters, as asked */
	__u32 counting;		/* the programs read the session's perf counters */
	__u32 pidns_level, pidns_inum;
	__u32 max_procs, max_sites;
	__u64 max_mem;
	__u32 log_buffer;	/* bytes per CPU as asked; 0: no log */
	__u32 log_ncpus;	/* the stride of `logs`: key slot * it + CPU */
	__u32 root_pid;
	__u32 keeper_pid;	/* the process that holds the programs for it */
	__u64 keeper_start;	/* its start time, in clock ticks after boot */
	__u64 created_ns, realtime_base_ns;
	__u64 fixed_bytes;	/* made with it: hash buckets, rings */
	__u32 compacted;	/* finished, and its maps cut to their rows */
	__u32 misses_done;	/* misses[] are final */
	__u32 paths_mode;	/* STB_PATHS_*: which file calls' paths are counted */
	__u32 pad2;
	/*
	 * The programs' runs the kernel skipped (recursion_misses) while the
	 * session was followed: of sys_enter and sys_exit, then of fork, exec
	 * and exit; the base at its start, then what it saw.
	 */
	__u64 miss_base[2], misses[2];
	char name[STB_NAME_LEN];
	char counters_error[128];
	struct stb_meta m __attribute__((aligned(64)));
};

struct stb_file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

/* A path, built backwards: it starts at buf[off] and ends with a NUL. */
struct stb_file {
	__u32 off;
	__u32 pad;
	char buf[STB_PATH_MAX + STB_NAME_MAX];
};

struct stb_proc {
	__u64 id, parent_id, prev_id;
	__u32 pid, tgid, ppid;
	__u32 end;		/* enum systrace_end */
	char comm[STB_COMM_LEN];
	__u64 start_ns, end_ns;
	__u32 exit_code, exit_signal;
	__u8 core_dumped;
	__u8 has_exe;
	__u8 attached;		/* ran before the session attached to it */
	__u8 pad;
	__s32 live;		/* threads of this image alive and traced */
	__u32 threads, sites;
	__u32 counter_tasks;	/* tasks whose counts were added */
	__u64 syscalls, errors, syscall_ns;
	/* Raw task times (ticks as the kernel keeps them) and the runtime. */
	__u64 utime, stime, rtime;
	__u64 nvcsw, nivcsw, minflt, majflt;
	__u64 counter_value;
	struct stb_file_key exe;
	__u64 argv_of;		/* the image whose exec kept its argv; 0: unknown */
	__u64 pending[STB_PENDING];
	__u32 npending;
	__u32 argv_claim;	/* a thread took the reading of an attached image's argv */
};

/*
 * An image's argv, kept at its exec (SYSTRACE_ARGV_MAX bytes at most):
 * a head, then the bytes of arg_start..arg_end, stored in chunks of
 * STB_ARGV_CHUNK bytes keyed by (image id, index), only as many as it
 * needs. A chunk's hash element is then 48 + 16 + 192 = 256 bytes, a
 * slab size exactly. A forked image keeps no chunk: its row names the
 * image whose chunks it shares (argv_of). The chunks of an argv are all
 * there or none is.
 */
#define STB_ARGV_MAX	4096	/* SYSTRACE_ARGV_MAX */
#define STB_ARGV_CHUNK	192
#define STB_ARGV_CHUNKS	22	/* (head + STB_ARGV_MAX) / STB_ARGV_CHUNK, rounded up */

struct stb_argv_key {
	__u64 proc_id;
	__u32 idx;
	__u32 pad;
};

struct stb_argv_head {
	__u32 len;		/* bytes kept after the head */
	__u32 full;		/* arg_end - arg_start: more than len when cut */
};

/*
 * A site's errors by errno (SYSTRACE_SITE_ERRNOS slots): a slot is 0 while
 * free, else errno << STB_ERRNO_SHIFT | count. A new errno takes the first
 * free slot for good (one compare-and-swap); with none free its error
 * counts in errno_other. So the site's errors are the slots' counts plus
 * errno_other, and a count moves its slot with one atomic add (2^52 errors
 * of one site would reach the errno's bits).
 */
#define STB_SITE_ERRNOS	4
#define STB_ERRNO_SHIFT	52
#define STB_ERRNO_COUNT	((1ULL << STB_ERRNO_SHIFT) - 1)

struct stb_site {
	__u64 calls, total_ns, min_ns, max_ns;
	__u64 first_ns, first_ordinal;
	__u64 offset, mtime_ns;
	struct stb_file_key file;	/* with SYSTRACE_MAP_FILE */
	__u32 map;			/* enum systrace_map */
	__u8 has_file_id;
	__u8 has_path;
	__u16 pad;
	__u64 errnos[STB_SITE_ERRNOS];	/* the errors: see STB_ERRNO_SHIFT */
	__u64 errno_other;
};

/*
 * One syscall of the temporal log, as the module's struct st_log_rec: the
 * record the programs put in the ring of the CPU the call completes on.
 */
struct stb_log_rec {
	__u64 ts_ns, dur_ns, proc_id, seq, addr;
	__s64 ret;
	__u32 tgid, tid, nr;
	__u32 abi;
	__u64 path_id;		/* the row of `paths` its path counts in; 0: none */
};

/*
 * The paths of file calls (--paths), counted per (image, site, syscall,
 * result, path): a row's key holds the path's first STB_FPATH_LEN - 1
 * bytes, zero-filled. A path that does not fit has an empty path and kind
 * STB_PATH_LONG; one that could not be read (its page absent, a bad
 * pointer), STB_PATH_UNREADABLE. err: 0 for a success, else the errno.
 */
#define STB_FPATH_LEN	256

enum {
	STB_PATHS_OFF,
	STB_PATHS_ERRORS,	/* failed calls only: the default */
	STB_PATHS_ALL,
};

enum {
	STB_PATH_OK,
	STB_PATH_LONG,
	STB_PATH_UNREADABLE,
};

struct stb_path_key {
	__u64 proc_id;
	__u64 addr;
	__u32 nr;
	__u16 abi;
	__u16 err;
	__u32 kind;		/* STB_PATH_* */
	__u32 pad;
	char path[STB_FPATH_LEN];
};

/* A row of `paths`: its calls, and its id (from 1), which the log names. */
struct stb_path_val {
	__u64 count;
	__u64 id;
};

/* The attach iterator's work (st_attach's `job`). */
enum {
	STB_JOB_ATTACH = 1,	/* follow the root's threads (and tree) */
	STB_JOB_DETACH,		/* stop following the session's tasks */
	STB_JOB_LINK,		/* give the attached rows their parents */
};

struct stb_job {
	__u64 sid;
	__u32 slot;
	__u32 kind;		/* STB_JOB_* */
	__u32 root_tgid;	/* in the session's pid namespace */
	__u32 self_tgid;	/* systracectl, never attached: the same */
	__u32 flags;		/* the session's */
	__u32 pad;
	__u64 now;
	/* What a pass did. */
	__u64 marked;		/* tasks newly followed (or let go) */
	__u64 refused;		/* processes another session follows */
};

/* systracectl's pid namespace, from the kernel (st_pidns's `self_pidns`). */
struct stb_pidns {
	__u32 level;
	__u32 inum;
	__u32 pid;		/* its pid there: getpid() */
};

/*
 * Bytes a row costs against max_mem: its key and value, and the hash
 * map's element header (struct htab_elem, 48 bytes on 64-bit kernels),
 * rounded up to 8.
 */
#define STB_ELEM_COST(k, v)	((48 + (k) + (v) + 7) & ~7ULL)

#endif
