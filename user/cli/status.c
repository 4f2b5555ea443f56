// SPDX-License-Identifier: GPL-2.0
/* systracectl status: the module, its limits, and each session's memory. */
#include <inttypes.h>
#include <string.h>
#include "common.h"
#include "subcommands.h"
#include "libsystrace.h"

const char status_usage[] =
	"Usage: systracectl status [--json]\n\n"
	"Shows the module's version, its ABI version, its limits (module\n"
	"parameters), whether its probes are hooked, the memory all sessions\n"
	"hold, and for each session its state, memory and drop counters.\n\n"
	"  --json    one JSON document instead of text\n"
	"  -h, --help\n";

static void print_session(const struct st_session_row *s)
{
	const char *state = st_state_name(s->state);
	const char *counters = st_counters_name(s->counters);
	char dropped[512];

	printf("session %" PRIu32, s->id);
	if (s->name[0])
		printf(" \"%s\"", s->name);
	printf(": %s, root pid %" PRIu32 ", %" PRIu32 " live tasks\n",
	       state ? state : "?", s->root_pid, s->live_tasks);
	printf("  rows:     %" PRIu64 " processes, %" PRIu64 " sites, %" PRIu64
	       " syscalls, %" PRIu64 " errors\n",
	       s->procs, s->sites, s->syscalls, s->errors);
	printf("  memory:   %" PRIu64 " bytes (%" PRIu32 " per process row, %" PRIu32
	       " per site row)\n", s->mem_bytes, s->proc_row_bytes, s->site_row_bytes);
	printf("  counters: %s%s%s\n", counters ? counters : "?",
	       s->has_counters_error ? ", unavailable: " : "",
	       s->has_counters_error ? s->counters_error : "");
	st_format_dropped(s, dropped, sizeof(dropped));
	printf("  dropped:  %s\n", dropped);
	printf("  late:     %" PRIu64 " sites resolved after their first hit\n",
	       s->late_resolves);
	if (s->log_buffer)
		printf("  log:      %" PRIu32 " bytes per CPU, %" PRIu64
		       " events dropped\n", s->log_buffer, s->dropped_events);
}

/*
 * "label" then each parameter of the line, "name value", comma-separated,
 * on as many lines as it takes to fit ST_TEXT_MAX columns (the next ones
 * under the first value).
 */
static void print_params(const char *label, const struct st_params *p,
			 bool testing)
{
	size_t i, at = strlen(label), n;
	char item[96];
	bool first = true;

	fputs(label, stdout);
	for (i = 0; i < st_nparams; i++) {
		const struct st_param_desc *d = &st_params_desc[i];
		uint64_t v = st_param_get(p, d);

		if (d->testing != testing)
			continue;
		if (d->type == ST_PARAM_BOOL)
			snprintf(item, sizeof(item), "%s %s", d->key, v ? "Y" : "N");
		else
			snprintf(item, sizeof(item), "%s %" PRIu64, d->key, v);
		n = strlen(item) + (first ? 0 : 2);
		if (!first && at + n + 1 > ST_TEXT_MAX) {
			printf(",\n%*s", (int)strlen(label), "");
			at = strlen(label);
			n -= 2;
		} else if (!first) {
			fputs(", ", stdout);
		}
		fputs(item, stdout);
		at += n;
		first = false;
	}
	putchar('\n');
}

/*
 * Live: running, or waiting for its exec. A finished or detached session
 * only keeps its rows (the backend's sessions_live counts every session).
 */
static void print_status(const struct st_status *st,
			 const struct st_session_row *ss, size_t n)
{
	size_t i, live = 0;

	for (i = 0; i < n; i++)
		live += !st_state_final(ss[i].state);
	printf("module version:  %s\n", st->version);
	printf("abi version:     %" PRIu32 "\n", st->abi_version);
	printf("probes active:   %s\n", st->probes_active ? "yes" : "no");
	printf("sessions live:   %zu\n", live);
	printf("sessions kept:   %zu\n", n - live);
	printf("memory:          %" PRIu64 " bytes\n", st->mem_bytes);
	if (st->spare_bytes)
		printf("spare maps:      %" PRIu64 " bytes (made for the next start; "
		       "dropped after 60 s unused)\n", st->spare_bytes);
	print_params("limits:          ", &st->params, false);
	print_params("testing:         ", &st->params, true);
	for (i = 0; i < n; i++) {
		putchar('\n');
		print_session(&ss[i]);
	}
}

/* To stdout: text, or the document of st_json_status. */
int st_status_print(const struct st_status *st, const struct st_session_row *ss,
		    size_t n, bool json)
{
	if (json)
		return st_json_print(stdout, st_json_status(st, ss, n));
	print_status(st, ss, n);
	return 0;
}

int status_main(int argc, char **argv)
{
	static const struct st_sessions_cmd cmd = {
		.usage = status_usage,
		.status = true,
		.print = st_status_print,
	};

	return st_sessions_main(argc, argv, &cmd);
}
