// SPDX-License-Identifier: GPL-2.0
/* Syscall names come from libseccomp, per ABI; enum names are stable. */
#include "model/columns.h"
#include "model/names.h"
#include "test.h"

TEST(syscall_names_per_abi)
{
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X64, 39), "getpid");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_IA32, 20), "getpid");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X64, 0), "read");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_IA32, 3), "read");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X64, 231), "exit_group");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_IA32, 252), "exit_group");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X64, 59), "execve");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_IA32, 11), "execve");
}

TEST(syscall_names_x32_with_or_without_the_x32_bit)
{
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X32, 39), "getpid");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X32, 0x40000000 | 39), "getpid");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X32, 0x40000000 | 512), "rt_sigaction");
}

TEST(syscall_names_unknown_are_null)
{
	EXPECT_NULL(st_syscall_name(SYSTRACE_ABI_X64, 100000));
	EXPECT_NULL(st_syscall_name(SYSTRACE_ABI_X64, 1023));
	EXPECT_NULL(st_syscall_name(7, 39));
	/* cached lookups give the same answer */
	EXPECT_NULL(st_syscall_name(SYSTRACE_ABI_X64, 1023));
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X64, 39), "getpid");
	EXPECT_STREQ(st_syscall_name(SYSTRACE_ABI_X64, 39), "getpid");
}

TEST(enum_names)
{
	EXPECT_STREQ(st_abi_name(SYSTRACE_ABI_X64), "x64");
	EXPECT_STREQ(st_abi_name(SYSTRACE_ABI_IA32), "ia32");
	EXPECT_STREQ(st_abi_name(SYSTRACE_ABI_X32), "x32");
	EXPECT_NULL(st_abi_name(3));
	EXPECT_STREQ(st_map_name(SYSTRACE_MAP_VSYSCALL), "vsyscall");
	EXPECT_STREQ(st_end_name(SYSTRACE_END_DETACHED), "detached");
	EXPECT_STREQ(st_state_name(SYSTRACE_STATE_FINISHED), "finished");
	EXPECT_EQ(st_counters_parse("instructions"), SYSTRACE_COUNTERS_INSTRUCTIONS);
	EXPECT_EQ(st_counters_parse("cycles"), SYSTRACE_COUNTERS_CYCLES);
	EXPECT_EQ(st_counters_parse("task-clock"), SYSTRACE_COUNTERS_TASK_CLOCK);
	EXPECT_EQ(st_counters_parse("none"), SYSTRACE_COUNTERS_NONE);
	EXPECT_EQ(st_counters_parse("Cycles"), -1);
	EXPECT_STREQ(st_counters_column(SYSTRACE_COUNTERS_TASK_CLOCK), "task_clock_ns");
}

TEST(time_is_iso8601_utc_with_ns)
{
	char buf[48];

	st_format_time(0, buf, sizeof(buf));
	EXPECT_STREQ(buf, "1970-01-01T00:00:00.000000000Z");
	st_format_time(1700000000123456789ULL, buf, sizeof(buf));
	EXPECT_STREQ(buf, "2023-11-14T22:13:20.123456789Z");
	/* The same second again (its date kept), then the next one. */
	st_format_time(1700000000000000001ULL, buf, sizeof(buf));
	EXPECT_STREQ(buf, "2023-11-14T22:13:20.000000001Z");
	st_format_time(1700000001999999999ULL, buf, sizeof(buf));
	EXPECT_STREQ(buf, "2023-11-14T22:13:21.999999999Z");
	st_format_time(0, buf, sizeof(buf));
	EXPECT_STREQ(buf, "1970-01-01T00:00:00.000000000Z");
	/* Cut as snprintf cuts, in a buffer too small. */
	st_format_time(1700000000123456789ULL, buf, 25);
	EXPECT_STREQ(buf, "2023-11-14T22:13:20.1234");
	st_format_time(1700000000123456789ULL, buf, 31);
	EXPECT_STREQ(buf, "2023-11-14T22:13:20.123456789Z");
	st_format_time(1700000000123456789ULL, buf, 30);
	EXPECT_STREQ(buf, "2023-11-14T22:13:20.123456789");
}

TEST(syscalls_per_kinsn_rounds_to_thousandths)
{
	uint64_t m;

	EXPECT_FALSE(st_per_kinsn(5, 0, &m));
	ASSERT_TRUE(st_per_kinsn(3, 2000, &m));
	EXPECT_EQ(m, 1500);
	ASSERT_TRUE(st_per_kinsn(1, 3000, &m));	/* 0.3333 */
	EXPECT_EQ(m, 333);
	ASSERT_TRUE(st_per_kinsn(2, 3000, &m));	/* 0.6667 */
	EXPECT_EQ(m, 667);
	ASSERT_TRUE(st_per_kinsn(UINT64_MAX / 2, UINT64_MAX / 2, &m));
	EXPECT_EQ(m, 1000000);
}

/* Errno names: glibc's for what programs see, the kernel's own past 511. */
TEST(errno_names)
{
	EXPECT_STREQ(st_errno_name(2), "ENOENT");
	EXPECT_STREQ(st_errno_name(13), "EACCES");
	EXPECT_STREQ(st_errno_name(9), "EBADF");
	EXPECT_STREQ(st_errno_name(22), "EINVAL");
	EXPECT_STREQ(st_errno_name(133), "EHWPOISON");
	EXPECT_STREQ(st_errno_name(512), "ERESTARTSYS");
	EXPECT_STREQ(st_errno_name(516), "ERESTART_RESTARTBLOCK");
	EXPECT_STREQ(st_errno_name(531), "ENOGRACE");
	EXPECT_NULL(st_errno_name(0));
	EXPECT_NULL(st_errno_name(134));
	EXPECT_NULL(st_errno_name(520));
	EXPECT_NULL(st_errno_name(532));
	EXPECT_NULL(st_errno_name(4095));
	EXPECT_EQ(st_syscall_nr(SYSTRACE_ABI_X64, "openat"), 257);
	EXPECT_EQ(st_syscall_nr(SYSTRACE_ABI_IA32, "close"), 6);
	EXPECT_EQ(st_syscall_nr(SYSTRACE_ABI_X32, "getpid"), 39);
	EXPECT_EQ(st_syscall_nr(SYSTRACE_ABI_X64, "nosuchcall"), -1);
}

