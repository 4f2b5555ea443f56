// SPDX-License-Identifier: GPL-2.0
/*
 * exitmap DIR K: a thread's first and only exit syscall, made from a file
 * new to the session while a sibling churns the mmap lock.
 *
 * Writes K files DIR/exit.0 .. DIR/exit.K-1 (distinct inodes), each one
 * page holding "mov $60,%eax; xor %edi,%edi; syscall" at CODE_OFF, so the
 * syscall instruction is at file offset EXIT_OFF. A churn thread maps and
 * unmaps anonymous memory in a loop (the mmap lock is often taken for
 * writing). Then, one round per file, in turn: a worker thread maps its
 * file PROT_EXEC and jumps into it, so its first and only exit call has a
 * site in that file; the main thread joins it and waits until
 * /proc/self/task/TID is gone (the exit is complete, any work it handed
 * on is queued in a live thread). At the end the main thread stops the
 * churn thread, joins it and waits for it to be gone the same way, makes
 * one more syscall, and returns: a live thread has returned to user mode
 * after every exit. The mappings stay until exit_group.
 *
 * Prints "exit_site_offset 0x..." (EXIT_OFF) and "rounds K". Exits 0, or
 * 1 on a failure of its own (said on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define CODE_OFF 0x100
#define EXIT_OFF (CODE_OFF + 7)	/* after mov (5 bytes) and xor (2) */

static const unsigned char exit_code[] = {
	0xb8, 0x3c, 0x00, 0x00, 0x00,	/* mov $60, %eax (exit) */
	0x31, 0xff,			/* xor %edi, %edi */
	0x0f, 0x05,			/* syscall */
	0x0f, 0x0b,			/* ud2: never reached */
};

struct round {
	char path[4096];
	volatile pid_t tid;
};

static volatile int stop_churn;
static volatile pid_t churn_tid;

static void die(const char *what)
{
	fprintf(stderr, "exitmap: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *churn(void *arg)
{
	void *p;

	churn_tid = syscall(SYS_gettid);
	while (!stop_churn) {
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("churn: mmap");
		if (munmap(p, PAGE))
			die("churn: munmap");
	}
	return arg;
}

static void *worker(void *arg)
{
	struct round *r = arg;
	void (*code)(void);
	char *map;
	int fd;

	r->tid = syscall(SYS_gettid);
	fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(r->path);
	map = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die("worker: mmap");
	close(fd);
	code = (void (*)(void))(map + CODE_OFF);
	code();		/* exit(0): this thread ends in the file */
	return NULL;
}

/* Waits until thread TID of this process is gone from /proc. */
static void wait_gone(pid_t tid)
{
	const struct timespec ms1 = { 0, 1000000 };
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	for (i = 0; i < 10000; i++) {
		if (access(path, F_OK) && errno == ENOENT)
			return;
		nanosleep(&ms1, NULL);
	}
	fprintf(stderr, "exitmap: thread %d still in /proc after 10 s\n", (int)tid);
	exit(1);
}

static void write_file(const char *path)
{
	unsigned char page[PAGE];
	int fd;

	memset(page, 0xcc, sizeof(page));	/* int3 */
	memcpy(page + CODE_OFF, exit_code, sizeof(exit_code));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		die(path);
	if (write(fd, page, sizeof(page)) != sizeof(page))
		die("write");
	if (close(fd))
		die("close");
}

int main(int argc, char **argv)
{
	const struct timespec ms1 = { 0, 1000000 };
	pthread_t churner, t;
	struct round *rounds;
	long k, i;

	if (argc != 3 || (k = atol(argv[2])) < 1 || k > 10000) {
		fprintf(stderr, "usage: exitmap DIR K (1 <= K <= 10000)\n");
		return 1;
	}
	rounds = calloc(k, sizeof(*rounds));
	if (!rounds)
		die("calloc");
	for (i = 0; i < k; i++) {
		snprintf(rounds[i].path, sizeof(rounds[i].path), "%s/exit.%ld",
			 argv[1], i);
		write_file(rounds[i].path);
	}
	printf("exit_site_offset 0x%x\nrounds %ld\n", EXIT_OFF, k);
	fflush(stdout);

	if (pthread_create(&churner, NULL, churn, NULL))
		die("pthread_create");
	while (!churn_tid)
		nanosleep(&ms1, NULL);
	for (i = 0; i < k; i++) {
		if (pthread_create(&t, NULL, worker, &rounds[i]))
			die("pthread_create");
		if (pthread_join(t, NULL))
			die("pthread_join");
		wait_gone(rounds[i].tid);
	}
	stop_churn = 1;
	if (pthread_join(churner, NULL))
		die("pthread_join");
	wait_gone(churn_tid);
	syscall(SYS_getppid);
	return 0;
}
