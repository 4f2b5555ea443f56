/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_TEST_H
#define SYSTRACE_TEST_H

/*
 * A small TAP harness in the manner of kselftest_harness.h: TEST(name)
 * registers a test; each runs in a forked child; ASSERT_* stops the test,
 * EXPECT_* records a failure and goes on; SKIP(reason...) ends it as a
 * TAP skip ("ok N name # SKIP reason"). test_main.c runs them all.
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
void st_test_skip(bool failed, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

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
 * Ends the test as a skip, for want of something outside the code under
 * test (a package: libc6-dbg, lld, libc.a). A test that has recorded a
 * failure fails instead, and so does any skip when CI is set (and not
 * "false" or "0"): scripts/deps installs everything the tests need, so in
 * CI a missing piece is a failure, never a quiet "ok".
 */
#define SKIP(...) st_test_skip(*failed, __VA_ARGS__)

/*
 * test_spy.c: what the code under test did on the test's own thread and on
 * the others (a decoder's, a writer's), so that a test named after a thread
 * proves that the thread did the work. st_spy_reset() makes the calling
 * thread the test's own and zeroes the counts; they count from then on:
 *   rows    libnl's nla_parse_nested() calls: one per row a dump decodes
 *   writes  fwrite() calls
 *   bytes   bytes fwrite() wrote
 */
struct st_spy {
	uint64_t rows_here, rows_elsewhere;
	uint64_t writes_here, writes_elsewhere;
	uint64_t bytes_here, bytes_elsewhere;
};

void st_spy_reset(void);
struct st_spy st_spy_read(void);

/*
 * test_main.c: from here on, this test's process cannot start a thread
 * (each would need a stack larger than the address space left to it), as
 * when pthread_create fails for want of memory. 0 once a pthread_create
 * has failed so (EAGAIN), or -errno.
 */
int st_test_no_threads(void);

/* test_fixture.c: a small, consistent, finished session (see there). */
#include "model/model.h"
void st_fixture(struct st_dump *d);
/* The same, its first site symbolized (libc's getpid+0x9). */
void st_fixture_symbolized(struct st_dump *d);
/* The module and three sessions for status and list (see there). */
void st_fixture_status(struct st_status *st, struct st_session_row ss[3]);

#endif
