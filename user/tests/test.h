/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_TEST_H
#define SYSTRACE_TEST_H

/*
 * A small TAP harness in the manner of kselftest_harness.h: TEST(name)
 * registers a test; each runs in a forked child; ASSERT_* stops the test,
 * EXPECT_* records a failure and goes on. test_main.c runs them all.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct st_test {
	const char *name;
	void (*fn)(bool *failed);
	struct st_test *next;
};

void st_test_register(struct st_test *t);
void st_test_abort(void) __attribute__((noreturn));

#define TEST(tname)							\
	static void test_##tname(bool *failed);				\
	static struct st_test st_test_##tname = {			\
		.name = #tname, .fn = test_##tname,			\
	};								\
	__attribute__((constructor)) static void reg_##tname(void)	\
	{								\
		st_test_register(&st_test_##tname);			\
	}								\
	static void test_##tname(bool *failed __attribute__((unused)))

#define ST_FAIL(stop, ...)						\
	do {								\
		printf("# %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		*failed = true;						\
		if (stop)						\
			st_test_abort();				\
	} while (0)

#define ST_CMP_U(stop, a, op, b)					\
	do {								\
		uintmax_t _a = (uintmax_t)(a), _b = (uintmax_t)(b);	\
		if (!(_a op _b))					\
			ST_FAIL(stop, "%s (%ju) " #op " %s (%ju)",	\
				#a, _a, #b, _b);			\
	} while (0)

#define ST_CMP_S(stop, a, b)						\
	do {								\
		const char *_a = (a), *_b = (b);			\
		if (!_a || !_b || strcmp(_a, _b))			\
			ST_FAIL(stop, "%s == %s: \"%s\" vs \"%s\"",	\
				#a, #b, _a ? _a : "(null)",		\
				_b ? _b : "(null)");			\
	} while (0)

#define ASSERT_EQ(a, b) ST_CMP_U(true, a, ==, b)
#define EXPECT_EQ(a, b) ST_CMP_U(false, a, ==, b)
#define ASSERT_TRUE(c) ST_CMP_U(true, !!(c), ==, 1)
#define EXPECT_TRUE(c) ST_CMP_U(false, !!(c), ==, 1)
#define EXPECT_FALSE(c) ST_CMP_U(false, !!(c), ==, 0)
#define ASSERT_STREQ(a, b) ST_CMP_S(true, a, b)
#define EXPECT_STREQ(a, b) ST_CMP_S(false, a, b)
#define EXPECT_NULL(p) ST_CMP_U(false, (p) == NULL, ==, 1)

/*
 * test_main.c: from here on, this test's process cannot start a thread
 * (each would need a stack larger than the address space left to it), as
 * when pthread_create fails for want of memory. 0 once a pthread_create
 * has failed so (EAGAIN), or -errno.
 */
int st_test_no_threads(void);

/* test_fixture.c: a small, consistent, finished session (see there). */
#include "model.h"
void st_fixture(struct st_dump *d);
/* The same, its first site symbolized (libc's getpid+0x9). */
void st_fixture_symbolized(struct st_dump *d);
/* The module and three sessions for status and list (see there). */
void st_fixture_status(struct st_status *st, struct st_session_row ss[3]);

#endif
