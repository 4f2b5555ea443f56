// SPDX-License-Identifier: GPL-2.0
/* Runs the registered unit tests, each in a child, and prints TAP. */
#include <stdlib.h>
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
