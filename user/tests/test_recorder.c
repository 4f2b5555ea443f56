// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's states (lib/log/recorder.h) on a tracer of its own: what
 * each end leaves beside the log (the file, FILE.partial, FILE.spool) and
 * what a save says it did.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "log/recorder.h"

/* A tracer: each drain hands over per_drain syscalls; rows answers err. */
struct fake {
	struct st_recorder *rec;	/* its state is looked at from the calls */
	unsigned int drains, per_drain;
	int drain_err, rows_err;
	enum st_err_kind rows_kind;
	enum st_recorder_state rows_state;
	uint64_t ts;
};

static int fake_drain(void *ctx, uint32_t id, struct st_log *log, size_t *n,
		      struct st_err *err)
{
	struct fake *f = ctx;
	unsigned int i;
	int ret;

	f->drains++;
	if (f->drain_err) {
		st_err_set(err, ST_ERR_KERNEL, f->drain_err, "LOG_READ", NULL);
		return -f->drain_err;
	}
	for (i = 0; i < f->per_drain; i++) {
		struct st_event ev = { .kind = ST_EV_SYSCALL, .proc_id = 1, .pid = 7,
				       .tid = 7, .seq = f->ts, .ts_ns = 1000 + f->ts,
				       .nr = 39, .addr = 0x1000 };

		f->ts++;
		ret = st_log_push(log, &ev);
		if (ret)
			return ret;
	}
	*n = f->per_drain;
	(void)id;
	return 0;
}

static int fake_rows(void *ctx, uint32_t id, struct st_dump *d,
		     const struct st_site_sink *sink, struct st_err *err)
{
	struct fake *f = ctx;

	(void)sink;
	f->rows_state = st_recorder_state(f->rec);
	memset(d, 0, sizeof(*d));
	d->session.id = id;
	st_err_set(err, f->rows_kind, f->rows_err, "DUMP", NULL);
	return -f->rows_err;
}

#define FAKE_SRC(f) (&(const struct st_recorder_src){			\
	.drain = fake_drain, .rows = fake_rows, .ctx = (f), .id = 3 })

/* A directory for the log; *path its log.csv. */
static void rec_dir(bool *failed, char *dir, char *path, size_t len)
{
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, len, "%s/log.csv", dir);
}

/* Whether path, path.partial and path.spool exist, as "111" or "000". */
static void rec_files(const char *path, char out[4])
{
	static const char *const ext[] = { "", ".partial", ".spool" };
	char p[4200];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", path, ext[i]);
		out[i] = access(p, F_OK) ? '0' : '1';
		unlink(p);
	}
	out[3] = '\0';
}

static unsigned int lines(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned int n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* A session gone (a reset) before its rows: its syscalls go out alone. */
TEST(recorder_save_gone)
{
	char dir[] = "/tmp/systrace-rec-XXXXXX", path[4200], files[4];
	struct fake f = { .per_drain = 5, .rows_err = ENOENT,
			  .rows_kind = ST_ERR_NOSESSION };
	struct st_recorder_opts o = { .fmt = -1, .no_symbols = true };
	struct st_recorder_outcome oc;
	struct st_err err;

	rec_dir(failed, dir, path, sizeof(path));
	o.path = path;
	ASSERT_EQ(st_recorder_begin(&f.rec, &o, &err), 0);
	EXPECT_EQ(st_recorder_state(f.rec), ST_REC_RECORDING);
	EXPECT_EQ(st_recorder_drain(f.rec, FAKE_SRC(&f), &err), 0);
	EXPECT_EQ(st_recorder_drain(f.rec, FAKE_SRC(&f), &err), 0);
	EXPECT_EQ(st_recorder_events(f.rec), 10);
	EXPECT_EQ(st_recorder_save(f.rec, FAKE_SRC(&f), NULL, NULL, &oc, &err), 0);
	EXPECT_EQ(f.rows_state, ST_REC_SAVING);
	EXPECT_EQ(oc.events, 10);
	EXPECT_TRUE(oc.gone);
	EXPECT_EQ(oc.kind.fmt, ST_LOG_CSV);
	EXPECT_FALSE(oc.kind.zstd);
	EXPECT_EQ(oc.dropped + oc.lost + oc.kept, 0);
	EXPECT_EQ(oc.spool_err, 0);
	EXPECT_EQ(lines(path), 11);	/* the header and 10 syscalls */
	rec_files(path, files);
	EXPECT_STREQ(files, "100");
	EXPECT_EQ(rmdir(dir), 0);
}

/* Rows that fail: no log, the drained syscalls kept in FILE.spool. */
TEST(recorder_save_failed_keeps_spool)
{
	char dir[] = "/tmp/systrace-rec-XXXXXX", path[4200], files[4];
	struct fake f = { .per_drain = 4, .rows_err = EIO,
			  .rows_kind = ST_ERR_LOCAL };
	struct st_recorder_opts o = { .fmt = -1, .no_symbols = true };
	struct st_recorder_outcome oc;
	struct st_err err;

	rec_dir(failed, dir, path, sizeof(path));
	o.path = path;
	ASSERT_EQ(st_recorder_begin(&f.rec, &o, &err), 0);
	EXPECT_EQ(st_recorder_drain(f.rec, FAKE_SRC(&f), &err), 0);
	EXPECT_EQ(st_recorder_save(f.rec, FAKE_SRC(&f), NULL, NULL, &oc, &err), -EIO);
	EXPECT_EQ(f.rows_state, ST_REC_SAVING);
	EXPECT_EQ(err.err, EIO);
	EXPECT_EQ(oc.kept, 4);
	EXPECT_EQ(oc.lost, 0);
	EXPECT_FALSE(oc.gone);
	rec_files(path, files);
	EXPECT_STREQ(files, "001");
	EXPECT_EQ(rmdir(dir), 0);
}

/* Nothing drained: nothing to keep after a failure. */
TEST(recorder_save_failed_empty)
{
	char dir[] = "/tmp/systrace-rec-XXXXXX", path[4200], files[4];
	struct fake f = { .rows_err = EIO, .rows_kind = ST_ERR_LOCAL };
	struct st_recorder_opts o = { .fmt = -1, .no_symbols = true };
	struct st_recorder_outcome oc;
	struct st_err err;

	rec_dir(failed, dir, path, sizeof(path));
	o.path = path;
	ASSERT_EQ(st_recorder_begin(&f.rec, &o, &err), 0);
	EXPECT_EQ(st_recorder_save(f.rec, FAKE_SRC(&f), NULL, NULL, &oc, &err), -EIO);
	EXPECT_EQ(oc.kept, 0);
	rec_files(path, files);
	EXPECT_STREQ(files, "000");
	EXPECT_EQ(rmdir(dir), 0);
}

/* A failed drain is returned once; the drains after it ask nothing. */
TEST(recorder_drain_fails_once_then_abandon)
{
	char dir[] = "/tmp/systrace-rec-XXXXXX", path[4200], files[4];
	struct fake f = { .per_drain = 2, .drain_err = ENOSPC };
	struct st_recorder_opts o = { .fmt = -1 };
	struct st_err err;

	rec_dir(failed, dir, path, sizeof(path));
	o.path = path;
	ASSERT_EQ(st_recorder_begin(&f.rec, &o, &err), 0);
	EXPECT_EQ(st_recorder_drain(f.rec, FAKE_SRC(&f), &err), -ENOSPC);
	EXPECT_EQ(err.err, ENOSPC);
	EXPECT_EQ(st_recorder_drain(f.rec, FAKE_SRC(&f), &err), 0);
	EXPECT_EQ(f.drains, 1);
	EXPECT_EQ(st_recorder_events(f.rec), 0);
	st_recorder_abandon(f.rec);
	st_recorder_abandon(NULL);
	rec_files(path, files);
	EXPECT_STREQ(files, "000");
	EXPECT_EQ(rmdir(dir), 0);
}

/* A bad path fails at begin, before anything is traced; nothing is left. */
TEST(recorder_begin_bad_path)
{
	struct st_recorder_opts o = { .path = "/nonexistent-systrace/log.csv", .fmt = -1 };
	struct st_recorder *rec = (struct st_recorder *)1;
	struct st_err err;

	EXPECT_TRUE(st_recorder_begin(&rec, &o, &err) < 0);
	EXPECT_NULL(rec);
	o.path = "/tmp/x.json.zst";	/* chrome is not compressed */
	EXPECT_EQ(st_recorder_begin(&rec, &o, &err), -EINVAL);
	EXPECT_NULL(rec);
}
