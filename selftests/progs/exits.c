// SPDX-License-Identifier: GPL-2.0
/*
 * exits: 3 threads end with the exit syscall (two return from their start
 * routine, one calls pthread_exit), 2 fork() children and 1 vfork() child
 * end with _exit (exit_group), and the main thread returns (exit_group).
 * So: exit 3 times and exit_group once in the root, exit_group once in each
 * child; 3 thread clones + 3 process clones made by the root and none by
 * the children. Exits 0.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static void *returns(void *arg)
{
	return arg;
}

static void *exits(void *arg)
{
	pthread_exit(arg);
}

int main(void)
{
	pthread_t t[3];
	pid_t pid;
	int i, st;

	if (pthread_create(&t[0], NULL, returns, NULL) ||
	    pthread_create(&t[1], NULL, returns, NULL) ||
	    pthread_create(&t[2], NULL, exits, NULL))
		return 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &st, 0) != pid || st)
			return 1;
	}
	pid = vfork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &st, 0) != pid || st)
		return 1;
	return 0;
}
