/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_TABLE_H
#define SYSTRACE_TABLE_H

/*
 * The typed-table writer. Every table systracectl prints (the dump's, the
 * reports' and diff's, list's) is a list of column names and rows of typed
 * cells, written here as aligned text, CSV (RFC 4180) or JSON. A column's
 * name is its text heading, its CSV header and its JSON key: declared once,
 * a column appears in every format.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum st_kind {
	ST_NULL,	/* missing: empty in text and CSV, null in JSON */
	ST_U64,
	ST_S64,		/* (int64_t)u: a signed difference */
	ST_STR,		/* s */
	ST_HEX,		/* u as "0x...", a string in JSON too */
	ST_BOOL,	/* u: 1 or 0 in text and CSV, true or false in JSON */
	ST_FIXED,	/* u / 10^decimals with its decimals; a number in JSON */
};

struct st_cell {
	enum st_kind kind;
	unsigned int decimals;		/* ST_FIXED */
	uint64_t u;
	const char *s;			/* ST_STR */
};

/* A cell, and room for a string it builds (a time, an unknown enum). */
struct st_val {
	struct st_cell c;
	char buf[48];
};

/*
 * A table to write: its columns, and its rows read one at a time, so that
 * a dump's table is written without being copied.
 */
struct st_table {
	const char *name;		/* JSON key, report --table NAME */
	const char *title;		/* text: a heading, and "(none)" if empty */
	size_t ncols, nrows;
	bool single;			/* JSON: the one row's object, not an array */
	const char *(*col)(const struct st_table *t, size_t c);
	/* Fills v[0 .. ncols - 1], zeroed by the caller, with row r. */
	void (*row)(const struct st_table *t, size_t r, struct st_val *v);
	const void *ctx;
};

/* Text: cells between sep; width NULL: fit the columns. */
struct st_text_layout {
	const char *sep;
	const int *width;		/* as printf's, negative: left-aligned */
};

extern const struct st_text_layout st_text_fit;

enum st_format { ST_FMT_TEXT, ST_FMT_CSV, ST_FMT_JSON };

/* Where and how a command prints: --csv, --json, -o/--output FILE. */
struct st_output_opts {
	const char *path;		/* NULL: stdout */
	enum st_format format;
	bool format_set;
};

const char *st_cell_text(const struct st_cell *c, char *buf, size_t len);
json_t *st_cell_json(const struct st_cell *c);

void st_csv_field(FILE *f, const char *s);

int st_table_text(FILE *f, const struct st_table *t,
		  const struct st_text_layout *layout);
int st_table_csv(FILE *f, const struct st_table *t);
json_t *st_table_json_row(const struct st_table *t, const struct st_val *v);
/* The array of row objects, one per line, or the single row; flags: jansson's. */
int st_table_json(FILE *f, const struct st_table *t, size_t flags);

struct st_err;
/*
 * write(f, ctx) to path (NULL: stdout). Returns 0 or -errno, with err set:
 * the path when it does not open, else "writing WHAT" and the path.
 */
int st_output_write(const char *path, const char *what,
		    int (*write)(FILE *f, const void *ctx), const void *ctx,
		    struct st_err *err);

#endif
