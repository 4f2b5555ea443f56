// SPDX-License-Identifier: GPL-2.0
/* The temporal log (log.h): its array. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"

int st_log_push(struct st_log *log, const struct st_event *ev)
{
	if (log->n == log->cap) {
		size_t cap = log->cap ? log->cap * 2 : 256;
		struct st_event *n = realloc(log->ev, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		log->ev = n;
		log->cap = cap;
	}
	log->ev[log->n++] = *ev;
	return 0;
}

void st_log_free(struct st_log *log)
{
	free(log->ev);
	memset(log, 0, sizeof(*log));
}
