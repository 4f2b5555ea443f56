// SPDX-License-Identifier: GPL-2.0
/*
 * The phase of each syscall of a log, from the rows alone (see log.h):
 * per image, the loader phase lasts until the first_ordinal of its first
 * site row (rows in first-use order) that lies outside its ELF
 * interpreter. A site row's first_ordinal is the seq of its first call,
 * so a call is in the loader phase exactly when no call from outside the
 * interpreter came before it in its image: what walking the image's calls
 * in seq order would find, without holding them. A call whose site row was
 * dropped cannot end the phase (where it came from is unknown) and takes
 * the phase of its position. An image without a loader phase (begun by
 * fork, or static) is all program; one whose interpreter is unknown gets
 * ST_PHASE_NONE.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "sym/interp.h"
#include "log/log.h"
#include "log/recorder.h"

static int bound_image(st_rows_of_fn rows_of, void *ctx,
		       const struct st_image_interp *ii, const char *early_object,
		       struct st_bound *b)
{
	const struct st_site_row *rows;
	bool loader = true;
	size_t i, n;

	memset(b, 0, sizeof(*b));
	if (!ii->known)
		return 0;
	b->mode = ii->interp ? ST_BOUND_PHASED : ST_BOUND_PROGRAM;
	if (!ii->interp)
		return 0;
	b->loader_end = b->early_end = UINT64_MAX;
	rows = rows_of(ctx, ii->proc, &n);
	if (!rows && n)
		return -ENOMEM;
	/* Sorted rows: an image's come in the order of their first calls. */
	for (i = 0; i < n; i++) {
		const struct st_site_row *s = &rows[i];

		if (st_interp_holds(ii, s))
			continue;
		if (loader) {
			b->loader_end = s->first_ordinal;
			loader = false;
		}
		if (!early_object || !st_site_in_object(s, early_object)) {
			b->early_end = s->first_ordinal;
			break;
		}
	}
	return 0;
}

int st_log_bounds_by(const struct st_dump *d, st_rows_of_fn rows_of, void *ctx,
		     const char *early_object, struct st_bound *out)
{
	struct st_image_interp *ii = calloc(d->nprocs ? d->nprocs : 1, sizeof(*ii));
	struct st_symbolizer *sz = st_symbolizer_new();
	char *real = early_object ? realpath(early_object, NULL) : NULL;
	size_t i;
	int ret = -ENOMEM;

	if (!ii || !sz)
		goto out;
	ret = st_interps_find_by(d, rows_of, ctx, sz, ii);
	for (i = 0; !ret && i < d->nprocs; i++)
		ret = bound_image(rows_of, ctx, &ii[i], real ? real : early_object, &out[i]);
out:
	free(real);
	free(ii);
	st_symbolizer_free(sz);
	return ret;
}

int st_log_bounds(const struct st_dump *d, const char *early_object,
		  struct st_bound *out)
{
	return st_log_bounds_by(d, st_dump_rows_of, (void *)d, early_object, out);
}

void st_log_phase_set(struct st_event *ev, const struct st_bound *b)
{
	ev->phase = ST_PHASE_NONE;
	ev->early = false;
	if (ev->kind != ST_EV_SYSCALL || !b || b->mode == ST_BOUND_UNKNOWN)
		return;
	if (b->mode == ST_BOUND_PROGRAM) {
		ev->phase = ST_PHASE_PROGRAM;
		return;
	}
	ev->phase = ev->seq < b->loader_end ? ST_PHASE_LOADER : ST_PHASE_PROGRAM;
	ev->early = ev->seq < b->early_end;
}

int st_log_set_phases(struct st_log *log, const struct st_dump *d,
		      const char *early_object)
{
	struct st_bound *b = calloc(d->nprocs ? d->nprocs : 1, sizeof(*b));
	size_t i;
	int ret = -ENOMEM;

	if (!b)
		return ret;
	ret = st_log_bounds(d, early_object, b);
	for (i = 0; !ret && i < log->n; i++) {
		const struct st_proc_row *p = st_dump_find_proc(d, log->ev[i].proc_id);

		st_log_phase_set(&log->ev[i], p ? &b[p - d->procs] : NULL);
	}
	free(b);
	return ret;
}
