// SPDX-License-Identifier: GPL-2.0
/*
 * W2: pipe ping-pong between two processes, N round trips (default
 * 20000) of one byte each way: every round trip is two context switches
 * when both share a CPU. Reports the time of the round trips, measured
 * by the parent after the child is known to be running.
 */
#include <sys/wait.h>
#include <unistd.h>
#include "inner.h"

static void xread(int fd, char *c)
{
	if (read(fd, c, 1) != 1) {
		perror("w_pingpong: read");
		exit(1);
	}
}

static void xwrite(int fd, char c)
{
	if (write(fd, &c, 1) != 1) {
		perror("w_pingpong: write");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, i;
	int ping[2], pong[2], st;
	uint64_t t0, t1;
	pid_t pid;
	char c = 0;

	if (pipe(ping) || pipe(pong)) {
		perror("w_pingpong: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("w_pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		close(ping[1]);
		close(pong[0]);
		xwrite(pong[1], c);		/* ready */
		for (i = 0; i < n; i++) {
			xread(ping[0], &c);
			xwrite(pong[1], c);
		}
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	xread(pong[0], &c);
	t0 = inner_now();
	for (i = 0; i < n; i++) {
		xwrite(ping[1], c);
		xread(pong[0], &c);
	}
	t1 = inner_now();
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "w_pingpong: the child failed\n");
		return 1;
	}
	inner_report(t1 - t0);
	return 0;
}
