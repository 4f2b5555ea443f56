// SPDX-License-Identifier: GPL-2.0
/*
 * A stored run as files that distributed engines read as they are: one
 * gzip'd CSV per table, in Hive-style partitions
 * DIR/<table>/host=<host>/run=<run_id>/part-0.csv.gz, its header the
 * dump's CSV columns (the sites without the symbol columns, as stored);
 * paths has the store's paths table's columns.
 * A file appears whole or not at all (written beside, then renamed), and
 * machines of different host names never write the same file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "store/store.h"
#include "libsystrace.h"

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
	int w;

	if (!n)
		return 0;
	w = gzwrite((gzFile)cookie, buf, (unsigned int)n);
	return w > 0 ? w : -1;
}

static int gz_close(void *cookie)
{
	return gzclose((gzFile)cookie) == Z_OK ? 0 : -1;
}

/* mkdir -p of path's directories (not its last component). */
static int make_dirs(char *path)
{
	char *p;

	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

/* The session row as a one-row table: the session object's keys. */
static const char *session_col(const struct st_table *t, size_t c)
{
	size_t n;

	(void)t;
	return st_session_columns(&n)[c].name;
}

static void session_row(const struct st_table *t, size_t r, struct st_val *v)
{
	const struct st_row row = { .session = t->ctx };
	const struct st_column *cols;
	size_t c, n;

	(void)r;
	cols = st_session_columns(&n);
	for (c = 0; c < n; c++)
		cols[c].get(&row, &v[c]);
}

/* The run's path rows: the store's paths table, but run_id. */
static const char *path_col(const struct st_table *t, size_t c)
{
	size_t n;

	(void)t;
	return st_store_path_columns(&n)[c];
}

static void path_row(const struct st_table *t, size_t r, struct st_val *v)
{
	const struct st_dump *d = t->ctx;

	st_store_path_cells(d, &d->paths[r], v);
}

/* Table t of d into path, gzip'd, through path.tmp renamed. */
static int write_table(const char *path, const struct st_table *t, struct st_err *err)
{
	static const cookie_io_functions_t io = { .write = gz_write, .close = gz_close };
	char tmp[PATH_MAX + 32];
	gzFile gz;
	FILE *f;
	int ret;

	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
	gz = gzopen(tmp, "wb");
	f = gz ? fopencookie(gz, "w", io) : NULL;
	if (!f) {
		if (gz)
			gzclose(gz);
		ret = -(errno ? errno : ENOMEM);
		goto out;
	}
	ret = st_table_csv(f, t);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (!ret && rename(tmp, path))
		ret = -errno;
out:
	if (ret) {
		unlink(tmp);
		st_err_set(err, ST_ERR_LOCAL, -ret, "export", "cannot write %s", path);
	}
	return ret;
}

int st_store_export(struct st_store *s, uint64_t run_id, const char *dir,
		    const char *host, struct st_err *err)
{
	static const char *const tables[] = { "sessions", "processes", "sites", "paths" };
	struct st_dump d;
	struct st_view v = { .dump = &d };
	struct st_dump_table dt;
	struct st_table session = { .name = "session", .nrows = 1,
				    .col = session_col, .row = session_row };
	struct st_table paths = { .name = "paths", .col = path_col, .row = path_row };
	char path[PATH_MAX];
	size_t i;
	int ret;

	ret = st_store_load(s, run_id, &d, err);
	if (ret)
		return ret;
	st_session_columns(&session.ncols);
	session.ctx = &d.session;
	st_store_path_columns(&paths.ncols);
	paths.nrows = d.npaths;
	paths.ctx = &d;
	for (i = 0; i < 4 && !ret; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/host=%s/run=%" PRIu64 "/part-0.csv.gz",
				     dir, tables[i], host, run_id) >= sizeof(path)) {
			st_err_set(err, ST_ERR_LOCAL, ENAMETOOLONG, "export", "%s: too long", dir);
			ret = -ENAMETOOLONG;
			break;
		}
		ret = make_dirs(path);
		if (ret) {
			st_err_set(err, ST_ERR_LOCAL, -ret, "export", "cannot make the directories of %s",
				   path);
			break;
		}
		if (i == 1 || i == 2)
			st_dump_table(&dt, &v, i == 1 ? ST_TABLE_PROCESSES : ST_TABLE_SITES, false);
		ret = write_table(path, i == 0 ? &session : i == 3 ? &paths : &dt.t, err);
	}
	st_dump_free(&d);
	return ret;
}
