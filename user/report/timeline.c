// SPDX-License-Identifier: GPL-2.0
/*
 * report timeline: the lifetimes of a session's images, ordered by start,
 * as a table and as an SVG that stays readable at 100,000 processes.
 *
 * With a temporal log each lifetime splits by phase: the loader segment
 * runs from the image's start to its first program-phase syscall (to its
 * end when it made none); the rest is the program. Without a log (a dump)
 * the bars are lifetimes only.
 *
 * The picture, from the top: a header (the command, the wall time, the
 * average and the most processes running at once, the slowest processes
 * that started no other, the critical path's length and what it is made
 * of); a time axis; a curve of how many processes run at once (stacked:
 * loader phase under program phase), averaged over each pixel's time;
 * the lanes: each process in the lowest lane free at its start, so there
 * are as many lanes as processes ever ran at once; the critical path
 * drawn over them; the time axis again. A bar narrower than 2 px does not
 * stand alone: the bars of a lane that touch (less than 1 px apart) are
 * one rect, blue, with an orange part from its bottom as tall as the
 * loader's share of their time. Lanes are
 * 14 px, thinner when needed to keep the picture within TL_MAX_H px.
 *
 * The critical path: what the end of the run waited for. From the image
 * chain (an image and those that replaced it by exec) that ends last,
 * walking back in time: at time t in chain P, the child chain of P that
 * ended last at or before t is what P waited for; the path is in P from
 * that child's end to t, then in the child (recursively), then back in P
 * from the child's start. Every instant of the run is in one process.
 *
 * The SVG stands alone: no script, no stylesheet, the generic sans-serif
 * font; it opens in any browser and renders with rsvg-convert.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "report.h"
#include "libsystrace.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int by_start(const void *a, const void *b)
{
	const struct tl_row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->proc->id < y->proc->id ? -1 : x->proc->id > y->proc->id;
}

/* The latest time the data knows of: ends, and the log's events. */
static uint64_t last_ns(const struct st_dump *d, const struct st_log_sums *log)
{
	uint64_t t = log ? log->last_ns : 0;
	size_t i;

	for (i = 0; i < d->nprocs; i++) {
		const struct st_proc_row *p = &d->procs[i];

		if (p->start_ns > t)
			t = p->start_ns;
		if (p->has_end_ns && p->end_ns > t)
			t = p->end_ns;
	}
	return t;
}

/* Loader segments from the log's sums: rows are in d->procs' order here. */
static void loader_ends(struct tl_result *r, const struct st_log_sums *log)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct st_log_image *im = &log->images[i];
		struct tl_row *row = &r->rows[i];

		row->has_program = im->has_program;
		row->program_ns = im->program_ns;
		row->has_loader = im->has_loader;
		if (!row->has_loader)
			continue;
		row->loader_end = row->has_program && row->program_ns > row->start ?
				  row->program_ns : row->end;
		if (row->loader_end > row->end)
			row->loader_end = row->end;
	}
}

/* ---- lanes: the lowest free one at each start ---- */

struct busy {
	uint64_t end;
	uint32_t lane;
};

static void heap_up(struct busy *h, size_t i)
{
	while (i && (h[i].end < h[(i - 1) / 2].end ||
		     (h[i].end == h[(i - 1) / 2].end && h[i].lane < h[(i - 1) / 2].lane))) {
		struct busy t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_down(struct busy *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct busy t;

		if (l < n && (h[l].end < h[m].end || (h[l].end == h[m].end && h[l].lane < h[m].lane)))
			m = l;
		if (l + 1 < n && (h[l + 1].end < h[m].end ||
				  (h[l + 1].end == h[m].end && h[l + 1].lane < h[m].lane)))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Free lanes: a min-heap of lane numbers. */
static void lane_up(uint32_t *h, size_t i)
{
	while (i && h[i] < h[(i - 1) / 2]) {
		uint32_t t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void lane_down(uint32_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint32_t t;

		if (l < n && h[l] < h[m])
			m = l;
		if (l + 1 < n && h[l + 1] < h[m])
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Rows by start: a row whose end is its start still takes its lane then. */
static int pack_lanes(struct tl_result *r)
{
	struct busy *busy = malloc((r->n ? r->n : 1) * sizeof(*busy));
	uint32_t *free_l = malloc((r->n ? r->n : 1) * sizeof(*free_l));
	size_t nbusy = 0, nfree = 0, i;

	if (!busy || !free_l) {
		free(busy);
		free(free_l);
		return -ENOMEM;
	}
	r->lanes = 0;
	for (i = 0; i < r->n; i++) {
		struct tl_row *row = &r->rows[i];

		while (nbusy && busy[0].end <= row->start) {
			free_l[nfree] = busy[0].lane;
			lane_up(free_l, nfree++);
			busy[0] = busy[--nbusy];
			heap_down(busy, nbusy, 0);
		}
		if (nfree) {
			row->lane = free_l[0];
			free_l[0] = free_l[--nfree];
			lane_down(free_l, nfree, 0);
		} else {
			row->lane = r->lanes++;
		}
		/* An instant's row keeps its lane for that instant only. */
		busy[nbusy] = (struct busy){ row->end > row->start ? row->end : row->start, row->lane };
		heap_up(busy, nbusy++);
	}
	free(busy);
	free(free_l);
	return 0;
}

/* ---- the critical path ---- */

struct chain {
	size_t head;			/* its first row */
	uint64_t start, end;
	size_t *kids;			/* child chains, by end */
	size_t nkids;
	ssize_t next;			/* walk: the next child to try, or -1 */
};

struct crit {
	struct tl_result *r;
	size_t *chain_of;		/* row -> chain */
	struct chain *c;
	size_t nc;
	size_t *img_next;		/* row -> the row that replaced it, or SIZE_MAX */
	size_t *img_prev;		/* row -> the row it replaced, or SIZE_MAX */
};

static int by_end(const void *a, const void *b, void *ctx)
{
	const struct chain *c = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (c[x].end != c[y].end)
		return c[x].end < c[y].end ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The rows of a chain that overlap [from, to): stretches of the path,
 * added latest first (the walk goes back in time).
 */
static int crit_emit(struct crit *k, size_t chain, uint64_t from, uint64_t to,
		     size_t *cap)
{
	struct tl_result *r = k->r;
	size_t row, last;

	for (last = k->c[chain].head; k->img_next[last] != SIZE_MAX; last = k->img_next[last])
		;
	for (row = last; row != SIZE_MAX; row = k->img_prev[row]) {
		const struct tl_row *t = &r->rows[row];
		uint64_t a = from > t->start ? from : t->start;
		uint64_t b = to < t->end ? to : t->end;

		if (row == last)
			b = to;		/* the chain's last image holds its end */
		if (row == k->c[chain].head)
			a = from;
		if (a >= b)
			continue;
		if (r->ncrit && r->crit[r->ncrit - 1].row == row &&
		    r->crit[r->ncrit - 1].from == b) {
			r->crit[r->ncrit - 1].from = a;
			continue;
		}
		if (r->ncrit == *cap) {
			size_t n = *cap ? 2 * *cap : 256;
			struct tl_seg *s = realloc(r->crit, n * sizeof(*s));

			if (!s)
				return -ENOMEM;
			r->crit = s;
			*cap = n;
		}
		r->crit[r->ncrit++] = (struct tl_seg){ row, a, b };
	}
	return 0;
}

static int crit_walk(struct crit *k)
{
	size_t *stack = malloc((k->nc ? k->nc : 1) * sizeof(*stack));
	size_t top = 0, p = 0, i, cap = 0;
	uint64_t t;
	int ret = 0;

	if (!stack)
		return -ENOMEM;
	for (i = 1; i < k->nc; i++)
		if (k->c[i].end > k->c[p].end)
			p = i;
	t = k->c[p].end;
	for (;;) {
		struct chain *P = &k->c[p];
		ssize_t j = P->next;

		while (j >= 0 && k->c[P->kids[j]].end > t)
			j--;
		if (j >= 0 && k->c[P->kids[j]].end > P->start) {
			size_t kid = P->kids[j];

			P->next = j - 1;
			ret = crit_emit(k, p, k->c[kid].end, t, &cap);
			if (ret)
				break;
			stack[top++] = p;
			p = kid;
			t = k->c[kid].end;
			continue;
		}
		P->next = j;
		ret = crit_emit(k, p, P->start, t, &cap);
		if (ret || !top)
			break;
		t = P->start;
		p = stack[--top];
	}
	free(stack);
	/* Walked backwards: in time order now. */
	for (i = 0; !ret && i < k->r->ncrit / 2; i++) {
		struct tl_seg s = k->r->crit[i];

		k->r->crit[i] = k->r->crit[k->r->ncrit - 1 - i];
		k->r->crit[k->r->ncrit - 1 - i] = s;
	}
	return ret;
}

static int by_proc_id(const void *a, const void *b)
{
	const struct tl_row *x = *(const struct tl_row *const *)a;
	const struct tl_row *y = *(const struct tl_row *const *)b;

	return x->proc->id < y->proc->id ? -1 : x->proc->id > y->proc->id;
}

static const struct tl_row *row_by_id(const struct tl_row **byid, size_t n,
				      uint64_t id)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (byid[m]->proc->id < id)
			a = m + 1;
		else
			b = m;
	}
	return a < n && byid[a]->proc->id == id ? byid[a] : NULL;
}

static int critical_path(struct tl_result *r)
{
	const struct tl_row **byid = malloc((r->n ? r->n : 1) * sizeof(*byid));
	struct crit k = { .r = r };
	size_t i, *nkids = NULL, *kids = NULL;
	int ret = -ENOMEM;

	k.chain_of = malloc((r->n ? r->n : 1) * sizeof(*k.chain_of));
	k.img_next = malloc((r->n ? r->n : 1) * sizeof(*k.img_next));
	k.img_prev = malloc((r->n ? r->n : 1) * sizeof(*k.img_prev));
	k.c = calloc(r->n ? r->n : 1, sizeof(*k.c));
	nkids = calloc(r->n + 1, sizeof(*nkids));
	kids = malloc((r->n ? r->n : 1) * sizeof(*kids));
	if (!byid || !k.chain_of || !k.img_next || !k.img_prev || !k.c || !nkids || !kids)
		goto out;
	for (i = 0; i < r->n; i++) {
		byid[i] = &r->rows[i];
		k.img_next[i] = k.img_prev[i] = SIZE_MAX;
	}
	qsort(byid, r->n, sizeof(*byid), by_proc_id);
	/* By start: an image's previous one comes first. */
	for (i = 0; i < r->n; i++) {
		const struct tl_row *prev = r->rows[i].proc->prev_id ?
			row_by_id(byid, r->n, r->rows[i].proc->prev_id) : NULL;
		size_t pi = prev ? (size_t)(prev - r->rows) : SIZE_MAX;

		if (prev && pi < i && k.img_next[pi] == SIZE_MAX) {
			k.chain_of[i] = k.chain_of[pi];
			k.img_next[pi] = i;
			k.img_prev[i] = pi;
			if (r->rows[i].end > k.c[k.chain_of[i]].end)
				k.c[k.chain_of[i]].end = r->rows[i].end;
			continue;
		}
		k.chain_of[i] = k.nc;
		k.c[k.nc++] = (struct chain){ .head = i, .start = r->rows[i].start,
					      .end = r->rows[i].end };
	}
	/* A chain's children: the chains its images forked. */
	for (i = 0; i < k.nc; i++) {
		const struct tl_row *head = &r->rows[k.c[i].head];
		const struct tl_row *parent = head->proc->parent_id ?
			row_by_id(byid, r->n, head->proc->parent_id) : NULL;

		if (parent) {
			r->rows[parent - r->rows].has_children = true;
			nkids[k.chain_of[parent - r->rows]]++;
		}
	}
	for (i = 1; i <= k.nc; i++)
		nkids[i] += nkids[i - 1];
	for (i = 0; i < k.nc; i++)
		k.c[i].kids = kids + (i ? nkids[i - 1] : 0);
	for (i = 0; i < k.nc; i++) {
		const struct tl_row *head = &r->rows[k.c[i].head];
		const struct tl_row *parent = head->proc->parent_id ?
			row_by_id(byid, r->n, head->proc->parent_id) : NULL;
		struct chain *pc;

		if (!parent)
			continue;
		pc = &k.c[k.chain_of[parent - r->rows]];
		pc->kids[pc->nkids++] = i;
	}
	for (i = 0; i < k.nc; i++) {
		qsort_r(k.c[i].kids, k.c[i].nkids, sizeof(size_t), by_end, k.c);
		k.c[i].next = (ssize_t)k.c[i].nkids - 1;
	}
	ret = k.nc ? crit_walk(&k) : 0;
out:
	free(byid);
	free(k.chain_of);
	free(k.img_next);
	free(k.img_prev);
	free(k.c);
	free(nkids);
	free(kids);
	return ret;
}

int st_timeline(const struct st_dump *d, const struct st_log_sums *log,
		struct tl_result *r)
{
	uint64_t last = last_ns(d, log);
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->rows = calloc(d->nprocs ? d->nprocs : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	r->n = d->nprocs;
	r->phases = log != NULL;
	r->t0 = UINT64_MAX;
	for (i = 0; i < d->nprocs; i++) {
		struct tl_row *row = &r->rows[i];
		const struct st_proc_row *p = &d->procs[i];

		row->proc = p;
		row->start = p->start_ns;
		row->running = !p->has_end_ns;
		row->end = p->has_end_ns ? p->end_ns : last;
		if (row->end < row->start)
			row->end = row->start;
		if (row->start < r->t0)
			r->t0 = row->start;
		if (row->end > r->t1)
			r->t1 = row->end;
		r->busy_ns += row->end - row->start;
	}
	if (!r->n)
		r->t0 = 0;
	if (log)
		loader_ends(r, log);
	qsort(r->rows, r->n, sizeof(*r->rows), by_start);
	ret = pack_lanes(r);
	if (!ret)
		ret = critical_path(r);
	if (ret)
		st_timeline_free(r);
	return ret;
}

void st_timeline_free(struct tl_result *r)
{
	free(r->rows);
	free(r->crit);
	memset(r, 0, sizeof(*r));
}

static const char *const cols[] = {
	"proc_id", "pid", "comm", "start_ms", "end_ms", "duration_ms",
	"loader_ms", "running",
};

/* ns as ms with 4 decimals. */
static void ms(struct st_cell *c, uint64_t ns)
{
	c->kind = ST_FIXED;
	c->decimals = 4;
	c->u = ns / 100;
}

static struct rt_table *rows_table(const struct tl_result *tl)
{
	struct rt_table *t = rt_table_new("processes",
					  "per image, by start (ms from the first start)",
					  cols, ARRAY_SIZE(cols));
	size_t i;

	if (!t)
		return NULL;
	t->ranked = true;	/* --sort and --top: the text's rows, not the picture */
	t->detail = true;
	for (i = 0; i < tl->n; i++) {
		const struct tl_row *row = &tl->rows[i];
		struct st_cell *c = rt_row(t);

		if (!c || rt_str(&c[2], row->proc->comm)) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], row->proc->id);
		rt_u64(&c[1], row->proc->pid);
		ms(&c[3], row->start - tl->t0);
		ms(&c[4], row->end - tl->t0);
		ms(&c[5], row->end - row->start);
		if (tl->phases)
			ms(&c[6], row->has_loader ? row->loader_end - row->start : 0);
		rt_u64(&c[7], row->running);
	}
	return t;
}

static const char *const totals_cols[] = {
	"images", "wall_ns", "busy_ns", "most_at_once",
};

/* The whole tree: its span, its images' lifetimes summed, the most at once. */
static struct rt_table *totals_table(const struct tl_result *tl)
{
	struct st_cell *c;
	struct rt_table *t = rt_totals(totals_cols, ARRAY_SIZE(totals_cols), &c);

	if (!t)
		return NULL;
	rt_u64(&c[0], tl->n);
	rt_u64(&c[1], tl->t1 - tl->t0);
	rt_u64(&c[2], tl->busy_ns);
	rt_u64(&c[3], tl->lanes);
	return t;
}

/* The command: the executable (else the comm) of the first image without a parent. */
static const char *command_of(const struct tl_result *tl)
{
	size_t i;

	for (i = 0; i < tl->n; i++)
		if (!tl->rows[i].proc->parent_id)
			return tl->rows[i].proc->exe ? tl->rows[i].proc->exe :
							 tl->rows[i].proc->comm;
	return tl->n ? tl->rows[0].proc->comm : NULL;
}

static int write_svg(const char *path, const struct tl_result *tl,
		     const struct st_dump *d)
{
	char title[160];
	struct tl_header h = { .title = title, .command = command_of(tl) };
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	snprintf(title, sizeof(title), "session %u%s%s%s", d->session.id,
		 d->session.name[0] ? " \"" : "", d->session.name,
		 d->session.name[0] ? "\"" : "");
	ret = st_timeline_svg(f, tl, &h);
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int report_timeline(struct rt_report *r, struct st_dump *d,
		    const struct report_opts *o)
{
	struct tl_result tl;
	int ret;

	ret = st_timeline(d, o->log, &tl);
	if (ret)
		return ret;
	r->params = json_object();
	r->csv_table = "processes";
	ret = rt_note(r, o->log ? "loader_ms: from the image's start to its first program-phase syscall" :
		      "lifetimes only: phases need a log (--input LOG)");
	if (!ret && o->svg) {
		ret = write_svg(o->svg, &tl, d);
		if (ret)
			fprintf(stderr, "systracectl: writing %s: %s\n", o->svg, strerror(-ret));
	}
	if (!ret)
		ret = rt_add(r, totals_table(&tl));
	if (!ret)
		ret = rt_add(r, rows_table(&tl));
	st_timeline_free(&tl);
	return ret;
}
