// SPDX-License-Identifier: GPL-2.0
/*
 * exitmap DIR K: a thread's first and only exit syscall, made from a file
 * new to the session while a sibling churns the mmap lock.
 *
 * Writes K files DIR/exit.0 .. DIR/exit.K-1 (distinct inodes), each one
 * page holding "mov $60,%eax; xor %edi,%edi; syscall" at CODE_OFF, so the
 * syscall instruction is at file offset EXIT_OFF, and at SPIN_OFF a loop
 * of SPINS iterations that then jumps there: between the page fault that
 * brought the page in and the exit, the churn thread has time to take the
 * mmap lock again. A churn thread flips
 * the protection of a populated CHURN_BYTES region in a loop: mprotect
 * holds the mmap lock for writing while it rewrites every page table
 * entry, so the lock is taken most of the time. Then, one round per file, in turn: a worker thread maps its
 * file PROT_EXEC and jumps into it, so its first and only exit call has a
 * site in that file; the main thread joins it and waits until
 * /proc/self/task/TID is gone (the exit is complete, any work it handed
 * on is queued in a live thread). At the end the main thread stops the
 * churn thread, joins it and waits for it to be gone the same way, makes
 * one more syscall, and returns: a live thread has returned to user mode
 * after every exit. The mappings stay until exit_group.
 *
 * Before the churn starts, a warm-up makes every call site the rounds and
 * the churn thread use, but for the K exit sites: the same library calls
 * from main, one round on DIR/warm, a thread that returns from its start
 * routine (the library's thread exit, as the churn thread's), then one
 * getppid from warm_done_insn, whose site row's first_ns marks the end of
 * the warm-up. From then on only the K exit sites are new to the session,
 * so with no lock contention forced, the session's late_resolves counts
 * exit sites whose first hit found the mmap lock taken: the natural race.
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
#include "site.h"

SITE(warm_done)

#define PAGE 4096
#define CODE_OFF 0x100
#define EXIT_OFF (CODE_OFF + 7)	/* after mov (5 bytes) and xor (2) */

#define SPIN_OFF 0x40
#define SPINS 0x100000

static const unsigned char spin_code[] = {
	0xb9, SPINS & 0xff, (SPINS >> 8) & 0xff, (SPINS >> 16) & 0xff,
	SPINS >> 24,			/* mov $SPINS, %ecx */
	0xff, 0xc9,			/* 1: dec %ecx */
	0x75, 0xfc,			/* jnz 1b */
	0xe9, (CODE_OFF - (SPIN_OFF + 14)) & 0xff, 0x00, 0x00, 0x00,
					/* jmp CODE_OFF */
};

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

#define CHURN_BYTES (4 << 20)

/* A populated region of n bytes. */
static void *populated(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void *churn(void *arg)
{
	void *p = populated(CHURN_BYTES);

	churn_tid = syscall(SYS_gettid);
	while (!stop_churn) {
		if (mprotect(p, CHURN_BYTES, PROT_READ) ||
		    mprotect(p, CHURN_BYTES, PROT_READ | PROT_WRITE))
			die("churn: mprotect");
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
	code = (void (*)(void))(map + SPIN_OFF);
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
	memcpy(page + SPIN_OFF, spin_code, sizeof(spin_code));
	memcpy(page + CODE_OFF, exit_code, sizeof(exit_code));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		die(path);
	if (write(fd, page, sizeof(page)) != sizeof(page))
		die("write");
	if (close(fd))
		die("close");
}

static void *returns(void *arg)
{
	return arg;
}

/* One round: a worker ends in r's file; it is gone when this returns. */
static void round_of(struct round *r)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, r))
		die("pthread_create");
	if (pthread_join(t, NULL))
		die("pthread_join");
	wait_gone(r->tid);
}

/* The sites of the rounds and of the churn thread, but for the K exits. */
static void warm_up(const char *dir)
{
	const struct timespec ms1 = { 0, 1000000 };
	static struct round warm;
	pthread_t t;
	void *p;

	p = populated(PAGE);
	if (mprotect(p, PAGE, PROT_READ))
		die("warm-up: mprotect");
	syscall(SYS_gettid);
	snprintf(warm.path, sizeof(warm.path), "%s/warm", dir);
	write_file(warm.path);
	round_of(&warm);
	/* Once a thread has run, libc takes its cancellable paths: their sites. */
	nanosleep(&ms1, NULL);
	access("/proc/self/task/0", F_OK);
	if (pthread_create(&t, NULL, returns, NULL))
		die("pthread_create");
	if (pthread_join(t, NULL))
		die("pthread_join");
	warm_done(SYS_getppid, 0, 0, 0);
}

int main(int argc, char **argv)
{
	const struct timespec ms1 = { 0, 1000000 };
	pthread_t churner;
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

	warm_up(argv[1]);
	if (pthread_create(&churner, NULL, churn, NULL))
		die("pthread_create");
	while (!churn_tid)
		nanosleep(&ms1, NULL);
	for (i = 0; i < k; i++)
		round_of(&rounds[i]);
	stop_churn = 1;
	if (pthread_join(churner, NULL))
		die("pthread_join");
	wait_gone(churn_tid);
	syscall(SYS_getppid);
	return 0;
}
