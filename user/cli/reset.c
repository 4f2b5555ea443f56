// SPDX-License-Identifier: GPL-2.0
/* systracectl reset: delete sessions (SESSION_DEL) and free their memory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include "common.h"
#include "subcommands.h"
#include "systrace.h"

const char reset_usage[] =
	"Usage: systracectl reset [SESSION | --all]\n\n"
	"Deletes a session and frees all of its memory. Its processes that still\n"
	"run go on untraced. SESSION is an id or a name (the newest session of\n"
	"that name); without one, the newest session is deleted.\n\n"
	"  --all     delete every session\n"
	"  -h, --help\n";

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

int reset_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *arg = NULL;
	struct st_err err;
	struct st_backend *be;
	bool all = false;
	uint32_t id;
	int c;

	while ((c = getopt_long(argc, argv, "ah", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'h':
			return st_print_usage(reset_usage);
		default:
			return st_usage_error(reset_usage, "bad option");
		}
	}
	if (optind < argc)
		arg = argv[optind++];
	if (optind < argc)
		return st_usage_error(reset_usage, "unexpected argument '%s'", argv[optind]);
	if (all && arg)
		return st_usage_error(reset_usage, "give SESSION or --all, not both");

	if (st_backend_open(&be, &err))
		return st_fail(&err, NULL);
	if (all) {
		if (reset_all(be, &err))
			return st_fail(&err, be);
	} else {
		if (st_session_pick(be, arg, &id, &err) ||
		    st_backend_session_del(be, id, &err))
			return st_fail(&err, be);
		st_warn("deleted session %" PRIu32, id);
	}
	st_backend_close(be);
	return ST_EXIT_OK;
}
