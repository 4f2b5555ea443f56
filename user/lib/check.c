// SPDX-License-Identifier: GPL-2.0
/*
 * The totals check run on every dump: the session's totals are the sums of
 * its process rows, each process's totals are the sums of its site rows,
 * and each site's errno counts (when counted) add up to its errors.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "output.h"

void st_totals_compute(const struct st_dump *d, struct st_totals *t)
{
	size_t i;

	*t = (struct st_totals){ .procs = d->nprocs, .sites = d->nsites };
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

struct site_sums {
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

/*
 * Needs st_dump_sort() first. Returns the number of mismatches, each
 * described on a line of why (when not NULL).
 */
unsigned int st_check_totals(const struct st_dump *d, FILE *why)
{
	const struct st_session_row *s = &d->session;
	struct site_sums *sums;
	struct st_totals t;
	unsigned int bad = 0;
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

	sums = calloc(d->nprocs ? d->nprocs : 1, sizeof(*sums));
	if (!sums) {
		if (why)
			fprintf(why, "  out of memory\n");
		return bad + 1;
	}
	for (i = 0; i < d->nsites; i++) {
		const struct st_site_row *site = &d->sites[i];
		const struct st_proc_row *p = st_dump_find_proc(d, site->proc_id);
		struct site_sums *sum;

		if (!p) {
			if (why)
				fprintf(why, "  site row 0x%" PRIx64 " names process id %" PRIu64
					", which has no row\n", site->addr, site->proc_id);
			bad++;
			continue;
		}
		if (site->errnos && st_errnos_total(site->errnos) != site->errors) {
			if (why)
				fprintf(why, "  site row 0x%" PRIx64 " of process %" PRIu64
					": %" PRIu64 " errors but its errnos sum to %" PRIu64 "\n",
					site->addr, site->proc_id, site->errors,
					st_errnos_total(site->errnos));
			bad++;
		}
		sum = &sums[p - d->procs];
		sum->calls += site->calls;
		sum->errors += site->errors;
		sum->total_ns += site->total_ns;
		sum->rows++;
	}
	for (i = 0; i < d->nprocs; i++) {
		const struct st_proc_row *p = &d->procs[i];

#define CHECK(field, want, got)						\
		do {							\
			snprintf(what, sizeof(what), "process %" PRIu64	\
				 " (pid %" PRIu32 " %s) " field,	\
				 p->id, p->pid, p->comm);		\
			bad += mismatch(why, what, want, got);		\
		} while (0)
		CHECK("syscalls", p->syscalls, sums[i].calls);
		CHECK("errors", p->errors, sums[i].errors);
		CHECK("syscall_ns", p->syscall_ns, sums[i].total_ns);
		CHECK("site rows", p->sites, sums[i].rows);
#undef CHECK
	}
	free(sums);
	return bad;
}
