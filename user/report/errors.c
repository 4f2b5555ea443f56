// SPDX-License-Identifier: GPL-2.0
/*
 * report errors: what fails, where and why, in one screen. The errors of
 * the whole tree by errno; then the syscalls, the sites and the processes
 * with the most errors, each with the errnos that explain them. A site
 * here is a place in a file (object, file offset, syscall) summed over the
 * process images that ran it, as diff --by site keys it; sites outside
 * files are summed per map kind and syscall.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "log/log.h"
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* Errno counts gathered from rows, summed by st_errnos_sum. */
struct acc {
	struct st_errno_count *v;
	size_t n, cap;
	uint64_t other;
	bool unknown;
};

static int acc_add(struct acc *a, const struct st_errnos *e)
{
	uint32_t i;

	if (!e) {
		a->unknown = true;
		return 0;
	}
	if (a->n + e->n > a->cap) {
		size_t cap = (a->n + e->n) * 2 + 8;
		struct st_errno_count *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	for (i = 0; i < e->n; i++)
		a->v[a->n++] = e->v[i];
	a->other += e->other;
	return 0;
}

/* Into row: the errnos summed, and whether all of them were counted. */
static void acc_take(struct acc *a, struct er_row *row)
{
	row->has_errnos = !a->unknown;
	st_errnos_sum(a->v, a->n, &row->errnos);
	row->errnos.other += a->other;
	a->n = 0;
	a->other = 0;
	a->unknown = false;
}

static int by_errors(const void *a, const void *b)
{
	const struct er_row *x = a, *y = b;

	if (x->errors != y->errors)
		return -CMP(x->errors, y->errors);
	if (x->calls != y->calls)
		return -CMP(x->calls, y->calls);
	if (x->abi != y->abi)
		return CMP(x->abi, y->abi);
	return CMP(x->nr, y->nr);
}

/* A site's place: its file and offset, or its map kind alone; and syscall. */
static const char *site_object(const struct st_site_row *s)
{
	if (s->map != SYSTRACE_MAP_FILE)
		return NULL;
	return s->sym && s->sym->object ? s->sym->object : s->path;
}

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int by_place(const void *a, const void *b)
{
	const struct st_site_row *x = *(const struct st_site_row *const *)a;
	const struct st_site_row *y = *(const struct st_site_row *const *)b;
	int c = CMP(x->map, y->map);

	if (!c)
		c = strcmp_null(site_object(x), site_object(y));
	if (!c && x->map == SYSTRACE_MAP_FILE)
		c = CMP(x->offset, y->offset);
	if (!c)
		c = CMP(x->abi, y->abi);
	if (!c)
		c = CMP(x->nr, y->nr);
	return c;
}

static int syscalls_rows(const struct st_dump *d, struct er_result *r)
{
	struct st_sysagg *a;
	size_t i, n;

	if (st_aggregate_syscalls(d, false, &a, &n))
		return -ENOMEM;
	r->sys = calloc(n ? n : 1, sizeof(*r->sys));
	if (!r->sys) {
		free(a);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct er_row *row;

		r->calls += a[i].calls;
		if (!a[i].errors)
			continue;
		row = &r->sys[r->nsys++];
		row->abi = a[i].abi;
		row->nr = a[i].nr;
		row->calls = a[i].calls;
		row->errors = a[i].errors;
		row->has_errnos = a[i].has_errnos;
		row->errnos = a[i].errnos;
		r->errors += a[i].errors;
	}
	free(a);
	st_qsort(r->sys, r->nsys, sizeof(*r->sys), by_errors);
	return 0;
}

/* The sites that failed, by place, and the tree's errnos over all of them. */
static int sites_rows(const struct st_dump *d, struct er_result *r)
{
	const struct st_site_row **rows;
	struct acc acc = { 0 }, all = { 0 };
	struct er_row *cur = NULL;
	uint64_t last_proc = 0;
	size_t i, n = 0;
	int ret = -ENOMEM;

	rows = calloc(d->nsites ? d->nsites : 1, sizeof(*rows));
	r->sites = calloc(d->nsites ? d->nsites : 1, sizeof(*r->sites));
	if (!rows || !r->sites)
		goto out;
	for (i = 0; i < d->nsites; i++)
		if (d->sites[i].errors)
			rows[n++] = &d->sites[i];
	st_qsort(rows, n, sizeof(*rows), by_place);
	for (i = 0; i < n; i++) {
		const struct st_site_row *s = rows[i];

		if (!cur || by_place(&rows[i - 1], &rows[i])) {
			if (cur)
				acc_take(&acc, cur);
			cur = &r->sites[r->nsites++];
			cur->abi = s->abi;
			cur->nr = s->nr;
			cur->site = s;
			last_proc = 0;
		}
		cur->calls += s->calls;
		cur->errors += s->errors;
		/* Rows of one place and one image are adjacent only by chance. */
		if (s->proc_id != last_proc)
			cur->procs++;
		last_proc = s->proc_id;
		if (acc_add(&acc, s->errnos) || acc_add(&all, s->errnos))
			goto out;
	}
	if (cur)
		acc_take(&acc, cur);
	st_qsort(r->sites, r->nsites, sizeof(*r->sites), by_errors);
	r->has_errnos = !all.unknown;
	r->nerrnos = st_errnos_sum(all.v, all.n, &r->errnos);
	r->all_errnos = all.v;
	r->nall = r->nerrnos;
	r->errnos.other += all.other;
	r->other = all.other;
	all.v = NULL;
	ret = 0;
out:
	free(acc.v);
	free(all.v);
	free(rows);
	return ret;
}

static int procs_rows(const struct st_dump *d, struct er_result *r)
{
	struct acc acc = { 0 };
	size_t i, k;

	r->procs = calloc(d->nprocs ? d->nprocs : 1, sizeof(*r->procs));
	if (!r->procs)
		return -ENOMEM;
	/* Sorted sites come a process at a time, in the processes' order. */
	for (i = k = 0; i < d->nprocs; i++) {
		const struct st_proc_row *p = &d->procs[i];
		struct er_row *row;

		for (; k < d->nsites && d->sites[k].proc_id < p->id; k++)
			;
		for (; k < d->nsites && d->sites[k].proc_id == p->id; k++)
			if (d->sites[k].errors && acc_add(&acc, d->sites[k].errnos)) {
				free(acc.v);
				return -ENOMEM;
			}
		if (!p->errors) {
			acc.n = 0;
			acc.other = 0;
			acc.unknown = false;
			continue;
		}
		row = &r->procs[r->nprocs++];
		row->proc = p;
		row->calls = p->syscalls;
		row->errors = p->errors;
		acc_take(&acc, row);
	}
	free(acc.v);
	st_qsort(r->procs, r->nprocs, sizeof(*r->procs), by_errors);
	return 0;
}

int st_errors(const struct st_dump *d, struct er_result *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = syscalls_rows(d, r);
	if (!ret)
		ret = sites_rows(d, r);
	if (!ret)
		ret = procs_rows(d, r);
	if (ret)
		st_errors_free(r);
	return ret;
}

void st_errors_free(struct er_result *r)
{
	free(r->sys);
	free(r->sites);
	free(r->procs);
	free(r->all_errnos);
	memset(r, 0, sizeof(*r));
}

/* The tables. */

/* c[0], c[1]: errnos and errno_other of row, as the dump's (columns.c). */
static int errno_cells(struct st_cell *c, const struct er_row *row)
{
	char text[ST_ERRNOS_TEXT];

	if (!row->has_errnos)
		return 0;
	st_errnos_format(&row->errnos, text, sizeof(text));
	rt_u64(&c[1], row->errnos.other);
	if (rt_str(&c[0], text))
		return -ENOMEM;
	c[0].kind = ST_COUNTS;
	return 0;
}

static const char *const errno_tcols[] = {
	"count", "errors_fraction", "errno", "errno_name",
};

static const char *const sys_cols[] = {
	"errors", "calls", "errors_fraction", "abi", "nr", "syscall", "errnos",
	"errno_other",
};

static const char *const site_cols[] = {
	"errors", "calls", "processes", "abi", "nr", "syscall", "map", "offset",
	"symbol", "symbol_offset", "object", "errnos", "errno_other",
};

static const char *const proc_cols[] = {
	"errors", "syscalls", "errors_fraction", "proc_id", "pid", "comm", "exe",
	"errnos", "errno_other",
};

/* What narrow text keeps, most important first. */
static const char *const errno_keep[] = {
	"errno_name", "count", "errors_fraction", "errno", NULL,
};
static const char *const sys_keep[] = {
	"syscall", "errors", "errnos", "calls", "errors_fraction", NULL,
};
static const char *const site_keep[] = {
	"syscall", "errors", "errnos", "symbol", "object", "processes", "calls",
	"offset", NULL,
};
static const char *const proc_keep[] = {
	"comm", "errors", "errnos", "pid", "syscalls", "errors_fraction", NULL,
};

static struct rt_table *table(const char *name, const char *title,
			      const char *const *cols, size_t ncols,
			      const char *const *keep)
{
	struct rt_table *t = rt_table_new(name, title, cols, ncols);

	if (!t)
		return NULL;
	t->ranked = true;
	if (rt_table_keep(t, keep)) {
		rt_table_free(t);
		return NULL;
	}
	return t;
}

/* The tree's errors by errno, with "other" last (errno and name null). */
static struct rt_table *errnos_table(const struct er_result *r)
{
	struct rt_table *t = table("errnos", "errors by errno, whole tree",
				   errno_tcols, ARRAY_SIZE(errno_tcols), errno_keep);
	struct st_cell *c;
	size_t i;

	if (!t || !r->has_errnos)
		return t;
	for (i = 0; i < r->nall; i++) {
		const struct st_errno_count *e = &r->all_errnos[i];

		c = rt_row(t);
		if (!c || (st_errno_name(e->err) && rt_str(&c[3], st_errno_name(e->err)))) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], e->count);
		rt_frac(&c[1], e->count, r->errors);
		rt_u64(&c[2], e->err);
	}
	if (r->other) {
		c = rt_row(t);
		if (!c || rt_str(&c[3], "other")) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], r->other);
		rt_frac(&c[1], r->other, r->errors);
	}
	return t;
}

static struct rt_table *sys_table(const struct er_result *r)
{
	struct rt_table *t = table("syscalls", "syscalls by errors, whole tree",
				   sys_cols, ARRAY_SIZE(sys_cols), sys_keep);
	size_t i;

	for (i = 0; t && i < r->nsys; i++) {
		const struct er_row *row = &r->sys[i];
		struct st_cell *c = rt_row(t);

		if (!c || rt_syscall(&c[3], row->abi, row->nr) ||
		    errno_cells(&c[6], row)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], row->errors);
		rt_u64(&c[1], row->calls);
		rt_frac(&c[2], row->errors, row->calls);
	}
	return t;
}

static struct rt_table *site_table(const struct er_result *r)
{
	struct rt_table *t = table("sites",
				   "sites by errors (object, offset, syscall; their processes summed)",
				   site_cols, ARRAY_SIZE(site_cols), site_keep);
	size_t i;

	for (i = 0; t && i < r->nsites; i++) {
		const struct er_row *row = &r->sites[i];
		const struct st_site_row *s = row->site;
		const struct st_sym *sym = s->sym;
		struct st_cell *c = rt_row(t);

		if (!c || rt_syscall(&c[3], row->abi, row->nr) ||
		    rt_str(&c[6], st_map_name(s->map)) ||
		    (s->map == SYSTRACE_MAP_FILE &&
		     (rt_str(&c[8], sym ? sym->symbol : NULL) ||
		      rt_str(&c[10], site_object(s)))) ||
		    errno_cells(&c[11], row)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], row->errors);
		rt_u64(&c[1], row->calls);
		rt_u64(&c[2], row->procs);
		if (s->map == SYSTRACE_MAP_FILE) {
			rt_hex(&c[7], s->offset);
			if (sym && sym->symbol && sym->has_symbol_offset)
				rt_hex(&c[9], sym->symbol_offset);
		}
	}
	return t;
}

static struct rt_table *proc_table(const struct er_result *r)
{
	struct rt_table *t = table("processes", "processes by errors",
				   proc_cols, ARRAY_SIZE(proc_cols), proc_keep);
	size_t i;

	if (t)
		t->detail = true;
	for (i = 0; t && i < r->nprocs; i++) {
		const struct er_row *row = &r->procs[i];
		const struct st_proc_row *p = row->proc;
		struct st_cell *c = rt_row(t);

		if (!c || rt_str(&c[5], p->comm) || rt_str(&c[6], p->exe) ||
		    errno_cells(&c[7], row)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], row->errors);
		rt_u64(&c[1], row->calls);
		rt_frac(&c[2], row->errors, row->calls);
		rt_u64(&c[3], p->id);
		rt_u64(&c[4], p->pid);
	}
	return t;
}

int report_errors(struct rt_report *r, struct st_dump *d,
		  const struct report_opts *o)
{
	struct er_result e;
	int ret;

	if (!d->symbolized) {
		ret = st_symbolize_dump(d);
		if (ret)
			return ret;
	}
	ret = st_errors(d, &e);
	if (ret)
		return ret;
	r->params = o->sel.has_top ? json_pack("{sI}", "top", (json_int_t)o->sel.top) :
				     json_pack("{sn}", "top");
	r->csv_table = "syscalls";
	ret = rt_note(r, "errors: %" PRIu64 " of %" PRIu64 " calls returned -4095..-1; "
		      "each table by errors (--sort)", e.errors, e.calls);
	if (!ret && !e.has_errnos && e.errors)
		ret = rt_note(r, "errnos: unknown (the tracer of this session did not count them)");
	if (!ret)
		ret = rt_add(r, errnos_table(&e));
	if (!ret)
		ret = rt_add(r, sys_table(&e));
	if (!ret)
		ret = rt_add(r, site_table(&e));
	if (!ret)
		ret = rt_add(r, proc_table(&e));
	st_errors_free(&e);
	return ret;
}
