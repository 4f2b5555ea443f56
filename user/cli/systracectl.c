// SPDX-License-Identifier: GPL-2.0
/* systracectl: control the systrace module and read its data. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/systrace.h>
#include "subcommands.h"
#include "libsystrace.h"
#include "version.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	const char *usage;
} subcommands[] = {
	{ "status", status_main, "show the module's version, limits, memory and sessions", status_usage },
	{ "start", start_main, "run a command and trace its process tree", start_usage },
	{ "attach", attach_main, "trace a running process and what it creates", attach_usage },
	{ "detach", detach_main, "stop following a session's tasks, keep its data", detach_usage },
	{ "log", log_main, "drain a session's temporal log into a file", log_usage },
	{ "dump", dump_main, "print a session's processes, sites or syscalls as CSV or JSON", dump_usage },
	{ "list", list_main, "list the sessions, one line each", list_usage },
	{ "save", save_main, "save finished sessions into the run store", save_usage },
	{ "export", export_main, "write stored runs as partitioned CSV for Dask, Spark, Trino", export_usage },
	{ "reset", reset_main, "delete sessions (or all) and free their memory", reset_usage },
	{ "report", report_main, "analyses: amortize, short, phases, syscalls, errors, timeline", report_usage },
	{ "diff", diff_main, "compare two sessions or saved dumps: by syscall, process, site", diff_usage },
	{ "top", top_main, "a running session's busiest processes and syscalls, refreshed", top_usage },
	{ "help", help_main, "show this help, or a subcommand's", help_usage },
};

#define N_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

/* "unknown subcommand 'S'", and the nearest: "did you mean 'N'?" */
static void unknown_subcommand(const char *name)
{
	const char *names[N_SUBCOMMANDS], *near;
	size_t i;

	for (i = 0; i < N_SUBCOMMANDS; i++)
		names[i] = subcommands[i].name;
	near = st_suggest(name, names, N_SUBCOMMANDS);
	if (near)
		st_warn("unknown subcommand '%s'; did you mean '%s'?", name, near);
	else
		st_warn("unknown subcommand '%s'", name);
}

const char help_usage[] =
	"Usage: systracectl help [SUBCOMMAND]\n\n"
	"Shows the list of subcommands, or SUBCOMMAND's help (as\n"
	"'systracectl SUBCOMMAND --help' does).\n\n"
	"  -h, --help\n";

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: systracectl [--store PATH] <subcommand> [options]\n\n"
		"Trace a process tree's syscalls in the kernel (systrace.ko or BPF, ABI %d).\n\n"
		"Subcommands:\n", SYSTRACE_ABI_VERSION);
	for (i = 0; i < N_SUBCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].help);
	fprintf(f, "\n'systracectl help SUBCOMMAND' or 'systracectl SUBCOMMAND --help' shows its options.\n"
		"'systracectl --version' shows the version.\n"
		"--store PATH: the run store (SYSTRACE_STORE; default /var/lib/systrace/runs.db).\n\n");
	st_print_exit_codes(f, ST_CODES_ALL);
}

/* Each subcommand's exit codes, for its --help. */
static unsigned int codes_of(const char *name)
{
	if (!strcmp(name, "help"))
		return ST_CODE(ST_EXIT_OK) | ST_CODE(ST_EXIT_USAGE);
	if (!strcmp(name, "start"))
		return ST_CODES_ALL;
	if (!strcmp(name, "dump") || !strcmp(name, "report") || !strcmp(name, "diff"))
		return ST_CODES_CHECKED;
	if (!strcmp(name, "reset") || !strcmp(name, "detach"))
		return 0;	/* their own, in their text */
	return ST_CODES_READ;
}

int help_main(int argc, char **argv)
{
	size_t i;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return st_print_usage(help_usage, codes_of("help"));
	if (argc > 2)
		return st_usage_error(help_usage, "one SUBCOMMAND at most");
	if (argc < 2) {
		usage(stdout);
		return ST_EXIT_OK;
	}
	for (i = 0; i < N_SUBCOMMANDS; i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return st_print_usage(subcommands[i].usage,
					      codes_of(subcommands[i].name));
	unknown_subcommand(argv[1]);
	usage(stderr);
	return ST_EXIT_USAGE;
}

/* --store PATH (or --store=PATH) before the subcommand: SYSTRACE_STORE. */
static int store_opt(int *argc, char ***argv)
{
	const char *a = *argc >= 2 ? (*argv)[1] : "";
	int used = 0;

	if (!strcmp(a, "--store") && *argc >= 3) {
		a = (*argv)[2];
		used = 2;
	} else if (!strncmp(a, "--store=", 8)) {
		a += 8;
		used = 1;
	} else if (!strcmp(a, "--store")) {
		st_warn("option '--store' needs a PATH");
		return -1;
	}
	if (used && (!*a || setenv("SYSTRACE_STORE", a, 1))) {
		st_warn("--store needs a PATH");
		return -1;
	}
	*argc -= used;
	*argv += used;
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (store_opt(&argc, &argv))
		return ST_EXIT_USAGE;
	if (argc < 2) {
		usage(stderr);
		return ST_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return ST_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("systracectl %s (systrace ABI %d)\n", ST_VERSION, SYSTRACE_ABI_VERSION);
		return ST_EXIT_OK;
	}
	for (i = 0; i < N_SUBCOMMANDS; i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	unknown_subcommand(argv[1]);
	usage(stderr);
	return ST_EXIT_USAGE;
}
