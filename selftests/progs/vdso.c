// SPDX-License-Identifier: GPL-2.0
/*
 * vdso N C: the vDSO's clocks.
 *  1. N calls each of clock_gettime(CLOCK_REALTIME_COARSE),
 *     clock_gettime(CLOCK_MONOTONIC_COARSE) and time(): the vDSO answers
 *     them from its data page, never entering the kernel, whatever the
 *     clocksource.
 *  2. N calls each of clock_gettime(CLOCK_MONOTONIC) and gettimeofday():
 *     answered in the vDSO when the clocksource can be read from user mode
 *     (tsc, kvm-clock); otherwise (hpet, acpi_pm: TCG guests) the vDSO
 *     makes the syscall itself, from its own code.
 *  3. C calls of clock_gettime(CLOCK_PROCESS_CPUTIME_ID), which the vDSO
 *     always passes on to the kernel with a syscall of its own.
 * Exits 0.
 */
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long c = argc > 2 ? atol(argv[2]) : 10;
	struct timespec ts;
	struct timeval tv;
	long i;

	for (i = 0; i < n; i++)
		if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) ||
		    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) || time(NULL) == (time_t)-1)
			return 1;
	for (i = 0; i < n; i++)
		if (clock_gettime(CLOCK_MONOTONIC, &ts) || gettimeofday(&tv, NULL))
			return 1;
	for (i = 0; i < c; i++)
		if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
			return 1;
	return 0;
}
