// SPDX-License-Identifier: GPL-2.0
/* systracectl reset: delete sessions (SESSION_DEL) and free their memory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include "common.h"
#include "subcommands.h"
#include "libsystrace.h"

const char reset_usage[] =
	"Usage: systracectl reset SESSION... | --all\n\n"
	"Deletes the sessions named and frees all of their memory. Their processes\n"
	"that still run go on untraced. Each SESSION is an id or a name (the\n"
	"newest session of that name); sessions are shared by every user of the\n"
	"host, so reset deletes only what it is told to: there is no default.\n"
	"When one SESSION names no session, none is deleted.\n\n"
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
	uint32_t *ids;
	int c, n;

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
	ids = calloc(argc - optind, sizeof(*ids));
	if (!ids) {
		st_err_set(&err, ST_ERR_LOCAL, ENOMEM, "reset", NULL);
		return st_fail(&err, be);
	}
	n = st_session_ids(be, argv + optind, argc - optind, ids, &err);
	if (n < 0) {
		free(ids);
		return st_fail(&err, be);
	}
	c = reset_ids(be, ids, n);
	free(ids);
	st_backend_close(be);
	return c;
}
