/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_BPF_TREE_H
#define SYSTRACE_BPF_TREE_H

/*
 * The BPF backend's pin tree, /sys/fs/bpf/systrace/: a directory only root
 * may shape (uid 0, mode 0700, not a link), holding the shared maps of
 * bpf/systrace_bpf.h, keep/, where each running session's keeper holds
 * a lock, the programs kept loaded (ST_BPF_PROG_PIN), which only a
 * running session's links attach, and the next session's hash maps, made
 * ahead of need (ST_BPF_SPARE_PIN). Everything inside is reached through
 * the directory's fd, and every pinned map or program is checked (type,
 * sizes, name) before it is used.
 *
 * Locking: flock() on the tree's directory. LOCK_EX to change anything:
 * make or delete a session, attach or detach, hold or make the links, cut
 * a finished session's maps; LOCK_SH to read the sessions' slots. A
 * session's data maps are read without the lock, through fds that keep
 * them alive: a dump that races a reset reads the whole deleted session.
 */
#include <stdbool.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "base/err.h"
#include "systrace_bpf.h"

#define ST_BPFFS	"/sys/fs/bpf"
#define ST_TREE		ST_BPFFS "/systrace"
#define ST_KEEP_DIR	"keep"
/* The programs kept loaded between sessions: "prog-DIGEST-NAME" (bpf_progs.c). */
#define ST_BPF_PROG_PIN	"prog-"
/* A session's hash maps made ahead of need: "spare-KIND" (bpf_session.c). */
#define ST_BPF_SPARE_PIN	"spare-"

enum st_tree_map {
	ST_M_HOST,
	ST_M_TASKS,
	ST_M_SESSIONS,
	ST_M_PROCS,
	ST_M_SITES,
	ST_M_FILES,
	ST_M_LOGS,
	ST_M_NOTIFY,
	ST_M_COUNTERS,
	ST_M_ARGV,
	ST_M_PATHS,
	ST_M_COUNT
};

struct st_tree {
	int dir;			/* the tree's directory */
	int fd[ST_M_COUNT];		/* its maps; -1 when absent */
	struct stb_sess *sess;		/* `sessions`, mapped: STB_MAX_SESSIONS */
	size_t sess_len;
	struct stb_host host;		/* as read at open */
	uint32_t tasks_id;		/* the id of `tasks`: whose programs are ours */
	int locked;			/* 0, LOCK_SH or LOCK_EX */
};

/*
 * Opens the tree, making it (and mounting bpffs) when @create. Without
 * @create, a missing tree is no error: *exists is false and nothing is
 * open. Refuses a tree another user could have shaped, one of another
 * layout, and any entry it does not know.
 */
int st_tree_open(struct st_tree *t, bool create, bool *exists, struct st_err *err);
/*
 * st_tree_open(), but of the directory @held (st_tree_hold()) when it is
 * not -1, never by the path: the tree a command read first, whatever root
 * removed or mounted at /sys/fs/bpf since. ST_ERR_NOSESSION when that tree
 * was removed.
 */
int st_tree_open_held(struct st_tree *t, int held, bool create, bool *exists,
		      struct st_err *err);
/* An open file of the open tree's directory, its own (no lock shared); -1 on failure. */
int st_tree_hold(const struct st_tree *t);
void st_tree_close(struct st_tree *t);
/*
 * Testing: SYSTRACE_BPF_STOP=POINT stops this process there (SIGSTOP), for
 * a test to act at a known point (bpf_session.c and backend_bpf.c name them).
 */
void st_bpf_stop_point(const char *point);
/* flock() the tree: LOCK_SH, LOCK_EX or LOCK_UN. Waits; -errno. */
int st_tree_lock(struct st_tree *t, int how, struct st_err *err);

/* "/proc/self/fd/DIR/NAME": a path that goes through the directory's fd. */
void st_tree_path(const struct st_tree *t, const char *name, char *buf, size_t len);
/*
 * What the tree holds, made with its mode set whatever the umask: a pin of
 * @fd at @name (0600; -errno), a directory @name (0700; EEXIST is no error).
 */
int st_tree_pin(const struct st_tree *t, int fd, const char *name);
int st_tree_mkdir(const struct st_tree *t, const char *name);

/* The inner map at @key of tree map @which, checked; -ENOENT when empty. */
int st_tree_inner(const struct st_tree *t, enum st_tree_map which, uint32_t key,
		  struct st_err *err);
/* Checks @fd is the map @want says (type, key and value sizes). */
int st_map_check(int fd, enum bpf_map_type type, uint32_t key_size, uint32_t value_size,
		 const char *what, struct st_err *err);

/* Writes the host entry (last_sid, link ids) back. */
int st_tree_host_write(struct st_tree *t, struct st_err *err);

/* Errors every BPF-side file shares. */
int st_bpf_perm_error(struct st_err *err, int e, const char *op);
int st_bpf_errno(struct st_err *err, int e, const char *op, const char *what);

/*
 * Whether this process may use the BPF backend: CAP_SYS_ADMIN (root has
 * it), which loading, attaching and finding the shared programs by id need.
 */
bool st_bpf_capable(void);

/* Whether @fd is a BPF object of @kind ("bpf-map", "bpf-prog"), as its anon inode says. */
bool st_bpf_fd_is(int fd, const char *kind);

/*
 * libbpf's log is kept (and printed with SYSTRACE_BPF_DEBUG=1): the last
 * lines of the verifier's log say why the kernel refused a program.
 */
void st_bpf_log_start(void);
/* Adds @s to what libbpf logged (as libbpf's messages come in). */
void st_bpf_log_add(const char *s);
/* The last @lines lines libbpf logged at warning level or above. */
void st_bpf_log_tail(char *buf, size_t len, int lines);

#endif
