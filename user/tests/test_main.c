// SPDX-License-Identifier: GPL-2.0
/* Runs the registered unit tests, each in a child, and prints TAP. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"

static struct st_test *tests, **tail = &tests;

void st_test_register(struct st_test *t)
{
	*tail = t;
	tail = &t->next;
}

void st_test_abort(void)
{
	fflush(stdout);
	_exit(1);
}

/*
 * A thread's default stack of 1 GiB, an address space of what is mapped
 * now plus 256 MiB: room for a test's own allocations, none for a stack.
 */
static void *no_op(void *arg)
{
	return arg;
}

int st_test_no_threads(void)
{
	struct rlimit rl;
	pthread_t t;
	pthread_attr_t attr;
	unsigned long pages;
	FILE *f;
	int ret;

	f = fopen("/proc/self/statm", "r");
	if (!f)
		return -errno;
	ret = fscanf(f, "%lu", &pages) == 1 ? 0 : -EIO;
	fclose(f);
	if (ret)
		return ret;
	if ((ret = pthread_attr_init(&attr)))
		return -ret;
	ret = pthread_attr_setstacksize(&attr, 1UL << 30);
	if (!ret)
		ret = pthread_setattr_default_np(&attr);
	pthread_attr_destroy(&attr);
	if (ret)
		return -ret;
	rl.rlim_cur = rl.rlim_max = pages * sysconf(_SC_PAGESIZE) + (256UL << 20);
	if (setrlimit(RLIMIT_AS, &rl))
		return -errno;
	/* What st_worker_start will meet. */
	ret = pthread_create(&t, NULL, no_op, NULL);
	if (!ret) {
		pthread_join(t, NULL);
		return -EEXIST;
	}
	return ret == EAGAIN ? 0 : -ret;
}

#define TIMEOUT_S 30

int main(void)
{
	struct st_test *t;
	int n = 0, i = 0, failures = 0, status;
	pid_t pid;

	for (t = tests; t; t = t->next)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	for (t = tests; t; t = t->next) {
		bool failed = false;

		i++;
		pid = fork();
		if (pid == 0) {
			alarm(TIMEOUT_S);
			t->fn(&failed);
			fflush(stdout);
			_exit(failed);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			status = -1;
		if (status == 0) {
			printf("ok %d %s\n", i, t->name);
		} else {
			if (status != -1 && WIFSIGNALED(status))
				printf("# killed by signal %d\n", WTERMSIG(status));
			printf("not ok %d %s\n", i, t->name);
			failures++;
		}
		fflush(stdout);
	}
	printf("# %d passed, %d failed\n", n - failures, failures);
	return failures ? 1 : 0;
}
