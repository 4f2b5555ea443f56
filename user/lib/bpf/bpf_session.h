/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_BPF_SESSION_H
#define SYSTRACE_BPF_SESSION_H

/*
 * BPF sessions: made whole or not at all, deleted, detached, and settled
 * when the process that kept them is gone (bpf_session.c). Each running
 * session has a keeper: a small process, in a session of its own, that
 * holds the only references to the programs' links, and to the session's
 * perf counters; it exits when the session's last traced task is gone
 * (after cutting the session's maps to what they hold), when the session
 * is detached or deleted, and the kernel detaches the programs once no
 * keeper holds them. Every call here but st_bpf_limits() takes the tree's
 * lock itself or is called with it held, as said.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "backend.h"
#include "bpf/bpf_tree.h"

struct st_bpf_limits {
	uint32_t max_procs, max_sites;
	uint64_t max_mem;
};

/* SYSTRACE_MAX_* when set, else the module's parameters when loaded, else theirs by default. */
void st_bpf_limits(struct st_bpf_limits *l);

/*
 * A new session (start's, or attach's without SYSTRACE_SESSION_F_ON_EXEC):
 * its slot, id and token in *slot, *sid and token.
 */
int st_bpf_session_create(struct st_tree *t, const struct st_session_req *req,
			  uint32_t *slot, uint64_t *sid, uint8_t *token, struct st_err *err);
/* A session's keeper, to wait for once the tree's lock is let go. */
struct st_keeper_id {
	uint32_t pid;
	uint64_t start;
};

/*
 * Under LOCK_EX: deletes the session in @slot, whose id is @sid; its
 * keeper, told to go, in *k.
 */
int st_bpf_session_delete(struct st_tree *t, uint32_t slot, uint64_t sid,
			  struct st_keeper_id *k, struct st_err *err);
/* Under LOCK_EX: stops following the session's tasks and keeps its rows. */
int st_bpf_session_detach(struct st_tree *t, uint32_t slot, uint64_t sid,
			  struct st_keeper_id *k, struct st_err *err);
/*
 * Waits (5 s at most) until keeper @k has exited, and so let go of the
 * programs: a delete or a detach returns once they are off, as the
 * module's does. Without the tree's lock: the keeper may want it.
 */
void st_bpf_keeper_wait(const struct st_keeper_id *k);
/*
 * Under LOCK_EX: what died halfway is finished: a session being made by
 * a process that is gone is freed, one whose keeper is gone is detached
 * (or, finished, cut to its rows).
 */
int st_bpf_settle(struct st_tree *t, struct st_err *err);
/* Whether something needs st_bpf_settle() (under either lock). */
bool st_bpf_needs_settle(struct st_tree *t);
/* Whether the session's keeper runs. */
bool st_bpf_keeper_alive(const struct st_tree *t, uint64_t sid);
/*
 * The programs' runs the kernel skipped (recursion_misses) while the
 * session was followed: [0] of sys_enter and sys_exit, [1] of fork, exec
 * and exit; st_bpf_misses_now() is the attached programs' totals.
 */
void st_bpf_misses(const struct st_tree *t, const struct stb_sess *s, __u64 out[2]);
void st_bpf_misses_now(const struct st_tree *t, __u64 out[2]);
/* Whether systrace's programs are attached now. */
bool st_bpf_attached(const struct st_tree *t);

/* The memory a session holds from its start, for its limits. */
uint64_t st_bpf_fixed_bytes(uint32_t max_procs, uint32_t max_sites, uint32_t log_ring,
			    int ncpus);
/* The log ring of @bytes asked per CPU: a power of 2, at least a page. */
uint32_t st_bpf_log_ring_bytes(uint32_t bytes);

#define ST_BPF_FILES	16384	/* files (paths) per session */
#define ST_BPF_PATHS	16384	/* rows of file calls' paths (--paths) per session */
/*
 * argv chunks (STB_ARGV_CHUNK bytes) per session: two per process row,
 * ST_BPF_ARGV_MIN at least; past that, argv are dropped (dropped_argv).
 */
#define ST_BPF_ARGV_MIN	8192
uint32_t st_bpf_argv_chunks(uint32_t max_procs);

/*
 * Between bpf_session.c (sessions), bpf_progs.c (the programs, their
 * links, the iterator) and bpf_keeper.c (the keepers, the perf events).
 */
struct systrace_bpf;

/* Masks of programs: a bit per STB_LINK_*, and the iterator. */
#define ST_BPF_CORE_LINKS	((1U << STB_LINK_SWITCH) - 1)
#define ST_BPF_PROG_ITER	(1U << STB_NLINKS)
#define ST_BPF_PROG_PIDNS	(1U << (STB_NLINKS + 1))

/* The programs of @mask loaded against the tree's maps; ST_ERR_BPF when refused. */
int st_bpf_progs_load(const struct st_tree *t, unsigned int mask, struct systrace_bpf **out,
		      struct st_err *err);
/*
 * Under LOCK_EX: fds of the links of @mask, holding them attached: those a
 * keeper holds, taken by id, or made and their ids written to the host entry.
 */
int st_bpf_links_hold(struct st_tree *t, unsigned int mask, int fds[STB_NLINKS],
		      struct st_err *err);
/*
 * The level and inode of this process's pid namespace, read by the kernel
 * (st_pidns): /proc's NSpid starts at the namespace /proc is mounted for.
 */
int st_bpf_pidns_self(const struct st_tree *t, uint32_t *level, uint32_t *inum,
		      struct st_err *err);
/* Runs the iterator once over every task with @job; its result back in @job. */
int st_bpf_job_run(struct systrace_bpf *skel, struct stb_job *job, struct st_err *err);
/* The session is no longer followed: its share of skipped runs is final. */
void st_bpf_misses_close(const struct st_tree *t, struct stb_sess *s);
/* Under LOCK_EX: a finished or detached session's maps cut to their rows. */
int st_bpf_session_cut(struct st_tree *t, uint32_t slot, struct st_err *err);
/*
 * The same in two steps, so that the copy (seconds for millions of rows)
 * holds no lock: prepare from a session that no longer changes, then
 * commit under LOCK_EX once it is known to be still there.
 */
#define ST_CUT_MAPS 5
struct st_cut {
	int fd[ST_CUT_MAPS];	/* processes, sites, files, argv, paths */
	uint64_t fixed;		/* what the session holds from then on, rows aside */
};
/*
 * Under LOCK_EX: a finished or detached session (cut) holds no ring: its
 * notify ring goes, and each log ring with no record left (one that holds
 * records goes once a log read drained it: call again then).
 */
void st_bpf_rings_drop(struct st_tree *t, uint32_t slot);
int st_bpf_cut_prepare(struct st_tree *t, uint32_t slot, struct st_cut *c, struct st_err *err);
int st_bpf_cut_commit(struct st_tree *t, uint32_t slot, struct st_cut *c, struct st_err *err);
void st_bpf_cut_free(struct st_cut *c);
/*
 * Without the lock: the next session's hash maps made ahead of need and
 * pinned in the tree, where none is; a start takes them (bpf_session.c).
 */
void st_bpf_spares_make(struct st_tree *t);
/*
 * The spares' memory as the kernel counts it (memlock), for status.
 * Spares that no start took within 60 s (SYSTRACE_BPF_SPARE_TTL seconds)
 * expire: the next command that reads the tree drops them, under LOCK_EX.
 */
uint64_t st_bpf_spares_bytes(const struct st_tree *t);
bool st_bpf_spares_expired(const struct st_tree *t);
void st_bpf_spares_expire(struct st_tree *t);

/* What a new session's keeper holds. */
struct st_keeper {
	int links[STB_NLINKS];
	int counters;		/* the session's perf events: they live with this fd */
	int notify;
	int tree;		/* the tree's directory, an open file of the keeper's own */
	uint32_t slot;
	uint64_t sid;
};

/* Under LOCK_EX: starts @k's keeper; returns once it holds its lock in keep/. */
int st_bpf_keeper_spawn(struct st_tree *t, struct st_keeper *k, struct st_err *err);
void st_bpf_keep_remove(const struct st_tree *t, uint64_t sid);
/*
 * The session's perf events (one per CPU) in a PERF_EVENT_ARRAY for its
 * keeper to hold: its fd; -1 when it counts nothing (s->counters_error
 * says why), -2 on an error in @err.
 */
int st_bpf_counters_open(struct stb_sess *s, struct st_err *err);
/* Field @n (from 1) of /proc/@pid/stat; 0 when unknown. */
uint64_t st_proc_stat_field(pid_t pid, int n);

#endif
