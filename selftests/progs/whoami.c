// SPDX-License-Identifier: GPL-2.0
/*
 * whoami N [nodump]: N geteuid() from site_euid and one getuid() from
 * site_uid (raw syscalls), then prints "uid=U euid=E secure=S dumpable=D"
 * (S: AT_SECURE of its auxiliary vector, D: PR_GET_DUMPABLE) and exits 0.
 * A setuid-root copy run by nobody prints "uid=65534 euid=0 secure=1".
 * With nodump, first makes itself not dumpable (PR_SET_DUMPABLE 0), and
 * after printing waits in pause() until a signal kills it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "site.h"

SITE(site_euid)
SITE(site_uid)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	int nodump = argc > 2 && !strcmp(argv[2], "nodump");
	long i, euid = -1, uid;

	if (nodump && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return 1;
	for (i = 0; i < n; i++)
		euid = site_euid(SYS_geteuid, 0, 0, 0);
	uid = site_uid(SYS_getuid, 0, 0, 0);
	printf("uid=%ld euid=%ld secure=%lu dumpable=%d\n", uid, euid,
	       getauxval(AT_SECURE), prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	if (fflush(stdout))
		return 1;
	if (nodump)
		for (;;)
			pause();
	return 0;
}
