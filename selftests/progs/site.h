/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw x86-64 syscalls, each from a `syscall` instruction of its own: a
 * SITE(name) function is never inlined or cloned, so its one instruction
 * is one call site, and the global label name_insn marks it for the test
 * (nm finds it; readelf maps it to a file offset).
 */
#ifndef SELFTEST_SITE_H
#define SELFTEST_SITE_H

#define SITE(name)							\
__attribute__((noinline, noclone, used))				\
long name(long nr, long a1, long a2, long a3)				\
{									\
	register long r10 __asm__("r10") = 0;				\
	long ret;							\
									\
	__asm__ volatile(".globl " #name "_insn\n"			\
			 #name "_insn:\n\tsyscall"			\
			 : "=a"(ret)					\
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)	\
			 : "rcx", "r11", "memory");			\
	return ret;							\
}

#endif
