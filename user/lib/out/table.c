// SPDX-License-Identifier: GPL-2.0
/*
 * The typed-table writer (table.h): aligned text (numbers to the right,
 * strings to the left), CSV (RFC 4180, a header row, LF line endings) and
 * JSON (one object per row, one row per line).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "out/argv.h"
#include "base/err.h"
#include "out/json_str.h"
#include "out/table.h"
#include "base/worker.h"

const struct st_text_layout st_text_fit = {
	.sep = "  ", .max = ST_TEXT_MAX, .units = true,
};
const struct st_text_layout st_text_wide = { .sep = "  ", .units = true };

size_t st_text_width(int fd)
{
	const char *env = getenv("COLUMNS");
	unsigned long v = 0;
	struct winsize ws;
	char *end;

	if (!isatty(fd))
		return ST_TEXT_MAX;
	if (!ioctl(fd, TIOCGWINSZ, &ws))
		v = ws.ws_col;
	if (!v && env && *env) {
		v = strtoul(env, &end, 10);
		if (*end)
			v = 0;
	}
	if (!v)
		return ST_TEXT_MAX;
	return v < 80 ? 80 : v;
}

static uint64_t pow10_u64(unsigned int n)
{
	uint64_t p = 1;

	while (n--)
		p *= 10;
	return p;
}

/* The number p .. end as a string in buf, cut to len as snprintf cuts. */
static const char *num_text(char *buf, size_t len, const char *p, const char *end)
{
	size_t n = end - p;

	if (!len)
		return buf;
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/*
 * An argv's command line in buf, cut to len (a text table's cell: text
 * tables shorten long cells anyway; CSV writes it whole, put_cell_csv).
 */
static const char *argv_text(const struct st_cell *c, char *buf, size_t len)
{
	char *s = st_argv_shell_str(c->s, (size_t)c->u);

	snprintf(buf, len, "%s", s ? s : "");
	free(s);
	return buf;
}

/* The cell as text (text and CSV); "" for a missing value. */
const char *st_cell_text(const struct st_cell *c, char *buf, size_t len)
{
	char num[ST_NUM_LEN];
	uint64_t scale;

	switch (c->kind) {
	case ST_NULL:
		return "";
	case ST_U64:
		return num_text(buf, len, num, st_put_dec(num, c->u));
	case ST_S64:
		return num_text(buf, len, num, st_put_sdec(num, c->u));
	case ST_STR:
		return c->s;
	case ST_HEX:
		return num_text(buf, len, num, st_put_hex(num, c->u));
	case ST_BOOL:
		return c->u ? "1" : "0";
	case ST_FIXED:
		scale = pow10_u64(c->decimals);
		snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64,
			 c->negative && c->u ? "-" : "", c->u / scale,
			 (int)c->decimals, c->u % scale);
		return buf;
	case ST_ARGV:
		return argv_text(c, buf, len);
	case ST_COUNTS:
		return c->s;
	}
	return "";
}

/*
 * Counts' object: {"NAME": COUNT, ...} from "NAME(NUM)=COUNT ..."; NUM is
 * the key of an entry with no NAME. NULL for a malformed string.
 */
static json_t *counts_json(const char *s)
{
	json_t *o = json_object();
	char key[64];

	while (o && *s) {
		const char *open = strchr(s, '('), *eq = strchr(s, '=');
		unsigned long long count;
		char *end;

		if (!open || !eq || open > eq || eq - s >= (long)sizeof(key))
			goto bad;
		if (open > s)
			snprintf(key, sizeof(key), "%.*s", (int)(open - s), s);
		else
			snprintf(key, sizeof(key), "%.*s", (int)(eq - s - 2), s + 1);
		errno = 0;
		count = strtoull(eq + 1, &end, 10);
		if (errno || end == eq + 1 || (*end && *end != ' ') ||
		    json_object_set_new(o, key, json_integer((json_int_t)count)))
			goto bad;
		s = *end ? end + 1 : end;
	}
	return o;
bad:
	json_decref(o);
	return NULL;
}

json_t *st_cell_json(const struct st_cell *c)
{
	char buf[48];

	switch (c->kind) {
	case ST_NULL:
		break;
	case ST_U64:
		return json_integer((json_int_t)c->u);
	case ST_S64:
		return json_integer((json_int_t)(int64_t)c->u);
	case ST_STR:
		return st_json_string(c->s);
	case ST_HEX:
		return json_string(st_cell_text(c, buf, sizeof(buf)));
	case ST_BOOL:
		return json_boolean(c->u);
	case ST_FIXED:
		return json_real((c->negative ? -1.0 : 1.0) * (double)c->u /
				 (double)pow10_u64(c->decimals));
	case ST_ARGV:
		return st_argv_json(c->s, (size_t)c->u);
	case ST_COUNTS:
		return counts_json(c->s);
	}
	return json_null();
}

static int argv_cmp(const struct st_cell *x, const struct st_cell *y)
{
	size_t n = x->u < y->u ? x->u : y->u;
	int c = memcmp(x->s, y->s, n);

	return c ? c : (x->u > y->u) - (x->u < y->u);
}

static uint64_t magnitude(const struct st_cell *c)
{
	return c->kind == ST_S64 && (int64_t)c->u < 0 ? -c->u : c->u;
}

int st_cell_cmp(const struct st_cell *x, const struct st_cell *y)
{
	uint64_t a, b;

	if (x->kind == ST_NULL || y->kind == ST_NULL)
		return (x->kind == ST_NULL) - (y->kind == ST_NULL);
	if (x->kind == ST_ARGV && y->kind == ST_ARGV)
		return argv_cmp(x, y);
	if (x->kind == ST_STR || y->kind == ST_STR ||
	    x->kind == ST_COUNTS || y->kind == ST_COUNTS)
		return strcmp(x->kind == ST_STR || x->kind == ST_COUNTS ? x->s : "",
			      y->kind == ST_STR || y->kind == ST_COUNTS ? y->s : "");
	a = magnitude(x);
	b = magnitude(y);
	return (a < b) - (a > b);
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct st_sort_key *x = pa, *y = pb;
	int c = st_cell_cmp(&x->c, &y->c);

	return c ? c : (x->row > y->row) - (x->row < y->row);
}

void st_sort_keys(struct st_sort_key *k, size_t n)
{
	qsort(k, n, sizeof(*k), key_cmp);
}

static const char *const sort_aliases[][6] = {
	{ "time", "total_ns", "syscall_ns", "time_delta_ns", "wall_ns", NULL },
	{ "calls", "calls", "syscalls", "calls_delta", "calls_below", NULL },
	{ "errors", "errors", "errors_delta", NULL },
};

const char *const *st_sort_alias(const char *key)
{
	size_t a;

	for (a = 0; a < sizeof(sort_aliases) / sizeof(sort_aliases[0]); a++)
		if (!strcmp(sort_aliases[a][0], key))
			return &sort_aliases[a][1];
	return NULL;
}

bool st_sort_names(const char *key, const char *col)
{
	size_t n = strlen(key);

	if (!strcmp(key, col))
		return true;
	return st_text_is_duration(col) && strlen(col) == n + 3 && !strncmp(key, col, n);
}

size_t st_text_heading(const char *col, char *buf, size_t len)
{
	size_t n = strlen(col) - (st_text_is_duration(col) ? 3 : 0);

	return (size_t)snprintf(buf, len, "%.*s", (int)n, col);
}

/* The bytes that make a CSV field quoted, and the end of the string. */
static const bool csv_stop[256] = {
	['\0'] = true, [','] = true, ['"'] = true, ['\r'] = true, ['\n'] = true,
};

void st_csv_field(struct st_obuf *o, const char *s)
{
	size_t n = 0;

	/* Not strcspn(): emulated, its SSE4.2 form took 12% of a CSV dump. */
	while (!csv_stop[(unsigned char)s[n]])
		n++;
	if (!s[n]) {
		st_obuf_put(o, s, n);
		return;
	}
	st_obuf_putc(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			st_obuf_putc(o, '"');
		st_obuf_putc(o, *s);
	}
	st_obuf_putc(o, '"');
}

/* Room for one row of t's values. */
static struct st_val *row_buffer(const struct st_table *t)
{
	return calloc(t->ncols ? t->ncols : 1, sizeof(struct st_val));
}

/* Row r of t into v, which holds t->ncols values. */
static void read_row(const struct st_table *t, size_t r, struct st_val *v)
{
	size_t c;

	/* The cells only: a getter that uses buf writes it whole (snprintf). */
	for (c = 0; c < t->ncols; c++)
		v[c].c = (struct st_cell){ .kind = ST_NULL };
	t->row(t, r, v);
}

/* The columns whose _ns are moments (CLOCK_MONOTONIC), not durations. */
static const char *const moments[] = {
	"start_ns", "end_ns", "first_ns", "created_ns", "ts_ns",
	"realtime_base_ns", "loader_end_ns",
};

bool st_text_is_duration(const char *col)
{
	size_t n = strlen(col), i;

	if (n < 3 || strcmp(col + n - 3, "_ns"))
		return false;
	for (i = 0; i < sizeof(moments) / sizeof(moments[0]); i++)
		if (!strcmp(col, moments[i]))
			return false;
	return true;
}

const char *st_format_duration(int64_t ns, char *buf, size_t len)
{
	static const char *const units[] = { "us", "ms", "s" };
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	const char *sign = ns < 0 ? "-" : "";
	double v = (double)mag;
	size_t u;
	int decimals;

	if (mag < 1000) {
		snprintf(buf, len, "%s%" PRIu64 " ns", sign, mag);
		return buf;
	}
	for (u = 0; u < 3; u++) {
		v /= 1000;
		/* 999.96 us rounds to "1000 us": it is "1.00 ms". */
		if (u < 2 && v >= 999.5)
			continue;
		decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
		snprintf(buf, len, "%s%.*f %s", sign, decimals, v, units[u]);
		return buf;
	}
	return buf;
}

/* The text of a cell: the table's, or a duration's in units. */
static const char *cell_text(const struct st_cell *c, bool duration, char *buf,
			     size_t len)
{
	if (duration && (c->kind == ST_U64 || c->kind == ST_S64) &&
	    (c->kind == ST_S64 || c->u <= INT64_MAX))
		return st_format_duration((int64_t)c->u, buf, len);
	return st_cell_text(c, buf, len);
}

/* Bytes of s that make at most n characters, not cutting a UTF-8 sequence. */
static size_t utf8_prefix(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/*
 * s shortened to w bytes by its middle: a third kept in front, the rest at
 * the end (a path's file name), "..." between.
 */
static const char *shorten(const char *s, size_t w, char *buf, size_t len)
{
	size_t n = strlen(s), head, tail;

	if (n <= w || w < 5 || w >= len)
		return s;
	head = utf8_prefix(s, (w - 3) / 3);
	tail = w - 3 - (w - 3) / 3;
	while (tail > 0 && ((unsigned char)s[n - tail] & 0xc0) == 0x80)
		tail--;
	snprintf(buf, len, "%.*s...%s", (int)head, s, s + n - tail);
	return buf;
}

/*
 * Counts cut to w bytes at an entry's end, never inside a name or a count:
 * the entries that fit, then "+N more" for the others.
 */
static const char *shorten_counts(const char *s, size_t w, char *buf, size_t len)
{
	size_t n = strlen(s), total = 0, kept = 0, k, end = 0, at;
	const char *p;
	char more[32];

	if (n <= w)
		return s;
	for (p = s; *p; p++)
		total += *p == ' ';
	total++;
	for (k = 0, p = s; k < total; k++) {
		const char *sp = strchr(p, ' ');
		size_t stop = sp ? (size_t)(sp - s) : n;

		snprintf(more, sizeof(more), " +%zu more", total - k - 1);
		if (stop + (k + 1 < total ? strlen(more) : 0) > w || stop >= len)
			break;
		end = stop;
		kept = k + 1;
		p = sp ? sp + 1 : s + n;
	}
	at = (size_t)snprintf(buf, len, "%.*s", (int)end, s);
	snprintf(buf + at, len - at, "%s+%zu more", kept ? " " : "", total - kept);
	return buf;
}

/* The last cell of a line is not padded when left-aligned: no trailing blanks. */
static void put_cell(FILE *f, const char *sep, const char *s, bool first,
		     bool last, size_t width, bool left)
{
	if (!first)
		fputs(sep, f);
	if (left && last)
		fputs(s, f);
	else
		fprintf(f, left ? "%-*s" : "%*s", (int)width, s);
}

/* Cells after the last non-empty one are not printed. */
static size_t used_cells(const struct st_val *v, size_t ncols)
{
	size_t c = ncols;

	while (c > 1 && v[c - 1].c.kind == ST_NULL)
		c--;
	return c;
}

/* How the text of a table is laid out: per column. */
struct text_cols {
	const char **name;	/* heading */
	char *names;		/* their text, for headings without _ns */
	size_t *w;		/* width */
	size_t *natural;	/* width before any shortening */
	bool *left, *duration, *shown;
	size_t hidden;
};

static void text_cols_free(struct text_cols *tc)
{
	free(tc->name);
	free(tc->names);
	free(tc->w);
	free(tc->natural);
	free(tc->left);
	free(tc->duration);
	free(tc->shown);
}

static int text_cols_init(struct text_cols *tc, const struct st_table *t,
			  const struct st_text_layout *layout)
{
	size_t n = t->ncols ? t->ncols : 1, c, at = 0, size = 0;

	memset(tc, 0, sizeof(*tc));
	for (c = 0; c < t->ncols; c++)
		size += strlen(t->col(t, c)) + 1;
	tc->name = calloc(n, sizeof(*tc->name));
	tc->names = malloc(size + 1);
	tc->w = calloc(n, sizeof(*tc->w));
	tc->natural = calloc(n, sizeof(*tc->natural));
	tc->left = calloc(n, sizeof(*tc->left));
	tc->duration = calloc(n, sizeof(*tc->duration));
	tc->shown = calloc(n, sizeof(*tc->shown));
	if (!tc->name || !tc->names || !tc->w || !tc->natural || !tc->left ||
	    !tc->duration || !tc->shown)
		return -ENOMEM;
	for (c = 0; c < t->ncols; c++) {
		const char *name = t->col(t, c);
		size_t len = strlen(name);

		tc->shown[c] = true;
		tc->duration[c] = layout->units && st_text_is_duration(name);
		if (tc->duration[c])
			len -= 3;
		memcpy(tc->names + at, name, len);
		tc->names[at + len] = '\0';
		tc->name[c] = tc->names + at;
		at += len + 1;
	}
	return 0;
}

/* The widths: the layout's, or those that fit the names and every cell. */
static void text_widths(const struct st_table *t,
			const struct st_text_layout *layout, struct st_val *v,
			struct text_cols *tc)
{
	char buf[48];
	size_t i, c;

	for (c = 0; c < t->ncols; c++) {
		if (layout->width) {
			tc->left[c] = layout->width[c] < 0;
			tc->w[c] = (size_t)abs(layout->width[c]);
			continue;
		}
		tc->w[c] = strlen(tc->name[c]);
	}
	if (layout->width)
		return;
	for (i = 0; i < t->nrows; i++) {
		read_row(t, i, v);
		for (c = 0; c < t->ncols; c++) {
			size_t len = strlen(cell_text(&v[c].c, tc->duration[c], buf,
						      sizeof(buf)));

			if (v[c].c.kind == ST_STR || v[c].c.kind == ST_ARGV ||
			    v[c].c.kind == ST_COUNTS)
				tc->left[c] = true;
			if (len > tc->w[c])
				tc->w[c] = len;
		}
	}
	memcpy(tc->natural, tc->w, t->ncols * sizeof(*tc->w));
}

static size_t line_width(const struct st_table *t, const struct text_cols *tc,
			 size_t sep)
{
	size_t c, n = 0, total = 0;

	for (c = 0; c < t->ncols; c++) {
		if (!tc->shown[c])
			continue;
		total += tc->w[c] + (n++ ? sep : 0);
	}
	return total;
}

/*
 * A string column is shortened to COMFY_STR bytes (or its name) before any
 * named column is left out, and to MIN_STR when nothing else can go.
 */
#define COMFY_STR 24
#define MIN_STR 12

/* Ranks from this one on: columns a table did not name as worth keeping. */
#define RANK_UNLISTED 100

static unsigned int rank_of(const struct st_table *t, size_t c)
{
	return t->rank ? t->rank[c] : (unsigned int)c;
}

static size_t min_width(const struct text_cols *tc, size_t c, size_t floor)
{
	return strlen(tc->name[c]) > floor ? strlen(tc->name[c]) : floor;
}

/* Shortens the widest strings, none below floor, until a line fits. */
static void shrink_strings(const struct st_table *t, struct text_cols *tc,
			   size_t max, size_t sep, size_t floor)
{
	size_t total, c, best, room, min;

	while ((total = line_width(t, tc, sep)) > max) {
		for (c = 0, best = t->ncols, room = 0; c < t->ncols; c++) {
			min = min_width(tc, c, floor);
			if (tc->shown[c] && tc->left[c] && tc->w[c] > min &&
			    tc->w[c] - min > room) {
				room = tc->w[c] - min;
				best = c;
			}
		}
		if (best == t->ncols)
			return;
		/* Down to the next widest, or as far as needed. */
		min = min_width(tc, best, floor);
		tc->w[best] = tc->w[best] - min > total - max ?
			      tc->w[best] - (total - max) : min;
	}
}

/* The shown column of rank at least from to leave out first, or ncols. */
static size_t least_column(const struct st_table *t, const struct text_cols *tc,
			   unsigned int from)
{
	size_t c, best = t->ncols;
	unsigned int r, rbest = 0;

	for (c = 0; c < t->ncols; c++) {
		r = rank_of(t, c);
		if (tc->shown[c] && r && r >= from && r >= rbest) {
			rbest = r;
			best = c;
		}
	}
	return best;
}

static void hide(const struct st_table *t, struct text_cols *tc, size_t c)
{
	tc->shown[c] = false;
	tc->hidden++;
	memcpy(tc->w, tc->natural, t->ncols * sizeof(*tc->w));
}

/*
 * Until a line fits in max: the columns the table did not name as worth
 * keeping go, then long strings are shortened a little, then the named
 * columns go from the least important; at last strings are cut short.
 */
static void text_fit(const struct st_table *t, struct text_cols *tc, size_t max,
		     size_t sep)
{
	size_t c;

	while (line_width(t, tc, sep) > max &&
	       (c = least_column(t, tc, RANK_UNLISTED)) < t->ncols)
		hide(t, tc, c);
	for (;;) {
		shrink_strings(t, tc, max, sep, COMFY_STR);
		if (line_width(t, tc, sep) <= max)
			return;
		c = least_column(t, tc, 1);
		if (c == t->ncols)
			break;
		hide(t, tc, c);
	}
	shrink_strings(t, tc, max, sep, MIN_STR);
}

/* "(not shown: a, b; --wide shows them)", or how many when they are many. */
static void say_hidden(FILE *f, const struct st_table *t,
		       const struct text_cols *tc, size_t max)
{
	char *text = NULL;
	size_t len = 0, c, n = 0;
	FILE *m;

	if (tc->hidden > 6) {
		fprintf(f, "(%zu columns not shown; --wide shows them)\n", tc->hidden);
		return;
	}
	m = open_memstream(&text, &len);
	if (!m)
		return;
	fputs("(not shown:", m);
	for (c = 0; c < t->ncols; c++)
		if (!tc->shown[c])
			fprintf(m, "%s %s", n++ ? "," : "", t->col(t, c));
	fputs("; --wide shows them)", m);
	fclose(m);
	st_print_wrapped(f, text, max);
	free(text);
}

/* A one-row table too wide for a line: a line per column, name and value. */
static void text_vertical(FILE *f, const struct st_table *t,
			  const struct text_cols *tc, struct st_val *v,
			  const struct st_text_layout *layout)
{
	size_t c, w = 0;
	char buf[48];

	for (c = 0; c < t->ncols; c++)
		if (strlen(tc->name[c]) > w)
			w = strlen(tc->name[c]);
	if (t->title)
		fprintf(f, "%s\n", t->title);
	if (t->nrows)
		read_row(t, 0, v);
	for (c = 0; c < t->ncols; c++) {
		const char *s = t->nrows ?
				cell_text(&v[c].c, tc->duration[c], buf, sizeof(buf)) : "";
		char line[512];

		snprintf(line, sizeof(line), "  %-*s  %s", (int)w, tc->name[c], s);
		st_print_wrapped(f, line, layout->max);
	}
}

int st_table_text(FILE *f, const struct st_table *t,
		  const struct st_text_layout *layout)
{
	struct st_val *v = row_buffer(t);
	struct text_cols tc = { 0 };
	char buf[48], sbuf[256];
	const char *s;
	size_t i, c, n, last;
	int ret = -ENOMEM;
	bool first;

	if (!v || text_cols_init(&tc, t, layout))
		goto out;
	text_widths(t, layout, v, &tc);
	if (layout->max && t->single &&
	    line_width(t, &tc, strlen(layout->sep)) > layout->max) {
		text_vertical(f, t, &tc, v, layout);
		ret = 0;
		goto out;
	}
	if (layout->max)
		text_fit(t, &tc, layout->max, strlen(layout->sep));
	if (t->title)
		fprintf(f, "%s\n", t->title);
	for (c = 0, last = 0; c < t->ncols; c++)
		if (tc.shown[c])
			last = c;
	for (c = 0, first = true; c < t->ncols; c++) {
		if (!tc.shown[c])
			continue;
		put_cell(f, layout->sep, tc.name[c], first, c == last, tc.w[c],
			 tc.left[c]);
		first = false;
	}
	fputc('\n', f);
	for (i = 0; i < t->nrows; i++) {
		read_row(t, i, v);
		n = used_cells(v, t->ncols);
		/* The last cell shown that has a value ends the line. */
		for (c = 0, last = 0; c < n; c++)
			if (tc.shown[c] && (v[c].c.kind != ST_NULL || !c))
				last = c;
		for (c = 0, first = true; c <= last && c < n; c++) {
			if (!tc.shown[c])
				continue;
			s = cell_text(&v[c].c, tc.duration[c], buf, sizeof(buf));
			if (layout->max && !layout->width)
				s = v[c].c.kind == ST_COUNTS ?
				    shorten_counts(s, tc.w[c], sbuf, sizeof(sbuf)) :
				    shorten(s, tc.w[c], sbuf, sizeof(sbuf));
			put_cell(f, layout->sep, s, first, c == last, tc.w[c],
				 tc.left[c]);
			first = false;
		}
		fputc('\n', f);
	}
	if (!t->nrows && t->title)
		fputs("(none)\n", f);
	if (tc.hidden)
		say_hidden(f, t, &tc, layout->max);
	ret = 0;
out:
	text_cols_free(&tc);
	free(v);
	return ret;
}

void st_print_wrapped(FILE *f, const char *text, size_t max)
{
	const char *p = text, *end, *brk;
	size_t indent = 0, room;

	if (!max) {
		fprintf(f, "%s\n", text);
		return;
	}
	while (*p) {
		room = max - indent;
		end = p + strlen(p);
		if ((size_t)(end - p) <= room) {
			fprintf(f, "%*s%s\n", (int)indent, "", p);
			return;
		}
		/* The last blank that lets the line fit; a longer word is cut. */
		for (brk = p + room; brk > p && *brk != ' '; brk--)
			;
		if (brk == p)
			brk = p + utf8_prefix(p, room);
		fprintf(f, "%*s%.*s\n", (int)indent, "", (int)(brk - p), p);
		p = brk;
		while (*p == ' ')
			p++;
		indent = 2;
	}
}

/* An argv's command line, whole, as one CSV field. */
static void put_argv_csv(struct st_obuf *o, const struct st_cell *c)
{
	char *s = st_argv_shell_str(c->s, (size_t)c->u);

	if (s)
		st_csv_field(o, s);
	free(s);
}

/* One cell as st_csv_field(st_cell_text(c)) prints it. */
static void put_cell_csv(struct st_obuf *o, const struct st_cell *c)
{
	char buf[48];

	switch (c->kind) {
	case ST_NULL:
		return;
	case ST_U64:
		st_obuf_u64(o, c->u);
		return;
	case ST_S64:
		st_obuf_s64(o, c->u);
		return;
	case ST_HEX:
		st_obuf_hex(o, c->u);
		return;
	case ST_BOOL:
		st_obuf_putc(o, c->u ? '1' : '0');
		return;
	case ST_ARGV:
		put_argv_csv(o, c);
		return;
	case ST_STR:
	case ST_COUNTS:
	case ST_FIXED:
		break;
	}
	st_csv_field(o, st_cell_text(c, buf, sizeof(buf)));
}

int st_table_csv(FILE *f, const struct st_table *t)
{
	struct st_val *v = row_buffer(t);
	struct st_obuf o;
	size_t i, c;
	int ret = -ENOMEM;

	if (!st_obuf_open(&o, f) || !v)
		goto out;
	for (c = 0; c < t->ncols; c++) {
		if (c)
			st_obuf_putc(&o, ',');
		st_csv_field(&o, t->col(t, c));
	}
	st_obuf_putc(&o, '\n');
	for (i = 0; i < t->nrows; i++) {
		read_row(t, i, v);
		for (c = 0; c < t->ncols; c++) {
			if (c)
				st_obuf_putc(&o, ',');
			put_cell_csv(&o, &v[c].c);
		}
		st_obuf_putc(&o, '\n');
	}
	ret = 0;
out:
	if (o.b)
		st_obuf_close(&o);
	free(v);
	return ret;
}

json_t *st_table_json_row(const struct st_table *t, const struct st_val *v)
{
	json_t *o = json_object();
	size_t c;

	if (!o)
		return NULL;
	for (c = 0; c < t->ncols; c++) {
		json_t *j = st_cell_json(&v[c].c);

		json_object_set_new(o, t->col(t, c), j ? j : json_null());
	}
	return o;
}

/* The flags put_row_direct prints as jansson would: compact, nothing else. */
static bool direct_flags(size_t flags)
{
	return (flags & ~(size_t)(JSON_REAL_PRECISION(31) | JSON_ENCODE_ANY)) ==
	       JSON_COMPACT;
}

/* One cell as st_cell_json(c) dumped with flags prints it. */
static int put_cell_json(struct st_obuf *o, const struct st_cell *c, size_t flags)
{
	char buf[64];
	size_t n;
	json_t *j;

	switch (c->kind) {
	case ST_U64:
	case ST_S64:
		st_obuf_s64(o, c->u);
		return 0;
	case ST_STR:
		if (!c->s)
			break;
		st_json_put_string(o, c->s);
		return 0;
	case ST_HEX:
		st_obuf_putc(o, '"');
		st_obuf_hex(o, c->u);
		st_obuf_putc(o, '"');
		return 0;
	case ST_BOOL:
		st_obuf_puts(o, c->u ? "true" : "false");
		return 0;
	case ST_ARGV:
		st_argv_put_json(o, c->s, (size_t)c->u);
		return 0;
	case ST_COUNTS: {
		char *text;

		j = st_cell_json(c);
		text = j ? json_dumps(j, flags) : NULL;
		json_decref(j);
		if (!text)
			return -EIO;
		st_obuf_puts(o, text);
		free(text);
		return 0;
	}
	case ST_FIXED:
		j = st_cell_json(c);
		n = j ? json_dumpb(j, buf, sizeof(buf), flags | JSON_ENCODE_ANY) : 0;
		json_decref(j);
		if (!n || n > sizeof(buf))
			return -EIO;
		st_obuf_put(o, buf, n);
		return 0;
	case ST_NULL:
		break;
	}
	st_obuf_puts(o, "null");
	return 0;
}

/*
 * The keys of t's rows as put_row_direct prints them, escaped once per
 * table rather than once per cell: "name": and, but for the first column,
 * the ',' before it. Key c is k->text[k->off[c] .. k->off[c + 1]].
 */
struct json_keys {
	char *text;
	size_t *off;
};

static int json_keys_build(struct json_keys *k, const struct st_table *t)
{
	struct st_obuf o;
	size_t c, cap = 0;

	/* Escaped, a byte takes at most 6 ("\u001F"). */
	for (c = 0; c < t->ncols; c++)
		cap += strlen(t->col(t, c)) * 6 + 4;
	k->text = malloc(cap ? cap : 1);
	k->off = calloc(t->ncols + 1, sizeof(*k->off));
	if (!k->text || !k->off)
		return -ENOMEM;
	st_obuf_init(&o, NULL, k->text, cap);
	for (c = 0; c < t->ncols; c++) {
		if (c)
			st_obuf_putc(&o, ',');
		st_json_put_string(&o, t->col(t, c));
		st_obuf_putc(&o, ':');
		k->off[c + 1] = o.len;
	}
	return 0;
}

static void json_keys_free(struct json_keys *k)
{
	free(k->text);
	free(k->off);
}

/*
 * Row r as one compact object, written as it is read: building a jansson
 * object per row first made `dump --json` 6 times slower than the CSV of
 * the same rows.
 */
static int put_row_direct(struct st_obuf *o, const struct st_table *t, size_t r,
			  struct st_val *v, size_t flags, const struct json_keys *k)
{
	size_t c;

	read_row(t, r, v);
	st_obuf_putc(o, '{');
	for (c = 0; c < t->ncols; c++) {
		st_obuf_put(o, k->text + k->off[c], k->off[c + 1] - k->off[c]);
		if (put_cell_json(o, &v[c].c, flags))
			return -EIO;
	}
	st_obuf_putc(o, '}');
	return 0;
}

/* Row r through a jansson object, printed and freed. */
static int put_row_jansson(struct st_obuf *o, const struct st_table *t, size_t r,
			   struct st_val *v, size_t flags)
{
	json_t *row;
	int ret;

	read_row(t, r, v);
	row = st_table_json_row(t, v);
	if (!row)
		return -ENOMEM;
	st_obuf_flush(o);
	ret = json_dumpf(row, o->f, flags);
	json_decref(row);
	return ret ? -EIO : 0;
}

/* Row r as JSON; k: the keys, if jansson's printing is not needed. */
static int put_row(struct st_obuf *o, const struct st_table *t, size_t r,
		   struct st_val *v, size_t flags, const struct json_keys *k)
{
	if (k)
		return put_row_direct(o, t, r, v, flags, k);
	return put_row_jansson(o, t, r, v, flags);
}

static int put_rows(struct st_obuf *o, const struct st_table *t,
		    struct st_val *v, size_t flags, const struct json_keys *k)
{
	size_t i;
	int ret = 0;

	if (t->single) {
		if (t->nrows)
			return put_row(o, t, 0, v, flags, k);
		st_obuf_puts(o, "null");
		return 0;
	}
	st_obuf_putc(o, '[');
	for (i = 0; i < t->nrows && !ret; i++) {
		st_obuf_puts(o, i ? ",\n" : "\n");
		ret = put_row(o, t, i, v, flags, k);
	}
	if (!ret)
		st_obuf_puts(o, t->nrows ? "\n]" : "]");
	return ret;
}

int st_table_json(FILE *f, const struct st_table *t, size_t flags)
{
	struct json_keys keys = { NULL, NULL };
	bool direct = direct_flags(flags);
	struct st_val *v = row_buffer(t);
	struct st_obuf o;
	int ret = -ENOMEM;

	flags |= JSON_ENCODE_ANY;
	if (!st_obuf_open(&o, f) || !v || (direct && json_keys_build(&keys, t)))
		goto out;
	ret = put_rows(&o, t, v, flags, direct ? &keys : NULL);
out:
	if (o.b)
		st_obuf_close(&o);
	json_keys_free(&keys);
	free(v);
	return ret;
}
