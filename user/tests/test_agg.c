// SPDX-License-Identifier: GPL-2.0
/* --syscalls: site rows summed per (image, abi, nr), or per (abi, nr). */
#include <errno.h>
#include <stdlib.h>
#include "model/model.h"
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

/* Errnos added in any order are kept most frequent first, at most 4. */
TEST(errnos_keep_the_most_frequent)
{
	struct st_errnos e = { 0 };

	st_errnos_add(&e, 13, 5);
	st_errnos_add(&e, 2, 30);
	st_errnos_add(&e, 2, 7);
	st_errnos_add(&e, 0, 1);	/* no errno: other */
	st_errnos_add(&e, 4096, 1);	/* out of range: other */
	st_errnos_add(&e, 9, 0);	/* nothing */
	ASSERT_EQ(e.n, 2);
	EXPECT_EQ(e.v[0].err, 2);
	EXPECT_EQ(e.v[0].count, 37);
	EXPECT_EQ(e.v[1].err, 13);
	EXPECT_EQ(e.v[1].count, 5);
	EXPECT_EQ(e.other, 2);
	st_errnos_add(&e, 20, 5);	/* a tie: the smaller errno first */
	st_errnos_add(&e, 9, 3);
	st_errnos_add(&e, 1, 1);	/* a fifth, less frequent: other */
	ASSERT_EQ(e.n, 4);
	EXPECT_EQ(e.v[1].err, 13);
	EXPECT_EQ(e.v[2].err, 20);
	EXPECT_EQ(e.v[3].err, 9);
	EXPECT_EQ(e.other, 3);
	st_errnos_add(&e, 22, 4);	/* outnumbers EBADF's 3: takes its place */
	EXPECT_EQ(e.v[3].err, 22);
	EXPECT_EQ(e.other, 6);
	EXPECT_EQ(st_errnos_total(&e), 37 + 5 + 5 + 4 + 6);
}

static void add_errnos(struct st_dump *d, size_t i, const struct st_errnos *e)
{
	if (st_dump_errnos(d, e, &d->sites[i].errnos))
		abort();
}

/*
 * The sums per syscall add the sites' errnos exactly, keep the 4 most
 * frequent, and put the rest and each site's other in other; a site with
 * unknown errnos makes its sum's unknown.
 */
TEST(aggregate_sums_errnos)
{
	struct st_errnos a = { 0 }, b = { 0 }, c = { 0 };
	struct st_sysagg *r;
	struct st_dump d;
	size_t n;

	sites(&d);
	/* proc 1, x64 nr 0: sites 0x30 (2 calls, 0 errors) and 0x50 (2 errors). */
	st_errnos_add(&a, 2, 1);
	st_errnos_add(&a, 13, 1);
	st_errnos_add(&b, 2, 1);
	st_errnos_add(&b, 9, 2);
	st_errnos_add(&b, 1, 1);
	st_errnos_add(&b, 4, 1);
	st_errnos_add(&b, 5, 1);
	b.other = 7;
	for (n = 0; n < d.nsites; n++) {
		const struct st_site_row *s = &d.sites[n];

		if (s->proc_id == 1 && s->addr == 0x50)
			add_errnos(&d, n, &a);
		else if (s->proc_id == 2)
			add_errnos(&d, n, &b);
		else if (s->addr != 0x40)
			add_errnos(&d, n, &c);
	}
	ASSERT_EQ(st_aggregate_syscalls(&d, false, &r, &n), 0);
	ASSERT_EQ(n, 3);
	/*
	 * x64 0: a + b + c. b kept 9, 1, 2, 4 (5 went to its other, which
	 * is then set to 7): 2 and 9 twice, 1, 4 and 13 once; 13 is the
	 * fifth, in other with b's 7.
	 */
	EXPECT_TRUE(r[0].has_errnos);
	ASSERT_EQ(r[0].errnos.n, 4);
	EXPECT_EQ(r[0].errnos.v[0].err, 2);
	EXPECT_EQ(r[0].errnos.v[0].count, 2);
	EXPECT_EQ(r[0].errnos.v[1].err, 9);
	EXPECT_EQ(r[0].errnos.v[1].count, 2);
	EXPECT_EQ(r[0].errnos.v[2].err, 1);
	EXPECT_EQ(r[0].errnos.v[3].err, 4);
	EXPECT_EQ(r[0].errnos.other, 7 + 1);
	EXPECT_TRUE(r[1].has_errnos);
	EXPECT_EQ(r[1].errnos.n, 0);
	EXPECT_FALSE(r[2].has_errnos);	/* ia32 0: site 0x40, not counted */
	free(r);
	st_dump_free(&d);
}

/* The errnos column: name, number and count of each, read back alike. */
TEST(errnos_text_and_back)
{
	struct st_errnos e = { 0 }, back;
	char text[ST_ERRNOS_TEXT];

	st_errnos_format(&e, text, sizeof(text));
	EXPECT_STREQ(text, "");
	ASSERT_EQ(st_errnos_parse(text, &back), 0);
	EXPECT_EQ(back.n, 0);
	st_errnos_add(&e, 2, 37);
	st_errnos_add(&e, 13, 5);
	st_errnos_add(&e, 512, 2);
	st_errnos_add(&e, 4000, 1);	/* no name */
	st_errnos_format(&e, text, sizeof(text));
	EXPECT_STREQ(text, "ENOENT(2)=37 EACCES(13)=5 ERESTARTSYS(512)=2 (4000)=1");
	ASSERT_EQ(st_errnos_parse(text, &back), 0);
	EXPECT_EQ(back.n, 4);
	EXPECT_EQ(back.v[2].err, 512);
	EXPECT_EQ(back.v[3].count, 1);
	/* The longest: four of the longest names and counts fit. */
	e = (struct st_errnos){ 0 };
	st_errnos_add(&e, 516, UINT64_MAX / 4);
	st_errnos_add(&e, 530, UINT64_MAX / 4 - 1);
	st_errnos_add(&e, 517, UINT64_MAX / 4 - 2);
	st_errnos_add(&e, 521, UINT64_MAX / 4 - 3);
	st_errnos_format(&e, text, sizeof(text));
	ASSERT_EQ(st_errnos_parse(text, &back), 0);
	EXPECT_EQ(back.v[3].count, UINT64_MAX / 4 - 3);
	EXPECT_EQ(st_errnos_parse("ENOENT(2)", &back), -EINVAL);
	EXPECT_EQ(st_errnos_parse("ENOENT(2)=1  EIO(5)=1", &back), -EINVAL);
	EXPECT_EQ(st_errnos_parse("enoent(2)=1", &back), -EINVAL);
	EXPECT_EQ(st_errnos_parse("(0)=1", &back), -EINVAL);
	EXPECT_EQ(st_errnos_parse("(1)=1 (2)=1 (3)=1 (4)=1 (5)=1", &back), -EINVAL);
}
