// SPDX-License-Identifier: GPL-2.0
/*
 * threadord K1 K2: the main thread calls getppid once from site a and
 * getuid K1 times from site c, creates a thread, calls getuid K2 more
 * times from site c, then lets the thread go on; the thread, once let go,
 * calls getgid once from site b. So the thread's first call from b comes
 * after the main thread's K2 calls, which the thread never saw: they
 * happened after its creation. The thread waits by spinning, not in a
 * syscall, so that its calls before b are glibc's thread start alone
 * (strace -f shows them). Exits 0.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include "site.h"

SITE(ord_a)
SITE(ord_b)
SITE(ord_c)

static int go;

static void *worker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	ord_b(SYS_getgid, 0, 0, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	long k1 = argc > 1 ? atol(argv[1]) : 10;
	long k2 = argc > 2 ? atol(argv[2]) : 1000;
	pthread_t th;
	long i;

	ord_a(SYS_getppid, 0, 0, 0);
	for (i = 0; i < k1; i++)
		ord_c(SYS_getuid, 0, 0, 0);
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	for (i = 0; i < k2; i++)
		ord_c(SYS_getuid, 0, 0, 0);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	return pthread_join(th, NULL) ? 1 : 0;
}
