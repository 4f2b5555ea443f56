// SPDX-License-Identifier: GPL-2.0
/* systracectl dump: a session's tables as CSV or as one JSON document. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "report.h"
#include "subcommands.h"
#include "libsystrace.h"

const char dump_usage[] =
	"Usage: systracectl dump [SESSION] [--csv | --json]\n"
	"                        [--processes | --sites | --syscalls] [-o FILE]\n"
	"                        [--no-symbols] [--sort KEY] [--top N]\n"
	"                        [--syscall NAME[,NAME...]] [--comm PATTERN]\n"
	"                        [--pid PID[,PID...]] [--errors]\n\n"
	"Prints a session's data. SESSION is an id or a name (the newest\n"
	"session of that name); the default is the newest session, named in a\n"
	"note on stderr when there are others (sessions are shared by every\n"
	"user of the host). A SESSION no live session answers is read from the\n"
	"run store (a run id, or the latest run of a name; docs/store.md), the\n"
	"same bytes as it gave live.\n\n"
	"  --csv          CSV (RFC 4180, header row, LF line endings); the default\n"
	"  --json         one JSON document: schema_version, session, totals,\n"
	"                 selection, processes, sites (and syscalls with --syscalls);\n"
	"                 with --sites each site row's paths of file calls\n"
	"                 (start --paths) and paths_counted\n"
	"  --processes    one row per process image (the default table)\n"
	"  --sites        one row per (process image, call site, abi, syscall)\n"
	"  --syscalls     one row per (process image, abi, syscall): sites summed\n"
	"  -o, --output FILE  write to FILE instead of stdout (whole, or not at all)\n"
	"  --no-symbols   do not resolve sites to functions: the site table\n"
	"                 then has no object, symbol, symbol_offset, build_id,\n"
	"                 symbol_error columns\n"
	"  --sort KEY     the table's rows by its column KEY (its name, or its text\n"
	"                 heading: avg for avg_ns), largest first (text A to Z),\n"
	"                 or by time, calls or errors\n"
	"  --top N        the table's first N rows\n"
	"  --syscall NAME[,NAME...]  only the sites of these syscalls (names,\n"
	"                 numbers, strace's %classes; '!LIST' leaves them out),\n"
	"                 and the processes that made them\n"
	"  --comm PATTERN only processes whose comm matches (fnmatch(3)), and\n"
	"                 their sites\n"
	"  --pid PID[,PID...]  only these processes and their sites\n"
	"  --errors       only the sites with errors, and their processes\n"
	"  -h, --help\n\n"
	"Every dump checks that the session's totals equal the sums of its\n"
	"process rows, and that each process's equal the sums of its site rows,\n"
	"before any row is left out. A finished session that fails the check\n"
	"exits 5; a live one only warns. With --sort or --top, --json orders and\n"
	"cuts the table --processes, --sites or --syscalls names; with a filter\n"
	"its \"selection\" says what was left out. The columns are documented in\n"
	"docs/cli.md.\n";

struct dump_opts {
	const char *session;
	struct st_output_opts out;	/* CSV unless --json */
	enum st_table_kind table;
	bool table_set;
	bool no_symbols;
	struct st_select sel;
};

static int set_table(struct dump_opts *o, enum st_table_kind t)
{
	if (o->table_set && o->table != t)
		return st_usage_error(dump_usage,
				      "give one of --processes, --sites, --syscalls");
	o->table = t;
	o->table_set = true;
	return 0;
}

/* Returns -1 to go on, or an exit code. */
static int parse(int argc, char **argv, struct dump_opts *o)
{
	static const struct option opts[] = {
		ST_OUTPUT_OPTIONS,
		ST_SELECT_OPTIONS,
		{ "processes", no_argument, NULL, 'P' },
		{ "sites", no_argument, NULL, 'S' },
		{ "syscalls", no_argument, NULL, 'Y' },
		{ "no-symbols", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, mine, ret = 0;

	o->out.format = ST_FMT_CSV;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		mine = st_output_opt(c, optarg, dump_usage, &o->out);
		if (mine == ST_OPT_NOT_MINE)
			mine = st_select_opt(c, optarg, dump_usage, &o->sel);
		if (mine >= 0)
			return mine;
		if (mine != ST_OPT_NOT_MINE)
			continue;
		switch (c) {
		case 'P':
			ret = set_table(o, ST_TABLE_PROCESSES);
			break;
		case 'S':
			ret = set_table(o, ST_TABLE_SITES);
			break;
		case 'Y':
			ret = set_table(o, ST_TABLE_SYSCALLS);
			break;
		case 'N':
			o->no_symbols = true;
			break;
		case 'h':
			return st_print_usage(dump_usage, ST_CODES_CHECKED);
		default:
			return st_bad_option(dump_usage, argv, c);
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		o->session = argv[optind++];
	if (optind < argc)
		return st_usage_error(dump_usage, "unexpected argument '%s'", argv[optind]);
	return -1;
}

struct dump_args {
	const struct dump_opts *o;
	const struct st_dump *d;
};

/* What left rows out, for the JSON document: the filters, --sort, --top. */
static char *selection_text(const struct dump_opts *o)
{
	char what[512], *text = NULL;

	if (!st_select_filters(&o->sel) && !o->sel.has_top)
		return NULL;
	st_select_describe(&o->sel, what, sizeof(what));
	if (o->sel.has_top) {
		if (asprintf(&text, "%s%s--top %" PRIu64 "%s%s", what, *what ? " " : "",
			     o->sel.top, o->sel.sort ? " --sort " : "",
			     o->sel.sort ? o->sel.sort : "") < 0)
			return NULL;
		return text;
	}
	return strdup(what);
}

static int write_dump(FILE *f, const void *ctx)
{
	const struct dump_opts *o = ((const struct dump_args *)ctx)->o;
	const struct st_dump *d = ((const struct dump_args *)ctx)->d;
	struct st_view v = { .dump = d, .paths = o->table == ST_TABLE_SITES };
	struct st_sysagg *aggs = NULL;
	bool live = !st_state_final(d->session.state);
	char why[1024];
	int ret = 0;

	if (o->table == ST_TABLE_SYSCALLS &&
	    st_aggregate_syscalls(d, true, &aggs, &v.naggs))
		return -ENOMEM;
	v.aggs = aggs;
	if (o->sel.sort || o->sel.has_top) {
		ret = st_view_order(&v, o->table, d->symbolized, o->sel.sort,
				    o->sel.has_top ? o->sel.top : 0, why, sizeof(why));
		if (ret) {
			free(aggs);
			return ret;
		}
	}
	v.selection = selection_text(o);
	if (o->out.format == ST_FMT_JSON) {
		ret = st_json_dump(f, &v, o->table == ST_TABLE_SYSCALLS, live);
	} else {
		struct st_dump_table dt;

		st_dump_table(&dt, &v, o->table, d->symbolized);
		ret = st_table_csv(f, &dt.t);
	}
	free((char *)v.selection);
	free(v.order);
	free(aggs);
	return ret ? -ENOMEM : 0;
}

/* A --sort KEY the table has not: a usage error before anything is read. */
static int check_sort(const struct dump_opts *o)
{
	struct st_dump d = { 0 };
	struct st_view v = { .dump = &d };
	char why[1024];
	int ret;

	if (!o->sel.sort)
		return -1;
	ret = st_view_order(&v, o->table, !o->no_symbols, o->sel.sort, 0, why, sizeof(why));
	free(v.order);
	if (ret == -EINVAL)
		return st_usage_error(dump_usage, "%s", why);
	return -1;
}

int dump_main(int argc, char **argv)
{
	struct dump_opts o = { 0 };
	struct st_dump d;
	struct st_err err;
	char why[1024];
	int ret, check;

	ret = parse(argc, argv, &o);
	if (ret < 0 && st_select_check(&o.sel, why, sizeof(why)))
		ret = st_usage_error(dump_usage, "%s", why);
	if (ret < 0)
		ret = check_sort(&o);
	if (ret >= 0) {
		st_select_free(&o.sel);
		return ret;
	}

	if (st_dump_read(o.session, NULL, &d, &err)) {
		st_select_free(&o.sel);
		return st_fail(&err, NULL);
	}

	check = st_session_report_check(&d);
	ret = st_select_dump(&d, &o.sel);

	/* Only the site table shows symbols: CSV of it, or the JSON document. */
	if (!ret && !o.no_symbols &&
	    (o.table == ST_TABLE_SITES || o.out.format == ST_FMT_JSON))
		ret = st_symbolize_dump(&d);
	if (ret) {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "selecting and symbolizing the rows", NULL);
		st_dump_free(&d);
		st_select_free(&o.sel);
		return st_fail(&err, NULL);
	}

	ret = st_output_write(o.out.path, "writing the dump", write_dump,
			      &(struct dump_args){ &o, &d }, &err);
	st_dump_free(&d);
	st_select_free(&o.sel);
	if (ret)
		return st_fail(&err, NULL);
	return check;
}
