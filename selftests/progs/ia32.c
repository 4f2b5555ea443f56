// SPDX-License-Identifier: GPL-2.0
/*
 * ia32 N M (built with -m32 -static): N getppid (ia32 nr 64) by int $0x80
 * from the labelled site int80_insn, then M more through libc's
 * syscall(), wherever libc makes them. Exits 0.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline, noclone, used)) long int80_getppid(void)
{
	long ret;

	__asm__ volatile(".globl int80_insn\nint80_insn:\n\tint $0x80"
			 : "=a"(ret) : "a"(64) : "memory");
	return ret;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300;
	long m = argc > 2 ? atol(argv[2]) : 100;
	long i;

	if (SYS_getppid != 64)
		return 2;
	for (i = 0; i < n; i++)
		if (int80_getppid() <= 0)
			return 1;
	for (i = 0; i < m; i++)
		if (syscall(SYS_getppid) <= 0)
			return 1;
	return 0;
}
