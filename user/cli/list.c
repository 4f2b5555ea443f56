// SPDX-License-Identifier: GPL-2.0
/* systracectl list: one line per live session, then per stored run. */
#include <errno.h>
#include <getopt.h>
#include <unistd.h>
#include "common.h"
#include "store/store.h"
#include "subcommands.h"
#include "libsystrace.h"

const char list_usage[] =
	"Usage: systracectl list [--all] [--json]\n\n"
	"One line per live session, oldest first, then one per run of the run\n"
	"store, the latest 20 (--all: every one): ID (the session's, or the\n"
	"run's), NAME (- when unnamed), STATE (waiting, running, finished,\n"
	"detached; saved for a stored run), ROOT_PID, PROCS (process rows),\n"
	"SYSCALLS, DROPPED (calls, processes, site mappings and counters lost,\n"
	"each once: dropped_procs + dropped_syscalls + dropped_resolve +\n"
	"dropped_counters; see status).\n\n"
	"  --all     every stored run, not only the latest 20\n"
	"  --json    {\"schema_version\":1,\"sessions\":[...],\"runs\":[...]} with\n"
	"            the session objects of dump --json (a run's with its run_id)\n"
	"  -h, --help\n";

static const char *const list_cols[] = {
	"ID", "NAME", "STATE", "ROOT_PID", "PROCS", "SYSCALLS", "DROPPED",
};
static const int list_width[] = { -6, -16, -9, 9, 9, 12, 9 };
static const struct st_text_layout list_layout = { .sep = " ", .width = list_width };

static const char *list_col(const struct st_table *t, size_t c)
{
	(void)t;
	return list_cols[c];
}

static void u64_cell(struct st_val *v, uint64_t u)
{
	v->c.kind = ST_U64;
	v->c.u = u;
}

static void str_cell(struct st_val *v, const char *s)
{
	v->c.kind = ST_STR;
	v->c.s = s;
}

/* The live sessions, then the stored runs. */
struct list_rows {
	const struct st_session_row *ss;
	size_t n;
	const struct st_run *runs;
	size_t nruns;
	bool stored;		/* there is a store: JSON has "runs" */
};

static void list_row(const struct st_table *t, size_t r, struct st_val *v)
{
	const struct list_rows *l = t->ctx;
	const struct st_session_row *s = r < l->n ? &l->ss[r] : &l->runs[r - l->n].session;
	const char *state = r < l->n ? st_state_name(s->state) : "saved";

	u64_cell(&v[0], r < l->n ? s->id : l->runs[r - l->n].run_id);
	str_cell(&v[1], s->name[0] ? s->name : "-");
	str_cell(&v[2], state ? state : "?");
	u64_cell(&v[3], s->root_pid);
	u64_cell(&v[4], s->procs);
	u64_cell(&v[5], s->syscalls);
	u64_cell(&v[6], st_session_dropped(s));
}

/* {"schema_version":1,"sessions":[...]}: the session objects of dump --json. */
static json_t *json_runs(const struct list_rows *l)
{
	json_t *arr = json_array(), *o;
	size_t i;

	for (i = 0; arr && i < l->nruns; i++) {
		o = st_json_session(&l->runs[i].session);
		if (!o || json_object_set_new(o, "run_id", json_integer((json_int_t)l->runs[i].run_id)) ||
		    json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static int json_list(FILE *f, const struct list_rows *l)
{
	json_t *doc = json_object(), *arr = json_array(), *runs = NULL;
	size_t i;

	if (l->stored)
		runs = json_runs(l);
	if (!doc || !arr || (l->stored && !runs)) {
		json_decref(doc);
		json_decref(arr);
		json_decref(runs);
		return -1;
	}
	for (i = 0; i < l->n; i++)
		json_array_append_new(arr, st_json_session(&l->ss[i]));
	json_object_set_new(doc, "schema_version", json_integer(ST_SCHEMA_VERSION));
	json_object_set_new(doc, "sessions", arr);
	if (runs)
		json_object_set_new(doc, "runs", runs);
	return st_json_print(f, doc);
}

static int print_rows(FILE *f, const struct list_rows *l, bool json)
{
	struct st_table t = {
		.ncols = sizeof(list_cols) / sizeof(list_cols[0]),
		.nrows = l->n + l->nruns,
		.col = list_col,
		.row = list_row,
		.ctx = l,
	};

	if (json)
		return json_list(f, l);
	return st_table_text(f, &t, &list_layout);
}

int st_list_print(FILE *f, const struct st_session_row *ss, size_t n, bool json)
{
	struct list_rows l = { .ss = ss, .n = n };

	return print_rows(f, &l, json);
}

static int by_id(const void *a, const void *b)
{
	const struct st_session_row *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The live sessions (none when no tracer serves: the stored runs are
 * still listed), after what a command that died left is saved.
 */
static int read_live(struct list_rows *l, struct st_session_row **ss)
{
	struct st_backend *be;
	struct st_err err;

	*ss = NULL;
	if (st_backend_open(&be, &err)) {
		if (err.kind == ST_ERR_NOMODULE && !access(st_store_path(), F_OK))
			return 0;
		return st_fail(&err, NULL);
	}
	st_run_settle(be);
	if (st_backend_session_list(be, ss, &l->n, NULL, &err))
		return st_fail(&err, be);
	st_backend_close(be);
	st_qsort(*ss, l->n, sizeof(**ss), by_id);
	l->ss = *ss;
	return 0;
}

/* The stored runs, when there is a store (list makes none). */
static int read_runs(struct list_rows *l, struct st_run **runs, bool all)
{
	struct st_store *s = NULL;
	struct st_err err;
	int ret;

	*runs = NULL;
	if (access(st_store_path(), F_OK))
		return 0;
	ret = st_store_open(&s, &err);
	if (!ret)
		ret = st_store_list(s, all, 20, runs, &l->nruns, &err);
	st_store_close(s);
	if (ret)
		return st_fail(&err, NULL);
	l->runs = *runs;
	l->stored = true;
	return 0;
}

int list_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct list_rows l = { 0 };
	struct st_session_row *ss;
	struct st_run *runs = NULL;
	bool json = false, all = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":ajh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return st_print_usage(list_usage, ST_CODES_READ);
		default:
			return st_bad_option(list_usage, argv, c);
		}
	}
	if (optind < argc)
		return st_usage_error(list_usage, "unexpected argument '%s'", argv[optind]);
	ret = read_live(&l, &ss);
	if (!ret)
		ret = read_runs(&l, &runs, all);
	if (!ret && print_rows(stdout, &l, json)) {
		st_warn("out of memory");
		ret = ST_EXIT_LOCAL;
	}
	free(ss);
	free(runs);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		st_warn("cannot write the output");
		ret = ST_EXIT_LOCAL;
	}
	return ret;
}
