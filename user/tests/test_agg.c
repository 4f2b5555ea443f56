// SPDX-License-Identifier: GPL-2.0
/* --syscalls: site rows summed per (image, abi, nr), or per (abi, nr). */
#include <stdlib.h>
#include "model.h"
#include "test.h"

static void add_site(struct st_dump *d, uint64_t proc, uint64_t addr,
		     uint32_t abi, uint32_t nr, uint64_t calls, uint64_t errors,
		     uint64_t total, uint64_t min, uint64_t max)
{
	struct st_site_row *s = &d->sites[d->nsites++];

	*s = (struct st_site_row){
		.proc_id = proc, .addr = addr, .abi = abi, .nr = nr,
		.calls = calls, .errors = errors, .total_ns = total,
		.min_ns = min, .max_ns = max, .first_ordinal = addr,
	};
}

static void sites(struct st_dump *d)
{
	memset(d, 0, sizeof(*d));
	d->sites = calloc(8, sizeof(*d->sites));
	add_site(d, 2, 0x10, SYSTRACE_ABI_X64, 0, 3, 1, 30, 5, 15);
	add_site(d, 1, 0x20, SYSTRACE_ABI_X64, 1, 1, 0, 7, 7, 7);
	add_site(d, 1, 0x30, SYSTRACE_ABI_X64, 0, 2, 0, 20, 8, 12);
	add_site(d, 1, 0x40, SYSTRACE_ABI_IA32, 0, 4, 4, 40, 9, 11);
	add_site(d, 1, 0x50, SYSTRACE_ABI_X64, 0, 5, 2, 50, 3, 20);
	st_dump_sort(d);
}

#define EXPECT_ROW(r, p, a, n, c, e, t, mn, mx, s)	\
	do {						\
		EXPECT_EQ((r).proc_id, p);		\
		EXPECT_EQ((r).abi, a);			\
		EXPECT_EQ((r).nr, n);			\
		EXPECT_EQ((r).calls, c);		\
		EXPECT_EQ((r).errors, e);		\
		EXPECT_EQ((r).total_ns, t);		\
		EXPECT_EQ((r).min_ns, mn);		\
		EXPECT_EQ((r).max_ns, mx);		\
		EXPECT_EQ((r).sites, s);		\
	} while (0)

TEST(aggregate_per_process_abi_nr)
{
	struct st_sysagg *a;
	struct st_dump d;
	size_t n;

	sites(&d);
	ASSERT_EQ(st_aggregate_syscalls(&d, true, &a, &n), 0);
	ASSERT_EQ(n, 4);
	EXPECT_ROW(a[0], 1, SYSTRACE_ABI_X64, 0, 7, 2, 70, 3, 20, 2);
	EXPECT_ROW(a[1], 1, SYSTRACE_ABI_X64, 1, 1, 0, 7, 7, 7, 1);
	EXPECT_ROW(a[2], 1, SYSTRACE_ABI_IA32, 0, 4, 4, 40, 9, 11, 1);
	EXPECT_ROW(a[3], 2, SYSTRACE_ABI_X64, 0, 3, 1, 30, 5, 15, 1);
	free(a);
	st_dump_free(&d);
}

TEST(aggregate_whole_tree)
{
	struct st_sysagg *a;
	struct st_dump d;
	size_t n;

	sites(&d);
	ASSERT_EQ(st_aggregate_syscalls(&d, false, &a, &n), 0);
	ASSERT_EQ(n, 3);
	EXPECT_ROW(a[0], 0, SYSTRACE_ABI_X64, 0, 10, 3, 100, 3, 20, 3);
	EXPECT_ROW(a[1], 0, SYSTRACE_ABI_X64, 1, 1, 0, 7, 7, 7, 1);
	EXPECT_ROW(a[2], 0, SYSTRACE_ABI_IA32, 0, 4, 4, 40, 9, 11, 1);
	free(a);
	st_dump_free(&d);
}

TEST(aggregate_nothing)
{
	struct st_dump d = { 0 };
	struct st_sysagg *a = (void *)1;
	size_t n = 9;

	EXPECT_EQ(st_aggregate_syscalls(&d, true, &a, &n), 0);
	EXPECT_EQ(n, 0);
	EXPECT_NULL(a);
}

TEST(sort_orders_images_by_id_and_sites_by_first_use)
{
	struct st_dump d;

	sites(&d);
	EXPECT_EQ(d.sites[0].proc_id, 1);
	EXPECT_EQ(d.sites[0].addr, 0x20);
	EXPECT_EQ(d.sites[3].addr, 0x50);
	EXPECT_EQ(d.sites[4].proc_id, 2);
	st_dump_free(&d);
}

/*
 * Rows already in order are left as they are; one out of place anywhere,
 * the last included, is still sorted.
 */
TEST(sort_finds_a_row_out_of_order_anywhere)
{
	struct st_dump d;
	size_t i, n = 1000;

	memset(&d, 0, sizeof(d));
	d.sites = calloc(n, sizeof(*d.sites));
	ASSERT_TRUE(d.sites);
	for (i = 0; i < n; i++)
		add_site(&d, 1 + i / 100, 0x1000 + i % 100, SYSTRACE_ABI_X64, 0,
			 1, 0, 1, 1, 1);
	st_dump_sort(&d);
	for (i = 1; i < n; i++)
		if (d.sites[i - 1].proc_id * 0x10000 + d.sites[i - 1].addr >
		    d.sites[i].proc_id * 0x10000 + d.sites[i].addr)
			break;
	EXPECT_EQ(i, n);
	/* The last row belongs first. */
	d.sites[n - 1].proc_id = 0;
	st_dump_sort(&d);
	EXPECT_EQ(d.sites[0].proc_id, 0);
	EXPECT_EQ(d.sites[1].proc_id, 1);
	EXPECT_EQ(d.sites[n - 1].addr, 0x1000 + 98);
	st_dump_free(&d);
}

/* The last process found is answered again only if it is still d's row. */
TEST(find_proc_after_rows_change)
{
	struct st_dump d;
	size_t i;

	memset(&d, 0, sizeof(d));
	d.procs = calloc(4, sizeof(*d.procs));
	ASSERT_TRUE(d.procs);
	for (i = 0; i < 4; i++)
		d.procs[i].id = 10 * (i + 1);
	d.nprocs = 4;
	EXPECT_TRUE(st_dump_find_proc(&d, 20) == &d.procs[1]);
	EXPECT_TRUE(st_dump_find_proc(&d, 20) == &d.procs[1]);
	EXPECT_NULL(st_dump_find_proc(&d, 25));
	/* The rows change under the same pointer: 20 is now the first. */
	d.procs[0].id = 20;
	d.procs[1].id = 21;
	EXPECT_TRUE(st_dump_find_proc(&d, 20) == &d.procs[0]);
	/* Fewer rows: the one found before is no longer d's. */
	EXPECT_TRUE(st_dump_find_proc(&d, 40) == &d.procs[3]);
	d.nprocs = 3;
	EXPECT_NULL(st_dump_find_proc(&d, 40));
	d.nprocs = 0;
	EXPECT_NULL(st_dump_find_proc(&d, 20));
	st_dump_free(&d);
}
