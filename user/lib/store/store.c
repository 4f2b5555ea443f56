// SPDX-License-Identifier: GPL-2.0
/*
 * The run store: finished sessions kept in one SQLite file (WAL mode), one
 * run per session. The tables sessions, processes and sites have the dump's
 * CSV columns, taken from columns.c's lists (never written out here), and
 * run_id first; paths holds the paths of file calls (schema 3), a row per
 * path row of the dump, and runs each run's identity (with its paths mode
 * and dropped_paths) and pending the sessions a command means to save.
 * Invariants:
 * - a run is saved in one transaction: all its rows or none;
 * - a session (boot, backend, id, creation time: the UNIQUE key of runs) is
 *   saved at most once, whoever races to save it;
 * - run ids come from AUTOINCREMENT: never reused, even after a delete;
 * - a stored run loads back through dump_load.c into the st_dump the
 *   backend gave, so that every writer prints the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "model/columns.h"
#include "model/names.h"
#include "base/parse.h"
#include "store/store.h"
#include "libsystrace.h"

struct st_store {
	sqlite3 *db;
	const char *path;
	char boot_id[40];
};

enum st_store_table { T_SESSIONS, T_PROCESSES, T_SITES, T_N };

static const char *const table_name[T_N] = { "sessions", "processes", "sites" };

const char *st_store_path(void)
{
	const char *p = getenv("SYSTRACE_STORE");

	return p && *p ? p : ST_STORE_DEFAULT;
}

void st_store_stop_point(const char *point)
{
	const char *want = getenv("SYSTRACE_SAVE_STOP");

	if (want && !strcmp(want, point))
		raise(SIGSTOP);
}

/* The columns of table t: the dump's CSV columns, without symbols. */
static const struct st_column *table_column(enum st_store_table t, size_t i,
					    size_t *n)
{
	const struct st_column *cols;
	struct st_colset cs;

	if (t == T_SESSIONS) {
		cols = st_session_columns(n);
		return i < *n ? &cols[i] : NULL;
	}
	st_colset_get(t == T_PROCESSES ? ST_TABLE_PROCESSES : ST_TABLE_SITES, false, &cs);
	*n = st_colset_ncolumns(&cs);
	return i < *n ? st_colset_column(&cs, i) : NULL;
}

/*
 * What a column's getter gives for a row with every optional value
 * present, its counter column that of counters.
 */
static enum st_kind probe_kind(const struct st_column *c, uint32_t counters)
{
	static char argv[] = "x";
	static const struct st_errnos errnos;
	struct st_session_row s = {
		.counters = counters, .has_counters_error = true, .name = "x",
		.has_counter_value = true, .state = SYSTRACE_STATE_FINISHED,
		.log_buffer = 1,
	};
	struct st_proc_row p = {
		.exe = argv, .argv = argv, .argv_len = sizeof(argv), .has_end_ns = true,
		.has_exit_code = true, .has_exit_signal = true, .has_counter_value = true,
		.syscalls = 1, .counter_value = 1000, .parent_id = 1, .prev_id = 1,
		.end = SYSTRACE_END_EXITED,
	};
	struct st_site_row site = { .path = "", .has_file_id = true, .errnos = &errnos,
				    .map = SYSTRACE_MAP_FILE, .calls = 1 };
	struct st_row row = { .session = &s, .proc = &p, .site = &site };
	struct st_val v;

	memset(&v, 0, sizeof(v));
	c->get(&row, &v);
	return v.c.kind;
}

/*
 * A column's SQL type, from the kind of its values (with the counters mode
 * that gives it one). BOOLEAN tells a loaded 0 or 1 from a number.
 */
static const char *column_type(const struct st_column *c)
{
	uint32_t counters = SYSTRACE_COUNTERS_INSTRUCTIONS;
	enum st_kind kind;

	do
		kind = probe_kind(c, counters);
	while (kind == ST_NULL && ++counters < __SYSTRACE_COUNTERS_MAX);
	switch (kind) {
	case ST_U64:
	case ST_S64:
		return " INTEGER";
	case ST_STR:
	case ST_COUNTS:
	case ST_HEX:
		return " TEXT";
	case ST_BOOL:
		return " BOOLEAN";
	case ST_FIXED:
		return " REAL";
	case ST_ARGV:
		return " BLOB";
	case ST_NULL:
		break;
	}
	return "";
}

static int db_fail(struct st_store *s, struct st_err *err, const char *what, int rc)
{
	int e = rc == SQLITE_FULL ? ENOSPC : rc == SQLITE_READONLY ? EROFS :
		rc == SQLITE_CANTOPEN || rc == SQLITE_PERM ? EACCES :
		rc == SQLITE_NOMEM ? ENOMEM : rc == SQLITE_BUSY ? EBUSY : EIO;

	st_err_set(err, ST_ERR_LOCAL, e, "store", "%s %s: %s", what, s->path,
		   s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	return -e;
}

static int exec(struct st_store *s, const char *sql, struct st_err *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(s, err, "cannot write the store", rc);
}

/* The CREATE TABLE of t: run_id, then its columns in the dump's order. */
static char *create_sql(enum st_store_table t)
{
	const struct st_column *c;
	char *sql = NULL;
	size_t len = 0, i, n;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fprintf(f, "CREATE TABLE %s (run_id INTEGER NOT NULL", table_name[t]);
	for (i = 0; (c = table_column(t, i, &n)); i++)
		fprintf(f, ", \"%s\"%s", c->name, column_type(c));
	fprintf(f, ");\nCREATE INDEX %s_run ON %s (run_id);\n", table_name[t], table_name[t]);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

/* Schema 1: the tables and runs, without log_path and bytes, no pending. */
static const char runs_v1[] =
	"CREATE TABLE runs (run_id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" boot_id TEXT NOT NULL, backend TEXT NOT NULL, session_id INTEGER NOT NULL,"
	" created_ns INTEGER NOT NULL, name TEXT, host TEXT, saved_ns INTEGER NOT NULL,"
	" UNIQUE (boot_id, backend, session_id, created_ns));\n";

/*
 * 2 to 3: the paths of file calls (start --paths), a row per path row of
 * the dump; the run's paths mode (NULL: none counted, or a run saved
 * before schema 3) and dropped_paths. Columns as st_store_path_cells
 * fills them.
 */
static const char migrate_v3[] =
	"CREATE TABLE paths (run_id INTEGER NOT NULL, session_id INTEGER, proc_id INTEGER,"
	" pid INTEGER, comm TEXT, addr TEXT, abi TEXT, nr INTEGER, syscall TEXT,"
	" errno INTEGER, errno_name TEXT, kind TEXT, path TEXT, count INTEGER);\n"
	"CREATE INDEX paths_run ON paths (run_id);\n"
	"ALTER TABLE runs ADD COLUMN paths_mode TEXT;\n"
	"ALTER TABLE runs ADD COLUMN dropped_paths INTEGER;\n"
	"PRAGMA user_version = 3;\n";

/* 1 to 2: the log's path and the run's size (for the cap), pending. */
static const char migrate_v2[] =
	"ALTER TABLE runs ADD COLUMN log_path TEXT;\n"
	"ALTER TABLE runs ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;\n"
	"CREATE TABLE pending (boot_id TEXT NOT NULL, backend TEXT NOT NULL,"
	" session_id INTEGER NOT NULL, created_ns INTEGER NOT NULL,"
	" PRIMARY KEY (boot_id, backend, session_id, created_ns));\n"
	"PRAGMA user_version = 2;\n";

static int create_v1(struct st_store *s, struct st_err *err)
{
	enum st_store_table t;
	char *sql;
	int ret;

	ret = exec(s, runs_v1, err);
	for (t = 0; t < T_N && !ret; t++) {
		sql = create_sql(t);
		if (!sql) {
			st_err_set(err, ST_ERR_LOCAL, ENOMEM, "store", NULL);
			return -ENOMEM;
		}
		ret = exec(s, sql, err);
		free(sql);
	}
	return ret ? ret : exec(s, "PRAGMA user_version = 1;", err);
}

static int user_version(struct st_store *s, int *v, struct st_err *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, err, "cannot read the store", rc);
	rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(s, err, "cannot read the store", rc);
}

/* Creates or migrates the schema, in one transaction. */
static int schema(struct st_store *s, struct st_err *err)
{
	int v, ret;

	ret = user_version(s, &v, err);
	if (ret || v == ST_STORE_SCHEMA)
		return ret;
	if (v > ST_STORE_SCHEMA) {
		st_err_set(err, ST_ERR_LOCAL, EPROTO, "store",
			   "%s has schema %d, newer than this systracectl's %d",
			   s->path, v, ST_STORE_SCHEMA);
		return -EPROTO;
	}
	ret = exec(s, "BEGIN IMMEDIATE", err);
	if (ret)
		return ret;
	ret = user_version(s, &v, err);
	if (!ret && v == 0)
		ret = create_v1(s, err);
	if (!ret && v < 2)
		ret = exec(s, migrate_v2, err);
	if (!ret && v < 3)
		ret = exec(s, migrate_v3, err);
	if (!ret)
		ret = exec(s, "COMMIT", err);
	if (!ret && v)
		st_warn("migrated the store %s from schema %d to %d, its runs kept (those saved "
			"before schema 3 have no paths)", s->path, v, ST_STORE_SCHEMA);
	if (!ret)
		return 0;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

/* The default directory is made root's, 0700; the file 0600, whatever the umask. */
static int make_file(struct st_store *s, struct st_err *err)
{
	int fd;

	if (!strcmp(s->path, ST_STORE_DEFAULT) &&
	    mkdir("/var/lib/systrace", 0700) == 0 && chmod("/var/lib/systrace", 0700)) {
		st_err_set(err, ST_ERR_LOCAL, errno, "store", "cannot make /var/lib/systrace");
		return -errno;
	}
	fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)	/* another command made it meanwhile */
		return 0;
	if (fd < 0 || fchmod(fd, 0600)) {
		st_err_set(err, ST_ERR_LOCAL, errno, "store", "cannot make the store %s",
			   s->path);
		if (fd >= 0)
			close(fd);
		return -err->err;
	}
	close(fd);
	return 0;
}

static void read_boot_id(struct st_store *s)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	strcpy(s->boot_id, "unknown");
	if (f) {
		if (fgets(s->boot_id, sizeof(s->boot_id), f))
			s->boot_id[strcspn(s->boot_id, "\n")] = '\0';
		fclose(f);
	}
}

int st_store_open(struct st_store **sp, struct st_err *err)
{
	struct st_store *s = calloc(1, sizeof(*s));
	struct stat sb;
	int rc, ret;

	if (!s) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "store", NULL);
		return -ENOMEM;
	}
	s->path = st_store_path();
	read_boot_id(s);
	ret = stat(s->path, &sb) ? make_file(s, err) : 0;
	if (ret)
		goto out;
	rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		ret = db_fail(s, err, "cannot open the store", rc);
		goto out;
	}
	sqlite3_busy_timeout(s->db, 60000);
	ret = exec(s, "PRAGMA journal_mode = WAL", err);
	if (!ret)
		ret = schema(s, err);
out:
	if (ret) {
		st_store_close(s);
		return ret;
	}
	*sp = s;
	return 0;
}

void st_store_close(struct st_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

static int prepare(struct st_store *s, const char *sql, sqlite3_stmt **st,
		   struct st_err *err)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(s, err, "cannot read the store", rc);
}

/* The key of a session: ?1 boot, ?2 backend, ?3 id, ?4 creation time. */
static void bind_key(struct st_store *s, sqlite3_stmt *st, const struct st_session_row *r)
{
	sqlite3_bind_text(st, 1, s->boot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, st_backend_name(r->backend), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->id);
	sqlite3_bind_int64(st, 4, (int64_t)r->created_ns);
}

/* One statement with the key bound, stepped to its end (or first row). */
static int key_stmt(struct st_store *s, const char *sql, const struct st_session_row *r,
		    int64_t *out, struct st_err *err)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = prepare(s, sql, &st, err);
	if (ret)
		return ret;
	bind_key(s, st, r);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && out)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "cannot write the store", rc);
}

int st_store_pending_add(struct st_store *s, const struct st_session_row *r,
			 struct st_err *err)
{
	int ret = key_stmt(s, "INSERT OR IGNORE INTO pending VALUES (?1, ?2, ?3, ?4)",
			   r, NULL, err);

	return ret < 0 ? ret : 0;
}

int st_store_begin(struct st_store *s, struct st_err *err)
{
	return exec(s, "BEGIN IMMEDIATE", err);
}

int st_store_commit(struct st_store *s, struct st_err *err)
{
	int ret = exec(s, "COMMIT", err);

	if (ret)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

int st_store_pending_del(struct st_store *s, const struct st_session_row *r,
			 struct st_err *err)
{
	int ret = key_stmt(s, "DELETE FROM pending WHERE boot_id = ?1 AND backend = ?2 "
			   "AND session_id = ?3 AND created_ns = ?4", r, NULL, err);

	return ret < 0 ? ret : 0;
}

int st_store_lookup(struct st_store *s, const struct st_session_row *r,
		    bool *pending, uint64_t *run_id, struct st_err *err)
{
	int64_t id = 0;
	int ret;

	ret = key_stmt(s, "SELECT run_id FROM runs WHERE boot_id = ?1 AND backend = ?2 "
		       "AND session_id = ?3 AND created_ns = ?4", r, &id, err);
	if (ret < 0)
		return ret;
	*run_id = ret ? (uint64_t)id : 0;
	ret = key_stmt(s, "SELECT 1 FROM pending WHERE boot_id = ?1 AND backend = ?2 "
		       "AND session_id = ?3 AND created_ns = ?4", r, NULL, err);
	if (ret < 0)
		return ret;
	*pending = ret;
	return 0;
}

/* One cell into parameter i of st; its bytes are added to *bytes. */
static void bind_cell(sqlite3_stmt *st, int i, const struct st_cell *c, uint64_t *bytes)
{
	char hex[24];
	double x;
	unsigned int k;

	switch (c->kind) {
	case ST_NULL:
		sqlite3_bind_null(st, i);
		return;
	case ST_U64:
	case ST_S64:
	case ST_BOOL:
		sqlite3_bind_int64(st, i, (int64_t)c->u);
		*bytes += 8;
		return;
	case ST_STR:
	case ST_COUNTS:
		sqlite3_bind_text(st, i, c->s, -1, SQLITE_TRANSIENT);
		*bytes += strlen(c->s);
		return;
	case ST_HEX:
		snprintf(hex, sizeof(hex), "0x%" PRIx64, c->u);
		sqlite3_bind_text(st, i, hex, -1, SQLITE_TRANSIENT);
		*bytes += strlen(hex);
		return;
	case ST_FIXED:
		for (x = (double)c->u, k = 0; k < c->decimals; k++)
			x /= 10;
		sqlite3_bind_double(st, i, c->negative ? -x : x);
		*bytes += 8;
		return;
	case ST_ARGV:
		sqlite3_bind_blob(st, i, c->s, (int)c->u, SQLITE_TRANSIENT);
		*bytes += c->u;
		return;
	}
}

/* The INSERT of t, its run_id ?1 and a parameter per column. */
static int insert_stmt(struct st_store *s, enum st_store_table t, sqlite3_stmt **st,
		       struct st_err *err)
{
	char sql[64 + 3 * 128];
	size_t i, n, len;

	table_column(t, 0, &n);
	len = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (?", table_name[t]);
	for (i = 0; i < n && len + 4 < sizeof(sql); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, ",?");
	snprintf(sql + len, sizeof(sql) - len, ")");
	return prepare(s, sql, st, err);
}

static int insert_rows(struct st_store *s, enum st_store_table t, const struct st_view *v,
		       int64_t run_id, uint64_t *bytes, struct st_err *err)
{
	const struct st_column *c;
	struct st_val val;
	struct st_row row;
	sqlite3_stmt *st;
	size_t r, i, n, nrows;
	int rc = SQLITE_DONE, ret;

	ret = insert_stmt(s, t, &st, err);
	if (ret)
		return ret;
	nrows = t == T_SESSIONS ? 1 : st_view_rows(v, t == T_PROCESSES ?
						    ST_TABLE_PROCESSES : ST_TABLE_SITES);
	for (r = 0; r < nrows && rc == SQLITE_DONE; r++) {
		if (t == T_SESSIONS)
			row = (struct st_row){ .session = &v->dump->session };
		else
			st_view_row(v, t == T_PROCESSES ? ST_TABLE_PROCESSES : ST_TABLE_SITES,
				    r, &row);
		sqlite3_bind_int64(st, 1, run_id);
		for (i = 0; (c = table_column(t, i, &n)); i++) {
			memset(&val, 0, sizeof(val));
			c->get(&row, &val);
			bind_cell(st, (int)i + 2, &val.c, bytes);
		}
		rc = sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "cannot write the store", rc);
}

/* enum st_path_kind's names in the paths table: a path read, or why none. */
static const char *const path_kinds[] = { "read", "long", "unreadable" };

static const char *path_kind_name(uint32_t k)
{
	return k <= ST_PATH_UNREADABLE ? path_kinds[k] : NULL;
}

static const char *const path_columns[] = {
	"session_id", "proc_id", "pid", "comm", "addr", "abi", "nr", "syscall",
	"errno", "errno_name", "kind", "path", "count",
};

#define N_PATH_COLUMNS (sizeof(path_columns) / sizeof(path_columns[0]))

const char *const *st_store_path_columns(size_t *n)
{
	*n = N_PATH_COLUMNS;
	return path_columns;
}

static void cell_u64(struct st_val *v, uint64_t u)
{
	v->c.kind = ST_U64;
	v->c.u = u;
}

static void cell_str(struct st_val *v, const char *s)
{
	v->c.kind = s ? ST_STR : ST_NULL;
	v->c.s = s;
}

void st_store_path_cells(const struct st_dump *d, const struct st_path_row *p,
			 struct st_val *v)
{
	const struct st_proc_row *proc = st_dump_find_proc(d, p->proc_id);

	memset(v, 0, N_PATH_COLUMNS * sizeof(*v));
	cell_u64(&v[0], d->session.id);
	cell_u64(&v[1], p->proc_id);
	if (proc) {
		cell_u64(&v[2], proc->pid);
		cell_str(&v[3], proc->comm);
	}
	v[4].c.kind = ST_HEX;
	v[4].c.u = p->addr;
	cell_str(&v[5], st_abi_name(p->abi));
	if (!v[5].c.s) {
		snprintf(v[5].buf, sizeof(v[5].buf), "%" PRIu32, p->abi);
		cell_str(&v[5], v[5].buf);
	}
	cell_u64(&v[6], p->nr);
	cell_str(&v[7], st_syscall_name(p->abi, p->nr));
	cell_u64(&v[8], p->err);
	cell_str(&v[9], p->err ? st_errno_name(p->err) : "ok");
	cell_str(&v[10], path_kind_name(p->kind));
	cell_str(&v[11], p->kind == ST_PATH_OK ? p->path : NULL);
	cell_u64(&v[12], p->count);
}

/* d's path rows, through one statement prepared once, in the save's transaction. */
static int insert_paths(struct st_store *s, const struct st_dump *d, int64_t run_id,
			uint64_t *bytes, struct st_err *err)
{
	struct st_val v[N_PATH_COLUMNS];
	sqlite3_stmt *st;
	size_t r, i;
	int rc = SQLITE_DONE, ret;

	if (!d->npaths)
		return 0;
	ret = prepare(s, "INSERT INTO paths VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		      " ?11, ?12, ?13, ?14)", &st, err);
	if (ret)
		return ret;
	for (r = 0; r < d->npaths && rc == SQLITE_DONE; r++) {
		st_store_path_cells(d, &d->paths[r], v);
		sqlite3_bind_int64(st, 1, run_id);
		for (i = 0; i < N_PATH_COLUMNS; i++)
			bind_cell(st, (int)i + 2, &v[i].c, bytes);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "cannot write the store", rc);
}

/*
 * The run's id: the session's own when no run has had it or a higher one
 * (so that a session's id goes on naming it), else the next free.
 */
static int next_run_id(struct st_store *s, uint32_t sid, int64_t *id, struct st_err *err)
{
	sqlite3_stmt *st;
	int64_t last = 0;
	int ret;

	ret = prepare(s, "SELECT seq FROM sqlite_sequence WHERE name = 'runs'", &st, err);
	if (ret)
		return ret;
	if (sqlite3_step(st) == SQLITE_ROW)
		last = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	*id = (int64_t)sid > last ? (int64_t)sid : last + 1;
	return 0;
}

static int insert_run(struct st_store *s, const struct st_dump *d, const char *log_path,
		      int64_t id, struct st_err *err)
{
	struct timespec now;
	sqlite3_stmt *st;
	char host[256] = "";
	int rc, ret;

	ret = prepare(s, "INSERT INTO runs (boot_id, backend, session_id, created_ns, run_id,"
		      " name, host, saved_ns, log_path, paths_mode, dropped_paths)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", &st, err);
	if (ret)
		return ret;
	gethostname(host, sizeof(host) - 1);
	clock_gettime(CLOCK_REALTIME, &now);
	bind_key(s, st, &d->session);
	sqlite3_bind_int64(st, 5, id);
	if (d->session.name[0])
		sqlite3_bind_text(st, 6, d->session.name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	if (log_path)
		sqlite3_bind_text(st, 9, log_path, -1, SQLITE_STATIC);
	if (d->has_paths && st_paths_name(d->paths_mode)) {
		sqlite3_bind_text(st, 10, st_paths_name(d->paths_mode), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 11, (int64_t)d->dropped_paths);
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "cannot write the store", rc);
}

static int set_bytes(struct st_store *s, int64_t id, uint64_t bytes, struct st_err *err)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = prepare(s, "UPDATE runs SET bytes = ?1 WHERE run_id = ?2", &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)bytes);
	sqlite3_bind_int64(st, 2, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "cannot write the store", rc);
}

int st_store_save(struct st_store *s, const struct st_dump *d, const char *log_path,
		  uint64_t *run_id, bool *fresh, struct st_err *err)
{
	struct st_view v = { .dump = d };
	enum st_store_table t;
	uint64_t bytes = 0;
	bool pending;
	int64_t id = 0;
	int ret;

	ret = exec(s, "BEGIN IMMEDIATE", err);
	if (ret)
		return ret;
	ret = st_store_lookup(s, &d->session, &pending, run_id, err);
	if (ret || *run_id) {
		*fresh = false;
		goto out;
	}
	ret = next_run_id(s, d->session.id, &id, err);
	if (!ret)
		ret = insert_run(s, d, log_path, id, err);
	for (t = 0; t < T_N && !ret; t++)
		ret = insert_rows(s, t, &v, id, &bytes, err);
	if (!ret)
		ret = insert_paths(s, d, id, &bytes, err);
	if (!ret)
		ret = set_bytes(s, id, bytes, err);
	if (!ret && pending)
		ret = st_store_pending_del(s, &d->session, err);
	*run_id = (uint64_t)id;
	*fresh = true;
	if (!ret)
		st_store_stop_point("commit");
out:
	if (!ret)
		ret = exec(s, "COMMIT", err);
	if (ret)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

static void no_run(struct st_store *s, const char *arg, struct st_err *err)
{
	if (arg)
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no session or stored run with id or name \"%s\" (see: systracectl list)",
			   arg);
	else
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no sessions and no stored runs in %s (start one with: systracectl start -- CMD)",
			   s->path);
}

int st_store_find(struct st_store *s, const char *arg, uint64_t *run_id,
		  struct st_err *err)
{
	sqlite3_stmt *st;
	uint64_t id;
	int rc, ret;

	if (!arg)
		ret = prepare(s, "SELECT max(run_id) FROM runs HAVING count(*) > 0", &st, err);
	else if (!st_parse_u64(arg, &id, 0) && id <= INT64_MAX)
		ret = prepare(s, "SELECT run_id FROM runs WHERE run_id = ?1", &st, err);
	else
		ret = prepare(s, "SELECT max(run_id) FROM runs WHERE name = ?2 "
			      "HAVING count(*) > 0", &st, err);
	if (ret)
		return ret;
	if (arg && sqlite3_bind_parameter_count(st) == 1)
		sqlite3_bind_int64(st, 1, (int64_t)id);
	else if (arg)
		sqlite3_bind_text(st, 2, arg, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*run_id = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return db_fail(s, err, "cannot read the store", rc);
	no_run(s, arg, err);
	return -ENOENT;
}

int st_store_log_path(struct st_store *s, uint64_t run_id, char **path,
		      struct st_err *err)
{
	const unsigned char *t;
	sqlite3_stmt *st;
	int rc, ret;

	*path = NULL;
	ret = prepare(s, "SELECT log_path FROM runs WHERE run_id = ?1", &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)run_id);
	rc = sqlite3_step(st);
	t = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
	if (t && !(*path = strdup((const char *)t)))
		rc = SQLITE_NOMEM;
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return db_fail(s, err, "cannot read the store", rc);
	no_run(s, NULL, err);
	return -ENOENT;
}

/* argv's bytes (each argument ending in NUL) as an array of strings. */
static json_t *argv_json(const char *p, size_t n)
{
	json_t *a = json_array();
	size_t len;

	while (a && n) {
		len = strnlen(p, n);
		if (json_array_append_new(a, json_stringn_nocheck(p, len))) {
			json_decref(a);
			return NULL;
		}
		len += len < n;
		p += len;
		n -= len;
	}
	return a;
}

/* A row of st, from column 1 on (0 is run_id), as the JSON dump's object. */
static json_t *row_json(sqlite3_stmt *st)
{
	json_t *o = json_object(), *v;
	const char *type;
	int i, n = sqlite3_column_count(st);

	for (i = 1; o && i < n; i++) {
		type = sqlite3_column_decltype(st, i);
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			v = type && !strcmp(type, "BOOLEAN") ?
			    json_boolean(sqlite3_column_int64(st, i)) :
			    json_integer(sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			v = json_real(sqlite3_column_double(st, i));
			break;
		case SQLITE_TEXT:
			v = json_stringn_nocheck((const char *)sqlite3_column_text(st, i),
						 (size_t)sqlite3_column_bytes(st, i));
			break;
		case SQLITE_BLOB:
			v = argv_json(sqlite3_column_blob(st, i),
				      (size_t)sqlite3_column_bytes(st, i));
			break;
		default:
			v = json_null();
		}
		if (!v || json_object_set_new(o, sqlite3_column_name(st, i), v)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* The rows of table t of a run, into an array (or the one session object). */
static int table_json(struct st_store *s, enum st_store_table t, uint64_t run_id,
		      json_t **out, struct st_err *err)
{
	json_t *arr = t == T_SESSIONS ? NULL : json_array(), *o;
	sqlite3_stmt *st;
	char sql[96];
	int rc, ret;

	snprintf(sql, sizeof(sql), "SELECT * FROM %s WHERE run_id = ?1 ORDER BY rowid",
		 table_name[t]);
	ret = prepare(s, sql, &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)run_id);
	*out = NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		o = row_json(st);
		if (!o || (arr && json_array_append_new(arr, o))) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (!arr) {
			*out = o;
			break;
		}
	}
	sqlite3_finalize(st);
	if (arr)
		*out = arr;
	if ((rc == SQLITE_ROW || rc == SQLITE_DONE) && *out)
		return 0;
	json_decref(*out);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
		st_err_set(err, ST_ERR_LOCAL, EIO, "store", "run %" PRIu64 " of %s has no session row",
			   run_id, s->path);
		return -EIO;
	}
	return db_fail(s, err, "cannot read the store", rc);
}

/* The run as one JSON tree, through st_dump_load_json: any bytes, much memory. */
static int load_tree(struct st_store *s, uint64_t run_id, struct st_dump *d,
		     struct st_err *err)
{
	json_t *doc = json_object(), *part;
	enum st_store_table t;
	char why[256];
	int ret = 0;

	if (!doc || json_object_set_new(doc, "schema_version", json_integer(1)))
		ret = -ENOMEM;
	for (t = 0; t < T_N && !ret; t++) {
		ret = table_json(s, t, run_id, &part, err);
		if (!ret && json_object_set_new(doc, t == T_SESSIONS ? "session" :
						table_name[t], part))
			ret = -ENOMEM;
	}
	if (ret == -ENOMEM)
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "store", NULL);
	if (!ret) {
		ret = st_dump_load_json(doc, d, why, sizeof(why));
		if (ret)
			st_err_set(err, ST_ERR_LOCAL, -ret, "store", "run %" PRIu64 " of %s: %s",
				   run_id, s->path, why);
	}
	json_decref(doc);
	return ret;
}

int st_store_list(struct st_store *s, bool all, size_t max, struct st_run **out,
		  size_t *n, struct st_err *err)
{
	struct st_run *runs = NULL, *r;
	struct st_dump d;
	sqlite3_stmt *st;
	char why[256];
	json_t *doc;
	int rc, ret;

	ret = prepare(s, "SELECT * FROM sessions WHERE run_id IN (SELECT run_id FROM runs"
		      " ORDER BY run_id DESC LIMIT ?1) ORDER BY run_id", &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, all ? -1 : (int64_t)max);
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = realloc(runs, (*n + 1) * sizeof(*r));
		doc = json_pack("{s:i, s:o, s:[], s:[]}", "schema_version", 1,
				"session", row_json(st), "processes", "sites");
		if (!r || !doc || st_dump_load_json(doc, &d, why, sizeof(why))) {
			json_decref(doc);
			free(r ? r : runs);
			sqlite3_finalize(st);
			st_err_set(err, ST_ERR_LOCAL, ENOMEM, "store", "reading %s's runs", s->path);
			return -ENOMEM;
		}
		json_decref(doc);
		runs = r;
		runs[*n].run_id = (uint64_t)sqlite3_column_int64(st, 0);
		runs[(*n)++].session = d.session;
		st_dump_free(&d);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(runs);
		return db_fail(s, err, "cannot read the store", rc);
	}
	*out = runs;
	return 0;
}

static int delete_run(struct st_store *s, int64_t id, struct st_err *err)
{
	static const char *const sql[] = {
		"DELETE FROM paths WHERE run_id = ?1",
		"DELETE FROM sites WHERE run_id = ?1",
		"DELETE FROM processes WHERE run_id = ?1",
		"DELETE FROM sessions WHERE run_id = ?1",
		"DELETE FROM runs WHERE run_id = ?1",
	};
	sqlite3_stmt *st;
	size_t i;
	int rc = SQLITE_DONE, ret = 0;

	for (i = 0; i < sizeof(sql) / sizeof(sql[0]) && rc == SQLITE_DONE; i++) {
		ret = prepare(s, sql[i], &st, err);
		if (ret)
			return ret;
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "cannot write the store", rc);
}

int st_store_delete(struct st_store *s, uint64_t run_id, struct st_err *err)
{
	int ret = exec(s, "BEGIN IMMEDIATE", err);

	if (!ret)
		ret = delete_run(s, (int64_t)run_id, err);
	if (!ret && !sqlite3_changes(s->db)) {
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
			   "no stored run %" PRIu64 " in %s", run_id, s->path);
		ret = -ENOENT;
	}
	if (!ret)
		return exec(s, "COMMIT", err);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

static uint64_t store_cap(void)
{
	const char *c = getenv("SYSTRACE_STORE_CAP");
	uint64_t v;

	return c && !st_parse_u64(c, &v, 0) && v ? v : ST_STORE_CAP_DEFAULT;
}

/* The oldest run but keep, while the runs take more than cap: 0 when none. */
static int oldest_over(struct st_store *s, uint64_t cap, uint64_t keep, int64_t *id,
		       struct st_err *err)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = prepare(s, "SELECT min(run_id) FROM runs WHERE run_id != ?2 AND"
		      " (SELECT sum(bytes) FROM runs) > ?1", &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)cap);
	sqlite3_bind_int64(st, 2, (int64_t)keep);
	rc = sqlite3_step(st);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(s, err, "cannot read the store", rc);
}

int st_store_trim(struct st_store *s, uint64_t keep, size_t *dropped,
		  struct st_err *err)
{
	uint64_t cap = store_cap();
	int64_t id;
	int ret;

	*dropped = 0;
	for (;;) {
		ret = exec(s, "BEGIN IMMEDIATE", err);
		if (ret)
			return ret;
		ret = oldest_over(s, cap, keep, &id, err);
		if (!ret && id)
			ret = delete_run(s, id, err);
		if (!ret)
			ret = exec(s, "COMMIT", err);
		if (ret) {
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			return ret;
		}
		if (!id)
			return 0;
		st_warn("the store is over its cap of %" PRIu64 " bytes (SYSTRACE_STORE_CAP): "
			"dropped run %" PRId64 ", its oldest", cap, id);
		(*dropped)++;
	}
}

/*
 * The rows of table t of a run as the JSON dump's key and value, a row a
 * line, into f. -EILSEQ when a string is not UTF-8: JSON text cannot hold
 * its bytes.
 */
static int table_text(struct st_store *s, enum st_store_table t, uint64_t run_id,
		      FILE *f, struct st_err *err)
{
	sqlite3_stmt *st;
	char sql[96];
	size_t n = 0;
	json_t *o;
	int rc, ret;

	snprintf(sql, sizeof(sql), "SELECT * FROM %s WHERE run_id = ?1 ORDER BY rowid",
		 table_name[t]);
	ret = prepare(s, sql, &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)run_id);
	fprintf(f, t == T_SESSIONS ? "\"session\":" : ",\n\"%s\":[", table_name[t]);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		o = row_json(st);
		if (!o) {
			st_err_set(err, ST_ERR_LOCAL, ENOMEM, "store", NULL);
			ret = -ENOMEM;
			break;
		}
		fputs(n++ && t != T_SESSIONS ? ",\n" : "\n", f);
		if (json_dumpf(o, f, JSON_COMPACT))
			ret = -EILSEQ;
		json_decref(o);
		if (t == T_SESSIONS)
			break;
	}
	sqlite3_finalize(st);
	if (ret)
		return ret;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(s, err, "cannot read the store", rc);
	if (t == T_SESSIONS && !n) {
		st_err_set(err, ST_ERR_LOCAL, EIO, "store", "run %" PRIu64 " of %s has no session row",
			   run_id, s->path);
		return -EIO;
	}
	if (t != T_SESSIONS)
		fputs("]", f);
	return 0;
}

/*
 * The run as JSON text in a memory file, read back by st_dump_load a row
 * at a time: the memory of the text and the dump, never a tree of every
 * row. -EILSEQ when a string is not UTF-8.
 */
static int load_text(struct st_store *s, uint64_t run_id, struct st_dump *d,
		     struct st_err *err)
{
	enum st_store_table t;
	char path[64], why[sizeof(err->msg)];
	FILE *f = NULL;
	int fd, ret = 0;

	fd = memfd_create("systrace-run", MFD_CLOEXEC);
	if (fd >= 0)
		f = fdopen(fd, "w");
	if (!f) {
		st_err_set(err, ST_ERR_LOCAL, errno, "store", "memfd_create");
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	fputs("{\"schema_version\":1,", f);
	for (t = 0; t < T_N && !ret; t++)
		ret = table_text(s, t, run_id, f, err);
	if (!ret && fputs("}\n", f) >= 0 && !fflush(f) && !ferror(f)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(f));
		ret = st_dump_load(path, d, err);
		if (ret) {
			snprintf(why, sizeof(why), "%s", err->msg);
			st_err_set(err, ST_ERR_LOCAL, -ret, "store", "run %" PRIu64 " of %s: %s",
				   run_id, s->path, why);
		}
	} else if (!ret) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "store", "run %" PRIu64 " of %s", run_id,
			   s->path);
		ret = -ENOMEM;
	}
	fclose(f);
	return ret;
}

/* A stored text cell as an enum value: its name among n, else its number. */
static uint32_t cell_enum(sqlite3_stmt *st, int i, const char *(*name)(uint32_t),
			  uint32_t n)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	uint32_t k;

	for (k = 0; t && k < n; k++)
		if (name(k) && !strcmp(name(k), t))
			return k;
	return t ? (uint32_t)strtoul(t, NULL, 10) : 0;
}

/* The run's paths mode and dropped_paths (runs), and its path rows, into d. */
static int load_paths(struct st_store *s, uint64_t run_id, struct st_dump *d,
		      struct st_err *err)
{
	struct st_path_row *r;
	const char *t;
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc, ret;

	ret = prepare(s, "SELECT paths_mode, dropped_paths FROM runs WHERE run_id = ?1", &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)run_id);
	rc = sqlite3_step(st);
	t = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (t && st_paths_parse(t) >= 0) {
		d->has_paths = true;
		d->paths_mode = (uint32_t)st_paths_parse(t);
		d->dropped_paths = (uint64_t)sqlite3_column_int64(st, 1);
		/* The module's session row carries them too, as its dump gave them. */
		d->session.has_paths = d->session.backend == ST_BACKEND_KMOD;
		if (d->session.has_paths) {
			d->session.paths_mode = d->paths_mode;
			d->session.dropped_paths = d->dropped_paths;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(s, err, "cannot read the store", rc);
	ret = prepare(s, "SELECT proc_id, addr, abi, nr, errno, kind, path, count"
		      " FROM paths WHERE run_id = ?1 ORDER BY rowid", &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (d->npaths == cap) {
			cap = cap ? 2 * cap : 64;
			r = realloc(d->paths, cap * sizeof(*r));
			if (!r) {
				rc = SQLITE_NOMEM;
				break;
			}
			d->paths = r;
		}
		r = &d->paths[d->npaths];
		memset(r, 0, sizeof(*r));
		r->proc_id = (uint64_t)sqlite3_column_int64(st, 0);
		t = (const char *)sqlite3_column_text(st, 1);
		r->addr = t ? strtoull(t, NULL, 16) : 0;
		r->abi = cell_enum(st, 2, st_abi_name, __SYSTRACE_ABI_MAX);
		r->nr = (uint32_t)sqlite3_column_int64(st, 3);
		r->err = (uint32_t)sqlite3_column_int64(st, 4);
		r->kind = cell_enum(st, 5, path_kind_name, ST_PATH_UNREADABLE + 1);
		r->count = (uint64_t)sqlite3_column_int64(st, 7);
		t = (const char *)sqlite3_column_text(st, 6);
		if (r->kind == ST_PATH_OK && st_dump_str(d, t ? t : "", &r->path)) {
			rc = SQLITE_NOMEM;
			break;
		}
		d->npaths++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "cannot read the store", rc);
}

int st_store_load(struct st_store *s, uint64_t run_id, struct st_dump *d,
		  struct st_err *err)
{
	int ret = load_text(s, run_id, d, err);

	if (ret == -EILSEQ)
		ret = load_tree(s, run_id, d, err);
	if (ret)
		return ret;
	ret = load_paths(s, run_id, d, err);
	if (ret)
		st_dump_free(d);
	return ret;
}
