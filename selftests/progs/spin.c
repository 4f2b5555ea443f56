// SPDX-License-Identifier: GPL-2.0
/*
 * spin FILE CODE: creates FILE.started, then makes getppid() calls (raw
 * site) and sleeps 5 ms in turn until FILE exists; exits CODE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "site.h"

SITE(spin_site)

int main(int argc, char **argv)
{
	const struct timespec ms5 = { 0, 5000000 };
	char started[4096];
	FILE *f;

	if (argc < 3)
		return 100;
	snprintf(started, sizeof(started), "%s.started", argv[1]);
	f = fopen(started, "w");
	if (!f)
		return 101;
	fclose(f);
	while (access(argv[1], F_OK)) {
		spin_site(SYS_getppid, 0, 0, 0);
		nanosleep(&ms5, NULL);
	}
	return atoi(argv[2]);
}
