// SPDX-License-Identifier: GPL-2.0
/*
 * status and list, text and JSON, on a fixture: byte for byte the files in
 * tests/expected/, which the code before the table writer printed for it;
 * the output options that dump, report and diff share, and their -o FILE
 * written whole or not at all.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"
#include "subcommands.h"
#include "libsystrace.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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

/*
 * What st_status_print writes to stdout, or st_list_print to a file; with
 * finished, every session of the fixture finished.
 */
static char *printed_as(bool status, size_t n, bool json, bool finished)
{
	struct st_session_row ss[3];
	struct st_status st;
	FILE *f = tmpfile();
	char *text = NULL;
	size_t i;
	int out;

	if (!f)
		return NULL;
	st_fixture_status(&st, ss);
	for (i = 0; finished && i < n; i++)
		ss[i].state = SYSTRACE_STATE_FINISHED;
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

static char *printed(bool status, size_t n, bool json)
{
	return printed_as(status, n, json, false);
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

/* 3 finished sessions: none live, 3 kept (it said "sessions live: 3"). */
TEST(status_counts_finished_sessions_as_kept)
{
	char *got = printed_as(true, 3, false, true);

	ASSERT_TRUE(got != NULL);
	EXPECT_TRUE(strstr(got, "\nsessions live:   0\nsessions kept:   3\n") != NULL);
	free(got);
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

/* The output tests' directory: made empty, and its file "out". */
static void out_dir(char *dir, char *file)
{
	strcpy(dir, "/tmp/st-test-out-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	sprintf(file, "%s/out", dir);
}

static size_t dir_entries(const char *dir)
{
	struct dirent *e;
	size_t n = 0;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") &&
					     strcmp(e->d_name, ".."));
	if (d)
		closedir(d);
	return n;
}

/* dir and every file in it. */
static void rm_dir(const char *dir)
{
	char path[400];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* 1 MB of '0's, then fails or kills itself as ctx says. */
static int write_then(FILE *f, const void *ctx)
{
	int how = *(const int *)ctx;
	size_t i;

	for (i = 0; i < 1024; i++)
		fprintf(f, "%01023d\n", 0);
	fflush(f);
	if (how)
		raise(how);
	return how ? 0 : -EIO;
}

static int write_hello(FILE *f, const void *ctx)
{
	(void)ctx;
	return fputs("hello\n", f) < 0 ? -EIO : 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;

	if (!f)
		return NULL;
	s = slurp(f);
	fclose(f);
	return s;
}

/*
 * -o FILE is whole or absent: a writer that fails leaves no file (or the
 * old one, untouched) and no temporary file; a success is the whole text,
 * with the mode fopen would give. (On the old code the target held the
 * first megabyte.)
 */
TEST(output_file_whole_or_absent_on_failure)
{
	char dir[64], file[80], *text;
	struct st_err err;
	struct stat st;
	int how = 0;
	mode_t mask = umask(022);

	out_dir(dir, file);
	EXPECT_EQ(st_output_write(file, "writing it", write_then, &how, &err), -EIO);
	EXPECT_EQ(access(file, F_OK), -1);
	EXPECT_EQ(dir_entries(dir), 0);

	ASSERT_EQ(st_output_write(file, "writing it", write_hello, NULL, &err), 0);
	text = read_file(file);
	EXPECT_STREQ(text, "hello\n");
	free(text);
	ASSERT_EQ(stat(file, &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0644);
	EXPECT_EQ(dir_entries(dir), 1);

	EXPECT_EQ(st_output_write(file, "writing it", write_then, &how, &err), -EIO);
	text = read_file(file);
	EXPECT_STREQ(text, "hello\n");
	free(text);
	EXPECT_EQ(dir_entries(dir), 1);

	/* Not a regular file: written in place. */
	EXPECT_EQ(st_output_write("/dev/null", "writing it", write_hello, NULL, &err), 0);
	umask(mask);
	rm_dir(dir);
}

/* Killed while it writes: no file under the target's name; TERM leaves nothing. */
TEST(output_file_absent_when_killed)
{
	static const int sigs[] = { SIGKILL, SIGTERM, SIGINT };
	char dir[64], file[80];
	struct st_err err;
	size_t i;
	int status;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		out_dir(dir, file);
		pid = fork();
		ASSERT_TRUE(pid >= 0);
		if (!pid) {
			/* The defaults, whatever the runner left (a background job ignores INT). */
			signal(sigs[i], SIG_DFL);
			st_output_write(file, "writing it", write_then, &sigs[i], &err);
			_exit(0);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i]);
		EXPECT_EQ(access(file, F_OK), -1);
		/* SIGKILL leaves the temporary file, under its own name. */
		EXPECT_EQ(dir_entries(dir), sigs[i] == SIGKILL);
		rm_dir(dir);
	}
}

/*
 * A signal the program runs with ignored (a background job of a script:
 * INT; nohup: HUP) is not caught: raised mid-write, the file is still
 * written whole under its name (it was removed, and the write went on
 * into a file without a name).
 */
TEST(output_file_whole_when_signal_ignored)
{
	static const int sigs[] = { SIGINT, SIGHUP };
	char dir[64], file[80];
	struct st_err err;
	struct stat st;
	size_t i;
	int status;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		out_dir(dir, file);
		pid = fork();
		ASSERT_TRUE(pid >= 0);
		if (!pid) {
			signal(sigs[i], SIG_IGN);
			_exit(st_output_write(file, "writing it", write_then, &sigs[i], &err) ? 1 : 0);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		ASSERT_EQ(stat(file, &st), 0);
		EXPECT_EQ(st.st_size, 1024 * 1024);
		EXPECT_EQ(dir_entries(dir), 1);
		rm_dir(dir);
	}
}

