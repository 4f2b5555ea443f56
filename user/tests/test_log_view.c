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
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include "report.h"
#include "systrace.h"
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

/* The dump and the log above; ld and self must outlive them. */
static void lv_fixture(bool *failed, struct st_dump *d, struct st_log *log,
		       const char *ld, const char *self)
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
			s->path = strdup(obj);
			s->offset = e->addr & 0xfff;
			s->first_ordinal = e->seq;
			s->first_ns = e->ts;
			if (!strcmp(obj, EARLY)) {
				s->sym = calloc(1, sizeof(*s->sym));
				s->sym->symbol = strdup("write");
			}
		}
		s->calls++;
		d->procs[e->proc_id - 1].syscalls++;
	}
	st_dump_sort(d);
	for (i = 0; i < LV_N; i++) {
		const struct lv_ev *e = &lv_events[i];
		struct st_event ev = {
			.kind = e->kind, .proc_id = e->proc_id,
			.pid = d->procs[e->proc_id - 1].pid, .tid = e->tid,
			.seq = e->seq, .ts_ns = e->ts, .dur_ns = e->dur,
			.abi = SYSTRACE_ABI_X64, .nr = e->nr, .ret = e->ret,
			.addr = e->addr,
			.proc = &d->procs[e->proc_id - 1],
		};

		if (e->kind == ST_EV_SYSCALL && e->object)
			ev.site = lv_site_find(d, e->proc_id, e->addr, e->nr);
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
};

static void lv_setup(bool *failed, struct lv_env *env)
{
	ssize_t n;

	env->ld = lv_interp();
	ASSERT_TRUE(env->ld);
	n = readlink("/proc/self/exe", env->self, sizeof(env->self) - 1);
	ASSERT_TRUE(n > 0);
	env->self[n] = '\0';
	lv_fixture(failed, &env->d, &env->log, env->ld, env->self);
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
	st_log_phases(&env.log, &env.d, NULL);
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
	st_log_phases(&env.log, &env.d, EARLY);
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
	st_log_phases(&env.log, &env.d, NULL);
	lv_phases(&env.log, phase, early);
	/*
	 * Image 1's interpreter is inferred from image 3's (its ld.so sites),
	 * so only an image with no known interpreter and no ld.so site would
	 * get "-": image 3 without its exe and its ld rows is one.
	 */
	EXPECT_STREQ(phase, "LLLLLPPP.PP.LLLPP.P.");
	free(env.d.procs[2].exe);
	env.d.procs[2].exe = NULL;
	st_log_phases(&env.log, &env.d, NULL);
	lv_phases(&env.log, phase, early);
	EXPECT_STREQ(phase, "--------.P-.-----.-.");
	EXPECT_STREQ(early, "________.__._____._.");
	lv_teardown(&env);
}

static json_t *lv_chrome(bool *failed, const struct lv_env *env)
{
	json_error_t jerr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *j;

	ASSERT_TRUE(f);
	EXPECT_EQ(st_log_write_chrome(f, &env->log, &env->d), 0);
	fclose(f);
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
	st_log_phases(&env.log, &env.d, NULL);
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
