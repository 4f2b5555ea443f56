// SPDX-License-Identifier: GPL-2.0
/* systracectl dump: a session's tables as CSV or as one JSON document. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "subcommands.h"
#include "systrace.h"

const char dump_usage[] =
	"Usage: systracectl dump [SESSION] [--csv | --json]\n"
	"                        [--processes | --sites | --syscalls] [-o FILE]\n"
	"                        [--no-symbols]\n\n"
	"Prints a session's data. SESSION is an id or a name (the newest\n"
	"session of that name); the default is the newest session.\n\n"
	"  --csv          CSV (RFC 4180, header row, LF line endings); the default\n"
	"  --json         one JSON document: schema_version, session, totals,\n"
	"                 processes, sites (and syscalls with --syscalls)\n"
	"  --processes    one row per process image (the default table)\n"
	"  --sites        one row per (process image, call site, abi, syscall)\n"
	"  --syscalls     one row per (process image, abi, syscall): sites summed\n"
	"  -o, --output FILE  write to FILE instead of stdout\n"
	"  --no-symbols   do not resolve sites to functions: the site table\n"
	"                 then has no object, symbol, symbol_offset, build_id,\n"
	"                 symbol_error columns\n"
	"  -h, --help\n\n"
	"Every dump checks that the session's totals equal the sums of its\n"
	"process rows, and that each process's equal the sums of its site rows.\n"
	"A finished session that fails the check exits 5; a live one only warns.\n"
	"The columns are documented in docs/cli.md.\n";

struct dump_opts {
	const char *session;
	struct st_output_opts out;	/* CSV unless --json */
	enum st_table_kind table;
	bool table_set;
	bool no_symbols;
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
		{ "processes", no_argument, NULL, 'P' },
		{ "sites", no_argument, NULL, 'S' },
		{ "syscalls", no_argument, NULL, 'Y' },
		{ "no-symbols", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, mine, ret = 0;

	memset(o, 0, sizeof(*o));
	o->out.format = ST_FMT_CSV;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		mine = st_output_opt(c, optarg, dump_usage, &o->out);
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

static int write_dump(FILE *f, const void *ctx)
{
	const struct dump_opts *o = ((const struct dump_args *)ctx)->o;
	const struct st_dump *d = ((const struct dump_args *)ctx)->d;
	struct st_view v = { .dump = d };
	struct st_sysagg *aggs = NULL;
	bool live = !st_state_final(d->session.state);
	int ret = 0;

	if (o->table == ST_TABLE_SYSCALLS &&
	    st_aggregate_syscalls(d, true, &aggs, &v.naggs))
		return -ENOMEM;
	v.aggs = aggs;
	if (o->out.format == ST_FMT_JSON) {
		ret = st_json_dump(f, &v, o->table == ST_TABLE_SYSCALLS, live);
	} else {
		struct st_dump_table dt;

		st_dump_table(&dt, &v, o->table, d->symbolized);
		ret = st_table_csv(f, &dt.t);
	}
	free(aggs);
	return ret ? -ENOMEM : 0;
}

int dump_main(int argc, char **argv)
{
	struct dump_opts o;
	struct st_dump d;
	struct st_err err;
	struct st_backend *be;
	uint32_t id;
	int ret, check;

	ret = parse(argc, argv, &o);
	if (ret >= 0)
		return ret;

	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	if (st_session_pick(be, o.session, &id, &err) ||
	    st_session_fetch(be, id, &d, &err))
		return st_fail(&err, be);
	st_backend_close(be);

	check = st_session_report_check(&d);

	/* Only the site table shows symbols: CSV of it, or the JSON document. */
	if (!o.no_symbols && (o.table == ST_TABLE_SITES || o.out.format == ST_FMT_JSON) &&
	    st_symbolize_dump(&d)) {
		st_err_set(&err, ST_ERR_LOCAL, ENOMEM, "symbolizing the sites", NULL);
		st_dump_free(&d);
		return st_fail(&err, NULL);
	}

	ret = st_output_write(o.out.path, "writing the dump", write_dump,
			      &(struct dump_args){ &o, &d }, &err);
	st_dump_free(&d);
	if (ret)
		return st_fail(&err, NULL);
	return check;
}
