// SPDX-License-Identifier: GPL-2.0
/*
 * BPF sessions (bpf_session.h): making one whole or not at all, the links
 * of the one set of programs, the keeper that holds them, the attach and
 * detach iterator, cutting a finished session's maps to its rows, and
 * settling what a killed process left.
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
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf_session.h"
#include "systrace.skel.h"

#define DEF_MAX_PROCS	1048576
#define DEF_MAX_SITES	4194304
#define DEF_MAX_MEM	(1ULL << 30)
#define ATTACH_ROUNDS	8
/* A keeper looks at its session this often even with no event. */
#define KEEPER_TICK_MS	5000

static const char *const link_prog[STB_NLINKS] = {
	[STB_LINK_SYS_ENTER] = "st_sys_enter",
	[STB_LINK_SYS_EXIT] = "st_sys_exit",
	[STB_LINK_FORK] = "st_fork",
	[STB_LINK_EXEC] = "st_exec",
	[STB_LINK_EXIT] = "st_exit",
	[STB_LINK_SWITCH] = "st_switch",
};

#define CORE_LINKS ((1U << STB_LINK_SWITCH) - 1)
#define PROG_ITER (1U << STB_NLINKS)

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

uint64_t st_bpf_fixed_bytes(uint32_t max_procs, uint32_t max_sites, uint32_t log_ring,
			    int ncpus)
{
	return buckets(max_procs) + buckets(max_sites) + buckets(ST_BPF_FILES) +
	       (uint64_t)sysconf(_SC_PAGESIZE) + (uint64_t)log_ring * (uint64_t)ncpus;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* This process's pid namespace: its level (NSpid fields - 1) and inode. */
static int pidns_self(uint32_t *level, uint32_t *inum)
{
	char line[256];
	struct stat st;
	FILE *f;
	int n = -1;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*inum = (uint32_t)st.st_ino;
	f = fopen("/proc/self/status", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + 6, *end;

		if (strncmp(line, "NSpid:", 6))
			continue;
		n = 0;
		for (;;) {
			strtoul(p, &end, 10);
			if (end == p)
				break;
			n++;
			p = end;
		}
	}
	fclose(f);
	if (n < 1)
		return -ENOENT;
	*level = (uint32_t)(n - 1);
	return 0;
}

/* Field @n (from 1) of /proc/@pid/stat, after the comm; 0 when unknown. */
static uint64_t proc_stat_field(pid_t pid, int n)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t len;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	/* Field 3 (the state) follows the comm. */
	for (i = 3; i <= n && p; i++) {
		while (*p == ' ')
			p++;
		if (i == n) {
			sscanf(p, "%llu", &v);
			break;
		}
		p = strchr(p, ' ');
	}
	return v;
}

/* --- the keepers' locks ---------------------------------------------------- */

static void keep_name(uint64_t sid, char *buf, size_t len)
{
	snprintf(buf, len, ST_KEEP_DIR "/%" PRIu64, sid);
}

bool st_bpf_keeper_alive(const struct st_tree *t, uint64_t sid)
{
	char name[64];
	bool alive;
	int fd;

	keep_name(sid, name, sizeof(name));
	fd = openat(t->dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	alive = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

static void keep_remove(const struct st_tree *t, uint64_t sid)
{
	char name[64];

	keep_name(sid, name, sizeof(name));
	unlinkat(t->dir, name, AT_REMOVEDIR);
}

/* --- loading the programs ---------------------------------------------------- */

static int bpf_refused(struct st_err *err, int ret, const char *what)
{
	char tail[900];

	if ((ret == -EPERM || ret == -EACCES) && !st_bpf_capable())
		return st_bpf_perm_error(err, -ret, "BPF program load");
	st_bpf_log_tail(tail, sizeof(tail), 8);
	st_err_set(err, ST_ERR_BPF, -ret, "BPF program load",
		   "the kernel refused systrace's BPF program %s (%s); the BPF backend needs "
		   "BTF, tp_btf, task storage and bpf_find_vma (5.17)%s%s", what, strerror(-ret),
		   tail[0] ? "; the verifier's last lines:\n" : " (SYSTRACE_BPF_DEBUG=1 prints "
		   "libbpf's log)", tail);
	return ret;
}

/*
 * The programs of @mask (a bit per STB_LINK_*, PROG_ITER for the
 * iterator), loaded against the tree's maps.
 */
static int progs_load(const struct st_tree *t, unsigned int mask, struct systrace_bpf **out,
		      struct st_err *err)
{
	struct bpf_program *progs[STB_NLINKS + 1];
	struct bpf_map *shared[ST_M_COUNT] = { 0 };
	struct systrace_bpf *skel;
	unsigned int i;
	int ret;

	*out = NULL;
	st_bpf_log_start();
	skel = systrace_bpf__open();
	if (!skel) {
		st_err_set(err, ST_ERR_LOCAL, errno, "bpf open", NULL);
		return -errno;
	}
	progs[STB_LINK_SYS_ENTER] = skel->progs.st_sys_enter;
	progs[STB_LINK_SYS_EXIT] = skel->progs.st_sys_exit;
	progs[STB_LINK_FORK] = skel->progs.st_fork;
	progs[STB_LINK_EXEC] = skel->progs.st_exec;
	progs[STB_LINK_EXIT] = skel->progs.st_exit;
	progs[STB_LINK_SWITCH] = skel->progs.st_switch;
	progs[STB_NLINKS] = skel->progs.st_attach;
	for (i = 0; i <= STB_NLINKS; i++)
		bpf_program__set_autoload(progs[i], !!(mask & (1U << i)));
	bpf_map__set_autocreate(skel->maps.st_attach_rows, !!(mask & PROG_ITER));
	bpf_map__set_autocreate(skel->maps.st_scratch, !!(mask & ~(1U << STB_LINK_SWITCH)));
	shared[ST_M_TASKS] = skel->maps.st_tasks;
	shared[ST_M_SESSIONS] = skel->maps.st_sessions;
	shared[ST_M_PROCS] = skel->maps.st_procs;
	shared[ST_M_SITES] = skel->maps.st_sites;
	shared[ST_M_FILES] = skel->maps.st_files;
	shared[ST_M_LOGS] = skel->maps.st_logs;
	shared[ST_M_NOTIFY] = skel->maps.st_notify;
	shared[ST_M_COUNTERS] = skel->maps.st_counters;
	for (i = 0; i < ST_M_COUNT; i++) {
		if (!shared[i])
			continue;
		ret = bpf_map__reuse_fd(shared[i], t->fd[i]);
		if (ret) {
			st_err_set(err, ST_ERR_LOCAL, -ret, "bpf map reuse", "%s",
				   bpf_map__name(shared[i]));
			goto fail;
		}
	}
	ret = systrace_bpf__load(skel);
	if (ret) {
		bpf_refused(err, ret, mask & PROG_ITER ? "st_attach" : "set");
		goto fail;
	}
	*out = skel;
	return 0;
fail:
	systrace_bpf__destroy(skel);
	return ret;
}

/* Whether link @fd runs our program for STB_LINK_* @k, on this tree's maps. */
static bool link_ours(const struct st_tree *t, int fd, int k)
{
	struct bpf_link_info link = { 0 };
	struct bpf_prog_info prog = { 0 };
	uint32_t len = sizeof(link), ids[16], i;
	bool ours = false;
	int pfd;

	/* tp_btf programs get raw tracepoint links; an iterator's is never held. */
	if (bpf_obj_get_info_by_fd(fd, &link, &len) ||
	    (link.type != BPF_LINK_TYPE_RAW_TRACEPOINT && link.type != BPF_LINK_TYPE_TRACING))
		return false;
	pfd = bpf_prog_get_fd_by_id(link.prog_id);
	if (pfd < 0)
		return false;
	len = sizeof(prog);
	prog.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	prog.map_ids = (uintptr_t)ids;
	if (!bpf_obj_get_info_by_fd(pfd, &prog, &len) && !strcmp(prog.name, link_prog[k]))
		for (i = 0; i < prog.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++)
			if (ids[i] == t->tasks_id)
				ours = true;
	close(pfd);
	return ours;
}

static struct bpf_program *skel_prog(struct systrace_bpf *skel, int k)
{
	switch (k) {
	case STB_LINK_SYS_ENTER:
		return skel->progs.st_sys_enter;
	case STB_LINK_SYS_EXIT:
		return skel->progs.st_sys_exit;
	case STB_LINK_FORK:
		return skel->progs.st_fork;
	case STB_LINK_EXEC:
		return skel->progs.st_exec;
	case STB_LINK_EXIT:
		return skel->progs.st_exit;
	default:
		return skel->progs.st_switch;
	}
}

/*
 * Under LOCK_EX: fds of the links of @mask, holding them attached. The
 * links some keeper holds are taken by id; the others are made (their
 * programs loaded and attached) and their ids written to the host entry.
 * A link is never pinned: it lives while an fd holds it.
 */
static int links_hold(struct st_tree *t, unsigned int mask, int fds[STB_NLINKS],
		      struct st_err *err)
{
	struct bpf_link_info info = { 0 };
	struct systrace_bpf *skel;
	unsigned int missing = 0;
	struct bpf_link *link;
	uint32_t len;
	int k, fd, ret;

	for (k = 0; k < STB_NLINKS; k++) {
		fds[k] = -1;
		if (!(mask & (1U << k)))
			continue;
		fd = t->host.link_id[k] ? bpf_link_get_fd_by_id(t->host.link_id[k]) : -1;
		if (fd >= 0 && link_ours(t, fd, k)) {
			fds[k] = fd;
			continue;
		}
		if (fd >= 0)
			close(fd);
		missing |= 1U << k;
	}
	if (!missing)
		return 0;
	ret = progs_load(t, missing, &skel, err);
	if (ret)
		goto fail;
	for (k = 0; k < STB_NLINKS; k++) {
		if (!(missing & (1U << k)))
			continue;
		link = bpf_program__attach(skel_prog(skel, k));
		if (!link) {
			ret = -errno;
			st_err_set(err, ST_ERR_KERNEL, -ret, "BPF attach",
				   "cannot attach %s to its tracepoint", link_prog[k]);
			break;
		}
		fds[k] = fcntl(bpf_link__fd(link), F_DUPFD_CLOEXEC, 3);
		bpf_link__destroy(link);
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (fds[k] < 0 || bpf_obj_get_info_by_fd(fds[k], &info, &len)) {
			ret = st_bpf_errno(err, errno, "BPF link", link_prog[k]);
			break;
		}
		t->host.link_id[k] = info.id;
	}
	systrace_bpf__destroy(skel);
	if (!ret)
		ret = st_tree_host_write(t, err);
	if (!ret)
		return 0;
fail:
	for (k = 0; k < STB_NLINKS; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	return ret;
}

bool st_bpf_attached(const struct st_tree *t)
{
	int k, fd;

	for (k = 0; k < STB_NLINKS; k++) {
		if (!t->host.link_id[k])
			continue;
		fd = bpf_link_get_fd_by_id(t->host.link_id[k]);
		if (fd < 0)
			continue;
		if (link_ours(t, fd, k)) {
			close(fd);
			return true;
		}
		close(fd);
	}
	return false;
}

void st_bpf_misses_now(const struct st_tree *t, __u64 out[2])
{
	struct bpf_link_info link;
	struct bpf_prog_info prog;
	uint32_t len;
	int k, fd, pfd;

	out[0] = out[1] = 0;
	for (k = 0; k < STB_LINK_SWITCH; k++) {
		if (!t->host.link_id[k])
			continue;
		fd = bpf_link_get_fd_by_id(t->host.link_id[k]);
		if (fd < 0)
			continue;
		memset(&link, 0, sizeof(link));
		len = sizeof(link);
		if (link_ours(t, fd, k) && !bpf_obj_get_info_by_fd(fd, &link, &len)) {
			pfd = bpf_prog_get_fd_by_id(link.prog_id);
			memset(&prog, 0, sizeof(prog));
			len = sizeof(prog);
			if (pfd >= 0 && !bpf_obj_get_info_by_fd(pfd, &prog, &len))
				out[k <= STB_LINK_SYS_EXIT ? 0 : 1] += prog.recursion_misses;
			if (pfd >= 0)
				close(pfd);
		}
		close(fd);
	}
}

void st_bpf_misses(const struct st_tree *t, const struct stb_sess *s, __u64 out[2])
{
	__u64 now[2];
	int i;

	if (s->misses_done) {
		out[0] = s->misses[0];
		out[1] = s->misses[1];
		return;
	}
	st_bpf_misses_now(t, now);
	for (i = 0; i < 2; i++)
		out[i] = now[i] > s->miss_base[i] ? now[i] - s->miss_base[i] : 0;
}

/* The session stops being followed: its share of the skipped runs is final. */
static void misses_close(const struct st_tree *t, struct stb_sess *s)
{
	__u64 m[2];

	if (s->misses_done)
		return;
	st_bpf_misses(t, s, m);
	s->misses[0] = m[0];
	s->misses[1] = m[1];
	s->misses_done = 1;
}

/* --- the iterator: attach, link the attached rows, detach -------------------- */

/* Runs the iterator once over every task; the job's result in @job. */
static int job_run(struct systrace_bpf *skel, struct stb_job *job, struct st_err *err)
{
	struct bpf_link *link;
	char buf[256];
	ssize_t n;
	int fd;

	job->marked = 0;
	job->refused = 0;
	skel->bss->job = *job;
	link = bpf_program__attach_iter(skel->progs.st_attach, NULL);
	if (!link) {
		st_err_set(err, ST_ERR_KERNEL, errno, "BPF iterator", "cannot attach st_attach");
		return -errno;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		st_err_set(err, ST_ERR_KERNEL, errno, "BPF iterator", "cannot start st_attach");
		bpf_link__destroy(link);
		return -errno;
	}
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0 || (n < 0 && errno == EINTR));
	close(fd);
	bpf_link__destroy(link);
	if (n < 0) {
		st_err_set(err, ST_ERR_KERNEL, errno, "BPF iterator", "st_attach");
		return -errno;
	}
	*job = skel->bss->job;
	return 0;
}

/* --- cutting a finished session's maps to its rows --------------------------- */

/* A copy of hash map @old with exactly its entries (at least one slot). */
static int map_cut(int old, uint32_t key_size, uint32_t value_size, const char *name,
		   uint64_t *rows, struct st_err *err)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	char *key = calloc(2, key_size), *value = malloc(value_size);
	uint32_t n = 0;
	void *prev = NULL;
	int fd = -1;

	if (!key || !value) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "cut", NULL);
		goto out;
	}
	while (!bpf_map_get_next_key(old, prev, key + key_size)) {
		memcpy(key, key + key_size, key_size);
		prev = key;
		n++;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, name, key_size, value_size, n ? n : 1, &opts);
	if (fd < 0) {
		st_bpf_errno(err, errno, "bpf map create", name);
		goto out;
	}
	prev = NULL;
	while (!bpf_map_get_next_key(old, prev, key + key_size)) {
		memcpy(key, key + key_size, key_size);
		prev = key;
		if (bpf_map_lookup_elem(old, key, value))
			continue;
		if (bpf_map_update_elem(fd, key, value, BPF_NOEXIST)) {
			st_bpf_errno(err, errno, "bpf map update", name);
			close(fd);
			fd = -1;
			goto out;
		}
	}
	*rows = n;
out:
	free(key);
	free(value);
	return fd;
}

/*
 * The session in @slot is finished or detached: its maps, made for
 * max_procs and max_sites rows, are replaced with maps of the rows they
 * hold. Under LOCK_EX.
 */
static int session_cut(struct st_tree *t, uint32_t slot, struct st_err *err)
{
	static const struct {
		enum st_tree_map which;
		uint32_t key, value;
		const char *name;
	} kinds[] = {
		{ ST_M_PROCS, sizeof(uint64_t), sizeof(struct stb_proc), "st_procs_c" },
		{ ST_M_SITES, sizeof(struct stb_site_key), sizeof(struct stb_site), "st_sites_c" },
		{ ST_M_FILES, sizeof(struct stb_file_key), sizeof(struct stb_file), "st_files_c" },
	};
	struct stb_sess *s = &t->sess[slot];
	uint64_t fixed = 0, rows = 0;
	size_t i;
	int old, fd, ret = 0;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		old = st_tree_inner(t, kinds[i].which, slot, err);
		if (old == -ENOENT)
			continue;
		if (old < 0)
			return old;
		fd = map_cut(old, kinds[i].key, kinds[i].value, kinds[i].name, &rows, err);
		close(old);
		if (fd < 0)
			return fd;
		if (bpf_map_update_elem(t->fd[kinds[i].which], &slot, &fd, BPF_ANY))
			ret = st_bpf_errno(err, errno, "bpf map update", kinds[i].name);
		close(fd);
		if (ret)
			return ret;
		fixed += buckets(rows);
	}
	fixed += (uint64_t)sysconf(_SC_PAGESIZE) +
		 (s->log_buffer ? (uint64_t)st_bpf_log_ring_bytes(s->log_buffer) * s->log_ncpus : 0);
	/* Nothing charges the session any more: its memory is what it holds now. */
	s->m.mem_bytes = s->m.mem_bytes - s->fixed_bytes + fixed;
	s->fixed_bytes = fixed;
	s->compacted = 1;
	return 0;
}

/* --- freeing, detaching, settling -------------------------------------------- */

/* Takes the session's maps out of the tree's arrays; its slot is free. Under LOCK_EX. */
static void slot_free(struct st_tree *t, uint32_t slot)
{
	static const enum st_tree_map per_slot[] = {
		ST_M_PROCS, ST_M_SITES, ST_M_FILES, ST_M_NOTIFY, ST_M_COUNTERS,
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
		keep_remove(t, sid);
	s->state = STB_SESS_FREE;
	memset((char *)s + sizeof(s->sid), 0,
	       offsetof(struct stb_sess, m) - sizeof(s->sid));
	memset(&s->m, 0, sizeof(s->m));
}

void st_bpf_keeper_wait(const struct st_keeper_id *k)
{
	struct pollfd pfd = { .events = POLLIN };

	if (!k->pid)
		return;
	pfd.fd = (int)syscall(SYS_pidfd_open, (pid_t)k->pid, 0);
	if (pfd.fd < 0)
		return;
	/* Only when the pid is that keeper's (in this pid namespace, not reused). */
	if (proc_stat_field((pid_t)k->pid, 22) == k->start)
		while (poll(&pfd, 1, 5000) < 0 && errno == EINTR)
			;
	close(pfd.fd);
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

int st_bpf_session_detach(struct st_tree *t, uint32_t slot, uint64_t sid,
			  struct st_keeper_id *k, struct st_err *err)
{
	struct stb_sess *s = &t->sess[slot];
	struct stb_job job = { .sid = sid, .slot = slot, .kind = STB_JOB_DETACH };
	struct systrace_bpf *skel;
	int ret;

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
	misses_close(t, s);
	ret = progs_load(t, PROG_ITER, &skel, err);
	if (ret)
		return ret;
	job.now = clock_ns(CLOCK_MONOTONIC);
	job.flags = s->flags;
	ret = job_run(skel, &job, err);
	systrace_bpf__destroy(skel);
	if (!ret)
		ret = rows_end(t, slot, job.now, err);
	if (!ret)
		ret = session_cut(t, slot, err);
	keep_remove(t, sid);
	return ret;
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
			keep_remove(t, sid);
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
		if (s->state != STB_SESS_LIVE || st_bpf_keeper_alive(t, s->sid))
			continue;
		if (s->m.live_tasks > 0)
			ret = st_bpf_session_detach(t, i, s->sid, NULL, err);
		else if (!s->compacted) {
			misses_close(t, s);
			ret = session_cut(t, i, err);
		}
		else
			ret = 0;
		if (ret)
			return ret;
	}
	keep_sweep(t);
	return 0;
}

/* --- the keeper ------------------------------------------------------------- */

struct keeper {
	int links[STB_NLINKS];
	int counters;		/* the session's perf events: they live with this fd */
	int notify;
	int tree;		/* the tree's directory (the creator's open file) */
	uint32_t slot;
	uint64_t sid;
};

static int notify_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/*
 * Cuts the finished session's maps; with the tree's lock, from a fresh
 * open of its directory (the creator's open file may still be locked).
 */
static void keeper_finish(struct keeper *k)
{
	struct st_tree t;
	struct st_err err;
	bool exists;
	int i;

	/* Nothing is left to follow: the programs come off before the cut. */
	for (i = 0; i < STB_NLINKS; i++)
		if (k->links[i] >= 0)
			close(k->links[i]);
	if (k->counters >= 0)
		close(k->counters);

	if (st_tree_open(&t, false, &exists, &err) || !exists)
		return;
	if (!st_tree_lock(&t, LOCK_EX, &err)) {
		struct stb_sess *s = &t.sess[k->slot];

		if (s->sid == k->sid && s->state == STB_SESS_LIVE && s->m.live_tasks <= 0 &&
		    !s->compacted) {
			misses_close(&t, s);
			session_cut(&t, k->slot, &err);
		}
		keep_remove(&t, k->sid);
	}
	st_tree_close(&t);
}

/*
 * Whether the creator of session @s is gone before making it live: it
 * holds LOCK_EX from the slot's marking to its commit, so the session is
 * still CREATING once the lock is ours only if it died. (The state read
 * before the lock may be stale: the commit can fall in between.)
 */
static bool creator_gone(int tree, const struct stb_sess *s)
{
	char path[64];
	bool gone = false;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", tree);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return true;
	if (!flock(fd, LOCK_SH | LOCK_NB))
		gone = __atomic_load_n(&s->state, __ATOMIC_SEQ_CST) == STB_SESS_CREATING;
	close(fd);
	return gone;
}

/* The keeper's life: until its session is finished, detached or gone. */
static void __attribute__((noreturn)) keeper_run(struct keeper *k, struct stb_sess *s,
						 int keepdir)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ring_buffer *rb;
	char path[64], buf[4096];
	int ep, in;

	rb = ring_buffer__new(k->notify, notify_event, NULL, NULL);
	ep = epoll_create1(EPOLL_CLOEXEC);
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", keepdir);
	if (in >= 0 && inotify_add_watch(in, path, IN_DELETE | IN_ONLYDIR) >= 0) {
		ev.data.fd = in;
		epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev);
	}
	if (rb) {
		ev.data.fd = ring_buffer__epoll_fd(rb);
		epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	for (;;) {
		uint64_t sid = __atomic_load_n(&s->sid, __ATOMIC_SEQ_CST);
		uint32_t state = __atomic_load_n(&s->state, __ATOMIC_SEQ_CST);

		if (sid != k->sid || state == STB_SESS_DETACHED || state == STB_SESS_FREE)
			break;
		if (state == STB_SESS_LIVE &&
		    __atomic_load_n(&s->m.live_tasks, __ATOMIC_SEQ_CST) <= 0) {
			keeper_finish(k);
			break;
		}
		if (state == STB_SESS_CREATING && creator_gone(k->tree, s))
			break;
		if (epoll_wait(ep, &ev, 1, KEEPER_TICK_MS) > 0) {
			if (rb)
				ring_buffer__consume(rb);
			while (in >= 0 && read(in, buf, sizeof(buf)) > 0)
				;
		}
	}
	_exit(0);
}

/* Closes every fd of this process but the @n of @keep. */
static void fds_close_but(const int *keep, int n)
{
	int fds[1024], nfds = 0, fd, i;
	struct dirent *de;
	bool mine;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((de = readdir(d)) && nfds < (int)(sizeof(fds) / sizeof(fds[0])))
		if (sscanf(de->d_name, "%d", &fd) == 1 && fd != dirfd(d))
			fds[nfds++] = fd;
	closedir(d);
	for (i = 0; i < nfds; i++) {
		mine = false;
		for (fd = 0; fd < n; fd++)
			mine |= keep[fd] == fds[i];
		if (!mine)
			close(fds[i]);
	}
}

/*
 * Starts the keeper of the session in @slot: a grandchild in a session of
 * its own (no terminal signal reaches it, no parent waits for it), with no
 * fd but those of @k. Returns once it holds its lock in keep/.
 */
static int keeper_spawn(struct st_tree *t, struct keeper *k, struct st_err *err)
{
	struct stb_sess *s = &t->sess[k->slot];
	int ready[2], keepdir, tree, fd, status, i, keep[STB_NLINKS + 7], nkeep = 0;
	char name[64], path[64], c;
	pid_t pid;

	keep_name(k->sid, name, sizeof(name));
	if (mkdirat(t->dir, name, 0700) && errno != EEXIST)
		return st_bpf_errno(err, errno, "mkdir", name);
	if (pipe2(ready, O_CLOEXEC))
		return st_bpf_errno(err, errno, "pipe", "keeper");
	pid = fork();
	if (pid < 0) {
		close(ready[0]);
		close(ready[1]);
		return st_bpf_errno(err, errno, "fork", "keeper");
	}
	if (pid == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		prctl(PR_SET_NAME, "systrace-keep");
		fd = openat(t->dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		keepdir = openat(t->dir, ST_KEEP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || keepdir < 0 || flock(fd, LOCK_EX | LOCK_NB))
			_exit(1);
		/*
		 * The tree's lock belongs to the creator's open file, which the
		 * fork shared: the keeper keeps an open file of its own.
		 */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", t->dir);
		tree = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (tree < 0)
			_exit(1);
		for (i = 0; i < STB_NLINKS; i++)
			if (k->links[i] >= 0)
				keep[nkeep++] = k->links[i];
		keep[nkeep++] = k->notify;
		keep[nkeep++] = t->fd[ST_M_SESSIONS];
		keep[nkeep++] = fd;
		keep[nkeep++] = keepdir;
		keep[nkeep++] = tree;
		if (k->counters >= 0)
			keep[nkeep++] = k->counters;
		keep[nkeep++] = ready[1];
		/* Nothing of the creator's stays open: least of all CMD's pipes. */
		fds_close_but(keep, nkeep);
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		if (chdir("/"))
			_exit(1);
		k->tree = tree;
		s->keeper_pid = (uint32_t)getpid();
		s->keeper_start = proc_stat_field(getpid(), 22);
		c = 'k';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		close(ready[1]);
		keeper_run(k, s, keepdir);
	}
	close(ready[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	while (read(ready[0], &c, 1) < 0 && errno == EINTR)
		;
	close(ready[0]);
	if (!st_bpf_keeper_alive(t, k->sid)) {
		st_err_set(err, ST_ERR_LOCAL, ECHILD, "keeper",
			   "the process that keeps the session's programs attached did not start");
		return -ECHILD;
	}
	return 0;
}

/* --- perf counters -------------------------------------------------------- */

static void counter_attr(uint32_t mode, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->exclude_hv = 1;
	switch (mode) {
	case SYSTRACE_COUNTERS_INSTRUCTIONS:
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_INSTRUCTIONS;
		a->exclude_kernel = 1;
		break;
	case SYSTRACE_COUNTERS_CYCLES:
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
		a->exclude_kernel = 1;
		break;
	default:
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_TASK_CLOCK;
		break;
	}
}

static const char *counter_why(int e)
{
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "the CPU exposes no hardware performance counter for this event (no PMU, e.g. in a VM)";
	case EACCES:
	case EPERM:
		return "perf events are not permitted here";
	default:
		return "perf event creation failed";
	}
}

/*
 * The session's perf events: one per CPU, counting whatever runs there;
 * the programs give each traced task what the CPU counted between its
 * switch-in and its switch-out. In a PERF_EVENT_ARRAY that drops them when
 * the fd they were put through closes: the keeper's. Returns the map's fd,
 * or -1 with s->counters_error saying why the session counts nothing.
 */
static int counters_open(struct stb_sess *s, struct st_err *err)
{
	struct perf_event_attr a;
	int ncpus = libbpf_num_possible_cpus(), map, ev, e = 0, made = 0, cpu;

	if (s->counters == SYSTRACE_COUNTERS_NONE || ncpus < 1)
		return -1;
	map = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "st_counters_s", 4, 4,
			     (uint32_t)ncpus, NULL);
	if (map < 0) {
		st_bpf_errno(err, errno, "bpf map create", "counters");
		return -2;
	}
	counter_attr(s->counters, &a);
	for (cpu = 0; cpu < ncpus; cpu++) {
		ev = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (ev < 0) {
			/* An offline CPU runs nothing to count. */
			if (errno != ENODEV || !e)
				e = errno == ENODEV ? e : errno;
			continue;
		}
		if (bpf_map_update_elem(map, &cpu, &ev, BPF_ANY))
			e = errno;
		else
			made++;
		close(ev);
	}
	if (!made) {
		snprintf(s->counters_error, sizeof(s->counters_error), "%s",
			 counter_why(e ? e : ENODEV));
		close(map);
		return -1;
	}
	if (e)
		snprintf(s->counters_error, sizeof(s->counters_error),
			 "incomplete: %s on some CPUs", counter_why(e));
	s->counting = 1;
	return map;
}

/* --- making a session ------------------------------------------------------ */

/*
 * Testing: SYSTRACE_BPF_STOP=POINT stops the maker there (SIGSTOP), for a
 * test to kill it at a known point: "slot" (marked CREATING), "maps" (its
 * maps made and the programs held), "keeper" (its keeper running, not yet
 * committed).
 */
static void stop_point(const char *point)
{
	const char *want = getenv("SYSTRACE_BPF_STOP");

	if (want && !strcmp(want, point))
		raise(SIGSTOP);
}

static int refuse(struct st_err *err, int e, const char *op, const char *msg)
{
	st_err_set(err, ST_ERR_REFUSED, e, op, "%s", msg);
	return -e;
}

/* The session's inner maps, put at its slot. */
static int maps_make(struct st_tree *t, uint32_t slot, struct stb_sess *s, struct st_err *err)
{
	LIBBPF_OPTS(bpf_map_create_opts, hash, .map_flags = BPF_F_NO_PREALLOC);
	struct {
		enum st_tree_map which;
		enum bpf_map_type type;
		const char *name;
		uint32_t key, value, max;
		struct bpf_map_create_opts *opts;
	} maps[] = {
		{ ST_M_PROCS, BPF_MAP_TYPE_HASH, "st_procs_s", sizeof(uint64_t),
		  sizeof(struct stb_proc), s->max_procs, &hash },
		{ ST_M_SITES, BPF_MAP_TYPE_HASH, "st_sites_s", sizeof(struct stb_site_key),
		  sizeof(struct stb_site), s->max_sites, &hash },
		{ ST_M_FILES, BPF_MAP_TYPE_HASH, "st_files_s", sizeof(struct stb_file_key),
		  sizeof(struct stb_file), ST_BPF_FILES, &hash },
		{ ST_M_NOTIFY, BPF_MAP_TYPE_RINGBUF, "st_notify_s", 0, 0,
		  (uint32_t)sysconf(_SC_PAGESIZE), NULL },
	};
	uint32_t i, cpu, key, ring;
	int fd, ret = 0;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]) && !ret; i++) {
		fd = bpf_map_create(maps[i].type, maps[i].name, maps[i].key, maps[i].value,
				    maps[i].max, maps[i].opts);
		if (fd < 0) {
			ret = -errno;
			st_err_set(err, ST_ERR_KERNEL, errno, "bpf map create",
				   "cannot make the session's %s map (%" PRIu32 " entries)",
				   maps[i].name, maps[i].max);
			break;
		}
		if (bpf_map_update_elem(t->fd[maps[i].which], &slot, &fd, BPF_ANY))
			ret = st_bpf_errno(err, errno, "bpf map update", maps[i].name);
		close(fd);
	}
	if (ret || !s->log_buffer)
		return ret;
	ring = st_bpf_log_ring_bytes(s->log_buffer);
	for (cpu = 0; cpu < s->log_ncpus && !ret; cpu++) {
		fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "st_log", 0, 0, ring, NULL);
		if (fd < 0) {
			ret = -errno;
			st_err_set(err, ST_ERR_KERNEL, errno, "log buffer",
				   "cannot allocate the log buffer (%" PRIu32 " bytes on CPU %" PRIu32 ")",
				   ring, cpu);
			break;
		}
		key = slot * t->host.ncpus + cpu;
		if (bpf_map_update_elem(t->fd[ST_M_LOGS], &key, &fd, BPF_ANY))
			ret = st_bpf_errno(err, errno, "bpf map update", "logs");
		close(fd);
	}
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
	flags = proc_stat_field(pid, 9);
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
	uint32_t i, start = (uint32_t)(t->host.last_sid % STB_MAX_SESSIONS);

	/* Round robin: a slot just freed is the last one taken again. */
	for (i = 0; i < STB_MAX_SESSIONS; i++) {
		uint32_t n = (start + i) % STB_MAX_SESSIONS;

		if (!t->sess[n].sid && t->sess[n].state == STB_SESS_FREE) {
			*slot = n;
			return 0;
		}
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

	ret = progs_load(t, PROG_ITER, &skel, err);
	if (ret)
		return ret;
	for (round = 0; round < ATTACH_ROUNDS; round++) {
		ret = job_run(skel, &job, err);
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
		job.kind = STB_JOB_LINK;
		ret = job_run(skel, &job, err);
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
	struct keeper k = { .counters = -1, .notify = -1, .slot = slot, .sid = s->sid };
	unsigned int mask = CORE_LINKS;
	int i, ret;

	for (i = 0; i < STB_NLINKS; i++)
		k.links[i] = -1;
	ret = maps_make(t, slot, s, err);
	if (ret)
		return ret;
	k.counters = counters_open(s, err);
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
	ret = links_hold(t, mask, k.links, err);
	if (ret)
		goto out;
	st_bpf_misses_now(t, s->miss_base);
	stop_point("maps");
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
	ret = keeper_spawn(t, &k, err);
	if (!ret)
		stop_point("keeper");
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
	ret = pidns_self(&level, &inum);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "/proc/self/status", "no NSpid line");
		return ret;
	}
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
	stop_point("slot");
	ret = session_build(t, req, slot, pidfd, err);
	if (ret)
		goto free;
	__atomic_store_n(&s->state, STB_SESS_LIVE, __ATOMIC_SEQ_CST);
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
