// SPDX-License-Identifier: GPL-2.0
/*
 * attachee [tree|exec] K M: a process to attach to, driven one byte at a
 * time through stdin (a FIFO) so that the test knows what it does when.
 *
 *   tree: first fork a "pre" child, which blocks reading one byte, then
 *         makes M getppid() at child_site and exits 6.
 *   exec: the "post" child below execs this program (`attachee child M`,
 *         by execve at exec_site) before its getppid calls.
 *   Write "ready\n" to stdout, block reading one byte (the attach happens
 *   there), make K getppid() at parent_site, fork a "post" child that
 *   makes M getppid() at child_site and exits 5, reap the children, write
 *   "done\n", block reading one byte (a detach may happen there), make K
 *   more getppid() at parent_site and exit 7 (1 if a child's status was
 *   wrong, 2 on a usage or I/O error).
 *
 * Every syscall is a raw one or one glibc makes exactly once: after the
 * first read, the parent makes K getppid, 1 clone, 1 or 2 wait4, 1 write,
 * 1 read, K getppid and exit_group.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "site.h"

SITE(parent_site)
SITE(child_site)
SITE(exec_site)

extern char **environ;

static void read_byte(void)
{
	char c;

	if (read(0, &c, 1) < 0)
		_exit(2);
}

static void getppids(long (*site)(long, long, long, long), int n)
{
	int i;

	for (i = 0; i < n; i++)
		site(SYS_getppid, 0, 0, 0);
}

/* After the fork, before anything else: execve(/proc/self/exe child M). */
static void exec_self(const char *arg0, const char *m)
{
	char *args[] = { (char *)arg0, "child", (char *)m, NULL };

	exec_site(SYS_execve, (long)"/proc/self/exe", (long)args, (long)environ);
	_exit(2);
}

static pid_t child(int m, int code, int wait_first, const char *exec_m,
		   const char *arg0)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (exec_m)
			exec_self(arg0, exec_m);
		if (wait_first)
			read_byte();
		getppids(child_site, m);
		_exit(code);
	}
	return pid;
}

static int reaped(pid_t pid, int code)
{
	int st;

	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == code;
}

int main(int argc, char **argv)
{
	int tree = argc > 1 && !strcmp(argv[1], "tree");
	int exec = argc > 1 && !strcmp(argv[1], "exec");
	int mode = tree || exec;
	pid_t pre = 0, post;
	int k, m, ok;

	if (argc == 3 && !strcmp(argv[1], "child")) {
		getppids(child_site, atoi(argv[2]));
		_exit(5);
	}
	if (argc != 3 + mode)
		return 2;
	k = atoi(argv[1 + mode]);
	m = atoi(argv[2 + mode]);
	if (tree && (pre = child(m, 6, 1, NULL, NULL)) < 0)
		return 2;
	if (write(1, "ready\n", 6) != 6)
		_exit(2);
	read_byte();
	getppids(parent_site, k);
	post = child(m, 5, 0, exec ? argv[2 + mode] : NULL, argv[0]);
	ok = reaped(post, 5) && (!tree || reaped(pre, 6));
	if (write(1, "done\n", 5) != 5)
		_exit(2);
	read_byte();
	getppids(parent_site, k);
	_exit(ok ? 7 : 1);
}
