// SPDX-License-Identifier: GPL-2.0
/*
 * livesites T S DIR: writes S stubs "mov $110,%eax; syscall; ret" into an
 * anonymous executable mapping; T threads each call every stub once, so
 * each of the S getppid sites (map anon) gets exactly T calls. The threads
 * start their calls together, once all exist: no thread is still being
 * created (its stack mapped, the mmap lock taken) when a site is first hit,
 * so every site's mapping resolves (see threads.c). Then it
 * prints the mapping's address, creates DIR/ready and keeps every thread
 * alive, blocked, until DIR/release exists (the main thread looks for it
 * every 20 ms): the session stays running with T live threads that each
 * hold S sites of their own. Exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define STUB 8

static unsigned char *code;
static long s;
static pthread_barrier_t started, called, released;

static void *worker(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&started);
	for (i = 0; i < s; i++) {
		long (*fn)(void) = (long (*)(void))(code + i * STUB);

		if (fn() <= 0)
			exit(1);
	}
	pthread_barrier_wait(&called);
	pthread_barrier_wait(&released);
	return NULL;
}

int main(int argc, char **argv)
{
	static const unsigned char stub[STUB] = {
		0xb8, 0x6e, 0x00, 0x00, 0x00,	/* mov $110, %eax */
		0x0f, 0x05,			/* syscall */
		0xc3,				/* ret */
	};
	const struct timespec tick = { 0, 20 * 1000000 };
	char ready[4096], release[4096];
	pthread_t tid[256];
	int t, i, fd;

	if (argc != 4)
		return 2;
	t = atoi(argv[1]);
	s = atol(argv[2]);
	if (t < 1 || t > 256 || s < 1 || s > 1 << 20 ||
	    pthread_barrier_init(&started, NULL, t) ||
	    pthread_barrier_init(&called, NULL, t + 1) ||
	    pthread_barrier_init(&released, NULL, t + 1))
		return 2;
	snprintf(ready, sizeof(ready), "%s/ready", argv[3]);
	snprintf(release, sizeof(release), "%s/release", argv[3]);
	code = mmap(NULL, s * STUB, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	for (i = 0; i < s; i++)
		memcpy(code + i * STUB, stub, STUB);
	__builtin___clear_cache((char *)code, (char *)code + s * STUB);
	for (i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL))
			return 1;
	pthread_barrier_wait(&called);
	printf("%p\n", (void *)code);
	fflush(stdout);
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	while (access(release, F_OK))
		if (errno != ENOENT || nanosleep(&tick, NULL))
			return 1;
	pthread_barrier_wait(&released);
	for (i = 0; i < t; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
