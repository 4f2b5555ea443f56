/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of the BPF backend's maps, shared by the programs
 * (systrace.bpf.c) and their reader (lib/backend_bpf.c). Keys and values
 * are read and written by both sides: fixed-size fields only.
 */
#ifndef SYSTRACE_BPF_H
#define SYSTRACE_BPF_H

#define STB_COMM_LEN	16
/* Bytes of a path: PATH_MAX, plus room the verifier needs for a last copy. */
#define STB_PATH_MAX	4096
#define STB_NAME_MAX	256
#define STB_PATH_DEPTH	64

/* struct stb_task.state */
enum {
	STB_TASK_PENDING = 1,	/* the root, before its first successful exec */
	STB_TASK_ACTIVE,
	STB_TASK_GONE,		/* exited, or could not be followed */
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
	__u64 proc_id;
	__u64 start_ns;		/* entry of the in-flight syscall */
	__u64 addr;
	__u32 nr;
	__u8 abi;
	__u8 inflight;
	__u8 state;
	__u8 pad;
	__u32 tid;		/* in the session's pid namespace */
	__u32 pad2;
	__u64 base_utime, base_stime, base_nvcsw, base_nivcsw;
	__u64 base_minflt, base_majflt;
};

/* The session's counters: one entry of an array map, updated atomically. */
struct stb_meta {
	__u64 next_id;		/* the last process row id handed out */
	__s64 live_tasks;
	__u64 procs, sites;
	__u64 forks, clones, execs, exits, signal_exits;
	__u64 dropped_procs, dropped_sites, dropped_syscalls;
	__u64 dropped_nomem, dropped_resolve;
	__u64 late_resolves;
	__u64 dropped_events;	/* the log's ring was full */
};

/* What the session is: written once by systracectl start, read by the others. */
struct stb_info {
	char name[32];		/* SYSTRACE_NAME_MAX */
	__u32 root_pid;
	__u32 flags;
	__u32 counters;
	__u32 max_procs, max_sites;
	__u32 log_buffer;	/* bytes per CPU as asked; 0: no log */
	__u64 created_ns, realtime_base_ns;
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
	__u16 pad;
	__s32 live;		/* threads of this image alive and traced */
	__u32 threads, sites;
	__u32 pad2;
	__u64 syscalls, errors, syscall_ns;
	__u64 user_ns, sys_ns, nvcsw, nivcsw, minflt, majflt;
	struct stb_file_key exe;
	__u64 pending[STB_PENDING];
	__u32 npending;
	__u32 pad3;
};


struct stb_site {
	__u64 calls, errors, total_ns, min_ns, max_ns;
	__u64 first_ns, first_ordinal;
	__u64 offset, mtime_ns;
	struct stb_file_key file;	/* with SYSTRACE_MAP_FILE */
	__u32 map;			/* enum systrace_map */
	__u8 has_file_id;
	__u8 has_path;
	__u16 pad;
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
};

/* The pin of CPU N's ring in a session's folder: "logN" (bpffs refuses dots). */
#define STB_LOG_PIN	"log"

#endif
