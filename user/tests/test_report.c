// SPDX-License-Identifier: GPL-2.0
/*
 * The reports' arithmetic on small sessions built here, whose answers can
 * be checked by hand (each fixture says what it holds), and their output:
 * aligned text, CSV, JSON, and --input reading back a dump.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "log/log.h"
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "report.h"
#include "common.h"
#include "test.h"
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MS 1000000ULL

static struct st_proc_row *add_proc(struct st_dump *d, uint64_t id,
				uint64_t wall_ns, const char *exe)
{
	struct st_proc_row *p;

	d->procs = realloc(d->procs, (d->nprocs + 1) * sizeof(*p));
	p = &d->procs[d->nprocs++];
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->pid = 1000 + (uint32_t)id;
	snprintf(p->comm, sizeof(p->comm), "p%u", (unsigned int)id);
	p->exe = exe ? strdup(exe) : NULL;
	p->start_ns = 10 * MS;
	if (wall_ns != UINT64_MAX) {
		p->has_end_ns = true;
		p->end_ns = p->start_ns + wall_ns;
		p->end = SYSTRACE_END_EXITED;
	}
	return p;
}

static struct st_site_row *add_site(struct st_dump *d, uint64_t proc,
				uint64_t addr, uint32_t nr, uint64_t calls,
				uint64_t first_ordinal)
{
	struct st_site_row *s;
	size_t i;

	d->sites = realloc(d->sites, (d->nsites + 1) * sizeof(*s));
	s = &d->sites[d->nsites++];
	memset(s, 0, sizeof(*s));
	s->proc_id = proc;
	s->addr = addr;
	s->nr = nr;
	s->abi = SYSTRACE_ABI_X64;
	s->map = SYSTRACE_MAP_ANON;
	s->offset = addr;
	s->calls = calls;
	s->total_ns = calls * 10;
	s->min_ns = s->max_ns = 10;
	s->first_ordinal = first_ordinal;
	for (i = 0; i < d->nprocs; i++) {
		if (d->procs[i].id == proc) {
			d->procs[i].syscalls += calls;
			d->procs[i].syscall_ns += s->total_ns;
			d->procs[i].sites++;
		}
	}
	d->session.syscalls += calls;
	d->session.syscall_ns += s->total_ns;
	return s;
}

static void in_file(struct st_dump *d, struct st_site_row *s, const char *path,
		    uint64_t offset)
{
	s->map = SYSTRACE_MAP_FILE;
	if (st_dump_str(d, path, &s->path))
		abort();
	s->offset = offset;
}

/* A file site in function symbol that starts at file offset start. */
static void in_func(struct st_dump *d, struct st_site_row *s, const char *object,
		    const char *symbol, uint64_t start, uint64_t offset)
{
	in_file(d, s, object, offset);
	if (st_dump_sym(d, &(struct st_sym){
			.object = object,
			.symbol = symbol,
			.has_symbol_offset = true,
			.symbol_offset = offset - start,
		}, &s->sym))
		abort();
}

static void finish(struct st_dump *d)
{
	d->session.id = 3;
	d->session.state = SYSTRACE_STATE_FINISHED;
	d->session.procs = d->nprocs;
	d->session.sites = d->nsites;
	st_dump_sort(d);
}

static const struct rt_table *table(const struct rt_report *r,
				    const char *name)
{
	size_t i;

	for (i = 0; i < r->ntables; i++)
		if (!strcmp(r->tables[i]->name, name))
			return r->tables[i];
	return NULL;
}

static size_t col(const struct rt_table *t, const char *name)
{
	size_t c;

	for (c = 0; c < t->ncols && strcmp(t->cols[c], name); c++)
		;
	return c;
}

/* Cell (row, column name) as an integer; fractions in 1/10000. */
static uint64_t cell(const struct rt_table *t, size_t row, const char *name)
{
	size_t c = col(t, name);

	if (!t || row >= t->nrows || c == t->ncols)
		return UINT64_MAX - 1;
	if (t->cells[row * t->ncols + c].kind == ST_NULL)
		return UINT64_MAX;
	return t->cells[row * t->ncols + c].u;
}

static const char *cell_s(const struct rt_table *t, size_t row,
			  const char *name)
{
	size_t c = col(t, name);

	if (!t || row >= t->nrows || c == t->ncols)
		return NULL;
	return t->cells[row * t->ncols + c].s;
}

#define NONE UINT64_MAX

/*
 * Amortization. Image 1: sites of 1, 3 (two rows: 2 + 1) and 20 calls.
 * Image 2: sites of 1, 1024 and 0 calls (a call still in flight).
 */
static void amortize_fixture(struct st_dump *d)
{
	memset(d, 0, sizeof(*d));
	add_proc(d, 1, 5 * MS, NULL);
	add_proc(d, 2, 7 * MS, NULL);
	add_site(d, 1, 0xa, 0, 1, 0);
	add_site(d, 1, 0xb, 0, 2, 1);
	add_site(d, 1, 0xb, 1, 1, 3);
	add_site(d, 1, 0xc, 0, 20, 2);
	add_site(d, 2, 0xa, 0, 1, 0);
	add_site(d, 2, 0xd, 0, 1024, 1);
	add_site(d, 2, 0xe, 61, 0, 1025);
	finish(d);
}

TEST(report_patch_sites_sum_rows_of_one_address)
{
	struct st_psite *ps;
	struct st_dump d;
	size_t n;

	amortize_fixture(&d);
	ASSERT_EQ(st_patch_sites(&d, &ps, &n), 0);
	ASSERT_EQ(n, 6);
	EXPECT_EQ(ps[1].proc_id, 1);
	EXPECT_EQ(ps[1].addr, 0xb);
	EXPECT_EQ(ps[1].calls, 3);
	EXPECT_EQ(ps[1].nrows, 2);
	EXPECT_EQ(ps[1].first_ordinal, 1);
	EXPECT_EQ(ps[1].row->nr, 0);
	free(ps);
	st_dump_free(&d);
}

TEST(report_amortize_counts_histogram_thresholds)
{
	static const uint64_t want_thr[][4] = {
		/* N, sites below, calls below, processes */
		{ 1, 1, 0, 1 }, { 2, 3, 2, 2 }, { 4, 4, 5, 2 }, { 8, 4, 5, 2 },
		{ 16, 4, 5, 2 }, { 32, 5, 25, 2 }, { 64, 5, 25, 2 },
		{ 128, 5, 25, 2 }, { 256, 5, 25, 2 }, { 512, 5, 25, 2 },
		{ 1024, 5, 25, 2 },
	};
	struct am_result a;
	struct st_dump d;
	size_t k;

	amortize_fixture(&d);
	ASSERT_EQ(st_amortize(&d, 16, &a), 0);
	EXPECT_EQ(a.sites, 6);
	EXPECT_EQ(a.calls, 1049);
	EXPECT_EQ(a.sites_below, 4);
	EXPECT_EQ(a.calls_below, 5);
	EXPECT_EQ(a.procs_below, 2);

	EXPECT_EQ(a.procs[0].sites, 3);
	EXPECT_EQ(a.procs[0].sites_below, 2);
	EXPECT_EQ(a.procs[0].calls, 24);
	EXPECT_EQ(a.procs[0].calls_below, 4);
	EXPECT_EQ(a.procs[1].sites, 3);
	EXPECT_EQ(a.procs[1].sites_below, 2);
	EXPECT_EQ(a.procs[1].calls, 1025);
	EXPECT_EQ(a.procs[1].calls_below, 1);

	/* 0 | 1 | 2-3 | 4-7 ... | 16-31 | ... | 1024-2047 */
	EXPECT_EQ(a.buckets[0].sites, 1);
	EXPECT_EQ(a.buckets[1].min_calls, 1);
	EXPECT_EQ(a.buckets[1].max_calls, 1);
	EXPECT_EQ(a.buckets[1].sites, 2);
	EXPECT_EQ(a.buckets[1].calls, 2);
	EXPECT_EQ(a.buckets[2].min_calls, 2);
	EXPECT_EQ(a.buckets[2].max_calls, 3);
	EXPECT_EQ(a.buckets[2].sites, 1);
	EXPECT_EQ(a.buckets[3].sites, 0);
	EXPECT_EQ(a.buckets[5].min_calls, 16);
	EXPECT_EQ(a.buckets[5].sites, 1);
	EXPECT_EQ(a.buckets[11].min_calls, 1024);
	EXPECT_EQ(a.buckets[11].max_calls, 2047);
	EXPECT_EQ(a.buckets[11].calls, 1024);
	EXPECT_EQ(a.buckets[64].max_calls, UINT64_MAX);

	st_amortize_free(&a);

	/* A site with exactly N calls amortizes. */
	ASSERT_EQ(st_amortize(&d, 20, &a), 0);
	EXPECT_EQ(a.sites_below, 4);
	st_amortize_free(&a);
	ASSERT_EQ(st_amortize(&d, 21, &a), 0);
	EXPECT_EQ(a.sites_below, 5);
	EXPECT_EQ(a.calls_below, 25);

	for (k = 0; k < AM_NTHRESHOLDS; k++) {
		EXPECT_EQ(a.thresholds[k].threshold, want_thr[k][0]);
		EXPECT_EQ(a.thresholds[k].sites_below, want_thr[k][1]);
		EXPECT_EQ(a.thresholds[k].calls_below, want_thr[k][2]);
		EXPECT_EQ(a.thresholds[k].processes, want_thr[k][3]);
	}
	st_amortize_free(&a);
	st_dump_free(&d);
}

/*
 * Every bucket's bounds, computed without a shift by 64 or more (UBSan
 * aborted on the old 66 buckets), the last one holding a site of 2^64 - 1
 * calls.
 */
TEST(report_amortize_buckets_cover_every_count)
{
	struct am_result a;
	struct st_dump d;
	size_t k;

	memset(&d, 0, sizeof(d));
	add_proc(&d, 1, 5 * MS, NULL);
	add_site(&d, 1, 0xa, 0, UINT64_MAX, 0);
	add_site(&d, 1, 0xb, 0, 1ULL << 63, 1);
	finish(&d);
	ASSERT_EQ(AM_NBUCKETS, 65);
	ASSERT_EQ(st_amortize(&d, 16, &a), 0);
	EXPECT_EQ(a.buckets[0].min_calls, 0);
	EXPECT_EQ(a.buckets[0].max_calls, 0);
	for (k = 1; k < AM_NBUCKETS; k++) {
		EXPECT_EQ(a.buckets[k].min_calls, 1ULL << (k - 1));
		EXPECT_EQ(a.buckets[k].max_calls,
			  k == 64 ? UINT64_MAX : (1ULL << k) - 1);
	}
	EXPECT_EQ(a.buckets[64].sites, 2);
	EXPECT_EQ(a.buckets[63].sites, 0);
	st_amortize_free(&a);
	st_dump_free(&d);
}

/*
 * A session with no site (and a log with no event) makes empty tables,
 * and no qsort() of a NULL array (UBSan aborted the syscalls and phases
 * reports on it).
 */
TEST(report_syscalls_and_phases_of_an_empty_session)
{
	struct report_opts o = { .threshold = 16 };
	struct st_log_sums log = { 0 };
	struct rt_report r = { .name = "syscalls" };
	struct st_dump d;

	memset(&d, 0, sizeof(d));
	finish(&d);
	ASSERT_EQ(report_syscalls(&r, &d, &o), 0);
	ASSERT_TRUE(table(&r, "syscalls"));
	EXPECT_EQ(table(&r, "syscalls")->nrows, 0);
	EXPECT_EQ(table(&r, "processes")->nrows, 0);
	rt_report_free(&r);

	r.name = "phases";
	ASSERT_EQ(report_phases(&r, &d, &o), 0);
	EXPECT_EQ(table(&r, "syscalls")->nrows, 0);
	EXPECT_EQ(table(&r, "processes")->nrows, 0);
	rt_report_free(&r);

	o.log = &log;
	r.name = "phases";
	ASSERT_EQ(report_phases(&r, &d, &o), 0);
	EXPECT_EQ(table(&r, "syscalls")->nrows, 0);
	rt_report_free(&r);
	st_dump_free(&d);
}

TEST(report_amortize_tables)
{
	struct report_opts o = { .threshold = 16 };
	struct rt_report r = { .name = "amortize" };
	const struct rt_table *h, *t, *p;
	struct st_dump d;

	amortize_fixture(&d);
	r.dump = &d;
	ASSERT_EQ(report_amortize(&r, &d, &o), 0);
	h = table(&r, "histogram");
	ASSERT_TRUE(h);
	/* The 0-call bucket, then 1 .. 1024-2047: 12 rows. */
	EXPECT_EQ(h->nrows, 12);
	EXPECT_EQ(cell(h, 0, "max_calls"), 0);
	EXPECT_EQ(cell(h, 2, "min_calls"), 2);
	EXPECT_EQ(cell(h, 2, "sites_fraction"), 1667);	/* 1/6 */
	EXPECT_EQ(cell(h, 11, "min_calls"), 1024);
	EXPECT_EQ(cell(h, 11, "calls_fraction"), 9762);	/* 1024/1049 */
	EXPECT_EQ(cell(h, 11, "cumulative_sites_fraction"), 10000);
	t = table(&r, "thresholds");
	ASSERT_TRUE(t);
	EXPECT_EQ(t->nrows, 11);
	EXPECT_EQ(cell(t, 10, "threshold"), 1024);
	EXPECT_EQ(cell(t, 4, "sites_fraction"), 6667);	/* 4/6 */
	p = table(&r, "processes");
	ASSERT_TRUE(p);
	EXPECT_EQ(cell(p, 1, "wall_ns"), 7 * MS);
	EXPECT_EQ(cell(p, 0, "calls_below_fraction"), 1667);	/* 4/24 */
	t = table(&r, "totals");
	ASSERT_TRUE(t && t->single);
	EXPECT_EQ(cell(t, 0, "sites_below"), 4);
	EXPECT_EQ(cell(t, 0, "syscalls"), 1049);
	rt_report_free(&r);
	st_dump_free(&d);
}

#define LIBC "/lib/libc.so.6"
#define LD "/lib/ld.so"

/*
 * Short-lived images, threshold 4, bound 100 ms. Functions: open@libc
 * (start 0x200, two sites 0x210 and 0x220), read@libc (0x100), close@libc
 * (0x300), mmap@ld (0x50).
 *   image 1, 50 ms: read 1 call, open 2, close 10 (amortized), mmap 1,
 *                   a vdso site 1 (cannot be hooked)
 *   image 2, 10 ms: read 1, open at 0x210 1 and at 0x220 1 (nr 2), mmap 3
 *   image 3, 200 ms: read 1 (not short)
 *   image 4, running: read 1 (not short)
 *   image 5, 1 ms: read 5 (amortized)
 * Non-amortized pairs: 4 + 4 = 8, one unresolved. open: 3 pairs (4 calls),
 * mmap: 2 (4 calls), read: 2 (2 calls). The cover: open 3/8, + mmap 5/8,
 * + read 7/8; image 2 is clean after step 3, image 1 never (vdso).
 */
static void short_fixture(struct st_dump *d)
{
	struct st_site_row *s;

	memset(d, 0, sizeof(*d));
	add_proc(d, 1, 50 * MS, NULL);
	add_proc(d, 2, 10 * MS, NULL);
	add_proc(d, 3, 200 * MS, NULL);
	add_proc(d, 4, UINT64_MAX, NULL);
	add_proc(d, 5, 1 * MS, NULL);
	in_func(d, add_site(d, 1, 0x7000105, 0, 1, 0), LIBC, "read", 0x100, 0x105);
	in_func(d, add_site(d, 1, 0x7000212, 257, 2, 1), LIBC, "open", 0x200, 0x210);
	in_func(d, add_site(d, 1, 0x7000305, 3, 10, 2), LIBC, "close", 0x300, 0x305);
	in_func(d, add_site(d, 1, 0x6000055, 9, 1, 3), LD, "mmap", 0x50, 0x55);
	s = add_site(d, 1, 0x7fff0000, 228, 1, 4);
	s->map = SYSTRACE_MAP_VDSO;
	in_func(d, add_site(d, 2, 0x7000105, 0, 1, 0), LIBC, "read", 0x100, 0x105);
	in_func(d, add_site(d, 2, 0x7000210, 257, 1, 1), LIBC, "open", 0x200, 0x210);
	in_func(d, add_site(d, 2, 0x7000220, 2, 1, 2), LIBC, "open", 0x200, 0x220);
	in_func(d, add_site(d, 2, 0x6000055, 9, 3, 3), LD, "mmap", 0x50, 0x55);
	in_func(d, add_site(d, 3, 0x7000105, 0, 1, 0), LIBC, "read", 0x100, 0x105);
	in_func(d, add_site(d, 4, 0x7000105, 0, 1, 0), LIBC, "read", 0x100, 0x105);
	in_func(d, add_site(d, 5, 0x7000105, 0, 5, 0), LIBC, "read", 0x100, 0x105);
	d->symbolized = true;
	finish(d);
}

TEST(report_short_ranks_functions_and_covers_greedily)
{
	struct sh_result s;
	struct st_dump d;

	short_fixture(&d);
	ASSERT_EQ(st_short(&d, 100 * MS, 4, 10, &s), 0);
	EXPECT_EQ(s.short_procs, 3);
	EXPECT_EQ(s.procs_with_pairs, 2);
	EXPECT_EQ(s.pairs, 8);
	EXPECT_EQ(s.calls, 11);
	EXPECT_EQ(s.unresolved_pairs, 1);
	EXPECT_EQ(s.unresolved_calls, 1);
	ASSERT_EQ(s.nfuncs, 3);
	EXPECT_STREQ(s.funcs[0].symbol, "open");
	EXPECT_EQ(s.funcs[0].pairs, 3);
	EXPECT_EQ(s.funcs[0].calls, 4);
	EXPECT_EQ(s.funcs[0].procs, 2);
	EXPECT_EQ(s.funcs[0].start, 0x200);
	EXPECT_STREQ(s.funcs[0].syscalls, "openat:3 open:1");
	EXPECT_STREQ(s.funcs[1].symbol, "mmap");
	EXPECT_STREQ(s.funcs[1].object, LD);
	EXPECT_EQ(s.funcs[1].pairs, 2);
	EXPECT_EQ(s.funcs[1].calls, 4);
	EXPECT_STREQ(s.funcs[1].syscalls, "mmap:4");
	EXPECT_STREQ(s.funcs[2].symbol, "read");
	EXPECT_EQ(s.funcs[2].calls, 2);

	ASSERT_EQ(s.nsteps, 3);
	EXPECT_EQ(s.steps[0].removed, 3);
	EXPECT_EQ(s.steps[0].cumulative, 3);
	EXPECT_EQ(s.steps[1].cumulative, 5);
	EXPECT_EQ(s.steps[2].cumulative, 7);
	EXPECT_EQ(s.steps[0].procs_clean, 0);
	EXPECT_EQ(s.steps[1].procs_clean, 0);
	EXPECT_EQ(s.steps[2].procs_clean, 1);
	ASSERT_EQ(s.nunres, 1);
	EXPECT_STREQ(s.unres[0].reason, "vdso");
	EXPECT_NULL(s.unres[0].object);
	EXPECT_EQ(s.unres[0].sites, 1);
	st_short_free(&s);

	/* --top 2 stops the cover, not the ranking. */
	ASSERT_EQ(st_short(&d, 100 * MS, 4, 2, &s), 0);
	EXPECT_EQ(s.nsteps, 2);
	EXPECT_EQ(s.nfuncs, 3);
	st_short_free(&s);

	/* A bound of 20 ms keeps image 2 only (and 5, which has no pair). */
	ASSERT_EQ(st_short(&d, 20 * MS, 4, 10, &s), 0);
	EXPECT_EQ(s.short_procs, 2);
	EXPECT_EQ(s.pairs, 4);
	EXPECT_EQ(s.steps[2].procs_clean, 1);
	EXPECT_EQ(s.steps[2].cumulative, 4);
	st_short_free(&s);
	st_dump_free(&d);
}

TEST(report_short_tables)
{
	struct report_opts o = { .threshold = 4, .max_ms = 100, .sel = { .top = 2, .has_top = true } };
	struct rt_report r = { .name = "short" };
	const struct rt_table *c, *u;
	struct st_dump d;

	short_fixture(&d);
	r.dump = &d;
	ASSERT_EQ(report_short(&r, &d, &o), 0);
	c = table(&r, "cover");
	ASSERT_TRUE(c);
	EXPECT_EQ(c->nrows, 2);
	EXPECT_EQ(cell(c, 0, "cumulative_fraction"), 3750);
	EXPECT_EQ(cell(c, 1, "cumulative_fraction"), 6250);
	EXPECT_EQ(cell(c, 1, "processes_clean_fraction"), 0);
	EXPECT_STREQ(cell_s(c, 1, "symbol"), "mmap");
	u = table(&r, "unresolved");
	ASSERT_TRUE(u);
	EXPECT_EQ(u->nrows, 1);
	EXPECT_STREQ(cell_s(u, 0, "reason"), "vdso");
	EXPECT_EQ(cell(u, 0, "sites"), 1);
	EXPECT_EQ(table(&r, "functions")->nrows, 3);
	rt_report_free(&r);
	st_dump_free(&d);
}

/* The interpreter this test program names, as readelf shows it. */
static char *own_interp(void)
{
	char line[512], path[256] = "";
	FILE *f = popen("readelf -lW /proc/self/exe", "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, " [Requesting program interpreter: %255[^]]]", path);
	if (f)
		pclose(f);
	return path[0] ? realpath(path, NULL) : NULL;
}

/*
 * Loader phases. The interpreter is this test's own (ld.so); "libc" is any
 * other object.
 *   image 1 (this test's exe): ld brk f0 1 call, ld mmap f1 8, ld openat
 *     f2 3, libc write f10 5, ld mmap (another site) f12 2. B = 10; the
 *     loader rows hold 12 calls, so 2 came after B (later_calls).
 *     loader 10, program 9; sites 3 and 2.
 *   image 2 (executable gone): ld f0 2, libc f2 3: the interpreter is
 *     inferred from image 1's; loader 2, program 3.
 *   image 3 (no executable known, no ld site): unknown, 4 calls.
 *   image 4 (exe is ld.so itself: no PT_INTERP): static, program 2.
 *   image 5 (this test's exe, only ld sites): no boundary, loader 3.
 *   image 6 (forked by image 1, no exec): ld f0 1, no loader phase.
 */
static void phases_fixture(struct st_dump *d, const char *ld, const char *self)
{
	memset(d, 0, sizeof(*d));
	add_proc(d, 1, MS, self);
	add_proc(d, 2, MS, "/nonexistent/dir/prog");
	add_proc(d, 3, MS, NULL);
	add_proc(d, 4, MS, ld);
	add_proc(d, 5, MS, self);
	add_proc(d, 6, MS, self)->parent_id = 1;
	for (size_t i = 0; i < 5; i++)
		d->procs[i].prev_id = 100 + i;
	in_file(d, add_site(d, 1, 0x100, 12, 1, 0), ld, 0x100);
	in_file(d, add_site(d, 1, 0x200, 9, 8, 1), ld, 0x200);
	in_file(d, add_site(d, 1, 0x300, 257, 3, 2), ld, 0x300);
	in_file(d, add_site(d, 1, 0x9000, 1, 5, 10), LIBC, 0x9000);
	in_file(d, add_site(d, 1, 0x400, 9, 2, 12), ld, 0x400);
	in_file(d, add_site(d, 2, 0x100, 12, 2, 0), ld, 0x100);
	in_file(d, add_site(d, 2, 0x9000, 1, 3, 2), LIBC, 0x9000);
	in_file(d, add_site(d, 3, 0x9000, 1, 4, 0), LIBC, 0x9000);
	in_file(d, add_site(d, 4, 0x100, 12, 1, 0), ld, 0x100);
	in_file(d, add_site(d, 4, 0x200, 9, 1, 1), ld, 0x200);
	in_file(d, add_site(d, 5, 0x100, 12, 1, 0), ld, 0x100);
	in_file(d, add_site(d, 5, 0x200, 9, 2, 1), ld, 0x200);
	in_file(d, add_site(d, 6, 0x200, 9, 1, 0), ld, 0x200);
	finish(d);
}

static const struct ph_sys *find_sys(const struct ph_result *p, uint32_t nr)
{
	size_t i;

	for (i = 0; i < p->nsys; i++)
		if (p->sys[i].nr == nr)
			return &p->sys[i];
	return NULL;
}

TEST(report_phases_splits_at_the_first_non_loader_syscall)
{
	char *ld = own_interp(), self[PATH_MAX];
	const struct ph_sys *mmap, *write;
	const struct ph_proc *pp;
	struct ph_result p;
	struct st_dump d;
	ssize_t n;

	ASSERT_TRUE(ld);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_TRUE(n > 0);
	self[n] = '\0';
	phases_fixture(&d, ld, self);
	ASSERT_EQ(st_phases(&d, &p), 0);

	pp = &p.procs[0];
	EXPECT_STREQ(pp->source, "exe");
	EXPECT_STREQ(pp->interp, ld);
	EXPECT_TRUE(pp->has_boundary);
	EXPECT_EQ(pp->boundary, 10);
	EXPECT_EQ(pp->loader_calls, 10);
	EXPECT_EQ(pp->program_calls, 9);
	EXPECT_EQ(pp->later_calls, 2);
	EXPECT_EQ(pp->loader_sites, 3);
	EXPECT_EQ(pp->program_sites, 2);

	pp = &p.procs[1];
	EXPECT_STREQ(pp->source, "inferred");
	EXPECT_TRUE(pp->error && strstr(pp->error, "No such file"));
	EXPECT_EQ(pp->boundary, 2);
	EXPECT_EQ(pp->loader_calls, 2);
	EXPECT_EQ(pp->program_calls, 3);
	EXPECT_EQ(pp->later_calls, 0);

	EXPECT_FALSE(p.procs[2].known);
	EXPECT_STREQ(p.procs[2].source, "unknown");

	pp = &p.procs[3];
	EXPECT_STREQ(pp->source, "static");
	EXPECT_NULL(pp->interp);
	EXPECT_EQ(pp->boundary, 0);
	EXPECT_EQ(pp->loader_calls, 0);
	EXPECT_EQ(pp->program_calls, 2);
	EXPECT_EQ(pp->program_sites, 2);

	pp = &p.procs[4];
	EXPECT_FALSE(pp->has_boundary);
	EXPECT_EQ(pp->loader_calls, 3);
	EXPECT_EQ(pp->program_calls, 0);
	EXPECT_EQ(pp->loader_sites, 2);

	pp = &p.procs[5];
	EXPECT_STREQ(pp->source, "fork");
	EXPECT_EQ(pp->loader_calls, 0);
	EXPECT_EQ(pp->program_calls, 1);

	EXPECT_EQ(p.known_procs, 5);
	EXPECT_EQ(p.unknown_procs, 1);
	EXPECT_EQ(p.unknown_calls, 4);
	EXPECT_EQ(p.loader_calls, 15);
	EXPECT_EQ(p.program_calls, 15);
	EXPECT_EQ(p.later_calls, 2);

	/*
	 * Per syscall. mmap (9): image 1's loader row gives 1 call to the
	 * loader and 7 undetermined, its later row 2 to the program; image
	 * 5's row 2 to the loader; image 4 (static) and 6 (fork) 1 each to
	 * the program.
	 */
	mmap = find_sys(&p, 9);
	ASSERT_TRUE(mmap);
	EXPECT_EQ(mmap->loader_calls, 3);
	EXPECT_EQ(mmap->undetermined, 7);
	EXPECT_EQ(mmap->program_calls, 4);
	EXPECT_EQ(mmap->loader_sites, 2);
	EXPECT_EQ(mmap->program_sites, 3);
	write = find_sys(&p, 1);
	ASSERT_TRUE(write);
	EXPECT_EQ(write->loader_calls, 0);
	EXPECT_EQ(write->program_calls, 8);
	/* Each syscall's three columns add up to its calls. */
	EXPECT_EQ(p.undetermined, 9);
	st_phases_free(&p);
	st_dump_free(&d);
	free(ld);
}

/*
 * strace -c: read 3+1 calls (40 ns) in image 1 and 1 call of 70 ns in
 * image 2: 110 ns; write 2 calls, 100 ns. By time: read 52.38%, write
 * 47.62%.
 */
TEST(report_syscalls_like_strace_c)
{
	struct report_opts o = { 0 };
	struct rt_report r = { .name = "syscalls" };
	const struct rt_table *t, *top;
	struct st_dump d;
	struct st_site_row *s;

	memset(&d, 0, sizeof(d));
	add_proc(&d, 1, MS, NULL);
	add_proc(&d, 2, MS, NULL);
	s = add_site(&d, 1, 0x10, 0, 3, 0);
	s->errors = 1;
	s->min_ns = 5;
	add_site(&d, 1, 0x20, 0, 1, 1)->max_ns = 20;
	add_site(&d, 1, 0x30, 1, 2, 2)->total_ns = 100;
	s = add_site(&d, 2, 0x10, 0, 1, 0);
	s->total_ns = 70;
	finish(&d);
	r.dump = &d;
	ASSERT_EQ(report_syscalls(&r, &d, &o), 0);
	t = table(&r, "syscalls");
	ASSERT_TRUE(t);
	ASSERT_EQ(t->nrows, 2);
	EXPECT_STREQ(cell_s(t, 0, "syscall"), "read");
	EXPECT_EQ(cell(t, 0, "time_percent"), 5238);
	EXPECT_EQ(cell(t, 0, "total_ns"), 110);
	EXPECT_EQ(cell(t, 0, "calls"), 5);
	EXPECT_EQ(cell(t, 0, "avg_ns"), 22);
	EXPECT_EQ(cell(t, 0, "errors"), 1);
	EXPECT_EQ(cell(t, 0, "min_ns"), 5);
	EXPECT_EQ(cell(t, 0, "max_ns"), 20);
	EXPECT_EQ(cell(t, 0, "sites"), 3);
	EXPECT_STREQ(cell_s(t, 1, "syscall"), "write");
	EXPECT_EQ(cell(t, 1, "time_percent"), 4762);
	top = table(&r, "processes");
	ASSERT_TRUE(top);
	EXPECT_TRUE(top->detail);
	ASSERT_EQ(top->nrows, 2);
	EXPECT_EQ(cell(top, 0, "proc_id"), 1);
	EXPECT_EQ(cell(top, 0, "calls"), 6);
	EXPECT_EQ(cell(top, 0, "errors"), 1);
	EXPECT_STREQ(cell_s(top, 0, "syscalls"), "read(0)=4 write(1)=2");
	EXPECT_EQ(cell(top, 1, "proc_id"), 2);
	EXPECT_STREQ(cell_s(top, 1, "syscalls"), "read(0)=1");
	EXPECT_EQ(cell(table(&r, "totals"), 0, "total_ns"), 210);
	rt_report_free(&r);
	st_dump_free(&d);
}

static char *print(const struct rt_report *r, enum st_format fmt,
		   const char *name)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (rt_report_print(f, r, fmt, name))
		fputs("(error)", f);
	fclose(f);
	return out;
}

TEST(report_output_text_csv_json)
{
	static const char *const cols[] = { "n", "name", "frac" };
	struct rt_report r = { .name = "demo" };
	struct rt_table *t = rt_table_new("rows", "a table", cols, 3);
	struct st_dump d = { 0 };
	struct st_cell *c;
	json_error_t jerr;
	json_t *doc;
	char *out;

	r.dump = &d;
	c = rt_row(t);
	rt_u64(&c[0], 7);
	rt_str(&c[1], "a,b");
	rt_frac(&c[2], 1, 3);
	c = rt_row(t);
	rt_u64(&c[0], 12345);
	rt_str(&c[1], "x");
	ASSERT_EQ(rt_add(&r, t), 0);
	ASSERT_EQ(rt_note(&r, "note %d", 1), 0);

	out = print(&r, ST_FMT_TEXT, NULL);
	EXPECT_STREQ(out, "note 1\n\na table\n"
		     "    n  name    frac\n"
		     "    7  a,b   0.3333\n"
		     "12345  x\n");
	free(out);
	out = print(&r, ST_FMT_CSV, NULL);
	EXPECT_STREQ(out, "n,name,frac\n7,\"a,b\",0.3333\n12345,x,\n");
	free(out);
	out = print(&r, ST_FMT_CSV, "nosuch");
	EXPECT_STREQ(out, "(error)");
	free(out);
	out = print(&r, ST_FMT_JSON, NULL);
	doc = json_loads(out, 0, &jerr);
	ASSERT_TRUE(doc);
	EXPECT_STREQ(json_string_value(json_object_get(doc, "report")), "demo");
	EXPECT_EQ(json_array_size(json_object_get(doc, "rows")), 2);
	EXPECT_TRUE(json_is_null(json_object_get(json_array_get(json_object_get(doc, "rows"), 1), "frac")));
	EXPECT_TRUE(json_real_value(json_object_get(json_array_get(json_object_get(doc, "rows"), 0), "frac")) == 0.3333);
	json_decref(doc);
	free(out);
	rt_report_free(&r);
}

/* dump --json, read back: the same data, symbols included. */
TEST(dump_load_reads_back_a_dump)
{
	struct st_view v;
	struct st_dump d, e;
	char *text = NULL, why[256];
	size_t len = 0;
	json_error_t jerr;
	json_t *doc;
	FILE *f;

	st_fixture_symbolized(&d);
	v = (struct st_view){ .dump = &d };
	f = open_memstream(&text, &len);
	ASSERT_EQ(st_json_dump(f, &v, false, false), 0);
	fclose(f);
	doc = json_loads(text, 0, &jerr);
	ASSERT_TRUE(doc);
	ASSERT_EQ(st_dump_load_json(doc, &e, why, sizeof(why)), 0);
	json_decref(doc);

	EXPECT_EQ(e.session.id, 7);
	EXPECT_STREQ(e.session.name, "build");
	EXPECT_EQ(e.session.counters, SYSTRACE_COUNTERS_INSTRUCTIONS);
	EXPECT_TRUE(e.session.has_counter_value);
	EXPECT_EQ(e.session.counter_value, 20000);
	EXPECT_EQ(st_check_totals(&e, NULL), 0);
	ASSERT_EQ(e.nprocs, 2);
	EXPECT_STREQ(e.procs[0].exe, "/bin/sh");
	EXPECT_EQ(e.procs[0].end_ns, 5000);
	EXPECT_FALSE(e.procs[1].has_end_ns);
	EXPECT_STREQ(e.procs[1].comm, "a,b\"c");
	EXPECT_EQ(e.procs[1].parent_id, 1);
	ASSERT_EQ(e.nsites, 3);
	EXPECT_EQ(e.sites[0].addr, 0x7f0000001000ULL);
	EXPECT_EQ(e.sites[0].offset, 0xe1000);
	EXPECT_EQ(e.sites[0].map, SYSTRACE_MAP_FILE);
	EXPECT_EQ(e.sites[0].inode, 1234);
	EXPECT_EQ(e.sites[1].abi, SYSTRACE_ABI_IA32);
	EXPECT_FALSE(e.sites[1].has_file_id);
	EXPECT_TRUE(e.symbolized);
	ASSERT_TRUE(e.sites[0].sym);
	EXPECT_STREQ(e.sites[0].sym->symbol, "getpid");
	EXPECT_EQ(e.sites[0].sym->symbol_offset, 9);
	EXPECT_NULL(e.sites[1].sym);
	st_dump_free(&e);

	doc = json_loads("{\"schema_version\":1,\"session\":{},\"processes\":[],\"sites\":[]}",
			 0, &jerr);
	EXPECT_EQ(st_dump_load_json(doc, &e, why, sizeof(why)), -EINVAL);
	EXPECT_STREQ(why, "session: key \"id\" is missing or of the wrong type");
	json_decref(doc);
	free(text);
	st_dump_free(&d);
	st_dump_free(&e);
}

/*
 * diff: A has sh (2 images) and cat, B has sh and ls. By syscall, A -> B:
 * getppid 12 -> 19 (two sh images at one site in A), read only in A (cat),
 * getpid only in B (ls), close 5 -> 5 failing calls but 50 -> 80 ns, and
 * clock_gettime 4 -> 4 from a vdso that ASLR moved.
 */
#define LIBC "/lib/libc.so.6"

static void diff_fixture(struct st_dump *d, bool b)
{
	struct st_proc_row *p;
	struct st_site_row *s;

	memset(d, 0, sizeof(*d));
	p = add_proc(d, 1, MS, "/bin/sh");
	strcpy(p->comm, "sh");
	p->errors = 5;
	p = add_proc(d, 2, MS, b ? "/bin/ls" : "/bin/sh");
	strcpy(p->comm, b ? "ls" : "sh");
	if (!b)
		strcpy(add_proc(d, 3, MS, "/bin/cat")->comm, "cat");
	in_func(d, add_site(d, 1, 0x7f100, 110, b ? 19 : 10, 0), LIBC, "getppid", 0xf7, 0x100);
	s = add_site(d, 1, 0x7f200, 3, 5, 1);
	in_func(d, s, LIBC, "close", 0x1f0, 0x200);
	s->errors = 5;
	s->total_ns = b ? 80 : 50;
	s = add_site(d, 1, b ? 0xe000 : 0xf000, 228, 4, 2);
	s->map = SYSTRACE_MAP_VDSO;
	if (b) {
		in_func(d, add_site(d, 2, 0x7f400, 39, 1, 0), LIBC, "getpid", 0x400, 0x400);
	} else {
		in_func(d, add_site(d, 2, 0x7f100, 110, 2, 0), LIBC, "getppid", 0xf7, 0x100);
		in_func(d, add_site(d, 3, 0x7f300, 0, 3, 0), LIBC, "read", 0x300, 0x300);
	}
	finish(d);
	d->session.id = b ? 5 : 4;
	d->symbolized = true;
}

struct want_row {
	const char *status;
	uint64_t rows[2], calls[2], errors[2], ns[2];
};

static void expect_rows(bool *failed, const struct df_result *r,
			const struct want_row *w, size_t n)
{
	size_t i, k;

	ASSERT_EQ(r->n, n);
	for (i = 0; i < n; i++) {
		const struct df_row *g = &r->rows[i];

		EXPECT_STREQ(st_diff_status(g), w[i].status);
		for (k = 0; k < 2; k++) {
			EXPECT_EQ(g->rows[k], w[i].rows[k]);
			EXPECT_EQ(g->calls[k], w[i].calls[k]);
			EXPECT_EQ(g->errors[k], w[i].errors[k]);
			EXPECT_EQ(g->ns[k], w[i].ns[k]);
		}
	}
}

TEST(diff_by_syscall_process_site)
{
	static const struct want_row sys[] = {
		{ "changed", { 2, 1 }, { 12, 19 }, { 0, 0 }, { 120, 190 } },
		{ "gone", { 1, 0 }, { 3, 0 }, { 0, 0 }, { 30, 0 } },
		{ "new", { 0, 1 }, { 0, 1 }, { 0, 0 }, { 0, 10 } },
		{ "same", { 1, 1 }, { 5, 5 }, { 5, 5 }, { 50, 80 } },
		{ "same", { 1, 1 }, { 4, 4 }, { 0, 0 }, { 40, 40 } },
	};
	static const struct want_row proc[] = {
		{ "changed", { 2, 1 }, { 21, 28 }, { 5, 5 }, { 210, 280 } },
		{ "gone", { 1, 0 }, { 3, 0 }, { 0, 0 }, { 30, 0 } },
		{ "new", { 0, 1 }, { 0, 1 }, { 0, 0 }, { 0, 10 } },
	};
	static const uint32_t sys_nr[] = { 110, 0, 39, 3, 228 };
	static const char *const comm[] = { "sh", "cat", "ls" };
	struct df_result r;
	struct st_dump a, b;
	size_t i;

	diff_fixture(&a, false);
	diff_fixture(&b, true);
	ASSERT_EQ(st_diff(&a, &b, DF_SYSCALL, DF_SORT_CALLS, &r), 0);
	expect_rows(failed, &r, sys, 5);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(r.rows[i].num[1], sys_nr[i]);
	st_diff_free(&r);

	ASSERT_EQ(st_diff(&a, &b, DF_PROCESS, DF_SORT_CALLS, &r), 0);
	expect_rows(failed, &r, proc, 3);
	for (i = 0; i < 3; i++)
		EXPECT_STREQ(r.rows[i].str[0], comm[i]);
	st_diff_free(&r);

	/* The same rows by site: one site per syscall here. */
	ASSERT_EQ(st_diff(&a, &b, DF_SITE, DF_SORT_CALLS, &r), 0);
	expect_rows(failed, &r, sys, 5);
	EXPECT_STREQ(r.rows[0].str[0], LIBC);
	EXPECT_EQ(r.rows[0].num[1], 0x100);
	ASSERT_TRUE(r.rows[0].sym);
	EXPECT_STREQ(r.rows[0].sym->symbol, "getppid");
	EXPECT_STREQ(r.rows[2].sym->symbol, "getpid");
	EXPECT_NULL(r.rows[4].str[0]);
	EXPECT_EQ(r.rows[4].num[0], SYSTRACE_MAP_VDSO);
	st_diff_free(&r);

	/* B -> A: what was new is gone, and the order stays. */
	ASSERT_EQ(st_diff(&b, &a, DF_SYSCALL, DF_SORT_CALLS, &r), 0);
	ASSERT_EQ(r.n, 5);
	EXPECT_STREQ(st_diff_status(&r.rows[1]), "new");
	EXPECT_STREQ(st_diff_status(&r.rows[2]), "gone");
	EXPECT_EQ(r.rows[2].num[1], 39);
	st_diff_free(&r);
	st_dump_free(&a);
	st_dump_free(&b);
}

TEST(diff_output_csv_json_amortize)
{
	struct diff_opts o = {
		.by = 1U << DF_SYSCALL | 1U << DF_SITE | 1U << DF_AMORTIZE,
		.threshold = 10,
	};
	char why[128];
	static const uint64_t want_am[][7] = {
		/* N, sites below A, B, calls below A, B, processes A, B */
		{ 1, 0, 0, 0, 0, 0, 0 }, { 2, 0, 1, 0, 1, 0, 1 },
		{ 4, 2, 1, 5, 1, 2, 1 }, { 8, 4, 3, 14, 10, 3, 2 },
		{ 10, 4, 3, 14, 10, 3, 2 }, { 16, 5, 3, 24, 10, 3, 2 },
		{ 32, 5, 4, 24, 29, 3, 2 }, { 1024, 5, 4, 24, 29, 3, 2 },
	};
	struct rt_report r = { 0 };
	const struct rt_table *t;
	struct st_dump a, b;
	json_error_t jerr;
	json_t *doc, *row;
	size_t i, k;
	char *out;

	diff_fixture(&a, false);
	diff_fixture(&b, true);
	ASSERT_EQ(report_diff(&r, &a, &b, &o), 0);
	ASSERT_EQ(r.ntables, 3);
	out = print(&r, ST_FMT_CSV, "syscalls");
	EXPECT_STREQ(out,
		     "status,calls_a,calls_b,calls_delta,calls_delta_percent,errors_a,errors_b,"
		     "errors_delta,time_a_ns,time_b_ns,time_delta_ns,time_delta_percent,abi,nr,"
		     "syscall\n"
		     "changed,12,19,7,58.33,0,0,0,120,190,70,58.33,x64,110,getppid\n"
		     "gone,3,0,-3,-100.00,0,0,0,30,0,-30,-100.00,x64,0,read\n"
		     "new,0,1,1,,0,0,0,0,10,10,,x64,39,getpid\n"
		     "same,5,5,0,0.00,5,5,0,50,80,30,60.00,x64,3,close\n"
		     "same,4,4,0,0.00,0,0,0,40,40,0,0.00,x64,228,clock_gettime\n");
	free(out);

	t = table(&r, "amortize");
	ASSERT_TRUE(t);
	ASSERT_EQ(t->nrows, 12);
	for (i = 0; i < ARRAY_SIZE(want_am); i++) {
		size_t row = want_am[i][0] == 1024 ? 11 : i;

		EXPECT_EQ(cell(t, row, "threshold"), want_am[i][0]);
		for (k = 0; k < 3; k++) {
			static const char *const base[] = {
				"sites_below", "calls_below", "processes",
			};
			char a_col[32], b_col[32], d_col[32];

			snprintf(a_col, sizeof(a_col), "%s_a", base[k]);
			snprintf(b_col, sizeof(b_col), "%s_b", base[k]);
			snprintf(d_col, sizeof(d_col), "%s_delta", base[k]);
			EXPECT_EQ(cell(t, row, a_col), want_am[i][1 + 2 * k]);
			EXPECT_EQ(cell(t, row, b_col), want_am[i][2 + 2 * k]);
			EXPECT_EQ(cell(t, row, d_col),
				  want_am[i][2 + 2 * k] - want_am[i][1 + 2 * k]);
		}
	}
	EXPECT_STREQ(cell_s(t, 0, "status"), "same");
	EXPECT_STREQ(cell_s(t, 1, "status"), "changed");

	out = print(&r, ST_FMT_JSON, NULL);
	doc = json_loads(out, 0, &jerr);
	ASSERT_TRUE(doc);
	EXPECT_STREQ(json_string_value(json_object_get(doc, "report")), "diff");
	EXPECT_EQ(json_integer_value(json_object_get(json_object_get(doc, "session_a"), "id")), 4);
	EXPECT_EQ(json_integer_value(json_object_get(json_object_get(doc, "session_b"), "id")), 5);
	EXPECT_NULL(json_object_get(doc, "session"));
	EXPECT_EQ(json_array_size(json_object_get(json_object_get(doc, "parameters"), "by")), 3);
	EXPECT_EQ(json_integer_value(json_object_get(json_object_get(doc, "parameters"), "threshold")), 10);
	EXPECT_TRUE(json_is_null(json_object_get(json_object_get(doc, "parameters"), "top")));
	EXPECT_STREQ(json_string_value(json_object_get(json_object_get(doc, "parameters"), "sort")),
		     "calls");
	row = json_array_get(json_object_get(doc, "syscalls"), 1);
	EXPECT_EQ(json_integer_value(json_object_get(row, "calls_delta")), (json_int_t)-3);
	row = json_array_get(json_object_get(doc, "sites"), 0);
	EXPECT_STREQ(json_string_value(json_object_get(row, "symbol")), "getppid");
	EXPECT_STREQ(json_string_value(json_object_get(row, "symbol_offset")), "0x9");
	EXPECT_STREQ(json_string_value(json_object_get(row, "offset")), "0x100");
	EXPECT_STREQ(json_string_value(json_object_get(row, "object")), LIBC);
	row = json_array_get(json_object_get(doc, "sites"), 4);
	EXPECT_STREQ(json_string_value(json_object_get(row, "map")), "vdso");
	EXPECT_TRUE(json_is_null(json_object_get(row, "offset")));
	EXPECT_TRUE(json_is_null(json_object_get(row, "object")));
	EXPECT_EQ(json_array_size(json_object_get(doc, "amortize")), 12);
	json_decref(doc);
	free(out);
	rt_report_free(&r);

	o = (struct diff_opts){ .by = 1U << DF_PROCESS, .sel = { .top = 2, .has_top = true } };
	ASSERT_EQ(report_diff(&r, &a, &b, &o), 0);
	ASSERT_EQ(rt_report_select(&r, &o.sel, why, sizeof(why)), 0);
	out = print(&r, ST_FMT_CSV, NULL);
	EXPECT_STREQ(out,
		     "status,processes_a,processes_b,processes_delta,calls_a,calls_b,calls_delta,"
		     "calls_delta_percent,errors_a,errors_b,errors_delta,time_a_ns,time_b_ns,"
		     "time_delta_ns,time_delta_percent,comm,exe\n"
		     "changed,2,1,-1,21,28,7,33.33,5,5,0,210,280,70,33.33,sh,/bin/sh\n"
		     "gone,1,0,-1,3,0,-3,-100.00,0,0,0,30,0,-30,-100.00,cat,/bin/cat\n");
	free(out);
	rt_report_free(&r);
	st_dump_free(&a);
	st_dump_free(&b);
}

/*
 * --sort time: the largest change in time first, whatever the calls did
 * (a wait4 18 s shorter with as many calls was row 12 sorted by calls);
 * --sort errors likewise.
 */
TEST(diff_sorts_by_time_or_errors)
{
	struct st_dump a, b;
	struct df_result r;
	size_t i;

	for (i = 0; i < 2; i++) {
		struct st_dump *d = i ? &b : &a;
		uint32_t nr;

		memset(d, 0, sizeof(*d));
		add_proc(d, 1, MS, "/bin/make");
		/* 11 syscalls whose calls change by 100 + nr, time by 1 us. */
		for (nr = 0; nr < 11; nr++)
			add_site(d, 1, 0x1000 + nr, nr, i ? 200 + nr : 100, nr)->total_ns =
				i ? 2000 : 1000;
		/* wait4: 4 calls each, 20 s then 2 s; 3 errors in B only. */
		add_site(d, 1, 0x2000, 61, 4, 11)->total_ns =
			i ? 2000000000ULL : 20000000000ULL;
		d->sites[d->nsites - 1].errors = i ? 3 : 0;
		/* kill: 4 calls of 1 us each, 7 errors in B only. */
		add_site(d, 1, 0x3000, 62, 4, 12)->total_ns = 1000;
		d->sites[d->nsites - 1].errors = i ? 7 : 0;
		finish(d);
	}
	ASSERT_EQ(st_diff(&a, &b, DF_SYSCALL, DF_SORT_CALLS, &r), 0);
	ASSERT_EQ(r.n, 13);
	EXPECT_EQ(r.rows[0].num[1], 10);
	EXPECT_EQ(r.rows[11].num[1], 61);
	EXPECT_EQ(r.rows[12].num[1], 62);
	st_diff_free(&r);
	/* Time, errors and calls each put another row first. */
	ASSERT_EQ(st_diff(&a, &b, DF_SYSCALL, DF_SORT_TIME, &r), 0);
	EXPECT_EQ(r.rows[0].num[1], 61);
	EXPECT_EQ(r.rows[0].ns[0] - r.rows[0].ns[1], 18000000000ULL);
	/* Then by calls: nr 10 changed most. */
	EXPECT_EQ(r.rows[1].num[1], 10);
	st_diff_free(&r);
	ASSERT_EQ(st_diff(&a, &b, DF_SYSCALL, DF_SORT_ERRORS, &r), 0);
	EXPECT_EQ(r.rows[0].num[1], 62);
	EXPECT_EQ(r.rows[1].num[1], 61);
	/* kill's calls are the same, its errors not: changed. */
	EXPECT_STREQ(st_diff_status(&r.rows[0]), "changed");
	st_diff_free(&r);
	EXPECT_EQ(st_diff_sort_parse("time"), DF_SORT_TIME);
	EXPECT_EQ(st_diff_sort_parse("calls"), DF_SORT_CALLS);
	EXPECT_EQ(st_diff_sort_parse("errors"), DF_SORT_ERRORS);
	EXPECT_EQ(st_diff_sort_parse("total_ns"), -1);
	st_dump_free(&a);
	st_dump_free(&b);
}

/* Both sides through the files report --input reads: the same diff. */
TEST(diff_of_saved_dumps)
{
	char path[2][64];
	struct st_dump d[2], e[2];
	struct df_result r;
	struct st_err err;
	struct st_view v;
	size_t i;
	FILE *f;

	diff_fixture(&d[0], false);
	diff_fixture(&d[1], true);
	for (i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "/tmp/systrace-diff-%d.%zu.json",
			 (int)getpid(), i);
		f = fopen(path[i], "w");
		ASSERT_TRUE(f);
		v = (struct st_view){ .dump = &d[i] };
		ASSERT_EQ(st_json_dump(f, &v, false, false), 0);
		fclose(f);
		ASSERT_EQ(st_dump_read(NULL, path[i], &e[i], &err), 0);
		unlink(path[i]);
	}
	ASSERT_EQ(st_diff(&e[0], &e[1], DF_SITE, DF_SORT_CALLS, &r), 0);
	ASSERT_EQ(r.n, 5);
	EXPECT_STREQ(st_diff_status(&r.rows[0]), "changed");
	EXPECT_EQ(r.rows[0].calls[0], 12);
	EXPECT_EQ(r.rows[0].calls[1], 19);
	EXPECT_STREQ(r.rows[0].sym->symbol, "getppid");
	EXPECT_STREQ(st_diff_status(&r.rows[1]), "gone");
	EXPECT_STREQ(st_diff_status(&r.rows[2]), "new");
	st_diff_free(&r);

	EXPECT_EQ(st_dump_read(NULL, "/nonexistent/a.json", &e[0], &err), -ENOENT);
	EXPECT_EQ(err.kind, ST_ERR_LOCAL);
	for (i = 0; i < 2; i++) {
		st_dump_free(&d[i]);
		st_dump_free(&e[i]);
	}
}

/*
 * Paths of file calls, as progs/pathprobe N makes them (N = 1 in A, 3 in
 * B): image 1's openat site 0x1000 gives /nonexistent/a ENOENT 3N,
 * /nonexistent/b ENOENT 5N, /etc/passwd/x ENOTDIR 2N, an unreadable
 * pointer EFAULT N and /etc/passwd ok 6; its access site 0x2000
 * /nonexistent/c ENOENT 4N (and /gone ENOENT 1 in A only); its newfstatat
 * site 0x3000 a path past the bound ENOENT N; image 2's openat site
 * /nonexistent/a ENOENT N (and in B only /new EACCES 2).
 */
static void add_path(struct st_dump *d, uint64_t proc, uint64_t addr, uint32_t nr,
		     uint32_t kind, const char *path, uint32_t err, uint64_t count)
{
	struct st_path_row *p;

	d->paths = realloc(d->paths, (d->npaths + 1) * sizeof(*p));
	p = &d->paths[d->npaths++];
	*p = (struct st_path_row){ .proc_id = proc, .addr = addr, .abi = SYSTRACE_ABI_X64,
				   .nr = nr, .err = err, .kind = kind, .count = count };
	if (st_dump_str(d, path, &p->path))
		abort();
}

static void paths_fixture(struct st_dump *d, uint64_t n)
{
	bool b = n > 1;

	memset(d, 0, sizeof(*d));
	add_proc(d, 1, MS, "/bin/pathprobe");
	add_proc(d, 2, MS, "/bin/pathprobe");
	add_site(d, 1, 0x1000, 257, 11 * n + 6, 0)->errors = 11 * n;
	add_site(d, 1, 0x2000, 21, 4 * n + !b, 1)->errors = 4 * n + !b;
	add_site(d, 1, 0x3000, 262, n, 2)->errors = n;
	add_site(d, 2, 0x1000, 257, n + 2 * b, 0)->errors = n + 2 * b;
	d->procs[0].errors = 16 * n + !b;
	d->procs[1].errors = n + 2 * b;
	add_path(d, 1, 0x1000, 257, ST_PATH_OK, "/nonexistent/a", ENOENT, 3 * n);
	add_path(d, 1, 0x1000, 257, ST_PATH_OK, "/nonexistent/b", ENOENT, 5 * n);
	add_path(d, 1, 0x1000, 257, ST_PATH_OK, "/etc/passwd/x", ENOTDIR, 2 * n);
	add_path(d, 1, 0x1000, 257, ST_PATH_UNREADABLE, NULL, EFAULT, n);
	add_path(d, 1, 0x1000, 257, ST_PATH_OK, "/etc/passwd", 0, 6);
	add_path(d, 1, 0x2000, 21, ST_PATH_OK, "/nonexistent/c", ENOENT, 4 * n);
	if (!b)
		add_path(d, 1, 0x2000, 21, ST_PATH_OK, "/gone", ENOENT, 1);
	add_path(d, 1, 0x3000, 262, ST_PATH_LONG, NULL, ENOENT, n);
	add_path(d, 2, 0x1000, 257, ST_PATH_OK, "/nonexistent/a", ENOENT, n);
	if (b)
		add_path(d, 2, 0x1000, 257, ST_PATH_OK, "/new", EACCES, 2);
	d->has_paths = true;
	d->paths_mode = ST_PATHS_ALL;
	d->dropped_paths = n;
	finish(d);
	d->session.id = b ? 5 : 4;
}

static char *json_dump_text(const struct st_dump *d, bool paths)
{
	struct st_view v = { .dump = d, .paths = paths };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (st_json_dump(f, &v, false, false))
		fputs("(error)", f);
	fclose(f);
	return text;
}

/* The path rows of d, one "PROC ADDR NR KIND PATH ERR COUNT" line each, in key order. */
static char *path_lines(const struct st_dump *d)
{
	const struct st_path_row **v = calloc(d->npaths + 1, sizeof(*v));
	char *out = NULL;
	size_t i, len = 0;
	FILE *f = open_memstream(&out, &len);

	for (i = 0; i < d->npaths; i++)
		v[i] = &d->paths[i];
	st_qsort(v, d->npaths, sizeof(*v), st_path_site_cmp);
	for (i = 0; i < d->npaths; i++)
		fprintf(f, "%llu %#llx %u %u %s %u %llu\n", (unsigned long long)v[i]->proc_id,
			(unsigned long long)v[i]->addr, v[i]->nr, v[i]->kind,
			v[i]->path ? v[i]->path : "-", v[i]->err, (unsigned long long)v[i]->count);
	fclose(f);
	free(v);
	return out;
}

/*
 * dump --sites --json: each site row ends with its paths, counts by result;
 * paths_counted after selection. Without --sites (v.paths false) the
 * document is the one a dump without paths gives, byte for byte. Both
 * loaders read the paths back to the same rows.
 */
TEST(dump_json_site_paths)
{
	struct st_dump a, e, none;
	json_error_t jerr;
	json_t *doc, *sites, *paths;
	char *text, *plain, *bare, *want, *got, why[256];
	struct st_err err;
	FILE *f;

	paths_fixture(&a, 1);
	text = json_dump_text(&a, true);
	doc = json_loads(text, 0, &jerr);
	ASSERT_TRUE(doc);
	EXPECT_STREQ(json_dumps(json_object_get(doc, "paths_counted"), JSON_COMPACT),
		     "{\"mode\":\"all\",\"dropped\":1}");
	sites = json_object_get(doc, "sites");
	ASSERT_EQ(json_array_size(sites), 4);
	paths = json_object_get(json_array_get(sites, 0), "paths");
	EXPECT_STREQ(json_string_value(json_object_get(json_array_get(sites, 0), "addr")), "0x1000");
	EXPECT_EQ(json_integer_value(json_object_get(json_array_get(sites, 0), "proc_id")), 1);
	EXPECT_STREQ(json_dumps(paths, JSON_COMPACT),
		     "[{\"path\":\"/etc/passwd\",\"kind\":\"ok\",\"counts\":{\"ok\":6}},"
		     "{\"path\":\"/etc/passwd/x\",\"kind\":\"ok\",\"counts\":{\"ENOTDIR\":2}},"
		     "{\"path\":\"/nonexistent/a\",\"kind\":\"ok\",\"counts\":{\"ENOENT\":3}},"
		     "{\"path\":\"/nonexistent/b\",\"kind\":\"ok\",\"counts\":{\"ENOENT\":5}},"
		     "{\"path\":\"<unreadable>\",\"kind\":\"unreadable\",\"counts\":{\"EFAULT\":1}}]");
	EXPECT_STREQ(json_dumps(json_object_get(json_array_get(sites, 1), "paths"), JSON_COMPACT),
		     "[{\"path\":\"/gone\",\"kind\":\"ok\",\"counts\":{\"ENOENT\":1}},"
		     "{\"path\":\"/nonexistent/c\",\"kind\":\"ok\",\"counts\":{\"ENOENT\":4}}]");
	EXPECT_STREQ(json_dumps(json_object_get(json_array_get(sites, 2), "paths"), JSON_COMPACT),
		     "[{\"path\":\"<longer than 255 bytes>\",\"kind\":\"long\",\"counts\":{\"ENOENT\":1}}]");
	EXPECT_STREQ(json_dumps(json_object_get(json_array_get(sites, 3), "paths"), JSON_COMPACT),
		     "[{\"path\":\"/nonexistent/a\",\"kind\":\"ok\",\"counts\":{\"ENOENT\":1}}]");
	/* The site row's own keys come first, in the CSV's order. */
	EXPECT_STREQ(json_object_iter_key(json_object_iter(json_array_get(sites, 0))), "session_id");
	json_decref(doc);

	/* Without --sites, and for a dump without paths: not one byte more. */
	plain = json_dump_text(&a, false);
	EXPECT_TRUE(!strstr(plain, "paths"));
	paths_fixture(&none, 1);
	none.has_paths = false;
	bare = json_dump_text(&none, true);
	EXPECT_STREQ(bare, plain);

	/* Read back: the same path rows, the mode and the drops. */
	want = path_lines(&a);
	doc = json_loads(text, 0, &jerr);
	ASSERT_EQ(st_dump_load_json(doc, &e, why, sizeof(why)), 0);
	json_decref(doc);
	got = path_lines(&e);
	EXPECT_STREQ(got, want);
	EXPECT_TRUE(e.has_paths);
	EXPECT_EQ(e.paths_mode, ST_PATHS_ALL);
	EXPECT_EQ(e.dropped_paths, 1);
	free(got);
	st_dump_free(&e);

	f = fopen("/tmp/systrace-paths-load.json", "w");
	ASSERT_TRUE(f);
	fputs(text, f);
	fclose(f);
	ASSERT_EQ(st_dump_load("/tmp/systrace-paths-load.json", &e, &err), 0);
	unlink("/tmp/systrace-paths-load.json");
	got = path_lines(&e);
	EXPECT_STREQ(got, want);
	EXPECT_EQ(e.paths_mode, ST_PATHS_ALL);
	EXPECT_EQ(e.dropped_paths, 1);
	/* and written again, the same document */
	free(got);
	got = json_dump_text(&e, true);
	EXPECT_STREQ(got, text);
	free(got);
	st_dump_free(&e);

	/* A bad result key is refused, and says why. */
	doc = json_loads(text, 0, &jerr);
	json_object_set_new(json_object_get(json_array_get(json_object_get(
		json_array_get(json_object_get(doc, "sites"), 2), "paths"), 0), "counts"),
		"ENOSUCH", json_integer(1));
	EXPECT_EQ(st_dump_load_json(doc, &e, why, sizeof(why)), -EINVAL);
	EXPECT_TRUE(strstr(why, "sites: key \"paths\"") != NULL);
	json_decref(doc);

	free(want);
	free(text);
	free(plain);
	free(bare);
	st_dump_free(&a);
	st_dump_free(&none);
}

/*
 * diff --by path of A (pathprobe 1) and B (pathprobe 3): one row per
 * (path, syscall, result), images and sites summed, by |calls_delta|,
 * ties by key (a path not read before a path, then A to Z).
 */
TEST(diff_by_path)
{
	struct diff_opts o = { .by = 1U << DF_PATH, .threshold = 16 };
	struct rt_report r = { 0 };
	struct st_dump a, b;
	struct df_result res;
	char why[128], *out;

	paths_fixture(&a, 1);
	paths_fixture(&b, 3);
	ASSERT_EQ(st_diff(&a, &b, DF_PATH, DF_SORT_CALLS, &res), 0);
	ASSERT_EQ(res.n, 9);
	st_diff_free(&res);

	ASSERT_EQ(report_diff(&r, &a, &b, &o), 0);
	ASSERT_EQ(r.ntables, 1);
	out = print(&r, ST_FMT_CSV, "paths");
	EXPECT_STREQ(out,
		     "status,calls_a,calls_b,calls_delta,calls_delta_percent,path,abi,nr,syscall,"
		     "errno,errno_name\n"
		     "changed,5,15,10,200.00,/nonexistent/b,x64,257,openat,2,ENOENT\n"
		     "changed,4,12,8,200.00,/nonexistent/a,x64,257,openat,2,ENOENT\n"
		     "changed,4,12,8,200.00,/nonexistent/c,x64,21,access,2,ENOENT\n"
		     "changed,2,6,4,200.00,/etc/passwd/x,x64,257,openat,20,ENOTDIR\n"
		     "changed,1,3,2,200.00,<longer than 255 bytes>,x64,262,newfstatat,2,ENOENT\n"
		     "changed,1,3,2,200.00,<unreadable>,x64,257,openat,14,EFAULT\n"
		     "new,0,2,2,,/new,x64,257,openat,13,EACCES\n"
		     "gone,1,0,-1,-100.00,/gone,x64,21,access,2,ENOENT\n"
		     "same,6,6,0,0.00,/etc/passwd,x64,257,openat,0,ok\n");
	free(out);
	out = print(&r, ST_FMT_TEXT, NULL);
	EXPECT_TRUE(strstr(out, "paths: A every file call (--paths all), dropped 1; "
			   "B every file call (--paths all), dropped 3") != NULL);
	free(out);
	rt_report_free(&r);

	/* --errors: no success; --syscall access; --top 2 and --sort errors. */
	memset(&r, 0, sizeof(r));
	o.sel.errors = true;
	ASSERT_EQ(report_diff(&r, &a, &b, &o), 0);
	out = print(&r, ST_FMT_CSV, "paths");
	EXPECT_TRUE(!strstr(out, ",ok\n"));
	EXPECT_EQ(table(&r, "paths")->nrows, 8);
	free(out);
	rt_report_free(&r);

	memset(&r, 0, sizeof(r));
	o.sel = (struct st_select){ .top = 2, .has_top = true };
	o.sort = DF_SORT_ERRORS;
	ASSERT_EQ(report_diff(&r, &a, &b, &o), 0);
	ASSERT_EQ(rt_report_select(&r, &o.sel, why, sizeof(why)), 0);
	out = print(&r, ST_FMT_CSV, "paths");
	EXPECT_STREQ(out,
		     "status,calls_a,calls_b,calls_delta,calls_delta_percent,path,abi,nr,syscall,"
		     "errno,errno_name\n"
		     "changed,5,15,10,200.00,/nonexistent/b,x64,257,openat,2,ENOENT\n"
		     "changed,4,12,8,200.00,/nonexistent/a,x64,257,openat,2,ENOENT\n");
	free(out);
	rt_report_free(&r);

	/* A side without paths: every row is new, and the note says so. */
	memset(&r, 0, sizeof(r));
	o.sel = (struct st_select){ 0 };
	free(a.paths);
	a.paths = NULL;
	a.npaths = 0;
	a.has_paths = false;
	ASSERT_EQ(report_diff(&r, &a, &b, &o), 0);
	EXPECT_EQ(table(&r, "paths")->nrows, 8);
	out = print(&r, ST_FMT_TEXT, NULL);
	EXPECT_TRUE(strstr(out, "paths: A not counted; B every file call") != NULL);
	free(out);
	rt_report_free(&r);
	st_dump_free(&a);
	st_dump_free(&b);
}

/* A report of a ranked table of 12 rows and a detail table of 3, as text. */
static void view_fixture(struct rt_report *r, struct st_dump *d)
{
	static const char *const cols[] = { "n" };
	struct rt_table *t = rt_table_new("list", "a list", cols, 1);
	struct rt_table *p = rt_table_new("processes", "per process", cols, 1);
	uint64_t i;

	memset(r, 0, sizeof(*r));
	r->name = "demo";
	r->dump = d;
	t->ranked = p->ranked = p->detail = true;
	for (i = 0; i < 12; i++)
		rt_u64(&rt_row(t)[0], 100 + i);
	for (i = 0; i < 3; i++)
		rt_u64(&rt_row(p)[0], 200 + i);
	rt_add(r, t);
	rt_add(r, p);
}

/*
 * The default text: 10 rows of a list and how many more, no detail table
 * but a line that says so; --by process shows it; --all every row; --top
 * N rows of each, and no line of more.
 */
TEST(report_text_view_fits_a_screen)
{
	struct st_select top = { .top = 2, .has_top = true }, none = { 0 };
	struct st_dump d = { 0 };
	struct rt_report r;
	char *out;

	view_fixture(&r, &d);
	rt_report_text_view(&r, &none, false, false);
	out = print(&r, ST_FMT_TEXT, NULL);
	EXPECT_STREQ(out, "\na list\n  n\n100\n101\n102\n103\n104\n105\n106\n107\n108\n109\n"
		     "(2 more rows: --top N, or --all)\n\n(per process: 3 rows; --by process shows them)\n");
	free(out);
	rt_report_free(&r);

	view_fixture(&r, &d);
	rt_report_text_view(&r, &none, true, false);
	ASSERT_EQ(r.ntables, 2);
	EXPECT_EQ(r.tables[0]->nrows, 10);
	EXPECT_EQ(r.tables[1]->nrows, 3);
	EXPECT_EQ(r.hidden, 0);
	rt_report_free(&r);

	view_fixture(&r, &d);
	rt_report_text_view(&r, &none, false, true);
	ASSERT_EQ(r.ntables, 2);
	EXPECT_EQ(r.tables[0]->nrows, 12);
	EXPECT_EQ(r.tables[0]->more, 0);
	rt_report_free(&r);

	view_fixture(&r, &d);
	ASSERT_EQ(rt_report_select(&r, &top, NULL, 0), 0);
	rt_report_text_view(&r, &top, true, false);
	EXPECT_EQ(r.tables[0]->nrows, 2);
	EXPECT_EQ(r.tables[0]->more, 0);
	EXPECT_EQ(r.tables[1]->nrows, 2);
	out = print(&r, ST_FMT_JSON, NULL);
	EXPECT_TRUE(strstr(out, "\"schema_version\":2,"));
	free(out);
	rt_report_free(&r);
}
