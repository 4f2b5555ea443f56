// SPDX-License-Identifier: GPL-2.0
/*
 * W1 or W2 in batches, for bench/parts on a loaded host: the time of the
 * fastest batch is the cost that other work on the host (which stalls a
 * vCPU for whole milliseconds) did not inflate.
 *
 *   w_batch getppid|pingpong N B
 *
 * runs N getppid() calls (or N pipe round trips with a child) in batches
 * of B and reports "MIN_NS P10_NS TOTAL_NS": the fastest batch, the tenth
 * percentile of the batches and the whole loop, to $BENCH_INNER.
 */
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "inner.h"

static int ping[2], pong[2];

static void xio(ssize_t r, const char *what)
{
	if (r != 1) {
		perror(what);
		exit(1);
	}
}

static void unit_getppid(void)
{
	if (syscall(SYS_getppid) == 0)
		exit(1);	/* keep the call; a parent pid is never 0 */
}

static void unit_pingpong(void)
{
	char c = 0;

	xio(write(ping[1], &c, 1), "w_batch: write");
	xio(read(pong[0], &c, 1), "w_batch: read");
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n, b, nb, i, j;
	void (*unit)(void);
	uint64_t *t, t0, t1;
	pid_t pid = 0;
	int st;
	char c;

	if (argc != 4 || (n = atol(argv[2])) <= 0 || (b = atol(argv[3])) <= 0 || b > n) {
		fprintf(stderr, "usage: w_batch getppid|pingpong N B\n");
		return 2;
	}
	nb = n / b;
	t = calloc(nb, sizeof(*t));
	if (!t)
		return 1;
	unit = strcmp(argv[1], "pingpong") ? unit_getppid : unit_pingpong;
	if (unit == unit_pingpong) {
		if (pipe(ping) || pipe(pong))
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			for (i = 0; i < nb * b; i++) {
				xio(read(ping[0], &c, 1), "w_batch: child read");
				xio(write(pong[1], &c, 1), "w_batch: child write");
			}
			_exit(0);
		}
	}
	t0 = inner_now();
	for (i = 0; i < nb; i++) {
		uint64_t s = inner_now();

		for (j = 0; j < b; j++)
			unit();
		t[i] = inner_now() - s;
	}
	t1 = inner_now();
	if (pid && (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)))
		return 1;
	qsort(t, nb, sizeof(*t), cmp);
	{
		const char *path = getenv("BENCH_INNER");
		FILE *f = path && *path ? fopen(path, "w") : stderr;

		if (!f)
			return 2;
		fprintf(f, "%llu %llu %llu\n", (unsigned long long)t[0],
			(unsigned long long)t[nb / 10], (unsigned long long)(t1 - t0));
		if (f != stderr)
			fclose(f);
	}
	return 0;
}
