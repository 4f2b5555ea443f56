/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_REPORT_H
#define SYSTRACE_REPORT_H

/*
 * systracectl report: analyses of one session (docs/cli.md, "report").
 * Each report computes plain structs from a struct st_dump (tested on
 * fixtures), then turns them into tables of typed cells (report/report.c),
 * which the table writer (lib/out/table.h) prints as aligned text, CSV or
 * JSON; report.c frames them into one document.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libsystrace.h"

struct st_select;

/* Tables whose cells are kept: a row is built, then the next. */

struct rt_table {
	const char *name;	/* JSON key, --table NAME */
	const char *title;	/* text heading */
	const char *const *cols;
	size_t ncols;
	bool single;		/* one row, a JSON object rather than an array */
	struct st_cell *cells;		/* ST_STR: an owned copy */
	size_t nrows, cap;
	unsigned char *rank;		/* text: see st_table.rank; owned */
	bool ranked;			/* a list --sort and --top apply to */
	bool own_top;			/* the report applied --top itself */
	bool detail;			/* per process or image: text shows it
					 * with --by process or --all only */
	size_t more;			/* text: the rows the default top left out */
};

struct rt_table *rt_table_new(const char *name, const char *title,
			      const char *const *cols, size_t ncols);
void rt_table_free(struct rt_table *t);
/*
 * The text's columns by importance, most important first, NULL-ended: the
 * first is never left out of a narrow text, the unnamed ones go first.
 * Returns 0 or -ENOMEM.
 */
int rt_table_keep(struct rt_table *t, const char *const *order);
/*
 * The report's one-row table "totals" (a JSON object), its row made: its
 * cells in *row. NULL when out of memory.
 */
struct rt_table *rt_totals(const char *const *cols, size_t ncols,
			   struct st_cell **row);
/* A new row of ST_NULL cells; NULL when out of memory. */
struct st_cell *rt_row(struct rt_table *t);
void rt_u64(struct st_cell *c, uint64_t v);
int rt_str(struct st_cell *c, const char *s);	/* NULL s: ST_NULL */
void rt_hex(struct st_cell *c, uint64_t v);
void rt_delta(struct st_cell *c, uint64_t a, uint64_t b);	/* b - a */
/* num / den with 4 decimals; as a percentage with 2. 0 den: ST_NULL. */
void rt_frac(struct st_cell *c, uint64_t num, uint64_t den);
void rt_pct(struct st_cell *c, uint64_t num, uint64_t den);
/* (b - a) / a as a signed percentage with 2 decimals; a = 0: ST_NULL. */
void rt_pct_change(struct st_cell *c, uint64_t a, uint64_t b);
uint64_t rt_ratio(uint64_t num, uint64_t den, uint64_t scale);
/* c[0], c[1], c[2]: the columns abi, nr, syscall. */
int rt_syscall(struct st_cell *c, uint32_t abi, uint32_t nr);

#define RT_MAX_TABLES 8

/*
 * The schema_version of a report's and diff's JSON (the dump's is
 * ST_SCHEMA_VERSION). 2: errnos are an object of counts by name.
 */
#define RT_SCHEMA_VERSION 2

struct rt_report {
	const char *name;
	const char *csv_table;		/* --csv without --table */
	const struct st_dump *dump;
	const struct st_dump *dump_b;	/* diff: JSON has session_a, session_b */
	json_t *params;			/* "parameters" in JSON */
	char *notes[12];			/* text lines above the tables */
	size_t nnotes;
	struct rt_table *tables[RT_MAX_TABLES];
	size_t ntables;
	size_t hidden, hidden_rows;	/* text: detail tables left out */
};

int rt_note(struct rt_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rt_note_source(struct rt_report *r, const char *what,
		   const struct st_dump *d, const char *input);
int rt_add(struct rt_report *r, struct rt_table *t);
/* "selection: ...: K of N processes, S of T site rows", when it filters. */
int rt_note_selection(struct rt_report *r, const struct st_select *s,
		      const struct st_dump *d, size_t nprocs, size_t nsites);
/* --sort and --top on r's ranked tables; -EINVAL and why for a KEY none has. */
int rt_report_select(struct rt_report *r, const struct st_select *s,
		     char *why, size_t len);
/*
 * The default text fits a screen: without --by process (by_process) or
 * --all, the detail tables are left out; without --top or --all, each
 * ranked table shows its RT_TEXT_TOP first rows and says how many more
 * there are.
 */
#define RT_TEXT_TOP 10
void rt_report_text_view(struct rt_report *r, const struct st_select *s,
			 bool by_process, bool all);
void rt_report_free(struct rt_report *r);
/* table: for CSV, the name of the table to print (NULL: the first). */
int rt_report_print(FILE *f, const struct rt_report *r, enum st_format fmt,
		    const char *table);
/* The same, text laid out as layout says (st_text_fit, st_text_wide). */
int rt_report_print_layout(FILE *f, const struct rt_report *r,
			   enum st_format fmt, const char *table,
			   const struct st_text_layout *layout);
int rt_report_write(const struct st_output_opts *out, const struct rt_report *r,
		    const char *table, struct st_err *err);

/*
 * The selection options of dump, report and diff (select.c): filters of
 * the rows, and the order and number of the rows shown.
 */
enum {
	ST_OPT_SORT = 0x100,
	ST_OPT_TOP,
	ST_OPT_SYSCALL,
	ST_OPT_COMM,
	ST_OPT_PID,
	ST_OPT_ERRORS,
};

#define ST_SELECT_OPTIONS						\
	{ "sort", required_argument, NULL, ST_OPT_SORT },		\
	{ "top", required_argument, NULL, ST_OPT_TOP },			\
	{ "syscall", required_argument, NULL, ST_OPT_SYSCALL },		\
	{ "comm", required_argument, NULL, ST_OPT_COMM },		\
	{ "pid", required_argument, NULL, ST_OPT_PID },			\
	{ "errors", no_argument, NULL, ST_OPT_ERRORS }

struct st_select {
	const char **syscalls;		/* names, numbers or %classes */
	size_t nsyscalls;
	const char **nosyscalls;	/* the same, of each --syscall '!LIST' */
	size_t nnosyscalls;
	const char **comms;		/* fnmatch(3) patterns */
	size_t ncomms;
	uint32_t *pids;
	size_t npids;
	bool errors;			/* only rows with errors */
	const char *sort;		/* a column, or time, calls, errors */
	uint64_t top;
	bool has_top;
	char **copies;			/* owned strings the lists point into */
	size_t ncopies;
};

void st_select_free(struct st_select *s);
bool st_select_filters(const struct st_select *s);
/* A --syscall name no ABI knows, or an unknown class: -EINVAL, why says so. */
int st_select_check(const struct st_select *s, char *why, size_t len);
bool st_select_syscall(const struct st_select *s, uint32_t abi, uint32_t nr);
/* Removes the rows the filters leave out; sets d->selected. */
int st_select_dump(struct st_dump *d, const struct st_select *s);
/*
 * Whether path row p is selected (report paths, diff --by path): with
 * --errors a failure, of a --syscall, of a process st_select_dump kept;
 * s NULL: only the latter.
 */
bool st_select_path(const struct st_dump *d, const struct st_select *s,
		    const struct st_path_row *p);
int st_select_describe(const struct st_select *s, char *buf, size_t len);
/* The column of t that key (a column, or time, calls, errors) names, or ncols. */
size_t rt_table_column(const struct rt_table *t, const char *key);
/* Rows by the column: numbers (and |deltas|) largest first, text A to Z. */
int rt_table_sort(struct rt_table *t, size_t col);
void rt_table_top(struct rt_table *t, uint64_t n);

/* Patch sites: the site rows of one (image, address) summed. */

struct st_psite {
	uint64_t proc_id, addr;
	uint64_t calls, errors;
	uint64_t first_ordinal;		/* the smallest of its rows' */
	const struct st_site_row *row;	/* its first row: map, path, sym */
	size_t nrows;
};

/* Ordered by proc_id, then address. Returns 0 or -ENOMEM. */
int st_patch_sites(const struct st_dump *d, struct st_psite **out, size_t *n);
bool st_proc_wall_ns(const struct st_proc_row *p, uint64_t *wall);

/* The reports' computations. */

#define AM_NBUCKETS 65		/* 0 calls, then [2^k, 2^(k+1)) for k < 64 */
#define AM_NTHRESHOLDS 11	/* N = 1, 2, 4 ... 1024 */

struct am_proc {
	const struct st_proc_row *proc;
	uint64_t sites, sites_below, calls, calls_below;
};

struct am_bucket {
	uint64_t min_calls, max_calls;
	uint64_t sites, calls;
};

struct am_threshold {
	uint64_t threshold;
	uint64_t sites_below, calls_below, processes;
};

struct am_result {
	uint64_t threshold;
	struct am_proc *procs;		/* as d->procs */
	size_t nprocs;
	struct am_bucket buckets[AM_NBUCKETS];
	struct am_threshold thresholds[AM_NTHRESHOLDS];
	uint64_t sites, calls, sites_below, calls_below, procs_below;
};

int st_amortize(const struct st_dump *d, uint64_t threshold,
		struct am_result *r);
void st_amortize_free(struct am_result *r);

struct sh_func {
	const char *symbol, *object;
	uint64_t start;			/* file offset of the function */
	uint64_t pairs, calls, procs;
	char *syscalls;			/* "openat:12 read:3" */
};

struct sh_step {
	const struct sh_func *func;
	uint64_t removed, cumulative, procs_clean;
};

/* Pairs without a function, by (reason, object). */
struct sh_unres {
	const char *reason;		/* the map kind, or the symbol_error */
	const char *object;
	uint64_t sites, calls;
};

struct sh_result {
	uint64_t max_ns, threshold;
	uint64_t short_procs;		/* ended, wall < max_ns */
	uint64_t procs_with_pairs;	/* short, with a non-amortized site */
	uint64_t pairs, calls;		/* non-amortized (process, site) */
	uint64_t unresolved_pairs, unresolved_calls;
	struct sh_func *funcs;		/* resolved, ranked */
	size_t nfuncs;
	struct sh_step *steps;		/* the first top of funcs */
	size_t nsteps;
	struct sh_unres *unres;		/* most sites first */
	size_t nunres;
};

int st_short(const struct st_dump *d, uint64_t max_ns, uint64_t threshold,
	     size_t top, struct sh_result *r);
void st_short_free(struct sh_result *r);

struct ph_proc {
	const struct st_proc_row *proc;
	const char *interp;		/* NULL: static, or unknown */
	const struct st_interp *interp_id;	/* see lib/sym/interp.h */
	const char *source;		/* exe, inferred, static, fork, unknown */
	const char *error;		/* why unknown */
	bool known;
	bool has_boundary;
	uint64_t boundary;
	uint64_t loader_calls, loader_sites, program_calls, program_sites;
	uint64_t later_calls;		/* loader sites' calls after it */
	uint64_t undetermined;		/* see st_phases() */
};

struct ph_sys {
	uint32_t abi, nr;
	uint64_t loader_calls, program_calls, undetermined;
	uint64_t loader_sites, program_sites;
};

struct ph_result {
	struct ph_proc *procs;		/* as d->procs */
	size_t nprocs;
	struct ph_sys *sys;
	size_t nsys;
	uint64_t known_procs, unknown_procs, unknown_calls;
	uint64_t loader_calls, program_calls, later_calls, undetermined;
	uint64_t loader_sites, program_sites;
	struct st_symbolizer *sz;	/* owns interp and error strings */
};

int st_phases(const struct st_dump *d, struct ph_result *r);
void st_phases_free(struct ph_result *r);
/* The same, exact, from a log's phases (phases_log.c). */
struct st_log_sums;
int st_phases_log(const struct st_dump *d, const struct st_log_sums *log,
		  struct ph_result *r);
/* The row of (abi, nr) in r->sys, added in order; NULL when out of memory. */
struct ph_sys *st_phases_sys(struct ph_result *r, size_t *cap, uint32_t abi,
			     uint32_t nr);

/* errors: what fails, where and why (errors.c). */

struct er_row {
	uint32_t abi, nr;
	uint64_t calls, errors;
	uint64_t procs;			/* sites: the images that ran it */
	const struct st_site_row *site;	/* sites: one of its rows */
	const struct st_proc_row *proc;	/* processes: the row */
	bool has_errnos;		/* false: some were not counted */
	struct st_errnos errnos;
};

struct er_result {
	uint64_t calls, errors;		/* of the whole tree */
	struct er_row *sys, *sites, *procs;	/* those with errors, most first */
	size_t nsys, nsites, nprocs;
	bool has_errnos;
	struct st_errnos errnos;	/* the tree's four first, and other */
	struct st_errno_count *all_errnos;	/* the tree's, each errno, most first */
	size_t nall, nerrnos;
	uint64_t other;			/* the sites' own other */
};

int st_errors(const struct st_dump *d, struct er_result *r);
void st_errors_free(struct er_result *r);

/*
 * timeline: lifetimes by start, split by phase when a log is given, packed
 * into lanes (one per process running at once), with the critical path
 * (see report/timeline.c).
 */

struct tl_row {
	const struct st_proc_row *proc;
	uint64_t start, end;		/* end: the data's last time if running */
	bool running;
	bool has_loader;		/* the log has loader-phase calls */
	uint64_t loader_end;		/* first program-phase call, or end */
	bool has_program;
	uint64_t program_ns;
	bool has_children;		/* it forked an image of the data */
	uint32_t lane;
};

/* A stretch of the critical path: the time [from, to) of rows[row]. */
struct tl_seg {
	size_t row;
	uint64_t from, to;
};

struct tl_result {
	struct tl_row *rows;		/* by start, then proc_id */
	size_t n;
	uint64_t t0, t1;		/* first start, last end */
	bool phases;			/* from a log */
	uint32_t lanes;			/* the most rows running at once */
	uint64_t busy_ns;		/* the rows' lifetimes, summed */
	struct tl_seg *crit;		/* the critical path, in time order */
	size_t ncrit;
};

int st_timeline(const struct st_dump *d, const struct st_log_sums *log,
		struct tl_result *r);
void st_timeline_free(struct tl_result *r);

/* What the SVG's header says beside the figures it computes. */
struct tl_header {
	const char *title;		/* "session 3 \"build\"" */
	const char *command;		/* the root image's executable or comm */
};

int st_timeline_svg(FILE *f, const struct tl_result *r,
		    const struct tl_header *h);

/* diff: two sessions, by key (see report/diff.c). */

enum df_by { DF_SYSCALL, DF_PROCESS, DF_SITE, DF_PATH, DF_AMORTIZE, DF_NBY };

/* What comes first: the largest change in calls, in time or in errors. */
enum df_sort { DF_SORT_CALLS, DF_SORT_TIME, DF_SORT_ERRORS };

struct df_row {
	const char *str[2];		/* key strings (NULL sorts first) */
	uint64_t num[3];		/* key numbers */
	const struct st_sym *sym;	/* a site's symbol, B's if it has one */
	uint64_t rows[2];		/* rows folded in, of A and of B */
	uint64_t calls[2], errors[2], ns[2];
};

struct df_result {
	struct df_row *rows;		/* by change, largest first */
	size_t n;
};

/*
 * by: DF_SYSCALL, DF_PROCESS, DF_SITE or DF_PATH. The rows point into a
 * and b, the largest change (|B - A|) of sort first, then of calls, time,
 * errors. DF_PATH: a row per (path, kind, abi, nr, errno): str[0] the
 * path (NULL unless kind is ST_PATH_OK), num[0] the kind, num[1] abi <<
 * 32 | nr, num[2] the errno; calls its calls, errors those of a failure,
 * no time. st_diff_select: DF_PATH's rows of the path rows sel selects
 * (st_select_path); sel NULL: all.
 */
int st_diff(const struct st_dump *a, const struct st_dump *b, enum df_by by,
	    enum df_sort sort, struct df_result *r);
int st_diff_select(const struct st_dump *a, const struct st_dump *b, enum df_by by,
		   enum df_sort sort, const struct st_select *sel, struct df_result *r);
/* "calls", "time", "errors" (--sort); -1 for another name. */
int st_diff_sort_parse(const char *name);
void st_diff_free(struct df_result *r);
const char *st_diff_status(const struct df_row *row);
const char *st_diff_by_name(enum df_by by);

struct diff_opts {
	const char *arg[2];		/* A and B: a session, or NULL */
	const char *input[2];		/* A and B: a file, or NULL */
	struct st_output_opts out;
	unsigned int by;		/* 1 << enum df_by */
	uint64_t threshold;
	enum df_sort sort;
	struct st_select sel;		/* filters of both sides, --top */
};

/* Symbolizes a and b for the sites table when they are not yet. */
int report_diff(struct rt_report *r, struct st_dump *a, struct st_dump *b,
		const struct diff_opts *o);

/* Building the tables of each report. */

struct report_opts {
	const char *session;
	const char *input;
	struct st_output_opts out;
	const char *table;
	uint64_t threshold;
	uint64_t max_ms;
	struct st_select sel;		/* filters, --sort, --top */
	bool by_process, all;		/* --by process, --all */
	const char *svg;		/* timeline: the SVG's path */
	const struct st_log_sums *log;	/* --input LOG: what its events say */
};

/* short symbolizes d when it is not yet. */
int report_amortize(struct rt_report *r, struct st_dump *d,
		    const struct report_opts *o);
int report_short(struct rt_report *r, struct st_dump *d,
		 const struct report_opts *o);
int report_phases(struct rt_report *r, struct st_dump *d,
		  const struct report_opts *o);
int report_syscalls(struct rt_report *r, struct st_dump *d,
		    const struct report_opts *o);
int report_timeline(struct rt_report *r, struct st_dump *d,
		    const struct report_opts *o);
/* paths: the paths of file calls, by (path, syscall, result), most calls first. */
int report_paths(struct rt_report *r, struct st_dump *d, const struct report_opts *o);
/*
 * top: the processes and syscalls whose counters gained the most between
 * prev (NULL: since the start) and now, ns apart; top rows of each.
 */
int report_top(struct rt_report *r, const struct st_dump *prev,
	       const struct st_dump *now, uint64_t ns, uint64_t top);
/* errors symbolizes d when it is not yet. */
int report_errors(struct rt_report *r, struct st_dump *d,
		  const struct report_opts *o);

#endif
