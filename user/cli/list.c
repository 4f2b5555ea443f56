// SPDX-License-Identifier: GPL-2.0
/* systracectl list: one line per session. */
#include "common.h"
#include "subcommands.h"
#include "libsystrace.h"

const char list_usage[] =
	"Usage: systracectl list [--json]\n\n"
	"One line per session, oldest first: ID, NAME (- when unnamed), STATE\n"
	"(waiting, running, finished, detached), ROOT_PID, PROCS (process rows),\n"
	"SYSCALLS, DROPPED (calls, processes, site mappings and counters lost,\n"
	"each once: dropped_procs + dropped_syscalls + dropped_resolve +\n"
	"dropped_counters; see status).\n\n"
	"  --json    {\"schema_version\":1,\"sessions\":[...]} with the session\n"
	"            objects of dump --json\n"
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

static void list_row(const struct st_table *t, size_t r, struct st_val *v)
{
	const struct st_session_row *s = (const struct st_session_row *)t->ctx + r;
	const char *state = st_state_name(s->state);

	u64_cell(&v[0], s->id);
	str_cell(&v[1], s->name[0] ? s->name : "-");
	str_cell(&v[2], state ? state : "?");
	u64_cell(&v[3], s->root_pid);
	u64_cell(&v[4], s->procs);
	u64_cell(&v[5], s->syscalls);
	u64_cell(&v[6], st_session_dropped(s));
}

/* {"schema_version":1,"sessions":[...]}: the session objects of dump --json. */
static int json_list(FILE *f, const struct st_session_row *ss, size_t n)
{
	json_t *doc = json_object(), *arr = json_array();
	size_t i;

	if (!doc || !arr) {
		json_decref(doc);
		json_decref(arr);
		return -1;
	}
	for (i = 0; i < n; i++)
		json_array_append_new(arr, st_json_session(&ss[i]));
	json_object_set_new(doc, "schema_version", json_integer(ST_SCHEMA_VERSION));
	json_object_set_new(doc, "sessions", arr);
	return st_json_print(f, doc);
}

int st_list_print(FILE *f, const struct st_session_row *ss, size_t n, bool json)
{
	struct st_table t = {
		.ncols = sizeof(list_cols) / sizeof(list_cols[0]),
		.nrows = n,
		.col = list_col,
		.row = list_row,
		.ctx = ss,
	};

	if (json)
		return json_list(f, ss, n);
	return st_table_text(f, &t, &list_layout);
}

static int list_print(const struct st_status *st,
		      const struct st_session_row *ss, size_t n, bool json)
{
	(void)st;
	return st_list_print(stdout, ss, n, json);
}

int list_main(int argc, char **argv)
{
	static const struct st_sessions_cmd cmd = {
		.usage = list_usage,
		.by_id = true,
		.print = list_print,
	};

	return st_sessions_main(argc, argv, &cmd);
}
