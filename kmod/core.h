/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SYSTRACE_CORE_H
#define _SYSTRACE_CORE_H

#include <linux/types.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rhashtable-types.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <uapi/linux/systrace.h>
#include "chash.h"

struct pid_namespace;
struct linux_binprm;
struct perf_event;
struct st_counter;
struct st_path;
struct netlink_ext_ack;
struct vm_area_struct;
struct mm_struct;

/* A site row's counters: one per SYSTRACE_SITE_COUNTERS entry, in its order. */
enum st_site_count {
#define ST_SITE_ENUM(name, field, merge) ST_SITE_##name,
	SYSTRACE_SITE_COUNTERS(ST_SITE_ENUM)
#undef ST_SITE_ENUM
	ST_NSITE_COUNTS
};

/*
 * Why a site's calls failed: up to SYSTRACE_SITE_ERRNOS errnos, each with
 * the number of calls that returned it. A slot, once taken, keeps its
 * errno; slots are taken in order, so the free ones (nr 0) come last. The
 * errors of an errno that found no slot are counted by the errors counter
 * alone: the row's "other" is its errors minus these counts, which needs
 * no count of its own and always adds up (see st_errno_count()).
 */
struct st_errnos {
	u64 count[SYSTRACE_SITE_ERRNOS];
	u16 nr[SYSTRACE_SITE_ERRNOS];	/* 1..4095; 0: a free slot */
};

struct st_site_counts {
	u64 v[ST_NSITE_COUNTS];
	struct st_errnos e;
};

/* A process row's: one per SYSTRACE_PROC_COUNTERS entry, in its order. */
enum st_proc_count {
#define ST_PROC_ENUM(name, field) ST_PROC_##name,
	SYSTRACE_PROC_COUNTERS(ST_PROC_ENUM)
#undef ST_PROC_ENUM
	ST_NPROC_COUNTS
};

struct st_proc_counts {
	u64 v[ST_NPROC_COUNTS];
};

/* A mapped file, interned once per session and shared by its rows. */
struct st_obj {
	struct st_chash_node hnode;	/* session->objs, under session->lock */
	u64 ino;
	u64 mtime_ns;
	u32 dev;
	char path[];
};

/*
 * One row per (process image, call site, syscall number, ABI). Identity
 * and first-hit data are written once, before the row is published.
 * The counters hold the sums of threads that have already left the
 * image; live threads keep their own in st_tsite.
 */
struct st_site {
	struct st_chash_node hnode;	/* proc->hash, proc->lock */
	struct st_site *next;		/* proc->sites list, RCU readers */
	struct hlist_head live;		/* st_tsite.snode, proc->lock + RCU */
	u64 addr;
	u32 nr;				/* as the task passed it, even invalid */
	u8 abi;
	u8 map;				/* release-stored after a late resolve */
	u8 pending;			/* map left for a late resolve */
	struct st_obj *obj;
	u64 offset;
	u64 first_ns;
	u64 first_ord;
	struct st_site_counts c;
};

/* A thread's private counters for one site: only that thread writes them. */
struct st_tsite {
	struct st_chash_node hnode;	/* thread->hash, owner-only */
	struct st_tsite *next;		/* thread->tsites list, RCU readers */
	struct hlist_node snode;	/* site->live while the thread is */
	struct st_site *site;
	struct st_site_counts c;
};

/* Kernel task accounting of one task, as a sum or a baseline. */
/* One value per SYSTRACE_PROC_ACCT entry, in its order. */
enum st_acct_value {
#define ST_ACCT_ENUM(name, field, column) ST_ACCT_##name,
	SYSTRACE_PROC_ACCT(ST_ACCT_ENUM)
#undef ST_ACCT_ENUM
	ST_NACCT
};

struct st_acct {
	u64 v[ST_NACCT];
};

/* One counter per SYSTRACE_SESSION_STATS entry, in its order. */
enum st_stat {
#define ST_STAT_ENUM(name, key, kind) ST_##name,
	SYSTRACE_SESSION_STATS(ST_STAT_ENUM)
#undef ST_STAT_ENUM
	ST_NSTATS
};

struct st_session;

/*
 * An image's argv (argv.c), as /proc/PID/cmdline gives it: len bytes, each
 * argument ending in NUL, at most SYSTRACE_ARGV_MAX. Set once, never
 * changed; shared by the rows of the image's forked children, freed with
 * the last of them (the session's rows). Charged to the session.
 */
struct st_argv {
	refcount_t ref;
	u32 len;
	bool truncated;			/* longer: cut at an argument's end */
	char data[];
};

struct st_proc {
	struct st_proc *next;		/* session->procs list, RCU readers */
	struct st_session *s;
	u64 id, parent_id, prev_id;
	pid_t pid, tgid, ppid;
	char comm[TASK_COMM_LEN];
	struct st_obj *exe;
	struct st_argv *argv;		/* NULL: unknown (yet); set once */
	u64 start_ns, end_ns;
	u32 end;			/* enum systrace_end */
	u32 exit_code;			/* raw wait status */
	u32 threads;
	bool attached;			/* ran before the session attached */

	spinlock_t lock;		/* site table, merges, live threads */
	seqcount_spinlock_t seq;	/* readers retry across merges */
	struct st_chash hash;		/* sites; seed: the session's */
	u32 nsites;
	struct st_site *sites, *sites_tail;
	atomic_t npending;		/* sites left for a late resolve, */
	struct st_site *first_pending;	/* none of them before this one */
	struct list_head live;		/* st_thread.plist */
	u32 pins;			/* attaching: the last merge does not end it */
	atomic64_t log_seq;		/* log: the image's next event ordinal */
	bool pinned_exit;		/* a thread exited while pinned, */
	u32 pinned_code;		/* the last with this wait status */
	struct st_path *paths, *paths_tail;	/* paths.c; RCU readers */

	struct st_proc_counts c;
	struct st_acct acct;
	u64 counter_value;
	u32 counter_tasks;
	bool counter_lost;		/* perf stopped counting it (setuid) */
};

/* The in-flight syscall of a thread, between entry and exit. */
struct st_inflight {
	struct st_tsite *ts;		/* NULL: none in flight */
	u64 start_ns;
};

struct st_thread {
	struct rhash_head node;		/* st_tasks, key: task */
	struct task_struct *task;
	struct st_session *s;
	struct st_proc *proc;		/* NULL: waiting for the root's exec */
	struct list_head plist;		/* proc->live */
	struct list_head snode;		/* session->threads, session->lock */
	bool owned;			/* out of the task table: session->lock */
	bool exited;			/* the exit probe retires it, */
	u32 exit_code;			/* with this wait status of the group */
	struct st_inflight cur;
	unsigned long defer;		/* enum st_defer bits: work for the thread */

	struct st_chash hash;		/* tsites, owner-only; the session's seed */
	u32 ntsites;
	/* The image's calls before this thread's own: its creator's ordinal. */
	u64 ord_base;
	pid_t tid;			/* in the session's pid namespace */
	bool logging;			/* the session has a log */
	struct st_tsite *tsites;	/* newest first, RCU readers */
	struct st_tsite *last;		/* the last site entered, and its key: */
	u64 last_addr;			/* compared without reading the site */
	u32 last_nr;
	u8 last_abi;
	u8 paths;			/* its session's enum systrace_paths */
	bool path_call;			/* the call in flight takes path_ptr */
	unsigned long path_ptr;
	struct st_chash phash;		/* paths.c's rows, owner-only */
	u32 npaths;

	struct st_proc_counts c;
	struct st_acct base;		/* task accounting when it joined */

	struct st_counter *counter;	/* owned by counters.c */
	struct rcu_head rcu;
};

/*
 * How a session's tracing ended, decided once, under its lock, by the
 * first of delete and detach (the other is refused): ST_OPEN, threads may
 * join (attach, fork, exec); ST_KILLED (SESSION_DEL, the module's unload),
 * none joins any more and the rows go with the session; ST_DETACHED
 * (SESSION_DETACH), none joins any more and the rows stay, readable, their
 * running images ended SYSTRACE_END_DETACHED. Whether tasks are still
 * traced is not this: live_tasks counts them.
 */
enum st_session_end {
	ST_OPEN,
	ST_KILLED,
	ST_DETACHED,
};

struct st_session {
	struct list_head node;		/* st_sessions, st_mutex + RCU */
	struct kref ref;
	u32 id;
	char name[SYSTRACE_NAME_MAX];
	kuid_t owner;			/* the creator's euid: may delete it */
	bool owner_ptrace;		/* the creator had CAP_SYS_PTRACE */
	pid_t root_pid;
	u32 flags;
	u32 seed;			/* site hash key: chains a program cannot aim */
	u32 counters;
	const char *counters_error;
	struct pid_namespace *pidns;
	u64 created_ns, realtime_base_ns;

	spinlock_t lock;		/* procs, threads, objs, end */
	enum st_session_end end;	/* written under lock, once */
	bool live;			/* counted in st_live_sessions */
	struct st_proc *procs, *procs_tail;
	u64 nprocs, next_id;
	struct st_chash objs;		/* st_obj by file; the session's seed */
	u32 nobjs;
	struct list_head threads;	/* st_thread.snode */

	atomic_t live_tasks;
	atomic64_t nsites;
	atomic64_t mem;
	atomic_t gen;			/* bumped by every new row */
	atomic64_t stats[ST_NSTATS];
	struct st_log *log;		/* NULL: no temporal log (log.c) */
	u8 paths;			/* enum systrace_paths */
	atomic64_t dropped_paths;	/* file calls whose path has no row */
};

/* Sums over a process image's merged data and its live threads. */
struct st_proc_snap {
	struct st_proc_counts c;
	struct st_acct acct;
	u32 live_threads;
	u64 counter_value;
	u32 counter_tasks;
	bool counted;
};

/*
 * Row lists are appended under a lock and walked by dumps without it: the
 * release store publishes a fully written row, the acquire load pairs
 * with it so a reader never sees a row before its contents.
 */
#define st_publish(slot, row)	smp_store_release(&(slot), (row))
#define st_next(slot)		smp_load_acquire(&(slot))

/*
 * The clock of syscall durations: the scheduler's raw clock (sched_clock(),
 * ns; on x86 the TSC), cheap to read in every probe even where
 * CLOCK_MONOTONIC's clocksource is a slow device (hpet, acpi_pm). It is
 * local_clock() without the filtering against CLOCK_MONOTONIC that the
 * kernel adds when it distrusts the TSC, which cost each syscall as much
 * as the rest of the probes together (bench/parts, under TCG). A syscall
 * that returns on another CPU is timed across the two CPUs' clocks; a
 * negative difference clamps to 0. Timestamps of rows are CLOCK_MONOTONIC.
 */
#define st_clock()		sched_clock()

/*
 * A bench-only build (bench/parts) leaves parts of the syscall probes out
 * to measure what each costs: -DSYSTRACE_BENCH_SKIP=<mask of these>. Its
 * counts are wrong by design, and it says so when loaded.
 */
#define ST_SKIP_CLOCK	0x1	/* no clock read: every duration is 0 */
#define ST_SKIP_COUNT	0x2	/* no counter update at exit */
#define ST_SKIP_SITE	0x4	/* the thread's last site, not the right one */
/* No task lookup, and so nothing else: the probe only counts its calls. */
#define ST_SKIP_TASK	0x8
#ifndef SYSTRACE_BENCH_SKIP
#define SYSTRACE_BENCH_SKIP	0
#endif
#define st_skip(part)	(SYSTRACE_BENCH_SKIP & ST_SKIP_##part)

/*
 * The clock a thread's syscalls are timed with: st_clock(), or for a
 * session with a log CLOCK_MONOTONIC, so that an event's time, its
 * duration and the rows' sums of durations come from one clock that every
 * CPU shares (st_clock() may drift from it, and between CPUs).
 */
#define st_tclock(t)	(st_skip(CLOCK) ? 0 :				\
			 unlikely((t)->logging) ? ktime_get_ns() : st_clock())

/* Module parameters (main.c). */
extern unsigned int st_max_sessions;
extern unsigned int st_max_procs;
extern unsigned int st_max_sites;
extern unsigned long st_max_mem;
extern unsigned long st_max_mem_total;

/*
 * The test knobs: module parameters only in a build for the tests
 * (SYSTRACE_TESTING=y: make modules-all, the debug and fuzz builds), so
 * that a module built to be installed (make install, DKMS, the package)
 * has no path a parameter can bend. Elsewhere each is a constant 0.
 */
#ifdef SYSTRACE_TESTING
extern bool st_force_late_resolve;
extern unsigned int st_test_walk_gone;
extern unsigned int st_test_walk_stuck;
extern unsigned int st_test_work_delay_ms;
extern unsigned int st_test_grow_fail;

static inline bool st_testing_late_resolve(void)
{
	return READ_ONCE(st_force_late_resolve);
}

static inline void st_testing_work_delay(void)
{
	unsigned int ms = READ_ONCE(st_test_work_delay_ms);

	if (ms)
		msleep(ms);
}

static inline bool st_testing_grow_fail(void)
{
	return READ_ONCE(st_test_grow_fail);
}
#else
static inline bool st_testing_late_resolve(void)
{
	return false;
}

static inline void st_testing_work_delay(void)
{
}

static inline bool st_testing_grow_fail(void)
{
	return false;
}
#endif

/* attach.c */
bool st_task_traced(struct task_struct *task);
bool st_task_may_read(struct task_struct *task);
int st_attach(struct st_session *s, struct task_struct *task,
	      struct netlink_ext_ack *extack);

/* session.c */
extern struct mutex st_mutex;
extern struct list_head st_sessions;
int st_session_new(pid_t pid, const char *name, u32 flags, u32 counters,
		   u32 log_bytes, u32 paths, struct st_session **out, int *bad,
		   struct netlink_ext_ack *extack);

/* The temporal log (log.c). */
struct st_log;
struct sk_buff;
int st_log_new(struct st_session *s, u32 bytes, struct netlink_ext_ack *extack);
void st_log_free(struct st_session *s);
u32 st_log_bytes(struct st_session *s);
u64 st_log_dropped(struct st_session *s);
void st_log_syscall(struct st_thread *t, struct st_site *site, long ret,
		    u64 dur);
int st_log_read(struct st_session *s, struct sk_buff *skb, int *cpu,
		u64 *budget, bool first);
int st_session_del(u32 id, struct netlink_ext_ack *extack);
int st_session_detach(u32 id, struct netlink_ext_ack *extack);
struct st_session *st_session_get(u32 id);
struct st_session *st_session_get_next(u32 id);
void st_session_put(struct st_session *s);
void st_session_del_all(void);
void st_session_kill(struct st_session *s);
u32 st_session_state(struct st_session *s);
u32 st_sessions_live(void);
u64 st_mem_total(void);
void st_session_task_gone(struct st_session *s);

static inline void st_stat_inc(struct st_session *s, enum st_stat i)
{
	atomic64_inc(&s->stats[i]);
}

/* mem.c */
int st_tables_init(void);
void st_tables_exit(void);
void st_acct_read(struct task_struct *task, struct st_acct *a);
void *st_alloc(struct st_session *s, size_t size, gfp_t gfp);
void st_free(struct st_session *s, void *p, size_t size);
bool st_charge_quiet(struct st_session *s, size_t size);
bool st_charge(struct st_session *s, size_t size);
void st_uncharge(struct st_session *s, size_t size);

/* threads.c */
struct st_thread *st_thread_lookup(struct task_struct *task);
struct st_thread *st_thread_new(struct st_session *s, gfp_t gfp);
void st_thread_discard(struct st_session *s, struct st_thread *t);
struct st_thread *st_thread_insert(struct st_session *s, struct st_proc *p,
				   struct task_struct *task,
				   struct st_thread *t, struct st_thread *old);
struct st_thread *st_thread_attach(struct st_session *s, struct st_proc *p,
				   struct task_struct *task, gfp_t gfp,
				   struct st_thread *old);
bool st_thread_own(struct st_thread *t);
void st_threads_take(struct st_session *s, struct list_head *owned);
bool st_thread_detach(struct st_thread *t, bool in_probe);

/* rows.c */
struct st_proc *st_proc_new(struct st_session *s, struct task_struct *task,
			    u64 parent_id, pid_t ppid, u64 prev_id,
			    struct st_obj *exe, bool attached, gfp_t gfp);
bool st_proc_end(struct st_proc *p, u32 end, u32 code);
void st_proc_pin(struct st_proc *p);
void st_proc_unpin_end(struct st_proc *p);
void st_proc_exit(struct st_proc *p, u32 code);
struct st_tsite *st_tsite_find(struct st_thread *t, u64 addr, u32 nr, u8 abi);
void st_sites_grow(struct st_session *s, struct st_proc *p);
void st_own_table_grow(struct st_session *s, size_t hoff, size_t noff,
		       st_chash_fn fn);
u64 st_thread_ordinal(const struct st_thread *t);
void st_proc_snapshot(struct st_proc *p, struct st_proc_snap *snap);
void st_site_snapshot(struct st_proc *p, struct st_site *site,
		      struct st_site_counts *snap);
void st_site_counts_add(struct st_site_counts *d,
			const struct st_site_counts *s);
void st_proc_counts_add(struct st_proc_counts *d,
			const struct st_proc_counts *s);
void st_free_session_rows(struct st_session *s);
u32 st_proc_row_bytes(void);
u32 st_site_row_bytes(void);

/* objs.c */
int st_objs_init(struct st_session *s);
void st_objs_free(struct st_session *s);
struct st_obj *st_obj_get(struct st_session *s, struct file *f, gfp_t gfp);
void st_objs_grow(struct st_session *s);
struct st_obj *st_obj_at(struct st_session *s, struct mm_struct *mm,
			 unsigned long addr, u8 *map, u64 *offset, gfp_t gfp);

/*
 * Work a probe leaves to the thread itself (defer.c), which the thread's
 * next syscall exit queues in it, to run before its next user instruction.
 */
enum st_defer {
	ST_DEFER_RESOLVE,	/* resolve its image's pending sites */
	ST_DEFER_COUNTER,	/* create its perf counter */
	ST_DEFER_SPLIT,		/* read its counter's split at an exec */
	ST_DEFER_ARGV,		/* read its image's argv */
	ST_DEFER_GROW,		/* grow its own, its image's, the files' hash */
};

/* Safe from any context: the owner and its siblings may set bits at once. */
static inline void st_defer(struct st_thread *t, enum st_defer what)
{
	set_bit(what, &t->defer);
}

void st_defer_queue(struct st_thread *t);

/* argv.c */
void st_argv_read(struct st_session *s, struct st_proc *p);
void st_argv_fork(struct st_thread *nt, struct st_proc *parent);
void st_argv_put(struct st_session *s, struct st_argv *a);

/* hooks.c */
int st_hooks_init(void);
void st_hooks_exit(void);
void st_hooks_flush(void);
int st_hooks_get(void);
void st_hooks_put_async(void);
bool st_hooks_active(void);

/* counters.c */
int st_counters_init(void);
void st_counters_exit(void);
const char *st_counters_probe(u32 mode);
void st_counter_start(struct st_thread *t);
void st_counter_start_attached(struct st_thread *t);
void st_counter_exec(struct st_thread *nt, struct st_thread *old);
bool st_counter_exit(struct st_thread *t);
void st_counter_release(struct st_thread *t);

/* debugfs.c */
void st_debugfs_init(void);
void st_debugfs_exit(void);

/* netlink.c */
int st_netlink_init(void);
void st_netlink_exit(void);

#endif
