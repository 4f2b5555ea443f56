// SPDX-License-Identifier: GPL-2.0
/* systracectl report: the dispatcher, its options, and reading the data. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "logcli.h"
#include "report.h"
#include "subcommands.h"
#include "libsystrace.h"

const char report_usage[] =
	"Usage: systracectl report REPORT [SESSION] [--input FILE]\n"
	"                          [--csv [--table NAME] | --json] [-o FILE] [--wide]\n"
	"                          [--sort KEY] [--top N] [--syscall NAME[,NAME...]]\n"
	"                          [--comm PATTERN] [--pid PID[,PID...]] [--errors]\n"
	"                          [--by process | --all] [OPTIONS]\n\n"
	"Analyses of a session. SESSION is an id or a name, as for dump; the\n"
	"default is the newest session. REPORT is one of:\n\n"
	"  amortize [--threshold N]\n"
	"      call sites that fail to amortize a patch (fewer than N calls in\n"
	"      their process): per process, a histogram of calls per site, and\n"
	"      how their number changes with N = 1, 2, 4 ... 1024\n"
	"  short [--max-ms MS] [--threshold N]\n"
	"      processes that lived less than MS ms: the functions that hold\n"
	"      their non-amortized sites, and the --top N functions whose hooking\n"
	"      removes the most of them (greedy cover, cumulative fraction)\n"
	"  phases\n"
	"      per process, the syscalls of the dynamic loader (PT_INTERP)\n"
	"      made before the first syscall from any other object, and the rest\n"
	"  syscalls\n"
	"      calls, errors and time per syscall over the tree (like strace -c),\n"
	"      and per process its calls by syscall\n"
	"  errors\n"
	"      what fails, where and why: the errors by errno, then the syscalls,\n"
	"      sites and processes with the most errors, each with its errnos\n"
	"  timeline [--svg FILE]\n"
	"      each process's lifetime, by start, and with a log the time to its\n"
	"      first program-phase syscall; --svg FILE draws it as a Gantt chart\n"
	"  paths\n"
	"      the paths of file calls (start --paths), one row\n"
	"      per (path, syscall, errno or ok), most calls first, with how many\n"
	"      processes and sites made them\n\n"
	"  --input FILE     read a saved `systracectl dump --json` document, or a\n"
	"                   saved log (CSV or JSONL, from start --log), instead of\n"
	"                   asking the kernel; phases and timeline use a log's\n"
	"                   events, the others its rows\n"
	"  --csv            one table as CSV: the first, or --table NAME\n"
	"  --json           one JSON document with every table\n"
	"  --table NAME     with --csv: the table to print\n"
	"  -o, --output FILE  write to FILE instead of stdout (whole, or not at all)\n"
	"  --wide           text: every column and whole strings; by default a\n"
	"                   line fits in 100 columns\n"
	"  --sort KEY       order the lists (processes, syscalls, sites,\n"
	"                   functions) by the column KEY (its name, or its text\n"
	"                   heading: avg for avg_ns), largest first, or by\n"
	"                   time, calls or errors\n"
	"  --top N          at most N rows in each list (text: 10 by default)\n"
	"  --by process     text: the per-process (per-image) tables too\n"
	"  --all            text: every table, every row\n"
	"  --syscall NAME[,NAME...]  only these syscalls (names, numbers, strace's\n"
	"                   %classes; '!LIST' leaves them out)\n"
	"  --comm PATTERN   only processes whose comm matches (fnmatch(3))\n"
	"  --pid PID[,PID...]  only these processes\n"
	"  --errors         only the sites (and processes) with errors\n"
	"  --threshold N    a site is non-amortized when it made fewer than N calls\n"
	"                   in its process (default 16)\n"
	"  --max-ms MS      short: the wall-time bound (default 100)\n"
	"  --svg FILE       timeline: also write the chart to FILE\n"
	"  -h, --help\n\n"
	"The text leads with the whole tree and fits a screen; CSV and JSON hold\n"
	"every table and row. Text tables by default: times in ns, us, ms or s\n"
	"with 3 significant digits (CSV and JSON keep nanoseconds). The reports, their tables and\n"
	"columns are documented in docs/cli.md (section \"report\").\n";

enum {
	OPT_THRESHOLD = 1 << 0,
	OPT_MAX_MS = 1 << 1,
	OPT_SVG = 1 << 3,
};

static const struct {
	const char *name;
	int (*build)(struct rt_report *r, struct st_dump *d,
		     const struct report_opts *o);
	unsigned int opts;
} reports[] = {
	{ "amortize", report_amortize, OPT_THRESHOLD },
	{ "short", report_short, OPT_THRESHOLD | OPT_MAX_MS },
	{ "phases", report_phases, 0 },
	{ "syscalls", report_syscalls, 0 },
	{ "errors", report_errors, 0 },
	{ "timeline", report_timeline, OPT_SVG },
	{ "paths", report_paths, 0 },
};

#define N_REPORTS (sizeof(reports) / sizeof(reports[0]))
#define DEFAULT_THRESHOLD 16
#define DEFAULT_MAX_MS 100

/* Returns -1 to go on, or an exit code. */
static int parse(int argc, char **argv, size_t rep, struct report_opts *o)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		ST_OUTPUT_OPTIONS,
		ST_WIDE_OPTION,
		ST_SELECT_OPTIONS,
		{ "table", required_argument, NULL, 'T' },
		{ "threshold", required_argument, NULL, 'n' },
		{ "max-ms", required_argument, NULL, 'm' },
		{ "svg", required_argument, NULL, 's' },
		{ "by", required_argument, NULL, 'b' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned int given = 0;
	int c, mine;

	o->threshold = DEFAULT_THRESHOLD;
	o->max_ms = DEFAULT_MAX_MS;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		mine = st_output_opt(c, optarg, report_usage, &o->out);
		if (mine == ST_OPT_NOT_MINE)
			mine = st_select_opt(c, optarg, report_usage, &o->sel);
		if (mine >= 0)
			return mine;
		if (mine != ST_OPT_NOT_MINE)
			continue;
		switch (c) {
		case 'i':
			if (o->input)
				return st_usage_error(report_usage,
						      "--input given twice ('%s', '%s'): a report reads one dump or log",
						      o->input, optarg);
			o->input = optarg;
			break;
		case 'T':
			o->table = optarg;
			break;
		case 'n':
			given |= OPT_THRESHOLD;
			if (st_parse_u64(optarg, &o->threshold, 1))
				return st_usage_error(report_usage, "--threshold needs a number >= 1");
			break;
		case 'm':
			given |= OPT_MAX_MS;
			if (st_parse_u64(optarg, &o->max_ms, 1) || o->max_ms > UINT64_MAX / 1000000)
				return st_usage_error(report_usage, "--max-ms needs a number >= 1");
			break;
		case 's':
			given |= OPT_SVG;
			o->svg = optarg;
			break;
		case 'b':
			if (strcmp(optarg, "process"))
				return st_usage_error(report_usage,
						      "--by: a report is by 'process' (its per-process tables), not '%s'",
						      optarg);
			o->by_process = true;
			break;
		case 'a':
			o->all = true;
			break;
		case 'h':
			return st_print_usage(report_usage, ST_CODES_CHECKED);
		default:
			return st_bad_option(report_usage, argv, c);
		}
	}
	if (given & ~reports[rep].opts)
		return st_usage_error(report_usage, "report %s takes no %s option",
				      reports[rep].name,
				      given & ~reports[rep].opts & OPT_THRESHOLD ? "--threshold" :
				      given & ~reports[rep].opts & OPT_MAX_MS ? "--max-ms" : "--svg");
	if (o->table && o->out.format != ST_FMT_CSV)
		return st_usage_error(report_usage, "--table goes with --csv");
	if (optind < argc)
		o->session = argv[optind++];
	if (optind < argc)
		return st_usage_error(report_usage, "unexpected argument '%s'", argv[optind]);
	if (o->session && o->input)
		return st_usage_error(report_usage, "give SESSION or --input FILE, not both");
	return -1;
}

/* The first lines of the text: what was read, and what is missing. */
static int header(struct rt_report *r, const struct st_dump *d,
		  const struct report_opts *o)
{
	char what[32];

	snprintf(what, sizeof(what), "report %s", r->name);
	return rt_note_source(r, what, d, o->input);
}

static int build(size_t rep, struct rt_report *r, struct st_dump *d,
		 const struct report_opts *o)
{
	int ret;

	r->name = reports[rep].name;
	r->dump = d;
	ret = header(r, d, o);
	return ret ? ret : reports[rep].build(r, d, o);
}

static bool has_table(const struct rt_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->ntables; i++)
		if (!strcmp(r->tables[i]->name, name))
			return true;
	return false;
}

/* "report R has no table 'T'; did you mean 'N'? tables: ..." */
static int no_table(const struct rt_report *r, const char *name)
{
	const char *names[RT_MAX_TABLES];
	char list[512], hint[64];
	size_t i, at = 0;

	list[0] = '\0';
	for (i = 0; i < r->ntables; i++) {
		names[i] = r->tables[i]->name;
		at += (size_t)snprintf(list + at, at < sizeof(list) ? sizeof(list) - at : 0,
				       "%s%s", i ? ", " : "", names[i]);
	}
	return st_usage_error(report_usage, "report %s has no table '%s'; %stables: %s", r->name,
			      name, st_did_you_mean(hint, sizeof(hint), st_suggest(name, names, r->ntables)),
			      list);
}

/* "unknown report 'R'; did you mean 'N'? reports: ..." */
static int no_report(const char *name)
{
	const char *names[N_REPORTS];
	char hint[64];
	size_t i;

	for (i = 0; i < N_REPORTS; i++)
		names[i] = reports[i].name;
	return st_usage_error(report_usage,
			      "unknown report '%s'; %sreports: amortize, short, phases, syscalls, errors, timeline",
			      name, st_did_you_mean(hint, sizeof(hint), st_suggest(name, names, N_REPORTS)));
}

static void load_progress(void *ctx, uint64_t done, uint64_t size)
{
	struct st_progress *p = ctx;
	char a[16];

	if (!st_progress_due(p, NULL))
		return;
	st_progress_num(a, sizeof(a), (double)done);
	if (size)
		st_progress_show(p, "reading the log: %sB, %.0f%%", a,
				 100.0 * (double)done / (double)size);
	else
		st_progress_show(p, "reading the log: %sB", a);
}

/* Whether report rep reads a log's events (its sums), not only its rows. */
static bool reads_events(size_t rep)
{
	return reports[rep].build == report_phases || reports[rep].build == report_timeline;
}

/*
 * Whether path starts with text that is no JSON document (a dump is one
 * object): a CSV with another header, a text file. Compressed or
 * unreadable files are left to the dump's reader.
 */
static bool neither_log_nor_dump(const char *path)
{
	FILE *f = fopen(path, "re");
	int c;

	if (!f)
		return false;
	do
		c = getc(f);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	fclose(f);
	return c != EOF && c != '{' && c != '[' && c >= 0x20 && c < 0x7f;
}

/*
 * The data of the report: a saved log, a saved dump, or a session. A log's
 * sums are read only for the reports that use them: at a glibc build's
 * 2 million site rows they are 130 MB.
 */
static int read_data(struct report_opts *o, size_t rep, struct st_log_sums *log,
		     struct st_dump *d, struct st_err *err, int *check)
{
	*check = 0;
	if (o->input && st_log_is_log(o->input)) {
		struct st_progress p;
		int ret;

		st_progress_init(&p);
		if (reports[rep].build == report_timeline)	/* the images' sums only */
			ret = st_log_load_images(o->input, d, log, load_progress, &p, err);
		else
			ret = st_log_load(o->input, d, reads_events(rep) ? log : NULL,
					  load_progress, &p, err);
		st_progress_done(&p);
		if (ret)
			return -1;
		o->log = log;
		return 0;
	}
	if (o->input && neither_log_nor_dump(o->input)) {
		st_err_set(err, ST_ERR_LOCAL, 0, "--input",
			   "%s:1: neither a dump (the JSON object of dump --json) nor a log (its first line is no log header: a log's names the columns event, proc_id and ts_ns, at least)",
			   o->input);
		return -1;
	}
	if (st_dump_read(o->session, o->input, d, err))
		return -1;
	*check = st_session_report_check(d);
	return 0;
}

int report_main(int argc, char **argv)
{
	struct rt_report r = { 0 };
	struct st_log_sums log = { 0 };
	struct report_opts o = { 0 };
	struct st_dump d;
	struct st_err err;
	size_t rep, nprocs, nsites;
	char why[1024];
	int ret, check;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
			return st_print_usage(report_usage, ST_CODES_CHECKED);
		return st_usage_error(report_usage,
				      "which report? amortize, short, phases, syscalls, errors, timeline or paths");
	}
	for (rep = 0; rep < N_REPORTS && strcmp(argv[1], reports[rep].name); rep++)
		;
	if (rep == N_REPORTS)
		return no_report(argv[1]);
	ret = parse(argc - 1, argv + 1, rep, &o);
	if (ret < 0 && st_select_check(&o.sel, why, sizeof(why)))
		ret = st_usage_error(report_usage, "%s", why);
	if (ret >= 0) {
		st_select_free(&o.sel);
		return ret;
	}

	memset(&d, 0, sizeof(d));
	if (read_data(&o, rep, &log, &d, &err, &check))
		goto fail;
	if (o.log && st_select_filters(&o.sel) && reads_events(rep)) {
		ret = st_usage_error(report_usage,
				     "--syscall, --comm, --pid and --errors select rows: report %s reads a log's events",
				     reports[rep].name);
		goto out;
	}
	nprocs = d.nprocs;
	nsites = d.nsites;
	ret = st_select_dump(&d, &o.sel);
	if (!ret)
		ret = build(rep, &r, &d, &o);
	if (!ret)
		ret = rt_note_selection(&r, &o.sel, &d, nprocs, nsites);
	if (ret) {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "building the report", NULL);
		goto fail;
	}
	ret = rt_report_select(&r, &o.sel, why, sizeof(why));
	if (ret == -EINVAL) {
		ret = st_usage_error(report_usage, "%s", why);
		goto out;
	}
	if (ret) {
		st_err_set(&err, ST_ERR_LOCAL, -ret, "building the report", NULL);
		goto fail;
	}
	if (o.table && !has_table(&r, o.table)) {
		ret = no_table(&r, o.table);
		goto out;
	}
	if (o.out.format == ST_FMT_TEXT)
		rt_report_text_view(&r, &o.sel, o.by_process, o.all);
	if (rt_report_write(&o.out, &r, o.table, &err))
		goto fail;
	ret = check;
out:
	rt_report_free(&r);
	st_log_sums_free(&log);
	st_dump_free(&d);
	st_select_free(&o.sel);
	return ret;
fail:
	ret = st_fail(&err, NULL);
	goto out;
}
