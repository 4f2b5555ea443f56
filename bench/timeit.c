// SPDX-License-Identifier: GPL-2.0
/*
 * timeit: run a command and report its wall time (CLOCK_MONOTONIC, from
 * just before fork to the return of wait4) and the CPU time of the whole
 * tree it waited for (rusage of the child and its reaped descendants).
 *
 *   timeit [-o FILE] [-c CPU] -- CMD [ARGS...]
 *
 * Writes one line "WALL_NS USER_NS SYS_NS STATUS" to FILE (or stderr),
 * where STATUS is the exit status, or 128+N when signal N killed CMD, and
 * exits with STATUS. -c pins itself and so CMD to one CPU before the fork,
 * like taskset -c CPU.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static void usage(void)
{
	fprintf(stderr, "usage: timeit [-o FILE] [-c CPU] -- CMD [ARGS...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct rusage ru;
	uint64_t t0, t1;
	int opt, cpu = -1, st, code;
	FILE *f = stderr;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+o:c:")) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'c': cpu = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("timeit: sched_setaffinity");
			return 2;
		}
	}
	if (out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "timeit: %s: %s\n", out, strerror(errno));
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "timeit: cannot run %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("timeit: wait4");
			return 2;
		}
	}
	t1 = now_ns();
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	fprintf(f, "%llu %llu %llu %d\n", (unsigned long long)(t1 - t0),
		(unsigned long long)tv_ns(ru.ru_utime),
		(unsigned long long)tv_ns(ru.ru_stime), code);
	fclose(f);
	return code;
}
