// SPDX-License-Identifier: GPL-2.0
/* Helpers over the plain structs of model.h: freeing, ordering, lookups. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "model/names.h"

void st_sym_free(struct st_sym *sym)
{
	if (!sym)
		return;
	free((char *)sym->object);
	free((char *)sym->symbol);
	free((char *)sym->build_id);
	free((char *)sym->error);
	free(sym);
}

void st_dump_free(struct st_dump *d)
{
	size_t i;

	for (i = 0; i < d->nprocs; i++) {
		free(d->procs[i].exe);
		free(d->procs[i].argv);
	}
	free(d->procs);
	free(d->sites);
	free(d->paths);
	st_pool_free(d->pool);
	d->pool = NULL;
	d->procs = NULL;
	d->sites = NULL;
	d->paths = NULL;
	d->nprocs = 0;
	d->nsites = 0;
	d->npaths = 0;
	d->sunk = 0;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int proc_cmp(const void *a, const void *b)
{
	const struct st_proc_row *x = a, *y = b;

	return CMP(x->id, y->id);
}

/* Within an image, sites in the order the image first used them. */
int st_site_order(const struct st_site_key *x, const struct st_site_key *y)
{
	if (x->proc_id != y->proc_id)
		return CMP(x->proc_id, y->proc_id);
	if (x->first_ordinal != y->first_ordinal)
		return CMP(x->first_ordinal, y->first_ordinal);
	if (x->addr != y->addr)
		return CMP(x->addr, y->addr);
	if (x->abi != y->abi)
		return CMP(x->abi, y->abi);
	return CMP(x->nr, y->nr);
}

static int site_cmp(const void *a, const void *b)
{
	const struct st_site_row *x = a, *y = b;

	return st_site_order(&ST_SITE_KEY(x), &ST_SITE_KEY(y));
}

/*
 * qsort, unless the rows are in order already: the module sends them so
 * when its process list is in id order and each process's sites in the
 * order of their first calls, and a merge sort of 750k rows is not free.
 */
static void sort_rows(void *base, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	const char *p = base;
	size_t i;

	for (i = 1; i < n; i++, p += size)
		if (cmp(p, p + size) > 0) {
			st_qsort(base, n, size, cmp);
			return;
		}
}

void st_dump_sort(struct st_dump *d)
{
	sort_rows(d->procs, d->nprocs, sizeof(*d->procs), proc_cmp);
	sort_rows(d->sites, d->nsites, sizeof(*d->sites), site_cmp);
}

/* Needs st_dump_sort() first. */
const struct st_proc_row *st_dump_find_proc(const struct st_dump *d, uint64_t id)
{
	/*
	 * Sorted sites come a process at a time: the last answer first. It is
	 * checked against d's rows as they are now (ids are unique), so a dump
	 * freed or changed since cannot make it wrong.
	 */
	static __thread const struct st_proc_row *last;
	struct st_proc_row key = { .id = id };
	const struct st_proc_row *p;
	uintptr_t off;

	if (!d->nprocs)
		return NULL;
	off = (uintptr_t)last - (uintptr_t)d->procs;
	if (off < d->nprocs * sizeof(*last) && off % sizeof(*last) == 0 &&
	    last->id == id)
		return last;
	p = bsearch(&key, d->procs, d->nprocs, sizeof(*d->procs), proc_cmp);
	if (p)
		last = p;
	return p;
}

#define ST_PARAM(name, field, type, testing) \
	{ SYSTRACE_PARAM_##name, #field, ST_PARAM_##type, \
	  offsetof(struct st_params, field), testing }

const struct st_param_desc st_params_desc[] = {
	ST_PARAM(MAX_SESSIONS, max_sessions, U32, false),
	ST_PARAM(MAX_PROCS, max_procs, U32, false),
	ST_PARAM(MAX_SITES, max_sites, U32, false),
	ST_PARAM(MAX_MEM_BYTES, max_mem_bytes, U64, false),
	ST_PARAM(MAX_MEM_TOTAL_BYTES, max_mem_total_bytes, U64, false),
	ST_PARAM(FORCE_LATE_RESOLVE, force_late_resolve, BOOL, true),
};
#undef ST_PARAM

const size_t st_nparams = sizeof(st_params_desc) / sizeof(st_params_desc[0]);

uint64_t st_param_get(const struct st_params *p, const struct st_param_desc *d)
{
	const char *at = (const char *)p + d->offset;

	switch (d->type) {
	case ST_PARAM_U32:
		return *(const uint32_t *)at;
	case ST_PARAM_U64:
		return *(const uint64_t *)at;
	case ST_PARAM_BOOL:
		return *(const bool *)at;
	}
	return 0;
}

void st_param_set(struct st_params *p, const struct st_param_desc *d,
		  uint64_t v)
{
	char *at = (char *)p + d->offset;

	switch (d->type) {
	case ST_PARAM_U32:
		*(uint32_t *)at = (uint32_t)v;
		break;
	case ST_PARAM_U64:
		*(uint64_t *)at = v;
		break;
	case ST_PARAM_BOOL:
		*(bool *)at = v != 0;
		break;
	}
}

const struct st_stat_desc st_session_stats[] = {
#define ST_STAT_DESC(name, key, kind) \
	{ SYSTRACE_SESSION_A_##name, #key, SYSTRACE_STAT_##kind, \
	  offsetof(struct st_session_row, key) },
	SYSTRACE_SESSION_STATS(ST_STAT_DESC)
#undef ST_STAT_DESC
};

const size_t st_session_nstats =
	sizeof(st_session_stats) / sizeof(st_session_stats[0]);

int st_site_ptr_cmp(const void *a, const void *b)
{
	const struct st_site_row *x = *(const struct st_site_row *const *)a;
	const struct st_site_row *y = *(const struct st_site_row *const *)b;

	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->abi != y->abi)
		return x->abi < y->abi ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/*
 * Two drop counters say why something counted in another was lost: a site
 * row not made (dropped_sites) loses the call that needed it, counted in
 * dropped_syscalls by both tracers; an allocation failure (dropped_nomem)
 * loses a site row, a process, a counter, or nothing (a hash table left
 * small). Summed with the others, one lost call would count twice.
 */
bool st_stat_is_cause(const struct st_stat_desc *d)
{
	return d->attr == SYSTRACE_SESSION_A_DROPPED_SITES ||
	       d->attr == SYSTRACE_SESSION_A_DROPPED_NOMEM;
}

/* What was lost, each once: calls, processes, site mappings, counters. */
uint64_t st_session_dropped(const struct st_session_row *s)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < st_session_nstats; i++)
		if (st_session_stats[i].kind == SYSTRACE_STAT_DROP &&
		    !st_stat_is_cause(&st_session_stats[i]))
			sum += st_stat_get(s, &st_session_stats[i]);
	return sum;
}

void st_format_dropped(const struct st_session_row *s, char *buf, size_t len)
{
	const size_t skip = strlen("dropped_");
	const char *sep = "";
	size_t i, at = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; i < st_session_nstats && at < len; i++) {
		const struct st_stat_desc *d = &st_session_stats[i];

		if (d->kind != SYSTRACE_STAT_DROP)
			continue;
		n = snprintf(buf + at, len - at, "%s%s %" PRIu64, sep,
			     d->key + skip, st_stat_get(s, d));
		if (n < 0)
			break;
		at += (size_t)n;
		sep = ", ";
	}
}

/* Errno counts: errnos 1 .. 4095, as the ABI defines errors. */
#define ERRNO_MAX 4095

/* x before y: more errors, or as many and a smaller errno. */
static bool errno_before(const struct st_errno_count *x,
			 const struct st_errno_count *y)
{
	return x->count != y->count ? x->count > y->count : x->err < y->err;
}

int st_errno_count_cmp(const void *a, const void *b)
{
	const struct st_errno_count *x = a, *y = b;

	if (x->err == y->err && x->count == y->count)
		return 0;
	return errno_before(x, y) ? -1 : 1;
}

void st_errnos_add(struct st_errnos *e, uint32_t err, uint64_t count)
{
	struct st_errno_count c = { err, count }, t;
	uint32_t i;

	if (!count)
		return;
	if (!err || err > ERRNO_MAX) {
		e->other += count;
		return;
	}
	for (i = 0; i < e->n && e->v[i].err != err; i++)
		;
	if (i < e->n) {
		e->v[i].count += count;
	} else if (e->n < SYSTRACE_SITE_ERRNOS) {
		e->v[e->n++] = c;
	} else if (errno_before(&c, &e->v[i - 1])) {
		e->other += e->v[--i].count;
		e->v[i] = c;
	} else {
		e->other += count;
		return;
	}
	/* v[i] grew or came in: move it up to its place. */
	for (; i > 0 && errno_before(&e->v[i], &e->v[i - 1]); i--) {
		t = e->v[i - 1];
		e->v[i - 1] = e->v[i];
		e->v[i] = t;
	}
}

uint64_t st_errnos_total(const struct st_errnos *e)
{
	uint64_t sum = e->other;
	uint32_t i;

	for (i = 0; i < e->n; i++)
		sum += e->v[i].count;
	return sum;
}

static int by_errno(const void *a, const void *b)
{
	const struct st_errno_count *x = a, *y = b;

	return CMP(x->err, y->err);
}

size_t st_errnos_sum(struct st_errno_count *v, size_t n, struct st_errnos *out)
{
	size_t i, k = 0;

	memset(out, 0, sizeof(*out));
	st_qsort(v, n, sizeof(*v), by_errno);
	for (i = 0; i < n; i++) {
		if (!v[i].count)
			continue;
		if (k && v[k - 1].err == v[i].err)
			v[k - 1].count += v[i].count;
		else
			v[k++] = v[i];
	}
	st_qsort(v, k, sizeof(*v), st_errno_count_cmp);
	/* In order, each errno once: the first ones are kept exact. */
	for (i = 0; i < k; i++)
		st_errnos_add(out, v[i].err, v[i].count);
	return k;
}

void st_errnos_format(const struct st_errnos *e, char *buf, size_t len)
{
	const char *name;
	size_t at = 0;
	uint32_t i;
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < e->n && at < len; i++) {
		name = st_errno_name(e->v[i].err);
		n = snprintf(buf + at, len - at, "%s%s(%" PRIu32 ")=%" PRIu64, i ? " " : "",
			     name ? name : "", e->v[i].err, e->v[i].count);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

/* One "NAME(ERRNO)=COUNT": its errno and count; the end in *end. */
static int parse_errno(const char *s, uint32_t *err, uint64_t *count,
		       const char **end)
{
	unsigned long long e, c;
	char *p;

	while ((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')
		s++;
	if (*s++ != '(' || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	e = strtoull(s, &p, 10);
	if (errno || !e || e > ERRNO_MAX || p[0] != ')' || p[1] != '=' ||
	    p[2] < '0' || p[2] > '9')
		return -EINVAL;
	c = strtoull(p + 2, &p, 10);
	if (errno || !c)
		return -EINVAL;
	*err = (uint32_t)e;
	*count = c;
	*end = p;
	return 0;
}

int st_errnos_parse(const char *s, struct st_errnos *e)
{
	uint64_t count;
	uint32_t err, i;

	memset(e, 0, sizeof(*e));
	while (*s) {
		if (parse_errno(s, &err, &count, &s) || (*s && *s++ != ' ') ||
		    e->n == SYSTRACE_SITE_ERRNOS)
			return -EINVAL;
		for (i = 0; i < e->n; i++)
			if (e->v[i].err == err)
				return -EINVAL;
		st_errnos_add(e, err, count);
	}
	return 0;
}

/* v merged into d by m (SYSTRACE_MERGE_*); first: d holds nothing yet. */
static uint64_t merge(enum systrace_merge m, uint64_t d, uint64_t v, bool first)
{
	switch (m) {
	case SYSTRACE_MERGE_SUM:
		return d + v;
	case SYSTRACE_MERGE_MIN:
		return first || v < d ? v : d;
	case SYSTRACE_MERGE_MAX:
		return first || v > d ? v : d;
	}
	return d;
}

struct agg_key {
	const struct st_site_row *site;
	uint64_t proc_id;
};

static int agg_cmp(const void *a, const void *b)
{
	const struct agg_key *x = a, *y = b;

	if (x->proc_id != y->proc_id)
		return CMP(x->proc_id, y->proc_id);
	if (x->site->abi != y->site->abi)
		return CMP(x->site->abi, y->site->abi);
	return CMP(x->site->nr, y->site->nr);
}

/* A group's errno counts, gathered from its sites' then summed. */
struct errno_acc {
	struct st_errno_count *v;
	size_t n, cap;
	bool unknown;
};

static int acc_add(struct errno_acc *a, const struct st_errnos *e)
{
	uint32_t i;

	if (!e) {
		a->unknown = true;
		return 0;
	}
	if (a->n + e->n + 1 > a->cap) {
		size_t cap = (a->n + e->n + 1) * 2;
		struct st_errno_count *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	for (i = 0; i < e->n; i++)
		a->v[a->n++] = e->v[i];
	/* Another site's "other" stays other: errno 0 goes there. */
	a->v[a->n++] = (struct st_errno_count){ 0, e->other };
	return 0;
}

static void acc_finish(struct errno_acc *a, struct st_sysagg *r)
{
	uint64_t other = 0;
	size_t i, k = 0;

	for (i = 0; i < a->n; i++) {
		if (a->v[i].err)
			a->v[k++] = a->v[i];
		else
			other += a->v[i].count;
	}
	r->has_errnos = !a->unknown;
	st_errnos_sum(a->v, k, &r->errnos);
	r->errnos.other += other;
	a->n = 0;
	a->unknown = false;
}

/*
 * Sums the site rows per (image, abi, nr), or per (abi, nr) over the whole
 * tree when !per_process (proc_id is then 0). Rows come out ordered by
 * proc_id, abi, nr. Returns 0 or -ENOMEM.
 */
int st_aggregate_syscalls(const struct st_dump *d, bool per_process,
			  struct st_sysagg **out, size_t *n)
{
	struct errno_acc acc = { 0 };
	struct agg_key *keys;
	struct st_sysagg *rows, *r = NULL;
	size_t i, nrows = 0;

	*out = NULL;
	*n = 0;
	if (!d->nsites)
		return 0;
	keys = calloc(d->nsites, sizeof(*keys));
	rows = calloc(d->nsites, sizeof(*rows));
	if (!keys || !rows)
		goto nomem;
	for (i = 0; i < d->nsites; i++) {
		keys[i].site = &d->sites[i];
		keys[i].proc_id = per_process ? d->sites[i].proc_id : 0;
	}
	st_qsort(keys, d->nsites, sizeof(*keys), agg_cmp);
	for (i = 0; i < d->nsites; i++) {
		const struct st_site_row *s = keys[i].site;
		bool first = !r || r->proc_id != keys[i].proc_id ||
			     r->abi != s->abi || r->nr != s->nr;

		if (first) {
			if (r)
				acc_finish(&acc, r);
			r = &rows[nrows++];
			r->proc_id = keys[i].proc_id;
			r->abi = s->abi;
			r->nr = s->nr;
		}
#define ST_SITE_MERGE(name, field, kind) \
		r->field = merge(SYSTRACE_MERGE_##kind, r->field, s->field, first);
		SYSTRACE_SITE_COUNTERS(ST_SITE_MERGE)
#undef ST_SITE_MERGE
		r->sites++;
		if (acc_add(&acc, s->errnos))
			goto nomem;
	}
	acc_finish(&acc, r);
	free(acc.v);
	free(keys);
	*out = rows;
	*n = nrows;
	return 0;
nomem:
	free(acc.v);
	free(keys);
	free(rows);
	return -ENOMEM;
}

static const char *const backend_names[] = {
	[ST_BACKEND_KMOD] = "kmod",
	[ST_BACKEND_BPF] = "bpf",
	[ST_BACKEND_AUTO] = "auto",
};

int st_backend_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++)
		if (!strcmp(s, backend_names[i]))
			return (int)i;
	return -1;
}

static const char *const paths_names[] = {
	[ST_PATHS_ERRORS] = "errors",
	[ST_PATHS_ALL] = "all",
	[ST_PATHS_OFF] = "off",
};

int st_paths_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(paths_names) / sizeof(paths_names[0]); i++)
		if (!strcmp(s, paths_names[i]))
			return (int)i;
	return -1;
}

const char *st_paths_name(uint32_t mode)
{
	return mode <= ST_PATHS_OFF ? paths_names[mode] : NULL;
}

const char *st_path_shown(const struct st_path_row *r)
{
	if (r->kind == ST_PATH_LONG)
		return "<longer than 255 bytes>";
	if (r->kind == ST_PATH_UNREADABLE || !r->path)
		return "<unreadable>";
	return r->path;
}

static const char *const path_kinds[] = {
	[ST_PATH_OK] = "ok",
	[ST_PATH_LONG] = "long",
	[ST_PATH_UNREADABLE] = "unreadable",
};

const char *st_path_kind_name(uint32_t kind)
{
	return kind <= ST_PATH_UNREADABLE ? path_kinds[kind] : NULL;
}

int st_path_kind_parse(const char *s)
{
	int i;

	for (i = 0; i <= ST_PATH_UNREADABLE; i++)
		if (!strcmp(s, path_kinds[i]))
			return i;
	return -1;
}

const char *st_path_result(uint32_t err, char *buf, size_t len)
{
	const char *name = err ? st_errno_name(err) : "ok";

	if (name)
		return name;
	snprintf(buf, len, "%u", err);
	return buf;
}

int st_path_result_parse(const char *s)
{
	char *end;
	unsigned long v;
	int e;

	if (!strcmp(s, "ok"))
		return 0;
	if (*s >= '1' && *s <= '9') {
		v = strtoul(s, &end, 10);
		return !*end && v <= 4095 ? (int)v : -1;
	}
	for (e = 1; e <= 4095; e++) {
		const char *name = st_errno_name((uint32_t)e);

		if (name && !strcmp(name, s))
			return e;
	}
	return -1;
}

int st_path_site_key(const struct st_path_row *x, const struct st_site_row *s)
{
	if (x->proc_id != s->proc_id)
		return CMP(x->proc_id, s->proc_id);
	if (x->addr != s->addr)
		return CMP(x->addr, s->addr);
	if (x->abi != s->abi)
		return CMP(x->abi, s->abi);
	return CMP(x->nr, s->nr);
}

int st_path_site_cmp(const void *a, const void *b)
{
	const struct st_path_row *x = *(const struct st_path_row *const *)a;
	const struct st_path_row *y = *(const struct st_path_row *const *)b;
	const struct st_site_row ys = { .proc_id = y->proc_id, .addr = y->addr,
					.abi = y->abi, .nr = y->nr };
	int c = st_path_site_key(x, &ys);

	return c ? c : st_path_row_cmp(x, y);
}

int st_path_row_cmp(const struct st_path_row *x, const struct st_path_row *y)
{
	int c;

	if (x->kind != y->kind)
		return CMP(x->kind, y->kind);
	c = strcmp(x->path ? x->path : "", y->path ? y->path : "");
	if (c)
		return c;
	if (x->abi != y->abi)
		return CMP(x->abi, y->abi);
	if (x->nr != y->nr)
		return CMP(x->nr, y->nr);
	if (x->err != y->err)
		return CMP(x->err, y->err);
	if (x->proc_id != y->proc_id)
		return CMP(x->proc_id, y->proc_id);
	return CMP(x->addr, y->addr);
}

const char *st_backend_name(uint32_t kind)
{
	return kind < ST_BACKEND_AUTO ? backend_names[kind] : NULL;
}
