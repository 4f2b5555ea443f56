// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong R: parent and child, both pinned to CPU 0, pass one byte back
 * and forth over two pipes R times, then the parent sends a last byte
 * that the child reads before it exits. On one CPU each side must be
 * switched out at least once per round trip: the parent between its write
 * of ping i and its read of pong i (the child must run to answer), the
 * child between its write of pong i and its read of the next byte (the
 * parent must run to send it). So each process makes at least R context
 * switches, voluntary (it blocked in read) or involuntary (the woken
 * partner preempted it). Exits 0.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long r = argc > 1 ? atol(argv[1]) : 2000, i;
	int ping[2], pong[2], st;
	cpu_set_t cpu0;
	pid_t pid;
	char c = 'x';

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) || pipe(ping) || pipe(pong))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (i = 0; i < r; i++)
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(read(ping[0], &c, 1) == 1 ? 0 : 1);
	}
	for (i = 0; i < r; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	if (write(ping[1], &c, 1) != 1 || waitpid(pid, &st, 0) != pid || st)
		return 1;
	return 0;
}
