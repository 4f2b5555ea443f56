// SPDX-License-Identifier: GPL-2.0
/*
 * A log as Chrome trace-event JSON (the JSON Object Format), for Perfetto's
 * UI and chrome://tracing, written as the events come: what it keeps is one
 * entry per image and per thread, never the events.
 *
 * Each image is a process track whose trace pid is its proc_id (a pid is
 * reused by exec; an image is not), named "comm pid", sorted by proc_id
 * (creation order) and labelled "exec of image N" or "fork of image N";
 * its metadata comes before its first event. Each thread is a thread track
 * (its tid), named before its first event. A syscall is a complete event
 * ("X"); fork, exec and exit are thread-scoped instant events ("i"); a
 * flow ("s" at the parent's fork, "f" bound to the child's first event)
 * links a fork to its child. ts and dur are in µs with 3 decimals (exact
 * ns), ts from the log's first event.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "out/argv.h"
#include "base/hidx.h"
#include "log/log_writer.h"
#include "model/names.h"
#include "out/json_str.h"

/* An image (tid 0) or a thread of one: named yet, a flow to end. */
struct track {
	uint64_t proc_id;
	uint32_t tid;
	bool named, flow_in;
};

struct chrome {
	uint64_t base;
	bool comma;
	struct track *t;
	size_t n, cap;
	struct st_hidx idx;
	struct st_hcache cache;	/* the tracks in use */
};

struct tkey {
	uint64_t proc_id;
	uint32_t tid;
};

static bool track_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct track *t = &((const struct chrome *)ctx)->t[pos];
	const struct tkey *k = key;

	return t->proc_id == k->proc_id && t->tid == k->tid;
}

static uint64_t track_hash(const void *ctx, uint32_t pos)
{
	const struct track *t = &((const struct chrome *)ctx)->t[pos];

	return st_hash3(t->proc_id, t->tid, 0);
}

/* The entry of (proc_id, tid), made if new; NULL when out of memory. */
static struct track *track_of(struct chrome *c, uint64_t proc_id, uint32_t tid)
{
	struct tkey k = { proc_id, tid };
	int64_t pos = st_hidx_find_c(&c->idx, &c->cache, st_hash3(proc_id, tid, 0), track_eq,
				     c, &k);

	if (pos >= 0)
		return &c->t[pos];
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct track *p = realloc(c->t, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->t = p;
		c->cap = cap;
	}
	c->t[c->n] = (struct track){ .proc_id = proc_id, .tid = tid };
	if (st_hidx_add(&c->idx, st_hash3(proc_id, tid, 0), (uint32_t)c->n,
			track_hash, c))
		return NULL;
	return &c->t[c->n++];
}

static uint32_t ev_tid(const struct st_event *e)
{
	return e->tid ? e->tid : e->pid;
}

static void sep(struct st_log_writer *w, struct chrome *c)
{
	st_obuf_puts(&w->o, c->comma ? ",\n" : "\n");
	c->comma = true;
}

/* ns from the base as µs with 3 decimals; before the base, negative. */
static void put_us(struct st_obuf *o, uint64_t ns, uint64_t base)
{
	char frac[4];
	unsigned int m;
	uint64_t d;

	if (ns < base) {
		st_obuf_putc(o, '-');
		d = base - ns;
	} else {
		d = ns - base;
	}
	st_obuf_u64(o, d / 1000);
	/* "%03u" of d % 1000, without printf (twice per event). */
	m = (unsigned int)(d % 1000);
	frac[0] = '.';
	frac[1] = (char)('0' + m / 100);
	frac[2] = (char)('0' + m / 10 % 10);
	frac[3] = (char)('0' + m % 10);
	st_obuf_put(o, frac, 4);
}

static void put_dur(struct st_obuf *o, uint64_t ns)
{
	put_us(o, ns, 0);
}

static void meta_head(struct st_log_writer *w, struct chrome *c, uint64_t pid,
		      const uint32_t *tid, const char *name, const char *key)
{
	sep(w, c);
	st_obuf_puts(&w->o, "{\"ph\":\"M\",\"pid\":");
	st_obuf_u64(&w->o, pid);
	if (tid) {
		st_obuf_puts(&w->o, ",\"tid\":");
		st_obuf_u64(&w->o, *tid);
	}
	st_obuf_puts(&w->o, ",\"name\":\"");
	st_obuf_puts(&w->o, name);
	st_obuf_puts(&w->o, "\",\"args\":{\"");
	st_obuf_puts(&w->o, key);
	st_obuf_puts(&w->o, "\":");
}

static void meta_str(struct st_log_writer *w, struct chrome *c, uint64_t pid,
		     const uint32_t *tid, const char *name, const char *key,
		     const char *val)
{
	meta_head(w, c, pid, tid, name, key);
	st_json_put_string(&w->o, val);
	st_obuf_puts(&w->o, "}}");
}

static const char *comm_of(const struct st_event *e)
{
	return e->proc ? e->proc->comm : "?";
}

static void process_meta(struct st_log_writer *w, struct chrome *c,
			 const struct st_event *e)
{
	const struct st_proc_row *p = e->proc;
	char buf[SYSTRACE_COMM_MAX + 64];

	snprintf(buf, sizeof(buf), "%s %" PRIu32, comm_of(e), p ? p->pid : e->pid);
	meta_str(w, c, e->proc_id, NULL, "process_name", "name", buf);
	meta_head(w, c, e->proc_id, NULL, "process_sort_index", "sort_index");
	st_obuf_u64(&w->o, e->proc_id);
	st_obuf_puts(&w->o, "}}");
	if (p && (p->prev_id || p->parent_id)) {
		snprintf(buf, sizeof(buf), "%s of image %" PRIu64,
			 p->prev_id ? "exec" : "fork",
			 p->prev_id ? p->prev_id : p->parent_id);
		meta_str(w, c, e->proc_id, NULL, "process_labels", "labels", buf);
	}
}

static void head(struct st_log_writer *w, struct chrome *c,
		 const struct st_event *e, uint64_t ts, const char *ph)
{
	st_obuf_puts(&w->o, "{\"ph\":\"");
	st_obuf_puts(&w->o, ph);
	st_obuf_puts(&w->o, "\",\"pid\":");
	st_obuf_u64(&w->o, e->proc_id);
	st_obuf_puts(&w->o, ",\"tid\":");
	st_obuf_u64(&w->o, ev_tid(e));
	st_obuf_puts(&w->o, ",\"ts\":");
	put_us(&w->o, ts, c->base);
}

static const char *phase_name(enum st_phase ph)
{
	return ph == ST_PHASE_LOADER ? "loader" :
	       ph == ST_PHASE_PROGRAM ? "program" : NULL;
}

static void syscall_event(struct st_log_writer *w, struct chrome *c,
			  const struct st_event *e)
{
	const struct st_ev_site *s = e->site;
	const char *name = st_syscall_name(e->abi, e->nr);
	struct st_obuf *o = &w->o;

	head(w, c, e, e->ts_ns, "X");
	st_obuf_puts(o, ",\"dur\":");
	put_dur(o, e->dur_ns);
	st_obuf_puts(o, ",\"name\":\"");
	if (name) {
		st_obuf_puts(o, name);
	} else {
		st_obuf_puts(o, "syscall_");
		st_obuf_u64(o, e->nr);
	}
	st_obuf_puts(o, "\",\"cat\":\"syscall\",\"args\":{\"addr\":\"");
	st_obuf_hex(o, e->addr);
	st_obuf_putc(o, '"');
	if (s && s->map == SYSTRACE_MAP_FILE && s->path) {
		st_obuf_puts(o, ",\"path\":");
		st_json_put_string(o, s->path);
		st_obuf_puts(o, ",\"offset\":\"");
		st_obuf_hex(o, s->offset);
		st_obuf_putc(o, '"');
	}
	if (s && s->sym && s->sym->symbol) {
		st_obuf_puts(o, ",\"symbol\":");
		st_json_put_string(o, s->sym->symbol);
	}
	if (e->arg_path) {
		st_obuf_puts(o, ",\"arg_path\":");
		st_json_put_string(o, e->arg_path);
	}
	st_obuf_puts(o, ",\"ret\":");
	st_obuf_s64(o, (uint64_t)e->ret);
	if (st_ret_is_error(e->ret)) {
		st_obuf_puts(o, ",\"errno\":");
		st_obuf_u64(o, (uint64_t)-e->ret);
	}
	if (phase_name(e->phase)) {
		st_obuf_puts(o, ",\"phase\":\"");
		st_obuf_puts(o, phase_name(e->phase));
		st_obuf_putc(o, '"');
	}
	st_obuf_puts(o, e->early ? ",\"early\":true,\"seq\":" : ",\"early\":false,\"seq\":");
	st_obuf_u64(o, e->seq);
	st_obuf_puts(o, "}}");
}

static void instant_event(struct st_log_writer *w, struct chrome *c,
			  const struct st_event *e)
{
	static const char *const names[] = {
		[ST_EV_FORK] = "fork", [ST_EV_EXEC] = "exec", [ST_EV_EXIT] = "exit",
	};
	const struct st_proc_row *p = e->proc;
	struct st_obuf *o = &w->o;

	head(w, c, e, e->ts_ns, "i");
	st_obuf_puts(o, ",\"s\":\"t\",\"name\":\"");
	st_obuf_puts(o, names[e->kind]);
	st_obuf_puts(o, "\",\"cat\":\"process\",\"args\":{");
	if (e->kind == ST_EV_FORK) {
		st_obuf_puts(o, "\"child_proc_id\":");
		st_obuf_u64(o, e->child_proc_id);
		st_obuf_puts(o, ",\"child_pid\":");
		st_obuf_u64(o, e->child_pid);
	} else if (e->kind == ST_EV_EXEC) {
		st_obuf_puts(o, "\"prev_id\":");
		st_obuf_u64(o, p ? p->prev_id : 0);
		st_obuf_puts(o, ",\"path\":");
		st_json_put_string(o, p && p->exe ? p->exe : "");
		if (p && p->argv) {
			st_obuf_puts(o, ",\"argv\":");
			st_argv_put_json(o, p->argv, p->argv_len);
			st_obuf_puts(o, p->argv_truncated ? ",\"argv_truncated\":true" :
				     ",\"argv_truncated\":false");
		}
	} else {
		st_obuf_puts(o, "\"end\":\"");
		st_obuf_puts(o, p && st_end_name(p->end) ? st_end_name(p->end) : "unknown");
		st_obuf_putc(o, '"');
		if (p && p->has_exit_code) {
			st_obuf_puts(o, ",\"exit_code\":");
			st_obuf_u64(o, p->exit_code);
		}
		if (p && p->has_exit_signal) {
			st_obuf_puts(o, ",\"exit_signal\":");
			st_obuf_u64(o, p->exit_signal);
		}
	}
	st_obuf_puts(o, "}}");
}

/* A fork's arrow: from the parent's thread at the fork ... */
static void flow_start(struct st_log_writer *w, struct chrome *c,
		       const struct st_event *fork)
{
	sep(w, c);
	head(w, c, fork, fork->ts_ns, "s");
	st_obuf_puts(&w->o, ",\"id\":");
	st_obuf_u64(&w->o, fork->child_proc_id);
	st_obuf_puts(&w->o, ",\"name\":\"fork\",\"cat\":\"fork\"}");
}

/* ... to the child's first event (or its exec's, when it made none). */
static void flow_end(struct st_log_writer *w, struct chrome *c,
		     const struct st_event *first, uint64_t id)
{
	sep(w, c);
	head(w, c, first, first->ts_ns, "f");
	st_obuf_puts(&w->o, ",\"bp\":\"e\",\"id\":");
	st_obuf_u64(&w->o, id);
	st_obuf_puts(&w->o, ",\"name\":\"fork\",\"cat\":\"fork\"}");
}

static int chrome_event(struct st_log_writer *w, const struct st_event *e)
{
	struct chrome *c = w->priv;
	struct track *img, *thr;
	char buf[SYSTRACE_COMM_MAX + 32];
	uint32_t tid = ev_tid(e);
	bool first;

	if (!c) {
		c = w->priv = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		c->base = e->ts_ns;
		st_obuf_puts(&w->o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"ts_base_ns\":");
		st_obuf_u64(&w->o, c->base);
		st_obuf_puts(&w->o, ",\"dropped_events\":");
		st_obuf_u64(&w->o, w->meta.dropped_events);
		st_obuf_puts(&w->o, "},\"traceEvents\":[");
	}
	img = track_of(c, e->proc_id, 0);
	if (!img)
		return -ENOMEM;
	first = !img->named;
	if (first) {
		img->named = true;
		process_meta(w, c, e);
	}
	thr = track_of(c, e->proc_id, tid);
	if (!thr)
		return -ENOMEM;
	img = track_of(c, e->proc_id, 0);	/* the table may have moved */
	if (!thr->named) {
		thr->named = true;
		snprintf(buf, sizeof(buf), "%s %" PRIu32, comm_of(e), tid);
		meta_str(w, c, e->proc_id, &tid, "thread_name", "name", buf);
	}
	sep(w, c);
	if (e->kind == ST_EV_SYSCALL)
		syscall_event(w, c, e);
	else
		instant_event(w, c, e);
	if (first && img->flow_in) {
		flow_end(w, c, e, e->proc_id);
	} else if (first && e->kind == ST_EV_EXEC && e->proc && e->proc->prev_id) {
		/* A fork's child that made no call before its exec. */
		struct track *prev = track_of(c, e->proc->prev_id, 0);

		if (!prev)
			return -ENOMEM;
		if (prev->flow_in && !prev->named) {
			prev->named = true;
			flow_end(w, c, e, e->proc->prev_id);
		}
	}
	if (e->kind == ST_EV_FORK) {
		struct track *child = track_of(c, e->child_proc_id, 0);

		if (!child)
			return -ENOMEM;
		/* Only a child whose first event is still to come. */
		if (!child->named) {
			child->flow_in = true;
			flow_start(w, c, e);
		}
	}
	return 0;
}

static int chrome_end(struct st_log_writer *w)
{
	if (!w->priv) {
		st_obuf_puts(&w->o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"ts_base_ns\":0,\"dropped_events\":");
		st_obuf_u64(&w->o, w->meta.dropped_events);
		st_obuf_puts(&w->o, "},\"traceEvents\":[");
	}
	st_obuf_puts(&w->o, "\n]}\n");
	return 0;
}

static void chrome_free(struct st_log_writer *w)
{
	struct chrome *c = w->priv;

	if (!c)
		return;
	st_hidx_free(&c->idx);
	free(c->t);
	free(c);
}

const struct st_log_writer_ops st_log_chrome_ops = {
	.event = chrome_event, .end = chrome_end, .free = chrome_free,
};
