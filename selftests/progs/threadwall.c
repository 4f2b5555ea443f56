// SPDX-License-Identifier: GPL-2.0
/*
 * threadwall T M: T threads, each blocked on a barrier until the main
 * thread has read one byte from stdin; then each makes exactly M getppid()
 * from one raw site, wall_site, and ends. Prints "ready" once all T exist
 * and wait. The main thread joins them and exits 0 (1 on a failure).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "site.h"

SITE(wall_site)

static long m;
static pthread_barrier_t go, made;

static void *worker(void *arg)
{
	long i;

	pthread_barrier_wait(&made);
	pthread_barrier_wait(&go);
	for (i = 0; i < m; i++)
		wall_site(SYS_getppid, 0, 0, 0);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t *t;
	long n, i;
	char c;

	if (argc != 3) {
		fprintf(stderr, "usage: threadwall T M\n");
		return 1;
	}
	n = atol(argv[1]);
	m = atol(argv[2]);
	t = calloc(n, sizeof(*t));
	if (n < 1 || !t || pthread_barrier_init(&go, NULL, n + 1) ||
	    pthread_barrier_init(&made, NULL, n + 1) || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 64 * 1024))
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, worker, NULL)) {
			fprintf(stderr, "threadwall: thread %ld not made\n", i);
			return 1;
		}
	pthread_barrier_wait(&made);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	pthread_barrier_wait(&go);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
