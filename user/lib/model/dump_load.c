// SPDX-License-Identifier: GPL-2.0
/*
 * report --input FILE: a saved `dump --json` document back into the
 * struct st_dump the kernel's data would have given. Unknown keys are
 * ignored (new keys may be added to the schema); a missing required key
 * or a value of the wrong type rejects the document.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "out/argv.h"
#include "model/names.h"
#include "base/err.h"
#include "model/dump_json.h"
#include "model/dump_row.h"
#include "out/json_str.h"

static const char *counters_name(uint32_t v)
{
	return st_counters_name(v);
}

static void copy_name(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

static void load_session(struct ctx *c, const struct row *o, struct st_session_row *s)
{
	const char *w = "session", *str;
	uint64_t v;
	size_t i;

	s->id = (uint32_t)dr_get_u64(c, o, w, "id");
	copy_name(s->name, sizeof(s->name), dr_get_opt_str(c, o, w, "name"));
	s->root_pid = (uint32_t)dr_get_u64(c, o, w, "root_pid");
	str = dr_get_opt_str(c, o, w, "backend");	/* absent before the BPF backend */
	s->backend = str && !strcmp(str, "bpf") ? ST_BACKEND_BPF : ST_BACKEND_KMOD;
	s->state = dr_get_enum(c, o, w, "state", st_state_name);
	s->flags = (uint32_t)dr_get_u64(c, o, w, "flags");
	s->created_ns = dr_get_u64(c, o, w, "created_ns");
	s->realtime_base_ns = dr_get_u64(c, o, w, "realtime_base_ns");
	s->counters = dr_get_enum(c, o, w, "counters", counters_name);
	str = dr_get_opt_str(c, o, w, "counters_error");
	s->has_counters_error = str != NULL;
	copy_name(s->counters_error, sizeof(s->counters_error), str);
	s->live_tasks = (uint32_t)dr_get_u64(c, o, w, "live_tasks");
	s->procs = dr_get_u64(c, o, w, "processes");
	s->sites = dr_get_u64(c, o, w, "sites");
	s->syscalls = dr_get_u64(c, o, w, "syscalls");
	s->errors = dr_get_u64(c, o, w, "errors");
	s->syscall_ns = dr_get_u64(c, o, w, "syscall_ns");
	for (i = 0; i < st_session_nstats; i++) {
		const struct st_stat_desc *d = &st_session_stats[i];

		/* A counter added after the first schema may be missing. */
		if (d->attr < SYSTRACE_SESSION_A_MEM_BYTES)
			*st_stat_ptr(s, d) = dr_get_u64(c, o, w, d->key);
		else
			dr_get_opt_u64(c, o, w, d->key, st_stat_ptr(s, d));
	}
	s->mem_bytes = dr_get_u64(c, o, w, "mem_bytes");
	s->proc_row_bytes = (uint32_t)dr_get_u64(c, o, w, "proc_row_bytes");
	s->site_row_bytes = (uint32_t)dr_get_u64(c, o, w, "site_row_bytes");
	if (dr_get_opt_u64(c, o, w, "log_buffer", &v))
		s->log_buffer = (uint32_t)v;
	if (st_counters_column(s->counters))
		s->has_counter_value = dr_get_opt_u64(c, o, w, st_counters_column(s->counters),
						   &s->counter_value);
}

/*
 * argv (an array of strings; absent or null: unknown, as in dumps of older
 * versions) and argv_truncated. Returns -ENOMEM, else 0 (c->bad set for a
 * bad value).
 */
static int get_argv(struct ctx *c, const struct row *o, const char *w,
		    struct st_proc_row *p)
{
	const struct field *v = dr_row_get(o, "argv");
	const char *why = NULL;
	int ret;

	if (!v || v->kind == V_NULL)
		return 0;
	if (v->kind == V_STRS) {
		/* parse_string refused \u0000: every NUL ends an argument. */
		if (v->i > SYSTRACE_ARGV_MAX) {
			dr_fail_why(c, w, "argv", "longer than 4096 bytes");
			return 0;
		}
		ret = st_argv_copy(v->s, (size_t)v->i, &p->argv, &p->argv_len,
				   &p->argv_truncated);
	} else if (v->kind == V_OTHER && o->tree) {
		ret = st_argv_from_json(json_object_get(o->tree, "argv"), &p->argv,
					&p->argv_len, &why);
	} else {
		ret = -EINVAL;
		why = "not an array of strings";
	}
	if (ret == -EINVAL) {
		dr_fail_why(c, w, "argv", why);
		return 0;
	}
	if (ret)
		return ret;
	p->argv_truncated = dr_get_true(o, "argv_truncated");
	return 0;
}

static int load_proc(struct ctx *c, const struct row *o, uint32_t counters,
		     struct st_proc_row *p)
{
	const char *w = "processes", *exe;
	uint64_t v;

	p->id = dr_get_u64(c, o, w, "id");
	if (dr_get_opt_u64(c, o, w, "parent_id", &v))
		p->parent_id = v;
	if (dr_get_opt_u64(c, o, w, "prev_id", &v))
		p->prev_id = v;
	p->pid = (uint32_t)dr_get_u64(c, o, w, "pid");
	p->tgid = (uint32_t)dr_get_u64(c, o, w, "tgid");
	p->ppid = (uint32_t)dr_get_u64(c, o, w, "ppid");
	copy_name(p->comm, sizeof(p->comm), dr_get_str(c, o, w, "comm"));
	exe = dr_get_opt_str(c, o, w, "exe");
	if (exe && !(p->exe = strdup(exe)))
		return -ENOMEM;
	if (get_argv(c, o, w, p))
		return -ENOMEM;
	p->start_ns = dr_get_u64(c, o, w, "start_ns");
	p->has_end_ns = dr_get_opt_u64(c, o, w, "end_ns", &p->end_ns);
	p->end = dr_get_enum(c, o, w, "end", st_end_name);
	p->has_exit_code = dr_get_opt_u64(c, o, w, "exit_code", &v);
	p->exit_code = (uint32_t)v;
	p->has_exit_signal = dr_get_opt_u64(c, o, w, "exit_signal", &v);
	p->exit_signal = (uint32_t)v;
	p->core_dumped = dr_get_true(o, "core_dumped");
	/* Absent in dumps of older versions: not attached. */
	p->attached = dr_get_true(o, "attached");
	p->threads = (uint32_t)dr_get_u64(c, o, w, "threads");
	/* A column added after the first schema may be missing. */
#define ST_PROC_LOAD(name, field)					\
	if (SYSTRACE_PROC_A_##name <= SYSTRACE_PROC_A_SYSCALL_NS)	\
		p->field = dr_get_u64(c, o, w, #field);			\
	else								\
		dr_get_opt_u64(c, o, w, #field, &p->field);
	SYSTRACE_PROC_COUNTERS(ST_PROC_LOAD)
#undef ST_PROC_LOAD
	p->sites = (uint32_t)dr_get_u64(c, o, w, "sites");
#define ST_ACCT_LOAD(name, field, column)				\
	if (SYSTRACE_PROC_A_##name <= SYSTRACE_PROC_A_MAJFLT)		\
		p->field = dr_get_u64(c, o, w, #column);			\
	else								\
		dr_get_opt_u64(c, o, w, #column, &p->field);
	SYSTRACE_PROC_ACCT(ST_ACCT_LOAD)
#undef ST_ACCT_LOAD
	if (st_counters_column(counters))
		p->has_counter_value = dr_get_opt_u64(c, o, w, st_counters_column(counters),
						   &p->counter_value);
	return 0;
}

/* The symbolizer's keys, when the dump was symbolized where it was made. */
static int load_sym(struct ctx *c, const struct row *o, struct st_dump *d,
		    struct st_site_row *s)
{
	const char *w = "sites";
	struct st_sym sym = { 0 };

	if (!dr_row_get(o, "symbol"))
		return 0;
	if (s->map != SYSTRACE_MAP_FILE)
		return 0;
	sym.object = dr_get_opt_str(c, o, w, "object");
	sym.symbol = dr_get_opt_str(c, o, w, "symbol");
	sym.symbol_offset = dr_get_hex(c, o, w, "symbol_offset", &sym.has_symbol_offset);
	sym.build_id = dr_get_opt_str(c, o, w, "build_id");
	sym.error = dr_get_opt_str(c, o, w, "symbol_error");
	return st_dump_sym(d, &sym, &s->sym);
}

/*
 * errnos ("ENOENT(2)=37 EACCES(13)=5", st_errnos_format's) and
 * errno_other: absent or null in a dump of a tracer that did not count
 * errnos (and of older versions). The counts and errno_other must add up
 * to the row's errors.
 */
static int load_errnos(struct ctx *c, const struct row *o, struct st_dump *d,
		       struct st_site_row *s)
{
	const char *w = "sites", *text;
	struct st_errnos e;
	uint64_t other;

	text = dr_get_opt_str(c, o, w, "errnos");
	if (!dr_get_opt_u64(c, o, w, "errno_other", &other)) {
		if (text)
			dr_fail_why(c, w, "errno_other", "errnos without errno_other");
		return 0;
	}
	if (!text) {
		dr_fail_why(c, w, "errnos", "errno_other without errnos");
		return 0;
	}
	if (st_errnos_parse(text, &e)) {
		dr_fail_why(c, w, "errnos", "not NAME(ERRNO)=COUNT ..., each errno (1..4095) once, at most 4");
		return 0;
	}
	e.other += other;
	if (st_errnos_total(&e) != s->errors) {
		dr_fail_why(c, w, "errno_other", "the errno counts and errno_other do not add up to errors");
		return 0;
	}
	return st_dump_errnos(d, &e, &s->errnos);
}

static int load_site(struct ctx *c, const struct row *o, struct st_dump *d,
		     struct st_site_row *s)
{
	const char *w = "sites", *path;
	bool has;
	uint64_t v;

	s->proc_id = dr_get_u64(c, o, w, "proc_id");
	s->addr = dr_get_hex(c, o, w, "addr", &has);
	if (!has)
		dr_fail(c, w, "addr");
	s->abi = dr_get_enum(c, o, w, "abi", st_abi_name);
	s->nr = (uint32_t)dr_get_u64(c, o, w, "nr");
	s->map = dr_get_enum(c, o, w, "map", st_map_name);
	path = dr_get_opt_str(c, o, w, "path");
	if (st_dump_str(d, path, &s->path))
		return -ENOMEM;
	s->offset = dr_get_hex(c, o, w, "offset", &has);
	/* A column added after the first schema may be missing. */
#define ST_SITE_LOAD(name, field, merge)				\
	if (SYSTRACE_SITE_A_##name <= SYSTRACE_SITE_A_MAX_NS)		\
		s->field = dr_get_u64(c, o, w, #field);			\
	else								\
		dr_get_opt_u64(c, o, w, #field, &s->field);
	SYSTRACE_SITE_COUNTERS(ST_SITE_LOAD)
#undef ST_SITE_LOAD
	s->first_ns = dr_get_u64(c, o, w, "first_ns");
	s->first_ordinal = dr_get_u64(c, o, w, "first_ordinal");
	s->has_file_id = dr_get_opt_u64(c, o, w, "inode", &s->inode);
	if (dr_get_opt_u64(c, o, w, "dev", &v))
		s->dev = (uint32_t)v;
	dr_get_opt_u64(c, o, w, "mtime_ns", &s->mtime_ns);
	if (load_errnos(c, o, d, s))
		return -ENOMEM;
	return load_sym(c, o, d, s);
}

/*
 * The rows as they are read, from a whole tree or row by row. The rows'
 * count is not known before the end: the arrays double as they fill (a
 * large realloc moves pages, it does not copy them).
 */
struct loader {
	struct ctx c;
	struct st_dump *d;
	size_t proc_cap, site_cap, path_cap;
	bool has_session;
	json_t *early;		/* process rows read before the session */
	json_t *early_lines;	/* the line each of them starts on */
	int line;		/* the line the row being read starts on */
	struct row row;		/* the row being read */
};

/* An error of a row (a missing key, a wrong type) names the row's line. */
static int at_line(struct ctx *ctx, int line, int ret)
{
	char why[256];

	if (ret == -EINVAL && strncmp(ctx->why, "line ", 5)) {
		snprintf(why, sizeof(why), "line %d: %s", line, ctx->why);
		snprintf(ctx->why, ctx->len, "%s", why);
	}
	return ret;
}

static void *grow(void *rows, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap : 1024;
	void *p;

	while (n >= want) {
		if (want > SIZE_MAX / 2 / size)
			return NULL;
		want *= 2;
	}
	if (rows && want == *cap)
		return rows;
	p = realloc(rows, want * size);
	if (p)
		*cap = want;
	return p;
}

static int convert_proc(struct loader *l, const struct row *row)
{
	struct st_dump *d = l->d;
	struct st_proc_row *p;
	int ret;

	p = grow(d->procs, &l->proc_cap, d->nprocs, sizeof(*d->procs));
	if (!p)
		return -ENOMEM;
	d->procs = p;
	p = &d->procs[d->nprocs++];
	memset(p, 0, sizeof(*p));
	ret = load_proc(&l->c, row, d->session.counters, p);
	return ret ? ret : l->c.bad ? -EINVAL : 0;
}

/* A process row needs the session's counters mode: before it, kept whole. */
static int add_proc(struct loader *l, struct row *row)
{
	json_t *tree;

	if (!row->object) {
		dr_fail(&l->c, "processes", "(row)");
		return -EINVAL;
	}
	if (l->has_session)
		return convert_proc(l, row);
	if (!l->early)
		l->early = json_array();
	if (!l->early_lines)
		l->early_lines = json_array();
	tree = row->tree ? json_incref(row->tree) : dr_row_to_json(row);
	if (!l->early || json_array_append_new(l->early, tree) ||
	    !l->early_lines ||
	    json_array_append_new(l->early_lines, json_integer(l->line)))
		return -ENOMEM;
	return 0;
}

static int add_path(struct loader *l, const struct st_site_row *s, uint32_t kind,
		    const char *path, const char *res, json_t *count)
{
	struct st_dump *d = l->d;
	struct st_path_row *p;
	int err = st_path_result_parse(res);

	if (err < 0 || !json_is_integer(count) || json_integer_value(count) < 0) {
		dr_fail_why(&l->c, "sites", "paths",
			    "counts: not {\"ok\" or an errno's name or number: a count, ...}");
		return -EINVAL;
	}
	p = grow(d->paths, &l->path_cap, d->npaths, sizeof(*d->paths));
	if (!p)
		return -ENOMEM;
	d->paths = p;
	p = &d->paths[d->npaths++];
	*p = (struct st_path_row){ .proc_id = s->proc_id, .addr = s->addr, .abi = s->abi,
				   .nr = s->nr, .err = (uint32_t)err, .kind = kind,
				   .count = (uint64_t)json_integer_value(count) };
	return kind == ST_PATH_OK ? st_dump_str(d, path, &p->path) : 0;
}

/*
 * A site row's "paths" (dump --sites --json of a session that counts
 * them): [{"path":...,"kind":"ok"|"long"|"unreadable","counts":{...}}],
 * back into path rows of the site.
 */
static int load_site_paths(struct loader *l, const struct row *o,
			   const struct st_site_row *s)
{
	json_t *arr = o->tree ? json_object_get(o->tree, "paths") : NULL;
	json_t *e, *counts, *count;
	const char *path, *res;
	size_t i;
	int kind, ret = 0;

	const struct field *f = dr_row_get(o, "paths");

	if (!f)
		return 0;
	if (!o->tree && f->kind == V_STRS && !f->i)
		return 0;	/* [], parsed in place as an empty array of strings */
	if (!json_is_array(arr)) {
		dr_fail_why(&l->c, "sites", "paths", "not an array");
		return -EINVAL;
	}
	json_array_foreach(arr, i, e) {
		path = json_string_value(json_object_get(e, "path"));
		kind = st_path_kind_parse(json_string_value(json_object_get(e, "kind")) ?: "");
		counts = json_object_get(e, "counts");
		if (!path || kind < 0 || !json_is_object(counts)) {
			dr_fail_why(&l->c, "sites", "paths",
				    "a row is not {\"path\":...,\"kind\":\"ok\"|\"long\"|\"unreadable\",\"counts\":{...}}");
			return -EINVAL;
		}
		json_object_foreach(counts, res, count) {
			ret = add_path(l, s, (uint32_t)kind, path, res, count);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* "paths_counted": {"mode":"errors"|"all"|"off","dropped":N}, or absent. */
static void load_paths_counted(struct loader *l, json_t *v)
{
	json_t *dropped = json_object_get(v, "dropped");
	int mode = st_paths_parse(json_string_value(json_object_get(v, "mode")) ?: "");

	if (!json_is_object(v) || mode < 0 || !json_is_integer(dropped) ||
	    json_integer_value(dropped) < 0) {
		dr_fail_why(&l->c, "document", "paths_counted",
			    "not {\"mode\":\"errors\"|\"all\"|\"off\",\"dropped\":N}");
		return;
	}
	l->d->has_paths = true;
	l->d->paths_mode = (uint32_t)mode;
	l->d->dropped_paths = (uint64_t)json_integer_value(dropped);
}

static int add_site(struct loader *l, struct row *row)
{
	struct st_dump *d = l->d;
	struct st_site_row *s;
	int ret;

	if (!row->object) {
		dr_fail(&l->c, "sites", "(row)");
		return -EINVAL;
	}
	s = grow(d->sites, &l->site_cap, d->nsites, sizeof(*d->sites));
	if (!s)
		return -ENOMEM;
	d->sites = s;
	s = &d->sites[d->nsites++];
	memset(s, 0, sizeof(*s));
	ret = load_site(&l->c, row, d, s);
	if (!ret && !l->c.bad)
		ret = load_site_paths(l, row, s);
	if (dr_row_get(row, "symbol"))
		d->symbolized = true;
	return ret ? ret : l->c.bad ? -EINVAL : 0;
}

static int add_session(struct loader *l, const struct row *session)
{
	struct row early = { 0 };
	json_t *row;
	size_t i;
	int ret = 0;

	load_session(&l->c, session, &l->d->session);
	if (l->c.bad)
		return -EINVAL;
	l->has_session = true;
	json_array_foreach(l->early, i, row) {
		ret = dr_row_from_json(&early, row) ? convert_proc(l, &early) : -ENOMEM;
		if (ret) {
			at_line(&l->c, (int)json_integer_value(
					json_array_get(l->early_lines, i)), ret);
			break;
		}
	}
	dr_row_free(&early);
	json_decref(l->early);
	json_decref(l->early_lines);
	l->early = NULL;
	l->early_lines = NULL;
	return ret;
}

/*
 * A process image's id is unique in a session, and every lookup of a row
 * by its id counts on that: two rows of one id are refused, not resolved.
 */
static int unique_ids(struct loader *l)
{
	const struct st_dump *d = l->d;
	size_t i;

	for (i = 1; i < d->nprocs; i++)
		if (d->procs[i].id == d->procs[i - 1].id) {
			snprintf(l->c.why, l->c.len, "processes: two rows of id %" PRIu64
				 " (an id is one process image's)", d->procs[i].id);
			l->c.bad = true;
			return -EINVAL;
		}
	return 0;
}

/* Both arrays allocated even when empty, then sorted; ids checked. */
static int finish(struct loader *l, json_t *totals)
{
	struct st_dump *d = l->d;
	void *p;

	p = grow(d->procs, &l->proc_cap, d->nprocs, sizeof(*d->procs));
	if (!p)
		return -ENOMEM;
	d->procs = p;
	p = grow(d->sites, &l->site_cap, d->nsites, sizeof(*d->sites));
	if (!p)
		return -ENOMEM;
	d->sites = p;
	d->interrupted = json_is_true(json_object_get(totals, "interrupted"));
	st_dump_sort(d);
	return unique_ids(l);
}

static void not_a_dump(struct ctx *c)
{
	if (!c->bad)
		snprintf(c->why, c->len, "not a `dump --json` document of schema_version 1 "
			 "(with session, processes, sites)");
	c->bad = true;
}

/* A row of a whole tree handed to add. */
static int add_json(struct loader *l, json_t *o,
		    int (*add)(struct loader *, struct row *))
{
	return dr_row_from_json(&l->row, o) ? add(l, &l->row) : -ENOMEM;
}

int st_dump_load_json(json_t *doc, struct st_dump *d, char *why, size_t len)
{
	struct loader l = { .c = { .why = why, .len = len }, .d = d };
	json_t *session, *procs, *sites, *row;
	size_t i;
	int ret;

	memset(d, 0, sizeof(*d));
	session = json_object_get(doc, "session");
	procs = json_object_get(doc, "processes");
	sites = json_object_get(doc, "sites");
	if (!json_is_object(doc) || !dr_row_from_json(&l.row, doc) ||
	    dr_get_u64(&l.c, &l.row, "document", "schema_version") != 1 ||
	    !json_is_object(session) || !json_is_array(procs) || !json_is_array(sites)) {
		dr_row_free(&l.row);
		not_a_dump(&l.c);
		return -EINVAL;
	}
	ret = dr_row_from_json(&l.row, session) ? add_session(&l, &l.row) : -ENOMEM;
	json_array_foreach(procs, i, row) {
		if (ret)
			break;
		ret = add_json(&l, row, add_proc);
	}
	json_array_foreach(sites, i, row) {
		if (ret)
			break;
		ret = add_json(&l, row, add_site);
	}
	if (!ret && json_object_get(doc, "paths_counted")) {
		load_paths_counted(&l, json_object_get(doc, "paths_counted"));
		ret = l.c.bad ? -EINVAL : 0;
	}
	if (!ret)
		ret = finish(&l, json_object_get(doc, "totals"));
	if (!ret && json_is_string(json_object_get(doc, "selection")))
		d->selected = true;
	dr_row_free(&l.row);
	json_decref(l.early);
	json_decref(l.early_lines);
	if (ret)
		st_dump_free(d);
	return ret;
}

/*
 * The document read value by value: the top-level object by a small
 * scanner, each of its values and each row of its arrays cut out of the
 * file as text, then parsed alone by jansson (which checks it and gives
 * the error's line within it). Memory holds one row's tree at a time, not
 * the whole document's.
 */
struct src {
	FILE *f;
	char *buf;		/* buf[pos, end) is read and not yet scanned */
	size_t pos, end, cap;
	size_t mark;		/* where the value being scanned starts, or NO_MARK */
	int line;		/* of buf[pos] */
	int err;		/* errno of a failed read */
	struct loader *l;
};

#define NO_MARK SIZE_MAX
#define SRC_CHUNK (1 << 20)

/* More of the file, keeping the value being scanned; false at its end. */
static bool src_fill(struct src *s)
{
	size_t keep = s->mark != NO_MARK ? s->mark : s->pos, n;
	char *p;

	if (keep)
		memmove(s->buf, s->buf + keep, s->end - keep);
	s->pos -= keep;
	s->end -= keep;
	if (s->mark != NO_MARK)
		s->mark = 0;
	if (s->end == s->cap) {
		p = realloc(s->buf, s->cap ? 2 * s->cap : SRC_CHUNK);
		if (!p) {
			s->err = ENOMEM;
			return false;
		}
		s->buf = p;
		s->cap = s->cap ? 2 * s->cap : SRC_CHUNK;
	}
	n = fread(s->buf + s->end, 1, s->cap - s->end, s->f);
	if (!n && ferror(s->f) && !s->err)
		s->err = errno ? errno : EIO;
	s->end += n;
	return n;
}

static inline int src_get(struct src *s)
{
	int c;

	if (s->pos == s->end && !src_fill(s))
		return EOF;
	c = (unsigned char)s->buf[s->pos++];
	if (c == '\n')
		s->line++;
	return c;
}

static void src_unget(struct src *s, int c)
{
	if (c == EOF)
		return;
	s->pos--;
	if (c == '\n')
		s->line--;
}

static int src_skip_space(struct src *s)
{
	int c;

	do
		c = src_get(s);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	return c;
}

/* A syntax error of the scanner's own, worded as jansson words its. */
static int syntax(struct src *s, int c, const char *what)
{
	struct ctx *ctx = &s->l->c;

	if (c == EOF)
		snprintf(ctx->why, ctx->len, "line %d: %s near end of file", s->line, what);
	else
		snprintf(ctx->why, ctx->len, "line %d: %s near '%c'", s->line, what, c);
	ctx->bad = true;
	return -EINVAL;
}

static bool ends_scalar(int c)
{
	switch (c) {
	case ',': case ':': case '{': case '}': case '[': case ']': case '"':
	case ' ': case '\t': case '\n': case '\r': case EOF:
		return true;
	}
	return false;
}

/* The characters the scanners stop at, in a string and inside brackets. */
static const bool string_stop[256] = { ['"'] = true, ['\\'] = true, ['\n'] = true };
static const bool nested_stop[256] = {
	['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true, ['\n'] = true,
};

/* Past the characters from pos the scanner has nothing to do with. */
static void src_skip(struct src *s, const bool *stop)
{
	const char *p = s->buf + s->pos, *e = s->buf + s->end;

	while (p < e && !stop[(unsigned char)*p])
		p++;
	s->pos = (size_t)(p - s->buf);
}

/* The rest of a string whose opening quote was read. */
static void scan_string(struct src *s)
{
	int c;

	for (;;) {
		src_skip(s, string_stop);
		c = src_get(s);
		if (c == EOF || c == '"')
			return;
		if (c == '\\' && src_get(s) == EOF)
			return;
	}
}

/*
 * One value, from its first character c (just read) to its last: the
 * closing bracket or quote, or the character before a scalar's delimiter;
 * it is then buf[mark, pos). Brackets are only counted; jansson checks
 * that they match.
 */
static void scan_value(struct src *s, int c)
{
	int depth = 0;

	s->mark = s->pos - (c != EOF);
	for (; c != EOF; c = src_get(s)) {
		if (depth == 0 && s->pos - 1 > s->mark && ends_scalar(c)) {
			src_unget(s, c);
			break;
		}
		if (c == '"') {
			scan_string(s);
			if (depth == 0)
				break;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth <= 0) {
			break;
		}
		if (depth > 0)
			src_skip(s, nested_stop);
	}
}

/* The value just scanned, from line, parsed; NULL with why set on an error. */
static json_t *parse_value(struct src *s, int line, size_t flags, int *ret)
{
	struct ctx *ctx = &s->l->c;
	json_error_t jerr;
	json_t *v;

	v = json_loadb(s->buf + s->mark, s->pos - s->mark, flags, &jerr);
	s->mark = NO_MARK;
	*ret = 0;
	if (s->err) {
		*ret = -s->err;
		json_decref(v);
		return NULL;
	}
	if (!v) {
		if (jerr.line > 0)
			line += jerr.line - 1;
		snprintf(ctx->why, ctx->len, "line %d: %s", line, jerr.text);
		ctx->bad = true;
		*ret = -EINVAL;
	}
	return v;
}

/* The value that starts with c, parsed; NULL with why set on an error. */
static json_t *read_value(struct src *s, int c, size_t flags, int *ret)
{
	int line = s->line;

	scan_value(s, c);
	return parse_value(s, line, flags, ret);
}

/*
 * The value that starts with c as the loader's row: a flat object parsed
 * in place, anything else by jansson. false with why set on an error.
 */
static bool read_row(struct src *s, int c, int *ret)
{
	struct row *r = &s->l->row;
	int line = s->line;
	json_t *v;
	bool ok;

	scan_value(s, c);
	if (!s->err && dr_row_parse(r, s->buf + s->mark, s->pos - s->mark)) {
		s->mark = NO_MARK;
		*ret = 0;
		return true;
	}
	v = parse_value(s, line, JSON_DECODE_ANY, ret);
	if (!v)
		return false;
	ok = dr_row_from_json(r, v);
	json_decref(v);
	if (!ok)
		*ret = -ENOMEM;
	return ok;
}

/* A row's error of a missing key or a wrong type, with the row's line. */
static int row_error(struct src *s, int line, int ret)
{
	return at_line(&s->l->c, line, ret);
}

/* The rows of an array whose '[' was read, each handed to add (or dropped). */
static int read_rows(struct src *s, int (*add)(struct loader *, struct row *))
{
	int c, ret, line;

	c = src_skip_space(s);
	if (c == ']')
		return 0;
	for (;;) {
		line = s->line;
		s->l->line = line;
		if (!read_row(s, c, &ret))
			return ret;
		ret = add ? add(s->l, &s->l->row) : 0;
		if (ret)
			return row_error(s, line, ret);
		c = src_skip_space(s);
		if (c == ']')
			return 0;
		if (c != ',')
			return syntax(s, c, "']' expected");
		c = src_skip_space(s);
	}
}

enum top_key {
	K_OTHER, K_SCHEMA, K_SESSION, K_TOTALS, K_PROCS, K_SITES, K_SELECTION,
	K_PATHS_COUNTED, K_N
};

static enum top_key top_key(const char *key)
{
	static const char *const names[K_N] = {
		[K_SCHEMA] = "schema_version", [K_SESSION] = "session",
		[K_TOTALS] = "totals", [K_PROCS] = "processes", [K_SITES] = "sites",
		[K_SELECTION] = "selection", [K_PATHS_COUNTED] = "paths_counted",
	};
	int k;

	for (k = K_SCHEMA; k < K_N; k++)
		if (!strcmp(key, names[k]))
			return k;
	return K_OTHER;
}

struct top {
	bool seen[K_N];
	json_t *totals;
};

/* One top-level member whose key was read; c is its value's first character. */
static int read_member(struct src *s, struct top *t, const char *key, int c)
{
	enum top_key k = top_key(key);
	struct loader *l = s->l;
	json_t *v;
	int ret, line = s->line;

	if (t->seen[k] && k != K_OTHER) {
		snprintf(l->c.why, l->c.len, "line %d: key \"%s\" given twice", line, key);
		l->c.bad = true;
		return -EINVAL;
	}
	t->seen[k] = true;
	if (c == '[' && (k == K_PROCS || k == K_SITES || k == K_OTHER))
		return read_rows(s, k == K_PROCS ? add_proc : k == K_SITES ? add_site : NULL);
	if (k == K_SESSION) {
		if (!read_row(s, c, &ret))
			return ret;
		if (l->row.object)
			return row_error(s, line, add_session(l, &l->row));
		not_a_dump(&l->c);
		return -EINVAL;
	}
	v = read_value(s, c, JSON_DECODE_ANY, &ret);
	if (!v)
		return ret;
	ret = 0;
	switch (k) {
	case K_SCHEMA:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			dr_fail(&l->c, "document", "schema_version");
		else if (json_integer_value(v) != 1)
			not_a_dump(&l->c);
		break;
	case K_TOTALS:
		t->totals = json_incref(v);
		break;
	case K_SELECTION:
		/* What left rows out when it was saved: its totals do not add up. */
		if (json_is_string(v))
			l->d->selected = true;
		else if (!json_is_null(v))
			dr_fail(&l->c, "document", "selection");
		break;
	case K_PATHS_COUNTED:
		load_paths_counted(l, v);
		break;
	case K_PROCS:
	case K_SITES:
		not_a_dump(&l->c);
		break;
	default:
		break;
	}
	json_decref(v);
	return ret ? ret : l->c.bad ? -EINVAL : 0;
}

/* The members of the top-level object, in any order, then the end of file. */
static int read_doc(struct src *s, struct top *t)
{
	struct loader *l = s->l;
	json_t *key, *v;
	int c, ret;

	c = src_skip_space(s);
	if (c != '{') {
		/* jansson's own message when not JSON; JSON but no object is no dump */
		v = read_value(s, c, 0, &ret);
		json_decref(v);
		if (v)
			not_a_dump(&l->c);
		return v ? -EINVAL : ret;
	}
	c = src_skip_space(s);
	while (c != '}') {
		if (c != '"')
			return syntax(s, c, "string or '}' expected");
		key = read_value(s, c, JSON_DECODE_ANY, &ret);
		if (!key)
			return ret;
		c = src_skip_space(s);
		if (c != ':') {
			json_decref(key);
			return syntax(s, c, "':' expected");
		}
		ret = read_member(s, t, json_string_value(key), src_skip_space(s));
		json_decref(key);
		if (ret)
			return ret;
		c = src_skip_space(s);
		if (c == ',') {
			c = src_skip_space(s);
			if (c != '"')	/* no member after a comma */
				return syntax(s, c, "string or '}' expected");
		} else if (c != '}') {
			return syntax(s, c, "'}' expected");
		}
	}
	c = src_skip_space(s);
	if (c != EOF)
		return syntax(s, c, "end of file expected");
	if (!t->seen[K_SCHEMA])
		dr_fail(&l->c, "document", "schema_version");
	if (!l->has_session || !t->seen[K_PROCS] || !t->seen[K_SITES])
		not_a_dump(&l->c);
	return l->c.bad ? -EINVAL : finish(l, t->totals);
}

int st_dump_load(const char *path, struct st_dump *d, struct st_err *err)
{
	char why[256];
	struct loader l = { .c = { .why = why, .len = sizeof(why) }, .d = d };
	struct src s = { .line = 1, .mark = NO_MARK, .l = &l };
	struct top t = { 0 };
	int ret;

	s.f = fopen(path, "r");
	if (!s.f) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "--input", "%s", path);
		return ret;
	}
	memset(d, 0, sizeof(*d));
	ret = read_doc(&s, &t);
	if (s.err)
		ret = -s.err;
	fclose(s.f);
	free(s.buf);
	json_decref(l.early);
	json_decref(l.early_lines);
	json_decref(t.totals);
	dr_row_free(&l.row);
	if (ret)
		st_dump_free(d);
	if (ret == -EINVAL)
		st_err_set(err, ST_ERR_LOCAL, 0, "--input", "%s: %s", path, why);
	else if (ret)
		st_err_set(err, ST_ERR_LOCAL, -ret, "--input", "%s", path);
	return ret;
}
