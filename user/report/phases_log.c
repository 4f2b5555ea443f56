// SPDX-License-Identifier: GPL-2.0
/*
 * report phases from a log: each syscall carries its phase (log_phases.c),
 * so the split is exact per call and per site, with nothing undetermined.
 * It reads the sums st_log_load() kept of the events (per image, per
 * (image, addr, abi, nr)), never the events themselves.
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
#include "libsystrace.h"

static struct ph_proc *proc_of(const struct st_dump *d, struct ph_result *r,
			       uint64_t id)
{
	const struct st_proc_row *p = st_dump_find_proc(d, id);

	return p ? &r->procs[p - d->procs] : NULL;
}

/* Pass 1: what each image is, from its calls' phases. */
static void classify(const struct st_dump *d, const struct st_log_sums *log,
		     struct ph_result *r)
{
	size_t i;

	for (i = 0; i < d->nprocs; i++) {
		const struct st_log_image *im = &log->images[i];
		struct ph_proc *pp = &r->procs[i];

		pp->proc = &d->procs[i];
		pp->known = !im->unknown;
		if (im->unknown) {
			pp->source = "unknown";
			pp->error = "the log gives its calls no phase";
			continue;
		}
		if (im->has_loader) {
			pp->source = "log";
			pp->interp = im->interp;
			pp->has_boundary = im->has_program;
			pp->boundary = im->boundary;
			continue;
		}
		pp->source = pp->proc->parent_id && !pp->proc->prev_id ? "fork" : "static";
		pp->has_boundary = true;
		pp->boundary = 0;
	}
}

/* Pass 2: the calls of each (image, site, syscall), in key order. */
static int count(const struct st_dump *d, const struct st_log_sums *log,
		 struct ph_result *r)
{
	size_t i, cap = 0;

	for (i = 0; i < log->ngroups; i++) {
		const struct st_log_group *g = &log->groups[i];
		struct ph_proc *pp = proc_of(d, r, g->proc_id);
		bool addr_first = !i || log->groups[i - 1].proc_id != g->proc_id ||
				  log->groups[i - 1].addr != g->addr;
		bool loader_row = g->first_phase == ST_PHASE_LOADER;
		uint64_t n = g->loader_calls + g->program_calls + g->none_calls;
		struct ph_sys *sys;

		if (!pp)
			continue;
		if (!pp->known) {
			r->unknown_calls += n;
			continue;
		}
		sys = st_phases_sys(r, &cap, g->abi, g->nr);
		if (!sys)
			return -ENOMEM;
		if (loader_row)
			sys->loader_sites++;
		else
			sys->program_sites++;
		if (addr_first) {
			if (loader_row)
				pp->loader_sites++;
			else
				pp->program_sites++;
		}
		sys->loader_calls += g->loader_calls;
		pp->loader_calls += g->loader_calls;
		sys->program_calls += n - g->loader_calls;
		pp->program_calls += n - g->loader_calls;
		if (loader_row)
			pp->later_calls += n - g->loader_calls;
	}
	return 0;
}

int st_phases_log(const struct st_dump *d, const struct st_log_sums *log,
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
