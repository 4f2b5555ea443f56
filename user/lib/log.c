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
#include "columns.h"
#include "names.h"
#include "output.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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

static int site_key_cmp(uint64_t proc_id, uint64_t addr, uint32_t nr,
			uint32_t abi, const struct st_site_row *s)
{
	if (proc_id != s->proc_id)
		return proc_id < s->proc_id ? -1 : 1;
	if (addr != s->addr)
		return addr < s->addr ? -1 : 1;
	if (nr != s->nr)
		return nr < s->nr ? -1 : 1;
	if (abi != s->abi)
		return abi < s->abi ? -1 : 1;
	return 0;
}

static int site_ptr_cmp(const void *a, const void *b)
{
	const struct st_site_row *x = *(const struct st_site_row *const *)a;
	const struct st_site_row *y = *(const struct st_site_row *const *)b;

	return site_key_cmp(x->proc_id, x->addr, x->nr, x->abi, y);
}

static const struct st_site_row *find_site(const struct st_site_row **idx,
					   size_t n, const struct st_event *ev)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		int c = site_key_cmp(ev->proc_id, ev->addr, ev->nr, ev->abi,
				     idx[m]);

		if (!c)
			return idx[m];
		if (c < 0)
			hi = m;
		else
			lo = m + 1;
	}
	return NULL;
}

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
	qsort(idx, d->nsites, sizeof(*idx), site_ptr_cmp);
	for (i = 0; i < nsys; i++) {
		struct st_event *ev = &log->ev[i];

		ev->proc = st_dump_find_proc(d, ev->proc_id);
		ev->site = find_site(idx, d->nsites, ev);
	}
	free(idx);
	if (push_proc_events(log, d))
		return -ENOMEM;
	qsort(log->ev, log->n, sizeof(*log->ev), ev_cmp);
	log->dropped_events = d->session.dropped_events;
	return 0;
}

/* ---- the columns ---- */

static const char *const kind_names[] = {
	[ST_EV_SYSCALL] = "syscall",
	[ST_EV_FORK] = "fork",
	[ST_EV_EXEC] = "exec",
	[ST_EV_EXIT] = "exit",
};

static void v_null(struct st_val *v)
{
	v->type = ST_V_NULL;
}

static void v_uint(struct st_val *v, uint64_t u)
{
	v->type = ST_V_UINT;
	v->u = u;
}

static void v_str(struct st_val *v, const char *s)
{
	v->type = s ? ST_V_STR : ST_V_NULL;
	v->s = s;
}

static void v_hex(struct st_val *v, uint64_t u)
{
	snprintf(v->buf, sizeof(v->buf), "0x%" PRIx64, u);
	v_str(v, v->buf);
}

static bool is_syscall(const struct st_row *r)
{
	return r->ev->kind == ST_EV_SYSCALL;
}

static void c_session_id(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->session->id);
}

static void c_proc_id(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->ev->proc_id);
}

static void c_pid(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->ev->pid);
}

static void c_tid(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->ev->tid);
}

static void c_comm(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->ev->proc ? r->ev->proc->comm : NULL);
}

static void c_seq(const struct st_row *r, struct st_val *v)
{
	if (is_syscall(r))
		v_uint(v, r->ev->seq);
	else
		v_null(v);
}

static void c_ts_ns(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->ev->ts_ns);
}

static void c_dur_ns(const struct st_row *r, struct st_val *v)
{
	if (is_syscall(r))
		v_uint(v, r->ev->dur_ns);
	else
		v_null(v);
}

static void c_event(const struct st_row *r, struct st_val *v)
{
	v_str(v, kind_names[r->ev->kind]);
}

static void c_abi(const struct st_row *r, struct st_val *v)
{
	v_str(v, is_syscall(r) ? st_abi_name(r->ev->abi) : NULL);
}

static void c_nr(const struct st_row *r, struct st_val *v)
{
	if (is_syscall(r))
		v_uint(v, r->ev->nr);
	else
		v_null(v);
}

static void c_syscall(const struct st_row *r, struct st_val *v)
{
	v_str(v, is_syscall(r) ? st_syscall_name(r->ev->abi, r->ev->nr) : NULL);
}

static void c_ret(const struct st_row *r, struct st_val *v)
{
	if (!is_syscall(r)) {
		v_null(v);
		return;
	}
	v->type = ST_V_INT;
	v->u = (uint64_t)r->ev->ret;
}

/* The kernel's convention: -4095..-1 is an error. */
static void c_errno(const struct st_row *r, struct st_val *v)
{
	if (is_syscall(r) && r->ev->ret < 0 && r->ev->ret >= -4095)
		v_uint(v, (uint64_t)-r->ev->ret);
	else
		v_null(v);
}

static void c_addr(const struct st_row *r, struct st_val *v)
{
	if (is_syscall(r))
		v_hex(v, r->ev->addr);
	else
		v_null(v);
}

static void c_map(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->ev->site ? st_map_name(r->ev->site->map) : NULL);
}

static void c_path(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->ev->site ? r->ev->site->path : NULL);
}

static void c_offset(const struct st_row *r, struct st_val *v)
{
	const struct st_site_row *s = r->ev->site;

	if (s && s->map != SYSTRACE_MAP_UNKNOWN)
		v_hex(v, s->offset);
	else
		v_null(v);
}

static void c_symbol(const struct st_row *r, struct st_val *v)
{
	const struct st_site_row *s = r->ev->site;

	v_str(v, s && s->sym ? s->sym->symbol : NULL);
}

static void c_phase(const struct st_row *r, struct st_val *v)
{
	switch (r->ev->phase) {
	case ST_PHASE_LOADER:
		v_str(v, "loader");
		break;
	case ST_PHASE_PROGRAM:
		v_str(v, "program");
		break;
	default:
		v_null(v);
	}
}

static void c_early(const struct st_row *r, struct st_val *v)
{
	if (!is_syscall(r) || r->ev->phase == ST_PHASE_NONE) {
		v_null(v);
		return;
	}
	v->type = ST_V_BOOL;
	v->u = r->ev->early;
}

static void c_child_proc_id(const struct st_row *r, struct st_val *v)
{
	if (r->ev->kind == ST_EV_FORK)
		v_uint(v, r->ev->child_proc_id);
	else
		v_null(v);
}

static void c_child_pid(const struct st_row *r, struct st_val *v)
{
	if (r->ev->kind == ST_EV_FORK)
		v_uint(v, r->ev->child_pid);
	else
		v_null(v);
}

static void c_exit_code(const struct st_row *r, struct st_val *v)
{
	const struct st_proc_row *p = r->ev->proc;

	if (r->ev->kind == ST_EV_EXIT && p && p->has_exit_code)
		v_uint(v, p->exit_code);
	else
		v_null(v);
}

static void c_exit_signal(const struct st_row *r, struct st_val *v)
{
	const struct st_proc_row *p = r->ev->proc;

	if (r->ev->kind == ST_EV_EXIT && p && p->has_exit_signal)
		v_uint(v, p->exit_signal);
	else
		v_null(v);
}

static const struct st_column log_cols[] = {
	{ "session_id", c_session_id },
	{ "proc_id", c_proc_id },
	{ "pid", c_pid },
	{ "tid", c_tid },
	{ "comm", c_comm },
	{ "seq", c_seq },
	{ "ts_ns", c_ts_ns },
	{ "dur_ns", c_dur_ns },
	{ "event", c_event },
	{ "abi", c_abi },
	{ "nr", c_nr },
	{ "syscall", c_syscall },
	{ "ret", c_ret },
	{ "errno", c_errno },
	{ "addr", c_addr },
	{ "map", c_map },
	{ "path", c_path },
	{ "offset", c_offset },
	{ "symbol", c_symbol },
	{ "phase", c_phase },
	{ "early", c_early },
	{ "child_proc_id", c_child_proc_id },
	{ "child_pid", c_child_pid },
	{ "exit_code", c_exit_code },
	{ "exit_signal", c_exit_signal },
};

static const struct st_table log_table = {
	.name = "log", .cols = log_cols, .ncols = ARRAY_SIZE(log_cols),
};

static void write_csv(FILE *f, const struct st_log *log, const struct st_dump *d)
{
	struct st_row row = { .session = &d->session };
	struct st_val val;
	size_t i, c;

	for (c = 0; c < ARRAY_SIZE(log_cols); c++)
		fprintf(f, "%s%s", c ? "," : "", log_cols[c].name);
	fputc('\n', f);
	for (i = 0; i < log->n; i++) {
		row.ev = &log->ev[i];
		for (c = 0; c < ARRAY_SIZE(log_cols); c++) {
			memset(&val, 0, sizeof(val));
			log_cols[c].get(&row, &val);
			if (c)
				fputc(',', f);
			st_csv_value(f, &val);
		}
		fputc('\n', f);
	}
}

static int write_jsonl(FILE *f, const struct st_log *log,
		       const struct st_dump *d)
{
	struct st_row row = { .session = &d->session };
	size_t i;

	for (i = 0; i < log->n; i++) {
		json_t *o;
		char *s;

		row.ev = &log->ev[i];
		o = st_json_row(&log_table, &row);
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
	int ret = 0;

	switch (fmt) {
	case ST_LOG_CSV:
		write_csv(f, log, d);
		break;
	case ST_LOG_JSONL:
		ret = write_jsonl(f, log, d);
		break;
	case ST_LOG_CHROME:
		ret = st_log_write_chrome(f, log, d);
		break;
	}
	if (!ret && (fflush(f) || ferror(f)))
		ret = errno ? -errno : -EIO;
	return ret;
}
