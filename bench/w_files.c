// SPDX-License-Identifier: GPL-2.0
/*
 * The file-heavy workload of report paths' cost: N times (default
 * 100000) a stat and an open of a missing file, through syscall(2), so
 * 2N failed file calls (ENOENT). Reports the loop's own time.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "inner.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i, bad = 0;
	struct stat st;
	uint64_t t0, t1;

	t0 = inner_now();
	for (i = 0; i < n; i++) {
		bad += syscall(SYS_newfstatat, AT_FDCWD, "/nonexistent/bench/file.h", &st, 0) != -1;
		bad += syscall(SYS_openat, AT_FDCWD, "/nonexistent/bench/file.h", O_RDONLY) != -1;
	}
	t1 = inner_now();
	inner_report(t1 - t0);
	return bad != 0;
}
