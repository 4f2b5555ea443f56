// SPDX-License-Identifier: GPL-2.0
/*
 * What a finished log turns into: the phase of each syscall, the Chrome
 * trace, the timeline, and reading a saved log back.
 *
 * The log (ns; base = the first event, 1000500):
 *   image 1 "sh" pid 100 (this test's exe, root of an F_ON_EXEC session):
 *     seq 0-4 from ld.so (brk, openat, mmap, mmap, close): loader;
 *     seq 5 write from /opt/intercept.so (the early object), seq 6 mmap
 *     from ld.so again, seq 7 clone from libc (fork of image 2 at 1050000,
 *     inside it), seq 8 wait4 from the exe, seq 9 exit_group: program;
 *     exit, code 0, at 1490000.
 *   image 2 "sh" pid 101, forked: seq 0 close from libc: program.
 *   image 3 "cc" pid 101, exec of image 2 at 1100000: seq 0 brk (ld),
 *     seq 1 mmap without a site row, seq 2 openat (ld, -ENOENT): loader;
 *     seq 3 read from libc: program; seq 4 futex without a site row on
 *     thread 102, during seq 3: program; killed by signal 9 at 1400000.
 */
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "log/log_merge.h"
#include "log/log_spool.h"
#include "report.h"
#include "libsystrace.h"
#include "test.h"

#define LD_SITE 0	/* the interpreter: this test's own */
#define EXE_SITE 1	/* this test's executable */
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define EARLY "/opt/intercept.so"
#define NOSITE NULL

struct lv_ev {
	enum st_ev_kind kind;
	uint64_t proc_id;
	uint32_t tid;
	uint64_t seq, ts, dur;
	uint32_t nr;
	int64_t ret;
	uint64_t addr;
	const char *object;	/* NULL: no site row; "ld", "exe", or a path */
};

static const struct lv_ev lv_events[] = {
	{ ST_EV_SYSCALL, 1, 100, 0, 1000500, 1500, 12, 0, 0x100, "ld" },
	{ ST_EV_SYSCALL, 1, 100, 1, 1003000, 2250, 257, 3, 0x300, "ld" },
	{ ST_EV_SYSCALL, 1, 100, 2, 1006000, 1000, 9, 0, 0x200, "ld" },
	{ ST_EV_SYSCALL, 1, 100, 3, 1008000, 1000, 9, 0, 0x200, "ld" },
	{ ST_EV_SYSCALL, 1, 100, 4, 1010000, 500, 3, 0, 0x400, "ld" },
	{ ST_EV_SYSCALL, 1, 100, 5, 1020000, 3000, 1, 6, 0x5000, EARLY },
	{ ST_EV_SYSCALL, 1, 100, 6, 1030000, 1000, 9, 0, 0x200, "ld" },
	{ ST_EV_SYSCALL, 1, 100, 7, 1040000, 20000, 56, 101, 0x9100, LIBC },
	{ ST_EV_FORK, 1, 100, 0, 1050000, 0, 0, 0, 0, NULL },
	{ ST_EV_SYSCALL, 2, 101, 0, 1060000, 1000, 3, 0, 0x9300, LIBC },
	{ ST_EV_SYSCALL, 1, 100, 8, 1070000, 400000, 61, 101, 0x1000, "exe" },
	{ ST_EV_EXEC, 3, 101, 0, 1100000, 0, 0, 0, 0, NULL },
	{ ST_EV_SYSCALL, 3, 101, 0, 1101000, 700, 12, 0, 0x100, "ld" },
	{ ST_EV_SYSCALL, 3, 101, 1, 1103000, 800, 9, 0, 0x7777, NOSITE },
	{ ST_EV_SYSCALL, 3, 101, 2, 1105000, 1200, 257, -2, 0x300, "ld" },
	{ ST_EV_SYSCALL, 3, 101, 3, 1110000, 50000, 0, 10, 0x9400, LIBC },
	{ ST_EV_SYSCALL, 3, 102, 4, 1120000, 10000, 202, 0, 0x7778, NOSITE },
	{ ST_EV_EXIT, 3, 101, 0, 1400000, 0, 0, 0, 0, NULL },
	{ ST_EV_SYSCALL, 1, 100, 9, 1480000, 0, 231, 0, 0x9200, LIBC },
	{ ST_EV_EXIT, 1, 100, 0, 1490000, 0, 0, 0, 0, NULL },
};

#define LV_N (sizeof(lv_events) / sizeof(lv_events[0]))

/* The interpreter this test program names, as readelf shows it. */
static char *lv_interp(void)
{
	char line[512], path[256] = "";
	FILE *f = popen("readelf -lW /proc/self/exe", "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, " [Requesting program interpreter: %255[^]]]", path);
	if (f)
		pclose(f);
	return path[0] ? realpath(path, NULL) : NULL;
}

static const char *lv_object(const char *o, const char *ld, const char *self)
{
	if (!o)
		return NULL;
	if (!strcmp(o, "ld"))
		return ld;
	return strcmp(o, "exe") ? o : self;
}

static struct st_proc_row *lv_proc(struct st_dump *d, uint64_t id, uint32_t pid,
				   const char *comm, uint64_t start,
				   uint64_t end)
{
	struct st_proc_row *p = &d->procs[d->nprocs++];

	memset(p, 0, sizeof(*p));
	p->id = id;
	p->pid = p->tgid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->start_ns = start;
	p->has_end_ns = true;
	p->end_ns = end;
	p->end = SYSTRACE_END_EXITED;
	return p;
}

static struct st_site_row *lv_site_find(const struct st_dump *d, uint64_t proc,
					uint64_t addr, uint32_t nr)
{
	size_t i;

	for (i = 0; i < d->nsites; i++)
		if (d->sites[i].proc_id == proc && d->sites[i].addr == addr &&
		    d->sites[i].nr == nr)
			return &d->sites[i];
	return NULL;
}

/*
 * The dump and the log above; ld, self and evs (what the log's events say
 * of d's site rows, LV_N of them) must outlive them.
 */
static void lv_fixture(bool *failed, struct st_dump *d, struct st_log *log,
		       const char *ld, const char *self, struct st_ev_site *evs)
{
	struct st_proc_row *p;
	size_t i;

	memset(d, 0, sizeof(*d));
	memset(log, 0, sizeof(*log));
	d->session.id = 9;
	d->session.state = SYSTRACE_STATE_FINISHED;
	d->session.flags = SYSTRACE_SESSION_F_ON_EXEC;
	d->procs = calloc(3, sizeof(*d->procs));
	d->sites = calloc(LV_N, sizeof(*d->sites));
	p = lv_proc(d, 1, 100, "sh", 1000000, 1490000);
	p->exe = strdup(self);
	p = lv_proc(d, 2, 101, "sh", 1050000, 1100000);
	p->parent_id = 1;
	p->end = SYSTRACE_END_EXEC;
	p = lv_proc(d, 3, 101, "cc", 1100000, 1400000);
	p->prev_id = 2;
	p->parent_id = 1;
	p->exe = strdup(self);
	p->end = SYSTRACE_END_SIGNALED;
	p->has_exit_signal = true;
	p->exit_signal = 9;
	d->procs[0].has_exit_code = true;
	for (i = 0; i < LV_N; i++) {
		const struct lv_ev *e = &lv_events[i];
		const char *obj = lv_object(e->object, ld, self);
		struct st_site_row *s;

		if (e->kind != ST_EV_SYSCALL || !obj)
			continue;
		s = lv_site_find(d, e->proc_id, e->addr, e->nr);
		if (!s) {
			s = &d->sites[d->nsites++];
			s->proc_id = e->proc_id;
			s->addr = e->addr;
			s->nr = e->nr;
			s->abi = SYSTRACE_ABI_X64;
			s->map = SYSTRACE_MAP_FILE;
			if (st_dump_str(d, obj, &s->path))
				abort();
			s->offset = e->addr & 0xfff;
			s->first_ordinal = e->seq;
			s->first_ns = e->ts;
			if (!strcmp(obj, EARLY)) {
				if (st_dump_sym(d, &(struct st_sym){ .symbol = "write" },
						&s->sym))
					abort();
			}
		}
		s->calls++;
		d->procs[e->proc_id - 1].syscalls++;
	}
	st_dump_sort(d);
	for (i = 0; i < d->nsites; i++)
		evs[i] = (struct st_ev_site){ .path = d->sites[i].path, .sym = d->sites[i].sym,
					      .offset = d->sites[i].offset,
					      .map = d->sites[i].map };
	for (i = 0; i < LV_N; i++) {
		const struct lv_ev *e = &lv_events[i];
		const struct st_site_row *s;
		struct st_event ev = {
			.kind = e->kind, .proc_id = e->proc_id,
			.pid = d->procs[e->proc_id - 1].pid, .tid = e->tid,
			.seq = e->seq, .ts_ns = e->ts, .dur_ns = e->dur,
			.abi = SYSTRACE_ABI_X64, .nr = e->nr, .ret = e->ret,
			.addr = e->addr,
			.proc = &d->procs[e->proc_id - 1],
		};

		if (e->kind == ST_EV_SYSCALL && e->object &&
		    (s = lv_site_find(d, e->proc_id, e->addr, e->nr)))
			ev.site = &evs[s - d->sites];
		if (e->kind == ST_EV_FORK) {
			ev.child_proc_id = 2;
			ev.child_pid = 101;
		}
		ASSERT_EQ(st_log_push(log, &ev), 0);
	}
}

struct lv_env {
	char *ld;
	char self[PATH_MAX];
	struct st_dump d;
	struct st_log log;
	struct st_ev_site evs[LV_N];
};

static void lv_setup(bool *failed, struct lv_env *env)
{
	ssize_t n;

	env->ld = lv_interp();
	ASSERT_TRUE(env->ld);
	n = readlink("/proc/self/exe", env->self, sizeof(env->self) - 1);
	ASSERT_TRUE(n > 0);
	env->self[n] = '\0';
	lv_fixture(failed, &env->d, &env->log, env->ld, env->self, env->evs);
}

static void lv_teardown(struct lv_env *env)
{
	st_log_free(&env->log);
	st_dump_free(&env->d);
	free(env->ld);
}

/* "L" loader, "P" program, "-" none, per event of the log, and early. */
static void lv_phases(const struct st_log *log, char *phase, char *early)
{
	size_t i;

	for (i = 0; i < log->n; i++) {
		const struct st_event *e = &log->ev[i];

		phase[i] = e->kind != ST_EV_SYSCALL ? '.' :
			   e->phase == ST_PHASE_LOADER ? 'L' :
			   e->phase == ST_PHASE_PROGRAM ? 'P' : '-';
		early[i] = e->kind != ST_EV_SYSCALL ? '.' : e->early ? 'E' : '_';
	}
	phase[i] = early[i] = '\0';
}

TEST(log_phases_loader_until_the_first_call_outside_the_interpreter)
{
	struct lv_env env;
	char phase[LV_N + 1], early[LV_N + 1];

	lv_setup(failed, &env);
	ASSERT_EQ(env.log.n, LV_N);
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, NULL), 0);
	lv_phases(&env.log, phase, early);
	/* Events in lv_events' order (image 1, 1, ..., fork, 2, 1, exec, 3 ...). */
	EXPECT_STREQ(phase, "LLLLLPPP.PP.LLLPP.P.");
	EXPECT_STREQ(early, "EEEEE___.__.EEE__._.");
	lv_teardown(&env);
}

TEST(log_phases_early_object_extends_early_past_the_loader)
{
	struct lv_env env;
	char phase[LV_N + 1], early[LV_N + 1];

	lv_setup(failed, &env);
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, EARLY), 0);
	lv_phases(&env.log, phase, early);
	/* write (intercept.so) and mmap (ld.so) stay early; clone ends it. */
	EXPECT_STREQ(phase, "LLLLLPPP.PP.LLLPP.P.");
	EXPECT_STREQ(early, "EEEEEEE_.__.EEE__._.");
	lv_teardown(&env);
}

TEST(log_phases_unknown_interpreter_gives_no_phase)
{
	struct lv_env env;
	char phase[LV_N + 1], early[LV_N + 1];

	lv_setup(failed, &env);
	free(env.d.procs[0].exe);
	env.d.procs[0].exe = NULL;
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, NULL), 0);
	lv_phases(&env.log, phase, early);
	/*
	 * Image 1's interpreter is inferred from image 3's (its ld.so sites),
	 * so only an image with no known interpreter and no ld.so site would
	 * get "-": image 3 without its exe and its ld rows is one.
	 */
	EXPECT_STREQ(phase, "LLLLLPPP.PP.LLLPP.P.");
	free(env.d.procs[2].exe);
	env.d.procs[2].exe = NULL;
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, NULL), 0);
	lv_phases(&env.log, phase, early);
	EXPECT_STREQ(phase, "--------.P-.-----.-.");
	EXPECT_STREQ(early, "________.__._____._.");
	lv_teardown(&env);
}

/*
 * A spool of several runs read back through one merge, whose cursors share
 * one reader (a chunk's buffer and decompressor): 3 runs of interleaved
 * times come out as one stream in log order, every event once, as written.
 */
TEST(log_spool_runs_merge_in_order_through_one_reader)
{
	const size_t n = 3 * 512 * 1024 + 1000;	/* 3 full runs and a short one */
	char dir[] = "/tmp/systrace-spool-XXXXXX", path[64];
	const struct st_spool_run *runs;
	struct st_spool *sp;
	struct st_merge *m;
	struct st_err err;
	uint64_t last = 0, got = 0, sum = 0, want = 0;
	size_t i, nruns;
	bool ordered = true;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log.csv", dir);
	ASSERT_EQ(st_spool_open(&sp, path, 7, &err), 0);
	for (i = 0; i < n; i++) {
		/* Each run's times spread over the whole span. */
		struct st_event e = { .kind = ST_EV_SYSCALL, .proc_id = 1 + i % 5,
				      .ts_ns = (i * 7919) % n * 10 + 5, .seq = i,
				      .nr = (uint32_t)(i % 300), .ret = -(int64_t)(i % 3),
				      .addr = 0x400000 + i, .pid = 100, .tid = 100 };

		ASSERT_EQ(st_spool_add(sp, &e), 0);
		want += e.addr;
	}
	ASSERT_EQ(st_spool_finish(sp), 0);
	runs = st_spool_runs(sp, &nruns);
	EXPECT_EQ(nruns, 4);
	EXPECT_EQ(runs[3].nrec, 1000);
	ASSERT_EQ(st_merge_new(&m), 0);
	ASSERT_EQ(st_merge_add_spool(m, sp), 0);
	ASSERT_EQ(st_merge_start(m), 0);
	while (st_merge_peek(m)) {
		const struct st_event *e = st_merge_peek(m);

		ordered &= e->ts_ns >= last;
		last = e->ts_ns;
		sum += e->addr;
		EXPECT_TRUE(e->addr == 0x400000 + e->seq && e->nr == e->seq % 300);
		got++;
		ASSERT_EQ(st_merge_pop(m), 0);
	}
	EXPECT_TRUE(ordered);
	EXPECT_EQ(got, n);
	EXPECT_EQ(sum, want);
	st_merge_free(m);
	st_spool_close(sp);
	rmdir(dir);
}

/* The fixture's events through a writer of fmt, into a buffer. */
static char *lv_writer(bool *failed, const struct lv_env *env,
		       enum st_log_format fmt, size_t *len)
{
	struct st_log_meta meta = { .session_id = 9 };
	struct st_log_writer *w;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t i;

	if (!f)
		return NULL;
	if (st_log_writer_new(&w, f, fmt, &meta)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	for (i = 0; i < env->log.n; i++)
		EXPECT_EQ(st_log_writer_event(w, &env->log.ev[i]), 0);
	EXPECT_EQ(st_log_writer_end(w), 0);
	st_log_writer_free(w);
	fclose(f);
	return buf;
}

/* "PROC_ID EVENT TS_NS|" for each process event of a CSV log, in order. */
static const char *lv_proc_events(const char *csv, char *out, size_t n)
{
	char *copy = strdup(csv), *save = NULL, *line, *f[9], *fs;
	size_t len = 0;
	int k;

	out[0] = '\0';
	line = strtok_r(copy, "\n", &save);	/* the header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		for (k = 0, fs = line; k < 9 && fs; k++)
			f[k] = strsep(&fs, ",");
		if (k == 9 && strcmp(f[8], "syscall"))
			len += (size_t)snprintf(out + len, n - len, "%s %s %s|", f[1], f[8], f[6]);
		if (len >= n)
			break;
	}
	free(copy);
	return out;
}

static int lv_str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of a CSV log that are syscalls, sorted, one string. */
static char *lv_syscall_lines(const char *csv)
{
	char *copy = strdup(csv), *save = NULL, *line, **v = NULL, *out = NULL;
	size_t n = 0, len = 0, i;
	FILE *f = open_memstream(&out, &len);

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, ",syscall,")) {
			v = realloc(v, (n + 1) * sizeof(*v));
			v[n++] = line;
		}
	qsort(v, n, sizeof(*v), lv_str_cmp);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", v[i]);
	fclose(f);
	free(v);
	free(copy);
	return out;
}

/*
 * st_log_record joins each drained syscall (no site, no phase) to its site
 * row in the compact store (st_log_sites, filled from the dump's rows) and
 * sets its phase and early bit from those rows: its syscall lines are the
 * fixture's own, written with their site and phase.
 */
/*
 * alias: the interpreter's sites name it by another path, with its file's
 * identity: they are in it all the same (st_interp_holds), so the store
 * must keep each site's identity.
 */
/*
 * env's syscalls into raw as a tracer hands them over: no site, process
 * or phase yet. Their number, or -1 (no memory).
 */
static int lv_raw_syscalls(const struct lv_env *env, struct st_log *raw)
{
	size_t i;
	int n = 0;

	for (i = 0; i < env->log.n; i++) {
		struct st_event e = env->log.ev[i];

		if (e.kind != ST_EV_SYSCALL)
			continue;
		e.site = NULL;
		e.proc = NULL;
		e.phase = ST_PHASE_NONE;
		e.early = false;
		if (st_log_push(raw, &e))
			return -1;
		n++;
	}
	return n;
}

static void lv_record(bool *failed, bool alias)
{
	struct st_log_record_opts o = { .early_object = EARLY };
	struct st_log_meta meta = { .session_id = 9 };
	struct st_log raw = { 0 };
	struct st_log_writer *w;
	struct st_log_sites ls;
	struct lv_env env;
	char *want, *got = NULL, *a, *b, pe[256], ph[LV_N + 1], early[LV_N + 1];
	size_t len = 0, i;
	int calls;
	FILE *f;

	lv_setup(failed, &env);
	if (alias) {
		const char *other;
		struct stat st;

		ASSERT_EQ(stat(env.ld, &st), 0);
		ASSERT_EQ(st_dump_str(&env.d, "/alias/of/the/interpreter", &other), 0);
		for (i = 0; i < env.d.nsites; i++) {
			struct st_site_row *r = &env.d.sites[i];

			if (!r->path || strcmp(r->path, env.ld))
				continue;
			r->path = env.evs[i].path = other;
			r->has_file_id = true;
			r->inode = st.st_ino;
			r->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000 +
				      (uint64_t)st.st_mtim.tv_nsec;
		}
	}
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, EARLY), 0);
	lv_phases(&env.log, ph, early);
	EXPECT_STREQ(ph, "LLLLLPPP.PP.LLLPP.P.");
	want = lv_writer(failed, &env, ST_LOG_CSV, &len);
	ASSERT_TRUE(want);
	calls = lv_raw_syscalls(&env, &raw);
	ASSERT_TRUE(calls >= 0);
	ASSERT_EQ(st_log_sites_init(&ls, false), 0);
	ASSERT_EQ(st_log_sites_of(&ls, &env.d), 0);
	EXPECT_EQ(ls.n, env.d.nsites);
	/* A backend may hand them in any order (BPF: its hash's): reversed. */
	for (i = 0; i < ls.n / 2; i++) {
		struct st_log_site t = ls.v[i];

		ls.v[i] = ls.v[ls.n - 1 - i];
		ls.v[ls.n - 1 - i] = t;
	}
	f = open_memstream(&got, &len);
	ASSERT_EQ(st_log_writer_new(&w, f, ST_LOG_CSV, &meta), 0);
	ASSERT_EQ(st_log_record(&raw, &env.d, &ls, w, &o), 0);
	EXPECT_EQ(st_log_writer_end(w), 0);
	st_log_writer_free(w);
	fclose(f);
	a = lv_syscall_lines(want);
	b = lv_syscall_lines(got);
	EXPECT_STREQ(b, a);
	/* The process events come from the rows, in log order. */
	EXPECT_STREQ(lv_proc_events(got, pe, sizeof(pe)),
		     "1 exec 1000000|1 fork 1050000|3 exec 1100000|3 exit 1400000|"
		     "1 exit 1490000|");
	/* Not vacuous: every syscall, a path for those with a site row. */
	EXPECT_EQ((size_t)calls, (size_t)16);
	EXPECT_TRUE(strstr(b, EARLY));
	EXPECT_TRUE(strstr(b, ",loader,1") && strstr(b, ",program,0"));
	free(a);
	free(b);
	free(got);
	free(want);
	st_log_sites_free(&ls);
	st_log_free(&raw);
	lv_teardown(&env);
}

/* st_log_record's CSV of env's rows through store ls. */
static char *lv_record_via(bool *failed, struct lv_env *env, struct st_log_sites *ls)
{
	struct st_log_meta meta = { .session_id = 7 };
	struct st_log_record_opts o = { .early_object = EARLY };
	struct st_log_writer *w;
	struct st_log raw = { 0 };
	char *got = NULL;
	size_t len;
	FILE *f;

	if (lv_raw_syscalls(env, &raw) < 0 || st_log_sites_of(ls, &env->d))
		goto out;
	f = open_memstream(&got, &len);
	if (!f)
		goto out;
	if (st_log_writer_new(&w, f, ST_LOG_CSV, &meta)) {
		fclose(f);
		goto out;
	}
	EXPECT_EQ(st_log_record(&raw, &env->d, ls, w, &o), 0);
	EXPECT_EQ(st_log_writer_end(w), 0);
	st_log_writer_free(w);
	fclose(f);
out:
	st_log_free(&raw);
	return got;
}

/*
 * The log's store sets the command lines aside (a build's are 75 MB): in
 * a file beside the log as the dump hands over each row, read back for
 * each exec event. The log is the same bytes as with them in the rows;
 * the rows hold none meanwhile, nor after; the file leaves nothing behind.
 */
TEST(log_record_reads_back_the_argv_set_aside)
{
	char dir[] = "/tmp/systrace-argv-XXXXXX", path[64], *want, *got, *big;
	static const size_t big_len = 4000;
	struct st_log_sites ls;
	struct lv_env env;
	size_t i, j, k, in_rows = 0;
	uint32_t lens[16];
	struct dirent *de;
	DIR *dd;

	lv_setup(failed, &env);
	ASSERT_TRUE(env.d.nprocs >= 2 && env.d.nprocs <= 16);
	big = malloc(big_len);
	ASSERT_TRUE(big);
	/* Each row its own argv: "cc", "-c", "fI.c", NUL-ended; the last (an exec) a long one. */
	for (i = 0; i < env.d.nprocs; i++) {
		struct st_proc_row *r = &env.d.procs[i];
		char a[64];
		int n = snprintf(a, sizeof(a), "cc%c-c%cf%zu.c", 0, 0, i);

		r->argv_len = (uint32_t)n + 1;
		if (i == env.d.nprocs - 1) {
			memset(big, 'x', big_len);
			memcpy(big, a, (size_t)n + 1);
			big[big_len - 1] = '\0';
			r->argv_len = (uint32_t)big_len;
			r->argv_truncated = true;
		}
		r->argv = malloc(r->argv_len);
		ASSERT_TRUE(r->argv);
		memcpy(r->argv, i == env.d.nprocs - 1 ? big : a, r->argv_len);
		lens[i] = r->argv_len;
	}
	ASSERT_EQ(st_log_sites_init(&ls, false), 0);
	want = lv_record_via(failed, &env, &ls);
	ASSERT_TRUE(want);
	st_log_sites_free(&ls);
	/* Not vacuous: the exec events carry them. */
	EXPECT_TRUE(strstr(want, "'cc -c f0.c'") || strstr(want, "cc -c f0.c"));
	EXPECT_TRUE(strstr(want, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/build.csv", dir);
	ASSERT_EQ(st_log_sites_init(&ls, false), 0);
	st_log_sites_argv_aside(&ls, path);
	ASSERT_TRUE(ls.sink.proc);
	/* As a backend hands them: in its own order (reversed), sorted after. */
	for (k = env.d.nprocs; k-- > 0;)
		ASSERT_EQ(ls.sink.proc(ls.sink.ctx, &env.d, &env.d.procs[k]), 0);
	for (i = 0; i < env.d.nprocs; i++) {
		in_rows += env.d.procs[i].argv != NULL;
		EXPECT_EQ(env.d.procs[i].argv_len, lens[i]);
	}
	EXPECT_EQ(in_rows, 0);
	/* Set aside: the rows with an exec event; a forked row's let go. */
	for (i = 0, k = 0; i < env.d.nprocs; i++)
		k += env.d.procs[i].prev_id || !env.d.procs[i].parent_id;
	EXPECT_TRUE(k >= 2 && k < env.d.nprocs);
	EXPECT_EQ(ls.argv_n, k);
	EXPECT_EQ(ls.argv_err, 0);
	got = lv_record_via(failed, &env, &ls);
	ASSERT_TRUE(got);
	EXPECT_STREQ(got, want);
	/* Given back: no row holds the store's buffer (st_dump_free frees argv). */
	for (i = 0, in_rows = 0; i < env.d.nprocs; i++)
		in_rows += env.d.procs[i].argv != NULL;
	EXPECT_EQ(in_rows, 0);
	st_log_sites_free(&ls);
	/* Nameless: nothing is left in the log's directory. */
	dd = opendir(dir);
	ASSERT_TRUE(dd);
	for (j = 0; (de = readdir(dd));)
		j += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dd);
	EXPECT_EQ(j, 0);
	rmdir(dir);
	free(big);
	free(want);
	free(got);
	lv_teardown(&env);
}

TEST(log_record_joins_syscalls_to_the_compact_site_rows)
{
	lv_record(failed, false);
}

TEST(log_record_keeps_each_sites_file_identity)
{
	lv_record(failed, true);
}

static json_t *lv_chrome(bool *failed, const struct lv_env *env)
{
	json_error_t jerr;
	size_t len = 0;
	char *buf = lv_writer(failed, env, ST_LOG_CHROME, &len);
	json_t *j;

	ASSERT_TRUE(buf);
	j = json_loads(buf, 0, &jerr);
	if (!j)
		printf("# %s at %d:%d\n", jerr.text, jerr.line, jerr.column);
	free(buf);
	ASSERT_TRUE(j);
	return j;
}

/* A ts or dur (µs with 3 decimals, never negative) in ns. */
static int64_t lv_ns(const json_t *o, const char *key)
{
	return (int64_t)(json_number_value(json_object_get(o, key)) * 1000 + 0.5);
}

static size_t lv_count(const json_t *evs, const char *ph, const char *name)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(evs, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), ph))
			continue;
		if (!name || !strcmp(json_string_value(json_object_get(e, "name")), name))
			n++;
	}
	return n;
}

/* The n-th event with ph (and name, if given). */
static json_t *lv_nth(const json_t *evs, const char *ph, const char *name,
		      size_t nth)
{
	size_t i;
	json_t *e;

	json_array_foreach(evs, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), ph) ||
		    (name && strcmp(json_string_value(json_object_get(e, "name")), name)))
			continue;
		if (!nth--)
			return e;
	}
	return NULL;
}

static const char *lv_arg_s(const json_t *e, const char *key)
{
	return json_string_value(json_object_get(json_object_get(e, "args"), key));
}

static json_int_t lv_arg_i(const json_t *e, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(e, "args"), key));
}

static int lv_by_track_ts(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	if (x[1] != y[1])
		return x[1] < y[1] ? -1 : 1;
	return x[2] < y[2] ? -1 : x[2] > y[2];
}

TEST(log_chrome_trace_has_exact_events_tracks_and_flows)
{
	int64_t spans[LV_N][4];
	struct lv_env env;
	json_t *j, *evs, *e;
	size_t i, nx = 0;

	lv_setup(failed, &env);
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, NULL), 0);
	j = lv_chrome(failed, &env);
	EXPECT_STREQ(json_string_value(json_object_get(j, "displayTimeUnit")), "ns");
	evs = json_object_get(j, "traceEvents");
	ASSERT_TRUE(json_is_array(evs));
	EXPECT_EQ(json_array_size(evs), 12 + 16 + 4 + 2);
	EXPECT_EQ(lv_count(evs, "M", "process_name"), 3);
	EXPECT_EQ(lv_count(evs, "M", "process_sort_index"), 3);
	EXPECT_EQ(lv_count(evs, "M", "process_labels"), 2);
	EXPECT_EQ(lv_count(evs, "M", "thread_name"), 4);
	EXPECT_EQ(lv_count(evs, "X", NULL), 16);
	EXPECT_EQ(lv_count(evs, "i", "fork"), 1);
	EXPECT_EQ(lv_count(evs, "i", "exec"), 1);
	EXPECT_EQ(lv_count(evs, "i", "exit"), 2);
	EXPECT_EQ(lv_count(evs, "s", NULL), 1);
	EXPECT_EQ(lv_count(evs, "f", NULL), 1);

	e = lv_nth(evs, "M", "process_name", 2);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 3);
	EXPECT_STREQ(lv_arg_s(e, "name"), "cc 101");
	e = lv_nth(evs, "M", "process_labels", 1);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 3);
	EXPECT_STREQ(lv_arg_s(e, "labels"), "exec of image 2");
	e = lv_nth(evs, "M", "thread_name", 3);
	EXPECT_EQ(json_integer_value(json_object_get(e, "tid")), 102);
	EXPECT_STREQ(lv_arg_s(e, "name"), "cc 102");

	/* Every X: ts, dur, pid, tid, name; none overlaps on its thread. */
	json_array_foreach(evs, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), "X"))
			continue;
		EXPECT_TRUE(json_is_number(json_object_get(e, "ts")));
		EXPECT_TRUE(json_is_number(json_object_get(e, "dur")));
		EXPECT_TRUE(json_is_integer(json_object_get(e, "pid")));
		EXPECT_TRUE(json_is_integer(json_object_get(e, "tid")));
		EXPECT_TRUE(json_is_string(json_object_get(e, "name")));
		spans[nx][0] = json_integer_value(json_object_get(e, "pid"));
		spans[nx][1] = json_integer_value(json_object_get(e, "tid"));
		spans[nx][2] = lv_ns(e, "ts");
		spans[nx][3] = lv_ns(e, "dur");
		nx++;
	}
	ASSERT_EQ(nx, 16);
	qsort(spans, nx, sizeof(spans[0]), lv_by_track_ts);
	for (i = 1; i < nx; i++)
		if (spans[i][0] == spans[i - 1][0] && spans[i][1] == spans[i - 1][1])
			EXPECT_TRUE(spans[i - 1][2] + spans[i - 1][3] <= spans[i][2]);

	/* ts from the first event (1000500 ns), ns exact. */
	e = lv_nth(evs, "X", NULL, 0);
	EXPECT_STREQ(json_string_value(json_object_get(e, "name")), "brk");
	EXPECT_EQ(lv_ns(e, "ts"), 0);
	EXPECT_EQ(lv_ns(e, "dur"), 1500);
	EXPECT_STREQ(lv_arg_s(e, "phase"), "loader");
	e = lv_nth(evs, "X", "openat", 0);
	EXPECT_EQ(lv_ns(e, "ts"), 2500);
	EXPECT_EQ(lv_ns(e, "dur"), 2250);
	EXPECT_EQ(lv_arg_i(e, "ret"), 3);
	EXPECT_NULL(json_object_get(json_object_get(e, "args"), "errno"));
	e = lv_nth(evs, "X", "write", 0);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 1);
	EXPECT_EQ(json_integer_value(json_object_get(e, "tid")), 100);
	EXPECT_STREQ(lv_arg_s(e, "addr"), "0x5000");
	EXPECT_STREQ(lv_arg_s(e, "path"), EARLY);
	EXPECT_STREQ(lv_arg_s(e, "offset"), "0x0");
	EXPECT_STREQ(lv_arg_s(e, "symbol"), "write");
	EXPECT_STREQ(lv_arg_s(e, "phase"), "program");
	EXPECT_EQ(lv_arg_i(e, "seq"), 5);
	e = lv_nth(evs, "X", "openat", 1);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 3);
	EXPECT_EQ(lv_arg_i(e, "ret"), -2);
	EXPECT_EQ(lv_arg_i(e, "errno"), 2);
	EXPECT_STREQ(lv_arg_s(e, "phase"), "loader");
	e = lv_nth(evs, "X", "mmap", 3);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 3);
	EXPECT_STREQ(lv_arg_s(e, "addr"), "0x7777");
	EXPECT_NULL(json_object_get(json_object_get(e, "args"), "path"));
	EXPECT_STREQ(lv_arg_s(e, "phase"), "loader");

	e = lv_nth(evs, "i", "exit", 0);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 3);
	EXPECT_EQ(lv_ns(e, "ts"), 1400000 - 1000500);
	EXPECT_EQ(lv_arg_i(e, "exit_signal"), 9);
	EXPECT_STREQ(lv_arg_s(e, "end"), "signaled");

	/* The fork's arrow: inside the parent's clone, to the child's close. */
	e = lv_nth(evs, "s", NULL, 0);
	EXPECT_EQ(json_integer_value(json_object_get(e, "id")), 2);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 1);
	EXPECT_EQ(json_integer_value(json_object_get(e, "tid")), 100);
	EXPECT_EQ(lv_ns(e, "ts"), 49500);
	e = lv_nth(evs, "f", NULL, 0);
	EXPECT_EQ(json_integer_value(json_object_get(e, "id")), 2);
	EXPECT_EQ(json_integer_value(json_object_get(e, "pid")), 2);
	EXPECT_EQ(json_integer_value(json_object_get(e, "tid")), 101);
	EXPECT_EQ(lv_ns(e, "ts"), 59500);
	EXPECT_STREQ(json_string_value(json_object_get(e, "bp")), "e");
	json_decref(j);
	lv_teardown(&env);
}

/* A CSV field, quoted when it must be (RFC 4180). */
static void lv_csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * A test-only writer of the columns log.h lists: CSV, or JSONL with the
 * same keys (numbers as JSON integers, addr and offset as hex strings).
 */
static char *lv_write(const struct st_log *log, bool jsonl)
{
	static const char *const kinds[] = { "syscall", "fork", "exec", "exit" };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!jsonl)
		fputs("session_id,proc_id,pid,tid,comm,seq,ts_ns,dur_ns,event,abi,nr,syscall,"
		      "ret,errno,addr,map,path,offset,symbol,phase,early,child_proc_id,"
		      "child_pid,exit_code,exit_signal\n", f);
	for (i = 0; i < log->n; i++) {
		const struct st_event *e = &log->ev[i];
		const struct st_ev_site *s = e->site;
		const struct st_proc_row *p = e->proc;
		bool sc = e->kind == ST_EV_SYSCALL;
		const char *path = sc && s ? s->path : e->kind == ST_EV_EXEC ? p->exe : NULL;
		const char *ph = e->phase == ST_PHASE_LOADER ? "loader" :
				 e->phase == ST_PHASE_PROGRAM ? "program" : NULL;

		if (jsonl) {
			json_t *o = json_pack("{s:i,s:I,s:i,s:i,s:s,s:I,s:I,s:s}",
					      "session_id", 9, "proc_id", (json_int_t)e->proc_id,
					      "pid", (int)e->pid, "tid", (int)e->tid,
					      "comm", p->comm, "seq", (json_int_t)e->seq,
					      "ts_ns", (json_int_t)e->ts_ns, "event", kinds[e->kind]);
			char addr[32], off[32], *line;

			if (sc) {
				snprintf(addr, sizeof(addr), "0x%" PRIx64, e->addr);
				json_object_set_new(o, "dur_ns", json_integer((json_int_t)e->dur_ns));
				json_object_set_new(o, "abi", json_string("x64"));
				json_object_set_new(o, "nr", json_integer(e->nr));
				json_object_set_new(o, "syscall", json_string(st_syscall_name(e->abi, e->nr)));
				json_object_set_new(o, "ret", json_integer(e->ret));
				json_object_set_new(o, "errno", e->ret < 0 ? json_integer(-e->ret) : json_null());
				json_object_set_new(o, "addr", json_string(addr));
				json_object_set_new(o, "phase", ph ? json_string(ph) : json_null());
				json_object_set_new(o, "early", json_integer(e->early));
			}
			if (sc && s) {
				snprintf(off, sizeof(off), "0x%" PRIx64, s->offset);
				json_object_set_new(o, "map", json_string("file"));
				json_object_set_new(o, "offset", json_string(off));
				json_object_set_new(o, "symbol", s->sym ? json_string(s->sym->symbol) : json_null());
			}
			if (path)
				json_object_set_new(o, "path", json_string(path));
			if (e->kind == ST_EV_FORK) {
				json_object_set_new(o, "child_proc_id", json_integer((json_int_t)e->child_proc_id));
				json_object_set_new(o, "child_pid", json_integer(e->child_pid));
			}
			if (e->kind == ST_EV_EXIT && p->has_exit_code)
				json_object_set_new(o, "exit_code", json_integer(p->exit_code));
			if (e->kind == ST_EV_EXIT && p->has_exit_signal)
				json_object_set_new(o, "exit_signal", json_integer(p->exit_signal));
			line = json_dumps(o, JSON_COMPACT);
			fprintf(f, "%s\n", line);
			free(line);
			json_decref(o);
			continue;
		}
		fprintf(f, "9,%" PRIu64 ",%u,%u,", e->proc_id, e->pid, e->tid);
		lv_csv_str(f, p->comm);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", e->seq, e->ts_ns);
		if (sc)
			fprintf(f, "%" PRIu64, e->dur_ns);
		fprintf(f, ",%s,", kinds[e->kind]);
		if (sc) {
			fprintf(f, "x64,%u,%s,%" PRId64 ",", e->nr,
				st_syscall_name(e->abi, e->nr), e->ret);
			if (e->ret < 0)
				fprintf(f, "%" PRId64, -e->ret);
			fprintf(f, ",0x%" PRIx64 ",", e->addr);
		} else {
			fputs(",,,,,,", f);
		}
		fputs(sc && s ? "file," : ",", f);
		lv_csv_str(f, path);
		fputc(',', f);
		if (sc && s)
			fprintf(f, "0x%" PRIx64, s->offset);
		fputc(',', f);
		lv_csv_str(f, sc && s && s->sym ? s->sym->symbol : NULL);
		fprintf(f, ",%s,%s,", ph ? ph : "", sc ? (e->early ? "1" : "0") : "");
		if (e->kind == ST_EV_FORK)
			fprintf(f, "%" PRIu64 ",%u", e->child_proc_id, e->child_pid);
		else
			fputc(',', f);
		fputc(',', f);
		if (e->kind == ST_EV_EXIT && p->has_exit_code)
			fprintf(f, "%u", p->exit_code);
		fputc(',', f);
		if (e->kind == ST_EV_EXIT && p->has_exit_signal)
			fprintf(f, "%u", p->exit_signal);
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

static char *lv_tmpfile(const char *text)
{
	char *path = strdup("/tmp/systrace-test-log-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

/* The events read back (st_log_src) are the original's, with their rows. */
static void lv_same_events(bool *failed, const struct st_log *a, const char *path)
{
	struct st_log_src *src;
	struct st_event y;
	struct st_err err;
	size_t i = 0;
	int ret;

	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	EXPECT_EQ(st_log_src_meta(src)->session_id, 0);
	while ((ret = st_log_src_next(src, &y, &err)) == 1 && i < a->n) {
		const struct st_event *x = &a->ev[i++];

		EXPECT_EQ(y.kind, x->kind);
		EXPECT_EQ(y.proc_id, x->proc_id);
		EXPECT_EQ(y.pid, x->pid);
		EXPECT_EQ(y.tid, x->tid);
		EXPECT_EQ(y.seq, x->seq);
		EXPECT_EQ(y.ts_ns, x->ts_ns);
		EXPECT_EQ(y.dur_ns, x->dur_ns);
		EXPECT_EQ(y.child_proc_id, x->child_proc_id);
		EXPECT_EQ(y.phase, x->phase);
		EXPECT_EQ(y.early, x->early);
		EXPECT_TRUE(y.proc && y.proc->id == x->proc_id);
		EXPECT_STREQ(y.proc->comm, x->proc->comm);
		if (x->kind == ST_EV_EXEC) {
			EXPECT_STREQ(y.proc->exe, x->proc->exe);
			EXPECT_EQ(y.proc->prev_id, x->proc->prev_id);
		}
		if (x->kind != ST_EV_SYSCALL)
			continue;
		EXPECT_EQ(y.abi, x->abi);
		EXPECT_EQ(y.nr, x->nr);
		EXPECT_EQ((uint64_t)y.ret, (uint64_t)x->ret);
		EXPECT_EQ(y.addr, x->addr);
		EXPECT_EQ(!y.site, !x->site);
		if (!x->site || !y.site)
			continue;
		EXPECT_STREQ(y.site->path, x->site->path);
		EXPECT_EQ(y.site->offset, x->site->offset);
		EXPECT_EQ(!y.site->sym, !x->site->sym);
	}
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(i, a->n);
	st_log_src_close(src);
}

/* The rows read back (st_log_load) are what the log says of them. */
static void lv_same_rows(bool *failed, const struct st_dump *db)
{
	const struct st_proc_row *p;
	char *text = NULL;
	size_t len = 0;
	FILE *why;

	EXPECT_EQ(db->nprocs, 3);
	EXPECT_EQ(db->nsites, 12);
	EXPECT_EQ(db->session.id, 9);
	EXPECT_EQ(db->session.syscalls, 16);
	/*
	 * The rows add up as a dump's do (the totals check), but for image
	 * 3's 2 calls without a site row: in its syscalls and syscall_ns,
	 * in no site row.
	 */
	why = open_memstream(&text, &len);
	ASSERT_TRUE(why);
	EXPECT_EQ(st_check_totals(db, why), 2);
	fclose(why);
	EXPECT_TRUE(strstr(text, "process 3 (pid 101 cc) syscalls: 5 but the rows sum to 3"));
	free(text);

	p = st_dump_find_proc(db, 1);
	ASSERT_TRUE(p);
	EXPECT_STREQ(p->comm, "sh");
	EXPECT_EQ(p->start_ns, 1000500);
	EXPECT_EQ(p->end_ns, 1490000);
	EXPECT_EQ(p->end, SYSTRACE_END_EXITED);
	EXPECT_EQ(p->syscalls, 10);
	EXPECT_EQ(p->sites, 8);
	p = st_dump_find_proc(db, 2);
	EXPECT_EQ(p->parent_id, 1);
	EXPECT_EQ(p->start_ns, 1050000);
	EXPECT_EQ(p->end_ns, 1100000);
	EXPECT_EQ(p->end, SYSTRACE_END_EXEC);
	p = st_dump_find_proc(db, 3);
	EXPECT_STREQ(p->comm, "cc");
	EXPECT_EQ(p->prev_id, 2);
	EXPECT_EQ(p->parent_id, 1);
	EXPECT_EQ(p->start_ns, 1100000);
	EXPECT_EQ(p->end, SYSTRACE_END_SIGNALED);
	EXPECT_EQ(p->exit_signal, 9);
	EXPECT_TRUE(p->exe && strstr(p->exe, "test_unit"));
}

static void lv_round_trip(bool *failed, bool jsonl)
{
	struct st_log_sums sums;
	struct st_dump db;
	struct st_err err;
	struct lv_env env;
	char *text, *path;

	lv_setup(failed, &env);
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, EARLY), 0);
	text = lv_write(&env.log, jsonl);
	path = lv_tmpfile(text);
	EXPECT_TRUE(st_log_is_log(path));
	lv_same_events(failed, &env.log, path);
	ASSERT_EQ(st_log_load(path, &db, &sums, NULL, NULL, &err), 0);
	lv_same_rows(failed, &db);
	EXPECT_EQ(sums.events, LV_N);
	EXPECT_EQ(sums.syscalls, 16);
	EXPECT_EQ(sums.last_ns, 1490000);
	st_log_sums_free(&sums);
	st_dump_free(&db);
	unlink(path);
	free(path);
	free(text);
	lv_teardown(&env);
}

TEST(log_load_csv_round_trip)
{
	lv_round_trip(failed, false);
}

TEST(log_load_jsonl_round_trip)
{
	lv_round_trip(failed, true);
}

static void lv_load_error(bool *failed, const char *text, const char *want)
{
	struct st_dump d;
	struct st_err err;
	char *path = lv_tmpfile(text), expect[300];

	EXPECT_TRUE(st_log_load(path, &d, NULL, NULL, NULL, &err) < 0);
	EXPECT_EQ(st_exit_code(&err), ST_EXIT_LOCAL);
	snprintf(expect, sizeof(expect), "%s:%s", path, want);
	EXPECT_STREQ(err.msg, expect);
	unlink(path);
	free(path);
}

#define LV_HDR "session_id,proc_id,pid,comm,seq,ts_ns,event,path\n"

TEST(log_load_quoting_and_errors_with_file_and_line)
{
	struct st_log_src *src;
	struct st_event ev;
	struct st_dump d;
	struct st_err err;
	char *path;

	/* A comm with a comma and a quote, a path with a newline. */
	path = lv_tmpfile(LV_HDR "1,4,44,\"a,\"\"b\",0,10,exec,\"/x\ny\"\r\n"
			  "1,4,44,\"a,\"\"b\",0,20,syscall,\n");
	ASSERT_EQ(st_log_load(path, &d, NULL, NULL, NULL, &err), 0);
	EXPECT_EQ(d.nprocs, 1);
	EXPECT_STREQ(d.procs[0].comm, "a,\"b");
	EXPECT_STREQ(d.procs[0].exe, "/x\ny");
	st_dump_free(&d);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_EQ(ev.ts_ns, 20);
	EXPECT_NULL(ev.site);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), 0);
	st_log_src_close(src);
	unlink(path);
	free(path);

	lv_load_error(failed, LV_HDR "1,4,44,a,0,10,exec,/x\n1,4,44,a,0,x1,syscall,\n",
		      "3: ts_ns: not a number: \"x1\"");
	lv_load_error(failed, LV_HDR "1,4,44,a,0,10,exec\n",
		      "2: 7 fields, the header has 8");
	lv_load_error(failed, LV_HDR "1,4,44,\"a,0,10,exec,\n",
		      "2: a quoted field does not end");
	lv_load_error(failed, LV_HDR "1,4,44,a,0,10,spawn,\n",
		      "2: event: \"spawn\" is none of syscall, fork, exec, exit");
	lv_load_error(failed, LV_HDR "1,,44,a,0,10,exit,\n", "2: proc_id is missing");
	lv_load_error(failed, "{\"proc_id\":1,\"ts_ns\":5,\"event\":\"exit\"}\n{\"proc_id\":1,\n",
		      "2: a key (a string) or '}' expected");
	lv_load_error(failed, "{\"proc_id\":1,\"ts_ns\":5,\"event\":\"exit\",\"phase\":\"late\"}\n",
		      "1: phase: \"late\" is neither loader nor program");
	lv_load_error(failed, "{\"proc_id\":1,\"ts_ns\":5.5,\"event\":\"exit\"}\n",
		      "1: ts_ns: not a string or an integer");
	lv_load_error(failed, "{\"proc_id\":1,\"ts_ns\":5,\"event\":\"exit\"} x\n",
		      "1: text after the object");
}

/* What is not a log at all is refused, with its line and why (issue 25). */
TEST(log_load_refuses_what_is_not_a_log)
{
	lv_load_error(failed, "", "1: not a log: the file is empty");
	lv_load_error(failed, "\n  \n", "1: not a log: the file is empty");
	lv_load_error(failed, "[1,2,3]\n",
		      "1: not a log: a JSON array (a log is CSV with a header row, or JSONL: one object per line)");
	lv_load_error(failed, "42\n",
		      "1: not a log: its first line is no log header (a log's names the columns event, proc_id and ts_ns, at least)");
	lv_load_error(failed, "42",
		      "1: not a log: its first line is no log header (a log's names the columns event, proc_id and ts_ns, at least)");
	lv_load_error(failed, "{\"a\":[1]}\n", "1: a: not a string or an integer");
}

TEST(report_phases_from_a_log_is_exact)
{
	const struct ph_proc *pp;
	struct st_log_sums sums;
	struct ph_result p;
	struct lv_env env;
	size_t i;

	lv_setup(failed, &env);
	ASSERT_EQ(st_log_set_phases(&env.log, &env.d, NULL), 0);
	ASSERT_EQ(st_log_sums_of(&env.log, &env.d, &sums), 0);
	ASSERT_EQ(st_phases_log(&env.d, &sums, &p), 0);
	pp = &p.procs[0];
	EXPECT_STREQ(pp->source, "log");
	EXPECT_STREQ(pp->interp, env.ld);
	EXPECT_EQ(pp->boundary, 5);
	EXPECT_EQ(pp->loader_calls, 5);
	EXPECT_EQ(pp->program_calls, 5);
	EXPECT_EQ(pp->later_calls, 1);
	EXPECT_EQ(pp->loader_sites, 4);
	EXPECT_EQ(pp->program_sites, 4);
	pp = &p.procs[1];
	EXPECT_STREQ(pp->source, "fork");
	EXPECT_EQ(pp->loader_calls, 0);
	EXPECT_EQ(pp->program_calls, 1);
	pp = &p.procs[2];
	EXPECT_STREQ(pp->source, "log");
	EXPECT_EQ(pp->boundary, 3);
	EXPECT_EQ(pp->loader_calls, 3);
	EXPECT_EQ(pp->program_calls, 2);
	EXPECT_EQ(pp->loader_sites, 3);
	EXPECT_EQ(pp->program_sites, 2);
	EXPECT_EQ(p.known_procs, 3);
	EXPECT_EQ(p.loader_calls, 8);
	EXPECT_EQ(p.program_calls, 8);
	EXPECT_EQ(p.later_calls, 1);
	EXPECT_EQ(p.undetermined, 0);
	for (i = 0; i < p.nsys && p.sys[i].nr != 9; i++)
		;
	ASSERT_TRUE(i < p.nsys);
	EXPECT_EQ(p.sys[i].loader_calls, 3);
	EXPECT_EQ(p.sys[i].program_calls, 1);
	EXPECT_EQ(p.sys[i].undetermined, 0);
	EXPECT_EQ(p.sys[i].loader_sites, 2);
	EXPECT_EQ(p.sys[i].program_sites, 0);
	st_phases_free(&p);
	st_log_sums_free(&sums);
	lv_teardown(&env);
}

/* The value of attribute key in the n-th element that has marker. */
static double lv_svg_attr(const char *svg, const char *marker, size_t n,
			  const char *key)
{
	const char *s = svg, *end;
	char pat[32];

	snprintf(pat, sizeof(pat), " %s=\"", key);
	while ((s = strstr(s, marker)) && n--)
		s++;
	if (!s)
		return -1;
	end = strchr(s, '>');
	s = strstr(s, pat);
	return s && s < end ? strtod(s + strlen(pat), NULL) : -1;
}

static size_t lv_svg_count(const char *svg, const char *marker)
{
	size_t n = 0;

	for (; (svg = strstr(svg, marker)); svg++)
		n++;
	return n;
}

#define LV_NEAR(a, b) EXPECT_TRUE((a) > (b) - 0.006 && (a) < (b) + 0.006)

/* The fixture's timeline, its SVG in *svg. */
static void lv_timeline(bool *failed, struct lv_env *env, struct tl_result *tl,
			char **svg)
{
	struct tl_header h = { .title = "session 9", .command = "/bin/sh" };
	struct st_log_sums sums;
	size_t len = 0;
	FILE *f;

	lv_setup(failed, env);
	ASSERT_EQ(st_log_set_phases(&env->log, &env->d, NULL), 0);
	ASSERT_EQ(st_log_sums_of(&env->log, &env->d, &sums), 0);
	ASSERT_EQ(st_timeline(&env->d, &sums, tl), 0);
	f = open_memstream(svg, &len);
	ASSERT_TRUE(f);
	ASSERT_EQ(st_timeline_svg(f, tl, &h), 0);
	fclose(f);
	st_log_sums_free(&sums);
}

TEST(report_timeline_bars_packed_into_lanes_with_loader_segments)
{
	/* Plot: 1120 px from x = 50 for 490000 ns (1000000 to 1490000). */
	const double k = 1120.0 / 490000;
	struct tl_result tl;
	struct lv_env env;
	char *svg = NULL;

	lv_timeline(failed, &env, &tl, &svg);
	ASSERT_EQ(tl.n, 3);
	EXPECT_EQ(tl.t0, 1000000);
	EXPECT_EQ(tl.t1, 1490000);
	EXPECT_EQ(tl.rows[0].proc->id, 1);
	EXPECT_EQ(tl.rows[1].proc->id, 2);
	EXPECT_EQ(tl.rows[2].proc->id, 3);
	EXPECT_TRUE(tl.rows[0].has_loader);
	EXPECT_EQ(tl.rows[0].loader_end, 1020000);
	EXPECT_FALSE(tl.rows[1].has_loader);
	EXPECT_EQ(tl.rows[2].loader_end, 1110000);
	/* Image 3 starts as image 2 ends: the same lane. */
	EXPECT_EQ(tl.lanes, 2);
	EXPECT_EQ(tl.rows[0].lane, 0);
	EXPECT_EQ(tl.rows[1].lane, 1);
	EXPECT_EQ(tl.rows[2].lane, 1);
	EXPECT_EQ(tl.busy_ns, 490000 + 50000 + 300000);

	/* 2 lanes of 14 px from y = 262; the bottom axis 6 px below; 30 px of labels. */
	EXPECT_TRUE(strstr(svg, "width=\"1200\" height=\"326\"") != NULL);
	EXPECT_EQ(lv_svg_count(svg, "class=\"bar\""), 3);
	EXPECT_EQ(lv_svg_count(svg, "class=\"loader\""), 2);
	EXPECT_EQ(lv_svg_count(svg, "class=\"dense\""), 0);
	EXPECT_EQ(lv_svg_count(svg, "class=\"axis\""), 2);
	EXPECT_EQ(lv_svg_count(svg, "<script"), 0);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 0, "x"), 50.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 0, "y"), 262.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 0, "width"), 1120.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 1, "x"), 50 + 50000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 1, "y"), 276.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 1, "width"), 50000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 2, "x"), 50 + 100000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 2, "y"), 276.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 2, "width"), 300000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"loader\"", 0, "width"), 20000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"loader\"", 1, "x"), 50 + 100000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"loader\"", 1, "width"), 10000 * k);
	EXPECT_TRUE(strstr(svg, ">cc 101</text>") != NULL);
	/* The header: the command, the wall time, the parallelism. */
	EXPECT_TRUE(strstr(svg, ">/bin/sh</text>") != NULL);
	EXPECT_TRUE(strstr(svg, "session 9: 3 processes, wall time 490 µs, on average 1.71 running at once (at most 2)") != NULL);
	EXPECT_TRUE(strstr(svg, "slowest processes that started no other: cc 101 300 µs, sh 101 50 µs") != NULL);
	free(svg);
	st_timeline_free(&tl);
	lv_teardown(&env);
}

TEST(report_timeline_critical_path_follows_what_the_end_waited_for)
{
	const double k = 1120.0 / 490000;
	struct tl_result tl;
	struct lv_env env;
	char *svg = NULL;

	lv_timeline(failed, &env, &tl, &svg);
	/*
	 * sh (image 1) waited for its child, the chain sh 101 -> cc 101
	 * (images 2 and 3): sh until the fork, the child until it ended,
	 * sh again until the end.
	 */
	ASSERT_EQ(tl.ncrit, 4);
	EXPECT_EQ(tl.rows[tl.crit[0].row].proc->id, 1);
	EXPECT_EQ(tl.crit[0].from, 1000000);
	EXPECT_EQ(tl.crit[0].to, 1050000);
	EXPECT_EQ(tl.rows[tl.crit[1].row].proc->id, 2);
	EXPECT_EQ(tl.crit[1].from, 1050000);
	EXPECT_EQ(tl.crit[1].to, 1100000);
	EXPECT_EQ(tl.rows[tl.crit[2].row].proc->id, 3);
	EXPECT_EQ(tl.crit[2].from, 1100000);
	EXPECT_EQ(tl.crit[2].to, 1400000);
	EXPECT_EQ(tl.rows[tl.crit[3].row].proc->id, 1);
	EXPECT_EQ(tl.crit[3].from, 1400000);
	EXPECT_EQ(tl.crit[3].to, 1490000);
	EXPECT_EQ(lv_svg_count(svg, "class=\"crit\""), 4);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit\"", 2, "x"), 50 + 100000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit\"", 2, "width"), 300000 * k);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit\"", 2, "y"), 276.0);
	/* The header, then the strip: cc (the first colour) and sh, by time. */
	EXPECT_TRUE(strstr(svg, ">critical path: 3 processes; its time by command:</text>") != NULL);
	EXPECT_TRUE(strstr(svg, "class=\"crit-item\" x=\"") != NULL);
	EXPECT_TRUE(strstr(svg, ">cc 61%</text>") != NULL);
	EXPECT_TRUE(strstr(svg, ">sh 39%</text>") != NULL);
	/*
	 * Each pixel the command with most of its time: sh (images 1 and 2)
	 * to 228.6 px, cc to 914.3, sh: 229, 685 and 206 px.
	 */
	EXPECT_EQ(lv_svg_count(svg, "class=\"crit-strip\""), 3);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit-strip\"", 0, "x"), 50.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit-strip\"", 0, "width"), 229.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit-strip\"", 1, "x"), 279.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit-strip\"", 1, "width"), 685.0);
	LV_NEAR(lv_svg_attr(svg, "class=\"crit-strip\"", 2, "width"), 206.0);
	EXPECT_TRUE(strstr(svg, "width=\"1200\" height=\"326\"") != NULL);
	free(svg);
	st_timeline_free(&tl);
	lv_teardown(&env);
}

/* Rows of a dump: a root, and n children one after another, each dur_ns long. */
static void lv_many(bool *failed, struct st_dump *d, size_t n, uint64_t gap_ns,
		    uint64_t dur_ns, bool overlap)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->procs = calloc(n + 1, sizeof(*d->procs));
	ASSERT_TRUE(d->procs);
	d->nprocs = n + 1;
	d->procs[0] = (struct st_proc_row){ .id = 1, .pid = 1, .start_ns = 0,
					    .has_end_ns = true, .end_ns = 1000000000,
					    .end = SYSTRACE_END_EXITED };
	snprintf(d->procs[0].comm, sizeof(d->procs[0].comm), "make");
	for (i = 1; i <= n; i++) {
		struct st_proc_row *p = &d->procs[i];

		*p = (struct st_proc_row){ .id = i + 1, .pid = (uint32_t)(i + 1),
					   .parent_id = 1, .has_end_ns = true,
					   .end = SYSTRACE_END_EXITED };
		p->start_ns = overlap ? 1000 : i * gap_ns;
		p->end_ns = p->start_ns + dur_ns;
		snprintf(p->comm, sizeof(p->comm), "cc");
	}
}

TEST(report_timeline_bars_under_2_px_that_touch_are_one_rect)
{
	struct tl_header h = { .title = "t", .command = "make" };
	struct tl_result tl;
	struct st_dump d;
	char *svg = NULL;
	size_t len = 0;
	FILE *f;

	/* 999 children 1 ms apart, 200 µs each: 0.224 px, 0.896 px apart. */
	lv_many(failed, &d, 999, 1000000, 200000, false);
	ASSERT_EQ(st_timeline(&d, NULL, &tl), 0);
	EXPECT_EQ(tl.lanes, 2);
	f = open_memstream(&svg, &len);
	ASSERT_EQ(st_timeline_svg(f, &tl, &h), 0);
	fclose(f);
	EXPECT_EQ(lv_svg_count(svg, "class=\"bar\""), 1);
	EXPECT_EQ(lv_svg_count(svg, "class=\"dense\""), 1);
	EXPECT_TRUE(strstr(svg, "<title>999 processes, loader phase 0% of their time</title>") != NULL);
	LV_NEAR(lv_svg_attr(svg, "class=\"dense\"", 0, "x"), 50 + 1.12);
	LV_NEAR(lv_svg_attr(svg, "class=\"dense\"", 0, "width"), 998 * 1.12 + 0.224);
	LV_NEAR(lv_svg_attr(svg, "class=\"dense\"", 0, "y"), 276.0);
	free(svg);
	st_timeline_free(&tl);
	st_dump_free(&d);

	/* The same with a log: a quarter of each child's time in the loader. */
	{
		struct st_log_sums sums = { 0 };
		size_t i;

		lv_many(failed, &d, 999, 1000000, 200000, false);
		sums.images = calloc(d.nprocs, sizeof(*sums.images));
		ASSERT_TRUE(sums.images);
		for (i = 1; i < d.nprocs; i++) {
			sums.images[i].has_loader = sums.images[i].has_program = true;
			sums.images[i].program_ns = d.procs[i].start_ns + 50000;
		}
		ASSERT_EQ(st_timeline(&d, &sums, &tl), 0);
		svg = NULL;
		f = open_memstream(&svg, &len);
		ASSERT_EQ(st_timeline_svg(f, &tl, &h), 0);
		fclose(f);
		EXPECT_TRUE(strstr(svg, "<title>999 processes, loader phase 25% of their time</title>") != NULL);
		EXPECT_EQ(lv_svg_count(svg, "class=\"dense-loader\""), 1);
		LV_NEAR(lv_svg_attr(svg, "class=\"dense-loader\"", 0, "y"), 276 + 14 * 0.75);
		LV_NEAR(lv_svg_attr(svg, "class=\"dense-loader\"", 0, "height"), 14 * 0.25);
		free(svg);
		st_timeline_free(&tl);
		st_dump_free(&d);
		free(sums.images);
	}

	/* 100 µs each: 1.008 px apart, each a rect of its own (1 px at least). */
	lv_many(failed, &d, 999, 1000000, 100000, false);
	ASSERT_EQ(st_timeline(&d, NULL, &tl), 0);
	svg = NULL;
	f = open_memstream(&svg, &len);
	ASSERT_EQ(st_timeline_svg(f, &tl, &h), 0);
	fclose(f);
	EXPECT_EQ(lv_svg_count(svg, "class=\"dense\""), 999);
	free(svg);
	st_timeline_free(&tl);
	st_dump_free(&d);
}

TEST(report_timeline_stays_within_4000_px_however_many_run_at_once)
{
	struct tl_header h = { .title = "t", .command = "make" };
	struct tl_result tl;
	struct st_dump d;
	char *svg = NULL;
	size_t len = 0;
	FILE *f;

	/* 5000 children all at once: 5001 lanes in 4000 - 262 - 36 px. */
	lv_many(failed, &d, 5000, 0, 500000000, true);
	ASSERT_EQ(st_timeline(&d, NULL, &tl), 0);
	EXPECT_EQ(tl.lanes, 5001);
	f = open_memstream(&svg, &len);
	ASSERT_EQ(st_timeline_svg(f, &tl, &h), 0);
	fclose(f);
	EXPECT_TRUE(strstr(svg, "width=\"1200\" height=\"4000\"") != NULL);
	LV_NEAR(lv_svg_attr(svg, "class=\"bar\"", 5000, "y"), 262 + 5000 * 3702.0 / 5001);
	free(svg);
	st_timeline_free(&tl);
	st_dump_free(&d);
}

/*
 * A syscall names the path row its call counted in (path_id); the log
 * writes that row's path as it shows it, last on the line, and nothing for
 * a call without a row or with an id no row has. Read back, each event
 * carries its path again.
 */
TEST(log_record_writes_the_path_of_each_call_s_row)
{
	const char *shown[3] = { "/nonexistent/a", "<longer than 255 bytes>", NULL };
	static const uint64_t ids[3] = { 5, 9, 77 };	/* 77: no row */
	char dir[] = "/tmp/systrace-argpath-XXXXXX", path[64];
	struct st_log_sites ls;
	struct st_log_src *src;
	struct lv_env env;
	struct st_event ev;
	struct st_err err;
	size_t i, k, nsys = 0, with = 0;
	char *got, *line;
	FILE *f;

	lv_setup(failed, &env);
	env.d.paths = calloc(2, sizeof(*env.d.paths));
	ASSERT_TRUE(env.d.paths);
	env.d.npaths = 2;
	env.d.has_paths = true;
	env.d.paths[0] = (struct st_path_row){ .id = 5, .kind = ST_PATH_OK, .count = 1 };
	ASSERT_EQ(st_dump_str(&env.d, "/nonexistent/a", &env.d.paths[0].path), 0);
	env.d.paths[1] = (struct st_path_row){ .id = 9, .kind = ST_PATH_LONG, .count = 1 };
	/* The first three syscalls name ids 5, 9 and 77. */
	for (i = 0, k = 0; i < env.log.n; i++) {
		if (env.log.ev[i].kind != ST_EV_SYSCALL)
			continue;
		if (k < 3)
			env.log.ev[i].path_id = ids[k++];
		nsys++;
	}
	ASSERT_EQ(k, 3);
	ASSERT_EQ(st_log_sites_init(&ls, false), 0);
	got = lv_record_via(failed, &env, &ls);
	ASSERT_TRUE(got);
	EXPECT_TRUE(strstr(got, ",argv,argv_truncated,arg_path\n") != NULL);
	EXPECT_TRUE(strstr(got, ",/nonexistent/a\n") != NULL);
	EXPECT_TRUE(strstr(got, ",<longer than 255 bytes>\n") != NULL);
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log.csv", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	fputs(got, f);
	fclose(f);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	k = 0;
	while (st_log_src_next(src, &ev, &err) == 1) {
		if (ev.kind != ST_EV_SYSCALL) {
			EXPECT_TRUE(ev.arg_path == NULL);
			continue;
		}
		/* In log order: the first three syscalls are the fixture's first three. */
		if (ev.arg_path) {
			with++;
			EXPECT_TRUE(k < 2 && !strcmp(ev.arg_path, shown[k]));
		}
		k++;
	}
	EXPECT_EQ(with, 2);
	EXPECT_EQ(k, nsys);
	st_log_src_close(src);
	unlink(path);
	rmdir(dir);
	/* Each line of the CSV has as many fields as its header. */
	for (line = strtok(got, "\n"); line; line = strtok(NULL, "\n")) {
		size_t commas = 0;
		const char *c;

		for (c = line; *c; c++)
			commas += *c == ',';
		if (!strchr(line, '"'))
			EXPECT_EQ(commas, 27);
	}
	free(got);
	st_log_sites_free(&ls);
	lv_teardown(&env);
}

/* A version 1 record: nr a u32, abi a u16, kind, a byte 0; no path id. */
struct lv_spool_rec1 {
	uint64_t ts_ns, dur_ns, proc_id, seq, addr;
	int64_t ret;
	uint32_t pid, tid, nr;
	uint16_t abi;
	uint8_t kind, extra;
};

/*
 * A spool of version 1 (before path ids), kept after a failure, still
 * reads: each record's nr, abi and kind as written, no path id.
 */
TEST(log_spool_of_version_1_still_reads)
{
	char dir[] = "/tmp/systrace-spool1-XXXXXX", path[64];
	struct {
		char magic[8];
		uint32_t version, rec_size, session_id, reserved;
	} h = { "STSPOOL1", 1, 64, 3, 0 };
	struct { uint32_t magic, run, nrec, csize; } c = { 0x4b435453u, 0, 3, 0 };
	struct lv_spool_rec1 r[3];
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;
	char z[1024];
	size_t n, i;
	FILE *f;

	_Static_assert(sizeof(struct lv_spool_rec1) == 64, "a version 1 record is 64 bytes");
	for (i = 0; i < 3; i++)
		r[i] = (struct lv_spool_rec1){ .ts_ns = 100 + i, .proc_id = 1, .seq = i,
					       .addr = 0x1000, .ret = -2, .pid = 10, .tid = 10,
					       .nr = 257 + (uint32_t)i, .abi = 1,
					       .kind = ST_EV_SYSCALL };
	n = ZSTD_compress(z, sizeof(z), r, sizeof(r), 1);
	ASSERT_TRUE(!ZSTD_isError(n));
	c.csize = (uint32_t)n;
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log.csv.spool", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	EXPECT_EQ(fwrite(&h, sizeof(h), 1, f), 1);
	EXPECT_EQ(fwrite(&c, sizeof(c), 1, f), 1);
	EXPECT_EQ(fwrite(z, n, 1, f), 1);
	fclose(f);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	for (i = 0; st_log_src_next(src, &ev, &err) == 1; i++) {
		EXPECT_EQ(ev.kind, ST_EV_SYSCALL);
		EXPECT_EQ(ev.nr, 257 + i);
		EXPECT_EQ(ev.abi, 1);
		EXPECT_EQ(ev.seq, i);
		EXPECT_EQ(ev.path_id, 0);
		EXPECT_TRUE(ev.arg_path == NULL);
	}
	EXPECT_EQ(i, 3);
	EXPECT_EQ(st_log_src_meta(src)->session_id, 3);
	st_log_src_close(src);
	unlink(path);
	rmdir(dir);
}
