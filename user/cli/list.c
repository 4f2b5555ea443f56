// SPDX-License-Identifier: GPL-2.0
/* systracectl list: one line per session. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include "subcommands.h"
#include "systrace.h"

const char list_usage[] =
	"Usage: systracectl list [--json]\n\n"
	"One line per session, oldest first: ID, NAME (- when unnamed), STATE\n"
	"(waiting, running, finished, detached), ROOT_PID, PROCS (process rows),\n"
	"SYSCALLS, DROPPED (the sum of all its dropped_* counters; see status).\n\n"
	"  --json    {\"schema_version\":1,\"sessions\":[...]} with the session\n"
	"            objects of dump --json\n"
	"  -h, --help\n";

static int json_list(const struct st_session_row *ss, size_t n)
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
	return st_json_print(stdout, doc);
}

static int by_id(const void *a, const void *b)
{
	const struct st_session_row *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

int list_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct st_session_row *ss;
	struct st_err err;
	struct st_backend *be;
	bool json = false;
	size_t i, n;
	int c, ret = ST_EXIT_OK;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			return st_print_usage(list_usage);
		default:
			return st_usage_error(list_usage, "bad option");
		}
	}
	if (optind < argc)
		return st_usage_error(list_usage, "unexpected argument '%s'", argv[optind]);

	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	if (st_backend_session_list(be, &ss, &n, NULL, &err))
		return st_fail(&err, be);
	st_backend_close(be);
	if (n)
		qsort(ss, n, sizeof(*ss), by_id);

	if (json) {
		if (json_list(ss, n))
			ret = ST_EXIT_LOCAL;
	} else {
		printf("%-6s %-16s %-9s %9s %9s %12s %9s\n", "ID", "NAME", "STATE",
		       "ROOT_PID", "PROCS", "SYSCALLS", "DROPPED");
		for (i = 0; i < n; i++) {
			const char *state = st_state_name(ss[i].state);

			printf("%-6" PRIu32 " %-16s %-9s %9" PRIu32 " %9" PRIu64
			       " %12" PRIu64 " %9" PRIu64 "\n",
			       ss[i].id, ss[i].name[0] ? ss[i].name : "-",
			       state ? state : "?", ss[i].root_pid, ss[i].procs,
			       ss[i].syscalls, st_session_dropped(&ss[i]));
		}
	}
	free(ss);
	if (fflush(stdout) || ferror(stdout))
		ret = ST_EXIT_LOCAL;
	return ret;
}
