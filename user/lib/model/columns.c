// SPDX-License-Identifier: GPL-2.0
/* The column lists of the dump's tables (see docs/cli.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "model/model.h"
#include "model/columns.h"
#include "model/names.h"
#include "base/suggest.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void v_null(struct st_val *v)
{
	v->c.kind = ST_NULL;
}

static void v_uint(struct st_val *v, uint64_t u)
{
	v->c.kind = ST_U64;
	v->c.u = u;
}

static void v_str(struct st_val *v, const char *s)
{
	if (!s) {
		v_null(v);
		return;
	}
	v->c.kind = ST_STR;
	v->c.s = s;
}

static void v_hex(struct st_val *v, uint64_t u)
{
	v->c.kind = ST_HEX;
	v->c.u = u;
}

static void v_bool(struct st_val *v, bool b)
{
	v->c.kind = ST_BOOL;
	v->c.u = b;
}

/* An enum's name, or its number for a value newer than this tool. */
static void v_enum(struct st_val *v, const char *name, uint32_t value)
{
	if (name) {
		v_str(v, name);
		return;
	}
	snprintf(v->buf, sizeof(v->buf), "%" PRIu32, value);
	v_str(v, v->buf);
}

/* ISO 8601, UTC, nanoseconds: 2024-05-01T12:34:56.123456789Z */
void st_format_time(uint64_t realtime_ns, char *buf, size_t len)
{
	/* The rows of a build start within a few seconds: format each once. */
	static __thread time_t last_sec = -1;
	static __thread char day[32];
	char out[sizeof(day) + 12];
	time_t sec = (time_t)(realtime_ns / 1000000000ULL);
	uint64_t ns = realtime_ns % 1000000000U;
	struct tm tm;
	size_t n, i;

	if (sec != last_sec) {
		if (!gmtime_r(&sec, &tm) ||
		    !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
			last_sec = -1;
			snprintf(buf, len, "%s", "");
			return;
		}
		last_sec = sec;
	}
	/* "%s.%09" PRIu64 "Z" by hand: a process row has two, printf is slow. */
	n = strlen(day);
	memcpy(out, day, n);
	out[n] = '.';
	for (i = 9; i > 0; i--, ns /= 10)
		out[n + i] = (char)('0' + ns % 10);
	memcpy(out + n + 10, "Z", 2);
	if (n + 12 <= len) {
		memcpy(buf, out, n + 12);
	} else if (len) {
		memcpy(buf, out, len - 1);	/* cut as snprintf cuts */
		buf[len - 1] = '\0';
	}
}

/* syscalls per 1000 instructions, in thousandths, rounded to nearest. */
bool st_per_kinsn(uint64_t syscalls, uint64_t instructions, uint64_t *milli)
{
	unsigned __int128 num;

	if (!instructions)
		return false;
	num = (unsigned __int128)syscalls * 1000000U;
	*milli = (uint64_t)((num + instructions / 2) / instructions);
	return true;
}

/* The session. */

static void c_s_id(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->session->id);
}

/* A name, or null for none (the empty string too). */
static void v_name(struct st_val *v, const char *s)
{
	v_str(v, s && *s ? s : NULL);
}

static void c_s_backend(const struct st_row *r, struct st_val *v)
{
	v_name(v, st_backend_name(r->session->backend));
}

static void c_s_name(const struct st_row *r, struct st_val *v)
{
	v_name(v, r->session->name);
}

static void c_s_state(const struct st_row *r, struct st_val *v)
{
	v_name(v, st_state_name(r->session->state));
}

static void c_s_created_time(const struct st_row *r, struct st_val *v)
{
	st_format_time(r->session->created_ns + r->session->realtime_base_ns,
		       v->buf, sizeof(v->buf));
	v_name(v, v->buf);
}

static void c_s_counters(const struct st_row *r, struct st_val *v)
{
	v_name(v, st_counters_name(r->session->counters));
}

static void c_s_counters_error(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->session->has_counters_error ? r->session->counters_error : NULL);
}

static void c_s_log_buffer(const struct st_row *r, struct st_val *v)
{
	if (r->session->log_buffer)
		v_uint(v, r->session->log_buffer);
	else
		v_null(v);
}

static void session_counter(const struct st_row *r, struct st_val *v,
			    uint32_t mode)
{
	if (r->session->counters == mode && r->session->has_counter_value)
		v_uint(v, r->session->counter_value);
	else
		v_null(v);
}

static void c_s_instructions(const struct st_row *r, struct st_val *v)
{
	session_counter(r, v, SYSTRACE_COUNTERS_INSTRUCTIONS);
}

static void c_s_cycles(const struct st_row *r, struct st_val *v)
{
	session_counter(r, v, SYSTRACE_COUNTERS_CYCLES);
}

static void c_s_task_clock_ns(const struct st_row *r, struct st_val *v)
{
	session_counter(r, v, SYSTRACE_COUNTERS_TASK_CLOCK);
}

#define SESSION_U64(fn, field)						\
static void fn(const struct st_row *r, struct st_val *v)		\
{									\
	v_uint(v, r->session->field);					\
}

SESSION_U64(c_s_root_pid, root_pid)
SESSION_U64(c_s_flags, flags)
SESSION_U64(c_s_created_ns, created_ns)
SESSION_U64(c_s_realtime_base_ns, realtime_base_ns)
SESSION_U64(c_s_live_tasks, live_tasks)
SESSION_U64(c_s_procs, procs)
SESSION_U64(c_s_sites, sites)
SESSION_U64(c_s_syscalls, syscalls)
SESSION_U64(c_s_errors, errors)
SESSION_U64(c_s_syscall_ns, syscall_ns)
#define ST_STAT_COLUMN(name, key, kind) SESSION_U64(c_s_##key, key)
SYSTRACE_SESSION_STATS(ST_STAT_COLUMN)
#undef ST_STAT_COLUMN
SESSION_U64(c_s_mem_bytes, mem_bytes)
SESSION_U64(c_s_proc_row_bytes, proc_row_bytes)
SESSION_U64(c_s_site_row_bytes, site_row_bytes)

static const struct st_column session_columns[] = {
	{ "id", c_s_id },
	{ "backend", c_s_backend },
	{ "name", c_s_name },
	{ "root_pid", c_s_root_pid },
	{ "state", c_s_state },
	{ "flags", c_s_flags },
	{ "created_ns", c_s_created_ns },
	{ "created_time", c_s_created_time },
	{ "realtime_base_ns", c_s_realtime_base_ns },
	{ "counters", c_s_counters },
	{ "counters_error", c_s_counters_error },
	{ "live_tasks", c_s_live_tasks },
	{ "processes", c_s_procs },
	{ "sites", c_s_sites },
	{ "syscalls", c_s_syscalls },
	{ "errors", c_s_errors },
	{ "syscall_ns", c_s_syscall_ns },
#define ST_STAT_COLUMN(name, key, kind) { #key, c_s_##key },
	SYSTRACE_SESSION_STATS(ST_STAT_COLUMN)
#undef ST_STAT_COLUMN
	{ "mem_bytes", c_s_mem_bytes },
	{ "proc_row_bytes", c_s_proc_row_bytes },
	{ "site_row_bytes", c_s_site_row_bytes },
	{ "log_buffer", c_s_log_buffer },
	{ "instructions", c_s_instructions },
	{ "cycles", c_s_cycles },
	{ "task_clock_ns", c_s_task_clock_ns },
};

const struct st_column *st_session_columns(size_t *n)
{
	*n = ARRAY_SIZE(session_columns);
	return session_columns;
}

/* Common: rows that belong to a session and a process. */

static void c_session_id(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->session->id);
}

static void c_proc_id(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->site ? r->site->proc_id : r->agg->proc_id);
}

static void c_pid(const struct st_row *r, struct st_val *v)
{
	if (r->proc)
		v_uint(v, r->proc->pid);
	else
		v_null(v);
}

static void c_comm(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->proc ? r->proc->comm : NULL);
}

/* Processes. */

static void c_id(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->proc->id);
}

static void c_parent_id(const struct st_row *r, struct st_val *v)
{
	if (r->proc->parent_id)
		v_uint(v, r->proc->parent_id);
	else
		v_null(v);
}

static void c_prev_id(const struct st_row *r, struct st_val *v)
{
	if (r->proc->prev_id)
		v_uint(v, r->proc->prev_id);
	else
		v_null(v);
}

static void c_proc_pid(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->proc->pid);
}

static void c_tgid(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->proc->tgid);
}

static void c_ppid(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->proc->ppid);
}

static void c_exe(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->proc->exe);
}

static void c_start_ns(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->proc->start_ns);
}

static void c_end_ns(const struct st_row *r, struct st_val *v)
{
	if (r->proc->has_end_ns)
		v_uint(v, r->proc->end_ns);
	else
		v_null(v);
}

static void c_wall_ns(const struct st_row *r, struct st_val *v)
{
	const struct st_proc_row *p = r->proc;

	if (p->has_end_ns && p->end_ns >= p->start_ns)
		v_uint(v, p->end_ns - p->start_ns);
	else
		v_null(v);
}

static void c_start_time(const struct st_row *r, struct st_val *v)
{
	st_format_time(r->proc->start_ns + r->session->realtime_base_ns,
		       v->buf, sizeof(v->buf));
	v_str(v, v->buf);
}

static void c_end(const struct st_row *r, struct st_val *v)
{
	v_enum(v, st_end_name(r->proc->end), r->proc->end);
}

static void c_exit_code(const struct st_row *r, struct st_val *v)
{
	if (r->proc->has_exit_code)
		v_uint(v, r->proc->exit_code);
	else
		v_null(v);
}

static void c_exit_signal(const struct st_row *r, struct st_val *v)
{
	if (r->proc->has_exit_signal)
		v_uint(v, r->proc->exit_signal);
	else
		v_null(v);
}

/* Unknown while the image may still dump core. */
static void c_core_dumped(const struct st_row *r, struct st_val *v)
{
	if (r->proc->end == SYSTRACE_END_RUNNING ||
	    r->proc->end == SYSTRACE_END_DETACHED)
		v_null(v);
	else
		v_bool(v, r->proc->core_dumped);
}

#define PROC_U64(fn, field)						\
static void fn(const struct st_row *r, struct st_val *v)		\
{									\
	v_uint(v, r->proc->field);					\
}

PROC_U64(c_threads, threads)
#define ST_PROC_COLUMN(name, field) PROC_U64(c_proc_##field, field)
SYSTRACE_PROC_COUNTERS(ST_PROC_COLUMN)
#undef ST_PROC_COLUMN
PROC_U64(c_sites, sites)
#define ST_ACCT_COLUMN(name, field, column) PROC_U64(c_acct_##field, field)
SYSTRACE_PROC_ACCT(ST_ACCT_COLUMN)
#undef ST_ACCT_COLUMN

/* The counter value goes to the one column that names what was counted. */
static void counter_column(const struct st_row *r, struct st_val *v,
			   uint32_t mode)
{
	if (r->session->counters == mode && r->proc->has_counter_value)
		v_uint(v, r->proc->counter_value);
	else
		v_null(v);
}

static void c_instructions(const struct st_row *r, struct st_val *v)
{
	counter_column(r, v, SYSTRACE_COUNTERS_INSTRUCTIONS);
}

static void c_cycles(const struct st_row *r, struct st_val *v)
{
	counter_column(r, v, SYSTRACE_COUNTERS_CYCLES);
}

static void c_task_clock_ns(const struct st_row *r, struct st_val *v)
{
	counter_column(r, v, SYSTRACE_COUNTERS_TASK_CLOCK);
}

static void c_per_kinsn(const struct st_row *r, struct st_val *v)
{
	uint64_t milli;

	if (r->session->counters == SYSTRACE_COUNTERS_INSTRUCTIONS &&
	    r->proc->has_counter_value &&
	    st_per_kinsn(r->proc->syscalls, r->proc->counter_value, &milli)) {
		v->c.kind = ST_FIXED;
		v->c.decimals = 3;
		v->c.u = milli;
	} else {
		v_null(v);
	}
}

static void c_attached(const struct st_row *r, struct st_val *v)
{
	v_bool(v, r->proc->attached);
}

/* argv: null when unknown; argv_truncated too, so that "" is told apart. */
static void c_argv(const struct st_row *r, struct st_val *v)
{
	if (!r->proc->argv) {
		v_null(v);
		return;
	}
	v->c.kind = ST_ARGV;
	v->c.s = r->proc->argv;
	v->c.u = r->proc->argv_len;
}

static void c_argv_truncated(const struct st_row *r, struct st_val *v)
{
	if (r->proc->argv)
		v_bool(v, r->proc->argv_truncated);
	else
		v_null(v);
}

static const struct st_column proc_columns[] = {
	{ "session_id", c_session_id },
	{ "id", c_id },
	{ "parent_id", c_parent_id },
	{ "prev_id", c_prev_id },
	{ "pid", c_proc_pid },
	{ "tgid", c_tgid },
	{ "ppid", c_ppid },
	{ "comm", c_comm },
	{ "exe", c_exe },
	{ "start_ns", c_start_ns },
	{ "end_ns", c_end_ns },
	{ "wall_ns", c_wall_ns },
	{ "start_time", c_start_time },
	{ "end", c_end },
	{ "exit_code", c_exit_code },
	{ "exit_signal", c_exit_signal },
	{ "core_dumped", c_core_dumped },
	{ "threads", c_threads },
#define ST_PROC_COLUMN(name, field) { #field, c_proc_##field },
	SYSTRACE_PROC_COUNTERS(ST_PROC_COLUMN)
#undef ST_PROC_COLUMN
	{ "sites", c_sites },
#define ST_ACCT_COLUMN(name, field, column) { #column, c_acct_##field },
	SYSTRACE_PROC_ACCT(ST_ACCT_COLUMN)
#undef ST_ACCT_COLUMN
	{ "instructions", c_instructions },
	{ "cycles", c_cycles },
	{ "task_clock_ns", c_task_clock_ns },
	{ "syscalls_per_kinsn", c_per_kinsn },
	{ "attached", c_attached },
	{ "argv", c_argv },
	{ "argv_truncated", c_argv_truncated },
};

/* Sites. */

static void c_addr(const struct st_row *r, struct st_val *v)
{
	v_hex(v, r->site->addr);
}

static void c_abi(const struct st_row *r, struct st_val *v)
{
	uint32_t abi = r->site ? r->site->abi : r->agg->abi;

	v_enum(v, st_abi_name(abi), abi);
}

static void c_nr(const struct st_row *r, struct st_val *v)
{
	v_uint(v, r->site ? r->site->nr : r->agg->nr);
}

static void c_syscall(const struct st_row *r, struct st_val *v)
{
	if (r->site)
		v_str(v, st_syscall_name(r->site->abi, r->site->nr));
	else
		v_str(v, st_syscall_name(r->agg->abi, r->agg->nr));
}

static void c_map(const struct st_row *r, struct st_val *v)
{
	v_enum(v, st_map_name(r->site->map), r->site->map);
}

static void c_path(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->site->path);
}

static void c_offset(const struct st_row *r, struct st_val *v)
{
	if (r->site->map == SYSTRACE_MAP_UNKNOWN)
		v_null(v);
	else
		v_hex(v, r->site->offset);
}

#define SITE_U64(fn, field)						\
static void fn(const struct st_row *r, struct st_val *v)		\
{									\
	v_uint(v, r->site->field);					\
}

#define ST_SITE_COLUMN(name, field, merge) SITE_U64(c_site_##field, field)
SYSTRACE_SITE_COUNTERS(ST_SITE_COLUMN)
#undef ST_SITE_COLUMN
SITE_U64(c_first_ns, first_ns)
SITE_U64(c_first_ordinal, first_ordinal)

static void c_avg_ns(const struct st_row *r, struct st_val *v)
{
	if (r->site->calls)
		v_uint(v, r->site->total_ns / r->site->calls);
	else
		v_null(v);
}

static void c_inode(const struct st_row *r, struct st_val *v)
{
	if (r->site->has_file_id)
		v_uint(v, r->site->inode);
	else
		v_null(v);
}

static void c_dev(const struct st_row *r, struct st_val *v)
{
	if (r->site->has_file_id)
		v_uint(v, r->site->dev);
	else
		v_null(v);
}

static void c_mtime_ns(const struct st_row *r, struct st_val *v)
{
	if (r->site->has_file_id)
		v_uint(v, r->site->mtime_ns);
	else
		v_null(v);
}

/*
 * Errnos, of a site or of a sum per syscall: errnos, "ENOENT(2)=37
 * EACCES(13)=5" (st_errnos_format: the most frequent, name, number and
 * count of each; "" for none), and errno_other. Both null when the tracer
 * did not count errnos.
 */
static const struct st_errnos *row_errnos(const struct st_row *r)
{
	if (r->site)
		return r->site->errnos;
	return r->agg->has_errnos ? &r->agg->errnos : NULL;
}

static void c_errnos(const struct st_row *r, struct st_val *v)
{
	/* Sites share their pooled errnos: the last one's text is kept. */
	static __thread const struct st_errnos *last;
	static __thread char text[ST_ERRNOS_TEXT];
	const struct st_errnos *e = row_errnos(r);

	if (!e) {
		v_null(v);
		return;
	}
	if (!e->n) {
		v_str(v, "");
		return;
	}
	if (e != last || !r->site) {
		st_errnos_format(e, text, sizeof(text));
		last = r->site ? e : NULL;
	}
	v_str(v, text);
}

static void c_errno_other(const struct st_row *r, struct st_val *v)
{
	const struct st_errnos *e = row_errnos(r);

	if (e)
		v_uint(v, e->other);
	else
		v_null(v);
}

static const struct st_column errno_columns[] = {
	{ "errnos", c_errnos },
	{ "errno_other", c_errno_other },
};

static const struct st_column site_head[] = {
	{ "session_id", c_session_id },
	{ "proc_id", c_proc_id },
	{ "pid", c_pid },
	{ "comm", c_comm },
	{ "addr", c_addr },
	{ "abi", c_abi },
	{ "nr", c_nr },
	{ "syscall", c_syscall },
	{ "map", c_map },
	{ "path", c_path },
	{ "offset", c_offset },
};

/* The counters (SYSTRACE_SITE_COUNTERS), then avg_ns after total_ns. */
static const struct st_column site_counters[] = {
#define ST_SITE_COLUMN(name, field, merge) { #field, c_site_##field },
	SYSTRACE_SITE_COUNTERS(ST_SITE_COLUMN)
#undef ST_SITE_COLUMN
};

static const int site_counter_attrs[] = {
#define ST_SITE_ATTR(name, field, merge) SYSTRACE_SITE_A_##name,
	SYSTRACE_SITE_COUNTERS(ST_SITE_ATTR)
#undef ST_SITE_ATTR
};

static const struct st_column site_avg = { "avg_ns", c_avg_ns };

static const struct st_column site_tail[] = {
	{ "first_ns", c_first_ns },
	{ "first_ordinal", c_first_ordinal },
	{ "inode", c_inode },
	{ "dev", c_dev },
	{ "mtime_ns", c_mtime_ns },
};

static struct st_column site_columns[ARRAY_SIZE(site_head) +
				     ARRAY_SIZE(site_counters) + 1 +
				     ARRAY_SIZE(site_tail) +
				     ARRAY_SIZE(errno_columns)];

static void site_columns_make(void)
{
	size_t i, n = 0;

	if (site_columns[0].name)
		return;
	for (i = 0; i < ARRAY_SIZE(site_head); i++)
		site_columns[n++] = site_head[i];
	for (i = 0; i < ARRAY_SIZE(site_counters); i++) {
		site_columns[n++] = site_counters[i];
		if (site_counter_attrs[i] == SYSTRACE_SITE_A_TOTAL_NS)
			site_columns[n++] = site_avg;
	}
	for (i = 0; i < ARRAY_SIZE(site_tail); i++)
		site_columns[n++] = site_tail[i];
	for (i = 0; i < ARRAY_SIZE(errno_columns); i++)
		site_columns[n++] = errno_columns[i];
}

/* Filled by a symbolizer (st_dump.symbolized); see struct st_sym. */

static void c_object(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->site->sym ? r->site->sym->object : NULL);
}

static void c_symbol(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->site->sym ? r->site->sym->symbol : NULL);
}

static void c_symbol_offset(const struct st_row *r, struct st_val *v)
{
	if (r->site->sym && r->site->sym->has_symbol_offset)
		v_hex(v, r->site->sym->symbol_offset);
	else
		v_null(v);
}

static void c_build_id(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->site->sym ? r->site->sym->build_id : NULL);
}

static void c_symbol_error(const struct st_row *r, struct st_val *v)
{
	v_str(v, r->site->sym ? r->site->sym->error : NULL);
}

static const struct st_column symbol_columns[] = {
	{ "object", c_object },
	{ "symbol", c_symbol },
	{ "symbol_offset", c_symbol_offset },
	{ "build_id", c_build_id },
	{ "symbol_error", c_symbol_error },
};

/* Syscalls: the sites of one image summed per (abi, nr). */

#define AGG_U64(fn, field)						\
static void fn(const struct st_row *r, struct st_val *v)		\
{									\
	v_uint(v, r->agg->field);					\
}

#define ST_AGG_COLUMN(name, field, merge) AGG_U64(c_agg_##field, field)
SYSTRACE_SITE_COUNTERS(ST_AGG_COLUMN)
#undef ST_AGG_COLUMN
AGG_U64(c_agg_sites, sites)

static const struct st_column syscall_columns[] = {
	{ "session_id", c_session_id },
	{ "proc_id", c_proc_id },
	{ "pid", c_pid },
	{ "comm", c_comm },
	{ "abi", c_abi },
	{ "nr", c_nr },
	{ "syscall", c_syscall },
#define ST_AGG_COLUMN(name, field, merge) { #field, c_agg_##field },
	SYSTRACE_SITE_COUNTERS(ST_AGG_COLUMN)
#undef ST_AGG_COLUMN
	{ "sites", c_agg_sites },
	{ "errnos", c_errnos },
	{ "errno_other", c_errno_other },
};

void st_colset_get(enum st_table_kind kind, bool symbols, struct st_colset *t)
{
	memset(t, 0, sizeof(*t));
	switch (kind) {
	case ST_TABLE_PROCESSES:
		t->name = "processes";
		t->cols = proc_columns;
		t->ncols = ARRAY_SIZE(proc_columns);
		break;
	case ST_TABLE_SITES:
		site_columns_make();
		t->name = "sites";
		t->cols = site_columns;
		t->ncols = ARRAY_SIZE(site_columns);
		if (symbols) {
			t->ext = symbol_columns;
			t->next = ARRAY_SIZE(symbol_columns);
		}
		break;
	case ST_TABLE_SYSCALLS:
		t->name = "syscalls";
		t->cols = syscall_columns;
		t->ncols = ARRAY_SIZE(syscall_columns);
		break;
	}
}

size_t st_colset_ncolumns(const struct st_colset *t)
{
	return t->ncols + t->next;
}

const struct st_column *st_colset_column(const struct st_colset *t, size_t i)
{
	return i < t->ncols ? &t->cols[i] : &t->ext[i - t->ncols];
}

size_t st_view_rows(const struct st_view *v, enum st_table_kind kind)
{
	if (v->order && kind == v->order_kind)
		return v->norder;
	switch (kind) {
	case ST_TABLE_PROCESSES:
		return v->dump->nprocs;
	case ST_TABLE_SITES:
		return v->dump->nsites;
	case ST_TABLE_SYSCALLS:
		return v->naggs;
	}
	return 0;
}

void st_view_row(const struct st_view *v, enum st_table_kind kind, size_t i,
		 struct st_row *row)
{
	const struct st_dump *d = v->dump;

	memset(row, 0, sizeof(*row));
	row->session = &d->session;
	if (v->order && kind == v->order_kind)
		i = v->order[i];
	switch (kind) {
	case ST_TABLE_PROCESSES:
		row->proc = &d->procs[i];
		break;
	case ST_TABLE_SITES:
		row->site = &d->sites[i];
		row->proc = st_dump_find_proc(d, row->site->proc_id);
		break;
	case ST_TABLE_SYSCALLS:
		row->agg = &v->aggs[i];
		row->proc = st_dump_find_proc(d, row->agg->proc_id);
		break;
	}
}

static const char *dump_col(const struct st_table *t, size_t c)
{
	const struct st_dump_table *dt = t->ctx;

	return st_colset_column(&dt->cols, c)->name;
}

static void dump_row(const struct st_table *t, size_t r, struct st_val *v)
{
	const struct st_dump_table *dt = t->ctx;
	struct st_row row;
	size_t c;

	st_view_row(dt->view, dt->kind, r, &row);
	for (c = 0; c < t->ncols; c++)
		st_colset_column(&dt->cols, c)->get(&row, &v[c]);
}

void st_dump_table(struct st_dump_table *dt, const struct st_view *v,
		   enum st_table_kind kind, bool symbols)
{
	memset(dt, 0, sizeof(*dt));
	st_colset_get(kind, symbols, &dt->cols);
	dt->view = v;
	dt->kind = kind;
	dt->t = (struct st_table){
		.name = dt->cols.name,
		.ncols = st_colset_ncolumns(&dt->cols),
		.nrows = st_view_rows(v, kind),
		.col = dump_col,
		.row = dump_row,
		.ctx = dt,
	};
}

static const struct st_column *column_named(const struct st_colset *cs,
					    const char *name)
{
	size_t i, n = st_colset_ncolumns(cs);

	for (i = 0; i < n; i++)
		if (st_sort_names(name, st_colset_column(cs, i)->name))
			return st_colset_column(cs, i);
	return NULL;
}

/* KEY's column, or the first column of KEY's alias (st_sort_alias) there is. */
static const struct st_column *find_column(const struct st_colset *cs,
					   const char *key)
{
	const struct st_column *col = column_named(cs, key);
	const char *const *alias = col ? NULL : st_sort_alias(key);

	for (; alias && *alias && !col; alias++)
		col = column_named(cs, *alias);
	return col;
}

/* "--sort: the T table has no column 'K'; did you mean 'N'? keys: ..." */
static void no_sort_key(const struct st_colset *cs, const char *key, char *why, size_t len)
{
	static const char *const aliases[] = { "time", "calls", "errors" };
	size_t i, n = 0, at, ncols = st_colset_ncolumns(cs);
	char (*heads)[48] = calloc(ncols ? ncols : 1, sizeof(*heads)), hint[64];
	const char **words = calloc(ncols + 3, sizeof(*words));

	for (i = 0; heads && words && i < ncols; i++) {
		st_text_heading(st_colset_column(cs, i)->name, heads[n], sizeof(heads[n]));
		words[n] = heads[n];
		n++;
	}
	for (i = 0; words && i < 3; i++)
		if (find_column(cs, aliases[i]) && !column_named(cs, aliases[i]))
			words[n++] = aliases[i];
	at = (size_t)snprintf(why, len, "--sort: the %s table has no column '%s'; %skeys:", cs->name,
			      key, st_did_you_mean(hint, sizeof(hint), st_suggest(key, words, n)));
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(why + at, len - at, "%s %s", i ? "," : "", words[i]);
	free(heads);
	free(words);
}

int st_view_order(struct st_view *v, enum st_table_kind kind, bool symbols,
		  const char *key, uint64_t top, char *why, size_t len)
{
	const struct st_column *col = NULL;
	struct st_colset cs;
	struct st_sort_key *keys;
	struct st_row row;
	struct st_val val;
	size_t i, n = st_view_rows(v, kind), *order;

	st_colset_get(kind, symbols, &cs);
	if (key && !(col = find_column(&cs, key))) {
		no_sort_key(&cs, key, why, len);
		return -EINVAL;
	}
	keys = calloc(n ? n : 1, sizeof(*keys));
	order = calloc(n ? n : 1, sizeof(*order));
	if (!keys || !order)
		goto nomem;
	for (i = 0; i < n; i++) {
		keys[i].row = i;
		if (!col)
			continue;
		st_view_row(v, kind, i, &row);
		memset(&val, 0, sizeof(val));
		col->get(&row, &val);
		keys[i].c = val.c;
		if (val.c.kind == ST_STR && !(keys[i].c.s = strdup(val.c.s)))
			goto nomem;
	}
	if (col)
		st_sort_keys(keys, n);
	for (i = 0; i < n; i++) {
		order[i] = keys[i].row;
		if (keys[i].c.kind == ST_STR)
			free((char *)keys[i].c.s);
	}
	free(keys);
	v->order = order;
	v->norder = top && top < n ? top : n;
	v->order_kind = kind;
	return 0;
nomem:
	for (i = 0; keys && i < n; i++)
		if (keys[i].c.kind == ST_STR)
			free((char *)keys[i].c.s);
	free(keys);
	free(order);
	return -ENOMEM;
}
