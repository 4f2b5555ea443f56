// SPDX-License-Identifier: GPL-2.0
/* systracectl diff: two sessions or saved dumps compared, its options. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "log/log.h"
#include "report.h"
#include "subcommands.h"

const char diff_usage[] =
	"Usage: systracectl diff [--by KEY[,KEY...]] [--sort calls|time|errors] [--top N]\n"
	"                        [--csv | --json] [-o FILE] [--wide] [--syscall NAME[,NAME...]]\n"
	"                        [--comm PATTERN] [--pid PID[,PID...]] [--errors]\n"
	"                        [--threshold N] A B\n\n"
	"Compares two sessions, A and B: the calls, errors and time of each key in\n"
	"both, the change from A to B and the change in percent of A, the largest\n"
	"change first. Each of A and B is a SESSION (an id or a name, as for dump)\n"
	"or --input FILE, a saved `systracectl dump --json` document or a saved\n"
	"log (CSV or JSONL, from start --log or log); A is the first of them on\n"
	"the command line, B the second:\n\n"
	"  systracectl diff 3 5\n"
	"  systracectl diff --input old.json --input new.json\n"
	"  systracectl diff --input old.json build\n\n"
	"KEY is one of:\n\n"
	"  syscall   (abi, syscall): table syscalls (the default)\n"
	"  process   comm and exe, their images summed: table processes\n"
	"  site      object, file offset and syscall, images summed: table sites\n"
	"  path      path, syscall and result (ok or errno) of file calls\n"
	"            (start --paths), images and sites summed: table paths\n"
	"  amortize  non-amortized sites at N = 1, 2, 4 ... 1024 and --threshold:\n"
	"            table amortize\n"
	"  all       all five\n\n"
	"A row only in B is new, only in A gone; its other side counts 0.\n\n"
	"  --input FILE     A or B: a saved dump --json document or log (no root\n"
	"                   needed)\n"
	"  --by KEY[,KEY...]  what to compare by (default syscall)\n"
	"  --sort calls|time|errors  the largest change of what first (default\n"
	"                   calls)\n"
	"  --top N          the first N rows of each table but amortize\n"
	"                   (default: all)\n"
	"  --csv            the table as CSV (one KEY)\n"
	"  --json           one JSON document with every table\n"
	"  -o, --output FILE  write to FILE instead of stdout (whole, or not at all)\n"
	"  --wide           text: every column and whole strings; by default a\n"
	"                   line fits in 100 columns\n"
	"  --syscall NAME[,NAME...]  compare only these syscalls (names, numbers,\n"
	"                   strace's %classes; '!LIST' leaves them out)\n"
	"  --comm PATTERN   compare only processes whose comm matches (fnmatch(3))\n"
	"  --pid PID[,PID...]  compare only these processes\n"
	"  --errors         compare only the sites (and processes) with errors\n"
	"  --threshold N    amortize: a site is non-amortized when it made fewer\n"
	"                   than N calls; a row for N besides the powers of 2\n"
	"                   (default 16)\n"
	"  -h, --help\n\n"
	"Text tables by default, times in ns, us, ms or s. The tables and their\n"
	"columns are documented in docs/cli.md (section \"diff\").\n";

#define DEFAULT_THRESHOLD 16

/* "syscall,site" or "all" into *by; 0, or -1 for a bad name or none. */
static int parse_by(const char *arg, unsigned int *by)
{
	char *copy = strdup(arg), *save = NULL, *w;
	bool bad = !copy, any = false;
	enum df_by k;

	for (w = strtok_r(copy, ",", &save); w && !bad; w = strtok_r(NULL, ",", &save)) {
		any = true;
		if (!strcmp(w, "all")) {
			*by |= (1U << DF_NBY) - 1;
			continue;
		}
		for (k = 0; k < DF_NBY && strcmp(w, st_diff_by_name(k)); k++)
			;
		if (k == DF_NBY)
			bad = true;
		else
			*by |= 1U << k;
	}
	free(copy);
	return bad || !any ? -1 : 0;
}

/* A, then B: a session operand or an --input file, in command-line order. */
static int add_side(struct diff_opts *o, size_t *n, const char *arg,
		    const char *input)
{
	if (*n == 2)
		return st_usage_error(diff_usage, "diff compares two: A and B; '%s' would be a third",
				      arg ? arg : input);
	o->arg[*n] = arg;
	o->input[*n] = input;
	(*n)++;
	return 0;
}

static int check_opts(const struct diff_opts *o, size_t n)
{
	if (n < 2)
		return st_usage_error(diff_usage, "diff needs A and B, two sessions or --input files; got %zu",
				      n);
	if (o->out.format == ST_FMT_CSV && __builtin_popcount(o->by) > 1)
		return st_usage_error(diff_usage, "--csv prints one table: give one --by KEY");
	return -1;
}

/* Returns -1 to go on, or an exit code. */
static int parse(int argc, char **argv, struct diff_opts *o)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "by", required_argument, NULL, 'b' },
		ST_OUTPUT_OPTIONS,
		ST_WIDE_OPTION,
		ST_SELECT_OPTIONS,
		{ "threshold", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	size_t n = 0;
	int c, mine, ret = 0;

	o->threshold = DEFAULT_THRESHOLD;
	/* "-": operands come as 1, in order among the --input files. */
	while ((c = getopt_long(argc, argv, "-:o:h", opts, NULL)) != -1) {
		mine = st_output_opt(c, optarg, diff_usage, &o->out);
		if (mine == ST_OPT_NOT_MINE)
			mine = st_select_opt(c, optarg, diff_usage, &o->sel);
		if (mine >= 0)
			return mine;
		if (mine != ST_OPT_NOT_MINE)
			continue;
		switch (c) {
		case 1:
			ret = add_side(o, &n, optarg, NULL);
			break;
		case 'i':
			ret = add_side(o, &n, NULL, optarg);
			break;
		case 'b':
			if (parse_by(optarg, &o->by))
				return st_usage_error(diff_usage, "--by: '%s': give syscall, process, site, path, amortize or all",
						      optarg);
			break;
		case 'n':
			if (st_parse_u64(optarg, &o->threshold, 1))
				return st_usage_error(diff_usage, "--threshold needs a number >= 1");
			break;
		case 'h':
			return st_print_usage(diff_usage, ST_CODES_CHECKED);
		default:
			return st_bad_option(diff_usage, argv, c);
		}
		if (ret)
			return ret;
	}
	/* After "--", the rest are operands. */
	for (; optind < argc && !ret; optind++)
		ret = add_side(o, &n, argv[optind], NULL);
	if (ret)
		return ret;
	if (!o->by)
		o->by = 1U << DF_SYSCALL;
	if (o->sel.sort) {
		c = st_diff_sort_parse(o->sel.sort);
		if (c < 0)
			return st_usage_error(diff_usage, "--sort: '%s': give calls, time or errors",
					      o->sel.sort);
		o->sort = (enum df_sort)c;
		o->sel.sort = NULL;	/* st_diff sorts */
	}
	return check_opts(o, n);
}

/*
 * One side: a saved log, a saved dump, or a session; those two have their
 * totals checked, which speaks for itself on stderr.
 */
static int read_side(const struct diff_opts *o, int i, struct st_dump *d,
		     struct st_err *err, int *check)
{
	if (o->input[i] && st_log_is_log(o->input[i]))
		return st_log_load(o->input[i], d, NULL, NULL, NULL, err);
	if (st_dump_read(o->arg[i], o->input[i], d, err))
		return -1;
	if (st_session_report_check(d))
		*check = ST_EXIT_CHECK;
	return 0;
}

static void free_all(struct st_dump d[2], struct rt_report *r, struct diff_opts *o)
{
	rt_report_free(r);
	st_dump_free(&d[0]);
	st_dump_free(&d[1]);
	st_select_free(&o->sel);
}

int diff_main(int argc, char **argv)
{
	struct rt_report r = { 0 };
	struct diff_opts o = { 0 };
	struct st_dump d[2];
	struct st_err err;
	char why[1024];
	int ret, check = 0, i;

	ret = parse(argc, argv, &o);
	if (ret < 0 && st_select_check(&o.sel, why, sizeof(why)))
		ret = st_usage_error(diff_usage, "%s", why);
	if (ret >= 0) {
		st_select_free(&o.sel);
		return ret;
	}
	memset(d, 0, sizeof(d));
	for (i = 0; i < 2; i++) {
		if (read_side(&o, i, &d[i], &err, &check)) {
			free_all(d, &r, &o);
			return st_fail(&err, NULL);
		}
	}
	ret = st_select_dump(&d[0], &o.sel);
	if (!ret)
		ret = st_select_dump(&d[1], &o.sel);
	if (!ret)
		ret = report_diff(&r, &d[0], &d[1], &o);
	if (!ret)
		ret = rt_report_select(&r, &o.sel, why, sizeof(why));
	if (ret)
		st_err_set(&err, ST_ERR_LOCAL, -ret, "building the diff", NULL);
	else
		ret = rt_report_write(&o.out, &r, NULL, &err);
	free_all(d, &r, &o);
	return ret ? st_fail(&err, NULL) : check;
}
