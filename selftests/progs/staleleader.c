// SPDX-License-Identifier: GPL-2.0
/*
 * staleleader UID GID: started as root, a process whose group leader
 * drops to UID/GID alone (raw setresgid/setresuid: that thread's
 * credentials only), makes the process dumpable again and ends with
 * SYS_exit, while its one other thread keeps root's credentials and
 * blocks in pause(). The leader is then a zombie with UID's credentials
 * and the process runs on as root. Prints "ready" once the leader has
 * dropped; exits 1 on a failure. Killed by the test.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *worker(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long uid, gid;

	if (argc != 3) {
		fprintf(stderr, "usage: staleleader UID GID\n");
		return 1;
	}
	uid = strtol(argv[1], NULL, 10);
	gid = strtol(argv[2], NULL, 10);
	if (geteuid() != 0) {
		fprintf(stderr, "staleleader: must start as root\n");
		return 1;
	}
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	/* glibc's setresuid() would change every thread: the raw calls do not. */
	if (syscall(SYS_setgroups, 0, NULL) ||
	    syscall(SYS_setresgid, gid, gid, gid) ||
	    syscall(SYS_setresuid, uid, uid, uid)) {
		perror("staleleader: setresuid");
		return 1;
	}
	/* The euid change made the process not dumpable: make it dumpable. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		perror("staleleader: prctl");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	syscall(SYS_exit, 0);
	return 1;
}
