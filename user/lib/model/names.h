/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_NAMES_H
#define SYSTRACE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

/* Names of the ABI's enum values; NULL for a value this tool does not know. */
const char *st_abi_name(uint32_t abi);
const char *st_map_name(uint32_t map);
const char *st_end_name(uint32_t end);
const char *st_state_name(uint32_t state);
/* Finished or detached: no traced task is left, the rows are final. */
bool st_state_final(uint32_t state);
const char *st_counters_name(uint32_t counters);
const char *st_counters_column(uint32_t counters);
int st_counters_parse(const char *name);

/* The syscall's name in its ABI, from libseccomp; NULL if unknown. */
const char *st_syscall_name(uint32_t abi, uint32_t nr);
/* A syscall's number in abi from its name; -1 if unknown. */
int st_syscall_nr(uint32_t abi, const char *name);

/*
 * An errno's symbolic name ("ENOENT"), those only the kernel uses among
 * them ("ERESTARTSYS": a syscall's exit may see them); NULL if unknown.
 */
const char *st_errno_name(uint32_t err);

#endif
