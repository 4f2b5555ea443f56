// SPDX-License-Identifier: GPL-2.0
/*
 * runit: run a command and report its wall time and peak resident memory.
 *
 *   runit -o FILE -- CMD [ARGS...]
 *
 * Writes one line "WALL_NS MAXRSS_KIB STATUS USER_NS SYS_NS" to FILE: the
 * wall time from just before fork to the return of wait4 (CLOCK_MONOTONIC),
 * the child's ru_maxrss (the largest of it and the descendants it waited
 * for), its exit status (128+N when signal N killed it), and its user and
 * system CPU time (the descendants it waited for included). Exits with
 * STATUS.
 */
#include <stdint.h>
#include <stdio.h>
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

static unsigned long long tv_ns(struct timeval tv)
{
	return (unsigned long long)tv.tv_sec * 1000000000u + (unsigned long long)tv.tv_usec * 1000u;
}

int main(int argc, char **argv)
{
	const char *out;
	struct rusage ru;
	uint64_t t0;
	int st, status;
	pid_t pid;
	FILE *f;

	if (argc < 5 || strcmp(argv[1], "-o") || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: runit -o FILE -- CMD [ARGS...]\n");
		return 2;
	}
	out = argv[2];
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("runit: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[4], argv + 4);
		perror("runit: exec");
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("runit: wait4");
		return 2;
	}
	status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	f = fopen(out, "w");
	if (!f || fprintf(f, "%llu %ld %d %llu %llu\n", (unsigned long long)(now_ns() - t0),
			  ru.ru_maxrss, status, tv_ns(ru.ru_utime), tv_ns(ru.ru_stime)) < 0 ||
	    fclose(f)) {
		perror("runit: output file");
		return 2;
	}
	return status;
}
