// SPDX-License-Identifier: GPL-2.0
/*
 * cpuwait PROG [ARG...]: runs PROG as its child, reaps it with wait4() and
 * prints "reaped PID USER_NS SYS_NS", the child's rusage (all of its CPU
 * time, execs included, as the kernel accounts it), after PROG's own
 * output. Exits with PROG's exit status (125 on its own errors).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int st;

	if (argc < 2)
		return 125;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		execv(argv[1], argv + 1);
		_exit(125);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return 125;
	printf("reaped %d %lld %lld\n", pid, tv_ns(ru.ru_utime), tv_ns(ru.ru_stime));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}
