// SPDX-License-Identifier: GPL-2.0
/*
 * The temporal log while it is recorded: the events a tracer hands over go
 * to a spool (or stay in memory), and st_log_record() merges them with the
 * process events of the session's rows into the log, in order, each
 * syscall joined to its site row and given its phase (see log.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "log_hash.h"
#include "log_merge.h"
#include "log_spool.h"
#include "log_writer.h"

int st_event_cmp(const struct st_event *x, const struct st_event *y)
{
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	/* Process events go before the syscalls of the same instant. */
	if (x->kind != y->kind)
		return x->kind == ST_EV_SYSCALL ? 1 :
		       y->kind == ST_EV_SYSCALL ? -1 : (int)x->kind - (int)y->kind;
	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int st_log_push(struct st_log *log, const struct st_event *ev)
{
	if (log->spool) {
		log->pushed++;
		return st_spool_add(log->spool, ev);
	}
	if (log->n == log->cap) {
		size_t cap = log->cap ? log->cap * 2 : 4096;
		struct st_event *p = realloc(log->ev, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		log->ev = p;
		log->cap = cap;
	}
	log->ev[log->n++] = *ev;
	log->pushed++;
	return 0;
}

void st_log_free(struct st_log *log)
{
	free(log->ev);
	st_spool_close(log->spool);
	memset(log, 0, sizeof(*log));
}

int st_log_spool(struct st_log *log, const char *path, uint32_t session_id,
		 struct st_err *err)
{
	return st_spool_open(&log->spool, path, session_id, err);
}

int st_log_spool_session(struct st_log *log, uint32_t session_id)
{
	return log->spool ? st_spool_set_session(log->spool, session_id) : 0;
}

int st_log_spool_error(const struct st_log *log, uint64_t *lost)
{
	*lost = 0;
	return log->spool ? st_spool_error(log->spool, lost) : 0;
}

int st_log_spool_keep(struct st_log *log, const char *path)
{
	int ret;

	if (!log->spool)
		return -ENOENT;
	ret = st_spool_flush(log->spool);
	return ret ? ret : st_spool_keep(log->spool, path);
}

/* ---- process events from the rows ---- */

static int ptr_cmp(const void *a, const void *b)
{
	return st_event_cmp(*(const struct st_event *const *)a,
			    *(const struct st_event *const *)b);
}

static int proc_events(const struct st_dump *d, struct st_event **out,
		       const struct st_event ***sorted, size_t *n)
{
	struct st_event *ev = calloc(2 * d->nprocs + 1, sizeof(*ev));
	const struct st_event **p = calloc(2 * d->nprocs + 1, sizeof(*p));
	size_t i, k = 0;

	*out = ev;
	*sorted = p;
	if (!ev || !p)
		return -ENOMEM;
	for (i = 0; i < d->nprocs; i++) {
		const struct st_proc_row *r = &d->procs[i];
		struct st_event *e = &ev[k];

		/* A row that existed before an attach did not start now. */
		if (!r->attached) {
			*e = (struct st_event){ .pid = r->tgid, .tid = r->pid, .proc = r,
						.ts_ns = r->start_ns, .proc_id = r->id };
			if (r->prev_id || !r->parent_id) {
				e->kind = ST_EV_EXEC;
			} else {
				const struct st_proc_row *parent =
					st_dump_find_proc(d, r->parent_id);

				e->kind = ST_EV_FORK;
				e->proc_id = r->parent_id;
				e->proc = parent;
				e->pid = e->tid = parent ? parent->tgid : 0;
				e->child_proc_id = r->id;
				e->child_pid = r->tgid;
			}
			k++;
		}
		if (r->has_end_ns && (r->end == SYSTRACE_END_EXITED ||
				      r->end == SYSTRACE_END_SIGNALED))
			ev[k++] = (struct st_event){
				.kind = ST_EV_EXIT, .proc_id = r->id, .proc = r,
				.pid = r->tgid, .tid = r->pid, .ts_ns = r->end_ns,
			};
	}
	for (i = 0; i < k; i++)
		p[i] = &ev[i];
	qsort(p, k, sizeof(*p), ptr_cmp);
	*n = k;
	return 0;
}

/* ---- site rows by (proc_id, addr, abi, nr) ---- */

static bool site_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct st_site_row *s = &((const struct st_dump *)ctx)->sites[pos];
	const struct st_event *e = key;

	return s->proc_id == e->proc_id && s->addr == e->addr && s->abi == e->abi &&
	       s->nr == e->nr;
}

static uint64_t site_key_hash(uint64_t proc_id, uint64_t addr, uint32_t abi,
			      uint32_t nr)
{
	return st_hash3(proc_id, addr, (uint64_t)abi << 32 | nr);
}

static uint64_t site_hash(const void *ctx, uint32_t pos)
{
	const struct st_site_row *s = &((const struct st_dump *)ctx)->sites[pos];

	return site_key_hash(s->proc_id, s->addr, s->abi, s->nr);
}

static int index_sites(const struct st_dump *d, struct st_hidx *h)
{
	size_t i;

	if (st_hidx_init(h, d->nsites))
		return -ENOMEM;
	for (i = 0; i < d->nsites; i++)
		if (st_hidx_add(h, site_hash(d, (uint32_t)i), (uint32_t)i, site_hash, d))
			return -ENOMEM;
	return 0;
}

/* ---- writing the log ---- */

int st_log_record(struct st_log *log, const struct st_dump *d,
		  struct st_log_writer *w, const struct st_log_record_opts *o)
{
	const struct st_event **mem = NULL, **pev = NULL;
	struct st_event *pev_store = NULL;
	struct st_bound *bounds = NULL;
	struct st_merge *m = NULL;
	struct st_hidx sites = { 0 };
	uint64_t total, done = 0;
	size_t i, npev = 0;
	int ret = -ENOMEM;

	if (log->spool) {
		ret = st_spool_flush(log->spool);
		if (ret)
			return ret;
	}
	mem = malloc((log->n ? log->n : 1) * sizeof(*mem));
	bounds = calloc(d->nprocs ? d->nprocs : 1, sizeof(*bounds));
	if (!mem || !bounds || index_sites(d, &sites) ||
	    proc_events(d, &pev_store, &pev, &npev))
		goto out;
	for (i = 0; i < log->n; i++)
		mem[i] = &log->ev[i];
	qsort(mem, log->n, sizeof(*mem), ptr_cmp);
	ret = st_log_bounds(d, o->early_object, bounds);
	if (ret)
		goto out;
	ret = st_merge_new(&m);
	if (!ret && log->spool)
		ret = st_merge_add_spool(m, log->spool);
	if (!ret)
		ret = st_merge_add_array(m, mem, log->n);
	if (!ret)
		ret = st_merge_add_array(m, pev, npev);
	if (!ret)
		ret = st_merge_start(m);
	total = log->pushed + npev;
	while (!ret && st_merge_peek(m)) {
		struct st_event ev = *st_merge_peek(m);

		if (ev.kind == ST_EV_SYSCALL) {
			int64_t s = st_hidx_find(&sites, site_key_hash(ev.proc_id, ev.addr,
								       ev.abi, ev.nr),
						 site_eq, d, &ev);
			const struct st_proc_row *p = st_dump_find_proc(d, ev.proc_id);

			ev.site = s >= 0 ? &d->sites[s] : NULL;
			ev.proc = p;
			st_log_phase_set(&ev, p ? &bounds[p - d->procs] : NULL);
		}
		ret = st_log_writer_event(w, &ev);
		if (!ret)
			ret = st_merge_pop(m);
		if (o->progress && !(++done & 0xfffff))
			o->progress(o->progress_ctx, done, total);
	}
	if (!ret && o->progress)
		o->progress(o->progress_ctx, total, total);
out:
	st_merge_free(m);
	st_hidx_free(&sites);
	free(pev_store);
	free(pev);
	free(bounds);
	free(mem);
	return ret;
}
