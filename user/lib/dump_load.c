// SPDX-License-Identifier: GPL-2.0
/*
 * report --input FILE: a saved `dump --json` document back into the
 * struct st_dump the kernel's data would have given. Unknown keys are
 * ignored (new keys may be added to the schema); a missing required key
 * or a value of the wrong type rejects the document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "names.h"
#include "systrace.h"

struct ctx {
	char *why;
	size_t len;
	bool bad;
};

static void fail(struct ctx *c, const char *what, const char *key)
{
	if (!c->bad)
		snprintf(c->why, c->len, "%s: key \"%s\" is missing or of the wrong type",
			 what, key);
	c->bad = true;
}

static uint64_t get_u64(struct ctx *c, json_t *o, const char *what,
			const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		fail(c, what, key);
		return 0;
	}
	return (uint64_t)json_integer_value(v);
}

/* false for null or absent; a present non-integer is an error. */
static bool get_opt_u64(struct ctx *c, json_t *o, const char *what,
			const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return false;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		fail(c, what, key);
		return false;
	}
	*out = (uint64_t)json_integer_value(v);
	return true;
}

static const char *get_opt_str(struct ctx *c, json_t *o, const char *what,
			       const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		fail(c, what, key);
		return NULL;
	}
	return json_string_value(v);
}

static const char *get_str(struct ctx *c, json_t *o, const char *what,
			   const char *key)
{
	const char *s = get_opt_str(c, o, what, key);

	if (!s)
		fail(c, what, key);
	return s ? s : "";
}

static uint64_t get_hex(struct ctx *c, json_t *o, const char *what,
			const char *key, bool *has)
{
	const char *s = get_opt_str(c, o, what, key);
	char *end;
	uint64_t v;

	*has = false;
	if (!s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) || errno || *end) {
		fail(c, what, key);
		return 0;
	}
	*has = true;
	return v;
}

/* An enum from its name; a number stands for a value newer than this tool. */
static uint32_t get_enum(struct ctx *c, json_t *o, const char *what,
			 const char *key, const char *(*name)(uint32_t))
{
	const char *s = get_str(c, o, what, key);
	uint32_t i;
	char *end;
	unsigned long v;

	for (i = 0; i < 64; i++)
		if (name(i) && !strcmp(name(i), s))
			return i;
	v = strtoul(s, &end, 10);
	if (!*s || *end || v > UINT32_MAX)
		fail(c, what, key);
	return (uint32_t)v;
}

static const char *counters_name(uint32_t v)
{
	return st_counters_name(v);
}

static void copy_name(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

static void load_session(struct ctx *c, json_t *o, struct st_session_row *s)
{
	const char *w = "session", *str;
	uint64_t v;
	size_t i;

	s->id = (uint32_t)get_u64(c, o, w, "id");
	copy_name(s->name, sizeof(s->name), get_opt_str(c, o, w, "name"));
	s->root_pid = (uint32_t)get_u64(c, o, w, "root_pid");
	str = get_opt_str(c, o, w, "backend");	/* absent before the BPF backend */
	s->backend = str && !strcmp(str, "bpf") ? ST_BACKEND_BPF : ST_BACKEND_KMOD;
	s->state = get_enum(c, o, w, "state", st_state_name);
	s->flags = (uint32_t)get_u64(c, o, w, "flags");
	s->created_ns = get_u64(c, o, w, "created_ns");
	s->realtime_base_ns = get_u64(c, o, w, "realtime_base_ns");
	s->counters = get_enum(c, o, w, "counters", counters_name);
	str = get_opt_str(c, o, w, "counters_error");
	s->has_counters_error = str != NULL;
	copy_name(s->counters_error, sizeof(s->counters_error), str);
	s->live_tasks = (uint32_t)get_u64(c, o, w, "live_tasks");
	s->procs = get_u64(c, o, w, "processes");
	s->sites = get_u64(c, o, w, "sites");
	s->syscalls = get_u64(c, o, w, "syscalls");
	s->errors = get_u64(c, o, w, "errors");
	s->syscall_ns = get_u64(c, o, w, "syscall_ns");
	for (i = 0; i < st_session_nstats; i++) {
		const struct st_stat_desc *d = &st_session_stats[i];

		/* A counter added after the first schema may be missing. */
		if (d->attr < SYSTRACE_SESSION_A_MEM_BYTES)
			*st_stat_ptr(s, d) = get_u64(c, o, w, d->key);
		else
			get_opt_u64(c, o, w, d->key, st_stat_ptr(s, d));
	}
	s->mem_bytes = get_u64(c, o, w, "mem_bytes");
	s->proc_row_bytes = (uint32_t)get_u64(c, o, w, "proc_row_bytes");
	s->site_row_bytes = (uint32_t)get_u64(c, o, w, "site_row_bytes");
	if (get_opt_u64(c, o, w, "log_buffer", &v))
		s->log_buffer = (uint32_t)v;
	if (st_counters_column(s->counters))
		s->has_counter_value = get_opt_u64(c, o, w, st_counters_column(s->counters),
						   &s->counter_value);
}

static int load_proc(struct ctx *c, json_t *o, uint32_t counters,
		     struct st_proc_row *p)
{
	const char *w = "processes", *exe;
	json_t *core;
	uint64_t v;

	p->id = get_u64(c, o, w, "id");
	if (get_opt_u64(c, o, w, "parent_id", &v))
		p->parent_id = v;
	if (get_opt_u64(c, o, w, "prev_id", &v))
		p->prev_id = v;
	p->pid = (uint32_t)get_u64(c, o, w, "pid");
	p->tgid = (uint32_t)get_u64(c, o, w, "tgid");
	p->ppid = (uint32_t)get_u64(c, o, w, "ppid");
	copy_name(p->comm, sizeof(p->comm), get_str(c, o, w, "comm"));
	exe = get_opt_str(c, o, w, "exe");
	if (exe && !(p->exe = strdup(exe)))
		return -ENOMEM;
	p->start_ns = get_u64(c, o, w, "start_ns");
	p->has_end_ns = get_opt_u64(c, o, w, "end_ns", &p->end_ns);
	p->end = get_enum(c, o, w, "end", st_end_name);
	p->has_exit_code = get_opt_u64(c, o, w, "exit_code", &v);
	p->exit_code = (uint32_t)v;
	p->has_exit_signal = get_opt_u64(c, o, w, "exit_signal", &v);
	p->exit_signal = (uint32_t)v;
	core = json_object_get(o, "core_dumped");
	p->core_dumped = json_is_true(core);
	/* Absent in dumps of older versions: not attached. */
	p->attached = json_is_true(json_object_get(o, "attached"));
	p->threads = (uint32_t)get_u64(c, o, w, "threads");
	/* A column added after the first schema may be missing. */
#define ST_PROC_LOAD(name, field)					\
	if (SYSTRACE_PROC_A_##name <= SYSTRACE_PROC_A_SYSCALL_NS)	\
		p->field = get_u64(c, o, w, #field);			\
	else								\
		get_opt_u64(c, o, w, #field, &p->field);
	SYSTRACE_PROC_COUNTERS(ST_PROC_LOAD)
#undef ST_PROC_LOAD
	p->sites = (uint32_t)get_u64(c, o, w, "sites");
#define ST_ACCT_LOAD(name, field, column)				\
	if (SYSTRACE_PROC_A_##name <= SYSTRACE_PROC_A_MAJFLT)		\
		p->field = get_u64(c, o, w, #column);			\
	else								\
		get_opt_u64(c, o, w, #column, &p->field);
	SYSTRACE_PROC_ACCT(ST_ACCT_LOAD)
#undef ST_ACCT_LOAD
	if (st_counters_column(counters))
		p->has_counter_value = get_opt_u64(c, o, w, st_counters_column(counters),
						   &p->counter_value);
	return 0;
}

/* The symbolizer's keys, when the dump was symbolized where it was made. */
static int load_sym(struct ctx *c, json_t *o, struct st_dump *d,
		    struct st_site_row *s)
{
	const char *w = "sites";
	struct st_sym sym = { 0 };

	if (!json_object_get(o, "symbol"))
		return 0;
	if (s->map != SYSTRACE_MAP_FILE)
		return 0;
	sym.object = get_opt_str(c, o, w, "object");
	sym.symbol = get_opt_str(c, o, w, "symbol");
	sym.symbol_offset = get_hex(c, o, w, "symbol_offset", &sym.has_symbol_offset);
	sym.build_id = get_opt_str(c, o, w, "build_id");
	sym.error = get_opt_str(c, o, w, "symbol_error");
	return st_dump_sym(d, &sym, &s->sym);
}

static int load_site(struct ctx *c, json_t *o, struct st_dump *d,
		     struct st_site_row *s)
{
	const char *w = "sites", *path;
	bool has;
	uint64_t v;

	s->proc_id = get_u64(c, o, w, "proc_id");
	s->addr = get_hex(c, o, w, "addr", &has);
	if (!has)
		fail(c, w, "addr");
	s->abi = get_enum(c, o, w, "abi", st_abi_name);
	s->nr = (uint32_t)get_u64(c, o, w, "nr");
	s->map = get_enum(c, o, w, "map", st_map_name);
	path = get_opt_str(c, o, w, "path");
	if (st_dump_str(d, path, &s->path))
		return -ENOMEM;
	s->offset = get_hex(c, o, w, "offset", &has);
	/* A column added after the first schema may be missing. */
#define ST_SITE_LOAD(name, field, merge)				\
	if (SYSTRACE_SITE_A_##name <= SYSTRACE_SITE_A_MAX_NS)		\
		s->field = get_u64(c, o, w, #field);			\
	else								\
		get_opt_u64(c, o, w, #field, &s->field);
	SYSTRACE_SITE_COUNTERS(ST_SITE_LOAD)
#undef ST_SITE_LOAD
	s->first_ns = get_u64(c, o, w, "first_ns");
	s->first_ordinal = get_u64(c, o, w, "first_ordinal");
	s->has_file_id = get_opt_u64(c, o, w, "inode", &s->inode);
	if (get_opt_u64(c, o, w, "dev", &v))
		s->dev = (uint32_t)v;
	get_opt_u64(c, o, w, "mtime_ns", &s->mtime_ns);
	return load_sym(c, o, d, s);
}

int st_dump_load_json(json_t *doc, struct st_dump *d, char *why, size_t len)
{
	struct ctx c = { .why = why, .len = len };
	json_t *session, *procs, *sites, *row;
	size_t i;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	session = json_object_get(doc, "session");
	procs = json_object_get(doc, "processes");
	sites = json_object_get(doc, "sites");
	if (!json_is_object(doc) || get_u64(&c, doc, "document", "schema_version") != 1 ||
	    !json_is_object(session) || !json_is_array(procs) || !json_is_array(sites)) {
		if (!c.bad)
			snprintf(why, len, "not a `dump --json` document of schema_version 1 "
				 "(with session, processes, sites)");
		return -EINVAL;
	}
	load_session(&c, session, &d->session);
	d->procs = calloc(json_array_size(procs) + 1, sizeof(*d->procs));
	d->sites = calloc(json_array_size(sites) + 1, sizeof(*d->sites));
	if (!d->procs || !d->sites) {
		st_dump_free(d);
		return -ENOMEM;
	}
	json_array_foreach(procs, i, row) {
		if (!json_is_object(row)) {
			fail(&c, "processes", "(row)");
			break;
		}
		d->nprocs++;
		ret = load_proc(&c, row, d->session.counters, &d->procs[i]);
		if (ret || c.bad)
			break;
	}
	json_array_foreach(sites, i, row) {
		if (ret || c.bad)
			break;
		if (!json_is_object(row)) {
			fail(&c, "sites", "(row)");
			break;
		}
		d->nsites++;
		ret = load_site(&c, row, d, &d->sites[i]);
		if (json_object_get(row, "symbol"))
			d->symbolized = true;
	}
	if (!ret && c.bad)
		ret = -EINVAL;
	if (ret) {
		st_dump_free(d);
		return ret;
	}
	d->interrupted = json_is_true(json_object_get(json_object_get(doc, "totals"),
						      "interrupted"));
	st_dump_sort(d);
	return 0;
}

int st_dump_load(const char *path, struct st_dump *d, struct st_err *err)
{
	json_error_t jerr;
	char why[256];
	json_t *doc;
	FILE *f;
	int ret;

	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "--input", "%s", path);
		return ret;
	}
	doc = json_loadf(f, 0, &jerr);
	fclose(f);
	if (!doc) {
		st_err_set(err, ST_ERR_LOCAL, 0, "--input", "%s: line %d: %s",
			   path, jerr.line, jerr.text);
		return -EINVAL;
	}
	ret = st_dump_load_json(doc, d, why, sizeof(why));
	json_decref(doc);
	if (ret == -ENOMEM)
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "--input", "%s", path);
	else if (ret)
		st_err_set(err, ST_ERR_LOCAL, 0, "--input", "%s: %s", path, why);
	return ret;
}
