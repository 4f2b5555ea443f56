// SPDX-License-Identifier: GPL-2.0
/*
 * leaderexit: the group leader ends with exit(5) (the exit syscall, not
 * exit_group) while a worker thread runs on; the worker waits until the
 * leader is a zombie (state Z in /proc/PID/task/PID/stat: the leader is
 * through with its exit), then ends with exit(9). Both exit calls are made
 * from one site, exit_site. The process ends with its last thread, and
 * wait(2) reports the leader's code: the exit status is 5. On a failure
 * of its own the worker ends the process with exit_group(1).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "site.h"

SITE(exit_site)

static pid_t leader;

/* The state letter of the leader thread, or 0 when it cannot be read. */
static char leader_state(void)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)leader, (int)leader);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void *worker(void *arg)
{
	const struct timespec ms1 = { 0, 1000000 };
	int i;

	for (i = 0; i < 10000 && leader_state() != 'Z'; i++)
		nanosleep(&ms1, NULL);
	if (i == 10000) {
		fprintf(stderr, "leaderexit: the leader is not a zombie after 10 s\n");
		syscall(SYS_exit_group, 1);
	}
	exit_site(SYS_exit, 9, 0, 0);
	return arg;
}

int main(void)
{
	pthread_t t;

	leader = getpid();
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	exit_site(SYS_exit, 5, 0, 0);
	return 1;
}
