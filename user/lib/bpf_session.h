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
#include "backend.h"
#include "bpf_tree.h"

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

#endif
