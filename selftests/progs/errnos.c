// SPDX-License-Identifier: GPL-2.0
/*
 * errnos DIR: 42 failing openat() from site_open, 37 ENOENT (DIR/missing)
 * and 5 EACCES (DIR/locked, mode 000, calls 8, 16, 24, 32 and 40), then 3
 * close(-1) (EBADF) from site_close, all raw syscalls. Root would bypass
 * the mode: before the calls the program creates DIR/locked and drops
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from its effective set (capset),
 * so the kernel checks the mode bits. Exits 0 when every call failed as
 * said, 1 otherwise (each wrong return on stderr), 2 on a bad setup.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "dropdac.h"
#include "site.h"

SITE(site_open)
SITE(site_close)

#define OPENS		42
#define EACCES_EVERY	8	/* calls 8, 16, ... 40: 5 EACCES, 37 ENOENT */

int main(int argc, char **argv)
{
	char missing[4096], locked[4096];
	int fd, bad = 0;
	long i, r, want;

	if (argc != 2 ||
	    snprintf(missing, sizeof(missing), "%s/missing", argv[1]) >= (int)sizeof(missing) ||
	    snprintf(locked, sizeof(locked), "%s/locked", argv[1]) >= (int)sizeof(locked)) {
		fprintf(stderr, "usage: errnos DIR\n");
		return 2;
	}
	fd = open(locked, O_CREAT | O_WRONLY | O_TRUNC, 0);
	if (fd < 0 || fchmod(fd, 0) || close(fd)) {
		perror(locked);
		return 2;
	}
	if (drop_dac()) {
		perror("capset");
		return 2;
	}
	for (i = 1; i <= OPENS; i++) {
		int acc = i % EACCES_EVERY == 0;

		r = site_open(SYS_openat, AT_FDCWD, (long)(acc ? locked : missing), O_RDONLY);
		want = acc ? -13 : -2;		/* -EACCES, -ENOENT */
		if (r != want) {
			fprintf(stderr, "errnos: openat %ld of %s: %ld, not %ld\n",
				i, acc ? locked : missing, r, want);
			bad = 1;
		}
	}
	for (i = 1; i <= 3; i++) {
		r = site_close(SYS_close, -1, 0, 0);
		if (r != -9) {			/* -EBADF */
			fprintf(stderr, "errnos: close(-1) %ld: %ld, not -9\n", i, r);
			bad = 1;
		}
	}
	return bad;
}
