// SPDX-License-Identifier: GPL-2.0
/*
 * spin FILE CODE [THREADS]: creates FILE.started, then makes getppid()
 * calls (raw site) and sleeps 5 ms in turn until FILE exists; exits CODE.
 * With THREADS, that many threads meanwhile make getppid() calls as fast
 * as they can (from busy_site), looking for FILE every 1000 calls.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "site.h"

SITE(spin_site)
SITE(busy_site)

static const char *stop;

static void *busy(void *arg)
{
	int i;

	while (access(stop, F_OK))
		for (i = 0; i < 1000; i++)
			busy_site(SYS_getppid, 0, 0, 0);
	return arg;
}

int main(int argc, char **argv)
{
	const struct timespec ms5 = { 0, 5000000 };
	int nthreads = argc > 3 ? atoi(argv[3]) : 0, i;
	char started[4096];
	pthread_t tid[64];
	FILE *f;

	if (argc < 3 || nthreads > 64)
		return 100;
	stop = argv[1];
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL, busy, NULL))
			return 102;
	snprintf(started, sizeof(started), "%s.started", argv[1]);
	f = fopen(started, "w");
	if (!f)
		return 101;
	fclose(f);
	while (access(argv[1], F_OK)) {
		spin_site(SYS_getppid, 0, 0, 0);
		nanosleep(&ms5, NULL);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	return atoi(argv[2]);
}
