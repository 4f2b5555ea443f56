// SPDX-License-Identifier: GPL-2.0
/*
 * sites N M K [GO]: N getppid() from site_a, M from site_b, K close(-1)
 * (EBADF) from site_c, all raw syscalls, and nothing else of its own in
 * between. With GO, first waits (access() and a 10 ms sleep in turn) until
 * the file GO exists.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "site.h"

SITE(site_a)
SITE(site_b)
SITE(site_c)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long m = argc > 2 ? atol(argv[2]) : 250;
	long k = argc > 3 ? atol(argv[3]) : 37;
	const struct timespec ms10 = { 0, 10000000 };
	long i;

	while (argc > 4 && access(argv[4], F_OK))
		nanosleep(&ms10, NULL);
	for (i = 0; i < n; i++)
		if (site_a(SYS_getppid, 0, 0, 0) <= 0)
			return 1;
	for (i = 0; i < m; i++)
		if (site_b(SYS_getppid, 0, 0, 0) <= 0)
			return 1;
	for (i = 0; i < k; i++)
		if (site_c(SYS_close, -1, 0, 0) != -9)	/* -EBADF */
			return 1;
	return 0;
}
