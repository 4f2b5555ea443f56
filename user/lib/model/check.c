// SPDX-License-Identifier: GPL-2.0
/*
 * The totals check run on every dump: the session's totals are the sums of
 * its process rows, each process's totals are the sums of its site rows,
 * and each site's errno counts (when counted) add up to its errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "model/check.h"

void st_totals_compute(const struct st_dump *d, struct st_totals *t)
{
	size_t i;

	*t = (struct st_totals){ .procs = d->nprocs, .sites = d->nsites + d->sunk };
	for (i = 0; i < d->nprocs; i++) {
		const struct st_proc_row *p = &d->procs[i];

		t->syscalls += p->syscalls;
		t->errors += p->errors;
		t->syscall_ns += p->syscall_ns;
		if (p->has_counter_value) {
			t->has_counter_value = true;
			t->counter_value += p->counter_value;
		}
	}
}

struct st_site_sums {
	uint64_t calls, errors, total_ns, rows;
};

static unsigned int mismatch(FILE *why, const char *what, uint64_t want,
			     uint64_t got)
{
	if (want == got)
		return 0;
	if (why)
		fprintf(why, "  %s: %" PRIu64 " but the rows sum to %" PRIu64 "\n",
			what, want, got);
	return 1;
}

int st_check_begin(struct st_check *c, const struct st_dump *d, FILE *why)
{
	memset(c, 0, sizeof(*c));
	c->why = why;
	if (why)
		c->site_why = open_memstream(&c->site_text, &c->site_len);
	c->sums = calloc(d->nprocs ? d->nprocs : 1, sizeof(*c->sums));
	return c->sums ? 0 : -ENOMEM;
}

void st_check_site(struct st_check *c, const struct st_dump *d,
		   const struct st_site_row *site)
{
	const struct st_proc_row *p = st_dump_find_proc(d, site->proc_id);
	struct st_site_sums *sum;

	if (!c->sums)
		return;
	if (!p) {
		if (c->site_why)
			fprintf(c->site_why, "  site row 0x%" PRIx64 " names process id %" PRIu64
				", which has no row\n", site->addr, site->proc_id);
		c->bad++;
		return;
	}
	if (site->errnos && st_errnos_total(site->errnos) != site->errors) {
		if (c->site_why)
			fprintf(c->site_why, "  site row 0x%" PRIx64 " of process %" PRIu64
				": %" PRIu64 " errors but its errnos sum to %" PRIu64 "\n",
				site->addr, site->proc_id, site->errors,
				st_errnos_total(site->errnos));
		c->bad++;
	}
	sum = &c->sums[p - d->procs];
	sum->calls += site->calls;
	sum->errors += site->errors;
	sum->total_ns += site->total_ns;
	sum->rows++;
}

/* The session's totals, then what the sites said, then each process's. */
unsigned int st_check_end(struct st_check *c, const struct st_dump *d)
{
	const struct st_session_row *s = &d->session;
	FILE *why = c->why;
	unsigned int bad = 0;
	struct st_totals t;
	char what[96];
	size_t i;

	st_totals_compute(d, &t);
	bad += mismatch(why, "session syscalls", s->syscalls, t.syscalls);
	bad += mismatch(why, "session errors", s->errors, t.errors);
	bad += mismatch(why, "session syscall_ns", s->syscall_ns, t.syscall_ns);
	bad += mismatch(why, "session process rows", s->procs, t.procs);
	bad += mismatch(why, "session site rows", s->sites, t.sites);
	if (s->has_counter_value)
		bad += mismatch(why, "session counter value", s->counter_value,
				t.counter_value);
	if (c->site_why) {
		fclose(c->site_why);
		c->site_why = NULL;
		if (c->site_text)
			fputs(c->site_text, why);
	}
	if (!c->sums) {
		if (why)
			fprintf(why, "  out of memory\n");
		bad++;
	}
	bad += c->bad;
	for (i = 0; c->sums && i < d->nprocs; i++) {
		const struct st_proc_row *p = &d->procs[i];
		const struct st_site_sums *sum = &c->sums[i];

#define CHECK(field, want, got)						\
		do {							\
			snprintf(what, sizeof(what), "process %" PRIu64	\
				 " (pid %" PRIu32 " %s) " field,	\
				 p->id, p->pid, p->comm);		\
			bad += mismatch(why, what, want, got);		\
		} while (0)
		CHECK("syscalls", p->syscalls, sum->calls);
		CHECK("errors", p->errors, sum->errors);
		CHECK("syscall_ns", p->syscall_ns, sum->total_ns);
		CHECK("site rows", p->sites, sum->rows);
#undef CHECK
	}
	st_check_free(c);
	return bad;
}

void st_check_free(struct st_check *c)
{
	if (c->site_why)
		fclose(c->site_why);
	free(c->site_text);
	free(c->sums);
	memset(c, 0, sizeof(*c));
}

/*
 * Needs st_dump_sort() first. Returns the number of mismatches, each
 * described on a line of why (when not NULL).
 */
unsigned int st_check_totals(const struct st_dump *d, FILE *why)
{
	struct st_check c;
	size_t i;

	st_check_begin(&c, d, why);
	for (i = 0; i < d->nsites; i++)
		st_check_site(&c, d, &d->sites[i]);
	return st_check_end(&c, d);
}
