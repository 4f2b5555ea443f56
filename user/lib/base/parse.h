/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_PARSE_H
#define SYSTRACE_PARSE_H

#include <stdint.h>

/* Decimal, no sign, no junk, at least min. Returns 0 or -EINVAL. */
int st_parse_u64(const char *s, uint64_t *out, uint64_t min);

#endif
