// SPDX-License-Identifier: GPL-2.0
/*
 * racetree [-s] MS SEED: a busy process tree for test_stress_races.sh, so
 * that the module's teardown paths (reset, SESSION_DEL, rmmod) race its
 * fork, clone, exec and exit probes.
 *
 * The root keeps 4 worker processes alive for MS milliseconds, replacing
 * each one that exits. A worker keeps 8 threads busy making getppid()
 * calls; each thread ends after a random number of calls and is replaced
 * at once. Every 5 ms a worker may fork a short child (1 in 4), re-exec
 * itself (1 in 32, half of the time from one of its threads rather than
 * the main one) or exit while its threads run (1 in 128). Each process
 * draws from its own generator seeded by SEED, its slot and its
 * generation, so a seed gives the same kinds of events, in numbers that
 * depend only on timing. With -s the root stops itself (SIGSTOP) before it
 * starts the workers: a session can then be made on its pid first, and
 * SIGCONT starts the run (MS counts from then).
 *
 * Every fork, thread creation, exec and process exit is tallied in memory
 * that all the tree's processes share (a memfd, kept across exec), under a
 * lock that keeps a thread's exec from cutting a tally short. At the end
 * the root prints, on stdout,
 *   racetree: forks F clones C execs E exits X
 * counting its own exit but not its own start: a session that traced the
 * whole run counts execs E + 1 (the root's exec) and the rest as printed.
 * Exit status: 0; 1 when a process of the tree did not exit with status 0
 * (the reason on stderr); 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define THREADS 8
#define TICK_NS 5000000ULL

struct tally {
	uint64_t forks, clones, execs, exits, failures;
};

static struct tally *tally;
static int tally_fd;
static uint64_t deadline;	/* CLOCK_MONOTONIC, ns */
static uint64_t base_seed;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
}

/* splitmix64: a generator per seed, good enough and tiny. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fail(const char *what)
{
	fprintf(stderr, "racetree[%d]: %s: %s\n", getpid(), what, strerror(errno));
	count(&tally->failures);
}

/* ---- a worker ---- */

static int slot, gen;
/*
 * Held around every fork, thread creation, exec and exit with its tally:
 * an exec from one thread kills the others, which must not be between a
 * successful clone() and its count.
 */
static pthread_mutex_t life = PTHREAD_MUTEX_INITIALIZER;
static sem_t finished;
static int running, stopping, exec_claim;

static void worker_exit(void)
{
	pthread_mutex_lock(&life);
	count(&tally->exits);
	_exit(0);
}

/* Re-exec the worker's image as its next generation. Holds life. */
static void worker_exec(void)
{
	char fd[16], s[16], g[16], d[32], seed[32];
	char *argv[] = { "racetree", "--worker", fd, s, g, d, seed, NULL };

	snprintf(fd, sizeof(fd), "%d", tally_fd);
	snprintf(s, sizeof(s), "%d", slot);
	snprintf(g, sizeof(g), "%d", gen + 1);
	snprintf(d, sizeof(d), "%" PRIu64, deadline);
	snprintf(seed, sizeof(seed), "%" PRIu64, base_seed);
	execv("/proc/self/exe", argv);
	fail("execv /proc/self/exe");
	pthread_mutex_unlock(&life);
}

static void *thread_main(void *arg)
{
	uint64_t s = (uintptr_t)arg;
	long n = 10 + rnd(&s) % 300, i;

	for (i = 0; i < n && !__atomic_load_n(&stopping, __ATOMIC_RELAXED); i++)
		syscall(SYS_getppid);
	/* Main asked for an exec from a thread other than the leader. */
	if (__atomic_exchange_n(&exec_claim, 0, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&life);
		if (now_ns() < deadline)
			worker_exec();
		else
			pthread_mutex_unlock(&life);
	}
	__atomic_fetch_sub(&running, 1, __ATOMIC_SEQ_CST);
	sem_post(&finished);
	return NULL;
}

static void start_thread(uint64_t *rng)
{
	pthread_attr_t attr;
	pthread_t tid;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_mutex_lock(&life);
	__atomic_fetch_add(&running, 1, __ATOMIC_SEQ_CST);
	err = pthread_create(&tid, &attr, thread_main, (void *)(uintptr_t)rnd(rng));
	if (err) {
		__atomic_fetch_sub(&running, 1, __ATOMIC_SEQ_CST);
		errno = err;
		fail("pthread_create");
	} else {
		count(&tally->clones);
	}
	pthread_mutex_unlock(&life);
	pthread_attr_destroy(&attr);
}

/* A short child: a few calls, then exit. The worker waits for it. */
static void short_child(uint64_t *rng)
{
	long n = 5 + rnd(rng) % 50, i;
	int status;
	pid_t pid;

	pthread_mutex_lock(&life);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		count(&tally->exits);
		_exit(0);
	}
	if (pid < 0)
		fail("fork of a short child");
	else
		count(&tally->forks);
	pthread_mutex_unlock(&life);
	if (pid < 0)
		return;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fail("waitpid of a short child");
			return;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "racetree: a short child ended with status %#x\n", status);
		count(&tally->failures);
	}
}

static void worker_main(void)
{
	uint64_t rng = base_seed * 1000003 + (uint64_t)slot * 7919 + gen;
	uint64_t next = now_ns() + TICK_NS, r;
	struct timespec until;

	if (gen > 0)
		count(&tally->execs);
	if (now_ns() >= deadline)
		worker_exit();
	sem_init(&finished, 0, 0);
	while (now_ns() < deadline) {
		while (__atomic_load_n(&running, __ATOMIC_SEQ_CST) < THREADS)
			start_thread(&rng);
		until.tv_sec = next / 1000000000ULL;
		until.tv_nsec = next % 1000000000ULL;
		/* Woken early by a thread that ended: replace it. */
		sem_clockwait(&finished, CLOCK_MONOTONIC, &until);
		if (now_ns() < next)
			continue;
		next += TICK_NS;
		r = rnd(&rng);
		if (r % 4 == 0)
			short_child(&rng);
		if (r % 32 == 1) {
			if (r & 0x100) {
				__atomic_store_n(&exec_claim, 1, __ATOMIC_SEQ_CST);
			} else {
				pthread_mutex_lock(&life);
				worker_exec();
			}
		}
		if (r % 128 == 2)
			worker_exit();
	}
	__atomic_store_n(&stopping, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&running, __ATOMIC_SEQ_CST) > 0)
		sem_wait(&finished);
	worker_exit();
}

/* ---- the root ---- */

static pid_t spawn(int s, int *spawned)
{
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		slot = s;
		gen = 0;
		base_seed = base_seed * 31 + (uint64_t)*spawned;
		worker_main();
	}
	if (pid < 0)
		fail("fork of a worker");
	else
		count(&tally->forks);
	(*spawned)++;
	return pid;
}

static int usage(void)
{
	fprintf(stderr, "usage: racetree [-s] MS SEED\n");
	return 2;
}

int main(int argc, char **argv)
{
	pid_t pids[WORKERS], pid;
	int i, live = 0, status, stop_first = 0, spawned = 0;
	long ms;

	if (argc == 7 && !strcmp(argv[1], "--worker")) {
		tally_fd = atoi(argv[2]);
		tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE, MAP_SHARED, tally_fd, 0);
		if (tally == MAP_FAILED)
			return 1;
		slot = atoi(argv[3]);
		gen = atoi(argv[4]);
		deadline = strtoull(argv[5], NULL, 10);
		base_seed = strtoull(argv[6], NULL, 10);
		worker_main();
	}
	if (argc > 1 && !strcmp(argv[1], "-s")) {
		stop_first = 1;
		argc--;
		argv++;
	}
	if (argc != 3)
		return usage();
	ms = atol(argv[1]);
	base_seed = strtoull(argv[2], NULL, 10);
	if (ms <= 0)
		return usage();

	tally_fd = memfd_create("racetree", 0);
	if (tally_fd < 0 || ftruncate(tally_fd, sizeof(*tally))) {
		perror("racetree: memfd");
		return 1;
	}
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE, MAP_SHARED, tally_fd, 0);
	if (tally == MAP_FAILED) {
		perror("racetree: mmap");
		return 1;
	}
	if (stop_first)
		raise(SIGSTOP);
	deadline = now_ns() + (uint64_t)ms * 1000000ULL;
	for (i = 0; i < WORKERS; i++) {
		pids[i] = spawn(i, &spawned);
		live += pids[i] > 0;
	}
	while (live > 0) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fail("waitpid");
			break;
		}
		for (i = 0; i < WORKERS && pids[i] != pid; i++)
			;
		if (i == WORKERS)
			continue;
		live--;
		pids[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "racetree: worker %d (pid %d) ended with status %#x\n",
				i, pid, status);
			count(&tally->failures);
		}
		if (now_ns() < deadline) {
			pids[i] = spawn(i, &spawned);
			live += pids[i] > 0;
		}
	}
	count(&tally->exits);
	printf("racetree: forks %" PRIu64 " clones %" PRIu64 " execs %" PRIu64 " exits %" PRIu64 "\n",
	       tally->forks, tally->clones, tally->execs, tally->exits);
	if (tally->failures)
		fprintf(stderr, "racetree: %" PRIu64 " failures\n", tally->failures);
	return tally->failures ? 1 : 0;
}
