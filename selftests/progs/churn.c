// SPDX-License-Identifier: GPL-2.0
/*
 * churn DIR W C: W threads each make exactly one getppid() from idle_site
 * and wait; then C threads each make and join threads, one after the
 * other, until DIR/halt exists, each of which makes exactly one getppid()
 * from churn_site and ends. DIR/ready is made once the W threads exist and
 * have made their call; once the C threads are done, DIR/churned holds
 * the number of threads they made. The W threads then wait for DIR/stop,
 * and the main thread joins everything and exits 0 (1 on a failure).
 * Thread stacks are 64 KiB, so that a thousand fit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "site.h"

SITE(idle_site)
SITE(churn_site)

static char stop[4096], halt[4096];
static pthread_attr_t attr;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long called;
static int released;

static void *idle(void *arg)
{
	idle_site(SYS_getppid, 0, 0, 0);
	pthread_mutex_lock(&lock);
	called++;
	pthread_cond_broadcast(&cond);
	while (!released)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

static void *one(void *arg)
{
	churn_site(SYS_getppid, 0, 0, 0);
	return arg;
}

static void *churner(void *arg)
{
	long *made = arg;
	pthread_t t;

	while (access(halt, F_OK)) {
		if (pthread_create(&t, &attr, one, NULL) || pthread_join(t, NULL))
			return NULL;
		(*made)++;
	}
	return made;
}

static int put(const char *dir, const char *name, long n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (n >= 0)
		fprintf(f, "%ld\n", n);
	return fclose(f);
}

int main(int argc, char **argv)
{
	long w, c, i, *made, total = 0;
	pthread_t *idlers, *churners;
	void *ret;
	int bad = 0;

	if (argc != 4)
		return 2;
	w = atol(argv[2]);
	c = atol(argv[3]);
	snprintf(stop, sizeof(stop), "%s/stop", argv[1]);
	snprintf(halt, sizeof(halt), "%s/halt", argv[1]);
	idlers = calloc(w, sizeof(*idlers));
	churners = calloc(c, sizeof(*churners));
	made = calloc(c, sizeof(*made));
	if (!idlers || !churners || !made || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 64 << 10))
		return 1;
	for (i = 0; i < w; i++)
		if (pthread_create(&idlers[i], &attr, idle, NULL))
			return 1;
	pthread_mutex_lock(&lock);
	while (called < w)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	if (put(argv[1], "ready", -1))
		return 1;
	for (i = 0; i < c; i++)
		if (pthread_create(&churners[i], &attr, churner, &made[i]))
			return 1;
	for (i = 0; i < c; i++) {
		if (pthread_join(churners[i], &ret))
			return 1;
		bad |= ret != &made[i];
		total += made[i];
	}
	if (put(argv[1], "churned", total))
		return 1;
	while (access(stop, F_OK))
		usleep(10000);
	pthread_mutex_lock(&lock);
	released = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < w; i++)
		if (pthread_join(idlers[i], NULL))
			return 1;
	return bad;
}
