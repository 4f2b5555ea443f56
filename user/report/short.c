// SPDX-License-Identifier: GPL-2.0
/*
 * report short: in processes that lived less than a bound, which functions
 * hold the sites that fail to amortize a patch, and which K functions one
 * would hook instead to remove the most of them.
 *
 * The elements are the non-amortized (process image, site) pairs of the
 * short-lived images; a function covers the pairs whose site lies in it.
 * A site lies in exactly one function, so the sets are disjoint and the
 * greedy set cover (take the function that removes the most pairs not yet
 * removed, repeat) is the ranking by pairs: its marginal gains never
 * change, and it is optimal. Ties: more calls, more processes, then by
 * name. Pairs whose site is not resolved to a function (vdso, anon, a
 * file that changed) cannot be hooked: they stay in the denominator.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/hidx.h"
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DEFAULT_TOP 10
#define UNRESOLVED SIZE_MAX

struct pair {
	const struct st_psite *ps;
	const char *symbol, *object, *reason;
	uint64_t start;
	size_t func;			/* index in funcs, or UNRESOLVED */
};

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

/* Same function: same object, same start; then by process. */
static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c = strcmp_null(x->object, y->object);

	if (c)
		return c;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	c = strcmp_null(x->symbol, y->symbol);
	if (c)
		return c;
	if (x->ps->proc_id != y->ps->proc_id)
		return x->ps->proc_id < y->ps->proc_id ? -1 : 1;
	return x->ps->addr < y->ps->addr ? -1 : x->ps->addr > y->ps->addr;
}

static bool same_func(const struct pair *x, const struct pair *y)
{
	return !strcmp_null(x->object, y->object) && x->start == y->start &&
	       !strcmp_null(x->symbol, y->symbol);
}

static int func_rank_cmp(const void *a, const void *b)
{
	const struct sh_func *x = a, *y = b;
	int c;

	if (x->pairs != y->pairs)
		return x->pairs > y->pairs ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->procs != y->procs)
		return x->procs > y->procs ? -1 : 1;
	c = strcmp(x->symbol, y->symbol);
	if (c)
		return c;
	c = strcmp(x->object, y->object);
	if (c)
		return c;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void pair_function(struct pair *p)
{
	const struct st_site_row *row = p->ps->row;
	const struct st_sym *sym = row->sym;

	if (row->map != SYSTRACE_MAP_FILE) {
		p->reason = st_map_name(row->map);
		return;
	}
	p->object = sym ? sym->object : row->path;
	if (!sym || !sym->symbol || !sym->object || !sym->has_symbol_offset ||
	    sym->symbol_offset > row->offset) {
		p->reason = sym && sym->error ? sym->error : "not symbolized";
		return;
	}
	p->symbol = sym->symbol;
	p->start = row->offset - sym->symbol_offset;
}

static bool is_short(const struct st_dump *d, uint64_t proc_id,
		     uint64_t max_ns)
{
	const struct st_proc_row *p = st_dump_find_proc(d, proc_id);
	uint64_t wall;

	return p && st_proc_wall_ns(p, &wall) && wall < max_ns;
}

/* The short images' non-amortized patch sites, each with its function. */
static int collect_pairs(const struct st_dump *d, const struct st_psite *ps,
			 size_t nps, struct sh_result *r, struct pair **out,
			 size_t *n)
{
	struct pair *pairs = calloc(nps ? nps : 1, sizeof(*pairs));
	uint64_t last_proc = 0;
	bool last_short = false, counted = false;
	size_t i, np = 0;

	if (!pairs)
		return -ENOMEM;
	for (i = 0; i < d->nprocs; i++)
		if (is_short(d, d->procs[i].id, r->max_ns))
			r->short_procs++;
	for (i = 0; i < nps; i++) {
		if (!i || ps[i].proc_id != last_proc) {
			last_proc = ps[i].proc_id;
			last_short = is_short(d, last_proc, r->max_ns);
			counted = false;
		}
		if (!last_short || ps[i].calls >= r->threshold)
			continue;
		if (!counted)
			r->procs_with_pairs++;
		counted = true;
		pairs[np].ps = &ps[i];
		pair_function(&pairs[np]);
		r->pairs++;
		r->calls += ps[i].calls;
		if (!pairs[np].symbol) {
			r->unresolved_pairs++;
			r->unresolved_calls += ps[i].calls;
		}
		np++;
	}
	st_qsort(pairs, np, sizeof(*pairs), pair_cmp);
	for (i = 0; i < np; i++)
		pairs[i].func = UNRESOLVED;
	*out = pairs;
	*n = np;
	return 0;
}

static int rank_cmp(const void *a, const void *b, void *funcs)
{
	const struct sh_func *f = funcs;

	return func_rank_cmp(&f[*(const size_t *)a], &f[*(const size_t *)b]);
}

/* One function per group of pairs, ranked; each pair gets its rank. */
static int make_funcs(struct pair *pairs, size_t np, struct sh_result *r)
{
	struct sh_func *funcs = calloc(np ? np : 1, sizeof(*funcs));
	size_t *order = calloc(np ? np : 1, sizeof(*order));
	size_t *rank = calloc(np ? np : 1, sizeof(*rank));
	size_t i, j, k, n = 0;

	if (!funcs || !order || !rank) {
		free(funcs);
		free(order);
		free(rank);
		return -ENOMEM;
	}
	for (i = 0; i < np; i = j) {
		struct sh_func *f = &funcs[n];

		for (j = i + 1; j < np && same_func(&pairs[i], &pairs[j]); j++)
			;
		if (!pairs[i].symbol)
			continue;
		f->symbol = pairs[i].symbol;
		f->object = pairs[i].object;
		f->start = pairs[i].start;
		for (k = i; k < j; k++) {
			f->pairs++;
			f->calls += pairs[k].ps->calls;
			if (k == i || pairs[k].ps->proc_id != pairs[k - 1].ps->proc_id)
				f->procs++;
			pairs[k].func = n;
		}
		order[n] = n;
		n++;
	}
	qsort_r(order, n, sizeof(*order), rank_cmp, funcs);
	r->funcs = calloc(n ? n : 1, sizeof(*r->funcs));
	if (r->funcs) {
		for (i = 0; i < n; i++) {
			r->funcs[i] = funcs[order[i]];
			rank[order[i]] = i;
		}
		r->nfuncs = n;
		for (i = 0; i < np; i++)
			if (pairs[i].func != UNRESOLVED)
				pairs[i].func = rank[pairs[i].func];
	}
	free(funcs);
	free(order);
	free(rank);
	return r->funcs ? 0 : -ENOMEM;
}

struct sysc {
	size_t func;
	uint32_t abi, nr;
	uint64_t calls;
};

static int sysc_cmp(const void *a, const void *b)
{
	const struct sysc *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->abi != y->abi)
		return x->abi < y->abi ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static int sysc_calls_cmp(const void *a, const void *b)
{
	const struct sysc *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return sysc_cmp(a, b);
}

static int psite_cmp(const void *a, const void *b)
{
	const struct st_psite *x = a, *y = b;

	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static uint64_t sysc_hash(const struct sysc *s)
{
	return st_hash3(s->func, s->abi, s->nr);
}

static bool sysc_eq(const void *ctx, uint32_t pos, const void *key)
{
	return !sysc_cmp(&((const struct sysc *)ctx)[pos], key);
}

static uint64_t sysc_rehash(const void *ctx, uint32_t pos)
{
	return sysc_hash(&((const struct sysc *)ctx)[pos]);
}

/*
 * The (func, abi, nr) sums, each once: a row per site would be 58 MB at a
 * glibc build's 2 million sites, the sums are a few thousand.
 */
struct sysc_sums {
	struct sysc *v;
	size_t n, cap;
	struct st_hidx idx;
};

static int sysc_add(struct sysc_sums *s, const struct sysc *c)
{
	uint64_t h = sysc_hash(c);
	int64_t i = st_hidx_find(&s->idx, h, sysc_eq, s->v, c);

	if (i >= 0) {
		s->v[i].calls += c->calls;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct sysc *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = *c;
	if (st_hidx_add(&s->idx, h, (uint32_t)s->n, sysc_rehash, s->v))
		return -ENOMEM;
	s->n++;
	return 0;
}

/* "openat:12 read:3": the syscalls of a function's pairs, most calls first. */
static int syscall_lists(const struct st_dump *d, const struct st_psite *ps,
			 size_t nps, const struct pair *pairs, size_t np,
			 struct sh_result *r)
{
	size_t *func_of = malloc((nps ? nps : 1) * sizeof(*func_of));
	struct sysc_sums sums = { 0 };
	struct sysc *sc;
	size_t i, j, k, nsc;
	int ret = -ENOMEM;

	if (!func_of)
		goto out;
	for (i = 0; i < nps; i++)
		func_of[i] = UNRESOLVED;
	for (i = 0; i < np; i++)
		func_of[pairs[i].ps - ps] = pairs[i].func;
	for (i = 0; i < d->nsites; i++) {
		struct st_psite key = { .proc_id = d->sites[i].proc_id,
					.addr = d->sites[i].addr };
		const struct st_psite *p = bsearch(&key, ps, nps, sizeof(*ps), psite_cmp);

		if (!p || func_of[p - ps] == UNRESOLVED)
			continue;
		if (sysc_add(&sums, &(struct sysc){ func_of[p - ps], d->sites[i].abi,
						     d->sites[i].nr, d->sites[i].calls }))
			goto out;
	}
	sc = sums.v;
	nsc = sums.n;
	st_qsort(sc, nsc, sizeof(*sc), sysc_cmp);
	for (i = 0; i < nsc; i = j) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		for (j = i + 1; j < nsc && sc[j].func == sc[i].func; j++)
			;
		st_qsort(&sc[i], j - i, sizeof(*sc), sysc_calls_cmp);
		f = open_memstream(&buf, &len);
		if (!f)
			goto out;
		for (k = i; k < j; k++) {
			const char *name = st_syscall_name(sc[k].abi, sc[k].nr);

			if (name)
				fprintf(f, "%s%s:%" PRIu64, k > i ? " " : "", name, sc[k].calls);
			else
				fprintf(f, "%s%" PRIu32 ":%" PRIu64, k > i ? " " : "",
					sc[k].nr, sc[k].calls);
		}
		if (fclose(f)) {
			free(buf);
			goto out;
		}
		r->funcs[sc[i].func].syscalls = buf;
	}
	ret = 0;
out:
	free(func_of);
	free(sums.v);
	st_hidx_free(&sums.idx);
	return ret;
}

struct need {
	uint64_t proc;
	size_t func;
};

static int need_cmp(const void *a, const void *b)
{
	const struct need *x = a, *y = b;

	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/*
 * The steps of the cover, and after each how many images have no pair
 * left: an image is clean after step k when every one of its pairs lies
 * in one of the first k functions.
 */
static int cover(const struct pair *pairs, size_t np, size_t top,
		 struct sh_result *r)
{
	struct need *need = calloc(np ? np : 1, sizeof(*need));
	uint64_t *clean_at;	/* images whose last needed step is k */
	uint64_t cum = 0, clean = 0;
	size_t i, j, k;

	r->nsteps = top < r->nfuncs ? top : r->nfuncs;
	r->steps = calloc(r->nsteps ? r->nsteps : 1, sizeof(*r->steps));
	clean_at = calloc(r->nsteps + 1, sizeof(*clean_at));
	if (!need || !r->steps || !clean_at) {
		free(need);
		free(clean_at);
		return -ENOMEM;
	}
	for (i = 0; i < np; i++)
		need[i] = (struct need){ pairs[i].ps->proc_id, pairs[i].func };
	st_qsort(need, np, sizeof(*need), need_cmp);
	for (i = 0; i < np; i = j) {
		size_t last = 0;

		for (j = i; j < np && need[j].proc == need[i].proc; j++)
			if (need[j].func == UNRESOLVED || need[j].func + 1 > last)
				last = need[j].func == UNRESOLVED ? SIZE_MAX :
				       need[j].func + 1;
		if (last <= r->nsteps)
			clean_at[last]++;
	}
	for (k = 0; k < r->nsteps; k++) {
		cum += r->funcs[k].pairs;
		clean += clean_at[k + 1];
		r->steps[k] = (struct sh_step){
			.func = &r->funcs[k], .removed = r->funcs[k].pairs,
			.cumulative = cum, .procs_clean = clean,
		};
	}
	free(need);
	free(clean_at);
	return 0;
}

static int unres_cmp(const void *a, const void *b)
{
	const struct sh_unres *x = a, *y = b;
	int c;

	if (x->sites != y->sites)
		return x->sites > y->sites ? -1 : 1;
	c = strcmp_null(x->reason, y->reason);
	return c ? c : strcmp_null(x->object, y->object);
}

/* Why pairs have no function: a few reasons, grouped by (reason, object). */
static int group_unresolved(const struct pair *pairs, size_t np,
			    struct sh_result *r)
{
	size_t i, k;

	r->unres = calloc(r->unresolved_pairs ? r->unresolved_pairs : 1,
			  sizeof(*r->unres));
	if (!r->unres)
		return -ENOMEM;
	for (i = 0; i < np; i++) {
		if (pairs[i].symbol)
			continue;
		for (k = 0; k < r->nunres; k++)
			if (!strcmp_null(r->unres[k].reason, pairs[i].reason) &&
			    !strcmp_null(r->unres[k].object, pairs[i].object))
				break;
		if (k == r->nunres)
			r->unres[r->nunres++] = (struct sh_unres){
				.reason = pairs[i].reason, .object = pairs[i].object,
			};
		r->unres[k].sites++;
		r->unres[k].calls += pairs[i].ps->calls;
	}
	if (r->nunres)
		st_qsort(r->unres, r->nunres, sizeof(*r->unres), unres_cmp);
	return 0;
}

int st_short(const struct st_dump *d, uint64_t max_ns, uint64_t threshold,
	     size_t top, struct sh_result *r)
{
	struct st_psite *ps;
	struct pair *pairs = NULL;
	size_t nps, np = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	r->max_ns = max_ns;
	r->threshold = threshold;
	ret = st_patch_sites(d, &ps, &nps);
	if (ret)
		return ret;
	ret = collect_pairs(d, ps, nps, r, &pairs, &np);
	if (!ret)
		ret = make_funcs(pairs, np, r);
	if (!ret)
		ret = syscall_lists(d, ps, nps, pairs, np, r);
	if (!ret)
		ret = cover(pairs, np, top, r);
	if (!ret)
		ret = group_unresolved(pairs, np, r);
	free(pairs);
	free(ps);
	if (ret)
		st_short_free(r);
	return ret;
}

void st_short_free(struct sh_result *r)
{
	size_t i;

	for (i = 0; i < r->nfuncs; i++)
		free(r->funcs[i].syscalls);
	free(r->funcs);
	free(r->steps);
	free(r->unres);
	r->funcs = NULL;
	r->steps = NULL;
	r->unres = NULL;
	r->nfuncs = r->nsteps = r->nunres = 0;
}

static const char *const totals_cols[] = {
	"max_ms", "threshold", "short_processes", "processes_with_sites_below",
	"sites_below", "calls", "unresolved_sites", "unresolved_calls",
	"functions",
};

static const char *const func_cols[] = {
	"rank", "sites", "sites_fraction", "calls", "processes", "symbol",
	"object", "syscalls",
};

static const char *const cover_cols[] = {
	"step", "removed", "cumulative", "cumulative_fraction",
	"processes_clean", "processes_clean_fraction", "symbol", "object",
};

static const char *const unres_cols[] = {
	"sites", "calls", "reason", "object",
};

static const char *const func_keep[] = {
	"symbol", "sites", "rank", "calls", "processes", "object",
	"sites_fraction", "syscalls", NULL,
};

static const char *const cover_keep[] = {
	"symbol", "step", "removed", "cumulative_fraction", "cumulative",
	"processes_clean", "object", "processes_clean_fraction", NULL,
};

static struct rt_table *totals_table(const struct sh_result *s, uint64_t max_ms)
{
	struct st_cell *c;
	struct rt_table *t = rt_totals(totals_cols, ARRAY_SIZE(totals_cols), &c);

	if (!t)
		return NULL;
	rt_u64(&c[0], max_ms);
	rt_u64(&c[1], s->threshold);
	rt_u64(&c[2], s->short_procs);
	rt_u64(&c[3], s->procs_with_pairs);
	rt_u64(&c[4], s->pairs);
	rt_u64(&c[5], s->calls);
	rt_u64(&c[6], s->unresolved_pairs);
	rt_u64(&c[7], s->unresolved_calls);
	rt_u64(&c[8], s->nfuncs);
	return t;
}

static struct rt_table *funcs_table(const struct sh_result *s)
{
	struct rt_table *t = rt_table_new("functions",
					  "functions holding non-amortized sites of short processes, ranked",
					  func_cols, ARRAY_SIZE(func_cols));
	size_t i;

	if (!t || rt_table_keep(t, func_keep)) {
		rt_table_free(t);
		return NULL;
	}
	t->ranked = true;
	for (i = 0; i < s->nfuncs; i++) {
		const struct sh_func *f = &s->funcs[i];
		struct st_cell *c = rt_row(t);

		if (!c || rt_str(&c[5], f->symbol) || rt_str(&c[6], f->object) ||
		    rt_str(&c[7], f->syscalls)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], i + 1);
		rt_u64(&c[1], f->pairs);
		rt_frac(&c[2], f->pairs, s->pairs);
		rt_u64(&c[3], f->calls);
		rt_u64(&c[4], f->procs);
	}
	return t;
}

static struct rt_table *cover_table(const struct sh_result *s)
{
	struct rt_table *t = rt_table_new("cover",
					  "greedy cover: hook these functions in this order",
					  cover_cols, ARRAY_SIZE(cover_cols));
	size_t i;

	if (!t || rt_table_keep(t, cover_keep)) {
		rt_table_free(t);
		return NULL;
	}
	t->own_top = true;
	for (i = 0; i < s->nsteps; i++) {
		const struct sh_step *st = &s->steps[i];
		struct st_cell *c = rt_row(t);

		if (!c || rt_str(&c[6], st->func->symbol) ||
		    rt_str(&c[7], st->func->object)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], i + 1);
		rt_u64(&c[1], st->removed);
		rt_u64(&c[2], st->cumulative);
		rt_frac(&c[3], st->cumulative, s->pairs);
		rt_u64(&c[4], st->procs_clean);
		rt_frac(&c[5], st->procs_clean, s->procs_with_pairs);
	}
	return t;
}

static struct rt_table *unresolved_table(const struct sh_result *s)
{
	struct rt_table *t = rt_table_new("unresolved",
					  "non-amortized sites of short processes with no function",
					  unres_cols, ARRAY_SIZE(unres_cols));
	size_t k;

	if (!t)
		return NULL;
	for (k = 0; k < s->nunres; k++) {
		struct st_cell *c = rt_row(t);

		if (!c || rt_str(&c[2], s->unres[k].reason) ||
		    rt_str(&c[3], s->unres[k].object)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], s->unres[k].sites);
		rt_u64(&c[1], s->unres[k].calls);
	}
	return t;
}

int report_short(struct rt_report *r, struct st_dump *d,
		 const struct report_opts *o)
{
	uint64_t top = o->sel.has_top ? o->sel.top : DEFAULT_TOP;
	struct sh_result s;
	int ret;

	if (!d->symbolized) {
		ret = st_symbolize_dump(d);
		if (ret)
			return ret;
	}
	ret = st_short(d, o->max_ms * 1000000ULL, o->threshold, top, &s);
	if (ret)
		return ret;
	r->params = json_pack("{sIsIsI}", "max_ms", (json_int_t)o->max_ms,
			      "threshold", (json_int_t)o->threshold,
			      "top", (json_int_t)top);
	r->csv_table = "functions";
	ret = rt_note(r, "short: process images that ended less than %llu ms after they started (--max-ms); "
		      "a site is non-amortized when it made fewer than %llu calls (--threshold)",
		      (unsigned long long)o->max_ms, (unsigned long long)o->threshold);
	if (!ret)
		ret = rt_add(r, totals_table(&s, o->max_ms));
	if (!ret)
		ret = rt_add(r, cover_table(&s));
	if (!ret)
		ret = rt_add(r, funcs_table(&s));
	if (!ret)
		ret = rt_add(r, unresolved_table(&s));
	st_short_free(&s);
	return ret;
}
