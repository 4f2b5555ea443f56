// SPDX-License-Identifier: GPL-2.0
/*
 * The phase of each syscall of a log: per image, in seq order, the loader
 * phase lasts until the first syscall whose site lies outside the image's
 * ELF interpreter (identified as report phases does: lib/interp.c); every
 * later call is in the program phase. An image without a loader phase
 * (begun by fork, or static) is all program; an image whose interpreter is
 * unknown gets ST_PHASE_NONE.
 *
 * A syscall without a site row (site == NULL: its row was dropped) cannot
 * end a phase, since where it came from is unknown; it takes the phase of
 * its position. Early: the loader phase and, with an early object, the
 * calls before the first one from outside both the interpreter and that
 * object; images without a loader phase have no early calls.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "interp.h"
#include "log.h"

static int by_image_seq(const void *a, const void *b)
{
	const struct st_event *x = *(const struct st_event *const *)a;
	const struct st_event *y = *(const struct st_event *const *)b;

	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/* The events [0, n) of one image, in seq order. */
static void set_image(struct st_event **ev, size_t n,
		      const struct st_image_interp *ii, const char *early_object)
{
	bool loader = true, early = true;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct st_site_row *s = ev[i]->site;

		ev[i]->phase = ST_PHASE_NONE;
		ev[i]->early = false;
		if (!ii || !ii->known)
			continue;
		if (!ii->interp) {
			ev[i]->phase = ST_PHASE_PROGRAM;
			continue;
		}
		if (s && !st_interp_holds(ii, s)) {
			loader = false;
			if (!early_object || !st_site_in_object(s, early_object))
				early = false;
		}
		ev[i]->phase = loader ? ST_PHASE_LOADER : ST_PHASE_PROGRAM;
		ev[i]->early = loader || early;
	}
}

int st_log_set_phases(struct st_log *log, const struct st_dump *d,
		      const char *early_object)
{
	struct st_image_interp *ii = NULL;
	struct st_symbolizer *sz = st_symbolizer_new();
	struct st_event **ev = malloc((log->n ? log->n : 1) * sizeof(*ev));
	char *real = early_object ? realpath(early_object, NULL) : NULL;
	size_t i, j, n = 0;
	int ret = -ENOMEM;

	ii = calloc(d->nprocs ? d->nprocs : 1, sizeof(*ii));
	if (!sz || !ev || !ii)
		goto out;
	ret = st_interps_find(d, sz, ii);
	if (ret)
		goto out;
	for (i = 0; i < log->n; i++)
		if (log->ev[i].kind == ST_EV_SYSCALL)
			ev[n++] = &log->ev[i];
	qsort(ev, n, sizeof(*ev), by_image_seq);
	for (i = 0; i < n; i = j) {
		const struct st_proc_row *p = st_dump_find_proc(d, ev[i]->proc_id);

		for (j = i; j < n && ev[j]->proc_id == ev[i]->proc_id; j++)
			;
		set_image(ev + i, j - i, p ? &ii[p - d->procs] : NULL,
			  real ? real : early_object);
	}
out:
	free(real);
	free(ii);
	free(ev);
	st_symbolizer_free(sz);
	return ret;
}

void st_log_phases(struct st_log *log, const struct st_dump *d,
		   const char *early_object)
{
	size_t i;

	if (!st_log_set_phases(log, d, early_object))
		return;
	st_warn("warning: out of memory: the log's phases are not set");
	for (i = 0; i < log->n; i++) {
		log->ev[i].phase = ST_PHASE_NONE;
		log->ev[i].early = false;
	}
}
