// SPDX-License-Identifier: GPL-2.0
/*
 * BPF sessions (bpf_session.h): making one whole or not at all, deleting
 * and detaching it, cutting a finished session's maps to its rows, and
 * settling what a killed process left. The programs and their links are
 * bpf_progs.c's, the keepers bpf_keeper.c's.
 *
 * A session is made under the tree's LOCK_EX: its slot is marked
 * CREATING, its maps are made and put at its slot, the programs are
 * attached (or the attached ones held), its keeper starts, and only then
 * is the slot LIVE. A process killed before that leaves a CREATING slot,
 * which the next systracectl to take the lock frees: the lock's holder is
 * the only one that makes sessions, so a CREATING slot it finds is an
 * orphan. Ids come from the host entry and are never handed out twice
 * while the tree exists (bpffs lives until reboot); the random token
 * tells a session from any other that could have its id after the tree
 * was removed by hand.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/bpf_session.h"
#include "systrace.skel.h"

#define DEF_MAX_PROCS	1048576
#define DEF_MAX_SITES	4194304
#define DEF_MAX_MEM	(1ULL << 30)
#define ATTACH_ROUNDS	8

static uint64_t param_u64(const char *env, const char *param, uint64_t def)
{
	char path[128], buf[32];
	const char *v = getenv(env);
	unsigned long long x;
	FILE *f;

	if (v && sscanf(v, "%llu", &x) == 1 && x)
		return x;
	snprintf(path, sizeof(path), "/sys/module/systrace/parameters/%s", param);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%llu", &x) == 1 && x) {
			fclose(f);
			return x;
		}
		fclose(f);
	}
	return def;
}

void st_bpf_limits(struct st_bpf_limits *l)
{
	uint64_t v;

	v = param_u64("SYSTRACE_MAX_PROCS", "max_procs", DEF_MAX_PROCS);
	l->max_procs = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	v = param_u64("SYSTRACE_MAX_SITES", "max_sites", DEF_MAX_SITES);
	l->max_sites = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	l->max_mem = param_u64("SYSTRACE_MAX_MEM", "max_mem", DEF_MAX_MEM);
}

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t r = 1;

	while (r < n)
		r <<= 1;
	return r;
}

uint32_t st_bpf_log_ring_bytes(uint32_t bytes)
{
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE), r = page;

	while (r <= bytes / 2)
		r *= 2;
	return r;
}

/* A hash map's bucket array: 16 bytes per entry of max_entries, rounded up to a power of 2. */
static uint64_t buckets(uint64_t max_entries)
{
	return 16 * pow2_at_least(max_entries ? max_entries : 1);
}

uint32_t st_bpf_argv_chunks(uint32_t max_procs)
{
	uint64_t n = 2 * (uint64_t)max_procs;

	if (n < ST_BPF_ARGV_MIN)
		return ST_BPF_ARGV_MIN;
	return n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)n;
}

uint64_t st_bpf_fixed_bytes(uint32_t max_procs, uint32_t max_sites, uint32_t log_ring,
			    int ncpus)
{
	return buckets(max_procs) + buckets(max_sites) + buckets(ST_BPF_FILES) +
	       buckets(ST_BPF_PATHS) +
	       buckets(st_bpf_argv_chunks(max_procs)) +
	       (uint64_t)sysconf(_SC_PAGESIZE) + (uint64_t)log_ring * (uint64_t)ncpus;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The inode of the initial pid namespace: fixed by the kernel
 * (PROC_PID_INIT_INO in include/linux/proc_ns.h, the same since 3.8).
 */
#define ST_PID_INIT_INO 0xEFFFFFFCU

/*
 * This process's pid namespace, whose pids the rows carry: that of the
 * pids the user names and /proc shows, so /proc must be mounted for it.
 * In the initial namespace (level 0, its fixed inode) no program runs:
 * loading st_pidns reads vmlinux's BTF and costs a start about 100 ms.
 */
static int pidns_self(const struct st_tree *t, uint32_t *level, uint32_t *inum,
		      struct st_err *err)
{
	char self[32] = "";
	ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);
	struct stat ns;

	if (n <= 0 || strtol(self, NULL, 10) != getpid()) {
		st_err_set(err, ST_ERR_REFUSED, EINVAL, "session",
			   "/proc is not mounted for this process's pid namespace (its pid is %d "
			   "here, /proc/self is %s): pids would not match; mount a /proc of its "
			   "own first (unshare --pid --fork --mount-proc does)", (int)getpid(),
			   n > 0 ? self : "missing");
		return -EINVAL;
	}
	if (stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino == ST_PID_INIT_INO) {
		*level = 0;
		*inum = ST_PID_INIT_INO;
		return 0;
	}
	return st_bpf_pidns_self(t, level, inum, err);
}

/* --- cutting a finished session's maps to its rows --------------------------- */

#define CUT_BATCH	4096

/*
 * A copy of hash map @old with exactly its entries (at least one slot),
 * read and written a batch at a time.
 */
static int map_cut(int old, uint32_t key_size, uint32_t value_size, const char *name,
		   uint64_t *rows, struct st_err *err)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	char *keys = NULL, *values = NULL;
	size_t n = 0, cap = 0;
	uint64_t in = 0, out = 0;
	uint32_t count;
	bool first = true;
	int fd = -1, ret;

	for (;;) {
		if (n + CUT_BATCH > cap) {
			char *k, *v;

			cap = cap ? 2 * cap : CUT_BATCH;
			k = realloc(keys, cap * key_size);
			v = k ? realloc(values, cap * value_size) : NULL;
			if (k)
				keys = k;
			if (!v) {
				st_err_set(err, ST_ERR_LOCAL, ENOMEM, "cut", NULL);
				goto out;
			}
			values = v;
		}
		count = CUT_BATCH;
		ret = bpf_map_lookup_batch(old, first ? NULL : &in, &out, keys + n * key_size,
					   values + n * value_size, &count, &bopts);
		n += count;
		if (ret && errno == ENOENT)
			break;
		if (ret) {
			st_bpf_errno(err, errno, "bpf map lookup batch", name);
			goto out;
		}
		in = out;
		first = false;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, name, key_size, value_size, n ? (uint32_t)n : 1,
			    &opts);
	if (fd < 0) {
		st_bpf_errno(err, errno, "bpf map create", name);
		goto out;
	}
	count = (uint32_t)n;
	if (n && bpf_map_update_batch(fd, keys, values, &count, &bopts)) {
		st_bpf_errno(err, errno, "bpf map update batch", name);
		close(fd);
		fd = -1;
		goto out;
	}
	*rows = n;
out:
	free(keys);
	free(values);
	return fd;
}

static const struct {
	enum st_tree_map which;
	uint32_t key, value;
	const char *name;
} cut_kinds[ST_CUT_MAPS] = {
	{ ST_M_PROCS, sizeof(uint64_t), sizeof(struct stb_proc), "st_procs_c" },
	{ ST_M_SITES, sizeof(struct stb_site_key), sizeof(struct stb_site), "st_sites_c" },
	{ ST_M_FILES, sizeof(struct stb_file_key), sizeof(struct stb_file), "st_files_c" },
	{ ST_M_ARGV, sizeof(struct stb_argv_key), STB_ARGV_CHUNK, "st_argv_c" },
	{ ST_M_PATHS, sizeof(struct stb_path_key), sizeof(struct stb_path_val), "st_paths_c" },
};

void st_bpf_cut_free(struct st_cut *c)
{
	int i;

	for (i = 0; i < ST_CUT_MAPS; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
	}
}

/*
 * Maps of the rows the finished or detached session in @slot holds, made
 * for max_procs and max_sites rows: copied, not yet in place. Its maps no
 * longer change, so no lock is needed.
 */
int st_bpf_cut_prepare(struct st_tree *t, uint32_t slot, struct st_cut *c, struct st_err *err)
{
	const struct stb_sess *s = &t->sess[slot];
	uint64_t rows;
	int i, old;

	c->fixed = (uint64_t)sysconf(_SC_PAGESIZE) +
		   (s->log_buffer ? (uint64_t)st_bpf_log_ring_bytes(s->log_buffer) * s->log_ncpus : 0);
	for (i = 0; i < ST_CUT_MAPS; i++)
		c->fd[i] = -1;
	for (i = 0; i < ST_CUT_MAPS; i++) {
		old = st_tree_inner(t, cut_kinds[i].which, slot, err);
		if (old == -ENOENT)
			continue;
		if (old < 0)
			goto fail;
		rows = 0;
		c->fd[i] = map_cut(old, cut_kinds[i].key, cut_kinds[i].value, cut_kinds[i].name,
				   &rows, err);
		close(old);
		if (c->fd[i] < 0)
			goto fail;
		c->fixed += buckets(rows);
	}
	return 0;
fail:
	st_bpf_cut_free(c);
	return -err->err;
}

/* Under LOCK_EX: the cut maps in the session's place; it holds only its rows now. */
struct put_job {
	int outer, fd;
	uint32_t key;
	int ret;
};

static void *put_run(void *arg)
{
	struct put_job *j = arg;

	j->ret = bpf_map_update_elem(j->outer, &j->key, &j->fd, BPF_ANY) ? -errno : 0;
	return NULL;
}

/* The cut maps put at the slot, each update in a thread: their RCU waits overlap. */
int st_bpf_cut_commit(struct st_tree *t, uint32_t slot, struct st_cut *c, struct st_err *err)
{
	struct stb_sess *s = &t->sess[slot];
	struct put_job jobs[ST_CUT_MAPS];
	pthread_t tid[ST_CUT_MAPS];
	bool started[ST_CUT_MAPS] = { 0 };
	int i;

	for (i = 0; i < ST_CUT_MAPS; i++) {
		jobs[i] = (struct put_job){ t->fd[cut_kinds[i].which], c->fd[i], slot, 0 };
		if (c->fd[i] >= 0)
			started[i] = !pthread_create(&tid[i], NULL, put_run, &jobs[i]);
	}
	for (i = 0; i < ST_CUT_MAPS; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else if (c->fd[i] >= 0)
			put_run(&jobs[i]);
	}
	for (i = 0; i < ST_CUT_MAPS; i++)
		if (jobs[i].ret)
			return st_bpf_errno(err, -jobs[i].ret, "bpf map update", cut_kinds[i].name);
	/* Nothing charges the session any more: its memory is what it holds now. */
	s->m.mem_bytes = s->m.mem_bytes - s->fixed_bytes + c->fixed;
	s->fixed_bytes = c->fixed;
	s->compacted = 1;
	st_bpf_rings_drop(t, slot);
	return 0;
}

/* Whether ring buffer @fd holds no record: its consumer is at its producer. */
static bool ring_empty(int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long *cons, *prod;
	bool empty = false;

	cons = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (cons == MAP_FAILED)
		return false;
	prod = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, (off_t)page);
	if (prod != MAP_FAILED) {
		empty = __atomic_load_n(cons, __ATOMIC_ACQUIRE) ==
			__atomic_load_n(prod, __ATOMIC_ACQUIRE);
		munmap(prod, page);
	}
	munmap(cons, page);
	return empty;
}

void st_bpf_rings_drop(struct st_tree *t, uint32_t slot)
{
	struct stb_sess *s = &t->sess[slot];
	uint64_t ring = s->log_buffer ? st_bpf_log_ring_bytes(s->log_buffer) : 0, gone = 0;
	struct st_err err;
	uint32_t cpu, key;
	int fd;

	if (!s->compacted)
		return;
	if (!bpf_map_delete_elem(t->fd[ST_M_NOTIFY], &slot))
		gone += (uint64_t)sysconf(_SC_PAGESIZE);
	for (cpu = 0; s->log_buffer && cpu < s->log_ncpus; cpu++) {
		key = slot * t->host.ncpus + cpu;
		fd = st_tree_inner(t, ST_M_LOGS, key, &err);
		if (fd < 0)
			continue;
		if (ring_empty(fd) && !bpf_map_delete_elem(t->fd[ST_M_LOGS], &key))
			gone += ring;
		close(fd);
	}
	gone = gone < s->fixed_bytes ? gone : s->fixed_bytes;
	s->fixed_bytes -= gone;
	s->m.mem_bytes -= gone < s->m.mem_bytes ? gone : s->m.mem_bytes;
}

int st_bpf_session_cut(struct st_tree *t, uint32_t slot, struct st_err *err)
{
	struct st_cut c;
	int ret;

	ret = st_bpf_cut_prepare(t, slot, &c, err);
	if (!ret)
		ret = st_bpf_cut_commit(t, slot, &c, err);
	st_bpf_cut_free(&c);
	return ret;
}

/* --- freeing, detaching, settling -------------------------------------------- */

/* Takes the session's maps out of the tree's arrays; its slot is free. Under LOCK_EX. */
static void slot_free(struct st_tree *t, uint32_t slot)
{
	static const enum st_tree_map per_slot[] = {
		ST_M_PROCS, ST_M_SITES, ST_M_FILES, ST_M_NOTIFY, ST_M_COUNTERS, ST_M_ARGV,
		ST_M_PATHS,
	};
	struct stb_sess *s = &t->sess[slot];
	uint64_t sid = s->sid;
	uint32_t key, cpu;
	size_t i;

	/* First: the programs let the session's tasks go from here on. */
	__atomic_store_n(&s->sid, 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < sizeof(per_slot) / sizeof(per_slot[0]); i++)
		bpf_map_delete_elem(t->fd[per_slot[i]], &slot);
	for (cpu = 0; cpu < t->host.ncpus; cpu++) {
		key = slot * t->host.ncpus + cpu;
		bpf_map_delete_elem(t->fd[ST_M_LOGS], &key);
	}
	if (sid)
		st_bpf_keep_remove(t, sid);
	s->state = STB_SESS_FREE;
	memset((char *)s + sizeof(s->sid), 0,
	       offsetof(struct stb_sess, m) - sizeof(s->sid));
	memset(&s->m, 0, sizeof(s->m));
}

static void keeper_id(const struct stb_sess *s, struct st_keeper_id *k)
{
	if (!k)
		return;
	k->pid = s->keeper_pid;
	k->start = s->keeper_start;
}

int st_bpf_session_delete(struct st_tree *t, uint32_t slot, uint64_t sid,
			  struct st_keeper_id *k, struct st_err *err)
{
	if (slot >= STB_MAX_SESSIONS || t->sess[slot].sid != sid || !sid) {
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no session with that id (%" PRIu64 "; see: systracectl list)", sid);
		return -ENOENT;
	}
	keeper_id(&t->sess[slot], k);
	slot_free(t, slot);
	return 0;
}

/* Rows still running when their session was detached end as detached. */
static int rows_end(struct st_tree *t, uint32_t slot, uint64_t now, struct st_err *err)
{
	struct stb_proc p;
	uint64_t key, next;
	void *prev = NULL;
	int fd;

	fd = st_tree_inner(t, ST_M_PROCS, slot, err);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &p) || p.end != SYSTRACE_END_RUNNING)
			continue;
		p.end = SYSTRACE_END_DETACHED;
		p.end_ns = now;
		p.live = 0;
		bpf_map_update_elem(fd, &key, &p, BPF_EXIST);
	}
	close(fd);
	return 0;
}

/*
 * Under LOCK_EX, the session DETACHED: its tasks let go, its running rows
 * ended, its maps cut. Each step may be done again: a process killed
 * half-way leaves a DETACHED session not yet cut (compacted 0), which the
 * next settle finishes with the same steps.
 */
static int detach_finish(struct st_tree *t, uint32_t slot, struct st_err *err)
{
	struct stb_sess *s = &t->sess[slot];
	struct stb_job job = { .sid = s->sid, .slot = slot, .kind = STB_JOB_DETACH };
	struct systrace_bpf *skel;
	int ret;

	st_bpf_misses_close(t, s);
	ret = st_bpf_progs_load(t, ST_BPF_PROG_ITER, &skel, err);
	if (ret)
		return ret;
	job.now = clock_ns(CLOCK_MONOTONIC);
	job.flags = s->flags;
	ret = st_bpf_job_run(skel, &job, err);
	systrace_bpf__destroy(skel);
	/*
	 * No task is followed now. One that exited since the session was
	 * detached was let go by no program: the count is not theirs to end.
	 */
	__atomic_store_n(&s->m.live_tasks, 0, __ATOMIC_SEQ_CST);
	if (!ret)
		ret = rows_end(t, slot, job.now, err);
	if (!ret)
		ret = st_bpf_session_cut(t, slot, err);
	st_bpf_keep_remove(t, s->sid);
	return ret;
}

int st_bpf_session_detach(struct st_tree *t, uint32_t slot, uint64_t sid,
			  struct st_keeper_id *k, struct st_err *err)
{
	struct stb_sess *s = &t->sess[slot];

	if (slot >= STB_MAX_SESSIONS || !sid || s->sid != sid) {
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no session with that id (%" PRIu64 "; see: systracectl list)", sid);
		return -ENOENT;
	}
	if (s->state == STB_SESS_DETACHED) {
		st_err_set(err, ST_ERR_REFUSED, EALREADY, "detach",
			   "the session is already detached");
		return -EALREADY;
	}
	keeper_id(s, k);
	__atomic_store_n(&s->state, STB_SESS_DETACHED, __ATOMIC_SEQ_CST);
	st_bpf_stop_point("detach");
	return detach_finish(t, slot, err);
}

bool st_bpf_needs_settle(struct st_tree *t)
{
	uint32_t i;

	for (i = 0; i < STB_MAX_SESSIONS; i++) {
		struct stb_sess *s = &t->sess[i];

		if (!s->sid)
			continue;
		if (s->state == STB_SESS_CREATING && t->locked)
			return true;
		if (s->state == STB_SESS_LIVE && (s->m.live_tasks > 0 || !s->compacted) &&
		    !st_bpf_keeper_alive(t, s->sid))
			return true;
		/* A detach that a killed process left half-way (no detach runs under LOCK_SH). */
		if (s->state == STB_SESS_DETACHED && !s->compacted)
			return true;
	}
	return false;
}

/* keep/ entries of sessions that are gone. */
static void keep_sweep(struct st_tree *t)
{
	struct dirent *de;
	uint64_t sid;
	uint32_t i;
	bool live;
	DIR *d;
	int fd;

	fd = openat(t->dir, ST_KEEP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "%" SCNu64, &sid) != 1)
			continue;
		live = false;
		for (i = 0; i < STB_MAX_SESSIONS; i++)
			if (t->sess[i].sid == sid && t->sess[i].state == STB_SESS_LIVE)
				live = true;
		if (!live)
			st_bpf_keep_remove(t, sid);
	}
	closedir(d);
}

int st_bpf_settle(struct st_tree *t, struct st_err *err)
{
	uint32_t i;
	int ret;

	for (i = 0; i < STB_MAX_SESSIONS; i++) {
		struct stb_sess *s = &t->sess[i];

		if (!s->sid && s->state == STB_SESS_FREE)
			continue;
		if (s->state == STB_SESS_CREATING || (!s->sid && s->state != STB_SESS_FREE)) {
			slot_free(t, i);
			continue;
		}
		if (s->state == STB_SESS_DETACHED && !s->compacted) {
			ret = detach_finish(t, i, err);
			if (ret)
				return ret;
			continue;
		}
		if (s->state != STB_SESS_LIVE || st_bpf_keeper_alive(t, s->sid))
			continue;
		if (s->m.live_tasks > 0)
			ret = st_bpf_session_detach(t, i, s->sid, NULL, err);
		else if (!s->compacted) {
			st_bpf_misses_close(t, s);
			ret = st_bpf_session_cut(t, i, err);
		}
		else
			ret = 0;
		if (ret)
			return ret;
	}
	keep_sweep(t);
	return 0;
}

/* --- making a session ------------------------------------------------------ */

static int refuse(struct st_err *err, int e, const char *op, const char *msg)
{
	st_err_set(err, ST_ERR_REFUSED, e, op, "%s", msg);
	return -e;
}

/* One of a session's inner maps: made and put at its key of a tree map. */
struct map_job {
	int outer;
	uint32_t key;
	enum bpf_map_type type;
	const char *name;
	uint32_t key_size, value_size, max;
	bool hash;
	int ret;		/* 0, or -errno of the create (made 0) or the update (made 1) */
	int made;
	const char *spare;	/* its pin when made ahead of need, or NULL */
	int fd;			/* the spare taken, or -1 */
	bool placed;		/* the spare is at key already */
};

/* The maps a session's keeper makes ahead of the next session. */
#define SPARES	6
static const enum st_tree_map spare_which[SPARES] = {
	ST_M_PROCS, ST_M_SITES, ST_M_FILES, ST_M_ARGV, ST_M_NOTIFY, ST_M_PATHS,
};
static const char *const spare_names[SPARES] = {
	ST_BPF_SPARE_PIN "procs", ST_BPF_SPARE_PIN "sites", ST_BPF_SPARE_PIN "files",
	ST_BPF_SPARE_PIN "argv", ST_BPF_SPARE_PIN "notify", ST_BPF_SPARE_PIN "paths",
};


/* The session's maps but its log's, for these limits, as spare_which[] orders them. */
static void spare_jobs(struct map_job *j, uint32_t max_procs, uint32_t max_sites)
{
	j[0] = (struct map_job){ -1, 0, BPF_MAP_TYPE_HASH, "st_procs_s", sizeof(uint64_t),
				 sizeof(struct stb_proc), max_procs, true, 0, 0,
				 ST_BPF_SPARE_PIN "procs", -1, false };
	j[1] = (struct map_job){ -1, 0, BPF_MAP_TYPE_HASH, "st_sites_s",
				 sizeof(struct stb_site_key), sizeof(struct stb_site), max_sites,
				 true, 0, 0, ST_BPF_SPARE_PIN "sites", -1, false };
	j[2] = (struct map_job){ -1, 0, BPF_MAP_TYPE_HASH, "st_files_s",
				 sizeof(struct stb_file_key), sizeof(struct stb_file), ST_BPF_FILES,
				 true, 0, 0, ST_BPF_SPARE_PIN "files", -1, false };
	j[3] = (struct map_job){ -1, 0, BPF_MAP_TYPE_HASH, "st_argv_s",
				 sizeof(struct stb_argv_key), STB_ARGV_CHUNK,
				 st_bpf_argv_chunks(max_procs), true, 0, 0, ST_BPF_SPARE_PIN "argv", -1,
				 false };
	j[4] = (struct map_job){ -1, 0, BPF_MAP_TYPE_RINGBUF, "st_notify_s", 0, 0,
				 (uint32_t)sysconf(_SC_PAGESIZE), false, 0, 0,
				 ST_BPF_SPARE_PIN "notify", -1, false };
	j[5] = (struct map_job){ -1, 0, BPF_MAP_TYPE_HASH, "st_paths_s",
				 sizeof(struct stb_path_key), sizeof(struct stb_path_val), ST_BPF_PATHS,
				 true, 0, 0, ST_BPF_SPARE_PIN "paths", -1, false };
}

/* The slot slot_take() would give now; -1 when none is free. */
static int slot_next(const struct st_tree *t)
{
	uint32_t i, start = (uint32_t)(t->host.last_sid % STB_MAX_SESSIONS);

	/* Round robin: a slot just freed is the last one taken again. */
	for (i = 0; i < STB_MAX_SESSIONS; i++) {
		uint32_t n = (start + i) % STB_MAX_SESSIONS;

		if (!t->sess[n].sid && t->sess[n].state == STB_SESS_FREE)
			return (int)n;
	}
	return -1;
}

/* A spare's pin, opened if it is a map file of root's; -1 otherwise. */
static int spare_open(const struct st_tree *t, const char *name, struct bpf_map_info *info)
{
	uint32_t len = sizeof(*info);
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (fstatat(t->dir, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    st.st_uid != 0)
		return -1;
	st_tree_path(t, name, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	memset(info, 0, sizeof(*info));
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) || !st_bpf_fd_is(fd, "bpf-map") ||
	    bpf_obj_get_info_by_fd(fd, info, &len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Under LOCK_EX: whether map @id is at @slot of @outer already. A free
 * slot's entry is no session's: where a keeper put the spare for a slot
 * that another start took since, it goes, so that nothing but a session
 * holds the map.
 */
static bool spare_placed(const struct st_tree *t, int outer, uint32_t id, uint32_t slot)
{
	uint32_t k, at;

	if (!bpf_map_lookup_elem(outer, &slot, &at) && at == id)
		return true;
	for (k = 0; k < STB_MAX_SESSIONS; k++)
		if (k != slot && !t->sess[k].sid && t->sess[k].state == STB_SESS_FREE &&
		    !bpf_map_lookup_elem(outer, &k, &at) && at == id)
			bpf_map_delete_elem(outer, &k);
	return false;
}

/*
 * Under LOCK_EX: @j's spare, when one is pinned and is the map @j would
 * make (checked as the tree's own maps are: type, sizes, flags, name; only
 * root could have written to it), and whether the keeper put it at @j's
 * slot already. Taken or not, the pin goes: a spare of other limits is
 * made again for them by the next keeper.
 */
static void spare_take(struct st_tree *t, struct map_job *j)
{
	struct bpf_map_info info;
	bool placed;
	int fd;

	fd = spare_open(t, j->spare, &info);
	unlinkat(t->dir, j->spare, 0);
	if (fd < 0)
		return;
	placed = spare_placed(t, j->outer, info.id, j->key);
	if (info.type != j->type || info.key_size != j->key_size ||
	    info.value_size != j->value_size || info.max_entries != j->max ||
	    info.map_flags != (j->hash ? BPF_F_NO_PREALLOC : 0) || strcmp(info.name, j->name)) {
		close(fd);
		return;
	}
	j->fd = fd;
	j->placed = placed;
}

/*
 * Under LOCK_EX: the pinned spares put at the slot the next start will
 * take, so that it waits for no RCU grace period (each update of an array
 * of maps does); in threads, whose waits overlap.
 */
static void spares_place(struct st_tree *t)
{
	struct put_job jobs[SPARES];
	struct bpf_map_info info;
	pthread_t tid[SPARES];
	bool started[SPARES] = { 0 };
	int i, slot = slot_next(t);
	uint32_t at;

	if (slot < 0)
		return;
	for (i = 0; i < SPARES; i++) {
		jobs[i] = (struct put_job){ t->fd[spare_which[i]], spare_open(t, spare_names[i], &info),
					    (uint32_t)slot, 0 };
		if (jobs[i].fd >= 0 && !(!bpf_map_lookup_elem(jobs[i].outer, &jobs[i].key, &at) &&
					 at == info.id))
			started[i] = !pthread_create(&tid[i], NULL, put_run, &jobs[i]);
	}
	for (i = 0; i < SPARES; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		if (jobs[i].fd >= 0)
			close(jobs[i].fd);
	}
}

/*
 * The next session's maps (but its log's), made ahead of need for this
 * process's limits and pinned (ST_BPF_SPARE_PIN) where none is, then put
 * at the slot the next start will take: that start then only checks them.
 * Made without the lock (a large map's buckets take tens of ms), pinned
 * and put under it. They hold their buckets, no row.
 */
void st_bpf_spares_make(struct st_tree *t)
{
	LIBBPF_OPTS(bpf_map_create_opts, hash, .map_flags = BPF_F_NO_PREALLOC);
	struct map_job jobs[SPARES];
	struct st_bpf_limits l;
	struct stat st;
	struct st_err err;
	int i;

	st_bpf_limits(&l);
	spare_jobs(jobs, l.max_procs, l.max_sites);
	for (i = 0; i < SPARES; i++)
		if (fstatat(t->dir, jobs[i].spare, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
			jobs[i].fd = bpf_map_create(jobs[i].type, jobs[i].name, jobs[i].key_size,
						    jobs[i].value_size, jobs[i].max,
						    jobs[i].hash ? &hash : NULL);
	if (!st_tree_lock(t, LOCK_EX, &err)) {
		for (i = 0; i < SPARES; i++) {
			if (jobs[i].fd < 0)
				continue;
			st_tree_pin(t, jobs[i].fd, jobs[i].spare);
		}
		spares_place(t);
		st_tree_lock(t, LOCK_UN, &err);
	}
	for (i = 0; i < SPARES; i++)
		if (jobs[i].fd >= 0)
			close(jobs[i].fd);
}

/* Spares no start took within this many seconds (SYSTRACE_BPF_SPARE_TTL) go. */
#define SPARE_TTL_S	60

static time_t spare_ttl(void)
{
	const char *v = getenv("SYSTRACE_BPF_SPARE_TTL");
	long long x;

	if (v && sscanf(v, "%lld", &x) == 1 && x >= 0)
		return (time_t)x;
	return SPARE_TTL_S;
}

/* The kernel's count of a map's memory (its fdinfo's memlock); 0 when unknown. */
static uint64_t map_memlock(int fd)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

uint64_t st_bpf_spares_bytes(const struct st_tree *t)
{
	struct bpf_map_info info;
	uint64_t sum = 0;
	int i, fd;

	for (i = 0; i < SPARES; i++) {
		fd = spare_open(t, spare_names[i], &info);
		if (fd < 0)
			continue;
		sum += map_memlock(fd);
		close(fd);
	}
	return sum;
}

/* Whether a spare is older than its time to live (its pin's mtime). */
static bool spare_expired(const struct st_tree *t, const char *name)
{
	struct stat st;

	return !fstatat(t->dir, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       time(NULL) - st.st_mtime >= spare_ttl();
}

bool st_bpf_spares_expired(const struct st_tree *t)
{
	int i;

	for (i = 0; i < SPARES; i++)
		if (spare_expired(t, spare_names[i]))
			return true;
	return false;
}

void st_bpf_spares_expire(struct st_tree *t)
{
	struct bpf_map_info info;
	int i, fd;

	for (i = 0; i < SPARES; i++) {
		if (!spare_expired(t, spare_names[i]))
			continue;
		fd = spare_open(t, spare_names[i], &info);
		unlinkat(t->dir, spare_names[i], 0);
		if (fd < 0)
			continue;
		/* Out of the free slot its keeper put it at: no slot is STB_MAX_SESSIONS. */
		spare_placed(t, t->fd[spare_which[i]], info.id, STB_MAX_SESSIONS);
		close(fd);
	}
}

static void *map_job_run(void *arg)
{
	LIBBPF_OPTS(bpf_map_create_opts, hash, .map_flags = BPF_F_NO_PREALLOC);
	struct map_job *j = arg;
	int fd;

	fd = j->fd >= 0 ? j->fd : bpf_map_create(j->type, j->name, j->key_size, j->value_size,
						   j->max, j->hash ? &hash : NULL);
	if (fd < 0) {
		j->ret = -errno;
		return NULL;
	}
	j->made = 1;
	j->fd = -1;
	if (!j->placed && bpf_map_update_elem(j->outer, &j->key, &fd, BPF_ANY))
		j->ret = -errno;
	close(fd);
	return NULL;
}

static void *map_jobs_run(void *arg)
{
	struct map_job *j;

	for (j = arg; j->name && !j->ret; j++)
		map_job_run(j);
	return NULL;
}

/*
 * The session's inner maps, put at its slot: those made ahead of need when
 * spares for these limits are pinned (most often put at this slot already
 * by the keeper that made them), else made now. Each kind is made and put
 * in a thread of its own: a large hash map's buckets take tens of ms to
 * allocate, and each update of an array of maps waits for an RCU grace
 * period, which the threads wait for together. The log's rings, one per
 * CPU, are one more thread.
 */
static int maps_make(struct st_tree *t, uint32_t slot, struct stb_sess *s, struct st_err *err)
{
	struct map_job jobs[SPARES];
	const size_t n = SPARES;
	struct map_job *rings;
	pthread_t tid[SPARES + 1];
	bool started[SPARES + 1] = { 0 };
	uint32_t i, cpu, ring = 0;
	int ret = 0;

	spare_jobs(jobs, s->max_procs, s->max_sites);
	for (i = 0; i < SPARES; i++) {
		jobs[i].outer = t->fd[spare_which[i]];
		jobs[i].key = slot;
		spare_take(t, &jobs[i]);
	}
	rings = calloc((size_t)s->log_ncpus + 1, sizeof(*rings));
	if (!rings) {
		for (i = 0; i < SPARES; i++)
			if (jobs[i].fd >= 0)
				close(jobs[i].fd);
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "bpf map create", NULL);
		return -ENOMEM;
	}
	if (s->log_buffer)
		ring = st_bpf_log_ring_bytes(s->log_buffer);
	for (cpu = 0; s->log_buffer && cpu < s->log_ncpus; cpu++)
		rings[cpu] = (struct map_job){ t->fd[ST_M_LOGS], slot * t->host.ncpus + cpu,
					       BPF_MAP_TYPE_RINGBUF, "st_log", 0, 0, ring, false,
					       0, 0, NULL, -1, false };
	for (i = 0; i < n; i++)
		started[i] = !jobs[i].placed &&
			     !pthread_create(&tid[i], NULL, map_job_run, &jobs[i]);
	if (s->log_buffer)
		started[n] = !pthread_create(&tid[n], NULL, map_jobs_run, rings);
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			map_job_run(&jobs[i]);
	}
	if (s->log_buffer) {
		if (started[n])
			pthread_join(tid[n], NULL);
		else
			map_jobs_run(rings);
	}
	for (i = 0; i < n && !ret; i++) {
		ret = jobs[i].ret;
		if (ret && !jobs[i].made)
			st_err_set(err, ST_ERR_KERNEL, -ret, "bpf map create",
				   "cannot make the session's %s map (%" PRIu32 " entries)",
				   jobs[i].name, jobs[i].max);
		else if (ret)
			st_bpf_errno(err, -ret, "bpf map update", jobs[i].name);
	}
	for (cpu = 0; s->log_buffer && cpu < s->log_ncpus && !ret; cpu++) {
		ret = rings[cpu].ret;
		if (ret && !rings[cpu].made)
			st_err_set(err, ST_ERR_KERNEL, -ret, "log buffer",
				   "cannot allocate the log buffer (%" PRIu32 " bytes on CPU %" PRIu32 ")",
				   ring, cpu);
		else if (ret)
			st_bpf_errno(err, -ret, "bpf map update", "logs");
	}
	free(rings);
	return ret;
}

/* Whether a log of @bytes per CPU may be made, as the module decides. */
static int log_check(uint32_t bytes, uint64_t max_mem, int ncpus, struct st_err *err)
{
	if (bytes < SYSTRACE_LOG_BUFFER_MIN || bytes > SYSTRACE_LOG_BUFFER_MAX)
		return refuse(err, ERANGE, "log buffer",
			      "log buffer out of range (4 KiB to 256 MiB per CPU)");
	if ((uint64_t)st_bpf_log_ring_bytes(bytes) * (uint64_t)ncpus > max_mem / 2)
		return refuse(err, ENOMEM, "log buffer",
			      "log buffer times CPUs over half of max_mem");
	return 0;
}

/* What the request asks that no session may have, before anything is made. */
static int req_check(const struct st_session_req *req, const struct st_bpf_limits *l,
		     int ncpus, struct st_err *err)
{
	uint32_t ring = req->log_buffer ? st_bpf_log_ring_bytes(req->log_buffer) : 0;
	uint64_t fixed;
	int ret;

	if (req->name && !req->name[0])
		return refuse(err, EINVAL, "session", "a session name may not be empty");
	if (req->name && strlen(req->name) >= STB_NAME_LEN)
		return refuse(err, EINVAL, "session", "a session name has at most 31 bytes");
	if ((req->flags & ~SYSTRACE_SESSION_F_ALL) ||
	    ((req->flags & SYSTRACE_SESSION_F_TREE) &&
	     (req->flags & (SYSTRACE_SESSION_F_ON_EXEC | SYSTRACE_SESSION_F_THREADS_ONLY))))
		return refuse(err, EINVAL, "session",
			      "the tree flag goes with neither on-exec nor threads-only");
	if (req->counters > SYSTRACE_COUNTERS_MAX)
		return refuse(err, EINVAL, "session", "unknown counters mode");
	if (req->log_buffer) {
		ret = log_check(req->log_buffer, l->max_mem, ncpus, err);
		if (ret)
			return ret;
	}
	fixed = st_bpf_fixed_bytes(l->max_procs, l->max_sites, ring, ncpus);
	if (fixed > l->max_mem) {
		st_err_set(err, ST_ERR_REFUSED, ENOMEM, "session",
			   "max_mem (%" PRIu64 " bytes) is less than what a session holds from "
			   "its start (%" PRIu64 " bytes for max_procs %" PRIu32 ", max_sites %"
			   PRIu32 "%s); raise SYSTRACE_MAX_MEM or lower SYSTRACE_MAX_PROCS and "
			   "SYSTRACE_MAX_SITES", l->max_mem, fixed, l->max_procs, l->max_sites,
			   ring ? " and the log" : "");
		return -ENOMEM;
	}
	return 0;
}

/* Refuses a root that cannot be traced: gone, a kernel thread, or traced already. */
static int root_check(struct st_tree *t, pid_t pid, int *pidfd, struct st_err *err)
{
	struct stb_task task;
	uint64_t flags;
	uint32_t slot;

	*pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (*pidfd < 0) {
		if (errno == ESRCH || errno == EINVAL)
			return refuse(err, ESRCH, "session", "no process with that pid");
		return st_bpf_errno(err, errno, "pidfd_open", "the root");
	}
	flags = st_proc_stat_field(pid, 9);
	if (flags & 0x00200000)
		return refuse(err, EINVAL, "session", "the process is a kernel thread");
	if (!bpf_map_lookup_elem(t->fd[ST_M_TASKS], pidfd, &task) &&
	    (task.state == STB_TASK_ACTIVE || task.state == STB_TASK_PENDING)) {
		slot = task.slot;
		if (slot < STB_MAX_SESSIONS && t->sess[slot].sid == task.sid &&
		    t->sess[slot].state == STB_SESS_LIVE) {
			st_err_set(err, ST_ERR_REFUSED, EBUSY, "session",
				   "the process is already traced by a session (%" PRIu64 ")",
				   (uint64_t)task.sid);
			return -EBUSY;
		}
	}
	return 0;
}

/* Names are unique among the sessions that exist. */
static int name_check(struct st_tree *t, const char *name, struct st_err *err)
{
	uint32_t i;

	if (!name)
		return 0;
	for (i = 0; i < STB_MAX_SESSIONS; i++) {
		struct stb_sess *s = &t->sess[i];

		if (s->sid && (s->state == STB_SESS_LIVE || s->state == STB_SESS_DETACHED) &&
		    !strncmp(s->name, name, sizeof(s->name))) {
			st_err_set(err, ST_ERR_REFUSED, EEXIST, "session",
				   "the name \"%s\" is taken by session %" PRIu64
				   " (reset it, or choose another)", name, (uint64_t)s->sid);
			return -EEXIST;
		}
	}
	return 0;
}

static int slot_take(struct st_tree *t, uint32_t *slot, struct st_err *err)
{
	int n = slot_next(t);

	if (n >= 0) {
		*slot = (uint32_t)n;
		return 0;
	}
	st_err_set(err, ST_ERR_REFUSED, ENOSPC, "session",
		   "too many sessions: at most %d exist at once; reset one", STB_MAX_SESSIONS);
	return -ENOSPC;
}

/* attach: the root's threads, then (--tree) its descendants, in rounds. */
static int attach_run(struct st_tree *t, uint32_t slot, struct stb_sess *s, pid_t pid,
		      struct st_err *err)
{
	struct stb_job job = {
		.sid = s->sid, .slot = slot, .kind = STB_JOB_ATTACH, .root_tgid = (uint32_t)pid,
		.self_tgid = (uint32_t)getpid(), .flags = s->flags,
		.now = clock_ns(CLOCK_MONOTONIC),
	};
	struct systrace_bpf *skel;
	uint64_t marked = 0, refused = 0;
	int ret, round;

	ret = st_bpf_progs_load(t, ST_BPF_PROG_ITER, &skel, err);
	if (ret)
		return ret;
	for (round = 0; round < ATTACH_ROUNDS; round++) {
		ret = st_bpf_job_run(skel, &job, err);
		if (ret)
			goto out;
		marked += job.marked;
		refused += job.refused;
		if (!job.marked)
			break;
	}
	if (!marked) {
		ret = refuse(err, refused ? EBUSY : ESRCH, "session", refused ?
			     "the process is already traced by a session" :
			     "every thread of the process is exiting");
		goto out;
	}
	if (s->flags & SYSTRACE_SESSION_F_TREE) {
		st_bpf_stop_point("link");
		job.kind = STB_JOB_LINK;
		ret = st_bpf_job_run(skel, &job, err);
	}
out:
	systrace_bpf__destroy(skel);
	return ret;
}

/* Under LOCK_EX, with the slot CREATING: everything but the commit. */
static int session_build(struct st_tree *t, const struct st_session_req *req, uint32_t slot,
			 int pidfd, struct st_err *err)
{
	struct stb_sess *s = &t->sess[slot];
	struct st_keeper k = { .counters = -1, .notify = -1, .slot = slot, .sid = s->sid };
	unsigned int mask = ST_BPF_CORE_LINKS;
	int i, ret;

	for (i = 0; i < STB_NLINKS; i++)
		k.links[i] = -1;
	ret = maps_make(t, slot, s, err);
	if (ret)
		return ret;
	k.counters = st_bpf_counters_open(s, err);
	if (k.counters == -2)
		return -err->err;
	if (k.counters >= 0) {
		ret = bpf_map_update_elem(t->fd[ST_M_COUNTERS], &slot, &k.counters, BPF_ANY) ?
		      st_bpf_errno(err, errno, "bpf map update", "counters") : 0;
		if (ret)
			goto out;
		mask |= 1U << STB_LINK_SWITCH;
	}
	k.notify = st_tree_inner(t, ST_M_NOTIFY, slot, err);
	if (k.notify < 0) {
		ret = k.notify;
		goto out;
	}
	ret = st_bpf_links_hold(t, mask, k.links, err);
	if (ret)
		goto out;
	st_bpf_misses_now(t, s->miss_base);
	st_bpf_stop_point("maps");
	if (req->flags & SYSTRACE_SESSION_F_ON_EXEC) {
		struct stb_task root = { .sid = s->sid, .slot = slot, .state = STB_TASK_PENDING };

		s->m.live_tasks = 1;
		if (bpf_map_update_elem(t->fd[ST_M_TASKS], &pidfd, &root, BPF_ANY)) {
			ret = st_bpf_errno(err, errno, "task storage", "the root");
			goto out;
		}
	} else {
		/* The programs follow what the iterator marks from the moment it does. */
		__atomic_store_n(&s->state, STB_SESS_LIVE, __ATOMIC_SEQ_CST);
		ret = attach_run(t, slot, s, (pid_t)req->pid, err);
		if (ret)
			goto out;
	}
	ret = st_bpf_keeper_spawn(t, &k, err);
	if (!ret)
		st_bpf_stop_point("keeper");
out:
	for (i = 0; i < STB_NLINKS; i++)
		if (k.links[i] >= 0)
			close(k.links[i]);
	if (k.counters >= 0)
		close(k.counters);
	if (k.notify >= 0)
		close(k.notify);
	return ret;
}

/*
 * Under LOCK_EX, the session just made live: whether its root (start's
 * CMD, not yet exec'd) exited before the programs could follow it. Its
 * exit's program then ran while the root was not marked yet, or while the
 * session was CREATING, and let it go: the session would wait for it for
 * good. The root's pidfd reads as exited only once that program has run,
 * and a root not exiting now will be seen by it, the session being live:
 * so no program races with this. Such a session ends with no process.
 */
static void root_missed(struct st_tree *t, uint32_t slot, pid_t pid, int pidfd)
{
	struct stb_sess *s = &t->sess[slot];
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	struct stb_task task;

	if (poll(&p, 1, 0) == 0 && !(st_proc_stat_field(pid, 9) & 0x4 /* PF_EXITING */))
		return;
	/* It is exiting: wait until its exit's program has run. */
	while (poll(&p, 1, 2000) < 0 && errno == EINTR)
		;
	if (!(p.revents & POLLIN) || bpf_map_lookup_elem(t->fd[ST_M_TASKS], &pidfd, &task) ||
	    task.sid != s->sid || task.state != STB_TASK_PENDING)
		return;
	task.state = STB_TASK_GONE;
	if (bpf_map_update_elem(t->fd[ST_M_TASKS], &pidfd, &task, BPF_EXIST) && errno != ENOENT)
		return;
	__atomic_sub_fetch(&s->m.live_tasks, 1, __ATOMIC_SEQ_CST);
}

int st_bpf_session_create(struct st_tree *t, const struct st_session_req *req,
			  uint32_t *slotp, uint64_t *sidp, uint8_t *token, struct st_err *err)
{
	struct st_bpf_limits l;
	struct stb_sess *s;
	uint32_t level = 0, inum = 0, slot;
	int ncpus = libbpf_num_possible_cpus(), ret, pidfd = -1;

	st_bpf_limits(&l);
	ret = req_check(req, &l, ncpus > 0 ? ncpus : 1, err);
	if (ret)
		return ret;
	ret = pidns_self(t, &level, &inum, err);
	if (ret)
		return ret;
	ret = st_tree_lock(t, LOCK_EX, err);
	if (ret)
		return ret;
	ret = st_bpf_settle(t, err);
	if (!ret)
		ret = name_check(t, req->name, err);
	if (!ret)
		ret = root_check(t, (pid_t)req->pid, &pidfd, err);
	if (!ret)
		ret = slot_take(t, &slot, err);
	if (ret)
		goto out;
	s = &t->sess[slot];
	memset(s, 0, sizeof(*s));
	s->state = STB_SESS_CREATING;
	if (getrandom(s->token, sizeof(s->token), 0) != sizeof(s->token)) {
		ret = st_bpf_errno(err, errno, "getrandom", "token");
		goto free;
	}
	s->flags = req->flags;
	s->counters = req->counters;
	s->pidns_level = level;
	s->pidns_inum = inum;
	s->max_procs = l.max_procs;
	s->max_sites = l.max_sites;
	s->max_mem = l.max_mem;
	s->log_buffer = req->log_buffer;
	s->paths_mode = req->paths == ST_PATHS_ALL ? STB_PATHS_ALL :
			req->paths == ST_PATHS_OFF ? STB_PATHS_OFF : STB_PATHS_ERRORS;
	s->log_ncpus = t->host.ncpus;
	s->root_pid = req->pid;
	s->created_ns = clock_ns(CLOCK_MONOTONIC);
	s->realtime_base_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	s->fixed_bytes = st_bpf_fixed_bytes(l.max_procs, l.max_sites,
					    req->log_buffer ? st_bpf_log_ring_bytes(req->log_buffer) : 0,
					    (int)t->host.ncpus);
	/* What it holds from its start counts against max_mem as its rows do. */
	s->m.mem_bytes = s->fixed_bytes;
	if (req->name)
		snprintf(s->name, sizeof(s->name), "%s", req->name);
	t->host.last_sid++;
	ret = st_tree_host_write(t, err);
	if (ret)
		goto free;
	__atomic_store_n(&s->sid, t->host.last_sid, __ATOMIC_SEQ_CST);
	st_bpf_stop_point("slot");
	ret = session_build(t, req, slot, pidfd, err);
	if (ret)
		goto free;
	__atomic_store_n(&s->state, STB_SESS_LIVE, __ATOMIC_SEQ_CST);
	if (req->flags & SYSTRACE_SESSION_F_ON_EXEC)
		root_missed(t, slot, (pid_t)req->pid, pidfd);
	*slotp = slot;
	*sidp = s->sid;
	memcpy(token, s->token, sizeof(s->token));
	goto out;
free:
	slot_free(t, slot);
out:
	if (pidfd >= 0)
		close(pidfd);
	st_tree_lock(t, LOCK_UN, err);
	return ret;
}
