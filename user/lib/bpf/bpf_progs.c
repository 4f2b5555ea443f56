// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's one set of programs (bpf_session.h): loading them
 * against the pin tree's maps, the links that attach them (made, or those
 * a keeper holds taken by id), the runs the kernel skipped, and the task
 * iterator that attaches and detaches.
 *
 * The programs a link runs stay loaded between sessions, pinned in the
 * tree as "prog-DIGEST-NAME" (ST_BPF_PROG_PIN; bpffs refuses dots): DIGEST is this build's
 * object file, so a start finds them, checks them and only attaches. A
 * program no link holds runs nowhere: it costs untraced tasks nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/bpf_session.h"
#include "systrace.skel.h"

static const char *const link_prog[STB_NLINKS] = {
	[STB_LINK_SYS_ENTER] = "st_sys_enter",
	[STB_LINK_SYS_EXIT] = "st_sys_exit",
	[STB_LINK_FORK] = "st_fork",
	[STB_LINK_EXEC] = "st_exec",
	[STB_LINK_EXIT] = "st_exit",
	[STB_LINK_SWITCH] = "st_switch",
};

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
 * The programs of @mask (a bit per STB_LINK_*, ST_BPF_PROG_ITER for the
 * iterator), loaded against the tree's maps.
 */
int st_bpf_progs_load(const struct st_tree *t, unsigned int mask, struct systrace_bpf **out,
		      struct st_err *err)
{
	struct bpf_program *progs[STB_NLINKS + 2];
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
	progs[STB_NLINKS + 1] = skel->progs.st_pidns;
	for (i = 0; i <= STB_NLINKS + 1; i++)
		bpf_program__set_autoload(progs[i], !!(mask & (1U << i)));
	bpf_map__set_autocreate(skel->maps.st_attach_rows, !!(mask & ST_BPF_PROG_ITER));
	bpf_map__set_autocreate(skel->maps.st_scratch,
				!!(mask & ~((1U << STB_LINK_SWITCH) | ST_BPF_PROG_PIDNS)));
	shared[ST_M_TASKS] = skel->maps.st_tasks;
	shared[ST_M_SESSIONS] = skel->maps.st_sessions;
	shared[ST_M_PROCS] = skel->maps.st_procs;
	shared[ST_M_SITES] = skel->maps.st_sites;
	shared[ST_M_FILES] = skel->maps.st_files;
	shared[ST_M_LOGS] = skel->maps.st_logs;
	shared[ST_M_NOTIFY] = skel->maps.st_notify;
	shared[ST_M_COUNTERS] = skel->maps.st_counters;
	shared[ST_M_ARGV] = skel->maps.st_argv;
	shared[ST_M_PATHS] = skel->maps.st_paths;
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
		bpf_refused(err, ret, mask & ST_BPF_PROG_ITER ? "st_attach" :
				      mask & ST_BPF_PROG_PIDNS ? "st_pidns" : "set");
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

/* --- the pinned set ---------------------------------------------------------- */

/* FNV-1a over the object file the programs come from: which build pinned them. */
static uint64_t set_digest(void)
{
	static uint64_t digest;
	const unsigned char *b;
	size_t n, i;

	if (digest)
		return digest;
	b = systrace_bpf__elf_bytes(&n);
	digest = 0xcbf29ce484222325ULL;
	for (i = 0; i < n; i++)
		digest = (digest ^ b[i]) * 0x100000001b3ULL;
	return digest;
}

static void prog_pin_name(int k, char *buf, size_t len)
{
	snprintf(buf, len, ST_BPF_PROG_PIN "%016llx-%s", (unsigned long long)set_digest(),
		 link_prog[k]);
}

/* Whether @pfd runs our program for STB_LINK_* @k on this tree's maps. */
static bool prog_ours(const struct st_tree *t, int pfd, int k)
{
	struct bpf_prog_info prog = { 0 };
	uint32_t len = sizeof(prog), ids[16], i;

	if (!st_bpf_fd_is(pfd, "bpf-prog"))
		return false;
	prog.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	prog.map_ids = (uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(pfd, &prog, &len) || prog.type != BPF_PROG_TYPE_TRACING ||
	    strcmp(prog.name, link_prog[k]))
		return false;
	for (i = 0; i < prog.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i] == t->tasks_id)
			return true;
	return false;
}

/* This build's pinned program for @k, checked (a file of root's, our program); -1 if none. */
static int prog_pinned(const struct st_tree *t, int k)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct stat st;
	int fd;

	prog_pin_name(k, name, sizeof(name));
	if (fstatat(t->dir, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    st.st_uid != 0)
		return -1;
	st_tree_path(t, name, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) || !prog_ours(t, fd, k)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Pins the program just loaded for @k in place of whatever had its name;
 * on the first pin of a start, lets go of the pins an other build left.
 * A pin that fails costs the next start a load, nothing more.
 */
static void prog_pin(struct st_tree *t, int fd, int k, bool sweep)
{
	char name[NAME_MAX + 1], mine[NAME_MAX + 1];
	struct dirent *de;
	DIR *d;
	int dfd;

	if (sweep) {
		snprintf(mine, sizeof(mine), ST_BPF_PROG_PIN "%016llx-",
			 (unsigned long long)set_digest());
		dfd = openat(t->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!d && dfd >= 0)
			close(dfd);
		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, ST_BPF_PROG_PIN, strlen(ST_BPF_PROG_PIN)) &&
			    strncmp(de->d_name, mine, strlen(mine)))
				unlinkat(t->dir, de->d_name, 0);
		if (d)
			closedir(d);
	}
	prog_pin_name(k, name, sizeof(name));
	if (unlinkat(t->dir, name, 0) && errno != ENOENT)
		return;
	st_tree_pin(t, fd, name);
}

/* A link of the pinned program @pfd for @k; -errno. */
static int prog_attach(int pfd)
{
	int fd;

	fd = bpf_link_create(pfd, 0, BPF_TRACE_RAW_TP, NULL);
	if (fd < 0)
		fd = bpf_raw_tracepoint_open(NULL, pfd);
	if (fd < 0)
		return -errno;
	if (fd < 3 || fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);

		close(fd);
		fd = dup < 0 ? -errno : dup;
	}
	return fd;
}

/* Under LOCK_EX: a link for each pinned program of @missing; the links made leave @missing. */
static int links_from_pins(struct st_tree *t, unsigned int *missing, int fds[STB_NLINKS],
			   struct st_err *err)
{
	struct bpf_link_info info;
	uint32_t len;
	int k, pfd;

	for (k = 0; k < STB_NLINKS; k++) {
		if (!(*missing & (1U << k)))
			continue;
		pfd = prog_pinned(t, k);
		if (pfd < 0)
			continue;
		fds[k] = prog_attach(pfd);
		close(pfd);
		if (fds[k] < 0) {
			fds[k] = -1;
			continue;
		}
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fds[k], &info, &len))
			return st_bpf_errno(err, errno, "BPF link", link_prog[k]);
		t->host.link_id[k] = info.id;
		*missing &= ~(1U << k);
	}
	return 0;
}

/*
 * Under LOCK_EX: fds of the links of @mask, holding them attached. The
 * links some keeper holds are taken by id; the others are made, from the
 * pinned programs when this build pinned them, else loaded (and pinned)
 * now, and their ids written to the host entry. A link is never pinned:
 * it lives while an fd holds it.
 */
int st_bpf_links_hold(struct st_tree *t, unsigned int mask, int fds[STB_NLINKS],
		      struct st_err *err)
{
	struct bpf_link_info info = { 0 };
	struct systrace_bpf *skel;
	unsigned int missing = 0;
	struct bpf_link *link;
	uint32_t len;
	int k, fd, ret, pinned = 0;

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
	ret = links_from_pins(t, &missing, fds, err);
	if (ret)
		goto fail;
	if (!missing)
		goto write;
	ret = st_bpf_progs_load(t, missing, &skel, err);
	if (ret)
		goto fail;
	for (k = 0; k < STB_NLINKS; k++) {
		if (!(missing & (1U << k)))
			continue;
		prog_pin(t, bpf_program__fd(skel_prog(skel, k)), k, !pinned++);
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
write:
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
void st_bpf_misses_close(const struct st_tree *t, struct stb_sess *s)
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
int st_bpf_job_run(struct systrace_bpf *skel, struct stb_job *job, struct st_err *err)
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


/* --- the caller's pid namespace ---------------------------------------------- */

int st_bpf_pidns_self(const struct st_tree *t, uint32_t *level, uint32_t *inum,
		      struct st_err *err)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct systrace_bpf *skel;
	struct stb_pidns ns;
	int ret;

	ret = st_bpf_progs_load(t, ST_BPF_PROG_PIDNS, &skel, err);
	if (ret)
		return ret;
	ret = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.st_pidns), &opts);
	ns = skel->bss->self_pidns;
	systrace_bpf__destroy(skel);
	if (ret) {
		st_err_set(err, ST_ERR_KERNEL, errno, "BPF test run", "st_pidns");
		return -errno;
	}
	if (ns.pid != (uint32_t)getpid()) {
		st_err_set(err, ST_ERR_KERNEL, EIO, "st_pidns",
			   "the kernel gave pid %u in this pid namespace, not %d", ns.pid,
			   (int)getpid());
		return -EIO;
	}
	*level = ns.level;
	*inum = ns.inum;
	return 0;
}
