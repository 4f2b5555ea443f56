// SPDX-License-Identifier: GPL-2.0
/*
 * fusestall DIR K [W]: a process that holds its own mmap lock for as long
 * as a FUSE server it depends on stays silent.
 *
 * The server (this process) mounts a FUSE file system on DIR, with one
 * 4096-byte file, DIR/f, and answers every request but READ, which it
 * never answers. Its child, the target, maps DIR/f and:
 *   - thread A reads the mapped page through /proc/self/mem: the page
 *     fault happens under the target's mmap lock (a remote access cannot
 *     drop it to retry) and waits for the READ, so A holds the lock;
 *   - once the server has the READ, thread B calls mmap(), which queues
 *     for the lock as a writer: from then on every new reader of the
 *     target's mmap lock waits too, killably or not;
 *   - once B waits (state D), the target writes "held SERVER TARGET\n" to
 *     stdout, where SERVER and TARGET are the two pids;
 *   - with W, its main thread then makes W getppid() at worker_site, a
 *     site it had not called before, and writes "worked\n": all while the
 *     lock is held, and with no page fault of its own.
 * Killing the server aborts the FUSE connection: A's read fails, B's mmap
 * completes, and the target's main thread, which joined both, makes K
 * getppid() at stall_site and exits 5 (2 on an error of its own). The
 * server's status is its own: 0 when its device is gone, 2 on an error.
 *
 * Kill the server before the target: a FUSE request that the server has
 * read waits uninterruptibly for its answer once its task is killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "site.h"

SITE(stall_site)
SITE(worker_site)

#define FILE_INO	2
#define FILE_SIZE	4096

static int notify[2];		/* server -> target: the READ has come */
static int go[2];		/* target's main thread -> B: call mmap() */
static char *page;		/* the target's mapping of DIR/f */
static volatile pid_t a_tid, b_tid;

static void die(const char *what)
{
	fprintf(stderr, "fusestall: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* --- the server ------------------------------------------------------ */

static int reply(int fd, uint64_t unique, int error, const void *arg,
		 size_t len)
{
	struct fuse_out_header h = {
		.len = sizeof(h) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &h, sizeof(h) },
		{ (void *)arg, error ? 0 : len },
	};

	return writev(fd, iov, 2) < 0 && errno != ENOENT ? -1 : 0;
}

static void fill_attr(uint64_t ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0444;
	a->size = ino == FUSE_ROOT_ID ? 0 : FILE_SIZE;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

static int answer(int fd, const struct fuse_in_header *in, const void *arg)
{
	union {
		struct fuse_init_out init;
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
	} out;
	const struct fuse_init_in *init = arg;

	memset(&out, 0, sizeof(out));
	switch (in->opcode) {
	case FUSE_INIT:
		out.init.major = FUSE_KERNEL_VERSION;
		out.init.minor = init->minor < FUSE_KERNEL_MINOR_VERSION ?
				 init->minor : FUSE_KERNEL_MINOR_VERSION;
		out.init.max_readahead = init->max_readahead;
		out.init.max_write = 4096;
		return reply(fd, in->unique, 0, &out.init, sizeof(out.init));
	case FUSE_LOOKUP:
		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f"))
			return reply(fd, in->unique, -ENOENT, NULL, 0);
		out.entry.nodeid = FILE_INO;
		out.entry.entry_valid = 3600;
		out.entry.attr_valid = 3600;
		fill_attr(FILE_INO, &out.entry.attr);
		return reply(fd, in->unique, 0, &out.entry, sizeof(out.entry));
	case FUSE_GETATTR:
		out.attr.attr_valid = 3600;
		fill_attr(in->nodeid, &out.attr.attr);
		return reply(fd, in->unique, 0, &out.attr, sizeof(out.attr));
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		out.open.fh = 1;
		return reply(fd, in->unique, 0, &out.open, sizeof(out.open));
	case FUSE_READ:
		/* Never answered: tell the target, once. */
		if (notify[1] >= 0) {
			if (write(notify[1], "r", 1) != 1)
				return -1;
			close(notify[1]);
			notify[1] = -1;
		}
		return 0;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		return reply(fd, in->unique, 0, NULL, 0);
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return 0;
	default:
		return reply(fd, in->unique, -ENOSYS, NULL, 0);
	}
}

static int serve(int fd)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	const struct fuse_in_header *in = (const void *)buf;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < 0 && errno == ENODEV)	/* unmounted */
			return 0;
		if (n < (ssize_t)sizeof(*in))
			die("read /dev/fuse");
		buf[n] = '\0';
		if (answer(fd, in, in + 1))
			die("write /dev/fuse");
	}
}

/* --- the target ------------------------------------------------------ */

static void *read_own_page(void *arg)
{
	char c;
	int fd;

	(void)arg;
	a_tid = (pid_t)syscall(SYS_gettid);
	fd = open("/proc/self/mem", O_RDONLY);
	if (fd < 0)
		die("open /proc/self/mem");
	/* Fails once the server is gone; until then, holds the lock. */
	if (pread(fd, &c, 1, (off_t)(unsigned long)page) == 1)
		_exit(2);
	close(fd);
	return NULL;
}

static void *map_more(void *arg)
{
	void *m;
	char c;

	(void)arg;
	b_tid = (pid_t)syscall(SYS_gettid);
	if (read(go[0], &c, 1) != 1)
		_exit(2);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(2);
	munmap(m, 4096);
	return NULL;
}

/* Has thread @tid of this process started to wait in the kernel (D)? */
static int waits_in_d(pid_t tid)
{
	char path[64], st[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, st, sizeof(st) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	st[n] = '\0';
	p = strrchr(st, ')');
	return p && p[1] == ' ' && p[2] == 'D';
}

/*
 * Once A holds the lock, nothing here may map memory: B's stack and the
 * buffer of stdout are made before, and "held" goes out by write().
 */
static int target(const char *dir, long k, long w)
{
	char path[4096], line[64], c;
	pthread_t a, b;
	long i;
	int fd, n;

	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open DIR/f");
	if (pipe(go) || pthread_create(&b, NULL, map_more, NULL))
		return 2;
	while (!b_tid)
		usleep(1000);
	/*
	 * A page fault needs the mmap lock too: once B queues for it, a first
	 * touch of a libc page or of the stack by this thread waits behind B
	 * for good, and "held" never comes (seen in a 6.1 guest: this thread
	 * in lock_mm_and_find_vma under a fault). Every page mapped so far is
	 * made present now (before DIR/f is mapped: its page must stay out),
	 * and the calls made below run once first. Without the right to lock
	 * memory, the warm-up alone remains.
	 */
	mlockall(MCL_CURRENT);
	waits_in_d(b_tid);
	snprintf(line, sizeof(line), "held %d %d\n", (int)getppid(),
		 (int)getpid());
	usleep(1);
	page = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED)
		die("mmap DIR/f");
	if (pthread_create(&a, NULL, read_own_page, NULL))
		return 2;
	if (read(notify[0], &c, 1) != 1)
		die("the server never saw the READ");
	if (write(go[1], "g", 1) != 1)
		return 2;
	while (!waits_in_d(b_tid))
		usleep(10000);
	n = snprintf(line, sizeof(line), "held %d %d\n", (int)getppid(),
		     (int)getpid());
	if (write(1, line, n) != n)
		return 2;
	for (i = 0; i < w; i++)
		worker_site(SYS_getppid, 0, 0, 0);
	if (w && write(1, "worked\n", 7) != 7)
		return 2;
	if (pthread_join(a, NULL) || pthread_join(b, NULL))
		return 2;
	/*
	 * A join returns at the thread's clear_child_tid, before its exit_mm()
	 * takes the mmap lock (and may queue for it behind B's writer): wait
	 * until both are gone from the kernel's tables, so that the calls
	 * below, exit_group's first of all, find the lock free to resolve
	 * their sites at once (it has no later syscall exit to do it late).
	 */
	for (i = 0; i < 10000 && (!syscall(SYS_tgkill, getpid(), a_tid, 0) ||
				  !syscall(SYS_tgkill, getpid(), b_tid, 0)); i++)
		usleep(1000);
	for (i = 0; i < k; i++)
		stall_site(SYS_getppid, 0, 0, 0);
	return 5;
}

int main(int argc, char **argv)
{
	char opts[128];
	pid_t pid;
	int fd;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: fusestall DIR K [W]\n");
		return 2;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/fuse");
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=%d,group_id=%d", fd,
		 (int)getuid(), (int)getgid());
	if (mount("fusestall", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts))
		die("mount");
	if (pipe(notify))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* The server's death must close the last /dev/fuse fd. */
		close(fd);
		close(notify[1]);
		_exit(target(argv[1], atol(argv[2]),
			     argc == 4 ? atol(argv[3]) : 0));
	}
	close(notify[0]);
	return serve(fd);
}
