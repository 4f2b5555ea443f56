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
#include <string.h>
#include "out/obuf.h"

enum st_kind {
	ST_NULL,	/* missing: empty in text and CSV, null in JSON */
	ST_U64,
	ST_S64,		/* (int64_t)u: a signed difference */
	ST_STR,		/* s */
	ST_HEX,		/* u as "0x...", a string in JSON too */
	ST_BOOL,	/* u: 1 or 0 in text and CSV, true or false in JSON */
	ST_FIXED,	/* u / 10^decimals with its decimals; a number in JSON */
	ST_ARGV,	/* s[0, u): argv bytes (argv.h): a command line in
			 * text and CSV, an array of strings in JSON */
	ST_COUNTS,	/* s: counts by name, "NAME(NUM)=COUNT ..." (an errnos
			 * column's form; "(NUM)=COUNT" for a number with no
			 * name): that string in text and CSV, an object
			 * {"NAME": COUNT, ...} in JSON (NUM its key when
			 * there is no NAME); fitted text keeps whole entries
			 * and says "+N more" */
};

struct st_cell {
	enum st_kind kind;
	unsigned int decimals;		/* ST_FIXED */
	bool negative;			/* ST_FIXED: -u / 10^decimals */
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
	/*
	 * Text too wide for the layout's max: which columns go first, each
	 * column's rank (0: never hidden; the highest rank goes first). NULL:
	 * the last column first, the first never.
	 */
	const unsigned char *rank;
};

/*
 * Text: cells between sep; width NULL: fit the columns. With max, lines
 * fit in max columns: long strings are shortened in their middle ("..."),
 * then the columns of highest rank are left out (a last line names them).
 * With units, a duration column (a name ending in _ns that is not a
 * moment: st_text_is_duration) shows as "12.3 ms" under its name without
 * _ns.
 */
struct st_text_layout {
	const char *sep;
	const int *width;		/* as printf's, negative: left-aligned */
	size_t max;			/* 0: no limit */
	bool units;
};

/* Reports and diff: fitted, 100 columns, human units; --wide: no limit. */
#define ST_TEXT_MAX 100
extern const struct st_text_layout st_text_fit;
extern const struct st_text_layout st_text_wide;
/*
 * The columns a fitted text may take on fd: a terminal's own width
 * (TIOCGWINSZ, else COLUMNS), 80 at the least; ST_TEXT_MAX when fd is
 * no terminal.
 */
size_t st_text_width(int fd);

/* ns in 3 significant digits and a unit: "0 ns", "999 ns", "1.23 us", "25.5 s". */
const char *st_format_duration(int64_t ns, char *buf, size_t len);
bool st_text_is_duration(const char *col);
/* The words of text wrapped at max columns, later lines indented by 2. */
void st_print_wrapped(FILE *f, const char *text, size_t max);

enum st_format { ST_FMT_TEXT, ST_FMT_CSV, ST_FMT_JSON };

/* Where and how a command prints: --csv, --json, -o/--output FILE. */
struct st_output_opts {
	const char *path;		/* NULL: stdout */
	enum st_format format;
	bool format_set;
	bool wide;			/* text: every column, every byte */
};


const char *st_cell_text(const struct st_cell *c, char *buf, size_t len);
json_t *st_cell_json(const struct st_cell *c);

void st_csv_field(struct st_obuf *o, const char *s);

/*
 * The one order of --sort, for the dump's tables and the reports': a
 * missing value last, argv bytes and strings A to Z, numbers largest
 * first (a signed delta by its magnitude); equal cells keep the rows'
 * order (st_sort_keys sorts keys by cell, then by row).
 */
int st_cell_cmp(const struct st_cell *x, const struct st_cell *y);
struct st_sort_key {
	size_t row;
	struct st_cell c;
};
void st_sort_keys(struct st_sort_key *k, size_t n);
/*
 * A --sort KEY that names no column, and the columns it stands for in
 * order (the first a table has): "time", "calls", "errors". NULL: none.
 */
const char *const *st_sort_alias(const char *key);
/*
 * Whether a --sort KEY names column col: by its name, or by its text
 * heading (a duration's name without _ns: "avg" for avg_ns).
 */
bool st_sort_names(const char *key, const char *col);
/* A column's text heading: its name, without _ns for a duration. */
size_t st_text_heading(const char *col, char *buf, size_t len);

int st_table_text(FILE *f, const struct st_table *t,
		  const struct st_text_layout *layout);
int st_table_csv(FILE *f, const struct st_table *t);
json_t *st_table_json_row(const struct st_table *t, const struct st_val *v);
/* The array of row objects, one per line, or the single row; flags: jansson's. */
int st_table_json(FILE *f, const struct st_table *t, size_t flags);

#endif
