// SPDX-License-Identifier: GPL-2.0
/*
 * The reports' tables and their three writers: aligned text (numbers to
 * the right, strings to the left), CSV (RFC 4180, one table) and one JSON
 * document holding every table. A table's column names are its CSV header
 * and the keys of its JSON rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

struct rt_table *rt_table_new(const char *name, const char *title,
			      const char *const *cols, size_t ncols)
{
	struct rt_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->name = name;
	t->title = title;
	t->cols = cols;
	t->ncols = ncols;
	return t;
}

void rt_table_free(struct rt_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i].s);
	free(t->cells);
	free(t);
}

struct rt_cell *rt_row(struct rt_table *t)
{
	struct rt_cell *row;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct rt_cell *c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c)
			return NULL;
		t->cells = c;
		t->cap = cap;
	}
	row = &t->cells[t->nrows++ * t->ncols];
	memset(row, 0, t->ncols * sizeof(*row));
	return row;
}

void rt_u64(struct rt_cell *c, uint64_t v)
{
	c->kind = RT_U64;
	c->u = v;
}

int rt_str(struct rt_cell *c, const char *s)
{
	if (!s)
		return 0;
	c->s = strdup(s);
	if (!c->s)
		return -ENOMEM;
	c->kind = RT_STR;
	return 0;
}

void rt_hex(struct rt_cell *c, uint64_t v)
{
	c->kind = RT_HEX;
	c->u = v;
}

/* Two's complement: exact while |b - a| < 2^63. */
void rt_delta(struct rt_cell *c, uint64_t a, uint64_t b)
{
	c->kind = RT_S64;
	c->u = b - a;
}

/* num * scale / den, rounded to nearest; den 0 gives 0. */
uint64_t rt_ratio(uint64_t num, uint64_t den, uint64_t scale)
{
	unsigned __int128 n = (unsigned __int128)num * scale;

	if (!den)
		return 0;
	return (uint64_t)((n + den / 2) / den);
}

void rt_frac(struct rt_cell *c, uint64_t num, uint64_t den)
{
	if (!den)
		return;
	c->kind = RT_FRAC;
	c->u = rt_ratio(num, den, 10000);
}

void rt_pct(struct rt_cell *c, uint64_t num, uint64_t den)
{
	if (!den)
		return;
	c->kind = RT_PCT;
	c->u = rt_ratio(num, den, 10000);
}

int rt_note(struct rt_report *r, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (r->nnotes == sizeof(r->notes) / sizeof(r->notes[0]))
		return -ENOSPC;
	va_start(ap, fmt);
	ret = vasprintf(&r->notes[r->nnotes], fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	r->nnotes++;
	return 0;
}

/*
 * "WHAT: session ID "NAME" (STATE[, from INPUT]): counts", then a warning
 * line for each reason the data may be incomplete.
 */
int rt_note_source(struct rt_report *r, const char *what,
		   const struct st_dump *d, const char *input)
{
	const struct st_session_row *s = &d->session;
	const char *state = st_state_name(s->state);
	int ret;

	ret = rt_note(r, "%s: session %u%s%s%s (%s%s%s): %zu processes, %zu site rows, %llu syscalls",
		      what, s->id, s->name[0] ? " \"" : "", s->name,
		      s->name[0] ? "\"" : "", state ? state : "?",
		      input ? ", from " : "", input ? input : "",
		      d->nprocs, d->nsites, (unsigned long long)s->syscalls);
	if (!ret && st_session_dropped(s))
		ret = rt_note(r, "warning: session %u dropped %llu events (see status): some calls are in no row",
			      s->id, (unsigned long long)st_session_dropped(s));
	if (!ret && !st_state_final(s->state))
		ret = rt_note(r, "warning: session %u is not finished: the data is live",
			      s->id);
	return ret;
}

int rt_add(struct rt_report *r, struct rt_table *t)
{
	if (!t)
		return -ENOMEM;
	if (r->ntables == RT_MAX_TABLES) {
		rt_table_free(t);
		return -ENOSPC;
	}
	r->tables[r->ntables++] = t;
	return 0;
}

void rt_report_free(struct rt_report *r)
{
	size_t i;

	for (i = 0; i < r->ntables; i++)
		rt_table_free(r->tables[i]);
	for (i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	json_decref(r->params);
	memset(r, 0, sizeof(*r));
}

/* The cell as text (CSV and the text table); "" for a missing value. */
static const char *cell_text(const struct rt_cell *c, char *buf, size_t len)
{
	switch (c->kind) {
	case RT_NULL:
		return "";
	case RT_U64:
		snprintf(buf, len, "%" PRIu64, c->u);
		return buf;
	case RT_STR:
		return c->s;
	case RT_HEX:
		snprintf(buf, len, "0x%" PRIx64, c->u);
		return buf;
	case RT_FRAC:
		snprintf(buf, len, "%" PRIu64 ".%04" PRIu64, c->u / 10000, c->u % 10000);
		return buf;
	case RT_PCT:
		snprintf(buf, len, "%" PRIu64 ".%02" PRIu64, c->u / 100, c->u % 100);
		return buf;
	case RT_S64:
		snprintf(buf, len, "%" PRId64, (int64_t)c->u);
		return buf;
	}
	return "";
}

static json_t *cell_json(const struct rt_cell *c)
{
	char buf[48];

	switch (c->kind) {
	case RT_NULL:
		break;
	case RT_U64:
		return json_integer((json_int_t)c->u);
	case RT_STR:
		return st_json_string(c->s);
	case RT_HEX:
		return json_string(cell_text(c, buf, sizeof(buf)));
	case RT_FRAC:
		return json_real((double)c->u / 10000.0);
	case RT_PCT:
		return json_real((double)c->u / 100.0);
	case RT_S64:
		return json_integer((json_int_t)(int64_t)c->u);
	}
	return json_null();
}

/* The last cell of a line is not padded: no trailing blanks. */
static void put_cell(FILE *f, const char *s, size_t c, bool last,
		     size_t width, bool left)
{
	if (c)
		fputs("  ", f);
	if (left && last)
		fputs(s, f);
	else
		fprintf(f, left ? "%-*s" : "%*s", (int)width, s);
}

/* Cells after the last non-empty one are not printed. */
static size_t used_cells(const struct rt_table *t, size_t i)
{
	size_t c = t->ncols;

	while (c > 1 && t->cells[i * t->ncols + c - 1].kind == RT_NULL)
		c--;
	return c;
}

static void print_text_table(FILE *f, const struct rt_table *t)
{
	size_t *w = calloc(t->ncols, sizeof(*w));
	bool *left = calloc(t->ncols, sizeof(*left));
	char buf[48];
	size_t i, c;

	if (!w || !left) {
		free(w);
		free(left);
		return;
	}
	for (c = 0; c < t->ncols; c++)
		w[c] = strlen(t->cols[c]);
	for (i = 0; i < t->nrows; i++) {
		for (c = 0; c < t->ncols; c++) {
			const struct rt_cell *cell = &t->cells[i * t->ncols + c];
			size_t len = strlen(cell_text(cell, buf, sizeof(buf)));

			if (cell->kind == RT_STR)
				left[c] = true;
			if (len > w[c])
				w[c] = len;
		}
	}
	fprintf(f, "%s\n", t->title);
	for (c = 0; c < t->ncols; c++)
		put_cell(f, t->cols[c], c, c + 1 == t->ncols, w[c], left[c]);
	fputc('\n', f);
	for (i = 0; i < t->nrows; i++) {
		size_t n = used_cells(t, i);

		for (c = 0; c < n; c++)
			put_cell(f, cell_text(&t->cells[i * t->ncols + c], buf,
					      sizeof(buf)),
				 c, c + 1 == n, w[c], left[c]);
		fputc('\n', f);
	}
	if (!t->nrows)
		fputs("(none)\n", f);
	free(w);
	free(left);
}

static void print_csv_table(FILE *f, const struct rt_table *t)
{
	char buf[48];
	size_t i, c;

	for (c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', f);
		st_csv_field(f, t->cols[c]);
	}
	fputc('\n', f);
	for (i = 0; i < t->nrows; i++) {
		for (c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', f);
			st_csv_field(f, cell_text(&t->cells[i * t->ncols + c],
						  buf, sizeof(buf)));
		}
		fputc('\n', f);
	}
}

static json_t *json_row(const struct rt_table *t, size_t i)
{
	json_t *o = json_object();
	size_t c;

	if (!o)
		return NULL;
	for (c = 0; c < t->ncols; c++) {
		json_t *v = cell_json(&t->cells[i * t->ncols + c]);

		json_object_set_new(o, t->cols[c], v ? v : json_null());
	}
	return o;
}

/*
 * {"schema_version":1,"report":NAME,"session":{...},"parameters":{...},
 *  "notes":[...], then one key per table}: single-row tables are objects,
 * the others arrays of row objects, one row per line.
 */
/* "session":{...}, or for a diff "session_a":{...},\n"session_b":{...} */
static int print_sessions(FILE *f, const struct rt_report *r)
{
	const struct st_dump *d[2] = { r->dump, r->dump_b };
	size_t i, n = r->dump_b ? 2 : 1;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		json_t *session = st_json_session(&d[i]->session);

		if (fprintf(f, "%s\"session%s\":", i ? ",\n" : "",
			    n == 1 ? "" : i ? "_b" : "_a") < 0 ||
		    json_dumpf(session, f, JSON_COMPACT))
			ret = -EIO;
		json_decref(session);
	}
	return ret;
}

static int print_json(FILE *f, const struct rt_report *r)
{
	json_t *notes = json_array(), *row;
	size_t i, k;

	if (!notes)
		return -ENOMEM;
	for (i = 0; i < r->nnotes; i++)
		json_array_append_new(notes, st_json_string(r->notes[i]));
	fprintf(f, "{\"schema_version\":%d,\n\"report\":\"%s\",\n",
		ST_SCHEMA_VERSION, r->name);
	if (print_sessions(f, r) ||
	    fputs(",\n\"parameters\":", f) < 0 ||
	    (r->params ? json_dumpf(r->params, f, JSON_COMPACT) :
			 fputs("{}", f) < 0) ||
	    fputs(",\n\"notes\":", f) < 0 ||
	    json_dumpf(notes, f, JSON_COMPACT)) {
		json_decref(notes);
		return -EIO;
	}
	json_decref(notes);
	for (k = 0; k < r->ntables; k++) {
		const struct rt_table *t = r->tables[k];

		fprintf(f, ",\n\"%s\":", t->name);
		if (t->single) {
			row = t->nrows ? json_row(t, 0) : json_null();
			if (!row || json_dumpf(row, f, JSON_COMPACT | JSON_ENCODE_ANY)) {
				json_decref(row);
				return -ENOMEM;
			}
			json_decref(row);
			continue;
		}
		fputc('[', f);
		for (i = 0; i < t->nrows; i++) {
			row = json_row(t, i);
			fputs(i ? ",\n" : "\n", f);
			if (!row || json_dumpf(row, f, JSON_COMPACT)) {
				json_decref(row);
				return -ENOMEM;
			}
			json_decref(row);
		}
		fputs(t->nrows ? "\n]" : "]", f);
	}
	fputs("}\n", f);
	return 0;
}

int rt_report_print(FILE *f, const struct rt_report *r, enum rt_format fmt,
		    const char *table)
{
	size_t i;

	switch (fmt) {
	case RT_JSON:
		return print_json(f, r);
	case RT_CSV:
		if (!table)
			table = r->csv_table ? r->csv_table : r->tables[0]->name;
		for (i = 0; i < r->ntables; i++) {
			if (!strcmp(table, r->tables[i]->name)) {
				print_csv_table(f, r->tables[i]);
				return 0;
			}
		}
		return -ENOENT;
	case RT_TEXT:
		for (i = 0; i < r->nnotes; i++)
			fprintf(f, "%s\n", r->notes[i]);
		for (i = 0; i < r->ntables; i++) {
			fputc('\n', f);
			print_text_table(f, r->tables[i]);
		}
		return 0;
	}
	return -EINVAL;
}

/* Prints r to path (NULL: stdout); a failure to write is an error. */
int rt_report_write(const char *path, const struct rt_report *r,
		    enum rt_format fmt, const char *table, struct st_err *err)
{
	FILE *f = stdout;
	int ret;

	if (path) {
		f = fopen(path, "w");
		if (!f) {
			ret = -errno;
			st_err_set(err, ST_ERR_LOCAL, -ret, path, NULL);
			return ret;
		}
	}
	ret = rt_report_print(f, r, fmt, table);
	if (fflush(f) || ferror(f))
		ret = ret ? ret : -EIO;
	if (f != stdout && fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		st_err_set(err, ST_ERR_LOCAL, -ret, "writing the report", "%s",
			   path ? path : "stdout");
	return ret;
}
