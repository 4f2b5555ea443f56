// SPDX-License-Identifier: GPL-2.0
/*
 * burn T MS: T threads each burn MS ms of their own CPU time (measured
 * with CLOCK_THREAD_CPUTIME_ID, checked every few thousand iterations);
 * the main thread only creates and joins them. Prints
 * "threads_cpu_ns N" (the sum of what the threads measured) and
 * "main_cpu_ns N". Exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long target_ns;
static long long spent[64];

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *burn(void *arg)
{
	long long *out = arg, now;
	volatile unsigned long x = 1;
	long i;

	do {
		for (i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		now = thread_ns();
	} while (now < target_ns);
	*out = now;
	return NULL;
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 4, i;
	pthread_t tid[64];
	long long sum = 0;

	target_ns = (argc > 2 ? atoll(argv[2]) : 200) * 1000000LL;
	if (t > 64)
		return 1;
	for (i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, burn, &spent[i]))
			return 1;
	for (i = 0; i < t; i++) {
		pthread_join(tid[i], NULL);
		sum += spent[i];
	}
	printf("threads_cpu_ns %lld\nmain_cpu_ns %lld\n", sum, thread_ns());
	return 0;
}
