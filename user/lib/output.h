/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_OUTPUT_H
#define SYSTRACE_OUTPUT_H

#include <jansson.h>
#include <stdio.h>
#include "columns.h"
#include "model.h"

#define ST_SCHEMA_VERSION 1

/* What the rows add up to, beside what the session says they add up to. */
struct st_totals {
	uint64_t procs, sites;
	uint64_t syscalls, errors, syscall_ns;
	bool has_counter_value;
	uint64_t counter_value;
};

void st_totals_compute(const struct st_dump *d, struct st_totals *t);
/*
 * Needs st_dump_sort() first. Returns the number of mismatches, each
 * described on a line of why (when not NULL).
 */
unsigned int st_check_totals(const struct st_dump *d, FILE *why);

/*
 * The same check, a site row at a time (a dump's sink, st_site_sink):
 * st_check_begin once d's process rows are in and sorted, st_check_site
 * for each site row, st_check_end once the dump is over (d->sunk
 * counts them); it returns what st_check_totals would, the lines of
 * why in the same order, and frees c. st_check_free frees c without a
 * verdict. st_check_begin returns 0 or -ENOMEM (then st_check_end counts
 * one mismatch, "out of memory").
 */
struct st_site_sums;
struct st_check {
	FILE *why, *site_why;		/* site_why: the site rows' lines, held */
	char *site_text;
	size_t site_len;
	struct st_site_sums *sums;	/* per process row */
	unsigned int bad;		/* the site rows' mismatches */
};
int st_check_begin(struct st_check *c, const struct st_dump *d, FILE *why);
void st_check_site(struct st_check *c, const struct st_dump *d,
		   const struct st_site_row *site);
unsigned int st_check_end(struct st_check *c, const struct st_dump *d);
void st_check_free(struct st_check *c);

/* json.c */
size_t st_utf8_len(const char *s, size_t avail);	/* json.c; 0: invalid */
json_t *st_json_string(const char *s);	/* invalid UTF-8 becomes U+FFFD */
void st_json_put_string(struct st_obuf *o, const char *s);	/* the same, printed */
json_t *st_json_session(const struct st_session_row *s);
json_t *st_json_status(const struct st_status *st, const struct st_session_row *ss,
		       size_t n);
json_t *st_json_totals(const struct st_dump *d, bool live);
int st_json_dump(FILE *f, const struct st_view *v, bool syscalls, bool live);
int st_json_print(FILE *f, json_t *doc);

#endif
