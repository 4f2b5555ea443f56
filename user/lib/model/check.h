/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_CHECK_H
#define SYSTRACE_CHECK_H

/* The totals check of every dump (check.c). */
#include <stdio.h>
#include "model/model.h"

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

#endif
