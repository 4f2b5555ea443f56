// SPDX-License-Identifier: GPL-2.0
/*
 * zombieleader FIFO: opens FIFO read-write and starts 2 threads, each of
 * which reads one byte from it, a digit D, and ends with exit(D); the
 * group leader ends at once with exit(5). So, until the threads are told
 * to go, the process is a zombie leader and two live threads, both
 * blocked in read(). All three exit calls are made from one site,
 * exit_site. The process ends with its last thread; a thread that cannot
 * read a digit ends it with exit_group(1).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "site.h"

SITE(exit_site)

static int fd;

static void *worker(void *arg)
{
	char c;

	if (read(fd, &c, 1) != 1 || c < '0' || c > '9') {
		fprintf(stderr, "zombieleader: no digit read\n");
		syscall(SYS_exit_group, 1);
	}
	exit_site(SYS_exit, c - '0', 0, 0);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: zombieleader FIFO\n");
		return 1;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, worker, NULL))
			return 1;
	exit_site(SYS_exit, 5, 0, 0);
	return 1;
}
