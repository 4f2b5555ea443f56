/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_COLUMNS_H
#define SYSTRACE_COLUMNS_H

/*
 * The dump's tables as lists of columns. Each column turns one decoded row
 * into a typed value; the table writer (table.h) prints them as CSV and as
 * JSON, so a CSV header and the keys of a JSON row are the same names.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"
#include "out/table.h"

/* A row: its session, its process, and for site tables the site or sum. */
struct st_row {
	const struct st_session_row *session;
	const struct st_proc_row *proc;	/* NULL if the site's image is unknown */
	const struct st_site_row *site;
	const struct st_sysagg *agg;
};

struct st_column {
	const char *name;
	void (*get)(const struct st_row *row, struct st_val *v);
};

enum st_table_kind {
	ST_TABLE_PROCESSES,
	ST_TABLE_SITES,
	ST_TABLE_SYSCALLS,
};

/* base columns, then ext columns (the symbolizer's) when ext != NULL */
struct st_colset {
	const char *name;		/* the JSON key of the table */
	const struct st_column *cols;
	size_t ncols;
	const struct st_column *ext;
	size_t next;
};

/* What a writer needs to walk a table of a dump. */
struct st_view {
	const struct st_dump *dump;
	const struct st_sysagg *aggs;	/* for ST_TABLE_SYSCALLS */
	size_t naggs;
	/* The rows of table order_kind shown, in this order (st_view_order). */
	size_t *order;
	size_t norder;
	enum st_table_kind order_kind;
	const char *selection;		/* JSON "selection": what was left out */
	/*
	 * JSON (dump --sites --json): "paths_counted", and each site row
	 * with its "paths" (st_json_dump), when the dump has paths.
	 */
	bool paths;
};

void st_colset_get(enum st_table_kind kind, bool symbols, struct st_colset *t);
/* The session object's keys (dump, list and status --json), row->session. */
const struct st_column *st_session_columns(size_t *n);
size_t st_view_rows(const struct st_view *v, enum st_table_kind kind);
void st_view_row(const struct st_view *v, enum st_table_kind kind, size_t i,
		 struct st_row *row);

/*
 * Orders the rows of table kind by the column key (or time, calls,
 * errors): numbers largest first, text A to Z; keeps the first top (0:
 * all). v->order is then owned: free it. -EINVAL (why says) for a key the
 * table has not, -ENOMEM.
 */
int st_view_order(struct st_view *v, enum st_table_kind kind, bool symbols,
		  const char *key, uint64_t top, char *why, size_t len);

size_t st_colset_ncolumns(const struct st_colset *t);
const struct st_column *st_colset_column(const struct st_colset *t, size_t i);

/* One table of a view, for the writer: dt->t. */
struct st_dump_table {
	struct st_table t;
	struct st_colset cols;
	const struct st_view *view;
	enum st_table_kind kind;
};

void st_dump_table(struct st_dump_table *dt, const struct st_view *v,
		   enum st_table_kind kind, bool symbols);

void st_format_time(uint64_t realtime_ns, char *buf, size_t len);
bool st_per_kinsn(uint64_t syscalls, uint64_t instructions, uint64_t *milli);

#endif
