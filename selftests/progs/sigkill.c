// SPDX-License-Identifier: GPL-2.0
/*
 * sigkill: the child loops on getppid() forever (raw site); once it has
 * made at least 100 calls it says so on a pipe, and the parent kills it
 * with SIGKILL, reaps it and exits 0 if it died of SIGKILL.
 */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "site.h"

SITE(loop_site)

int main(void)
{
	int p[2], st;
	pid_t pid;
	long i;
	char c;

	if (pipe(p))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (i = 0;; i++) {
			loop_site(SYS_getppid, 0, 0, 0);
			if (i == 99 && write(p[1], "x", 1) != 1)
				_exit(2);
		}
	}
	if (read(p[0], &c, 1) != 1)
		return 1;
	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1;
}
