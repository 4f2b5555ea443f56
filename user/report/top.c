// SPDX-License-Identifier: GPL-2.0
/*
 * systracectl top: the busiest processes and syscalls of a running
 * session, from two reads of it a few seconds apart. A process's (or a
 * syscall's) activity is what its counters gained between the reads; one
 * read alone gives the counts since the session began.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

struct tp_row {
	const struct st_proc_row *proc;	/* processes */
	uint32_t abi, nr;		/* syscalls */
	uint64_t calls, errors, ns;	/* gained */
	uint64_t total;			/* calls so far */
};

static int by_calls(const void *a, const void *b)
{
	const struct tp_row *x = a, *y = b;

	if (x->calls != y->calls)
		return -CMP(x->calls, y->calls);
	if (x->ns != y->ns)
		return -CMP(x->ns, y->ns);
	if (x->proc && y->proc)
		return CMP(x->proc->id, y->proc->id);
	return x->abi != y->abi ? CMP(x->abi, y->abi) : CMP(x->nr, y->nr);
}

static uint64_t gain(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

/* A process row's counters now less those of the previous read. */
static size_t proc_rows(const struct st_dump *prev, const struct st_dump *now,
			struct tp_row *rows)
{
	size_t i, n = 0;

	for (i = 0; i < now->nprocs; i++) {
		const struct st_proc_row *p = &now->procs[i];
		const struct st_proc_row *q = prev ? st_dump_find_proc(prev, p->id) : NULL;
		struct tp_row *r = &rows[n];

		r->proc = p;
		r->calls = gain(p->syscalls, q ? q->syscalls : 0);
		r->errors = gain(p->errors, q ? q->errors : 0);
		r->ns = gain(p->syscall_ns, q ? q->syscall_ns : 0);
		r->total = p->syscalls;
		if (r->calls)
			n++;
	}
	st_qsort(rows, n, sizeof(*rows), by_calls);
	return n;
}

static int agg_cmp(const void *a, const void *b)
{
	const struct st_sysagg *x = a, *y = b;

	return x->abi != y->abi ? CMP(x->abi, y->abi) : CMP(x->nr, y->nr);
}

/* The sums per syscall now less those of the previous read. */
static int sys_rows(const struct st_dump *prev, const struct st_dump *now,
		    struct tp_row **out, size_t *nout)
{
	struct st_sysagg *a = NULL, *b = NULL, *q;
	struct tp_row *rows;
	size_t i, na, nb = 0, n = 0;

	*out = NULL;
	*nout = 0;
	if (st_aggregate_syscalls(now, false, &a, &na) ||
	    (prev && st_aggregate_syscalls(prev, false, &b, &nb))) {
		free(a);
		return -ENOMEM;
	}
	rows = calloc(na ? na : 1, sizeof(*rows));
	if (!rows) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	for (i = 0; i < na; i++) {
		q = nb ? bsearch(&a[i], b, nb, sizeof(*b), agg_cmp) : NULL;
		rows[n] = (struct tp_row){
			.abi = a[i].abi, .nr = a[i].nr,
			.calls = gain(a[i].calls, q ? q->calls : 0),
			.errors = gain(a[i].errors, q ? q->errors : 0),
			.ns = gain(a[i].total_ns, q ? q->total_ns : 0),
			.total = a[i].calls,
		};
		if (rows[n].calls)
			n++;
	}
	free(a);
	free(b);
	st_qsort(rows, n, sizeof(*rows), by_calls);
	*out = rows;
	*nout = n;
	return 0;
}

/* Per second over ns nanoseconds, rounded; 0 when no time passed. */
static uint64_t per_s(uint64_t v, uint64_t ns)
{
	return ns ? rt_ratio(v, ns, 1000000000ULL) : 0;
}

static const char *const proc_cols[] = {
	"calls_per_s", "errors_per_s", "time_ns", "calls", "syscalls", "pid",
	"comm", "proc_id",
};

static const char *const sys_cols[] = {
	"calls_per_s", "errors_per_s", "time_ns", "calls", "syscalls", "abi",
	"nr", "syscall",
};

static const char *const proc_keep[] = {
	"comm", "calls_per_s", "pid", "errors_per_s", "time_ns", "syscalls",
	"calls", NULL,
};

static const char *const sys_keep[] = {
	"syscall", "calls_per_s", "errors_per_s", "time_ns", "syscalls", "calls",
	NULL,
};

static struct rt_table *table(const char *name, const char *title,
			      const char *const *cols, size_t ncols,
			      const char *const *keep, const struct tp_row *rows,
			      size_t n, uint64_t top, uint64_t ns)
{
	struct rt_table *t = rt_table_new(name, title, cols, ncols);
	size_t i;

	if (!t || rt_table_keep(t, keep)) {
		rt_table_free(t);
		return NULL;
	}
	for (i = 0; i < n && i < top; i++) {
		const struct tp_row *r = &rows[i];
		struct st_cell *c = rt_row(t);

		if (!c) {
			rt_table_free(t);
			return NULL;
		}
		rt_u64(&c[0], per_s(r->calls, ns));
		rt_u64(&c[1], per_s(r->errors, ns));
		rt_u64(&c[2], r->ns);
		rt_u64(&c[3], r->calls);
		rt_u64(&c[4], r->total);
		if (r->proc) {
			rt_u64(&c[5], r->proc->pid);
			rt_u64(&c[7], r->proc->id);
			if (rt_str(&c[6], r->proc->comm)) {
				rt_table_free(t);
				return NULL;
			}
		} else if (rt_syscall(&c[5], r->abi, r->nr)) {
			rt_table_free(t);
			return NULL;
		}
	}
	return t;
}

int report_top(struct rt_report *r, const struct st_dump *prev,
	       const struct st_dump *now, uint64_t ns, uint64_t top)
{
	const struct st_session_row *s = &now->session;
	struct tp_row *procs, *sys = NULL;
	size_t np, ns_rows, i;
	uint64_t calls = 0;
	char window[32];
	int ret;

	procs = calloc(now->nprocs ? now->nprocs : 1, sizeof(*procs));
	if (!procs)
		return -ENOMEM;
	np = proc_rows(prev, now, procs);
	ret = sys_rows(prev, now, &sys, &ns_rows);
	if (ret)
		goto out;
	for (i = 0; i < np; i++)
		calls += procs[i].calls;
	r->name = "top";
	r->dump = now;
	st_format_duration(ns > INT64_MAX ? INT64_MAX : (int64_t)ns, window, sizeof(window));
	ret = rt_note(r, "session %" PRIu32 "%s%s%s: %s, %zu processes (%" PRIu32
		      " live tasks), %" PRIu64 " syscalls, %" PRIu64 " dropped",
		      s->id, s->name[0] ? " \"" : "", s->name, s->name[0] ? "\"" : "",
		      st_state_name(s->state) ? st_state_name(s->state) : "?",
		      now->nprocs, s->live_tasks, s->syscalls, st_session_dropped(s));
	if (!ret)
		ret = rt_note(r, "%s %s: %" PRIu64 " calls, %" PRIu64 " per second",
			      prev ? "the last" : "since the start,", window, calls,
			      per_s(calls, ns));
	if (!ret)
		ret = rt_add(r, table("processes", "busiest processes", proc_cols,
				      ARRAY_SIZE(proc_cols), proc_keep, procs, np, top, ns));
	if (!ret)
		ret = rt_add(r, table("syscalls", "busiest syscalls", sys_cols,
				      ARRAY_SIZE(sys_cols), sys_keep, sys, ns_rows, top, ns));
out:
	free(procs);
	free(sys);
	return ret;
}
