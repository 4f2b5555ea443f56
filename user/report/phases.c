// SPDX-License-Identifier: GPL-2.0
/*
 * report phases: the syscalls a dynamically linked image makes in its ELF
 * interpreter (PT_INTERP, ld.so) before the first syscall from any other
 * object, and the rest.
 *
 * The boundary B of an image is the smallest first_ordinal of its site
 * rows outside the interpreter: B syscalls completed before the first one
 * from elsewhere. No thread exists before the program's code runs, so
 * those B calls are exactly the loader phase, and they all come from the
 * interpreter's rows first hit before B ("loader rows"). Per image the
 * split is thus exact: loader_calls = B, program_calls = the rest. What
 * per-site counts cannot tell is which of a loader row's later calls came
 * after B (ld.so's own syscalls serve dlopen too): their number,
 * later_calls = (calls of the loader rows) - B, is exact, their rows are
 * not. So per syscall, a loader row gives its first call to the loader
 * phase and, when its image has later_calls, its other calls to
 * "undetermined".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Pass 1 and 2: the interpreter of each image (lib/sym/interp.c). */
static int find_interps(const struct st_dump *d, struct ph_result *r)
{
	struct st_image_interp *ii;
	size_t i;
	int ret;

	ii = calloc(d->nprocs ? d->nprocs : 1, sizeof(*ii));
	if (!ii)
		return -ENOMEM;
	ret = st_interps_find(d, r->sz, ii);
	for (i = 0; !ret && i < d->nprocs; i++) {
		struct ph_proc *pp = &r->procs[i];

		pp->proc = ii[i].proc;
		pp->interp = ii[i].interp;
		pp->interp_id = ii[i].id;
		pp->source = ii[i].source;
		pp->error = ii[i].error;
		pp->known = ii[i].known;
	}
	free(ii);
	return ret;
}

static int sys_cmp(const void *a, const void *b)
{
	const struct ph_sys *x = a, *y = b;

	if (x->abi != y->abi)
		return x->abi < y->abi ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

struct ph_sys *st_phases_sys(struct ph_result *r, size_t *cap, uint32_t abi,
			     uint32_t nr)
{
	struct ph_sys key = { .abi = abi, .nr = nr }, *s;
	size_t i;

	s = r->nsys ? bsearch(&key, r->sys, r->nsys, sizeof(*s), sys_cmp) : NULL;
	if (s)
		return s;
	if (r->nsys == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;

		s = realloc(r->sys, ncap * sizeof(*s));
		if (!s)
			return NULL;
		r->sys = s;
		*cap = ncap;
	}
	/* Kept sorted: a few hundred syscalls at most. */
	for (i = r->nsys; i > 0 && sys_cmp(&key, &r->sys[i - 1]) < 0; i--)
		r->sys[i] = r->sys[i - 1];
	r->sys[i] = key;
	r->nsys++;
	return &r->sys[i];
}

static int by_addr(const void *a, const void *b)
{
	const struct st_site_row *x = *(const struct st_site_row *const *)a;
	const struct st_site_row *y = *(const struct st_site_row *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Patch sites (distinct addresses) first hit before B, and the others. */
static int count_sites(const struct st_dump *d, size_t lo, size_t hi,
		       struct ph_proc *pp)
{
	const struct st_site_row **rows;
	size_t i, j;

	if (hi == lo)
		return 0;
	rows = malloc((hi - lo) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = lo; i < hi; i++)
		rows[i - lo] = &d->sites[i];
	st_qsort(rows, hi - lo, sizeof(*rows), by_addr);
	for (i = 0; i < hi - lo; i = j) {
		uint64_t first = rows[i]->first_ordinal;

		for (j = i; j < hi - lo && rows[j]->addr == rows[i]->addr; j++)
			if (rows[j]->first_ordinal < first)
				first = rows[j]->first_ordinal;
		if (!pp->has_boundary || first < pp->boundary)
			pp->loader_sites++;
		else
			pp->program_sites++;
	}
	free(rows);
	return 0;
}

/* Pass 3: the split of one image whose interpreter is known. */
static int split(const struct st_dump *d, struct ph_proc *pp,
		 struct ph_result *r, size_t *syscap)
{
	struct st_image_interp ref = {
		.interp = pp->interp, .id = pp->interp_id,
	};
	uint64_t loader_rows_calls = 0, total = 0;
	size_t i, lo, hi;
	int ret;

	st_dump_proc_sites(d, pp->proc->id, &lo, &hi);
	for (i = lo; i < hi; i++) {
		const struct st_site_row *s = &d->sites[i];

		total += s->calls;
		if (st_interp_holds(&ref, s))
			continue;
		if (!pp->has_boundary || s->first_ordinal < pp->boundary)
			pp->boundary = s->first_ordinal;
		pp->has_boundary = true;
	}
	if (!pp->interp) {
		/* Static, or begun by fork: no loader phase; B = 0. */
		pp->has_boundary = true;
		pp->boundary = 0;
	}
	for (i = lo; i < hi; i++) {
		const struct st_site_row *s = &d->sites[i];

		if (!pp->has_boundary || s->first_ordinal < pp->boundary)
			loader_rows_calls += s->calls;
	}
	pp->loader_calls = loader_rows_calls;
	if (pp->has_boundary && pp->boundary < loader_rows_calls)
		pp->loader_calls = pp->boundary;
	pp->later_calls = loader_rows_calls - pp->loader_calls;
	pp->program_calls = total - pp->loader_calls;

	for (i = lo; i < hi; i++) {
		const struct st_site_row *s = &d->sites[i];
		struct ph_sys *sys = st_phases_sys(r, syscap, s->abi, s->nr);

		if (!sys)
			return -ENOMEM;
		if (pp->has_boundary && s->first_ordinal >= pp->boundary) {
			sys->program_calls += s->calls;
			sys->program_sites++;
			continue;
		}
		sys->loader_sites++;
		if (!pp->later_calls || !s->calls) {
			sys->loader_calls += s->calls;
			continue;
		}
		sys->loader_calls++;
		sys->undetermined += s->calls - 1;
		pp->undetermined += s->calls - 1;
	}
	ret = count_sites(d, lo, hi, pp);
	if (ret)
		return ret;
	r->known_procs++;
	r->loader_calls += pp->loader_calls;
	r->program_calls += pp->program_calls;
	r->later_calls += pp->later_calls;
	r->undetermined += pp->undetermined;
	r->loader_sites += pp->loader_sites;
	r->program_sites += pp->program_sites;
	return 0;
}

int st_phases(const struct st_dump *d, struct ph_result *r)
{
	size_t i, syscap = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	r->sz = st_symbolizer_new();
	r->procs = calloc(d->nprocs ? d->nprocs : 1, sizeof(*r->procs));
	if (!r->sz || !r->procs) {
		st_phases_free(r);
		return -ENOMEM;
	}
	r->nprocs = d->nprocs;
	ret = find_interps(d, r);
	if (ret)
		goto fail;
	for (i = 0; i < r->nprocs; i++) {
		struct ph_proc *pp = &r->procs[i];

		if (!pp->known) {
			r->unknown_procs++;
			r->unknown_calls += pp->proc->syscalls;
			continue;
		}
		ret = split(d, pp, r, &syscap);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	st_phases_free(r);
	return ret;
}

void st_phases_free(struct ph_result *r)
{
	free(r->procs);
	free(r->sys);
	st_symbolizer_free(r->sz);
	memset(r, 0, sizeof(*r));
}

static const char *const totals_cols[] = {
	"processes", "dynamic", "static", "forked", "unknown", "loader_calls",
	"loader_calls_fraction", "program_calls", "later_calls",
	"loader_sites", "program_sites", "unknown_calls",
};

static const char *const sys_cols[] = {
	"abi", "nr", "syscall", "loader_calls", "undetermined_calls",
	"program_calls", "loader_sites", "program_sites",
};

static const char *const proc_cols[] = {
	"proc_id", "pid", "comm", "boundary", "loader_calls", "loader_sites",
	"program_calls", "program_sites", "later_calls", "interp_source",
	"interp", "exe", "error",
};

static const char *const sys_keep[] = {
	"syscall", "loader_calls", "program_calls", "undetermined_calls",
	"loader_sites", "program_sites", "abi", "nr", NULL,
};

static const char *const proc_keep[] = {
	"comm", "pid", "loader_calls", "program_calls", "interp", "boundary",
	"loader_sites", "program_sites", "later_calls", "interp_source", "error",
	"exe", "proc_id", NULL,
};

static struct rt_table *totals_table(const struct ph_result *p)
{
	uint64_t dyn = 0, stat = 0, forked = 0;
	struct st_cell *c;
	struct rt_table *t = rt_totals(totals_cols, ARRAY_SIZE(totals_cols), &c);
	size_t i;

	if (!t)
		return NULL;
	for (i = 0; i < p->nprocs; i++) {
		if (!p->procs[i].known)
			continue;
		if (p->procs[i].interp)
			dyn++;
		else if (!strcmp(p->procs[i].source, "fork"))
			forked++;
		else
			stat++;
	}
	rt_u64(&c[0], p->nprocs);
	rt_u64(&c[1], dyn);
	rt_u64(&c[2], stat);
	rt_u64(&c[3], forked);
	rt_u64(&c[4], p->unknown_procs);
	rt_u64(&c[5], p->loader_calls);
	rt_frac(&c[6], p->loader_calls, p->loader_calls + p->program_calls);
	rt_u64(&c[7], p->program_calls);
	rt_u64(&c[8], p->later_calls);
	rt_u64(&c[9], p->loader_sites);
	rt_u64(&c[10], p->program_sites);
	rt_u64(&c[11], p->unknown_calls);
	return t;
}

static int by_loader_calls(const void *a, const void *b)
{
	const struct ph_sys *x = a, *y = b;

	if (x->loader_calls != y->loader_calls)
		return x->loader_calls > y->loader_calls ? -1 : 1;
	if (x->program_calls != y->program_calls)
		return x->program_calls > y->program_calls ? -1 : 1;
	return sys_cmp(a, b);
}

static struct rt_table *sys_table(struct ph_result *p)
{
	struct rt_table *t = rt_table_new("syscalls",
					  "per syscall: loader phase, undetermined, program phase",
					  sys_cols, ARRAY_SIZE(sys_cols));
	size_t i;

	if (!t || rt_table_keep(t, sys_keep)) {
		rt_table_free(t);
		return NULL;
	}
	t->ranked = true;
	st_qsort(p->sys, p->nsys, sizeof(*p->sys), by_loader_calls);
	for (i = 0; i < p->nsys; i++) {
		const struct ph_sys *s = &p->sys[i];
		struct st_cell *c = rt_row(t);

		if (!c || rt_syscall(c, s->abi, s->nr)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[3], s->loader_calls);
		rt_u64(&c[4], s->undetermined);
		rt_u64(&c[5], s->program_calls);
		rt_u64(&c[6], s->loader_sites);
		rt_u64(&c[7], s->program_sites);
	}
	st_qsort(p->sys, p->nsys, sizeof(*p->sys), sys_cmp);
	return t;
}

static struct rt_table *procs_table(const struct ph_result *p)
{
	struct rt_table *t = rt_table_new("processes", "per process", proc_cols,
					  ARRAY_SIZE(proc_cols));
	size_t i;

	if (!t || rt_table_keep(t, proc_keep)) {
		rt_table_free(t);
		return NULL;
	}
	t->ranked = true;
	t->detail = true;
	for (i = 0; i < p->nprocs; i++) {
		const struct ph_proc *pp = &p->procs[i];
		struct st_cell *c = rt_row(t);

		if (!c || rt_str(&c[2], pp->proc->comm) ||
		    rt_str(&c[9], pp->source) || rt_str(&c[10], pp->interp) ||
		    rt_str(&c[11], pp->proc->exe) || rt_str(&c[12], pp->error)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], pp->proc->id);
		rt_u64(&c[1], pp->proc->pid);
		if (!pp->known)
			continue;
		if (pp->has_boundary)
			rt_u64(&c[3], pp->boundary);
		rt_u64(&c[4], pp->loader_calls);
		rt_u64(&c[5], pp->loader_sites);
		rt_u64(&c[6], pp->program_calls);
		rt_u64(&c[7], pp->program_sites);
		rt_u64(&c[8], pp->later_calls);
	}
	return t;
}

int report_phases(struct rt_report *r, struct st_dump *d,
		  const struct report_opts *o)
{
	struct ph_result p;
	int ret;

	ret = o->log ? st_phases_log(d, o->log, &p) : st_phases(d, &p);
	if (ret)
		return ret;
	r->params = json_object();
	r->csv_table = "processes";
	ret = rt_note(r, "loader phase: syscalls from the ELF interpreter (PT_INTERP) "
		      "before the first syscall from any other object; later_calls: "
		      "calls of loader-phase sites made after it (counted in program_calls)");
	if (!ret && o->log)
		ret = rt_note(r, "from the log: each call's phase is known, no call is undetermined");
	if (!ret)
		ret = rt_add(r, totals_table(&p));
	if (!ret)
		ret = rt_add(r, sys_table(&p));
	if (!ret)
		ret = rt_add(r, procs_table(&p));
	st_phases_free(&p);
	return ret;
}
