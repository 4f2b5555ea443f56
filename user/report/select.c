// SPDX-License-Identifier: GPL-2.0
/*
 * The selection options that dump, report and diff share: filters of the
 * rows (--syscall, --comm, --pid, --errors), applied to a session's data
 * before anything is computed, and the order and number of the rows shown
 * (--sort KEY, --top N), applied to the tables made from it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* Decimal, no sign, no junk. */
static bool is_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

void st_select_free(struct st_select *s)
{
	size_t i;

	for (i = 0; i < s->ncopies; i++)
		free(s->copies[i]);
	free(s->copies);
	free(s->syscalls);
	free(s->nosyscalls);
	free(s->comms);
	free(s->pids);
	memset(s, 0, sizeof(*s));
}

bool st_select_filters(const struct st_select *s)
{
	return s->nsyscalls || s->nnosyscalls || s->ncomms || s->npids || s->errors;
}

/* The x64 names, for a suggestion; NULL when out of memory. */
static const char **x64_names(size_t *n)
{
	const char **names = malloc(1024 * sizeof(*names));
	uint32_t nr;

	*n = 0;
	for (nr = 0; names && nr < 1024; nr++)
		if (st_syscall_name(SYSTRACE_ABI_X64, nr))
			names[(*n)++] = st_syscall_name(SYSTRACE_ABI_X64, nr);
	return names;
}

static int check_word(const char *w, char *why, size_t len)
{
	const char **names;
	const char *near;
	char hint[64];
	uint32_t abi, nr;
	size_t i, n, at;

	if (is_u32(w, &nr))
		return 0;
	if (*w == '%') {
		if (st_syscall_class(w) >= 0)
			return 0;
		near = st_suggest(w, st_syscall_classes, st_nsyscall_classes);
		at = (size_t)snprintf(why, len, "--syscall: no class is named '%s'; %sclasses:",
				      w, st_did_you_mean(hint, sizeof(hint), near));
		for (i = 0; i < st_nsyscall_classes && at < len; i++)
			at += (size_t)snprintf(why + at, len - at, "%s %s", i ? "," : "",
					       st_syscall_classes[i]);
		return -EINVAL;
	}
	for (abi = 0; abi < __SYSTRACE_ABI_MAX; abi++)
		if (st_syscall_nr(abi, w) >= 0)
			return 0;
	names = x64_names(&n);
	near = names ? st_suggest(w, names, n) : NULL;
	snprintf(why, len, "--syscall: no syscall is named '%s'%s%s%s", w,
		 near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	free(names);
	return -EINVAL;
}

/* A name, or a number, that no ABI knows: refused before any data is read. */
int st_select_check(const struct st_select *s, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < s->nsyscalls; i++)
		if (check_word(s->syscalls[i], why, len))
			return -EINVAL;
	for (i = 0; i < s->nnosyscalls; i++)
		if (check_word(s->nosyscalls[i], why, len))
			return -EINVAL;
	return 0;
}

static bool proc_selected(const struct st_select *s, const struct st_proc_row *p)
{
	size_t i;
	bool ok = !s->ncomms;

	for (i = 0; i < s->ncomms && !ok; i++)
		ok = !fnmatch(s->comms[i], p->comm, 0);
	if (!ok)
		return false;
	if (!s->npids)
		return true;
	for (i = 0; i < s->npids; i++)
		if (s->pids[i] == p->pid)
			return true;
	return false;
}

static bool in_list(const char *const *words, size_t n, uint32_t nr, const char *name)
{
	uint32_t k;
	size_t i;

	for (i = 0; i < n; i++) {
		if (is_u32(words[i], &k) ? k == nr :
		    *words[i] == '%' ? st_syscall_in_class(st_syscall_class(words[i]), name) :
		    name && !strcmp(name, words[i]))
			return true;
	}
	return false;
}

/* In a --syscall list if there is one, and in no '!' list. */
bool st_select_syscall(const struct st_select *s, uint32_t abi, uint32_t nr)
{
	const char *name;

	if (!s->nsyscalls && !s->nnosyscalls)
		return true;
	name = st_syscall_name(abi, nr);
	return (!s->nsyscalls || in_list(s->syscalls, s->nsyscalls, nr, name)) &&
	       !in_list(s->nosyscalls, s->nnosyscalls, nr, name);
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Keeps the rows the filters select, in their order: a process that
 * matches --comm and --pid, a site of such a process that matches
 * --syscall and (with --errors) failed; with --syscall or --errors, a
 * process only if one of its sites is kept.
 */
int st_select_dump(struct st_dump *d, const struct st_select *s)
{
	uint64_t *with_site = NULL;
	size_t i, k, nws = 0;
	bool by_sites = s->nsyscalls || s->nnosyscalls || s->errors;

	if (!st_select_filters(s))
		return 0;
	d->selected = true;
	if (by_sites) {
		with_site = calloc(d->nsites ? d->nsites : 1, sizeof(*with_site));
		if (!with_site)
			return -ENOMEM;
	}
	for (i = k = 0; i < d->nsites; i++) {
		const struct st_site_row *site = &d->sites[i];
		const struct st_proc_row *p = st_dump_find_proc(d, site->proc_id);

		if (!p || !proc_selected(s, p) ||
		    !st_select_syscall(s, site->abi, site->nr) ||
		    (s->errors && !site->errors))
			continue;
		if (by_sites && (!nws || with_site[nws - 1] != site->proc_id))
			with_site[nws++] = site->proc_id;
		d->sites[k++] = *site;
	}
	d->nsites = k;
	st_qsort(with_site, nws, sizeof(*with_site), by_id);
	for (i = k = 0; i < d->nprocs; i++) {
		struct st_proc_row *p = &d->procs[i];

		if (!proc_selected(s, p) ||
		    (by_sites && !bsearch(&p->id, with_site, nws, sizeof(*with_site), by_id))) {
			free(p->exe);
			free(p->argv);
			continue;
		}
		d->procs[k++] = *p;
	}
	d->nprocs = k;
	free(with_site);
	return 0;
}

bool st_select_path(const struct st_dump *d, const struct st_select *s,
		    const struct st_path_row *p)
{
	if (s && s->errors && !p->err)
		return false;
	if (s && !st_select_syscall(s, p->abi, p->nr))
		return false;
	return !d->selected || st_dump_find_proc(d, p->proc_id);
}

/* "--syscall openat,close --syscall '!%process' --comm 'cc*' --pid 12 --errors" */
int st_select_describe(const struct st_select *s, char *buf, size_t len)
{
	size_t i, at = 0;
	int n;

#define PUT(...)							\
	do {								\
		n = snprintf(buf + at, at < len ? len - at : 0, __VA_ARGS__); \
		if (n > 0)						\
			at += (size_t)n;				\
	} while (0)
	buf[0] = '\0';
	for (i = 0; i < s->nsyscalls; i++)
		PUT("%s%s", i ? "," : "--syscall ", s->syscalls[i]);
	for (i = 0; i < s->nnosyscalls; i++)
		PUT("%s%s", i ? "," : at ? " --syscall '!" : "--syscall '!", s->nosyscalls[i]);
	if (s->nnosyscalls)
		PUT("'");
	for (i = 0; i < s->ncomms; i++)
		PUT("%s--comm '%s'", at ? " " : "", s->comms[i]);
	for (i = 0; i < s->npids; i++)
		PUT("%s%" PRIu32, i ? "," : at ? " --pid " : "--pid ", s->pids[i]);
	if (s->errors)
		PUT("%s--errors", at ? " " : "");
#undef PUT
	return at < len ? 0 : -ENOSPC;
}

/* A note of what was selected: "selection: ...: 3 of 129 processes, ...". */
int rt_note_selection(struct rt_report *r, const struct st_select *s,
		      const struct st_dump *d, size_t nprocs, size_t nsites)
{
	char what[512];

	if (!st_select_filters(s))
		return 0;
	st_select_describe(s, what, sizeof(what));
	return rt_note(r, "selection: %s: %zu of %zu processes, %zu of %zu site rows",
		       what, d->nprocs, nprocs, d->nsites, nsites);
}

/* Sorting a table by a column. */

static size_t column_of(const struct rt_table *t, const char *name)
{
	size_t c;

	for (c = 0; c < t->ncols; c++)
		if (st_sort_names(name, t->cols[c]))
			return c;
	return t->ncols;
}

size_t rt_table_column(const struct rt_table *t, const char *key)
{
	size_t c = column_of(t, key);
	const char *const *alias = c < t->ncols ? NULL : st_sort_alias(key);

	for (; alias && *alias && c == t->ncols; alias++)
		c = column_of(t, *alias);
	return c;
}

/* The rows in the order of column col (st_cell_cmp: the dump's order too). */
int rt_table_sort(struct rt_table *t, size_t col)
{
	struct st_sort_key *keys;
	struct st_cell *cells;
	size_t i;

	if (col >= t->ncols || t->nrows < 2)
		return 0;
	keys = malloc(t->nrows * sizeof(*keys));
	cells = malloc(t->nrows * t->ncols * sizeof(*cells));
	if (!keys || !cells) {
		free(keys);
		free(cells);
		return -ENOMEM;
	}
	for (i = 0; i < t->nrows; i++) {
		keys[i].row = i;
		keys[i].c = t->cells[i * t->ncols + col];
	}
	st_sort_keys(keys, t->nrows);
	for (i = 0; i < t->nrows; i++)
		memcpy(&cells[i * t->ncols], &t->cells[keys[i].row * t->ncols],
		       t->ncols * sizeof(*cells));
	free(t->cells);
	t->cells = cells;
	t->cap = t->nrows;
	free(keys);
	return 0;
}

void rt_table_top(struct rt_table *t, uint64_t n)
{
	size_t i;

	if (n >= t->nrows)
		return;
	for (i = n * t->ncols; i < t->nrows * t->ncols; i++)
		free((char *)t->cells[i].s);
	t->nrows = n;
}

static bool listed(const char *const *words, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(words[i], w))
			return true;
	return false;
}

/*
 * "--sort: report R has no column 'K'; did you mean 'N'? keys: ..." with
 * the text headings of the ranked tables' columns, then the aliases they
 * have.
 */
static void no_sort_key(const struct rt_report *r, const char *key, char *why, size_t len)
{
	static const char *const aliases[] = { "time", "calls", "errors" };
	char heads[256][48], hint[64];
	const char *words[256] = { 0 };
	size_t i, c, n = 0, at;

	for (i = 0; i < r->ntables; i++) {
		const struct rt_table *t = r->tables[i];

		for (c = 0; t->ranked && c < t->ncols && n < 256; c++) {
			st_text_heading(t->cols[c], heads[n], sizeof(heads[n]));
			if (!listed(words, n, heads[n])) {
				words[n] = heads[n];
				n++;
			}
		}
		for (c = 0; t->ranked && c < 3 && n < 256; c++)
			if (rt_table_column(t, aliases[c]) < t->ncols && !listed(words, n, aliases[c]))
				words[n++] = aliases[c];
	}
	if (!n) {
		snprintf(why, len, "--sort: report %s has no list to sort", r->name);
		return;
	}
	at = (size_t)snprintf(why, len, "--sort: report %s has no column '%s'; %skeys:", r->name, key,
			      st_did_you_mean(hint, sizeof(hint), st_suggest(key, words, n)));
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(why + at, len - at, "%s %s", i ? "," : "", words[i]);
}

/*
 * --sort KEY and --top N on the report's ranked tables (each one that has
 * KEY, for --sort). A KEY no ranked table has is an error, named in why
 * with the keys there are.
 */
int rt_report_select(struct rt_report *r, const struct st_select *s,
		     char *why, size_t len)
{
	size_t i, col;
	bool found = false;
	int ret;

	for (i = 0; i < r->ntables; i++) {
		struct rt_table *t = r->tables[i];

		if (!t->ranked)
			continue;
		if (s->sort) {
			col = rt_table_column(t, s->sort);
			if (col < t->ncols) {
				found = true;
				ret = rt_table_sort(t, col);
				if (ret)
					return ret;
			}
		}
		if (!t->own_top && s->has_top)
			rt_table_top(t, s->top);
	}
	if (s->sort && !found) {
		no_sort_key(r, s->sort, why, len);
		return -EINVAL;
	}
	return 0;
}

void rt_report_text_view(struct rt_report *r, const struct st_select *s,
			 bool by_process, bool all)
{
	size_t i, k;

	for (i = k = 0; i < r->ntables; i++) {
		struct rt_table *t = r->tables[i];

		if (t->detail && !by_process && !all) {
			r->hidden++;
			r->hidden_rows += t->nrows;
			rt_table_free(t);
			continue;
		}
		if (t->ranked && !t->own_top && !s->has_top && !all &&
		    t->nrows > RT_TEXT_TOP) {
			t->more = t->nrows - RT_TEXT_TOP;
			rt_table_top(t, RT_TEXT_TOP);
		}
		r->tables[k++] = t;
	}
	r->ntables = k;
}
