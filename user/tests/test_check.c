// SPDX-License-Identifier: GPL-2.0
/* The totals check: rows must add up to the totals above them. */
#include <stdlib.h>
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "common.h"
#include "test.h"

static unsigned int check(const struct st_dump *d, char **why)
{
	size_t len = 0;
	FILE *f = open_memstream(why, &len);
	unsigned int bad = st_check_totals(d, f);

	fclose(f);
	return bad;
}

TEST(check_consistent_session_passes)
{
	struct st_dump d;
	char *why;

	freopen("/dev/null", "w", stderr);
	st_fixture(&d);
	EXPECT_EQ(check(&d, &why), 0);
	EXPECT_STREQ(why, "");
	EXPECT_EQ(st_session_report_check(&d), 0);
	st_dump_free(&d);
}

TEST(check_session_total_mismatch)
{
	struct st_dump d;
	char *why;

	st_fixture(&d);
	d.session.syscalls = 16;
	EXPECT_EQ(check(&d, &why), 1);
	EXPECT_STREQ(why, "  session syscalls: 16 but the rows sum to 15\n");
	st_dump_free(&d);
}

TEST(check_process_vs_sites_mismatch)
{
	struct st_dump d;
	char *why;

	st_fixture(&d);
	d.sites[1].calls = 3;		/* image 1: 6 + 3 != 10 */
	d.sites[1].total_ns = 399;
	EXPECT_EQ(check(&d, &why), 2);
	EXPECT_STREQ(why,
		"  process 1 (pid 100 sh) syscalls: 10 but the rows sum to 9\n"
		"  process 1 (pid 100 sh) syscall_ns: 1000 but the rows sum to 999\n");
	st_dump_free(&d);
}

/*
 * A process whose errors disagree with its sites' (the session's total
 * agrees with the process rows): that line alone.
 */
TEST(check_process_errors_vs_sites_mismatch)
{
	struct st_dump d;
	char *why;

	st_fixture(&d);
	d.procs[0].errors += 2;
	d.session.errors += 2;
	EXPECT_EQ(check(&d, &why), 1);
	EXPECT_STREQ(why, "  process 1 (pid 100 sh) errors: 3 but the rows sum to 1\n");
	st_dump_free(&d);
}

/* A site's errno counts and other must add up to its errors. */
TEST(check_site_errnos_add_up_to_errors)
{
	struct st_errnos e = { .n = 1, .v = { { 2, 1 } }, .other = 1 };
	struct st_dump d;
	char *why;

	st_fixture(&d);
	ASSERT_EQ(st_dump_errnos(&d, &e, &d.sites[0].errnos), 0);
	EXPECT_EQ(check(&d, &why), 1);
	EXPECT_STREQ(why, "  site row 0x7f0000001000 of process 1: 1 errors but its errnos sum to 2\n");
	free(why);
	d.sites[0].errnos = NULL;	/* not counted: nothing to check */
	EXPECT_EQ(check(&d, &why), 0);
	free(why);
	st_dump_free(&d);
}

TEST(check_row_counts_and_orphan_sites)
{
	struct st_dump d;
	char *why;

	st_fixture(&d);
	d.sites[2].proc_id = 9;		/* no such image */
	d.session.sites = 4;
	EXPECT_EQ(check(&d, &why), 5);	/* session site rows, orphan, image 2 x3 */
	EXPECT_TRUE(strstr(why, "  session site rows: 4 but the rows sum to 3\n"));
	EXPECT_TRUE(strstr(why, "  site row 0x401000 names process id 9, which has no row\n"));
	EXPECT_TRUE(strstr(why, "  process 2 (pid 101 a,b\"c) site rows: 1 but the rows sum to 0\n"));
	st_dump_free(&d);
}

/*
 * The check a row at a time (a dump's sink, as start's summary takes the
 * rows): the same count and the same lines, in the same order, as the
 * check of the rows held, with the rows counted in sunk, not sites[].
 */
TEST(check_rows_one_at_a_time_as_held)
{
	struct st_site_row *rows;
	struct st_check c;
	struct st_dump d;
	char *held, *one = NULL;
	size_t i, n, len = 0;
	FILE *f;

	st_fixture(&d);
	d.sites[2].proc_id = 9;		/* an orphan: site line */
	d.session.syscalls = 16;	/* a session line */
	d.sites[1].calls = 3;		/* a process line */
	EXPECT_EQ(check(&d, &held), 6);
	rows = d.sites;
	n = d.nsites;
	d.sites = NULL;
	d.nsites = 0;
	d.sunk = n;
	f = open_memstream(&one, &len);
	ASSERT_EQ(st_check_begin(&c, &d, f), 0);
	for (i = 0; i < n; i++)
		st_check_site(&c, &d, &rows[i]);
	EXPECT_EQ(st_check_end(&c, &d), 6);
	fclose(f);
	EXPECT_STREQ(one, held);
	EXPECT_STREQ(one,
		"  session syscalls: 16 but the rows sum to 15\n"
		"  site row 0x401000 names process id 9, which has no row\n"
		"  process 1 (pid 100 sh) syscalls: 10 but the rows sum to 9\n"
		"  process 2 (pid 101 a,b\"c) syscalls: 5 but the rows sum to 0\n"
		"  process 2 (pid 101 a,b\"c) syscall_ns: 500 but the rows sum to 0\n"
		"  process 2 (pid 101 a,b\"c) site rows: 1 but the rows sum to 0\n");
	free(one);
	free(held);
	d.sites = rows;
	d.nsites = n;
	d.sunk = 0;
	st_dump_free(&d);
}

TEST(check_counter_total)
{
	struct st_dump d;
	char *why;

	st_fixture(&d);
	d.session.counter_value = 19999;
	EXPECT_EQ(check(&d, &why), 1);
	EXPECT_STREQ(why, "  session counter value: 19999 but the rows sum to 20000\n");
	st_dump_free(&d);
}

TEST(check_exit_code_finished_fails_live_warns)
{
	struct st_dump d;

	freopen("/dev/null", "w", stderr);	/* the loud report */
	st_fixture(&d);
	d.session.errors = 2;
	EXPECT_EQ(st_session_report_check(&d), 5);
	d.session.state = SYSTRACE_STATE_RUNNING;
	EXPECT_EQ(st_session_report_check(&d), 0);
	st_dump_free(&d);
}

TEST(totals_are_sums_of_process_rows)
{
	struct st_dump d;
	struct st_totals t;

	st_fixture(&d);
	st_totals_compute(&d, &t);
	EXPECT_EQ(t.procs, 2);
	EXPECT_EQ(t.sites, 3);
	EXPECT_EQ(t.syscalls, 15);
	EXPECT_EQ(t.errors, 1);
	EXPECT_EQ(t.syscall_ns, 1500);
	EXPECT_TRUE(t.has_counter_value);
	EXPECT_EQ(t.counter_value, 20000);
	st_dump_free(&d);
}
