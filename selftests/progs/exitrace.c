// SPDX-License-Identifier: GPL-2.0
/*
 * exitrace K T: K children, each starts T threads that make one getppid()
 * and return, joins them and at once ends with _exit(5); the last thread's
 * exit overlaps the child's exit_group. The parent reaps them and exits 0
 * if every child exited 5.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *arg)
{
	syscall(SYS_getppid);
	return arg;
}

static void child(int t)
{
	pthread_t tid[64];
	int i;

	for (i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL))
			_exit(1);
	for (i = 0; i < t; i++)
		pthread_join(tid[i], NULL);
	_exit(5);
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 20, t = argc > 2 ? atoi(argv[2]) : 4;
	int i, st, bad = 0;
	pid_t pid;

	if (t > 64)
		return 1;
	for (i = 0; i < k; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			child(t);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 5)
			bad = 1;
	}
	return bad;
}
