// SPDX-License-Identifier: GPL-2.0
/*
 * W1: N getppid() calls in a loop (default 200000), through syscall(2) so
 * no libc caching can skip the kernel. Reports the loop's own time.
 */
#include <sys/syscall.h>
#include <unistd.h>
#include "inner.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000, i;
	uint64_t t0, t1;
	long sum = 0;

	t0 = inner_now();
	for (i = 0; i < n; i++)
		sum += syscall(SYS_getppid);
	t1 = inner_now();
	inner_report(t1 - t0);
	return sum == 0;	/* keep the calls; a parent pid is never 0 */
}
