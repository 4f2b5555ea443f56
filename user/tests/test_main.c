// SPDX-License-Identifier: GPL-2.0
/* Runs the registered unit tests, each in a child, and prints TAP. */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"

static struct st_test *tests, **tail = &tests;

/* A skipping child's exit status, and its reason, shared with the parent. */
#define SKIP_STATUS 4
#define REASON_MAX 512
static char *skip_reason;

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

/* CI set, and not to "false" or "0": every package is installed there. */
static bool in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && *ci && strcmp(ci, "false") && strcmp(ci, "0");
}

void st_test_skip(bool failed, const char *fmt, ...)
{
	char why[REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (failed) {
		printf("# a check failed before the skip (%s): a failure\n", why);
		st_test_abort();
	}
	if (in_ci()) {
		printf("# would skip (%s), but CI is set: scripts/deps installs what every test needs\n",
		       why);
		st_test_abort();
	}
	snprintf(skip_reason, REASON_MAX, "%s", why);
	fflush(stdout);
	_exit(SKIP_STATUS);
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

/*
 * ST_TESTS, when set, selects the tests to run: names or fnmatch patterns,
 * separated by blanks (scripts/mutate runs the few that should catch a
 * mutant). A pattern that selects nothing fails the run.
 */
static bool selected(const char *name)
{
	const char *want = getenv("ST_TESTS");
	char pat[256];
	const char *p = want;
	int k;

	if (!want)
		return true;
	while (sscanf(p, " %255s%n", pat, &k) == 1) {
		if (!fnmatch(pat, name, 0))
			return true;
		p += k;
	}
	return false;
}

int main(void)
{
	struct st_test *t;
	int n = 0, i = 0, failures = 0, skips = 0, status;
	pid_t pid;

	skip_reason = mmap(NULL, REASON_MAX, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (skip_reason == MAP_FAILED) {
		perror("test_unit: mmap");
		return 1;
	}
	for (t = tests; t; t = t->next)
		n += selected(t->name);
	if (!n) {
		fprintf(stderr, "test_unit: ST_TESTS selects no test: %s\n", getenv("ST_TESTS"));
		return 1;
	}
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	for (t = tests; t; t = t->next) {
		bool failed = false;

		if (!selected(t->name))
			continue;
		i++;
		skip_reason[0] = '\0';
		pid = fork();
		if (pid == 0) {
			alarm(TIMEOUT_S);
			st_spy_reset();
			t->fn(&failed);
			fflush(stdout);
			_exit(failed);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			status = -1;
		if (status == 0) {
			printf("ok %d %s\n", i, t->name);
		} else if (status != -1 && WIFEXITED(status) &&
			   WEXITSTATUS(status) == SKIP_STATUS && skip_reason[0]) {
			printf("ok %d %s # SKIP %s\n", i, t->name, skip_reason);
			skips++;
		} else {
			if (status != -1 && WIFSIGNALED(status))
				printf("# killed by signal %d\n", WTERMSIG(status));
			printf("not ok %d %s\n", i, t->name);
			failures++;
		}
		fflush(stdout);
	}
	printf("# %d passed, %d failed, %d skipped\n", n - failures - skips,
	       failures, skips);
	return failures ? 1 : 0;
}
