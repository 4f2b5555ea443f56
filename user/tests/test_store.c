// SPDX-License-Identifier: GPL-2.0
/*
 * The run store (lib/store/store.c), on the fixture: a saved run loads
 * back into the dump it was (the same CSV and JSON bytes), a session is
 * saved once, run ids are never reused, the paths of file calls load
 * back whole, a schema 1 or 2 store is migrated, and the size cap drops
 * the oldest runs.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "store/store.h"
#include "libsystrace.h"
#include "test.h"

static char db[64];

static void remove_store(void)
{
	char p[80];

	unlink(db);
	snprintf(p, sizeof(p), "%s-wal", db);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", db);
	unlink(p);
}

/* A fresh store path of this test's, in SYSTRACE_STORE. */
static void fresh_store(void)
{
	snprintf(db, sizeof(db), "/tmp/systrace-store-%d.db", (int)getpid());
	remove_store();
	setenv("SYSTRACE_STORE", db, 1);
}

/* d as dump --json --syscalls, and as the CSV of its processes and sites. */
static char *dump_bytes(struct st_dump *d)
{
	struct st_view v = { .dump = d };
	struct st_dump_table dt;
	struct st_sysagg *aggs = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&text, &len);
	if (!st_aggregate_syscalls(d, true, &aggs, &v.naggs)) {
		v.aggs = aggs;
		st_json_dump(f, &v, true, false);
	}
	st_dump_table(&dt, &v, ST_TABLE_PROCESSES, false);
	st_table_csv(f, &dt.t);
	st_dump_table(&dt, &v, ST_TABLE_SITES, false);
	st_table_csv(f, &dt.t);
	fclose(f);
	free(aggs);
	return text;
}

static void fixture_sorted(struct st_dump *d)
{
	st_fixture(d);
	st_dump_sort(d);
}

TEST(store_run_loads_back_the_same_bytes)
{
	struct st_store *s;
	struct st_err err;
	struct st_dump d, e;
	char *want, *got;
	uint64_t run;
	bool fresh;
	struct stat sb;

	fresh_store();
	fixture_sorted(&d);
	/* Every kind of cell: a signal's end with a core (booleans), attached. */
	d.procs[0].end = SYSTRACE_END_SIGNALED;
	d.procs[0].has_exit_code = false;
	d.procs[0].has_exit_signal = true;
	d.procs[0].exit_signal = 11;
	d.procs[0].core_dumped = true;
	d.procs[0].attached = true;
	want = dump_bytes(&d);
	ASSERT_TRUE(strstr(want, "\"core_dumped\":true") != NULL);
	ASSERT_EQ(st_store_open(&s, &err), 0);
	ASSERT_EQ(stat(db, &sb), 0);
	EXPECT_EQ(sb.st_mode & 0777, 0600);
	ASSERT_EQ(st_store_save(s, &d, "/tmp/a.log", &run, &fresh, &err), 0);
	EXPECT_EQ(run, 7);	/* the session's id: no run had it */
	EXPECT_TRUE(fresh);
	ASSERT_EQ(st_store_load(s, run, &e, &err), 0);
	got = dump_bytes(&e);
	ST_CMP_S(false, got, want);
	st_dump_free(&e);
	ASSERT_EQ(st_store_find(s, "build", &run, &err), 0);
	EXPECT_EQ(run, 7);
	EXPECT_EQ(st_store_find(s, "other", &run, &err), -ENOENT);
	EXPECT_EQ(err.kind, ST_ERR_NOSESSION);
	free(want);
	free(got);
	st_dump_free(&d);
	st_store_close(s);
	remove_store();
}

TEST(store_saves_a_session_once_and_never_reuses_an_id)
{
	struct st_store *s;
	struct st_err err;
	struct st_dump d;
	struct st_run *runs;
	uint64_t run, again;
	size_t n;
	bool fresh;

	fresh_store();
	fixture_sorted(&d);
	ASSERT_EQ(st_store_open(&s, &err), 0);
	ASSERT_EQ(st_store_save(s, &d, NULL, &run, &fresh, &err), 0);
	ASSERT_EQ(st_store_save(s, &d, NULL, &again, &fresh, &err), 0);
	EXPECT_EQ(again, run);
	EXPECT_FALSE(fresh);
	ASSERT_EQ(st_store_list(s, true, 0, &runs, &n, &err), 0);
	EXPECT_EQ(n, 1);
	free(runs);
	/* Another session of the same id (another boot's, or created later). */
	d.session.created_ns++;
	ASSERT_EQ(st_store_delete(s, run, &err), 0);
	ASSERT_EQ(st_store_save(s, &d, NULL, &again, &fresh, &err), 0);
	EXPECT_EQ(again, 8);
	EXPECT_TRUE(fresh);
	EXPECT_EQ(st_store_delete(s, run, &err), -ENOENT);
	st_dump_free(&d);
	st_store_close(s);
	remove_store();
}

/* What schema 3 added, taken away: a store as schema 2 made it. */
#define V3_TO_V2 "DROP TABLE paths; ALTER TABLE runs DROP COLUMN paths_mode;" \
		 "ALTER TABLE runs DROP COLUMN dropped_paths; PRAGMA user_version = 2;"

/*
 * The fixture with path rows of every kind: image 1's openat failing with
 * ENOENT on two paths, its stat on a path past the bound, image 2's
 * access of an unreadable pointer, and a success (--paths all).
 */
static void fixture_paths(struct st_dump *d)
{
	static const struct st_path_row rows[] = {
		{ .proc_id = 1, .addr = 0x7f0000001000ULL, .abi = SYSTRACE_ABI_X64, .nr = 257,
		  .err = 2, .count = 3 },
		{ .proc_id = 1, .addr = 0x7f0000001000ULL, .abi = SYSTRACE_ABI_X64, .nr = 257,
		  .err = 2, .count = 5 },
		{ .proc_id = 1, .addr = 0x7f0000001000ULL, .abi = SYSTRACE_ABI_X64, .nr = 262,
		  .err = 2, .kind = ST_PATH_LONG, .count = 1 },
		{ .proc_id = 2, .addr = 0x401000, .abi = SYSTRACE_ABI_X64, .nr = 21,
		  .err = 14, .kind = ST_PATH_UNREADABLE, .count = 4 },
		{ .proc_id = 2, .addr = 0x401000, .abi = SYSTRACE_ABI_IA32, .nr = 5,
		  .count = 6 },
	};
	static const char *const path[] = { "/nonexistent/a", "/nonexistent/b", NULL, NULL,
					     "/etc/p\xc3\xa4sswd,\"x\"" };
	size_t i;

	fixture_sorted(d);
	d->has_paths = true;
	d->paths_mode = ST_PATHS_ALL;
	d->dropped_paths = 9;
	d->npaths = sizeof(rows) / sizeof(rows[0]);
	d->paths = calloc(d->npaths, sizeof(*d->paths));
	if (!d->paths)
		abort();
	for (i = 0; i < d->npaths; i++) {
		d->paths[i] = rows[i];
		if (path[i] && st_dump_str(d, path[i], &d->paths[i].path))
			abort();
	}
}

/* Whether d and e have the same paths mode, dropped count and path rows, in order. */
static bool same_paths(const struct st_dump *d, const struct st_dump *e)
{
	size_t i;

	if (d->has_paths != e->has_paths || d->paths_mode != e->paths_mode ||
	    d->dropped_paths != e->dropped_paths || d->npaths != e->npaths)
		return false;
	for (i = 0; i < d->npaths; i++) {
		const struct st_path_row *x = &d->paths[i], *y = &e->paths[i];

		if (st_path_row_cmp(x, y) || x->count != y->count || !x->path != !y->path)
			return false;
	}
	return true;
}

/* The sqlite3 answer of sql, its rows' cells joined by | and rows by ;. */
static char *query(const char *sql)
{
	sqlite3_stmt *st;
	sqlite3 *raw;
	char *text = NULL;
	size_t len = 0;
	int i, rows = 0;
	FILE *f = open_memstream(&text, &len);

	if (sqlite3_open(db, &raw) != SQLITE_OK ||
	    sqlite3_prepare_v2(raw, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "# %s: %s\n", sql, sqlite3_errmsg(raw));
		abort();
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		fputs(rows++ ? ";" : "", f);
		for (i = 0; i < sqlite3_column_count(st); i++)
			fprintf(f, "%s%s", i ? "|" : "",
				sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) :
							     "NULL");
	}
	sqlite3_finalize(st);
	sqlite3_close(raw);
	fclose(f);
	return text;
}

/* d saved into a fresh store, which sql then turns into an older one: the run's id. */
static uint64_t saved_as_older(struct st_dump *d, const char *sql)
{
	struct st_store *s;
	struct st_err err;
	sqlite3 *raw;
	uint64_t run;
	bool fresh;

	if (st_store_open(&s, &err) || st_store_save(s, d, NULL, &run, &fresh, &err))
		abort();
	st_store_close(s);
	if (sqlite3_open(db, &raw) != SQLITE_OK ||
	    sqlite3_exec(raw, sql, NULL, NULL, NULL) != SQLITE_OK)
		abort();
	sqlite3_close(raw);
	return run;
}

TEST(store_keeps_the_paths_of_file_calls)
{
	struct st_store *s;
	struct st_err err;
	struct st_dump d, e;
	char *got;
	uint64_t run;
	bool fresh;

	fresh_store();
	fixture_paths(&d);
	ASSERT_EQ(st_store_open(&s, &err), 0);
	ASSERT_EQ(st_store_save(s, &d, NULL, &run, &fresh, &err), 0);
	ASSERT_EQ(st_store_load(s, run, &e, &err), 0);
	EXPECT_TRUE(same_paths(&d, &e));
	EXPECT_EQ(e.npaths, 5);
	EXPECT_STREQ(e.paths[4].path, "/etc/p\xc3\xa4sswd,\"x\"");
	EXPECT_EQ(e.paths[2].kind, ST_PATH_LONG);
	st_dump_free(&e);
	st_store_close(s);
	/* The rows as the sqlite3 CLI reads them, with their processes. */
	got = query("SELECT paths_mode, dropped_paths FROM runs");
	EXPECT_STREQ(got, "all|9");
	free(got);
	got = query("SELECT r.comm, r.pid, addr, abi, syscall, errno, errno_name, kind,"
		    " coalesce(path, 'NULL'), count FROM paths p JOIN processes r"
		    " ON r.run_id = p.run_id AND r.id = p.proc_id"
		    " ORDER BY p.rowid");
	EXPECT_STREQ(got, "sh|100|0x7f0000001000|x64|openat|2|ENOENT|read|/nonexistent/a|3;"
		     "sh|100|0x7f0000001000|x64|openat|2|ENOENT|read|/nonexistent/b|5;"
		     "sh|100|0x7f0000001000|x64|newfstatat|2|ENOENT|long|NULL|1;"
		     "a,b\"c|101|0x401000|x64|access|14|EFAULT|unreadable|NULL|4;"
		     "a,b\"c|101|0x401000|ia32|open|0|ok|read|/etc/p\xc3\xa4sswd,\"x\"|6");
	free(got);
	/* A run without paths (none counted) loads with none; delete takes its rows. */
	ASSERT_EQ(st_store_open(&s, &err), 0);
	ASSERT_EQ(st_store_delete(s, run, &err), 0);
	got = query("SELECT count(*) FROM paths");
	EXPECT_STREQ(got, "0");
	free(got);
	st_dump_free(&d);
	fixture_sorted(&d);
	ASSERT_EQ(st_store_save(s, &d, NULL, &run, &fresh, &err), 0);
	ASSERT_EQ(st_store_load(s, run, &e, &err), 0);
	EXPECT_FALSE(e.has_paths);
	EXPECT_EQ(e.npaths, 0);
	st_dump_free(&e);
	st_dump_free(&d);
	st_store_close(s);
	remove_store();
}

TEST(store_migrates_schema_2)
{
	struct st_store *s;
	struct st_err err;
	struct st_dump d, e;
	char *want, *got;
	uint64_t run, run2;
	bool fresh;

	fresh_store();
	fixture_paths(&d);
	want = dump_bytes(&d);
	run = saved_as_older(&d, V3_TO_V2);
	/* Opened, migrated: the run kept, without paths (schema 2 kept none). */
	ASSERT_EQ(st_store_open(&s, &err), 0);
	got = query("PRAGMA user_version");
	EXPECT_STREQ(got, "3");
	free(got);
	ASSERT_EQ(st_store_load(s, run, &e, &err), 0);
	got = dump_bytes(&e);
	ST_CMP_S(false, got, want);
	EXPECT_FALSE(e.has_paths);
	EXPECT_EQ(e.npaths, 0);
	st_dump_free(&e);
	/* A run saved after the migration keeps its paths. */
	d.session.created_ns++;
	ASSERT_EQ(st_store_save(s, &d, NULL, &run2, &fresh, &err), 0);
	ASSERT_EQ(st_store_load(s, run2, &e, &err), 0);
	EXPECT_TRUE(same_paths(&d, &e));
	st_dump_free(&e);
	st_store_close(s);
	free(want);
	free(got);
	st_dump_free(&d);
	remove_store();
}

TEST(store_migrates_schema_1)
{
	struct st_store *s;
	struct st_err err;
	struct st_dump d, e;
	char *want, *got;
	sqlite3 *raw;
	uint64_t run;
	bool fresh;

	fresh_store();
	fixture_sorted(&d);
	want = dump_bytes(&d);
	run = saved_as_older(&d, V3_TO_V2 "ALTER TABLE runs DROP COLUMN log_path;"
			     "ALTER TABLE runs DROP COLUMN bytes; DROP TABLE pending;"
			     "PRAGMA user_version = 1;");
	ASSERT_EQ(st_store_open(&s, &err), 0);
	ASSERT_EQ(st_store_load(s, run, &e, &err), 0);
	got = dump_bytes(&e);
	ST_CMP_S(false, got, want);
	d.session.created_ns++;
	EXPECT_EQ(st_store_save(s, &d, "/tmp/b.log", &run, &fresh, &err), 0);
	EXPECT_EQ(run, 8);
	st_store_close(s);
	ASSERT_EQ(sqlite3_open(db, &raw), SQLITE_OK);
	EXPECT_EQ(sqlite3_exec(raw, "SELECT log_path, bytes FROM runs", NULL, NULL, NULL),
		  SQLITE_OK);
	sqlite3_close(raw);
	free(want);
	free(got);
	st_dump_free(&e);
	st_dump_free(&d);
	remove_store();
}

TEST(store_refuses_a_newer_schema)
{
	struct st_store *s;
	struct st_err err;
	sqlite3 *raw;

	fresh_store();
	ASSERT_EQ(sqlite3_open(db, &raw), SQLITE_OK);
	ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version = 4", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	EXPECT_EQ(st_store_open(&s, &err), -EPROTO);
	EXPECT_TRUE(strstr(err.msg, "has schema 4, newer than this systracectl's 3") != NULL);
	remove_store();
}

TEST(store_cap_drops_the_oldest_runs)
{
	struct st_store *s;
	struct st_err err;
	struct st_dump d;
	struct st_run *runs;
	uint64_t run;
	size_t n, dropped;
	bool fresh;
	int i;

	fresh_store();
	fixture_sorted(&d);
	ASSERT_EQ(st_store_open(&s, &err), 0);
	for (i = 0; i < 3; i++) {
		d.session.created_ns++;
		ASSERT_EQ(st_store_save(s, &d, NULL, &run, &fresh, &err), 0);
	}
	setenv("SYSTRACE_STORE_CAP", "1", 1);
	ASSERT_EQ(st_store_trim(s, run, &dropped, &err), 0);
	unsetenv("SYSTRACE_STORE_CAP");
	EXPECT_EQ(dropped, 2);
	ASSERT_EQ(st_store_list(s, true, 0, &runs, &n, &err), 0);
	ASSERT_EQ(n, 1);
	EXPECT_EQ(runs[0].run_id, 9);
	EXPECT_EQ(runs[0].session.syscalls, 15);
	free(runs);
	st_dump_free(&d);
	st_store_close(s);
	remove_store();
}

TEST(store_keeps_bytes_that_are_not_utf8)
{
	static char exe[] = "/tmp/\xff\xfe-bin";
	struct st_store *s;
	struct st_err err;
	struct st_dump d, e;
	char *want, *got;
	uint64_t run;
	bool fresh;

	fresh_store();
	fixture_sorted(&d);
	/* JSON text cannot hold these bytes: the run loads as a tree. */
	free(d.procs[0].exe);
	d.procs[0].exe = strdup(exe);
	strcpy(d.procs[0].comm, "c\xc3");
	want = dump_bytes(&d);
	ASSERT_TRUE(strstr(want, exe) != NULL);
	ASSERT_EQ(st_store_open(&s, &err), 0);
	ASSERT_EQ(st_store_save(s, &d, NULL, &run, &fresh, &err), 0);
	ASSERT_EQ(st_store_load(s, run, &e, &err), 0);
	got = dump_bytes(&e);
	ST_CMP_S(false, got, want);
	free(want);
	free(got);
	st_dump_free(&e);
	st_dump_free(&d);
	st_store_close(s);
	remove_store();
}
