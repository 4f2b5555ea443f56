// SPDX-License-Identifier: GPL-2.0
/*
 * report paths: which files the file calls named, and with what result.
 * The backend counts a call's path per (image, site, syscall, result)
 * (start --paths); this sums those over images and sites into one row per
 * (path, syscall, result), with how many images and site rows made them.
 * A path longer than the bound, or one that could not be read, is a row
 * of its own, named as such.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static const char *const cols[] = {
	"count", "path", "abi", "nr", "syscall", "errno", "errno_name", "processes", "sites",
};

static const char *const keep[] = {
	"path", "count", "syscall", "errno_name", "processes", "sites", NULL,
};

/* The group's key first: path (NULL sorts last by kind), abi, nr, err. */
static int by_group(const void *a, const void *b)
{
	return st_path_row_cmp(*(const struct st_path_row *const *)a,
			       *(const struct st_path_row *const *)b);
}

static bool same_group(const struct st_path_row *x, const struct st_path_row *y)
{
	return x->kind == y->kind && !strcmp(x->path ? x->path : "", y->path ? y->path : "") &&
	       x->abi == y->abi && x->nr == y->nr && x->err == y->err;
}

struct pgroup {
	const struct st_path_row *first;
	uint64_t count, procs, sites;
};

/* Most calls first; then by path, syscall and errno, for a stable order. */
static int by_count(const void *a, const void *b)
{
	const struct pgroup *x = a, *y = b;
	const struct st_path_row *p = x->first, *q = y->first;

	if (x->count != y->count)
		return -CMP(x->count, y->count);
	return by_group(&p, &q);
}

static int notes(struct rt_report *r, const struct st_dump *d)
{
	if (!d->has_paths)
		return rt_note(r, "paths: not counted (start --paths; a module older than "
			       "its paths, a log, a dump saved without --sites, and a run "
			       "stored before the store kept paths, have none)");
	if (d->paths_mode == ST_PATHS_OFF)
		return rt_note(r, "paths: off (start --paths off)");
	return rt_note(r, "paths: %s (start --paths %s), %zu rows; dropped: %" PRIu64
		       " calls whose path had no room",
		       d->paths_mode == ST_PATHS_ALL ? "every file call" : "failed file calls",
		       st_paths_name(d->paths_mode), d->npaths, d->dropped_paths);
}

static int fill(struct rt_table *t, const struct pgroup *g, size_t ng)
{
	struct st_cell *c;
	size_t i;

	for (i = 0; i < ng; i++) {
		const struct st_path_row *p = g[i].first;
		const char *name = p->err ? st_errno_name(p->err) : "ok";

		c = rt_row(t);
		if (!c || rt_str(&c[1], st_path_shown(p)) || rt_syscall(&c[2], p->abi, p->nr) ||
		    (name && rt_str(&c[6], name)))
			return -ENOMEM;
		rt_u64(&c[0], g[i].count);
		rt_u64(&c[5], p->err);
		rt_u64(&c[7], g[i].procs);
		rt_u64(&c[8], g[i].sites);
	}
	return 0;
}

int report_paths(struct rt_report *r, struct st_dump *d, const struct report_opts *o)
{
	const struct st_path_row **v = NULL;
	struct pgroup *g = NULL;
	struct rt_table *t;
	size_t i, n = 0, ng = 0;
	int ret;

	ret = notes(r, d);
	if (ret)
		return ret;
	t = rt_table_new("paths", "paths of file calls, by calls", cols, ARRAY_SIZE(cols));
	if (!t)
		return -ENOMEM;
	t->ranked = true;
	ret = rt_table_keep(t, keep);
	if (ret) {
		rt_table_free(t);
		return ret;
	}
	v = calloc(d->npaths ? d->npaths : 1, sizeof(*v));
	g = calloc(d->npaths ? d->npaths : 1, sizeof(*g));
	if (!v || !g) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < d->npaths; i++)
		if (st_select_path(d, &o->sel, &d->paths[i]))
			v[n++] = &d->paths[i];
	st_qsort(v, n, sizeof(*v), by_group);
	for (i = 0; i < n; i++) {
		struct pgroup *cur = ng ? &g[ng - 1] : NULL;

		if (!cur || !same_group(cur->first, v[i])) {
			cur = &g[ng++];
			cur->first = v[i];
			cur->procs = 1;
		} else if (v[i - 1]->proc_id != v[i]->proc_id) {
			cur->procs++;
		}
		cur->count += v[i]->count;
		cur->sites++;
	}
	st_qsort(g, ng, sizeof(*g), by_count);
	ret = fill(t, g, ng);
out:
	free(v);
	free(g);
	if (ret) {
		rt_table_free(t);
		return ret;
	}
	return rt_add(r, t);
}
