// SPDX-License-Identifier: GPL-2.0
/* Errors map to the documented exit codes and read as documented. */
#include <errno.h>
#include "err.h"
#include "session.h"
#include "test.h"

static int code(enum st_err_kind kind, int e)
{
	struct st_err err;

	st_err_set(&err, kind, e, "SESSION_NEW", NULL);
	return st_exit_code(&err);
}

TEST(exit_codes)
{
	EXPECT_EQ(code(ST_ERR_NONE, 0), 0);
	EXPECT_EQ(code(ST_ERR_NOMODULE, ENOENT), 2);
	EXPECT_EQ(code(ST_ERR_KERNEL, EPERM), 3);
	EXPECT_EQ(code(ST_ERR_KERNEL, -EPERM), 3);
	EXPECT_EQ(code(ST_ERR_KERNEL, EACCES), 3);
	EXPECT_EQ(code(ST_ERR_KERNEL, EINVAL), 4);
	EXPECT_EQ(code(ST_ERR_KERNEL, ESRCH), 4);
	EXPECT_EQ(code(ST_ERR_NOSESSION, ENOENT), 4);
	EXPECT_EQ(code(ST_ERR_PROTO, EBADMSG), 6);
	EXPECT_EQ(code(ST_ERR_LOCAL, ENOMEM), 6);
	EXPECT_EQ(ST_EXIT_USAGE, 1);
	EXPECT_EQ(ST_EXIT_CHECK, 5);
}

TEST(error_messages)
{
	struct st_err err;
	char buf[512];

	st_err_set(&err, ST_ERR_NOMODULE, ENOENT, "resolve family", NULL);
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_STREQ(buf, "systrace module is not loaded; load it with: "
		     "insmod kmod/systrace.ko (or modprobe systrace)");

	st_err_set(&err, ST_ERR_KERNEL, ESRCH, "SESSION_NEW", "%s", "pid 4242 does not exist");
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_STREQ(buf, "kernel rejected SESSION_NEW: pid 4242 does not exist (No such process)");

	st_err_set(&err, ST_ERR_KERNEL, EINVAL, "PROC_GET", NULL);
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_STREQ(buf, "kernel rejected PROC_GET: Invalid argument");

	st_err_set(&err, ST_ERR_KERNEL, EPERM, "STATUS", NULL);
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "permission denied: STATUS needs CAP_NET_ADMIN") == buf);
	EXPECT_TRUE(strstr(buf, "(Operation not permitted)"));
}

TEST(session_argument_parsing)
{
	uint32_t id = 0;

	EXPECT_EQ(st_parse_u32("12", &id), 0);
	EXPECT_EQ(id, 12);
	EXPECT_EQ(st_parse_u32("4294967295", &id), 0);
	EXPECT_EQ(id, 4294967295U);
	EXPECT_EQ(st_parse_u32("4294967296", &id), -EINVAL);
	EXPECT_EQ(st_parse_u32("-1", &id), -EINVAL);
	EXPECT_EQ(st_parse_u32("12a", &id), -EINVAL);
	EXPECT_EQ(st_parse_u32("build", &id), -EINVAL);
	EXPECT_EQ(st_parse_u32("", &id), -EINVAL);
}
