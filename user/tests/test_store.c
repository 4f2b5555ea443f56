// SPDX-License-Identifier: GPL-2.0
/*
 * The run store (lib/store/store.c), on the fixture: a saved run loads
 * back into the dump it was (the same CSV and JSON bytes), a session is
 * saved once, run ids are never reused, a schema 1 store is migrated,
 * and the size cap drops the oldest runs.
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
	ASSERT_EQ(st_store_open(&s, &err), 0);
	ASSERT_EQ(st_store_save(s, &d, NULL, &run, &fresh, &err), 0);
	st_store_close(s);
	ASSERT_EQ(sqlite3_open(db, &raw), SQLITE_OK);
	ASSERT_EQ(sqlite3_exec(raw, "ALTER TABLE runs DROP COLUMN log_path;"
			       "ALTER TABLE runs DROP COLUMN bytes; DROP TABLE pending;"
			       "PRAGMA user_version = 1;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
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
	ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	EXPECT_EQ(st_store_open(&s, &err), -EPROTO);
	EXPECT_TRUE(strstr(err.msg, "has schema 3, newer than this systracectl's 2") != NULL);
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
