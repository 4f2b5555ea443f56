// SPDX-License-Identifier: GPL-2.0
/*
 * execchain: the root forks a child that runs image "a", which execs
 * itself as "b", which execs itself as "c", which exits 42. Each execve is
 * a raw syscall from exec_site. The root reaps the child and exits with
 * its status.
 * execchain fail: one execve of a path that does not exist (ENOENT) from
 * exec_site; exits 0 if it failed with ENOENT.
 */
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "site.h"

SITE(exec_site)

extern char **environ;

static char self[PATH_MAX];

static int become(const char *stage)
{
	char *argv[] = { self, (char *)stage, NULL };

	exec_site(SYS_execve, (long)self, (long)argv, (long)environ);
	return 100;	/* the exec failed */
}

int main(int argc, char **argv)
{
	const char *stage = argc > 1 ? argv[1] : "root";
	char *nargv[] = { "/nonexistent/systrace-selftest", NULL };
	ssize_t n;
	pid_t pid;
	int st;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 101;
	self[n] = 0;
	if (!strcmp(stage, "fail"))
		return exec_site(SYS_execve, (long)nargv[0], (long)nargv,
				 (long)environ) == -2 ? 0 : 1;
	if (!strcmp(stage, "a"))
		return become("b");
	if (!strcmp(stage, "b"))
		return become("c");
	if (!strcmp(stage, "c"))
		return 42;
	pid = fork();
	if (pid < 0)
		return 102;
	if (pid == 0)
		_exit(become("a"));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 103;
	return WEXITSTATUS(st);
}
