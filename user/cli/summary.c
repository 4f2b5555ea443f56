// SPDX-License-Identifier: GPL-2.0
/*
 * The summary that systracectl start prints on stderr when CMD is gone:
 * the session's totals, its drops, the top syscalls by time, the spread of
 * process wall times and the counters, then the totals check's verdict.
 * The site rows are taken one at a time as the dump streams them (a sink),
 * summed per (abi, nr) and checked, and not kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "base/hidx.h"
#include "summary.h"
#include "libsystrace.h"

/* In units, 3 significant digits, as the text tables print times. */
static void print_duration(FILE *f, uint64_t ns)
{
	char buf[32];

	fputs(st_format_duration(ns > INT64_MAX ? INT64_MAX : (int64_t)ns, buf,
				 sizeof(buf)), f);
}

static int by_time_desc(const void *a, const void *b)
{
	const struct st_sysagg *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return (x->calls < y->calls) - (x->calls > y->calls);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

#define TOP_SYSCALLS 10

/*
 * What the summary takes from the site rows, a row at a time (a dump's
 * st_site_sink): the totals of each (abi, nr) and the totals check, not
 * the rows. A build's 1.8 million rows took 270 MB when held.
 */
struct sum_rows {
	struct st_site_sink sink;
	struct st_check check;
	bool begun;			/* check begun: the process rows are in */
	FILE *why;			/* the check's lines */
	char *why_text;
	size_t why_len;
	struct st_sysagg *aggs;		/* per (abi, nr): calls, errors, total_ns */
	size_t naggs, cap;
	struct st_hidx idx;		/* aggs by (abi, nr) */
	bool nomem;
};

static uint64_t agg_key_hash(uint32_t abi, uint32_t nr)
{
	return st_hash_mix((uint64_t)abi << 32 | nr);
}

static uint64_t agg_hash(const void *ctx, uint32_t pos)
{
	const struct st_sysagg *a = &((const struct sum_rows *)ctx)->aggs[pos];

	return agg_key_hash(a->abi, a->nr);
}

static bool agg_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct st_sysagg *a = &((const struct sum_rows *)ctx)->aggs[pos];
	const struct st_site_row *s = key;

	return a->abi == s->abi && a->nr == s->nr;
}

static int sum_row(void *ctx, struct st_dump *d, struct st_site_row *s)
{
	struct sum_rows *r = ctx;
	uint64_t h = agg_key_hash(s->abi, s->nr);
	struct st_sysagg *a;
	int64_t i;

	if (!r->begun) {
		st_dump_sort(d);	/* the process rows, for the check */
		r->why = open_memstream(&r->why_text, &r->why_len);
		r->nomem |= st_check_begin(&r->check, d, r->why) != 0;
		r->begun = true;
	}
	st_check_site(&r->check, d, s);
	i = st_hidx_find(&r->idx, h, agg_eq, r, s);
	if (i < 0) {
		if (r->naggs == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 256;

			a = realloc(r->aggs, cap * sizeof(*a));
			if (!a)
				return -ENOMEM;
			r->aggs = a;
			r->cap = cap;
		}
		i = (int64_t)r->naggs++;
		r->aggs[i] = (struct st_sysagg){ .abi = s->abi, .nr = s->nr };
		if (st_hidx_add(&r->idx, h, (uint32_t)i, agg_hash, r))
			return -ENOMEM;
	}
	a = &r->aggs[i];
	a->calls += s->calls;
	a->errors += s->errors;
	a->total_ns += s->total_ns;
	return 0;
}

/* The summary says nothing of command lines: 75 MB of a build's, let go. */
static int sum_proc(void *ctx, struct st_dump *d, struct st_proc_row *p)
{
	(void)ctx;
	(void)d;
	free(p->argv);
	p->argv = NULL;
	return 0;
}

static void sum_rows_reset(void *ctx)
{
	struct sum_rows *r = ctx;

	st_check_free(&r->check);
	if (r->why)
		fclose(r->why);
	free(r->why_text);
	free(r->aggs);
	st_hidx_free(&r->idx);
	memset(r, 0, sizeof(*r));
	r->sink = (struct st_site_sink){ .row = sum_row, .proc = sum_proc,
					 .reset = sum_rows_reset, .ctx = r };
}

static int by_abi_nr(const void *a, const void *b)
{
	const struct st_sysagg *x = a, *y = b;

	if (x->abi != y->abi)
		return x->abi < y->abi ? -1 : 1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

static void summary_syscalls(struct sum_rows *r)
{
	struct st_sysagg *aggs = r->aggs;
	size_t i, n = r->naggs;

	if (!n)
		return;
	/* In (abi, nr) order first: ties of time and calls keep it. */
	st_qsort(aggs, n, sizeof(*aggs), by_abi_nr);
	st_qsort(aggs, n, sizeof(*aggs), by_time_desc);
	fprintf(stderr, "systracectl: top syscalls by time:\n");
	fprintf(stderr, "  %10s %12s %10s  %s\n", "time", "calls", "errors", "syscall");
	for (i = 0; i < n && i < TOP_SYSCALLS; i++) {
		const char *name = st_syscall_name(aggs[i].abi, aggs[i].nr);
		const char *abi = st_abi_name(aggs[i].abi);
		char t[32];

		fprintf(stderr, "  %10s %12" PRIu64 " %10" PRIu64 "  ",
			st_format_duration(aggs[i].total_ns > INT64_MAX ? INT64_MAX :
					   (int64_t)aggs[i].total_ns, t, sizeof(t)),
			aggs[i].calls, aggs[i].errors);
		if (name)
			fprintf(stderr, "%s", name);
		else
			fprintf(stderr, "#%" PRIu32, aggs[i].nr);
		if (aggs[i].abi != SYSTRACE_ABI_X64)
			fprintf(stderr, " (%s)", abi ? abi : "?");
		fputc('\n', stderr);
	}
}

static void summary_wall(const struct st_dump *d)
{
	uint64_t *walls = calloc(d->nprocs ? d->nprocs : 1, sizeof(*walls));
	size_t i, n = 0;

	if (!walls)
		return;
	for (i = 0; i < d->nprocs; i++)
		if (d->procs[i].has_end_ns && d->procs[i].end_ns >= d->procs[i].start_ns)
			walls[n++] = d->procs[i].end_ns - d->procs[i].start_ns;
	fprintf(stderr, "systracectl: %zu process%s", d->nprocs,
		d->nprocs == 1 ? "" : "es");
	if (n) {
		st_qsort(walls, n, sizeof(*walls), u64_cmp);
		fprintf(stderr, ", wall time min ");
		print_duration(stderr, walls[0]);
		fprintf(stderr, ", median ");
		print_duration(stderr, n % 2 ? walls[n / 2] :
			       walls[n / 2 - 1] / 2 + walls[n / 2] / 2 +
			       (walls[n / 2 - 1] % 2 + walls[n / 2] % 2) / 2);
		fprintf(stderr, ", max ");
		print_duration(stderr, walls[n - 1]);
	}
	if (n < d->nprocs)
		fprintf(stderr, " (%zu still running)", d->nprocs - n);
	fputc('\n', stderr);
	free(walls);
}

static void summary_counters(const struct st_session_row *s)
{
	const char *what = st_counters_name(s->counters);

	if (s->counters == SYSTRACE_COUNTERS_NONE) {
		fprintf(stderr, "systracectl: counters: off (--counters none)\n");
		return;
	}
	if (!s->has_counter_value) {
		fprintf(stderr, "systracectl: %s: unavailable: %s\n", what ? what : "counters",
			s->has_counters_error ? s->counters_error : "no process was counted");
		return;
	}
	if (s->counters == SYSTRACE_COUNTERS_TASK_CLOCK) {
		fprintf(stderr, "systracectl: task-clock: ");
		print_duration(stderr, s->counter_value);
		fprintf(stderr, " (user mode, whole tree)\n");
	} else {
		fprintf(stderr, "systracectl: %s: %" PRIu64 " (user mode, whole tree)\n",
			what ? what : "counters", s->counter_value);
	}
	if (s->has_counters_error)
		fprintf(stderr, "systracectl: counters incomplete: %s\n", s->counters_error);
}

static void summary(const struct st_dump *d, struct sum_rows *r)
{
	const struct st_session_row *s = &d->session;
	uint64_t dropped = st_session_dropped(s);
	char buf[512];

	fprintf(stderr, "systracectl: session %" PRIu32 ": %zu process%s, %" PRIu64
		" syscalls, %" PRIu64 " errors, %zu sites, %" PRIu64 " dropped\n",
		s->id, d->nprocs, d->nprocs == 1 ? "" : "es", s->syscalls, s->errors,
		d->sunk, dropped);
	if (dropped) {
		st_format_dropped(s, buf, sizeof(buf));
		fprintf(stderr, "systracectl: dropped: %s\n", buf);
	}
	summary_syscalls(r);
	summary_wall(d);
	summary_counters(s);
}

void st_start_summary(struct st_backend *be, uint32_t id)
{
	struct sum_rows r = { 0 };
	struct st_dump d;
	struct st_err err;
	unsigned int bad;

	sum_rows_reset(&r);
	if (st_session_fetch_to(be, id, &d, &r.sink, &err)) {
		st_err_print(&err);
		sum_rows_reset(&r);
		return;
	}
	if (!r.begun)		/* no site row */
		r.nomem |= st_check_begin(&r.check, &d, NULL) != 0;
	if (r.nomem)
		st_warn("out of memory: the session's totals are not checked");
	summary(&d, &r);
	bad = st_check_end(&r.check, &d);
	if (r.why)
		fclose(r.why);
	r.why = NULL;
	if (!r.nomem)
		st_session_check_verdict(&d, bad, r.why_text);
	sum_rows_reset(&r);
	st_dump_free(&d);
}
