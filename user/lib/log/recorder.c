// SPDX-License-Identifier: GPL-2.0
/*
 * The temporal log while it is recorded (recorder.h). It owns:
 *  - st_log: the events a tracer's drain hands over (st_log_push), spooled
 *    or kept in memory;
 *  - st_log_sites: the site rows a log joins, and the command lines set
 *    aside beside it;
 *  - st_log_record(): the merge of the events with the process events of
 *    the session's rows, each syscall joined to its site row and given its
 *    phase, into a writer;
 *  - st_recorder: a recording from begin to save or abandon, every step
 *    between the CLI's calls and the file, and its state (one enum).
 *
 * A recorder's invariants: while RECORDING, FILE.partial and the spool
 * both exist and only drains change it; a save moves it to SAVING before
 * any step and out of it through rec_end() alone, which removes
 * FILE.partial unless renamed to FILE and the spool unless kept as
 * FILE.spool; a recorder's life ends in exactly one save or abandon, and
 * nothing it made outlives it but FILE or FILE.spool. It prints nothing:
 * what happened is returned (st_err, st_recorder_outcome) for the caller
 * to say.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/hidx.h"
#include "log/log_file.h"
#include "log/log_merge.h"
#include "log/log_spool.h"
#include "log/log_writer.h"
#include "log/recorder.h"
#include "sym/symbolize.h"

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

/* ---- process events from the rows ---- */

static int ptr_cmp(const void *a, const void *b)
{
	return st_event_cmp(*(const struct st_event *const *)a,
			    *(const struct st_event *const *)b);
}

/*
 * A process event of the rows in 12 bytes (an st_event takes 112, and a
 * build has 200,000 rows): made whole when it is merged or compared.
 */
struct pev {
	uint32_t proc;			/* its row in d->procs */
	uint32_t parent;		/* a fork's parent row; UINT32_MAX: none */
	uint32_t kind;			/* ST_EV_EXEC, _FORK or _EXIT */
};

static void pev_event(const struct st_dump *d, const struct pev *v, struct st_event *e)
{
	const struct st_proc_row *r = &d->procs[v->proc];
	const struct st_proc_row *parent = v->parent == UINT32_MAX ? NULL :
					   &d->procs[v->parent];

	*e = (struct st_event){ .kind = v->kind, .pid = r->tgid, .tid = r->pid, .proc = r,
				.ts_ns = r->start_ns, .proc_id = r->id };
	if (v->kind == ST_EV_FORK) {
		e->proc_id = r->parent_id;
		e->proc = parent;
		e->pid = e->tid = parent ? parent->tgid : 0;
		e->child_proc_id = r->id;
		e->child_pid = r->tgid;
	} else if (v->kind == ST_EV_EXIT) {
		e->ts_ns = r->end_ns;
	}
}

/* Log order; events equal in it keep the order of their rows. */
static int pev_cmp(const void *a, const void *b, void *ctx)
{
	const struct pev *x = a, *y = b;
	struct st_event ex, ey;
	int c;

	pev_event(ctx, x, &ex);
	pev_event(ctx, y, &ey);
	c = st_event_cmp(&ex, &ey);
	if (c)
		return c;
	return x->proc != y->proc ? (x->proc < y->proc ? -1 : 1) :
	       (int)x->kind - (int)y->kind;
}

struct pevs {
	const struct st_dump *d;
	struct st_log_sites *ls;	/* argv set aside there, or NULL */
	struct pev *v;
	size_t i, n;
};

static int argv_lend(struct st_log_sites *s, const struct st_dump *d, size_t row);

static int pevs_next(void *ctx, struct st_event *ev)
{
	struct pevs *p = ctx;
	const struct pev *v;
	int ret;

	if (p->i == p->n)
		return 0;
	v = &p->v[p->i++];
	pev_event(p->d, v, ev);
	/*
	 * The merge holds one event of this source at a time, written before
	 * the next is asked for: one row at a time is lent its argv.
	 */
	if (p->ls && v->kind == ST_EV_EXEC && (ret = argv_lend(p->ls, p->d, v->proc)))
		return ret;
	return 1;
}

static int proc_events(const struct st_dump *d, struct pevs *out)
{
	struct pev *v = calloc(2 * d->nprocs + 1, sizeof(*v));
	size_t i, k = 0;

	*out = (struct pevs){ .d = d, .v = v };
	if (!v)
		return -ENOMEM;
	if (d->nprocs >= UINT32_MAX)
		return -EOVERFLOW;
	for (i = 0; i < d->nprocs; i++) {
		const struct st_proc_row *r = &d->procs[i];

		/* A row that existed before an attach did not start now. */
		if (!r->attached) {
			v[k] = (struct pev){ .proc = (uint32_t)i, .parent = UINT32_MAX,
					     .kind = ST_EV_EXEC };
			if (!r->prev_id && r->parent_id) {
				const struct st_proc_row *parent =
					st_dump_find_proc(d, r->parent_id);

				v[k].kind = ST_EV_FORK;
				if (parent)
					v[k].parent = (uint32_t)(parent - d->procs);
			}
			k++;
		}
		if (r->has_end_ns && (r->end == SYSTRACE_END_EXITED ||
				      r->end == SYSTRACE_END_SIGNALED))
			v[k++] = (struct pev){ .proc = (uint32_t)i, .parent = UINT32_MAX,
					       .kind = ST_EV_EXIT };
	}
	if (k > 1)
		qsort_r(v, k, sizeof(*v), pev_cmp, (void *)d);
	out->n = k;
	return 0;
}

/* ---- the site rows a log joins (st_log_sites) ---- */

static uint64_t file_hash(const void *ctx, uint32_t pos)
{
	const struct st_log_file *f = &((const struct st_log_sites *)ctx)->files[pos];

	return st_hash3(f->inode, f->mtime_ns, 0);
}

static bool file_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct st_log_file *f = &((const struct st_log_sites *)ctx)->files[pos];
	const struct st_log_file *k = key;

	return f->inode == k->inode && f->mtime_ns == k->mtime_ns;
}

/* The identity's number in s (from 1), added if new; 0: out of memory. */
static uint32_t log_file(struct st_log_sites *s, uint64_t inode, uint64_t mtime_ns)
{
	struct st_log_file key = { inode, mtime_ns }, *files;
	uint64_t h = st_hash3(inode, mtime_ns, 0);
	int64_t i = st_hidx_find(&s->file_idx, h, file_eq, s, &key);

	if (i >= 0)
		return (uint32_t)i + 1;
	if (s->nfiles == s->files_cap) {
		size_t cap = s->files_cap ? 2 * s->files_cap : 512;

		files = realloc(s->files, cap * sizeof(*files));
		if (!files)
			return 0;
		s->files = files;
		s->files_cap = cap;
	}
	s->files[s->nfiles] = key;
	if (s->nfiles >= UINT32_MAX - 1 ||
	    st_hidx_add(&s->file_idx, h, (uint32_t)s->nfiles, file_hash, s))
		return 0;
	return (uint32_t)++s->nfiles;
}

static int log_site_row(void *ctx, struct st_dump *d, struct st_site_row *r)
{
	struct st_log_sites *s = ctx;
	struct st_log_site *v;
	uint32_t file = 0;

	if (s->symbolize && (!s->sym || st_sym_rows_site(s->sym, d, r)))
		return -ENOMEM;
	if (r->has_file_id && !(file = log_file(s, r->inode, r->mtime_ns)))
		return -ENOMEM;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;

		v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct st_log_site){
		.proc_id = r->proc_id, .addr = r->addr,
		.first_ordinal = r->first_ordinal,
		.ev = { .path = r->path, .sym = r->sym, .offset = r->offset,
			.map = r->map, .file = file },
		.nr = r->nr, .abi = (uint16_t)r->abi,
	};
	return 0;
}

/* ---- argv set aside (st_log_sites_argv_aside) ---- */

/* The dump's sink, for each process row: its argv to the file. */
static int log_proc_row(void *ctx, struct st_dump *d, struct st_proc_row *r)
{
	struct st_log_sites *s = ctx;
	int ret;

	(void)d;
	if (!r->argv)
		return 0;
	/*
	 * Only an exec event writes argv (proc_events): a row forked
	 * without exec, or one there before an attach, lets its copy go.
	 */
	if (r->attached || (!r->prev_id && r->parent_id)) {
		free(r->argv);
		r->argv = NULL;
		return 0;
	}
	if (s->argv_err)
		return 0;
	if (s->argv_fd < 0) {
		s->argv_fd = st_log_tmpfile(s->argv_beside, "argv", &s->argv_name);
		if (s->argv_fd < 0) {
			s->argv_err = -s->argv_fd;
			return 0;
		}
		if (s->argv_name)
			unlink(s->argv_name);
	}
	if (s->argv_n == s->argv_cap) {
		size_t cap = s->argv_cap ? 2 * s->argv_cap : 1024;
		struct st_log_argv *at = realloc(s->argv_at, cap * sizeof(*at));

		if (!at) {
			/* As a full disk: the rows keep theirs. */
			s->argv_err = ENOMEM;
			return 0;
		}
		s->argv_at = at;
		s->argv_cap = cap;
	}
	ret = st_pwrite_all(s->argv_fd, r->argv, r->argv_len, s->argv_end);
	if (ret) {
		/* A full disk: this row and the next keep theirs. */
		s->argv_err = -ret;
		return 0;
	}
	s->argv_at[s->argv_n++] = (struct st_log_argv){ .id = r->id, .off = s->argv_end };
	s->argv_sorted = false;
	s->argv_end += r->argv_len;
	free(r->argv);
	r->argv = NULL;
	return 0;
}

/* The row lent argv_buf gives it back. */
static void argv_return(struct st_log_sites *s)
{
	if (s->argv_row)
		s->argv_row->argv = NULL;
	s->argv_row = NULL;
}

static int argv_id_cmp(const void *a, const void *b)
{
	const struct st_log_argv *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Row d->procs[row] is lent its argv, read back, until the next lend. */
static int argv_lend(struct st_log_sites *s, const struct st_dump *d, size_t row)
{
	struct st_proc_row *r = (struct st_proc_row *)&d->procs[row];
	struct st_log_argv key = { .id = r->id }, *at;
	size_t n = r->argv_len;
	int ret;

	argv_return(s);
	if (!s->argv_n || r->argv)
		return 0;
	if (!s->argv_sorted) {
		st_qsort(s->argv_at, s->argv_n, sizeof(*s->argv_at), argv_id_cmp);
		s->argv_sorted = true;
	}
	at = bsearch(&key, s->argv_at, s->argv_n, sizeof(*at), argv_id_cmp);
	if (!at)
		return 0;
	if (n + 1 > s->argv_buf_cap) {
		char *b = realloc(s->argv_buf, n + 1);

		if (!b)
			return -ENOMEM;
		s->argv_buf = b;
		s->argv_buf_cap = n + 1;
	}
	ret = st_pread_all(s->argv_fd, s->argv_buf, n, at->off);
	if (ret)
		return ret;
	s->argv_buf[n] = '\0';
	r->argv = s->argv_buf;
	s->argv_row = r;
	return 0;
}

void st_log_sites_argv_aside(struct st_log_sites *s, const char *log_path)
{
	s->argv_beside = log_path;
	s->sink.proc = log_proc_row;
}

static void argv_reset(struct st_log_sites *s)
{
	s->argv_n = 0;
	s->argv_end = 0;
	/* The new try starts afresh: a write that failed may succeed now. */
	if (s->argv_fd >= 0)
		s->argv_err = ftruncate(s->argv_fd, 0) ? errno : 0;
}

/*
 * A retried dump: its rows so far are gone, and the memo's paths and syms
 * with their pool (st_dump_free), so the memo goes too.
 */
static void log_sites_reset(void *ctx)
{
	struct st_log_sites *s = ctx;

	argv_reset(s);
	s->n = 0;
	s->nfiles = 0;
	st_hidx_free(&s->file_idx);
	if (s->symbolize) {
		st_sym_rows_free(s->sym);
		s->sym = st_sym_rows_new();
	}
}

int st_log_sites_init(struct st_log_sites *s, bool symbolize)
{
	memset(s, 0, sizeof(*s));
	s->argv_fd = -1;
	s->symbolize = symbolize;
	s->sink = (struct st_site_sink){ .row = log_site_row, .reset = log_sites_reset,
					 .ctx = s };
	if (symbolize && !(s->sym = st_sym_rows_new()))
		return -ENOMEM;
	return 0;
}

int st_log_sites_of(struct st_log_sites *s, struct st_dump *d)
{
	size_t i;

	for (i = 0; i < d->nsites; i++)
		if (log_site_row(s, d, &d->sites[i]))
			return -ENOMEM;
	return 0;
}

void st_log_sites_free(struct st_log_sites *s)
{
	st_sym_rows_free(s->sym);
	free(s->v);
	free(s->files);
	st_hidx_free(&s->file_idx);
	free(s->scratch);
	/* st_log_record gave argv_buf back: no row holds it. */
	free(s->argv_at);
	free(s->argv_buf);
	if (s->argv_fd >= 0)
		close(s->argv_fd);
	free(s->argv_name);
	memset(s, 0, sizeof(*s));
	s->argv_fd = -1;
}

/* As a dump's sorted rows (model.c): an image's in first-call order. */
static int log_site_cmp(const void *a, const void *b)
{
	const struct st_log_site *x = a, *y = b;

	return st_site_order(&ST_SITE_KEY(x), &ST_SITE_KEY(y));
}

/* st_rows_of_fn: the rows of image p made from the store (sorted). */
static const struct st_site_row *log_rows_of(void *ctx, const struct st_proc_row *p,
					     size_t *n)
{
	struct st_log_sites *s = ctx;
	size_t a = 0, b = s->n, i;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (s->v[m].proc_id < p->id)
			a = m + 1;
		else
			b = m;
	}
	for (b = a; b < s->n && s->v[b].proc_id == p->id; b++)
		;
	*n = b - a;
	if (*n > s->scratch_cap) {
		size_t cap = *n < 64 ? 64 : 2 * *n;
		struct st_site_row *r = realloc(s->scratch, cap * sizeof(*r));

		if (!r)
			return NULL;
		s->scratch = r;
		s->scratch_cap = cap;
	}
	for (i = 0; i < *n; i++) {
		const struct st_log_site *v = &s->v[a + i];
		const struct st_log_file *f = v->ev.file ? &s->files[v->ev.file - 1] : NULL;

		s->scratch[i] = (struct st_site_row){
			.proc_id = v->proc_id, .addr = v->addr, .nr = v->nr,
			.abi = v->abi, .map = v->ev.map, .path = v->ev.path,
			.offset = v->ev.offset, .has_file_id = f,
			.inode = f ? f->inode : 0, .mtime_ns = f ? f->mtime_ns : 0,
			.first_ordinal = v->first_ordinal, .sym = v->ev.sym,
		};
	}
	return s->scratch;
}

/* ---- site rows by (proc_id, addr, abi, nr) ---- */

static bool site_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct st_log_site *s = &((const struct st_log_sites *)ctx)->v[pos];
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
	const struct st_log_site *s = &((const struct st_log_sites *)ctx)->v[pos];

	return site_key_hash(s->proc_id, s->addr, s->abi, s->nr);
}

static int index_sites(const struct st_log_sites *s, struct st_hidx *h)
{
	size_t i;

	if (st_hidx_init(h, s->n))
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		if (st_hidx_add(h, site_hash(s, (uint32_t)i), (uint32_t)i, site_hash, s))
			return -ENOMEM;
	return 0;
}

/* ---- the path rows a log's syscalls name ---- */

struct path_ref {
	uint64_t id;
	const struct st_path_row *row;
};

static int path_ref_cmp(const void *a, const void *b)
{
	const struct path_ref *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* d's path rows that have an id, by id: *out (free it), *n of them. */
static int index_paths(const struct st_dump *d, struct path_ref **out, size_t *n)
{
	size_t i, k = 0;

	*n = 0;
	*out = malloc((d->npaths ? d->npaths : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < d->npaths; i++)
		if (d->paths[i].id)
			(*out)[k++] = (struct path_ref){ d->paths[i].id, &d->paths[i] };
	qsort(*out, k, sizeof(**out), path_ref_cmp);
	*n = k;
	return 0;
}

/* What the row of id shows for its path; NULL: no such row. */
static const char *path_of(const struct path_ref *v, size_t n, uint64_t id)
{
	struct path_ref key = { .id = id };
	const struct path_ref *r;

	if (!id)
		return NULL;
	r = bsearch(&key, v, n, sizeof(*v), path_ref_cmp);
	return r ? st_path_shown(r->row) : NULL;
}

/* ---- writing the log ---- */

int st_log_record(struct st_log *log, const struct st_dump *d,
		  struct st_log_sites *ls, struct st_log_writer *w,
		  const struct st_log_record_opts *o)
{
	const struct st_event **mem = NULL;
	struct pevs pev = { 0 };
	struct st_bound *bounds = NULL;
	struct st_merge *m = NULL;
	struct st_hidx sites = { 0 };
	struct path_ref *paths = NULL;
	uint64_t total, done = 0;
	size_t i, npaths = 0;
	int ret = -ENOMEM;

	if (log->spool) {
		ret = st_spool_flush(log->spool);
		if (ret)
			return ret;
	}
	mem = malloc((log->n ? log->n : 1) * sizeof(*mem));
	bounds = calloc(d->nprocs ? d->nprocs : 1, sizeof(*bounds));
	if (ls->n > UINT32_MAX - 1) {
		ret = -EOVERFLOW;
		goto out;
	}
	st_qsort(ls->v, ls->n, sizeof(*ls->v), log_site_cmp);
	if (!mem || !bounds || index_sites(ls, &sites) ||
	    index_paths(d, &paths, &npaths) || proc_events(d, &pev))
		goto out;
	pev.ls = ls;
	for (i = 0; i < log->n; i++)
		mem[i] = &log->ev[i];
	qsort(mem, log->n, sizeof(*mem), ptr_cmp);
	ret = st_log_bounds_by(d, log_rows_of, ls, o->early_object, bounds);
	if (ret)
		goto out;
	ret = st_merge_new(&m);
	if (!ret && log->spool)
		ret = st_merge_add_spool(m, log->spool);
	if (!ret)
		ret = st_merge_add_array(m, mem, log->n);
	if (!ret)
		ret = st_merge_add_fn(m, pevs_next, &pev);
	if (!ret)
		ret = st_merge_start(m);
	total = log->pushed + pev.n;
	while (!ret && st_merge_peek(m)) {
		struct st_event ev = *st_merge_peek(m);

		if (ev.kind == ST_EV_SYSCALL) {
			int64_t s = st_hidx_find(&sites, site_key_hash(ev.proc_id, ev.addr,
								       ev.abi, ev.nr),
						 site_eq, ls, &ev);
			const struct st_proc_row *p = st_dump_find_proc(d, ev.proc_id);

			ev.site = s >= 0 ? &ls->v[s].ev : NULL;
			ev.proc = p;
			ev.arg_path = path_of(paths, npaths, ev.path_id);
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
	argv_return(ls);
	st_merge_free(m);
	st_hidx_free(&sites);
	free(paths);
	free(pev.v);
	free(bounds);
	free(mem);
	return ret;
}

/* ---- the recorder (st_recorder: begin, drain, save, abandon) ---- */

struct st_recorder {
	enum st_recorder_state state;
	struct st_recorder_opts o;
	struct st_log_kind kind;
	struct st_log_out *out;		/* FILE.partial; NULL once renamed */
	struct st_log log;		/* its spool: open from begin to the end */
	bool drain_failed;		/* a drain failed: no drain since */
};

int st_recorder_begin(struct st_recorder **rp, const struct st_recorder_opts *o,
		      struct st_err *err)
{
	struct st_recorder *r = calloc(1, sizeof(*r));
	int ret;

	*rp = NULL;
	if (!r) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "log", "%s", o->path);
		return -ENOMEM;
	}
	r->o = *o;
	ret = st_log_kind_of(o->path, o->fmt, &r->kind, err);
	if (ret)
		goto out;
	ret = st_log_out_open(&r->out, o->path, &r->kind, err);
	if (ret)
		goto out;
	ret = st_spool_open(&r->log.spool, o->path, 0, err);
out:
	if (ret) {
		st_log_out_abort(r->out);
		free(r);
		return ret;
	}
	r->state = ST_REC_RECORDING;
	*rp = r;
	return 0;
}

enum st_recorder_state st_recorder_state(const struct st_recorder *r)
{
	return r->state;
}

int st_recorder_drain(struct st_recorder *r, const struct st_recorder_src *src,
		      struct st_err *err)
{
	size_t n;
	int ret;

	assert(r->state == ST_REC_RECORDING);
	if (r->drain_failed)
		return 0;
	ret = src->drain(src->ctx, src->id, &r->log, &n, err);
	if (ret)
		r->drain_failed = true;
	return ret;
}

uint64_t st_recorder_events(const struct st_recorder *r)
{
	return r->log.pushed;
}

/*
 * After a failed save: the drained syscalls the spool did not lose go on
 * in FILE.spool (res->kept), unless it lost them all.
 */
static void keep_spool(struct st_recorder *r, struct st_recorder_outcome *res)
{
	uint64_t lost = 0;
	char *keep = NULL;

	res->lost = 0;
	st_spool_error(r->log.spool, &lost);
	if (r->log.pushed <= lost || asprintf(&keep, "%s.spool", r->o.path) < 0)
		return;
	res->lost = lost;
	if (!st_spool_flush(r->log.spool) && !st_spool_keep(r->log.spool, keep))
		res->kept = r->log.pushed - lost;
	free(keep);
}

/*
 * Every end: from RECORDING to ABANDONED, from SAVING to SAVED (FILE
 * renamed) or FAILED (the spool kept). FILE.partial and the spool, unless
 * kept, are removed, and r freed.
 */
static void rec_end(struct st_recorder *r, enum st_recorder_state to,
		    struct st_recorder_outcome *res)
{
	assert(r->state == (to == ST_REC_ABANDONED ? ST_REC_RECORDING : ST_REC_SAVING));
	assert(to != ST_REC_SAVED || !r->out);
	r->state = to;
	if (to == ST_REC_FAILED)
		keep_spool(r, res);
	st_log_out_abort(r->out);
	st_log_free(&r->log);
	free(r);
}

/*
 * The session's process rows into d and its site rows into sites, a row
 * at a time (symbolized unless no_symbols): a glibc build's 1.8 million
 * site rows are never held whole, and its command lines wait in a file
 * beside the log (st_log_sites_argv_aside). None when the session is gone
 * (a reset): res->gone, not a failure. On failure, nothing is left to free.
 */
static int rows(struct st_recorder *r, const struct st_recorder_src *src,
		struct st_dump *d, struct st_log_sites *sites,
		struct st_recorder_outcome *res, struct st_err *err)
{
	int ret;

	assert(r->state == ST_REC_SAVING);
	ret = st_log_sites_init(sites, !r->o.no_symbols);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "symbolizing the sites", NULL);
		goto out;
	}
	st_log_sites_argv_aside(sites, r->o.path);
	ret = src->rows(src->ctx, src->id, d, &sites->sink, err);
	if (!ret)
		res->argv_err = sites->argv_err;
	/* The module says ENOENT; the BPF backend finds no pinned session. */
	if (ret && (err->kind == ST_ERR_NOSESSION ||
		    (err->kind == ST_ERR_KERNEL && err->err == ENOENT))) {
		res->gone = true;
		memset(d, 0, sizeof(*d));
		d->session.id = src->id;
		sites->n = 0;
		ret = 0;
	}
out:
	if (ret)
		st_log_sites_free(sites);
	return ret;
}

int st_recorder_save(struct st_recorder *r, const struct st_recorder_src *src,
		     st_log_progress_fn progress, void *progress_ctx,
		     struct st_recorder_outcome *res, struct st_err *err)
{
	struct st_log_record_opts ro = { .early_object = r->o.early_object,
					 .progress = progress,
					 .progress_ctx = progress_ctx };
	struct st_log_meta meta = { .session_id = src->id };
	struct st_log_writer *w = NULL;
	struct st_log_sites sites;
	struct st_dump d;
	bool have_rows = false;
	int ret;

	assert(r->state == ST_REC_RECORDING);
	r->state = ST_REC_SAVING;
	memset(res, 0, sizeof(*res));
	res->kind = r->kind;
	st_spool_set_session(r->log.spool, src->id);
	/* Its error is kept: told in res, as every spool error. */
	st_spool_finish(r->log.spool);
	ret = rows(r, src, &d, &sites, res, err);
	if (ret)
		goto out;
	have_rows = true;
	meta.dropped_events = res->dropped = d.session.dropped_events;
	ret = st_log_writer_new(&w, st_log_out_file(r->out), r->kind.fmt, &meta);
	if (!ret)
		ret = st_log_record(&r->log, &d, &sites, w, &ro);
	if (!ret)
		ret = st_log_writer_end(w);
	res->events = w ? st_log_writer_events(w) : 0;
	st_log_writer_free(w);
	res->spool_err = st_spool_error(r->log.spool, &res->lost);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "writing the log", "%s",
			   st_log_out_partial(r->out));
		goto out;
	}
	ret = st_log_out_commit(r->out, err);
	r->out = NULL;
out:
	rec_end(r, ret ? ST_REC_FAILED : ST_REC_SAVED, res);
	if (have_rows) {
		st_log_sites_free(&sites);
		st_dump_free(&d);
	}
	return ret;
}

void st_recorder_abandon(struct st_recorder *r)
{
	if (r)
		rec_end(r, ST_REC_ABANDONED, NULL);
}
