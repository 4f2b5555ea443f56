// SPDX-License-Identifier: GPL-2.0
/*
 * report phases from a log: each syscall carries its phase (log_phases.c),
 * so the split is exact per call and per site, with nothing undetermined.
 * An image with loader-phase calls is dynamic (interp: the object of its
 * first one); one begun by fork is "fork"; any other whose calls have a
 * phase is "static"; one whose calls have none is unknown. boundary: the
 * seq of the first program-phase call. later_calls: program-phase calls
 * of (site, syscall) rows whose first call was in the loader phase.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "systrace.h"

static int by_row(const void *a, const void *b)
{
	const struct st_event *x = *(const struct st_event *const *)a;
	const struct st_event *y = *(const struct st_event *const *)b;
	int c = st_event_site_cmp(x, y);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct ph_proc *proc_of(const struct st_dump *d, struct ph_result *r,
			       uint64_t id)
{
	const struct st_proc_row *p = st_dump_find_proc(d, id);

	return p ? &r->procs[p - d->procs] : NULL;
}

/* Pass 1: what each image is, from its calls' phases. */
static void classify(const struct st_dump *d, const struct st_log *log,
		     struct ph_result *r)
{
	size_t i;

	for (i = 0; i < d->nprocs; i++) {
		struct ph_proc *pp = &r->procs[i];

		pp->proc = &d->procs[i];
		pp->known = true;
		pp->source = pp->proc->parent_id && !pp->proc->prev_id ? "fork" : "static";
	}
	for (i = 0; i < log->n; i++) {
		const struct st_event *e = &log->ev[i];
		struct ph_proc *pp;

		if (e->kind != ST_EV_SYSCALL || !(pp = proc_of(d, r, e->proc_id)))
			continue;
		if (e->phase == ST_PHASE_NONE) {
			pp->known = false;
			pp->source = "unknown";
			pp->error = "the log gives its calls no phase";
		} else if (e->phase == ST_PHASE_PROGRAM && pp->known &&
			   (!pp->has_boundary || e->seq < pp->boundary)) {
			pp->has_boundary = true;
			pp->boundary = e->seq;
		} else if (e->phase == ST_PHASE_LOADER && pp->known) {
			/* The log is in time order: the first is the lowest seq. */
			if (strcmp(pp->source, "log"))
				pp->interp = NULL;
			if (!pp->interp && e->site)
				pp->interp = e->site->path;
			pp->source = "log";
		}
	}
	for (i = 0; i < r->nprocs; i++) {
		struct ph_proc *pp = &r->procs[i];

		if (pp->known && strcmp(pp->source, "log")) {
			pp->interp = NULL;
			pp->has_boundary = true;
			pp->boundary = 0;
		}
	}
}

/* Pass 2: one (image, site, syscall) row's calls ev[0, n), in seq order. */
static int count_row(struct ph_result *r, struct ph_proc *pp, size_t *cap,
		     const struct st_event **ev, size_t n, bool *addr_first)
{
	struct ph_sys *sys = st_phases_sys(r, cap, ev[0]->abi, ev[0]->nr);
	bool loader_row = ev[0]->phase == ST_PHASE_LOADER;
	size_t i;

	if (!sys)
		return -ENOMEM;
	if (loader_row)
		sys->loader_sites++;
	else
		sys->program_sites++;
	if (*addr_first) {
		if (loader_row)
			pp->loader_sites++;
		else
			pp->program_sites++;
		*addr_first = false;
	}
	for (i = 0; i < n; i++) {
		if (ev[i]->phase == ST_PHASE_LOADER) {
			sys->loader_calls++;
			pp->loader_calls++;
		} else {
			sys->program_calls++;
			pp->program_calls++;
			pp->later_calls += loader_row;
		}
	}
	return 0;
}

static int count(const struct st_dump *d, const struct st_log *log,
		 struct ph_result *r)
{
	const struct st_event **ev = malloc((log->n ? log->n : 1) * sizeof(*ev));
	size_t i, j, n = 0, cap = 0;
	int ret = 0;

	if (!ev)
		return -ENOMEM;
	for (i = 0; i < log->n; i++)
		if (log->ev[i].kind == ST_EV_SYSCALL)
			ev[n++] = &log->ev[i];
	qsort(ev, n, sizeof(*ev), by_row);
	for (i = 0; i < n && !ret; i = j) {
		struct ph_proc *pp = proc_of(d, r, ev[i]->proc_id);
		bool addr_first = !i || ev[i - 1]->proc_id != ev[i]->proc_id ||
				  ev[i - 1]->addr != ev[i]->addr;

		for (j = i; j < n && ev[j]->proc_id == ev[i]->proc_id &&
		     ev[j]->addr == ev[i]->addr && ev[j]->abi == ev[i]->abi &&
		     ev[j]->nr == ev[i]->nr; j++)
			;
		if (!pp)
			continue;
		if (!pp->known) {
			r->unknown_calls += j - i;
			continue;
		}
		ret = count_row(r, pp, &cap, ev + i, j - i, &addr_first);
	}
	free(ev);
	return ret;
}

int st_phases_log(const struct st_dump *d, const struct st_log *log,
		  struct ph_result *r)
{
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->procs = calloc(d->nprocs ? d->nprocs : 1, sizeof(*r->procs));
	if (!r->procs)
		return -ENOMEM;
	r->nprocs = d->nprocs;
	classify(d, log, r);
	ret = count(d, log, r);
	if (ret) {
		st_phases_free(r);
		return ret;
	}
	for (i = 0; i < r->nprocs; i++) {
		const struct ph_proc *pp = &r->procs[i];

		if (!pp->known) {
			r->unknown_procs++;
			continue;
		}
		r->known_procs++;
		r->loader_calls += pp->loader_calls;
		r->program_calls += pp->program_calls;
		r->later_calls += pp->later_calls;
		r->loader_sites += pp->loader_sites;
		r->program_sites += pp->program_sites;
	}
	return 0;
}
