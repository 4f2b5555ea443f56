// SPDX-License-Identifier: GPL-2.0
/*
 * report timeline: the lifetimes of a session's images, ordered by start,
 * as a table and as a Gantt chart SVG. With a temporal log, each bar is
 * split by phase: the loader segment runs from the image's start to its
 * first program-phase syscall (to its end when it made none); the rest is
 * the program. Without a log (a dump) the bars are lifetimes only.
 *
 * The SVG stands alone: no script, no stylesheet, the generic sans-serif
 * font; it opens in any browser.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "systrace.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Layout, in px. */
#define SVG_WIDTH 1200
#define PLOT_LEFT 20
#define PLOT_WIDTH 1160
#define ROW_TOP 64
#define ROW_H 22
#define BAR_H 16
#define AXIS_H 40
#define CHAR_W 6.6	/* sans-serif at 11 px, a wide average */

#define COLOR_LOADER "#e8a33d"
#define COLOR_PROGRAM "#4e79a7"
#define COLOR_LIFETIME "#8c9aa8"

static int by_start(const void *a, const void *b)
{
	const struct tl_row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->proc->id < y->proc->id ? -1 : x->proc->id > y->proc->id;
}

/* The latest time the data knows of: ends, and the log's events. */
static uint64_t last_ns(const struct st_dump *d, const struct st_log *log)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < d->nprocs; i++) {
		const struct st_proc_row *p = &d->procs[i];

		if (p->start_ns > t)
			t = p->start_ns;
		if (p->has_end_ns && p->end_ns > t)
			t = p->end_ns;
	}
	for (i = 0; log && i < log->n; i++)
		if (log->ev[i].ts_ns + log->ev[i].dur_ns > t)
			t = log->ev[i].ts_ns + log->ev[i].dur_ns;
	return t;
}

/* Loader segments from the log: rows are in d->procs' order here. */
static void loader_ends(struct tl_result *r, const struct st_dump *d,
			const struct st_log *log)
{
	size_t i;

	for (i = 0; i < log->n; i++) {
		const struct st_event *e = &log->ev[i];
		const struct st_proc_row *p;
		struct tl_row *row;

		if (e->kind != ST_EV_SYSCALL || e->phase == ST_PHASE_NONE)
			continue;
		p = st_dump_find_proc(d, e->proc_id);
		if (!p)
			continue;
		row = &r->rows[p - d->procs];
		if (e->phase == ST_PHASE_LOADER) {
			row->has_loader = true;
			continue;
		}
		if (!row->has_program || e->ts_ns < row->program_ns)
			row->program_ns = e->ts_ns;
		row->has_program = true;
	}
	for (i = 0; i < r->n; i++) {
		struct tl_row *row = &r->rows[i];

		if (!row->has_loader)
			continue;
		row->loader_end = row->has_program && row->program_ns > row->start ?
				  row->program_ns : row->end;
		if (row->loader_end > row->end)
			row->loader_end = row->end;
	}
}

int st_timeline(const struct st_dump *d, const struct st_log *log,
		struct tl_result *r)
{
	uint64_t last = last_ns(d, log);
	size_t i;

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
	}
	if (!r->n)
		r->t0 = 0;
	if (log)
		loader_ends(r, d, log);
	qsort(r->rows, r->n, sizeof(*r->rows), by_start);
	return 0;
}

void st_timeline_free(struct tl_result *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

static double px(const struct tl_result *r, uint64_t ns)
{
	uint64_t span = r->t1 > r->t0 ? r->t1 - r->t0 : 1;

	return PLOT_LEFT + (double)(ns - r->t0) * PLOT_WIDTH / (double)span;
}

static void svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

/* A tick step of 1, 2 or 5 times a power of ten, about span / 8. */
static uint64_t tick_step(uint64_t span)
{
	uint64_t step = 1;

	for (;;) {
		if (step * 8 >= span)
			return step;
		if (step * 2 * 8 >= span)
			return step * 2;
		if (step * 5 * 8 >= span)
			return step * 5;
		step *= 10;
	}
}

static void tick_label(char *buf, size_t len, uint64_t ns, uint64_t step)
{
	if (step >= 1000000)
		snprintf(buf, len, "%" PRIu64 " ms", ns / 1000000);
	else if (step >= 1000)
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " ms", ns / 1000000,
			 ns / 1000 % 1000);
	else
		snprintf(buf, len, "%" PRIu64 " ns", ns);
}

static void svg_axis(FILE *f, const struct tl_result *r, double y)
{
	uint64_t span = r->t1 - r->t0, step = tick_step(span ? span : 1), t;
	char label[48];

	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		PLOT_LEFT, y, PLOT_LEFT + PLOT_WIDTH, y);
	for (t = 0; t <= span; t += step) {
		double x = px(r, r->t0 + t);

		tick_label(label, sizeof(label), t, step);
		fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			x, ROW_TOP - 4, x, y);
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
			x, y, x, y + 5);
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
			x, y + 18, t == 0 ? "start" : t + step > span ? "end" : "middle",
			label);
	}
}

static void svg_legend(FILE *f, const struct tl_result *r)
{
	static const struct { const char *color, *name; } phased[] = {
		{ COLOR_LOADER, "loader phase (ELF interpreter)" },
		{ COLOR_PROGRAM, "program phase" },
	}, plain[] = {
		{ COLOR_LIFETIME, "lifetime (no log: no phases)" },
	};
	size_t i, n = r->phases ? ARRAY_SIZE(phased) : ARRAY_SIZE(plain);
	double x = PLOT_LEFT;

	for (i = 0; i < n; i++) {
		const char *color = r->phases ? phased[i].color : plain[i].color;
		const char *name = r->phases ? phased[i].name : plain[i].name;

		fprintf(f, "<rect x=\"%.1f\" y=\"34\" width=\"14\" height=\"12\" fill=\"%s\"/>\n",
			x, color);
		fprintf(f, "<text x=\"%.1f\" y=\"44\">%s</text>\n", x + 20, name);
		x += 20 + CHAR_W * strlen(name) + 24;
	}
	fprintf(f, "<text x=\"%.1f\" y=\"44\" fill=\"#555\">dashed outline: still running at the end of the data</text>\n",
		x);
}

static void svg_bar(FILE *f, const struct tl_result *r, const struct tl_row *row,
		    double y)
{
	double x0 = px(r, row->start), x1 = px(r, row->end), xl, w, tw;
	char name[SYSTRACE_COMM_MAX + 16];

	snprintf(name, sizeof(name), "%s %" PRIu32, row->proc->comm, row->proc->pid);
	fprintf(f, "<g id=\"image-%" PRIu64 "\">\n", row->proc->id);
	fprintf(f, "<title>image %" PRIu64 ": ", row->proc->id);
	svg_text(f, name);
	fprintf(f, ", %.3f ms</title>\n", (double)(row->end - row->start) / 1e6);
	w = x1 - x0 < 1 ? 1 : x1 - x0;
	fprintf(f, "<rect class=\"bar\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"%s/>\n",
		x0, y, w, BAR_H, r->phases ? COLOR_PROGRAM : COLOR_LIFETIME,
		row->running ? " stroke=\"#222\" stroke-dasharray=\"3,2\"" : "");
	if (row->has_loader) {
		xl = px(r, row->loader_end) - x0;
		fprintf(f, "<rect class=\"loader\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>\n",
			x0, y, xl < 1 ? 1 : xl, BAR_H, COLOR_LOADER);
	}
	tw = CHAR_W * strlen(name) + 8;
	if (tw <= w) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" fill=\"#fff\">", x0 + 4, y + 12);
	} else if (x0 + w + tw <= SVG_WIDTH) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x0 + w + 4, y + 12);
	} else {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 4, y + 12);
	}
	svg_text(f, name);
	fputs("</text>\n</g>\n", f);
}

int st_timeline_svg(FILE *f, const struct tl_result *r, const char *title)
{
	double axis_y = ROW_TOP + (double)r->n * ROW_H + 6;
	int height = (int)axis_y + AXIS_H;
	size_t i;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fputs("<text x=\"20\" y=\"22\" font-size=\"14\" font-weight=\"bold\">", f);
	svg_text(f, title);
	fputs("</text>\n", f);
	svg_legend(f, r);
	svg_axis(f, r, axis_y);
	for (i = 0; i < r->n; i++)
		svg_bar(f, r, &r->rows[i], ROW_TOP + (double)i * ROW_H);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
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

static int write_svg(const char *path, const struct tl_result *tl,
		     const struct st_dump *d)
{
	char title[160];
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	snprintf(title, sizeof(title), "session %u%s%s%s: %zu processes, %.3f ms",
		 d->session.id, d->session.name[0] ? " \"" : "", d->session.name,
		 d->session.name[0] ? "\"" : "", tl->n,
		 (double)(tl->t1 - tl->t0) / 1e6);
	ret = st_timeline_svg(f, tl, title);
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
		ret = rt_add(r, rows_table(&tl));
	st_timeline_free(&tl);
	return ret;
}
