// SPDX-License-Identifier: GPL-2.0
/* systracectl reset: delete sessions (SESSION_DEL) and free their memory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include "nl.h"
#include "common.h"
#include "subcommands.h"

const char reset_usage[] =
	"Usage: systracectl reset [SESSION | --all]\n\n"
	"Deletes a session and frees all of its memory. Its processes that still\n"
	"run go on untraced. SESSION is an id or a name (the newest session of\n"
	"that name); without one, the newest session is deleted.\n\n"
	"  --all     delete every session\n"
	"  -h, --help\n";

static int reset_all(struct st_nl *nl, struct st_err *err)
{
	struct st_session *ss;
	size_t i, n, deleted = 0;
	int ret;

	ret = st_nl_session_list(nl, &ss, &n, NULL, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = st_nl_session_del(nl, ss[i].id, err);
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
	struct st_nl *nl;
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

	if (st_nl_open(&nl, &err))
		return st_fail(&err, NULL);
	if (all) {
		if (reset_all(nl, &err))
			return st_fail(&err, nl);
	} else {
		if (st_session_pick(nl, arg, &id, &err) ||
		    st_nl_session_del(nl, id, &err))
			return st_fail(&err, nl);
		st_warn("deleted session %" PRIu32, id);
	}
	st_nl_close(nl);
	return ST_EXIT_OK;
}
