// SPDX-License-Identifier: GPL-2.0
/*
 * A finished log as Chrome trace-event JSON (the JSON Object Format), for
 * Perfetto's UI and chrome://tracing. Written as it goes, not built in
 * memory: a build's log has millions of events.
 *
 * Each image is a process track whose trace pid is its proc_id (a pid is
 * reused by exec; an image is not), named "comm pid", sorted by proc_id
 * (creation order) and labelled "exec of image N" or "fork of image N".
 * Each thread is a thread track (its tid). A syscall is a complete event
 * ("X"); fork, exec and exit are thread-scoped instant events ("i"); a
 * flow ("s" at the parent's fork, "f" bound to the child's first event)
 * links a fork to its child. ts and dur are in µs with 3 decimals (exact
 * ns), ts from the log's earliest event.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "names.h"
#include "systrace.h"

struct track {
	uint64_t proc_id;
	uint32_t tid;
};

static int track_cmp(const void *a, const void *b)
{
	const struct track *x = a, *y = b;

	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static uint32_t ev_tid(const struct st_event *e)
{
	return e->tid ? e->tid : e->pid;
}

static void put_str(FILE *f, const char *s)
{
	json_t *j = st_json_string(s ? s : "");

	if (!j || json_dumpf(j, f, JSON_ENCODE_ANY))
		fputs("\"\"", f);
	json_decref(j);
}

static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static const struct st_proc_row *proc_of(const struct st_event *e,
					 const struct st_dump *d)
{
	return e->proc ? e->proc : st_dump_find_proc(d, e->proc_id);
}

/* Every (image, thread) that has an event, sorted and unique. */
static struct track *tracks(const struct st_log *log, size_t *n)
{
	struct track *t = malloc((log->n ? log->n : 1) * sizeof(*t));
	size_t i, k = 0;

	if (!t)
		return NULL;
	for (i = 0; i < log->n; i++)
		t[i] = (struct track){ log->ev[i].proc_id, ev_tid(&log->ev[i]) };
	qsort(t, log->n, sizeof(*t), track_cmp);
	for (i = 0; i < log->n; i++)
		if (!k || track_cmp(&t[k - 1], &t[i]))
			t[k++] = t[i];
	*n = k;
	return t;
}

static void sep(FILE *f, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
}

static void meta(FILE *f, bool *first, uint64_t pid, const uint32_t *tid,
		 const char *name, const char *key, const char *str,
		 const uint64_t *num)
{
	sep(f, first);
	fprintf(f, "{\"ph\":\"M\",\"pid\":%" PRIu64 ",", pid);
	if (tid)
		fprintf(f, "\"tid\":%" PRIu32 ",", *tid);
	fprintf(f, "\"name\":\"%s\",\"args\":{\"%s\":", name, key);
	if (str)
		put_str(f, str);
	else
		fprintf(f, "%" PRIu64, *num);
	fputs("}}", f);
}

static void process_meta(FILE *f, bool *first, const struct st_proc_row *p)
{
	char buf[SYSTRACE_COMM_MAX + 64];

	snprintf(buf, sizeof(buf), "%s %" PRIu32, p->comm, p->pid);
	meta(f, first, p->id, NULL, "process_name", "name", buf, NULL);
	meta(f, first, p->id, NULL, "process_sort_index", "sort_index", NULL,
	     &p->id);
	if (p->prev_id || p->parent_id) {
		snprintf(buf, sizeof(buf), "%s of image %" PRIu64,
			 p->prev_id ? "exec" : "fork",
			 p->prev_id ? p->prev_id : p->parent_id);
		meta(f, first, p->id, NULL, "process_labels", "labels", buf, NULL);
	}
}

static void thread_meta(FILE *f, bool *first, const struct track *t,
			const struct st_dump *d)
{
	const struct st_proc_row *p = st_dump_find_proc(d, t->proc_id);
	char buf[SYSTRACE_COMM_MAX + 32];

	snprintf(buf, sizeof(buf), "%s %" PRIu32, p ? p->comm : "?", t->tid);
	meta(f, first, t->proc_id, &t->tid, "thread_name", "name", buf, NULL);
}

static const char *phase_name(enum st_phase ph)
{
	return ph == ST_PHASE_LOADER ? "loader" :
	       ph == ST_PHASE_PROGRAM ? "program" : NULL;
}

static void head(FILE *f, const struct st_event *e, uint64_t base,
		 const char *ph)
{
	fprintf(f, "{\"ph\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu32
		",\"ts\":", ph, e->proc_id, ev_tid(e));
	put_us(f, e->ts_ns - base);
}

static void syscall_event(FILE *f, const struct st_event *e, uint64_t base)
{
	const struct st_site_row *s = e->site;
	const char *name = st_syscall_name(e->abi, e->nr);

	head(f, e, base, "X");
	fputs(",\"dur\":", f);
	put_us(f, e->dur_ns);
	if (name)
		fprintf(f, ",\"name\":\"%s\"", name);
	else
		fprintf(f, ",\"name\":\"syscall_%" PRIu32 "\"", e->nr);
	fprintf(f, ",\"cat\":\"syscall\",\"args\":{\"addr\":\"0x%" PRIx64 "\"",
		e->addr);
	if (s && s->map == SYSTRACE_MAP_FILE && s->path) {
		fputs(",\"path\":", f);
		put_str(f, s->path);
		fprintf(f, ",\"offset\":\"0x%" PRIx64 "\"", s->offset);
	}
	if (s && s->sym && s->sym->symbol) {
		fputs(",\"symbol\":", f);
		put_str(f, s->sym->symbol);
	}
	fprintf(f, ",\"ret\":%" PRId64, e->ret);
	if (e->ret < 0 && e->ret >= -4095)
		fprintf(f, ",\"errno\":%" PRId64, -e->ret);
	if (phase_name(e->phase))
		fprintf(f, ",\"phase\":\"%s\"", phase_name(e->phase));
	fprintf(f, ",\"early\":%s,\"seq\":%" PRIu64 "}}",
		e->early ? "true" : "false", e->seq);
}

static void instant_event(FILE *f, const struct st_event *e, uint64_t base,
			  const struct st_dump *d)
{
	static const char *const names[] = {
		[ST_EV_FORK] = "fork", [ST_EV_EXEC] = "exec", [ST_EV_EXIT] = "exit",
	};
	const struct st_proc_row *p = proc_of(e, d);

	head(f, e, base, "i");
	fprintf(f, ",\"s\":\"t\",\"name\":\"%s\",\"cat\":\"process\",\"args\":{",
		names[e->kind]);
	if (e->kind == ST_EV_FORK) {
		fprintf(f, "\"child_proc_id\":%" PRIu64 ",\"child_pid\":%" PRIu32,
			e->child_proc_id, e->child_pid);
	} else if (e->kind == ST_EV_EXEC) {
		fprintf(f, "\"prev_id\":%" PRIu64 ",\"path\":",
			p ? p->prev_id : 0);
		put_str(f, p ? p->exe : NULL);
	} else {
		fprintf(f, "\"end\":\"%s\"", p && st_end_name(p->end) ?
			st_end_name(p->end) : "unknown");
		if (p && p->has_exit_code)
			fprintf(f, ",\"exit_code\":%" PRIu32, p->exit_code);
		if (p && p->has_exit_signal)
			fprintf(f, ",\"exit_signal\":%" PRIu32, p->exit_signal);
	}
	fputs("}}", f);
}

/* In log order within an image: the log is sorted by time. */
static int by_image_then_order(const void *a, const void *b)
{
	const struct st_event *x = *(const struct st_event *const *)a;
	const struct st_event *y = *(const struct st_event *const *)b;

	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_image(const void *key, const void *elem)
{
	uint64_t id = *(const uint64_t *)key;
	const struct st_event *e = *(const struct st_event *const *)elem;

	return id < e->proc_id ? -1 : id > e->proc_id;
}

/* The first event of each image, by proc_id: where a fork's flow ends. */
static const struct st_event **firsts(const struct st_log *log, size_t *n)
{
	const struct st_event **t = malloc((log->n ? log->n : 1) * sizeof(*t));
	size_t i, k = 0;

	if (!t)
		return NULL;
	for (i = 0; i < log->n; i++)
		t[i] = &log->ev[i];
	qsort(t, log->n, sizeof(*t), by_image_then_order);
	for (i = 0; i < log->n; i++)
		if (!k || t[k - 1]->proc_id != t[i]->proc_id)
			t[k++] = t[i];
	*n = k;
	return t;
}

static const struct st_event *child_first(const struct st_event *fork,
					  const struct st_event **first,
					  size_t nfirst)
{
	const struct st_event **e;

	if (!nfirst)
		return NULL;
	e = bsearch(&fork->child_proc_id, first, nfirst, sizeof(*first),
		    by_image);
	return e ? *e : NULL;
}

/* A fork's arrow: from the parent's thread at the fork to the child. */
static void flow(FILE *f, bool *first, const struct st_event *fork,
		 const struct st_event *child, uint64_t base)
{
	sep(f, first);
	head(f, fork, base, "s");
	fprintf(f, ",\"id\":%" PRIu64 ",\"name\":\"fork\",\"cat\":\"fork\"}",
		fork->child_proc_id);
	sep(f, first);
	head(f, child, base, "f");
	fprintf(f, ",\"bp\":\"e\",\"id\":%" PRIu64
		",\"name\":\"fork\",\"cat\":\"fork\"}", fork->child_proc_id);
}

static uint64_t base_ns(const struct st_log *log)
{
	uint64_t base = UINT64_MAX;
	size_t i;

	for (i = 0; i < log->n; i++)
		if (log->ev[i].ts_ns < base)
			base = log->ev[i].ts_ns;
	return log->n ? base : 0;
}

int st_log_write_chrome(FILE *f, const struct st_log *log,
			const struct st_dump *d)
{
	const struct st_event **first = NULL;
	struct track *t = NULL;
	uint64_t base = base_ns(log);
	size_t i, nt = 0, nfirst = 0;
	bool comma = true;
	int ret = -ENOMEM;

	t = tracks(log, &nt);
	first = firsts(log, &nfirst);
	if (!t || !first)
		goto out;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"ts_base_ns\":", f);
	fprintf(f, "%" PRIu64 ",\"dropped_events\":%" PRIu64 "},\"traceEvents\":[",
		base, log->dropped_events);
	for (i = 0; i < d->nprocs; i++)
		process_meta(f, &comma, &d->procs[i]);
	for (i = 0; i < nt; i++)
		thread_meta(f, &comma, &t[i], d);
	for (i = 0; i < log->n; i++) {
		const struct st_event *e = &log->ev[i], *child;

		sep(f, &comma);
		if (e->kind == ST_EV_SYSCALL) {
			syscall_event(f, e, base);
			continue;
		}
		instant_event(f, e, base, d);
		if (e->kind == ST_EV_FORK &&
		    (child = child_first(e, first, nfirst)))
			flow(f, &comma, e, child, base);
	}
	fputs("\n]}\n", f);
	ret = ferror(f) ? -EIO : 0;
out:
	free(first);
	free(t);
	return ret;
}
