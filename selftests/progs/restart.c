// SPDX-License-Identifier: GPL-2.0
/*
 * restart MODE: the parent blocks in a raw syscall at block_site and a
 * child interrupts it once it is seen blocked there (/proc/PPID/syscall).
 *   restart: read() on an empty pipe, SIGUSR1 with an SA_RESTART handler
 *            that writes one byte to the pipe: the read is interrupted
 *            (-ERESTARTSYS), the handler runs, rt_sigreturn, the read is
 *            restarted at the same site and returns the byte.
 *   eintr:   the same without SA_RESTART: the read fails with EINTR.
 *   stop:    nanosleep(300 ms), SIGSTOP then SIGCONT (no handler): the
 *            sleep is interrupted (-ERESTART_RESTARTBLOCK) and goes on as
 *            restart_syscall from the same site.
 * Exits 0 when the call returned what the mode expects.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "site.h"

SITE(block_site)

static int pfd[2];

static void on_usr1(int sig)
{
	(void)sig;
	if (write(pfd[1], "x", 1) != 1)
		_exit(5);
}

/* Whether task pid is blocked in syscall nr (its first field). */
static int blocked_in(pid_t pid, long nr)
{
	char path[64], buf[256];
	FILE *f;
	int ok = 0;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		ok = strtol(buf, NULL, 10) == nr && strncmp(buf, "running", 7);
	fclose(f);
	return ok;
}

static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return 0;
	return p[2];
}

static void interrupter(pid_t parent, long nr, int stop)
{
	const struct timespec ms = { 0, 1000000 };

	while (!blocked_in(parent, nr))
		nanosleep(&ms, NULL);
	if (!stop) {
		kill(parent, SIGUSR1);
		_exit(0);
	}
	kill(parent, SIGSTOP);
	while (state_of(parent) != 'T')
		nanosleep(&ms, NULL);
	kill(parent, SIGCONT);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "restart";
	int stop = !strcmp(mode, "stop");
	struct timespec ts = { 0, 300 * 1000000 };
	struct sigaction sa;
	long nr = stop ? SYS_nanosleep : SYS_read, ret;
	pid_t parent = getpid(), pid;
	char c = 0;
	int st;

	if (pipe(pfd))
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = strcmp(mode, "restart") ? 0 : SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		interrupter(parent, nr, stop);
	if (stop)
		ret = block_site(SYS_nanosleep, (long)&ts, 0, 0);
	else
		ret = block_site(SYS_read, pfd[0], (long)&c, 1);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 2;
	if (!strcmp(mode, "restart"))
		return ret == 1 && c == 'x' ? 0 : 3;
	if (!strcmp(mode, "eintr"))
		return ret == -4 ? 0 : 3;	/* -EINTR */
	return ret == 0 ? 0 : 3;
}
