// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a saved log (CSV with a header row, RFC 4180, or JSONL) back
 * into a struct st_log and a synthetic struct st_dump whose rows are what
 * the log says (log.h). Columns may come in any order; unknown ones are
 * ignored. Numbers are decimal, or hex with 0x; abi and map are names or
 * numbers; an empty CSV field or a JSON null is a missing value.
 *
 * The rows: an image's pid and comm are its events'; a fork starts its
 * child (parent_id); an exec starts its image, names its exe (path), and
 * its prev_id is the last earlier image of the same pid; an exit ends an
 * image (exited with exit_code, signaled with exit_signal, else exec when
 * an image execs from it). A syscall with a map has a site row, keyed by
 * (proc_id, addr, abi, nr), whose calls are the log's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "log.h"
#include "names.h"

enum col {
	C_SESSION_ID, C_PROC_ID, C_PID, C_TID, C_COMM, C_SEQ, C_TS_NS, C_DUR_NS,
	C_EVENT, C_ABI, C_NR, C_SYSCALL, C_RET, C_ERRNO, C_ADDR, C_MAP, C_PATH,
	C_OFFSET, C_SYMBOL, C_PHASE, C_EARLY, C_CHILD_PROC_ID, C_CHILD_PID,
	C_EXIT_CODE, C_EXIT_SIGNAL, C_NCOLS
};

static const char *const col_names[C_NCOLS] = {
	"session_id", "proc_id", "pid", "tid", "comm", "seq", "ts_ns", "dur_ns",
	"event", "abi", "nr", "syscall", "ret", "errno", "addr", "map", "path",
	"offset", "symbol", "phase", "early", "child_proc_id", "child_pid",
	"exit_code", "exit_signal",
};

/* One event as read: the fields that become rows, not events. */
struct rec {
	struct st_event ev;
	uint32_t session_id;
	char *comm, *path, *symbol;
	bool has_map, has_exit_code, has_exit_signal;
	uint32_t map, exit_code, exit_signal;
	uint64_t offset;
	size_t line;
};

struct loader {
	const char *path;
	struct st_err *err;
	struct rec *recs;
	size_t n, cap;
};

__attribute__((format(printf, 3, 4)))
static int bad(struct loader *l, size_t line, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	st_err_set(l->err, ST_ERR_LOCAL, EINVAL, "read log", "%s:%zu: %s",
		   l->path, line, msg);
	return -EINVAL;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		*v = strtoull(s + 2, &end, 16);
	else
		*v = strtoull(s, &end, 10);
	return !errno && !*end && end != s;
}

static bool parse_s64(const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return *s && !errno && !*end;
}

/* A name of names(i) for i < max, or a number below max. */
static bool parse_enum(const char *s, const char *(*names)(uint32_t),
		       uint32_t max, uint32_t *v)
{
	uint64_t n;
	uint32_t i;

	for (i = 0; i < max; i++) {
		if (names(i) && !strcmp(names(i), s)) {
			*v = i;
			return true;
		}
	}
	if (!parse_u64(s, &n) || n >= max)
		return false;
	*v = (uint32_t)n;
	return true;
}

static int num(struct loader *l, size_t line, char **f, enum col c,
	       uint64_t *v, uint64_t max)
{
	if (!f[c])
		return 0;
	if (!parse_u64(f[c], v) || *v > max)
		return bad(l, line, "%s: not a number: \"%s\"", col_names[c], f[c]);
	return 0;
}

static int need(struct loader *l, size_t line, char **f, enum col c)
{
	return f[c] ? 0 : bad(l, line, "%s is missing", col_names[c]);
}

static int dup_field(char **out, const char *s)
{
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

/* One record's fields (NULL: missing) to a struct rec. */
static int add_rec(struct loader *l, size_t line, char **f)
{
	static const char *const kinds[] = {
		[ST_EV_SYSCALL] = "syscall", [ST_EV_FORK] = "fork",
		[ST_EV_EXEC] = "exec", [ST_EV_EXIT] = "exit",
	};
	struct rec r = { .line = line };
	struct st_event *e = &r.ev;
	uint64_t v = 0;
	int ret;
	size_t k;

	if ((ret = need(l, line, f, C_EVENT)) || (ret = need(l, line, f, C_PROC_ID)) ||
	    (ret = need(l, line, f, C_TS_NS)))
		return ret;
	for (k = 0; k < 4 && strcmp(f[C_EVENT], kinds[k]); k++)
		;
	if (k == 4)
		return bad(l, line, "event: \"%s\" is none of syscall, fork, exec, exit",
			   f[C_EVENT]);
	e->kind = (enum st_ev_kind)k;
	if ((ret = num(l, line, f, C_SESSION_ID, &v, UINT32_MAX)))
		return ret;
	r.session_id = (uint32_t)v;
	if ((ret = num(l, line, f, C_PROC_ID, &e->proc_id, UINT64_MAX)) ||
	    (ret = num(l, line, f, C_SEQ, &e->seq, UINT64_MAX)) ||
	    (ret = num(l, line, f, C_TS_NS, &e->ts_ns, UINT64_MAX)) ||
	    (ret = num(l, line, f, C_DUR_NS, &e->dur_ns, UINT64_MAX)) ||
	    (ret = num(l, line, f, C_ADDR, &e->addr, UINT64_MAX)) ||
	    (ret = num(l, line, f, C_OFFSET, &r.offset, UINT64_MAX)) ||
	    (ret = num(l, line, f, C_CHILD_PROC_ID, &e->child_proc_id, UINT64_MAX)))
		return ret;
	v = 0;
	if ((ret = num(l, line, f, C_PID, &v, UINT32_MAX)))
		return ret;
	e->pid = (uint32_t)v;
	v = 0;
	if ((ret = num(l, line, f, C_TID, &v, UINT32_MAX)))
		return ret;
	e->tid = (uint32_t)v;
	v = 0;
	if ((ret = num(l, line, f, C_NR, &v, UINT32_MAX)))
		return ret;
	e->nr = (uint32_t)v;
	v = 0;
	if ((ret = num(l, line, f, C_CHILD_PID, &v, UINT32_MAX)))
		return ret;
	e->child_pid = (uint32_t)v;
	if (f[C_EXIT_CODE]) {
		if ((ret = num(l, line, f, C_EXIT_CODE, &v, UINT32_MAX)))
			return ret;
		r.has_exit_code = true;
		r.exit_code = (uint32_t)v;
	}
	if (f[C_EXIT_SIGNAL]) {
		if ((ret = num(l, line, f, C_EXIT_SIGNAL, &v, UINT32_MAX)))
			return ret;
		r.has_exit_signal = true;
		r.exit_signal = (uint32_t)v;
	}
	if (f[C_RET] && !parse_s64(f[C_RET], &e->ret))
		return bad(l, line, "ret: not a number: \"%s\"", f[C_RET]);
	if (f[C_ABI] && !parse_enum(f[C_ABI], st_abi_name, __SYSTRACE_ABI_MAX, &e->abi))
		return bad(l, line, "abi: unknown \"%s\"", f[C_ABI]);
	if (f[C_MAP]) {
		if (!parse_enum(f[C_MAP], st_map_name, __SYSTRACE_MAP_MAX, &r.map))
			return bad(l, line, "map: unknown \"%s\"", f[C_MAP]);
		r.has_map = e->kind == ST_EV_SYSCALL;
	}
	if (f[C_PHASE]) {
		if (!strcmp(f[C_PHASE], "loader"))
			e->phase = ST_PHASE_LOADER;
		else if (!strcmp(f[C_PHASE], "program"))
			e->phase = ST_PHASE_PROGRAM;
		else
			return bad(l, line, "phase: \"%s\" is neither loader nor program",
				   f[C_PHASE]);
	}
	if (f[C_EARLY]) {
		if (strcmp(f[C_EARLY], "0") && strcmp(f[C_EARLY], "1"))
			return bad(l, line, "early: \"%s\" is not 0 or 1", f[C_EARLY]);
		e->early = f[C_EARLY][0] == '1';
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct rec *n = realloc(l->recs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->recs = n;
		l->cap = cap;
	}
	if (dup_field(&r.comm, f[C_COMM]) || dup_field(&r.path, f[C_PATH]) ||
	    dup_field(&r.symbol, f[C_SYMBOL])) {
		free(r.comm);
		free(r.path);
		return -ENOMEM;
	}
	l->recs[l->n++] = r;
	return 0;
}

/* CSV (RFC 4180): the next record's fields, in place; *p moves past it. */
static int csv_record(struct loader *l, char **p, size_t *line, char **fields,
		      size_t max, size_t *n)
{
	char *s = *p, *o;
	size_t start = *line;

	*n = 0;
	for (;;) {
		if (*n == max)
			return bad(l, start, "more than %zu fields", max);
		fields[(*n)++] = o = s;
		if (*s == '"') {
			for (s++;; s++) {
				if (!*s)
					return bad(l, start, "a quoted field does not end");
				if (*s == '"' && s[1] == '"') {
					*o++ = '"';
					s++;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*line += *s == '\n';
					*o++ = *s;
				}
			}
			if (*s && *s != ',' && *s != '\n' && *s != '\r')
				return bad(l, start, "text after a quoted field");
		} else {
			while (*s && *s != ',' && *s != '\n' && *s != '\r') {
				if (*s == '"')
					return bad(l, start, "a quote inside an unquoted field");
				*o++ = *s++;
			}
		}
		if (*s == ',') {
			*o = '\0';
			s++;
			continue;
		}
		if (*s == '\r')
			*s++ = '\0';
		if (*s == '\n') {
			s++;
			(*line)++;
		}
		*o = '\0';
		*p = s;
		return 0;
	}
}

static int load_csv(struct loader *l, char *text)
{
	char *hdr[64], *fld[64], *f[C_NCOLS];
	int map[64];
	size_t nh, n, i, line = 1, at;
	char *p = text;
	int ret;

	ret = csv_record(l, &p, &line, hdr, 64, &nh);
	if (ret)
		return ret;
	for (i = 0; i < nh; i++) {
		int c;

		for (c = 0; c < C_NCOLS && strcmp(hdr[i], col_names[c]); c++)
			;
		map[i] = c;
	}
	while (*p) {
		at = line;
		ret = csv_record(l, &p, &line, fld, 64, &n);
		if (ret)
			return ret;
		if (n == 1 && !fld[0][0])
			continue;
		if (n != nh)
			return bad(l, at, "%zu fields, the header has %zu", n, nh);
		memset(f, 0, sizeof(f));
		for (i = 0; i < n; i++)
			if (map[i] < C_NCOLS && fld[i][0])
				f[map[i]] = fld[i];
		ret = add_rec(l, at, f);
		if (ret)
			return ret;
	}
	return 0;
}

static int load_jsonl(struct loader *l, char *text)
{
	char *p = text, *nl, *f[C_NCOLS], buf[C_NCOLS][32];
	size_t line = 0;
	int ret;

	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		json_error_t jerr;
		json_t *o, *v;
		int c;

		line++;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!p[strspn(p, " \t\r")])
			continue;
		o = json_loads(p, JSON_DECODE_ANY, &jerr);
		if (!o)
			return bad(l, line, "%s", jerr.text);
		if (!json_is_object(o)) {
			json_decref(o);
			return bad(l, line, "not a JSON object");
		}
		memset(f, 0, sizeof(f));
		for (c = 0; c < C_NCOLS; c++) {
			v = json_object_get(o, col_names[c]);
			if (json_is_string(v)) {
				f[c] = (char *)json_string_value(v);
			} else if (json_is_integer(v)) {
				snprintf(buf[c], sizeof(buf[c]), "%lld",
					 (long long)json_integer_value(v));
				f[c] = buf[c];
			} else if (json_is_boolean(v)) {
				f[c] = json_is_true(v) ? "1" : "0";
			} else if (v && !json_is_null(v)) {
				json_decref(o);
				return bad(l, line, "%s: not a string or an integer",
					   col_names[c]);
			}
			if (f[c] && !f[c][0] && c != C_COMM)
				f[c] = NULL;
		}
		ret = add_rec(l, line, f);
		json_decref(o);
		if (ret)
			return ret;
	}
	return 0;
}

static int rec_by_proc(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a;
	const struct rec *y = *(const struct rec *const *)b;

	if (x->ev.proc_id != y->ev.proc_id)
		return x->ev.proc_id < y->ev.proc_id ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int rec_by_site(const void *a, const void *b)
{
	const struct st_event *x = &(*(const struct rec *const *)a)->ev;
	const struct st_event *y = &(*(const struct rec *const *)b)->ev;
	int c = st_event_site_cmp(x, y);

	if (c)
		return c;
	return a < b ? -1 : a > b;
}

static int rec_by_site_key(const struct rec *a, const struct rec *b)
{
	const struct st_event *x = &a->ev, *y = &b->ev;

	if (x->proc_id != y->proc_id || x->addr != y->addr)
		return 1;
	return x->abi != y->abi || x->nr != y->nr;
}


/* The image of one proc_id: its events are r[0, n), in file order. */
static int make_proc(struct st_proc_row *p, struct rec **r, size_t n)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->id = r[0]->ev.proc_id;
	p->pid = p->tgid = r[0]->ev.pid;
	p->start_ns = r[0]->ev.ts_ns;
	for (i = 0; i < n; i++) {
		const struct rec *x = r[i];

		if (!p->comm[0] && x->comm)
			snprintf(p->comm, sizeof(p->comm), "%s", x->comm);
		if (x->ev.ts_ns < p->start_ns)
			p->start_ns = x->ev.ts_ns;
		if (x->ev.kind == ST_EV_SYSCALL) {
			p->syscalls++;
			p->errors += x->ev.ret < 0 && x->ev.ret >= -4095;
			p->syscall_ns += x->ev.dur_ns;
		} else if (x->ev.kind == ST_EV_EXEC && x->path && !p->exe) {
			p->exe = strdup(x->path);
			if (!p->exe)
				return -ENOMEM;
		} else if (x->ev.kind == ST_EV_EXIT) {
			p->has_end_ns = true;
			p->end_ns = x->ev.ts_ns;
			p->has_exit_code = x->has_exit_code;
			p->exit_code = x->exit_code;
			p->has_exit_signal = x->has_exit_signal;
			p->exit_signal = x->exit_signal;
			p->end = x->has_exit_signal ? SYSTRACE_END_SIGNALED :
				 x->has_exit_code ? SYSTRACE_END_EXITED :
				 SYSTRACE_END_DETACHED;
		}
	}
	return 0;
}

static struct st_proc_row *find(struct st_dump *d, uint64_t id)
{
	return (struct st_proc_row *)st_dump_find_proc(d, id);
}

/* Forks and execs: parents, prev_id, starts, ends by exec. */
static void link_procs(struct loader *l, struct st_dump *d)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		const struct st_event *e = &l->recs[i].ev;
		struct st_proc_row *p;

		if (e->kind == ST_EV_FORK && (p = find(d, e->child_proc_id))) {
			p->parent_id = e->proc_id;
			p->start_ns = e->ts_ns;
		}
		if (e->kind != ST_EV_EXEC || !(p = find(d, e->proc_id)))
			continue;
		p->start_ns = e->ts_ns;
		for (j = (size_t)(p - d->procs); j-- > 0;) {
			if (d->procs[j].pid != p->pid)
				continue;
			p->prev_id = d->procs[j].id;
			if (!d->procs[j].has_end_ns) {
				d->procs[j].has_end_ns = true;
				d->procs[j].end_ns = e->ts_ns;
				d->procs[j].end = SYSTRACE_END_EXEC;
			} else if (d->procs[j].end == SYSTRACE_END_DETACHED) {
				d->procs[j].end = SYSTRACE_END_EXEC;
			}
			break;
		}
	}
	/* An exec image keeps its parent; a root that execs counts from it. */
	for (i = 0; i < d->nprocs; i++) {
		struct st_proc_row *p = &d->procs[i], *prev;

		for (prev = find(d, p->prev_id); prev && !p->parent_id;
		     prev = find(d, prev->prev_id))
			p->parent_id = prev->parent_id;
		if (!p->parent_id && !p->prev_id)
			d->session.flags |= SYSTRACE_SESSION_F_ON_EXEC;
	}
}

static int make_procs(struct loader *l, struct st_dump *d, struct rec **idx)
{
	size_t i, j;
	int ret;

	for (i = 0; i < l->n; i++)
		idx[i] = &l->recs[i];
	qsort(idx, l->n, sizeof(*idx), rec_by_proc);
	d->procs = calloc(l->n ? l->n : 1, sizeof(*d->procs));
	if (!d->procs)
		return -ENOMEM;
	for (i = 0; i < l->n; i = j) {
		for (j = i; j < l->n && idx[j]->ev.proc_id == idx[i]->ev.proc_id; j++)
			;
		ret = make_proc(&d->procs[d->nprocs++], idx + i, j - i);
		if (ret)
			return ret;
	}
	link_procs(l, d);
	return 0;
}

static int make_site(struct st_dump *d, struct st_site_row *s, struct rec **r,
		     size_t n)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->proc_id = r[0]->ev.proc_id;
	s->addr = r[0]->ev.addr;
	s->abi = r[0]->ev.abi;
	s->nr = r[0]->ev.nr;
	s->map = r[0]->map;
	s->offset = r[0]->offset;
	s->first_ordinal = r[0]->ev.seq;
	s->first_ns = r[0]->ev.ts_ns;
	s->min_ns = UINT64_MAX;
	if (st_dump_str(d, r[0]->path, &s->path))
		return -ENOMEM;
	if (r[0]->symbol &&
	    st_dump_sym(d, &(struct st_sym){ .symbol = r[0]->symbol }, &s->sym))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct st_event *e = &r[i]->ev;

		s->calls++;
		s->errors += e->ret < 0 && e->ret >= -4095;
		s->total_ns += e->dur_ns;
		if (e->dur_ns < s->min_ns)
			s->min_ns = e->dur_ns;
		if (e->dur_ns > s->max_ns)
			s->max_ns = e->dur_ns;
		if (e->seq < s->first_ordinal)
			s->first_ordinal = e->seq;
		if (e->ts_ns < s->first_ns)
			s->first_ns = e->ts_ns;
	}
	return 0;
}

static int make_sites(struct loader *l, struct st_dump *d, struct rec **idx)
{
	size_t i, j, n = 0;
	int ret;

	for (i = 0; i < l->n; i++)
		if (l->recs[i].has_map)
			idx[n++] = &l->recs[i];
	qsort(idx, n, sizeof(*idx), rec_by_site);
	d->sites = calloc(n ? n : 1, sizeof(*d->sites));
	if (!d->sites)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && !rec_by_site_key(idx[i], idx[j]); j++)
			;
		ret = make_site(d, &d->sites[d->nsites++], idx + i, j - i);
		if (ret)
			return ret;
		d->symbolized |= d->sites[d->nsites - 1].sym != NULL;
	}
	return 0;
}

/* The events, pointing into d's rows, in file order. */
static int make_events(struct loader *l, struct st_log *log, struct st_dump *d)
{
	const struct st_site_row **keys;
	size_t i;
	int ret = 0;

	keys = malloc((d->nsites ? d->nsites : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < d->nsites; i++)
		keys[i] = &d->sites[i];
	qsort(keys, d->nsites, sizeof(*keys), st_site_ptr_cmp);
	for (i = 0; i < l->n && !ret; i++) {
		struct rec *r = &l->recs[i];
		struct st_site_row key = {
			.proc_id = r->ev.proc_id, .addr = r->ev.addr,
			.abi = r->ev.abi, .nr = r->ev.nr,
		};
		const struct st_site_row *kp = &key, **found;

		r->ev.proc = st_dump_find_proc(d, r->ev.proc_id);
		if (r->has_map && d->nsites) {
			found = bsearch(&kp, keys, d->nsites, sizeof(*keys),
					st_site_ptr_cmp);
			r->ev.site = found ? *found : NULL;
		}
		ret = st_log_push(log, &r->ev);
	}
	free(keys);
	return ret;
}

/* The session's totals, and each image's number of site rows. */
static void session_of(struct loader *l, struct st_dump *d)
{
	struct st_session_row *s = &d->session;
	size_t i;

	s->id = l->n ? l->recs[0].session_id : 0;
	s->state = SYSTRACE_STATE_FINISHED;
	s->procs = d->nprocs;
	s->sites = d->nsites;
	for (i = 0; i < d->nsites; i++) {
		struct st_proc_row *p = find(d, d->sites[i].proc_id);

		if (p)
			p->sites++;
	}
	for (i = 0; i < d->nprocs; i++) {
		s->syscalls += d->procs[i].syscalls;
		s->errors += d->procs[i].errors;
		s->syscall_ns += d->procs[i].syscall_ns;
	}
	for (i = 0; i < l->n; i++) {
		s->forks += l->recs[i].ev.kind == ST_EV_FORK;
		s->execs += l->recs[i].ev.kind == ST_EV_EXEC;
		s->exits += l->recs[i].ev.kind == ST_EV_EXIT;
	}
}

static char *read_all(const char *path, struct st_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;

	if (!f) {
		st_err_set(err, ST_ERR_LOCAL, errno, "open log", "%s", path);
		return NULL;
	}
	for (;;) {
		char *b = realloc(buf, len + 65536 + 1);

		if (!b) {
			free(buf);
			fclose(f);
			st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", path);
			return NULL;
		}
		buf = b;
		n = fread(buf + len, 1, 65536, f);
		len += n;
		if (n < 65536)
			break;
	}
	buf[len] = '\0';
	if (ferror(f) || strlen(buf) != len) {
		st_err_set(err, ST_ERR_LOCAL, ferror(f) ? EIO : EINVAL, "read log",
			   "%s: %s", path, ferror(f) ? "read error" : "a NUL byte: not a log");
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static bool is_jsonl(const char *text)
{
	return text[strspn(text, " \t\r\n")] == '{';
}

bool st_log_is_log(const char *path)
{
	char line[256] = "";
	FILE *f = fopen(path, "r");
	bool log;

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	/* A dump is one JSON document; a JSONL log starts with an event. */
	log = !strncmp(line, "session_id,", 11) || !strncmp(line, "\"session_id\",", 13) ||
	      (line[0] == '{' && strstr(line, "\"event\""));
	return log;
}

int st_log_load(const char *path, struct st_log *log, struct st_dump *d,
		struct st_err *err)
{
	struct loader l = { .path = path, .err = err };
	struct rec **idx = NULL;
	char *text = read_all(path, err);
	size_t i;
	int ret;

	memset(log, 0, sizeof(*log));
	memset(d, 0, sizeof(*d));
	if (!text)
		return -EIO;
	ret = is_jsonl(text) ? load_jsonl(&l, text) : load_csv(&l, text);
	if (ret)
		goto out;
	ret = -ENOMEM;
	idx = malloc((l.n ? l.n : 1) * sizeof(*idx));
	if (!idx)
		goto out;
	ret = make_procs(&l, d, idx);
	if (!ret)
		ret = make_sites(&l, d, idx);
	if (ret)
		goto out;
	st_dump_sort(d);
	session_of(&l, d);
	ret = make_events(&l, log, d);
out:
	if (ret == -ENOMEM)
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", path);
	if (ret) {
		st_log_free(log);
		st_dump_free(d);
	}
	for (i = 0; i < l.n; i++) {
		free(l.recs[i].comm);
		free(l.recs[i].path);
		free(l.recs[i].symbol);
	}
	free(l.recs);
	free(idx);
	free(text);
	return ret;
}
