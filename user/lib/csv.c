// SPDX-License-Identifier: GPL-2.0
/* CSV writer: RFC 4180 fields, a header row, LF line endings. */
#include <inttypes.h>
#include <string.h>
#include "output.h"

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

void st_csv_value(FILE *f, const struct st_val *v)
{
	switch (v->type) {
	case ST_V_NULL:
		break;
	case ST_V_UINT:
		fprintf(f, "%" PRIu64, v->u);
		break;
	case ST_V_STR:
		st_csv_field(f, v->s);
		break;
	case ST_V_BOOL:
		fputc(v->u ? '1' : '0', f);
		break;
	case ST_V_MILLI:
		fprintf(f, "%" PRIu64 ".%03" PRIu64, v->u / 1000, v->u % 1000);
		break;
	case ST_V_INT:
		fprintf(f, "%" PRId64, (int64_t)v->u);
		break;
	}
}

void st_csv_table(FILE *f, const struct st_view *v, enum st_table_kind kind,
		  bool symbols)
{
	struct st_table t;
	struct st_row row;
	struct st_val val;
	size_t i, c, nrows, ncols;

	st_table_get(kind, symbols, &t);
	ncols = st_table_ncolumns(&t);
	for (c = 0; c < ncols; c++) {
		if (c)
			fputc(',', f);
		st_csv_field(f, st_table_column(&t, c)->name);
	}
	fputc('\n', f);

	nrows = st_view_rows(v, kind);
	for (i = 0; i < nrows; i++) {
		st_view_row(v, kind, i, &row);
		for (c = 0; c < ncols; c++) {
			if (c)
				fputc(',', f);
			memset(&val, 0, sizeof(val));
			st_table_column(&t, c)->get(&row, &val);
			st_csv_value(f, &val);
		}
		fputc('\n', f);
	}
}
