// SPDX-License-Identifier: GPL-2.0
/* Errors map to the documented exit codes and read as documented. */
#include <errno.h>
#include "bpf/bpf_tree.h"
#include "base/err.h"
#include "common.h"
#include "test.h"

/* The module's refusals (kmod/netlink.c, kmod/session.c). */
#define PERM_CAP "systrace: permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN " \
	"in the initial user namespace"
#define PERM_PTRACE "systrace: permission denied: no ptrace read access to that process"

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
	/* The BPF backend: its own refusals, and programs the kernel refused. */
	EXPECT_EQ(code(ST_ERR_REFUSED, EBUSY), 4);
	EXPECT_EQ(code(ST_ERR_REFUSED, EPERM), 3);
	EXPECT_EQ(code(ST_ERR_REFUSED, EACCES), 3);
	EXPECT_EQ(code(ST_ERR_BPF, EINVAL), 7);
	EXPECT_EQ(code(ST_ERR_BPF, EACCES), 7);
	EXPECT_EQ(ST_EXIT_BPF, 7);
}

/* A refusal of systracectl's own is no kernel's, and a refused program ends with the verifier's lines. */
TEST(bpf_messages)
{
	struct st_err err;
	char buf[1536];

	st_err_set(&err, ST_ERR_REFUSED, EBUSY, "session",
		   "the process is already traced by a session (3)");
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_STREQ(buf, "session: the process is already traced by a session (3) "
		     "(Device or resource busy)");
	st_err_set(&err, ST_ERR_BPF, EINVAL, "BPF program load", "%s",
		   "the kernel refused it; the verifier's last lines:\nR1 invalid mem access 'scalar'");
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_STREQ(buf, "BPF program load: the kernel refused it; the verifier's last lines:\n"
		     "R1 invalid mem access 'scalar'");

	st_err_set(&err, ST_ERR_REFUSED, EPERM, "bpf",
		   "the BPF backend needs root (CAP_SYS_ADMIN, which this process lacks)");
	st_err_hint(&err, false, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "you are not root: run systracectl as root");
	st_err_hint(&err, true, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "this root process lacks CAP_SYS_ADMIN: run systracectl with root's capabilities");
	st_err_hint(&err, true, true, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "you are root only inside a user namespace") == buf);
	EXPECT_TRUE(strstr(buf, "CAP_SYS_ADMIN in the initial one") != NULL);
}

/* The verifier's log: its last lines, newest kept, libbpf's frame left out. */
TEST(bpf_log_tail)
{
	char buf[128];

	st_bpf_log_start();
	st_bpf_log_add("libbpf: prog 'st_sys_enter': BPF program load failed: Permission denied\n");
	st_bpf_log_add("libbpf: prog 'st_sys_enter': -- BEGIN PROG LOAD LOG --\n"
		       "0: (79) r6 = *(u64 *)(r1 +8)\n1: (b7) r2 = 0\n"
		       "R1 invalid mem access 'scalar'\n-- END PROG LOAD LOG --\n");
	st_bpf_log_add("libbpf: failed to load object 'systrace_bpf'\n");
	st_bpf_log_tail(buf, sizeof(buf), 2);
	EXPECT_STREQ(buf, "R1 invalid mem access 'scalar'\n"
		     "libbpf: failed to load object 'systrace_bpf'");
	/* What does not fit goes, oldest first. */
	st_bpf_log_tail(buf, 60, 8);
	EXPECT_STREQ(buf, "libbpf: failed to load object 'systrace_bpf'");
	st_bpf_log_start();
	st_bpf_log_tail(buf, sizeof(buf), 8);
	EXPECT_STREQ(buf, "");
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

	/* A permission error prints the kernel's own explanation... */
	st_err_set(&err, ST_ERR_KERNEL, EPERM, "STATUS", "%s", PERM_CAP);
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_STREQ(buf, "kernel rejected STATUS: " PERM_CAP " (Operation not permitted)");

	/* ... and still says what it is when the kernel gave no text. */
	st_err_set(&err, ST_ERR_KERNEL, EPERM, "STATUS", NULL);
	st_err_format(&err, buf, sizeof(buf));
	EXPECT_STREQ(buf, "kernel rejected STATUS: permission denied (Operation not permitted)");
}

/* The hint line after a permission error names what would let the caller in. */
TEST(permission_hints)
{
	struct st_err err;
	char buf[512];

	st_err_set(&err, ST_ERR_KERNEL, EPERM, "STATUS", "%s", PERM_CAP);
	st_err_hint(&err, false, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "you are not root: run systracectl as root, "
		     "or give it CAP_PERFMON (as perf needs)");
	st_err_hint(&err, true, true, buf, sizeof(buf));
	EXPECT_STREQ(buf, "you are root only inside a user namespace (a container?), "
		     "and CAP_PERFMON or CAP_SYS_ADMIN count only in the initial one: "
		     "run systracectl as root on the host");
	st_err_hint(&err, true, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "this root process lacks CAP_PERFMON and CAP_SYS_ADMIN: "
		     "run systracectl with root's capabilities");

	/* A dump's refusal (EACCES is treated alike) without a text. */
	st_err_set(&err, ST_ERR_KERNEL, EACCES, "PROC_GET", NULL);
	st_err_hint(&err, false, true, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "you are not root") == buf);

	/* The ptrace-read refusal of SESSION_NEW: capabilities are not the point. */
	st_err_set(&err, ST_ERR_KERNEL, EPERM, "SESSION_NEW", "%s", PERM_PTRACE);
	st_err_hint(&err, false, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "tracing a process of another uid or gid, or one that is not "
		     "dumpable (setuid, setgid, file capabilities), also needs "
		     "CAP_SYS_PTRACE, as root has; systracectl start -- CMD traces "
		     "a CMD of your own");

	/* No hint for anything else. */
	st_err_set(&err, ST_ERR_KERNEL, ESRCH, "SESSION_NEW", "%s", "no process with that pid");
	st_err_hint(&err, false, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "");
	st_err_set(&err, ST_ERR_NOMODULE, ENOENT, "resolve family", NULL);
	st_err_hint(&err, false, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "");
	st_err_set(&err, ST_ERR_LOCAL, EPERM, "open out.csv", NULL);
	st_err_hint(&err, false, false, buf, sizeof(buf));
	EXPECT_STREQ(buf, "");
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
