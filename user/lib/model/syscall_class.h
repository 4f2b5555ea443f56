/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_SYSCALL_CLASS_H
#define SYSTRACE_SYSCALL_CLASS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * strace's syscall classes (%file, %process, %network or %net, %signal,
 * %ipc, %desc, %memory), with the members strace 6.1 gives them on x86_64.
 * A class names syscalls by name, so it selects those names in every ABI.
 */

/* The class "%NAME" names (with its %), or -1. */
int st_syscall_class(const char *name);
bool st_syscall_in_class(int cls, const char *syscall);
/* The classes' names, for a usage message: "%file, %process, ...". */
extern const char *const st_syscall_classes[];
extern const size_t st_nsyscall_classes;

#endif
