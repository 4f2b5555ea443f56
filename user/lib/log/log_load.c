// SPDX-License-Identifier: GPL-2.0
/*
 * A saved log back into rows (st_log_load, log.h), streamed: what is kept
 * is one entry per image and one per (image, addr, abi, nr), never the
 * events. The rows are what the log says:
 *
 * an image's pid and comm are its first events'; a fork starts its child
 * (parent_id, start_ns; a row even if it made no call, with its parent's
 * comm and the fork's child_pid); an exec starts its image, names its executable
 * (path), and its prev_id is the latest earlier image of the same pid,
 * which ends there (end exec) unless it ended otherwise, and whose parent
 * it keeps; an exit ends an image (exited with exit_code, signaled with
 * exit_signal, else detached); an image neither forked nor exec'd starts
 * at its first event. A syscall with a map has a site row, keyed by
 * (proc_id, addr, abi, nr), whose calls, errors, times and first_ordinal
 * are its events'.
 *
 * The sums (st_log_sums) are what report phases and report timeline need
 * of the events: per image, whether a call had no phase, the first
 * program-phase call (seq and time), the interpreter (the site of its
 * first loader-phase call); per (image, addr, abi, nr), the calls of each
 * phase and the phase of the lowest-seq call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/hidx.h"
#include "log/log_read.h"
#include "log/recorder.h"

struct limg {
	struct st_proc_row row;
	struct st_log_image sum;
	uint64_t min_ts;
	bool own;		/* its pid and comm are set */
	bool started;		/* by its fork or exec */
};

/*
 * A group is 72 bytes: there are as many as site rows (millions), and
 * finish() turns the array into the sums' st_log_groups where it lies.
 * Without sums there are no groups: by_key indexes the site rows.
 */
struct lgroup {
	struct st_log_group g;
	uint32_t site;		/* in l->sites, plus one; 0: none */
};

/* A site row's errors by errno, exact: one entry per errno it returned. */
struct lerrs {
	struct st_errno_count *v;
	uint32_t n, cap;
	uint32_t site;		/* in l->sites */
};

struct loader {
	struct st_dump *d;
	struct limg *img;
	size_t nimg, imgcap;
	struct st_hidx by_id;
	uint32_t *by_pid;	/* pid -> latest image + 1, open addressing */
	size_t pidmask, npid;
	struct lgroup *grp;
	size_t ngrp, grpcap;
	bool images;		/* the sums of the images are wanted */
	bool groups;		/* and the groups': by_key indexes grp */
	struct st_hidx by_key;
	struct st_hcache img_c, grp_c;	/* the images and groups in use */
	struct lerrs *errs;	/* of the site rows with errors (a few) */
	size_t nerrs, errscap;
	struct st_hidx errs_by_site;
	struct st_site_row *sites;
	size_t nsites, sitecap;
	uint64_t events, syscalls, last_ns;
	uint64_t forks, execs, exits;
};

static bool img_eq(const void *ctx, uint32_t pos, const void *key)
{
	return ((const struct loader *)ctx)->img[pos].row.id == *(const uint64_t *)key;
}

static uint64_t img_hash(const void *ctx, uint32_t pos)
{
	return st_hash_mix(((const struct loader *)ctx)->img[pos].row.id);
}

static struct limg *img_find(struct loader *l, uint64_t id)
{
	int64_t i = st_hidx_find_c(&l->by_id, &l->img_c, st_hash_mix(id), img_eq, l, &id);

	return i >= 0 ? &l->img[i] : NULL;
}

/* The slot of pid in by_pid (holding its latest image + 1, or 0). */
static uint32_t *pid_slot(struct loader *l, uint32_t pid)
{
	size_t i;

	if (2 * (l->npid + 1) > l->pidmask + 1) {
		size_t s = l->pidmask ? 2 * (l->pidmask + 1) : 1024, j;
		uint32_t *n = calloc(s, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; l->by_pid && j <= l->pidmask; j++) {
			uint32_t v = l->by_pid[j];
			size_t k;

			if (!v)
				continue;
			for (k = st_hash_mix(l->img[v - 1].row.pid + 1) & (s - 1); n[k];
			     k = (k + 1) & (s - 1))
				;
			n[k] = v;
		}
		free(l->by_pid);
		l->by_pid = n;
		l->pidmask = s - 1;
	}
	for (i = st_hash_mix(pid + 1) & l->pidmask; l->by_pid[i];
	     i = (i + 1) & l->pidmask)
		if (l->img[l->by_pid[i] - 1].row.pid == pid)
			return &l->by_pid[i];
	return &l->by_pid[i];
}

static struct limg *img_of(struct loader *l, uint64_t id, uint32_t pid)
{
	struct limg *im = img_find(l, id);
	uint32_t *slot;

	if (im)
		return im;
	if (l->nimg == l->imgcap) {
		size_t cap = l->imgcap ? 2 * l->imgcap : 1024;
		struct limg *p = realloc(l->img, cap * sizeof(*p));

		if (!p)
			return NULL;
		l->img = p;
		l->imgcap = cap;
	}
	im = &l->img[l->nimg];
	memset(im, 0, sizeof(*im));
	im->row.id = id;
	im->row.pid = im->row.tgid = pid;
	im->min_ts = UINT64_MAX;
	im->sum.boundary = UINT64_MAX;
	im->sum.interp_seq = UINT64_MAX;
	if (st_hidx_add(&l->by_id, st_hash_mix(id), (uint32_t)l->nimg, img_hash, l))
		return NULL;
	slot = pid_slot(l, pid);
	if (!slot)
		return NULL;
	l->npid += !*slot;
	*slot = (uint32_t)l->nimg + 1;
	return &l->img[l->nimg++];
}

static bool grp_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct st_log_group *g = &((const struct loader *)ctx)->grp[pos].g;
	const struct st_event *e = key;

	return g->proc_id == e->proc_id && g->addr == e->addr && g->abi == e->abi &&
	       g->nr == e->nr;
}

static uint64_t key_hash(uint64_t proc_id, uint64_t addr, uint32_t abi, uint32_t nr)
{
	return st_hash3(proc_id, addr, (uint64_t)abi << 32 | nr);
}

static uint64_t grp_hash(const void *ctx, uint32_t pos)
{
	const struct st_log_group *g = &((const struct loader *)ctx)->grp[pos].g;

	return key_hash(g->proc_id, g->addr, g->abi, g->nr);
}

static struct lgroup *grp_of(struct loader *l, const struct st_event *e)
{
	uint64_t h = key_hash(e->proc_id, e->addr, e->abi, e->nr);
	int64_t i = st_hidx_find_c(&l->by_key, &l->grp_c, h, grp_eq, l, e);
	struct lgroup *g;

	if (i >= 0)
		return &l->grp[i];
	if (l->ngrp == l->grpcap) {
		size_t cap = l->grpcap ? 2 * l->grpcap : 4096;
		struct lgroup *p = realloc(l->grp, cap * sizeof(*p));

		if (!p)
			return NULL;
		l->grp = p;
		l->grpcap = cap;
	}
	g = &l->grp[l->ngrp];
	memset(g, 0, sizeof(*g));
	g->g.proc_id = e->proc_id;
	g->g.addr = e->addr;
	g->g.abi = e->abi;
	g->g.nr = e->nr;
	g->g.first_seq = UINT64_MAX;
	if (st_hidx_add(&l->by_key, h, (uint32_t)l->ngrp, grp_hash, l))
		return NULL;
	return &l->grp[l->ngrp++];
}

static bool site_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct st_site_row *s = &((const struct loader *)ctx)->sites[pos];
	const struct st_event *e = key;

	return s->proc_id == e->proc_id && s->addr == e->addr && s->abi == e->abi &&
	       s->nr == e->nr;
}

static uint64_t site_hash(const void *ctx, uint32_t pos)
{
	const struct st_site_row *s = &((const struct loader *)ctx)->sites[pos];

	return key_hash(s->proc_id, s->addr, s->abi, s->nr);
}

/*
 * A new site row from the event's, its strings pooled in d; indexed by
 * its key (hash h) when there are no groups. Returns its position or -1.
 */
static int64_t site_new(struct loader *l, const struct st_event *e, uint64_t h)
{
	const struct st_ev_site *from = e->site;
	struct st_site_row *s;

	if (l->nsites == UINT32_MAX - 1)
		return -1;
	if (l->nsites == l->sitecap) {
		size_t cap = l->sitecap ? 2 * l->sitecap : 4096;
		struct st_site_row *p = realloc(l->sites, cap * sizeof(*p));

		if (!p)
			return -1;
		l->sites = p;
		l->sitecap = cap;
	}
	s = &l->sites[l->nsites];
	memset(s, 0, sizeof(*s));
	s->proc_id = e->proc_id;
	s->addr = e->addr;
	s->abi = e->abi;
	s->nr = e->nr;
	s->map = from->map;
	s->offset = from->offset;
	s->first_ordinal = UINT64_MAX;
	s->first_ns = UINT64_MAX;
	s->min_ns = UINT64_MAX;
	if (st_dump_str(l->d, from->path, &s->path))
		return -1;
	if (from->sym && from->sym->symbol) {
		if (st_dump_sym(l->d, &(struct st_sym){ .symbol = from->sym->symbol }, &s->sym))
			return -1;
		l->d->symbolized = true;
	}
	if (!l->groups && st_hidx_add(&l->by_key, h, (uint32_t)l->nsites, site_hash, l))
		return -1;
	return (int64_t)l->nsites++;
}

/* The event's site row, new if the event has a site; -1: none, -2: no memory. */
static int64_t site_of(struct loader *l, const struct st_event *e)
{
	uint64_t h = key_hash(e->proc_id, e->addr, e->abi, e->nr);
	int64_t i = st_hidx_find_c(&l->by_key, &l->grp_c, h, site_eq, l, e);

	if (i >= 0 || !e->site)
		return i;
	i = site_new(l, e, h);
	return i >= 0 ? i : -2;
}

static bool errs_eq(const void *ctx, uint32_t pos, const void *key)
{
	return ((const struct loader *)ctx)->errs[pos].site == *(const uint32_t *)key;
}

static uint64_t errs_hash(const void *ctx, uint32_t pos)
{
	return st_hash_mix(((const struct loader *)ctx)->errs[pos].site);
}

/* One more error of errno err at a site (a site has a few errnos). */
static int site_errno(struct loader *l, uint32_t site, uint32_t err)
{
	int64_t k = st_hidx_find(&l->errs_by_site, st_hash_mix(site), errs_eq, l, &site);
	struct lerrs *e;
	uint32_t i;

	if (k < 0) {
		if (l->nerrs == UINT32_MAX - 1)
			return -ENOMEM;
		if (l->nerrs == l->errscap) {
			size_t cap = l->errscap ? 2 * l->errscap : 64;
			struct lerrs *p = realloc(l->errs, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			l->errs = p;
			l->errscap = cap;
		}
		k = (int64_t)l->nerrs;
		l->errs[k] = (struct lerrs){ .site = site };
		if (st_hidx_add(&l->errs_by_site, st_hash_mix(site), (uint32_t)k, errs_hash, l))
			return -ENOMEM;
		l->nerrs++;
	}
	e = &l->errs[k];
	for (i = 0; i < e->n; i++)
		if (e->v[i].err == err) {
			e->v[i].count++;
			return 0;
		}
	if (e->n == e->cap) {
		uint32_t cap = e->cap ? 2 * e->cap : 2;
		struct st_errno_count *p = realloc(e->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		e->v = p;
		e->cap = cap;
	}
	e->v[e->n++] = (struct st_errno_count){ err, 1 };
	return 0;
}

static void errs_free(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nerrs; i++)
		free(l->errs[i].v);
	free(l->errs);
	l->errs = NULL;
	l->nerrs = l->errscap = 0;
	st_hidx_free(&l->errs_by_site);
}

/* The site rows' errnos (every error is in the log). */
static int sites_errnos(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nerrs; i++) {
		const struct lerrs *v = &l->errs[i];
		struct st_errnos e;

		st_errnos_sum(v->v, v->n, &e);
		if (st_dump_errnos(l->d, &e, &l->sites[v->site].errnos))
			return -ENOMEM;
	}
	errs_free(l);
	return 0;
}

/* What the sums need of a syscall: its image's phases. */
static int image_phases(struct loader *l, struct limg *im, const struct st_event *e)
{
	struct st_log_image *sum = &im->sum;

	switch (e->phase) {
	case ST_PHASE_NONE:
		sum->unknown = true;
		break;
	case ST_PHASE_LOADER:
		sum->has_loader = true;
		/* The first in the log: the interpreter is where it was. */
		if (!sum->interp && e->site && e->site->path &&
		    st_dump_str(l->d, e->site->path, &sum->interp))
			return -ENOMEM;
		break;
	case ST_PHASE_PROGRAM:
		if (!sum->has_program || e->seq < sum->boundary)
			sum->boundary = e->seq;
		if (!sum->has_program || e->ts_ns < sum->program_ns)
			sum->program_ns = e->ts_ns;
		sum->has_program = true;
		break;
	}
	return 0;
}

/* ... and its group's. */
static void group_phases(struct lgroup *g, const struct st_event *e)
{
	switch (e->phase) {
	case ST_PHASE_NONE:
		g->g.none_calls++;
		break;
	case ST_PHASE_LOADER:
		g->g.loader_calls++;
		break;
	case ST_PHASE_PROGRAM:
		g->g.program_calls++;
		break;
	}
	if (e->seq < g->g.first_seq || g->g.first_seq == UINT64_MAX) {
		g->g.first_seq = e->seq;
		g->g.first_phase = e->phase;
	}
}

static int add_syscall(struct loader *l, struct limg *im, const struct st_event *e)
{
	struct st_proc_row *p = &im->row;
	bool error = e->ret < 0 && e->ret >= -4095;
	int64_t site;

	l->syscalls++;
	p->syscalls++;
	p->errors += error;
	p->syscall_ns += e->dur_ns;
	if (l->images && image_phases(l, im, e))
		return -ENOMEM;
	if (l->groups) {
		struct lgroup *g = grp_of(l, e);

		if (!g)
			return -ENOMEM;
		group_phases(g, e);
		if (e->site && !g->site) {
			site = site_new(l, e, 0);
			if (site < 0)
				return -ENOMEM;
			g->site = (uint32_t)site + 1;
		}
		site = (int64_t)g->site - 1;
	} else {
		site = site_of(l, e);
		if (site == -2)
			return -ENOMEM;
	}
	if (site >= 0) {
		struct st_site_row *s = &l->sites[site];

		s->calls++;
		s->errors += error;
		s->total_ns += e->dur_ns;
		if (e->dur_ns < s->min_ns)
			s->min_ns = e->dur_ns;
		if (e->dur_ns > s->max_ns)
			s->max_ns = e->dur_ns;
		if (e->seq < s->first_ordinal)
			s->first_ordinal = e->seq;
		if (e->ts_ns < s->first_ns)
			s->first_ns = e->ts_ns;
		if (error && site_errno(l, (uint32_t)site, (uint32_t)-e->ret))
			return -ENOMEM;
	}
	return 0;
}

/* src's argv to dst, which has none yet. Returns 0 or -ENOMEM. */
static int copy_argv(struct st_proc_row *dst, const struct st_proc_row *src)
{
	if (dst->argv || !src->argv)
		return 0;
	dst->argv = malloc(src->argv_len + 1);
	if (!dst->argv)
		return -ENOMEM;
	memcpy(dst->argv, src->argv, src->argv_len);
	dst->argv[src->argv_len] = '\0';
	dst->argv_len = src->argv_len;
	dst->argv_truncated = src->argv_truncated;
	return 0;
}

static int add_event(struct loader *l, const struct st_event *e)
{
	struct limg *im = img_find(l, e->proc_id), *prev = NULL, *child;
	const struct st_proc_row *from = e->proc;
	uint64_t end = e->ts_ns + (e->kind == ST_EV_SYSCALL ? e->dur_ns : 0);
	uint32_t *slot;

	l->events++;
	if (end > l->last_ns)
		l->last_ns = end;
	if (e->kind == ST_EV_EXEC) {
		slot = pid_slot(l, e->pid);
		if (!slot)
			return -ENOMEM;
		if (*slot && l->img[*slot - 1].row.id != e->proc_id)
			prev = &l->img[*slot - 1];
	}
	if (!im) {
		size_t prev_i = prev ? (size_t)(prev - l->img) : 0;

		im = img_of(l, e->proc_id, e->pid);
		if (!im)
			return -ENOMEM;
		prev = prev ? &l->img[prev_i] : NULL;
	}
	if (!im->own) {
		im->own = true;
		im->row.pid = im->row.tgid = e->pid;
	}
	if (!im->row.comm[0] && from && from->comm[0])
		memcpy(im->row.comm, from->comm, sizeof(im->row.comm));
	if (e->ts_ns < im->min_ts)
		im->min_ts = e->ts_ns;
	if (end > im->sum.last_ns)
		im->sum.last_ns = end;
	switch (e->kind) {
	case ST_EV_SYSCALL:
		return add_syscall(l, im, e);
	case ST_EV_FORK:
		l->forks++;
		child = img_of(l, e->child_proc_id, e->child_pid);
		if (!child)
			return -ENOMEM;
		/* A row even if it makes no call: a fork's child inherits its comm. */
		if (!child->own) {
			child->own = true;
			im = img_find(l, e->proc_id);
			memcpy(child->row.comm, im->row.comm, sizeof(child->row.comm));
			/* ... and its argv: the image is the same until an exec. */
			if (copy_argv(&child->row, &im->row))
				return -ENOMEM;
		}
		child->row.parent_id = e->proc_id;
		child->row.start_ns = e->ts_ns;
		child->started = true;
		return 0;
	case ST_EV_EXEC:
		l->execs++;
		im->row.start_ns = e->ts_ns;
		im->started = true;
		if (!im->row.exe && from && from->exe && !(im->row.exe = strdup(from->exe)))
			return -ENOMEM;
		if (from && copy_argv(&im->row, from))
			return -ENOMEM;
		if (prev) {
			im->row.prev_id = prev->row.id;
			if (!im->row.parent_id)
				im->row.parent_id = prev->row.parent_id;
			if (!prev->row.has_end_ns) {
				prev->row.has_end_ns = true;
				prev->row.end_ns = e->ts_ns;
				prev->row.end = SYSTRACE_END_EXEC;
			} else if (prev->row.end == SYSTRACE_END_DETACHED) {
				prev->row.end = SYSTRACE_END_EXEC;
			}
		}
		return 0;
	case ST_EV_EXIT:
		l->exits++;
		im->row.has_end_ns = true;
		im->row.end_ns = e->ts_ns;
		if (from) {
			im->row.has_exit_code = from->has_exit_code;
			im->row.exit_code = from->exit_code;
			im->row.has_exit_signal = from->has_exit_signal;
			im->row.exit_signal = from->exit_signal;
			im->row.end = from->end;
		}
		return 0;
	}
	return 0;
}

/* Sorting positions in the groups, not the groups: no second copy of them. */
static int grp_pos_cmp(const void *a, const void *b, void *ctx)
{
	const struct st_log_group *g = ctx;
	const struct st_log_group *x = &g[*(const uint32_t *)a];
	const struct st_log_group *y = &g[*(const uint32_t *)b];

	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->abi != y->abi)
		return x->abi < y->abi ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static int img_cmp(const void *a, const void *b)
{
	const struct limg *x = a, *y = b;

	return x->row.id < y->row.id ? -1 : x->row.id > y->row.id;
}

/*
 * Shrinks p (n elements of size, at least one) to its n elements; keeps p
 * if realloc cannot.
 */
static void *shrink(void *p, size_t n, size_t size)
{
	void *q = realloc(p, (n ? n : 1) * size);

	return q ? q : p;
}

/*
 * The groups as the sums' array, in l->grp's own memory: each st_log_group
 * moved down to its place (never past its own lgroup), then put in key
 * order by following the cycles of the sorted positions.
 */
static struct st_log_group *groups_in_place(struct loader *l)
{
	struct st_log_group *g = (struct st_log_group *)l->grp, tmp;
	uint32_t *pos;
	size_t i, j, k, n = l->ngrp;

	pos = malloc((n ? n : 1) * sizeof(*pos));
	if (!pos)
		return NULL;
	for (i = 0; i < n; i++) {
		memmove(&g[i], &l->grp[i].g, sizeof(*g));
		pos[i] = (uint32_t)i;
	}
	qsort_r(pos, n, sizeof(*pos), grp_pos_cmp, g);
	/* g[i] = old g[pos[i]]; a position done is marked pos[j] == j. */
	for (i = 0; i < n; i++) {
		if (pos[i] == i)
			continue;
		tmp = g[i];
		for (j = i; (k = pos[j]) != i; j = k) {
			g[j] = g[k];
			pos[j] = (uint32_t)j;
		}
		g[j] = tmp;
		pos[j] = (uint32_t)j;
	}
	free(pos);
	l->grp = NULL;
	l->ngrp = l->grpcap = 0;
	return shrink(g, n, sizeof(*g));
}

/*
 * The rows, sorted, into d; the sums beside them. The images become
 * d->procs and the groups the sums' in their own memory: at a glibc
 * build's 2 million groups a copy beside them was the readers' peak.
 */
static int finish(struct loader *l, struct st_log_sums *sums)
{
	struct st_dump *d = l->d;
	struct st_session_row *ss = &d->session;
	struct st_proc_row *procs;
	size_t i, ngrp = l->ngrp;

	if (sites_errnos(l))
		return -ENOMEM;
	/* The indexes are done with: their memory first. */
	st_hidx_free(&l->by_key);
	st_hidx_free(&l->by_id);
	free(l->by_pid);
	l->by_pid = NULL;

	if (sums && l->groups) {
		sums->groups = groups_in_place(l);
		if (!sums->groups)
			return -ENOMEM;
		sums->ngroups = ngrp;
	} else {
		free(l->grp);
		l->grp = NULL;
		l->ngrp = l->grpcap = 0;
	}
	if (!l->img && !(l->img = calloc(1, sizeof(*l->img))))
		return -ENOMEM;
	qsort(l->img, l->nimg, sizeof(*l->img), img_cmp);
	if (sums) {
		sums->images = calloc(l->nimg ? l->nimg : 1, sizeof(*sums->images));
		if (!sums->images)
			return -ENOMEM;
	}
	/* Each row moves down to its place, never past its own limg. */
	procs = (struct st_proc_row *)l->img;
	for (i = 0; i < l->nimg; i++) {
		struct limg *im = &l->img[i];

		if (!im->started)
			im->row.start_ns = im->min_ts;
		if (!im->row.parent_id && !im->row.prev_id)
			ss->flags |= SYSTRACE_SESSION_F_ON_EXEC;
		if (sums)
			sums->images[i] = im->sum;
		memmove(&procs[i], &im->row, sizeof(*procs));
	}
	d->procs = shrink(procs, l->nimg, sizeof(*procs));
	d->nprocs = l->nimg;
	l->img = NULL;
	l->nimg = l->imgcap = 0;
	d->sites = l->sites;
	d->nsites = l->nsites;
	l->sites = NULL;
	st_dump_sort(d);
	for (i = 0; i < d->nsites; i++) {
		struct st_proc_row *p = (struct st_proc_row *)st_dump_find_proc(d, d->sites[i].proc_id);

		if (p)
			p->sites++;
	}
	ss->state = SYSTRACE_STATE_FINISHED;
	ss->procs = d->nprocs;
	ss->sites = d->nsites;
	for (i = 0; i < d->nprocs; i++) {
		ss->syscalls += d->procs[i].syscalls;
		ss->errors += d->procs[i].errors;
		ss->syscall_ns += d->procs[i].syscall_ns;
	}
	ss->forks = l->forks;
	ss->execs = l->execs;
	ss->exits = l->exits;
	if (sums) {
		sums->events = l->events;
		sums->syscalls = l->syscalls;
		sums->last_ns = l->last_ns;
	}
	return 0;
}

static void loader_free(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nimg; i++) {
		free(l->img[i].row.exe);
		free(l->img[i].row.argv);
	}
	free(l->img);
	free(l->by_pid);
	st_hidx_free(&l->by_id);
	errs_free(l);
	free(l->grp);
	st_hidx_free(&l->by_key);
	free(l->sites);
}

void st_log_sums_free(struct st_log_sums *s)
{
	free(s->images);
	free(s->groups);
	memset(s, 0, sizeof(*s));
}

static int load(const char *path, struct st_dump *d, struct st_log_sums *sums,
		bool groups, st_log_progress_fn progress, void *ctx, struct st_err *err)
{
	struct loader l = { .d = d, .images = sums != NULL, .groups = sums && groups };
	struct st_log_src *src;
	struct st_event ev;
	uint64_t done, size;
	int ret;

	memset(d, 0, sizeof(*d));
	if (sums)
		memset(sums, 0, sizeof(*sums));
	ret = st_log_src_open(&src, path, err);
	if (ret)
		return ret;
	while ((ret = st_log_src_next(src, &ev, err)) == 1) {
		ret = add_event(&l, &ev);
		if (ret)
			break;
		if (progress && !(l.events & 0xfffff)) {
			st_log_src_progress(src, &done, &size);
			progress(ctx, done, size);
		}
	}
	d->session.id = st_log_src_meta(src)->session_id;
	st_log_src_close(src);
	if (!ret)
		ret = finish(&l, sums);
	if (ret == -ENOMEM)
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", path);
	loader_free(&l);
	if (ret) {
		st_dump_free(d);
		if (sums)
			st_log_sums_free(sums);
	}
	return ret;
}

int st_log_load(const char *path, struct st_dump *d, struct st_log_sums *sums,
		st_log_progress_fn progress, void *ctx, struct st_err *err)
{
	return load(path, d, sums, true, progress, ctx, err);
}

int st_log_load_images(const char *path, struct st_dump *d, struct st_log_sums *sums,
		       st_log_progress_fn progress, void *ctx, struct st_err *err)
{
	return load(path, d, sums, false, progress, ctx, err);
}

int st_log_sums_of(const struct st_log *log, struct st_dump *d,
		   struct st_log_sums *sums)
{
	struct st_dump tmp = { 0 };
	struct loader l = { .d = &tmp, .images = true, .groups = true };
	size_t i, k;
	int ret = 0;

	memset(sums, 0, sizeof(*sums));
	for (i = 0; i < log->n && !ret; i++)
		ret = add_event(&l, &log->ev[i]);
	if (!ret)
		ret = finish(&l, sums);
	/* The images as d has them: the sums follow d's rows. */
	if (!ret) {
		struct st_log_image *img = calloc(d->nprocs ? d->nprocs : 1, sizeof(*img));

		if (!img) {
			ret = -ENOMEM;
		} else {
			for (i = 0; i < d->nprocs; i++) {
				const struct st_proc_row *p = st_dump_find_proc(&tmp, d->procs[i].id);

				img[i].boundary = UINT64_MAX;
				if (p) {
					k = (size_t)(p - tmp.procs);
					img[i] = sums->images[k];
					if (img[i].interp && st_dump_str(d, img[i].interp,
									 &img[i].interp))
						ret = -ENOMEM;
				}
			}
			free(sums->images);
			sums->images = img;
		}
	}
	loader_free(&l);
	st_dump_free(&tmp);
	if (ret)
		st_log_sums_free(sums);
	return ret;
}
