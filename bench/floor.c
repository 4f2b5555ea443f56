// SPDX-License-Identifier: GPL-2.0
/*
 * bench/bin/bpf_floor -- CMD [ARGS...]: attach floor.bpf.c's two empty
 * tp_btf programs (sys_enter, sys_exit), run CMD, and detach when it has
 * ended; exits with CMD's status. Every task on the machine runs the empty
 * programs meanwhile, as every task runs systrace's while a BPF session
 * exists. SIGINT and SIGTERM are passed on to CMD.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "floor.skel.h"

static volatile sig_atomic_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	int status = 0, err;
	pid_t pid;

	if (argc < 3 || strcmp(argv[1], "--")) {
		fprintf(stderr, "usage: bpf_floor -- CMD [ARGS...]\n");
		return 2;
	}
	skel = floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "bpf_floor: loading the programs: %s\n", strerror(errno));
		return 2;
	}
	err = floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bpf_floor: attaching: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 2;
	}
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "bpf_floor: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		fprintf(stderr, "bpf_floor: fork: %s\n", strerror(errno));
		floor_bpf__destroy(skel);
		return 2;
	}
	child = pid;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	floor_bpf__destroy(skel);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
