// SPDX-License-Identifier: GPL-2.0
/*
 * bigrss MIB: touches MIB MiB of anonymous memory, one write a page, then
 * prints its own peak RSS in KiB (getrusage(RUSAGE_SELF).ru_maxrss) and
 * exits 0 (2 on a usage error or no memory): a command whose peak RSS is
 * known, to tell it apart from systracectl's own (start --self-usage).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	long page = sysconf(_SC_PAGESIZE);
	size_t len, i;
	char *p;

	if (argc != 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: bigrss MIB\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	p = malloc(len);
	if (!p)
		return 2;
	for (i = 0; i < len; i += (size_t)page)
		p[i] = 1;
	if (getrusage(RUSAGE_SELF, &ru))
		return 2;
	printf("%ld\n", ru.ru_maxrss);
	free(p);
	return 0;
}
