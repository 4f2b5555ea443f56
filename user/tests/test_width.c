// SPDX-License-Identifier: GPL-2.0
/*
 * Every text systracectl prints fits a terminal of 100 columns: each
 * report, diff --by all, status and list, on a session whose names, paths,
 * symbols and numbers are as long as a real build's (the old widths were
 * 135 to 274 columns). Durations read in units.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "report.h"
#include "subcommands.h"
#include "test.h"

#define WIDTH 100
#define SEC 1000000000ULL

static const char *const objects[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/home/builder/src/glibc-2.36/build/elf/ld-linux-x86-64.so.2",
	"/opt/toolchains/x86_64-unknown-linux-gnu/libexec/gcc/x86_64-unknown-linux-gnu/12.2.0/cc1plus",
};

static const char *const symbols[] = {
	"__GI___libc_read",
	"_ZN4llvm13IRBuilderBaseINS_14ConstantFolderENS_24IRBuilderDefaultInserterEE10CreateCallEPNS_8FunctionE",
	"__open64_nocancel",
};

/* Three images, a hundred sites, counts and times of a long build. */
static void wide_fixture(struct st_dump *d, unsigned int seed)
{
	struct st_proc_row *p;
	struct st_site_row *s;
	size_t i, k;

	memset(d, 0, sizeof(*d));
	d->session = (struct st_session_row){
		.id = 4000000000U, .state = SYSTRACE_STATE_FINISHED,
		.realtime_base_ns = 1700000000000000000ULL,
	};
	strcpy(d->session.name, "a-session-name-of-31-bytes-long");
	d->nprocs = 3;
	d->procs = p = calloc(3, sizeof(*p));
	for (i = 0; i < 3; i++) {
		p[i] = (struct st_proc_row){
			.id = i + 1, .parent_id = i, .pid = 4194300 + (uint32_t)i,
			.tgid = 4194300 + (uint32_t)i, .start_ns = 1000,
			.has_end_ns = true, .end_ns = 1000 + (i + 1) * 40 * SEC,
			.end = SYSTRACE_END_EXITED, .has_exit_code = true,
			.threads = 64,
		};
		strcpy(p[i].comm, i ? "x86_64-linux-gn" : "cc1plus-wrapper");
		p[i].exe = strdup(objects[2 - i]);
	}
	d->nsites = 100;
	d->sites = s = calloc(100, sizeof(*s));
	for (k = 0; k < 100; k++) {
		uint64_t calls = 123456789ULL * (k + seed) + k;

		s[k] = (struct st_site_row){
			.proc_id = k % 3 + 1, .addr = 0x7fffdeadb000ULL + k * 16,
			.nr = (uint32_t)(k % 40), .abi = SYSTRACE_ABI_X64,
			.map = SYSTRACE_MAP_FILE, .offset = 0x123456 + k * 16,
			.calls = calls, .errors = calls / 3,
			.total_ns = 25491243101ULL * (k + 1), .min_ns = 101,
			.max_ns = 9 * SEC, .first_ordinal = k,
		};
		if (st_dump_str(d, objects[k % 3], &s[k].path) ||
		    st_dump_sym(d, &(struct st_sym){
				.object = objects[k % 3], .symbol = symbols[k % 3],
				.has_symbol_offset = true, .symbol_offset = 0x1234,
			}, &s[k].sym))
			abort();
		p[k % 3].syscalls += s[k].calls;
		p[k % 3].errors += s[k].errors;
		p[k % 3].syscall_ns += s[k].total_ns;
		p[k % 3].sites++;
	}
	for (i = 0; i < 3; i++) {
		d->session.syscalls += p[i].syscalls;
		d->session.errors += p[i].errors;
		d->session.syscall_ns += p[i].syscall_ns;
	}
	d->session.procs = 3;
	d->session.sites = 100;
	d->symbolized = true;
	st_dump_sort(d);
}

/* The longest line of text, its number and itself in *line. */
static size_t widest(const char *text, char *line, size_t len)
{
	const char *p = text, *nl;
	size_t w, max = 0;

	while (*p) {
		nl = strchr(p, '\n');
		w = nl ? (size_t)(nl - p) : strlen(p);
		if (w > max) {
			max = w;
			snprintf(line, len, "%.*s", (int)w, p);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return max;
}

static void expect_fits(bool *failed, const char *what, const char *text)
{
	char line[1024];
	size_t w = widest(text, line, sizeof(line));

	if (w > WIDTH)
		ST_FAIL(false, "%s: a line of %zu columns: %s", what, w, line);
}

static char *report_text(const struct rt_report *r)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (rt_report_print(f, r, ST_FMT_TEXT, NULL))
		fputs("(error)", f);
	fclose(f);
	return out;
}

static void expect_report_fits(bool *failed, const char *name,
			       int (*build)(struct rt_report *, struct st_dump *,
					    const struct report_opts *))
{
	struct report_opts o = { .threshold = 16000000000ULL, .max_ms = 100000 };
	struct rt_report r = { .name = name };
	struct st_dump d;
	char *text, what[64];

	wide_fixture(&d, 1);
	r.dump = &d;
	ASSERT_EQ(rt_note_source(&r, "report", &d, "/home/builder/a/very/long/path/to/a/saved/dump/of/the/session.json"), 0);
	ASSERT_EQ(build(&r, &d, &o), 0);
	text = report_text(&r);
	snprintf(what, sizeof(what), "report %s", name);
	expect_fits(failed, what, text);
	free(text);
	rt_report_free(&r);
	st_dump_free(&d);
}

TEST(text_of_every_report_fits_100_columns)
{
	expect_report_fits(failed, "amortize", report_amortize);
	expect_report_fits(failed, "short", report_short);
	expect_report_fits(failed, "phases", report_phases);
	expect_report_fits(failed, "syscalls", report_syscalls);
	expect_report_fits(failed, "timeline", report_timeline);
}

TEST(text_of_diff_by_all_fits_100_columns)
{
	struct diff_opts o = { .by = (1U << DF_NBY) - 1, .threshold = 16 };
	struct rt_report r = { 0 };
	struct st_dump a, b;
	char *text;

	wide_fixture(&a, 1);
	wide_fixture(&b, 7);
	ASSERT_EQ(report_diff(&r, &a, &b, &o), 0);
	text = report_text(&r);
	expect_fits(failed, "diff --by all", text);
	free(text);
	rt_report_free(&r);
	st_dump_free(&a);
	st_dump_free(&b);
}

/* What status (on stdout) or list prints of the status fixture made longer. */
static char *printed(bool status)
{
	struct st_session_row ss[3];
	struct st_status st;
	FILE *f = tmpfile();
	char *text;
	long len;
	int out;

	if (!f)
		return NULL;
	/* A glibc build's figures, ten times over, and a 31-byte name. */
	st_fixture_status(&st, ss);
	strcpy(ss[0].name, "a-session-name-of-31-bytes-long");
	ss[0].procs = 1000650;
	ss[0].sites = 18142000;
	ss[0].syscalls = 500233610;
	ss[0].errors = 52228000;
	ss[0].dropped_syscalls = 100029000;
	ss[0].root_pid = 4194303;
	ss[0].mem_bytes = 1ULL << 40;
	st.params.max_mem_bytes = st.params.max_mem_total_bytes = 1ULL << 40;
	if (status) {
		fflush(stdout);
		out = dup(STDOUT_FILENO);
		dup2(fileno(f), STDOUT_FILENO);
		st_status_print(&st, ss, 3, false);
		fflush(stdout);
		dup2(out, STDOUT_FILENO);
		close(out);
	} else {
		st_list_print(f, ss, 3, false);
	}
	fflush(f);
	len = ftell(f);
	text = calloc(1, len > 0 ? (size_t)len + 1 : 1);
	rewind(f);
	if (text && len > 0 && fread(text, 1, (size_t)len, f) != (size_t)len)
		text[0] = '\0';
	fclose(f);
	return text;
}

TEST(text_of_status_and_list_fits_100_columns)
{
	char *text = printed(true);

	expect_fits(failed, "status", text);
	free(text);
	text = printed(false);
	expect_fits(failed, "list", text);
	free(text);
}

/* Durations: 3 significant digits, the unit that keeps the number under 1000. */
TEST(durations_in_three_significant_digits)
{
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0 ns" }, { 999, "999 ns" }, { 1000, "1.00 us" },
		{ 1234, "1.23 us" }, { 9995, "10.0 us" }, { 99949, "99.9 us" },
		{ 99950, "100 us" }, { 999499, "999 us" }, { 999500, "1.00 ms" },
		{ 25491243101LL, "25.5 s" }, { -18000000000LL, "-18.0 s" },
		{ 1234567000000LL, "1235 s" }, { -5, "-5 ns" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_STREQ(st_format_duration(cases[i].ns, buf, sizeof(buf)), cases[i].text);
	EXPECT_TRUE(st_text_is_duration("total_ns"));
	EXPECT_TRUE(st_text_is_duration("time_delta_ns"));
	EXPECT_FALSE(st_text_is_duration("start_ns"));
	EXPECT_FALSE(st_text_is_duration("first_ns"));
	EXPECT_FALSE(st_text_is_duration("calls"));
}

/*
 * A table too wide: the columns it did not name go first, then strings are
 * shortened in their middle, and a last line says what is not shown.
 */
TEST(narrow_text_keeps_the_named_columns)
{
	static const char *const cols[] = { "calls", "path", "extra", "total_ns" };
	static const char *const keep[] = { "path", "calls", "total_ns", NULL };
	struct rt_report r = { .name = "demo" };
	struct rt_table *t = rt_table_new("rows", NULL, cols, 4);
	struct st_dump d = { 0 };
	struct st_cell *c;
	char *text, path[121];

	memset(path, 'a', 120);
	path[120] = '\0';
	path[0] = '/';
	memcpy(path + 110, "/libc.so.6", 10);
	r.dump = &d;
	ASSERT_EQ(rt_table_keep(t, keep), 0);
	c = rt_row(t);
	rt_u64(&c[0], 7);
	rt_str(&c[1], path);
	rt_str(&c[2], "an extra column that the narrow text leaves out");
	rt_u64(&c[3], 1500);
	ASSERT_EQ(rt_add(&r, t), 0);
	text = report_text(&r);
	EXPECT_STREQ(text,
		     "\ncalls  path                                       "
		     "                                             total\n"
		     "    7  /aaaaaaaaaaaaaaaaaaaaaaaaaa...aaaaaaaaaaaaa"
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/libc.so.6  1.50 us\n"
		     "(not shown: extra; --wide shows them)\n");
	free(text);
	rt_report_free(&r);
}
