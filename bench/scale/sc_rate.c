// SPDX-License-Identifier: GPL-2.0
/*
 * sc_rate: the producer of the log's drain benchmark (bench/scale/guest):
 * CALLS raw getppid() at RATE calls per second, in one process.
 *
 *   sc_rate CALLS RATE
 *
 * RATE 0: as fast as the calls go. Otherwise paced in batches of 1000
 * calls: after each batch it sleeps until the time that CALLS_SO_FAR /
 * RATE gives from its first call; a batch that ends late is not made up
 * for by a burst, beyond the calls already due. Prints on stdout the
 * calls made, the time from the first call to the last (ns) and the rate
 * it reached (calls per second): "CALLS NS RATE".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH 1000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long calls, rate, done = 0, i, n;
	uint64_t t0, due, t, ns;
	struct timespec ts;

	if (argc != 3) {
		fprintf(stderr, "usage: sc_rate CALLS RATE\n");
		return 2;
	}
	calls = atol(argv[1]);
	rate = atol(argv[2]);
	if (calls < 0 || rate < 0) {
		fprintf(stderr, "sc_rate: CALLS and RATE are >= 0\n");
		return 2;
	}
	t0 = now_ns();
	while (done < calls) {
		n = calls - done < BATCH ? calls - done : BATCH;
		for (i = 0; i < n; i++)
			if (syscall(SYS_getppid) <= 0)
				return 1;
		done += n;
		if (!rate || done == calls)
			continue;
		due = t0 + (uint64_t)((double)done * 1e9 / (double)rate);
		t = now_ns();
		if (t < due) {
			ts.tv_sec = (time_t)((due - t) / 1000000000u);
			ts.tv_nsec = (long)((due - t) % 1000000000u);
			nanosleep(&ts, NULL);
		}
	}
	ns = now_ns() - t0;
	printf("%ld %llu %llu\n", done, (unsigned long long)ns,
	       ns ? (unsigned long long)((double)done * 1e9 / (double)ns) : 0ULL);
	return 0;
}
