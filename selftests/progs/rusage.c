// SPDX-License-Identifier: GPL-2.0
/*
 * rusage T MS: T threads each use MS ms of their own CPU time (measured
 * with CLOCK_THREAD_CPUTIME_ID), in user mode (a spin) and in the kernel
 * (reads of 64 KiB from /dev/zero), turn about; the main thread joins
 * them and prints what getrusage(RUSAGE_SELF) says the process used:
 *   ru_user_ns N
 *   ru_sys_ns N
 * then exits 0 at once (2 on a usage or I/O error).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long long target_ns;

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *burn(void *arg)
{
	static char buf[65536];
	volatile unsigned long x = 0;
	int fd = open("/dev/zero", O_RDONLY), i;

	(void)arg;
	if (fd < 0)
		exit(2);
	while (thread_ns() < target_ns) {
		for (i = 0; i < 100000; i++)
			x += (unsigned long)i * i;
		for (i = 0; i < 4; i++)
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				exit(2);
	}
	close(fd);
	return NULL;
}

static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	struct rusage ru;
	int n, i;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > 64 || atoi(argv[2]) < 1)
		return 2;
	target_ns = atoll(argv[2]) * 1000000LL;
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, burn, NULL))
			return 2;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (getrusage(RUSAGE_SELF, &ru))
		return 2;
	printf("ru_user_ns %lld\nru_sys_ns %lld\n", tv_ns(ru.ru_utime), tv_ns(ru.ru_stime));
	return fflush(stdout) ? 2 : 0;
}
