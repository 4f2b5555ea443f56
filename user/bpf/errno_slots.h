/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF site row's errno slots (systrace_bpf.h's STB_ERRNO_SHIFT): the
 * claim of a free slot, shared by the BPF program and the unit tests.
 * Threads on several CPUs count into one row at once, so a free slot is
 * taken by compare-and-swap: of two threads that both saw it free, one
 * takes it and the other goes on with what the winner put there (its own
 * errno: it counts there; another: it looks further). STB_ERRNO_RACE(site,
 * i), empty in the program, is where a unit test makes another thread's
 * whole count happen between a thread's read of a free slot and its claim:
 * the collision that a race between real threads meets only now and then.
 */
#ifndef SYSTRACE_ERRNO_SLOTS_H
#define SYSTRACE_ERRNO_SLOTS_H

#include "systrace_bpf.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#ifndef STB_ERRNO_RACE
#define STB_ERRNO_RACE(site, i)
#endif

/*
 * Counts an error of errno @e (1..MAX_ERRNO) at @site: in its slot, or the
 * first free one, which it takes; with none free, in errno_other. A slot
 * once taken keeps its errno, so an errno is in one slot at most: the
 * slots before the one a thread takes were taken, by other errnos.
 */
static __always_inline void stb_count_errno(struct stb_site *site, __u64 e)
{
	__u64 v;
	int i;

	for (i = 0; i < STB_SITE_ERRNOS; i++) {
		v = site->errnos[i];
		if (!v) {
			STB_ERRNO_RACE(site, i);
			v = __sync_val_compare_and_swap(&site->errnos[i], 0,
							e << STB_ERRNO_SHIFT | 1);
			if (!v)
				return;
		}
		if (v >> STB_ERRNO_SHIFT == e) {
			__sync_fetch_and_add(&site->errnos[i], 1);
			return;
		}
	}
	__sync_fetch_and_add(&site->errno_other, 1);
}

#endif
