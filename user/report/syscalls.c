// SPDX-License-Identifier: GPL-2.0
/*
 * report syscalls: strace -c for the whole tree (calls, errors, time per
 * syscall, by time spent), then per process its calls by syscall.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int by_time(const void *a, const void *b)
{
	const struct st_sysagg *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return -CMP(x->total_ns, y->total_ns);
	if (x->calls != y->calls)
		return -CMP(x->calls, y->calls);
	if (x->abi != y->abi)
		return CMP(x->abi, y->abi);
	return CMP(x->nr, y->nr);
}

/* Within a process: most calls first. */
static int by_proc_calls(const void *a, const void *b)
{
	const struct st_sysagg *x = a, *y = b;

	if (x->proc_id != y->proc_id)
		return CMP(x->proc_id, y->proc_id);
	if (x->calls != y->calls)
		return -CMP(x->calls, y->calls);
	if (x->total_ns != y->total_ns)
		return -CMP(x->total_ns, y->total_ns);
	if (x->abi != y->abi)
		return CMP(x->abi, y->abi);
	return CMP(x->nr, y->nr);
}

static const char *const tree_cols[] = {
	"time_percent", "total_ns", "avg_ns", "min_ns", "max_ns", "calls",
	"errors", "sites", "abi", "nr", "syscall",
};

static const char *const totals_cols[] = {
	"total_ns", "calls", "errors", "syscalls", "site_rows", "processes",
};

static const char *const proc_cols[] = {
	"proc_id", "pid", "comm", "calls", "errors", "total_ns", "syscalls",
};

static const char *const tree_keep[] = {
	"syscall", "total_ns", "calls", "time_percent", "errors", "avg_ns",
	"max_ns", "min_ns", "sites", "abi", "nr", NULL,
};

static const char *const proc_keep[] = {
	"comm", "calls", "syscalls", "pid", "errors", "total_ns", "proc_id", NULL,
};

static struct rt_table *tree_table(struct st_sysagg *a, size_t n,
				   uint64_t total_ns)
{
	struct rt_table *t = rt_table_new("syscalls",
					  "per syscall, whole tree, by time inside the call",
					  tree_cols, ARRAY_SIZE(tree_cols));
	size_t i;

	if (!t || rt_table_keep(t, tree_keep)) {
		rt_table_free(t);
		return NULL;
	}
	t->ranked = true;
	st_qsort(a, n, sizeof(*a), by_time);
	for (i = 0; i < n; i++) {
		struct st_cell *c = rt_row(t);

		if (!c || rt_syscall(&c[8], a[i].abi, a[i].nr)) {
			rt_table_free(t);
			return NULL;
		}
		rt_pct(&c[0], a[i].total_ns, total_ns);
		rt_u64(&c[1], a[i].total_ns);
		if (a[i].calls)
			rt_u64(&c[2], a[i].total_ns / a[i].calls);
		rt_u64(&c[3], a[i].min_ns);
		rt_u64(&c[4], a[i].max_ns);
		rt_u64(&c[5], a[i].calls);
		rt_u64(&c[6], a[i].errors);
		rt_u64(&c[7], a[i].sites);
	}
	return t;
}

static struct rt_table *totals_table(const struct st_sysagg *a, size_t n,
				     const struct st_dump *d)
{
	uint64_t ns = 0, calls = 0, errors = 0;
	struct st_cell *c;
	struct rt_table *t = rt_totals(totals_cols, ARRAY_SIZE(totals_cols), &c);
	size_t i;

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		ns += a[i].total_ns;
		calls += a[i].calls;
		errors += a[i].errors;
	}
	rt_u64(&c[0], ns);
	rt_u64(&c[1], calls);
	rt_u64(&c[2], errors);
	rt_u64(&c[3], n);
	rt_u64(&c[4], d->nsites);
	rt_u64(&c[5], d->nprocs);
	return t;
}

/*
 * The row of a[0 .. n - 1], one process's sums by most calls: its totals,
 * and its calls by syscall, "openat(257)=12 read(0)=3 ia32:read(3)=1"
 * (most first; another ABI's names after it and a colon, an unnamed
 * number as nrNR).
 */
static int proc_row(struct rt_table *t, const struct st_sysagg *a, size_t n,
		    const struct st_dump *d)
{
	const struct st_proc_row *p = st_dump_find_proc(d, a[0].proc_id);
	uint64_t calls = 0, errors = 0, ns = 0;
	struct st_cell *c = rt_row(t);
	char *text = NULL;
	size_t len = 0, i;
	FILE *m;
	int ret;

	if (!c || !(m = open_memstream(&text, &len)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *name = st_syscall_name(a[i].abi, a[i].nr);

		calls += a[i].calls;
		errors += a[i].errors;
		ns += a[i].total_ns;
		/* A key per (abi, nr): ia32's getpid is not x64's. */
		fprintf(m, "%s%s%s", i ? " " : "",
			a[i].abi == SYSTRACE_ABI_X64 ? "" : st_abi_name(a[i].abi),
			a[i].abi == SYSTRACE_ABI_X64 ? "" : ":");
		if (name)
			fprintf(m, "%s", name);
		else
			fprintf(m, "nr%u", a[i].nr);
		fprintf(m, "(%u)=%llu", a[i].nr, (unsigned long long)a[i].calls);
	}
	if (fclose(m)) {
		free(text);
		return -ENOMEM;
	}
	rt_u64(&c[0], a[0].proc_id);
	if (p)
		rt_u64(&c[1], p->pid);
	rt_u64(&c[3], calls);
	rt_u64(&c[4], errors);
	rt_u64(&c[5], ns);
	ret = (p ? rt_str(&c[2], p->comm) : 0) || rt_str(&c[6], text) ? -ENOMEM : 0;
	if (!ret)
		c[6].kind = ST_COUNTS;
	free(text);
	return ret;
}

/* The rows of one slice of the sites' per-process sums. */
static int proc_rows(struct rt_table *t, struct st_sysagg *a, size_t n,
		     const struct st_dump *d)
{
	size_t i, j;
	int ret = 0;

	st_qsort(a, n, sizeof(*a), by_proc_calls);
	for (i = 0; i < n && !ret; i = j) {
		for (j = i + 1; j < n && a[j].proc_id == a[i].proc_id; j++)
			;
		ret = proc_row(t, &a[i], j - i, d);
	}
	return ret;
}

/* Whether each process's sites are together (a dump's are: sorted). */
static bool sites_by_proc(const struct st_dump *d)
{
	size_t i;

	for (i = 1; i < d->nsites; i++)
		if (d->sites[i].proc_id < d->sites[i - 1].proc_id)
			return false;
	return true;
}

/*
 * Summed a process at a time when its sites are together: the sums of
 * every process at once were 300 MB at a glibc build's 2 million sites.
 */
static struct rt_table *procs_table(const struct st_dump *d)
{
	struct rt_table *t = rt_table_new("processes",
					  "per process: its calls by syscall, most first; by calls",
					  proc_cols, ARRAY_SIZE(proc_cols));
	struct st_dump part = { 0 };
	bool by_proc = sites_by_proc(d);
	size_t i, j, n;
	int ret = 0;

	if (!t || rt_table_keep(t, proc_keep)) {
		rt_table_free(t);
		return NULL;
	}
	t->ranked = true;
	t->detail = true;
	for (i = 0; i < d->nsites && !ret; i = j) {
		struct st_sysagg *a;

		j = d->nsites;
		if (by_proc)
			for (j = i + 1; j < d->nsites && d->sites[j].proc_id == d->sites[i].proc_id; j++)
				;
		part.sites = &d->sites[i];
		part.nsites = j - i;
		ret = st_aggregate_syscalls(&part, true, &a, &n);
		if (!ret)
			ret = proc_rows(t, a, n, d);
		free(a);
	}
	if (!ret)
		ret = rt_table_sort(t, 3);
	if (ret) {
		rt_table_free(t);
		return NULL;
	}
	return t;
}

int report_syscalls(struct rt_report *r, struct st_dump *d,
		    const struct report_opts *o)
{
	struct st_sysagg *tree = NULL;
	uint64_t total_ns = 0;
	size_t ntree, i;
	int ret;

	ret = st_aggregate_syscalls(d, false, &tree, &ntree);
	if (ret)
		goto out;
	for (i = 0; i < ntree; i++)
		total_ns += tree[i].total_ns;
	r->params = o->sel.has_top ? json_pack("{sI}", "top", (json_int_t)o->sel.top) :
				     json_pack("{sn}", "top");
	r->csv_table = "syscalls";
	ret = rt_note(r, "time is from entry to exit of each call, blocking included; "
		      "errors are returns in -4095..-1");
	if (!ret)
		ret = rt_add(r, totals_table(tree, ntree, d));
	if (!ret)
		ret = rt_add(r, tree_table(tree, ntree, total_ns));
	if (!ret)
		ret = rt_add(r, procs_table(d));
out:
	free(tree);
	return ret;
}
