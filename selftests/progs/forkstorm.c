// SPDX-License-Identifier: GPL-2.0
/*
 * forkstorm N [P]: forks N short processes as fast as it can, at most P
 * (default 16) of them unreaped at a time. Each child is made by the fork
 * syscall itself (no glibc fork handlers run in it) and at once ends with
 * _exit(0): one exit_group call and nothing else. The parent reaps every
 * child; it exits 0 when all N exited 0, 1 otherwise. Prints "forks N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long bad;

static void reap(void)
{
	int st;

	if (wait(&st) < 0) {
		perror("forkstorm: wait");
		exit(1);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		bad++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, p = argc > 2 ? atol(argv[2]) : 16;
	long i, running = 0;
	pid_t pid;

	if (n < 1 || p < 1) {
		fprintf(stderr, "usage: forkstorm N [P]\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (running >= p) {
			reap();
			running--;
		}
		pid = syscall(SYS_fork);
		if (pid < 0) {
			perror("forkstorm: fork");
			return 1;
		}
		if (pid == 0)
			_exit(0);
		running++;
	}
	while (running--)
		reap();
	printf("forks %ld\n", n);
	return bad ? 1 : 0;
}
