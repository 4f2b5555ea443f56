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

/*
 * Output gathered in b and handed to f in large pieces. A dump is hundreds
 * of millions of small pieces (a key, a number, a run of a path): one stdio
 * call each, each taking the stream's lock, cost more than the formatting.
 * Flush before writing to f directly.
 */
struct st_obuf {
	FILE *f;
	char *b;
	size_t len, cap;
	struct st_worker *w;	/* writes the full buffers; NULL: the caller */
};

void st_obuf_init(struct st_obuf *o, FILE *f, char *b, size_t cap);
/* Hands b to f and empties it; with a worker, returns before f has it. */
void st_obuf_spill(struct st_obuf *o);
/* As spill, and f has had everything: the caller may write to f itself. */
void st_obuf_flush(struct st_obuf *o);
void st_obuf_write(struct st_obuf *o, const void *s, size_t n);

/*
 * n <= 16 bytes from s to d, inline: most pieces are that short, and a
 * call of libc's memcpy per piece cost a log's writers 10% of their time.
 * Overlapping loads and stores of 8, 4 or 1 bytes; nothing read past s + n.
 */
static inline void st_copy16(char *d, const void *src, size_t n)
{
	const char *s = src;

	if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

static inline void st_obuf_put(struct st_obuf *o, const void *s, size_t n)
{
	if (n > o->cap - o->len) {
		st_obuf_write(o, s, n);
		return;
	}
	if (n <= 16)
		st_copy16(o->b + o->len, s, n);
	else
		memcpy(o->b + o->len, s, n);
	o->len += n;
}

static inline void st_obuf_putc(struct st_obuf *o, char c)
{
	if (o->len == o->cap)
		st_obuf_spill(o);
	o->b[o->len++] = c;
}

static inline void st_obuf_puts(struct st_obuf *o, const char *s)
{
	st_obuf_put(o, s, strlen(s));
}

/* As printf's %PRIu64, %PRId64 of (int64_t)v, and 0x%PRIx64. */
void st_obuf_u64(struct st_obuf *o, uint64_t v);
void st_obuf_s64(struct st_obuf *o, uint64_t v);
void st_obuf_hex(struct st_obuf *o, uint64_t v);

const char *st_cell_text(const struct st_cell *c, char *buf, size_t len);
json_t *st_cell_json(const struct st_cell *c);

void st_csv_field(struct st_obuf *o, const char *s);

int st_table_text(FILE *f, const struct st_table *t,
		  const struct st_text_layout *layout);
int st_table_csv(FILE *f, const struct st_table *t);
json_t *st_table_json_row(const struct st_table *t, const struct st_val *v);
/* The array of row objects, one per line, or the single row; flags: jansson's. */
int st_table_json(FILE *f, const struct st_table *t, size_t flags);

struct st_err;

/*
 * An output file that is whole or absent: written under a temporary name
 * in the target's directory, renamed over the target by st_output_close()
 * when every byte is written and flushed. A failure, st_output_abort() or
 * a SIGINT, SIGTERM, SIGHUP or SIGPIPE meanwhile leaves the target as it
 * was. stdout, and a target that exists but is no regular file, are
 * written in place. One at a time.
 */
struct st_outfile {
	FILE *f;
	const char *path;		/* as given; NULL: stdout */
	char target[4096];		/* path, its links resolved */
	char tmp[4096];			/* "" when written in place */
};

int st_output_open(struct st_outfile *o, const char *path, struct st_err *err);
/* 0, or -errno with the temporary file removed. */
int st_output_close(struct st_outfile *o);
void st_output_abort(struct st_outfile *o);

/*
 * write(f, ctx) to path (NULL: stdout), through st_output_open(). Returns
 * 0 or -errno, with err set: the path when it does not open, else
 * "writing WHAT" and the path.
 */
int st_output_write(const char *path, const char *what,
		    int (*write)(FILE *f, const void *ctx), const void *ctx,
		    struct st_err *err);

#endif
