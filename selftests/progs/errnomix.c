// SPDX-License-Identifier: GPL-2.0
/*
 * errnomix DIR N: N threads, started together, each making raw openat()
 * calls from two syscall instructions:
 *
 *   site_mix:  7 that succeed, then 21 that fail with 6 errnos, met in this
 *              order: ENOENT x3, EACCES x2, ENOTDIR x1, ELOOP x4, EISDIR x5,
 *              EFAULT x6 (more errnos than a site row has slots)
 *   site_four: thread i, even: ENOENT x(i+1), EISDIR x2;
 *              odd: ELOOP x(i+1), EACCES x3 (4 errnos over the threads)
 *
 * DIR/file (0644), DIR/link (to file) and DIR/locked (000) are made first,
 * then CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH leave the effective set
 * (the threads inherit it), so that root gets EACCES. Exits 0 when every
 * call returned as said, 1 otherwise (each wrong return on stderr), 2 on a
 * bad setup.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "dropdac.h"
#include "site.h"

SITE(site_mix)
SITE(site_four)

static char dir[4096], file[4200], sub[4200], link_[4200], locked[4200],
	    missing[4200];
static pthread_barrier_t go;
static int bad;

/* n calls of fn(openat, path, flags), each to return want. */
static void calls(long (*fn)(long, long, long, long), long n, const char *path,
		  long flags, long want)
{
	long i, r;

	for (i = 0; i < n; i++) {
		r = fn(SYS_openat, AT_FDCWD, (long)path, flags);
		if (want >= 0 ? r < 0 : r != want) {
			fprintf(stderr, "errnomix: openat(%s, %#lx): %ld, not %ld\n",
				path == (const char *)1 ? "(bad pointer)" : path,
				flags, r, want);
			__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
		}
		if (r >= 0)
			close(r);
	}
}

static void *thread(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&go);
	calls(site_mix, 7, file, O_RDONLY, 0);
	calls(site_mix, 3, missing, O_RDONLY, -2);		/* ENOENT */
	calls(site_mix, 2, locked, O_RDONLY, -13);		/* EACCES */
	calls(site_mix, 1, sub, O_RDONLY, -20);			/* ENOTDIR */
	calls(site_mix, 4, link_, O_RDONLY | O_NOFOLLOW, -40);	/* ELOOP */
	calls(site_mix, 5, dir, O_WRONLY, -21);			/* EISDIR */
	calls(site_mix, 6, (const char *)1, O_RDONLY, -14);	/* EFAULT */
	if (i % 2 == 0) {
		calls(site_four, i + 1, missing, O_RDONLY, -2);
		calls(site_four, 2, dir, O_WRONLY, -21);
	} else {
		calls(site_four, i + 1, link_, O_RDONLY | O_NOFOLLOW, -40);
		calls(site_four, 3, locked, O_RDONLY, -13);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0, i;
	pthread_t tid[64];
	int fd;

	if (argc != 3 || n < 1 || n > 64 || strlen(argv[1]) >= sizeof(dir)) {
		fprintf(stderr, "usage: errnomix DIR N (1..64 threads)\n");
		return 2;
	}
	strcpy(dir, argv[1]);
	snprintf(file, sizeof(file), "%s/file", dir);
	snprintf(sub, sizeof(sub), "%s/file/x", dir);
	snprintf(link_, sizeof(link_), "%s/link", dir);
	snprintf(locked, sizeof(locked), "%s/locked", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || fchmod(fd, 0644) || close(fd)) {
		perror(file);
		return 2;
	}
	fd = open(locked, O_CREAT | O_WRONLY | O_TRUNC, 0);
	if (fd < 0 || fchmod(fd, 0) || close(fd)) {
		perror(locked);
		return 2;
	}
	if (symlink("file", link_) && access(link_, F_OK)) {
		perror(link_);
		return 2;
	}
	if (drop_dac()) {
		perror("capset");
		return 2;
	}
	if (pthread_barrier_init(&go, NULL, n)) {
		perror("pthread_barrier_init");
		return 2;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, thread, (void *)i)) {
			perror("pthread_create");
			return 2;
		}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	return bad;
}
