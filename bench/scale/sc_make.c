// SPDX-License-Identifier: GPL-2.0
/*
 * sc_make: the driver of the scale benchmark's synthetic build, shaped
 * like a recursive make: the top process starts the long-lived daemons,
 * then runs one sub-make per directory, one after the other; each sub-make
 * forks and execs its leaf programs, JOBS at a time.
 *
 *   sc_make -b BINDIR -l LEAVES [-j JOBS] [-p PROGS] [-d DAEMONS -t THREADS]
 *           [-o INNER] [-r RELEASE] [-H] [-s SEED]
 *   sc_make -c -b BINDIR -l LEAVES [-j JOBS] [-p PROGS] [-s SEED]   (a sub-make)
 *
 * Leaf i of a directory runs BINDIR/sc_prog_N MS, N and MS drawn from a
 * generator seeded by SEED and i: 90% of the leaves sleep 0 ms, 9% 1 to
 * 50 ms, 1% 50 to 300 ms (the long tail). A directory has 100 leaves (the
 * last one fewer). When every directory is done the top writes the tree's
 * wall time in ns (from its start) to INNER, creates RELEASE unless -H
 * (hold: someone else creates it), and waits for the daemons, which end
 * once RELEASE exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER_DIR 100

static const char *bindir;
static long progs = 8;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("sc_make: fork");
		exit(1);
	}
	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "sc_make: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int reap_any(void)
{
	int st;
	pid_t pid;

	while ((pid = wait(&st)) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int sub_make(long leaves, long jobs, uint64_t seed)
{
	char prog[4096], ms[32];
	char *argv[] = { prog, ms, NULL };
	long i, running = 0, failed = 0;

	for (i = 0; i < leaves; i++) {
		uint64_t r = mix(seed * 1000003u + i);
		unsigned int pct = r % 100, n = (r >> 8) % progs;
		unsigned int t = (r >> 24) % 1000;

		snprintf(prog, sizeof(prog), "%s/sc_prog_%u", bindir, n);
		snprintf(ms, sizeof(ms), "%u", pct < 90 ? 0 : pct < 99 ? 1 + t % 50 : 50 + t % 251);
		if (running == jobs) {
			failed += reap_any() != 0;
			running--;
		}
		spawn(argv);
		running++;
	}
	while (running--)
		failed += reap_any() != 0;
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	long leaves = 0, jobs = 4, daemons = 0, threads = 16, d, dirs, failed = 0;
	const char *inner = NULL, *release = NULL;
	int c, child = 0, hold = 0;
	uint64_t seed = 1, t0 = now_ns();
	char self[4096], prog[4096], nbuf[32], jbuf[32], pbuf[32], sbuf[32], tbuf[32];
	pid_t *dpid;

	while ((c = getopt(argc, argv, "b:l:j:p:d:t:o:r:Hs:c")) != -1) {
		switch (c) {
		case 'b': bindir = optarg; break;
		case 'l': leaves = atol(optarg); break;
		case 'j': jobs = atol(optarg); break;
		case 'p': progs = atol(optarg); break;
		case 'd': daemons = atol(optarg); break;
		case 't': threads = atol(optarg); break;
		case 'o': inner = optarg; break;
		case 'r': release = optarg; break;
		case 'H': hold = 1; break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'c': child = 1; break;
		default: return 2;
		}
	}
	if (!bindir || leaves < 0 || jobs < 1 || progs < 1 || (daemons && !release)) {
		fprintf(stderr, "usage: sc_make -b BINDIR -l LEAVES [-j JOBS] [-p PROGS] [-d DAEMONS -t THREADS -r RELEASE] [-o INNER] [-H] [-s SEED] [-c]\n");
		return 2;
	}
	if (child)
		return sub_make(leaves, jobs, seed);

	dpid = calloc(daemons ? daemons : 1, sizeof(*dpid));
	snprintf(tbuf, sizeof(tbuf), "%ld", threads);
	snprintf(prog, sizeof(prog), "%s/sc_daemon", bindir);
	for (d = 0; d < daemons; d++) {
		char *dargv[] = { prog, tbuf, (char *)release, NULL };

		dpid[d] = spawn(dargv);
	}
	snprintf(self, sizeof(self), "%s/sc_make", bindir);
	snprintf(jbuf, sizeof(jbuf), "%ld", jobs);
	snprintf(pbuf, sizeof(pbuf), "%ld", progs);
	dirs = (leaves + PER_DIR - 1) / PER_DIR;
	for (d = 0; d < dirs; d++) {
		long n = d == dirs - 1 ? leaves - d * PER_DIR : PER_DIR;
		char *sargv[] = { self, "-c", "-b", (char *)bindir, "-l", nbuf, "-j", jbuf,
				  "-p", pbuf, "-s", sbuf, NULL };

		snprintf(nbuf, sizeof(nbuf), "%ld", n);
		snprintf(sbuf, sizeof(sbuf), "%llu", (unsigned long long)(seed * 7919 + d));
		failed += reap(spawn(sargv)) != 0;
	}
	if (inner) {
		FILE *f = fopen(inner, "w");

		if (!f || fprintf(f, "%llu\n", (unsigned long long)(now_ns() - t0)) < 0 || fclose(f)) {
			perror("sc_make: inner file");
			return 1;
		}
	}
	if (release && !hold) {
		int fd = open(release, O_WRONLY | O_CREAT, 0644);

		if (fd < 0) {
			perror("sc_make: release file");
			return 1;
		}
		close(fd);
	}
	for (d = 0; d < daemons; d++)
		failed += reap(dpid[d]) != 0;
	if (failed)
		fprintf(stderr, "sc_make: %ld jobs failed\n", failed);
	return failed ? 1 : 0;
}
