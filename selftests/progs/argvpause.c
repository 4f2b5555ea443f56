// SPDX-License-Identifier: GPL-2.0
/*
 * argvpause [ARG...]: waits in pause() for the signal that kills it, and
 * makes no other syscall (no libc: built -nostdlib -static). So its
 * session's memory is whole once it waits: its row, its argv and the one
 * site of pause, for the argv memory test (test_trace_argv.sh).
 */
#include <sys/syscall.h>

void _start(void);

void _start(void)
{
	for (;;)
		asm volatile("syscall" : : "a"(SYS_pause) : "rcx", "r11", "memory");
}
