// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's one set of programs (bpf_session.h): loading them
 * against the pin tree's maps, the links that attach them (made, or those
 * a keeper holds taken by id), the runs the kernel skipped, and the task
 * iterator that attaches and detaches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
	bpf_map__set_autocreate(skel->maps.st_attach_rows, !!(mask & ST_BPF_PROG_ITER));
	bpf_map__set_autocreate(skel->maps.st_scratch, !!(mask & ~(1U << STB_LINK_SWITCH)));
	shared[ST_M_TASKS] = skel->maps.st_tasks;
	shared[ST_M_SESSIONS] = skel->maps.st_sessions;
	shared[ST_M_PROCS] = skel->maps.st_procs;
	shared[ST_M_SITES] = skel->maps.st_sites;
	shared[ST_M_FILES] = skel->maps.st_files;
	shared[ST_M_LOGS] = skel->maps.st_logs;
	shared[ST_M_NOTIFY] = skel->maps.st_notify;
	shared[ST_M_COUNTERS] = skel->maps.st_counters;
	shared[ST_M_ARGV] = skel->maps.st_argv;
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
		bpf_refused(err, ret, mask & ST_BPF_PROG_ITER ? "st_attach" : "set");
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
int st_bpf_links_hold(struct st_tree *t, unsigned int mask, int fds[STB_NLINKS],
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
	ret = st_bpf_progs_load(t, missing, &skel, err);
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

