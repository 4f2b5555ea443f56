// SPDX-License-Identifier: GPL-2.0
/*
 * pidwait [FIFO]: one getpid() from site_pid and one getppid() from
 * site_ppid (raw syscalls), prints "pid=P ppid=Q" as its own pid namespace
 * sees them, then, with FIFO, reads FIFO until end of file (so a test can
 * look at it from outside while it waits). Exits 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "site.h"

SITE(site_pid)
SITE(site_ppid)

int main(int argc, char **argv)
{
	long pid = site_pid(SYS_getpid, 0, 0, 0);
	long ppid = site_ppid(SYS_getppid, 0, 0, 0);
	char buf[64];
	ssize_t r;
	int fd;

	printf("pid=%ld ppid=%ld\n", pid, ppid);
	if (fflush(stdout))
		return 1;
	if (argc < 2)
		return 0;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		;
	return r < 0;
}
