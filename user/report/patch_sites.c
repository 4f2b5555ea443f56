// SPDX-License-Identifier: GPL-2.0
/* What the reports share: patch sites, wall time. */
#include <errno.h>
#include <stdlib.h>
#include "report.h"

bool st_proc_wall_ns(const struct st_proc_row *p, uint64_t *wall)
{
	if (!p->has_end_ns || p->end_ns < p->start_ns)
		return false;
	*wall = p->end_ns - p->start_ns;
	return true;
}

static int by_proc_addr(const void *a, const void *b)
{
	const struct st_site_row *x = *(const struct st_site_row *const *)a;
	const struct st_site_row *y = *(const struct st_site_row *const *)b;

	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* st_dump_sort's order: the first-used row first. */
	return x < y ? -1 : x > y;
}

int st_patch_sites(const struct st_dump *d, struct st_psite **out, size_t *n)
{
	const struct st_site_row **rows;
	struct st_psite *ps, *cur = NULL;
	size_t i, np = 0;

	*out = NULL;
	*n = 0;
	if (!d->nsites)
		return 0;
	rows = calloc(d->nsites, sizeof(*rows));
	ps = calloc(d->nsites, sizeof(*ps));
	if (!rows || !ps) {
		free(rows);
		free(ps);
		return -ENOMEM;
	}
	for (i = 0; i < d->nsites; i++)
		rows[i] = &d->sites[i];
	st_qsort(rows, d->nsites, sizeof(*rows), by_proc_addr);
	for (i = 0; i < d->nsites; i++) {
		const struct st_site_row *s = rows[i];

		if (!cur || cur->proc_id != s->proc_id || cur->addr != s->addr) {
			cur = &ps[np++];
			cur->proc_id = s->proc_id;
			cur->addr = s->addr;
			cur->first_ordinal = s->first_ordinal;
			cur->row = s;
		}
		cur->calls += s->calls;
		cur->errors += s->errors;
		cur->nrows++;
		if (s->first_ordinal < cur->first_ordinal)
			cur->first_ordinal = s->first_ordinal;
	}
	free(rows);
	*out = ps;
	*n = np;
	return 0;
}
