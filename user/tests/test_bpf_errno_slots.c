// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF program's errno slot claim (bpf/errno_slots.h), with the
 * collision forced: STB_ERRNO_RACE runs another thread's whole count of
 * errno race_other between this thread's read of a free slot and its
 * compare-and-swap, at the slot race_at, once. Real threads
 * (selftests/test_bpf_errnos.sh's race) meet that window only now and
 * then; here every count is exact.
 */
#include <linux/types.h>
#include <string.h>
#include "test.h"

static int race_at = -1;
static __u64 race_other;
struct stb_site;
static void race_point(struct stb_site *site, int i);
#define STB_ERRNO_RACE(site, i) race_point(site, i)
#include "errno_slots.h"

static void race_point(struct stb_site *site, int i)
{
	if (i != race_at)
		return;
	race_at = -1;
	stb_count_errno(site, race_other);
}

static __u64 slot(__u64 e, __u64 n)
{
	return e << STB_ERRNO_SHIFT | n;
}

/* Counts errno @e at @site, with errno @other's count forced into slot @at's window. */
static void count_beside(struct stb_site *site, __u64 e, __u64 other, int at)
{
	race_at = at;
	race_other = other;
	stb_count_errno(site, e);
	race_at = -1;
}

TEST(bpf_errno_slot_race_two_errnos_one_free_slot)
{
	struct stb_site s;

	memset(&s, 0, sizeof(s));
	/* ENOENT sees slot 0 free; EFAULT takes it first: ENOENT goes to slot 1. */
	count_beside(&s, 2, 14, 0);
	EXPECT_EQ(s.errnos[0], slot(14, 1));
	EXPECT_EQ(s.errnos[1], slot(2, 1));
	EXPECT_EQ(s.errnos[2], 0);
	EXPECT_EQ(s.errno_other, 0);
	/* Each errno counts on in its own slot, never a second one. */
	stb_count_errno(&s, 2);
	stb_count_errno(&s, 14);
	EXPECT_EQ(s.errnos[0], slot(14, 2));
	EXPECT_EQ(s.errnos[1], slot(2, 2));
	EXPECT_EQ(s.errnos[2], 0);
}

TEST(bpf_errno_slot_race_one_errno_one_free_slot)
{
	struct stb_site s;

	memset(&s, 0, sizeof(s));
	/* Two ENOENT at once: one takes slot 0, the other counts there. */
	count_beside(&s, 2, 2, 0);
	EXPECT_EQ(s.errnos[0], slot(2, 2));
	EXPECT_EQ(s.errnos[1], 0);
	EXPECT_EQ(s.errno_other, 0);
}

TEST(bpf_errno_slot_race_for_the_last_slot)
{
	struct stb_site s;
	int i;

	memset(&s, 0, sizeof(s));
	stb_count_errno(&s, 20);
	stb_count_errno(&s, 36);
	stb_count_errno(&s, 21);
	/* ENOENT and EFAULT both see slot 3 free: EFAULT wins it, ENOENT is other. */
	count_beside(&s, 2, 14, 3);
	EXPECT_EQ(s.errnos[3], slot(14, 1));
	EXPECT_EQ(s.errno_other, 1);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(s.errnos[i] & STB_ERRNO_COUNT, 1);
	/* The loser of a race for slot 1 with slot 0 taken by the same errno as the winner. */
	memset(&s, 0, sizeof(s));
	stb_count_errno(&s, 20);
	count_beside(&s, 2, 20, 1);
	EXPECT_EQ(s.errnos[0], slot(20, 2));
	EXPECT_EQ(s.errnos[1], slot(2, 1));
	EXPECT_EQ(s.errno_other, 0);
}
