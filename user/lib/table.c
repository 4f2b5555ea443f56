// SPDX-License-Identifier: GPL-2.0
/*
 * The typed-table writer (table.h): aligned text (numbers to the right,
 * strings to the left), CSV (RFC 4180, a header row, LF line endings) and
 * JSON (one object per row, one row per line).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "output.h"
#include "table.h"

const struct st_text_layout st_text_fit = { .sep = "  " };

static uint64_t pow10_u64(unsigned int n)
{
	uint64_t p = 1;

	while (n--)
		p *= 10;
	return p;
}

/* The cell as text (text and CSV); "" for a missing value. */
const char *st_cell_text(const struct st_cell *c, char *buf, size_t len)
{
	uint64_t scale;

	switch (c->kind) {
	case ST_NULL:
		return "";
	case ST_U64:
		snprintf(buf, len, "%" PRIu64, c->u);
		return buf;
	case ST_S64:
		snprintf(buf, len, "%" PRId64, (int64_t)c->u);
		return buf;
	case ST_STR:
		return c->s;
	case ST_HEX:
		snprintf(buf, len, "0x%" PRIx64, c->u);
		return buf;
	case ST_BOOL:
		return c->u ? "1" : "0";
	case ST_FIXED:
		scale = pow10_u64(c->decimals);
		snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, c->u / scale,
			 (int)c->decimals, c->u % scale);
		return buf;
	}
	return "";
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
		return json_real((double)c->u / (double)pow10_u64(c->decimals));
	}
	return json_null();
}

void st_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Room for one row of t's values. */
static struct st_val *row_buffer(const struct st_table *t)
{
	return calloc(t->ncols ? t->ncols : 1, sizeof(struct st_val));
}

/* Row r of t into v, which holds t->ncols values. */
static void read_row(const struct st_table *t, size_t r, struct st_val *v)
{
	memset(v, 0, t->ncols * sizeof(*v));
	t->row(t, r, v);
}

/* The last cell of a line is not padded when left-aligned: no trailing blanks. */
static void put_cell(FILE *f, const char *sep, const char *s, size_t c,
		     bool last, size_t width, bool left)
{
	if (c)
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

/* The widths: the layout's, or those that fit the names and every cell. */
static void text_widths(const struct st_table *t,
			const struct st_text_layout *layout, struct st_val *v,
			size_t *w, bool *left)
{
	char buf[48];
	size_t i, c;

	for (c = 0; c < t->ncols; c++) {
		if (layout->width) {
			left[c] = layout->width[c] < 0;
			w[c] = (size_t)abs(layout->width[c]);
			continue;
		}
		w[c] = strlen(t->col(t, c));
	}
	if (layout->width)
		return;
	for (i = 0; i < t->nrows; i++) {
		read_row(t, i, v);
		for (c = 0; c < t->ncols; c++) {
			size_t len = strlen(st_cell_text(&v[c].c, buf, sizeof(buf)));

			if (v[c].c.kind == ST_STR)
				left[c] = true;
			if (len > w[c])
				w[c] = len;
		}
	}
}

int st_table_text(FILE *f, const struct st_table *t,
		  const struct st_text_layout *layout)
{
	struct st_val *v = row_buffer(t);
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof(*w));
	bool *left = calloc(t->ncols ? t->ncols : 1, sizeof(*left));
	char buf[48];
	size_t i, c, n;
	int ret = -ENOMEM;

	if (!v || !w || !left)
		goto out;
	text_widths(t, layout, v, w, left);
	if (t->title)
		fprintf(f, "%s\n", t->title);
	for (c = 0; c < t->ncols; c++)
		put_cell(f, layout->sep, t->col(t, c), c, c + 1 == t->ncols,
			 w[c], left[c]);
	fputc('\n', f);
	for (i = 0; i < t->nrows; i++) {
		read_row(t, i, v);
		n = used_cells(v, t->ncols);
		for (c = 0; c < n; c++)
			put_cell(f, layout->sep,
				 st_cell_text(&v[c].c, buf, sizeof(buf)), c,
				 c + 1 == n, w[c], left[c]);
		fputc('\n', f);
	}
	if (!t->nrows && t->title)
		fputs("(none)\n", f);
	ret = 0;
out:
	free(v);
	free(w);
	free(left);
	return ret;
}

int st_table_csv(FILE *f, const struct st_table *t)
{
	struct st_val *v = row_buffer(t);
	char buf[48];
	size_t i, c;

	if (!v)
		return -ENOMEM;
	for (c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', f);
		st_csv_field(f, t->col(t, c));
	}
	fputc('\n', f);
	for (i = 0; i < t->nrows; i++) {
		read_row(t, i, v);
		for (c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', f);
			st_csv_field(f, st_cell_text(&v[c].c, buf, sizeof(buf)));
		}
		fputc('\n', f);
	}
	free(v);
	return 0;
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
static int put_cell_json(FILE *f, const struct st_cell *c, size_t flags)
{
	json_t *j;
	int ret;

	switch (c->kind) {
	case ST_U64:
	case ST_S64:
		fprintf(f, "%" PRId64, (int64_t)c->u);
		return 0;
	case ST_STR:
		if (!c->s)
			break;
		st_json_put_string(f, c->s);
		return 0;
	case ST_HEX:
		fprintf(f, "\"0x%" PRIx64 "\"", c->u);
		return 0;
	case ST_BOOL:
		fputs(c->u ? "true" : "false", f);
		return 0;
	case ST_FIXED:
		j = st_cell_json(c);
		ret = j ? json_dumpf(j, f, flags | JSON_ENCODE_ANY) : -1;
		json_decref(j);
		return ret ? -EIO : 0;
	case ST_NULL:
		break;
	}
	fputs("null", f);
	return 0;
}

/*
 * Row r as one compact object, written as it is read: building a jansson
 * object per row first made `dump --json` 6 times slower than the CSV of
 * the same rows.
 */
static int put_row_direct(FILE *f, const struct st_table *t, size_t r,
			  struct st_val *v, size_t flags)
{
	size_t c;

	read_row(t, r, v);
	fputc('{', f);
	for (c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', f);
		st_json_put_string(f, t->col(t, c));
		fputc(':', f);
		if (put_cell_json(f, &v[c].c, flags))
			return -EIO;
	}
	fputc('}', f);
	return 0;
}

/* Row r as JSON, printed and freed. */
static int put_row(FILE *f, const struct st_table *t, size_t r,
		   struct st_val *v, size_t flags)
{
	json_t *row;
	int ret;

	if (direct_flags(flags))
		return put_row_direct(f, t, r, v, flags);
	read_row(t, r, v);
	row = st_table_json_row(t, v);
	if (!row)
		return -ENOMEM;
	ret = json_dumpf(row, f, flags);
	json_decref(row);
	return ret ? -EIO : 0;
}

int st_table_json(FILE *f, const struct st_table *t, size_t flags)
{
	struct st_val *v = row_buffer(t);
	size_t i;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	flags |= JSON_ENCODE_ANY;
	if (t->single) {
		if (t->nrows)
			ret = put_row(f, t, 0, v, flags);
		else
			ret = json_dumpf(json_null(), f, flags) ? -EIO : 0;
		free(v);
		return ret;
	}
	fputc('[', f);
	for (i = 0; i < t->nrows && !ret; i++) {
		fputs(i ? ",\n" : "\n", f);
		ret = put_row(f, t, i, v, flags);
	}
	if (!ret)
		fputs(t->nrows ? "\n]" : "]", f);
	free(v);
	return ret;
}

int st_output_write(const char *path, const char *what,
		    int (*write)(FILE *f, const void *ctx), const void *ctx,
		    struct st_err *err)
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
	ret = write(f, ctx);
	if (fflush(f) || ferror(f))
		ret = ret ? ret : -EIO;
	if (f != stdout && fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		st_err_set(err, ST_ERR_LOCAL, -ret, what, "%s", path ? path : "stdout");
	return ret;
}
