// SPDX-License-Identifier: GPL-2.0
/* Names for the ABI's enums, and syscall names per ABI from libseccomp. */
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <linux/systrace.h>
#include "model/names.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define X32_SYSCALL_BIT 0x40000000U

static const char *const abi_names[] = {
	[SYSTRACE_ABI_X64] = "x64",
	[SYSTRACE_ABI_IA32] = "ia32",
	[SYSTRACE_ABI_X32] = "x32",
};

static const char *const map_names[] = {
	[SYSTRACE_MAP_UNKNOWN] = "unknown",
	[SYSTRACE_MAP_FILE] = "file",
	[SYSTRACE_MAP_ANON] = "anon",
	[SYSTRACE_MAP_VDSO] = "vdso",
	[SYSTRACE_MAP_VSYSCALL] = "vsyscall",
};

static const char *const end_names[] = {
	[SYSTRACE_END_RUNNING] = "running",
	[SYSTRACE_END_EXITED] = "exited",
	[SYSTRACE_END_SIGNALED] = "signaled",
	[SYSTRACE_END_EXEC] = "exec",
	[SYSTRACE_END_DETACHED] = "detached",
	[SYSTRACE_END_EXEC_UNTRACED] = "exec-untraced",
};

static const char *const state_names[] = {
	[SYSTRACE_STATE_WAITING] = "waiting",
	[SYSTRACE_STATE_RUNNING] = "running",
	[SYSTRACE_STATE_FINISHED] = "finished",
	[SYSTRACE_STATE_DETACHED] = "detached",
};

static const char *const counters_names[] = {
	[SYSTRACE_COUNTERS_NONE] = "none",
	[SYSTRACE_COUNTERS_INSTRUCTIONS] = "instructions",
	[SYSTRACE_COUNTERS_CYCLES] = "cycles",
	[SYSTRACE_COUNTERS_TASK_CLOCK] = "task-clock",
};

/* The dump column that holds a process's counter value in each mode. */
static const char *const counters_columns[] = {
	[SYSTRACE_COUNTERS_NONE] = NULL,
	[SYSTRACE_COUNTERS_INSTRUCTIONS] = "instructions",
	[SYSTRACE_COUNTERS_CYCLES] = "cycles",
	[SYSTRACE_COUNTERS_TASK_CLOCK] = "task_clock_ns",
};

#define LOOKUP(table, v) ((v) < ARRAY_SIZE(table) ? (table)[v] : NULL)

const char *st_abi_name(uint32_t abi)
{
	return LOOKUP(abi_names, abi);
}

const char *st_map_name(uint32_t map)
{
	return LOOKUP(map_names, map);
}

const char *st_end_name(uint32_t end)
{
	return LOOKUP(end_names, end);
}

bool st_state_final(uint32_t state)
{
	return state == SYSTRACE_STATE_FINISHED || state == SYSTRACE_STATE_DETACHED;
}

const char *st_state_name(uint32_t state)
{
	return LOOKUP(state_names, state);
}

const char *st_counters_name(uint32_t counters)
{
	return LOOKUP(counters_names, counters);
}

const char *st_counters_column(uint32_t counters)
{
	return LOOKUP(counters_columns, counters);
}

/* Returns enum systrace_counters, or -1 for an unknown name. */
int st_counters_parse(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counters_names); i++)
		if (!strcmp(name, counters_names[i]))
			return (int)i;
	return -1;
}

#define NAME_CACHE 1024

/* One slot per (abi, nr): NULL not looked up yet, "" looked up and unknown. */
static char *name_cache[ARRAY_SIZE(abi_names)][NAME_CACHE];

static const uint32_t seccomp_arch[] = {
	[SYSTRACE_ABI_X64] = SCMP_ARCH_X86_64,
	[SYSTRACE_ABI_IA32] = SCMP_ARCH_X86,
	[SYSTRACE_ABI_X32] = SCMP_ARCH_X32,
};

const char *st_syscall_name(uint32_t abi, uint32_t nr)
{
	uint32_t idx = nr;
	char **slot, *name;

	if (abi >= ARRAY_SIZE(seccomp_arch))
		return NULL;
	if (abi == SYSTRACE_ABI_X32)
		idx &= ~X32_SYSCALL_BIT;
	if (idx >= NAME_CACHE)
		return NULL;
	slot = &name_cache[abi][idx];
	if (!*slot) {
		if (abi == SYSTRACE_ABI_X32)
			nr = idx | X32_SYSCALL_BIT;
		name = seccomp_syscall_resolve_num_arch(seccomp_arch[abi], (int)nr);
		*slot = name ? name : strdup("");
		if (!*slot)
			return NULL;
	}
	return **slot ? *slot : NULL;
}

int st_syscall_nr(uint32_t abi, const char *name)
{
	int nr;

	if (abi >= ARRAY_SIZE(seccomp_arch))
		return -1;
	nr = seccomp_syscall_resolve_name_arch(seccomp_arch[abi], name);
	if (nr < 0)
		return -1;
	if (abi == SYSTRACE_ABI_X32)
		nr &= ~X32_SYSCALL_BIT;
	return nr;
}

/*
 * The errnos of the kernel's include/linux/errno.h, which never reach a
 * program but which the syscall exit tracepoint sees (a call to be
 * restarted returns -ERESTARTSYS there).
 */
static const char *const kernel_errnos[] = {
	[512 - 512] = "ERESTARTSYS",
	[513 - 512] = "ERESTARTNOINTR",
	[514 - 512] = "ERESTARTNOHAND",
	[515 - 512] = "ENOIOCTLCMD",
	[516 - 512] = "ERESTART_RESTARTBLOCK",
	[517 - 512] = "EPROBE_DEFER",
	[518 - 512] = "EOPENSTALE",
	[519 - 512] = "ENOPARAM",
	[521 - 512] = "EBADHANDLE",
	[522 - 512] = "ENOTSYNC",
	[523 - 512] = "EBADCOOKIE",
	[524 - 512] = "ENOTSUPP",
	[525 - 512] = "ETOOSMALL",
	[526 - 512] = "ESERVERFAULT",
	[527 - 512] = "EBADTYPE",
	[528 - 512] = "EJUKEBOX",
	[529 - 512] = "EIOCBQUEUED",
	[530 - 512] = "ERECALLCONFLICT",
	[531 - 512] = "ENOGRACE",
};

const char *st_errno_name(uint32_t err)
{
	if (err >= 512)
		return LOOKUP(kernel_errnos, err - 512);
	if (!err)
		return NULL;
	/* glibc's names, which are the kernel's for the errnos programs see. */
	return strerrorname_np((int)err);
}

