// SPDX-License-Identifier: GPL-2.0
/*
 * argvexec: images with known argv, each writing what /proc/self/cmdline
 * says of it to a file, for the argv columns' checks.
 *
 * argvexec run DIR: the root writes DIR/root.cmdline, then forks two
 * children, each running the root's image until it execs:
 *   - one execs "argvexec exec1 DIR 'a b' it's '' x<0xff>y l1<LF>l2",
 *     which writes DIR/exec1.cmdline, forks a child that writes
 *     DIR/exec1.child.cmdline (the same image: no exec) and exits 0, and
 *     exits 3;
 *   - one execs "argvexec long DIR" and 60 arguments of 99 bytes (over
 *     SYSTRACE_ARGV_MAX), which writes DIR/long.cmdline and exits 4.
 * The root waits for both and exits 0 (1 to 9 when a step failed).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LONG_ARGS 60

extern char **environ;

/* /proc/self/cmdline to DIR/NAME.cmdline, byte for byte. */
static int save_cmdline(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[65536];
	ssize_t n, got = 0;
	int in, out;

	snprintf(path, sizeof(path), "%s/%s.cmdline", dir, name);
	in = open("/proc/self/cmdline", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf + got, sizeof(buf) - (size_t)got)) > 0)
		got += n;
	if (n < 0 || write(out, buf, (size_t)got) != got)
		return -1;
	close(in);
	return close(out);
}

static int wait_for(pid_t pid, int want)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == want;
}

int main(int argc, char **argv)
{
	static char longarg[LONG_ARGS][100];
	char self[PATH_MAX], *lv[LONG_ARGS + 4];
	char *ev[] = { self, "exec1", NULL, "a b", "it's", "", "x\xffy", "l1\nl2", NULL };
	ssize_t n;
	pid_t a, b;
	int i;

	if (argc < 3)
		return 2;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 2;
	self[n] = 0;
	if (!strcmp(argv[1], "long"))
		return save_cmdline(argv[2], "long") ? 1 : 4;
	if (!strcmp(argv[1], "exec1")) {
		if (save_cmdline(argv[2], "exec1"))
			return 1;
		a = fork();
		if (a == 0)
			_exit(save_cmdline(argv[2], "exec1.child") ? 1 : 0);
		return a > 0 && wait_for(a, 0) ? 3 : 1;
	}
	if (strcmp(argv[1], "run") || save_cmdline(argv[2], "root"))
		return 2;
	ev[2] = argv[2];
	a = fork();
	if (a == 0) {
		execve(self, ev, environ);
		_exit(5);
	}
	lv[0] = self;
	lv[1] = "long";
	lv[2] = argv[2];
	for (i = 0; i < LONG_ARGS; i++) {
		memset(longarg[i], 'a' + i % 26, 99);
		lv[3 + i] = longarg[i];
	}
	lv[3 + LONG_ARGS] = NULL;
	b = fork();
	if (b == 0) {
		execve(self, lv, environ);
		_exit(6);
	}
	if (a < 0 || b < 0)
		return 7;
	if (!wait_for(a, 3))
		return 8;
	return wait_for(b, 4) ? 0 : 9;
}
