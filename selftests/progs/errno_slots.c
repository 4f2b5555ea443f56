// SPDX-License-Identifier: GPL-2.0
/*
 * errno_slots DIR order|race: failing openat() calls of 6 errnos, all from
 * the one syscall instruction site_open, to fill a site row's 4 errno
 * slots and its "other":
 *   ENOENT        DIR/missing
 *   EFAULT        a path at address 1
 *   ENOTDIR       DIR/file/x (DIR/file is a regular file)
 *   ENAMETOOLONG  DIR/ and a 300-byte name
 *   EISDIR        DIR opened O_WRONLY
 *   EINVAL        DIR opened O_TMPFILE without write access
 * order: one thread, in this order: 10 ENOENT, 1 EFAULT, 7 ENOTDIR,
 *        3 ENAMETOOLONG, 20 EISDIR, 5 EINVAL (46 calls).
 * race:  20 processes one after the other, each with its own site row:
 *        6 threads let go at once, thread k's call r has errno number
 *        (k + r) % 6 of the list, 60 calls each: 360 calls, 60 of each
 *        errno, each thread's first at the same time, another errno.
 * Exits 0 when every call failed as said, 1 otherwise (each wrong return
 * on stderr), 2 on a bad setup.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "site.h"

SITE(site_open)

#define NERR		6
#define THREADS		NERR
#define ROUNDS		60
#define PROCS		20

static char missing[4096], notdir[4096], longname[4096];
static const char *dir;

static const struct call {
	const char *name;
	long err;
} calls[NERR] = {
	{ "ENOENT", 2 }, { "EFAULT", 14 }, { "ENOTDIR", 20 },
	{ "ENAMETOOLONG", 36 }, { "EISDIR", 21 }, { "EINVAL", 22 },
};

static pthread_barrier_t go;
static int bad;		/* set by any thread */

/* Call i of the list: openat's return. */
static long fail_one(int i)
{
	switch (i) {
	case 0:
		return site_open(SYS_openat, AT_FDCWD, (long)missing, O_RDONLY);
	case 1:
		return site_open(SYS_openat, AT_FDCWD, 1, O_RDONLY);
	case 2:
		return site_open(SYS_openat, AT_FDCWD, (long)notdir, O_RDONLY);
	case 3:
		return site_open(SYS_openat, AT_FDCWD, (long)longname, O_RDONLY);
	case 4:
		return site_open(SYS_openat, AT_FDCWD, (long)dir, O_WRONLY);
	default:
		return site_open(SYS_openat, AT_FDCWD, (long)dir, O_TMPFILE | O_RDONLY);
	}
}

static void call(int i)
{
	long r = fail_one(i);

	if (r != -calls[i].err) {
		fprintf(stderr, "errno_slots: openat for %s: %ld, not %ld\n",
			calls[i].name, r, -calls[i].err);
		__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
	}
}

static void *racer(void *arg)
{
	int k = (int)(long)arg, r;

	pthread_barrier_wait(&go);
	for (r = 0; r < ROUNDS; r++)
		call((k + r) % NERR);
	return NULL;
}

/* One process's race: 0, 1 (a wrong return) or 2. */
static int race(void)
{
	pthread_t th[THREADS];
	int i;

	if (pthread_barrier_init(&go, NULL, THREADS)) {
		fprintf(stderr, "errno_slots: pthread_barrier_init failed\n");
		return 2;
	}
	for (i = 0; i < THREADS; i++) {
		if (pthread_create(&th[i], NULL, racer, (void *)(long)i)) {
			fprintf(stderr, "errno_slots: pthread_create failed\n");
			return 2;
		}
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	return bad;
}

int main(int argc, char **argv)
{
	static const int order[NERR][2] = {
		{ 0, 10 }, { 1, 1 }, { 2, 7 }, { 3, 3 }, { 4, 20 }, { 5, 5 },
	};
	char file[4096];
	int fd, i, n;

	if (argc != 3 || (strcmp(argv[2], "order") && strcmp(argv[2], "race"))) {
		fprintf(stderr, "usage: errno_slots DIR order|race\n");
		return 2;
	}
	dir = argv[1];
	n = snprintf(longname, sizeof(longname), "%s/", dir);
	if (snprintf(missing, sizeof(missing), "%s/missing", dir) >= (int)sizeof(missing) ||
	    snprintf(file, sizeof(file), "%s/file", dir) >= (int)sizeof(file) ||
	    snprintf(notdir, sizeof(notdir), "%s/file/x", dir) >= (int)sizeof(notdir) ||
	    n + 301 > (int)sizeof(longname)) {
		fprintf(stderr, "errno_slots: DIR too long\n");
		return 2;
	}
	memset(longname + n, 'a', 300);
	fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0 || close(fd)) {
		perror(file);
		return 2;
	}
	if (!strcmp(argv[2], "order")) {
		for (i = 0; i < NERR; i++)
			for (n = 0; n < order[i][1]; n++)
				call(order[i][0]);
		return bad;
	}
	for (n = 0; n < PROCS; n++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (!pid)
			_exit(race());
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
			fprintf(stderr, "errno_slots: process %d did not exit\n", n);
			return 2;
		}
		if (WEXITSTATUS(status) > bad)
			bad = WEXITSTATUS(status);
	}
	return bad;
}
