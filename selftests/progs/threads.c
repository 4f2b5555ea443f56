// SPDX-License-Identifier: GPL-2.0
/*
 * threads T N [MS]: T threads each make exactly N getppid() from one raw
 * site; the main thread makes none (with MS, one nanosleep of MS ms after
 * it joined them all: it stays alive, asleep, while the last threads
 * finish exiting). The threads start their calls together,
 * once all exist: no thread is still being created (its stack mapped)
 * when the site is first hit, so its mapping resolves (a first hit that
 * finds the mmap lock taken stays map=unknown). Exits 0.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include "site.h"

SITE(thread_site)

static long n;
static pthread_barrier_t ready;

static void *worker(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&ready);
	for (i = 0; i < n; i++)
		thread_site(SYS_getppid, 0, 0, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t tid[256];
	int i;

	n = argc > 2 ? atol(argv[2]) : 500;
	if (t < 1 || t > 256 || pthread_barrier_init(&ready, NULL, t))
		return 1;
	for (i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL))
			return 1;
	for (i = 0; i < t; i++)
		pthread_join(tid[i], NULL);
	if (argc > 3) {
		long ms = atol(argv[3]);
		struct timespec linger = { ms / 1000, ms % 1000 * 1000000 };

		nanosleep(&linger, NULL);
	}
	return 0;
}
