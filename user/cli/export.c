// SPDX-License-Identifier: GPL-2.0
/* systracectl export: stored runs as Hive-style partitions of gzip'd CSV. */
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

const char export_usage[] =
	"Usage: systracectl export --dir DIR [RUN...]\n\n"
	"Writes stored runs (RUN: a run id, or a name: its latest run; default:\n"
	"every run of the store) as files that Dask, Spark, Trino or ClickHouse\n"
	"read as they are:\n"
	"DIR/{sessions,processes,sites,paths}/host=HOST/run=ID/part-0.csv.gz,\n"
	"gzip'd CSV with the dump's columns (sites without the symbol columns;\n"
	"paths, the paths of file calls, with the store's). Many machines may\n"
	"export into one tree. See docs/fleet.md.\n\n"
	"  -d, --dir DIR  the tree to write into (made when missing)\n"
	"  -h, --help\n";

/* The runs args name (each once), or every run: *ids to free. */
static int pick_runs(struct st_store *s, char **args, size_t n, uint64_t **ids,
		     size_t *nids, struct st_err *err)
{
	struct st_run *runs = NULL;
	size_t i, k;
	int ret = 0;

	if (!n) {
		ret = st_store_list(s, true, 0, &runs, &n, err);
		if (ret)
			return ret;
	}
	*ids = calloc(n ? n : 1, sizeof(**ids));
	if (!*ids) {
		free(runs);
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "export", NULL);
		return -ENOMEM;
	}
	*nids = 0;
	for (i = 0; i < n && !ret; i++) {
		uint64_t id;

		if (runs)
			id = runs[i].run_id;
		else
			ret = st_store_find(s, args[i], &id, err);
		for (k = 0; !ret && k < *nids && (*ids)[k] != id; k++)
			;
		if (!ret && k == *nids)
			(*ids)[(*nids)++] = id;
	}
	free(runs);
	return ret;
}

int export_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct st_store *s = NULL;
	struct st_err err;
	const char *dir = NULL;
	char host[256] = "";
	uint64_t *ids = NULL;
	size_t i, n = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'h':
			return st_print_usage(export_usage, ST_CODES_READ);
		default:
			return st_bad_option(export_usage, argv, c);
		}
	}
	if (!dir || !*dir)
		return st_usage_error(export_usage, "--dir DIR is needed");
	if (gethostname(host, sizeof(host) - 1) || !*host || strchr(host, '/'))
		return st_usage_error(export_usage, "this host has no usable host name");
	if (access(st_store_path(), F_OK)) {
		st_err_set(&err, ST_ERR_NOSESSION, ENOENT, "export", "no run store at %s",
			   st_store_path());
		return st_fail(&err, NULL);
	}
	ret = st_store_open(&s, &err);
	if (!ret)
		ret = pick_runs(s, argv + optind, (size_t)(argc - optind), &ids, &n, &err);
	for (i = 0; !ret && i < n; i++)
		ret = st_store_export(s, ids[i], dir, host, &err);
	st_store_close(s);
	free(ids);
	if (ret)
		return st_fail(&err, NULL);
	st_warn("exported %zu run%s to %s", n, n == 1 ? "" : "s", dir);
	return ST_EXIT_OK;
}
