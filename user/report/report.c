// SPDX-License-Identifier: GPL-2.0
/*
 * The reports' tables, kept cell by cell, and the report as a document:
 * text (its notes, then every table), CSV (one table) or JSON (one
 * document holding every table). The table writer (lib/out/table.h) prints
 * the tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
		free((char *)t->cells[i].s);
	free(t->cells);
	free(t->rank);
	free(t);
}

int rt_table_keep(struct rt_table *t, const char *const *order)
{
	size_t c, k;

	if (!t->rank)
		t->rank = malloc(t->ncols ? t->ncols : 1);
	if (!t->rank)
		return -ENOMEM;
	for (c = 0; c < t->ncols; c++) {
		for (k = 0; order[k] && strcmp(order[k], t->cols[c]); k++)
			;
		t->rank[c] = order[k] ? (unsigned char)k : (unsigned char)(100 + c);
	}
	return 0;
}

struct st_cell *rt_row(struct rt_table *t)
{
	struct st_cell *row;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct st_cell *c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c)
			return NULL;
		t->cells = c;
		t->cap = cap;
	}
	row = &t->cells[t->nrows++ * t->ncols];
	memset(row, 0, t->ncols * sizeof(*row));
	return row;
}

struct rt_table *rt_totals(const char *const *cols, size_t ncols,
			   struct st_cell **row)
{
	struct rt_table *t = rt_table_new("totals", "totals", cols, ncols);

	if (!t || !(*row = rt_row(t))) {
		rt_table_free(t);
		return NULL;
	}
	t->single = true;
	return t;
}

void rt_u64(struct st_cell *c, uint64_t v)
{
	c->kind = ST_U64;
	c->u = v;
}

int rt_str(struct st_cell *c, const char *s)
{
	if (!s)
		return 0;
	c->s = strdup(s);
	if (!c->s)
		return -ENOMEM;
	c->kind = ST_STR;
	return 0;
}

void rt_hex(struct st_cell *c, uint64_t v)
{
	c->kind = ST_HEX;
	c->u = v;
}

/* Two's complement: exact while |b - a| < 2^63. */
void rt_delta(struct st_cell *c, uint64_t a, uint64_t b)
{
	c->kind = ST_S64;
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

void rt_frac(struct st_cell *c, uint64_t num, uint64_t den)
{
	if (!den)
		return;
	c->kind = ST_FIXED;
	c->decimals = 4;
	c->u = rt_ratio(num, den, 10000);
}

void rt_pct(struct st_cell *c, uint64_t num, uint64_t den)
{
	if (!den)
		return;
	c->kind = ST_FIXED;
	c->decimals = 2;
	c->u = rt_ratio(num, den, 10000);
}

void rt_pct_change(struct st_cell *c, uint64_t a, uint64_t b)
{
	if (!a)
		return;
	c->kind = ST_FIXED;
	c->decimals = 2;
	c->negative = b < a;
	c->u = rt_ratio(b < a ? a - b : b - a, a, 10000);
}

int rt_syscall(struct st_cell *c, uint32_t abi, uint32_t nr)
{
	rt_u64(&c[1], nr);
	if (rt_str(&c[0], st_abi_name(abi)))
		return -ENOMEM;
	return rt_str(&c[2], st_syscall_name(abi, nr));
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

static const char *rt_col(const struct st_table *t, size_t c)
{
	const struct rt_table *rt = t->ctx;

	return rt->cols[c];
}

static void rt_cells(const struct st_table *t, size_t r, struct st_val *v)
{
	const struct rt_table *rt = t->ctx;
	size_t c;

	for (c = 0; c < rt->ncols; c++)
		v[c].c = rt->cells[r * rt->ncols + c];
}

/* rt as a table for the writer. */
static struct st_table writable(const struct rt_table *rt)
{
	return (struct st_table){
		.name = rt->name,
		.title = rt->title,
		.ncols = rt->ncols,
		.nrows = rt->nrows,
		.single = rt->single,
		.col = rt_col,
		.row = rt_cells,
		.ctx = rt,
		.rank = rt->rank,
	};
}

/*
 * {"schema_version":2,"report":NAME,"session":{...},"parameters":{...},
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
	json_t *notes = json_array();
	size_t i, k;

	if (!notes)
		return -ENOMEM;
	for (i = 0; i < r->nnotes; i++)
		json_array_append_new(notes, st_json_string(r->notes[i]));
	fprintf(f, "{\"schema_version\":%d,\n\"report\":\"%s\",\n",
		RT_SCHEMA_VERSION, r->name);
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
		struct st_table t = writable(r->tables[k]);
		int ret;

		fprintf(f, ",\n\"%s\":", t.name);
		ret = st_table_json(f, &t, JSON_COMPACT);
		if (ret)
			return ret;
	}
	fputs("}\n", f);
	return 0;
}

int rt_report_print(FILE *f, const struct rt_report *r, enum st_format fmt,
		    const char *table)
{
	return rt_report_print_layout(f, r, fmt, table, &st_text_fit);
}

int rt_report_print_layout(FILE *f, const struct rt_report *r,
			   enum st_format fmt, const char *table,
			   const struct st_text_layout *layout)
{
	size_t i;

	switch (fmt) {
	case ST_FMT_JSON:
		return print_json(f, r);
	case ST_FMT_CSV:
		if (!table)
			table = r->csv_table ? r->csv_table : r->tables[0]->name;
		for (i = 0; i < r->ntables; i++) {
			if (!strcmp(table, r->tables[i]->name)) {
				struct st_table t = writable(r->tables[i]);

				return st_table_csv(f, &t);
			}
		}
		return -ENOENT;
	case ST_FMT_TEXT:
		for (i = 0; i < r->nnotes; i++)
			st_print_wrapped(f, r->notes[i], layout->max);
		for (i = 0; i < r->ntables; i++) {
			struct st_table t = writable(r->tables[i]);
			int ret;

			fputc('\n', f);
			ret = st_table_text(f, &t, layout);
			if (ret)
				return ret;
			if (r->tables[i]->more)
				fprintf(f, "(%zu more rows: --top N, or --all)\n",
					r->tables[i]->more);
		}
		if (r->hidden)
			fprintf(f, "\n(per process: %zu rows; --by process shows them)\n",
				r->hidden_rows);
		return 0;
	}
	return -EINVAL;
}

struct print_args {
	const struct rt_report *r;
	enum st_format fmt;
	const char *table;
	const struct st_text_layout *layout;
};

static int print_report(FILE *f, const void *ctx)
{
	const struct print_args *a = ctx;

	return rt_report_print_layout(f, a->r, a->fmt, a->table, a->layout);
}

/* Prints r where out says; a failure to write is an error. */
int rt_report_write(const struct st_output_opts *out, const struct rt_report *r,
		    const char *table, struct st_err *err)
{
	struct st_text_layout fit = st_text_fit;
	struct print_args a = { r, out->format, table, out->wide ? &st_text_wide : &fit };

	if (!out->path)
		fit.max = st_text_width(STDOUT_FILENO);

	return st_output_write(out->path, "writing the report", print_report,
			       &a, err);
}
