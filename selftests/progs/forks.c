// SPDX-License-Identifier: GPL-2.0
/*
 * forks F: F children; child i makes i+1 getppid() from one raw site and
 * exits with 10+i. The parent makes no getppid, reaps them all, checks
 * their status and exits with 3 (0 if a child's status was wrong: 1).
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "site.h"

SITE(child_site)

int main(int argc, char **argv)
{
	int f = argc > 1 ? atoi(argv[1]) : 5;
	pid_t pids[64];
	int i, j, st, bad = 0;

	if (f > 64)
		return 1;
	for (i = 0; i < f; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return 1;
		if (pids[i] == 0) {
			for (j = 0; j <= i; j++)
				child_site(SYS_getppid, 0, 0, 0);
			_exit(10 + i);
		}
	}
	for (i = 0; i < f; i++) {
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 10 + i)
			bad = 1;
	}
	return bad ? 1 : 3;
}
