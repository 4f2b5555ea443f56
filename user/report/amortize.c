// SPDX-License-Identifier: GPL-2.0
/*
 * report amortize: a patched syscall site pays off only when its process
 * calls it often enough afterwards. A site is one syscall instruction in
 * one process image (its site rows, one per syscall number, summed); it is
 * non-amortized when it made fewer than N calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* 0 for no call, k + 1 for [2^k, 2^(k+1)). */
static size_t bucket_of(uint64_t calls)
{
	return calls ? (size_t)(64 - __builtin_clzll(calls)) : 0;
}

int st_amortize(const struct st_dump *d, uint64_t threshold,
		struct am_result *r)
{
	struct st_psite *ps;
	size_t i, k, nps;
	uint64_t *below_at;	/* per process: sites below each threshold */
	int ret;

	memset(r, 0, sizeof(*r));
	r->threshold = threshold;
	ret = st_patch_sites(d, &ps, &nps);
	if (ret)
		return ret;
	r->procs = calloc(d->nprocs ? d->nprocs : 1, sizeof(*r->procs));
	below_at = calloc((d->nprocs ? d->nprocs : 1) * AM_NTHRESHOLDS,
			  sizeof(*below_at));
	if (!r->procs || !below_at) {
		free(ps);
		free(below_at);
		st_amortize_free(r);
		return -ENOMEM;
	}
	r->nprocs = d->nprocs;
	for (i = 0; i < d->nprocs; i++)
		r->procs[i].proc = &d->procs[i];
	/* Bucket k > 0 is [2^(k-1), 2^k - 1]; the last one ends at UINT64_MAX. */
	for (k = 1; k < AM_NBUCKETS; k++) {
		r->buckets[k].min_calls = 1ULL << (k - 1);
		r->buckets[k].max_calls = k + 1 < AM_NBUCKETS ? (1ULL << k) - 1 :
					  UINT64_MAX;
	}
	for (k = 0; k < AM_NTHRESHOLDS; k++)
		r->thresholds[k].threshold = 1ULL << k;

	for (i = 0; i < nps; i++) {
		const struct st_proc_row *p = st_dump_find_proc(d, ps[i].proc_id);
		struct am_bucket *b = &r->buckets[bucket_of(ps[i].calls)];
		struct am_proc *ap = p ? &r->procs[p - d->procs] : NULL;
		bool below = ps[i].calls < threshold;

		r->sites++;
		r->calls += ps[i].calls;
		b->sites++;
		b->calls += ps[i].calls;
		if (below) {
			r->sites_below++;
			r->calls_below += ps[i].calls;
		}
		for (k = 0; k < AM_NTHRESHOLDS; k++) {
			struct am_threshold *t = &r->thresholds[k];

			if (ps[i].calls >= t->threshold)
				continue;
			t->sites_below++;
			t->calls_below += ps[i].calls;
			if (ap && !below_at[(ap - r->procs) * AM_NTHRESHOLDS + k]++)
				t->processes++;
		}
		if (!ap)
			continue;
		ap->sites++;
		ap->calls += ps[i].calls;
		if (below) {
			if (!ap->sites_below)
				r->procs_below++;
			ap->sites_below++;
			ap->calls_below += ps[i].calls;
		}
	}
	free(ps);
	free(below_at);
	return 0;
}

void st_amortize_free(struct am_result *r)
{
	free(r->procs);
	r->procs = NULL;
}

static const char *const totals_cols[] = {
	"threshold", "processes", "sites", "syscalls", "sites_below",
	"sites_below_fraction", "calls_below", "calls_below_fraction",
	"processes_with_sites_below",
};

static const char *const hist_cols[] = {
	"min_calls", "max_calls", "sites", "sites_fraction", "calls",
	"calls_fraction", "cumulative_sites_fraction",
};

static const char *const thr_cols[] = {
	"threshold", "sites_below", "sites_fraction", "calls_below",
	"calls_fraction", "processes",
};

static const char *const proc_cols[] = {
	"proc_id", "pid", "comm", "wall_ns", "sites", "sites_below", "syscalls",
	"calls_below", "calls_below_fraction",
};

static const char *const hist_keep[] = {
	"min_calls", "max_calls", "sites", "calls", "sites_fraction",
	"cumulative_sites_fraction", "calls_fraction", NULL,
};

static const char *const proc_keep[] = {
	"comm", "sites_below", "calls_below", "pid", "sites", "syscalls",
	"wall_ns", "calls_below_fraction", "proc_id", NULL,
};

static struct rt_table *totals_table(const struct am_result *a,
				     const struct st_dump *d)
{
	struct st_cell *c;
	struct rt_table *t = rt_totals(totals_cols, ARRAY_SIZE(totals_cols), &c);

	if (!t)
		return NULL;
	rt_u64(&c[0], a->threshold);
	rt_u64(&c[1], d->nprocs);
	rt_u64(&c[2], a->sites);
	rt_u64(&c[3], a->calls);
	rt_u64(&c[4], a->sites_below);
	rt_frac(&c[5], a->sites_below, a->sites);
	rt_u64(&c[6], a->calls_below);
	rt_frac(&c[7], a->calls_below, a->calls);
	rt_u64(&c[8], a->procs_below);
	return t;
}

/* Buckets 1 .. the highest used one; the 0-call bucket only when used. */
static struct rt_table *histogram_table(const struct am_result *a)
{
	struct rt_table *t = rt_table_new("histogram",
					  "calls per site, log2 buckets (all processes)",
					  hist_cols, ARRAY_SIZE(hist_cols));
	size_t k, last = 1;
	uint64_t cum = 0;

	if (!t || rt_table_keep(t, hist_keep)) {
		rt_table_free(t);
		return NULL;
	}
	for (k = 1; k < AM_NBUCKETS; k++)
		if (a->buckets[k].sites)
			last = k;
	for (k = a->buckets[0].sites ? 0 : 1; k <= last; k++) {
		const struct am_bucket *b = &a->buckets[k];
		struct st_cell *c = rt_row(t);

		if (!c) {
			rt_table_free(t);
			return NULL;
		}
		cum += b->sites;
		rt_u64(&c[0], b->min_calls);
		rt_u64(&c[1], b->max_calls);
		rt_u64(&c[2], b->sites);
		rt_frac(&c[3], b->sites, a->sites);
		rt_u64(&c[4], b->calls);
		rt_frac(&c[5], b->calls, a->calls);
		rt_frac(&c[6], cum, a->sites);
	}
	return t;
}

static struct rt_table *thresholds_table(const struct am_result *a)
{
	struct rt_table *t = rt_table_new("thresholds",
					  "non-amortized sites (fewer than N calls) by threshold N",
					  thr_cols, ARRAY_SIZE(thr_cols));
	size_t k;

	if (!t)
		return NULL;
	for (k = 0; k < AM_NTHRESHOLDS; k++) {
		const struct am_threshold *th = &a->thresholds[k];
		struct st_cell *c = rt_row(t);

		if (!c) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], th->threshold);
		rt_u64(&c[1], th->sites_below);
		rt_frac(&c[2], th->sites_below, a->sites);
		rt_u64(&c[3], th->calls_below);
		rt_frac(&c[4], th->calls_below, a->calls);
		rt_u64(&c[5], th->processes);
	}
	return t;
}

static struct rt_table *procs_table(const struct am_result *a)
{
	struct rt_table *t = rt_table_new("processes",
					  "per process (sites_below: fewer than threshold calls)",
					  proc_cols, ARRAY_SIZE(proc_cols));
	size_t i;

	if (!t || rt_table_keep(t, proc_keep)) {
		rt_table_free(t);
		return NULL;
	}
	t->ranked = true;
	t->detail = true;
	for (i = 0; i < a->nprocs; i++) {
		const struct am_proc *ap = &a->procs[i];
		struct st_cell *c = rt_row(t);
		uint64_t wall;

		if (!c || rt_str(&c[2], ap->proc->comm)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], ap->proc->id);
		rt_u64(&c[1], ap->proc->pid);
		if (st_proc_wall_ns(ap->proc, &wall))
			rt_u64(&c[3], wall);
		rt_u64(&c[4], ap->sites);
		rt_u64(&c[5], ap->sites_below);
		rt_u64(&c[6], ap->calls);
		rt_u64(&c[7], ap->calls_below);
		rt_frac(&c[8], ap->calls_below, ap->calls);
	}
	return t;
}

int report_amortize(struct rt_report *r, struct st_dump *d,
		    const struct report_opts *o)
{
	struct am_result a;
	int ret;

	ret = st_amortize(d, o->threshold, &a);
	if (ret)
		return ret;
	r->params = json_pack("{sI}", "threshold", (json_int_t)o->threshold);
	r->csv_table = "processes";
	ret = rt_note(r, "a site is one syscall instruction in one process image; "
		      "it is non-amortized when it made fewer than %llu calls (--threshold)",
		      (unsigned long long)o->threshold);
	if (!ret)
		ret = rt_add(r, totals_table(&a, d));
	if (!ret)
		ret = rt_add(r, histogram_table(&a));
	if (!ret)
		ret = rt_add(r, thresholds_table(&a));
	if (!ret)
		ret = rt_add(r, procs_table(&a));
	st_amortize_free(&a);
	return ret;
}
