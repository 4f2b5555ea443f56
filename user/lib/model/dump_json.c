// SPDX-License-Identifier: GPL-2.0
/*
 * The dump's JSON document (dump_json.h). The dump is one document, written row by row so that its
 * memory does not grow with the table: each row is a jansson object that is
 * printed and freed before the next one is built.
 */
#include <stdlib.h>
#include <string.h>
#include "model/dump_json.h"
#include "model/check.h"
#include "model/names.h"
#include "out/json_str.h"

#define JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

static json_t *j_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

/* instructions, cycles, task_clock_ns: the one matching the mode is set. */
static void set_counter_keys(json_t *o, uint32_t mode, bool has, uint64_t value)
{
	static const uint32_t modes[] = {
		SYSTRACE_COUNTERS_INSTRUCTIONS,
		SYSTRACE_COUNTERS_CYCLES,
		SYSTRACE_COUNTERS_TASK_CLOCK,
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		set(o, st_counters_column(modes[i]),
		    has && mode == modes[i] ? j_u64(value) : json_null());
}

/* The session's columns (columns.c) as one object. */
json_t *st_json_session(const struct st_session_row *s)
{
	const struct st_row row = { .session = s };
	const struct st_column *cols;
	json_t *o = json_object();
	struct st_val v;
	size_t i, n;

	if (!o)
		return NULL;
	cols = st_session_columns(&n);
	for (i = 0; i < n; i++) {
		memset(&v, 0, sizeof(v));
		cols[i].get(&row, &v);
		set(o, cols[i].name, st_cell_json(&v.c));
	}
	return o;
}

json_t *st_json_status(const struct st_status *st, const struct st_session_row *ss,
		       size_t n)
{
	json_t *o = json_object(), *params = json_object(), *arr = json_array();
	size_t i;

	if (!o || !params || !arr) {
		json_decref(o);
		json_decref(params);
		json_decref(arr);
		return NULL;
	}
	for (i = 0; i < st_nparams; i++) {
		const struct st_param_desc *d = &st_params_desc[i];
		uint64_t v = st_param_get(&st->params, d);

		set(params, d->key,
		    d->type == ST_PARAM_BOOL ? json_boolean(v) : j_u64(v));
	}
	for (i = 0; i < n; i++)
		json_array_append_new(arr, st_json_session(&ss[i]));

	set(o, "schema_version", j_u64(ST_SCHEMA_VERSION));
	set(o, "version", st_json_string(st->version));
	set(o, "abi_version", j_u64(st->abi_version));
	set(o, "params", params);
	set(o, "sessions_live", j_u64(st->sessions_live));
	set(o, "mem_bytes", j_u64(st->mem_bytes));
	set(o, "spare_bytes", j_u64(st->spare_bytes));
	set(o, "probes_active", json_boolean(st->probes_active));
	set(o, "sessions", arr);
	return o;
}

json_t *st_json_totals(const struct st_dump *d, bool live)
{
	json_t *o = json_object();
	struct st_totals t;

	if (!o)
		return NULL;
	st_totals_compute(d, &t);
	set(o, "processes", j_u64(t.procs));
	set(o, "sites", j_u64(t.sites));
	set(o, "syscalls", j_u64(t.syscalls));
	set(o, "errors", j_u64(t.errors));
	set(o, "syscall_ns", j_u64(t.syscall_ns));
	set_counter_keys(o, d->session.counters, t.has_counter_value,
			 t.counter_value);
	set(o, "consistent", json_boolean(st_check_totals(d, NULL) == 0));
	set(o, "live", json_boolean(live));
	set(o, "interrupted", json_boolean(d->interrupted));
	return o;
}

/* Prints and frees obj. */
static int put(FILE *f, json_t *obj)
{
	int ret;

	if (!obj)
		return -1;
	ret = json_dumpf(obj, f, JSON_FLAGS | JSON_ENCODE_ANY);
	json_decref(obj);
	return ret;
}

static int put_table(FILE *f, const struct st_view *v, enum st_table_kind kind)
{
	struct st_dump_table dt;

	st_dump_table(&dt, v, kind, v->dump->symbolized);
	fprintf(f, ",\n\"%s\":", dt.t.name);
	return st_table_json(f, &dt.t, JSON_FLAGS);
}

/*
 * Site s's paths, from idx (the dump's path rows by st_path_site_cmp):
 * [{"path":...,"kind":...,"counts":{"ok":N,"ENOENT":N,...}}, ...], one
 * object per path (kind and bytes), its results by errno, ok first.
 */
static json_t *site_paths(const struct st_path_row *const *idx, size_t n,
			  const struct st_site_row *s)
{
	json_t *arr = json_array(), *counts = NULL;
	size_t lo = 0, hi = n, mid;
	char buf[16];

	if (!arr)
		return NULL;
	while (lo < hi) {	/* the first row of the site, or none */
		mid = lo + (hi - lo) / 2;
		if (st_path_site_key(idx[mid], s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && !st_path_site_key(idx[lo], s); lo++) {
		const struct st_path_row *p = idx[lo], *prev = counts ? idx[lo - 1] : NULL;
		const char *res = st_path_result(p->err, buf, sizeof(buf));
		json_t *o;

		if (!prev || prev->kind != p->kind ||
		    strcmp(prev->path ? prev->path : "", p->path ? p->path : "")) {
			counts = json_object();
			o = json_object();
			if (!counts || !o || json_array_append_new(arr, o)) {
				json_decref(counts);
				json_decref(o);
				json_decref(arr);
				return NULL;
			}
			set(o, "path", st_json_string(st_path_shown(p)));
			set(o, "kind", json_string(st_path_kind_name(p->kind)));
			json_object_set_new(o, "counts", counts);
		}
		set(counts, res, j_u64(p->count +
				       json_integer_value(json_object_get(counts, res))));
	}
	return arr;
}

/* The sites array, each row with its paths: one jansson object per row. */
static int put_sites_paths(FILE *f, const struct st_view *v)
{
	const struct st_dump *d = v->dump;
	const struct st_path_row **idx;
	struct st_dump_table dt;
	struct st_val *vals;
	size_t r, i;
	int ret = 0;

	st_dump_table(&dt, v, ST_TABLE_SITES, d->symbolized);
	idx = calloc(d->npaths ? d->npaths : 1, sizeof(*idx));
	vals = calloc(dt.t.ncols ? dt.t.ncols : 1, sizeof(*vals));
	if (!idx || !vals) {
		free(idx);
		free(vals);
		return -1;
	}
	for (i = 0; i < d->npaths; i++)
		idx[i] = &d->paths[i];
	st_qsort(idx, d->npaths, sizeof(*idx), st_path_site_cmp);
	fprintf(f, ",\n\"%s\":[", dt.t.name);
	for (r = 0; r < dt.t.nrows && !ret; r++) {
		struct st_row row;
		json_t *o;

		memset(vals, 0, dt.t.ncols * sizeof(*vals));
		dt.t.row(&dt.t, r, vals);
		o = st_table_json_row(&dt.t, vals);
		st_view_row(v, ST_TABLE_SITES, r, &row);
		if (o)
			json_object_set_new(o, "paths", site_paths(idx, d->npaths, row.site));
		fputs(r ? ",\n" : "\n", f);
		ret = put(f, o);
	}
	if (!ret)
		fputs(dt.t.nrows ? "\n]" : "]", f);
	free(idx);
	free(vals);
	return ret;
}

/* "paths_counted": which calls' paths the session counts, and the drops. */
static json_t *paths_counted(const struct st_dump *d)
{
	return json_pack("{sssI}", "mode", st_paths_name(d->paths_mode) ?
			 st_paths_name(d->paths_mode) : "errors",
			 "dropped", (json_int_t)d->dropped_paths);
}

/*
 * {"schema_version":1,"session":{...},"totals":{...},"selection":null,
 *  "processes":[...],"sites":[...]} plus "syscalls":[...] when asked; one
 * row per line. selection: the options that left rows out, or null.
 * With v->paths, a dump that has paths gives "paths_counted":{"mode",
 * "dropped"} after "selection", and each site row a last key "paths".
 */
int st_json_dump(FILE *f, const struct st_view *v, bool syscalls, bool live)
{
	bool paths = v->paths && v->dump->has_paths;

	fprintf(f, "{\"schema_version\":%d,\n\"session\":", ST_SCHEMA_VERSION);
	if (put(f, st_json_session(&v->dump->session)))
		return -1;
	fputs(",\n\"totals\":", f);
	if (put(f, st_json_totals(v->dump, live)))
		return -1;
	fputs(",\"selection\":", f);
	if (put(f, v->selection ? st_json_string(v->selection) : json_null()))
		return -1;
	if (paths) {
		fputs(",\"paths_counted\":", f);
		if (put(f, paths_counted(v->dump)))
			return -1;
	}
	if (put_table(f, v, ST_TABLE_PROCESSES) ||
	    (paths ? put_sites_paths(f, v) : put_table(f, v, ST_TABLE_SITES)) ||
	    (syscalls && put_table(f, v, ST_TABLE_SYSCALLS)))
		return -1;
	fputs("}\n", f);
	return 0;
}

/* A whole small document (status, list), indented; frees doc. */
int st_json_print(FILE *f, json_t *doc)
{
	int ret;

	if (!doc)
		return -1;
	ret = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	fputc('\n', f);
	json_decref(doc);
	return ret;
}
