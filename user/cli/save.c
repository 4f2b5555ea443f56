// SPDX-License-Identifier: GPL-2.0
/*
 * Moving finished sessions into the run store (lib/store/), and reading
 * stored runs where a session is asked for. A session is deleted from the
 * tracer only after its run is committed: a kill at any instant leaves the
 * session in the kernel (saved by the next command, the store's pending
 * row says so), or the run in the store and the session in the kernel
 * (deleted by the next command), never neither.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "store/store.h"
#include "subcommands.h"
#include "libsystrace.h"

const char save_usage[] =
	"Usage: systracectl save [SESSION...]\n\n"
	"Saves finished sessions into the run store, then deletes them from\n"
	"the tracer. SESSION is an id or a name; the default is every finished\n"
	"session. start and attach save their session themselves unless given\n"
	"--no-save. The store is SYSTRACE_STORE, else " ST_STORE_DEFAULT "\n"
	"(systracectl --store PATH chooses another); see docs/store.md.\n\n"
	"  -h, --help\n";

/* Deletes the saved session id from the tracer; gone already is fine. */
static void free_session(struct st_backend *be, uint32_t id)
{
	struct st_err err;

	if (st_backend_session_del(be, id, &err) && err.err != ENOENT)
		st_err_print(&err);
}

static void store_failed(const struct st_err *err, uint32_t id)
{
	st_err_print(err);
	st_warn("session %" PRIu32 " stays in the kernel, not saved: nothing is lost "
		"(save it later with: systracectl save %" PRIu32 ")", id, id);
}

/*
 * Saves session id, finished, into s (log_path: its log's file, or NULL),
 * then frees it in the tracer. A session still running is left. Returns 0,
 * -EAGAIN when the session is not finished, or -errno (said on stderr).
 */
static int save_one(struct st_backend *be, struct st_store *s, uint32_t id,
		    const char *log_path, bool quiet)
{
	struct st_err err;
	struct st_dump d;
	uint64_t run_id;
	size_t dropped;
	bool fresh;
	int ret;

	ret = st_session_fetch(be, id, &d, &err);
	if (ret) {
		if (err.err != ENOENT)
			st_err_print(&err);
		return ret;
	}
	if (!st_state_final(d.session.state)) {
		st_dump_free(&d);
		return -EAGAIN;
	}
	ret = st_store_save(s, &d, log_path, &run_id, &fresh, &err);
	st_dump_free(&d);
	if (ret) {
		store_failed(&err, id);
		return ret;
	}
	if (fresh)
		st_store_stop_point("free");
	free_session(be, id);
	if (fresh && !quiet)
		st_warn("session %" PRIu32 " saved as run %" PRIu64 " in %s", id, run_id,
			st_store_path());
	if (fresh && st_store_trim(s, run_id, &dropped, &err))
		st_err_print(&err);
	return 0;
}

bool st_no_save_env(void)
{
	const char *v = getenv("SYSTRACE_NO_SAVE");

	return v && !strcmp(v, "1");
}

int st_run_pending(const struct st_session_row *r)
{
	return st_run_pending_end(st_run_pending_begin(), r);
}

struct st_store *st_run_pending_begin(void)
{
	struct st_store *s = NULL;
	struct st_err err;

	if (!st_store_open(&s, &err) && !st_store_begin(s, &err))
		return s;
	st_err_print(&err);
	st_store_close(s);
	return NULL;
}

int st_run_pending_end(struct st_store *s, const struct st_session_row *r)
{
	struct st_err err;
	int ret;

	if (!s)
		return -EIO;
	ret = r ? st_store_pending_add(s, r, &err) : 0;
	if (ret)
		st_err_print(&err);
	if (st_store_commit(s, &err)) {
		st_err_print(&err);
		ret = ret ? ret : -EIO;
	}
	st_store_close(s);
	return ret;
}

int st_run_save(struct st_backend *be, uint32_t id, const char *log_path)
{
	struct st_store *s;
	struct st_err err;
	int ret;

	ret = st_store_open(&s, &err);
	if (ret) {
		store_failed(&err, id);
		return ST_EXIT_LOCAL;
	}
	ret = save_one(be, s, id, log_path, false);
	st_store_close(s);
	if (ret == -EAGAIN)
		st_warn("session %" PRIu32 " is still running (a process it traces lives on): "
			"not saved yet", id);
	return ret && ret != -EAGAIN ? ST_EXIT_LOCAL : 0;
}

/*
 * What a command that died left: finished sessions it meant to save (a
 * pending row) are saved, and saved sessions still in the tracer are
 * freed. Quiet when there is no store to open.
 */
void st_run_settle(struct st_backend *be)
{
	struct st_session_row *ss;
	struct st_store *s;
	struct st_err err;
	uint64_t run_id;
	bool pending;
	size_t i, n;

	if (access(st_store_path(), F_OK) ||
	    st_backend_session_list(be, &ss, &n, NULL, &err))
		return;
	if (!n || st_store_open(&s, &err)) {
		free(ss);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!st_state_final(ss[i].state) ||
		    st_store_lookup(s, &ss[i], &pending, &run_id, &err))
			continue;
		if (run_id)
			free_session(be, ss[i].id);
		else if (pending)
			save_one(be, s, ss[i].id, NULL, false);
	}
	st_store_close(s);
	free(ss);
}

/*
 * The run arg names, from the store, whole: for a reader given no session.
 * No store at all: -ENOENT, err of kind ST_ERR_NONE (the tracer's error
 * says it best).
 */
/*
 * The store opened in *s, and the run arg names in *run_id: 0, or -errno
 * with err said (no store at all: -ENOENT, of kind ST_ERR_NONE). The
 * caller closes *s whatever the result.
 */
static int run_find(const char *arg, struct st_store **s, uint64_t *run_id,
		    struct st_err *err)
{
	int ret;

	*s = NULL;
	if (access(st_store_path(), F_OK)) {
		st_err_set(err, ST_ERR_NONE, ENOENT, "session", "no run store at %s",
			   st_store_path());
		return -ENOENT;
	}
	ret = st_store_open(s, err);
	return ret ? ret : st_store_find(*s, arg, run_id, err);
}

int st_run_read(const char *arg, struct st_dump *d, struct st_err *err)
{
	struct st_store *s;
	uint64_t run_id;
	int ret;

	ret = run_find(arg, &s, &run_id, err);
	if (!ret)
		ret = st_store_load(s, run_id, d, err);
	st_store_close(s);
	return ret;
}

/*
 * The temporal log's file of the stored run arg names, in *path
 * (malloc'd): 0, or -errno with err said best (no store, no such run, a
 * run saved without a log, a log file gone since).
 */
int st_run_log(const char *arg, char **path, struct st_err *err)
{
	struct st_store *s;
	uint64_t run_id;
	int ret;

	*path = NULL;
	ret = run_find(arg, &s, &run_id, err);
	if (!ret)
		ret = st_store_log_path(s, run_id, path, err);
	st_store_close(s);
	if (ret)
		return ret;
	if (!*path) {
		st_err_set(err, ST_ERR_NOSESSION, ENOENT, "log",
			   "run %" PRIu64 " was saved without a temporal log (start --log FILE keeps one)",
			   run_id);
		return -ENOENT;
	}
	if (access(*path, R_OK)) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "log",
			   "run %" PRIu64 "'s log %s cannot be read (moved or deleted since the run was saved?)",
			   run_id, *path);
		free(*path);
		*path = NULL;
		return ret;
	}
	return 0;
}

static int save_all(struct st_backend *be, struct st_store *s)
{
	struct st_session_row *ss;
	struct st_err err;
	size_t i, n;
	int code = ST_EXIT_OK;

	if (st_backend_session_list(be, &ss, &n, NULL, &err)) {
		st_err_print(&err);
		return st_exit_code(&err);
	}
	for (i = 0; i < n; i++)
		if (st_state_final(ss[i].state) &&
		    save_one(be, s, ss[i].id, NULL, false) && code == ST_EXIT_OK)
			code = ST_EXIT_LOCAL;
	free(ss);
	return code;
}

static int save_ids(struct st_backend *be, struct st_store *s, char **args, size_t n)
{
	struct st_err err;
	uint32_t *ids = calloc(n, sizeof(*ids));
	int k, i, ret, code = ST_EXIT_OK;

	if (!ids) {
		st_warn("out of memory");
		return ST_EXIT_LOCAL;
	}
	k = st_session_ids(be, args, n, ids, &err);
	if (k < 0) {
		free(ids);
		st_err_print(&err);
		return st_exit_code(&err);
	}
	for (i = 0; i < k; i++) {
		ret = save_one(be, s, ids[i], NULL, false);
		if (ret == -EAGAIN)
			st_warn("session %" PRIu32 " is still running: not saved", ids[i]);
		if (ret && code == ST_EXIT_OK)
			code = ret == -EAGAIN ? ST_EXIT_KERNEL : ST_EXIT_LOCAL;
	}
	free(ids);
	return code;
}

int save_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct st_backend *be;
	struct st_store *s;
	struct st_err err;
	int c, code;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h')
			return st_print_usage(save_usage, ST_CODES_READ);
		return st_bad_option(save_usage, argv, c);
	}
	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	if (st_store_open(&s, &err))
		return st_fail(&err, be);
	code = optind < argc ? save_ids(be, s, argv + optind, (size_t)(argc - optind)) :
			       save_all(be, s);
	st_store_close(s);
	st_backend_close(be);
	return code;
}
