// SPDX-License-Identifier: GPL-2.0
/*
 * ptexec MS GO PROG [ARG...]: forks a child that burns MS ms of its own CPU
 * time, then execs PROG under ptrace with PTRACE_O_TRACEEXEC: the child
 * stops inside the exec, after the kernel's sched_process_exec tracepoint
 * and before its execve returns. ptexec then prints "stopped PID", waits
 * until it can read a line of the file GO (a FIFO) or reads EOF, detaches
 * (the child goes on), reaps it with wait4() and prints "reaped PID
 * USER_NS SYS_NS", all of its CPU time. Exits with the child's exit status
 * (125 on its own errors).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void burn(long ms)
{
	struct timespec ts;
	volatile unsigned long x = 1;
	long i;

	do {
		for (i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 < ms);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	char line[16];
	FILE *go;
	pid_t pid;
	int st;

	if (argc < 4)
		return 125;
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) || raise(SIGSTOP))
			_exit(125);
		burn(atol(argv[1]));
		execv(argv[3], argv + 3);
		_exit(125);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACEEXEC) ||
	    ptrace(PTRACE_CONT, pid, 0, 0))
		return 125;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    st >> 8 != (SIGTRAP | PTRACE_EVENT_EXEC << 8))
		return 125;
	printf("stopped %d\n", pid);
	fflush(stdout);
	go = fopen(argv[2], "r");
	if (go) {
		if (!fgets(line, sizeof(line), go))
			line[0] = 0;
		fclose(go);
	}
	if (ptrace(PTRACE_DETACH, pid, 0, 0) || wait4(pid, &st, 0, &ru) != pid)
		return 125;
	printf("reaped %d %lld %lld\n", pid,
	       ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL,
	       ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}
