// SPDX-License-Identifier: GPL-2.0
/*
 * diff A B: two sessions compared by syscall, by process (comm + exe), by
 * site (object + offset + syscall), by path of file calls (path, syscall,
 * result) and by amortization threshold. The rows
 * of both sides are folded by key: a key of one side only is new (only in
 * B) or gone (only in A), and counts 0 on the other side. Process ids and
 * addresses differ from run to run, so no key holds them: a file site is
 * its file offset, and sites outside files (vdso, anon), whose addresses
 * ASLR moves, are summed per map kind and syscall.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

struct vec {
	struct df_row *rows;
	size_t n, cap;
};

/* A zeroed row at the end of v, or NULL. */
static struct df_row *push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		struct df_row *r = realloc(v->rows, cap * sizeof(*r));

		if (!r)
			return NULL;
		v->rows = r;
		v->cap = cap;
	}
	memset(&v->rows[v->n], 0, sizeof(v->rows[0]));
	return &v->rows[v->n++];
}

static void count(struct df_row *r, int side, uint64_t calls,
		  uint64_t errors, uint64_t ns)
{
	r->rows[side] = 1;
	r->calls[side] = calls;
	r->errors[side] = errors;
	r->ns[side] = ns;
}

/* Fills a row's key and one side's counts from element i of a table. */
typedef void (*df_key_fn)(struct df_row *r, const void *rows, size_t i,
			  int side);

/* One df_row per element of rows, n of them. */
static int collect(struct vec *v, const void *rows, size_t n, int side,
		   df_key_fn key)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct df_row *r = push(v);

		if (!r)
			return -ENOMEM;
		key(r, rows, i, side);
	}
	return 0;
}

/* The sums per syscall of the syscalls report; rows: its site rows. */
static void key_syscall(struct df_row *r, const void *rows, size_t i, int side)
{
	const struct st_sysagg *a = (const struct st_sysagg *)rows + i;

	r->num[0] = a->abi;
	r->num[1] = a->nr;
	count(r, side, a->calls, a->errors, a->total_ns);
	r->rows[side] = a->sites;
}

static void key_process(struct df_row *r, const void *rows, size_t i, int side)
{
	const struct st_proc_row *p = (const struct st_proc_row *)rows + i;

	r->str[0] = p->comm;
	r->str[1] = p->exe;
	count(r, side, p->syscalls, p->errors, p->syscall_ns);
}

/* A file site's object: the symbolizer's (path without " (deleted)"), else path. */
static void key_site(struct df_row *r, const void *rows, size_t i, int side)
{
	const struct st_site_row *s = (const struct st_site_row *)rows + i;

	r->num[0] = s->map;
	if (s->map == SYSTRACE_MAP_FILE) {
		r->str[0] = s->sym && s->sym->object ? s->sym->object : s->path;
		r->num[1] = s->offset;
		r->sym = s->sym;
	}
	r->num[2] = (uint64_t)s->abi << 32 | s->nr;
	count(r, side, s->calls, s->errors, s->total_ns);
}

static int collect_syscalls(struct vec *v, const struct st_dump *d, int side)
{
	struct st_sysagg *aggs;
	size_t n;
	int ret;

	if (st_aggregate_syscalls(d, false, &aggs, &n))
		return -ENOMEM;
	ret = collect(v, aggs, n, side, key_syscall);
	free(aggs);
	return ret;
}

static int collect_processes(struct vec *v, const struct st_dump *d, int side)
{
	return collect(v, d->procs, d->nprocs, side, key_process);
}

static int collect_sites(struct vec *v, const struct st_dump *d, int side)
{
	return collect(v, d->sites, d->nsites, side, key_site);
}

/* A path row: (path, kind, abi, nr, errno); its calls, errors if it failed. */
static int collect_paths(struct vec *v, const struct st_dump *d, int side,
			 const struct st_select *sel)
{
	size_t i;

	for (i = 0; i < d->npaths; i++) {
		const struct st_path_row *p = &d->paths[i];
		struct df_row *r;

		if (!st_select_path(d, sel, p))
			continue;
		r = push(v);
		if (!r)
			return -ENOMEM;
		r->str[0] = p->kind == ST_PATH_OK ? p->path : NULL;
		r->num[0] = p->kind;
		r->num[1] = (uint64_t)p->abi << 32 | p->nr;
		r->num[2] = p->err;
		count(r, side, p->count, p->err ? p->count : 0, 0);
	}
	return 0;
}

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int key_cmp(const struct df_row *x, const struct df_row *y)
{
	int c = strcmp_null(x->str[0], y->str[0]);
	size_t k;

	if (!c)
		c = strcmp_null(x->str[1], y->str[1]);
	for (k = 0; !c && k < ARRAY_SIZE(x->num); k++)
		c = CMP(x->num[k], y->num[k]);
	return c;
}

static int by_key(const void *a, const void *b)
{
	return key_cmp(a, b);
}

static uint64_t absdiff(const uint64_t v[2])
{
	return v[0] > v[1] ? v[0] - v[1] : v[1] - v[0];
}

static enum df_sort sort_by;

/* The change of what sort_by names, then of calls, time and errors. */
static int by_change(const void *a, const void *b)
{
	const struct df_row *x = a, *y = b;
	const uint64_t *vx[3] = { x->calls, x->ns, x->errors };
	const uint64_t *vy[3] = { y->calls, y->ns, y->errors };
	size_t k;

	if (absdiff(vx[sort_by]) != absdiff(vy[sort_by]))
		return -CMP(absdiff(vx[sort_by]), absdiff(vy[sort_by]));
	for (k = 0; k < 3; k++)
		if (absdiff(vx[k]) != absdiff(vy[k]))
			return -CMP(absdiff(vx[k]), absdiff(vy[k]));
	return key_cmp(x, y);
}

int st_diff_sort_parse(const char *name)
{
	static const char *const names[] = {
		[DF_SORT_CALLS] = "calls", [DF_SORT_TIME] = "time",
		[DF_SORT_ERRORS] = "errors",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

/* Sums the rows of equal keys into the first of them; B's symbol wins. */
static size_t fold(struct df_row *rows, size_t n)
{
	size_t i, k, out = 0;

	st_qsort(rows, n, sizeof(*rows), by_key);
	for (i = 0; i < n; i++) {
		struct df_row *o;

		if (!out || key_cmp(&rows[out - 1], &rows[i])) {
			rows[out++] = rows[i];
			continue;
		}
		o = &rows[out - 1];
		for (k = 0; k < 2; k++) {
			o->rows[k] += rows[i].rows[k];
			o->calls[k] += rows[i].calls[k];
			o->errors[k] += rows[i].errors[k];
			o->ns[k] += rows[i].ns[k];
		}
		if (rows[i].sym && (!o->sym || rows[i].rows[1]))
			o->sym = rows[i].sym;
	}
	return out;
}

int st_diff(const struct st_dump *a, const struct st_dump *b, enum df_by by,
	    enum df_sort sort, struct df_result *r)
{
	return st_diff_select(a, b, by, sort, NULL, r);
}

int st_diff_select(const struct st_dump *a, const struct st_dump *b, enum df_by by,
		   enum df_sort sort, const struct st_select *sel, struct df_result *r)
{
	static int (*const collect[])(struct vec *, const struct st_dump *, int) = {
		[DF_SYSCALL] = collect_syscalls,
		[DF_PROCESS] = collect_processes,
		[DF_SITE] = collect_sites,
	};
	struct vec v = { 0 };
	int ret;

	memset(r, 0, sizeof(*r));
	if (by == DF_PATH) {
		ret = collect_paths(&v, a, 0, sel);
		if (!ret)
			ret = collect_paths(&v, b, 1, sel);
	} else if ((size_t)by >= ARRAY_SIZE(collect) || !collect[by]) {
		return -EINVAL;
	} else {
		ret = collect[by](&v, a, 0);
		if (!ret)
			ret = collect[by](&v, b, 1);
	}
	if (ret) {
		free(v.rows);
		return ret;
	}
	r->n = fold(v.rows, v.n);
	sort_by = sort;
	st_qsort(v.rows, r->n, sizeof(*v.rows), by_change);
	r->rows = v.rows;
	return 0;
}

void st_diff_free(struct df_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->n = 0;
}

/* Time is measured, not counted: it does not make a row changed. */
const char *st_diff_status(const struct df_row *row)
{
	if (!row->rows[0])
		return "new";
	if (!row->rows[1])
		return "gone";
	if (row->calls[0] != row->calls[1] || row->errors[0] != row->errors[1])
		return "changed";
	return "same";
}

/* The tables. */

#define COUNT_COLS							\
	"calls_a", "calls_b", "calls_delta", "calls_delta_percent",	\
	"errors_a", "errors_b", "errors_delta", "time_a_ns", "time_b_ns", \
	"time_delta_ns", "time_delta_percent"
#define NCOUNT 11

/* What narrow text keeps of the counts, after each table's key. */
#define COUNT_KEEP							\
	"status", "calls_a", "calls_b", "calls_delta", "errors_delta",	\
	"time_delta_ns", "calls_delta_percent", "time_delta_percent",	\
	"time_a_ns", "time_b_ns"

static const char *const sys_cols[] = {
	"status", COUNT_COLS, "abi", "nr", "syscall",
};

static const char *const proc_cols[] = {
	"status", "processes_a", "processes_b", "processes_delta", COUNT_COLS,
	"comm", "exe",
};

static const char *const site_cols[] = {
	"status", "site_rows_a", "site_rows_b", COUNT_COLS, "abi", "nr",
	"syscall", "map", "offset", "symbol", "symbol_offset", "object",
};

static const char *const path_cols[] = {
	"status", "calls_a", "calls_b", "calls_delta", "calls_delta_percent",
	"path", "abi", "nr", "syscall", "errno", "errno_name",
};

static const char *const amortize_cols[] = {
	"threshold", "status", "sites_below_a", "sites_below_b",
	"sites_below_delta", "calls_below_a", "calls_below_b",
	"calls_below_delta", "processes_a", "processes_b", "processes_delta",
};

static void three(struct st_cell *c, const uint64_t v[2])
{
	rt_u64(&c[0], v[0]);
	rt_u64(&c[1], v[1]);
	rt_delta(&c[2], v[0], v[1]);
}

/* COUNT_COLS: calls and time with the change in percent, errors without. */
static void count_cells(struct st_cell *c, const struct df_row *row)
{
	three(&c[0], row->calls);
	rt_pct_change(&c[3], row->calls[0], row->calls[1]);
	three(&c[4], row->errors);
	three(&c[7], row->ns);
	rt_pct_change(&c[10], row->ns[0], row->ns[1]);
}

static int sys_row(struct st_cell *c, const struct df_row *row)
{
	count_cells(&c[1], row);
	return rt_syscall(&c[1 + NCOUNT], (uint32_t)row->num[0],
			  (uint32_t)row->num[1]);
}

static int proc_row(struct st_cell *c, const struct df_row *row)
{
	three(&c[1], row->rows);
	count_cells(&c[4], row);
	if (rt_str(&c[4 + NCOUNT], row->str[0]))
		return -ENOMEM;
	return rt_str(&c[5 + NCOUNT], row->str[1]);
}

static int site_row(struct st_cell *c, const struct df_row *row)
{
	const struct st_sym *sym = row->sym;
	struct st_cell *k = &c[3 + NCOUNT];

	rt_u64(&c[1], row->rows[0]);
	rt_u64(&c[2], row->rows[1]);
	count_cells(&c[3], row);
	if (rt_syscall(k, (uint32_t)(row->num[2] >> 32), (uint32_t)row->num[2]) ||
	    rt_str(&k[3], st_map_name((uint32_t)row->num[0])))
		return -ENOMEM;
	if (row->num[0] != SYSTRACE_MAP_FILE)
		return 0;
	rt_hex(&k[4], row->num[1]);
	if (sym && sym->has_symbol_offset && sym->symbol)
		rt_hex(&k[6], sym->symbol_offset);
	if (rt_str(&k[5], sym ? sym->symbol : NULL))
		return -ENOMEM;
	return rt_str(&k[7], row->str[0]);
}

/* (path, syscall, result): calls in A and B; the path as report paths shows it. */
static int path_row(struct st_cell *c, const struct df_row *row)
{
	const struct st_path_row p = { .kind = (uint32_t)row->num[0], .path = row->str[0] };
	uint32_t err = (uint32_t)row->num[2];
	char buf[16];

	three(&c[1], row->calls);
	rt_pct_change(&c[4], row->calls[0], row->calls[1]);
	rt_u64(&c[9], err);
	if (rt_str(&c[5], st_path_shown(&p)) ||
	    rt_syscall(&c[6], (uint32_t)(row->num[1] >> 32), (uint32_t)row->num[1]))
		return -ENOMEM;
	return rt_str(&c[10], st_path_result(err, buf, sizeof(buf)));
}

static const char *const sys_keep[] = { "syscall", COUNT_KEEP, NULL };
static const char *const proc_keep[] = {
	"comm", COUNT_KEEP, "processes_delta", "exe", NULL,
};
static const char *const site_keep[] = {
	"syscall", "status", "calls_a", "calls_b", "calls_delta", "symbol",
	"errors_delta", "time_delta_ns", "calls_delta_percent", "object",
	"time_delta_percent", "time_a_ns", "time_b_ns", "offset", NULL,
};
static const char *const path_keep[] = {
	"path", "status", "calls_a", "calls_b", "calls_delta", "syscall",
	"errno_name", "calls_delta_percent", NULL,
};
static const char *const amortize_keep[] = {
	"threshold", "status", "sites_below_a", "sites_below_b",
	"sites_below_delta", "calls_below_a", "calls_below_b",
	"calls_below_delta", "processes_a", "processes_b", "processes_delta",
	NULL,
};

static const struct {
	const char *name, *title;
	const char *const *cols;
	size_t ncols;
	int (*fill)(struct st_cell *c, const struct df_row *row);
	const char *const *keep;
} views[] = {
	[DF_SYSCALL] = { "syscalls", "per syscall: A -> B",
			 sys_cols, ARRAY_SIZE(sys_cols), sys_row, sys_keep },
	[DF_PROCESS] = { "processes", "per process name (comm and exe): A -> B",
			 proc_cols, ARRAY_SIZE(proc_cols), proc_row, proc_keep },
	[DF_SITE] = { "sites", "per site (object, offset, syscall): A -> B",
		      site_cols, ARRAY_SIZE(site_cols), site_row, site_keep },
	[DF_PATH] = { "paths", "per path of file calls (path, syscall, result): A -> B",
		      path_cols, ARRAY_SIZE(path_cols), path_row, path_keep },
};

static struct rt_table *diff_table(const struct st_dump *a,
				   const struct st_dump *b, enum df_by by,
				   const struct diff_opts *o)
{
	struct rt_table *t = rt_table_new(views[by].name, views[by].title,
					  views[by].cols, views[by].ncols);
	struct df_result res;
	size_t i;

	if (!t || rt_table_keep(t, views[by].keep)) {
		rt_table_free(t);
		return NULL;
	}
	/* Sorted here, by the change: --top keeps the first rows. */
	t->ranked = true;
	if (st_diff_select(a, b, by, o->sort, &o->sel, &res)) {
		rt_table_free(t);
		return NULL;
	}
	for (i = 0; i < res.n; i++) {
		struct st_cell *c = rt_row(t);

		if (!c || rt_str(&c[0], st_diff_status(&res.rows[i])) ||
		    views[by].fill(c, &res.rows[i])) {
			rt_table_free(t);
			t = NULL;
			break;
		}
	}
	st_diff_free(&res);
	return t;
}

/* N = 1, 2, 4 ... 1024 and --threshold; its own counts for the latter. */
static void threshold_counts(const struct am_result *a, uint64_t n,
			     uint64_t v[3])
{
	size_t k;

	if (n == a->threshold) {
		v[0] = a->sites_below;
		v[1] = a->calls_below;
		v[2] = a->procs_below;
		return;
	}
	for (k = 0; k < AM_NTHRESHOLDS && a->thresholds[k].threshold != n; k++)
		;
	v[0] = a->thresholds[k].sites_below;
	v[1] = a->thresholds[k].calls_below;
	v[2] = a->thresholds[k].processes;
}

static int amortize_row(struct rt_table *t, const struct am_result *am,
			uint64_t n)
{
	struct st_cell *c = rt_row(t);
	uint64_t v[2][3], pair[2];
	size_t k;
	bool same = true;

	if (!c)
		return -ENOMEM;
	threshold_counts(&am[0], n, v[0]);
	threshold_counts(&am[1], n, v[1]);
	rt_u64(&c[0], n);
	for (k = 0; k < 3; k++) {
		pair[0] = v[0][k];
		pair[1] = v[1][k];
		three(&c[2 + 3 * k], pair);
		same &= pair[0] == pair[1];
	}
	return rt_str(&c[1], same ? "same" : "changed");
}

static int amortize_table(struct rt_report *r, const struct st_dump *a,
			  const struct st_dump *b, uint64_t threshold)
{
	struct rt_table *t = rt_table_new("amortize",
					  "non-amortized sites (fewer than N calls) by threshold N: A -> B",
					  amortize_cols, ARRAY_SIZE(amortize_cols));
	struct am_result am[2];
	uint64_t n;
	int ret = -ENOMEM;

	if (!t || rt_table_keep(t, amortize_keep) || st_amortize(a, threshold, &am[0])) {
		rt_table_free(t);
		return -ENOMEM;
	}
	if (st_amortize(b, threshold, &am[1])) {
		st_amortize_free(&am[0]);
		rt_table_free(t);
		return -ENOMEM;
	}
	for (n = 1, ret = 0; n <= 1024 && !ret; n *= 2) {
		if (threshold < n && threshold > n / 2)
			ret = amortize_row(t, am, threshold);
		if (!ret)
			ret = amortize_row(t, am, n);
	}
	if (!ret && threshold > 1024)
		ret = amortize_row(t, am, threshold);
	if (!ret)
		ret = rt_note(r, "amortize: a site is one syscall instruction in one process image; "
			      "A has %llu sites and %llu calls, B %llu and %llu; --threshold %llu",
			      (unsigned long long)am[0].sites, (unsigned long long)am[0].calls,
			      (unsigned long long)am[1].sites, (unsigned long long)am[1].calls,
			      (unsigned long long)threshold);
	st_amortize_free(&am[0]);
	st_amortize_free(&am[1]);
	if (ret) {
		rt_table_free(t);
		return ret;
	}
	return rt_add(r, t);
}

static const char *const by_names[] = {
	[DF_SYSCALL] = "syscall",
	[DF_PROCESS] = "process",
	[DF_SITE] = "site",
	[DF_PATH] = "path",
	[DF_AMORTIZE] = "amortize",
};

const char *st_diff_by_name(enum df_by by)
{
	return by < DF_NBY ? by_names[by] : NULL;
}

static const char *const sort_names[] = {
	[DF_SORT_CALLS] = "calls", [DF_SORT_TIME] = "time", [DF_SORT_ERRORS] = "errors",
};

static const char *const sort_columns[] = {
	[DF_SORT_CALLS] = "calls_delta", [DF_SORT_TIME] = "time_delta_ns",
	[DF_SORT_ERRORS] = "errors_delta",
};

/* What each side's paths are: counted (which calls, drops) or not. */
static void paths_said(const struct st_dump *d, char *buf, size_t len)
{
	if (!d->has_paths)
		snprintf(buf, len, "not counted");
	else if (d->paths_mode == ST_PATHS_OFF)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%s (--paths %s), dropped %llu",
			 d->paths_mode == ST_PATHS_ALL ? "every file call" : "failed file calls",
			 st_paths_name(d->paths_mode), (unsigned long long)d->dropped_paths);
}

static int paths_note(struct rt_report *r, const struct st_dump *a, const struct st_dump *b)
{
	char sa[128], sb[128];

	paths_said(a, sa, sizeof(sa));
	paths_said(b, sb, sizeof(sb));
	return rt_note(r, "paths: A %s; B %s; calls_* of a path row: its calls, errno_name ok "
		       "for a success", sa, sb);
}

static json_t *selection(const struct st_select *s)
{
	char buf[512];

	st_select_describe(s, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *params(const struct diff_opts *o)
{
	json_t *by = json_array();
	enum df_by k;

	for (k = 0; by && k < DF_NBY; k++)
		if (o->by & (1U << k))
			json_array_append_new(by, json_string(by_names[k]));
	return json_pack("{sosIsssoso}", "by", by, "threshold", (json_int_t)o->threshold,
			 "sort", sort_names[o->sort],
			 "top", o->sel.has_top ? json_integer((json_int_t)o->sel.top) :
						 json_null(),
			 "selection", st_select_filters(&o->sel) ? selection(&o->sel) :
								   json_null());
}

int report_diff(struct rt_report *r, struct st_dump *a, struct st_dump *b,
		const struct diff_opts *o)
{
	enum df_by k;
	int ret = 0;

	r->name = "diff";
	r->dump = a;
	r->dump_b = b;
	r->params = params(o);
	if (o->by & (1U << DF_SITE)) {
		if (!a->symbolized)
			ret = st_symbolize_dump(a);
		if (!ret && !b->symbolized)
			ret = st_symbolize_dump(b);
	}
	if (!ret)
		ret = rt_note_source(r, "A", a, o->input[0]);
	if (!ret)
		ret = rt_note_source(r, "B", b, o->input[1]);
	if (!ret)
		ret = rt_note(r, "*_delta = B - A, *_delta_percent = (B - A) / A; status: new (only in B), "
			      "gone (only in A), changed (calls or errors differ), same; rows by |%s| "
			      "(--sort), then by the other changes%s",
			      sort_columns[o->sort],
			      o->sel.has_top ? "; --top: the first rows only" : "");
	if (!ret && (o->by & (1U << DF_PATH)))
		ret = paths_note(r, a, b);
	for (k = 0; !ret && k < DF_AMORTIZE; k++)
		if (o->by & (1U << k))
			ret = rt_add(r, diff_table(a, b, k, o));
	if (!ret && (o->by & (1U << DF_AMORTIZE)))
		ret = amortize_table(r, a, b, o->threshold);
	return ret;
}
