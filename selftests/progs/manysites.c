// SPDX-License-Identifier: GPL-2.0
/*
 * manysites S: writes S stubs "mov $110,%eax; syscall; ret" into an
 * anonymous executable mapping and calls stub i (i % 3) + 1 times: S
 * getppid sites (map anon), S + S/3 + ... calls. Prints the mapping's
 * address and the number of calls. Exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define STUB 8

int main(int argc, char **argv)
{
	static const unsigned char stub[STUB] = {
		0xb8, 0x6e, 0x00, 0x00, 0x00,	/* mov $110, %eax */
		0x0f, 0x05,			/* syscall */
		0xc3,				/* ret */
	};
	long s = argc > 1 ? atol(argv[1]) : 600, i, j, calls = 0;
	unsigned char *code;

	code = mmap(NULL, s * STUB, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	for (i = 0; i < s; i++)
		memcpy(code + i * STUB, stub, STUB);
	__builtin___clear_cache((char *)code, (char *)code + s * STUB);
	for (i = 0; i < s; i++) {
		long (*fn)(void) = (long (*)(void))(code + i * STUB);

		for (j = 0; j <= i % 3; j++, calls++)
			if (fn() <= 0)
				return 1;
	}
	printf("%p %ld\n", (void *)code, calls);
	return 0;
}
