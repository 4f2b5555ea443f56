// SPDX-License-Identifier: GPL-2.0
/* A dump's pool: one copy of each string and of each symbolization. */
#include <stdio.h>
#include <string.h>
#include "model/model.h"
#include "test.h"

TEST(pool_strings_are_stored_once)
{
	struct st_pool *p = st_pool_new();
	char buf[32];
	const char *a, *b, *c, *n = "x";

	ASSERT_TRUE(p);
	strcpy(buf, "/usr/lib/libc.so.6");
	ASSERT_EQ(st_pool_str(p, buf, &a), 0);
	buf[0] = 'X';		/* the pool keeps its own copy */
	EXPECT_STREQ(a, "/usr/lib/libc.so.6");
	ASSERT_EQ(st_pool_str(p, "/usr/lib/libc.so.6", &b), 0);
	ASSERT_EQ(st_pool_str(p, "/usr/lib/libm.so.6", &c), 0);
	EXPECT_TRUE(a == b);
	EXPECT_TRUE(a != c);
	EXPECT_STREQ(c, "/usr/lib/libm.so.6");
	ASSERT_EQ(st_pool_str(p, NULL, &n), 0);
	EXPECT_NULL(n);
	ASSERT_EQ(st_pool_str(p, "", &a), 0);
	EXPECT_STREQ(a, "");
	st_pool_free(p);
}

/* Past the first table's 256 slots: every string is found after each growth. */
TEST(pool_finds_every_string_after_growing)
{
	static const char *first[5000];
	struct st_pool *p = st_pool_new();
	const char *s;
	char buf[32];
	int i, same = 0;

	ASSERT_TRUE(p);
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		ASSERT_EQ(st_pool_str(p, buf, &first[i]), 0);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		ASSERT_EQ(st_pool_str(p, buf, &s), 0);
		same += s == first[i] && !strcmp(s, buf);
	}
	EXPECT_EQ(same, 5000);
	st_pool_free(p);
}

TEST(pool_syms_equal_by_content)
{
	struct st_dump d;
	char obj[] = "/usr/lib/libc.so.6";
	struct st_sym x = {
		.object = obj, .symbol = "getpid", .has_symbol_offset = true,
		.symbol_offset = 9, .build_id = "93ac",
	};
	const struct st_sym *a, *b, *c, *e;

	memset(&d, 0, sizeof(d));
	ASSERT_EQ(st_dump_sym(&d, &x, &a), 0);
	ASSERT_TRUE(a && a != &x);
	EXPECT_STREQ(a->object, "/usr/lib/libc.so.6");
	EXPECT_STREQ(a->symbol, "getpid");
	EXPECT_EQ(a->symbol_offset, 9);
	EXPECT_TRUE(a->has_symbol_offset);
	EXPECT_STREQ(a->build_id, "93ac");
	EXPECT_NULL(a->error);
	x.object = "/usr/lib/libc.so.6";	/* another pointer, same text */
	ASSERT_EQ(st_dump_sym(&d, &x, &b), 0);
	EXPECT_TRUE(a == b);
	x.symbol_offset = 10;
	ASSERT_EQ(st_dump_sym(&d, &x, &c), 0);
	EXPECT_TRUE(c != a);
	EXPECT_EQ(c->symbol_offset, 10);
	EXPECT_TRUE(c->symbol == a->symbol);	/* the strings are shared */
	ASSERT_EQ(st_dump_sym(&d, &(struct st_sym){ .object = obj, .error = "no symbol" },
			      &e), 0);
	EXPECT_TRUE(e != a);
	EXPECT_NULL(e->symbol);
	EXPECT_FALSE(e->has_symbol_offset);
	EXPECT_STREQ(e->error, "no symbol");
	st_dump_free(&d);
	EXPECT_NULL(d.pool);
}
