// SPDX-License-Identifier: GPL-2.0
/*
 * The selection options of dump, report and diff: each filter keeps the
 * rows it names and what they belong to; --sort orders a table by a
 * column (or time, calls, errors), --top cuts it; the options parse alike
 * for every command.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "report.h"
#include "subcommands.h"
#include "test.h"

/*
 * Three images: 1 sh (pid 100) openat 4 calls 2 errors, read 6;
 * 2 cc1 (pid 101) openat 10, close 1 error 1; 3 cc1plus (pid 102) read 3.
 */
static void select_fixture(struct st_dump *d)
{
	static const struct { uint64_t proc; uint32_t nr; uint64_t calls, errors; } s[] = {
		{ 1, 257, 4, 2 }, { 1, 0, 6, 0 }, { 2, 257, 10, 0 }, { 2, 3, 1, 1 },
		{ 3, 0, 3, 0 },
	};
	static const char *const comm[] = { "sh", "cc1", "cc1plus" };
	size_t i;

	memset(d, 0, sizeof(*d));
	d->session.id = 2;
	d->session.state = SYSTRACE_STATE_FINISHED;
	d->nprocs = 3;
	d->procs = calloc(3, sizeof(*d->procs));
	for (i = 0; i < 3; i++) {
		d->procs[i].id = i + 1;
		d->procs[i].pid = 100 + (uint32_t)i;
		strcpy(d->procs[i].comm, comm[i]);
		d->procs[i].exe = strdup("/bin/x");
	}
	d->nsites = 5;
	d->sites = calloc(5, sizeof(*d->sites));
	for (i = 0; i < 5; i++) {
		d->sites[i] = (struct st_site_row){
			.proc_id = s[i].proc, .addr = 0x100 * (i + 1), .nr = s[i].nr,
			.abi = SYSTRACE_ABI_X64, .calls = s[i].calls,
			.errors = s[i].errors, .total_ns = 1000 * (5 - i),
			.first_ordinal = i,
		};
		d->procs[s[i].proc - 1].syscalls += s[i].calls;
		d->procs[s[i].proc - 1].errors += s[i].errors;
	}
	st_dump_sort(d);
}

static void expect_ids(bool *failed, const struct st_dump *d, const char *procs,
		       const char *sites)
{
	char got[64] = "", addr[16];
	size_t i;

	for (i = 0; i < d->nprocs; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", i ? "," : "",
			 (unsigned int)d->procs[i].id);
	EXPECT_STREQ(got, procs);
	got[0] = '\0';
	for (i = 0; i < d->nsites; i++) {
		snprintf(addr, sizeof(addr), "%s%x", i ? "," : "", (unsigned int)d->sites[i].addr);
		strcat(got, addr);
	}
	EXPECT_STREQ(got, sites);
}

/* Each filter alone and together, as the usage texts say. */
TEST(select_filters_rows)
{
	static const struct {
		const char *args[4];
		const char *procs, *sites;
	} cases[] = {
		{ { "--comm", "cc1*" }, "2,3", "300,400,500" },
		{ { "--comm", "cc1" }, "2", "300,400" },
		{ { "--pid", "100,102" }, "1,3", "100,200,500" },
		{ { "--syscall", "openat" }, "1,2", "100,300" },
		{ { "--syscall", "0,close" }, "1,2,3", "200,400,500" },
		{ { "--errors" }, "1,2", "100,400" },
		{ { "--errors", "--comm", "sh" }, "1", "100" },
		{ { "--syscall", "read", "--pid", "101" }, "", "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[6] = { "x" };
		struct st_select s = { 0 };
		struct st_dump d;
		int n = 1, c;

		while (n - 1 < 4 && cases[i].args[n - 1]) {
			argv[n] = (char *)cases[i].args[n - 1];
			n++;
		}
		for (c = 1; c < n; c++) {
			int opt = !strcmp(argv[c], "--comm") ? ST_OPT_COMM :
				  !strcmp(argv[c], "--pid") ? ST_OPT_PID :
				  !strcmp(argv[c], "--syscall") ? ST_OPT_SYSCALL : ST_OPT_ERRORS;
			const char *arg = opt == ST_OPT_ERRORS ? NULL : argv[++c];

			EXPECT_EQ(st_select_opt(opt, arg, "Usage: x\n\n", &s), -1);
		}
		select_fixture(&d);
		EXPECT_TRUE(st_select_filters(&s));
		ASSERT_EQ(st_select_dump(&d, &s), 0);
		EXPECT_TRUE(d.selected);
		expect_ids(failed, &d, cases[i].procs, cases[i].sites);
		st_dump_free(&d);
		st_select_free(&s);
	}
}

TEST(select_options_refuse_bad_values)
{
	struct st_select s = { 0 };
	char why[128];

	EXPECT_EQ(st_select_opt(ST_OPT_TOP, "0", "Usage: x\n\n", &s), ST_EXIT_USAGE);
	EXPECT_EQ(st_select_opt(ST_OPT_TOP, "-1", "Usage: x\n\n", &s), ST_EXIT_USAGE);
	EXPECT_EQ(st_select_opt(ST_OPT_PID, "12,x", "Usage: x\n\n", &s), ST_EXIT_USAGE);
	EXPECT_EQ(st_select_opt(ST_OPT_COMM, "", "Usage: x\n\n", &s), ST_EXIT_USAGE);
	EXPECT_EQ(st_select_opt(ST_OPT_SYSCALL, ",", "Usage: x\n\n", &s), ST_EXIT_USAGE);
	EXPECT_EQ(st_select_opt('o', "f", "Usage: x\n\n", &s), ST_OPT_NOT_MINE);
	st_select_free(&s);
	EXPECT_EQ(st_select_opt(ST_OPT_SYSCALL, "openat,nosuchcall", "Usage: x\n\n", &s), -1);
	EXPECT_EQ(st_select_check(&s, why, sizeof(why)), -EINVAL);
	EXPECT_STREQ(why, "--syscall: no syscall is named 'nosuchcall'");
	st_select_free(&s);
	EXPECT_EQ(st_select_opt(ST_OPT_SYSCALL, "9999", "Usage: x\n\n", &s), -1);
	EXPECT_EQ(st_select_check(&s, why, sizeof(why)), 0);
	EXPECT_EQ(st_select_opt(ST_OPT_TOP, "3", "Usage: x\n\n", &s), -1);
	EXPECT_EQ(s.top, 3);
	st_select_free(&s);
}

/* --sort by a column (or an alias), numbers largest first, then --top. */
TEST(report_sort_and_top)
{
	struct report_opts o = { .sel = { .sort = "calls", .top = 2, .has_top = true } };
	struct rt_report r = { .name = "syscalls" };
	const struct rt_table *t;
	struct st_dump d;
	char why[1024];
	size_t col;

	select_fixture(&d);
	r.dump = &d;
	ASSERT_EQ(report_syscalls(&r, &d, &o), 0);
	ASSERT_EQ(rt_report_select(&r, &o.sel, why, sizeof(why)), 0);
	t = r.tables[1];
	ASSERT_STREQ(t->name, "syscalls");
	ASSERT_EQ(t->nrows, 2);
	col = rt_table_column(t, "calls");
	EXPECT_STREQ(t->cols[col], "calls");
	EXPECT_EQ(t->cells[col].u, 14);		/* openat: 4 + 10 */
	EXPECT_EQ(t->cells[t->ncols + col].u, 9);	/* read: 6 + 3 */
	/* processes: --top N is N rows, as in every table. */
	ASSERT_STREQ(r.tables[2]->name, "processes");
	EXPECT_EQ(r.tables[2]->nrows, 2);
	rt_report_free(&r);

	o.sel.sort = "nosuch";
	r.name = "syscalls";
	ASSERT_EQ(report_syscalls(&r, &d, &o), 0);
	EXPECT_EQ(rt_report_select(&r, &o.sel, why, sizeof(why)), -EINVAL);
	EXPECT_STREQ(why, "--sort: report syscalls has no column 'nosuch'; keys: time_percent, total, avg, min, max, calls, errors, sites, abi, nr, syscall, time, proc_id, pid, comm, syscalls");
	rt_report_free(&r);

	/* The text headings: "avg" is avg_ns; the nearest to a wrong key. */
	o.sel.sort = "avg";
	o.sel.has_top = false;
	r.name = "syscalls";
	ASSERT_EQ(report_syscalls(&r, &d, &o), 0);
	ASSERT_EQ(rt_report_select(&r, &o.sel, why, sizeof(why)), 0);
	t = r.tables[1];
	col = rt_table_column(t, "avg");
	EXPECT_STREQ(t->cols[col], "avg_ns");
	ASSERT_EQ(t->nrows, 3);
	EXPECT_EQ(t->cells[col].u, 2000);
	for (size_t i = 1; i < t->nrows; i++)
		EXPECT_TRUE(t->cells[(i - 1) * t->ncols + col].u >= t->cells[i * t->ncols + col].u);
	rt_report_free(&r);
	o.sel.sort = "totl";
	r.name = "syscalls";
	ASSERT_EQ(report_syscalls(&r, &d, &o), 0);
	EXPECT_EQ(rt_report_select(&r, &o.sel, why, sizeof(why)), -EINVAL);
	EXPECT_STREQ(why, "--sort: report syscalls has no column 'totl'; did you mean 'total'? keys: time_percent, total, avg, min, max, calls, errors, sites, abi, nr, syscall, time, proc_id, pid, comm, syscalls");
	rt_report_free(&r);
	st_dump_free(&d);
}

/* A delta sorts by its size; nulls go last; text sorts A to Z. */
TEST(table_sort_by_magnitude)
{
	static const char *const cols[] = { "name", "delta" };
	struct rt_table *t = rt_table_new("t", NULL, cols, 2);
	static const int64_t deltas[] = { 5, -18, 0, 7 };
	static const char *const names[] = { "b", "a", NULL, "c" };
	struct st_cell *c;
	size_t i;

	for (i = 0; i < 4; i++) {
		c = rt_row(t);
		rt_str(&c[0], names[i]);
		rt_delta(&c[1], 0, (uint64_t)deltas[i]);
	}
	ASSERT_EQ(rt_table_sort(t, 1), 0);
	EXPECT_EQ((int64_t)t->cells[1].u, -18);
	EXPECT_EQ((int64_t)t->cells[3].u, 7);
	EXPECT_EQ((int64_t)t->cells[5].u, 5);
	EXPECT_EQ((int64_t)t->cells[7].u, 0);
	ASSERT_EQ(rt_table_sort(t, 0), 0);
	EXPECT_STREQ(t->cells[0].s, "a");
	EXPECT_STREQ(t->cells[2].s, "b");
	EXPECT_STREQ(t->cells[4].s, "c");
	EXPECT_EQ(t->cells[6].kind, ST_NULL);
	rt_table_top(t, 1);
	EXPECT_EQ(t->nrows, 1);
	rt_table_free(t);
}

/* dump --sort KEY --top N: the table's rows by the column, then the first N. */
TEST(dump_view_order)
{
	struct st_dump d;
	struct st_view v;
	struct st_row row;
	char why[1024];

	select_fixture(&d);
	v = (struct st_view){ .dump = &d };
	ASSERT_EQ(st_view_order(&v, ST_TABLE_SITES, false, "calls", 3, why, sizeof(why)), 0);
	ASSERT_EQ(st_view_rows(&v, ST_TABLE_SITES), 3);
	st_view_row(&v, ST_TABLE_SITES, 0, &row);
	EXPECT_EQ(row.site->calls, 10);
	st_view_row(&v, ST_TABLE_SITES, 2, &row);
	EXPECT_EQ(row.site->calls, 4);
	EXPECT_EQ(st_view_rows(&v, ST_TABLE_PROCESSES), 3);
	free(v.order);
	v = (struct st_view){ .dump = &d };
	ASSERT_EQ(st_view_order(&v, ST_TABLE_PROCESSES, false, "comm", 0, why, sizeof(why)), 0);
	st_view_row(&v, ST_TABLE_PROCESSES, 0, &row);
	EXPECT_STREQ(row.proc->comm, "cc1");
	st_view_row(&v, ST_TABLE_PROCESSES, 2, &row);
	EXPECT_STREQ(row.proc->comm, "sh");
	free(v.order);
	v = (struct st_view){ .dump = &d };
	EXPECT_EQ(st_view_order(&v, ST_TABLE_PROCESSES, false, "total_ns", 0, why, sizeof(why)),
		  -EINVAL);
	EXPECT_STREQ(why, "--sort: the processes table has no column 'total_ns'; keys: session_id, id, parent_id, prev_id, pid, tgid, ppid, comm, exe, start_ns, end_ns, wall, start_time, end, exit_code, exit_signal, core_dumped, threads, syscalls, errors, syscall, sites, user_time, sys_time, voluntary_ctxt_switches, involuntary_ctxt_switches, minor_faults, major_faults, instructions, cycles, task_clock, syscalls_per_kinsn, attached, argv, argv_truncated, time, calls");
	st_dump_free(&d);
}

/*
 * dump --sort time, calls, errors: the fixture's sites put a different row
 * first for each (time 5000 ns with 4 calls; 10 calls; 2 errors), and its
 * processes' time (9000, 5000, 1000 ns) another order than their calls.
 */
TEST(dump_view_order_time_calls_errors_differ)
{
	static const struct { const char *key; uint64_t calls[5]; } sites[] = {
		{ "time", { 4, 6, 10, 1, 3 } },
		{ "calls", { 10, 6, 4, 3, 1 } },
		{ "errors", { 4, 1, 6, 10, 3 } },
	};
	struct st_dump d;
	struct st_view v;
	struct st_row row;
	char why[128];
	size_t k, i;

	select_fixture(&d);
	for (i = 0; i < 5; i++)
		d.procs[d.sites[i].proc_id - 1].syscall_ns += d.sites[i].total_ns;
	for (k = 0; k < 3; k++) {
		v = (struct st_view){ .dump = &d };
		ASSERT_EQ(st_view_order(&v, ST_TABLE_SITES, false, sites[k].key, 0, why, sizeof(why)), 0);
		for (i = 0; i < 5; i++) {
			st_view_row(&v, ST_TABLE_SITES, i, &row);
			EXPECT_EQ(row.site->calls, sites[k].calls[i]);
		}
		free(v.order);
	}
	v = (struct st_view){ .dump = &d };
	ASSERT_EQ(st_view_order(&v, ST_TABLE_PROCESSES, false, "time", 0, why, sizeof(why)), 0);
	for (i = 0; i < 3; i++) {
		static const uint64_t ns[] = { 9000, 5000, 1000 };

		st_view_row(&v, ST_TABLE_PROCESSES, i, &row);
		EXPECT_EQ(row.proc->syscall_ns, ns[i]);
	}
	free(v.order);
	st_dump_free(&d);
}

/* top: what the counters gained between two reads, per second, busiest first. */
TEST(top_ranks_what_was_gained)
{
	struct rt_report r = { 0 };
	struct st_dump a, b;
	const struct rt_table *t;
	size_t i;

	select_fixture(&a);
	select_fixture(&b);
	/* Half a second later: sh made 50 more reads (5 errors), cc1plus 10. */
	b.procs[0].syscalls += 50;
	b.procs[0].errors += 5;
	b.sites[1].calls += 50;
	b.sites[1].errors += 5;
	b.procs[2].syscalls += 10;
	b.sites[4].calls += 10;
	b.session.syscalls = 84;
	ASSERT_EQ(report_top(&r, &a, &b, 500000000ULL, 10), 0);
	EXPECT_STREQ(r.notes[1], "the last 500 ms: 60 calls, 120 per second");
	t = r.tables[0];
	ASSERT_STREQ(t->name, "processes");
	ASSERT_EQ(t->nrows, 2);
	EXPECT_EQ(t->cells[0].u, 100);		/* calls_per_s */
	EXPECT_EQ(t->cells[1].u, 10);		/* errors_per_s */
	EXPECT_EQ(t->cells[3].u, 50);		/* calls */
	EXPECT_EQ(t->cells[4].u, 60);		/* syscalls so far: 10 + 50 */
	EXPECT_STREQ(t->cells[6].s, "sh");
	EXPECT_STREQ(t->cells[t->ncols + 6].s, "cc1plus");
	t = r.tables[1];
	ASSERT_EQ(t->nrows, 1);			/* read: 60 calls */
	EXPECT_EQ(t->cells[0].u, 120);
	EXPECT_STREQ(t->cells[7].s, "read");
	rt_report_free(&r);

	/* The first frame: everything since the start, over its time. */
	ASSERT_EQ(report_top(&r, NULL, &a, 2000000000ULL, 1), 0);
	EXPECT_STREQ(r.notes[1], "since the start, 2.00 s: 24 calls, 12 per second");
	EXPECT_EQ(r.tables[0]->nrows, 1);
	EXPECT_EQ(r.tables[0]->cells[3].u, 11);	/* cc1: 10 + 1 */
	for (i = 0; i < r.ntables; i++)
		EXPECT_TRUE(r.tables[i]->nrows <= 1);
	rt_report_free(&r);
	st_dump_free(&a);
	st_dump_free(&b);
}
