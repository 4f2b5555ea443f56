/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_COLUMNS_H
#define SYSTRACE_COLUMNS_H

/*
 * The dump's tables as lists of columns. Each column turns one decoded row
 * into a typed value; the CSV and the JSON writers both read these lists,
 * so a CSV header and the keys of a JSON row are always the same names.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model.h"

enum st_val_type {
	ST_V_NULL,	/* missing: empty in CSV, null in JSON */
	ST_V_UINT,	/* u */
	ST_V_STR,	/* s: may point into buf */
	ST_V_BOOL,	/* u: 0 or 1 */
	ST_V_MILLI,	/* u / 1000, printed with three decimals */
	ST_V_INT,	/* (int64_t)u */
};

struct st_val {
	enum st_val_type type;
	uint64_t u;
	const char *s;
	char buf[48];
};

/* A row: its session, its process, and for site tables the site or sum. */
struct st_row {
	const struct st_session_row *session;
	const struct st_proc_row *proc;	/* NULL if the site's image is unknown */
	const struct st_site_row *site;
	const struct st_sysagg *agg;
	const struct st_event *ev;	/* the log's rows (log.c) */
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
struct st_table {
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
};

void st_table_get(enum st_table_kind kind, bool symbols, struct st_table *t);
size_t st_view_rows(const struct st_view *v, enum st_table_kind kind);
void st_view_row(const struct st_view *v, enum st_table_kind kind, size_t i,
		 struct st_row *row);

size_t st_table_ncolumns(const struct st_table *t);
const struct st_column *st_table_column(const struct st_table *t, size_t i);

void st_format_time(uint64_t realtime_ns, char *buf, size_t len);
bool st_per_kinsn(uint64_t syscalls, uint64_t instructions, uint64_t *milli);

#endif
