// SPDX-License-Identifier: GPL-2.0
/*
 * report timeline's picture (timeline.c computes what it shows): a
 * standalone SVG, no script, no stylesheet, the generic sans-serif font;
 * it opens in any browser and renders with rsvg-convert. From the top: a
 * header, a time axis, the curve of processes running at once, the
 * critical path's strip, the lanes, the time axis again.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "libsystrace.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Layout, in px. */
#define SVG_WIDTH 1200
#define PLOT_LEFT 50
#define PLOT_WIDTH 1120
#define AXIS_TOP 120		/* the top axis's line */
#define CURVE_TOP 126
#define CURVE_H 110
#define CRIT_Y 241		/* the critical path's strip */
#define CRIT_H 12
#define LANES_TOP 262
#define LANE_MAX_H 14.0
#define AXIS_BELOW 36		/* the bottom axis and its labels */
#define TL_MAX_H 4000
#define CHAR_W 6.6		/* sans-serif at 11 px, a wide average */
#define SLOWEST 5
#define CRIT_TOP 5

#define COLOR_LOADER "#e8a33d"
#define COLOR_PROGRAM "#4e79a7"
#define COLOR_LIFETIME "#8c9aa8"
#define COLOR_CRIT "#d62728"
#define COLOR_CRIT_OTHER "#b0b0b0"

/* The critical path's strip: a colour per command of its top 5. */
static const char *const crit_palette[] = {
	"#9467bd", "#2ca02c", "#8c564b", "#e377c2", "#17becf",
};

static double px(const struct tl_result *r, uint64_t ns)
{
	uint64_t span = r->t1 > r->t0 ? r->t1 - r->t0 : 1;

	return PLOT_LEFT + (double)(ns - r->t0) * PLOT_WIDTH / (double)span;
}

/* The lane height: 14 px, less when the lanes would pass TL_MAX_H. */
static double lane_h(const struct tl_result *r)
{
	double room = TL_MAX_H - LANES_TOP - AXIS_BELOW;

	if (!r->lanes || r->lanes * LANE_MAX_H <= room)
		return LANE_MAX_H;
	return room / r->lanes;
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

/* ns in 3 significant digits and a unit, as a person reads a duration. */
static void human(char *buf, size_t len, uint64_t ns)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3g µs", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3g ms", v / 1e6);
	else if (ns < 100 * 1000000000ULL)
		snprintf(buf, len, "%.3g s", v / 1e9);
	else
		snprintf(buf, len, "%.1f min", v / 60e9);
}

/* A tick step of 1, 2 or 5 times a power of ten, about span / 10. */
static uint64_t tick_step(uint64_t span)
{
	uint64_t step = 1;

	for (;;) {
		if (step * 10 >= span)
			return step;
		if (step * 2 * 10 >= span)
			return step * 2;
		if (step * 5 * 10 >= span)
			return step * 5;
		step *= 10;
	}
}

static void tick_label(char *buf, size_t len, uint64_t t, uint64_t step)
{
	const char *unit = step >= 1000000000 ? "s" : step >= 1000000 ? "ms" :
			   step >= 1000 ? "µs" : "ns";
	uint64_t div = step >= 1000000000 ? 1000000000 : step >= 1000000 ? 1000000 :
		       step >= 1000 ? 1000 : 1;

	snprintf(buf, len, "%" PRIu64 " %s", t / div, unit);
}

/* An axis line at y, labels above (top) or below it. */
static void svg_axis(FILE *f, const struct tl_result *r, double y, bool top,
		     double grid_y0, double grid_y1)
{
	uint64_t span = r->t1 - r->t0, step = tick_step(span ? span : 1), t;
	char label[48];

	fprintf(f, "<g class=\"axis\">\n<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		PLOT_LEFT, y, PLOT_LEFT + PLOT_WIDTH, y);
	for (t = 0; t <= span; t += step) {
		double x = px(r, r->t0 + t);

		tick_label(label, sizeof(label), t, step);
		if (grid_y1 > grid_y0)
			fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
				x, grid_y0, x, grid_y1);
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
			x, y, x, top ? y - 5 : y + 5);
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
			x, top ? y - 8 : y + 18, t == 0 ? "start" : t + step > span ? "end" : "middle",
			label);
	}
	fputs("</g>\n", f);
}

/* Per pixel column, the time-weighted average of rows running (and in the loader). */
struct column {
	double total, loader;
};

struct step {
	uint64_t t;
	int d, dl;
};

static int step_cmp(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int concurrency(const struct tl_result *r, struct column *col)
{
	struct step *s = malloc((4 * r->n + 1) * sizeof(*s));
	double span = (double)(r->t1 > r->t0 ? r->t1 - r->t0 : 1);
	double per_col = span / PLOT_WIDTH;
	size_t n = 0, i;
	int run = 0, ld = 0;

	if (!s)
		return -ENOMEM;
	memset(col, 0, PLOT_WIDTH * sizeof(*col));
	for (i = 0; i < r->n; i++) {
		const struct tl_row *row = &r->rows[i];

		if (row->end == row->start)
			continue;
		s[n++] = (struct step){ row->start, 1, 0 };
		s[n++] = (struct step){ row->end, -1, 0 };
		if (row->has_loader && row->loader_end > row->start) {
			s[n++] = (struct step){ row->start, 0, 1 };
			s[n++] = (struct step){ row->loader_end, 0, -1 };
		}
	}
	qsort(s, n, sizeof(*s), step_cmp);
	for (i = 0; i < n; i++) {
		double a, b;
		size_t c;

		if (i && s[i].t > s[i - 1].t && (run || ld)) {
			a = (double)(s[i - 1].t - r->t0) / per_col;
			b = (double)(s[i].t - r->t0) / per_col;
			for (c = (size_t)a; c < PLOT_WIDTH && (double)c < b; c++) {
				double lo = a > (double)c ? a : (double)c;
				double hi = b < (double)(c + 1) ? b : (double)(c + 1);

				col[c].total += run * (hi - lo);
				col[c].loader += ld * (hi - lo);
			}
		}
		run += s[i].d;
		ld += s[i].dl;
	}
	free(s);
	return 0;
}

/* The curve: a stacked area, loader under program, and its scale. */
static int svg_curve(FILE *f, const struct tl_result *r)
{
	struct column *col = malloc(PLOT_WIDTH * sizeof(*col));
	double top = 1, y0 = CURVE_TOP + CURVE_H, k;
	size_t c;
	int ret;

	if (!col)
		return -ENOMEM;
	ret = concurrency(r, col);
	if (ret) {
		free(col);
		return ret;
	}
	for (c = 0; c < PLOT_WIDTH; c++)
		if (col[c].total > top)
			top = col[c].total;
	top = ceil(top);
	k = CURVE_H / top;
	fprintf(f, "<g class=\"curve\">\n");
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f7f7f7\"/>\n",
		PLOT_LEFT, CURVE_TOP, PLOT_WIDTH, CURVE_H);
	fprintf(f, "<path class=\"running\" fill=\"%s\" d=\"M%d %.1f",
		r->phases ? COLOR_PROGRAM : COLOR_LIFETIME, PLOT_LEFT, y0);
	for (c = 0; c < PLOT_WIDTH; c++)
		fprintf(f, " L%zu %.2f L%zu %.2f", PLOT_LEFT + c, y0 - col[c].total * k,
			PLOT_LEFT + c + 1, y0 - col[c].total * k);
	fprintf(f, " L%d %.1f Z\"/>\n", PLOT_LEFT + PLOT_WIDTH, y0);
	if (r->phases) {
		fprintf(f, "<path class=\"loading\" fill=\"%s\" d=\"M%d %.1f", COLOR_LOADER,
			PLOT_LEFT, y0);
		for (c = 0; c < PLOT_WIDTH; c++)
			fprintf(f, " L%zu %.2f L%zu %.2f", PLOT_LEFT + c, y0 - col[c].loader * k,
				PLOT_LEFT + c + 1, y0 - col[c].loader * k);
		fprintf(f, " L%d %.1f Z\"/>\n", PLOT_LEFT + PLOT_WIDTH, y0);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>\n",
		PLOT_LEFT - 6, CURVE_TOP + 9, top);
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">0</text>\n", PLOT_LEFT - 6, y0);
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#333\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">processes running at once (average over each pixel)</text>\n",
		PLOT_LEFT + 6, CURVE_TOP + 13);
	fputs("</g>\n", f);
	free(col);
	return 0;
}

/* Bars of one lane that touch, too narrow to stand alone: one rect. */
struct dense {
	double x0, x1;
	uint64_t ns, loader_ns;
	size_t n;
};

/*
 * A run of bars too narrow to stand alone: the program's blue, and from
 * the lane's bottom an orange part as tall as the loader's share of
 * their time.
 */
static void dense_flush(FILE *f, const struct tl_result *r, struct dense *dn,
			double y, double h)
{
	double w = dn->x1 - dn->x0 < 1 ? 1 : dn->x1 - dn->x0;
	double share = dn->ns ? (double)dn->loader_ns / (double)dn->ns : 0;

	if (!dn->n)
		return;
	fprintf(f, "<rect class=\"dense\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%zu processes, loader phase %.0f%% of their time</title></rect>\n",
		dn->x0, y, w, h, r->phases ? COLOR_PROGRAM : COLOR_LIFETIME, dn->n, 100 * share);
	if (r->phases && share * h >= 0.25)
		fprintf(f, "<rect class=\"dense-loader\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
			dn->x0, y + h * (1 - share), w, h * share, COLOR_LOADER);
	dn->n = 0;
}

static void svg_bar(FILE *f, const struct tl_result *r, const struct tl_row *row,
		    double y, double h)
{
	double x0 = px(r, row->start), x1 = px(r, row->end), w = x1 - x0, xl;
	char name[SYSTRACE_COMM_MAX + 16], dur[32];

	snprintf(name, sizeof(name), "%s %" PRIu32, row->proc->comm, row->proc->pid);
	human(dur, sizeof(dur), row->end - row->start);
	fprintf(f, "<g id=\"image-%" PRIu64 "\"><title>image %" PRIu64 ": ", row->proc->id,
		row->proc->id);
	svg_text(f, name);
	fprintf(f, ", %s</title>\n", dur);
	fprintf(f, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"%s/>\n",
		x0, y, w, h, r->phases ? COLOR_PROGRAM : COLOR_LIFETIME,
		row->running ? " stroke=\"#222\" stroke-dasharray=\"3,2\"" : "");
	if (row->has_loader) {
		xl = px(r, row->loader_end) - x0;
		fprintf(f, "<rect class=\"loader\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
			x0, y, xl < 0.5 ? 0.5 : xl, h, COLOR_LOADER);
	}
	if (h >= 10 && CHAR_W * strlen(name) + 8 <= w) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" fill=\"#fff\">", x0 + 4, y + h - 3);
		svg_text(f, name);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

static int svg_lanes(FILE *f, const struct tl_result *r, double h)
{
	size_t *start = calloc(r->lanes + 1, sizeof(*start));
	size_t *order = malloc((r->n ? r->n : 1) * sizeof(*order));
	size_t i, l;

	if (!start || !order) {
		free(start);
		free(order);
		return -ENOMEM;
	}
	/* The rows of each lane, by start (a counting sort keeps their order). */
	for (i = 0; i < r->n; i++)
		start[r->rows[i].lane + 1]++;
	for (l = 1; l <= r->lanes; l++)
		start[l] += start[l - 1];
	for (i = 0; i < r->n; i++)
		order[start[r->rows[i].lane]++] = i;
	fputs("<g class=\"lanes\">\n", f);
	for (l = 0, i = 0; l < r->lanes; l++) {
		double y = LANES_TOP + l * h;
		struct dense dn = { 0 };

		for (; i < r->n && r->rows[order[i]].lane == l; i++) {
			const struct tl_row *row = &r->rows[order[i]];
			double x0 = px(r, row->start), x1 = px(r, row->end);

			if (x1 - x0 >= 2) {
				dense_flush(f, r, &dn, y, h);
				svg_bar(f, r, row, y, h);
				continue;
			}
			if (dn.n && x0 > dn.x1 + 1)
				dense_flush(f, r, &dn, y, h);
			if (!dn.n)
				dn.x0 = x0;
			dn.x1 = x1 > dn.x1 || dn.n == 0 ? x1 : dn.x1;
			dn.ns += row->end - row->start;
			if (row->has_loader)
				dn.loader_ns += row->loader_end - row->start;
			dn.n++;
		}
		dense_flush(f, r, &dn, y, h);
	}
	fputs("</g>\n", f);
	free(start);
	free(order);
	return 0;
}

struct by_comm {
	const char *comm;
	uint64_t ns;
};

static int comm_ns_desc(const void *a, const void *b)
{
	const struct by_comm *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->comm, y->comm);
}

static int comm_name(const void *a, const void *b)
{
	return strcmp(((const struct by_comm *)a)->comm, ((const struct by_comm *)b)->comm);
}

/* The commands with the most time on the critical path. */
struct crit_top {
	struct by_comm c[CRIT_TOP];
	size_t n;
	size_t nprocs;			/* the rows on the path */
};

static int crit_top(const struct tl_result *r, struct crit_top *t)
{
	struct by_comm *c = malloc((r->ncrit ? r->ncrit : 1) * sizeof(*c));
	char *seen = calloc(r->n ? r->n : 1, 1);
	size_t i, k = 0;

	memset(t, 0, sizeof(*t));
	if (!c || !seen) {
		free(c);
		free(seen);
		return -ENOMEM;
	}
	for (i = 0; i < r->ncrit; i++) {
		const struct tl_seg *s = &r->crit[i];

		c[i] = (struct by_comm){ r->rows[s->row].proc->comm, s->to - s->from };
		t->nprocs += !seen[s->row];
		seen[s->row] = 1;
	}
	qsort(c, r->ncrit, sizeof(*c), comm_name);
	for (i = 0; i < r->ncrit; i++) {
		if (k && !strcmp(c[k - 1].comm, c[i].comm)) {
			c[k - 1].ns += c[i].ns;
			continue;
		}
		c[k++] = c[i];
	}
	qsort(c, k, sizeof(*c), comm_ns_desc);
	for (i = 0; i < k && i < CRIT_TOP; i++)
		t->c[t->n++] = c[i];
	free(seen);
	free(c);
	return 0;
}

/*
 * The critical path's strip, under the curve: who was on it when, one
 * colour per command of the top 5, grey for the others. Each pixel takes
 * the colour of the command that held most of its time; runs of a colour
 * are one rect: at most one per pixel, however many processes.
 */
static int svg_crit_strip(FILE *f, const struct tl_result *r, const struct crit_top *t)
{
	double (*col)[CRIT_TOP + 1] = calloc(PLOT_WIDTH, sizeof(*col));
	double span = (double)(r->t1 > r->t0 ? r->t1 - r->t0 : 1);
	int run = -1, run_start = 0;
	size_t i, c;

	if (!col)
		return -ENOMEM;
	for (i = 0; i < r->ncrit; i++) {
		const struct tl_seg *s = &r->crit[i];
		const char *comm = r->rows[s->row].proc->comm;
		double a = (double)(s->from - r->t0) * PLOT_WIDTH / span;
		double b = (double)(s->to - r->t0) * PLOT_WIDTH / span;
		size_t slot = CRIT_TOP, k;

		for (k = 0; k < t->n; k++)
			if (!strcmp(t->c[k].comm, comm))
				slot = k;
		for (c = (size_t)a; c < PLOT_WIDTH && (double)c < b; c++) {
			double lo = a > (double)c ? a : (double)c;
			double hi = b < (double)(c + 1) ? b : (double)(c + 1);

			col[c][slot] += hi - lo;
		}
	}
	fputs("<g class=\"critical-strip\">\n", f);
	for (c = 0; c <= PLOT_WIDTH; c++) {
		int best = -1;
		size_t k;

		for (k = 0; c < PLOT_WIDTH && k <= CRIT_TOP; k++)
			if (col[c][k] > 0 && (best < 0 || col[c][k] > col[c][best]))
				best = (int)k;
		if (best == run)
			continue;
		if (run >= 0)
			fprintf(f, "<rect class=\"crit-strip\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
				PLOT_LEFT + run_start, CRIT_Y, (int)c - run_start, CRIT_H,
				run < CRIT_TOP ? crit_palette[run] : COLOR_CRIT_OTHER);
		run = best;
		run_start = (int)c;
	}
	fputs("</g>\n", f);
	free(col);
	return 0;
}

/*
 * The critical path over the lanes: its stretches 3 px wide or more
 * outlined, and the jumps between two such; narrower ones show in the
 * strip only, or they would paint the lanes red at 100,000 processes.
 */
static void svg_crit(FILE *f, const struct tl_result *r, double h)
{
	double sw = h >= 6 ? 1.5 : 1;
	size_t i;

	fputs("<g class=\"critical\">\n", f);
	for (i = 0; i < r->ncrit; i++) {
		const struct tl_seg *s = &r->crit[i];
		double y = LANES_TOP + r->rows[s->row].lane * h;
		double x0 = px(r, s->from), x1 = px(r, s->to);
		const struct tl_seg *n = i + 1 < r->ncrit ? &r->crit[i + 1] : NULL;

		if (x1 - x0 < 3)
			continue;
		fprintf(f, "<rect class=\"crit\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"/>\n",
			x0, y, x1 - x0, h, COLOR_CRIT, sw);
		if (n && r->rows[n->row].lane != r->rows[s->row].lane &&
		    px(r, n->to) - px(r, n->from) >= 3) {
			double y2 = LANES_TOP + r->rows[n->row].lane * h;

			fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1\"/>\n",
				x1, y + h / 2, x1, y2 + h / 2, COLOR_CRIT);
		}
	}
	fputs("</g>\n", f);
}

/* "critical path: N processes; its time by command:", a square and "cc1 41%" each. */
static void crit_header(FILE *f, const struct tl_result *r, const struct crit_top *t,
			double y)
{
	uint64_t total = r->t1 > r->t0 ? r->t1 - r->t0 : 1;
	char head[96], item[SYSTRACE_COMM_MAX + 16];
	double x;
	size_t i;

	snprintf(head, sizeof(head), "critical path: %zu processes; its time by command:%s",
		 t->nprocs, t->n ? "" : " none");
	fprintf(f, "<text class=\"crit-head\" x=\"%d\" y=\"%.0f\">", PLOT_LEFT, y);
	svg_text(f, head);
	fputs("</text>\n", f);
	x = PLOT_LEFT + CHAR_W * strlen(head) + 8;
	for (i = 0; i < t->n; i++) {
		snprintf(item, sizeof(item), "%s %.0f%%", t->c[i].comm,
			 100.0 * (double)t->c[i].ns / (double)total);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			x, y - 9, crit_palette[i]);
		fprintf(f, "<text class=\"crit-item\" x=\"%.1f\" y=\"%.0f\">", x + 14, y);
		svg_text(f, item);
		fputs("</text>\n", f);
		x += 14 + CHAR_W * strlen(item) + 12;
	}
}

static int dur_desc(const void *a, const void *b)
{
	const struct tl_row *x = *(const struct tl_row *const *)a;
	const struct tl_row *y = *(const struct tl_row *const *)b;
	uint64_t dx = x->end - x->start, dy = y->end - y->start;

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return x->proc->id < y->proc->id ? -1 : x->proc->id > y->proc->id;
}

/* The slowest rows that started no other. */
static int slowest(const struct tl_result *r, char *buf, size_t len)
{
	const struct tl_row **v = malloc((r->n ? r->n : 1) * sizeof(*v));
	size_t i, n = 0, off = 0;
	char dur[32];

	if (!v)
		return -ENOMEM;
	for (i = 0; i < r->n; i++)
		if (!r->rows[i].has_children)
			v[n++] = &r->rows[i];
	qsort(v, n, sizeof(*v), dur_desc);
	buf[0] = '\0';
	for (i = 0; i < n && i < SLOWEST && off < len; i++) {
		human(dur, sizeof(dur), v[i]->end - v[i]->start);
		off += (size_t)snprintf(buf + off, len - off, "%s%s %" PRIu32 " %s",
					i ? ", " : "", v[i]->proc->comm, v[i]->proc->pid, dur);
	}
	free(v);
	return 0;
}

static void svg_legend(FILE *f, const struct tl_result *r, double y)
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

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n",
			x, y - 10, color);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 20, y, name);
		x += 20 + CHAR_W * strlen(name) + 24;
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
		x, y - 10, COLOR_CRIT);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">critical path (the strip: who is on it)</text>\n",
		x + 20, y);
	x += 20 + CHAR_W * 39 + 24;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">one lane per process running at once; dashed: still running</text>\n",
		x, y);
}

static void header_line(FILE *f, int y, const char *s)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\">", PLOT_LEFT, y);
	svg_text(f, s);
	fputs("</text>\n", f);
}

int st_timeline_svg(FILE *f, const struct tl_result *r, const struct tl_header *hd)
{
	double h = lane_h(r);
	double axis_y = LANES_TOP + r->lanes * h + 6;
	/* Whole pixels; a lane height that divides the room exactly stays exact. */
	int height = (int)ceil(axis_y - 1e-6) + AXIS_BELOW - 6;
	char line[1024], wall[32], slow[512];
	struct crit_top top;
	uint64_t span = r->t1 - r->t0;
	int ret;

	ret = crit_top(r, &top);
	if (!ret)
		ret = slowest(r, slow, sizeof(slow));
	if (ret)
		return ret;
	human(wall, sizeof(wall), span);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", PLOT_LEFT);
	svg_text(f, hd->command && hd->command[0] ? hd->command : "(command unknown)");
	fputs("</text>\n", f);
	snprintf(line, sizeof(line),
		 "%s: %zu processes, wall time %s, on average %.2f running at once (at most %" PRIu32 ")",
		 hd->title, r->n, wall, span ? (double)r->busy_ns / (double)span : 0.0, r->lanes);
	header_line(f, 40, line);
	snprintf(line, sizeof(line), "slowest processes that started no other: %s", slow[0] ? slow : "none");
	header_line(f, 56, line);
	crit_header(f, r, &top, 72);
	svg_legend(f, r, 92);
	svg_axis(f, r, AXIS_TOP, true, CURVE_TOP, axis_y);
	ret = svg_curve(f, r);
	if (!ret)
		ret = svg_lanes(f, r, h);
	if (ret)
		return ret;
	ret = svg_crit_strip(f, r, &top);
	if (ret)
		return ret;
	svg_crit(f, r, h);
	svg_axis(f, r, axis_y, false, 0, 0);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

