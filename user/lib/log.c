// SPDX-License-Identifier: GPL-2.0
/*
 * The temporal log: events as the tracer hands them over, completed with
 * the process events and the site of each call from the session's rows,
 * ordered, and written as CSV or JSONL (see log.h for the columns).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "names.h"
#include "table.h"


int st_event_site_cmp(const struct st_event *x, const struct st_event *y)
{
	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->abi != y->abi)
		return x->abi < y->abi ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

int st_log_push(struct st_log *log, const struct st_event *ev)
{
	if (log->n == log->cap) {
		size_t cap = log->cap ? log->cap * 2 : 4096;
		struct st_event *p = realloc(log->ev, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		log->ev = p;
		log->cap = cap;
	}
	log->ev[log->n++] = *ev;
	return 0;
}

void st_log_free(struct st_log *log)
{
	free(log->ev);
	memset(log, 0, sizeof(*log));
}

/* ---- joining events to rows ---- */

/* Process events go before the syscalls of the same instant. */
static int ev_cmp(const void *a, const void *b)
{
	const struct st_event *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind == ST_EV_SYSCALL ? 1 :
		       y->kind == ST_EV_SYSCALL ? -1 : (int)x->kind - (int)y->kind;
	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

static int push_proc_events(struct st_log *log, const struct st_dump *d)
{
	size_t i;

	for (i = 0; i < d->nprocs; i++) {
		const struct st_proc_row *p = &d->procs[i];
		const struct st_proc_row *parent;
		struct st_event ev = { .pid = p->tgid, .tid = p->pid, .proc = p };

		/* A row that existed before an attach did not start now. */
		if (!p->attached) {
			ev.ts_ns = p->start_ns;
			ev.proc_id = p->id;
			if (p->prev_id || !p->parent_id) {
				ev.kind = ST_EV_EXEC;
			} else {
				parent = st_dump_find_proc(d, p->parent_id);
				ev.kind = ST_EV_FORK;
				ev.proc_id = p->parent_id;
				ev.proc = parent;
				ev.pid = ev.tid = parent ? parent->tgid : 0;
				ev.child_proc_id = p->id;
				ev.child_pid = p->tgid;
			}
			if (st_log_push(log, &ev))
				return -ENOMEM;
		}
		if (p->has_end_ns && (p->end == SYSTRACE_END_EXITED ||
				      p->end == SYSTRACE_END_SIGNALED)) {
			struct st_event x = {
				.kind = ST_EV_EXIT, .proc_id = p->id, .proc = p,
				.pid = p->tgid, .tid = p->pid, .ts_ns = p->end_ns,
			};

			if (st_log_push(log, &x))
				return -ENOMEM;
		}
	}
	return 0;
}

int st_log_finish(struct st_log *log, const struct st_dump *d)
{
	const struct st_site_row **idx;
	size_t i, nsys = log->n;

	idx = malloc((d->nsites ? d->nsites : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < d->nsites; i++)
		idx[i] = &d->sites[i];
	qsort(idx, d->nsites, sizeof(*idx), st_site_ptr_cmp);
	for (i = 0; i < nsys; i++) {
		struct st_event *ev = &log->ev[i];
		struct st_site_row key = {
			.proc_id = ev->proc_id, .addr = ev->addr,
			.abi = ev->abi, .nr = ev->nr,
		};
		const struct st_site_row *kp = &key, **found = NULL;

		ev->proc = st_dump_find_proc(d, ev->proc_id);
		if (d->nsites)
			found = bsearch(&kp, idx, d->nsites, sizeof(*idx),
					st_site_ptr_cmp);
		ev->site = found ? *found : NULL;
	}
	free(idx);
	if (push_proc_events(log, d))
		return -ENOMEM;
	qsort(log->ev, log->n, sizeof(*log->ev), ev_cmp);
	log->dropped_events = d->session.dropped_events;
	return 0;
}

/* ---- the columns, through the table writer ---- */

static const char *const kind_names[] = {
	[ST_EV_SYSCALL] = "syscall",
	[ST_EV_FORK] = "fork",
	[ST_EV_EXEC] = "exec",
	[ST_EV_EXIT] = "exit",
};

static const char *const log_cols[] = {
	"session_id", "proc_id", "pid", "tid", "comm", "seq", "ts_ns", "dur_ns",
	"event", "abi", "nr", "syscall", "ret", "errno", "addr", "map", "path",
	"offset", "symbol", "phase", "early", "child_proc_id", "child_pid",
	"exit_code", "exit_signal",
};

enum {
	C_SESSION_ID, C_PROC_ID, C_PID, C_TID, C_COMM, C_SEQ, C_TS_NS, C_DUR_NS,
	C_EVENT, C_ABI, C_NR, C_SYSCALL, C_RET, C_ERRNO, C_ADDR, C_MAP, C_PATH,
	C_OFFSET, C_SYMBOL, C_PHASE, C_EARLY, C_CHILD_PROC_ID, C_CHILD_PID,
	C_EXIT_CODE, C_EXIT_SIGNAL, C_N
};

struct log_view {
	const struct st_log *log;
	const struct st_dump *d;
};

static void c_u64(struct st_val *v, uint64_t u)
{
	v->c.kind = ST_U64;
	v->c.u = u;
}

static void c_str(struct st_val *v, const char *s)
{
	v->c.kind = s ? ST_STR : ST_NULL;
	v->c.s = s;
}

static void c_hex(struct st_val *v, uint64_t u)
{
	v->c.kind = ST_HEX;
	v->c.u = u;
}

static const char *log_col(const struct st_table *t, size_t c)
{
	(void)t;
	return log_cols[c];
}

/* Cells left zeroed are missing (ST_NULL): empty in CSV, null in JSON. */
static void log_row(const struct st_table *t, size_t r, struct st_val *v)
{
	const struct log_view *lv = t->ctx;
	const struct st_event *ev = &lv->log->ev[r];
	const struct st_site_row *s = ev->site;
	const struct st_proc_row *p = ev->proc;

	c_u64(&v[C_SESSION_ID], lv->d->session.id);
	c_u64(&v[C_PROC_ID], ev->proc_id);
	c_u64(&v[C_PID], ev->pid);
	c_u64(&v[C_TID], ev->tid);
	c_str(&v[C_COMM], p ? p->comm : NULL);
	c_u64(&v[C_TS_NS], ev->ts_ns);
	c_str(&v[C_EVENT], kind_names[ev->kind]);
	switch (ev->kind) {
	case ST_EV_SYSCALL:
		c_u64(&v[C_SEQ], ev->seq);
		c_u64(&v[C_DUR_NS], ev->dur_ns);
		c_str(&v[C_ABI], st_abi_name(ev->abi));
		c_u64(&v[C_NR], ev->nr);
		c_str(&v[C_SYSCALL], st_syscall_name(ev->abi, ev->nr));
		v[C_RET].c.kind = ST_S64;
		v[C_RET].c.u = (uint64_t)ev->ret;
		/* The kernel's convention: -4095..-1 is an error. */
		if (ev->ret < 0 && ev->ret >= -4095)
			c_u64(&v[C_ERRNO], (uint64_t)-ev->ret);
		c_hex(&v[C_ADDR], ev->addr);
		if (s) {
			c_str(&v[C_MAP], st_map_name(s->map));
			c_str(&v[C_PATH], s->path);
			if (s->map != SYSTRACE_MAP_UNKNOWN)
				c_hex(&v[C_OFFSET], s->offset);
			c_str(&v[C_SYMBOL], s->sym ? s->sym->symbol : NULL);
		}
		if (ev->phase != ST_PHASE_NONE) {
			c_str(&v[C_PHASE], ev->phase == ST_PHASE_LOADER ? "loader" : "program");
			v[C_EARLY].c.kind = ST_BOOL;
			v[C_EARLY].c.u = ev->early;
		}
		break;
	case ST_EV_FORK:
		c_u64(&v[C_CHILD_PROC_ID], ev->child_proc_id);
		c_u64(&v[C_CHILD_PID], ev->child_pid);
		break;
	case ST_EV_EXIT:
		if (p && p->has_exit_code)
			c_u64(&v[C_EXIT_CODE], p->exit_code);
		if (p && p->has_exit_signal)
			c_u64(&v[C_EXIT_SIGNAL], p->exit_signal);
		break;
	case ST_EV_EXEC:
		break;
	}
}

static int write_jsonl(FILE *f, const struct st_table *t)
{
	struct st_val v[C_N];
	size_t r;

	for (r = 0; r < t->nrows; r++) {
		json_t *o;
		char *s;

		memset(v, 0, sizeof(v));
		t->row(t, r, v);
		o = st_table_json_row(t, v);
		s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		json_decref(o);
		if (!s)
			return -ENOMEM;
		fputs(s, f);
		fputc('\n', f);
		free(s);
	}
	return 0;
}

int st_log_write(FILE *f, enum st_log_format fmt, const struct st_log *log,
		 const struct st_dump *d)
{
	struct log_view lv = { .log = log, .d = d };
	struct st_table t = {
		.name = "log", .ncols = C_N, .nrows = log->n,
		.col = log_col, .row = log_row, .ctx = &lv,
	};
	int ret = 0;

	switch (fmt) {
	case ST_LOG_CSV:
		ret = st_table_csv(f, &t);
		break;
	case ST_LOG_JSONL:
		ret = write_jsonl(f, &t);
		break;
	case ST_LOG_CHROME:
		ret = st_log_write_chrome(f, log, d);
		break;
	}
	if (!ret && (fflush(f) || ferror(f)))
		ret = errno ? -errno : -EIO;
	return ret;
}
