// SPDX-License-Identifier: GPL-2.0
/* The order of a log's events (log.h). */
#include "log/log.h"

int st_event_cmp(const struct st_event *x, const struct st_event *y)
{
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	/* Process events go before the syscalls of the same instant. */
	if (x->kind != y->kind)
		return x->kind == ST_EV_SYSCALL ? 1 :
		       y->kind == ST_EV_SYSCALL ? -1 : (int)x->kind - (int)y->kind;
	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}
