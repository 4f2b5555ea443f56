/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plain structs decoded from the kernel's netlink replies by nl.c. Nothing
 * outside nl.c knows netlink; everything else (CSV, JSON, reports) reads
 * these. Optional values carry a has_* flag: false means "missing", which
 * is null in JSON and an empty CSV field.
 */
#ifndef SYSTRACE_MODEL_H
#define SYSTRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/systrace.h>

struct st_params {
	uint32_t max_sessions;
	uint32_t max_procs;
	uint32_t max_sites;
	uint64_t max_mem_bytes;
	uint64_t max_mem_total_bytes;
	bool force_late_resolve;
};

/*
 * The module's parameters (SYSTRACE_A_PARAMS), in their order: decoding,
 * status's text (its "limits" line, then its "testing" line) and its JSON
 * walk this table.
 */
enum st_param_type { ST_PARAM_U32, ST_PARAM_U64, ST_PARAM_BOOL };

struct st_param_desc {
	int attr;			/* SYSTRACE_PARAM_* */
	const char *key;		/* JSON key and status name; field */
	enum st_param_type type;
	size_t offset;			/* in struct st_params */
	bool testing;			/* status: on the "testing" line */
};

extern const struct st_param_desc st_params_desc[];
extern const size_t st_nparams;

uint64_t st_param_get(const struct st_params *p, const struct st_param_desc *d);
void st_param_set(struct st_params *p, const struct st_param_desc *d,
		  uint64_t v);

struct st_status {
	char version[64];
	uint32_t abi_version;
	struct st_params params;
	uint32_t sessions_live;
	uint64_t mem_bytes;
	/* BPF: maps made ahead for the next start, in no session (memlock) */
	uint64_t spare_bytes;
	bool probes_active;
};

/*
 * Which file calls' paths a session counts (start --paths): the failed
 * ones (the default: 0), all, or none. The BPF backend counts them.
 */
enum st_paths_mode { ST_PATHS_ERRORS, ST_PATHS_ALL, ST_PATHS_OFF };
/* "errors", "all" or "off"; -1 for anything else. */
int st_paths_parse(const char *s);
const char *st_paths_name(uint32_t mode);

/* Which tracer recorded a session. */
enum st_backend_kind {
	ST_BACKEND_KMOD,
	ST_BACKEND_BPF,
	ST_BACKEND_AUTO,	/* a choice only: kmod when loaded, else bpf */
};
/* "auto", "kmod" or "bpf"; -1 for anything else. */
int st_backend_parse(const char *s);
const char *st_backend_name(uint32_t kind);

struct st_session_row {
	uint32_t id;
	uint32_t backend;		/* enum st_backend_kind */
	char name[SYSTRACE_NAME_MAX];
	uint32_t root_pid;
	uint32_t state;			/* enum systrace_session_state */
	uint32_t flags;
	uint64_t created_ns;
	uint64_t realtime_base_ns;
	uint32_t counters;		/* enum systrace_counters */
	bool has_counters_error;
	char counters_error[128];
	uint32_t live_tasks;
	uint64_t procs, sites;
	uint64_t syscalls, errors, syscall_ns;
	/* forks ... late_resolves: see st_session_stats */
#define ST_STAT_FIELD(name, key, kind) uint64_t key;
	SYSTRACE_SESSION_STATS(ST_STAT_FIELD)
#undef ST_STAT_FIELD
	uint64_t mem_bytes;
	uint32_t proc_row_bytes, site_row_bytes;
	uint32_t log_buffer;		/* log bytes per CPU; 0: no log */
	bool has_counter_value;
	uint64_t counter_value;
	/* The module's paths of file calls: has_paths when it counts them. */
	bool has_paths;
	uint32_t paths_mode;		/* enum st_paths_mode */
	uint64_t dropped_paths;
};

struct st_proc_row {
	uint64_t id, parent_id, prev_id;
	uint32_t pid, tgid, ppid;
	char comm[SYSTRACE_COMM_MAX];
	char *exe;			/* NULL when unknown; owned */
	/*
	 * argv as /proc/PID/cmdline gives it: argv_len bytes, each argument
	 * ending in NUL (at most SYSTRACE_ARGV_MAX); NULL when unknown; owned.
	 * argv_truncated: the image's argv was longer and was cut at an
	 * argument's end.
	 */
	char *argv;
	uint32_t argv_len;
	bool argv_truncated;
	uint64_t start_ns;
	bool has_end_ns;
	uint64_t end_ns;
	uint32_t end;			/* enum systrace_end */
	bool has_exit_code;
	uint32_t exit_code;
	bool has_exit_signal;
	uint32_t exit_signal;
	bool core_dumped;
	uint32_t threads;
#define ST_PROC_FIELD(name, field) uint64_t field;
	SYSTRACE_PROC_COUNTERS(ST_PROC_FIELD)	/* syscalls ... syscall_ns */
#undef ST_PROC_FIELD
	uint32_t sites;
#define ST_ACCT_FIELD(name, field, column) uint64_t field;
	SYSTRACE_PROC_ACCT(ST_ACCT_FIELD)	/* user_ns ... majflt */
#undef ST_ACCT_FIELD
	bool has_counter_value;
	uint64_t counter_value;
	uint32_t counter_tasks;
	bool attached;			/* ran before the session attached */
};

/* How many calls returned -err (err: 1..4095). */
struct st_errno_count {
	uint32_t err;
	uint64_t count;
};

/*
 * Why a site's (or a sum's) calls failed: at most SYSTRACE_SITE_ERRNOS
 * errnos, most frequent first (on a tie the smaller errno), each with
 * count > 0, and the errors of the others in other. With every error
 * counted, the counts and other add up to the row's errors. Build one
 * with st_errnos_add(); a site row holds a pooled copy (st_dump_errnos).
 */
struct st_errnos {
	uint32_t n;
	struct st_errno_count v[SYSTRACE_SITE_ERRNOS];
	uint64_t other;
};

/*
 * count errors of errno err into e, kept in order: a new errno past the
 * SYSTRACE_SITE_ERRNOS most frequent goes to other, as does the least
 * frequent when a new one outnumbers it. err 0 (or over 4095) is other.
 */
void st_errnos_add(struct st_errnos *e, uint32_t err, uint64_t count);
/* The sum of e's counts and other: the errors it accounts for. */
uint64_t st_errnos_total(const struct st_errnos *e);
/*
 * Exact sums of many counts, v[0 .. n - 1] (an errno may come several
 * times): out keeps the most frequent errnos, the rest goes to other.
 * v is reordered. Returns the number of distinct errnos in v.
 */
size_t st_errnos_sum(struct st_errno_count *v, size_t n, struct st_errnos *out);
/* Order of a list of errno counts: the most frequent first, then by errno. */
int st_errno_count_cmp(const void *a, const void *b);

/*
 * e's errnos as the errnos column writes them: "NAME(ERRNO)=COUNT" for
 * each, most frequent first, separated by a blank: "ENOENT(2)=37
 * EACCES(13)=5"; "" for none; an errno with no known name is "(ERRNO)".
 * Fits in ST_ERRNOS_TEXT bytes (4 of the longest: a 21-byte name, 4095,
 * a 20-digit count).
 */
#define ST_ERRNOS_TEXT 200
void st_errnos_format(const struct st_errnos *e, char *buf, size_t len);
/* The same read back (the names are not checked): 0, or -EINVAL. */
int st_errnos_parse(const char *s, struct st_errnos *e);

struct st_site_row {
	uint64_t proc_id;
	uint64_t addr;
	uint32_t nr;
	uint32_t abi;			/* enum systrace_abi */
	uint32_t map;			/* enum systrace_map */
	const char *path;		/* NULL unless SYSTRACE_MAP_FILE; pooled */
	uint64_t offset;
	bool has_file_id;		/* inode, dev and mtime were recorded */
	uint64_t inode;
	uint32_t dev;
	uint64_t mtime_ns;
#define ST_SITE_FIELD(name, field, merge) uint64_t field;
	SYSTRACE_SITE_COUNTERS(ST_SITE_FIELD)	/* calls ... max_ns */
	uint64_t first_ns, first_ordinal;
	const struct st_sym *sym;	/* NULL until symbolized; pooled */
	/* NULL: the tracer did not count errnos (not: no error); pooled */
	const struct st_errnos *errnos;
};

/*
 * What a symbolizer learns about a site: the object that holds it (for a
 * file mapping, the ELF file), the nearest symbol and the build id. Every
 * field is optional; NULL is a missing value. A site row's is pooled (its
 * dump's st_pool, shared with every site that resolves the same way); one
 * st_symbolize_site() returns owns its strings (st_sym_free).
 */
struct st_sym {
	const char *object;
	const char *symbol;
	bool has_symbol_offset;
	uint64_t symbol_offset;
	const char *build_id;		/* lowercase hex */
	const char *error;		/* why symbol is NULL for a file map */
};

/* One row of `dump --syscalls`: the sites of one image with one (abi, nr). */
struct st_sysagg {
	uint64_t proc_id;
	uint32_t abi, nr;
	SYSTRACE_SITE_COUNTERS(ST_SITE_FIELD)	/* calls ... max_ns */
#undef ST_SITE_FIELD
	uint32_t sites;
	/*
	 * The sites' errnos summed, the most frequent kept as a site's are;
	 * has_errnos false when a site's are unknown.
	 */
	bool has_errnos;
	struct st_errnos errnos;
};

/*
 * Who takes a dump's site rows one at a time, when sites[] would not fit:
 * a backend's dump with st_dump.sink set hands each decoded row to
 * row(ctx, d, r) instead of keeping it (sunk counts them; sites[] stays
 * empty). The
 * process rows come first, whole; r's strings and errnos are pooled in d,
 * and r itself is gone when row returns. row may run on a thread of the
 * backend's (one at a time, in the dump's order); -ENOMEM stops the dump
 * (its only error: what it does with a row is allocate).
 */
struct st_dump;
struct st_site_sink {
	int (*row)(void *ctx, struct st_dump *d, struct st_site_row *r);
	/*
	 * Or NULL: each process row once it is whole, before the next is
	 * read (r moves after: the dump grows and sorts d->procs). It may
	 * take r->argv (and free it, or keep it: r->argv NULL, argv_len and
	 * argv_truncated left as they are). Returns 0 or -errno, which stops
	 * the dump.
	 */
	int (*proc)(void *ctx, struct st_dump *d, struct st_proc_row *r);
	/* The rows handed so far are void: the dump starts again (or NULL). */
	void (*reset)(void *ctx);
	void *ctx;
};

/*
 * One path of a file call at a site (start --paths): how many calls of
 * syscall (abi, nr) at (proc_id, addr) gave result err (0: success) on
 * path. kind: ST_PATH_OK with the path, or a path not read: longer than
 * ST_PATH_BOUND - 1 bytes, or unreadable (path NULL).
 */
#define ST_PATH_BOUND	256
enum st_path_kind { ST_PATH_OK, ST_PATH_LONG, ST_PATH_UNREADABLE };

struct st_path_row {
	uint64_t proc_id, addr;
	uint32_t abi, nr;
	uint32_t err;
	uint32_t kind;			/* enum st_path_kind */
	const char *path;		/* pooled; NULL unless ST_PATH_OK */
	uint64_t count;
	/*
	 * Its id in the session (from 1), which a log's event of a call it
	 * counts names (st_event.path_id); 0: not known (a stored run).
	 */
	uint64_t id;
};

/* What a path row shows for its path: the path, or "<longer than 255 bytes>", "<unreadable>". */
const char *st_path_shown(const struct st_path_row *r);
/* A path row's kind as dump --json names it: "ok", "long", "unreadable"; and back (-1: none). */
const char *st_path_kind_name(uint32_t kind);
int st_path_kind_parse(const char *s);
/* A path row's result as dump --json keys it: "ok", the errno's name, else its number. */
const char *st_path_result(uint32_t err, char *buf, size_t len);
/* And back: 0 for "ok", the errno (1..4095), or -1. */
int st_path_result_parse(const char *s);
/*
 * qsort/bsearch order of path row pointers by their site (proc_id, addr,
 * abi, nr), then as st_path_row_cmp: a site's paths together.
 */
int st_path_site_cmp(const void *a, const void *b);
/* Path row x's site against site row s, in that order: 0 when x is of s. */
int st_path_site_key(const struct st_path_row *x, const struct st_site_row *s);

/*
 * The order of path rows by their key, whatever their counts: kind, path,
 * abi, nr, err, proc_id, addr. 0: the same key.
 */
int st_path_row_cmp(const struct st_path_row *x, const struct st_path_row *y);

/* A whole session as one dump returns it. */
struct st_dump {
	struct st_session_row session;
	struct st_proc_row *procs;
	size_t nprocs;
	struct st_site_row *sites;
	size_t nsites;
	size_t sunk;			/* site rows handed to sink instead */
	bool interrupted;		/* a dump saw NLM_F_DUMP_INTR */
	bool selected;			/* some rows were filtered out */
	bool symbolized;		/* sites carry sym: emit symbol columns */
	struct st_pool *pool;		/* the sites' strings and syms; owned */
	const struct st_site_sink *sink; /* kept by st_dump_free; not owned */
	/* The paths of file calls: has_paths when the backend counted them. */
	bool has_paths;
	uint32_t paths_mode;		/* enum st_paths_mode */
	struct st_path_row *paths;
	size_t npaths;
	uint64_t dropped_paths;		/* calls whose path has no row */
};

/*
 * A set of strings and st_sym records (pool.c), each stored once; what it
 * hands out lives until st_pool_free(). A NULL string pools as NULL. The
 * functions return 0 or -ENOMEM.
 */
struct st_pool;
struct st_pool *st_pool_new(void);
void st_pool_free(struct st_pool *p);
int st_pool_str(struct st_pool *p, const char *s, const char **out);
int st_pool_sym(struct st_pool *p, const struct st_sym *sym,
		const struct st_sym **out);
int st_pool_errnos(struct st_pool *p, const struct st_errnos *e,
		   const struct st_errnos **out);
/* The same in d's pool, which the first call makes. */
int st_dump_str(struct st_dump *d, const char *s, const char **out);
int st_dump_sym(struct st_dump *d, const struct st_sym *sym,
		const struct st_sym **out);
int st_dump_errnos(struct st_dump *d, const struct st_errnos *e,
		   const struct st_errnos **out);

/*
 * The session's counters (SYSTRACE_SESSION_STATS), in their order: decoding,
 * JSON, loading a saved dump, status and the drop totals walk this table.
 */
struct st_stat_desc {
	int attr;			/* SYSTRACE_SESSION_A_* */
	const char *key;		/* JSON key; field of st_session_row */
	enum systrace_stat_kind kind;
	size_t offset;			/* of the uint64_t in st_session_row */
};

extern const struct st_stat_desc st_session_stats[];
extern const size_t st_session_nstats;

static inline uint64_t *st_stat_ptr(struct st_session_row *s,
				    const struct st_stat_desc *d)
{
	return (uint64_t *)((char *)s + d->offset);
}

static inline uint64_t st_stat_get(const struct st_session_row *s,
				   const struct st_stat_desc *d)
{
	return *(const uint64_t *)((const char *)s + d->offset);
}

/* "procs 0, sites 2, ...": each dropped_* counter, key without "dropped_". */
void st_format_dropped(const struct st_session_row *s, char *buf, size_t len);

/*
 * qsort() of n elements at base, which may be NULL when n is 0: qsort's
 * base must never be NULL, not even for no element.
 */
static inline void st_qsort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* qsort/bsearch order of site row pointers: (proc_id, addr, abi, nr). */
int st_site_ptr_cmp(const void *a, const void *b);

void st_dump_free(struct st_dump *d);
void st_sym_free(struct st_sym *sym);
void st_dump_sort(struct st_dump *d);
/*
 * The order of sorted site rows: by image, then first call, addr, abi and
 * nr. ST_SITE_KEY(p): the key of *p, any row with those fields.
 */
struct st_site_key {
	uint64_t proc_id, first_ordinal, addr;
	uint32_t abi, nr;
};
#define ST_SITE_KEY(p) ((struct st_site_key){ (p)->proc_id, (p)->first_ordinal, \
					      (p)->addr, (p)->abi, (p)->nr })
int st_site_order(const struct st_site_key *x, const struct st_site_key *y);
const struct st_proc_row *st_dump_find_proc(const struct st_dump *d, uint64_t id);
/*
 * The losses, each counted once: dropped_procs + dropped_syscalls +
 * dropped_resolve + dropped_counters. dropped_sites and dropped_nomem (the
 * causes, st_stat_is_cause) are in status's detail, not in this sum.
 */
uint64_t st_session_dropped(const struct st_session_row *s);
bool st_stat_is_cause(const struct st_stat_desc *d);

int st_aggregate_syscalls(const struct st_dump *d, bool per_process,
			  struct st_sysagg **out, size_t *n);

#endif
