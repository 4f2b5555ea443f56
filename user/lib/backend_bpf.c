// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend: each session is one loaded copy of bpf/systrace.bpf.c,
 * whose maps and links are pinned under /sys/fs/bpf/systrace/ID/, so the
 * session outlives `start` and any later systracectl finds it there.
 * Deleting the session unpins them: the kernel then detaches the programs
 * and frees the maps.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "log.h"
#include "systrace_bpf.h"
#include "systrace.skel.h"

#define BPFFS		"/sys/fs/bpf"
#define PIN_ROOT	BPFFS "/systrace"
#define BPF_FS_MAGIC_	0xcafe4a11
#define DEF_MAX_PROCS	1048576
#define DEF_MAX_SITES	4194304
#define DEF_MAX_MEM	(1ULL << 30)
/* A log record in its ring: the ring's 8-byte header, then the record. */
#define LOG_REC_BYTES	(8 + sizeof(struct stb_log_rec))

static const char *const map_names[] = { "tasks", "meta", "procs", "sites", "files", "info" };
static const char *const link_names[] = { "sys_enter", "sys_exit", "fork", "exec", "exit" };

static int bpf_be_open(void **priv, struct st_err *err)
{
	(void)err;
	*priv = NULL;
	return 0;
}

static void bpf_be_close(void *priv)
{
	(void)priv;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !getenv("SYSTRACE_BPF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static bool is_bpffs(const char *path)
{
	struct statfs sfs;

	return !statfs(path, &sfs) && (unsigned long)sfs.f_type == BPF_FS_MAGIC_;
}

/* bpffs at /sys/fs/bpf, mounted now if it was not. */
static int bpffs_ensure(struct st_err *err)
{
	if (is_bpffs(BPFFS))
		return 0;
	if (mount("bpf", BPFFS, "bpf", 0, NULL)) {
		int e = errno;

		st_err_set(err, ST_ERR_LOCAL, e, "bpffs",
			   "no BPF filesystem at " BPFFS " and it cannot be mounted; "
			   "mount it as root with: mount -t bpf bpf " BPFFS);
		return -e;
	}
	return 0;
}

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

static uint32_t max_procs(void)
{
	uint64_t v = param_u64("SYSTRACE_MAX_PROCS", "max_procs", DEF_MAX_PROCS);

	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint32_t max_sites(void)
{
	uint64_t v = param_u64("SYSTRACE_MAX_SITES", "max_sites", DEF_MAX_SITES);

	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * The bytes of each CPU's log ring for @bytes asked per CPU: rounded down
 * to a power of 2 (a BPF ring's size must be one), at least a page.
 */
static uint32_t log_ring_bytes(uint32_t bytes)
{
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE), r = page;

	while (r <= bytes / 2)
		r *= 2;
	return r;
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

static void pin_path(char *buf, size_t len, uint32_t id, const char *name)
{
	if (name)
		snprintf(buf, len, PIN_ROOT "/%" PRIu32 "/%s", id, name);
	else
		snprintf(buf, len, PIN_ROOT "/%" PRIu32, id);
}

static void log_pin_path(char *buf, size_t len, uint32_t id, int cpu)
{
	char name[32];

	snprintf(name, sizeof(name), STB_LOG_PIN "%d", cpu);
	pin_path(buf, len, id, name);
}

/* Removes every pin of session @id, then its folder. */
static int unpin_all(uint32_t id)
{
	char path[PATH_MAX];
	size_t i;
	int cpu;

	for (i = 0; i < sizeof(link_names) / sizeof(link_names[0]); i++) {
		pin_path(path, sizeof(path), id, link_names[i]);
		unlink(path);
	}
	for (i = 0; i < sizeof(map_names) / sizeof(map_names[0]); i++) {
		pin_path(path, sizeof(path), id, map_names[i]);
		unlink(path);
	}
	for (cpu = 0;; cpu++) {
		log_pin_path(path, sizeof(path), id, cpu);
		if (unlink(path))
			break;
	}
	pin_path(path, sizeof(path), id, NULL);
	return rmdir(path) ? -errno : 0;
}

static bool parse_id(const char *s, uint32_t *id)
{
	unsigned long v;
	char *end;

	if (*s < '1' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

/* The ids of the pinned sessions, ascending. */
static int session_ids(uint32_t **out, size_t *n)
{
	uint32_t *ids = NULL, *more, id;
	size_t cap = 0;
	struct dirent *de;
	DIR *dir;

	*n = 0;
	*out = NULL;
	dir = opendir(PIN_ROOT);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		if (!parse_id(de->d_name, &id))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			more = realloc(ids, cap * sizeof(*ids));
			if (!more) {
				free(ids);
				closedir(dir);
				return -ENOMEM;
			}
			ids = more;
		}
		ids[(*n)++] = id;
	}
	closedir(dir);
	*out = ids;
	return 0;
}

/* A new, empty folder for a session: the lowest id above every other. */
static int session_dir_new(uint32_t *id, struct st_err *err)
{
	char path[PATH_MAX];
	uint32_t *ids, next = 1;
	size_t i, n;
	int ret, tries;

	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "mkdir " PIN_ROOT, NULL);
		return ret;
	}
	ret = session_ids(&ids, &n);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "read " PIN_ROOT, NULL);
		return ret;
	}
	for (i = 0; i < n; i++)
		if (ids[i] >= next)
			next = ids[i] + 1;
	free(ids);
	for (tries = 0; tries < 100; tries++, next++) {
		pin_path(path, sizeof(path), next, NULL);
		if (!mkdir(path, 0700)) {
			*id = next;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	ret = -errno;
	st_err_set(err, ST_ERR_LOCAL, -ret, "mkdir", "%s", path);
	return ret;
}

#define CAP_PERFMON_	38
#define CAP_BPF_	39

/* Whether this process holds CAP_BPF and CAP_PERFMON (root does). */
static bool bpf_caps(void)
{
	unsigned long long eff = 0;
	const unsigned long long need = (1ULL << CAP_PERFMON_) | (1ULL << CAP_BPF_);
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff & need) == need;
}

static int perm_error(struct st_err *err, int e, const char *op)
{
	st_err_set(err, ST_ERR_KERNEL, e, op,
		   "the BPF backend needs root, or CAP_BPF and CAP_PERFMON with write access to " BPFFS);
	return -e;
}

static int pin_session(struct systrace_bpf *skel, uint32_t id, struct st_err *err)
{
	struct bpf_map *maps[] = { skel->maps.tasks, skel->maps.meta, skel->maps.procs,
				   skel->maps.sites, skel->maps.files, skel->maps.info };
	struct bpf_link *links[] = { skel->links.st_sys_enter, skel->links.st_sys_exit,
				     skel->links.st_fork, skel->links.st_exec,
				     skel->links.st_exit };
	char path[PATH_MAX];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		pin_path(path, sizeof(path), id, map_names[i]);
		ret = bpf_map__pin(maps[i], path);
		if (ret)
			goto fail;
	}
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		pin_path(path, sizeof(path), id, link_names[i]);
		ret = bpf_link__pin(links[i], path);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	st_err_set(err, ST_ERR_LOCAL, -ret, "pin", "%s", path);
	return ret;
}

/*
 * The temporal log's rings: one of @bytes per possible CPU, put in the
 * programs' `logs` and pinned as logCPU, where the readers find them.
 */
static int log_rings(struct systrace_bpf *skel, uint32_t id, uint32_t bytes,
		     int ncpus, struct st_err *err)
{
	int outer = bpf_map__fd(skel->maps.logs), fd, ret = 0;
	char path[PATH_MAX];
	uint32_t cpu;

	for (cpu = 0; cpu < (uint32_t)ncpus; cpu++) {
		fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "st_log", 0, 0, bytes, NULL);
		if (fd < 0) {
			ret = -errno;
			st_err_set(err, ST_ERR_KERNEL, -ret, "log buffer",
				   "cannot allocate the log buffer (%" PRIu32 " bytes on CPU %" PRIu32 ")",
				   bytes, cpu);
			return ret;
		}
		if (bpf_map_update_elem(outer, &cpu, &fd, BPF_ANY)) {
			ret = -errno;
			st_err_set(err, ST_ERR_LOCAL, -ret, "bpf map update", "logs");
		} else {
			log_pin_path(path, sizeof(path), id, (int)cpu);
			if (bpf_obj_pin(fd, path)) {
				ret = -errno;
				st_err_set(err, ST_ERR_LOCAL, -ret, "pin", "%s", path);
			}
		}
		close(fd);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Loads and attaches the programs, pins them as session @id, and makes
 * @pid (which has not exec'd yet) the session's root.
 */
static int session_load(uint32_t id, const struct st_session_req *req,
			struct stb_info *info, struct st_err *err)
{
	struct stb_meta m = { .live_tasks = 1 };
	struct stb_task root = { .state = STB_TASK_PENDING };
	struct systrace_bpf *skel;
	uint32_t zero = 0, level = 0, inum = 0;
	int ret, pidfd = -1, ncpus = 1;

	ret = pidns_self(&level, &inum);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "/proc/self/status", "no NSpid line");
		return ret;
	}
	libbpf_set_print(print_libbpf);
	skel = systrace_bpf__open();
	if (!skel) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "bpf open", NULL);
		return ret;
	}
	skel->rodata->pidns_level = level;
	skel->rodata->pidns_inum = inum;
	skel->rodata->max_procs = info->max_procs;
	skel->rodata->max_sites = info->max_sites;
	bpf_map__set_max_entries(skel->maps.procs, info->max_procs);
	bpf_map__set_max_entries(skel->maps.sites, info->max_sites);
	if (info->log_buffer) {
		ncpus = libbpf_num_possible_cpus();
		if (ncpus < 1) {
			ret = ncpus ? ncpus : -EINVAL;
			st_err_set(err, ST_ERR_LOCAL, -ret, "possible CPUs", NULL);
			goto out;
		}
		skel->rodata->log_on = true;
	}
	bpf_map__set_max_entries(skel->maps.logs, (uint32_t)ncpus);
	ret = systrace_bpf__load(skel);
	if (ret) {
		if (ret == -EPERM || ret == -EACCES)
			perm_error(err, -ret, "BPF program load");
		else
			st_err_set(err, ST_ERR_KERNEL, -ret, "BPF program load",
				   "the kernel refused the BPF programs (SYSTRACE_BPF_DEBUG=1 "
				   "shows the verifier's log); the BPF backend needs BTF, "
				   "tp_btf and task storage (5.11) and bpf_find_vma (5.17)");
		goto out;
	}
	ret = bpf_map_update_elem(bpf_map__fd(skel->maps.meta), &zero, &m, BPF_ANY);
	if (!ret)
		ret = bpf_map_update_elem(bpf_map__fd(skel->maps.info), &zero, info, BPF_ANY);
	if (ret) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "bpf map update", NULL);
		goto out;
	}
	if (info->log_buffer) {
		ret = log_rings(skel, id, log_ring_bytes(info->log_buffer), ncpus, err);
		if (ret)
			goto out;
	}
	ret = systrace_bpf__attach(skel);
	if (ret) {
		st_err_set(err, ST_ERR_KERNEL, -ret, "BPF attach", "cannot attach to the tracepoints");
		goto out;
	}
	ret = pin_session(skel, id, err);
	if (ret)
		goto out;
	pidfd = (int)syscall(SYS_pidfd_open, req->pid, 0);
	if (pidfd < 0) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "pidfd_open", "pid %" PRIu32, req->pid);
		goto out;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.tasks), &pidfd, &root, BPF_NOEXIST)) {
		ret = -errno;
		st_err_set(err, ST_ERR_KERNEL, -ret, "task storage", "cannot mark pid %" PRIu32,
			   req->pid);
	}
out:
	if (pidfd >= 0)
		close(pidfd);
	systrace_bpf__destroy(skel);
	return ret;
}

static int open_map(uint32_t id, const char *name, struct st_err *err)
{
	char path[PATH_MAX];
	int fd, e;

	pin_path(path, sizeof(path), id, name);
	fd = bpf_obj_get(path);
	if (fd >= 0)
		return fd;
	e = errno;
	if (e == ENOENT)
		st_err_set(err, ST_ERR_NOSESSION, e, "session",
			   "no session with that id (%" PRIu32 "; see: systracectl list)", id);
	else if (e == EPERM || e == EACCES)
		perm_error(err, e, "open pinned map");
	else
		st_err_set(err, ST_ERR_LOCAL, e, "open", "%s", path);
	return -e;
}

/* The kernel's own accounting of a map's memory (fdinfo "memlock"). */
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

struct bpf_session {
	uint32_t id;
	int fd[6];		/* map_names order */
	struct stb_info info;
	struct stb_meta meta;
};

enum { M_TASKS, M_META, M_PROCS, M_SITES, M_FILES, M_INFO };

static void session_close(struct bpf_session *bs)
{
	size_t i;

	for (i = 0; i < 6; i++)
		if (bs->fd[i] >= 0)
			close(bs->fd[i]);
}

static int session_open(uint32_t id, struct bpf_session *bs, struct st_err *err)
{
	uint32_t zero = 0;
	size_t i;
	int ret;

	bs->id = id;
	for (i = 0; i < 6; i++)
		bs->fd[i] = -1;
	for (i = 0; i < 6; i++) {
		bs->fd[i] = open_map(id, map_names[i], err);
		if (bs->fd[i] < 0) {
			ret = bs->fd[i];
			session_close(bs);
			return ret;
		}
	}
	if (bpf_map_lookup_elem(bs->fd[M_INFO], &zero, &bs->info) ||
	    bpf_map_lookup_elem(bs->fd[M_META], &zero, &bs->meta)) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "bpf map lookup", "session %" PRIu32, id);
		session_close(bs);
		return ret;
	}
	return 0;
}

/* Every process row, in a malloc'd array. */
static int read_procs(struct bpf_session *bs, struct stb_proc **out, size_t *n)
{
	struct stb_proc *rows = NULL, *more;
	uint64_t key, next;
	size_t cap = 0;
	void *prev = NULL;

	*n = 0;
	while (!bpf_map_get_next_key(bs->fd[M_PROCS], prev, &next)) {
		key = next;
		prev = &key;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			more = realloc(rows, cap * sizeof(*rows));
			if (!more) {
				free(rows);
				return -ENOMEM;
			}
			rows = more;
		}
		if (!bpf_map_lookup_elem(bs->fd[M_PROCS], &key, &rows[*n]))
			(*n)++;
	}
	*out = rows;
	return 0;
}

/*
 * How many times the kernel skipped the program behind link @name because
 * it was already running on that CPU (recursion_misses). The event it
 * skipped may have been any task's, traced or not.
 */
static uint64_t link_misses(uint32_t id, const char *name)
{
	struct bpf_link_info link = { 0 };
	struct bpf_prog_info prog = { 0 };
	uint32_t len = sizeof(link);
	char path[PATH_MAX];
	uint64_t misses = 0;
	int fd, pfd;

	pin_path(path, sizeof(path), id, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (!bpf_obj_get_info_by_fd(fd, &link, &len)) {
		pfd = bpf_prog_get_fd_by_id(link.prog_id);
		len = sizeof(prog);
		if (pfd >= 0 && !bpf_obj_get_info_by_fd(pfd, &prog, &len))
			misses = prog.recursion_misses;
		if (pfd >= 0)
			close(pfd);
	}
	close(fd);
	return misses;
}

/* The memory of session @id's log rings. */
static uint64_t log_memlock(uint32_t id)
{
	char path[PATH_MAX];
	uint64_t sum = 0;
	int cpu, fd;

	for (cpu = 0;; cpu++) {
		log_pin_path(path, sizeof(path), id, cpu);
		fd = bpf_obj_get(path);
		if (fd < 0)
			break;
		sum += map_memlock(fd);
		close(fd);
	}
	return sum;
}

static void session_row(struct bpf_session *bs, const struct stb_proc *procs,
			size_t nprocs, struct st_session_row *s)
{
	const struct stb_meta *m = &bs->meta;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->id = bs->id;
	memcpy(s->name, bs->info.name, sizeof(s->name));
	s->name[sizeof(s->name) - 1] = '\0';
	s->root_pid = bs->info.root_pid;
	s->flags = bs->info.flags;
	s->created_ns = bs->info.created_ns;
	s->realtime_base_ns = bs->info.realtime_base_ns;
	s->counters = bs->info.counters;
	if (s->counters != SYSTRACE_COUNTERS_NONE) {
		s->has_counters_error = true;
		snprintf(s->counters_error, sizeof(s->counters_error),
			 "the bpf backend has no perf counters");
	}
	s->live_tasks = m->live_tasks > 0 ? (uint32_t)m->live_tasks : 0;
	if (!s->live_tasks)
		s->state = SYSTRACE_STATE_FINISHED;
	else if (!m->execs)
		s->state = SYSTRACE_STATE_WAITING;
	else
		s->state = SYSTRACE_STATE_RUNNING;
	s->procs = m->procs;
	s->sites = m->sites;
	for (i = 0; i < nprocs; i++) {
		s->syscalls += procs[i].syscalls;
		s->errors += procs[i].errors;
		s->syscall_ns += procs[i].syscall_ns;
	}
	s->forks = m->forks;
	s->clones = m->clones;
	s->execs = m->execs;
	s->exits = m->exits;
	s->signal_exits = m->signal_exits;
	/* Events the kernel did not give the programs count as drops. */
	s->dropped_procs = m->dropped_procs + link_misses(bs->id, "fork") +
			   link_misses(bs->id, "exec") + link_misses(bs->id, "exit");
	s->dropped_sites = m->dropped_sites;
	s->dropped_syscalls = m->dropped_syscalls + link_misses(bs->id, "sys_enter") +
			      link_misses(bs->id, "sys_exit");
	s->dropped_nomem = m->dropped_nomem;
	s->dropped_resolve = m->dropped_resolve;
	s->late_resolves = m->late_resolves;
	s->dropped_events = m->dropped_events;
	s->log_buffer = bs->info.log_buffer;
	for (i = 0; i < 6; i++)
		s->mem_bytes += map_memlock(bs->fd[i]);
	if (s->log_buffer)
		s->mem_bytes += log_memlock(bs->id);
	s->proc_row_bytes = sizeof(uint64_t) + sizeof(struct stb_proc);
	s->site_row_bytes = sizeof(struct stb_site_key) + sizeof(struct stb_site);
	s->backend = ST_BACKEND_BPF;
}

static int session_fill(uint32_t id, struct st_session_row *out, struct st_err *err)
{
	struct bpf_session bs;
	struct stb_proc *procs;
	size_t n;
	int ret;

	ret = session_open(id, &bs, err);
	if (ret)
		return ret;
	ret = read_procs(&bs, &procs, &n);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "read process rows", NULL);
	} else {
		session_row(&bs, procs, n, out);
		free(procs);
	}
	session_close(&bs);
	return ret;
}

static int ids_error(struct st_err *err, int ret)
{
	if (ret == -EACCES || ret == -EPERM)
		return perm_error(err, -ret, "read " PIN_ROOT);
	st_err_set(err, ST_ERR_LOCAL, -ret, "read " PIN_ROOT, NULL);
	return ret;
}

static int bpf_be_status(void *priv, struct st_status *st, struct st_err *err)
{
	struct st_session_row row;
	uint32_t *ids;
	size_t i, n;
	int ret;

	(void)priv;
	memset(st, 0, sizeof(*st));
	snprintf(st->version, sizeof(st->version), "bpf (libbpf %s)", libbpf_version_string());
	st->abi_version = SYSTRACE_ABI_VERSION;
	st->params.max_procs = max_procs();
	st->params.max_sites = max_sites();
	ret = session_ids(&ids, &n);
	if (ret)
		return ids_error(err, ret);
	for (i = 0; i < n; i++)
		if (!session_fill(ids[i], &row, err))
			st->mem_bytes += row.mem_bytes;
	free(ids);
	st->sessions_live = (uint32_t)n;
	st->probes_active = n > 0;
	return 0;
}

/* The id of a BPF session that traces @pid already, or 0. */
static uint32_t traced_by(uint32_t pid)
{
	struct stb_task t;
	struct st_err ignored;
	uint32_t *ids, found = 0;
	size_t i, n;
	int pidfd, fd;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return 0;
	if (session_ids(&ids, &n)) {
		close(pidfd);
		return 0;
	}
	for (i = 0; i < n && !found; i++) {
		fd = open_map(ids[i], "tasks", &ignored);
		if (fd < 0)
			continue;
		if (!bpf_map_lookup_elem(fd, &pidfd, &t) &&
		    (t.state == STB_TASK_PENDING || t.state == STB_TASK_ACTIVE))
			found = ids[i];
		close(fd);
	}
	free(ids);
	close(pidfd);
	return found;
}

/*
 * Whether a log of @bytes per CPU may be made, as the module decides: in
 * range, and its rings over all possible CPUs at most half of max_mem.
 */
static int log_check(uint32_t bytes, struct st_err *err)
{
	uint64_t max_mem = param_u64("SYSTRACE_MAX_MEM", "max_mem", DEF_MAX_MEM);
	int ncpus = libbpf_num_possible_cpus();

	if (bytes < SYSTRACE_LOG_BUFFER_MIN || bytes > SYSTRACE_LOG_BUFFER_MAX) {
		st_err_set(err, ST_ERR_KERNEL, ERANGE, "log buffer",
			   "log buffer out of range (4 KiB to 256 MiB per CPU)");
		return -ERANGE;
	}
	if (ncpus > 0 && (uint64_t)log_ring_bytes(bytes) * (uint64_t)ncpus > max_mem / 2) {
		st_err_set(err, ST_ERR_KERNEL, ENOMEM, "log buffer",
			   "log buffer times CPUs over half of max_mem");
		return -ENOMEM;
	}
	return 0;
}

static int bpf_be_session_new(void *priv, const struct st_session_req *req,
			      struct st_session_row *out, struct st_err *err)
{
	struct stb_info info = { 0 };
	uint32_t id;
	int ret;

	(void)priv;
	if (!(req->flags & SYSTRACE_SESSION_F_ON_EXEC)) {
		st_err_set(err, ST_ERR_KERNEL, EOPNOTSUPP, "attach",
			   "the bpf backend cannot attach to a running process (use the module)");
		return -EOPNOTSUPP;
	}
	if (!bpf_caps())
		return perm_error(err, EPERM, "bpf");
	if (req->log_buffer) {
		ret = log_check(req->log_buffer, err);
		if (ret)
			return ret;
	}
	ret = bpffs_ensure(err);
	if (ret)
		return ret;
	id = traced_by(req->pid);
	if (id) {
		st_err_set(err, ST_ERR_KERNEL, EBUSY, "SESSION_NEW",
			   "bpf: the process is already traced by a session (%" PRIu32 ")", id);
		return -EBUSY;
	}
	ret = session_dir_new(&id, err);
	if (ret)
		return ret;
	info.root_pid = req->pid;
	info.flags = req->flags;
	info.counters = req->counters;
	if (req->name)
		snprintf(info.name, sizeof(info.name), "%s", req->name);
	info.created_ns = clock_ns(CLOCK_MONOTONIC);
	info.realtime_base_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	info.max_procs = max_procs();
	info.max_sites = max_sites();
	info.log_buffer = req->log_buffer;
	ret = session_load(id, req, &info, err);
	if (ret) {
		unpin_all(id);
		return ret;
	}
	return session_fill(id, out, err);
}

static int bpf_be_session_del(void *priv, uint32_t id, struct st_err *err)
{
	char path[PATH_MAX];
	int ret;

	(void)priv;
	pin_path(path, sizeof(path), id, NULL);
	if (access(path, F_OK)) {
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no session with that id (%" PRIu32 "; see: systracectl list)", id);
		return -ENOENT;
	}
	ret = unpin_all(id);
	if (ret) {
		if (ret == -EPERM || ret == -EACCES)
			return perm_error(err, -ret, "unpin");
		st_err_set(err, ST_ERR_LOCAL, -ret, "rmdir", "%s", path);
	}
	return ret;
}

static int bpf_be_session_detach(void *priv, uint32_t id, struct st_err *err)
{
	(void)priv;
	(void)id;
	st_err_set(err, ST_ERR_KERNEL, EOPNOTSUPP, "detach",
		   "the bpf backend cannot detach a session (reset deletes it)");
	return -EOPNOTSUPP;
}

static int bpf_be_session_get(void *priv, uint32_t id, struct st_session_row *out,
			      struct st_err *err)
{
	(void)priv;
	return session_fill(id, out, err);
}

static int bpf_be_session_list(void *priv, struct st_session_row **out, size_t *n,
			       bool *interrupted, struct st_err *err)
{
	struct st_session_row *rows;
	uint32_t *ids;
	size_t i, cnt;
	int ret;

	(void)priv;
	*out = NULL;
	*n = 0;
	if (interrupted)
		*interrupted = false;
	ret = session_ids(&ids, &cnt);
	if (ret)
		return ids_error(err, ret);
	rows = calloc(cnt ? cnt : 1, sizeof(*rows));
	if (!rows) {
		free(ids);
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "list", NULL);
		return -ENOMEM;
	}
	for (i = 0; i < cnt; i++) {
		/* A session deleted meanwhile is not listed. */
		if (session_fill(ids[i], &rows[*n], err) == 0)
			(*n)++;
		else if (err->kind != ST_ERR_NOSESSION) {
			free(ids);
			free(rows);
			*n = 0;
			return -err->err;
		}
	}
	free(ids);
	*out = rows;
	return 0;
}

/* The file's path, valid until the next call; NULL when unknown. */
static const char *file_path(int fd, const struct stb_file_key *key)
{
	static struct stb_file f;

	if (bpf_map_lookup_elem(fd, key, &f) || f.off >= STB_PATH_MAX)
		return NULL;
	f.buf[STB_PATH_MAX - 1] = '\0';
	return f.buf + f.off;
}

static void proc_row(const struct stb_proc *p, int files_fd, struct st_proc_row *r)
{
	const char *path;

	memset(r, 0, sizeof(*r));
	r->id = p->id;
	r->parent_id = p->parent_id;
	r->prev_id = p->prev_id;
	r->pid = p->pid;
	r->tgid = p->tgid;
	r->ppid = p->ppid;
	memcpy(r->comm, p->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
	path = p->has_exe ? file_path(files_fd, &p->exe) : NULL;
	r->exe = path ? strdup(path) : NULL;
	r->start_ns = p->start_ns;
	r->end = p->end;
	r->has_end_ns = p->end != SYSTRACE_END_RUNNING;
	r->end_ns = p->end_ns;
	r->has_exit_code = p->end == SYSTRACE_END_EXITED;
	r->exit_code = p->exit_code;
	r->has_exit_signal = p->end == SYSTRACE_END_SIGNALED;
	r->exit_signal = p->exit_signal;
	r->core_dumped = p->core_dumped;
	r->threads = p->threads;
	r->syscalls = p->syscalls;
	r->errors = p->errors;
	r->syscall_ns = p->syscall_ns;
	r->sites = p->sites;
	r->user_ns = p->user_ns;
	r->sys_ns = p->sys_ns;
	r->nvcsw = p->nvcsw;
	r->nivcsw = p->nivcsw;
	r->minflt = p->minflt;
	r->majflt = p->majflt;
}

/* The kernel's dev_t (major << 20 | minor) as stat(2) gives it, as the module reports it. */
static uint32_t dev_encode(uint32_t kdev)
{
	uint32_t major = kdev >> 20, minor = kdev & 0xfffff;

	return (minor & 0xff) | (major << 8) | ((minor & ~0xffU) << 12);
}

/*
 * The sites of one file share its path: a few pooled paths kept by file
 * key spare most sites a map lookup and a copy of the path's 4 KiB buffer.
 */
#define PATH_CACHE 256

struct path_cache {
	struct stb_file_key key;
	const char *path;		/* pooled in the dump; NULL: empty */
};

static int site_path(int files_fd, struct st_dump *d, struct path_cache *pc,
		     const struct stb_file_key *key, const char **out)
{
	uint64_t h = (key->ino ^ (uint64_t)key->dev << 40) * 0x9e3779b97f4a7c15ULL;
	struct path_cache *c = &pc[h >> 56];
	int ret;

	if (c->path && c->key.ino == key->ino && c->key.dev == key->dev) {
		*out = c->path;
		return 0;
	}
	ret = st_dump_str(d, file_path(files_fd, key), out);
	if (!ret && *out) {
		c->key = *key;
		c->path = *out;
	}
	return ret;
}

static int read_sites(struct bpf_session *bs, struct st_dump *d)
{
	struct path_cache paths[PATH_CACHE] = { 0 };
	struct stb_site_key key, next;
	struct st_site_row *more, *r;
	struct stb_site v;
	size_t cap = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(bs->fd[M_SITES], prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(bs->fd[M_SITES], &key, &v))
			continue;
		if (d->nsites == cap) {
			cap = cap ? 2 * cap : 256;
			more = realloc(d->sites, cap * sizeof(*more));
			if (!more)
				return -ENOMEM;
			d->sites = more;
		}
		r = &d->sites[d->nsites++];
		memset(r, 0, sizeof(*r));
		r->proc_id = key.proc_id;
		r->addr = key.addr;
		r->nr = key.nr;
		r->abi = key.abi;
		r->map = v.map;
		if (v.map == SYSTRACE_MAP_FILE && v.has_path &&
		    site_path(bs->fd[M_FILES], d, paths, &v.file, &r->path))
			return -ENOMEM;
		r->offset = v.offset;
		r->has_file_id = v.has_file_id;
		r->inode = v.file.ino;
		r->dev = dev_encode(v.file.dev);
		r->mtime_ns = v.mtime_ns;
		r->calls = v.calls;
		r->errors = v.errors;
		r->total_ns = v.total_ns;
		r->min_ns = v.calls ? v.min_ns : 0;
		r->max_ns = v.max_ns;
		r->first_ns = v.first_ns;
		r->first_ordinal = v.first_ordinal;
	}
	return 0;
}

static int bpf_be_dump(void *priv, uint32_t id, struct st_dump *d, struct st_err *err)
{
	struct bpf_session bs;
	struct stb_proc *procs;
	size_t i, n;
	int ret;

	(void)priv;
	memset(d, 0, sizeof(*d));
	ret = session_open(id, &bs, err);
	if (ret)
		return ret;
	ret = read_procs(&bs, &procs, &n);
	if (ret)
		goto fail;
	session_row(&bs, procs, n, &d->session);
	d->procs = calloc(n ? n : 1, sizeof(*d->procs));
	if (!d->procs) {
		free(procs);
		ret = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++)
		proc_row(&procs[i], bs.fd[M_FILES], &d->procs[i]);
	d->nprocs = n;
	free(procs);
	ret = read_sites(&bs, d);
	if (ret)
		goto fail;
	session_close(&bs);
	return 0;
fail:
	st_err_set(err, ST_ERR_LOCAL, -ret, "read session", "%" PRIu32, id);
	session_close(&bs);
	st_dump_free(d);
	return ret;
}

struct log_drain {
	struct st_log *log;
	size_t n;
	size_t left;		/* records this ring may still give */
	int err;
};

/* One record of a ring: a syscall event, as the module's LOG_READ gives it. */
static int log_event(void *ctx, void *data, size_t size)
{
	struct log_drain *ld = ctx;
	const struct stb_log_rec *r = data;
	struct st_event ev = { .kind = ST_EV_SYSCALL };

	if (size < sizeof(*r))
		return 0;
	ev.ts_ns = r->ts_ns;
	ev.dur_ns = r->dur_ns;
	ev.proc_id = r->proc_id;
	ev.seq = r->seq;
	ev.addr = r->addr;
	ev.ret = r->ret;
	ev.pid = r->tgid;
	ev.tid = r->tid;
	ev.nr = r->nr;
	ev.abi = r->abi;
	if (st_log_push(ld->log, &ev)) {
		ld->err = -ENOMEM;
		return -ENOMEM;
	}
	ld->n++;
	/* A stop, not an error: the ring's capacity is read at most. */
	return --ld->left ? 0 : -ENOSPC;
}

/*
 * Reads the records of ring @fd (pinned at @path), then closes it: at
 * most as many as it holds, so that a drain ends however fast the
 * programs write. The ring keeps its consumer position, so a later reader
 * goes on from there.
 */
static int log_ring_drain(int fd, const char *path, struct log_drain *ld,
			  struct st_err *err)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	struct ring_buffer *rb;
	int ret;

	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (ret) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "log ring", "%s", path);
		close(fd);
		return ret;
	}
	ld->left = info.max_entries / LOG_REC_BYTES;
	rb = ring_buffer__new(fd, log_event, ld, NULL);
	if (!rb) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "log ring", "%s", path);
		close(fd);
		return ret;
	}
	ret = ring_buffer__consume(rb);
	ring_buffer__free(rb);
	close(fd);
	if (ld->err) {
		st_err_set(err, ST_ERR_LOCAL, -ld->err, "log", NULL);
		return ld->err;
	}
	if (ret < 0 && ret != -ENOSPC) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "log ring", "%s", path);
		return ret;
	}
	return 0;
}

static int bpf_be_log_read(void *priv, uint32_t id, struct st_log *log, size_t *n,
			   struct st_err *err)
{
	struct log_drain ld = { .log = log };
	struct stb_info info;
	char path[PATH_MAX];
	uint32_t zero = 0;
	int cpu, fd, ret;

	(void)priv;
	*n = 0;
	fd = open_map(id, "info", err);
	if (fd < 0)
		return fd;
	ret = bpf_map_lookup_elem(fd, &zero, &info) ? -errno : 0;
	close(fd);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "bpf map lookup", "session %" PRIu32, id);
		return ret;
	}
	if (!info.log_buffer) {
		st_err_set(err, ST_ERR_KERNEL, ENOENT, "log",
			   "session %" PRIu32 " keeps no log", id);
		return -ENOENT;
	}
	/* log0, log1, ...: one ring per possible CPU. */
	for (cpu = 0;; cpu++) {
		log_pin_path(path, sizeof(path), id, cpu);
		fd = bpf_obj_get(path);
		if (fd < 0 && errno == ENOENT && cpu > 0) {
			ret = 0;
			break;
		}
		if (fd < 0) {
			ret = -errno;
			if (ret == -ENOENT)
				st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
					   "no session with that id (%" PRIu32 "; see: systracectl list)",
					   id);
			else if (ret == -EPERM || ret == -EACCES)
				perm_error(err, -ret, "open pinned log");
			else
				st_err_set(err, ST_ERR_LOCAL, -ret, "open", "%s", path);
			break;
		}
		ret = log_ring_drain(fd, path, &ld, err);
		if (ret)
			break;
	}
	*n = ld.n;
	return ret;
}

/* Whether BPF sessions may exist: one is pinned, or their folder is hidden from us. */
bool st_backend_bpf_sessions(void)
{
	uint32_t *ids;
	size_t n;
	int ret;

	ret = session_ids(&ids, &n);
	if (ret)
		return ret == -EACCES || ret == -EPERM;
	free(ids);
	return n > 0;
}

const struct st_backend_ops st_backend_bpf = {
	.open = bpf_be_open,
	.close = bpf_be_close,
	.status = bpf_be_status,
	.session_new = bpf_be_session_new,
	.session_del = bpf_be_session_del,
	.session_detach = bpf_be_session_detach,
	.session_get = bpf_be_session_get,
	.session_list = bpf_be_session_list,
	.dump = bpf_be_dump,
	.log_read = bpf_be_log_read,
};
