// SPDX-License-Identifier: GPL-2.0
/* systracectl reset: delete sessions (SESSION_DEL) and free their memory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>
#include "common.h"
#include "store/store.h"
#include "subcommands.h"
#include "libsystrace.h"

const char reset_usage[] =
	"Usage: systracectl reset SESSION... | --all\n\n"
	"Deletes the sessions named and frees all of their memory. Their processes\n"
	"that still run go on untraced. Each SESSION is an id or a name (the\n"
	"newest session of that name); sessions are shared by every user of the\n"
	"host, so reset deletes only what it is told to: there is no default.\n"
	"When one SESSION names no session, none is deleted. A SESSION that no\n"
	"live session answers names a run of the run store (its id, or the\n"
	"latest run of its name), which is deleted from the store.\n\n"
	"  --all     delete every session\n"
	"  -h, --help\n\n"
	"Exit codes:\n"
	"  0  success\n"
	"  1  usage error\n"
	"  2  the systrace module is not loaded\n"
	"  3  permission denied\n"
	"  4  no such session, or the kernel refused to delete one (its message\n"
	"     is printed; the others are deleted all the same)\n"
	"  6  local failure: out of memory, malformed kernel reply\n";

static int reset_all(struct st_backend *be, struct st_err *err)
{
	struct st_session_row *ss;
	size_t i, n, deleted = 0;
	int ret;

	ret = st_backend_session_list(be, &ss, &n, NULL, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = st_backend_session_del(be, ss[i].id, err);
		if (ret == -ENOENT)	/* deleted by someone else meanwhile */
			continue;
		if (ret)
			break;
		deleted++;
	}
	free(ss);
	st_warn("deleted %zu session%s", deleted, deleted == 1 ? "" : "s");
	return ret == -ENOENT ? 0 : ret;
}

/* Each of ids; one that fails is said and the others go on. */
static int reset_ids(struct st_backend *be, const uint32_t *ids, size_t n)
{
	struct st_err err;
	int code = ST_EXIT_OK;
	size_t i;

	for (i = 0; i < n; i++) {
		if (st_backend_session_del(be, ids[i], &err)) {
			st_err_print(&err);
			if (code == ST_EXIT_OK)
				code = st_exit_code(&err);
			continue;
		}
		st_warn("deleted session %" PRIu32, ids[i]);
	}
	return code;
}

/*
 * arg: a live session (*live) or a stored run (*run_id). Neither: -ENOENT,
 * err the tracer's (the store's when both only say "no such").
 */
static int resolve(struct st_backend *be, struct st_store *s, char *arg, uint32_t *live,
		   uint64_t *run_id, struct st_err *err)
{
	struct st_session_row row;
	struct st_err serr;
	int ret;

	*live = 0;
	*run_id = 0;
	ret = st_session_ids(be, &arg, 1, live, err);
	if (ret == 1) {
		ret = st_backend_session_get(be, *live, &row, err);
		/*
		 * Only "no such session" sends SESSION to the store: any other
		 * refusal (not allowed to read it) is the delete's to say.
		 */
		if (ret && err->kind != ST_ERR_NOSESSION && err->err != ENOENT)
			return 0;
	}
	if (!ret)
		return 0;
	*live = 0;
	if (!s)
		return -ENOENT;
	if (!st_store_find(s, arg, run_id, &serr))
		return 0;
	if (serr.kind == ST_ERR_NOSESSION &&
	    (err->kind == ST_ERR_NOSESSION || err->err == ENOENT))
		*err = serr;
	return -ENOENT;
}

/*
 * Each arg, a live session or else a stored run, resolved before any is
 * deleted; then each deleted.
 */
static int reset_mixed(struct st_backend *be, char **args, size_t n)
{
	uint32_t *live = calloc(n, sizeof(*live));
	uint64_t *runs = calloc(n, sizeof(*runs));
	struct st_store *s = NULL;
	struct st_err err;
	size_t i;
	int code = ST_EXIT_OK, ret;

	if (!live || !runs) {
		st_warn("out of memory");
		code = ST_EXIT_LOCAL;
		goto out;
	}
	if (!access(st_store_path(), F_OK) && st_store_open(&s, &err)) {
		st_err_print(&err);
		code = st_exit_code(&err);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (resolve(be, s, args[i], &live[i], &runs[i], &err)) {
			st_err_print(&err);
			code = st_exit_code(&err);
			goto out;
		}
	for (i = 0; i < n; i++) {
		if (live[i]) {
			ret = reset_ids(be, &live[i], 1);
			if (ret && code == ST_EXIT_OK)
				code = ret;
		} else if (st_store_delete(s, runs[i], &err)) {
			if (err.err != ENOENT)	/* twice on the line, or gone meanwhile */
				st_err_print(&err);
		} else {
			st_warn("deleted stored run %" PRIu64, runs[i]);
		}
	}
out:
	st_store_close(s);
	free(live);
	free(runs);
	return code;
}

int reset_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct st_err err;
	struct st_backend *be;
	bool all = false;
	int c;

	while ((c = getopt_long(argc, argv, ":ah", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'h':
			return st_print_usage(reset_usage, 0);
		default:
			return st_bad_option(reset_usage, argv, c);
		}
	}
	if (all && optind < argc)
		return st_usage_error(reset_usage, "give SESSION... or --all, not both");
	if (!all && optind == argc)
		return st_usage_error(reset_usage,
				      "which sessions? give SESSION... or --all (see: systracectl list)");

	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	if (all) {
		if (reset_all(be, &err))
			return st_fail(&err, be);
		st_backend_close(be);
		return ST_EXIT_OK;
	}
	c = reset_mixed(be, argv + optind, (size_t)(argc - optind));
	st_backend_close(be);
	return c;
}
