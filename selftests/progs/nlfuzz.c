// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: a structure-aware fuzzer of the "systrace" generic netlink family.
 *
 *   nlfuzz [--seed S] [--count N] [--timeout SEC] [--workloads W]
 *          [--churn-probes] [-v]
 *
 * It knows every command of include/uapi/linux/systrace.h and what each
 * takes. An iteration either sends a datagram of one to four requests, each
 * a valid request of a random command with a few random mutations, or does
 * real work: a session made on a live workload, a dump of its processes,
 * sites or the session list (whole, or abandoned mid-dump on a socket that
 * is then closed), a session deleted. The mutations:
 *   attributes  dropped, duplicated, shuffled, added (known types with the
 *               wrong kind, unknown types, type 0, types above the maximum),
 *               retyped (u8, u16, u32, u64, string, binary, empty, nest),
 *               out-of-range values (pid 0, 1, 2, huge pids, session id 0,
 *               flag bits outside the mask, unknown counters, names without
 *               a NUL, of 31, 32 and 4096 bytes), NLA_F_NESTED and
 *               NLA_F_NET_BYTEORDER set, nests where a scalar is expected,
 *               nla_len shorter than its header, short, long, larger than
 *               the message, payloads without padding, trailing bytes,
 *               payloads of up to 15000 bytes
 *   messages    random nlmsg_flags (DUMP, ACK, ECHO, ROOT, MATCH, ATOMIC,
 *               reserved bits), genl command (unknown ones included) and
 *               version, a nonzero reserved field, other nlmsg types
 *               (control messages, nlctrl, unregistered families), nlmsg_pid,
 *               nlmsg_len cut into the genl header or the attributes, below
 *               a netlink header or past the datagram's end, a datagram
 *               ending in part of a header
 *
 * Checks, each of which ends the run with "nlfuzz: FAIL seed S iteration I:
 * WHAT" and exit status 1:
 *   - every request that must be answered (NLM_F_ACK set, or a dump
 *     request of a generic netlink type) is answered within --timeout
 *     seconds (default 10), by an ack, an error or the end of its dump;
 *   - every answer is well formed: acks parse, replies and dump messages
 *     are of the family, of the request's command, their attributes and
 *     the SESSION, PROC, SITE and PARAMS nests fill their message exactly,
 *     every process row and site row has a nonzero id;
 *   - the socket never overruns (ENOBUFS);
 *   - the real work works: a session made on an untraced workload is
 *     created (a reply with a new id and that root pid, then an ack), a
 *     known session is deleted, a dump of a known session ends without an
 *     error and its messages carry its id, an unknown id gets ENOENT;
 *   - at the end every session is deleted, the session list is empty,
 *     STATUS says 0 bytes and 0 live sessions, and every workload was still
 *     alive until it was killed;
 *   - a request stuck in the kernel (sendmsg never returns) is reported by
 *     a watchdog process when nothing progressed for --timeout + 5 s,
 *     with the kernel stack of the stuck process.
 *
 * Workloads (--workloads, default 3) are children that make 32 syscalls
 * every 5 ms and every 100 ms fork a child that execs /bin/true, exits with
 * a status, is killed by SIGKILL, or forks a grandchild. The real work
 * keeps at most max_sessions (STATUS) - 2 sessions.
 *
 * The anchor: workload 0 only makes syscalls, and a session on it lives
 * through the whole run (remade if a mutated request deletes it), so the
 * probes stay hooked. Without it (--churn-probes) the module unhooks its
 * probes whenever no session has a live task and hooks them again for the
 * next one, about 10 times per 1000 messages, each time turning five
 * static keys on and off. Multi-threaded TCG (QEMU 7.2) does not survive
 * that for long: a 6.1 guest locked up both vCPUs at the static-key site
 * of a tracepoint in do_exit after about 8000 messages (the same class of
 * failure that scripts/vm-run describes for 6.12). Churn in
 * single-threaded TCG guests (scripts/vm-run --tcg-thread single).
 *
 * Deterministic per seed: iteration I draws its choices from a generator
 * seeded with (S, I) alone, so a run is replayed by --seed S --count N.
 * Session ids and pids come from the live state and may differ between
 * runs. Without --seed a seed is taken from the clock. The first line of
 * stdout is "nlfuzz: seed S"; the last is the summary,
 *   nlfuzz: seed S, N messages (... mutated, ... unmutated, ... real work)
 *   in D datagrams, T s; answers by errno: 0 xA, EINVAL xB, ...; ...
 * and every 10000 messages a line "nlfuzz: N messages, T s" shows progress.
 * -v prints every request and its answer.
 *
 * Exit status: 0 when every check passed, 1 on a failed check, 2 on a
 * usage error, a local failure, or when the family is not registered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/systrace.h>
#include "genl.h"

#define KERNEL_PID_MAX_LIMIT	(4 * 1024 * 1024)	/* PID_MAX_LIMIT, 64-bit */
#define DGRAM_MAX	65536
#define DGRAM_ROOM	(DGRAM_MAX - 256)
#define BLOB_MAX	16384
#define MAX_ATTRS	16
#define MAX_BATCH	4
#define MAX_PEND	16
#define MAX_WORKLOADS	16
#define MAX_SESS	256
#define RBUF_SIZE	(1 << 20)
#define MAIN_RCVBUF	(8 << 20)

/* --- options, state, counters --------------------------------------------- */

static uint64_t seed;
static long count = 1000;
static int timeout_ms = 10000;
static int nwork = 3;
static int verbose;
static int churn;	/* no anchor: the probes come and go with the sessions */

static struct genl_sock nl;
static uint16_t family;
static uint32_t max_sessions = 16;
static pid_t workers[MAX_WORKLOADS];
static long iter;

struct sess {
	uint32_t id;
	uint32_t root;
	int ours;		/* made by the real work on a workload */
};
static struct sess sess[MAX_SESS];
static int nsess;
static int uncertain;	/* a request may have deleted a session unseen */
static uint32_t anchor_id;	/* the session on workload 0, 0: none */

static unsigned char dgram[DGRAM_MAX] __attribute__((aligned(NLMSG_ALIGNTO)));
static size_t dgram_len;
static unsigned char *rbuf;

static long n_msgs, n_mutated, n_plain, n_work, n_dgrams, n_unanswered;
static long n_late, n_made, n_deleted, n_dumps, n_rows, n_closed, n_intr;
static long n_anchors;
static long by_err[4096], by_err_other;

static struct timespec t_start;

/*
 * The watchdog, a child of its own, reads this: a request stuck in the
 * kernel (sendmsg never returns, so no receive timeout can fire) is still
 * reported with its seed, iteration and sequence number.
 */
struct beat {
	volatile long iter;
	volatile uint32_t seq;
	volatile int64_t stamp_ns;	/* CLOCK_MONOTONIC of the last progress */
	volatile int done;
};
static struct beat *beat;
static pid_t watchdog;

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void __attribute__((noreturn)) die(const char *what, int err);

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void beat_now(uint32_t seq)
{
	if (!beat)
		return;
	beat->iter = iter;
	if (seq)
		beat->seq = seq;
	beat->stamp_ns = now_ns();
}

static void watchdog_main(pid_t main_pid)
{
	int64_t limit = (int64_t)(timeout_ms + 5000) * 1000000;
	char path[64], stack[4096];
	ssize_t n;
	int fd, i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (getppid() == main_pid && !beat->done) {
		sleep(1);
		if (beat->done || now_ns() - beat->stamp_ns < limit)
			continue;
		printf("nlfuzz: FAIL seed %" PRIu64 " iteration %ld: no progress in %d s, the last request sent was seq %u: the process is stuck in the kernel\n",
		       seed, beat->iter, timeout_ms / 1000 + 5, beat->seq);
		snprintf(path, sizeof(path), "/proc/%d/stack", (int)main_pid);
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, stack, sizeof(stack) - 1) : -1;
		if (n > 0) {
			stack[n] = '\0';
			printf("nlfuzz: its kernel stack:\n%s", stack);
		}
		if (fd >= 0)
			close(fd);
		fflush(stdout);
		for (i = 0; i < nwork; i++)
			if (workers[i] > 0)
				kill(workers[i], SIGKILL);
		kill(main_pid, SIGKILL);
		_exit(1);
	}
	_exit(0);
}

static void start_watchdog(void)
{
	pid_t self = getpid(), p;

	beat = mmap(NULL, sizeof(*beat), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (beat == MAP_FAILED)
		die("mmap", errno);
	beat_now(0);
	fflush(stdout);
	p = fork();
	if (p < 0)
		die("fork", errno);
	if (p == 0)
		watchdog_main(self);
	watchdog = p;
}

static void kill_workloads(void)
{
	int i;

	if (watchdog > 0) {
		beat->done = 1;
		kill(watchdog, SIGKILL);
		waitpid(watchdog, NULL, 0);
		watchdog = 0;
	}
	for (i = 0; i < nwork; i++)
		if (workers[i] > 0) {
			kill(workers[i], SIGKILL);
			waitpid(workers[i], NULL, 0);
			workers[i] = 0;
		}
}

static void hexdump(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 1024; i++)
		fprintf(stderr, "%02x%s", p[i], i % 32 == 31 ? "\n" : " ");
	if (len > 1024)
		fprintf(stderr, "... (%zu bytes)", len);
	fprintf(stderr, "\n");
}

/* A failed check: say what, with the seed and the iteration, and stop. */
static void __attribute__((format(printf, 1, 2), noreturn)) fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("nlfuzz: FAIL seed %" PRIu64 " iteration %ld: ", seed, iter);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (dgram_len) {
		fprintf(stderr, "nlfuzz: the last datagram sent (%zu bytes):\n", dgram_len);
		hexdump(dgram, dgram_len);
	}
	kill_workloads();
	exit(1);
}

/* A local failure: not a finding about the kernel. */
static void __attribute__((noreturn)) die(const char *what, int err)
{
	fprintf(stderr, "nlfuzz: %s: %s\n", what, strerror(err));
	kill_workloads();
	exit(2);
}

static void count_errno(int error)
{
	int e = -error;

	if (e >= 0 && e < (int)(sizeof(by_err) / sizeof(by_err[0])))
		by_err[e]++;
	else
		by_err_other++;
}

static const char *errname(int error)
{
	const char *n;

	if (!error)
		return "0";
	n = strerrorname_np(-error);
	return n ? n : "?";
}

/* --- the generator: splitmix64, reseeded per iteration --------------------- */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(struct rng *r, uint32_t n)
{
	uint64_t v = rnd(r);

	return n ? (uint32_t)(v % n) : 0;
}

static int chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

static void rng_for_iteration(struct rng *r, long i)
{
	r->s = seed ^ ((uint64_t)i * 0xd1342543de82ef95ULL);
	rnd(r);
	rnd(r);
}

/* --- session bookkeeping ---------------------------------------------------- */

static int sess_find(uint32_t id)
{
	int i;

	for (i = 0; i < nsess; i++)
		if (sess[i].id == id)
			return i;
	return -1;
}

static void sess_add(uint32_t id, uint32_t root, int ours)
{
	int i = sess_find(id);

	if (i >= 0) {
		sess[i].root = root;
		sess[i].ours |= ours;
		return;
	}
	if (nsess < MAX_SESS)
		sess[nsess++] = (struct sess){ .id = id, .root = root, .ours = ours };
}

static void sess_remove(uint32_t id)
{
	int i = sess_find(id);

	if (i >= 0)
		sess[i] = sess[--nsess];
}

/* A session other than the anchor, -1 when there is none. */
static int pick_sess(struct rng *r)
{
	int i = nsess ? (int)below(r, nsess) : 0, k;

	for (k = 0; k < nsess; k++, i = (i + 1) % nsess)
		if (sess[i].id != anchor_id)
			return i;
	return -1;
}

/* A mutated session id never names the anchor on purpose. */
static uint32_t not_anchor(uint32_t id)
{
	return anchor_id && id == anchor_id ? id ^ 0x40000000 : id;
}

static int root_traced(uint32_t pid)
{
	int i;

	for (i = 0; i < nsess; i++)
		if (sess[i].root == pid)
			return 1;
	return 0;
}

/* --- workloads ---------------------------------------------------------------- */

/* A workload; the anchor's (quiet) only loops on syscalls. */
static void workload(int quiet)
{
	const struct timespec pause = { 0, 5000000 };
	struct timespec last, now;
	unsigned long n, spawned = 0;
	pid_t c;
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	clock_gettime(CLOCK_MONOTONIC, &last);
	for (n = 0;; n++) {
		syscall(SYS_getppid);
		close(-1);
		if (n % 16)
			continue;
		nanosleep(&pause, NULL);
		if (quiet)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - last.tv_sec) * 1000 +
		    (now.tv_nsec - last.tv_nsec) / 1000000 < 100)
			continue;
		last = now;
		c = fork();
		if (c == 0) {
			switch (spawned % 4) {
			case 0:
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			case 1:
				for (i = 0; i < 50; i++)
					syscall(SYS_getppid);
				_exit(3);
			case 2:
				kill(getpid(), SIGKILL);
				_exit(1);
			default:
				c = fork();
				if (c > 0)
					waitpid(c, NULL, 0);
				_exit(0);
			}
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		spawned++;
	}
}

static void start_workloads(void)
{
	int i;

	for (i = 0; i < nwork; i++) {
		pid_t p = fork();

		if (p < 0)
			die("fork", errno);
		if (p == 0) {
			workload(i == 0 && !churn);
			_exit(0);
		}
		workers[i] = p;
	}
}

/* --- answers -------------------------------------------------------------------- */

/* One request of the datagram, as the kernel will see it. */
struct pend {
	uint32_t seq;
	uint16_t type, flags;
	int cmd;		/* genl command, -1 when the message has none */
	int must;		/* the kernel must answer it */
	int answered;
	int error;		/* of its ack or its dump's end */
	int done;		/* the answer was an NLMSG_DONE */
	long replies;		/* data messages */
	long rows;		/* SESSION, PROC and SITE nests in them */
	int sid_seen;		/* PROC/SITE dumps: the SESSION_ID they carry */
	int sid_mixed;		/* ... and not always the same one */
	uint32_t r_id, r_root, r_state;	/* the first SESSION nest */
	int r_has;
	int collect;		/* rebuild the session table from its rows */
	char msg[256];		/* extack message, for -v */
	const char *desc;	/* how it was made, for -v */
};

static struct sess collected[MAX_SESS];
static int ncollected;

/*
 * Frames the datagram as netlink_rcv_skb() does: messages while a header
 * is left; one shorter than its header or longer than what is left ends
 * the walk. A message must be answered when it asks for an ack, or when it
 * is a dump request of a generic netlink type (its end, or its error).
 */
static int plan(struct pend *p, int max)
{
	size_t pos = 0;
	int n = 0;

	while (dgram_len - pos >= NLMSG_HDRLEN && n < max) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)(dgram + pos);

		if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > dgram_len - pos)
			break;
		memset(&p[n], 0, sizeof(p[n]));
		p[n].seq = h->nlmsg_seq;
		p[n].type = h->nlmsg_type;
		p[n].flags = h->nlmsg_flags;
		p[n].cmd = h->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN ?
			   ((const struct genlmsghdr *)NLMSG_DATA(h))->cmd : -1;
		p[n].must = (h->nlmsg_flags & NLM_F_ACK) ||
			    ((h->nlmsg_flags & NLM_F_REQUEST) &&
			     h->nlmsg_type >= NLMSG_MIN_TYPE &&
			     (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP);
		p[n].sid_seen = -1;
		n++;
		pos += NLMSG_ALIGN(h->nlmsg_len);
		if (pos > dgram_len)
			pos = dgram_len;
	}
	return n;
}

/* The attributes of head[0..len) fill it exactly (flag bits ignored). */
static int attrs_exact(const void *head, size_t len)
{
	const struct nlattr *a;
	size_t rem;

	genl_for_each_attr(a, head, len, rem)
		;
	return rem == 0;
}

/* Checks a SESSION, PROC, SITE or PARAMS nest of a reply. */
static void check_nest(const struct nlattr *nest, struct pend *q)
{
	const void *in = genl_attr_data(nest);
	size_t len = genl_attr_len(nest);
	int type = nest->nla_type & NLA_TYPE_MASK;
	uint64_t id64;
	uint32_t v;

	if (!attrs_exact(in, len))
		fail("a reply's nest of type %d is malformed (seq %u)", type, q->seq);
	switch (type) {
	case SYSTRACE_A_SESSION:
		q->rows++;
		if (genl_attr_u32(genl_attr_find(in, len, SYSTRACE_SESSION_A_ID), &v) || !v)
			fail("a SESSION nest without a valid id (seq %u)", q->seq);
		if (!q->r_has) {
			q->r_has = 1;
			q->r_id = v;
			genl_attr_u32(genl_attr_find(in, len, SYSTRACE_SESSION_A_ROOT_PID),
				      &q->r_root);
			genl_attr_u32(genl_attr_find(in, len, SYSTRACE_SESSION_A_STATE),
				      &q->r_state);
		}
		if (q->collect && ncollected < MAX_SESS) {
			uint32_t root = 0;

			genl_attr_u32(genl_attr_find(in, len, SYSTRACE_SESSION_A_ROOT_PID), &root);
			collected[ncollected++] = (struct sess){ .id = v, .root = root };
		}
		break;
	case SYSTRACE_A_PROC:
		q->rows++;
		if (genl_attr_u64(genl_attr_find(in, len, SYSTRACE_PROC_A_ID), &id64) || !id64)
			fail("a PROC row without a valid id (seq %u)", q->seq);
		break;
	case SYSTRACE_A_SITE:
		q->rows++;
		if (genl_attr_u64(genl_attr_find(in, len, SYSTRACE_SITE_A_PROC_ID), &id64) ||
		    !id64)
			fail("a SITE row without a valid process id (seq %u)", q->seq);
		break;
	}
}

/* A data message answering q: of the family, of q's command, well formed. */
static void check_reply(const struct nlmsghdr *nlh, struct pend *q)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *attrs, *a;
	size_t len, rem;
	uint32_t v;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		fail("a reply without a genl header (seq %u, type %u)", q->seq,
		     nlh->nlmsg_type);
	if (nlh->nlmsg_type != family && nlh->nlmsg_type != GENL_ID_CTRL)
		fail("a reply of type %u to a request of type %u (seq %u)",
		     nlh->nlmsg_type, q->type, q->seq);
	if (nlh->nlmsg_type != q->type)
		fail("a reply of type %u to a request of type %u (seq %u)",
		     nlh->nlmsg_type, q->type, q->seq);
	attrs = genl_msg_attrs(nlh, &len);
	if (!attrs_exact(attrs, len))
		fail("a reply's attributes do not fill it (seq %u, cmd %u)", q->seq, g->cmd);
	if (nlh->nlmsg_type != family)
		return;
	if (g->cmd != q->cmd)
		fail("a reply of command %u to a request of command %d (seq %u)",
		     g->cmd, q->cmd, q->seq);
	if (g->cmd == SYSTRACE_CMD_PROC_GET || g->cmd == SYSTRACE_CMD_SITE_GET) {
		if (genl_attr_u32(genl_attr_find(attrs, len, SYSTRACE_A_SESSION_ID), &v))
			fail("a dump message without its session id (seq %u)", q->seq);
		if (q->sid_seen >= 0 && (uint32_t)q->sid_seen != v)
			q->sid_mixed = 1;
		q->sid_seen = (int)v;
	}
	genl_for_each_attr(a, attrs, len, rem)
		switch (a->nla_type & NLA_TYPE_MASK) {
		case SYSTRACE_A_SESSION:
		case SYSTRACE_A_PROC:
		case SYSTRACE_A_SITE:
		case SYSTRACE_A_PARAMS:
			check_nest(a, q);
			break;
		}
	if (g->cmd == SYSTRACE_CMD_SESSION_NEW && q->r_has)
		sess_add(q->r_id, q->r_root, 0);
}

static struct pend *find_pend(struct pend *p, int n, uint32_t seq)
{
	int i;

	for (i = 0; i < n; i++)
		if (p[i].seq == seq)
			return &p[i];
	return NULL;
}

static void dispatch(const unsigned char *buf, size_t len, struct pend *p, int n)
{
	const struct nlmsghdr *nlh;
	size_t rem = len;

	for (nlh = (const struct nlmsghdr *)buf; NLMSG_OK(nlh, rem);
	     nlh = NLMSG_NEXT(nlh, rem)) {
		struct pend *q = find_pend(p, n, nlh->nlmsg_seq);
		struct genl_ack ack;

		if (!q || q->answered) {
			/* An answer to nothing we wait for. */
			n_late++;
			if (verbose)
				printf("nlfuzz: i=%ld late message type %u seq %u\n",
				       iter, nlh->nlmsg_type, nlh->nlmsg_seq);
			continue;
		}
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			n_intr++;
		if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE) {
			if (genl_parse_ack(nlh, &ack))
				fail("a malformed %s (seq %u, %u bytes)",
				     nlh->nlmsg_type == NLMSG_DONE ? "NLMSG_DONE" : "ack",
				     nlh->nlmsg_seq, nlh->nlmsg_len);
			q->answered = 1;
			q->error = ack.error;
			q->done = nlh->nlmsg_type == NLMSG_DONE;
			snprintf(q->msg, sizeof(q->msg), "%s", ack.msg);
			count_errno(ack.error);
			continue;
		}
		q->replies++;
		check_reply(nlh, q);
	}
	if (rem)
		fail("%zu bytes after the last whole message of a datagram from the kernel",
		     rem);
}

/*
 * Sends the datagram in dgram on s and reads until every message of it
 * that must be answered is, then takes whatever else is already queued
 * (the kernel answers a request while sendmsg runs; only dumps go on as
 * they are read).
 */
static void exchange(struct genl_sock *s, struct pend *p, int n)
{
	int err, i, left;
	ssize_t r;

	beat_now(n ? p[0].seq : 0);
	err = genl_send(s, dgram, dgram_len);
	beat_now(0);
	if (err)
		fail("sendmsg of a %zu-byte datagram: %s", dgram_len, strerror(-err));
	n_dgrams++;
	for (;;) {
		left = 0;
		for (i = 0; i < n; i++)
			left += p[i].must && !p[i].answered;
		r = genl_recv(s, rbuf, RBUF_SIZE, left ? timeout_ms : 0);
		beat_now(0);
		if (r == -EAGAIN) {
			if (!left)
				break;
			for (i = 0; i < n && !(p[i].must && !p[i].answered); i++)
				;
			fail("no answer in %d s to request seq %u (message %d of %d: type %u, flags %#x, cmd %d)",
			     timeout_ms / 1000, p[i].seq, i + 1, n, p[i].type,
			     p[i].flags, p[i].cmd);
		}
		if (r == -ENOBUFS)
			fail("the socket overran (ENOBUFS): answers were lost");
		if (r < 0)
			fail("recv: %s", strerror((int)-r));
		dispatch(rbuf, (size_t)r, p, n);
	}
	for (i = 0; i < n; i++) {
		if (!p[i].answered)
			n_unanswered++;
		if (verbose)
			printf("nlfuzz: i=%ld seq=%u type=%u flags=%#x cmd=%d %s-> %s%s%s%s (%ld replies, %ld rows)\n",
			       iter, p[i].seq, p[i].type, p[i].flags, p[i].cmd,
			       p[i].desc ? p[i].desc : "", !p[i].answered ? "none" :
			       p[i].done ? "done " : "", p[i].answered ? errname(p[i].error) : "",
			       p[i].msg[0] ? " " : "", p[i].msg, p[i].replies, p[i].rows);
	}
}

/* --- the real work ------------------------------------------------------------------ */

/* One well-formed request in dgram; returns its pend slot. */
static struct nlmsghdr *work_begin(struct genl_msg *m, uint16_t flags, uint8_t cmd)
{
	genl_msg_init(m, dgram, sizeof(dgram));
	return genl_msg_begin(m, family, NLM_F_REQUEST | flags, genl_seq(&nl), cmd,
			      SYSTRACE_GENL_VERSION);
}

static void work_send(struct genl_msg *m, struct pend *p, const char *desc)
{
	int n;

	genl_msg_end(m);
	dgram_len = m->len;
	n = plan(p, 1);
	if (n != 1)
		die("a request of the real work did not frame", EINVAL);
	p->desc = desc;
	n_msgs++;
	n_work++;
	exchange(&nl, p, 1);
}

static void expect_ok(const struct pend *p, const char *what)
{
	if (!p->answered || p->error)
		fail("%s: %s%s%s", what, p->answered ? errname(p->error) : "no answer",
		     p->msg[0] ? ", " : "", p->msg);
}

static void work_status(void)
{
	struct genl_msg m;
	struct pend p;

	work_begin(&m, NLM_F_ACK, SYSTRACE_CMD_STATUS);
	work_send(&m, &p, "work:status ");
	expect_ok(&p, "STATUS");
	if (p.replies != 1)
		fail("STATUS: %ld replies, expected 1", p.replies);
}

/* The session list, dumped whole, becomes the table. */
static void make_anchor(void);

static void work_resync(void)
{
	struct genl_msg m;
	struct pend p;
	int i, j;

	work_begin(&m, NLM_F_DUMP, SYSTRACE_CMD_SESSION_GET);
	ncollected = 0;
	genl_msg_end(&m);
	dgram_len = m.len;
	plan(&p, 1);
	p.collect = 1;
	p.desc = "work:sessions ";
	n_msgs++;
	n_work++;
	exchange(&nl, &p, 1);
	if (!p.done || p.error)
		fail("the dump of the session list: %s%s%s",
		     p.done ? errname(p.error) : "no NLMSG_DONE", p.msg[0] ? ", " : "", p.msg);
	n_dumps++;
	n_rows += p.rows;
	for (i = 0; i < ncollected; i++) {
		j = sess_find(collected[i].id);
		collected[i].ours = j >= 0 && sess[j].ours;
	}
	memcpy(sess, collected, sizeof(collected[0]) * ncollected);
	nsess = ncollected;
	uncertain = 0;
	if (anchor_id && sess_find(anchor_id) < 0) {
		/* A mutated request deleted it after all: a new one. */
		anchor_id = 0;
		make_anchor();
	}
}

/* Deletes a session the table holds: it must go. */
static void del_known(uint32_t id, const char *desc)
{
	struct genl_msg m;
	struct pend p;

	work_begin(&m, NLM_F_ACK, SYSTRACE_CMD_SESSION_DEL);
	genl_put_u32(&m, SYSTRACE_A_SESSION_ID, id);
	work_send(&m, &p, desc);
	expect_ok(&p, "SESSION_DEL of a live session");
	sess_remove(id);
	n_deleted++;
}

static void work_del(struct rng *r, int force_known)
{
	struct genl_msg m;
	struct pend p;
	uint32_t id;
	int known;

	if (uncertain)
		work_resync();
	known = pick_sess(r) >= 0 && (force_known || chance(r, 85));
	if (known) {
		del_known(sess[pick_sess(r)].id, "work:del ");
		return;
	}
	do
		id = 1 + below(r, 0x7fffffff);
	while (sess_find(id) >= 0);
	work_begin(&m, NLM_F_ACK, SYSTRACE_CMD_SESSION_DEL);
	genl_put_u32(&m, SYSTRACE_A_SESSION_ID, id);
	work_send(&m, &p, "work:del-unknown ");
	if (!p.answered || p.error != -ENOENT) {
		fail("SESSION_DEL of unknown session %u: %s, expected ENOENT", id,
		     p.answered ? errname(p.error) : "no answer");
	}
}

/* A session on workload w, which no session traces: it must be made. */
static uint32_t session_new_on(int w, const char *desc)
{
	struct genl_msg m;
	struct pend p;

	work_begin(&m, NLM_F_ACK, SYSTRACE_CMD_SESSION_NEW);
	genl_put_u32(&m, SYSTRACE_A_PID, (uint32_t)workers[w]);
	work_send(&m, &p, desc);
	expect_ok(&p, "SESSION_NEW on an untraced workload");
	if (p.replies != 1 || !p.r_has)
		fail("SESSION_NEW: %ld replies, %s session nest", p.replies,
		     p.r_has ? "a" : "no");
	if (p.r_root != (uint32_t)workers[w] || p.r_state != SYSTRACE_STATE_RUNNING)
		fail("SESSION_NEW on pid %d: session %u has root pid %u, state %u (expected %u)",
		     workers[w], p.r_id, p.r_root, p.r_state, SYSTRACE_STATE_RUNNING);
	sess_add(p.r_id, p.r_root, 1);
	n_made++;
	return p.r_id;
}

/*
 * The anchor: a session on the quiet workload 0 kept for the whole run, so
 * that the probes stay hooked and the kernel flips no static key while
 * sessions come and go (see --churn-probes).
 */
static void make_anchor(void)
{
	int i;

	if (churn)
		return;
	for (i = 0; i < nsess; i++)
		if (sess[i].root == (uint32_t)workers[0]) {
			anchor_id = sess[i].id;
			return;
		}
	while (nsess > 0 && (uint32_t)nsess + 1 > max_sessions)
		del_known(sess[0].id, "work:del ");
	anchor_id = session_new_on(0, "work:anchor ");
	n_anchors++;
}

static void work_new(struct rng *r)
{
	int i, w = -1, start, first = churn ? 0 : 1;

	if (uncertain)
		work_resync();
	while ((uint32_t)nsess + 2 > max_sessions && pick_sess(r) >= 0)
		work_del(r, 1);
	start = (int)below(r, nwork);
	for (i = 0; i < nwork; i++) {
		int k = (start + i) % nwork;

		if (k >= first && !root_traced(workers[k])) {
			w = k;
			break;
		}
	}
	if (w < 0) {
		work_del(r, 1);
		return;
	}
	session_new_on(w, "work:new ");
}

static void work_get(struct rng *r)
{
	struct genl_msg m;
	struct pend p;
	uint32_t id;

	if (uncertain)
		work_resync();
	if (!nsess) {
		work_status();
		return;
	}
	id = sess[below(r, nsess)].id;
	work_begin(&m, NLM_F_ACK, SYSTRACE_CMD_SESSION_GET);
	genl_put_u32(&m, SYSTRACE_A_SESSION_ID, id);
	work_send(&m, &p, "work:get ");
	expect_ok(&p, "SESSION_GET of a live session");
	if (p.replies != 1 || !p.r_has || p.r_id != id)
		fail("SESSION_GET %u: %ld replies, session %u", id, p.replies, p.r_id);
}

static void work_dump(struct rng *r, uint8_t cmd)
{
	struct genl_msg m;
	struct pend p;
	int i;

	if (uncertain)
		work_resync();
	if (!nsess) {
		work_resync();
		return;
	}
	i = (int)below(r, nsess);
	work_begin(&m, NLM_F_DUMP | (chance(r, 50) ? NLM_F_ACK : 0), cmd);
	genl_put_u32(&m, SYSTRACE_A_SESSION_ID, sess[i].id);
	work_send(&m, &p, cmd == SYSTRACE_CMD_PROC_GET ? "work:procs " : "work:sites ");
	if (!p.done || p.error)
		fail("the dump of %s of session %u: %s%s%s",
		     cmd == SYSTRACE_CMD_PROC_GET ? "the processes" : "the sites", sess[i].id,
		     p.done ? errname(p.error) : p.answered ? errname(p.error) : "no answer",
		     p.msg[0] ? ", " : "", p.msg);
	if (p.sid_mixed || (p.replies && (uint32_t)p.sid_seen != sess[i].id))
		fail("the dump of session %u carries session id %d", sess[i].id, p.sid_seen);
	if (cmd == SYSTRACE_CMD_PROC_GET && sess[i].ours && p.rows < 1)
		fail("the dump of the processes of session %u (root %u): no row",
		     sess[i].id, sess[i].root);
	n_dumps++;
	n_rows += p.rows;
}

/*
 * A dump on a socket of its own, with a small or a default receive buffer,
 * abandoned after 0, 1 or 2 messages by closing the socket.
 */
static void work_dump_close(struct rng *r)
{
	static const uint8_t cmds[] = { SYSTRACE_CMD_PROC_GET, SYSTRACE_CMD_SITE_GET,
					SYSTRACE_CMD_SESSION_GET };
	uint8_t cmd = cmds[below(r, 3)];
	int want = (int)below(r, 3), got = 0, done = 0, err;
	struct genl_sock side;
	struct genl_msg m;
	uint32_t id = nsess ? sess[below(r, nsess)].id : 1 + below(r, 100);

	err = genl_open(&side, 0, chance(r, 50) ? 4096 : 0);
	if (err)
		die("socket", -err);
	genl_msg_init(&m, dgram, sizeof(dgram));
	genl_msg_begin(&m, family, NLM_F_REQUEST | NLM_F_DUMP, genl_seq(&side), cmd,
		       SYSTRACE_GENL_VERSION);
	genl_put_u32(&m, SYSTRACE_A_SESSION_ID, id);
	genl_msg_end(&m);
	dgram_len = m.len;
	beat_now(side.seq);
	err = genl_send(&side, dgram, dgram_len);
	beat_now(0);
	if (err)
		fail("sendmsg of a dump request: %s", strerror(-err));
	n_msgs++;
	n_work++;
	n_dgrams++;
	while (got < want && !done) {
		ssize_t n = genl_recv(&side, rbuf, RBUF_SIZE, timeout_ms);
		const struct nlmsghdr *nlh;
		size_t rem;

		beat_now(0);
		if (n == -EAGAIN)
			fail("no answer in %d s to a dump request (cmd %u) on a socket of its own",
			     timeout_ms / 1000, cmd);
		if (n < 0)
			fail("recv on a dump's own socket: %s", strerror((int)-n));
		rem = (size_t)n;
		for (nlh = (const struct nlmsghdr *)rbuf; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			got++;
			if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR)
				done = 1;
		}
	}
	if (verbose)
		printf("nlfuzz: i=%ld work:dump-close cmd=%u session %u: closed after %d of %d messages%s\n",
		       iter, cmd, id, got, want, done ? " (it had ended)" : "");
	genl_close(&side);	/* the kernel ends the dump: its done() runs */
	beat_now(0);
	n_closed++;
}

/* Asks nlctrl for the family's policies: the policy dump walks every op. */
static void work_policy(void)
{
	struct genl_msg m;
	struct pend p;

	genl_msg_init(&m, dgram, sizeof(dgram));
	genl_msg_begin(&m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP, genl_seq(&nl),
		       CTRL_CMD_GETPOLICY, 1);
	genl_put_u16(&m, CTRL_ATTR_FAMILY_ID, family);
	work_send(&m, &p, "work:policy ");
	if (!p.done || p.error || p.replies < 1)
		fail("nlctrl's policy dump of the family: %s, %ld messages",
		     p.done ? errname(p.error) : "no NLMSG_DONE", p.replies);
}

static void real_work(struct rng *r)
{
	uint32_t k = below(r, 100);

	if (k < 25)
		work_new(r);
	else if (k < 42)
		work_del(r, 0);
	else if (k < 57)
		work_dump(r, SYSTRACE_CMD_PROC_GET);
	else if (k < 67)
		work_dump(r, SYSTRACE_CMD_SITE_GET);
	else if (k < 75)
		work_resync();
	else if (k < 80)
		work_get(r);
	else if (k < 95)
		work_dump_close(r);
	else if (k < 98)
		work_status();
	else
		work_policy();
}

/* --- mutated requests ------------------------------------------------------------------ */

/* One top-level attribute, bytes as they will be sent. */
struct blob {
	size_t len;		/* with the padding */
	size_t raw;		/* without it */
	unsigned char b[BLOB_MAX] __attribute__((aligned(NLA_ALIGNTO)));
};

struct fmsg {
	uint16_t type, flags, reserved;
	uint8_t cmd, version;
	uint32_t portid;
	int nattrs;
	struct blob *attrs[MAX_ATTRS];
	int unaligned;		/* attribute sent without its padding, -1: none */
	unsigned char trail[8];
	int ntrail;
	long cut;		/* nlmsg_len cut to this and the bytes too, 0: no */
	long stop;		/* nlmsg_len below a header, -1: no */
	int over;		/* nlmsg_len past the datagram's end */
	int nmut;
	char desc[160];
};

static struct blob pool[MAX_BATCH * MAX_ATTRS + 4];
static int npool;

static struct blob *blob_new(void)
{
	if (npool >= (int)(sizeof(pool) / sizeof(pool[0])))
		return NULL;
	return &pool[npool++];
}

static void desc_add(struct fmsg *f, const char *fmt, ...)
{
	size_t l = strlen(f->desc);
	va_list ap;

	if (l >= sizeof(f->desc) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(f->desc + l, sizeof(f->desc) - l, fmt, ap);
	va_end(ap);
}

enum kind { K_U8, K_U16, K_U32, K_U64, K_STR, K_BIN, K_EMPTY, K_NEST, K_NKINDS };

static uint32_t some_u32(struct rng *r)
{
	static const uint32_t v[] = { 0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0xffff,
				      0x10000, 0x7fffffff, 0x80000000, 0xfffffffe,
				      0xffffffff };

	return chance(r, 60) ? v[below(r, sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd(r);
}

static uint32_t workload_pid(struct rng *r)
{
	return (uint32_t)workers[below(r, nwork)];
}

static uint32_t fuzz_pid(struct rng *r)
{
	switch (below(r, 12)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 2;		/* kthreadd: a kernel thread */
	case 3: return (uint32_t)getpid();
	case 4: return (uint32_t)getppid();
	case 5: return KERNEL_PID_MAX_LIMIT;
	case 6: return KERNEL_PID_MAX_LIMIT + 1;
	case 7: return 0xffffffff;
	case 8: return 0x80000000;
	case 9: return below(r, 32768);
	default: return workload_pid(r);
	}
}

static uint32_t valid_sid(struct rng *r)
{
	int i = pick_sess(r);

	return i >= 0 ? sess[i].id : not_anchor(1 + below(r, 64));
}

static uint32_t fuzz_sid(struct rng *r)
{
	switch (below(r, 7)) {
	case 0: return 0;
	case 1: return not_anchor(1);
	case 2: return not_anchor(valid_sid(r) + 1);
	case 3: return 0xffffffff;
	case 4: return not_anchor((uint32_t)rnd(r));
	default: return valid_sid(r);
	}
}

/* The flags defined; the bits above are reserved. */
#define FLAG_BITS (32 - __builtin_clz(SYSTRACE_SESSION_F_ALL))

static uint32_t fuzz_flags(struct rng *r)
{
	switch (below(r, 6)) {
	case 0: return 0;
	case 1: return SYSTRACE_SESSION_F_ON_EXEC;
	case 2: return 1U << (FLAG_BITS + below(r, 32 - FLAG_BITS));
	case 3: return 0xffffffff;
	case 4: return SYSTRACE_SESSION_F_ALL | (1U << (FLAG_BITS + below(r, 32 - FLAG_BITS)));
	default: return (uint32_t)rnd(r);
	}
}

static uint32_t fuzz_counters(struct rng *r)
{
	return chance(r, 60) ? below(r, SYSTRACE_COUNTERS_MAX + 3) : some_u32(r);
}

/* A name: valid, or without a NUL, too long, empty, odd bytes. */
static size_t fuzz_name(struct rng *r, char *buf, size_t cap, int valid)
{
	size_t len, i;

	if (valid || chance(r, 20)) {
		len = (size_t)snprintf(buf, cap, "fz%u", below(r, 100000));
		return len + 1;
	}
	switch (below(r, 8)) {
	case 0:				/* no NUL */
		memcpy(buf, "abc", 3);
		return 3;
	case 1:				/* the longest valid name */
		memset(buf, 'n', SYSTRACE_NAME_MAX - 1);
		buf[SYSTRACE_NAME_MAX - 1] = '\0';
		return SYSTRACE_NAME_MAX;
	case 2:				/* one byte too long */
		memset(buf, 'n', SYSTRACE_NAME_MAX);
		buf[SYSTRACE_NAME_MAX] = '\0';
		return SYSTRACE_NAME_MAX + 1;
	case 3:				/* empty, with its NUL */
		buf[0] = '\0';
		return 1;
	case 4:				/* nothing at all */
		return 0;
	case 5:				/* a NUL inside */
		memcpy(buf, "ab\0cd", 6);
		return 6;
	case 6:				/* 4096 bytes */
		len = 4096 < cap ? 4096 : cap - 1;
		memset(buf, 'x', len - 1);
		buf[len - 1] = '\0';
		return len;
	default:			/* random bytes, some with a NUL */
		len = 1 + below(r, 40);
		for (i = 0; i < len; i++)
			buf[i] = (char)rnd(r);
		return len;
	}
}

/* Puts an attribute of type with a random payload of kind. */
static void put_kind(struct rng *r, struct genl_msg *m, uint16_t type, int kind, int depth)
{
	unsigned char tmp[2048];
	size_t len, i, off;
	int n;

	switch (kind) {
	case K_U8:
		genl_put_u8(m, type, (uint8_t)some_u32(r));
		break;
	case K_U16:
		genl_put_u16(m, type, (uint16_t)some_u32(r));
		break;
	case K_U32:
		genl_put_u32(m, type, some_u32(r));
		break;
	case K_U64:
		genl_put_u64(m, type, chance(r, 50) ? some_u32(r) : rnd(r));
		break;
	case K_STR:
		len = fuzz_name(r, (char *)tmp, sizeof(tmp), 0);
		genl_put(m, type, tmp, len);
		break;
	case K_BIN:
		len = 1 + below(r, depth || chance(r, 90) ? 64 : sizeof(tmp));
		for (i = 0; i < len; i++)
			tmp[i] = (unsigned char)rnd(r);
		genl_put(m, type, tmp, len);
		break;
	case K_EMPTY:
		genl_put(m, type, NULL, 0);
		break;
	default:
		off = genl_nest_start(m, type | (chance(r, 70) ? NLA_F_NESTED : 0));
		n = (int)below(r, 5);
		while (n-- > 0)
			put_kind(r, m, (uint16_t)below(r, 40),
				 (int)below(r, depth < 4 ? K_NKINDS : K_NEST), depth + 1);
		genl_nest_end(m, off);
		break;
	}
}

/* Puts an attribute the way its role in the family wants it, or not. */
static void put_role(struct rng *r, struct genl_msg *m, uint16_t type, int valid)
{
	char name[4200];
	size_t len;

	switch (type) {
	case SYSTRACE_A_PID:
		genl_put_u32(m, type, valid ? workload_pid(r) : fuzz_pid(r));
		break;
	case SYSTRACE_A_SESSION_ID:
		genl_put_u32(m, type, valid ? valid_sid(r) : fuzz_sid(r));
		break;
	case SYSTRACE_A_NAME:
		len = fuzz_name(r, name, sizeof(name), valid);
		genl_put(m, type, name, len);
		break;
	case SYSTRACE_A_FLAGS:
		genl_put_u32(m, type, valid ? (chance(r, 80) ? 0 : SYSTRACE_SESSION_F_ON_EXEC) :
					      fuzz_flags(r));
		break;
	case SYSTRACE_A_COUNTERS:
		genl_put_u32(m, type, valid ? below(r, SYSTRACE_COUNTERS_MAX + 1) :
					      fuzz_counters(r));
		break;
	default:
		put_kind(r, m, type, (int)below(r, K_NKINDS), 0);
		break;
	}
}

/* Makes blob b one attribute built by fn. */
static struct blob *blob_role(struct rng *r, uint16_t type, int valid)
{
	struct blob *b = blob_new();
	struct genl_msg m;

	if (!b)
		return NULL;
	genl_msg_init(&m, b->b, sizeof(b->b));
	put_role(r, &m, type, valid);
	b->len = m.overflow ? 0 : m.len;
	b->raw = b->len ? ((struct nlattr *)b->b)->nla_len : 0;
	return b;
}

static struct blob *blob_kind(struct rng *r, uint16_t type, int kind)
{
	struct blob *b = blob_new();
	struct genl_msg m;

	if (!b)
		return NULL;
	genl_msg_init(&m, b->b, sizeof(b->b));
	put_kind(r, &m, type, kind, 0);
	b->len = m.overflow ? 0 : m.len;
	b->raw = b->len ? ((struct nlattr *)b->b)->nla_len : 0;
	return b;
}

/* A large payload: 1000 to 15000 bytes. */
static struct blob *blob_huge(struct rng *r, uint16_t type)
{
	struct blob *b = blob_new();
	size_t len = 1000 + below(r, 14001);
	struct nlattr *a;

	if (!b)
		return NULL;
	a = (struct nlattr *)b->b;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memset(b->b + NLA_HDRLEN, chance(r, 50) ? 'a' : 0, len);
	if (chance(r, 50))
		b->b[NLA_HDRLEN + len - 1] = '\0';
	memset(b->b + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	b->raw = NLA_HDRLEN + len;
	b->len = NLA_HDRLEN + NLA_ALIGN(len);
	return b;
}

static void add_attr(struct fmsg *f, struct blob *b)
{
	if (b && b->len && f->nattrs < MAX_ATTRS)
		f->attrs[f->nattrs++] = b;
}

/* A valid request of cmd. */
static void base_msg(struct rng *r, struct fmsg *f, uint8_t cmd)
{
	memset(f, 0, sizeof(*f));
	f->type = family;
	f->flags = NLM_F_REQUEST | NLM_F_ACK;
	f->cmd = cmd;
	f->version = SYSTRACE_GENL_VERSION;
	f->unaligned = -1;
	f->stop = -1;
	switch (cmd) {
	case SYSTRACE_CMD_SESSION_NEW:
		add_attr(f, blob_role(r, SYSTRACE_A_PID, 1));
		if (chance(r, 30))
			add_attr(f, blob_role(r, SYSTRACE_A_NAME, 1));
		if (chance(r, 20))
			add_attr(f, blob_role(r, SYSTRACE_A_FLAGS, 1));
		if (chance(r, 20))
			add_attr(f, blob_role(r, SYSTRACE_A_COUNTERS, 1));
		break;
	case SYSTRACE_CMD_SESSION_DEL:
	case SYSTRACE_CMD_SESSION_DETACH:
		add_attr(f, blob_role(r, SYSTRACE_A_SESSION_ID, 1));
		break;
	case SYSTRACE_CMD_SESSION_GET:
		if (chance(r, 50))
			f->flags |= NLM_F_DUMP;
		else
			add_attr(f, blob_role(r, SYSTRACE_A_SESSION_ID, 1));
		break;
	case SYSTRACE_CMD_PROC_GET:
	case SYSTRACE_CMD_SITE_GET:
		f->flags |= NLM_F_DUMP;
		add_attr(f, blob_role(r, SYSTRACE_A_SESSION_ID, 1));
		break;
	default:
		break;
	}
}

enum mut {
	MU_DROP, MU_DUP, MU_SHUFFLE, MU_ADD_KNOWN, MU_ADD_UNKNOWN, MU_RETYPE,
	MU_VALUE, MU_NEST, MU_FLAGBITS, MU_LEN, MU_UNALIGN, MU_TRAIL, MU_HUGE,
	MU_NLFLAGS, MU_CMD, MU_VERSION, MU_RESERVED, MU_TYPE, MU_PORTID, MU_NLLEN,
	MU_N
};

static const unsigned int mut_weight[MU_N] = {
	[MU_DROP] = 8, [MU_DUP] = 6, [MU_SHUFFLE] = 3, [MU_ADD_KNOWN] = 10,
	[MU_ADD_UNKNOWN] = 6, [MU_RETYPE] = 8, [MU_VALUE] = 14, [MU_NEST] = 5,
	[MU_FLAGBITS] = 4, [MU_LEN] = 8, [MU_UNALIGN] = 3, [MU_TRAIL] = 3,
	[MU_HUGE] = 2, [MU_NLFLAGS] = 8, [MU_CMD] = 6, [MU_VERSION] = 2,
	[MU_RESERVED] = 2, [MU_TYPE] = 2, [MU_PORTID] = 2, [MU_NLLEN] = 4,
};

static enum mut pick_mut(struct rng *r)
{
	unsigned int total = 0, k;
	int i;

	for (i = 0; i < MU_N; i++)
		total += mut_weight[i];
	k = below(r, total);
	for (i = 0; i < MU_N; i++) {
		if (k < mut_weight[i])
			return (enum mut)i;
		k -= mut_weight[i];
	}
	return MU_VALUE;
}

static const uint16_t some_nlflags[] = {
	0,
	NLM_F_REQUEST,
	NLM_F_REQUEST | NLM_F_ACK,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO,
	NLM_F_REQUEST | NLM_F_DUMP,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO | NLM_F_DUMP,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_ROOT,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_MATCH,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_ATOMIC,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP | NLM_F_ATOMIC,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_MULTI,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP_INTR,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP_FILTERED,
	NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
	NLM_F_ACK,
	NLM_F_ACK | NLM_F_DUMP,
};

static void mutate(struct rng *r, struct fmsg *f, int last)
{
	enum mut mu = pick_mut(r);
	struct nlattr *a;
	struct blob *b;
	int i = f->nattrs ? (int)below(r, f->nattrs) : -1;
	uint16_t type;

	/* Mutations of an attribute add one when there is none. */
	if (i < 0 && (mu == MU_DROP || mu == MU_DUP || mu == MU_SHUFFLE || mu == MU_RETYPE ||
		      mu == MU_VALUE || mu == MU_FLAGBITS || mu == MU_LEN || mu == MU_UNALIGN))
		mu = MU_ADD_KNOWN;
	f->nmut++;
	switch (mu) {
	case MU_DROP:
		desc_add(f, "drop#%d ", i);
		f->attrs[i] = f->attrs[--f->nattrs];
		if (f->unaligned >= f->nattrs)
			f->unaligned = -1;
		break;
	case MU_DUP:
		desc_add(f, "dup#%d ", i);
		if (chance(r, 50)) {
			add_attr(f, f->attrs[i]);
		} else {
			type = ((struct nlattr *)f->attrs[i]->b)->nla_type & NLA_TYPE_MASK;
			add_attr(f, blob_role(r, type, chance(r, 50)));
		}
		break;
	case MU_SHUFFLE: {
		int j = (int)below(r, f->nattrs);

		desc_add(f, "swap#%d#%d ", i, j);
		b = f->attrs[i];
		f->attrs[i] = f->attrs[j];
		f->attrs[j] = b;
		if (f->unaligned == i || f->unaligned == j)
			f->unaligned = f->unaligned == i ? j : i;
		break;
	}
	case MU_ADD_KNOWN:
		type = (uint16_t)(1 + below(r, SYSTRACE_A_MAX));
		desc_add(f, "add:%u ", type);
		add_attr(f, chance(r, 50) ? blob_role(r, type, chance(r, 50)) :
					    blob_kind(r, type, (int)below(r, K_NKINDS)));
		break;
	case MU_ADD_UNKNOWN:
		switch (below(r, 4)) {
		case 0: type = 0; break;
		case 1: type = SYSTRACE_A_MAX + 1; break;
		case 2: type = (uint16_t)(SYSTRACE_A_MAX + 2 + below(r, 64)); break;
		default: type = (uint16_t)below(r, NLA_TYPE_MASK + 1); break;
		}
		desc_add(f, "add?%u ", type);
		add_attr(f, blob_kind(r, type, (int)below(r, K_NKINDS)));
		break;
	case MU_RETYPE:
		type = ((struct nlattr *)f->attrs[i]->b)->nla_type & NLA_TYPE_MASK;
		b = blob_kind(r, type, (int)below(r, K_NKINDS));
		desc_add(f, "retype#%d ", i);
		if (b && b->len)
			f->attrs[i] = b;
		break;
	case MU_VALUE:
		type = ((struct nlattr *)f->attrs[i]->b)->nla_type & NLA_TYPE_MASK;
		b = blob_role(r, type, 0);
		desc_add(f, "value#%d ", i);
		if (b && b->len)
			f->attrs[i] = b;
		break;
	case MU_NEST:
		type = i >= 0 && chance(r, 70) ?
		       ((struct nlattr *)f->attrs[i]->b)->nla_type & NLA_TYPE_MASK :
		       (uint16_t)(1 + below(r, SYSTRACE_A_MAX));
		b = blob_kind(r, type, K_NEST);
		desc_add(f, "nest:%u ", type);
		if (b && b->len) {
			if (i >= 0 && chance(r, 70))
				f->attrs[i] = b;
			else
				add_attr(f, b);
		}
		break;
	case MU_FLAGBITS:
		/* The blob may be shared by a duplicate: copy it first. */
		b = blob_new();
		if (!b)
			break;
		*b = *f->attrs[i];
		f->attrs[i] = b;
		a = (struct nlattr *)b->b;
		a->nla_type |= chance(r, 50) ? NLA_F_NESTED : chance(r, 50) ?
			       NLA_F_NET_BYTEORDER : NLA_F_NESTED | NLA_F_NET_BYTEORDER;
		desc_add(f, "bits#%d=%#x ", i, a->nla_type);
		break;
	case MU_LEN:
		b = blob_new();
		if (!b)
			break;
		*b = *f->attrs[i];
		f->attrs[i] = b;
		a = (struct nlattr *)b->b;
		switch (below(r, 6)) {
		case 0: a->nla_len = (uint16_t)below(r, NLA_HDRLEN); break;
		case 1: a->nla_len = NLA_HDRLEN; break;
		case 2: a->nla_len = a->nla_len > NLA_HDRLEN + 1 ?
				     (uint16_t)(a->nla_len - 1 - below(r, a->nla_len - NLA_HDRLEN - 1)) :
				     a->nla_len + 1;
			break;
		case 3: a->nla_len = (uint16_t)(a->nla_len + 1 + below(r, 8)); break;
		case 4: a->nla_len = 0xffff; break;
		default: a->nla_len = (uint16_t)(a->nla_len + 4 * (1 + below(r, 4))); break;
		}
		desc_add(f, "len#%d=%u ", i, a->nla_len);
		break;
	case MU_UNALIGN:
		f->unaligned = i;
		desc_add(f, "unpadded#%d ", i);
		break;
	case MU_TRAIL:
		f->ntrail = 1 + (int)below(r, sizeof(f->trail) - 1);
		for (int k = 0; k < f->ntrail; k++)
			f->trail[k] = (unsigned char)rnd(r);
		desc_add(f, "trail:%d ", f->ntrail);
		break;
	case MU_HUGE:
		type = chance(r, 60) ? SYSTRACE_A_NAME : (uint16_t)below(r, SYSTRACE_A_MAX + 3);
		desc_add(f, "huge:%u ", type);
		add_attr(f, blob_huge(r, type));
		break;
	case MU_NLFLAGS:
		f->flags = chance(r, 85) ? some_nlflags[below(r, sizeof(some_nlflags) /
								  sizeof(some_nlflags[0]))] :
					   (uint16_t)(rnd(r) | NLM_F_REQUEST);
		desc_add(f, "flags=%#x ", f->flags);
		break;
	case MU_CMD:
		switch (below(r, 4)) {
		case 0: f->cmd = SYSTRACE_CMD_UNSPEC; break;
		case 1: f->cmd = (uint8_t)(SYSTRACE_CMD_MAX + 1 + below(r, 3)); break;
		case 2: f->cmd = (uint8_t)rnd(r); break;
		default: f->cmd = (uint8_t)(1 + below(r, SYSTRACE_CMD_MAX)); break;
		}
		desc_add(f, "cmd=%u ", f->cmd);
		break;
	case MU_VERSION:
		f->version = chance(r, 50) ? 0 : (uint8_t)rnd(r);
		desc_add(f, "version=%u ", f->version);
		break;
	case MU_RESERVED:
		f->reserved = (uint16_t)(1 + below(r, 0xffff));
		desc_add(f, "reserved=%#x ", f->reserved);
		break;
	case MU_TYPE:
		/*
		 * Only types no other family can answer: control messages,
		 * nlctrl, and ids above any generic netlink family's.
		 */
		switch (below(r, 4)) {
		case 0: f->type = GENL_ID_CTRL; break;
		case 1: f->type = (uint16_t)below(r, NLMSG_MIN_TYPE); break;
		default: f->type = (uint16_t)(1024 + below(r, 0x10000 - 1024)); break;
		}
		desc_add(f, "type=%u ", f->type);
		break;
	case MU_PORTID:
		f->portid = (uint32_t)rnd(r);
		desc_add(f, "portid ");
		break;
	case MU_NLLEN:
		switch (below(r, last ? 3 : 2)) {
		case 0:
			f->stop = (long)below(r, NLMSG_HDRLEN);
			desc_add(f, "nlmsg_len=%ld ", f->stop);
			break;
		case 1:
			f->cut = 1 + (long)below(r, 0x7fffffff);
			desc_add(f, "cut ");
			break;
		default:
			f->over = 1;
			desc_add(f, "nlmsg_len-past-end ");
			break;
		}
		break;
	default:
		break;
	}
}

/* Appends f to the datagram; returns the offset of its header, or -1. */
static long emit(struct genl_msg *m, struct fmsg *f, uint32_t seq)
{
	struct nlmsghdr *nlh;
	size_t start, real;
	int i;

	if (m->len + NLMSG_HDRLEN + GENL_HDRLEN + 8 > DGRAM_ROOM)
		return -1;
	nlh = genl_msg_begin(m, f->type, f->flags, seq, f->cmd, f->version);
	if (!nlh)
		return -1;
	start = m->hdr;
	((struct genlmsghdr *)NLMSG_DATA(nlh))->reserved = f->reserved;
	nlh->nlmsg_pid = f->portid;
	for (i = 0; i < f->nattrs; i++) {
		struct blob *b = f->attrs[i];
		size_t len = i == f->unaligned ? (b->raw % 4 ? b->raw : b->raw - 1) : b->len;

		if (i == 0 || i - 1 != f->unaligned)
			genl_msg_align(m);
		if (m->len + len + 16 > DGRAM_ROOM)
			break;
		genl_put_bytes(m, b->b, len);
	}
	if (f->ntrail)
		genl_put_bytes(m, f->trail, (size_t)f->ntrail);
	genl_msg_end(m);
	nlh = genl_msg_nlh(m);
	real = nlh->nlmsg_len;
	if (f->cut) {
		/* Cut into the genl header or the attributes, bytes and all. */
		size_t l = NLMSG_HDRLEN + (size_t)f->cut % (real - NLMSG_HDRLEN + 1);

		if (l < real) {
			nlh->nlmsg_len = (uint32_t)l;
			m->len = start + l;
		}
	}
	if (f->stop >= 0)
		nlh->nlmsg_len = (uint32_t)f->stop;
	return (long)start;
}

static void fuzz_iteration(struct rng *r)
{
	struct fmsg f[MAX_BATCH];
	struct pend p[MAX_PEND];
	long over_at[MAX_BATCH];
	struct genl_msg m;
	int nmsg = chance(r, 75) ? 1 : 2 + (int)below(r, MAX_BATCH - 1);
	int i, k, n, nover = 0, nmut;
	long off;

	npool = 0;
	genl_msg_init(&m, dgram, sizeof(dgram));
	for (i = 0; i < nmsg; i++) {
		base_msg(r, &f[i], (uint8_t)(1 + below(r, SYSTRACE_CMD_MAX)));
		k = (int)below(r, 100);
		nmut = k < 10 ? 0 : k < 60 ? 1 : k < 85 ? 2 : 3 + (int)below(r, 2);
		while (nmut-- > 0)
			mutate(r, &f[i], i == nmsg - 1);
		off = emit(&m, &f[i], genl_seq(&nl));
		if (off < 0) {
			nmsg = i;
			break;
		}
		if (f[i].over)
			over_at[nover++] = off;
		if (f[i].nmut)
			n_mutated++;
		else
			n_plain++;
		n_msgs++;
	}
	/* Sometimes a datagram ends in part of a header. */
	if (chance(r, 5)) {
		unsigned char junk[NLMSG_HDRLEN - 1];
		size_t l = 1 + below(r, sizeof(junk));

		for (k = 0; k < (int)l; k++)
			junk[k] = (unsigned char)rnd(r);
		genl_msg_align(&m);
		genl_put_bytes(&m, junk, l);
	}
	dgram_len = m.len;
	/* nlmsg_len past the end: patched once the end is known. */
	for (k = 0; k < nover; k++) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(dgram + over_at[k]);

		nlh->nlmsg_len = (uint32_t)(dgram_len - (size_t)over_at[k] + 1 + below(r, 4096));
	}
	n = plan(p, MAX_PEND);
	/* The frames are the messages built, in order, up to a bad length. */
	for (i = 0; i < n && i < nmsg; i++)
		p[i].desc = f[i].desc;
	exchange(&nl, p, n);
	/* A deletion we cannot attribute to an id: read the list again later. */
	for (i = 0; i < n; i++)
		if (p[i].type == family && p[i].cmd == SYSTRACE_CMD_SESSION_DEL &&
		    (!p[i].answered || !p[i].error))
			uncertain = 1;
}

/* --- setup, end, main ---------------------------------------------------------------- */

static void read_status(uint32_t *live, uint64_t *mem)
{
	struct genl_msg m;
	struct pend p;
	const struct nlmsghdr *nlh;
	const struct nlattr *attrs, *params;
	size_t len;

	work_begin(&m, NLM_F_ACK, SYSTRACE_CMD_STATUS);
	genl_msg_end(&m);
	dgram_len = m.len;
	plan(&p, 1);
	beat_now(p.seq);
	if (genl_send(&nl, dgram, dgram_len))
		die("sendmsg", errno);
	n_msgs++;
	n_work++;
	n_dgrams++;
	/* The reply, then the ack: both are queued before sendmsg returns. */
	for (;;) {
		ssize_t r = genl_recv(&nl, rbuf, RBUF_SIZE, timeout_ms);
		struct genl_ack ack;

		beat_now(0);
		if (r < 0)
			fail("STATUS: %s", r == -EAGAIN ? "no answer" : strerror((int)-r));
		nlh = (const struct nlmsghdr *)rbuf;
		if (!NLMSG_OK(nlh, (size_t)r))
			fail("STATUS: a malformed answer");
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			genl_parse_ack(nlh, &ack);
			if (ack.error)
				fail("STATUS: %s %s", errname(ack.error), ack.msg);
			count_errno(0);
			return;
		}
		check_reply(nlh, &p);
		attrs = genl_msg_attrs(nlh, &len);
		params = genl_attr_find(attrs, len, SYSTRACE_A_PARAMS);
		if (!params ||
		    genl_attr_u32(genl_attr_find(genl_attr_data(params), genl_attr_len(params),
						 SYSTRACE_PARAM_MAX_SESSIONS), &max_sessions) ||
		    genl_attr_u32(genl_attr_find(attrs, len, SYSTRACE_A_SESSIONS_LIVE), live) ||
		    genl_attr_u64(genl_attr_find(attrs, len, SYSTRACE_A_MEM_BYTES), mem))
			fail("STATUS: no max_sessions, sessions_live or mem_bytes in the reply");
	}
}

static void finish(void)
{
	uint32_t live = 0;
	uint64_t mem = 0;
	int i, status;

	iter = -1;
	anchor_id = 0;
	work_resync();
	while (nsess > 0)
		del_known(sess[0].id, "end:del ");
	work_resync();
	if (nsess)
		fail("%d sessions are left after deleting every one", nsess);
	read_status(&live, &mem);
	if (live || mem)
		fail("with no session left, STATUS says %u live sessions and %" PRIu64 " bytes",
		     live, mem);
	for (i = 0; i < nwork; i++) {
		if (waitpid(workers[i], &status, WNOHANG) != 0)
			fail("workload %d (pid %d) ended before it was killed", i, workers[i]);
	}
	kill_workloads();
}

static void summary(void)
{
	size_t e;

	printf("nlfuzz: seed %" PRIu64 ", %ld messages (%ld mutated, %ld unmutated, %ld real work) in %ld datagrams, %.1f s; answers by errno:",
	       seed, n_msgs, n_mutated, n_plain, n_work, n_dgrams, since(&t_start));
	for (e = 0; e < sizeof(by_err) / sizeof(by_err[0]); e++)
		if (by_err[e])
			printf(" %s x%ld", errname(-(int)e), by_err[e]);
	if (by_err_other)
		printf(" other x%ld", by_err_other);
	printf("; unanswered (none due) x%ld; late x%ld; sessions made %ld (%ld anchors), deleted %ld; dumps %ld whole (%ld rows, %ld interrupted messages), %ld closed early\n",
	       n_unanswered, n_late, n_made, n_anchors, n_deleted, n_dumps, n_rows, n_intr,
	       n_closed);
}

static void usage(FILE *to)
{
	fprintf(to, "usage: nlfuzz [--seed S] [--count N] [--timeout SEC] [--workloads W] [--churn-probes] [-v]\n");
}

int main(int argc, char **argv)
{
	int have_seed = 0, i, err;
	long next_progress = 0;
	uint32_t live;
	uint64_t mem;
	struct rng r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;

		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose = 1;
			continue;
		}
		if (!strcmp(a, "--churn-probes")) {
			churn = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			usage(stderr);
			return 2;
		}
		i++;
		errno = 0;
		if (!strcmp(a, "--seed")) {
			seed = strtoull(v, &end, 0);
			have_seed = 1;
		} else if (!strcmp(a, "--count")) {
			count = strtol(v, &end, 0);
		} else if (!strcmp(a, "--timeout")) {
			timeout_ms = (int)strtol(v, &end, 0) * 1000;
		} else if (!strcmp(a, "--workloads")) {
			nwork = (int)strtol(v, &end, 0);
		} else {
			usage(stderr);
			return 2;
		}
		if (errno || !end || *end || count < 0 || timeout_ms <= 0 || nwork < 1 ||
		    nwork > MAX_WORKLOADS) {
			fprintf(stderr, "nlfuzz: bad value for %s: %s\n", a, v);
			return 2;
		}
	}
	if (nwork < 2 && !churn) {
		fprintf(stderr, "nlfuzz: the anchor takes a workload of its own: --workloads 2 at least, or --churn-probes\n");
		return 2;
	}
	if (!have_seed) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		seed = ((uint64_t)t.tv_sec * 1000000007ULL) ^ (uint64_t)t.tv_nsec ^
		       ((uint64_t)getpid() << 32);
	}
	printf("nlfuzz: seed %" PRIu64 "\n", seed);
	clock_gettime(CLOCK_MONOTONIC, &t_start);

	rbuf = malloc(RBUF_SIZE);
	if (!rbuf)
		die("malloc", ENOMEM);
	err = genl_open(&nl, timeout_ms, MAIN_RCVBUF);
	if (err)
		die("socket", -err);
	err = genl_resolve(&nl, SYSTRACE_GENL_NAME);
	if (err == -ENOENT) {
		fprintf(stderr, "nlfuzz: the generic netlink family \"%s\" is not registered (module not loaded?)\n",
			SYSTRACE_GENL_NAME);
		return 2;
	}
	if (err < 0)
		die("resolving the family", -err);
	family = (uint16_t)err;
	iter = -1;
	read_status(&live, &mem);
	start_workloads();
	start_watchdog();
	make_anchor();

	for (iter = 0; n_msgs < count; iter++) {
		if (n_msgs >= next_progress) {
			if (next_progress)
				printf("nlfuzz: %ld messages, %.1f s\n", n_msgs, since(&t_start));
			next_progress += 10000;
		}
		beat_now(0);
		rng_for_iteration(&r, iter);
		if (chance(&r, 12))
			real_work(&r);
		else
			fuzz_iteration(&r);
	}
	finish();
	summary();
	return 0;
}
