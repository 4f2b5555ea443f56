// SPDX-License-Identifier: GPL-2.0
/*
 * status and list, text and JSON, on a fixture: byte for byte the files in
 * tests/expected/, which the code before the table writer printed for it;
 * and the output options that dump, report and diff share.
 */
#include <stdlib.h>
#include <unistd.h>
#include "common.h"
#include "subcommands.h"
#include "systrace.h"
#include "test.h"

static char *slurp(FILE *f)
{
	char *buf;
	long len;

	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	buf = calloc(1, (size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *expected(const char *name)
{
	char path[512];
	char *text;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ST_EXPECTED, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	text = slurp(f);
	fclose(f);
	return text;
}

/* What st_status_print writes to stdout, or st_list_print to a file. */
static char *printed(bool status, size_t n, bool json)
{
	struct st_session_row ss[3];
	struct st_status st;
	FILE *f = tmpfile();
	char *text = NULL;
	int out;

	if (!f)
		return NULL;
	st_fixture_status(&st, ss);
	if (status) {
		fflush(stdout);
		out = dup(STDOUT_FILENO);
		dup2(fileno(f), STDOUT_FILENO);
		if (st_status_print(&st, ss, n, json))
			goto out;
		fflush(stdout);
		dup2(out, STDOUT_FILENO);
		close(out);
	} else if (st_list_print(f, ss, n, json)) {
		goto out;
	}
	text = slurp(f);
out:
	fclose(f);
	return text;
}

static void expect_output(bool *failed, bool status, size_t n, bool json,
			  const char *file)
{
	char *got = printed(status, n, json), *want = expected(file);

	EXPECT_STREQ(got, want);
	free(got);
	free(want);
}

TEST(status_text_and_json_exact)
{
	expect_output(failed, true, 3, false, "status.txt");
	expect_output(failed, true, 3, true, "status.json");
}

/* A name longer than its column pushes that line's columns right. */
TEST(list_text_and_json_exact)
{
	expect_output(failed, false, 3, false, "list.txt");
	expect_output(failed, false, 3, true, "list.json");
	expect_output(failed, false, 0, false, "list-empty.txt");
	expect_output(failed, false, 0, true, "list-empty.json");
}

/*
 * A call lost for want of a site row counts in dropped_sites and in
 * dropped_syscalls (both tracers), and an allocation failure in
 * dropped_nomem and in what it lost: the total counts the call once.
 */
TEST(dropped_counts_each_lost_call_once)
{
	struct st_session_row s = {
		.dropped_sites = 3, .dropped_syscalls = 100029, .dropped_nomem = 3,
	};

	EXPECT_EQ(st_session_dropped(&s), 100029);
	s.dropped_procs = 2;
	s.dropped_resolve = 5;
	s.dropped_counters = 7;
	s.dropped_events = 1000;	/* the log's: the rows have them */
	EXPECT_EQ(st_session_dropped(&s), 100029 + 2 + 5 + 7);
}

/* dump, report and diff share --csv, --json and -o. */
TEST(output_options_csv_json_o)
{
	struct st_output_opts o = { 0 };

	EXPECT_EQ(st_output_opt('C', NULL, "Usage: x\n\n", &o), -1);
	EXPECT_EQ(o.format, ST_FMT_CSV);
	EXPECT_EQ(st_output_opt('C', NULL, "Usage: x\n\n", &o), -1);
	EXPECT_EQ(st_output_opt('o', "out.csv", "Usage: x\n\n", &o), -1);
	ASSERT_TRUE(o.path);
	EXPECT_STREQ(o.path, "out.csv");
	EXPECT_EQ(st_output_opt('i', "in.json", "Usage: x\n\n", &o), ST_OPT_NOT_MINE);
	EXPECT_EQ(st_output_opt('J', NULL, "Usage: x\n\n", &o), ST_EXIT_USAGE);
	EXPECT_EQ(o.format, ST_FMT_CSV);
}
