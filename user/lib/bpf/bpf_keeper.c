// SPDX-License-Identifier: GPL-2.0
/*
 * The keepers (bpf_session.h): a small process per running session that
 * holds the only references to the programs' links and to the session's
 * perf events, so that the kernel detaches the programs when no session
 * has a live traced task. It holds a lock in keep/ while it lives, and
 * exits when its session's last task is gone (told by the session's ring
 * in `notify`), when the session is detached or deleted (inotify on
 * keep/), or when killed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/bpf_session.h"

/* A keeper looks at its session this often even with no event. */
#define KEEPER_TICK_MS	5000

/* Field @n (from 1) of /proc/@pid/stat, after the comm; 0 when unknown. */
uint64_t st_proc_stat_field(pid_t pid, int n)
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

void st_bpf_keep_remove(const struct st_tree *t, uint64_t sid)
{
	char name[64];

	keep_name(sid, name, sizeof(name));
	unlinkat(t->dir, name, AT_REMOVEDIR);
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
	if (st_proc_stat_field((pid_t)k->pid, 22) == k->start)
		while (poll(&pfd, 1, 5000) < 0 && errno == EINTR)
			;
	close(pfd.fd);
}

/* --- the keeper ------------------------------------------------------------- */

static int notify_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/*
 * Cuts the finished session's maps; with the tree's lock, from a fresh
 * open of its own directory (the creator's open file may still be locked),
 * never of the path: root may have removed the tree and a start made
 * another since. The session at its slot must still be the keeper's token's.
 */
static void keeper_finish(struct st_keeper *k, const struct stb_sess *own)
{
	struct st_cut c = { .fd = { -1, -1, -1, -1 } };
	struct stb_sess *s = NULL;
	struct st_tree t;
	struct st_err err;
	bool exists = false, cut = false;
	int i;

	if (!st_tree_open_held(&t, k->tree, false, &exists, &err) && exists &&
	    memcmp(t.sess[k->slot].token, own->token, sizeof(own->token))) {
		st_tree_close(&t);
		exists = false;
	}
	if (exists && !st_tree_lock(&t, LOCK_EX, &err)) {
		s = &t.sess[k->slot];
		/* Its share of the skipped runs: read while the programs are still held. */
		if (s->sid == k->sid)
			st_bpf_misses_close(&t, s);
		st_tree_lock(&t, LOCK_UN, &err);
	}
	/* Nothing is left to follow: the programs come off before the cut. */
	for (i = 0; i < STB_NLINKS; i++)
		if (k->links[i] >= 0)
			close(k->links[i]);
	if (k->counters >= 0)
		close(k->counters);
	if (!s)
		goto out;
	/* The copy, which takes long for a big session, holds no lock. */
	if (s->sid == k->sid && !s->compacted)
		cut = !st_bpf_cut_prepare(&t, k->slot, &c, &err);
	if (!st_tree_lock(&t, LOCK_EX, &err)) {
		if (cut && s->sid == k->sid && s->state == STB_SESS_LIVE && s->m.live_tasks <= 0 &&
		    !s->compacted)
			st_bpf_cut_commit(&t, k->slot, &c, &err);
		st_bpf_keep_remove(&t, k->sid);
		st_tree_lock(&t, LOCK_UN, &err);
		/* Ahead of the next start: its maps, made while no one waits on them. */
		st_bpf_spares_make(&t);
	}
	st_bpf_cut_free(&c);
out:
	if (exists)
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
static void __attribute__((noreturn)) keeper_run(struct st_keeper *k, struct stb_sess *s,
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
			keeper_finish(k, s);
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
int st_bpf_keeper_spawn(struct st_tree *t, struct st_keeper *k, struct st_err *err)
{
	struct stb_sess *s = &t->sess[k->slot];
	int ready[2], keepdir, tree, fd, status, i, keep[STB_NLINKS + 7], nkeep = 0;
	char name[64], path[64], c;
	pid_t pid;

	keep_name(k->sid, name, sizeof(name));
	i = st_tree_mkdir(t, name);
	if (i)
		return st_bpf_errno(err, -i, "mkdir", name);
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
		s->keeper_start = st_proc_stat_field(getpid(), 22);
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
int st_bpf_counters_open(struct stb_sess *s, struct st_err *err)
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

