// SPDX-License-Identifier: GPL-2.0
/*
 * burn T MS [K]: T threads each burn MS ms of their own CPU time
 * (measured with CLOCK_THREAD_CPUTIME_ID, checked every 20000 iterations);
 * the main thread only creates and joins them. Before it ends, each thread
 * (and then the main thread) also reads its own tick-sampled utime +
 * stime, the values the kernel keeps in task->utime/stime, from taskstats
 * (ac_utime + ac_stime; -1 when taskstats is not there). Then it forks K
 * short children (0 by default), one at a time, each of which only reads
 * its own getrusage(RUSAGE_SELF), prints it and exits; burn reaps each
 * with wait4(), whose rusage is all of the child's CPU time. Prints
 *   threads_cpu_ns N    sum of the threads' CLOCK_THREAD_CPUTIME_ID
 *   threads_tick_ns N   sum of the threads' utime + stime
 *   main_cpu_ns N       the main thread's, since its fork (exec included)
 *   main_tick_ns N
 *   child PID USER_NS SYS_NS    each child's getrusage(RUSAGE_SELF)
 *   reaped PID USER_NS SYS_NS   wait4()'s rusage of each child
 *   rusage_user_ns N    the process's getrusage(RUSAGE_SELF), last
 *   rusage_sys_ns N
 * Exits 0.
 */
#define _GNU_SOURCE
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

static long long target_ns;

struct result {
	long long cpu_ns, tick_ns;
};

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const struct nlattr *find_attr(const char *p, const char *end, int type)
{
	const struct nlattr *a;

	for (; p + NLA_HDRLEN <= end; p += NLA_ALIGN(a->nla_len)) {
		a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	}
	return NULL;
}

static int put_attr(struct req *r, int type, const void *data, int len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
	return 0;
}

/* One genl request; returns the reply's attributes in [*p, *end). */
static int ask(int fd, int family, int cmd, int type, const void *data, int len,
	       char *buf, size_t size, const char **p, const char **end)
{
	struct req r;
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	ssize_t got;

	memset(&r, 0, sizeof(r));
	r.n.nlmsg_type = family;
	r.n.nlmsg_flags = NLM_F_REQUEST;
	r.n.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	r.g.cmd = cmd;
	r.g.version = 1;
	put_attr(&r, type, data, len);
	if (send(fd, &r, r.n.nlmsg_len, 0) < 0)
		return -1;
	got = recv(fd, buf, size, 0);
	if (got < (ssize_t)NLMSG_HDRLEN || n->nlmsg_type == NLMSG_ERROR ||
	    n->nlmsg_len > (size_t)got)
		return -1;
	*p = buf + NLMSG_HDRLEN + GENL_HDRLEN;
	*end = buf + n->nlmsg_len;
	return 0;
}

/* The calling thread's utime + stime (ns, tick-sampled), or -1. */
static long long tick_ns(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const struct nlattr *a;
	const char *p, *end;
	struct taskstats ts;
	char buf[8192];
	int fd, family;
	size_t len;
	long long ret = -1;
	pid_t tid = gettid();

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    ask(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME), buf, sizeof(buf), &p, &end))
		goto out;
	a = find_attr(p, end, CTRL_ATTR_FAMILY_ID);
	if (!a)
		goto out;
	family = *(const unsigned short *)((const char *)a + NLA_HDRLEN);
	if (ask(fd, family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &tid, sizeof(tid),
		buf, sizeof(buf), &p, &end))
		goto out;
	a = find_attr(p, end, TASKSTATS_TYPE_AGGR_PID);
	if (!a)
		goto out;
	a = find_attr((const char *)a + NLA_HDRLEN, (const char *)a + a->nla_len,
		      TASKSTATS_TYPE_STATS);
	if (!a)
		goto out;
	len = a->nla_len - NLA_HDRLEN;
	if (len < offsetof(struct taskstats, ac_stime) + 8)
		goto out;
	memset(&ts, 0, sizeof(ts));
	memcpy(&ts, (const char *)a + NLA_HDRLEN, len < sizeof(ts) ? len : sizeof(ts));
	ret = (long long)(ts.ac_utime + ts.ac_stime) * 1000;
out:
	close(fd);
	return ret;
}

static void *burn(void *arg)
{
	struct result *out = arg;
	volatile unsigned long x = 1;
	long i;

	do {
		for (i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		out->cpu_ns = thread_ns();
	} while (out->cpu_ns < target_ns);
	out->tick_ns = tick_ns();
	return NULL;
}

static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

static void child(void)
{
	struct rusage ru;
	char line[128];
	int n;

	getrusage(RUSAGE_SELF, &ru);
	n = snprintf(line, sizeof(line), "child %d %lld %lld\n", getpid(),
		     tv_ns(ru.ru_utime), tv_ns(ru.ru_stime));
	_exit(write(1, line, n) == n ? 0 : 1);
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 4, k = argc > 3 ? atoi(argv[3]) : 0, i;
	struct rusage ru;
	pid_t pid;
	static struct result res[64];
	long long cpu = 0, tick = 0;
	pthread_t tid[64];

	target_ns = (argc > 2 ? atoll(argv[2]) : 200) * 1000000LL;
	if (t > 64)
		return 1;
	for (i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, burn, &res[i]))
			return 1;
	for (i = 0; i < t; i++) {
		pthread_join(tid[i], NULL);
		cpu += res[i].cpu_ns;
		if (tick >= 0)
			tick = res[i].tick_ns < 0 ? -1 : tick + res[i].tick_ns;
	}
	printf("threads_cpu_ns %lld\nthreads_tick_ns %lld\n", cpu, tick);
	printf("main_cpu_ns %lld\nmain_tick_ns %lld\n", thread_ns(), tick_ns());
	fflush(stdout);
	for (i = 0; i < k; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid)
			child();
		if (wait4(pid, NULL, 0, &ru) != pid)
			return 1;
		printf("reaped %d %lld %lld\n", pid, tv_ns(ru.ru_utime), tv_ns(ru.ru_stime));
		fflush(stdout);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("rusage_user_ns %lld\nrusage_sys_ns %lld\n", tv_ns(ru.ru_utime),
	       tv_ns(ru.ru_stime));
	return 0;
}
