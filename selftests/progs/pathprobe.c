// SPDX-License-Identifier: GPL-2.0
/*
 * pathprobe [ok] [N]: file calls with known paths and results, all raw
 * syscalls (test_bpf_paths.sh), each failing one N times as often
 * (default 1; test_bpf_paths_diff.sh):
 *   openat /nonexistent/a      x3  ENOENT
 *   openat /nonexistent/b      x5  ENOENT
 *   access /nonexistent/c      x4  ENOENT
 *   openat /etc/passwd/x       x2  ENOTDIR
 *   newfstatat on a 300-byte path under /nonexistent  x1  ENOENT
 *   openat with the pointer 0x1  x1  EFAULT (an unreadable path)
 * and with "ok", openat /etc/passwd x6 that succeed (each closed: close
 * takes no path), and quotactl(Q_SYNC) with a NULL device x2 (whatever it
 * returns: NULL there means every device, no path, and makes no row).
 * Exits 0 when every call returned as said, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int bad;

static void expect(long ret, int err, const char *what)
{
	if (err ? (ret != -1 || errno != err) : ret < 0) {
		fprintf(stderr, "pathprobe: %s: returned %ld (errno %d), wanted errno %d\n", what,
			ret, errno, err);
		bad = 1;
	}
}

static void opens(const char *path, int n, int err)
{
	int i;

	for (i = 0; i < n; i++)
		expect(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY), err, path);
}

int main(int argc, char **argv)
{
	char longp[301];
	struct stat st;
	size_t at;
	long fd;
	int i, k, n = 1, ok = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "ok"))
			ok = 1;
		else
			n = atoi(argv[i]);
	}
	if (n < 1) {
		fprintf(stderr, "usage: pathprobe [ok] [N]\n");
		return 2;
	}
	opens("/nonexistent/a", 3 * n, ENOENT);
	opens("/nonexistent/b", 5 * n, ENOENT);
	for (i = 0; i < 4 * n; i++)
		expect(syscall(SYS_access, "/nonexistent/c", F_OK), ENOENT, "access");
	opens("/etc/passwd/x", 2 * n, ENOTDIR);
	/* 300 bytes: "/nonexistent" then components of 49 bytes and a slash. */
	strcpy(longp, "/nonexistent");
	for (at = strlen(longp); at < 300; at++)
		longp[at] = (at - 12) % 50 == 0 ? '/' : 'd';
	longp[300] = 0;
	for (k = 0; k < n; k++) {
		expect(syscall(SYS_newfstatat, AT_FDCWD, longp, &st, 0), ENOENT, "newfstatat");
		expect(syscall(SYS_openat, AT_FDCWD, (const char *)1, O_RDONLY), EFAULT,
		       "openat 0x1");
	}
	if (ok) {
		for (i = 0; i < 6; i++) {
			fd = syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY);
			expect(fd, 0, "/etc/passwd");
			if (fd >= 0)
				close((int)fd);
		}
		for (i = 0; i < 2; i++)
			syscall(SYS_quotactl, QCMD(Q_SYNC, USRQUOTA), NULL, 0, NULL);
	}
	return bad;
}
