/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_STORE_H
#define SYSTRACE_STORE_H

/*
 * The run store (store.c): finished sessions saved whole into one SQLite
 * file, read back as the struct st_dump they were. See docs/store.md.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/err.h"
#include "model/model.h"
#include "out/table.h"

#define ST_STORE_DEFAULT "/var/lib/systrace/runs.db"
#define ST_STORE_SCHEMA 3		/* PRAGMA user_version */
#define ST_STORE_CAP_DEFAULT (1024ULL << 20)	/* bytes of runs kept */

struct st_store;

/* A stored run: its id, and its session row as it was saved. */
struct st_run {
	uint64_t run_id;
	struct st_session_row session;
};

/* SYSTRACE_STORE when set, else ST_STORE_DEFAULT. */
const char *st_store_path(void);
/*
 * Testing: SYSTRACE_SAVE_STOP=POINT stops the saver there (SIGSTOP), for a
 * test to kill it at a known point of a save: "commit" (the run's rows
 * written, its transaction not yet committed), "free" (committed, the
 * session not yet deleted from the tracer).
 */
void st_store_stop_point(const char *point);
/*
 * Opens (and makes, 0600 in a 0700 directory for the default path) the
 * store, migrating an older schema. 0 or -errno, err filled.
 */
int st_store_open(struct st_store **sp, struct st_err *err);
void st_store_close(struct st_store *s);

/*
 * d, a finished session whole, as one run in one transaction. A session
 * saved before (the same boot, backend, id and creation time) is not saved
 * again: *run_id is the run it was saved as, *fresh false. log_path: the
 * temporal log's file, or NULL.
 */
int st_store_save(struct st_store *s, const struct st_dump *d, const char *log_path,
		  uint64_t *run_id, bool *fresh, struct st_err *err);
/*
 * A session that a command will save: if that command dies, the next
 * command that sees the session finished saves it (st_store_pending).
 */
int st_store_pending_add(struct st_store *s, const struct st_session_row *r,
			 struct st_err *err);
/*
 * The store's write lock taken (BEGIN IMMEDIATE, waiting for other
 * writers), and given back with what was written meanwhile (COMMIT, or a
 * rollback when that fails): start takes it before it makes a session, so
 * that the session's pending row follows it with no wait between.
 */
int st_store_begin(struct st_store *s, struct st_err *err);
int st_store_commit(struct st_store *s, struct st_err *err);
int st_store_pending_del(struct st_store *s, const struct st_session_row *r,
			 struct st_err *err);
/* Whether r (a live session) is pending, or was saved (*run_id). */
int st_store_lookup(struct st_store *s, const struct st_session_row *r,
		    bool *pending, uint64_t *run_id, struct st_err *err);

/*
 * The run arg names: a run id, a name (its latest run), or NULL (the
 * latest run). -ENOENT (err filled) when none.
 */
int st_store_find(struct st_store *s, const char *arg, uint64_t *run_id,
		  struct st_err *err);
/*
 * The temporal log's file that run run_id was saved with (start --log), in
 * *path (malloc'd), or NULL when it had none.
 */
int st_store_log_path(struct st_store *s, uint64_t run_id, char **path,
		      struct st_err *err);
/* The run whole, as the backend's dump gave it (sorted). */
int st_store_load(struct st_store *s, uint64_t run_id, struct st_dump *d,
		  struct st_err *err);
/* The runs, oldest first: every one (all), else the latest max. */
int st_store_list(struct st_store *s, bool all, size_t max, struct st_run **out,
		  size_t *n, struct st_err *err);
int st_store_delete(struct st_store *s, uint64_t run_id, struct st_err *err);
/*
 * Drops the oldest runs until the runs' rows take at most cap bytes
 * (SYSTRACE_STORE_CAP, else ST_STORE_CAP_DEFAULT), keeping keep; *dropped:
 * how many went.
 */
int st_store_trim(struct st_store *s, uint64_t keep, size_t *dropped,
		  struct st_err *err);

/*
 * The paths table's columns (after run_id; docs/store.md), and path row p
 * of d as their cells (v: one per column). The store and the export
 * write them alike.
 */
const char *const *st_store_path_columns(size_t *n);
void st_store_path_cells(const struct st_dump *d, const struct st_path_row *p,
			 struct st_val *v);

/*
 * export.c: run run_id as DIR/<table>/host=<host>/run=<run_id>/part-0.csv.gz
 * for sessions, processes, sites and paths (docs/fleet.md).
 */
int st_store_export(struct st_store *s, uint64_t run_id, const char *dir,
		    const char *host, struct st_err *err);

#endif
