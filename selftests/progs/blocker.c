// SPDX-License-Identifier: GPL-2.0
/*
 * blocker MODE [thread]: blocks for good in one syscall, its first call
 * from a call site of its own (block_MODE_insn):
 *   read   read(2) of a pipe that nobody writes
 *   pause  pause(2)
 *   futex  FUTEX_WAIT on a word that nobody changes
 * With "thread", a second thread makes that call and the main thread
 * waits for it in pthread_join. Prints "blocking TID" (the thread that
 * blocks) and flushes it just before. Ends only when killed.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "site.h"

SITE(block_read)
SITE(block_pause)
SITE(block_futex)

static const char *mode;

static void *block(void *arg)
{
	static int word;
	int fd[2];

	(void)arg;
	if (pipe(fd))
		return NULL;
	printf("blocking %d\n", gettid());
	fflush(stdout);
	if (!strcmp(mode, "read")) {
		char c;

		block_read(SYS_read, fd[0], (long)&c, 1);
	} else if (!strcmp(mode, "pause")) {
		block_pause(SYS_pause, 0, 0, 0);
	} else {
		block_futex(SYS_futex, (long)&word, FUTEX_WAIT_PRIVATE, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2 || (strcmp(argv[1], "read") && strcmp(argv[1], "pause") &&
			 strcmp(argv[1], "futex"))) {
		fprintf(stderr, "usage: blocker read|pause|futex [thread]\n");
		return 2;
	}
	mode = argv[1];
	if (argc > 2 && !strcmp(argv[2], "thread")) {
		if (pthread_create(&t, NULL, block, NULL))
			return 1;
		pthread_join(t, NULL);
	} else {
		block(NULL);
	}
	return 1;
}
