// SPDX-License-Identifier: GPL-2.0
/*
 * forest D W M: a process tree to attach to with --tree, each process
 * blocked reading one byte of stdin (a FIFO the test writes to):
 *   top      a child subreaper (PR_SET_CHILD_SUBREAPER);
 *   chain1 .. chainD  each the child of the one before, chain1 top's;
 *   fan1 .. fanW      children of chainD;
 *   orphan   forked by a child of chain1 that exits at once, and that
 *            chain1 reaps: the orphan is reparented to top.
 * Each writes "ROLE PID" to stdout (by one write(2): lines do not mix),
 * top last, then "ready"; then each blocks in read(2). Once it has its
 * byte, each makes M getppid() at tree_site, reaps its children and exits
 * 3 (top: 0, and 1 when a child's status was not 3); 2 on an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "site.h"

SITE(tree_site)

static int ready[2];		/* every process -> top: its line is out */
static long m;

static void say(const char *role)
{
	char line[64];
	int n;

	n = snprintf(line, sizeof(line), "%s %d\n", role, (int)getpid());
	if (write(1, line, n) != n || write(ready[1], "r", 1) != 1)
		_exit(2);
}

/* Block for the go byte, make the calls, reap, exit. */
static void run(int code)
{
	int status, bad = 0;
	long i;
	char c;

	if (read(0, &c, 1) != 1)
		_exit(2);
	for (i = 0; i < m; i++)
		tree_site(SYS_getppid, 0, 0, 0);
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 3;
	_exit(bad ? 1 : code);
}

/* Fork a process that runs @fn, if any, then says @role and runs. */
static pid_t spawn(const char *role, void (*fn)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		_exit(2);
	if (pid == 0) {
		if (fn)
			fn();
		say(role);
		run(3);
	}
	return pid;
}

static void make_orphan(void)
{
	pid_t x = fork();

	if (x < 0)
		_exit(2);
	if (x == 0) {
		spawn("orphan", NULL);
		_exit(0);
	}
	if (waitpid(x, NULL, 0) != x)
		_exit(2);
}

static long d, w, depth;

static void chain_next(void)
{
	char role[32];
	long i;

	depth++;
	if (depth == 1)
		make_orphan();
	if (depth < d) {
		snprintf(role, sizeof(role), "chain%ld", depth + 1);
		spawn(role, chain_next);
	} else {
		for (i = 1; i <= w; i++) {
			snprintf(role, sizeof(role), "fan%ld", i);
			spawn(role, NULL);
		}
	}
}

int main(int argc, char **argv)
{
	long n, total;
	char c;

	if (argc != 4) {
		fprintf(stderr, "usage: forest D W M\n");
		return 2;
	}
	d = atol(argv[1]);
	w = atol(argv[2]);
	m = atol(argv[3]);
	if (d < 1 || w < 0 || m < 0 || pipe(ready) ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1))
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	spawn("chain1", chain_next);
	total = d + w + 1;
	for (n = 0; n < total; n++)
		if (read(ready[0], &c, 1) != 1)
			return 2;
	say("top");
	if (write(1, "ready\n", 6) != 6)
		return 2;
	run(0);
	return 2;
}
